"""Benchmark: the club hub under 40 tables, at a player's pace and then at 10x that pace.

A real Mosquitto (tests/broker.py) and the real ``cribbage-board hub`` (a process
of its own, 80 players on 40 tables, one round: every table plays its round-1
pairing again and again). The 40 tables are paho clients in this process, each
with a persistent session, publishing as a board does (QoS 1): every entry of a
game, and each game's result after its last entry.

A player's pace: a six-card game is about 36 entries in 15 minutes, an entry
every 25 s at a table. Here a game is 12 entries then its result (so results,
which move the standings, come often enough to be timed), the tables
staggered across the interval and each at another point of its game when
the run begins.

Measured, for each phase:

- lag from an entry published to the first server-sent event on ``/club/events``
  that shows it (the table's count of entries kept), p50 and p99;
- lag from a result published to the first event whose standings count it, p50 and p99;
- the hub's CPU (its process's user + system time over the phase's wall time) and
  its peak resident memory (VmHWM) at the end;
- apart, in this process: making a round (``scorer.pairings.pair_round``) for 40 and 41
  players (a bye), the slowest of a night's 9 rounds, each after shuffled standings.

Goal: p99 under 1 s at 10x. The run stops, saying so, unless everything timed was
accepted: every entry and result published is in the hub's ledger, once.

Run: ``.venv/bin/python bench/club.py`` (about 2 minutes; ``--seconds N`` for each phase's length).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # before bench/: its ledger.py would hide the ledger package

from firmware.club import schema  # noqa: E402
from ledger.hub import HubReader  # noqa: E402

from broker import Mosquitto, environment, free_port  # noqa: E402
from table import print_table  # noqa: E402

CLUB = "bench"
TABLES = 40
PACE_S = 25.0  # a player's pace: an entry every 25 s at a table
ENTRIES_A_GAME = 12
GOAL_P99_S = 1.0


class Events:
    """The hub's /club/events, read in a thread: each event's arrival time, its tables' entry counts and
    how many games its standings count."""

    def __init__(self, base: str):
        self.seen: list[tuple[float, dict[str, int], int]] = []
        self.lock = threading.Lock()
        self.stream = urllib.request.urlopen(base + "/club/events", timeout=60)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self.stream:
                if not raw.startswith(b"data: "):
                    continue
                at = time.monotonic()
                data = json.loads(raw[6:])
                entries = {t["table"]: t["entries"] for t in data["tables"]}
                games = sum(line["games"] for line in data["standings"]) // 2
                with self.lock:
                    self.seen.append((at, entries, games))
        except (OSError, ValueError):
            return

    def first(self, since: float, test) -> float | None:
        """The arrival of the first event at or after ``since`` for which ``test(entries, games)`` holds."""
        with self.lock:
            seen = list(self.seen)
        return next((at for at, entries, games in seen if at >= since and test(entries, games)), None)


class Tables:
    """40 boards as paho clients, each with a persistent session, publishing entries and results at QoS 1."""

    def __init__(self, port: int, pairings: dict[str, list[str]]):
        import paho.mqtt.client as mqtt

        self.pairings = pairings
        self.ledger = {t: os.urandom(8).hex() for t in pairings}
        self.game = {t: 1 for t in pairings}
        # the tables are at every point of a game when the run begins (their earlier entries not sent)
        self.seq = {t: k % (ENTRIES_A_GAME + 1) for k, t in enumerate(pairings)}
        self.entries_sent = {t: 0 for t in pairings}
        self.results_sent = 0
        self.clients = {}
        for table in pairings:
            client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"cribbage-{CLUB}-table-{table}",
                                 clean_session=False, protocol=mqtt.MQTTv311)
            client.connect("127.0.0.1", port, keepalive=30)
            client.loop_start()
            self.clients[table] = client
        self.topics = schema.Topics(CLUB)

    def step(self, table: str) -> tuple[str, int]:
        """The table's next message: ("entry", its count of entries sent) or ("result", games finished in all)."""
        a, b = self.pairings[table]
        game, seq = self.game[table], self.seq[table]
        client = self.clients[table]
        if seq <= ENTRIES_A_GAME:
            line = f"game six-card seats={a},{b} dealer={a}" if seq == 0 else f"hand {(a, b)[seq % 2]} 8"
            payload = schema.entry_payload(table, self.ledger[table], game, seq, line, None)
            client.publish(self.topics.of_table("entry", table), schema.encode(payload), qos=1)
            self.seq[table] += 1
            self.entries_sent[table] += 1
            return "entry", self.entries_sent[table]
        loser = 60 + (game * 7 + int(table)) % 60  # skunks, double skunks and plain wins
        outcome = {"winner": a, "losers": [{"side": b, "score": loser, "result": "win", "margin": 121 - loser,
                                            "game_points": 2}], "margin": 121 - loser, "result": "win",
                   "game_points": 2}
        payload = schema.result_payload(table, self.ledger[table], game, seq, "finished", "six-card", [a, b],
                                        {a: 121, b: loser}, outcome, None)
        client.publish(self.topics.of_table("result", table), schema.encode(payload), qos=1)
        self.game[table] += 1
        self.seq[table] = 0
        self.results_sent += 1
        return "result", self.results_sent

    def close(self) -> None:
        for client in self.clients.values():
            client.disconnect()
            client.loop_stop()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def phase(tables: Tables, events: Events, pid: int, interval: float, seconds: float) -> dict:
    """Every table sends a message every ``interval`` seconds (staggered) for ``seconds``; the lags."""
    names = list(tables.pairings)
    sent: list[tuple[str, str, int, float]] = []  # (kind, table, ordinal, when)
    cpu_before, began = cpu_seconds(pid), time.monotonic()
    tick = interval / len(names)
    k = 0
    while time.monotonic() - began < seconds:
        due = began + k * tick
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        table = names[k % len(names)]
        when = time.monotonic()
        kind, ordinal = tables.step(table)
        sent.append((kind, table, ordinal, when))
        k += 1
    wall = time.monotonic() - began
    cpu = cpu_seconds(pid) - cpu_before
    deadline = time.monotonic() + 30
    lags = {"entry": [], "result": []}
    for kind, table, ordinal, when in sent:
        if kind == "entry":
            test = (lambda entries, games, t=table, n=ordinal: entries.get(t, 0) >= n)
        else:
            test = (lambda entries, games, n=ordinal: games >= n)
        while (seen := events.first(when, test)) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if seen is None:
            raise SystemExit(f"bench/club.py: a {kind} of table {table} never showed on /club/events")
        lags[kind].append(seen - when)
    return {"sent": len(sent), "rate": len(sent) / wall, "lags": lags, "cpu": cpu / wall, "peak": peak_mb(pid)}


def slowest_round_s(count: int, rounds: int = 9) -> float:
    """The longest one of ``rounds`` rounds takes to pair ``count`` players (standings shuffled between)."""
    import random

    from scorer.pairings import pair_round

    players, past, slowest = [f"P{n:02d}" for n in range(count)], [], 0.0
    for number in range(rounds):
        began = time.perf_counter()
        past.append(pair_round(players, past, rounds - number - 1))
        slowest = max(slowest, time.perf_counter() - began)
        random.Random(number).shuffle(players)
    return slowest


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="each phase's length (default 60)")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="club-bench-"))
    players = [f"P{n:02d}" for n in range(1, 2 * TABLES + 1)]
    names = [str(n) for n in range(1, TABLES + 1)]
    port = free_port()
    rows = []
    with Mosquitto(folder / "broker") as broker:
        hub = subprocess.Popen(
            [sys.executable, "-m", "firmware.cli", "hub", "--broker", broker.url, "--club", CLUB, "--state",
             str(folder / "hub.sqlite3"), "--port", str(port), "--night", "bench", "--rounds", "1",
             "--players", ",".join(players), "--tables", ",".join(names)],
            env=environment(), cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(folder / "hub.err", "w"))
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    rounds = json.load(urllib.request.urlopen(base + "/api/club/rounds", timeout=5))
                    if rounds["list"]:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline or hub.poll() is not None:
                    raise SystemExit(f"bench/club.py: the hub did not start: {(folder / 'hub.err').read_text()}")
                time.sleep(0.1)
            pairings = {p["table"]: p["players"] for p in rounds["list"][0]["pairings"]}
            events = Events(base)
            tables = Tables(broker.port, pairings)
            for label, pace in (("1x", PACE_S), ("10x", PACE_S / 10)):
                result = phase(tables, events, hub.pid, pace, args.seconds)
                for kind in ("entry", "result"):
                    lags = result["lags"][kind]
                    if lags:
                        rows.append((f"{label}: {kind} -> /club/events p50 / p99 ({len(lags)})",
                                     f"{statistics.median(lags) * 1000:.0f} ms / {percentile(lags, 99) * 1000:.0f} ms"
                                     + (f" (goal p99 < {GOAL_P99_S * 1000:.0f} ms)" if label == "10x" else "")))
                rows.append((f"{label}: messages a second (40 tables)", f"{result['rate']:.1f}"))
                rows.append((f"{label}: hub CPU (user + system / wall)", f"{result['cpu'] * 100:.1f} % of one core"))
                rows.append((f"{label}: hub peak memory (VmHWM)", f"{result['peak']:.1f} MB"))
            with HubReader(folder / "hub.sqlite3") as rows_kept:
                counts = rows_kept.counts()
            entries = sum(tables.entries_sent.values())
            if counts["entries"] != entries or counts["results"] != tables.results_sent:
                raise SystemExit(f"bench/club.py: the hub kept {counts['entries']} entries and {counts['results']} "
                                 f"results of {entries} and {tables.results_sent} sent: the figures do not stand")
            rows.append(("accepted: entries / results in the hub's ledger", f"{entries} / {tables.results_sent} "
                         "(all sent, each once)"))
            tables.close()
        finally:
            hub.terminate()
            hub.wait(30)
    for count in (40, 41):
        rows.append((f"making a round of {count} players: the slowest of 9", f"{slowest_round_s(count) * 1000:.0f} ms"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

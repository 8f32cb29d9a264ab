"""Benchmark: the club hub for a regional event, 40, 200 and 1,000 tables at 10x a player's pace, side by side
with a minimal paho -> SQLite subscriber on the same messages.

For each size, on a fresh real Mosquitto (tests/broker.py) and a fresh ledger:

- the real ``cribbage-board hub`` (a process of its own: 2 players a table, one round, so every table
  plays its round-1 pairing again and again) and the baseline, bench/club_baseline.py (paho -> SQLite: WAL,
  ``synchronous=FULL``, one commit a message, QoS 1, acknowledged after the commit), both subscribed with
  a persistent session to the same stream;
- the tables: paho clients (a persistent session each, QoS 1, as a board publishes: every entry of a game,
  then its result), driven by one selector loop per publisher process (``--publishers``, by default one
  per 250 tables) so the load generator keeps its pace; it is measured (messages a second achieved against
  the target, how late each message left against its plan);
- the live phase (``--seconds``): each table one message every 25 s / ``--pace`` (2.5 s at 10x), the tables
  staggered across the interval and each at another point of its game when the run begins. Timed, on the
  clock every process of the machine shares (``time.monotonic()``):
  entry -> the first event on ``/club/events`` that shows it (the table's ``entries`` reaches its count);
  result -> the first event whose standings count it (the games of the table's first player reach the
  table's count of results: each player sits at one table, so this names the very result);
  for the baseline, entry and result -> its commit. The hub's and the baseline's CPU (user + system over the
  phase's wall time, in % of one core), their peak memory (VmHWM), the events a second and the bytes of each
  event's data line;
- the drain: both stopped (their sessions kept), ``--drain`` messages published by the tables and queued by
  the broker; then the baseline started and timed until its table holds them all, then the hub until its
  ledger does (from the process's start: a restarted hub's start-up is part of what a room waits for);
- the check: every entry and result published is in the hub's ledger once (ledger.hub.HubReader: per table,
  per key) and in the baseline's table; else the run stops, saying so: the figures would not stand.

``/club/events`` in both forms: ``event: message`` (each event the whole live part) or ``event: snapshot``
(the whole, on connecting or when a viewer fell behind) then ``event: delta`` (``base``: the version it
applies to; only the changed tables, and the changed standings rows with their ``place``). The reader keeps
tables by "table" and standings rows by "player", updated by each; a delta whose base is not the version
it holds is counted (it should not happen).

A hub that does not start (or stops) at a size is said in its column, and that size runs with the
baseline alone, so the load generator's pace is still shown.

Estimates for a Pi 4 and a Pi Zero 2 W hub: the hub's CPU here times a single-core slowdown factor, and
that factor's method is printed with it (see ``pi_factors``).

Run: ``.venv/bin/python bench/club.py`` (about 7 minutes: 40, 200 and 1000 tables, 60 s each);
``--tables 40,200``, ``--seconds 20``, ``--drain 2000`` for shorter runs.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import signal
import sqlite3
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

CLUB = "bench"
PACE_S = 25.0  # a player's pace: a six-card game is about 36 entries in 15 minutes, an entry every 25 s at a table
ENTRIES_A_GAME = 12  # a game here is its game line and 12 entries, then its result: results come often enough to time
TABLES_A_PUBLISHER = 250
# The goals (issue: a regional event), at 1,000 tables and 10x.
GOAL_P99_S = 1.0
GOAL_CPU = 0.5
GOAL_HWM_MB = 150
GOAL_EVENT_BYTES = 16 * 1024
GOAL_DRAIN = 2.0  # the hub drains at least 2x as fast as the baseline
# The broker as the club runs it (systemd/mosquitto-cribbage.conf) saves its queues every 60 s, not every 1 s
# as the tests' does: at 1,000 sessions that save would be the broker's main work.
BROKER_MORE = "autosave_interval 60\n"


# ---- what a table sends ---------------------------------------------------------


class Script:
    """One table's messages in order, as a board sends them: a game's line (seq 0) and its entries, then the
    game's result (rev = its entries), then the next game. ``start`` puts the table in the middle of a game."""

    def __init__(self, table: str, players: list[str], start: int):
        self.table, self.players = table, players
        self.ledger = os.urandom(8).hex()
        self.game, self.seq = 1, start % (ENTRIES_A_GAME + 2)
        self.entries = self.results = 0
        self.topics = {kind: schema.Topics(CLUB).of_table(kind, table) for kind in ("entry", "result")}

    def next(self) -> tuple[str, str, bytes, int, tuple]:
        """(kind, topic, payload, this table's count of that kind so far, the key the ledgers keep it by)."""
        a, b = self.players
        game, seq = self.game, self.seq
        if seq <= ENTRIES_A_GAME:
            line = f"game six-card seats={a},{b} dealer={a}" if seq == 0 else f"hand {(a, b)[seq % 2]} 8"
            payload = schema.entry_payload(self.table, self.ledger, game, seq, line, None)
            self.seq += 1
            self.entries += 1
            return "entry", self.topics["entry"], schema.encode(payload), self.entries, (self.ledger, game, seq)
        loser = 60 + (game * 7 + int(self.table)) % 60  # skunks, double skunks, plain wins
        outcome = {"winner": a, "losers": [{"side": b, "score": loser, "result": "win", "margin": 121 - loser,
                                            "game_points": 2}], "margin": 121 - loser, "result": "win",
                   "game_points": 2}
        payload = schema.result_payload(self.table, self.ledger, game, seq, "finished", "six-card", [a, b],
                                        {a: 121, b: loser}, outcome, None)
        self.game += 1
        self.seq = 0
        self.results += 1
        return "result", self.topics["result"], schema.encode(payload), self.results, (self.ledger, game, seq)


def publisher(conn, port: int, specs: list[tuple[int, str, list[str]]]) -> None:
    """A publisher process: its tables (``specs``: (index among all tables, table, players)) as paho clients
    on one selector loop (no thread per client), doing what ``conn`` asks: "live", "burst", "close"."""
    import selectors

    import paho.mqtt.client as mqtt

    scripts = [Script(table, players, index) for index, table, players in specs]
    counts = {"connected": 0, "acked": 0, "published": 0}
    selector = selectors.DefaultSelector()
    clients = []
    for script in scripts:
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"cribbage-{CLUB}-table-{script.table}",
                             clean_session=False, protocol=mqtt.MQTTv311)
        client.on_connect = lambda *_: counts.__setitem__("connected", counts["connected"] + 1)
        client.on_publish = lambda *_: counts.__setitem__("acked", counts["acked"] + 1)
        client.connect("127.0.0.1", port, keepalive=60)
        selector.register(client.socket(), selectors.EVENT_READ, client)
        clients.append(client)
    misc_at = [time.monotonic() + 1]

    def service(timeout: float) -> None:
        for key, _ in selector.select(max(0.0, timeout)):
            client = key.data
            if client.loop_read(100) not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_AGAIN):
                raise RuntimeError("a table lost its connection to the broker")
            if client.want_write():
                client.loop_write()
        if time.monotonic() >= misc_at[0]:
            misc_at[0] = time.monotonic() + 1
            for client in clients:
                client.loop_misc()
                if client.want_write():
                    client.loop_write()

    def settle(deadline: float) -> None:
        while counts["acked"] < counts["published"] and time.monotonic() < deadline:
            service(0.05)

    def send(i: int) -> tuple:
        kind, topic, data, ordinal, key = scripts[i].next()
        when = time.monotonic()
        clients[i].publish(topic, data, qos=1)
        counts["published"] += 1
        return kind, scripts[i].table, ordinal, when, key

    deadline = time.monotonic() + 120
    while counts["connected"] < len(clients) and time.monotonic() < deadline:
        service(0.05)
    conn.send(("ready", counts["connected"]))
    while True:
        command = conn.recv()
        cpu = time.process_time()
        if command[0] == "live":
            _, began, seconds, interval, total = command
            plan = sorted((began + spec[0] * interval / total + j * interval, i)
                          for i, spec in enumerate(specs)
                          for j in range(math.ceil((seconds - spec[0] * interval / total) / interval)))
            records = []
            for due, i in plan:
                while (wait := due - time.monotonic()) > 0:
                    service(wait)
                records.append((*send(i), due))
                if wait < 0:
                    service(0)
            settle(time.monotonic() + 60)
        elif command[0] == "burst":
            _, each = command
            records = []
            for _ in range(max(each) if each else 0):
                for i, count in enumerate(each):
                    if count > 0:
                        each[i] -= 1
                        records.append((*send(i), None))
                service(0)
            settle(time.monotonic() + 300)
        else:
            for client in clients:
                client.disconnect()
            conn.send(("closed",))
            return
        conn.send(("done", records, counts["published"] - counts["acked"], time.process_time() - cpu))


class Publishers:
    """The tables, spread over ``processes`` publisher processes (spawned: no threads forked)."""

    def __init__(self, port: int, pairings: dict[str, list[str]], processes: int):
        context = multiprocessing.get_context("spawn")
        specs = [(index, table, players) for index, (table, players) in enumerate(pairings.items())]
        self.tables = len(specs)
        self.share = [specs[k::processes] for k in range(processes)]
        self.links, self.processes = [], []
        for share in self.share:
            ours, theirs = context.Pipe()
            process = context.Process(target=publisher, args=(theirs, port, share), daemon=True)
            process.start()
            self.links.append(ours)
            self.processes.append(process)
        for link, share in zip(self.links, self.share):
            answer = self._answer(link, 180)
            if answer[1] != len(share):
                raise SystemExit(f"bench/club.py: {answer[1]} of {len(share)} tables connected to the broker")

    def _answer(self, link, timeout: float):
        if not link.poll(timeout):
            raise SystemExit("bench/club.py: a publisher process did not answer")
        return link.recv()

    def _all(self, commands: list[tuple], timeout: float, meanwhile=lambda: None) -> tuple[list, int, float]:
        for link, command in zip(self.links, commands):
            link.send(command)
        meanwhile()
        records, unacked, cpu = [], 0, 0.0
        for link in self.links:
            _, got, left, seconds = self._answer(link, timeout)
            records += got
            unacked += left
            cpu += seconds
        if unacked:
            raise SystemExit(f"bench/club.py: the broker did not acknowledge {unacked} messages the tables sent")
        return records, unacked, cpu

    def live(self, began: float, seconds: float, interval: float, meanwhile) -> tuple[list, float]:
        """The live phase from ``began`` (``meanwhile()`` is called once the publishers have their plan)."""
        records, _, cpu = self._all([("live", began, seconds, interval, self.tables)] * len(self.links),
                                    seconds + 180, meanwhile)
        return records, cpu

    def burst(self, count: int) -> list:
        each = [count // self.tables + (index < count % self.tables) for index in range(self.tables)]
        commands = [("burst", [each[index] for index, _, _ in share]) for share in self.share]
        return self._all(commands, 600)[0]

    def close(self) -> None:
        for link in self.links:
            try:
                link.send(("close",))
                link.poll(10) and link.recv()
            except (OSError, EOFError):
                pass
        for process in self.processes:
            process.join(10)
            if process.is_alive():
                process.kill()


# ---- /club/events ------------------------------------------------------------------


class Live:
    """What ``/club/events`` has shown so far, from its lines (:meth:`line`), in either form: ``event: message``
    (today's: each the whole live part) or ``event: snapshot`` (the whole) then ``event: delta`` (the changed
    tables and standings rows; ``base``, the version it applies to). Keeps the tables by "table" and the
    standings rows by "player", and when each table's ``entries`` and each player's ``games`` first reached
    each count (``reached_entries[table][n - 1]``: the arrival of the first event showing n)."""

    def __init__(self):
        self.tables: dict[str, dict] = {}
        self.rows: dict[str, dict] = {}
        self.version = None
        self.gaps = 0  # deltas whose base was not the version held
        self.reached_entries: dict[str, list[float]] = {}
        self.reached_games: dict[str, list[float]] = {}
        self.events: list[tuple[float, str, int]] = []  # (arrival, event type, bytes of its data)
        self._kind, self._data = "message", []

    def line(self, raw: bytes, at: float) -> None:
        """One line of the stream, arrived at ``at``; a blank line ends an event."""
        line = raw.rstrip(b"\r\n")
        if not line:
            if self._data:
                self.take(self._kind, b"\n".join(self._data), at)
            self._kind, self._data = "message", []
        elif line.startswith(b"data:"):
            self._data.append(line[6:] if line.startswith(b"data: ") else line[5:])
        elif line.startswith(b"event:"):
            self._kind = line[6:].strip().decode()
        # ": ..." is a comment (the keep-alive); "id:" and "retry:" are not used

    def take(self, kind: str, data: bytes, at: float) -> None:
        value = json.loads(data)
        self.events.append((at, kind, len(data)))
        if kind == "delta":
            if value.get("base") != self.version:
                self.gaps += 1
        else:  # "message" (the whole, today's form) or "snapshot"
            self.tables.clear()
            self.rows.clear()
        changed_tables, changed_rows = value.get("tables") or [], value.get("standings") or []
        self.tables.update((each["table"], each) for each in changed_tables)
        self.rows.update((row["player"], row) for row in changed_rows)
        self.version = value.get("version")
        for each in changed_tables:
            seen = self.reached_entries.setdefault(each["table"], [])
            seen += [at] * (int(each.get("entries", 0)) - len(seen))
        for row in changed_rows:
            seen = self.reached_games.setdefault(row["player"], [])
            seen += [at] * (int(row.get("games", 0)) - len(seen))

    def reached(self, entries: dict[str, int], games: dict[str, int]) -> bool:
        return all(len(self.reached_entries.get(t, ())) >= n for t, n in entries.items()) and \
            all(len(self.reached_games.get(p, ())) >= n for p, n in games.items())


def watcher(conn, url: str) -> None:
    """The events reader, a process of its own (the events' arrival is timed as each line is read, and
    parsing a big event must not wait for the bench's other work): answers "collect" by waiting until the
    counts it is given are reached, then sending what :class:`Live` noted."""
    live, lock = Live(), threading.Lock()
    state = {"error": None, "first": threading.Event()}

    def read() -> None:
        try:
            for raw in urllib.request.urlopen(url, timeout=3600):
                at = time.monotonic()
                with lock:
                    live.line(raw, at)
                    if live.events:
                        state["first"].set()
        except (OSError, ValueError, KeyError, TypeError) as error:  # said in the answer
            state["error"] = f"{type(error).__name__}: {error}"
            state["first"].set()

    threading.Thread(target=read, daemon=True).start()
    if not state["first"].wait(60):
        state["error"] = "no event within 60 s"
    conn.send(("ready", state["error"]))
    began_cpu, began = time.process_time(), time.monotonic()
    while True:
        command = conn.recv()
        if command[0] != "collect":
            return
        _, entries, games, deadline = command
        while time.monotonic() < deadline and state["error"] is None:
            with lock:
                if live.reached(entries, games):
                    break
            time.sleep(0.05)
        with lock:
            conn.send((live.reached_entries, live.reached_games, live.events, live.gaps, state["error"],
                       (time.process_time() - began_cpu) / max(time.monotonic() - began, 1e-9)))


# ---- the processes ---------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


class HubFailed(Exception):
    """The hub did not start, or stopped; the message is its last words."""


class Hub:
    """``cribbage-board hub`` as a subprocess (never imported: the bench drives it as a room would)."""

    def __init__(self, folder: Path, broker_url: str, players: list[str], tables: list[str]):
        self.folder, self.state = folder, folder / "hub.sqlite3"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.argv = [sys.executable, "-m", "firmware.cli", "hub", "--broker", broker_url, "--club", CLUB,
                     "--state", str(self.state), "--host", "127.0.0.1", "--port", str(self.port), "--night", "bench",
                     "--rounds", "1", "--players", ",".join(players), "--tables", ",".join(tables)]
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> float:
        self.starts += 1
        self.err = self.folder / f"hub-{self.starts}.err"
        began = time.monotonic()
        with open(self.err, "w") as err:
            self.process = subprocess.Popen(self.argv, env=environment(), cwd=ROOT, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=err)
        return began

    def said(self) -> str:
        lines = [line for line in self.err.read_text(errors="replace").splitlines() if line.strip()]
        return lines[-1].strip() if lines else "nothing on standard error"

    def alive(self) -> None:
        if self.process.poll() is not None:
            raise HubFailed(f"the hub stopped ({self.process.returncode}): {self.said()}")
        if "Traceback" in self.err.read_text(errors="replace"):
            raise HubFailed(f"a thread of the hub failed: {self.said()}")

    def pairings(self, timeout: float) -> dict[str, list[str]]:
        """Round 1's pairings, once the hub answers with them."""
        deadline = time.monotonic() + timeout
        while True:
            self.alive()
            try:
                with urllib.request.urlopen(self.base + "/api/club/rounds", timeout=5) as answer:
                    rounds = json.load(answer)
                if rounds["list"]:
                    return {p["table"]: p["players"] for p in rounds["list"][0]["pairings"]}
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise HubFailed(f"no round 1 within {timeout:.0f} s: {self.said()}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)  # it writes what it holds and says it is gone
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Baseline:
    """bench/club_baseline.py as a subprocess."""

    def __init__(self, folder: Path, port: int):
        self.folder, self.db = folder, folder / "baseline.sqlite3"
        self.port = port
        self.process: subprocess.Popen | None = None
        self.runs = 0

    def start(self) -> float:
        self.runs += 1
        self.out = self.folder / f"baseline-{self.runs}.json"
        began = time.monotonic()
        with open(self.folder / f"baseline-{self.runs}.err", "w") as err:
            self.process = subprocess.Popen(
                [sys.executable, str(ROOT / "bench" / "club_baseline.py"), "--port", str(self.port), "--db",
                 str(self.db), "--out", str(self.out), "--club", CLUB], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=err)
        return began

    def wait_subscribed(self) -> None:
        deadline = time.monotonic() + 60
        while not self.out.with_suffix(".ready").exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("bench/club.py: the baseline did not subscribe: "
                                 + (self.folder / f"baseline-{self.runs}.err").read_text()[-500:])
            time.sleep(0.02)

    def stop(self) -> dict[tuple, float]:
        """Stopped; each message's first commit time by (kind, table, ledger, game, number)."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(60)
        first: dict[tuple, float] = {}
        for kind, *key, at in json.loads(self.out.read_text()):
            first.setdefault((kind, *key), at)
        return first

    def counts(self) -> tuple[dict[str, int], set]:
        """Entries kept per table, and the results' keys (table, ledger, game, rev)."""
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            entries = dict(db.execute("SELECT tbl, count(*) FROM entries GROUP BY tbl"))
            results = set(db.execute("SELECT tbl, ledger, game, rev FROM results"))
        db.close()
        return entries, results

    def total(self) -> int:
        try:
            with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
                total = db.execute("SELECT (SELECT count(*) FROM entries) + (SELECT count(*) FROM results)").fetchone()
            db.close()
            return total[0]
        except sqlite3.Error:
            return 0


def hub_total(reader: HubReader) -> int:
    counts = reader.counts()
    return counts["entries"] + counts["results"]


# ---- one size --------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def lag_figures(lags: list[float], missing: int, ceiling: float) -> dict:
    """p50 and p99 of ``lags``; a message that never showed counts as past ``ceiling``."""
    every = sorted(lags) + [math.inf] * missing
    if not every:
        return {"n": 0}
    return {"n": len(every), "p50": percentile(every, 50), "p99": percentile(every, 99), "missing": missing,
            "ceiling": ceiling}


def wait_total(count, expected: int, timeout: float, alive=lambda: None) -> tuple[float | None, float | None]:
    """Poll ``count()`` until it reaches ``expected``: (when the first row appeared, when the last did)."""
    first = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive()
        now, got = time.monotonic(), count()
        if first is None and got > 0:
            first = now
        if got >= expected:
            return first, now
        time.sleep(0.02)
    return first, None


def run_size(tables: int, args) -> dict:
    """One size, on its own broker and ledgers; its figures."""
    folder = Path(tempfile.mkdtemp(prefix=f"club-bench-{tables}-"))
    width = len(str(2 * tables))
    players = [f"P{n:0{width}d}" for n in range(1, 2 * tables + 1)]
    names = [str(n) for n in range(1, tables + 1)]
    interval = PACE_S / args.pace
    out = {"tables": tables, "load_before": load(), "target_rate": tables / interval}
    with Mosquitto(folder / "broker", more=BROKER_MORE) as broker:
        baseline = Baseline(folder, broker.port)
        baseline.start()
        baseline.wait_subscribed()
        hub = Hub(folder, broker.url, players, names)
        hub.start()
        pairings = None
        try:
            pairings = hub.pairings(60 + tables * 0.1)
        except HubFailed as failed:
            out["hub_failed"] = str(failed)
            hub.stop()
        if pairings is None:
            pairings = {name: players[2 * k:2 * k + 2] for k, name in enumerate(names)}
        publishers = Publishers(broker.port, pairings, args.publishers or math.ceil(tables / TABLES_A_PUBLISHER))
        watch = None
        try:
            if "hub_failed" not in out:
                context = multiprocessing.get_context("spawn")
                ours, theirs = context.Pipe()
                watch = context.Process(target=watcher, args=(theirs, hub.base + "/club/events"), daemon=True)
                watch.start()
                ready = ours.recv() if ours.poll(90) else ("ready", "no first event within 90 s")
                if ready[1]:
                    raise SystemExit(f"bench/club.py: /club/events: {ready[1]}")
            try:
                live(out, args, hub, baseline, publishers, pairings, interval, ours if watch else None)
                if watch is not None:
                    ours.send(("stop",))
                    watch.join(10)
                drain(out, args, hub, baseline, publishers)
            except HubFailed as failed:  # the rest of the size runs without it
                out["hub_failed"] = str(failed)
                hub.stop()
                if baseline.process.poll() is None:
                    baseline.stop()
                if "drain_records" not in out:
                    drain(out, args, hub, baseline, publishers)
            accepted(out, hub, baseline, publishers)
        finally:
            publishers.close()
            hub.stop()
            if baseline.process and baseline.process.poll() is None:
                baseline.process.kill()
            if watch is not None and watch.is_alive():
                watch.kill()
    out["load_after"] = load()
    out["rounds"] = round_time(len(players)) if args.round_timing else None
    return out


def live(out: dict, args, hub: Hub, baseline: Baseline, publishers: Publishers, pairings, interval: float,
         watch) -> None:
    """The live phase: the tables at their pace for ``args.seconds``, the hub and the baseline side by side."""
    running = "hub_failed" not in out
    began = time.monotonic() + 1.0
    cpu = {}

    def at_start() -> None:
        time.sleep(max(0.0, began - time.monotonic()))
        cpu.update(hub=cpu_seconds(hub.process.pid) if running else 0.0, baseline=cpu_seconds(baseline.process.pid))

    records, publisher_cpu = publishers.live(began, args.seconds, interval, at_start)
    wall = time.monotonic() - began
    out["hub_cpu"] = (cpu_seconds(hub.process.pid) - cpu["hub"]) / wall if running else None
    out["baseline_cpu"] = (cpu_seconds(baseline.process.pid) - cpu["baseline"]) / wall
    out["publisher_cpu"] = publisher_cpu / wall
    out["sent"] = len(records)
    # all of a phase's messages are due within it: one sent after its end is the generator falling behind
    out["rate"] = len(records) / max(args.seconds, max((when for _, _, _, when, _, _ in records), default=0) - began)
    lateness = [when - due for _, _, _, when, _, due in records]
    out["late_p99"], out["late_max"] = percentile(lateness, 99), max(lateness)
    out["live_records"] = records
    ceiling = max(30.0, args.seconds)
    if running:
        entries, games = {}, {}
        for kind, table, ordinal, _, _, _ in records:
            if kind == "entry":
                entries[table] = max(entries.get(table, 0), ordinal)
            else:
                games[pairings[table][0]] = max(games.get(pairings[table][0], 0), ordinal)
        watch.send(("collect", entries, games, time.monotonic() + ceiling))
        if not watch.poll(ceiling + 60):
            raise SystemExit("bench/club.py: the events reader did not answer")
        reached_entries, reached_games, events, gaps, error, reader_cpu = watch.recv()
        lags = {"entry": [], "result": []}
        missing = {"entry": 0, "result": 0}
        for kind, table, ordinal, when, _, _ in records:
            seen = reached_entries.get(table, []) if kind == "entry" else reached_games.get(pairings[table][0], [])
            if len(seen) >= ordinal:
                lags[kind].append(seen[ordinal - 1] - when)
            else:
                missing[kind] += 1
        out["entry"] = lag_figures(lags["entry"], missing["entry"], ceiling)
        out["result"] = lag_figures(lags["result"], missing["result"], ceiling)
        in_phase = [each for each in events if began <= each[0] <= began + wall]
        sizes = [size for _, _, size in in_phase] or [0]
        out["events_rate"] = len(in_phase) / wall
        out["event_bytes"] = (statistics.mean(sizes), max(sizes))
        out["event_kinds"] = sorted({kind for _, kind, _ in events})
        out["gaps"], out["reader_error"], out["reader_cpu"] = gaps, error, reader_cpu
        out["hub_hwm"] = peak_mb(hub.process.pid)
        out["hub_cpu_per_message"] = out["hub_cpu"] * wall / max(len(records), 1)
    # the baseline: everything committed (it may be far behind: a commit a message), then stopped, its session
    # kept for the drain
    wait_total(baseline.total, len(records), max(ceiling, len(records) / 100))
    out["baseline_hwm"] = peak_mb(baseline.process.pid)
    committed = baseline.stop()
    lags = {"entry": [], "result": []}
    missing = {"entry": 0, "result": 0}
    for kind, table, _, when, key, _ in records:
        at = committed.get((kind, table, *key))
        if at is None:
            missing[kind] += 1
        else:
            lags[kind].append(at - when)
    out["baseline_entry"] = lag_figures(lags["entry"], missing["entry"], ceiling)
    out["baseline_result"] = lag_figures(lags["result"], missing["result"], ceiling)
    if running:
        hub.alive()


def drain(out: dict, args, hub: Hub, baseline: Baseline, publishers: Publishers) -> None:
    """Both away, ``args.drain`` messages queued for them; each started alone and timed until it has all."""
    running = "hub_failed" not in out
    hub.stop()
    before = out["sent"]
    out["drain_records"] = publishers.burst(args.drain) if args.drain else []
    expected = before + len(out["drain_records"])
    out["drained"] = len(out["drain_records"])
    if not args.drain:
        return
    timeout = 60 + args.drain / 20
    began = baseline.start()
    first, last = wait_total(lambda: baseline.total() - before, expected - before, timeout)
    out["baseline_drain"] = (last - began if last else None, first - began if first else None)
    out["baseline_drain_hwm"] = peak_mb(baseline.process.pid)
    baseline.stop()
    if not running:
        return
    began = hub.start()
    deadline = time.monotonic() + 60
    while not hub.state.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    with HubReader(hub.state) as reader:
        first, last = wait_total(lambda: hub_total(reader) - before, expected - before, timeout, hub.alive)
    out["hub_drain"] = (last - began if last else None, first - began if first else None)
    out["hub_drain_hwm"] = peak_mb(hub.process.pid)


def accepted(out: dict, hub: Hub, baseline: Baseline, publishers: Publishers) -> None:
    """Every entry and result published is in each ledger once; else stop, saying so."""
    records = out["live_records"] + out["drain_records"]
    entries: dict[str, int] = {}
    results = set()
    for kind, table, _, _, key, _ in records:
        if kind == "entry":
            entries[table] = entries.get(table, 0) + 1
        else:
            results.add((table, *key))
    problems = []
    if "hub_failed" not in out:
        with HubReader(hub.state) as reader:
            night = reader.nights()[0].id
            kept_entries = reader.entry_counts(night)
            kept_results = [(row.table, row.ledger, row.game, row.rev) for row in reader.results(night)]
            conflicts = reader.counts()["conflicts"]
        if kept_entries != entries:
            problems.append(f"the hub kept {sum(kept_entries.values())} entries of {sum(entries.values())} sent "
                            f"({sum(kept_entries.get(t) != n for t, n in entries.items())} tables differ)")
        if sorted(kept_results) != sorted(results):
            problems.append(f"the hub kept {len(kept_results)} results of {len(results)} sent")
        if conflicts:
            problems.append(f"the hub noted {conflicts} conflicts")
    base_entries, base_results = baseline.counts()
    if base_entries != entries or base_results != results:
        problems.append(f"the baseline kept {sum(base_entries.values())} entries and {len(base_results)} results of "
                        f"{sum(entries.values())} and {len(results)} sent")
    if problems:
        raise SystemExit(f"bench/club.py, {out['tables']} tables: " + "; ".join(problems)
                         + ": the figures do not stand")
    out["accepted"] = (sum(entries.values()), len(results))


def round_time(count: int, rounds: int = 3) -> str:
    """The slowest of the first ``rounds`` rounds of a 9-round night for ``count`` players (standings shuffled
    between), in this process."""
    from scorer.pairings import pair_round

    names, past, slowest = [f"P{n:04d}" for n in range(count)], [], 0.0
    try:
        for number in range(rounds):
            began = time.perf_counter()
            past.append(pair_round(names, past, 8 - number))
            slowest = max(slowest, time.perf_counter() - began)
            random.Random(number).shuffle(names)
    except Exception as error:  # RecursionError, say: a row says it
        return f"{type(error).__name__} after {time.perf_counter() - began:.1f} s"
    return f"{slowest * 1000:.0f} ms"


# ---- the Pi estimates ------------------------------------------------------------

# The Computer Language Benchmarks Game's n-body, its plain Python program (#1), 5,000,000 steps: 158.3 s
# on a Raspberry Pi 4 at 1.5 GHz, performance governor (published: chaitanyamehta.github.io, "Performance
# Analysis of Languages on Raspberry Pi"; the Python version is not given). nbody_seconds() runs the same
# loop here, in this run.
NBODY_PI4_S, NBODY_PI4_STEPS = 158.3, 5_000_000
# One core of a Zero 2 W (Cortex-A53, 1.0 GHz) against one of a Pi 4: sysbench cpu, one thread (leoncode.co.uk,
# "Raspberry Pi CPU Benchmarks"): Pi 4 1477.83 events/s, Pi 3B+ (the same Cortex-A53, 1.4 GHz) 687.45,
# scaled to 1.0 GHz: 491. So 3.0x.
ZERO2W_OVER_PI4 = 1477.83 / (687.45 / 1.4)
# n-body is float arithmetic in a loop; the hub's work is dicts, strings, JSON and SQLite, which lean on the
# caches, and the A72's (1 MB L2, no L3) are smaller: the high end assumes twice the n-body ratio (not measured).
MEMORY_BOUND = 2.0


def nbody_seconds(steps: int) -> float:
    """The n-body loop (as the Benchmarks Game's Python #1 writes it) for ``steps`` steps: its CPU time here
    (not wall time: other work on this shared machine would count)."""
    solar = 4 * math.pi * math.pi
    year = 365.24
    bodies = [([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], solar)] + [
        (list(position), [v * year for v in velocity], mass * solar) for position, velocity, mass in (
            ((4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01),
             (1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05), 9.54791938424326609e-04),
            ((8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01),
             (-2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05), 2.85885980666130812e-04),
            ((1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01),
             (2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05), 4.36624404335156298e-05),
            ((1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01),
             (2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05), 5.15138902046611451e-05))]
    pairs = [(bodies[i], other) for i in range(len(bodies) - 1) for other in bodies[i + 1:]]
    dt = 0.01
    began = time.process_time()
    for _ in range(steps):
        for (([x1, y1, z1], v1, m1), ([x2, y2, z2], v2, m2)) in pairs:
            dx, dy, dz = x1 - x2, y1 - y2, z1 - z2
            mag = dt * ((dx * dx + dy * dy + dz * dz) ** (-1.5))
            b1m, b2m = m1 * mag, m2 * mag
            v1[0] -= dx * b2m
            v1[1] -= dy * b2m
            v1[2] -= dz * b2m
            v2[0] += dx * b1m
            v2[1] += dy * b1m
            v2[2] += dz * b1m
        for (r, [vx, vy, vz], m) in bodies:
            r[0] += dt * vx
            r[1] += dt * vy
            r[2] += dt * vz
    return time.process_time() - began


def pi_factors(steps: int) -> dict:
    """How many times slower than one core here one core of each Pi runs the hub's Python: (low, high)."""
    here = nbody_seconds(steps) * NBODY_PI4_STEPS / steps
    pi4 = NBODY_PI4_S / here
    return {"here_s": here, "Pi 4": (pi4, pi4 * MEMORY_BOUND),
            "Pi Zero 2 W": (pi4 * ZERO2W_OVER_PI4, pi4 * ZERO2W_OVER_PI4 * MEMORY_BOUND)}


# ---- the table -------------------------------------------------------------------


def ms(seconds: float) -> str:
    return "never" if math.isinf(seconds) else f"{seconds * 1000:,.0f}"


def lag_cell(figures: dict | None) -> str:
    if not figures or not figures.get("n"):
        return "-"
    cell = f"{ms(figures['p50'])} / {ms(figures['p99'])} ms ({figures['n']:,})"
    if figures["missing"]:
        cell += f", {figures['missing']:,} not within {figures['ceiling']:.0f} s"
    return cell


def ratio(a, b) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def grid(sizes: list[dict], args) -> list[tuple[str, list[str], str]]:
    """(what, a cell per size, the goal at 1,000 tables) rows."""
    rows = []

    def row(what: str, cell, goal: str = "") -> None:
        rows.append((what, [cell(s) for s in sizes], goal))

    def hub(cell):
        return lambda s: "-" if "hub_failed" in s else cell(s)

    row("load average before / after", lambda s: f"{s['load_before']} / {s['load_after']}")
    if any("hub_failed" in s for s in sizes):
        row("the hub", lambda s: f"failed: {s['hub_failed']}" if "hub_failed" in s else "ran")
    row("tables' messages a second: achieved / target",
        lambda s: f"{s['rate']:.1f} / {s['target_rate']:.1f} ({s['sent']:,} sent)")
    row("  a message's lateness against its plan, p99 / max",
        lambda s: f"{s['late_p99'] * 1000:.0f} / {s['late_max'] * 1000:.0f} ms")
    row("  the publishers' CPU (% of one core)", lambda s: f"{s['publisher_cpu'] * 100:.1f} %")
    row("entry -> /club/events, p50 / p99 (n)", hub(lambda s: lag_cell(s["entry"])),
        f"p99 < {GOAL_P99_S * 1000:.0f} ms")
    row("result -> /club/events (standings), p50 / p99 (n)", hub(lambda s: lag_cell(s["result"])),
        f"p99 < {GOAL_P99_S * 1000:.0f} ms")
    row("  baseline: entry -> commit, p50 / p99 (n)", lambda s: lag_cell(s["baseline_entry"]))
    row("  baseline: result -> commit, p50 / p99 (n)", lambda s: lag_cell(s["baseline_result"]))
    row("hub CPU (% of one core) : baseline",
        hub(lambda s: f"{s['hub_cpu'] * 100:.1f} % : {s['baseline_cpu'] * 100:.1f} % "
                      f"({ratio(s['hub_cpu'], s['baseline_cpu'])})"), f"< {GOAL_CPU * 100:.0f} %")
    row("  hub CPU a message", hub(lambda s: f"{s['hub_cpu_per_message'] * 1000:.2f} ms"))
    row("hub VmHWM : baseline", hub(lambda s: f"{s['hub_hwm']:.1f} MB : {s['baseline_hwm']:.1f} MB"),
        f"< {GOAL_HWM_MB} MB")
    row("events a second; their form", hub(lambda s: f"{s['events_rate']:.1f}; " + ", ".join(s["event_kinds"])
                                           + (f"; {s['gaps']} deltas on a base not held" if s["gaps"] else "")))
    row("bytes an event (data line), mean / max",
        hub(lambda s: f"{s['event_bytes'][0]:,.0f} / {s['event_bytes'][1]:,}"), f"<= {GOAL_EVENT_BYTES:,}")
    row("  the events reader's CPU (% of one core)", hub(lambda s: f"{s['reader_cpu'] * 100:.1f} %"))

    def drained(s, who):
        total, first = s.get(f"{who}_drain") or (None, None)
        if total is None:
            return f"not all within {60 + args.drain / 20:.0f} s"
        return f"{total:.2f} s ({s['drained'] / total:,.0f} /s; first row at {first:.2f} s)"

    if args.drain:
        row(f"drain {args.drain:,} queued: hub, from its start", hub(lambda s: drained(s, "hub")))
        row(f"drain {args.drain:,} queued: baseline, from its start", lambda s: drained(s, "baseline"))
        row("  drain time, hub / baseline", hub(lambda s: ratio((s.get("hub_drain") or (None,))[0],
                                                                 (s.get("baseline_drain") or (None,))[0])),
            f"<= {1 / GOAL_DRAIN:.1f}x (2x as fast)")
        row("  VmHWM after the drain, hub : baseline",
            hub(lambda s: f"{s['hub_drain_hwm']:.1f} MB : {s['baseline_drain_hwm']:.1f} MB"))
    row("accepted: entries / results, in each ledger once", lambda s: f"{s['accepted'][0]:,} / {s['accepted'][1]:,}"
        + ("" if "hub_failed" not in s else " (baseline only)"))
    if args.round_timing:
        row("making a round of all the players (9-round night, slowest of the first 3), apart",
            lambda s: s["rounds"])
    return rows


def print_grid(header: list[str], rows: list[tuple[str, list[str], str]]) -> None:
    """A Markdown table, aligned: what, a column per size, the goal."""
    lines = [header] + [[what, *cells, goal] for what, cells, goal in rows]
    widths = [max(len(line[k]) for line in lines) for k in range(len(header))]
    for number, line in enumerate(lines):
        print("| " + " | ".join(cell.ljust(width) for cell, width in zip(line, widths)) + " |")
        if number == 0:
            print("|" + "|".join("-" * (width + 2) for width in widths) + "|")


def estimates(sizes: list[dict], factors: dict, interval: float) -> None:
    """The Pi rows: the hub's CPU here times each board's single-core factor, and the method."""
    ran = [s for s in sizes if "hub_failed" not in s]
    print()
    print(f"Pi estimates: the hub's CPU here x how many times slower one core of the board runs CPython. "
          f"n-body ({NBODY_PI4_STEPS:,} steps of the Benchmarks Game's Python #1 loop): {factors['here_s']:.1f} s "
          f"of CPU here (timed in this run), {NBODY_PI4_S} s on a Pi 4 at 1.5 GHz (published); the high end is "
          f"{MEMORY_BOUND:g}x that (the hub's dicts, JSON and SQLite lean on caches the Cortex-A72 has less of; "
          f"assumed). A Zero 2 W core: the Pi 4's x {ZERO2W_OVER_PI4:.1f} (sysbench cpu, one thread). Memory: "
          "about the same on arm64; a Zero 2 W has 512 MB in all. The SD card's fsync is slower than this disk's: "
          "the lags would be longer still.")
    if not ran:
        return
    print()
    rows = []
    for board in ("Pi 4", "Pi Zero 2 W"):
        low, high = factors[board]
        rows.append((f"{board} ({low:.1f}-{high:.1f}x): the hub's CPU, % of one core",
                     [f"{s['hub_cpu'] * low * 100:.0f}-{s['hub_cpu'] * high * 100:.0f} %" for s in ran], ""))
        cells = []
        for s in ran:
            fast, slow = (GOAL_CPU / (s["hub_cpu_per_message"] * f) for f in (low, high))  # messages a second
            cells.append(f"{slow * interval:,.0f}-{fast * interval:,.0f} ({slow * PACE_S:,.0f}-{fast * PACE_S:,.0f})")
        what = f"{board}: tables under {GOAL_CPU * 100:.0f} % of a core at {PACE_S / interval:g}x (at a player's pace)"
        rows.append((what, cells, "at this size's CPU a message; it grows with the tables: a bound"))
    print_grid(["", *[f"{s['tables']:,} tables" for s in ran], ""], rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="40,200,1000",
                        help="the sizes, a comma-separated list (default 40,200,1000)")
    parser.add_argument("--seconds", type=float, default=60.0, help="the live phase's length at each size (default 60)")
    parser.add_argument("--pace", type=float, default=10.0, help="times a player's pace (default 10: a message a table "
                                                                 "every 2.5 s)")
    parser.add_argument("--drain", type=int, default=10_000, help="messages queued while the hub is away (default "
                                                                  "10000; 0: no drain)")
    parser.add_argument("--publishers", type=int, default=0,
                        help=f"publisher processes (default one per {TABLES_A_PUBLISHER} tables)")
    parser.add_argument("--nbody-steps", type=int, default=100_000,
                        help="n-body steps timed for the Pi estimates (default 100000, about a second)")
    parser.add_argument("--no-round-timing", dest="round_timing", action="store_false",
                        help="leave out making a round of all the players in this process")
    args = parser.parse_args(argv)
    try:
        counts = [int(each) for each in args.tables.split(",")]
    except ValueError:
        parser.error("--tables: whole numbers, comma-separated (40,200,1000)")
    if any(count < 1 for count in counts) or args.seconds <= 0 or args.pace <= 0 or args.drain < 0:
        parser.error("--tables, --seconds and --pace above 0, --drain at least 0")
    print(f"bench/club.py --tables {args.tables} --seconds {args.seconds:g} --pace {args.pace:g} "
          f"--drain {args.drain}; load average {load()}", flush=True)
    factors = pi_factors(args.nbody_steps)
    sizes = []
    for count in counts:
        sizes.append(run_size(count, args))
        print(f"{count} tables done; load average {load()}", file=sys.stderr, flush=True)
    print()
    print_grid(["", *[f"{s['tables']:,} tables" for s in sizes], "goal (1,000 tables)"], grid(sizes, args))
    estimates(sizes, factors, PACE_S / args.pace)
    return 0


if __name__ == "__main__":
    sys.exit(main())

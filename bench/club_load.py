"""bench/club.py's moving parts: the tables (paho clients in publisher processes, each at its pace),
the reader of /club/events (:class:`Live`, in a process of its own), the hub and the paho -> SQLite
baseline as processes, and the figures read of a process (CPU, VmHWM)."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # before bench/: its ledger.py would hide the ledger package

from firmware.wire import schema  # noqa: E402

from broker import environment, free_port  # noqa: E402

CLUB = "bench"
ENTRIES_A_GAME = 12  # a game here is its game line and 12 entries, then its result: results come often enough to time


# ---- what a table sends ---------------------------------------------------------


def _split(total: int) -> list[int]:
    """``total`` as six counts a hand or crib can have (no 19)."""
    each, more = divmod(total, 6)
    counts = [each + 1 if k < more else each for k in range(6)]
    while 19 in counts:  # each step one 19 fewer
        k = counts.index(19)
        others = [j for j in range(6) if j != k and counts[j] == 19]
        if others:
            counts[k], counts[others[0]] = 18, 20
        elif 18 in counts:
            counts[k] = 20
            counts[counts.index(18)] = 17
        else:
            counts[k] = 18
            counts[counts.index(20)] = 21
    return counts


class Script:
    """One table's messages in order, as a board sends them: a game's line (seq 0) and its entries, then the
    game's result (rev = its entries), then the next game. ``start`` is how far into its first game the
    table is when the live phase begins: the messages before it (:attr:`ahead`) are its prologue, sent
    first, so every result the table sends follows all of its game's entries and can be counted."""

    def __init__(self, table: str, players: list[str], start: int):
        self.table, self.players = table, players
        self.ledger = os.urandom(8).hex()
        self.game, self.seq = 1, 0
        self.ahead = start % (ENTRIES_A_GAME + 1)  # the game line and entries before the live phase
        self.entries = self.results = 0
        self.topics = {kind: schema.Topics(CLUB).of_table(kind, table) for kind in ("entry", "result")}

    def loser(self, game: int) -> int:
        return 60 + (game * 7 + int(self.table)) % 60  # skunks, double skunks, plain wins

    def line(self, seq: int) -> str:
        """Entry ``seq`` (1 to 12) of the game: four deals (the dealer a, b, a, b), each the non-dealer's hand,
        the dealer's, the dealer's crib; b counts 121 with the last, a the loser's score: the hub's replay of
        the entries gives the result the table then sends (a game that did not would be held, never counted)."""
        a, b = self.players
        deal, k = divmod(seq - 1, 3)
        dealer, other = (a, b) if deal % 2 == 0 else (b, a)
        who = (other, dealer, dealer)[k]
        if who == b:
            points = (20, 20, 20, 20, 20, 21)[sum(1 for n in range(1, seq) if self._who(n) == b)]
        else:
            points = _split(self.loser(self.game))[sum(1 for n in range(1, seq) if self._who(n) == a)]
        return f"crib {points}" if k == 2 else f"hand {who} {points}"

    def _who(self, seq: int) -> str:
        a, b = self.players
        deal, k = divmod(seq - 1, 3)
        dealer, other = (a, b) if deal % 2 == 0 else (b, a)
        return (other, dealer, dealer)[k]

    def next(self) -> tuple[str, str, bytes, int, tuple]:
        """(kind, topic, payload, this table's count of that kind so far, the key the ledgers keep it by)."""
        a, b = self.players
        game, seq = self.game, self.seq
        if seq <= ENTRIES_A_GAME:
            line = f"game six-card seats={a},{b} dealer={a}" if seq == 0 else self.line(seq)
            payload = schema.entry_payload(self.table, self.ledger, game, seq, line, None)
            self.seq += 1
            self.entries += 1
            return "entry", self.topics["entry"], schema.encode(payload), self.entries, (self.ledger, game, seq)
        loser = self.loser(game)
        outcome = {"winner": b, "losers": [{"side": a, "score": loser, "result": "win", "margin": 121 - loser,
                                            "game_points": 2}], "margin": 121 - loser, "result": "win",
                   "game_points": 2}
        seq -= 1  # the result's rev: its last entry
        payload = schema.result_payload(self.table, self.ledger, game, seq, "finished", "six-card", [a, b],
                                        {a: loser, b: 121}, outcome, None)
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
        if command[0] == "prologue":  # each table's first game up to where its live phase begins, untimed
            records = []
            for i, script in enumerate(scripts):
                for _ in range(script.ahead):
                    records.append((*send(i), None))
                service(0)
            settle(time.monotonic() + 300)
        elif command[0] == "live":
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

    def prologue(self) -> list:
        """Each table's first game up to the point its live phase begins (:attr:`Script.ahead`)."""
        return self._all([("prologue",)] * len(self.links), 600)[0]

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
        changed_rows = [row for row in changed_rows if not row.get("gone")]  # a player no longer shown
        self.rows.update((row["player"], row) for row in changed_rows)
        if not value.get("more"):  # a change sent in several events is whole at its last
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

    def __init__(self, folder: Path, broker_url: str, players: list[str], tables: list[str], root: Path = ROOT):
        self.folder, self.state, self.root = folder, folder / "hub.sqlite3", root
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
            env = environment()
            env["PYTHONPATH"] = os.pathsep.join([str(self.root), env["PYTHONPATH"]])  # its checkout's modules first
            self.process = subprocess.Popen(self.argv, env=env, cwd=self.root, stdin=subprocess.DEVNULL,
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

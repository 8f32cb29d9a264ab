"""The club hub for the tests: ``cribbage-board hub`` as a subprocess, and tables played by plain paho clients.

:class:`HubProcess` runs the real command on a free port against a broker from
``tests/broker.py`` (its standard error in a file, its console on a pipe when
asked) and reads its API. :class:`Table` is a board's side as the schema says
it, without the board: a paho client with a persistent session that publishes
a table's status, entries, state and results (QoS 1), or any bytes at all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from firmware.wire import schema

from broker import environment, free_port
from waits import CEILING_S, eventually

ROOT = Path(__file__).resolve().parent.parent
CLUB = "thu"


class HubProcess:
    """``cribbage-board hub`` for one test (``extra``: more of its options)."""

    def __init__(self, folder: Path, broker_url: str, *extra: str, state: Path | None = None, club: str = CLUB,
                 night: str = "test-night", console: bool = False, port: int | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.state = state or self.folder / "hub.sqlite3"
        self.port_given = port is not None  # else a free port, chosen again if taken before the hub binds it
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.argv = [sys.executable, "-m", "firmware.cli", "hub", "--broker", broker_url, "--club", club,
                     "--state", str(self.state), "--host", "127.0.0.1", "--port", str(self.port),
                     "--night", night, *extra]
        self.console = console
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self, wait: bool = True) -> "HubProcess":
        """Run the hub; with ``wait``, until its API answers. A free port another test's process took between
        its choice and the hub's bind (the tests run in parallel) is replaced by another free port."""
        for _ in range(5):
            self.starts += 1
            self.err = open(self.folder / f"hub-{self.starts}.err", "w")
            self.out = open(self.folder / f"hub-{self.starts}.out", "w")
            self.process = subprocess.Popen(self.argv, env=environment(), cwd=ROOT, stdout=self.out,
                                            stderr=self.err, stdin=subprocess.PIPE if self.console else subprocess.DEVNULL)
            if not wait:
                return self
            assert eventually(lambda: self.process.poll() is not None or self._api_answers()), \
                f"the hub did not answer: {self.log()}"
            said = (self.folder / f"hub-{self.starts}.err").read_text(errors="replace")
            if self.process.poll() is None or self.port_given or f"port {self.port} on 127.0.0.1 is in use" not in said:
                self.answers()  # says why the hub stopped, if it did
                return self
            self._close_files()
            self.port = free_port()
            self.argv[self.argv.index("--port") + 1] = str(self.port)
            self.base = f"http://127.0.0.1:{self.port}"
        raise AssertionError(f"the hub found no free port in 5 tries: {self.log()}")

    def subscribed(self) -> "HubProcess":
        """Wait until this start's hub has subscribed to the tables (its journal says it is connected):
        a table's QoS 1 message sent before that is the broker's to drop, the hub having no session yet."""
        wait_for(lambda: "connected to" in (self.folder / f"hub-{self.starts}.err").read_text(errors="replace")
                 or self.process.poll() is not None, f"the hub did not connect: {self.log()}")
        self.answers()
        return self

    def answers(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"the hub stopped ({self.process.returncode}): {self.log()}")
        return self._api_answers()

    def _api_answers(self) -> bool:
        try:
            urllib.request.urlopen(self.base + "/api/club/standings", timeout=2).close()
        except OSError:
            return False
        return True

    def get(self, path: str):
        """The JSON (or, for other types, the text) at ``path``."""
        with urllib.request.urlopen(self.base + path, timeout=CEILING_S) as answer:
            body = answer.read().decode("utf-8")
            return json.loads(body) if answer.headers.get_content_type() == "application/json" else body

    def standings(self, scope: str = "night") -> list[dict]:
        return self.get(f"/api/club/standings?scope={scope}")

    def rounds(self) -> dict:
        return self.get("/api/club/rounds")

    def snapshot_version(self) -> int:
        """The version of the page's latest snapshot (the live part's ``data-version``)."""
        page = self.get("/club")
        return int(page.split('data-version="', 1)[1].split('"', 1)[0])

    def say(self, line: str) -> None:
        """A line on the director's console."""
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def kill(self) -> None:
        """kill -9: nothing is written, acknowledged or said after it."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(CEILING_S)
        self._close_files()

    def stop(self) -> int:
        if self.process is None or self.process.poll() is not None:
            self._close_files()
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(CEILING_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._close_files()
        return self.process.returncode

    def _close_files(self) -> None:
        if self.process is not None and self.process.stdin:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        for stream in (getattr(self, "err", None), getattr(self, "out", None)):
            if stream is not None and not stream.closed:
                stream.close()

    def log(self) -> str:
        """Everything the hub wrote on standard error, every start."""
        return "".join((self.folder / f"hub-{k}.err").read_text(errors="replace")
                       for k in range(1, self.starts + 1) if (self.folder / f"hub-{k}.err").exists())

    def output(self) -> str:
        return "".join((self.folder / f"hub-{k}.out").read_text(errors="replace")
                       for k in range(1, self.starts + 1) if (self.folder / f"hub-{k}.out").exists())

    def __enter__(self) -> "HubProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class Table:
    """One table's board, played by hand: a paho client publishing what the schema says a board sends."""

    def __init__(self, port: int, table: str, club: str = CLUB, ledger: str | None = None):
        import paho.mqtt.client as mqtt

        self.table, self.club = table, club
        self.ledger = ledger or os.urandom(8).hex()
        self.topics = schema.Topics(club, table)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"cribbage-{club}-table-{table}",
                                  clean_session=False, protocol=mqtt.MQTTv311)
        self.client.reconnect_delay_set(0.2, 1)
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()
        assert eventually(self.client.is_connected), f"table {table} did not connect"

    def send(self, kind: str, payload: dict | bytes, retain: bool = False, topic_table: str | None = None) -> None:
        """Publish at QoS 1 and wait until the broker has it."""
        assert eventually(self.client.is_connected), f"table {self.table} is not connected"
        data = payload if isinstance(payload, bytes) else schema.encode(payload)
        info = self.client.publish(self.topics.of_table(kind, topic_table or self.table), data, qos=1, retain=retain)
        info.wait_for_publish(CEILING_S)

    def online(self, online: bool = True) -> None:
        self.send("status", schema.status_payload(self.table, online, "test"), retain=True)

    def entry(self, game: int, seq: int, line: str) -> None:
        self.send("entry", schema.entry_payload(self.table, self.ledger, game, seq, line, None))

    def state(self, game: int, seq: int, sides: dict[str, int], next_seat: str | None = None) -> None:
        state = {"variant": "six-card", "target": 121, "sides": [{"name": n, "seats": [n], "score": s, "back": 0}
                                                                  for n, s in sides.items()],
                 "next": {"seat": next_seat, "count": "hand"} if next_seat else None, "winner": None}
        self.send("state", schema.state_payload(self.table, self.ledger, game, seq, state), retain=True)

    def result(self, game: int, rev: int, scores: dict[str, int], winner: str | None = None,
               status: str = "finished", variant: str = "six-card", seats: list[str] | None = None) -> dict:
        payload = result_payload(self.table, self.ledger, game, rev, scores, winner, status, variant, seats)
        self.send("result", payload)
        return payload

    def game(self, game: int, scores: dict[str, int]) -> dict:
        """A whole two-player game as a board sends it: entries that replay to ``scores``, then its result."""
        lines = peg_lines(list(scores), tuple(scores.values()))
        for seq, line in enumerate(lines):
            self.entry(game, seq, line)
        return self.result(game, len(lines) - 1, scores)

    def close(self) -> None:
        self.client.disconnect()  # first: the network thread then ends at once, not at its next 1 s select
        self.client.loop_stop()


def result_payload(table: str, ledger: str, game: int, rev: int, scores: dict[str, int], winner: str | None = None,
                   status: str = "finished", variant: str = "six-card", seats: list[str] | None = None) -> dict:
    """A result as a board sends it (its own outcome figures by ACC; the hub works them out again)."""
    seats = seats or list(scores)
    outcome = None
    if status == "finished":
        winner = winner or max(scores, key=scores.get)
        losers = [{"side": side, "score": score, "result": "win", "margin": scores[winner] - score,
                   "game_points": 2} for side, score in scores.items() if side != winner]
        outcome = {"winner": winner, "losers": losers, "margin": losers[0]["margin"], "result": "win",
                   "game_points": 2}
    return schema.result_payload(table, ledger, game, rev, status, variant, seats, scores, outcome, None)


def peg_lines(players: list[str] | tuple[str, ...], scores: tuple[int, int]) -> list[str]:
    """A six-card game's record that replays to ``scores`` (the first player's, the second's): its game
    line, the loser pegging to its score, then the winner to its own (121 ends the game)."""
    first, second = players
    lines = [f"game six-card seats={first},{second} dealer={first}"]
    order = ((second, scores[1]), (first, scores[0]))
    for who, score in (order if scores[0] >= scores[1] else order[::-1]):
        left = score
        while left > 0:
            lines.append(f"peg {who} {min(12, left)}")
            left -= min(12, left)
    return lines


def acc_standings(games: list[tuple[str, int, str, int]]) -> list[dict]:
    """The standings worked out plainly, for checking the hub: each game (winner, their score, loser,
    theirs) by ACC (win 2; a loser under 91 skunked, 3; under 61 double, 3), ranked as the club ranks."""
    table: dict[str, dict] = {}
    for winner, won, loser, lost in games:
        for name in (winner, loser):
            table.setdefault(name, {"player": name, "game_points": 0, "wins": 0, "losses": 0, "spread": 0,
                                    "games": 0})
        table[winner]["game_points"] += 3 if lost < 91 else 2
        table[winner]["wins"] += 1
        table[loser]["losses"] += 1
        table[winner]["spread"] += won - lost
        table[loser]["spread"] -= won - lost
        table[winner]["games"] += 1
        table[loser]["games"] += 1
    return sorted(table.values(), key=lambda s: (-s["game_points"], -s["wins"], -s["spread"], s["player"].casefold()))


# How often a condition that asks the hub's API, or decodes what a listener heard, is asked: a request costs
# the hub and the test some 2 to 4 ms of CPU, which eventually()'s 5 ms pace would spend all along a wait.
ASK_EVERY_S = 0.05


def until(condition, timeout: float = CEILING_S, every: float = ASK_EVERY_S) -> bool:
    """True once ``condition()`` holds, asked every ``every`` s; False if it still does not after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)
    return True


def wait_for(condition, what: str) -> None:
    assert until(condition), what



# ---- whole games in the record format, and tables that are real consoles ----------

LEGAL_COUNTS = [value for value in range(30) if value not in (19, 25, 26, 27)]  # a hand's or a crib's possible totals
TARGET = 121


def game_lines(players: list[str] | tuple[str, ...], seed: str) -> list[str]:
    """A whole six-card game between two players in the record format (the show's counts only, as a
    board may enter them), to its end: who wins and by how much follow from ``seed``."""
    import random

    rng = random.Random(seed)
    first, second = players
    strength = {first: rng.randint(6, 16), second: rng.randint(6, 16)}
    scores = {first: 0, second: 0}
    lines = [f"game six-card seats={first},{second} dealer={first}"]
    dealer, pone = first, second
    while True:
        for who, line in ((pone, f"hand {pone}"), (dealer, f"hand {dealer}"), (dealer, "crib")):
            value = min(LEGAL_COUNTS, key=lambda v: abs(v - rng.randint(0, 2 * strength[who])))
            lines.append(f"{line} {value}")
            scores[who] += value
            if scores[who] >= TARGET:
                return lines
        dealer, pone = pone, dealer


def feed_of(board: "ConsoleTable", table: str, club: str = CLUB) -> tuple[str, dict[tuple[int, int], str]]:
    """A board's ledger id and what it sends the club: {(game, seq): line}, seq 0 its game line."""
    from ledger.feed import items_after
    from ledger.reader import LedgerReader

    with LedgerReader(board.state) as reader:
        items = reader.feed(lambda conn: items_after(conn, (0, 0), 1_000_000, (club, table)))
        ledger = reader.ledger_id()
    sent, seqs = {}, {}
    for item in items:
        seq = seqs[item.game] = seqs.get(item.game, -1) + 1
        sent[(item.game, seq)] = item.line
    return ledger, sent


class ConsoleTable:
    """One table as its own process: ``cribbage-board console`` in the club, its ledger in ``folder``,
    fed record lines on its standard input."""

    def __init__(self, folder: Path, broker_url: str, table: str, club: str = CLUB, settings: list[str] = ()):
        self.table = table
        self.state = Path(folder) / f"table-{table}.sqlite3"
        self.err = open(Path(folder) / f"table-{table}.err", "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "firmware.cli", "console", "--state", str(self.state),
             "--set", f"club.broker={broker_url}", "--set", f"club.name={club}", "--set", f"club.table={table}",
             *[arg for setting in settings for arg in ("--set", setting)]],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self.err, text=True, env=environment(), cwd=ROOT)

    def feed(self, lines: list[str]) -> None:
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def close(self) -> int:
        """End its input: it stops as a console does at the end of its record (0 if all went well)."""
        try:
            self.process.stdin.close()
            return self.process.wait(CEILING_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()
        finally:
            self.err.close()

    def log(self) -> str:
        return (self.state.parent / f"table-{self.table}.err").read_text(errors="replace")


class Cable:
    """A board's network cable to the broker, which a test pulls out and plugs back in: a TCP relay on a port of
    its own to the broker's. Pulled out, it cuts every connection through it and refuses new ones."""

    def __init__(self, broker_port: int):
        import socket

        self.socket = socket
        self.target = broker_port
        self.port = free_port()
        self.links: list = []
        self.server = None
        self.plug()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def plug(self) -> None:
        server = self.socket.socket()
        server.setsockopt(self.socket.SOL_SOCKET, self.socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen(8)
        self.server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def pull(self) -> None:
        for each in [self.server, *self.links]:
            try:
                each.shutdown(self.socket.SHUT_RDWR)
            except OSError:
                pass
            each.close()
        self.links = []

    def _accept(self, server) -> None:
        while True:
            try:
                near, _ = server.accept()
            except OSError:
                return
            try:
                far = self.socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                near.close()
                continue
            self.links += [near, far]
            for source, sink in ((near, far), (far, near)):
                threading.Thread(target=self._relay, args=(source, sink), daemon=True).start()

    def _relay(self, source, sink) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for each in (source, sink):
            try:
                each.shutdown(self.socket.SHUT_RDWR)
            except OSError:
                pass

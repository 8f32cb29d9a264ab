"""Valid game records for the web tests, made by playing the rules with a seeded random choice."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from ledger.writer import LedgerWriter
from scorer.distribution import distribution
from scorer.game import Entry, Phase
from scorer.record import Scorebook, parse_line

from broker import free_port
from waits import CEILING_S, REQUEST_CEILING_S


def _other_user_problem() -> str | None:
    """Why the tests cannot run the web view as another user (nobody) here, or None."""

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return "needs root and setpriv to run as another user"
    probe = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", "import firmware.web"],
        cwd=Path(__file__).parent.parent, capture_output=True, timeout=60,
    )
    if probe.returncode != 0:  # e.g. the tree or the venv under /root (0700)
        return "user nobody cannot run this venv's python on this tree (it is not readable by other users)"
    return None


OTHER_USER_PROBLEM = _other_user_problem()


def deal_lines(game, rng: random.Random) -> list[str]:
    """One deal of entries (heels maybe, a few pegs, the show), stopping when the game ends."""
    out = []

    def push(entry: Entry) -> bool:
        if not game.is_legal(entry):
            return False
        game.push(entry)
        out.append(entry.record())
        return True

    if game.phase is Phase.HEELS and rng.random() < 1 / 13:
        push(Entry.heels())
    seats = list(game.seats)
    for _ in range(rng.randint(2, 5)):
        if game.is_over:
            return out
        seat = rng.choice(seats)
        kind = rng.random()
        if kind < 0.25:
            push(Entry.go(seat))
        elif kind < 0.35:
            push(Entry.thirty_one(seat))
        else:
            push(Entry.peg(seat, rng.choice((1, 2, 2, 2, 3, 4, 6))))
    while not game.is_over:
        nxt = game.next_count()
        if nxt is None:
            break
        seat, what = nxt
        crib = what == "crib"
        table = distribution(4 if crib else game.variant.hand_size, crib)  # as often as real hands
        points = rng.choices(list(table), weights=list(table.values()))[0]
        entry = Entry.crib(points, seat) if crib else Entry.hand(seat, points)
        push(entry)
        if game.phase is Phase.HEELS:  # the show is over: the next deal
            break
    return out


def game_record(header: str, seed: int, entries: int | None = None) -> list[str]:
    """A game record: ``header`` then entries until the game is won (or ``entries`` of them)."""
    rng = random.Random(seed)
    book = Scorebook()
    book.apply(parse_line(header))
    game = book.game
    lines = [header]
    while not game.is_over and (entries is None or len(lines) - 1 < entries):
        lines += deal_lines(game, rng)
    if entries is not None:
        lines = lines[:entries + 1]
    return lines


def match_records(count: int, seats: str = "Alice,Bob", variant: str = "six-card", seed: int = 1) -> list[list[str]]:
    """``count`` finished games of one match, each dealt first by the last game's loser."""
    book = Scorebook()
    records = []
    for k in range(count):
        dealer = book.match.next_dealer() if book.match else seats.split(",")[0]
        record = game_record(f"game {variant} seats={seats} dealer={dealer}", seed + k)
        for line in record:
            book.apply(parse_line(line))
        records.append(record)
    return records


def up_to_a_crib(seed: int = 7) -> list[str]:
    """A six-card game's record up to and including its first crib count."""
    record = game_record("game six-card seats=Alice,Bob dealer=Alice", seed=seed)
    first = next(n for n, line in enumerate(record) if line.startswith("crib"))
    return record[:first + 1]


def write_games(store, records: list[list[str]], kept_before: bool = False) -> None:
    """Apply each record's lines to a LedgerWriter (the writer); with ``kept_before``, game lines as an
    earlier version kept them, before names and lines had today's lengths (scorer.limits): the web view
    still shows such names."""
    from unittest import mock

    from scorer.limits import MAX_LINE, STORED_LINE_MOST
    from scorer.record import GameHeader

    with mock.patch.object(GameHeader, "with_names_checked", lambda header: header) if kept_before else \
            contextlib.nullcontext():
        for record in records:
            for line in record:
                action = parse_line(line, most=STORED_LINE_MOST if kept_before else MAX_LINE)
                if action is not None:
                    store.apply(action)


# ---- the server, as a process of its own ---------------------------------------


ROOT = Path(__file__).resolve().parent.parent


def colour_blind_board(folder: Path) -> tuple[Path, Path]:
    """(ledger, config): a finished match game and a six-card game in play, and a config whose
    leds.palette is colour-blind."""
    state = folder / "ledger.sqlite3"
    config = folder / "config.toml"
    config.write_text('[leds]\npalette = "colour-blind"\n')
    with LedgerWriter(state) as store:
        write_games(store, match_records(1) + [game_record("game six-card seats=Alice,Bob dealer=Alice",
                                                           seed=7, entries=12)])
    return state, config


@contextlib.contextmanager
def web_server(state: Path, *extra: str, timeout: float = CEILING_S, wrap: tuple[str, ...] = (), log: Path | None = None,
               host: str = "127.0.0.1"):
    """``cribbage-board web`` on a free port of ``host`` (127.0.0.1 by default; run by the ``wrap``
    command, if any; its standard error written to ``log``, if given); yields its base URL (127.0.0.1).
    A free port another test's process took before the server bound it (the tests run in parallel) is
    replaced by another."""
    for _ in range(5):
        process, base = _start_web(state, extra, timeout, wrap, log, host)
        if process is not None:
            break
    else:
        raise RuntimeError("the server found no free port in 5 tries")
    try:
        yield base
    finally:
        stop(process)


def _start_web(state: Path, extra: tuple[str, ...], timeout: float, wrap: tuple[str, ...], log: Path | None,
               host: str) -> tuple[subprocess.Popen | None, str]:
    """The web server started and answering, and its base URL; (None, base) if its port was taken."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    errors = subprocess.PIPE if log is None else open(log, "w")
    process = subprocess.Popen(
        [*wrap, sys.executable, "-m", "firmware.cli", "web", "--state", str(state), "--host", host,
         "--port", str(port), *extra],
        stdout=subprocess.PIPE, stderr=errors, text=True, env=env, cwd=ROOT,
    )
    if log is not None:
        errors.close()  # the server has its own copy
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                said = process.stderr.read() if log is None else log.read_text()
                if f"port {port} on {host} is in use" in said:
                    process.stdout.close()
                    if log is None:
                        process.stderr.close()
                    return None, base
                raise RuntimeError(f"the server stopped: {said}")
            try:
                urllib.request.urlopen(base + "/api/games", timeout=2).close()
                break
            except urllib.error.HTTPError:
                break  # it answers (503 while the ledger is missing)
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
    except BaseException:
        stop(process)
        raise
    return process, base


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def get(url: str, method: str = "GET", cookie: str | None = None):
    """(status, headers, body) of a request (with a Cookie header, if given), errors included."""
    request = urllib.request.Request(url, method=method, data=b"x" if method in ("POST", "PUT", "PATCH") else None,
                                     headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_CEILING_S) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def get_json(url: str):
    status, _, body = get(url)
    return status, json.loads(body)


def follow_events(url: str, count: int, got: list, timeout: float = CEILING_S) -> None:
    """Append the first ``count`` data events of a text/event-stream to ``got`` as they arrive."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                got.append(json.loads(line[6:]))
                if len(got) == count:
                    return


def two_games(folder: Path) -> Path:
    """A ledger in ``folder`` of two finished games of Alice and Bob."""
    path = folder / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        write_games(store, match_records(2))
    return path


def exchange(base: str, request: bytes, timeout: float = CEILING_S) -> bytes:
    """All the server sends back for the raw ``request`` until it closes the connection
    (socket.timeout if it has not within ``timeout``)."""
    host, port = base.removeprefix("http://").split(":")
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        answer = b""
        while True:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = sock.recv(65536)
            if not chunk:
                return answer
            answer += chunk


def request(path: str, host: str = "127.0.0.1", method: str = "GET", extra: str = "") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}\r\n".encode("latin-1")


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])

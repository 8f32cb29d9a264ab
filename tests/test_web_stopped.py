"""The web view while no board runs: the ledger's folder read-only to it (as the web unit
mounts it), no -wal or -shm, or the ones a killed board left."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from helpers import read_only_mount_problem

from ledger.errors import LedgerInUseError
from ledger.lock import writer_running
from ledger.writer import LedgerWriter
from scorer.record import parse_line
from scorer.report import state_dict

from waits import CEILING_S, eventually
from web_games import (
    OTHER_USER_PROBLEM,
    ROOT,
    follow_events,
    game_record,
    get,
    get_json,
    match_records,
    web_server,
    write_games,
)

SIX = "game six-card seats=Alice,Bob dealer=Alice"


READ_ONLY = read_only_mount_problem()
needs_read_only = pytest.mark.skipif(READ_ONLY is not None, reason=READ_ONLY or "")


def read_only(folder: Path) -> tuple[str, ...]:
    """A command prefix: run in a mount namespace where ``folder`` is read-only (EROFS), as
    ``ReadOnlyPaths=`` makes it for the web unit; the rest of the system sees it writable."""
    return ("unshare", "-m", "sh", "-c",
            'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', str(folder))


OTHER_USER = OTHER_USER_PROBLEM


def other_user(folder: Path) -> tuple[str, ...]:
    """A command prefix: run as nobody, to whom ``folder`` (0755, files 0644) is read-only (EACCES)."""
    return ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")


# How the web process cannot write the folder: as the unit mounts it (EROFS), or as another user (EACCES).
CANNOT_WRITE = [pytest.param(read_only, id="read-only-mount", marks=pytest.mark.skipif(READ_ONLY is not None, reason=READ_ONLY or "")),
                pytest.param(other_user, id="other-user", marks=pytest.mark.skipif(OTHER_USER is not None, reason=OTHER_USER or ""))]


@pytest.fixture
def folder():
    path = Path(tempfile.mkdtemp(prefix="cribbage-stopped-"))
    path.chmod(0o755)
    old = os.umask(0o022)  # files another user can read, not write
    yield path
    os.umask(old)
    shutil.rmtree(path, ignore_errors=True)


def wait_for(base: str, ready, timeout: float = CEILING_S):
    """(status, body) of /api/state once ``ready(status, body)``; the last answer after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = get_json(base + "/api/state")
        if ready(status, body) or time.monotonic() > deadline:
            return status, body
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("cannot_write", CANNOT_WRITE)
def test_a_stopped_board_is_shown_and_followed_again_when_it_starts(folder, cannot_write):
    """Board stopped (no -wal/-shm, folder read-only): the page and API show the game and the
    history; the board starts again: an entry it writes reaches /events; it stops again: still shown."""
    path = folder / "ledger.sqlite3"
    finished = match_records(2)
    live = game_record(SIX, seed=8, entries=14)
    with LedgerWriter(path) as store:
        write_games(store, finished + [live[:8]])
        expected = state_dict(store.book)
    assert sorted(p.name for p in folder.iterdir()) == ["ledger.sqlite3"]
    with web_server(path, wrap=cannot_write(folder)) as base:
        status, state = get_json(base + "/api/state")
        assert status == 200 and state == expected and state["entries"] == 7
        status, games = get_json(base + "/api/games")
        assert status == 200 and [g["id"] for g in games] == [2, 1]
        assert get(base + "/games")[0] == 200 and get(base + "/games/1")[0] == 200
        _, _, page = get(base + "/")
        assert b"Alice" in page and b'role="alert"' not in page

        got = []
        reader = threading.Thread(target=follow_events, args=(base + "/events", 2, got))
        reader.start()
        assert eventually(lambda: got)  # following the stopped board before it starts again
        with LedgerWriter(path) as store:  # the board starts again
            store.apply(parse_line(live[8]))  # how soon it arrives: bench/stopped_board.py
            reader.join(CEILING_S)
            expected = state_dict(store.book)
            assert [event["state"]["entries"] for event in got] == [7, 8] and got[1]["state"] == expected
            for line in live[9:12]:
                store.apply(parse_line(line))
            status, state = wait_for(base, lambda s, b: s == 200 and b.get("entries") == 11)
            assert state == state_dict(store.book)
        status, state = get_json(base + "/api/state")  # stopped again
        assert status == 200 and state["entries"] == 11
        with LedgerWriter(path) as store:  # and once more: between restarts the view follows
            store.apply(parse_line(live[12]))
            status, state = wait_for(base, lambda s, b: s == 200 and b.get("entries") == 12)
            assert state == state_dict(store.book)
        assert get_json(base + "/api/state") == (200, state)


WRITER = """
import sys, time
from scorer.record import parse_line
from ledger.writer import LedgerWriter
store = LedgerWriter(sys.argv[1])
for line in sys.argv[2:]:
    store.apply(parse_line(line))
print("written", flush=True)
time.sleep(120)
"""


def killed_board(path: Path, lines: list[str]) -> None:
    """A board that writes ``lines`` and is killed (SIGKILL): its -wal (with the frames) and -shm stay."""
    board = subprocess.Popen([sys.executable, "-c", WRITER, str(path), *lines], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert board.stdout.readline().strip() == "written"
    finally:
        board.send_signal(signal.SIGKILL)
        board.wait()
        board.stdout.close()


@pytest.mark.slow
@pytest.mark.parametrize("cannot_write", CANNOT_WRITE)
def test_a_killed_boards_entries_are_shown_or_said_never_left_out(folder, cannot_write):
    """A board killed after entries: with its -wal and -shm SQLite reads the entries read-only; with
    the -wal alone it cannot, and the page says so in one line instead of showing the game without
    them; once the board starts again (it takes the entries in), the view shows them."""
    path = folder / "ledger.sqlite3"
    record = game_record(SIX, seed=9, entries=12)
    with LedgerWriter(path) as store:
        write_games(store, [record[:5]])
    killed_board(path, record[5:])
    wal = Path(f"{path}-wal")
    assert wal.stat().st_size > 32 and Path(f"{path}-shm").exists() and writer_running(path) is False
    with web_server(path, wrap=cannot_write(folder)) as base:
        status, state = get_json(base + "/api/state")
        assert status == 200 and state["entries"] == 12  # the frames in the -wal, not the 4 in the file
    Path(f"{path}-shm").unlink()
    with web_server(path, wrap=cannot_write(folder)) as base:
        status, body = get_json(base + "/api/state")
        assert status == 503 and "-wal holds entries" in body["error"] and "start the board" in body["error"]
        assert "\n" not in body["error"]
        status, _, page = get(base + "/")
        assert status == 200 and b'role="alert"' in page and b"-wal holds entries" in page
        assert get(base + "/games")[0] == 503
        with LedgerWriter(path) as store:
            assert len(store.game.pegged) == 12
            status, state = wait_for(base, lambda s, b: s == 200)
            assert status == 200 and state == state_dict(store.book)


def test_writer_running_tells_a_held_lock_without_taking_it(tmp_path):
    """True while a writer holds the ledger, False before, after, and after a writer was killed; the
    probe takes no lock, so writers opening while it runs in a loop are never refused."""
    if writer_running(tmp_path / "x") is None:
        pytest.skip("no open-file-description locks (F_OFD_GETLK) on this system")
    path = tmp_path / "ledger.sqlite3"
    assert writer_running(path) is False
    with LedgerWriter(path) as store:
        write_games(store, [game_record(SIX, seed=1, entries=3)])
        assert writer_running(path) is True
        with pytest.raises(LedgerInUseError):
            LedgerWriter(path)
    assert writer_running(path) is False
    killed_board(path, [])
    assert Path(f"{path}.lock").exists() and writer_running(path) is False
    stop = threading.Event()
    seen = []

    def probe():
        while not stop.is_set():
            seen.append(writer_running(path))

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        for _ in range(30):
            LedgerWriter(path).close()
    finally:
        stop.set()
        prober.join()
    assert len(seen) > 30 and True in seen  # it saw the writers, and none was refused


TORN = """
import sys
from ledger import reader as reading
from ledger.errors import LedgerError
from ledger.reader import LedgerReader
path, rounds = sys.argv[1], int(sys.argv[2])
reader = LedgerReader(path)
print("immutable", reader.immutable, len(reader.export()) - 1, flush=True)
plain, calls = reading.export_game, []

def export_while_the_board_writes(conn, where, game_id):
    calls.append(game_id)
    if len(calls) <= rounds:  # the board runs (opens, writes, closes) in the middle of this read
        first = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
        print("reading", first, flush=True)
        sys.stdin.readline()
    return plain(conn, where, game_id)

reading.export_game = export_while_the_board_writes
try:
    lines = reader.export()
    print("read", len(calls), len(lines) - 1, reader.immutable, flush=True)
except LedgerError as error:
    print("error", len(calls), " ".join(str(error).split()), flush=True)
"""


def torn_read(folder: Path, path: Path, rounds: int, board) -> list[str]:
    """What a reader with ``immutable`` says when ``board()`` runs during ``rounds`` of its reads."""
    child = subprocess.Popen([*read_only(folder), sys.executable, "-c", TORN, str(path), str(rounds)],
                             cwd=ROOT, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    said = [child.stdout.readline().strip()]
    try:
        while said[-1].startswith(("immutable", "reading")):
            if said[-1].startswith("reading"):
                board()
                child.stdin.write("\n")
                child.stdin.flush()
            said.append(child.stdout.readline().strip())
    finally:
        child.stdin.close()
        child.wait(timeout=CEILING_S)
    return said


@needs_read_only
def test_a_read_the_board_changes_under_is_read_again_never_torn(folder):
    """An immutable reader whose file a board changes during a read (it opens, writes, checkpoints on
    closing): the answer is read again on the new file; if that changes too, a LedgerError, not old data."""
    path = folder / "ledger.sqlite3"
    record = game_record(SIX, seed=10, entries=12)
    with LedgerWriter(path) as store:
        write_games(store, [record[:4]])
    entries = iter(record[4:])

    def board():
        with LedgerWriter(path) as store:
            store.apply(parse_line(next(entries)))

    said = torn_read(folder, path, 1, board)
    assert said == ["immutable True 3", "reading 3", "read 2 4 True"]
    said = torn_read(folder, path, 2, board)
    assert said[:3] == ["immutable True 4", "reading 4", "reading 5"]
    assert said[3].startswith("error 2 ") and "kept changing while it was read" in said[3]

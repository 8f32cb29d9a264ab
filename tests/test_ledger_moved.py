"""A ledger moved, renamed, deleted or replaced under a running board keeps every acknowledged entry,
and a -wal left without its database is set aside and read back by ``cribbage-board salvage``:
against real ``cribbage-board console`` processes."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.hub.ledger import HubLedger
from ledger.writer import LedgerWriter
from scorer.record import parse_line

ROOT = Path(__file__).resolve().parent.parent
N = 20
ENTRIES = ["peg A 1" if n % 2 == 0 else "peg B 1" for n in range(N)]
GAME = ["game six-card seats=A,B dealer=A"] + ENTRIES


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "firmware.cli", *args]


def start_console(path: Path) -> subprocess.Popen:
    return subprocess.Popen(command("console", "--state", str(path)), cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)


def acknowledge(board: subprocess.Popen, lines: list[str]) -> list[str]:
    """Send the lines and wait for the console's answer to each entry ("  ok: ..." or "! ..."; a game
    line has none of its own); those answers."""
    said = []
    for line in lines:
        board.stdin.write(line + "\n")
        board.stdin.flush()
        while not line.startswith("game"):
            answer = board.stdout.readline()
            assert answer, f"the console ended: {board.stderr.read()}"
            if answer.startswith(("  ok:", "! ")):
                said.append(answer.rstrip("\n"))
                break
    return said


def entries(path: Path) -> list[str]:
    """The current game's entries in the ledger file at ``path``, as a reader in another process reads them."""
    done = subprocess.run([sys.executable, "-c", "import sys; from ledger.reader import LedgerReader\n"
                           "with LedgerReader(sys.argv[1]) as r: print('\\n'.join(r.export()))", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[1:]


def unsettle(path: Path, how: str, folder: Path) -> Path | None:
    """Move, delete or replace the ledger at ``path``; where the file is now (None: deleted)."""
    moved = folder / "archive.sqlite3"
    if how == "deleted":
        os.unlink(path)
        return None
    os.rename(path, moved)
    if how == "replaced":  # another ledger of the same kind, copied in at the path
        other = folder / "other" / "board.sqlite3"
        other.parent.mkdir()
        with LedgerWriter(other) as store:
            store.apply(parse_line("game six-card seats=C,D dealer=C"))
        shutil.copyfile(other, path)
    return moved


@pytest.mark.slow
@pytest.mark.parametrize("how", ["renamed", "deleted", "replaced"])
@pytest.mark.parametrize("stop", ["entry", "quit"])
def test_a_ledger_moved_under_a_running_board_keeps_every_acknowledged_entry(tmp_path, how, stop):
    """N acknowledged, then the file renamed, deleted or replaced under the console: the next entry
    (or the console's end) makes the file whole where it is now, or keeps a copy beside the old path,
    and says where; a console started again at the old path neither removes nor hides them."""
    path = tmp_path / "board.sqlite3"
    board = start_console(path)
    try:
        said = acknowledge(board, GAME)
        assert sum(line.startswith("  ok:") for line in said) == N
        moved = unsettle(path, how, tmp_path)
        if stop == "entry":
            refused = acknowledge(board, ["peg A 2"])[-1]
        board.stdin.close()
        out = board.stdout.read()
        assert board.wait(timeout=60) == 0
    finally:
        board.kill()
        board.wait()
    kept = moved if moved is not None else next(tmp_path.glob("board.sqlite3.kept-*"))
    verb = "deleted" if how == "deleted" else "moved"
    line = f"! ledger {path} was {verb} while it was open: what it saved is {'kept' if moved is None else 'whole'} at {kept}"
    if stop == "entry":
        assert (refused + " ").startswith(f"{line}; ")  # the console shortens a long line after the path kept
    else:
        assert line in out.splitlines()
    assert entries(kept) == ENTRIES
    again = subprocess.run(command("console", "--state", str(path)), cwd=ROOT, input="status\n",
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert "! " not in again.stdout  # nothing was set aside: the old path held nothing of the kept file
    assert entries(kept) == ENTRIES
    if how == "replaced":
        assert entries(path) == []  # the file put there is the ledger there, with its own game
    assert not list(tmp_path.glob("*.corrupt-*"))


def killed_after(path: Path, lines: list[str]) -> None:
    """A console that acknowledged ``lines`` and was then killed (its -wal left as it was)."""
    board = start_console(path)
    try:
        acknowledge(board, lines)
        board.send_signal(signal.SIGKILL)
    finally:
        board.kill()
        board.wait()
    assert Path(f"{path}-wal").stat().st_size > 0  # the entries are in the -wal, not yet in the file


@pytest.mark.slow
@pytest.mark.parametrize("how", ["renamed", "deleted", "emptied"])
def test_a_lone_wal_is_set_aside_and_salvaged(tmp_path, how):
    """The board killed after N entries, then its file moved, deleted or replaced by an empty one: a console
    started at the path sets the -wal aside (renamed, not removed) and says so, and ``salvage`` brings
    the N entries back in a ledger file of their own."""
    path = tmp_path / "board.sqlite3"
    killed_after(path, GAME)
    if how == "deleted":
        os.unlink(path)
    else:
        os.rename(path, tmp_path / "archive.sqlite3")
        if how == "emptied":
            path.write_bytes(b"")
    wal_bytes = Path(f"{path}-wal").read_bytes()
    again = subprocess.run(command("console", "--state", str(path)), cwd=ROOT, input="status\n",
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    [aside] = tmp_path.glob("board.sqlite3.corrupt-*-wal")
    assert aside.read_bytes() == wal_bytes
    why = {"renamed": "with no database beside it", "deleted": "with no database beside it",
           "emptied": "beside an empty file"}[how]
    assert (f"! ledger {path}: a -wal {why} was kept as {aside}: "
            f"cribbage-board salvage {aside} reads back what it holds") in again.stdout.splitlines()
    salvaged = subprocess.run(command("salvage", str(aside)), cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert salvaged.returncode == 0, salvaged.stderr
    out = Path(str(aside).removesuffix("-wal") + ".salvaged")
    assert salvaged.stdout.startswith(f"salvaged a board's ledger: 1 game, {N} entries into {out}")
    assert entries(out) == ENTRIES
    assert aside.read_bytes() == wal_bytes  # only read
    if how == "renamed":  # the file the -wal was written for, given as its base, reads the same
        based = subprocess.run(command("salvage", str(aside), "--base", str(tmp_path / "archive.sqlite3"),
                                       "-o", str(tmp_path / "based.sqlite3")),
                               cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert based.returncode == 0, based.stderr
        assert entries(tmp_path / "based.sqlite3") == ENTRIES


def test_a_wal_of_the_board_beside_a_hub_ledger_is_set_aside(tmp_path):
    """The board killed, its file replaced by the club hub's ledger: the hub opening it sets the board's
    -wal aside rather than replay the board's pages into its file."""
    path = tmp_path / "ledger.sqlite3"
    killed_after(path, GAME)
    os.rename(path, tmp_path / "archive.sqlite3")
    HubLedger(tmp_path / "hub" / "hub.sqlite3").close()
    shutil.copyfile(tmp_path / "hub" / "hub.sqlite3", path)
    with HubLedger(path) as hub:
        [said] = hub.messages
        assert said.startswith(f"ledger {path}: a -wal beside another kind of database was kept as ")
    [aside] = tmp_path.glob("ledger.sqlite3.corrupt-*-wal")
    with HubLedger(path) as hub:  # the hub's own file, as it was
        assert hub.messages == [] and hub.reader().counts().get("entries", 0) == 0
    assert subprocess.run(command("salvage", str(aside)), cwd=ROOT, capture_output=True, text=True,
                          timeout=60).returncode == 0
    assert entries(Path(str(aside).removesuffix("-wal") + ".salvaged")) == ENTRIES


def test_the_board_own_wal_after_a_kill_is_replayed_not_set_aside(tmp_path):
    """A power cut's usual leftover, the file and its own -wal: every entry read back, nothing set aside."""
    path = tmp_path / "board.sqlite3"
    killed_after(path, GAME)
    with LedgerWriter(path) as store:
        assert store.messages == [] and store.export()[1:] == ENTRIES
    assert not list(tmp_path.glob("*.corrupt-*"))


@pytest.mark.parametrize("given", ["missing", "text", "empty", "partial"])
def test_salvage_refuses_what_it_cannot_read_in_one_line(tmp_path, given):
    """A missing file, not a -wal, an empty one, or a -wal that holds only part of its ledger: one line, exit 2."""
    wal = tmp_path / "x.sqlite3-wal"
    if given == "text":
        wal.write_text("hello\n")
    elif given == "empty":
        wal.write_bytes(b"")
    elif given == "partial":  # a ledger checkpointed, then more entries: the -wal lacks the first pages
        path = tmp_path / "board.sqlite3"
        with LedgerWriter(path) as store:
            for line in GAME:
                store.apply(parse_line(line))
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute("INSERT INTO actions (game_id, line) VALUES (1, 'peg A 1')")
        shutil.copyfile(f"{path}-wal", wal)
        conn.close()
    done = subprocess.run(command("salvage", str(wal)), cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"cribbage-board: salvage: {wal}")
    if given == "partial":
        assert "holds only part of its ledger: give the file it belongs to (--base FILE)" in done.stderr
    assert not list(tmp_path.glob("*.salvaged"))

"""The ledger against a hostile user: a link or a folder at the lock's path, the lock or the
ledger removed under a running writer, and rows of nested brackets (issue 21, items 1-3)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.errors import LedgerError, LedgerInUseError
from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from waits import no_hang

ROOT = Path(__file__).resolve().parent.parent
WON = ["game six-card seats=A,B dealer=A"] + ["peg A 15"] * 8 + ["peg A 1"]
DEEP = "[" * 1100 + "]" * 1100  # 2.2 KB: past json's recursion limit



def apply_all(store, lines):
    for line in lines:
        store.apply(parse_line(line))


def console(path: Path, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "firmware.cli", "console", "--state", str(path)], cwd=ROOT,
                          input=stdin, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("target", ["missing", "precious"])
def test_a_link_at_the_lock_is_refused_never_followed(tmp_path, target):
    """A symbolic link at LEDGER.lock (dangling, or to a file of the user's): refused with one line
    at once (it spun at 100% CPU for ever), and the file it points at is left as it was (it was
    emptied and given the writer's pid)."""
    path = tmp_path / "L.sqlite3"
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    Path(f"{path}.lock").symlink_to(tmp_path / "nowhere" if target == "missing" else precious)
    with no_hang(20), pytest.raises(LedgerError) as caught:
        LedgerWriter(path)
    assert str(caught.value) == (f"ledger {path} cannot be written: its lock {path}.lock is a symbolic link, "
                                 "which is never followed: remove it")
    assert precious.read_text() == "keep me\n" and not path.exists()
    assert os.path.islink(f"{path}.lock")
    done = console(path, "game six-card seats=A,B\n")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "is a symbolic link" in done.stderr
    assert "Traceback" not in done.stderr and precious.read_text() == "keep me\n"


def test_a_folder_at_the_lock_is_refused(tmp_path):
    """A folder at LEDGER.lock: one line that says so, nothing made."""
    path = tmp_path / "L.sqlite3"
    Path(f"{path}.lock").mkdir()
    with no_hang(20), pytest.raises(LedgerError, match=r"its lock .* is a folder, not a file: remove it"):
        LedgerWriter(path)
    assert not path.exists()


@pytest.mark.parametrize("how", ["removed", "replaced"])
def test_no_second_writer_when_the_lock_file_goes(tmp_path, how):
    """The lock file removed (or replaced by another) under a running writer: a second writer is
    still refused, because the writer holds the ledger file itself too; nothing acknowledged is lost."""
    path = tmp_path / "L.sqlite3"
    first = LedgerWriter(path, holder="first")
    try:
        apply_all(first, ["game six-card seats=A,B", "peg A 2"])
        os.unlink(f"{path}.lock")
        if how == "replaced":
            Path(f"{path}.lock").write_text("99999 stranger\n")
        with pytest.raises(LedgerInUseError, match="in use by another writer"):
            LedgerWriter(path, holder="second")
        done = console(path, "peg B 3\n")
        assert done.returncode == 2 and "in use" in done.stderr
        apply_all(first, ["peg B 3"])
    finally:
        first.close()
    with LedgerReader(path) as reader:
        assert reader.export()[1:] == ["peg A 2", "peg B 3"]


@pytest.mark.parametrize("how", ["renamed", "deleted", "replaced"])
def test_a_ledger_no_longer_at_its_path_acknowledges_nothing(tmp_path, how):
    """The ledger renamed, deleted or replaced under a running writer: the next entry is refused
    with one clear line (the writer said "ok" while writing to the removed file), every later one
    too, and the game in memory is as it was."""
    path = tmp_path / "L.sqlite3"
    store = LedgerWriter(path)
    try:
        apply_all(store, ["game six-card seats=A,B", "peg A 2"])
        if how == "renamed":
            os.rename(path, tmp_path / "archived.sqlite3")
        elif how == "deleted":
            os.unlink(path)
        else:
            os.rename(path, tmp_path / "archived.sqlite3")
            sqlite3.connect(path).close()  # another file at the path (its lock is still the writer's)
        for line in ("peg B 3", "peg A 4"):
            with pytest.raises(LedgerError, match="was (moved|deleted) while it was open: what it saved is "
                                                  r"(whole|kept) at .*; entry not saved"):
                store.apply(parse_line(line))
        assert store.game.state.scores == (2, 0)
    finally:
        store.close()


def test_the_console_refuses_an_entry_once_its_ledger_is_moved(tmp_path):
    """The console keeps running and says, for each entry, that it was not saved."""
    path = tmp_path / "L.sqlite3"
    script = ("import os, sys; from firmware.board.pc.console import run_console; "
              "path = sys.argv[1]; lines = iter(['game six-card seats=A,B\\n', 'peg A 2\\n', 'peg B 3\\n']); "
              "import io\n"
              "class Moving(io.StringIO):\n"
              "    def readline(self, *a):\n"
              "        line = next(lines, '')\n"
              "        if line.startswith('peg B'): os.rename(path, path + '.moved')\n"
              "        return line\n"
              "    def isatty(self): return False\n"
              "sys.exit(run_console(path, Moving(), sys.stdout))")
    done = subprocess.run([sys.executable, "-c", script, str(path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "ok: A peg 2" in done.stdout
    assert "! ledger " in done.stdout
    assert f"was moved while it was open: what it saved is whole at {path}.moved; entry not saved" in done.stdout
    assert "ok: B peg 3" not in done.stdout


@pytest.mark.parametrize("column", ["tallies.standing", "games.outcome"])
def test_nested_brackets_in_a_row_are_damaged_data_left_out_and_said(tmp_path, column):
    """2.2 KB of nested brackets in a JSON column (a RecursionError crashed every open: a crash loop
    under systemd): the writer and the reader open, the row is left out and said, the rest reads."""
    path = tmp_path / "L.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, WON + ["game six-card seats=A,B", "peg B 2"])
    conn = sqlite3.connect(path)
    if column == "tallies.standing":
        conn.execute("UPDATE tallies SET standing=?", (DEEP,))
    else:
        conn.execute("DELETE FROM tallies")
        conn.execute("UPDATE games SET outcome=? WHERE id=1", (DEEP,))
    conn.commit()
    conn.close()
    with LedgerWriter(path) as store:
        assert store.game.state.scores == (0, 2)
        damaged = [m for m in store.messages if "game 1 is damaged" in m]
        assert damaged == ([] if column == "tallies.standing" else damaged) and len(store.messages) <= 1
    with LedgerReader(path) as reader:
        games = reader.games()
        if column == "games.outcome":
            assert games == [] and "game 1 is left out: its result is damaged" in reader.messages[0]
        else:  # the standing is a cache: counted again from the games, nothing lost
            assert [g.winner for g in games] == ["A"]
    done = console(path, "status\n")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr

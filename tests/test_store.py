"""The durable ledger: acknowledged means on disk; a bad file is set aside, never deleted."""

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scorer.errors import NothingToUndoError
from scorer.record import parse_line, replay
from scorer.report import state_dict
from scorer.store import LedgerStore

ROOT = Path(__file__).resolve().parent.parent

RECORD = """
game six-card seats=Alice,Bob dealer=Alice muggins
heels
peg Bob 2
go Alice
hand Bob 8
muggins Alice 2
hand Alice 12
undo
redo
crib 4
peg Alice 3
undo
""".strip().splitlines()


def apply_all(store, lines):
    for line in lines:
        store.apply(parse_line(line))


def test_reopening_restores_state_and_undo_redo_stacks(tmp_path):
    """Close and reopen: the same state, the same redo stack, the same record."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerStore(path) as store:
        apply_all(store, RECORD)
        expected = state_dict(store.book)
        exported = store.export()
    with LedgerStore(path) as store:
        assert state_dict(store.book) == expected
        assert store.export() == exported
        assert store.messages == []
        store.apply(parse_line("redo"))
        assert store.game.score("Alice") == 2 + 1 + 2 + 12 + 4 + 3
    assert state_dict(replay(exported).book) == expected


def test_database_uses_wal_and_full_sync(tmp_path):
    """Every commit is synced: WAL with synchronous=FULL."""
    with LedgerStore(tmp_path / "l.sqlite3") as store:
        assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_refused_actions_are_not_written(tmp_path):
    """A refused entry raises and leaves nothing in the database."""
    path = tmp_path / "l.sqlite3"
    with LedgerStore(path) as store:
        apply_all(store, RECORD[:2])
        with pytest.raises(ValueError):
            store.apply(parse_line("hand Bob 19"))
        with pytest.raises(NothingToUndoError):
            store.apply(parse_line("redo"))
        assert store.export() == [RECORD[0], "heels Alice"]


def test_match_and_tally_survive_a_restart(tmp_path):
    """Finished games of the match are kept in the tally after reopening."""
    path = tmp_path / "l.sqlite3"
    game = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]
    with LedgerStore(path) as store:
        apply_all(store, game + ["game five-card seats=A,B", "peg B 2"])
        expected = state_dict(store.book)
    with LedgerStore(path) as store:
        assert state_dict(store.book) == expected
        assert expected["match"]["tally"][0] == {"side": "A", "wins": 1, "game_points": 3}
        assert expected["dealer"] == "B"
        assert len(store.game_ids()) == 2
        assert store.export(store.game_ids()[0])[-1] == "peg A 1"


def test_new_match_survives_a_restart(tmp_path):
    """After new-match the restored tally counts only the new match's games."""
    path = tmp_path / "l.sqlite3"
    game = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]
    with LedgerStore(path) as store:
        apply_all(store, game + ["game five-card seats=A,B", "peg B 2", "game five-card seats=A,B new-match"])
    with LedgerStore(path) as store:
        assert store.book.match.games_played() == 0
        assert [t.wins for t in store.book.match.tally()] == [0, 0]


def test_undoing_the_winning_entry_clears_the_stored_result(tmp_path):
    """A result undone is not counted in the tally after a restart."""
    path = tmp_path / "l.sqlite3"
    game = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1", "undo"]
    with LedgerStore(path) as store:
        apply_all(store, game)
    with LedgerStore(path) as store:
        assert not store.game.is_over
        apply_all(store, ["game five-card seats=A,B dealer=B"])
        assert store.book.match.tally()[0].wins == 0


@pytest.mark.parametrize("garbage", [
    b"this is not an sqlite database at all" * 100,
    b"SQLite format 3\x00" + b"\xff" * 4000,
])
def test_corrupt_database_is_set_aside_not_deleted(tmp_path, garbage):
    """A corrupt file is renamed with a clear message and a new ledger starts."""
    path = tmp_path / "ledger.sqlite3"
    path.write_bytes(garbage)
    store = LedgerStore(path, clock=lambda: 1_800_000_000)
    try:
        kept = tmp_path / "ledger.sqlite3.corrupt-20270115T080000"
        assert kept.read_bytes() == garbage
        assert len(store.messages) == 1
        assert "could not be read" in store.messages[0] and str(kept) in store.messages[0]
        assert str(path) in store.messages[0]
        assert store.game is None
        apply_all(store, RECORD[:3])
    finally:
        store.close()
    with LedgerStore(path) as store:
        assert store.game.score("Bob") == 2 and store.messages == []


def test_set_aside_never_overwrites_an_earlier_copy(tmp_path):
    """Two corrupt files in the same second keep both copies."""
    path = tmp_path / "ledger.sqlite3"
    for n in range(2):
        path.write_bytes(b"garbage %d" % n * 500)
        LedgerStore(path, clock=lambda: 0).close()
    kept = sorted(p.name for p in tmp_path.glob("ledger.sqlite3.corrupt-*"))
    assert kept == ["ledger.sqlite3.corrupt-19700101T000000", "ledger.sqlite3.corrupt-19700101T000000-2"]


CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from scorer.record import parse_line
    from scorer.store import LedgerStore
    store = LedgerStore(sys.argv[1])
    for line in sys.stdin:
        line = line.strip()
        try:
            store.apply(parse_line(line))
            print("ack", flush=True)
        except ValueError as error:
            print("refused", error, flush=True)
""")


def _run_child(path, lines, kill_after):
    """Feed lines to a child that acknowledges each; SIGKILL it after kill_after acks."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(root=str(ROOT)), str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    acked = []
    try:
        for line in lines[:kill_after]:
            child.stdin.write(line + "\n")
            child.stdin.flush()
            answer = child.stdout.readline()
            assert answer.startswith(("ack", "refused")), answer
            acked.append(line)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL
    return acked


@pytest.mark.parametrize("kill_after", [1, 4, 7, len(RECORD)])
def test_sigkill_between_entries_reopens_to_the_acknowledged_state(tmp_path, kill_after):
    """Kill -9 after an acknowledged entry: reopening gives exactly what was acknowledged."""
    path = tmp_path / "ledger.sqlite3"
    acked = _run_child(path, RECORD + ["hand Bob 19"], kill_after)
    with LedgerStore(path) as store:
        assert store.messages == []
        assert state_dict(store.book) == state_dict(replay(acked).book)
        assert store.export() == replay(acked).book.record_lines()

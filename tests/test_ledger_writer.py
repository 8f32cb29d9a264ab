"""The durable ledger (ledger/writer.py): acknowledged means on disk; a bad file is set aside, never deleted;
the time of each entry and game, from the writer's clock."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers import FIVE_CARD_WIN, ISO, Ticks, apply_all, stamp

from ledger.reader import LedgerReader
from ledger.rows import GameTimes
from ledger.writer import LedgerWriter
from scorer.errors import NothingToUndoError
from scorer.game import Entry, OptionChange
from scorer.record import parse_line, replay
from scorer.report import state_dict

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


def test_reopening_restores_state_and_undo_redo_stacks(tmp_path):
    """Close and reopen: the same state, the same redo stack, the same record."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, RECORD)
        expected = state_dict(store.book)
        exported = store.export()
    with LedgerWriter(path) as store:
        assert state_dict(store.book) == expected
        assert store.export() == exported
        assert store.messages == []
        store.apply(parse_line("redo"))
        assert store.game.score("Alice") == 2 + 1 + 2 + 12 + 4 + 3
    assert state_dict(replay(exported).book) == expected


def test_database_uses_wal_and_full_sync(tmp_path):
    """Every commit is synced: WAL with synchronous=FULL."""
    with LedgerWriter(tmp_path / "l.sqlite3") as store:
        assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_refused_actions_are_not_written(tmp_path):
    """A refused entry raises and leaves nothing in the database."""
    path = tmp_path / "l.sqlite3"
    with LedgerWriter(path) as store:
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
    with LedgerWriter(path) as store:
        apply_all(store, game + ["game five-card seats=A,B", "peg B 2"])
        expected = state_dict(store.book)
    with LedgerWriter(path) as store:
        assert state_dict(store.book) == expected
        assert expected["match"]["tally"][0] == {"side": "A", "wins": 1, "game_points": 3}
        assert expected["dealer"] == "B"
        assert len(store.game_ids()) == 2
        assert store.export(store.game_ids()[0])[-1] == "peg A 1"


def test_new_match_survives_a_restart(tmp_path):
    """After new-match the restored tally counts only the new match's games."""
    path = tmp_path / "l.sqlite3"
    game = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]
    with LedgerWriter(path) as store:
        apply_all(store, game + ["game five-card seats=A,B", "peg B 2", "game five-card seats=A,B new-match"])
    with LedgerWriter(path) as store:
        assert store.book.match.games_played() == 0
        assert [t.wins for t in store.book.match.tally()] == [0, 0]


def test_undoing_the_winning_entry_clears_the_stored_result(tmp_path):
    """A result undone is not counted in the tally after a restart."""
    path = tmp_path / "l.sqlite3"
    game = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1", "undo"]
    with LedgerWriter(path) as store:
        apply_all(store, game)
    with LedgerWriter(path) as store:
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
    store = LedgerWriter(path, clock=lambda: 1_800_000_000)
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
    with LedgerWriter(path) as store:
        assert store.game.score("Bob") == 2 and store.messages == []


def test_set_aside_never_overwrites_an_earlier_copy(tmp_path):
    """Two corrupt files in the same second keep both copies."""
    path = tmp_path / "ledger.sqlite3"
    for n in range(2):
        path.write_bytes(b"garbage %d" % n * 500)
        LedgerWriter(path, clock=lambda: 0).close()
    kept = sorted(p.name for p in tmp_path.glob("ledger.sqlite3.corrupt-*"))
    assert kept == ["ledger.sqlite3.corrupt-19700101T000000", "ledger.sqlite3.corrupt-19700101T000000-2"]


CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from scorer.record import parse_line
    from ledger.writer import LedgerWriter
    store = LedgerWriter(sys.argv[1])
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
    with LedgerWriter(path) as store:
        assert store.messages == []
        assert state_dict(store.book) == state_dict(replay(acked).book)
        assert store.export() == replay(acked).book.record_lines()


# ---- the match's tally row and the outcome column ------------------------------

WIN_A = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]
WIN_B = ["game five-card seats=A,B"] + ["peg B 15"] * 4 + ["peg B 1"]


def _stored(path, sql, *args):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def _reopened_tally(path):
    with LedgerWriter(path) as store:
        assert store.messages == []
        return state_dict(store.book)["match"]


def test_the_tally_row_holds_the_earlier_games_and_opening_reads_it(tmp_path):
    """Each new game of the match adds its predecessor to the match's tally row; a reopen
    gives the same tally as replaying the whole record, without decoding the earlier games."""
    path = tmp_path / "l.sqlite3"
    record = WIN_A + WIN_B + ["game five-card seats=A,B", "peg A 2", "game five-card seats=A,B"] + WIN_A[1:] \
        + ["game five-card seats=A,B", "peg B 3"]
    with LedgerWriter(path) as store:
        apply_all(store, record)
        expected = state_dict(store.book)["match"]
        games = store.game_ids()
    assert expected == state_dict(replay(record).book)["match"]
    assert expected["games"] == 3 and expected["tally"][0]["wins"] == 2
    [(through, standing)] = _stored(path, "SELECT through, standing FROM tallies")
    assert through == games[-2]  # every game before the current one is counted
    assert json.loads(standing)["games"] == 3
    conn = sqlite3.connect(path)  # outcomes no longer decode, but nothing changed them through SQL: the row is used
    conn.execute("DROP TRIGGER tallies_stale_on_update")
    conn.execute("UPDATE games SET outcome='not json' WHERE id<?", (games[-1],))
    conn.commit()
    conn.close()
    assert _reopened_tally(path) == expected


def test_a_ledger_without_the_tally_row_is_counted_once_and_saved(tmp_path):
    """A ledger written before the tally row (or by a version that does not keep it): the first
    open counts the games and saves the row; the games it counts are those before the current one."""
    path = tmp_path / "l.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, WIN_A + WIN_B + ["game five-card seats=A,B", "peg A 2"])
        expected = state_dict(store.book)["match"]
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE tallies")
    conn.commit()
    conn.close()
    assert _reopened_tally(path) == expected
    assert [row[0] for row in _stored(path, "SELECT through FROM tallies")] == [2]


def test_games_added_by_a_writer_that_keeps_no_tally_are_caught_up(tmp_path):
    """Games appended without updating the row (an older cribbage-board): only those are counted."""
    path = tmp_path / "l.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, WIN_A + WIN_B[:1])
    conn = sqlite3.connect(path)  # as the first release wrote a finished game and the next one
    outcome = json.dumps({"winner": "B", "loser": "A", "result": "win", "margin": 30, "game_points": 2,
                          "scores": {"A": 31, "B": 61}, "lowball": False})
    conn.execute("UPDATE games SET outcome=? WHERE id=2", (outcome,))
    conn.execute("INSERT INTO games (match_id, header) VALUES (1, 'game five-card seats=A,B dealer=A')")
    conn.commit()
    conn.close()
    match = _reopened_tally(path)
    assert [(t["side"], t["wins"], t["game_points"]) for t in match["tally"]] == [("A", 1, 3), ("B", 1, 2)]
    assert [row[0] for row in _stored(path, "SELECT through FROM tallies")] == [2]


def test_an_earlier_result_changed_through_sql_drops_the_row(tmp_path):
    """Any change to a counted game (UPDATE, DELETE) drops the match's tally row: the next open counts again."""
    path = tmp_path / "l.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, WIN_A + WIN_B + ["game five-card seats=A,B"])
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET outcome=NULL WHERE id=1")
    conn.commit()
    assert conn.execute("SELECT count(*) FROM tallies").fetchone()[0] == 0
    conn.close()
    assert [t["wins"] for t in _reopened_tally(path)["tally"]] == [0, 1]
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM games WHERE id=2")
    conn.commit()
    assert conn.execute("SELECT count(*) FROM tallies").fetchone()[0] == 0
    conn.close()
    assert [t["wins"] for t in _reopened_tally(path)["tally"]] == [0, 0]


def test_the_outcome_is_written_only_when_it_changes(tmp_path):
    """Plain entries leave the game row alone; the winning entry stores the result, its undo
    clears it and its redo stores it again, each durable across a reopen."""
    path = tmp_path / "l.sqlite3"
    writes = []
    with LedgerWriter(path) as store:
        store._conn.set_trace_callback(writes.append)
        apply_all(store, WIN_A[:-1])
        assert not [sql for sql in writes if sql.startswith("UPDATE games")]
        stored = []
        for line in ("peg A 1", "undo", "redo", "undo"):
            writes.clear()
            store.apply(parse_line(line))
            assert any(sql.startswith("UPDATE games") for sql in writes)
            stored.append(_stored(path, "SELECT outcome FROM games")[0][0])
            expected = store.game.outcome
            assert (json.loads(stored[-1]) if stored[-1] else None) == (expected.to_dict() if expected else None)
        assert [text is not None for text in stored] == [True, False, True, False]
    with LedgerWriter(path) as store:  # the undone win waits on the redo stack after a reopen
        assert _stored(path, "SELECT outcome FROM games")[0][0] is None
        store.apply(parse_line("redo"))
        assert store.game.is_over
    with LedgerWriter(path) as store:
        assert store.game.is_over
        assert json.loads(_stored(path, "SELECT outcome FROM games")[0][0])["winner"] == "A"
        store.apply(parse_line("undo"))
    assert _stored(path, "SELECT outcome FROM games")[0][0] is None


# Options changed mid-game (``option muggins on|off``): a game with a count Alice may claim on once muggins is on.
OPTION_GAME = "game six-card seats=Alice,Bob dealer=Alice"
OPTION_PLAYED = [OPTION_GAME, "heels Alice", "peg Bob 2", "hand Bob 4"]


def test_the_ledger_keeps_the_change_and_reopens_to_the_same_game(tmp_path):
    """The option line is stored where it was made; reopening (and a reader) replays the same game."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        for line in OPTION_PLAYED:
            store.apply(parse_line(line))
        store.apply(OptionChange("muggins", True))
        store.apply(Entry.muggins("Alice", 2))
        exported = store.export()
        state = store.game.state
    assert exported == OPTION_PLAYED + ["option muggins on", "muggins Alice 2"]
    with LedgerWriter(path) as store:
        assert store.game.state == state and store.game.options.muggins and not store.messages
        match = store.book.match
        store.apply(parse_line(OPTION_GAME + " muggins"))  # the next game (with muggins): the same match
        assert store.book.match is match and len(store.book.games) == 1
    reader = LedgerReader(path)
    try:
        assert reader.book.game.options.muggins
    finally:
        reader.close()


def test_each_entry_and_game_gets_its_time(tmp_path):
    """A game's start is its header's time, each action its own, the end the winning entry's time."""
    path = tmp_path / "ledger.sqlite3"
    clock = Ticks()
    with LedgerWriter(path, clock=clock) as store:
        apply_all(store, FIVE_CARD_WIN)
    with LedgerReader(path) as reader:
        times = reader.times(1)
        expected = [stamp(1_796_238_000.0 + k * 1.005) for k in range(1, 7)]
        assert times == GameTimes(expected[0], expected[-1], tuple(expected[1:]))
        assert len(times.entries) == len(reader.export(1)) - 1
        assert times.started == "2026-12-02T19:00:01.005Z"
        [game] = reader.games()
        assert (game.started, game.finished, game.status) == (expected[0], expected[-1], "finished")


def test_undoing_the_win_clears_the_finish_and_redo_sets_it_again(tmp_path):
    """The game is live again after its winning entry is undone: no finish, not listed; redo finishes it."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path, clock=Ticks()) as store:
        apply_all(store, FIVE_CARD_WIN + ["undo"])
        with LedgerReader(path) as reader:
            assert reader.times(1).finished is None and reader.games() == []
        store.apply(parse_line("redo"))
        with LedgerReader(path) as reader:
            assert reader.times(1).finished == reader.times(1).entries[-1]
            assert [g.status for g in reader.games()] == ["finished"]


@pytest.mark.parametrize("reading", [
    1_796_238_000.25,
    datetime(2026, 12, 2, 19, 0, 0, 250000),
    datetime(2026, 12, 2, 20, 0, 0, 250999, tzinfo=timezone(timedelta(hours=1))),
    "2026-12-02T19:00:00.250Z",
])
def test_the_clock_may_give_seconds_a_datetime_or_the_iso_string(tmp_path, reading):
    """Every form of clock reading is kept as UTC ISO 8601 with milliseconds and a Z."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path, clock=lambda: reading) as store:
        apply_all(store, ["game six-card seats=A,B", "peg A 2"])
    with LedgerReader(path) as reader:
        assert reader.times(1) == GameTimes("2026-12-02T19:00:00.250Z", None, ("2026-12-02T19:00:00.250Z",))


def test_the_default_clock_is_the_time_now(tmp_path):
    """Without a clock the times are now, in the ISO form."""
    path = tmp_path / "ledger.sqlite3"
    before = datetime.now(timezone.utc) - timedelta(seconds=1)
    with LedgerWriter(path) as store:
        apply_all(store, ["game six-card seats=A,B", "peg A 2"])
    after = datetime.now(timezone.utc) + timedelta(seconds=1)
    with LedgerReader(path) as reader:
        times = reader.times(1)
    for text in (times.started, *times.entries):
        assert __import__("re").match(ISO, text), text
        assert before <= datetime.fromisoformat(text.replace("Z", "+00:00")) <= after


def test_a_damaged_ledger_set_aside_carries_the_current_match_with_its_times(tmp_path):
    """Damage found at open: the current match carried over to the new ledger keeps its times and status."""
    from test_ledger import _damage_an_earlier_page

    path = tmp_path / "ledger.sqlite3"
    _damage_an_earlier_page(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE actions SET at='2026-12-02T19:00:00.000Z' WHERE game_id=(SELECT max(id) FROM games)")
    conn.execute("UPDATE games SET started='2026-12-02T18:00:00.000Z'")
    conn.commit()
    conn.close()
    with LedgerReader(path) as reader:
        current = reader.current_game_id()
        before = reader.times(current)
        statuses = [(g.id, g.status) for g in reader.games() if g.match_id == 2]
    with LedgerWriter(path, clock=lambda: 0) as store:
        assert "the current match was carried over" in store.messages[0]
    with LedgerReader(path) as reader:
        assert reader.times(current) == before and before.entries[0] == "2026-12-02T19:00:00.000Z"
        assert [(g.id, g.status) for g in reader.games()] == statuses

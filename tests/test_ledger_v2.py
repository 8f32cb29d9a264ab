"""Ledger schema 2: times of entries and games, the migration from schema 1, and the reader's
listing, times and change token for the web view."""

import hashlib
import json
import shutil
import sqlite3
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ledger.errors import LedgerError
from ledger.reader import LedgerReader
from ledger.rows import GameTimes
from ledger.schema import SCHEMA_VERSION
from ledger.writer import LedgerWriter
from scorer.record import parse_line, replay
from scorer.report import state_dict

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "ledger-v1.sqlite3"
GAME_KEYS = {"id", "match_id", "variant", "seats", "winner", "loser", "losers", "result", "margin",
             "game_points", "started", "finished", "status"}
ISO = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"
FIVE_CARD_WIN = ["game five-card seats=A,B dealer=A"] + ["peg A 15"] * 4 + ["peg A 1"]  # B on 3: skunked


class Ticks:
    """A clock for the store: 2026-12-02T19:00:00Z, then one second and 5 ms later at each reading."""

    def __init__(self):
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return 1_796_238_000.0 + self.readings * 1.005


def stamp(seconds: float) -> str:
    """The ISO 8601 form the ledger keeps for a time in seconds since the epoch."""
    moment = datetime.fromtimestamp(seconds, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(round(seconds * 1000)) % 1000:03d}Z"


def apply_all(store, lines):
    """Apply record lines to a store, each acknowledged in turn."""
    for line in lines:
        store.apply(parse_line(line))


def dump(path: Path, immutable: bool = False) -> list[str]:
    """The database's whole content as SQL (schema and rows); ``immutable``: touch no file beside it."""
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro{'&immutable=1' if immutable else ''}", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def everything(reader: LedgerReader) -> tuple:
    """What a reader says of a ledger: every game's lines, the current state and tally, the listing."""
    book = reader.book
    exports = {g: reader.export(g) for g in reader.game_ids()}
    return exports, state_dict(book), [(t.side, t.wins, t.game_points) for t in book.match.tally()]


def test_a_schema_1_ledger_migrates_without_loss_in_one_open(tmp_path):
    """The fixture written by the old store: schema 2 after one open, the same lines, state and tally,
    old rows without invented times; the fixture itself is untouched."""
    before_digest = digest(FIXTURE)
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(FIXTURE, path)
    with LedgerReader(path) as reader:
        before = everything(reader)
        assert reader.times(2).entries == (None,) * (len(reader.export(2)) - 1)
    with LedgerWriter(path, clock=Ticks()) as store:
        assert store.messages == []
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("2",)
        assert conn.execute("SELECT count(*) FROM actions WHERE at IS NOT NULL").fetchone() == (0,)
        assert conn.execute("SELECT id, started, finished, status FROM games ORDER BY id").fetchall() == [
            (1, None, None, "finished"), (2, None, None, None)]
    finally:
        conn.close()
    with LedgerReader(path) as reader:
        assert everything(reader) == before
        assert [g.id for g in reader.games()] == [1]
    assert digest(FIXTURE) == before_digest
    assert not list(FIXTURE.parent.glob("ledger-v1.sqlite3-*"))


def test_a_second_open_of_a_migrated_ledger_changes_nothing(tmp_path):
    """Opening the migrated ledger again writes nothing: its content is the same, row for row."""
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(FIXTURE, path)
    LedgerWriter(path, clock=Ticks()).close()
    first = dump(path)
    with LedgerWriter(path, clock=Ticks()) as store:
        assert store.messages == []
        assert store.book.match.tally()[0].wins == 1
    assert dump(path) == first


def test_the_migrated_ledger_goes_on_with_times(tmp_path):
    """New entries in a migrated ledger get times; the old ones keep None; the times align with export."""
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(FIXTURE, path)
    clock = Ticks()
    with LedgerWriter(path, clock=clock) as store:
        old = len(store.export()) - 1
        apply_all(store, ["redo", "peg Alice 3"])
    with LedgerReader(path) as reader:
        times = reader.times(2)
        assert len(times.entries) == len(reader.export(2)) - 1 == old + 2
        assert times.entries[:old] == (None,) * old
        assert times.entries[old:] == tuple(stamp(1_796_238_000.0 + k * 1.005) for k in (1, 2))
        assert times.started is None and times.finished is None


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


def test_games_lists_every_game_but_the_live_one_newest_first(tmp_path):
    """Finished and abandoned games, newest first, with the agreed keys; the game being played is not listed."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path, clock=Ticks()) as store:
        apply_all(store, FIVE_CARD_WIN)                      # 1: finished, A skunks B
        apply_all(store, ["game five-card seats=A,B", "peg A 5"])  # 2: replaced before its end
        apply_all(store, ["game six-card seats=C,D", "peg C 4"])   # 3: a new match; abandons game 2
        apply_all(store, ["game six-card seats=C,D"])              # 4: abandons game 3, is live
    with LedgerReader(path) as reader:
        games = reader.games()
        times = {g: reader.times(g) for g in (1, 2, 3, 4)}
    assert [g.id for g in games] == [3, 2, 1]
    assert all(GAME_KEYS <= set(g.to_dict()) for g in games)
    three, two, one = games
    assert (one.status, one.winner, one.loser, one.result, one.margin, one.game_points) == (
        "finished", "A", "B", "skunk", 58, 3)
    assert one.to_dict()["losers"] == [{"side": "B", "score": 3, "result": "skunk", "margin": 58, "game_points": 3}]
    assert (one.variant, one.seats, one.match_id) == ("five-card", ("A", "B"), 1)
    for game in (two, three):
        assert game.status == "abandoned"
        assert [getattr(game, k) for k in ("winner", "loser", "result", "margin", "game_points")] == [None] * 5
        assert game.losers == ()
    assert (two.match_id, three.match_id) == (1, 2)
    assert two.finished == times[3].started and three.finished == times[4].started


def test_games_reads_no_entries(tmp_path):
    """The listing is built from the game rows alone: no statement reads the actions table."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path, clock=Ticks()) as store:
        apply_all(store, FIVE_CARD_WIN + ["game five-card seats=A,B", "peg A 2"])
    with LedgerReader(path) as reader:
        statements = []
        reader._conn.set_trace_callback(statements.append)
        assert [g.id for g in reader.games()] == [1]
        reader._conn.set_trace_callback(None)
    assert statements and not any("actions" in s for s in statements)


def test_a_schema_1_ledger_reads_its_games_without_times(tmp_path):
    """The reader on an unmigrated schema 1 ledger: the finished game listed, all times None."""
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(FIXTURE, path)
    with LedgerReader(path) as reader:
        [game] = reader.games()
        assert (game.id, game.status, game.winner, game.started, game.finished) == (
            1, "finished", "Alice", None, None)
        assert game.to_dict()["losers"] == [{"side": "Bob", "score": game.scores["Bob"], "result": game.result,
                                   "margin": game.margin, "game_points": game.game_points}]
        assert reader.times(1).started is None
    assert dump(path) == dump(FIXTURE, immutable=True)


def test_times_of_a_game_not_in_the_ledger_is_refused(tmp_path):
    """times() of an unknown game says so."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, ["game six-card seats=A,B"])
    with LedgerReader(path) as reader, pytest.raises(LedgerError, match="no game 7 in"):
        reader.times(7)


def test_data_version_changes_when_the_writer_commits_and_only_then(tmp_path):
    """The change token stays while nothing is written and changes after each entry the writer commits."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, ["game six-card seats=A,B"])
        with LedgerReader(path) as reader:
            first = reader.data_version()
            reader.games(), reader.export(), reader.book
            assert reader.data_version() == first
            seen = [first]
            for line in ("peg A 2", "undo", "redo"):
                store.apply(parse_line(line))
                seen.append(reader.data_version())
                assert seen[-1] != seen[-2]


def test_a_reader_answers_from_another_thread(tmp_path):
    """One reader serves calls from several threads (a web server's workers)."""
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        apply_all(store, FIVE_CARD_WIN + ["game five-card seats=A,B"])
    answers = []
    with LedgerReader(path) as reader:
        threads = [threading.Thread(target=lambda: answers.append(
            (len(reader.games()), reader.data_version(), reader.times(1).finished is not None)))
            for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert len(answers) == 4 and all(a[0] == 1 and a[2] for a in answers)


def test_a_new_ledger_is_schema_2(tmp_path):
    """A ledger the writer creates carries the current schema."""
    path = tmp_path / "ledger.sqlite3"
    LedgerWriter(path).close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (SCHEMA_VERSION,)
        assert SCHEMA_VERSION == "2"
    finally:
        conn.close()


def test_migrated_and_fresh_ledgers_replay_alike(tmp_path):
    """The current game of the migrated fixture, replayed from its export, is the state the store resumes."""
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(FIXTURE, path)
    with LedgerWriter(path, clock=Ticks()) as store:
        resumed = state_dict(store.book)
        replayed = state_dict(replay(store.export()).book)
    resumed.pop("match"), replayed.pop("match")
    assert resumed == replayed


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


SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE matches (id INTEGER PRIMARY KEY, started TEXT NOT NULL);
CREATE TABLE games (id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
                    header TEXT NOT NULL, outcome TEXT);
CREATE TABLE actions (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id), line TEXT NOT NULL);
CREATE INDEX actions_by_game ON actions (game_id, id);
CREATE INDEX games_by_match ON games (match_id, id);
INSERT INTO meta VALUES ('schema', '1');
"""


def test_schema_1_games_get_the_status_they_meant(tmp_path):
    """A schema 1 ledger with a finished, an abandoned, an empty and a live game: the reader lists
    them as they were before and after the writer migrates it, and the statuses are stored."""
    made = tmp_path / "made.sqlite3"
    with LedgerWriter(made, clock=Ticks()) as store:
        apply_all(store, FIVE_CARD_WIN + ["game five-card seats=A,B", "peg A 2",
                                          "game five-card seats=A,B", "game five-card seats=A,B", "peg B 1"])
    old = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(old, isolation_level=None)
    conn.executescript(SCHEMA_1)
    conn.execute("ATTACH DATABASE ? AS made", (str(made),))
    conn.execute("INSERT INTO matches SELECT id, started FROM made.matches")
    conn.execute("INSERT INTO games SELECT id, match_id, header, outcome FROM made.games")
    conn.execute("INSERT INTO actions SELECT id, game_id, line FROM made.actions")
    conn.execute("DETACH DATABASE made")
    conn.close()
    with LedgerReader(old) as reader:
        before = [(g.id, g.status, g.winner, g.started) for g in reader.games()]
        abandoned = state_dict(reader.book)["match"]["abandoned"]
    assert before == [(2, "abandoned", None, None), (1, "finished", "A", None)] and abandoned == 1
    LedgerWriter(old, clock=Ticks()).close()
    conn = sqlite3.connect(old)
    assert conn.execute("SELECT id, status FROM games ORDER BY id").fetchall() == [
        (1, "finished"), (2, "abandoned"), (3, "empty"), (4, None)]
    conn.close()
    with LedgerReader(old) as reader:
        assert [(g.id, g.status, g.winner, g.started) for g in reader.games()] == before
        assert state_dict(reader.book)["match"]["abandoned"] == 1


def test_a_reader_open_across_the_migration_sees_the_new_schema(tmp_path):
    """The web view keeps its reader while the upgraded board migrates the ledger: it reads the times after."""
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(FIXTURE, path)
    with LedgerReader(path) as reader:
        token = reader.data_version()
        assert reader.times(2).entries[-1] is None
        with LedgerWriter(path, clock=lambda: "2026-12-02T20:30:00.000Z") as store:
            store.apply(parse_line("redo"))
        assert reader.data_version() != token
        assert reader.times(2).entries[-1] == "2026-12-02T20:30:00.000Z"
        assert reader.export(2)[-1] == "redo" and [g.id for g in reader.games()] == [1]


BEFORE_THE_MOVE = ROOT / "tests" / "data" / "ledger-v2.sqlite3"  # written at 4c35ef2, before ledger/ left scorer/
BEFORE_THE_MOVE_READ = ROOT / "tests" / "data" / "ledger-v2.json"  # what 4c35ef2's own reader read from it


def test_a_ledger_written_before_the_ledger_had_a_package_of_its_own_reads_the_same(tmp_path):
    """tests/data/ledger-v2.sqlite3 (see make_ledger_v2.py): today's reader lists the same games, exports
    and times as the reader of the commit that wrote it, and today's writer resumes the same match and
    goes on; the file given is never changed."""
    before_digest = digest(BEFORE_THE_MOVE)
    expected = json.loads(BEFORE_THE_MOVE_READ.read_text(encoding="utf-8"))
    path = tmp_path / "ledger.sqlite3"
    shutil.copy(BEFORE_THE_MOVE, path)
    with LedgerReader(path) as reader:
        assert [game.to_dict() for game in reader.games()] == expected["games"]
        assert reader.messages == expected["messages"] == []
        ids = reader.game_ids()
        assert {str(i): reader.export(i) for i in ids} == expected["exports"]
        assert {str(i): vars_of(reader.times(i)) for i in ids} == expected["times"]
        state = state_dict(reader.book)
        assert state.pop("sources") == []  # a field added since: no entry of it was made off the board
        assert state == expected["current"]
    with LedgerWriter(path, clock=Ticks()) as store:
        assert state_dict(store.book) == {**expected["current"], "sources": []} and store.messages == []
        apply_all(store, ["peg Ed 2"])
        assert store.export()[-1] == "peg Ed 2"
    with LedgerReader(path) as reader:
        assert reader.export(ids[-1]) == expected["exports"][str(ids[-1])] + ["peg Ed 2"]
    assert digest(BEFORE_THE_MOVE) == before_digest


def vars_of(times) -> dict:
    """GameTimes as the reader of 4c35ef2 gave them: a dict, its entries a list."""
    return {"started": times.started, "finished": times.finished, "entries": list(times.entries)}

"""The ledger's schema and its migrations (ledger/schema.py): a schema 1 ledger, and one written
before the ledger had a package of its own, read and carried forward without loss."""

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

from helpers import FIVE_CARD_WIN, Ticks, apply_all, stamp

from ledger.reader import LedgerReader
from ledger.schema import SCHEMA_VERSION
from ledger.writer import LedgerWriter
from scorer.record import parse_line, replay
from scorer.report import state_dict

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "ledger-v1.sqlite3"


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

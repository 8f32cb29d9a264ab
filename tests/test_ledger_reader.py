"""The ledger's reader (ledger/reader.py): the listing of games, their times, the change token the web
view polls, and one reader for several threads."""

import threading

import pytest
from helpers import FIVE_CARD_WIN, Ticks, apply_all

from ledger.errors import LedgerError
from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.record import parse_line

GAME_KEYS = {"id", "match_id", "variant", "seats", "winner", "loser", "losers", "result", "margin",
             "game_points", "started", "finished", "status"}


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

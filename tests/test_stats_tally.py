"""The statistics counted a game at a time: scorer.history.PlayerTally, and /stats's tally in the web Site."""

from __future__ import annotations

import sqlite3

import pytest

from firmware.web.follow import LedgerFollower
from firmware.web.site import Site, side_colours
from ledger.writer import LedgerWriter
from scorer.history import PlayerTally, hand_percentile, player_stats
from scorer.record import parse_line

from web_games import game_record, match_records, write_games


@pytest.mark.slow
def test_a_tally_counted_a_game_at_a_time_gives_player_stats():
    """After each record added, PlayerTally's rows equal player_stats over the records so far, percentiles
    included (each hand against its own hand size); rows given earlier do not change as more are added."""
    records = (match_records(3) + [game_record("game five-card seats=alice,Cat dealer=Cat", seed=4)]
               + [game_record("game four-hand seats=Alice,Bob,Cat,Dan dealer=Dan", seed=5, entries=20)])
    tally = PlayerTally()
    earlier = []
    for count, record in enumerate(records, start=1):
        tally.add(record)
        rows = tally.rows()
        assert rows == player_stats(records[:count])
        earlier.append((rows, player_stats(records[:count])))
    for rows, expected in earlier:
        assert rows == expected
    alice = next(row for row in tally.rows() if row["name"] == "Alice")
    assert set(alice["hands_by_size"]) == {"3", "4"} and tally.games == len(records)
    weighted = sum(hand_percentile(counts, int(size)) * len(counts) for size, counts in alice["hands_by_size"].items())
    assert alice["percentile"] == weighted / len(alice["hands"])


def test_a_record_that_does_not_read_changes_nothing():
    """add() of a record that is not one game raises ValueError and leaves the tally as it was."""
    tally = PlayerTally()
    first, second = match_records(2)
    tally.add(first)
    before = tally.rows()
    for bad in ([], ["peg Alice 2"], second + ["game six-card seats=Alice,Bob"]):
        try:
            tally.add(bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"{bad[:1]} was counted")
    assert tally.rows() == before and tally.games == 1


@pytest.mark.slow
def test_the_site_counts_only_the_games_it_has_not_seen(tmp_path, monkeypatch):
    """Games finished one by one: /stats and the colours equal player_stats and side_colours of every
    record, and each change reads only the new game's record; an undo that reopens the last game counts
    all again without it, and a record that no longer reads is left out as before."""
    path = tmp_path / "ledger.sqlite3"
    records = match_records(4) + [game_record("game six-card seats=Cat,alice dealer=Cat", seed=9)]
    store = LedgerWriter(path)
    follower = LedgerFollower(path)
    site = Site(follower)
    read = []
    export = follower.export
    monkeypatch.setattr(follower, "export", lambda game_id: read.append(game_id) or export(game_id))
    try:
        write_games(store, records[:1])
        with sqlite3.connect(path) as conn:  # another program changes game 1's first entry before any look
            conn.execute("UPDATE actions SET line='peg Nobody nonsense' WHERE id=(SELECT min(id) FROM actions)")
        conn.close()
        exported = [export(1)]
        assert site.stats() == player_stats([]) == [] and site.colours() == side_colours(exported)
        for count, record in enumerate(records[1:], start=2):
            read.clear()
            write_games(store, [record])
            exported.append(export(count))
            assert site.stats() == player_stats(exported[1:])
            assert site.colours() == side_colours(exported)
            assert read == [count]
        store.apply(parse_line("undo"))  # the last game is in play again: no longer listed
        read.clear()
        assert site.stats() == player_stats(exported[1:-1]) and site.colours() == side_colours(exported[:-1])
        assert read == [1, 2, 3, 4]
        store.apply(parse_line("redo"))
        read.clear()
        assert site.stats() == player_stats(exported[1:]) and read == [5]
    finally:
        follower.close()
        store.close()


def test_the_charts_drawn_from_the_tally_are_those_drawn_from_the_hands():
    """stats_context given the tally's counts of each total draws the charts it draws by counting each
    player's hands, and counts them itself when those counts are not the rows' (a stale tally)."""
    from firmware.web.pages import stats_context

    records = match_records(2) + [game_record("game four-hand seats=Alice,Bob,Cat,Dan dealer=Dan", seed=5)]
    tally = PlayerTally()
    for record in records:
        tally.add(record)
    players = tally.rows(percentile=False)
    tables = {size: {total: 1 + total % 3 for total in range(30)} for size in (4, 5)}
    drawn = stats_context(players, tables, None)
    assert stats_context(players, tables, None, None, tally.seen()) == drawn
    assert [card["chart"] is not None for card in drawn["cards"]] == [True] * len(players)
    tally.add(game_record("game six-card seats=Alice,Bob dealer=Bob", seed=8))
    assert stats_context(players, tables, None, None, tally.seen()) == drawn

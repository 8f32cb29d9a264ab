"""What the web view's site (firmware/web/site.py) keeps, and for how long: bounded per-game caches, a
replaced ledger file read afresh, the board page rendered once per change and read again after an entry."""

import json
import os
from contextlib import contextmanager

import pytest

from firmware.web import site as site_module
from firmware.web.follow import LedgerFollower
from firmware.web.records import play_record
from firmware.web.site import Site
from ledger.writer import LedgerWriter
from scorer.history import player_stats
from scorer.record import parse_line

from waits import eventually
from web_games import game_record, get, get_json, match_records, web_server, write_games

SIX = "game six-card seats=Alice,Bob dealer=Alice"


@pytest.mark.slow
def test_the_per_game_caches_stay_bounded(tmp_path, monkeypatch):
    """Visiting every game page and the statistics keeps at most CACHED_GAMES replayed games and no
    record (the statistics keep their tally); a game pushed out is replayed again, the same."""
    monkeypatch.setattr(site_module, "CACHED_GAMES", 4)
    path = tmp_path / "ledger.sqlite3"
    records = match_records(12)
    with LedgerWriter(path) as store:
        write_games(store, records + [[SIX]])
        exported = [store.export(game_id) for game_id in range(1, 13)]
    follower = LedgerFollower(path)
    site = Site(follower)
    try:
        for game_id in range(1, 13):
            assert site.game(game_id)[1].lines == play_record(game_id, exported[game_id - 1]).lines
        assert site.stats() == player_stats(exported)
        assert len(site._played) == 4 and site.folded().tally.games == 12
        assert site.game(1)[1].lines == play_record(1, exported[0]).lines
    finally:
        follower.close()


@pytest.mark.slow
def test_a_replaced_ledger_is_read_afresh_with_nothing_kept(tmp_path):
    """The ledger archived and started afresh under the server: at its next poll the view reads
    the new file (its identity, not data_version) and /games/1, /api/games/1 and /stats show
    the new file's games only."""
    path = tmp_path / "ledger.sqlite3"
    old, new = match_records(2, seats="Alice,Bob"), match_records(2, seats="Cat,Dan", seed=7)
    with LedgerWriter(path) as store:
        write_games(store, old)
    with web_server(path) as base:
        for url in ("/games/1", "/api/games/1", "/stats", "/games/2"):
            assert get(base + url)[0] == 200
        os.rename(path, tmp_path / "archived.sqlite3")
        with LedgerWriter(path) as store:
            write_games(store, new)
            exported = store.export(1)
        assert eventually(lambda: get_json(base + "/api/games")[1][0]["seats"] == ["Cat", "Dan"])
        _, game = get_json(base + "/api/games/1")
        _, _, page = get(base + "/games/1")
        _, stats = get_json(base + "/api/stats")
        _, _, stats_page = get(base + "/stats")
    assert game["seats"] == game["sides"] == ["Cat", "Dan"] and [e["line"] for e in game["entries"]] == exported[1:]
    assert b"Cat" in page and b"Alice" not in page
    assert stats == json.loads(json.dumps(player_stats(new)))
    assert b"Dan" in stats_page and b"Alice" not in stats_page and b"Bob" not in stats_page


@contextmanager
def one_entry_to_go(tmp_path):
    """A ledger holding a six-card game but its last entry, a web Site reading it: (the writer, the site,
    that last entry's line); the reader is closed at the end."""
    path = tmp_path / "ledger.sqlite3"
    record = game_record(SIX, seed=2, entries=6)
    with LedgerWriter(path) as store:
        write_games(store, [record[:-1]])
        follower = LedgerFollower(path)
        try:
            yield store, Site(follower), record[-1]
        finally:
            follower.close()


def test_the_board_page_is_rendered_once_per_change(tmp_path, monkeypatch):
    """Requests for / between two entries share one rendering; an entry renders it anew."""
    from firmware.web import pages

    rendered = []
    board_page = pages.board_page
    monkeypatch.setattr(pages, "board_page", lambda *args: rendered.append(args) or board_page(*args))
    with one_entry_to_go(tmp_path) as (store, site, last):
        first = [site.board_page() for _ in range(5)]
        store.apply(parse_line(last))
        second = [site.board_page() for _ in range(5)]
    assert len(rendered) == 2 and len(set(first)) == len(set(second)) == 1 and first[0] != second[0]
    assert b"</html>" in second[0]


def test_an_entry_made_while_the_board_is_read_shows_at_the_next_look(tmp_path, monkeypatch):
    """The board writes while the page is being read: the next look reads it again, rather
    than keeping what it read before the entry under the token after it (a page that stood
    still until the next entry)."""
    from firmware.web import pages

    with one_entry_to_go(tmp_path) as (store, site, last):
        live_html = pages.live_html
        pending = [last]

        def entry_while_read(*args):
            html = live_html(*args)
            while pending:  # the board pegs after the ledger was read, before the page is kept
                store.apply(parse_line(pending.pop()))
            return html

        monkeypatch.setattr(pages, "live_html", entry_while_read)
        before = site.live()
        after = site.live()
        final = {side.name: score for side, score in zip(store.game.sides, store.game.state.scores)}
    assert before["state"] != after["state"]
    assert {side["name"]: side["score"] for side in after["state"]["sides"]} == final

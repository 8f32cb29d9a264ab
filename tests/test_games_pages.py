"""/games in pages: newest first, PAGE_GAMES a page, links to the pages beside it, a page past either end
said in words, a page asked for in another way refused in one line; the history's pages made once per
change of the games listed, not at every entry of the game in play."""

import csv
import io
import re
import sqlite3

import pytest

from firmware.web.follow import LedgerFollower
from firmware.web.site import PAGE_GAMES, Site
from ledger.reader import LedgerReader
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from web_games import get, get_json, match_records, web_server, write_games

SHORT = "six-card target=31"  # a few deals a game: many games written quickly
GAMES = 2 * PAGE_GAMES + 20


def short_games(count: int) -> list[list[str]]:
    """The records of ``count`` finished games of 31 points, one match."""
    return match_records(count, variant=SHORT)


def write(path, records: list[list[str]], *more: list[str]) -> None:
    """A ledger of ``records``, then of the games begun by the lines ``more``."""
    with LedgerWriter(path) as store:
        write_games(store, records + [[f"game {SHORT} seats=Alice,Bob", *lines] for lines in more])


def listed(body: bytes) -> list[int]:
    """The games a page of /games lists, in its order."""
    return [int(n) for n in re.findall(rb'<td class="id"><a href="/games/(\d+)">', body)]


def links(body: bytes) -> dict[str, str]:
    """The page's links to the pages beside it, by their words."""
    nav = re.search(rb'<nav class="pages".*?</nav>', body, re.S)
    return {} if nav is None else {words.decode(): href.decode()
                                   for href, words in re.findall(rb'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav.group())}


@pytest.mark.slow
def test_games_come_in_pages_newest_first(tmp_path):
    """/games lists the newest PAGE_GAMES games, newest first, with a link to the older ones; each page
    links to the newest, the newer and the older pages beside it, and together they list every game once."""
    state = tmp_path / "ledger.sqlite3"
    write(state, short_games(GAMES), [])
    newest = GAMES
    with web_server(state) as base:
        status, _, first = get(base + "/games")
        assert status == 200
        assert listed(first) == list(range(newest, newest - PAGE_GAMES, -1))
        assert links(first) == {"older games": f"/games?before={newest - PAGE_GAMES + 1}"}
        status, _, second = get(base + links(first)["older games"])
        assert status == 200
        assert listed(second) == list(range(newest - PAGE_GAMES, newest - 2 * PAGE_GAMES, -1))
        assert links(second) == {"newest": "/games", "newer games": f"/games?after={newest - PAGE_GAMES}",
                                 "older games": f"/games?before={newest - 2 * PAGE_GAMES + 1}"}
        _, _, last = get(base + links(second)["older games"])
        assert listed(last) == list(range(GAMES - 2 * PAGE_GAMES, 0, -1))
        assert set(links(last)) == {"newest", "newer games"}
        _, _, back = get(base + links(last)["newer games"])
        assert listed(back) == listed(second)
        _, _, top = get(base + links(second)["newer games"])
        assert listed(top) == listed(first) and set(links(top)) == {"older games"}
        assert sorted(listed(first) + listed(second) + listed(last)) == list(range(1, GAMES + 1))


@pytest.mark.slow
def test_pages_past_the_end_and_bad_page_parameters(tmp_path):
    """A page past either end is a 404 that says so and links to the newest; a page parameter that is no
    game's number, or two of them, is a 400 in one line; other parameters are let be."""
    state = tmp_path / "ledger.sqlite3"
    write(state, short_games(3))
    with web_server(state) as base:
        status, _, body = get(base + "/games?before=1")
        assert status == 404
        assert b"No games before game 1." in body and links(body) == {"newest": "/games"}
        status, _, body = get(base + "/games?after=3")
        assert status == 404 and b"No games after game 3." in body
        for query in ("before=abc", "before=", "after=-1", "before=1%0A2", "before=" + "9" * 19,
                      "before=2&after=1", "before=2&before=3", "before=%D9%A3"):
            status, headers, body = get(base + "/games?" + query)
            assert status == 400, query
            assert headers["Content-Type"].startswith("text/plain")
            assert body.endswith(b"\n") and body.count(b"\n") == 1 and b"/games?" in body, query
        status, _, body = get(base + "/games?before=9" + "&utm=x")
        assert status == 200 and listed(body) == [3, 2, 1]


@pytest.mark.slow
def test_the_csv_and_the_json_still_list_every_game(tmp_path):
    """/games.csv and /api/games list every game, newest first, however many pages /games takes."""
    state = tmp_path / "ledger.sqlite3"
    write(state, short_games(PAGE_GAMES + 5))
    with web_server(state) as base:
        status, games = get_json(base + "/api/games")
        assert status == 200 and [g["id"] for g in games] == list(range(PAGE_GAMES + 5, 0, -1))
        _, _, body = get(base + "/games.csv")
        rows = list(csv.DictReader(io.StringIO(body.decode(), newline="")))
        assert [int(row["id"]) for row in rows] == list(range(PAGE_GAMES + 5, 0, -1))


def test_a_page_reads_only_its_rows(tmp_path):
    """LedgerReader.games_page gives the same games as games() page by page, leaving out the game in
    play, one begun and replaced with nothing in it and one whose game line is damaged."""
    state = tmp_path / "ledger.sqlite3"
    write(state, short_games(7), [], ["peg Bob 2"], ["peg Alice 1"])
    with sqlite3.connect(state) as conn:
        conn.execute("UPDATE games SET header='game nonsense' WHERE id=3")
    conn.close()
    with LedgerReader(state) as reader:
        every = [game.id for game in reader.games()]
        assert every == [9, 7, 6, 5, 4, 2, 1]  # 10 in play, 8 replaced empty, 3 damaged
        pages, before = [], None
        while True:
            page = reader.games_page(3, before=before)
            pages.append([game.id for game in page.rows])
            if not page.older:
                break
            before = page.rows[-1].id
        assert pages == [[9, 7, 6], [5, 4, 2], [1]]
        assert reader.games_page(3, after=2).rows == reader.games_page(3, before=7).rows
        assert reader.games_page(3, after=2).newer and reader.games_page(3, after=2).older
        assert reader.game(3) is None and reader.game(10) is None and reader.game(9).id == 9


def test_history_pages_are_made_once_per_change_of_the_games_listed(tmp_path):
    """An entry in the game in play leaves /games, /stats and /api/games as they were made (the same
    bytes, not made again); a game finished makes them again, with it listed."""
    state = tmp_path / "ledger.sqlite3"
    records = short_games(4)
    record = records[3]
    with LedgerWriter(state) as store:
        write_games(store, records[:3] + [record[:2]])
        site = Site(LedgerFollower(state))
        made = site.games_page(), site.stats_page(), site.api_games()
        assert listed(made[0].body) == [3, 2, 1]
        store.apply(parse_line(record[2]))
        assert site.live()["state"]["sides"] and (site.games_page(), site.stats_page(), site.api_games()) == made
        assert all(again is first for again, first in zip((site.games_page(), site.stats_page(), site.api_games()),
                                                          made))
        for line in record[3:]:
            store.apply(parse_line(line))
        page = site.games_page()
        assert listed(page.body) == [4, 3, 2, 1] and site.api_games() != made[2] and site.stats_page() != made[1]
        site.follower.close()

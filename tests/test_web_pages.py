"""The web view's pages (firmware/web/pages.py, with the records and the site they show) as a player reads
them: undone entries, long names, the CSV, titles, the live region, the players' colours, an option changed."""

import csv
import io
import json
import re

import pytest

from firmware.web import pages
from firmware.web.follow import LedgerFollower
from firmware.web.records import taken_back
from firmware.web.site import Site
from ledger.rows import GameRow
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from web_games import game_record, get, match_records, up_to_a_crib, web_server, write_games


def test_taken_back_marks_what_each_undo_took_back():
    """An undo takes back the last entry standing (a redo stands again, and can be taken back again)."""
    assert taken_back(["entry", "undo"]) == {0}
    assert taken_back(["entry", "entry", "undo", "undo", "redo"]) == {0, 1}
    assert taken_back(["entry", "undo", "redo", "undo"]) == {0, 2}
    assert taken_back(["entry", "entry", "undo", "entry"]) == {1}
    assert taken_back(["undo"]) == set()


def test_after_crib_then_undo_the_crib_is_struck_out_not_the_undo(tmp_path):
    """"last entries" and the game's ledger after ``crib N`` then ``undo``: the crib entry is marked
    undone (struck out), the undo line is not."""
    state = tmp_path / "ledger.sqlite3"
    record = up_to_a_crib() + ["undo"]
    with LedgerWriter(state) as store:
        write_games(store, [record])
    follower = LedgerFollower(state)
    try:
        snap = follower.snapshot()
        undo, crib = snap.recent[:2]
        assert undo["action"] == "undo" and not undo["undone"]
        assert crib["action"] == "entry" and crib["undone"] and "crib" in crib["text"]
        html = pages.live_html(snap.state, None, list(snap.recent))
        items = re.findall(r'<li class="([^"]*)">(.*?)</li>', html)
        assert items[0][0] == "undo" and items[1][0] == "entry undone" and "crib" in items[1][1]
        assert all("undone" not in cls for cls, _ in items[2:])
        listed, played, times = Site(follower).game(1)
        rows = re.findall(r'<tr class="([^"]*)">', pages.render("game.html", pages.game_context(listed, played, times)))
        assert rows[-2:] == ["entry undone", "undo"] and "undone" not in "".join(rows[:-2])
    finally:
        follower.close()
    style = pages.STYLE
    assert re.search(r"\.entries li\.undone[^{]*\{[^}]*line-through", style)
    assert not re.search(r"\.entries li\.undo \{[^}]*line-through", style)


def test_a_side_card_gives_the_whole_name_in_its_title_beside_the_deals_badge(tmp_path):
    """Each score card's name carries the whole name as its title (what an ellipsis cuts, a pointer
    shows), in one head with the "deals" badge, which is no longer laid over the name."""
    state = tmp_path / "ledger.sqlite3"
    seats = "Maximilianus_Augustinus,Bartholomew_Fitzwilliam,Dé,Cat"
    with LedgerWriter(state) as store:
        write_games(store, [game_record(f"game four-hand seats={seats} dealer=Dé", seed=4, entries=5)],
                    kept_before=True)
    follower = LedgerFollower(state)
    try:
        snap = follower.snapshot()
    finally:
        follower.close()
    html = pages.live_html(snap.state, None, [])
    assert ('<div class="name" title="\u2068Maximilianus_Augustinus+Dé\u2069"><bdi>Maximilianus_Augustinus+Dé</bdi></div>'
            in html)  # the title isolated as every name in an attribute is
    assert len(re.findall(r'<div class="head"><div class="name" title="[^"]+"><bdi>[^<]+</bdi></div>'
                          r'<span class="badge" title="dealer">deals</span></div>', html)) == 1
    assert "position:absolute" not in pages.STYLE.split(".side .badge")[1].split("}")[0]


@pytest.mark.slow
def test_games_csv_keeps_the_scores_of_an_abandoned_game_as_its_page_shows_them(tmp_path):
    """/games.csv gives an abandoned game the scores its page (/games/ID) shows, where the ledger lists
    none; finished games keep the ledger's."""
    import csv
    import io


    state = tmp_path / "ledger.sqlite3"
    abandoned = game_record("game five-card seats=Cat,Dan dealer=Cat", seed=3, entries=6)
    with LedgerWriter(state) as store:
        write_games(store, match_records(2) + [abandoned, game_record("game six-card seats=Eve,Fay dealer=Fay",
                                                                       seed=4, entries=5)])
    follower = LedgerFollower(state)
    try:
        site = Site(follower)
        rows = {row["id"]: row for row in csv.DictReader(io.StringIO(site.games_csv(), newline=""))}
        listed, played, times = site.game(3)
        page = pages.render("game.html", pages.game_context(listed, played, times))
        finished = {g.id: g for g in site.games()}[1]
    finally:
        follower.close()
    assert rows["3"]["status"] == "abandoned" and listed.scores is None
    shown = dict(zip([side.name for side in played.game.sides], played.game.state.scores))
    assert rows["3"]["scores"] == f"Cat:{shown['Cat']} Dan:{shown['Dan']}" and sum(shown.values()) > 3
    assert f"<bdi>Cat</bdi> {shown['Cat']}, <bdi>Dan</bdi> {shown['Dan']}" in page  # as the page shows them
    assert rows["1"]["scores"] == " ".join(f"{side}:{score}" for side, score in finished.scores.items())
    assert set(rows) == {"1", "2", "3"}  # the game in play is not listed
    with web_server(state) as base:
        status, _, body = get(base + "/games.csv")
    served = {row["id"]: row for row in csv.DictReader(io.StringIO(body.decode(), newline=""))}
    assert status == 200 and served == rows


INVISIBLE = re.compile(r"[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


@pytest.mark.slow
def test_every_page_has_an_h1_and_a_title_with_nothing_invisible(tmp_path):
    """/, /games, a game, /stats and a missing game each have one h1 (the brand where the page has no
    heading of its own) and a <title> without isolates or other invisible characters."""

    state = tmp_path / "ledger.sqlite3"
    with LedgerWriter(state) as store:
        write_games(store, match_records(2, seats="Dé,אבי") + [up_to_a_crib()])
        with web_server(state) as base:
            for path in ("/", "/games", "/games/1", "/stats", "/games/99"):
                _, _, body = get(base + path)
                page = body.decode()
                assert len(re.findall(r"<h1[ >]", page)) == 1, path
                title = re.search(r"<title>(.*?)</title>", page).group(1)
                assert title and not INVISIBLE.search(title), (path, title)
    assert pages.live_title({"variant": "six-card", "sides": [{"name": "B\u200bob", "score": 16}]}) == \
        "B\ufffdob 16 · cribbage-board"  # a name's own hidden character shown, not hidden


def test_the_newest_entry_is_said_in_words_for_the_live_region(tmp_path):
    """The live board's event carries the newest entry as a sentence with the side's new score ("Bob pegged
    2 in the play: 15 two, Bob now 2"), keyed so the live region says each entry once; the page's region
    starts empty, with the key of the entry it already shows."""
    from firmware.web.feed import LiveFeed
    from firmware.web.records import spoken
    from scorer.game import EntryKind, PeggedEntry

    def entry(kind, seat, points, note=""):
        return PeggedEntry(kind, seat, points, points, 1, None, note)

    assert spoken("entry", entry(EntryKind.PEG, "Bob", 2, "15 two")) == "Bob pegged 2 in the play: 15 two"
    assert spoken("undo", entry(EntryKind.CRIB, "Ann", 4)) == "Taken back: Ann pegged 4 for the crib"
    assert spoken("entry", entry(EntryKind.HEELS, "Ann", 2)) == "Ann pegged 2 for his heels"
    state = tmp_path / "ledger.sqlite3"
    record = up_to_a_crib()
    with LedgerWriter(state) as store:
        write_games(store, [record])
        follower = LedgerFollower(state)
        try:
            site = Site(follower)
            feed = LiveFeed(site)
            feed.update()
            first = json.loads(feed.event.decode().split("data: ", 1)[1])["said"]
            points = int(record[-1].split()[-1])  # the crib (the dealer's)
            seat = site.live()["recent"][0]["seat"]  # the dealer of the deal just counted
            score = next(s["score"] for s in site.live()["state"]["sides"] if seat in s["seats"])
            assert first["text"] == f"{seat} pegged {points} for the crib, {seat} now {score}"
            assert f'<p id="said" class="vh" role="status" aria-live="polite" aria-atomic="true" ' \
                   f'data-key="{first["key"]}"></p>' in site.board_page().decode()
            store.apply(parse_line("undo"))
            assert feed.update()
            second = json.loads(feed.event.decode().split("data: ", 1)[1])["said"]
            assert second["key"] != first["key"] and second["text"].startswith(f"Taken back: {seat} pegged {points}")
        finally:
            follower.close()


def test_each_player_has_the_colour_of_their_side_in_the_last_game_they_played():
    """Red (first seat) is red and Blue blue, as on the board; a partnership has its side's colour; a
    player's last game decides; a record whose game line does not read is passed over."""
    from firmware.web.board import COLOURS
    from firmware.web.site import side_colours

    records = [["game six-card seats=Red,Blue dealer=Red"], ["game four-hand seats=Ann,Ben,Cat,Dan dealer=Ann"],
               ["game three-hand seats=Eve,Red,Fay dealer=Eve"], ["game nonsense"], []]
    colours = side_colours(records)
    assert colours["red"] == 1 and colours["blue"] == 1 and colours["eve"] == 0 and colours["fay"] == 2
    assert colours[frozenset({"ann", "cat"})] == 0 and colours[frozenset({"ben", "dan"})] == 1
    html = pages.render("stats.html", pages.stats_context(
        [{"name": "Red", "kind": "player", "games": 1, "wins": 1, "skunks_given": 0, "skunks_taken": 0,
          "average_hand": 8.0, "average_crib": None, "play_per_deal": 1.0, "best_hand": 8, "heels": 0, "deals": 1,
          "abandoned": 0, "hands_by_size": {"4": [8]}, "hands": [8], "percentile": 50.0}], {4: {0: 1, 8: 1}}, None,
        {"red": 0}))
    assert '<section class="card player side-0">' in html and f'class="bar" fill="{COLOURS[0]}"' in html


# Options changed mid-game (``option muggins on|off``): a game with a count Alice may claim on once muggins is on.
OPTION_GAME = "game six-card seats=Alice,Bob dealer=Alice"
OPTION_PLAYED = [OPTION_GAME, "heels Alice", "peg Bob 2", "hand Bob 4"]


def test_the_web_never_strikes_out_an_option_change():
    """In the web view's list an undo takes back the entry before an option change, never the change."""
    from firmware.web.records import play_record, taken_back

    assert taken_back(["entry", "option", "undo"]) == {0}
    played = play_record(1, OPTION_PLAYED + ["option muggins on"])
    assert played.lines[-1]["text"] == "Muggins on, from now" and not played.problems



def test_the_live_board_reads_a_game_with_an_option_change(tmp_path):
    """The web view's live board (recent entries, the screen reader's words) reads a game in which
    muggins was turned on, and says the change as it describes itself."""
    from firmware.web.follow import LedgerFollower
    from firmware.web.site import Site
    from ledger.writer import LedgerWriter
    from scorer.record import parse_line

    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        for line in OPTION_PLAYED + ["option muggins on"]:
            store.apply(parse_line(line))
    follower = LedgerFollower(path)
    try:
        live = Site(follower).live()
    finally:
        follower.close()
    assert live["problem"] is None and live["state"]["options"]["muggins"] is True
    newest = live["recent"][0]
    assert newest["action"] == "option" and newest["said"] == "Muggins on, from now"


def test_games_csv_cells_never_start_a_formula():
    """Cells starting with = + - @, a tab or a carriage return get a leading quote (OWASP); others are as they were."""
    from firmware.web.pages import games_csv

    hostile = ("=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tTab", "\rReturn")
    rows = [GameRow(7, 1, "six-card", hostile[:2], 121, "finished", winner=hostile[2], loser=hostile[3],
                    result="win", margin=12, game_points=1, scores={hostile[4]: 121, hostile[5]: 109},
                    started="2026-01-01T20:00:00.000Z", finished="2026-01-01T20:30:00.000Z")]
    table = list(csv.reader(io.StringIO(games_csv(rows), newline="")))
    row = dict(zip(table[0], table[1]))
    for cell in table[1]:
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    assert row["players"] == "'" + " ".join(hostile[:2]) and row["winner"] == "'-2+3" and row["loser"] == "'@SUM(A1)"
    assert row["scores"] == "'\tTab:121 \rReturn:109"
    assert (row["id"], row["margin"], row["started"], row["result"]) == ("7", "12", "2026-01-01T20:00:00.000Z", "win")

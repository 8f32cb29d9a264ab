"""The web view's pages as a player reads them: undone entries, long names, the QR code, the CSV, the charts."""

import json
import re

import pytest

from firmware.web import pages
from firmware.web.follow import LedgerFollower
from firmware.web.records import line_marks, taken_back
from firmware.web.site import Site
from ledger.writer import LedgerWriter
from scorer.record import parse_line

from web_games import game_record, write_games

SIX = "game six-card seats=Alice,Bob dealer=Alice"


def up_to_a_crib(seed: int = 7) -> list[str]:
    """A six-card game's record up to and including its first crib count."""
    record = game_record(SIX, seed=seed)
    first = next(n for n, line in enumerate(record) if line.startswith("crib"))
    return record[:first + 1]


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
        write_games(store, [game_record(f"game four-hand seats={seats} dealer=Dé", seed=4, entries=5)])
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


def test_the_qr_code_gives_the_pages_address_on_the_network():
    """Reached by a network address the QR code gives that; reached as localhost, this machine's first
    address on the network with the port the server listens on; with none, a note and no code."""
    from firmware.web.qr import loopback, phone_url, qr_html

    lan = lambda: ["192.168.1.23", "10.0.0.5"]  # noqa: E731
    assert phone_url("http", "192.168.1.23", "192.168.1.23:8121", 8121, lan) == "http://192.168.1.23:8121/"
    assert phone_url("http", "pi.local", "pi.local:9000", 9000, lan) == "http://pi.local:9000/"
    for host in ("localhost", "127.0.0.1", "::1", "127.1.2.3", "board.localhost"):
        assert loopback(host)
        assert phone_url("http", host, f"{host}:9000", 9000, lan) == "http://192.168.1.23:9000/"
    assert phone_url("http", "localhost", "localhost:9000", 9000, lambda: ["fe80::1"]) == "http://[fe80::1]:9000/"
    assert phone_url("http", "localhost", "localhost:9000", 9000, lambda: []) is None
    assert "no route" in qr_html(None) and "<svg" not in qr_html(None)
    html = qr_html("http://192.168.1.23:9000/")
    assert '<figure class="qr" data-url="http://192.168.1.23:9000/"><svg viewBox=' in html
    assert 'href="http://192.168.1.23:9000/"' in html


def test_the_qr_code_offers_only_what_the_server_listens_on():
    """On loopback only (127.0.0.1, ::1, localhost) the page offers no QR code and no network address, only a
    note; on every address (0.0.0.0, ::) this machine's network address, looked up at most every LAN_SECONDS;
    on one address, the address the page was reached by."""
    from firmware.web.qr import LAN_SECONDS, PhoneLink

    asked, now = [], [0.0]

    def lan():
        asked.append(now[0])
        return ["192.168.1.23"]

    for host in ("127.0.0.1", "::1", "localhost"):
        link = PhoneLink(host, 9000, lan, lambda: now[0])
        assert link.url("http", "127.0.0.1:9000") is None
        html = link.html("http", "127.0.0.1:9000")
        assert "No QR code" in html and "<svg" not in html and "192.168" not in html and "--host 0.0.0.0" in html
    assert asked == []  # the network is not even looked at
    for host in ("0.0.0.0", "::"):
        link = PhoneLink(host, 9000, lan, lambda: now[0])
        assert link.url("http", "127.0.0.1:9000") == "http://192.168.1.23:9000/"
        assert link.url("http", "localhost:9000") == "http://192.168.1.23:9000/"
        assert link.url("http", "192.168.1.23:9000") == "http://192.168.1.23:9000/"  # reached by it: as reached
        assert 'data-url="http://192.168.1.23:9000/"' in link.html("http", "[::1]:9000")
    asked.clear()
    link = PhoneLink("0.0.0.0", 9000, lan, lambda: now[0])
    for _ in range(100):
        link.url("http", "127.0.0.1:9000")
    now[0] += LAN_SECONDS
    link.url("http", "127.0.0.1:9000")
    assert asked == [0.0, LAN_SECONDS]  # once, then again after LAN_SECONDS: never once a request
    assert PhoneLink("192.168.1.23", 9000, lan).url("http", "192.168.1.23:9000") == "http://192.168.1.23:9000/"


@pytest.mark.slow
def test_a_server_on_loopback_shows_no_network_address(tmp_path):
    """``cribbage-board web --host 127.0.0.1``: its lines and its board page name no address but 127.0.0.1 (no QR code)."""
    from firmware.server.lan import host_addresses, lan_hosts

    from web_games import get, web_server

    state = tmp_path / "ledger.sqlite3"
    with LedgerWriter(state) as store:
        write_games(store, [up_to_a_crib()])
    with web_server(state) as base:
        status, _, body = get(base + "/")
    page = body.decode()
    assert status == 200 and "No QR code" in page and 'class="qr-code"' not in page
    for address in lan_hosts(others=host_addresses):
        assert address not in page
    assert not re.findall(r"https?://(?!127\.0\.0\.1|www\.w3\.org/2000/svg)[^\s\"<]+", page.split("<main>", 1)[1])


def test_lan_hosts_lists_each_address_once_and_falls_back_to_the_name():
    """The route's address first, then the name's others, each once; HOST.local when only the name can be known."""
    from firmware.server.lan import lan_hosts

    assert lan_hosts(ip=lambda: "192.168.1.23", others=lambda: ["192.168.1.23", "10.0.0.5"]) == ["192.168.1.23", "10.0.0.5"]
    assert lan_hosts(ip=lambda: None, up=lambda: True, hostname=lambda: "pi.lan") == ["pi.local"]
    assert lan_hosts(ip=lambda: None, up=lambda: False, private=lambda: False) == []


def test_web_says_its_network_addresses_and_a_port_the_board_does_not_show():
    """``cribbage-board web`` names localhost and each network address; started on another port than the
    config's [web] port, it says that the board's QR code gives the config's, and how to match them."""
    from firmware.web.server import addresses

    lines = addresses("0.0.0.0", 8121, 8121, lan=lambda: ["192.168.1.23", "fe80::1"])
    assert lines == ["on http://localhost:8121/ (all addresses)",
                     "on the network: http://192.168.1.23:8121/, http://[fe80::1]:8121/"]
    assert "no network address" in addresses("::", 8121, 8121, lan=lambda: [])[1]
    assert addresses("127.0.0.1", 8000, None) == ["on http://127.0.0.1:8000/"]
    note = addresses("0.0.0.0", 9000, 8121, lan=lambda: ["192.168.1.23"])[-1]
    assert "gives port 8121" in note and "port = 9000 under [web]" in note


@pytest.mark.slow
def test_the_web_command_prints_the_network_address_and_answers_favicon(tmp_path):
    """The real command's first lines name the network address (when this machine has one) and the
    note for --port; /favicon.ico is an icon (an ICO holding a 32x32 PNG)."""
    import io
    import subprocess
    import sys

    from PIL import Image

    from firmware.server.lan import host_addresses, lan_hosts

    from broker import free_port
    from web_games import ROOT, get

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "firmware.cli", "web", "--state", str(tmp_path / "l.sqlite3"),
                                "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
    try:
        said = [process.stdout.readline() for _ in range(3)]
        status, headers, body = get(f"http://127.0.0.1:{port}/favicon.ico")
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert said[0].startswith(f"cribbage-board web: serving {tmp_path / 'l.sqlite3'} read-only on http://localhost:{port}/")
    hosts = lan_hosts(others=host_addresses)
    if hosts:
        assert f"on the network: http://{hosts[0]}:{port}/" in said[1]
    assert "note: the board's phone view" in said[2] and "gives port 8121" in said[2]
    assert status == 200 and headers["Content-Type"] == "image/x-icon"
    image = Image.open(io.BytesIO(body))
    assert image.format == "ICO" and image.size == (32, 32)


def test_a_61_game_draws_no_double_skunk_line_at_the_start():
    """In a game to 61 the double skunk is under 1 (a loser who never pegged): no line is drawn before the
    first hole, on the board or the race chart; the skunk line (31) is."""
    from firmware.web.board import board_svg, geometry_for
    from firmware.web.charts import race_svg
    from firmware.web.records import line_marks
    from scorer.history import race_lines
    from scorer.record import replay
    from scorer.report import state_dict
    from scorer.variants import SkunkLines

    marks = line_marks(race_lines(61, SkunkLines.ACC))
    assert marks == [(31, "skunk")]
    state = state_dict(replay(["game five-card seats=Alice,Bob dealer=Alice"]).book)
    for tall in (False, True):
        svg = board_svg(state, geometry_for(2), marks, tall=tall)
        assert "skunk 31" in svg and "double skunk" not in svg
    race = race_svg([(0, 3)], ["Alice", "Bob"], 61, marks)
    assert "skunk 31" in race and "double skunk" not in race


def test_the_pegging_race_has_a_legend_of_each_sides_colour_and_name():
    """The race chart names whose line is whose: a swatch of each side's colour and its name (a long
    one cut with an ellipsis, whole in the title)."""
    from firmware.web.board import COLOURS
    from firmware.web.charts import race_svg

    long = "Maximilianus_Augustinus+Desiderius_Dé"
    svg = race_svg([(0, 0), (5, 2)], ["Alice", long], 121, [(91, "skunk")])
    legend = re.search(r'<g class="legend">(.*?)</g></g>', svg).group(1)
    items = re.findall(r'<g class="legend-item"><title>(.*?)</title>.*?stroke="(#\w+)".*?<text [^>]*>(.*?)</text>', legend + "</g>")
    assert [(colour, title) for title, colour, _ in items] == [(COLOURS[0], "\u2068Alice\u2069"), (COLOURS[1], f"\u2068{long}\u2069")]
    assert items[0][2] == "\u2068Alice\u2069" and items[1][2].endswith("…\u2069") and len(items[1][2]) == 28


@pytest.mark.slow
def test_games_csv_keeps_the_scores_of_an_abandoned_game_as_its_page_shows_them(tmp_path):
    """/games.csv gives an abandoned game the scores its page (/games/ID) shows, where the ledger lists
    none; finished games keep the ledger's."""
    import csv
    import io

    from web_games import get, match_records, web_server

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
    from web_games import get, match_records, web_server

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


@pytest.mark.slow
def test_race_labels_are_placed_clear_of_every_line():
    """In the SVG as written, each line's label ("double skunk 61") takes a box (at the phone's font, the
    larger) that no race step, skunk line or other label crosses: in 29 of 30 six-card games, and the
    one left is drawn over a backing, never bare across a line."""
    from firmware.web import charts
    from firmware.web.records import play_record

    backed = 0
    for seed in range(1, 31):
        r = play_record(1, game_record("game six-card seats=Red,Blue dealer=Red", seed=seed)).race
        svg = charts.race_svg([tuple(r["start"])] + [tuple(s) for s in r["scores"]], r["sides"], r["target"],
                              line_marks(r["lines"]))
        segments = [tuple(map(float, m)) for m in re.findall(
            r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" class="(?:skunk|target)-line"', svg)]
        for points in re.findall(r'<polyline points="([^"]+)" fill="none" stroke=', svg):
            pts = [tuple(map(float, p.split(","))) for p in points.split()]
            segments += [a + b for a, b in zip(pts, pts[1:])]
        labels = [(float(x), float(y), text) for x, y, text in
                  re.findall(r'<text x="([\d.]+)" y="([\d.]+)" class="axis line-label">([^<]+)</text>', svg)]
        assert {text for _, _, text in labels} >= {"skunk 91", "double skunk 61", "game 121"}
        boxes = [charts.text_box(x, y, text) for x, y, text in labels]
        clear = all(not charts._hits(box, s, 0) for box in boxes for s in segments)
        apart = all(not charts._hits(a, b, 0) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        if '<rect x="' in svg.split('class="legend"')[0].split('class="plot"')[1]:
            backed += 1  # nowhere clear: over a backing
        else:
            assert clear and apart, seed
    assert backed <= 1

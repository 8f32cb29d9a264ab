"""The web view in a real browser: Debian's headless Chromium driven by Selenium and chromium-driver.

Selenium, not Playwright: Debian ships chromedriver built from the same source as
its chromium (one version, nothing to download), while Playwright's driver is
made for its own Chromium builds. Screenshots of each page, at phone and TV
sizes, go to tests/output/web (or $CRIBBAGE_SCREENSHOTS) for review.
"""

import contextlib
import os
from pathlib import Path

import pytest
from helpers import BROWSER_MARKS

from ledger.writer import LedgerWriter
from scorer.record import parse_line

from waits import CEILING_S
from web_games import colour_blind_board, game_record, match_records, web_server, write_games

pytestmark = BROWSER_MARKS
SHOTS = Path(os.environ.get("CRIBBAGE_SCREENSHOTS") or Path(__file__).resolve().parent / "output" / "web")
PHONE = (390, 844)
TV = (1920, 1080)


def shoot(driver, name: str, size=PHONE) -> Path:
    """Save a screenshot of the whole page at a window width (height grown to the page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.set_window_size(*size)
    height, chrome = driver.execute_script("return [document.documentElement.scrollHeight, outerHeight - innerHeight]")
    driver.set_window_size(size[0], max(size[1], min(int(height) + int(chrome), 6000)))
    path = SHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    driver.set_window_size(*size)
    return path


@contextlib.contextmanager
def page_server(driver, state: Path, *extra: str, **options):
    """``web_server`` for a page in the browser, which leaves the page before the server stops: its open
    /events stream would hold the stop for the server's graceful shutdown (1 s)."""
    with web_server(state, *extra, **options) as base:
        try:
            yield base
        finally:
            driver.get("about:blank")


def wait_for(driver, condition, timeout: float = CEILING_S):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)


def scores(driver) -> dict:
    """Each side's score as the page shows it (read in one script: the live part is replaced whole)."""
    return driver.execute_script(
        "var out = {}; document.querySelectorAll('#live .side').forEach(function (s) {"
        " out[s.dataset.side] = parseInt(s.querySelector('[data-score]').textContent, 10); }); return out;")


def test_live_board_shows_names_scores_and_updates_without_reload(tmp_path, browser):
    """Names and scores show; an entry written by another process appears without a reload."""
    state = tmp_path / "ledger.sqlite3"
    record = game_record("game six-card seats=Alice,Bob dealer=Alice", seed=7, entries=30)
    with LedgerWriter(state) as store:
        write_games(store, [record[:-1]])
        with page_server(browser, state) as base:
            browser.get(base + "/")
            before = scores(browser)
            assert set(before) == {"Alice", "Bob"}
            assert before == {side.name: score for side, score in zip(store.game.sides, store.game.state.scores)}
            browser.execute_script("document.body.dataset.marker = 'same page'")
            store.apply(parse_line(record[-1]))
            after = {side.name: score for side, score in zip(store.game.sides, store.game.state.scores)}
            assert after != before
            wait_for(browser, lambda d: scores(d) == after)
            assert browser.execute_script("return document.body.dataset.marker") == "same page"  # no reload
            assert "live-dot on" in browser.page_source
            store.apply(parse_line("undo"))
            wait_for(browser, lambda d: scores(d) == before)
            struck = browser.execute_script(
                "return [...document.querySelectorAll('.entries li')].slice(0, 3).map(function (li) {"
                " return [li.className, getComputedStyle(li).textDecorationLine]; })")
            assert struck[0] == ["undo", "none"] and struck[1] == ["entry undone", "line-through"], struck
            assert "line-through" not in struck[2][1], struck  # the undo strikes what it took back, not itself
            shoot(browser, "board-phone")
            shoot(browser, "board-tv", TV)


def test_the_first_live_event_keeps_the_board_the_page_was_served_with(tmp_path, browser):
    """The page's first live event holds the board it was served with: the served board stays (no redraw,
    so no style and layout again at load); the next entry's event draws it anew."""
    state = tmp_path / "ledger.sqlite3"
    record = game_record("game six-card seats=Alice,Bob dealer=Alice", seed=7, entries=20)
    served = ("document.addEventListener('DOMContentLoaded', function () {"
              " window.servedBoard = document.getElementById('live').firstElementChild; });")
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": served})
    try:
        with LedgerWriter(state) as store:
            write_games(store, [record[:-1]])
            with page_server(browser, state) as base:
                browser.get(base + "/")
                wait_for(browser, lambda d: "live-dot on" in d.page_source)
                same = "return document.getElementById('live').firstElementChild === window.servedBoard"
                assert browser.execute_script("return !!window.servedBoard") and browser.execute_script(same)
                store.apply(parse_line(record[-1]))
                wait_for(browser, lambda d: not d.execute_script(same))
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})


def test_history_game_and_stats_pages_render(tmp_path, browser):
    """Games, one game (race chart, ledger) and stats render, with screenshots at phone and TV sizes."""
    state = tmp_path / "ledger.sqlite3"
    records = match_records(2)
    live = game_record("game seven-card seats=Alice,Bob dealer=Bob", seed=5, entries=60)  # both past 120: lap 2
    with LedgerWriter(state) as store:
        write_games(store, records + [live])
    with page_server(browser, state) as base:
        browser.get(base + "/games")
        rows = browser.find_elements("css selector", "tbody tr")
        assert len(rows) == 2 and "Alice, Bob" in rows[0].text
        shoot(browser, "games-phone")
        browser.get(base + "/games/1")
        assert browser.find_element("css selector", "svg.race").is_displayed()
        assert "skunk" in browser.find_element("css selector", "svg.race").get_attribute("innerHTML")
        shoot(browser, "game-phone")
        shoot(browser, "game-tv", TV)
        browser.get(base + "/stats")
        cards = browser.find_elements("css selector", "section.card")
        assert {c.find_element("css selector", "h2").text for c in cards} == {"Alice", "Bob"}
        assert "percentile" in cards[0].text and cards[0].find_element("css selector", "svg.dist").is_displayed()
        shoot(browser, "stats-phone")
        shoot(browser, "stats-tv", TV)
        browser.get(base + "/")
        assert "lap 2" in browser.page_source  # the seven-card game has gone round
        shoot(browser, "board-181-phone")
        shoot(browser, "board-181-tv", TV)


def test_a_missing_ledger_is_said_then_the_game_appears_live(tmp_path, browser):
    """Before the board has a ledger the page says so; when the board writes one, the game appears unasked."""
    state = tmp_path / "state" / "ledger.sqlite3"
    with page_server(browser, state) as base:
        browser.get(base + "/")
        alert = browser.find_element("css selector", "#live .problem")
        assert "no ledger" in alert.text
        shoot(browser, "board-no-ledger-phone")
        with LedgerWriter(state) as store:
            write_games(store, [game_record("game three-hand seats=Ann,Ben,Cat dealer=Cat", seed=9, entries=12)])
            expected = {side.name: score for side, score in zip(store.game.sides, store.game.state.scores)}
        wait_for(browser, lambda d: scores(d) == expected)
        assert len(browser.find_elements("css selector", "svg.board.wide g.track")) == 3  # the three-track board
        shoot(browser, "board-three-hand-phone")
        shoot(browser, "board-three-hand-tv", TV)


def test_the_pages_run_under_their_content_security_policy(tmp_path, browser):
    """Every page runs no inline script and the browser refuses nothing under the page's policy:
    the style (allowed by its hash) applies, live.js (a file) connects to /events."""
    state = tmp_path / "ledger.sqlite3"
    with LedgerWriter(state) as store:
        write_games(store, match_records(2) + [game_record("game six-card seats=Ann,Ben dealer=Ann", seed=3, entries=9)])
    with page_server(browser, state) as base:
        for url in ("/games", "/games/1", "/stats", "/"):
            browser.get(base + url)
            assert browser.execute_script("return document.querySelectorAll('script:not([src])').length") == 0
            header = browser.execute_script("return getComputedStyle(document.querySelector('header')).display")
            assert header == "flex", url  # the inline style applied
        wait_for(browser, lambda d: "live-dot on" in d.page_source)  # live.js ran and /events answered
        refused = [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert refused == []


SHOWN_BOARD = "return [...document.querySelectorAll('svg.board')].filter(function (e) { return e.getClientRects().length; })"


def drawn_board(driver) -> dict:
    """The board the page shows (one of its two drawings): its class, size on screen, its front pegs'
    drawn widths and its labels' font sizes in CSS pixels."""
    return driver.execute_script(SHOWN_BOARD + ".map(function (svg) {"
        " var box = svg.getBoundingClientRect(), scale = box.width / svg.viewBox.baseVal.width;"
        " return {cls: svg.getAttribute('class'), width: box.width, height: box.height,"
        "  pegs: [...svg.querySelectorAll('.peg.front')].map(function (p) { return p.getBoundingClientRect().width; }),"
        "  labels: [...svg.querySelectorAll('text')].map(function (t) {"
        "   return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * scale]; })}; })")


def test_on_a_phone_the_board_runs_down_the_screen_with_pegs_and_labels_to_read(tmp_path, browser):
    """At 390x844 the board is drawn the long way down: front pegs at least 16 px, labels at least
    12 px, as wide as the screen at most; on a TV the board lies across as before."""
    for header, seed, entries in (("game six-card seats=Alice,Bob dealer=Alice", 7, 30),
                                  ("game four-hand-individual seats=Ann,Ben,Cat,Dan dealer=Cat", 3, 30)):
        state = tmp_path / f"{seed}.sqlite3"
        with LedgerWriter(state) as store:
            write_games(store, [game_record(header, seed=seed, entries=entries)])
        with page_server(browser, state) as base:
            browser.set_window_size(*PHONE)
            browser.get(base + "/")
            [board] = drawn_board(browser)
            assert board["cls"] == "board tall" and board["height"] > 1.5 * board["width"], board
            assert board["width"] <= PHONE[0], board
            assert len(board["pegs"]) == header.count(",") + 1
            assert min(board["pegs"]) >= 16, board["pegs"]
            assert any(text.startswith("skunk") for text, _ in board["labels"]), board["labels"]
            assert min(size for _, size in board["labels"]) >= 12, board["labels"]
            shoot(browser, f"board-tall-{seed}-phone")
            browser.set_window_size(*TV)
            [board] = drawn_board(browser)
            assert board["cls"] == "board wide" and board["width"] > 1.5 * board["height"], board


LONG_SEATS = "Maximilianus_Augustinus,Bartholomew_Fitzwilliam,Dé,Cat"  # partners sit opposite: Maximilianus_Augustinus+Dé
PAGES = (("board", "/"), ("games", "/games"), ("game", "/games/3"), ("stats", "/stats"))


def write_long_names(state: Path) -> None:
    """Two finished games of Alice and Bob, a four-player game of long names (game 3), an abandoned
    game (4), and four players with long names in partnerships in play."""
    finished = match_records(1, seats=LONG_SEATS.replace(",Dé,", ",Desiderius_Dé,"), variant="four-hand-individual")
    with LedgerWriter(state) as store:
        write_games(store, match_records(2) + finished
                    + [game_record("game five-card seats=Cat,Dan dealer=Cat", seed=3, entries=6),
                       game_record(f"game four-hand seats={LONG_SEATS} dealer=Dé", seed=4, entries=25)],
                    kept_before=True)


def sideways(driver) -> dict:
    """How far the page, and any box in it that scrolls, is wider than what shows."""
    return driver.execute_script(
        "var out = {page: document.documentElement.scrollWidth - innerWidth};"
        " document.querySelectorAll('main *').forEach(function (e) {"
        "  var over = getComputedStyle(e).overflowX;"
        "  if ((over == 'auto' || over == 'scroll') && e.scrollWidth > e.clientWidth)"
        "   out[e.tagName + '.' + e.className] = e.scrollWidth - e.clientWidth; });"
        " return out;")


def test_no_page_scrolls_sideways_on_a_phone_or_a_tv(tmp_path, browser):
    """At 390x844 and 1920x1080 neither the board, the games list, a game nor the stats is wider
    than the window, nor is any box in them, with four long names and every kind of game listed."""
    state = tmp_path / "ledger.sqlite3"
    write_long_names(state)
    with page_server(browser, state) as base:
        for name, url in PAGES:
            for size, where in ((PHONE, "phone"), (TV, "tv")):
                browser.set_window_size(*size)
                browser.get(base + url)
                assert sideways(browser) == {"page": 0}, (url, size)
                shoot(browser, f"page-{name}-{where}", size)
                assert sideways(browser) == {"page": 0}, (url, size)


CARDS = ("return [...document.querySelectorAll('#live .side')].map(function (side) {"
         " var name = side.querySelector('.name'), badge = side.querySelector('.badge'), score = side.querySelector('.score');"
         " var n = name.getBoundingClientRect(), b = badge && badge.getBoundingClientRect(), s = side.getBoundingClientRect();"
         " return {title: name.title, cut: name.scrollWidth > name.clientWidth, overflow: getComputedStyle(name).textOverflow,"
         "  lines: Math.round(n.height / parseFloat(getComputedStyle(name).lineHeight)),"
         "  clear: !b || b.left >= n.right, badge: !!b, seats: [...side.querySelectorAll('.seats')].map(function (e) {"
         "   return [e.title, getComputedStyle(e).textOverflow, Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight))]; }),"
         "  inside: score.getBoundingClientRect().right <= s.right && n.right <= s.right}; })")


def test_long_names_are_cut_with_an_ellipsis_and_clear_of_the_deals_badge(tmp_path, browser):
    """Four players with long names, alone or as partners ("Maximilianus_Augustinus+Dé"): each name on
    one line, cut with an ellipsis and whole in its title, the "deals" badge beside it, not over it,
    the score inside its card, at 390x844 and 1920x1080."""
    alone = "Maximilianus_Augustinus_Dé,Bartholomew_Fitzwilliam,Desiderius_Erasmus_Rot,Cat"
    for name, header in (("partners", f"game four-hand seats={LONG_SEATS} dealer=Dé"),
                         ("alone", f"game four-hand-individual seats={alone} dealer=Bartholomew_Fitzwilliam")):
        state = tmp_path / f"{name}.sqlite3"
        with LedgerWriter(state) as store:
            write_games(store, [game_record(header, seed=4, entries=25)], kept_before=True)
            sides = [side.name for side in store.game.sides]
        with page_server(browser, state) as base:
            for size, where in ((PHONE, "phone"), (TV, "tv")):
                browser.set_window_size(*size)
                browser.get(base + "/")
                cards = browser.execute_script(CARDS)
                assert [card["title"] for card in cards] == [f"\u2068{side}\u2069" for side in sides]
                assert any(card["badge"] for card in cards)
                for card in cards:
                    assert card["lines"] == 1 and card["clear"] and card["inside"], (where, card)
                    assert card["overflow"] == "ellipsis"
                    assert all(cut == "ellipsis" and lines == 1 for _, cut, lines in card["seats"]), card
                    if name == "partners":
                        assert card["seats"][0][0] == card["title"].replace("+", "\u2069, \u2068"), card  # both whole
                assert any(card["cut"] for card in cards), cards  # the long ones are cut
                assert sideways(browser) == {"page": 0}
                shoot(browser, f"board-long-names-{name}-{where}", size)


def test_the_board_page_has_a_qr_code_a_reader_takes_to_the_page_and_the_charts_explain_themselves(tmp_path, browser):
    """The board page of a server on every address (0.0.0.0), opened as 127.0.0.1, shows a QR code that a
    reader (zxing-cpp) reads as this machine's address on the network with the server's port; the pegging
    race has a legend naming each side in its colour; /stats keeps each player's figures in one row on a
    desktop (1280, 1440, 1920 wide)."""
    import io

    zxingcpp = pytest.importorskip("zxingcpp", reason="pip install zxing-cpp (the test extra) to read the code")
    from PIL import Image

    from firmware.server.lan import lan_hosts

    state = tmp_path / "ledger.sqlite3"
    write_long_names(state)
    hosts = lan_hosts()
    with page_server(browser, state, host="0.0.0.0") as base:
        port = int(base.rsplit(":", 1)[1])
        for size in (PHONE, TV):
            browser.set_window_size(*size)
            browser.get(base + "/")
            if not hosts:  # no network here: the page says so
                assert "no route to a network" in browser.find_element("css selector", "p.qr").text
                continue
            code = browser.find_element("css selector", "figure.qr svg.qr-code")
            assert code.is_displayed() and code.size["width"] >= 100
            box = browser.execute_script("arguments[0].scrollIntoView({block: 'center'});"
                                         " var r = arguments[0].getBoundingClientRect();"
                                         " return [r.left, r.top, r.right, r.bottom];", code)
            image = Image.open(io.BytesIO(browser.get_screenshot_as_png())).crop(tuple(round(v) for v in box))
            want = f"http://{hosts[0]}:{port}/"
            assert [found.text for found in zxingcpp.read_barcodes(image)] == [want]
            assert want in browser.find_element("css selector", "figure.qr figcaption").text
        browser.set_window_size(*PHONE)
        browser.get(base + "/games/3")
        legend = browser.find_elements("css selector", "svg.race .legend-item text")
        assert ([item.text.strip("\u2068\u2069") for item in legend]
                == ["Maximilianus_Augustinus", "Bartholomew_Fitzwilliam", "Desiderius_Dé", "Cat"])
        assert all(item.is_displayed() for item in legend)
        browser.get(base + "/stats")
        for width in (1280, 1440, 1920):
            browser.set_window_size(width, 900)
            rows = browser.execute_script(
                "return [...document.querySelectorAll('section.card dl')].map(function (dl) {"
                " return new Set([...dl.querySelectorAll('dd')].map(function (dd) {"
                "  return Math.round(dd.getBoundingClientRect().top); })).size; })")
            assert set(rows) == {1}, (width, rows)  # "deals" never alone on a second row
        shoot(browser, "stats-1440", (1440, 900))


CHART_GAMES = ("game six-card seats=Red,Blue dealer=Red", "game six-card seats=Red,Blue dealer=Blue",  # Blue lost
               "game three-hand seats=Amy,Ben,Cal dealer=Amy new-match",
               "game four-hand-individual seats=Dee,Eve,Fay,Gus dealer=Dee new-match")
CHART_SEEDS = (5, 14, 24, 3)  # the first loser ends on 68, a line through the old "double skunk 61" label
# Each chart text's size in CSS px as rendered (its font size times the chart's scale), its box in the
# chart's units, and every line drawn: the race's steps, the skunk lines and the game line.
CHART_GEOMETRY = """
return [...document.querySelectorAll(arguments[0])].map(function (svg) {
  var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  var texts = [...svg.querySelectorAll('text')].map(function (t) {
    var b = t.getBBox();
    return {text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale,
            label: t.classList.contains('line-label') || !!t.closest('.legend'),
            box: [b.x, b.y, b.x + b.width, b.y + b.height]}; });
  var segments = [];
  svg.querySelectorAll('polyline').forEach(function (p) {
    var pts = [...p.points].map(function (q) { return [q.x, q.y]; });
    for (var i = 1; i < pts.length; i++) segments.push(pts[i - 1].concat(pts[i]));
  });
  svg.querySelectorAll('line').forEach(function (l) {
    if (!l.closest('.legend')) segments.push([l.x1.baseVal.value, l.y1.baseVal.value, l.x2.baseVal.value, l.y2.baseVal.value]);
  });
  return {texts: texts, segments: segments, backed: svg.querySelectorAll(':scope > rect.legend-back').length};
});
"""


def crosses(box, segment, margin: float = 0.5) -> bool:
    """Whether an axis-aligned segment comes within ``margin`` of a box (left, top, right, bottom)."""
    left, top, right, bottom = box
    x1, y1, x2, y2 = segment
    return (min(x1, x2) <= right + margin and max(x1, x2) >= left - margin
            and min(y1, y2) <= bottom + margin and max(y1, y2) >= top - margin)


def test_charts_are_in_each_players_colour_with_labels_of_12px_clear_of_every_line(tmp_path, browser):
    """On a phone (390x844) and a TV (1920x1080): /stats draws each player's bars in the player's colour on the
    board (Red red, Blue blue; the seat of the last game played), every chart text is at least 12 CSS px,
    and on each game's pegging race the lines' labels ("double skunk 61") and the legend are clear of every
    line drawn and of each other (their boxes as Chromium lays them out)."""
    from firmware.web.board import COLOURS

    state = tmp_path / "ledger.sqlite3"
    records = [game_record(header, seed=seed) for header, seed in zip(CHART_GAMES, CHART_SEEDS)]
    with LedgerWriter(state) as store:
        write_games(store, records)
    want = {"Red": 0, "Blue": 1, "Amy": 0, "Ben": 1, "Cal": 2, "Dee": 0, "Eve": 1, "Fay": 2, "Gus": 3}
    with page_server(browser, state) as base:
        for size in (PHONE, TV):
            browser.set_window_size(*size)
            browser.get(base + "/stats")
            fills = browser.execute_script(
                "return [...document.querySelectorAll('section.card')].map(function (card) {"
                " return [card.querySelector('h2').textContent, [...new Set([...card.querySelectorAll('rect.bar')]"
                "  .map(function (r) { return getComputedStyle(r).fill; }))], getComputedStyle(card).borderTopColor]; })")
            assert {name for name, _, _ in fills} == set(want)
            for name, bars, border in fills:
                colour = COLOURS[want[name]]
                rgb = "rgb({}, {}, {})".format(*(int(colour[k:k + 2], 16) for k in (1, 3, 5)))
                assert bars == [rgb] and border == rgb, (name, bars, border)
            for chart in browser.execute_script(CHART_GEOMETRY, "svg.dist"):
                small = [(t["text"], round(t["px"], 1)) for t in chart["texts"] if t["px"] < 12]
                assert not small, (size, small)
            shoot(browser, "stats-phone-colours" if size == PHONE else "stats-tv-colours", size)
            for game in range(1, len(CHART_GAMES) + 1):
                browser.get(f"{base}/games/{game}")
                chart, = browser.execute_script(CHART_GEOMETRY, "svg.race")
                small = [(t["text"], round(t["px"], 1)) for t in chart["texts"] if t["px"] < 12]
                assert not small, (size, game, small)
                labels = [t for t in chart["texts"] if t["label"]]
                assert any(t["text"] == "double skunk 61" for t in labels) and chart["backed"] == 0
                for t in labels:
                    hit = [s for s in chart["segments"] if crosses(t["box"], s)]
                    assert not hit, (size, game, t["text"], t["box"], hit[:3])
                    others = [o["text"] for o in labels if o is not t and crosses(t["box"], o["box"], 0)]
                    assert not others, (size, game, t["text"], others)
                if game == 1:
                    shoot(browser, "game-race-phone" if size == PHONE else "game-race-tv", size)


def test_a_new_entry_is_said_by_the_live_region_and_every_page_has_an_h1(tmp_path, browser):
    """At 390x844 and 1920x1080: each entry another process makes is put in the page's polite live region
    in words (live.js, from the event; nothing said on loading); each page has one h1, shown; the tab's
    title holds nothing invisible; a server on 127.0.0.1 offers no QR code."""
    import re

    state = tmp_path / "ledger.sqlite3"
    record = game_record("game six-card seats=Alice,Bob dealer=Alice", seed=7, entries=30)
    region = ("var s = document.getElementById('said'); return [s.getAttribute('aria-live'), s.getAttribute('role'),"
              " s.textContent, s.getBoundingClientRect().width]")
    with LedgerWriter(state) as store:
        write_games(store, [record[:20]])
        with page_server(browser, state) as base:
            for size, lines in ((PHONE, record[20:23]), (TV, record[23:26])):
                browser.set_window_size(*size)
                browser.get(base + "/")
                wait_for(browser, lambda d: "live-dot on" in d.page_source)
                assert browser.execute_script(region)[:3] == ["polite", "status", ""]  # nothing said on loading
                assert "No QR code" in browser.find_element("css selector", "p.qr").text
                assert not browser.find_elements("css selector", "figure.qr")
                for line in lines:
                    store.apply(parse_line(line))
                    seat = store.game.history[-1].entry.seat
                    side = next(s for s in store.game.sides if seat in s.seats)
                    score = store.game.state.scores[store.game.sides.index(side)]
                    want = f"{seat} pegged {store.game.history[-1].entry.points}"
                    wait_for(browser, lambda d: d.execute_script(region)[2].startswith(want)
                             and d.execute_script(region)[2].endswith(f", {side.name} now {score}"))
                said = browser.execute_script(region)
                assert said[3] <= 1  # for a screen reader: not on the screen
                store.apply(parse_line("undo"))
                wait_for(browser, lambda d: browser.execute_script(region)[2].startswith("Taken back: "))
                store.apply(parse_line("redo"))
                wait_for(browser, lambda d: browser.execute_script(region)[2].startswith("Put back: "))
                for path in ("/", "/games", "/games/1", "/stats"):
                    browser.get(base + path)
                    heads = browser.execute_script(
                        "return [...document.querySelectorAll('h1')].map(function (h) {"
                        " var r = h.getBoundingClientRect(); return [h.textContent, r.width > 0 && r.height >= 12]; })")
                    assert len(heads) == 1 and heads[0][1], (size, path, heads)
                    title = browser.title
                    assert title and not re.search("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]", title), title


LIVE_WORD = ("var w = document.getElementById('live-word'), box = w.getBoundingClientRect(), s = getComputedStyle(w);"
             " return [w.textContent, box.left, box.right, box.height, parseFloat(s.fontSize), s.color, s.visibility]")


def test_the_live_state_is_said_in_words_beside_the_dot_and_turns_to_reconnecting(tmp_path, browser):
    """At 390x844 the header says "live" in words beside the dot (on the screen, at least 12 px, not only a
    hover title); when the server goes away the words turn to "reconnecting…" and the dot goes out."""
    state = tmp_path / "ledger.sqlite3"
    with LedgerWriter(state) as store:
        write_games(store, [game_record("game six-card seats=Alice,Bob dealer=Alice", seed=7, entries=12)])
    browser.set_window_size(*PHONE)
    try:
        with web_server(state) as base:
            browser.get(base + "/")
            wait_for(browser, lambda d: d.execute_script(LIVE_WORD)[0] == "live")
            text, left, right, height, px, colour, visibility = browser.execute_script(LIVE_WORD)
            assert 0 <= left < right <= PHONE[0] and height > 0 and visibility == "visible", (left, right, height)
            assert px >= 12 and colour != "rgba(0, 0, 0, 0)"
            assert browser.find_element("id", "live-word").is_displayed()
            assert "live-dot on" in browser.page_source
            shoot(browser, "board-live-words-phone")
        wait_for(browser, lambda d: d.execute_script(LIVE_WORD)[0] == "reconnecting\u2026")
        assert browser.find_element("id", "live-dot").get_attribute("class") == "live-dot"
        shoot(browser, "board-reconnecting-phone")
    finally:
        browser.get("about:blank")


def rgb(colour: str) -> str:
    """A #rrggbb colour as getComputedStyle says it."""
    return "rgb({}, {}, {})".format(*(int(colour[k:k + 2], 16) for k in (1, 3, 5)))


SIDE_PAINT = (
    "var tall = [...document.querySelectorAll('svg.board')].filter(function (e) { return e.getClientRects().length; })[0];"
    " return {cards: [...document.querySelectorAll('#live .side')].map(function (s) { return getComputedStyle(s).borderTopColor; }),"
    "  pegs: [...tall.querySelectorAll('.peg.front')].map(function (p) { return getComputedStyle(p).fill; }),"
    "  starts: [...tall.querySelectorAll('.hole.start')].map(function (h) { return getComputedStyle(h).stroke; }),"
    "  root: document.documentElement.className}")


def painted(colours, sides: int) -> dict:
    """What SIDE_PAINT reads when the page's sides are in ``colours``."""
    want = [rgb(c) for c in colours[:sides]]
    return {"cards": want, "pegs": want, "starts": want}


def test_the_colour_blind_palette_is_what_the_sides_and_pegs_use_when_chosen(tmp_path, browser):
    """At 390x844 every page offers the LEDs' palettes at its foot; choosing colour-blind paints the score
    cards, the pegs and the start holes in the LEDs' colour-blind colours (firmware.palette), the stats
    cards and bars and the race's lines too, and the choice (a cookie) is kept from page to page and on a reload."""
    from firmware.palette import PALETTES as LED_PALETTES
    from firmware.web.board import COLOURS, PALETTES

    assert PALETTES["colour-blind"] == tuple("#%02x%02x%02x" % c for c in LED_PALETTES["colour-blind"])
    state = tmp_path / "ledger.sqlite3"
    with LedgerWriter(state) as store:
        write_games(store, match_records(1) + [game_record("game four-hand-individual seats=Ann,Ben,Cat,Dan "
                                                           "dealer=Cat", seed=3, entries=30)])
    browser.set_window_size(*PHONE)
    with page_server(browser, state) as base:
        try:
            for path in ("/games", "/games/1", "/stats", "/"):
                browser.get(base + path)
                assert browser.find_element("css selector", "footer.palette select").is_displayed(), path
            read = {k: v for k, v in browser.execute_script(SIDE_PAINT).items() if k != "root"}
            assert read == painted(COLOURS, 4)
            from selenium.webdriver.support.ui import Select

            Select(browser.find_element("id", "palette")).select_by_value("colour-blind")
            assert browser.execute_script(SIDE_PAINT) == {**painted(PALETTES["colour-blind"], 4),
                                                          "root": "palette-colour-blind"}
            shoot(browser, "board-colour-blind-phone")
            browser.refresh()
            assert browser.execute_script(SIDE_PAINT) == {**painted(PALETTES["colour-blind"], 4),
                                                          "root": "palette-colour-blind"}
            assert Select(browser.find_element("id", "palette")).first_selected_option.text == "colour-blind"
            browser.get(base + "/stats")
            cards = browser.execute_script(
                "return [...document.querySelectorAll('section.card')].map(function (card) {"
                " return [card.querySelector('h2').textContent, getComputedStyle(card).borderTopColor,"
                "  [...new Set([...card.querySelectorAll('rect.bar')].map(function (r) { return getComputedStyle(r).fill; }))]]; })")
            cb = [rgb(c) for c in PALETTES["colour-blind"]]
            assert cards and all(border in cb and bars == [border] for _, border, bars in cards), cards
            browser.get(base + "/games/1")
            lines = browser.execute_script(
                "return [...document.querySelectorAll('svg.race polyline.line, svg.race .legend-item line')]"
                ".map(function (l) { return getComputedStyle(l).stroke; })")
            assert lines == cb[:2] * 2, lines
            Select(browser.find_element("id", "palette")).select_by_value("standard")
            assert browser.execute_script("return document.documentElement.className") == ""
        finally:
            browser.delete_all_cookies()


def test_the_pages_open_in_the_palette_the_config_gives_the_leds(tmp_path, browser):
    """A board whose config sets leds.palette = "colour-blind": every page opens in the LEDs' colour-blind
    colours, with no choice made in the browser; a browser's own choice of standard overrides it."""
    from firmware.web.board import COLOURS, PALETTES

    state, config = colour_blind_board(tmp_path)
    browser.set_window_size(*PHONE)
    with page_server(browser, state, "--config", str(config)) as base:
        try:
            for path in ("/games", "/stats", "/games/1"):
                browser.get(base + path)
                assert browser.execute_script("return document.documentElement.className") == "palette-colour-blind"
            browser.get(base + "/")
            assert browser.execute_script(SIDE_PAINT) == {**painted(PALETTES["colour-blind"], 2),
                                                          "root": "palette-colour-blind"}
            from selenium.webdriver.support.ui import Select

            assert Select(browser.find_element("id", "palette")).first_selected_option.text == "colour-blind"
            Select(browser.find_element("id", "palette")).select_by_value("standard")
            browser.refresh()
            assert browser.execute_script(SIDE_PAINT) == {**painted(COLOURS, 2), "root": ""}
        finally:
            browser.delete_all_cookies()

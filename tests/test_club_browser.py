"""The hub's /club page in a real browser (Debian's headless Chromium, as tests/test_web_browser.py drives it):
live over server-sent events, readable on a TV across the room and on a phone. Screenshots at 1920x1080 and
390x844 go to tests/output/club (or $CRIBBAGE_SCREENSHOTS/club) for review."""

import os
from pathlib import Path

import pytest
from helpers import BROWSER_MARKS

from club_hub import HubProcess, Table, wait_for
from test_web_browser import wait_for as page_wait

pytestmark = [*BROWSER_MARKS, pytest.mark.broker]
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Maximiliana-Kons", "דוד", "Zoë", "Hal"]
TABLES = ["1", "2", "3", "4"]
TV, PHONE = (1920, 1080), (390, 844)
SHOTS = Path(os.environ["CRIBBAGE_SCREENSHOTS"]) / "club" if os.environ.get("CRIBBAGE_SCREENSHOTS") else \
    Path(__file__).resolve().parent / "output" / "club"


def shoot(driver, name: str, size) -> Path:
    """A screenshot of exactly the screen's size (a TV does not scroll)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.set_window_size(*size)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(size[0] + size[0] - inner[0], size[1] + size[1] - inner[1])  # the viewport, not the window
    path = SHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path


def leaders(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#live table.standings td.player')).map(function (c) {"
        " return c.textContent; });")


def test_the_club_page_updates_live_and_reads_on_a_tv_and_a_phone(tmp_path, broker, browser):  # noqa: F811
    """A result moves the standings without a reload; the TV shows it all at a size readable at 5 m;
    the phone needs no sideways scrolling."""
    hub = HubProcess(tmp_path / "hub", broker.url, "--players", ",".join(PLAYERS), "--tables", ",".join(TABLES),
                     "--night", "Thursday 3 December").start()
    tables = {name: Table(broker.port, name) for name in TABLES}
    try:
        wait_for(lambda: hub.rounds()["round"] >= 1, f"round 1 was not made: {hub.log()}")
        pairings = {p["table"]: p["players"] for p in hub.rounds()["list"][0]["pairings"]}
        for table in tables.values():
            table.online()
        a, b = pairings["1"]
        tables["1"].game(1, {a: 121, b: 84})
        c, d = pairings["2"]
        tables["2"].game(1, {c: 102, d: 121})
        wait_for(lambda: sum(line["games"] for line in hub.standings()) == 4, "the results were not counted")
        e, f = pairings["3"]
        tables["3"].state(1, 12, {e: 47, f: 62}, next_seat=e)
        browser.get(hub.base + "/club")
        page_wait(browser, lambda driver: "live-dot on" in driver.page_source)
        browser.execute_script("document.body.dataset.marker = 'same page'")
        assert leaders(browser)[:2] == [a, d]  # the skunk (3 points) above the plain win (2)
        g, h = pairings["4"]
        tables["4"].game(1, {g: 121, h: 40})  # a skunk with a bigger spread: to the top
        page_wait(browser, lambda driver: leaders(driver)[0] == g)
        assert browser.execute_script("return document.body.dataset.marker") == "same page"  # no reload
        shown = browser.find_element("css selector", "#live").text
        assert "47" in shown and "62" in shown  # table 3's live score
        assert browser.find_element("css selector", "bdi").tag_name == "bdi"

        shoot(browser, "club-tv", TV)
        sizes = browser.execute_script(
            "return [document.documentElement.scrollHeight, window.innerHeight,"
            " parseFloat(getComputedStyle(document.querySelector('table.standings td.player')).fontSize)];")
        assert sizes[0] <= sizes[1], f"the TV page scrolls: {sizes}"
        assert sizes[2] >= 40, f"the standings' names are {sizes[2]} px on a 1080p TV: too small to read at 5 m"

        shoot(browser, "club-phone", PHONE)
        wide = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], f"the phone scrolls sideways: {wide}"
    finally:
        browser.get("about:blank")  # the page's /club/events closed: the hub stops without waiting on it
        for table in tables.values():
            table.close()
        hub.stop()



def live_text(driver) -> str:
    return driver.execute_script("return document.getElementById('live').innerText")


def test_the_page_kept_up_by_changes_alone_equals_the_page_loaded_anew(tmp_path, broker, browser):  # noqa: F811
    """30 players on 15 tables (standings in two columns), results, live scores, a table going off line and a
    new round: the page that took only the changes shows, word for word, what a page loaded now shows."""
    players = [f"Player{k:02}" for k in range(30)]
    names = [str(k) for k in range(1, 16)]
    hub = HubProcess(tmp_path / "hub", broker.url, "--players", ",".join(players), "--tables", ",".join(names),
                     "--rounds", "3").start()
    tables = {name: Table(broker.port, name) for name in names}
    try:
        wait_for(lambda: hub.rounds()["round"] == 1, f"round 1 was not made: {hub.log()}")
        browser.get(hub.base + "/club")
        page_wait(browser, lambda driver: "live-dot on" in driver.page_source)
        browser.execute_script("document.body.dataset.marker = 'kept up'")
        fresh = browser.window_handles[0]
        pairings = {p["table"]: p["players"] for p in hub.rounds()["list"][0]["pairings"]}

        def same_as_a_new_page(why: str) -> None:
            version = hub.snapshot_version()
            page_wait(browser, lambda driver: int(driver.find_element("id", "live").get_attribute("data-version"))
                      >= version)
            kept_up = live_text(browser)
            browser.switch_to.new_window("tab")
            browser.get(hub.base + "/club")
            anew = live_text(browser)
            browser.close()
            browser.switch_to.window(fresh)
            assert browser.execute_script("return document.body.dataset.marker") == "kept up"  # never reloaded
            assert kept_up == anew, why

        for k, name in enumerate(names[:7]):
            a, b = pairings[name]
            tables[name].online()
            tables[name].game(1, {a: 121, b: 60 + 5 * k})
        tables["9"].online()
        tables["9"].state(1, 12, dict.fromkeys(pairings["9"], 33), next_seat=pairings["9"][0])
        wait_for(lambda: sum(line["games"] for line in hub.standings()) == 14, "the results were not counted")
        same_as_a_new_page("after seven results and a live score")
        tables["9"].online(False)
        for name in names[7:]:
            a, b = pairings[name]
            tables[name].game(1, {a: 100, b: 121})
        wait_for(lambda: hub.rounds()["round"] == 2, f"round 2 was not made: {hub.log()}")
        same_as_a_new_page("after the round's last results and a new round")
        text = live_text(browser)
        assert "Round 2" in text and "Player" in text
    finally:
        browser.get("about:blank")  # the page's /club/events closed: the hub stops without waiting on it
        for table in tables.values():
            table.close()
        hub.stop()

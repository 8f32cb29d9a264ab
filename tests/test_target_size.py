"""Every link, button, summary and field of every web page is a target of at least 24x24 CSS px at 390x844
(WCAG 2.2 2.5.8, Target Size (Minimum), without leaning on its spacing exception): the board, the games, a game and the stats, a phone's pairing page and each view of its seat, and the
club hub's page, measured in Debian's headless Chromium."""

import pytest
from helpers import BROWSER_MARKS

from club_hub import HubProcess, Table
from club_hub import wait_for as hub_wait
from test_phones_browser import tap
from test_web_browser import PAGES, PHONE, page_server, wait_for, write_long_names

pytestmark = BROWSER_MARKS

# The targets shown (a field inside a label is its label: a tap on either works it), each measured. WCAG's
# minimum lets a smaller target pass when a 24 px circle on its centre meets no other target; the pages
# ask more, as the issue did: every target 24 px at least, so none leans on that exception. A link inside
# a sentence (text of its own around it in the same block) is sized by the sentence's line, as WCAG's
# inline exception allows. Returns how many targets there are and the small ones, "what: W x H".
SMALL_TARGETS = """
var MIN = 24;
function shown(e) { var r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
  && getComputedStyle(e).visibility !== 'hidden'; }
function named(e) { return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' "'
  + (e.textContent || e.value || e.getAttribute('aria-label') || '').trim().slice(0, 30) + '"'; }
function inSentence(e) {
  if (e.tagName !== 'A') return false;
  var block = e.parentElement; while (getComputedStyle(block).display.indexOf('inline') === 0) block = block.parentElement;
  return block.textContent.replace(e.textContent, '').replace(/[^A-Za-z]/g, '').length > 10; }
var seen = new Set(), small = [];
document.querySelectorAll('a[href], button, summary, input:not([type=hidden]), select, textarea').forEach(function (e) {
  var target = e.closest('label') || e;
  if (seen.has(target) || !shown(target)) return;
  seen.add(target);
  var r = target.getBoundingClientRect();
  if ((r.width < MIN - 0.01 || r.height < MIN - 0.01) && !inSentence(target))
    small.push(named(target) + ': ' + r.width.toFixed(1) + ' x ' + r.height.toFixed(1));
});
return {count: seen.size, small: small};
"""


def small_targets(driver) -> dict:
    """The page's targets counted, and those under 24x24 px."""
    return driver.execute_script(SMALL_TARGETS)


def test_the_web_views_pages_have_targets_of_24_px(tmp_path, browser):
    """The board, the games, a game (long names, every kind of game) and the stats at 390x844: no link,
    button, summary or field is under 24x24 px."""
    state = tmp_path / "ledger.sqlite3"
    write_long_names(state)
    browser.set_window_size(*PHONE)
    with page_server(browser, state) as base:
        for name, url in PAGES:
            browser.get(base + url)
            found = small_targets(browser)
            assert found["count"] >= 3 and found["small"] == [], (name, found["small"])


def test_a_phones_pages_have_targets_of_24_px(table, browser):
    """The pairing page a QR code opens, then each view of a paired seat (the score, check my count, which
    two to throw with its answer, the game's menu): every target 24x24 px."""
    browser.set_window_size(*PHONE)
    browser.get(table.show_pairing(0))
    found = small_targets(browser)
    assert found["count"] >= 1 and found["small"] == [], ("pair", found["small"])
    tap(browser, ".pair button")
    wait_for(browser, lambda d: d.current_url.endswith("/phone") and d.find_elements("id", "phone"))
    wait_for(browser, lambda d: "live-dot on" in d.page_source)
    views = browser.execute_script(
        "return Array.from(document.querySelectorAll('button[data-view]')).map(function (b) { return b.dataset.view; })")
    assert len(views) >= 3
    for view in views:
        tap(browser, f'button[data-view="{view}"]')
        if view == "coach":
            for card in ("5H", "5D", "JC", "6S", "7S", "KD"):
                tap(browser, f'#coach-cards button[data-card="{card}"]')
            wait_for(browser, lambda d: d.find_element("id", "coach-verdict").text)
        found = small_targets(browser)
        assert found["count"] >= 5 and found["small"] == [], (view, found["small"])


@pytest.mark.broker
def test_the_club_hubs_page_has_targets_of_24_px(tmp_path, broker, browser):
    """The hub's /club page on a phone, with a round's tables and a result counted: every target 24x24 px
    (a page for the room's TV, it has none today: the check keeps any that comes to that size)."""
    hub = HubProcess(tmp_path / "hub", broker.url, "--players", "Ann,Bob,Cy,Di", "--tables", "1,2",
                     "--night", "Thursday").start()
    tables = {name: Table(broker.port, name) for name in ("1", "2")}
    try:
        hub_wait(lambda: hub.rounds()["round"] >= 1, f"round 1 was not made: {hub.log()}")
        a, b = next(p["players"] for p in hub.rounds()["list"][0]["pairings"] if p["table"] == "1")
        for each in tables.values():
            each.online()
        tables["1"].game(1, {a: 121, b: 84})
        hub_wait(lambda: sum(line["games"] for line in hub.standings()) == 2, "the result was not counted")
        browser.set_window_size(*PHONE)
        browser.get(hub.base + "/club")
        wait_for(browser, lambda d: "live-dot on" in d.page_source)
        found = small_targets(browser)
        assert found["small"] == [], found["small"]
    finally:
        browser.get("about:blank")
        for each in tables.values():
            each.close()
        hub.stop()

"""A paired phone in a real browser (Debian's headless Chromium at 390x844): pairing from the OLED's
QR code, play chips, the keypad, heels, check my count on the card grid, all answered by the board."""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
import time

from helpers import BROWSER_MARKS

from test_web_browser import shoot, wait_for

pytestmark = BROWSER_MARKS
PHONE = (390, 844)


def tap(driver, selector: str) -> None:
    driver.execute_script("document.querySelector(arguments[0]).click()", selector)


def answer(driver, text: str) -> str:
    """The phone's answer line once it says ``text`` (the board's own words)."""
    return wait_for(driver, lambda d: text in (shown := d.find_element("id", "answer").text) and shown)


def test_a_phone_pairs_from_the_qr_code_and_scores_its_seat(table, browser):
    """Blue's phone: the QR code's address, one tap to pair; +2 in the play, the dealer's heels refused
    for Blue, Blue's hand of 8 on the keypad, then Red's own count checked on the card grid and pegged
    from Red's phone; the ledger holds each entry once, marked with its phone; no policy refusals."""
    browser.set_window_size(*PHONE)
    url = table.show_pairing(1)
    browser.get(url)  # as the camera opens it: a browser takes the scheme and host in capitals
    shoot(browser, "phone-pair")
    tap(browser, ".pair button")
    wait_for(browser, lambda d: d.current_url.endswith("/phone") and d.find_elements("id", "phone"))
    wait_for(browser, lambda d: "live-dot on" in d.page_source)
    assert browser.find_element("id", "live-word").text == "live"  # in words beside the dot (phone.js)
    tap(browser, 'button[data-act="peg"][data-points="2"]')
    answer(browser, "Blue peg 2")
    assert table.board.board.controller.game.state.scores[1] == 2
    tap(browser, 'button[data-act="heels"]')  # disabled for pone: nothing sent
    for digit in ("8",):
        tap(browser, f'button[data-digit="{digit}"]')
    tap(browser, 'button[data-act="hand"]')
    answer(browser, "Blue hand 8")
    wait_for(browser, lambda d: " ".join(d.find_element("id", "sides").text.split()) == "Red 0 Blue 10")  # live
    shoot(browser, "phone-seat")
    browser.delete_all_cookies()  # now Red's phone (the dealer's)
    url = table.show_pairing(0)
    code = url.rsplit("/", 1)[1]
    browser.get(f"{table.base}/P/{code}")
    tap(browser, ".pair button")
    wait_for(browser, lambda d: d.current_url.endswith("/phone") and d.find_elements("id", "phone"))
    wait_for(browser, lambda d: "live-dot on" in d.page_source)
    tap(browser, 'button[data-view="count"]')  # check my count: a view of its own
    for card in ("5H", "5D", "5S", "JC", "5C"):  # the hand, then the starter
        tap(browser, f'#cards button[data-card="{card}"]')
    wait_for(browser, lambda d: "29" in d.find_element("id", "counted").text)
    assert "a double pair royal is 28 and nobs is 29" in browser.find_element("id", "counted").text
    assert browser.find_element("css selector", '#cards button[data-card="5C"]').get_attribute("class") == "starter"
    shoot(browser, "phone-checked")
    tap(browser, "#count-peg")
    answer(browser, "Red hand 29")
    assert browser.find_element("id", "count-peg").get_attribute("disabled")  # pegged: the grid is clear again
    lines = table.ledger_lines()[1:]
    assert lines == ["peg Blue 2  # via phone Blue", "hand Blue 8  # via phone Blue", "hand Red 29  # via phone Red"]
    refused = [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert refused == []


def test_the_phones_keys_follow_the_acts_the_board_says_its_seat_may_use(table, browser):
    """Go is a key in the play and pegs 1; once the show begins the board's acts leave it out, and
    the page disables it; his heels stay off for pone, the crib for pone, muggins while it is off."""
    browser.set_window_size(*PHONE)
    browser.get(table.show_pairing(1))
    tap(browser, ".pair button")
    wait_for(browser, lambda d: "live-dot on" in d.page_source)

    def enabled(act: str) -> bool:
        return browser.find_element("css selector", f'button[data-act="{act}"]').is_enabled()

    assert [enabled(act) for act in ("peg", "go", "hand", "undo")] == [True] * 4
    assert [enabled(act) for act in ("heels", "crib", "claim")] == [False] * 3
    tap(browser, 'button[data-act="go"]')
    answer(browser, "Blue go 1")
    tap(browser, 'button[data-digit="8"]')
    tap(browser, 'button[data-act="hand"]')
    answer(browser, "Blue hand 8")
    wait_for(browser, lambda d: not enabled("go"))
    assert enabled("peg") and enabled("hand")
    assert table.ledger_lines()[1:] == ["go Blue  # via phone Blue", "hand Blue 8  # via phone Blue"]


def test_the_keypad_refuses_past_29_and_the_page_asks_before_it_unpairs_or_starts_again(table, browser):
    """3 then 0 keeps 3 on the dial and says why; New game and Unpair ask first: No changes nothing,
    Yes does it."""
    browser.set_window_size(*PHONE)
    browser.get(table.show_pairing(1))
    tap(browser, ".pair button")
    wait_for(browser, lambda d: "live-dot on" in d.page_source)
    tap(browser, 'button[data-digit="3"]')
    tap(browser, 'button[data-digit="0"]')
    assert browser.find_element("id", "dial").text == "3"
    answer(browser, "No count is 30: 29 is the most")
    tap(browser, 'button[data-act="hand"]')
    answer(browser, "Blue hand 3")
    tap(browser, 'button[data-view="more"]')  # the game and this phone
    asked(browser, 'button[data-act="new-game"]', yes=False)
    assert table.board.board.controller.game.state.scores == (0, 3)
    asked(browser, 'button[data-act="new-game"]', yes=True)
    answer(browser, "New game: six-card")
    assert table.board.board.controller.game.state.scores == (0, 0)
    asked(browser, "#unpair", yes=False)
    assert table.board.board.controller.phones.paired_seats() == {1}
    asked(browser, "#unpair", yes=True)
    wait_for(browser, lambda d: not d.find_elements("id", "phone"))
    assert table.board.board.controller.phones.paired_seats() == set()


def test_the_dial_empties_as_its_number_is_sent_and_a_refused_number_comes_back(table, browser):
    """With 400 ms of latency, 6 then Peg then 4 before the board answers: the 4 starts the next
    number (not "64", refused), the board takes the 6; a hand of 25, which no hand scores, is refused
    in the board's words and its 25 is back on the dial."""
    browser.set_window_size(*PHONE)
    browser.get(table.show_pairing(1))
    tap(browser, ".pair button")
    wait_for(browser, lambda d: "live-dot on" in d.page_source)
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1})
    try:
        tap(browser, 'button[data-digit="6"]')
        tap(browser, 'button[data-act="peg"]:not([data-points])')
        tap(browser, 'button[data-digit="4"]')
        assert browser.find_element("id", "answer").text == "Sending\u2026"  # the board has not answered yet
        assert browser.find_element("id", "dial").text == "4"
        answer(browser, "Blue peg 6")
        assert browser.find_element("id", "dial").text == "4"
        tap(browser, 'button[data-digit="clear"]')
        tap(browser, 'button[data-digit="2"]')
        tap(browser, 'button[data-digit="5"]')
        tap(browser, 'button[data-act="hand"]')
        assert browser.find_element("id", "dial").text == "0"
        wait_for(browser, lambda d: "refused" in d.find_element("id", "answer").get_attribute("class"))
        assert browser.find_element("id", "dial").text == "25"
        assert "25" in browser.find_element("id", "answer").text, browser.find_element("id", "answer").text
    finally:
        browser.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    assert table.board.board.controller.game.state.scores == (0, 6)


def test_each_entry_is_spoken_once_by_its_seats_phone_with_its_own_breakdown(table, browser):
    """With "Say each entry aloud" on and 400 ms of latency: Blue's hand, tapped on Blue's phone, is not
    spoken by Red's; Red's checked count is spoken once, by Red's phone, with its own breakdown."""
    blue = table.pair(1)
    browser.set_window_size(*PHONE)
    browser.get(table.show_pairing(0))
    tap(browser, ".pair button")
    wait_for(browser, lambda d: "live-dot on" in d.page_source)
    browser.execute_script(
        "window.spoken = []; window.SpeechSynthesisUtterance = function (text) { this.text = text; };"
        "window.speechSynthesis.speak = function (u) { window.spoken.push(u.text); };")
    tap(browser, "#speak")
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1})
    try:
        assert blue.enter("hand", 8)[1]["text"] == "Blue hand 8"
        tap(browser, 'button[data-view="count"]')
        for card in ("5H", "5D", "5S", "JC", "5C"):
            tap(browser, f'#cards button[data-card="{card}"]')
        wait_for(browser, lambda d: "29" in d.find_element("id", "counted").text)
        tap(browser, "#count-peg")
        answer(browser, "Red hand 29")
        wait_for(browser, lambda d: d.execute_script("return window.spoken.length") >= 1)
        time.sleep(2.0)  # longer than a said entry waits for its answer: nothing more is spoken
        spoken = browser.execute_script("return window.spoken")
    finally:
        browser.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    assert len(spoken) == 1, spoken
    assert spoken[0].startswith("Red: ") and "a double pair royal is 28 and nobs is 29" in spoken[0], spoken
    assert spoken[0].endswith("Red now 29"), spoken


def in_view(driver, element_id: str) -> bool:
    """Whether the element is shown and wholly inside the window as it is scrolled now."""
    return driver.execute_script(
        "var e = document.getElementById(arguments[0]), r = e.getBoundingClientRect();"
        "return !!(e.offsetWidth || e.offsetHeight) && r.top >= 0 && r.bottom <= window.innerHeight;", element_id)


def test_every_score_and_the_boards_answer_stay_in_view_at_390x844(table, browser):
    """The first screen shows each side's name and score with whose count is next; scrolled to the
    bottom of the keys, they and the board's answer are still on screen; check my count is a view of
    its own, and Peg it's answer shows without scrolling. The board under the keys keeps its own
    cards for the sides (the glance's style is the glance's alone)."""
    blue = table.pair(1)
    assert blue.enter("peg", 5)[1]["text"] == "Blue peg 5"
    browser.set_window_size(*PHONE)
    browser.get(table.show_pairing(0))
    tap(browser, ".pair button")
    wait_for(browser, lambda d: "live-dot on" in d.page_source)
    sides = browser.execute_script(
        "return Array.from(document.querySelectorAll('#sides li')).map(l => [l.className, l.innerText])")
    assert [(kind, " ".join(text.split())) for kind, text in sides] == [("mine", "Red 0"), ("", "Blue 5")]
    assert in_view(browser, "sides") and in_view(browser, "status") and "Next count: Blue hand" in \
        browser.find_element("id", "status").text
    cards = browser.execute_script(  # the board below keeps its own cards, side by side, a line of words each
        "return Array.from(document.querySelectorAll('#live .side')).map(s => "
        "[s.getBoundingClientRect().width, s.querySelector('.sub').getBoundingClientRect().height])")
    assert len(cards) == 2 and all(width >= 150 and height < 60 for width, height in cards), cards
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    assert in_view(browser, "sides") and in_view(browser, "answer")
    tap(browser, 'button[data-view="count"]')
    assert not browser.find_element("id", "dial").is_displayed()  # the keys wait in their own view
    for card in ("5H", "5D", "5S", "JC", "5C"):
        tap(browser, f'#cards button[data-card="{card}"]')
    wait_for(browser, lambda d: "29" in d.find_element("id", "counted").text)
    browser.execute_script("document.getElementById('count-peg').scrollIntoView()")
    tap(browser, "#count-peg")
    answer(browser, "Blue counts first")
    assert in_view(browser, "answer") and in_view(browser, "sides")
    shoot(browser, "phone-glance")


@contextlib.contextmanager
def table_chromium(*names: str):
    """A Chromium of its own that reaches the board's web view under ``names`` (``*.local``, as phones
    reach a Pi by mDNS): each name an insecure origin with cookies of its own, as each phone at a table."""
    from helpers import CHROMEDRIVER, CHROMIUM
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="cribbage-insecure-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    rules = ", ".join(f"MAP {name} 127.0.0.1" for name in names)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
                 f"--host-resolver-rules={rules}", "--autoplay-policy=user-gesture-required"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        driver.set_window_size(*PHONE)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def pair_at(driver, table, seat: int, name: str) -> None:
    """The seat's pairing code (Menu > Phones on the board) opened at ``name``, and its one button tapped."""
    code = table.show_pairing(seat).rsplit("/", 1)[1]
    driver.get(f"http://{name}:{table.port}/P/{code}")
    driver.find_element("css selector", ".pair button").click()
    wait_for(driver, lambda d: "live-dot on" in d.page_source)


def test_on_plain_http_a_silent_video_keeps_the_screen_on(table):
    """At the board's address under a name that is not localhost (an insecure context: no Wake Lock
    API, no service worker), the first tap starts a silent video that keeps playing, and the page
    says the screen stays on; a buzz is asked for each entry the board takes."""
    with table_chromium("cribbage-table.local") as driver:
        pair_at(driver, table, 1, "cribbage-table.local")
        assert driver.execute_script("return [window.isSecureContext, 'wakeLock' in navigator, "
                                     "'serviceWorker' in navigator]") == [False, False, False]
        driver.execute_script("window.buzzes = []; navigator.vibrate = function (ms) { window.buzzes.push(ms); return true; };")
        driver.find_element("css selector", 'button[data-act="peg"][data-points="2"]').click()  # the first tap
        answer(driver, "Blue peg 2")
        playing = "var v = document.querySelector('video.awake-video'); return !!v && !v.paused && v.currentTime > 0"
        wait_for(driver, lambda d: d.execute_script(playing))
        time.sleep(1.5)
        assert driver.execute_script(playing + " && !v.ended")
        assert driver.execute_script("return window.buzzes") == [40]
        assert driver.find_element("id", "awake-note").get_attribute("textContent") == \
            "The screen stays on while this page is open."


WHOLE_GAME_SEED = 5  # a game of seven deals, as the figures of issue 54 were taken over
MOST_TAPS = 83


def test_a_whole_game_is_scored_from_two_phones_in_at_most_83_taps(table):
    """Red's and Blue's phones, each at its own name (two insecure origins, two sessions), enter every
    entry of a game played by the rules, each from the seat that makes it (his heels and the crib from
    the dealer's), by the page's keys alone: each taken at once, never refused; the board ends the game
    with the scores the rules give, in no more taps than the page promises and at most 83."""
    from played_deals import knob_actions, phone_taps, played_deals

    from firmware.web.pages import PLAY_CHIPS
    from scorer.game import EntryKind, Game
    from scorer.variants import find_variant

    entries = [entry for deal in played_deals(1, seed=WHOLE_GAME_SEED) for entry in deal.entries]
    rules = Game(find_variant("six-card"), ["Red", "Blue"], "Red")  # the board's first game: Red deals
    names = {"Red": "red-phone.local", "Blue": "blue-phone.local"}
    taps = 0
    with table_chromium(*names.values()) as driver:
        tabs = {}
        for seat, name in names.items():
            if tabs:
                driver.switch_to.new_window("tab")
            pair_at(driver, table, ["Red", "Blue"].index(seat), name)
            tabs[seat] = driver.current_window_handle

        def press(selector: str) -> None:
            nonlocal taps
            wait_for(driver, lambda d: d.find_element("css selector", selector).is_enabled())
            tap(driver, selector)
            taps += 1

        for made, entry in enumerate(entries, start=1):
            seat = entry.seat if entry.kind in (EntryKind.PEG, EntryKind.HAND) else rules.dealer
            driver.switch_to.window(tabs[seat])
            if entry.kind is EntryKind.HEELS:
                press('button[data-act="heels"]')
            elif entry.kind is EntryKind.PEG and entry.points in PLAY_CHIPS:
                press(f'button[data-act="peg"][data-points="{entry.points}"]')
            else:
                for digit in (["19"] if entry.points == 0 else list(str(entry.points))):
                    press(f'button[data-digit="{digit}"]')
                press({EntryKind.PEG: 'button[data-act="peg"]:not([data-points])', EntryKind.HAND: 'button[data-act="hand"]',
                       EntryKind.CRIB: 'button[data-act="crib"]'}[entry.kind])
            rules.push(entry)
            wait_for(driver, lambda d: len(table.ledger_lines()) == made + 1)
            said = wait_for(driver, lambda d: (shown := d.find_element("id", "answer")).text != "Sending\u2026" and shown)
            assert "refused" not in said.get_attribute("class"), said.text
        game = table.board.board.controller.game
        assert game.is_over and game.state.scores == rules.state.scores
        wait_for(driver, lambda d: d.find_element("id", "status").text == "Red won. Next: New game, under More")
        wait_for(driver, lambda d: not d.find_element("css selector", 'button[data-act="peg"]').is_enabled())
        usable = driver.execute_script("return Array.from(document.querySelectorAll('button[data-act]'))"
                                       ".filter(b => !b.disabled).map(b => b.dataset.act)")
        assert usable == ["undo", "redo", "new-game", "new-match"], usable
        shoot(driver, "phone-game-over")
    assert taps == sum(map(phone_taps, entries)) <= MOST_TAPS, taps
    assert taps * 3 <= sum(map(knob_actions, entries))  # a third of the board's presses and detents, or fewer


def asked(driver, selector: str, yes: bool) -> None:
    """Click ``selector`` as a finger does and answer the question the page asks: Yes, or No."""
    from selenium.webdriver.support import expected_conditions

    driver.find_element("css selector", selector).click()
    question = wait_for(driver, expected_conditions.alert_is_present())
    if yes:
        question.accept()
    else:
        question.dismiss()


def ranking(driver) -> list[tuple[str, str]]:
    """The coach's rows as shown, (class, text) each, read at one moment (a new answer replaces them)."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#coach-ranks tr')).map(r => [r.className, r.innerText])")
    return [(kind, " ".join(text.split())) for kind, text in rows]


def test_which_two_to_throw_ranks_the_six_cards_picked(table, browser):
    """Red's phone (Red deals the first game): six cards on the coach's grid, the crib taken as Red's;
    the verdict in one line at the top, then 15 rows, the best first, as scorer.coach ranks them, every
    figure labelled and every minus sign U+2212; Their crib asks again; then check my count of four of
    the six says what keeping them was worth beside the best; screenshots at 390x844."""
    from scorer.coach import coach, verdict

    browser.set_window_size(*PHONE)
    browser.get(table.show_pairing(0))
    tap(browser, ".pair button")
    wait_for(browser, lambda d: d.current_url.endswith("/phone") and d.find_elements("id", "phone"))
    wait_for(browser, lambda d: "live-dot on" in d.page_source)
    tap(browser, 'button[data-view="coach"]')  # which two to throw: a view of its own
    assert browser.find_element("id", "coach-dealer").is_selected()  # the board says Red deals
    for card in ("5H", "5D", "JC", "6S", "7S", "KD"):
        tap(browser, f'#coach-cards button[data-card="{card}"]')
    rows = wait_for(browser, lambda d: len(found := ranking(d)) == 15 and found)
    best = coach("5H 5D JC 6S 7S KD".split(), dealer=True)[0]
    assert rows[0][0] == "best" and rows[0][1].split()[:3] == ["6\u2660", "7\u2660", "5\u2666"]
    assert f"{best.expected:.1f}" in rows[0][1] and "+" in rows[0][1]
    assert "pegging is not counted" in browser.find_element("id", "coach-note").text
    said = browser.find_element("id", "coach-verdict")
    assert said.text == "Throw 6\u2660 7\u2660: 17.8 net on average (hand 12.4, crib +5.4), 1.6 better than the next"
    assert said.rect["y"] < browser.find_element("id", "coach-cards").rect["y"]  # the answer's top line, above the grid
    heads = [th.text for th in browser.find_elements("css selector", "#coach-table th")]
    assert heads == ["Throw", "Keep", "Net", "Hand avg", "Crib avg"]
    shoot(browser, "phone-coach")
    tap(browser, "#coach-pone")
    rows = wait_for(browser, lambda d: (found := ranking(d)) and found[0][1].startswith("J\u2663 K\u2666") and found)
    wait_for(browser, lambda d: d.find_element("id", "coach-verdict").text.startswith("Throw J\u2663 K\u2666"))
    pone = coach("5H 5D JC 6S 7S KD".split(), dealer=False)
    assert browser.find_element("id", "coach-verdict").text == verdict(pone, lambda card: card.shown)
    shown = browser.find_element("css selector", '[data-shows="coach"]').text
    assert "\u2212" in rows[0][1] and "\u22124.0" in shown and not re.search(r"-\d", shown)  # one minus sign
    tap(browser, 'button[data-view="count"]')
    for card in ("5H", "5D", "JC", "KD", "4C"):  # after the show: the hand kept, checked with its starter
        tap(browser, f'#cards button[data-card="{card}"]')
    said = wait_for(browser, lambda d: (text := d.find_element("id", "count-coach").text) and text)
    assert said == ("Keeping 5\u2666 5\u2665 J\u2663 K\u2666: 7.1 net on average (hand 12.4, crib \u22125.4); "
                    "keeping 5\u2666 5\u2665 6\u2660 7\u2660 was best at 8.2 net.")
    tap(browser, "#count-clear")
    for card in ("7S", "6S", "5D", "5H", "4C"):
        tap(browser, f'#cards button[data-card="{card}"]')
    said = wait_for(browser, lambda d: (text := d.find_element("id", "count-coach").text) and "best of" in text and text)
    assert said == ("Keeping 5\u2666 5\u2665 6\u2660 7\u2660: 8.2 net on average (hand 12.2, crib \u22124.0), "
                    "the best of the 15 throws.")
    shoot(browser, "phone-coach-after-the-show")
    refused = [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert refused == []

"""A phone paired at the board scores for its seat: pairing by the OLED's QR code, entries relayed
by a real web view to the running board, and the ways a phone or a stranger can get it wrong."""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

from firmware.board import phone
from firmware.board.devices import open_devices
from firmware.board.pc.simulator import MOCK, read_pegs
from firmware.config import load_config
from firmware.wire.relay import HEADER, header_token, socket_path
from ledger.reader import LedgerReader

from board_thread import BoardThread
from waits import CEILING_S, eventually
from web_games import _start_web, stop

zxingcpp = pytest.importorskip("zxingcpp", reason="pip install zxing-cpp (the test extra) to read the code")


def request(base: str, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    """(status, headers, body) of one request, without following a redirect."""
    host = urllib.parse.urlsplit(base).netloc
    conn = http.client.HTTPConnection(host, timeout=CEILING_S)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        conn.close()


class Table:
    """A running mock board (its real main loop), its real web view, and phones that pair with it."""

    def __init__(self, tmp_path: Path, monkeypatch, overrides: tuple[str, ...] = ()):
        self.overrides = overrides
        self.tmp_path = tmp_path
        self.ledger = tmp_path / "l.sqlite3"
        self.shown: set[str] = set()  # the pairing addresses read so far (each code is new)
        self.web, self.base = self._web()
        self.port = int(self.base.rsplit(":", 1)[1].rstrip("/"))
        monkeypatch.setattr(phone, "route_ip", lambda: "127.0.0.1")
        self.board = self.start_board()

    def _web(self):
        for _ in range(5):
            process, base = _start_web(self.ledger, (), CEILING_S, (), None, "127.0.0.1")
            if process is not None:
                return process, base
        raise RuntimeError("no free port")

    def start_board(self) -> BoardThread:
        config = load_config(overrides=[f"web.port={self.port}", *self.overrides])
        devices = open_devices(config, MOCK, hold_s=0.05)
        board = BoardThread(self.tmp_path, devices, config=config)
        assert eventually(lambda: socket_path(self.ledger).exists(), CEILING_S)
        return board

    @property
    def controls(self):
        return self.board.devices.controls

    def oled_code(self) -> str:
        """The pairing address the OLED's QR code holds, read as a phone's camera would."""
        display = self.board.devices.display

        def read():
            if display.image is None:
                return None
            image = display.image.convert("L").resize((512, 256))
            found = [code.text for code in zxingcpp.read_barcodes(image)]
            return found[0] if found and "/P/" in found[0] and found[0] not in self.shown else None
        found: list[str] = []
        assert eventually(lambda: found.append(read() or "") or found[-1], CEILING_S), "no pairing QR code"
        self.shown.add(found[-1])
        return found[-1]

    def show_pairing(self, seat: int) -> str:
        """Menu > Phones > Pair (the seat's line): the QR code's address."""
        self.controls.hold("knob")
        self.controls.turn(9)  # Phones
        self.controls.click("knob")
        self.controls.turn(seat)  # from the first seat's line
        self.controls.click("knob")
        return self.oled_code()

    def pair(self, seat: int) -> "Phone":
        url = self.show_pairing(seat)
        return self.phone_from(url)

    def phone_from(self, url: str) -> "Phone":
        """Open the QR code's address as a phone: its page, then its one button."""
        assert url.startswith(f"HTTP://127.0.0.1:{self.port}/P/")
        code = url.rsplit("/", 1)[1]
        status, _, page = request(self.base, "GET", f"/P/{code}")
        assert status == 200 and b"Pair this phone" in page
        status, headers, body = request(self.base, "POST", "/pair", urllib.parse.urlencode({"code": code}).encode(),
                                        {"Content-Type": "application/x-www-form-urlencoded"})
        return Phone(self, status, headers, body)

    def strip_pegs(self) -> list[dict]:
        """The scores the mock strip's last frame shows (front and back peg per side)."""
        strip = self.board.devices.strip
        board = self.board.board
        game = board.controller.game
        frame = list(strip.wanted[-1])
        return read_pegs(self.board.devices.layout, frame, board.style, game.variant.target, len(game.sides))

    def ledger_lines(self) -> list[str]:
        with LedgerReader(self.ledger) as reader:
            return reader.export()

    def close(self) -> None:
        self.board.stop()
        stop(self.web)


class Phone:
    """A paired phone's cookies and header token, and its requests."""

    def __init__(self, table: Table, status: int, headers: list, body: bytes):
        self.table = table
        self.status = status
        self.body = body
        self.set_cookie = [value for key, value in headers if key.lower() == "set-cookie"]
        self.cookie = "; ".join(c.split(";", 1)[0] for c in self.set_cookie)
        self.session = next((c.split("=", 1)[1] for c in self.cookie.split("; ") if c.startswith("cribbage_phone=")),
                            "")

    def enter(self, act: str, points: int = 0, request_id: str | None = None, token: str | None = None):
        body = json.dumps({"id": request_id or os.urandom(8).hex(), "act": act, "points": points}).encode()
        headers = {"Content-Type": "application/json", "Cookie": self.cookie,
                   HEADER: token if token is not None else header_token(self.session)}
        status, _, answer = request(self.table.base, "POST", "/api/phone/entry", body, headers)
        return status, json.loads(answer)




@pytest.mark.slow
def test_a_phone_paired_by_the_oled_qr_code_pegs_play_points(table):
    """The OLED's QR code pairs a phone for Blue (a session cookie, HttpOnly and SameSite=Strict);
    +2 in the play from it moves Blue's front peg and lands in the ledger, marked as the phone's."""
    blue = table.pair(1)
    assert blue.status == 303
    set_cookie = " ".join(blue.set_cookie)
    assert "HttpOnly" in set_cookie and "SameSite=strict" in set_cookie
    assert len(blue.session) >= 22  # at least 128 random bits, base64
    status, answer = blue.enter("peg", 2)
    assert (status, answer["ok"], answer["text"]) == (200, True, "Blue peg 2")
    assert table.ledger_lines()[-1] == "peg Blue 2  # via phone Blue"
    assert eventually(lambda: table.strip_pegs()[1]["front"] == 2, CEILING_S), table.strip_pegs()
    assert table.board.board.controller.footer.message == "Blue peg 2 (phone)"  # the OLED says it came from the phone


@pytest.mark.slow
def test_a_hand_heels_undo_and_muggins_from_the_seats_phones(table):
    """Heels from the dealer's phone, a refused heels from pone's; pone's hand from its keypad when it
    is next (refused before); undo of the seat's own entry, refused for another seat's; muggins."""
    red, blue = table.pair(0), table.pair(1)  # Red deals first
    assert blue.enter("heels")[1]["message"] == "His heels are the dealer's: Red deals"
    assert red.enter("heels")[1]["text"] == "Red heels 2"
    assert red.enter("hand", 8)[1]["message"] == "Blue counts first: Red's hand comes after"
    status, answer = blue.enter("hand", 8)
    assert (status, answer["text"]) == (200, "Blue hand 8")
    assert red.enter("undo")[1]["message"] == "The last entry is Blue's (Blue hand 8): undo it on the board"
    assert blue.enter("undo")[1]["text"] == "Undone: Blue hand 8"
    lines = table.ledger_lines()
    assert lines[1:] == ["heels Red  # via phone Red", "hand Blue 8  # via phone Blue", "undo  # via phone Blue"]
    assert blue.enter("claim", 2)[1]["message"].startswith("Muggins is off in this game")


def test_a_phone_says_go_in_the_play(table):
    """Go from a seat's phone pegs its 1 for the last card, marked with the phone; in the show it is refused."""
    red, blue = table.pair(0), table.pair(1)
    assert blue.enter("peg", 2)[1]["text"] == "Blue peg 2"
    status, answer = red.enter("go")
    assert (status, answer["text"]) == (200, "Red go 1")
    assert blue.enter("hand", 8)[1]["text"] == "Blue hand 8"
    status, answer = blue.enter("go")
    assert (status, answer["ok"]) == (409, False) and answer["message"]
    assert table.ledger_lines()[1:] == ["peg Blue 2  # via phone Blue", "go Red  # via phone Red",
                                        "hand Blue 8  # via phone Blue"]


def test_a_phone_redoes_its_own_entry_and_starts_a_new_game(table):
    """Undo and redo of the seat's own entry; another seat's redo refused; a new game, then a new match,
    from a phone, as the board's menu starts them."""
    red, blue = table.pair(0), table.pair(1)
    assert blue.enter("peg", 2)[1]["text"] == "Blue peg 2"
    assert blue.enter("undo")[1]["text"] == "Undone: Blue peg 2"
    assert red.enter("redo")[1]["message"] == "The entry to redo is Blue's: redo it on the board"
    assert blue.enter("redo")[1]["text"] == "Redone: Blue peg 2"
    status, answer = red.enter("new-game")
    assert status == 200 and answer["text"].startswith("New game: six-card"), answer
    status, answer = blue.enter("new-match")
    assert status == 200 and answer["text"].startswith("New game: six-card"), answer
    lines = table.ledger_lines()
    assert lines[0].startswith("game six-card") and lines[1:] == [], lines
    assert table.board.board.controller.game.state.scores == (0, 0)


@pytest.mark.slow
def test_a_muggins_claim_from_a_phone_with_muggins_on(tmp_path, monkeypatch):
    """With muggins on, Red's phone claims the 2 Blue's hand missed; Blue's own phone cannot."""
    table = Table(tmp_path, monkeypatch, ("game.muggins=true",))
    try:
        red, blue = table.pair(0), table.pair(1)
        assert blue.enter("hand", 6)[1]["text"] == "Blue hand 6"
        assert blue.enter("claim", 2)[1]["ok"] is False  # one's own count is not claimed
        status, answer = red.enter("claim", 2)
        assert (status, answer["ok"]) == (200, True) and "Red muggins 2" in answer["text"]
        assert table.ledger_lines()[-1] == "muggins Red 2  # via phone Red"
    finally:
        table.close()


@pytest.mark.slow
def test_an_unpaired_browser_gets_403_on_every_write_route(table):
    """No cookie, a cookie without its header token, or a made-up session: 403, and nothing entered."""
    blue = table.pair(1)
    before = table.ledger_lines()
    for path in ("/api/phone/entry", "/api/phone/unpair"):
        body = json.dumps({"id": "x1", "act": "peg", "points": 2}).encode()
        assert request(table.base, "POST", path, body, {"Content-Type": "application/json"})[0] == 403
        assert request(table.base, "POST", path, body, {"Cookie": blue.cookie})[0] == 403
        forged = "cribbage_phone=" + "A" * 43 + "; cribbage_seat=1"
        assert request(table.base, "POST", path, body,
                       {"Cookie": forged, HEADER: header_token("A" * 43)})[0] == 403
    assert blue.enter("peg", 2, token="0" * 32)[0] == 403
    status, _, _ = request(table.base, "POST", "/pair", b"code=AAAAAAAAAAAAAAAA",
                           {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 403
    assert table.ledger_lines() == before


@pytest.mark.slow
def test_a_reused_and_an_expired_code_are_refused(table):
    """A code pairs once; a code past its two minutes pairs nothing."""
    url = table.show_pairing(0)
    assert table.phone_from(url).status == 303
    again = table.phone_from(url)
    assert again.status == 403 and b"is used or not the board" in again.body
    url = table.show_pairing(1)
    phones = table.board.board.controller.phones
    code, seat, _ = phones.code
    phones.code = (code, seat, time.monotonic() - 1)  # its two minutes are over
    late = table.phone_from(url)
    assert late.status == 403 and b"expired" in late.body


@pytest.mark.slow
def test_a_repeated_request_id_pegs_once(table):
    """The same id again (a retry on flaky Wi-Fi) gets the first answer and pegs nothing more."""
    blue = table.pair(1)
    first = blue.enter("peg", 2, request_id="tap-1")
    again = blue.enter("peg", 2, request_id="tap-1")
    assert first == (200, {"ok": True, "text": "Blue peg 2", "n": 0})
    assert again[1]["text"] == "Blue peg 2" and again[1]["again"] is True
    assert table.ledger_lines()[1:] == ["peg Blue 2  # via phone Blue"]


@pytest.mark.slow
def test_a_tap_while_the_board_is_stopped_says_so_and_lands_never(table):
    """With the board stopped the phone is told at once; starting the board again enters nothing."""
    blue = table.pair(1)
    table.board.stop()
    started = time.monotonic()
    status, answer = blue.enter("peg", 2)
    assert status == 503 and answer["message"].startswith("The board is not running")
    assert time.monotonic() - started < 5
    table.board = table.start_board()
    time.sleep(0.5)
    assert table.ledger_lines()[1:] == []
    assert blue.enter("peg", 2)[1]["text"] == "Blue peg 2"  # still paired after the restart


@pytest.mark.slow
def test_the_knob_and_two_phones_interleaved_keep_one_order(table):
    """Entries from the knob's board and two phones, sent from threads at once, land in one order
    that replays; each made once."""
    red, blue = table.pair(0), table.pair(1)
    answers = []

    def tap(phone, points):
        for _ in range(5):
            answers.append(phone.enter("peg", points))

    threads = [threading.Thread(target=tap, args=(red, 1)), threading.Thread(target=tap, args=(blue, 2))]
    for thread in threads:
        thread.start()
    for _ in range(5):  # the knob's own entries meanwhile: dial 3, press blue; a phone leaves the dial alone
        table.controls.turn(3)
        table.controls.click("blue")
    for thread in threads:
        thread.join(CEILING_S)
    assert all(status == 200 for status, _ in answers)
    assert eventually(lambda: len(table.ledger_lines()) == 16, CEILING_S)
    lines = table.ledger_lines()[1:]
    assert sorted(lines) == sorted(["peg Red 1  # via phone Red"] * 5 + ["peg Blue 2  # via phone Blue"] * 5
                                   + ["peg Blue 3"] * 5)
    assert table.board.board.controller.game.state.scores[:2] == (5, 25)
    from scorer.record import replay

    assert replay(table.ledger_lines()).book.game.state.scores == (5, 25)  # one order, which replays


@pytest.mark.slow
def test_the_web_view_killed_between_a_tap_and_its_answer_pegs_once(table, monkeypatch):
    """SIGKILL of the web view while the board holds a tap: the entry lands once; the phone's retry
    through a new web view (same id) gets the first answer, and pegs nothing more."""
    blue = table.pair(1)
    server = table.board.board.phone_server
    held = threading.Event()
    release = threading.Event()
    waiting = server.waiting

    def slow_waiting():
        if not server.requests.empty():
            held.set()
            release.wait(CEILING_S)
        return waiting()

    monkeypatch.setattr(server, "waiting", slow_waiting)
    result = []
    tap = threading.Thread(target=lambda: result.append(_try(lambda: blue.enter("peg", 2, request_id="tap-9"))))
    tap.start()
    assert held.wait(CEILING_S)
    os.kill(table.web.pid, signal.SIGKILL)
    table.web.wait()
    release.set()
    tap.join(CEILING_S)
    assert result and isinstance(result[0], Exception)  # the phone got no answer: it says it failed
    assert eventually(lambda: table.ledger_lines()[1:] == ["peg Blue 2  # via phone Blue"], CEILING_S)
    table.web, table.base = table._web()
    again = blue.enter("peg", 2, request_id="tap-9")
    assert again[1]["ok"] and again[1]["again"]
    assert table.ledger_lines()[1:] == ["peg Blue 2  # via phone Blue"]


def _try(call):
    try:
        return call()
    except Exception as error:  # the connection the killed web view held
        return error



# ---- pairing, sessions and old ledgers, without a board running ----------------------------


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_code_pairs_once_within_its_time_and_sessions_are_kept_hashed(tmp_path):
    """A code pairs one phone once; a later code replaces it; one past CODE_SECONDS pairs nothing. The
    file beside the ledger keeps only hashes of the sessions, mode 0600, and a new board reads it."""
    from firmware.board.phones import CODE_SECONDS, Phones

    clock = Clock()
    path = tmp_path / "l.sqlite3.phones.json"
    phones = Phones(path, clock)
    first = phones.new_code(1)
    second = phones.new_code(2)
    assert isinstance(phones.pair(first), str)  # replaced by the second
    session, seat = phones.pair(second.lower())
    assert seat == 2 and len(session) >= 43
    assert isinstance(phones.pair(second), str)  # used
    late = phones.new_code(0)
    clock.now += CODE_SECONDS + 1
    assert "expired" in phones.pair(late)
    assert session not in path.read_text() and oct(path.stat().st_mode & 0o777) == "0o600"
    again = Phones(path, clock)
    assert again.seat_of(session) == 2 and again.seat_of("x" * 43) is None
    assert again.unpair(2) == 1 and Phones(path, clock).seat_of(session) is None


def test_a_phones_request_is_answered_once_per_id_and_checked_whole(tmp_path):
    """Bad ids, entries and points are refused in words; an id seen before gets the first answer."""
    from firmware.board.phones import PhoneEntry, Phones

    phones = Phones(None)
    session, seat = phones.pair(phones.new_code(0))
    made = []

    def answer(request):
        """The answer as the controller gives it: an entry checked whole is entered, and its answer kept."""
        asked = phones.answer(request)
        if not isinstance(asked, PhoneEntry):
            return asked
        made.append((asked.given, asked.request_id))
        entered = {"ok": True, "text": f"entry {len(made)}"}
        phones.keep(asked, entered)
        return entered

    ask = {"op": "enter", "session": session}
    assert answer({**ask, "id": "", "act": "peg", "points": 1})["ok"] is False
    assert answer({**ask, "id": "a", "act": "shout", "points": 1})["ok"] is False
    assert answer({**ask, "id": "a", "act": "peg", "points": 1.0})["ok"] is False
    assert answer({**ask, "id": "a", "act": "peg", "points": True})["ok"] is False
    assert answer({**ask, "id": "a", "act": "peg", "points": 30})["ok"] is False
    assert answer({**ask, "id": "a", "act": "peg", "points": 2}) == {"ok": True, "text": "entry 1"}
    assert answer({**ask, "id": "a", "act": "peg", "points": 2})["again"] is True
    assert len(made) == 1 and made[0][0].seat == seat
    assert answer({"op": "enter", "session": "forged", "id": "b", "act": "peg", "points": 2})["unpaired"] is True
    assert answer(["not", "a", "request"])["ok"] is False


def test_a_ledger_from_before_the_sources_reads_as_before(tmp_path):
    """A schema-2 ledger written before entries kept their source exports the same lines; a writer
    adds the table, and its board entries keep no row."""
    import shutil
    import sqlite3

    from ledger.writer import LedgerWriter
    from scorer.record import parse_line

    old = tmp_path / "old.sqlite3"
    shutil.copy(Path(__file__).parent / "data" / "ledger-v2.sqlite3", old)
    conn = sqlite3.connect(old)
    assert conn.execute("SELECT name FROM sqlite_master WHERE name='entry_sources'").fetchone() is None
    conn.close()
    with LedgerReader(old) as reader:
        before = [reader.export(game) for game in reader.game_ids()]
    assert all("# via" not in line for lines in before for line in lines)
    with LedgerWriter(old) as store:
        assert [store.export(game) for game in store.game_ids()] == before
        store.apply(parse_line("heels"))
    with LedgerReader(old) as reader:
        assert "# via" not in reader.export()[-1]


def test_a_phones_entries_keep_their_source_when_a_damaged_ledger_is_set_aside(tmp_path):
    """Setting a damaged file aside carries the current game's sources over with its entries, and
    a phone's request id still finds its entry (a retry after it pegs nothing more)."""
    from ledger.sources import EntrySource
    from ledger.writer import LedgerWriter
    from scorer.record import parse_line

    with LedgerWriter(tmp_path / "l.sqlite3", clock=lambda: 0) as store:
        store.apply(parse_line("game six-card seats=A,B dealer=A"))
        store.apply(parse_line("peg B 2"), EntrySource("phone", "B", "tap-1"))
        store.set_aside("integrity check failed: a test")
        assert store.export()[-1] == "peg B 2  # via phone B"
        assert store.entry_of_request("B", "tap-1") == "peg B 2"


def test_each_phone_is_rate_limited_on_its_own():
    """A burst of 8 taps passes, the 9th waits for the bucket to fill (4 a second); another phone is not held up."""
    from firmware.web.phones import Buckets

    clock = Clock()
    buckets = Buckets(clock=clock)
    assert [buckets.take("a") for _ in range(9)] == [True] * 8 + [False]
    assert buckets.take("b")
    clock.now += 0.25
    assert buckets.take("a") and not buckets.take("a")


@pytest.mark.slow
def test_a_burst_of_taps_is_told_to_wait_and_enters_only_what_passed(table):
    """Twelve taps at once from one phone: 429 for those past the burst, each of the rest entered once."""
    blue = table.pair(1)
    answers: list = []
    taps = [threading.Thread(target=lambda: answers.append(blue.enter("peg", 1))) for _ in range(12)]
    for tap in taps:
        tap.start()
    for tap in taps:
        tap.join(CEILING_S)
    passed = [answer for status, answer in answers if status == 200]
    assert 8 <= len(passed) < 12 and all(status in (200, 429) for status, _ in answers)
    assert len(table.ledger_lines()) - 1 == len(passed)


@pytest.mark.slow
def test_the_seats_page_asks_the_board_whose_seat_it_is(table):
    """/phone shows the seat the board paired, whatever the seat cookie says; unpaired on the board,
    the page says how to pair and drops the cookies; with the board stopped, it says so."""
    blue = table.pair(1)
    forged = blue.cookie.replace("cribbage_seat=1", "cribbage_seat=0")
    status, _, page = request(table.base, "GET", "/phone", headers={"Cookie": forged})
    assert status == 200 and b'data-seat="1"' in page
    assert blue.enter("peg", 2, request_id="x")[1]["text"] == "Blue peg 2"
    table.board.stop()
    status, _, page = request(table.base, "GET", "/phone", headers={"Cookie": blue.cookie})
    assert b"The board is not running" in page
    table.board = table.start_board()
    table.controls.hold("knob")
    table.controls.turn(9)  # Phones
    table.controls.click("knob")
    table.controls.turn(3)  # Back, Phone view, Pair Red, Pair Blue, Unpair Blue
    table.controls.click("knob")
    assert eventually(lambda: table.board.board.controller.phones.paired_seats() == set(), CEILING_S)
    status, headers, page = request(table.base, "GET", "/phone", headers={"Cookie": blue.cookie})
    assert b"not paired" in page and any(k.lower() == "set-cookie" for k, _ in headers)
    assert blue.enter("peg", 2)[0] == 403


def test_the_coach_answers_a_paired_phone_with_the_discards_ranked(table):
    """``GET /api/coach``: the 15 discards as scorer.coach ranks them, for either crib, for a paired
    phone's page (403 without its session and token); six different cards and a side, else 400 with one line."""
    from scorer.coach import coach

    assert request(table.base, "GET", "/api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=0")[0] == 403
    blue = table.pair(1)
    phone = {"Cookie": blue.cookie, HEADER: header_token(blue.session)}
    status, _, body = request(table.base, "GET", "/api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=0", headers=phone)
    answer = json.loads(body)
    assert status == 200 and answer["ok"] and answer["dealer"] is False
    assert answer["discards"] == [d.to_dict() for d in coach("5H 5D JC 6S 7S KD".split(), dealer=False)]
    assert answer["verdict"] == "Throw J\u2663 K\u2666: 8.2 net on average (hand 12.2, crib \u22124.0), 1.2 better than the next"
    assert "pegging is not counted" in answer["assumes"] and answer["cribs_per_starter"] == 990
    status, _, body = request(table.base, "GET", "/api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=1", headers=phone)
    assert status == 200 and json.loads(body)["discards"][0]["throw"] == ["6S", "7S"]
    for query, message in [
        ("cards=5H,5D,JC,6S,7S&dealer=1", "the coach needs the 6 cards dealt, not 5"),
        ("cards=5H,5D,JC,6S,7S,5H&dealer=1", "5H is given twice: each card is in the pack once"),
        ("cards=5H,5D,JC,6S,7S,KD", "say whose crib it is: dealer=1 (yours) or dealer=0 (the opponent's)"),
    ]:
        status, _, body = request(table.base, "GET", f"/api/coach?{query}", headers=phone)
        assert (status, json.loads(body)) == (400, {"ok": False, "message": message})

"""The web view against hostile pages, hosts, paths and names (issue 21, items 7, 8 and 9)."""

import csv
import io
import json
import re
import shutil
import socket
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

from ledger.rows import GameRow
from ledger.writer import LedgerWriter
from scorer.history import player_stats
from scorer.record import replay
from scorer.report import state_dict

from waits import CEILING_S
from web_games import OTHER_USER_PROBLEM, get, get_json, match_records, web_server, write_games

# ---- helpers -------------------------------------------------------------------------


def two_games(folder: Path) -> Path:
    """A ledger in ``folder`` of two finished games of Alice and Bob."""
    path = folder / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        write_games(store, match_records(2))
    return path


@pytest.fixture
def ledger(tmp_path):
    """Two finished games of Alice and Bob."""
    return two_games(tmp_path)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server on a ``ledger`` ledger for the tests that ask it and read no log (a server costs about
    1 s of CPU to start): its base URL."""
    with web_server(two_games(tmp_path_factory.mktemp("served"))) as base:
        yield base


def exchange(base: str, request: bytes, timeout: float = CEILING_S) -> bytes:
    """All the server sends back for the raw ``request`` until it closes the connection
    (socket.timeout if it has not within ``timeout``)."""
    host, port = base.removeprefix("http://").split(":")
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        answer = b""
        while True:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = sock.recv(65536)
            if not chunk:
                return answer
            answer += chunk


def request(path: str, host: str = "127.0.0.1", method: str = "GET", extra: str = "") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}\r\n".encode("latin-1")


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def no_traceback(log: Path) -> str:
    """The server's log, once it has stopped; fails if it holds a traceback."""
    text = log.read_text()
    assert "Traceback" not in text and "Exception in ASGI application" not in text, text
    return text


# ---- item 9: headers ----------------------------------------------------------------


ANSWERS = ("/", "/games", "/games/1", "/games/1.txt", "/games.csv", "/stats", "/api/state", "/api/games/1",
           "/games/99", "/nowhere")


def policy(headers) -> dict[str, str]:
    """The Content-Security-Policy header as {directive: value}."""
    return dict((part.strip().split(" ", 1) + [""])[:2] for part in headers["Content-Security-Policy"].split(";"))


def test_every_answer_sends_the_security_headers(served):
    """Pages, JSON, downloads, 404s and refusals all send a CSP (no inline script, no framing),
    nosniff and a Referrer-Policy; the board page runs no inline script and its one inline style
    is the one the policy's hash allows."""
    import base64
    import hashlib

    base = served
    answers = {url: get(base + url) for url in ANSWERS}
    answers["POST /"] = get(base + "/", method="POST")
    script = re.search(r'<script src="([^"]+)"', answers["/"][2].decode()).group(1)
    answers[script] = get(base + script)
    for url, (_, headers, _) in answers.items():
        rules = policy(headers)
        assert rules["frame-ancestors"] == "'none'" and rules["default-src"] == "'none'", url
        assert rules["script-src"] == "'self'" and "unsafe" not in headers["Content-Security-Policy"], url
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer", url
    status, headers, page = answers["/"]
    page = page.decode()
    assert re.findall(r"<script(?![^>]*\bsrc=)", page) == [] and " on" not in re.sub(r">[^<]*<", "><", page)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
    assert len(styles) == 1 and policy(headers)["style-src"] == f"'sha256-{digest}'" and " style=" not in page
    assert answers[script][0] == 200 and answers[script][1]["Content-Type"].startswith("text/javascript")


# ---- item 9: hosts ------------------------------------------------------------------


BOARD_HOSTS = ["127.0.0.1", "127.0.0.1:8121", "localhost", "LocalHost:80", "localhost.", "[::1]", "[::1]:8121",
               "192.168.1.20", "10.0.0.7:8121", "[fe80::1]", "board.local", "Board.Local:8121", "cribbage.local."]
OTHER_HOSTS = ["evil.example", "evil.example:8121", "localhost.evil.example", "127.0.0.1.nip.io", "board.local.evil",
               "local", ".local", "[::1", "[evil]", "127.0.0.1:http", "::1", "127.0.0.1:80:80", "10.0.0.256"]


def test_only_host_names_that_can_be_this_board_are_answered(served):
    """localhost, IP literals (v4, [v6]), the machine's hostname and *.local names are answered,
    with a port or not; any other Host gets 421 and one line (DNS rebinding gets nothing)."""
    base = served
    ours = {host: exchange(base, request("/api/state", host)) for host in [*BOARD_HOSTS, socket.gethostname()]}
    theirs = {host: exchange(base, request(path, host)) for host in OTHER_HOSTS for path in ("/api/state", "/", "/events")}
    assert {host: status_of(answer) for host, answer in ours.items()} == {host: 200 for host in ours}
    for host, answer in theirs.items():
        head, _, body = answer.partition(b"\r\n\r\n")
        assert status_of(answer) == 421, host
        assert body.count(b"\n") == 1 and b"misdirected request" in body and b"Alice" not in body
        assert b"content-security-policy" in head.lower()


# ---- item 9: paths, bodies, HEAD /events, the warm-up -----------------------------------


@pytest.mark.slow
def test_a_game_id_of_thousands_of_digits_is_404_without_a_traceback(ledger, tmp_path):
    """Game ids past Python's 4,300-digit int conversion limit (and just under it) are 404, logged quietly."""
    log = tmp_path / "web.log"
    with web_server(ledger, log=log) as base:
        for digits in ("1" * 4300, "1" * 4301, "9" * 5000, "0" * 4400 + "1"):
            for path in (f"/games/{digits}", f"/games/{digits}.txt", f"/api/games/{digits}"):
                assert status_of(exchange(base, request(path))) == 404, (path[:12], len(digits))
        assert get(base + "/games/1")[0] == 200
    no_traceback(log)


@pytest.mark.slow
def test_a_malformed_chunked_body_logs_no_traceback(ledger, tmp_path):
    """A chunked body that breaks HTTP, with the request or after its answer: the connection is
    closed (400 where no answer was begun), the log holds no traceback, the server answers on."""
    log = tmp_path / "web.log"
    chunked = request("/", extra="Transfer-Encoding: chunked\r\n").replace(b"Connection: close\r\n", b"")
    with web_server(ledger, log=log) as base:
        assert status_of(exchange(base, chunked + b"zz\r\n\r\n")) in (200, 400)
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=CEILING_S) as sock:
            sock.sendall(chunked)
            answer = b""
            while b"</html>" not in answer:  # the page is answered before its body is read
                answer += sock.recv(65536)
            sock.sendall(b"not a chunk size\r\n\r\n")
            while sock.recv(65536):  # the server closes the connection
                pass
        assert status_of(answer) == 200 and get(base + "/api/state")[0] == 200
    no_traceback(log)


def test_head_events_ends(served):
    """HEAD /events answers the stream's headers and ends (the connection closes as asked)."""
    answer = exchange(served, request("/events", method="HEAD"))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert status_of(answer) == 200 and b"text/event-stream" in head.lower() and body == b""


def _unreadable_ledgers() -> list:
    """--state paths the warm-up cannot read: a name too long for the system, and a ledger in a
    folder another user may not enter (as that user)."""
    return [pytest.param("too-long", id="name-too-long"),
            pytest.param("other-user", id="folder-of-another-user",
                         marks=pytest.mark.skipif(OTHER_USER_PROBLEM is not None, reason=OTHER_USER_PROBLEM or ""))]


@pytest.mark.slow
@pytest.mark.parametrize("kind", _unreadable_ledgers())
def test_a_state_the_warm_up_cannot_read_is_said_without_a_traceback(tmp_path, kind):
    """The warm-up thread meets a --state it may not look at: no traceback; the pages say why in one line."""
    log = tmp_path / "web.log"
    if kind == "too-long":
        state, wrap = tmp_path / ("x" * 300) / "ledger.sqlite3", ()
        folder = None
    else:
        folder = Path(tempfile.mkdtemp(prefix="cribbage-private-"))
        folder.chmod(0o700)
        state = folder / "ledger.sqlite3"
        with LedgerWriter(state) as store:
            write_games(store, match_records(1))
        wrap = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    try:
        with web_server(state, wrap=wrap, log=log) as base:
            status, body = get_json(base + "/api/state")
            assert get(base + "/stats")[0] == 503 and get(base + "/")[0] == 200
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    assert status == 503 and "\n" not in body["error"] and "ledger" in body["error"]
    no_traceback(log)


# ---- item 7: names that lie ------------------------------------------------------------


LIARS = {"Alice": "\u202eAlice", "Bob": "B\u200bo\u2060b\ufeff", "Cat": "\u2069\u202bCat\u2066"}
HIDDEN = re.compile("[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066\u2067\ufeff]")


def lying(data):
    """``data`` (JSON-able) with every seat name replaced by its liar."""
    text = json.dumps(data)
    for name, liar in LIARS.items():
        text = text.replace(f'"{name}', json.dumps(liar)[:-1]).replace(f" {name}", " " + json.dumps(liar)[1:-1])
    return json.loads(text)


class Shown(HTMLParser):
    """The text a page shows that holds one of ``words`` outside <bdi> and outside U+2068...U+2069."""

    VOID = {"meta", "br", "circle", "line", "rect", "polyline", "path", "input", "link"}

    def __init__(self, words):
        super().__init__()
        self.words, self.stack, self.bare = words, [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)
        for name, value in attrs:
            if name not in ("class", "href", "data-side") and value:
                self.handle_data(value)

    def handle_startendtag(self, tag, attrs):
        for name, value in attrs:
            if name not in ("class", "href", "data-side") and value:
                self.handle_data(value)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        outside = re.sub("\u2068[^\u2068\u2069]*\u2069", "", data)
        if "title" in self.stack and "head" in self.stack:
            return  # the tab's title: nothing invisible in it at all (test_titles_hold_nothing_invisible)
        if "bdi" not in self.stack and any(word in outside for word in self.words):
            self.bare.append((tuple(self.stack), data))


def check_names(html: str, words=("Alice", "o\ufffdb", "Cat", "אבי")) -> None:
    """Every name the page shows is isolated, and no character that hides or reorders text is left."""
    assert not HIDDEN.search(html), HIDDEN.search(html)
    assert re.sub("\u2068[^\u2068\u2069]*\u2069", "", html).count("\u2069") == 0
    shown = Shown(words)
    shown.feed(html)
    assert shown.bare == []


def test_names_that_lie_are_isolated_and_shown_as_they_are():
    """Names a ledger may hold (right-to-left override, zero-width and invisible characters, a stray
    isolate; a right-to-left script) are each isolated on every page (<bdi>, or U+2068..U+2069 in
    title attributes and SVG; the tab's title holds nothing invisible) and their hidden characters shown
    as U+FFFD, so "Bob 16" can never read "61 boB"."""
    from firmware.web import pages
    from firmware.web.records import play_record

    first, second = match_records(2, seats="Alice,Bob")
    live = replay(["game three-hand seats=Alice,Bob,Cat dealer=Cat", "peg Bob 2", "peg Cat 3", "undo"]).book
    state = lying(state_dict(live))
    recent = lying([{"action": "entry", "text": "Bob pegs 2"}, {"action": "undo", "text": "Cat pegs 3"}])
    board = pages.board_page(state, None, recent)
    check_names(board)
    assert "<bdi>\ufffdAlice</bdi>" in board and "<bdi>B\ufffdo\ufffdb\ufffd</bdi>" in board
    assert "<title>\ufffdAlice 0 · B\ufffdo\ufffdb\ufffd 2 · " in board  # hidden characters shown, no isolates in a tab

    done = state_dict(replay(first + second).book)
    check_names(pages.live_html(lying(done), None, []))

    rows = [GameRow(2, 1, "six-card", tuple(LIARS[n] for n in ("Alice", "Bob")), 121, "finished",
                    winner=LIARS["Bob"], loser=LIARS["Alice"], result="skunk", margin=40, game_points=2),
            GameRow(1, 1, "three-hand", tuple(LIARS.values()), 121, "abandoned"),
            GameRow(3, None, "six-card", ("אבי", "Cat"), 121, "finished", winner="אבי", result="win", margin=3)]
    check_names(pages.render("games.html", pages.games_context(rows, None)))

    played = play_record(1, first)
    race = lying(played.race)
    sides = [SimpleNamespace(name=name) for name in race["sides"]]
    lines = lying([{**line, "line": line["line"], "text": line["text"]} for line in played.lines])
    stand_in = SimpleNamespace(game=SimpleNamespace(sides=sides, state=played.game.state), race=race, lines=lines,
                               problems=[])
    check_names(pages.render("game.html", pages.game_context(rows[0], stand_in,
                                                          SimpleNamespace(entries=[], started=None, finished=None))))

    players = lying(json.loads(json.dumps(player_stats([first, second]))))
    from scorer.distribution import distribution

    check_names(pages.render("stats.html", pages.stats_context(players, {4: distribution(4, False)}, None)))


def test_a_right_to_left_name_keeps_its_letters():
    """Isolation changes no letter of an honest name in any script, and leaves emoji joiners be."""
    from firmware.web.names import name_text, visible
    from firmware.web.render import ENV

    for name in ("Alice", "אבי", "عليّ", "Zoë", "👩\u200d👩\u200d👧", "Anne-Marie"):
        assert visible(name) == name
        assert name_text(name) == f"\u2068{name}\u2069"
        assert ENV.from_string("<bdi>{{ name|visible }}</bdi>").render(name=name) == f"<bdi>{name}</bdi>"


# ---- item 8: spreadsheet formulas ---------------------------------------------------------


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

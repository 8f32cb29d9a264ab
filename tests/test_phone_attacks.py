"""Nothing a phone, a stranger or a broken web view sends stops the board or takes the table's phones:
each attack is refused in words, and a paired phone's next tap is entered."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.parse

import pytest

from firmware.web.feed import STREAMS_PER_CLIENT
from firmware.wire.relay import HEADER, ask, header_token, socket_path, unix_address

from test_phones import Table, request
from waits import CEILING_S


class LoggedTable(Table):
    """A table whose web view writes its log to a file the test reads."""

    def _web(self):
        from web_games import _start_web

        self.web_log = self.tmp_path / "web.log"
        for _ in range(5):
            process, base = _start_web(self.ledger, (), CEILING_S, (), self.web_log, "127.0.0.1")
            if process is not None:
                return process, base
        raise RuntimeError("no free port")


@pytest.fixture
def logged(tmp_path, monkeypatch):
    running = LoggedTable(tmp_path, monkeypatch)
    try:
        yield running
    finally:
        running.close()


def _still_scores(table: Table, phone, points: int) -> None:
    """The board runs on and its socket answers: the paired phone's next tap is entered."""
    assert table.board.thread.is_alive()
    status, answer = phone.enter("peg", points)
    assert (status, answer.get("text")) == (200, f"Blue peg {points}"), answer


def _raw(table: Table, data: bytes, wait: float = 5.0) -> bytes:
    """Send ``data`` on the board's socket as a web view would, and what came back before it closed."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(wait)
        with unix_address(socket_path(table.ledger)) as address:
            sock.connect(address)
        sock.sendall(data)
        got = b""
        try:
            while chunk := sock.recv(4096):
                got += chunk
        except OSError:
            pass
        return got


@pytest.mark.slow
def test_a_lone_surrogate_in_any_text_is_refused_and_the_board_runs_on(table):
    """The id, the session, the code and the act as one lone surrogate, on the socket and through the
    web view: refused in words, never an exception; the board's loop and socket go on."""
    blue = table.pair(1)
    path = socket_path(table.ledger)
    for request_body in ({"op": "enter", "session": blue.session, "id": "\ud800", "act": "peg", "points": 1},
                         {"op": "enter", "session": blue.session, "id": "a", "act": "\ud800", "points": 1},
                         {"op": "enter", "session": "\ud800", "id": "a", "act": "peg", "points": 1},
                         {"op": "seat", "session": "\ud800"}, {"op": "unpair", "session": "\udfff"},
                         {"op": "pair", "code": "\ud800"}, {"op": "\ud800"}):
        answer = ask(path, request_body)
        assert answer["ok"] is False and answer["message"], (request_body, answer)
    body = json.dumps({"id": "\ud800", "act": "peg", "points": 1}).encode()
    headers = {"Content-Type": "application/json", "Cookie": blue.cookie, HEADER: header_token(blue.session)}
    status, _, said = request(table.base, "POST", "/api/phone/entry", body, headers)
    assert status == 400 and json.loads(said)["message"]
    assert table.ledger_lines()[1:] == []
    _still_scores(table, blue, 2)


@pytest.mark.slow
def test_deep_nesting_a_long_line_and_a_slow_sender_leave_the_socket_answering(table):
    """3,000 "[" on the board's socket, a line past the limit, bytes that never end a line, and
    nesting in a phone's body: each is refused in words or its connection ends unanswered (a 400 for the body);
    the next tap is entered."""
    blue = table.pair(1)
    for data in (b"[" * 3000 + b"\n", b"{" * 3000 + b"\n", b'{"op": "seat", "session": "' + b"x" * 5000 + b'"}\n'):
        got = _raw(table, data)
        assert got == b"" or json.loads(got) == {"ok": False, "message": "not a request"}, got
    slow = threading.Thread(target=lambda: _raw(table, b'{"op"', wait=CEILING_S))
    slow.start()
    time.sleep(0.2)  # the slow sender holds the socket's one reader now
    started = time.monotonic()
    _still_scores(table, blue, 2)
    assert time.monotonic() - started < 4.0  # the slow one was cut off at its deadline, not waited out
    slow.join(CEILING_S)
    headers = {"Content-Type": "application/json", "Cookie": blue.cookie, HEADER: header_token(blue.session)}
    for body in (b"[" * 4000, b'{"id": "a", "act": "peg", "points": [[[[1]]]]}'):
        status, _, said = request(table.base, "POST", "/api/phone/entry", body, headers)
        assert status == 400 and json.loads(said)["message"], said
    _still_scores(table, blue, 3)


@pytest.mark.slow
def test_a_made_up_session_gets_nothing_from_any_seat_route(table):
    """A session the board never gave, with the header token its public formula makes, is refused on
    the coach and on every write; made up again and again, it is told to wait, never served."""
    blue = table.pair(1)
    refused = []
    for n in range(12):
        made_up = f"{n:02d}" + "A" * 41
        headers = {"Cookie": f"cribbage_phone={made_up}; cribbage_seat=1", HEADER: header_token(made_up)}
        status, _, _ = request(table.base, "GET", "/api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=1", None, headers)
        refused.append(status)
        for path in ("/api/phone/entry", "/api/phone/unpair"):
            body = json.dumps({"id": f"m{n}", "act": "peg", "points": 2}).encode()
            status, _, _ = request(table.base, "POST", path, body, {**headers, "Content-Type": "application/json"})
            refused.append(status)
    assert set(refused) <= {403, 429} and 403 in refused and 429 in refused, refused
    assert table.ledger_lines()[1:] == []
    headers = {"Cookie": blue.cookie, HEADER: header_token(blue.session)}
    status, _, said = request(table.base, "GET", "/api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=1", None, headers)
    assert status == 200 and json.loads(said)["ok"]
    _still_scores(table, blue, 2)


@pytest.mark.slow
def test_a_huge_or_broken_cookie_is_a_400_without_a_traceback(logged):
    """A 5,000-character session cookie, or one with a lone surrogate's bytes: 400 in words, nothing in
    the web view's log but its own lines."""
    blue = logged.pair(1)
    big = "A" * 5000
    for cookie in (f"cribbage_phone={big}; cribbage_seat=1", "cribbage_phone=\udcff; cribbage_seat=1"):
        headers = {"Cookie": cookie.encode("utf-8", "surrogateescape").decode("latin-1"),
                   HEADER: header_token(big), "Content-Type": "application/json"}
        body = json.dumps({"id": "z", "act": "peg", "points": 2}).encode()
        for method, path in (("POST", "/api/phone/entry"), ("GET", "/api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=1")):
            status, _, said = request(logged.base, method, path, body if method == "POST" else None, headers)
            assert status == 400 and json.loads(said)["message"], (path, status, said)
    status, _, _ = request(logged.base, "GET", "/phone", None, {"Cookie": f"cribbage_phone={big}; cribbage_seat=1"})
    assert status == 200
    _still_scores(logged, blue, 2)
    assert "Traceback" not in logged.web_log.read_text()


def _events(base: str):
    """One /events request on a connection of its own: (status, the connection, its response)."""
    host = urllib.parse.urlsplit(base).netloc
    conn = http.client.HTTPConnection(host, timeout=CEILING_S)
    conn.request("GET", "/events")
    response = conn.getresponse()
    return response.status, conn, response


@pytest.mark.slow
def test_one_client_holds_a_few_live_streams_and_the_table_goes_on(table):
    """Streams of /events from one client past its share are refused at once (429); the pages, the
    state and a paired phone's tap are answered meanwhile, and each stream given is live."""
    blue = table.pair(1)
    opened = [_events(table.base) for _ in range(40)]
    try:
        statuses = [status for status, _, _ in opened]
        assert statuses.count(200) == STREAMS_PER_CLIENT and statuses.count(429) == 40 - STREAMS_PER_CLIENT
        first = next(response for status, _, response in opened if status == 200)
        assert first.readline().startswith(b"event: message")
        for path in ("/", "/api/state", "/phone"):
            assert request(table.base, "GET", path)[0] == 200, path
        _still_scores(table, blue, 2)
    finally:
        for _, conn, _ in opened:
            conn.close()
    status, conn, _ = _events(table.base)  # closed streams give their places back
    conn.close()
    assert status == 200


@pytest.mark.slow
def test_the_live_header_says_when_the_board_itself_stops(table):
    """The live events say the board runs; stopped, the next event says it is not running, though
    the web view answers on."""
    status, conn, response = _events(table.base)
    try:
        assert status == 200
        assert _next_event(response)["board"] is True
        table.board.stop()
        deadline = time.monotonic() + CEILING_S
        while _next_event(response)["board"] is not False:
            assert time.monotonic() < deadline
    finally:
        conn.close()


def _next_event(response) -> dict:
    """The data of the next message event of a stream (keep-alive comments skipped), within CEILING_S."""
    deadline = time.monotonic() + CEILING_S
    while True:
        assert time.monotonic() < deadline, "no event came"
        line = response.readline()
        if line.startswith(b"data: "):
            return json.loads(line[6:])

"""The web view's server (firmware/web/server.py) against hostile requests and a --state it cannot read:
a 404 for a huge game id, a 400 for a broken chunked body, one line for the warm-up; never a traceback."""

import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from ledger.writer import LedgerWriter

from waits import CEILING_S
from web_games import (
    OTHER_USER_PROBLEM,
    exchange,
    get,
    get_json,
    match_records,
    request,
    status_of,
    two_games,
    web_server,
    write_games,
)


@pytest.fixture
def ledger(tmp_path):
    """Two finished games of Alice and Bob."""
    return two_games(tmp_path)


def no_traceback(log: Path) -> str:
    """The server's log, once it has stopped; fails if it holds a traceback."""
    text = log.read_text()
    assert "Traceback" not in text and "Exception in ASGI application" not in text, text
    return text


# ---- paths, bodies, the warm-up ------------------------------------------------------


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

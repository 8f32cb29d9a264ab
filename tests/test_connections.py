"""firmware/server/connections.py against the uvicorn it runs on: the private parts it overrides are the ones reviewed.

:class:`~firmware.server.connections.GuardedH11` subclasses uvicorn's private ``H11Protocol``
and :class:`~firmware.server.connections.Server` extends ``uvicorn.Server.startup``. pyproject.toml
pins uvicorn to the versions whose source was read against them; these tests fail when an
installed uvicorn changes any of it, so that a new version is read before the pin moves.

Idle and half-sent connections cannot knock a server offline: a real web view process and real
sockets, with the server's RLIMIT_NOFILE set as the unit's LimitNOFILE, and as systemd's default
1,024 (prlimit): a crowd of connections that send nothing, or half a request, must leave room for a
real request, be closed within seconds, and leave a few lines in the log, not a flood.
"""

import asyncio
import hashlib
import inspect
import re
import selectors
import socket
import time
import tomllib
from pathlib import Path

import pytest
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle
from uvicorn.server import ServerState

from firmware.server.connections import GuardedH11, Server, limits_for
from firmware.web.feed import STREAMS_PER_CLIENT
from ledger.writer import LedgerWriter

from waits import CEILING_S
from web_games import match_records, web_server, write_games

ROOT = Path(__file__).resolve().parent.parent

# The source of each H11Protocol method GuardedH11 overrides, as read against it (the same from
# uvicorn 0.29.0 to 0.55.0): sha256 of inspect.getsource, first 16 hex digits.
REVIEWED = {
    "connection_made": "6efb565ff3d36b91",
    "data_received": "e03b145518ca44aa",
    "on_response_complete": "1fbb8f48c6a1afc4",
    "connection_lost": "dbb688fa2b386000",
    "send_400_response": "56937b748fc59d92",
}


def _pin() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The uvicorn versions pyproject.toml allows: (lowest, first refused)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    spec = next(dep for dep in project["dependencies"] if dep.startswith("uvicorn"))
    match = re.fullmatch(r"uvicorn>=([\d.]+),<([\d.]+)", spec)
    assert match, f"uvicorn is not pinned to a range of versions: {spec!r}"
    low, high = (tuple(int(part) for part in version.split(".")) for version in match.groups())
    return low, high


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_uvicorn_is_pinned_below_a_version_not_yet_read():
    """pyproject.toml bounds uvicorn above, and the one installed is in the range."""
    low, high = _pin()
    assert low <= _version(uvicorn.__version__) < high


def test_the_methods_guarded_h11_overrides_are_the_source_reviewed():
    """Every H11Protocol method GuardedH11 overrides is listed, and its source is the one read against it."""
    overridden = {name for name in vars(GuardedH11) if name in vars(H11Protocol)} - {"__init__", "__doc__",
                                                                                     "__module__"}
    assert overridden == set(REVIEWED)
    for name, digest in REVIEWED.items():
        source = inspect.getsource(getattr(H11Protocol, name))
        assert hashlib.sha256(source.encode()).hexdigest()[:16] == digest, (
            f"uvicorn {uvicorn.__version__} changed H11Protocol.{name}: read it against GuardedH11.{name}, "
            "then update REVIEWED and the pin in pyproject.toml")


def test_the_parts_of_uvicorn_guarded_h11_calls_are_there():
    """The signatures, attributes and log line GuardedH11 and Server rely on."""
    assert list(inspect.signature(H11Protocol.__init__).parameters) == [
        "self", "config", "server_state", "app_state", "_loop"]
    assert list(inspect.signature(H11Protocol.send_400_response).parameters) == ["self", "msg"]
    assert list(inspect.signature(uvicorn.Server.startup).parameters) == ["self", "sockets"]
    assert inspect.iscoroutinefunction(uvicorn.Server.startup) and issubclass(Server, uvicorn.Server)
    events = inspect.getsource(H11Protocol.handle_events)  # a request that does not parse: 400 and this line
    assert 'self.send_400_response(msg)' in events and '"Invalid HTTP request received."' in events
    cycle = inspect.getsource(RequestResponseCycle)
    assert "self.response_complete = " in cycle and "self.disconnected = " in cycle

    async def made():
        config = uvicorn.Config(lambda scope, receive, send: None, http="h11", loop="asyncio", lifespan="off")
        config.load()
        state = ServerState()
        return GuardedH11(config=config, server_state=state, app_state={}, limits=limits_for("test")), state

    protocol, state = asyncio.run(made())
    assert protocol.connections is state.connections
    assert protocol.cycle is None and protocol.conn.their_state is not None and protocol.loop is not None


needs_prlimit = pytest.mark.skipif(not Path("/usr/bin/prlimit").exists(), reason="needs prlimit (util-linux)")


UNIT_NOFILE = int(re.search(r"^LimitNOFILE=(\d+)$", (ROOT / "systemd" / "cribbage-board-web.service").read_text(),
                             re.MULTILINE).group(1))  # the web unit's own


DEFAULT_NOFILE = 1024  # systemd's default soft limit, should the unit's setting be dropped


IDLE = 1100


HALF_SENT = 200


def address(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


def answered(base: str, path: str = "/api/state") -> bytes:
    """The status line of a real request on a new connection (waited for up to CEILING_S)."""
    with socket.create_connection(address(base), timeout=CEILING_S) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        return sock.makefile("rb").readline()


def closed_by_the_server(socks: list[socket.socket], timeout: float = CEILING_S) -> int:
    """How many of ``socks`` the server closed (end of file or reset) within ``timeout``."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    closed, deadline = 0, time.monotonic() + timeout
    while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            try:
                if key.fileobj.recv(4096):
                    continue  # an answer (503) before the close
            except OSError:
                pass
            selector.unregister(key.fileobj)
            closed += 1
    selector.close()
    return closed


@pytest.fixture
def ledger(tmp_path):
    path = tmp_path / "ledger.sqlite3"
    with LedgerWriter(path) as store:
        write_games(store, match_records(2))
    return path


@needs_prlimit
@pytest.mark.slow
@pytest.mark.parametrize("nofile", [UNIT_NOFILE, DEFAULT_NOFILE], ids=["unit", "default"])
def test_a_real_request_is_answered_while_idle_and_half_sent_connections_are_held(ledger, tmp_path, nofile):
    """1,100 idle connections and 200 half-sent requests held against a server with the unit's
    LimitNOFILE (the deadline closes them) or systemd's default 1,024 (the cap closes the oldest
    too): a real request is answered, every held connection is closed by the server, and the log
    says so in a few lines without a traceback (how soon: bench/web_load.py)."""
    log = tmp_path / "web.log"
    held = []
    began = time.monotonic()
    try:
        with web_server(ledger, wrap=("prlimit", f"--nofile={nofile}:{nofile}"), log=log) as base:
            for _ in range(IDLE):
                held.append(socket.create_connection(address(base), timeout=CEILING_S))
            for _ in range(HALF_SENT):
                sock = socket.create_connection(address(base), timeout=CEILING_S)
                sock.sendall(b"GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slowly: ")
                held.append(sock)
            assert answered(base).startswith(b"HTTP/1.1 200")
            assert closed_by_the_server(held) == len(held)
            assert answered(base, "/").startswith(b"HTTP/1.1 200")
    finally:
        for sock in held:
            sock.close()
    lines = log.read_text().splitlines()
    assert not [line for line in lines if "Traceback" in line or "accept()" in line]
    assert len(lines) <= 2 + (time.monotonic() - began) / 5, lines  # a line every 5 s at most


def received(sock: socket.socket, until: bytes) -> bytes:
    """What ``sock`` receives until ``until`` is in it or the server closes it (a ceiling of CEILING_S)."""
    data = b""
    while until not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


@needs_prlimit
@pytest.mark.slow
def test_when_every_connection_is_busy_a_new_one_is_refused_at_once(ledger, tmp_path):
    """With as many live streams open as the cap allows (128 descriptors here, the streams from many
    devices: one device may hold only STREAMS_PER_CLIENT), another connection gets 503 and one line at once, and the streams go on: an entry reaches every one of them."""
    log = tmp_path / "web.log"
    streams = []
    try:
        with web_server(ledger, wrap=("prlimit", "--nofile=128:128"), log=log) as base:
            while True:
                device = ("127.0.1.%d" % (1 + len(streams) // STREAMS_PER_CLIENT), 0)  # a few streams a device
                sock = socket.create_connection(address(base), timeout=CEILING_S, source_address=device)
                sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                answer = received(sock, b"\n\n")  # the headers and the board's first event, or a refusal
                if not answer.startswith(b"HTTP/1.1 200"):
                    break
                streams.append(sock)
                assert len(streams) < 128
            sock.close()
            assert answer.startswith(b"HTTP/1.1 503") and answer.endswith(b"\r\n\r\ntoo many connections: try again in a moment\n")
            with LedgerWriter(ledger) as store:
                write_games(store, [["game six-card seats=Cat,Dan dealer=Dan"]])
            assert all(b'"Cat"' in received(sock, b'"Cat"') for sock in streams)
    finally:
        for sock in streams:
            sock.close()
    assert "refused" in log.read_text() and "Traceback" not in log.read_text()


@needs_prlimit
@pytest.mark.slow
def test_a_kept_alive_connection_has_its_deadline_from_the_end_of_each_answer(ledger):
    """A connection that asks again within REQUEST_SECONDS of each answer is kept, however long it lives;
    one that then sends nothing, or half a request, is closed REQUEST_SECONDS after its last answer at the
    earliest (one timer a connection, not one a request: firmware.server.connections)."""
    from firmware.server.connections import REQUEST_SECONDS

    with web_server(ledger) as base:
        with socket.create_connection(address(base), timeout=CEILING_S) as sock:
            reader = sock.makefile("rb")
            began = answered_at = asked_at = time.monotonic()
            while asked_at - began < REQUEST_SECONDS * 1.1:  # until it asks past the first deadline: kept
                time.sleep(REQUEST_SECONDS / 5)
                asked_at = time.monotonic()
                sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert reader.readline().startswith(b"HTTP/1.1 200"), "closed though it asked in time"
                length = 0
                while (line := reader.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                reader.read(length)
                answered_at = time.monotonic()
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slowly: ")  # half a request
            assert closed_by_the_server([sock]) == 1
            assert time.monotonic() - answered_at >= REQUEST_SECONDS * 0.5  # not from an earlier wait

"""The connections the board's web view and the club hub keep: a whole request within a few
seconds, never more connections than file descriptors, and a log that says so in a line, not a flood.

:class:`GuardedH11` is uvicorn's protocol with both limits, :func:`limits_for` the cap and
:func:`server` uvicorn set up so.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import resource
import time
from dataclasses import dataclass, field

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_SECONDS = 5  # a connection has this long to send a whole request
LOG_EVERY_SECONDS = 5.0  # at most one line about connections this often
RESERVED_FDS = 32  # descriptors kept for stdio, the listening socket, the event loop and SQLite's files
# Connections the kernel holds until they are accepted (capped by net.core.somaxconn, 4096 by
# default): a full queue drops SYNs, and the client tries again a second later. At 1,024 a
# flood of 1,300 connections can fill it, and a real request then waits a second more.
LISTEN_QUEUE = 4096
WAITING = (h11.IDLE, h11.SEND_BODY)  # the client's states before its request is whole
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"content-length: 44\r\nconnection: close\r\n\r\ntoo many connections: try again in a moment\n")

log = logging.getLogger("uvicorn.error.connections")


class Summary:
    """What happened to connections, said in one line at most every LOG_EVERY_SECONDS."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.counts: dict[str, int] = {}
        self._said_at = -LOG_EVERY_SECONDS
        self._pending: asyncio.TimerHandle | None = None

    def note(self, what: str) -> None:
        """Count one ``what`` (a key of ``_TEXTS``); the line follows within LOG_EVERY_SECONDS."""
        self.counts[what] = self.counts.get(what, 0) + 1
        if self._pending is None:
            wait = max(0.0, self._said_at + LOG_EVERY_SECONDS - time.monotonic())
            self._pending = asyncio.get_running_loop().call_later(wait, self.say)

    def say(self) -> None:
        self._pending, self._said_at = None, time.monotonic()
        counts, self.counts = self.counts, {}
        line = "; ".join(_TEXTS[what].format(n=n, limits=self.limits) for what, n in counts.items())
        routine = set(counts) == {"slow"}  # phones leave unused connections: said only at --log-level info
        log.log(logging.INFO if routine else logging.WARNING, "%s: %s", self.limits.command, line)


_TEXTS = {
    "slow": "closed {n} connection(s) that sent no whole request within " f"{REQUEST_SECONDS:g} s",
    "room": "closed {n} idle connection(s) to stay at {limits.cap} open (RLIMIT_NOFILE {limits.nofile})",
    "refused": "refused {n} connection(s) with 503: {limits.cap} open and none idle",
    "accept": "out of file descriptors (RLIMIT_NOFILE {limits.nofile}): new connections wait ({n} time(s))",
    "invalid": "answered {n} malformed request(s) with 400 or closed them",
}


@dataclass
class Limits:
    """What the connections of one server share: the cap, those waiting for a request (oldest first), the log."""

    command: str  # who the log's lines are from: "cribbage-board web", "cribbage-board hub"
    nofile: int  # the process's soft RLIMIT_NOFILE
    cap: int  # open connections at most
    backlog: int  # connections accepted in one go
    waiting: dict = field(default_factory=dict)  # GuardedH11 -> None, in the order they began to wait
    summary: Summary = field(init=False)

    def __post_init__(self):
        self.summary = Summary(self)


def limits_for(command: str, nofile: int | None = None) -> Limits:
    """The limits for ``command``'s server in a process that may open ``nofile`` descriptors (its
    soft RLIMIT_NOFILE by default): up to a sixteenth of them accepted in one go, and the cap low enough that
    three such bursts still find descriptors before the oldest idle connections are closed.

    Open connections are capped below the process's RLIMIT_NOFILE (:func:`limits_for`):
    one over the cap closes the connection that has waited longest for a request,
    or, if every connection is busy, is refused with 503. So a crowd of idle or
    half-sent connections cannot stop a real request from being answered, and
    ``accept()`` never runs out of descriptors. :func:`server` is uvicorn set up so.
    """
    if nofile is None:
        nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if nofile == resource.RLIM_INFINITY:
            nofile = 65536
    backlog = max(4, min(128, nofile // 16))
    return Limits(command, nofile, max(1, nofile - RESERVED_FDS - 3 * backlog), backlog)


def protocol(limits: Limits):
    """The protocol factory for uvicorn's ``Config(http=...)``."""
    return functools.partial(GuardedH11, limits=limits)


def server(app, command: str, log_level: str = "warning") -> Server:
    """The uvicorn server for ``app`` of ``command`` (its log's name), its connections guarded as the
    module says; run it with ``server.run(sockets=[sock])`` on a socket bound beforehand."""
    limits = limits_for(command)
    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="off", http=protocol(limits),
                            loop="asyncio", ws="none", timeout_graceful_shutdown=1, server_header=False,
                            backlog=limits.backlog, timeout_keep_alive=REQUEST_SECONDS)
    quiet_logs(limits)
    return Server(config)


class Server(uvicorn.Server):
    """uvicorn's server, its listening sockets' queue widened to LISTEN_QUEUE once it serves:
    asyncio takes ``Config(backlog=...)`` both as the queue and as how many connections it
    accepts in one go, and only the second must stay small."""

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        for sock in sockets or ():
            sock.listen(LISTEN_QUEUE)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request, a cap on connections, and a
    request that breaks the protocol mid-answer closed quietly (see below).

    uvicorn's h11 protocol keeps a connection that never sends a whole request open
    for ever: its keep-alive timer starts only after a response, and any byte stops
    it. :class:`GuardedH11` gives each connection REQUEST_SECONDS from its start (and
    from the end of each answer) to send a whole request, then closes it; once it
    has, the answer may take as long as it takes (``/events`` never ends).

    uvicorn has no public setting for either, so :class:`GuardedH11` overrides methods of
    its private ``H11Protocol``: pyproject.toml pins uvicorn to the versions whose source
    was read against it, and ``tests/test_connections.py`` fails if that source changes.
    """

    def __init__(self, *args, limits: Limits, **kwargs):
        super().__init__(*args, **kwargs)
        self.limits = limits
        # While the connection waits for a request: when it must have sent it (loop time), and one
        # timer that looks then. A request that comes only clears ``_due``, and the next wait only
        # sets it: the timer is made again when it finds a later one, at most once a REQUEST_SECONDS,
        # not once a request, whose timer made and cancelled would cost each page (bench/README.md).
        self._due: float | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._refused = False

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        if len(self.connections) > self.limits.cap and not self._make_room():
            self._refuse()
            return
        self._wait_for_request()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # read and dropped: closing with unread data would reset the 503 away
        super().data_received(data)
        if self._due is not None and self.conn.their_state not in WAITING:
            self._stop_waiting()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._due is None and not self.transport.is_closing() and self.conn.their_state in WAITING:
            self._wait_for_request()

    def connection_lost(self, exc) -> None:
        self._stop_waiting()
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request that does not parse: 400 if no answer was begun, else the connection is
        closed; the handler of a request in progress answers into nothing (no traceback)."""
        self.limits.summary.note("invalid")
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
        try:
            super().send_400_response(msg)
        except h11.LocalProtocolError:  # an answer was begun or sent: no 400 can follow it
            self.transport.close()

    def _refuse(self) -> None:
        """503 and one line at once, then our end closed; the connection ends when the client
        closes its end (or is dropped after REQUEST_SECONDS)."""
        self.limits.summary.note("refused")
        self._refused = True
        self.transport.write(BUSY)
        self.transport.write_eof()
        self._deadline = self.loop.call_later(REQUEST_SECONDS, self.transport.abort)

    def _wait_for_request(self) -> None:
        self.limits.waiting[self] = None
        self._due = self.loop.time() + REQUEST_SECONDS
        if self._deadline is None:
            self._deadline = self.loop.call_at(self._due, self._look)

    def _stop_waiting(self) -> None:
        self.limits.waiting.pop(self, None)
        self._due = None  # the timer, if any, finds nothing due

    def _look(self) -> None:
        """The timer: too slow if the request is still due, else wait for a later due time, if any."""
        self._deadline = None
        if self._due is None:
            return
        if self.loop.time() < self._due:
            self._deadline = self.loop.call_at(self._due, self._look)
            return
        self._too_slow()

    def _too_slow(self) -> None:
        self._due = None
        self.limits.waiting.pop(self, None)
        self.limits.summary.note("slow")
        self.transport.abort()

    def _make_room(self) -> bool:
        """Close the connection that has waited longest for a request; False if none waits."""
        oldest = next(iter(self.limits.waiting), None)
        if oldest is None:
            return False
        oldest._stop_waiting()  # its timer goes with its connection (connection_lost)
        oldest.transport.abort()
        self.limits.summary.note("room")
        return True


class QuietLog(logging.Filter):
    """Turns log records that come by the hundred under a flood (asyncio's accept() out of
    descriptors with its traceback, uvicorn's "Invalid HTTP request received.") into counts
    in the connections' summary line."""

    def __init__(self, limits: Limits):
        super().__init__()
        self.limits = limits

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if message.startswith("socket.accept() out of system resource"):
            self.limits.summary.note("accept")
            return False
        return message != "Invalid HTTP request received."  # counted in send_400_response


def quiet_logs(limits: Limits) -> None:
    """Install :class:`QuietLog` on the loggers that would flood."""
    for name in ("asyncio", "uvicorn.error"):
        logging.getLogger(name).addFilter(QuietLog(limits))

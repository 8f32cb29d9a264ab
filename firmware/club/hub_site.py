"""The hub's web server: /club for the room's TV, its events, the JSON API and the night's CSV.

Read-only (GET and HEAD; 405 for anything else), with security headers and a
Content-Security-Policy on every answer. Every route reads the hub's latest
snapshot, an immutable value the writer thread puts in place: no request waits
for the broker or the ledger's writer. Connections are bounded: a connection
has ``REQUEST_S`` to send a whole request (then it is closed), an idle
keep-alive ends after ``KEEP_ALIVE_S``, and at most ``MAX_CONNECTIONS`` are
served at once (beyond that, 503).
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import h11
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from .. import HUB_PORT, listen
from . import hub_pages as pages

HERE = Path(__file__).resolve().parent
READ_METHODS = ("GET", "HEAD")
KEEPALIVE_EVENT_S = 15.0  # a comment on /club/events this often keeps proxies from closing it
REQUEST_S = 10.0
KEEP_ALIVE_S = 5
MAX_CONNECTIONS = 200
SECURITY_HEADERS = (
    (b"content-security-policy", pages.CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
)


class HubServerError(Exception):
    """The hub's web server cannot start; the message says what to do."""


class Rendered:
    """The page, its event and the CSV of one snapshot, made once whoever asks."""

    def __init__(self, hub):
        self.hub = hub
        self._made: dict[str, tuple[int, object]] = {}

    def get(self, what: str, make):
        snap = self.hub.snapshot
        hit = self._made.get(what)
        if hit is None or hit[0] != snap.version:
            hit = (snap.version, make(snap))
            self._made[what] = hit
        return hit[1]


class Changes:
    """Wakes the event streams on the server's loop when the hub has a new snapshot (from any thread)."""

    def __init__(self):
        self.loop: asyncio.AbstractEventLoop | None = None
        self.event: asyncio.Event | None = None

    def bind(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()

    def wake(self) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._swap)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def _swap(self) -> None:
        old, self.event = self.event, asyncio.Event()
        old.set()


def create_app(hub) -> Starlette:
    """The hub's web app over ``hub`` (anything with a ``snapshot`` and ``listen``)."""
    rendered = Rendered(hub)
    changes = Changes()
    hub.listen(changes.wake)

    async def home(request: Request):
        return RedirectResponse("/club", status_code=307)

    async def club(request: Request):
        return Response(rendered.get("page", pages.page), media_type="text/html; charset=utf-8")

    async def asset(request: Request):
        name = request.path_params["name"]
        kind = {"club.css": "text/css; charset=utf-8", "club.js": "text/javascript; charset=utf-8"}[name]
        return Response(ASSETS[name], media_type=kind)

    async def events(request: Request):
        if changes.loop is None:
            changes.bind()
        return StreamingResponse(_events(rendered, changes, request), media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    async def api_standings(request: Request):
        scope = request.query_params.get("scope", "night")
        if scope not in ("night", "season"):
            return JSONResponse({"error": "scope is night or season"}, status_code=400)
        snap = hub.snapshot
        return JSONResponse(pages.standings_list(snap.season if scope == "season" else snap.view.standings))

    async def api_rounds(request: Request):
        return JSONResponse(rendered.get("rounds", lambda snap: pages.rounds_dict(snap.view)))

    async def night_csv(request: Request):
        snap = hub.snapshot
        text = rendered.get("csv", lambda snap: pages.night_csv(snap.view))
        name = "".join(c if c.isalnum() or c in "-_" else "_" for c in f"{snap.club}-{snap.view.night.name}")
        return Response(text, media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'})

    routes = [
        Route("/", home, methods=READ_METHODS),
        Route("/club", club, methods=READ_METHODS),
        Route("/club/events", events, methods=READ_METHODS),
        Route("/club/night.csv", night_csv, methods=READ_METHODS),
        Route("/club/{name:path}", _asset_or_404(asset), methods=READ_METHODS),
        Route("/api/club/standings", api_standings, methods=READ_METHODS),
        Route("/api/club/rounds", api_rounds, methods=READ_METHODS),
    ]
    return Guard(Starlette(routes=routes))


ASSETS = {name: (HERE / name).read_bytes() for name in ("club.css", "club.js")}


def _asset_or_404(handler):
    async def route(request: Request):
        if request.path_params["name"] not in ASSETS:
            return PlainTextResponse("not found\n", status_code=404)
        return await handler(request)
    return route


async def _events(rendered: Rendered, changes: Changes, request: Request):
    """The live part as server-sent events: one at once, then one for each new snapshot."""
    sent = None
    while True:
        waiter = changes.event
        version = rendered.hub.snapshot.version
        if version != sent:
            sent = version
            data = rendered.get("event", lambda snap: json.dumps(pages.event_data(snap), separators=(",", ":")))
            yield f"event: message\ndata: {data}\n\n"
            continue
        if await request.is_disconnected():
            return
        try:
            await asyncio.wait_for(waiter.wait(), KEEPALIVE_EVENT_S)
        except asyncio.TimeoutError:
            yield ": keep-alive\n\n"


class Guard:
    """ASGI middleware: 405 for any method but GET and HEAD; the security headers on every answer."""

    def __init__(self, app):
        self.app = app
        self._read_only = PlainTextResponse("read-only: this server only answers GET and HEAD\n", status_code=405,
                                            headers={"Allow": ", ".join(READ_METHODS)})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
            await send(message)

        if scope["method"] not in READ_METHODS:
            await self._read_only(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


class DeadlineH11(H11Protocol):
    """uvicorn's h11 protocol, but a connection that has not sent a whole request within
    REQUEST_S of opening (or of its last answer) is closed: a crowd of idle or half-sent
    connections cannot hold the server (uvicorn's own keep-alive timer starts only after an answer)."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._deadline = self.loop.call_later(REQUEST_S, self._too_slow)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._deadline is not None and self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._deadline.cancel()
            self._deadline = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._deadline is None and not self.transport.is_closing():
            self._deadline = self.loop.call_later(REQUEST_S, self._too_slow)

    def connection_lost(self, exc) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; HubServerError, in one line, if it cannot be had."""
    try:
        return listen.bind(host, port, "hub", HUB_PORT)
    except listen.ListenError as error:
        raise HubServerError(str(error)) from None


def server(app, log_level: str = "warning"):
    """The uvicorn server for ``app`` (run it with ``server.run(sockets=[sock])``)."""
    import uvicorn

    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="off", http=DeadlineH11,
                            loop="asyncio", ws="none", timeout_graceful_shutdown=1, server_header=False,
                            timeout_keep_alive=KEEP_ALIVE_S, limit_concurrency=MAX_CONNECTIONS)
    return uvicorn.Server(config)

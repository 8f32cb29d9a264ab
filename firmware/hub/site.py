"""The hub's web server: /club for the room's TV, its events, the JSON API and the night's CSV.

Read-only, guarded as the board's web view is (:mod:`firmware.server.guard`, :mod:`firmware.server.connections`);
every route reads the hub's latest snapshot (:func:`create_app`).
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from scorer.errors import CribbageBoardError

from .. import HUB_PORT
from ..server import connections, listen
from ..server.compression import Compressed
from ..server.guard import READ_METHODS, Guard, security_headers, served_names
from . import pages

HERE = Path(__file__).resolve().parent
KEEPALIVE_EVENT_S = 15.0  # a comment on /club/events this often keeps proxies from closing it
# After each send a viewer waits its share of the bandwidth (at least EVENT_GAP_S): a quiet night's change
# goes at once, a busy one's are gathered into fewer events (ten phones at 2 Mbit/s each: a Zero 2 W's Wi-Fi).
# A new round at a regional event (1,000 cards, several events) waits no more than EVENT_GAP_MAX_S.
EVENT_GAP_S = 0.02
EVENT_GAP_MAX_S = 0.25
VIEWER_BYTES_S = 256 * 1024
SECURITY_HEADERS = security_headers(pages.CONTENT_SECURITY_POLICY,
                                    (b"x-frame-options", b"DENY"), (b"cache-control", b"no-store"))


class HubServerError(CribbageBoardError, OSError):
    """The hub's web server cannot start; the message says what to do."""


class Rendered:
    """What the viewers are sent of each snapshot, made once whoever asks: the page, its snapshot event,
    the CSV, the rounds, its layout (:class:`~firmware.hub.pages.Layout`) and the change since a version."""

    def __init__(self, hub):
        self.hub = hub
        self._made: dict[str, tuple[object, Any]] = {}  # what -> (its key, what was made)

    def get(self, what: str, make, snap=None):
        """``make(snap)`` for the latest snapshot (or ``snap``), made once for its version."""
        snap = snap or self.hub.snapshot
        hit = self._made.get(what)
        if hit is None or hit[0] != snap.version:
            hit = (snap.version, make(snap))
            self._made[what] = hit
        return hit[1]

    def delta(self, base: int, snap, shown) -> list[bytes]:
        """The events that take a viewer from snapshot ``base`` to ``snap``."""
        key = (base, snap.version)
        hit = self._made.get("delta")
        if hit is None or hit[0] != key:
            layout = self.get("layout", self._layout, snap)
            hit = (key, pages.delta_events(layout, base, shown))
            self._made["delta"] = hit
        return hit[1]

    def _layout(self, snap) -> pages.Layout:
        """``snap``'s layout, from the one before when the hub can say what changed since (see Layout.after)."""
        hit = self._made.get("layout")
        if hit is not None and hit[0] < snap.version:
            _, shown = self.hub.since(hit[0])
            if shown is not None:
                return hit[1].after(snap, shown)
        return pages.Layout(snap)


class Changes:
    """Wakes the event streams on the server's loop when the hub has a new snapshot (from any thread)."""

    def __init__(self):
        self.loop: asyncio.AbstractEventLoop | None = None
        self.event: asyncio.Event | None = None
        self._woken = False

    def bind(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()

    def wake(self) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed() and not self._woken:
            self._woken = True  # once until the loop takes it: a batch's snapshots wake it once
            try:
                loop.call_soon_threadsafe(self._swap)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def _swap(self) -> None:
        self._woken = False
        old, self.event = self.event, asyncio.Event()
        if old is not None:
            old.set()


def create_app(hub, host_names=()) -> Compressed:
    """The hub's web app over ``hub`` (anything with a ``snapshot`` and ``listen``); it answers to
    localhost, IP literals, this machine's hostname, ``*.local`` and ``host_names`` (--host).

    Read-only (GET and HEAD; 405 for anything else), only for a Host that can be this
    machine (421 for any other: DNS rebinding gets nothing), with security headers and a
    Content-Security-Policy on every answer (:mod:`firmware.server.guard`). Every route reads
    the hub's latest snapshot, an immutable value the writer thread puts in place: no
    request waits for the broker or the ledger's writer. Connections are bounded as the
    board's web view's are (:mod:`firmware.server.connections`): a whole request within a few
    seconds, open connections capped below RLIMIT_NOFILE (503 when all are busy), a log
    that says so in a line.
    """
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
    return Compressed(Guard(Starlette(routes=routes), served_names(host_names), SECURITY_HEADERS, "this hub"))


ASSETS = {name: (HERE / name).read_bytes() for name in ("club.css", "club.js")}


def _asset_or_404(handler):
    async def route(request: Request):
        if request.path_params["name"] not in ASSETS:
            return PlainTextResponse("not found\n", status_code=404)
        return await handler(request)
    return route


async def _events(rendered: Rendered, changes: Changes, request: Request):
    """The live part as server-sent events: the whole of it at once (``snapshot``), then what changed
    (``delta``), each after the viewer's share of the bandwidth since the last: what changes in between
    goes in the next. A viewer too far behind to say what changed (it read too slowly) gets the whole of
    it again."""
    sent = None
    while True:
        waiter = changes.event
        if waiter is None:
            raise RuntimeError("the club's events were asked for before the server's loop ran")
        snap, shown = rendered.hub.since(sent) if sent is not None else (rendered.hub.snapshot, None)
        if snap.version != sent:
            size = 0
            if shown is None:
                data = rendered.get("event", lambda snap: pages.dumps(pages.event_data(snap)), snap)
                size += len(data)
                yield b"event: snapshot\ndata: " + data + b"\n\n"
            else:
                for data in rendered.delta(sent, snap, shown):
                    size += len(data)
                    yield b"event: delta\ndata: " + data + b"\n\n"
            sent = snap.version
            await asyncio.sleep(min(max(EVENT_GAP_S, size / VIEWER_BYTES_S), EVENT_GAP_MAX_S))
            continue
        if await request.is_disconnected():
            return
        try:
            await asyncio.wait_for(waiter.wait(), KEEPALIVE_EVENT_S)
        except asyncio.TimeoutError:
            yield b": keep-alive\n\n"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; HubServerError, in one line, if it cannot be had."""
    try:
        return listen.bind(host, port, "hub", HUB_PORT)
    except listen.ListenError as error:
        raise HubServerError(str(error)) from None


def server(app, log_level: str = "warning"):
    """The uvicorn server for ``app`` (run it with ``server.run(sockets=[sock])``)."""
    return connections.server(app, "cribbage-board hub", log_level)

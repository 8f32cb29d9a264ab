"""The web server: Starlette routes over the ledger, read-only, with server-sent events.

:func:`create_app` maps each path to its route: the fixed files are functions here, and
what reads the ledger is a method of :class:`WebView`, which holds what those routes share.
Every route reads on the server's event loop thread (SQLite reads of one game take a
millisecond or two), so one read-only connection serves them all. The board's page is
composed once per change of the ledger, and one watcher feeds every ``/events`` client.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.templating import Jinja2Templates
from starlette.types import Receive, Scope, Send

from ..server.compression import Compressed
from ..server.guard import READ_METHODS, Guard, security_headers, served_names
from . import pages
from .board import PALETTES
from .feed import LiveFeed
from .follow import LedgerFollower, LedgerUnavailable
from .icon import app_icon, favicon
from .phones import PHONE_WRITES, PhoneRoutes
from .qr import MARK, PhoneLink
from .render import ENV
from .site import Site

if TYPE_CHECKING:
    from hardware.layout import Layout
    from ledger.rows import GameRow, GameTimes

    from .records import Played

EVENT_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
SCRIPT_HEADERS = {"Cache-Control": "public, max-age=31536000, immutable"}  # its address names its hash
ICON_HEADERS = {"Cache-Control": "public, max-age=86400"}
QR_MARK = MARK.encode()
SECURITY_HEADERS = security_headers(pages.CONTENT_SECURITY_POLICY)
HTML = "text/html; charset=utf-8"
PAGE_HEADERS = ((b"content-type", HTML.encode()),)
PAGE_KEYS = ("before", "after")  # what chooses a page of /games: one of them, a game's number
TEMPLATES = Jinja2Templates(env=ENV)  # the pages rendered for one request


class ASGIEndpoint:
    """A coroutine function as an ASGI app of a route (a function would be given a Request)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)


class InPalette:
    """ASGI middleware: every page opens in a palette of the LEDs (:func:`.pages.in_palette`), its length
    said again: the browser's own choice (the cookie palette.js sets), else the config's. Any other
    answer passes as it is."""

    def __init__(self, app, palette: str):
        self.app = app
        self.palette = palette

    def chosen(self, scope) -> str:
        """The palette a request's cookie names, if the pages have it; else the config's."""
        for key, value in scope["headers"]:
            if key == b"cookie":
                for pair in value.decode("latin-1").split(";"):
                    name, _, chosen = pair.strip().partition("=")
                    if name == pages.PALETTE_COOKIE and chosen in PALETTES:
                        return chosen
        return self.palette

    async def __call__(self, scope, receive, send):
        palette = self.chosen(scope) if scope["type"] == "http" else "standard"
        if palette == "standard":
            await self.app(scope, receive, send)
            return
        held: list = []  # a page's start, sent with its body's new length

        async def send_in_palette(message):
            if message["type"] == "http.response.start":
                if any(key == b"content-type" and value.startswith(b"text/html") for key, value in message["headers"]):
                    held.append(message)
                    return
            elif held and message["type"] == "http.response.body":
                start = held.pop()
                body = pages.in_palette(message.get("body", b""), palette)
                headers = [(key, str(len(body)).encode() if key == b"content-length" else value)
                           for key, value in start["headers"]]
                await send({**start, "headers": headers})
                message = {**message, "body": body}
            await send(message)

        await self.app(scope, receive, send_in_palette)


class GameId(Convertor):
    """A game id in a path: up to 18 digits (a longer number is no game: 404, never a
    conversion error)."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("game_id", GameId())


class Composed(NamedTuple):
    """The board's page as last sent: the board's bytes and the QR code's it was composed of, the whole
    page and its headers."""

    board: bytes
    code: str
    body: bytes
    headers: list[tuple[bytes, bytes]]


def page_asked(query: str) -> tuple[int | None, int | None] | str:
    """(before, after) of a query of ``/games`` (None for the one not given, both for the newest page);
    a line saying what is wrong with it, for a 400, if it asks for a page in another way."""
    given = [(key, value) for key, value in parse_qsl(query, keep_blank_values=True) if key in PAGE_KEYS]
    if not given:
        return None, None
    if len(given) > 1:
        return "a page of games takes one of before= and after=, once: e.g. /games?before=120"
    key, value = given[0]
    if not (value.isascii() and value.isdigit() and len(value) <= 18):
        return f"{key}= takes a game's number (up to 18 digits), not {value[:20]!r}: e.g. /games?{key}=120"
    number = int(value)
    return (number, None) if key == "before" else (None, number)


def _authority(scope: Scope) -> str:
    """The Host a request names ("" without one)."""
    return next((value.decode("latin-1") for key, value in scope["headers"] if key == b"host"), "")


async def script(request: Request) -> Response:
    """``/live.js``: the script that swaps in the board the events send."""
    return Response(pages.SCRIPT, media_type="text/javascript; charset=utf-8", headers=SCRIPT_HEADERS)


async def phone_script(request: Request) -> Response:
    """``/phone.js``: the paired phone's script."""
    return Response(pages.PHONE_SCRIPT, media_type="text/javascript; charset=utf-8", headers=SCRIPT_HEADERS)


async def palette_script(request: Request) -> Response:
    """``/palette.js``: the choice of palette at the foot of each page."""
    return Response(pages.PALETTE_SCRIPT, media_type="text/javascript; charset=utf-8", headers=SCRIPT_HEADERS)


async def service_worker(request: Request) -> Response:
    """``/sw.js``: the installed app's service worker, looked at again on every visit."""
    return Response(pages.SERVICE_WORKER, media_type="text/javascript; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})


async def manifest(request: Request) -> Response:
    """``/manifest.webmanifest``: what a phone needs to install the view as an app."""
    return Response(pages.manifest(), media_type="application/manifest+json", headers=ICON_HEADERS)


async def app_icon_192(request: Request) -> Response:
    """``/icon-192.png``: the installed app's small icon."""
    return Response(app_icon(192), media_type="image/png", headers=ICON_HEADERS)


async def app_icon_512(request: Request) -> Response:
    """``/icon-512.png``: the installed app's large icon."""
    return Response(app_icon(512), media_type="image/png", headers=ICON_HEADERS)


async def icon(request: Request) -> Response:
    """``/favicon.ico``: the browser tab's icon."""
    return Response(favicon(), media_type="image/x-icon", headers=ICON_HEADERS)


async def awake_video(request: Request) -> Response:
    """``/awake.webm``, ``/awake.mp4``: a silent video a phone keeps playing to keep its screen on where
    the page has no Wake Lock (plain http); served in byte ranges, as phones ask for video."""
    name = request.url.path.lstrip("/")
    return FileResponse(pages.HERE / name, media_type=f"video/{name.rsplit('.', 1)[1]}", headers=ICON_HEADERS)


async def offline(request: Request) -> Response:
    """``/offline``: the page the service worker shows when the server cannot be reached."""
    return TEMPLATES.TemplateResponse(request, "offline.html")


class WebView:
    """The routes that read the ledger ``follower`` follows, and what they share.

    ``site`` gathers what the pages show and ``feed`` sends the live board to every
    ``/events`` client; ``phones`` relays a paired phone's requests to the board
    listening on ``board_socket``. ``links`` holds the QR code's maker for each port
    the view is reached on (the one of ``listen`` made at once). The board's page
    is read at most once a turn of the event loop (``turn``) and composed with its
    QR code once per change of either (``composed``).
    """

    def __init__(self, follower: LedgerFollower, layout: Layout | None = None,
                 listen: tuple[str, int] | None = None, board_socket: Path | None = None):
        self.follower = follower
        self.site = Site(follower, layout)
        self.feed = LiveFeed(self.site, board_socket)
        self.links: dict[int, PhoneLink] = {}
        if listen is not None:
            self.links[listen[1]] = PhoneLink(*listen)
        self.turn: bytes | None = None  # the board's page read this turn of the event loop
        self.composed: Composed | None = None  # the board's page as last sent
        self.phones = PhoneRoutes(board_socket, TEMPLATES)

    # ---- the live board ----------------------------------------------------------

    async def board(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``/`` as a plain ASGI app (no Request or Response object made per request): the board's
        page, with its QR code, composed once per change of either, its headers with it."""
        code = self._link(scope).html(scope["scheme"], _authority(scope))
        page = self._board_this_turn()
        composed = self.composed
        if composed is None or composed.board is not page or composed.code is not code:
            whole = page.replace(QR_MARK, code.encode(), 1)  # composed once a change, not once a request
            composed = self.composed = Composed(page, code, whole,
                                                [*PAGE_HEADERS, (b"content-length", str(len(whole)).encode())])
        await send({"type": "http.response.start", "status": 200, "headers": composed.headers})
        await send({"type": "http.response.body", "body": composed.body})  # uvicorn leaves it out for HEAD

    def _link(self, scope: Scope) -> PhoneLink:
        """The QR code's maker for the port the request came in on (every address of it, if new)."""
        port = scope["server"][1] if scope.get("server") else 0
        return self.links.get(port) or self.links.setdefault(port, PhoneLink("0.0.0.0", port))

    def _board_this_turn(self) -> bytes:
        """The board's page, read from the site once a turn of the event loop and forgotten the next:
        requests that arrived together (read from their sockets before any of them ran) share one
        look at the ledger, which is as fresh for each of them."""
        page = self.turn
        if page is None:
            page = self.turn = self.site.board_page()
            asyncio.get_running_loop().call_soon(self._next_turn)
        return page

    def _next_turn(self) -> None:
        """Forget the page read this turn: the next request reads the ledger again."""
        self.turn = None

    async def api_state(self, request: Request) -> Response:
        """``/api/state``: the current game as ``replay --json`` gives it; 503 while the ledger is away."""
        snap = self.follower.snapshot()
        if snap.state is None:
            return JSONResponse({"error": snap.problem}, status_code=503)
        return JSONResponse(snap.state)

    async def events(self, request: Request) -> Response:
        """``/events``: the live board as server-sent events (for HEAD, the headers alone: a stream
        never ends); 429 for a client that holds STREAMS_PER_CLIENT streams already."""
        if request.method == "HEAD":
            return Response(media_type="text/event-stream", headers=EVENT_HEADERS)
        client = request.client.host if request.client is not None else ""
        if not self.feed.admits(client):
            return PlainTextResponse("too many live views from this device: close one", status_code=429)
        return StreamingResponse(self.feed.stream(client), media_type="text/event-stream", headers=EVENT_HEADERS)

    async def phone_page(self, request: Request) -> Response:
        """``/phone``: the paired seat's page over the live board (:meth:`.phones.PhoneRoutes.phone_page`)."""
        return await self.phones.phone_page(request, self.site.seat_page)

    # ---- the games ---------------------------------------------------------------

    async def games(self, request: Request) -> Response:
        """``/games``: a page of the finished or abandoned games, newest first (``?before=ID``, ``?after=ID``:
        the pages beside it); 400 in one line for a page asked for in another way, 404 in words for one
        past either end, 503 with the reason while the ledger is away."""
        asked = page_asked(request.url.query)
        if isinstance(asked, str):
            return PlainTextResponse(asked + "\n", status_code=400)
        try:
            made = self.site.games_page(*asked)
        except LedgerUnavailable as error:
            return TEMPLATES.TemplateResponse(request, "games.html", pages.games_context([], str(error)), status_code=503)
        return Response(made.body, status_code=made.status, media_type=HTML)

    async def games_csv(self, request: Request) -> Response:
        """``/games.csv``: the games as a spreadsheet's download."""
        try:
            text = self.site.games_csv()
        except LedgerUnavailable as error:
            return PlainTextResponse(str(error) + "\n", status_code=503)
        return Response(text, media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="cribbage-games.csv"'})

    def _one(self, request: Request) -> tuple[GameRow, Played, GameTimes] | None:
        """The game the path names, with its replay and times; None if the ledger has no such game."""
        try:
            return self.site.game(request.path_params["game_id"])
        except KeyError:
            return None

    async def game_page(self, request: Request) -> Response:
        """``/games/ID``: one game's ledger and pegging race; 404 for no such game."""
        try:
            found = self._one(request)
        except LedgerUnavailable as error:
            return TEMPLATES.TemplateResponse(request, "problem.html", {
                "title": "Game", "here": "/games", "message": str(error)}, status_code=503)
        if found is None:
            return TEMPLATES.TemplateResponse(request, "problem.html", {
                "title": "No such game", "here": "/games",
                "message": f"No game {request.path_params['game_id']} in the ledger."}, status_code=404)
        game, played, times = found
        return TEMPLATES.TemplateResponse(request, "game.html", pages.game_context(game, played, times))

    async def game_txt(self, request: Request) -> Response:
        """``/games/ID.txt``: one game's record, which replays to the same state."""
        game_id = request.path_params["game_id"]
        try:
            lines = self.follower.export(game_id)
        except LedgerUnavailable as error:
            return PlainTextResponse(str(error) + "\n", status_code=503)
        except KeyError:
            return PlainTextResponse(f"no game {game_id} in the ledger\n", status_code=404)
        text = "\n".join([f"# game {game_id} from {self.follower.path}"] + lines) + "\n"
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="game-{game_id}.txt"'})

    async def api_games(self, request: Request) -> Response:
        """``/api/games``: every finished or abandoned game as JSON, newest first."""
        try:
            return Response(self.site.api_games(), media_type="application/json")
        except LedgerUnavailable as error:
            return JSONResponse({"error": str(error)}, status_code=503)

    async def api_game(self, request: Request) -> Response:
        """``/api/games/ID``: one game as JSON, with its entries and their times."""
        try:
            found = self._one(request)
        except LedgerUnavailable as error:
            return JSONResponse({"error": str(error)}, status_code=503)
        if found is None:
            return JSONResponse({"error": f"no game {request.path_params['game_id']}"}, status_code=404)
        game, played, times = found
        stamps = times.entries
        entries = [{**item, "at": stamps[item["n"] - 1] if item["n"] - 1 < len(stamps) else None}
                   for item in played.lines]
        return JSONResponse({**game.to_dict(), "started": times.started, "finished": times.finished,
                             "sides": [side.name for side in played.game.sides],
                             "race": played.race, "entries": entries,
                             "problems": played.problems})

    # ---- the statistics ----------------------------------------------------------

    async def stats(self, request: Request) -> Response:
        """``/stats``: each player and partnership, their hands against the distribution of all hands."""
        try:
            return Response(self.site.stats_page(), media_type=HTML)
        except LedgerUnavailable as error:
            return TEMPLATES.TemplateResponse(request, "stats.html", pages.stats_context([], {}, str(error)),
                                              status_code=503)

    async def api_stats(self, request: Request) -> Response:
        """``/api/stats``: the statistics as JSON."""
        try:
            return JSONResponse(self.site.stats())
        except LedgerUnavailable as error:
            return JSONResponse({"error": str(error)}, status_code=503)


def create_app(follower: LedgerFollower, layout: Layout | None = None, host_names=(),
               listen: tuple[str, int] | None = None, board_socket: Path | None = None,
               palette: str = "standard") -> Starlette:
    """The web view of the ledger ``follower`` reads: pages, JSON and events; it writes nothing itself,
    and relays a paired phone's entries to the board listening on ``board_socket`` (:mod:`.phones`).
    It answers requests for localhost, IP literals, ``*.local``, this machine's hostname and
    ``host_names``. ``listen``: the host and port the server listens on, which the board page's
    QR code offers (:class:`.qr.PhoneLink`); every address of the port it is reached on if None.
    ``palette``: the LEDs' palette (config ``leds.palette``), the one the pages open in."""
    view = WebView(follower, layout, listen, board_socket)
    phones = view.phones
    routes = [
        Route("/", ASGIEndpoint(view.board), methods=READ_METHODS),
        Route("/phone.js", phone_script, methods=READ_METHODS),
        Route("/sw.js", service_worker, methods=READ_METHODS),
        Route("/manifest.webmanifest", manifest, methods=READ_METHODS),
        Route("/icon-192.png", app_icon_192, methods=READ_METHODS),
        Route("/icon-512.png", app_icon_512, methods=READ_METHODS),
        Route("/offline", offline, methods=READ_METHODS),
        Route("/awake.webm", awake_video, methods=READ_METHODS),
        Route("/awake.mp4", awake_video, methods=READ_METHODS),
        Route("/live.js", script, methods=READ_METHODS),
        Route("/palette.js", palette_script, methods=READ_METHODS),
        Route("/favicon.ico", icon, methods=READ_METHODS),
        Route("/api/state", view.api_state, methods=READ_METHODS),
        Route("/events", view.events, methods=READ_METHODS),
        Route("/games", view.games, methods=READ_METHODS),
        Route("/games.csv", view.games_csv, methods=READ_METHODS),
        Route("/games/{game_id:game_id}.txt", view.game_txt, methods=READ_METHODS),
        Route("/games/{game_id:game_id}", view.game_page, methods=READ_METHODS),
        Route("/stats", view.stats, methods=READ_METHODS),
        Route("/api/games", view.api_games, methods=READ_METHODS),
        Route("/api/games/{game_id:game_id}", view.api_game, methods=READ_METHODS),
        Route("/api/stats", view.api_stats, methods=READ_METHODS),
        Route("/phone", view.phone_page, methods=READ_METHODS),
        Route("/P/{code}", phones.pair_page, methods=READ_METHODS),
        Route("/pair/{code}", phones.pair_page, methods=READ_METHODS),
        Route("/pair", phones.pair, methods=["POST"]),
        Route("/api/phone/entry", phones.entry, methods=["POST"]),
        Route("/api/phone/unpair", phones.unpair, methods=["POST"]),
        Route("/api/count", phones.count, methods=READ_METHODS),
        Route("/api/coach", phones.coach, methods=READ_METHODS),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(InPalette, palette=palette)
    app.add_middleware(Guard, names=served_names(host_names), headers=SECURITY_HEADERS, who="this board",
                       writes=PHONE_WRITES)
    app.add_middleware(Compressed)  # outermost: what the palette and the guard made, compressed
    app.state.site = view.site
    app.state.feed = view.feed
    return app

"""The web server: Starlette routes over the ledger, read-only, with server-sent events.

Every route reads on the server's event loop thread (SQLite reads of one game
take a millisecond or two), so one read-only connection serves them all.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from scorer.distribution import distribution

from . import pages
from .follow import LedgerFollower, LedgerUnavailable
from .site import Site

if TYPE_CHECKING:  # annotations only
    from hardware.layout import Layout

POLL_SECONDS = 0.05  # how often /events looks for a new entry (well under the 250 ms asked)
KEEPALIVE_SECONDS = 15.0
READ_METHODS = ("GET", "HEAD")


def create_app(follower: LedgerFollower, layout: Layout | None = None) -> Starlette:
    """The web view of the ledger ``follower`` reads: pages, JSON and events; nothing that writes."""
    site = Site(follower, layout)

    async def board(request: Request):
        live = site.live()
        return HTMLResponse(pages.board_page(live["state"], live["problem"], live["recent"],
                                             live["messages"], layout))

    async def api_state(request: Request):
        snap = follower.snapshot()
        if snap.state is None:
            return JSONResponse({"error": snap.problem}, status_code=503)
        return JSONResponse(snap.state)

    async def events(request: Request):
        return StreamingResponse(_events(site), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def games(request: Request):
        try:
            return HTMLResponse(pages.games_page(site.games(), None))
        except LedgerUnavailable as error:
            return HTMLResponse(pages.games_page([], str(error)), status_code=503)

    async def games_csv(request: Request):
        try:
            text = pages.games_csv(site.games())
        except LedgerUnavailable as error:
            return PlainTextResponse(str(error) + "\n", status_code=503)
        return Response(text, media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="cribbage-games.csv"'})

    def _one(request: Request):
        game_id = request.path_params["game_id"]
        try:
            return site.game(game_id)
        except KeyError:
            return None

    async def game_page(request: Request):
        try:
            found = _one(request)
        except LedgerUnavailable as error:
            return HTMLResponse(pages.page("Game", "/games", pages.problem_html(str(error))), status_code=503)
        if found is None:
            return HTMLResponse(pages.page("No such game", "/games",
                                           pages.problem_html(f"No game {request.path_params['game_id']} in the ledger.")),
                                status_code=404)
        game, played, times = found
        return HTMLResponse(pages.game_page(game, played, times))

    async def game_txt(request: Request):
        game_id = request.path_params["game_id"]
        try:
            lines = follower.export(game_id)
        except LedgerUnavailable as error:
            return PlainTextResponse(str(error) + "\n", status_code=503)
        except KeyError:
            return PlainTextResponse(f"no game {game_id} in the ledger\n", status_code=404)
        text = "\n".join([f"# game {game_id} from {follower.path}"] + lines) + "\n"
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="game-{game_id}.txt"'})

    async def api_games(request: Request):
        try:
            return JSONResponse([game.to_dict() for game in site.games()])
        except LedgerUnavailable as error:
            return JSONResponse({"error": str(error)}, status_code=503)

    async def api_game(request: Request):
        try:
            found = _one(request)
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

    async def stats(request: Request):
        try:
            players = site.stats()
        except LedgerUnavailable as error:
            return HTMLResponse(pages.stats_page([], {}, str(error)), status_code=503)
        sizes = {int(size) for p in players for size in p["hands_by_size"]}
        tables = {size: distribution(size, False) for size in sizes}
        return HTMLResponse(pages.stats_page(players, tables, None))

    async def api_stats(request: Request):
        try:
            return JSONResponse(site.stats())
        except LedgerUnavailable as error:
            return JSONResponse({"error": str(error)}, status_code=503)

    routes = [
        Route("/", board, methods=READ_METHODS),
        Route("/api/state", api_state, methods=READ_METHODS),
        Route("/events", events, methods=READ_METHODS),
        Route("/games", games, methods=READ_METHODS),
        Route("/games.csv", games_csv, methods=READ_METHODS),
        Route("/games/{game_id:int}.txt", game_txt, methods=READ_METHODS),
        Route("/games/{game_id:int}", game_page, methods=READ_METHODS),
        Route("/stats", stats, methods=READ_METHODS),
        Route("/api/games", api_games, methods=READ_METHODS),
        Route("/api/games/{game_id:int}", api_game, methods=READ_METHODS),
        Route("/api/stats", api_stats, methods=READ_METHODS),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(ReadOnly)
    app.state.site = site
    return app


class ReadOnly:
    """Any method but GET and HEAD, on any path: 405, before any route runs."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in READ_METHODS:
            response = PlainTextResponse("read-only: this server only answers GET and HEAD\n", status_code=405,
                                         headers={"Allow": ", ".join(READ_METHODS)})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def _events(site: Site):
    """The live board as server-sent events: one at once, then one on every change of the ledger."""
    last = None
    quiet = 0.0
    while True:
        live = site.live()
        if live["html"] != last:
            last = live["html"]
            data = json.dumps({"html": live["html"], "title": live["title"], "state": live["state"],
                               "problem": live["problem"]})
            yield f"event: message\ndata: {data}\n\n"
            quiet = 0.0
        elif quiet >= KEEPALIVE_SECONDS:
            yield ": keep-alive\n\n"
            quiet = 0.0
        await asyncio.sleep(POLL_SECONDS)
        quiet += POLL_SECONDS

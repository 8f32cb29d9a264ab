"""A paired phone's routes: pairing with a code from the board's OLED, its seat's page, and its entries relayed to the board.

The web view never writes the ledger: it relays each request to the running board
(:class:`PhoneRoutes`).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.templating import Jinja2Templates

from scorer.cards import parse_cards
from scorer.coach import answer as coach_answer
from scorer.coach import coach
from scorer.counting import score_hand
from scorer.errors import CribbageError

from ..wire.acts import PHONE_ACT_NAMES
from ..wire.relay import HEADER, MAX_LINE, BoardAway, BoardSilent, ask_async, header_token, plain_text, shallow_json
from .lru import LRU

COOKIE = "cribbage_phone"
SEAT_COOKIE = "cribbage_seat"
COOKIE_DAYS = 30
RATE = 4.0  # requests a second a phone may make, on average
BURST = 8  # requests a phone may make at once
SESSION_CHARS = 64  # a session the board gives is 43 characters
PAIRED_SECONDS = 10.0  # how long the board's word that a session is paired is taken without asking again
STRANGER_RATE, STRANGER_BURST = 1.0, 4  # sessions the board has not confirmed, asked about per client
BOARD_AWAY = "The board is not running: nothing was entered. Start it, then try again."
BOARD_SILENT = "No answer from the board: look at the board before you tap again"
NOT_PAIRED = "This phone is not paired: choose Phones in the board's menu and scan its code"
NOT_READ = "The request did not read: reload the page"
PHONE_WRITES = frozenset({"/pair", "/api/phone/entry", "/api/phone/unpair"})


class Buckets:
    """A token bucket per phone: :data:`RATE` a second, :data:`BURST` at once; bounded in size."""

    def __init__(self, rate: float = RATE, burst: int = BURST, clock=time.monotonic, kept: int = 256):
        self.rate, self.burst, self.clock, self.kept = rate, burst, clock, kept
        self.tokens: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> bool:
        now = self.clock()
        tokens, then = self.tokens.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if len(self.tokens) >= self.kept:
            self.tokens.pop(next(iter(self.tokens)))
        if tokens < 1:
            self.tokens[key] = (tokens, now)
            return False
        self.tokens[key] = (tokens - 1, now)
        return True


class PhoneRoutes:
    """The routes of paired phones, relaying to the board whose socket is ``socket``; their pages
    rendered by ``templates``.

    The web view never writes the ledger: it relays each request to the running
    board over the board's socket (:mod:`firmware.wire.relay`) and gives the phone the
    board's own answer. Every write, and the coach, needs a session the board says
    it paired (the HttpOnly, SameSite=Strict cookie the board gave for a pairing
    code; the board's word is kept for PAIRED_SECONDS) and the session's header
    token (:func:`firmware.wire.relay.header_token`, in the page the session
    opened); anything else is 403 and changes nothing. Each paired session's
    requests are rate-limited here, before they reach the board, and so are each
    client's questions about sessions the board has not confirmed.
    """

    def __init__(self, socket: Path | None, templates: Jinja2Templates):
        self.socket = socket  # None: no board to relay to (a web view of a copied ledger)
        self.templates = templates
        self.buckets = Buckets()
        self.strangers = Buckets(STRANGER_RATE, STRANGER_BURST)
        self.paired = LRU(256)  # session -> when the board last said it is paired
        self.coached = LRU(64)  # the coach's answers by (cards, dealer): a hand asked again costs nothing
        self.coaching = asyncio.Lock()  # one coach at a time: phones asking at once wait their turn

    async def _ask(self, request: dict) -> dict:
        """The board's answer (BoardAway if it is not running; ValueError for a request too long to send)."""
        if self.socket is None:
            raise BoardAway("no board to relay to")
        return await ask_async(self.socket, request)

    # ---- pairing -------------------------------------------------------------

    async def pair_page(self, request: Request):
        """``/P/CODE`` (the QR code's address): a page with one button that pairs this phone."""
        code = request.path_params["code"]
        return self.templates.TemplateResponse(request, "pair.html", {"code": code})

    async def pair(self, request: Request):
        """``POST /pair``: trade the board's one-time code for a session; 403 for a code that is not
        the board's, used or expired."""
        form = await _small_form(request)
        code = form.get("code", "") if form is not None else ""
        try:
            answer = await self._ask({"op": "pair", "code": code[:64]})
        except BoardAway:
            return self.templates.TemplateResponse(request, "not_paired.html", {"message": BOARD_AWAY}, status_code=503)
        if not answer.get("ok"):
            return self.templates.TemplateResponse(request, "not_paired.html",
                                                   {"message": str(answer.get("message", "not paired"))}, status_code=403)
        self.paired.put(str(answer["session"]), time.monotonic())
        response = RedirectResponse("/phone", status_code=303)
        age = COOKIE_DAYS * 86400
        response.set_cookie(COOKIE, str(answer["session"]), max_age=age, httponly=True, samesite="strict", path="/")
        response.set_cookie(SEAT_COOKIE, str(answer["seat"]), max_age=age, httponly=True, samesite="strict",
                            path="/")
        return response

    # ---- the seat's page -------------------------------------------------------

    async def phone_page(self, request: Request, page: Callable[[int, str, str], bytes]):
        """``/phone``: the seat's controls over the live board, ``page(seat, token, away)`` (made once per
        state of the ledger: ``Site.seat_page``); without a session, how to pair."""
        session = plain_text(request.cookies.get(COOKIE), SESSION_CHARS)
        seat = _seat_cookie(request)
        if not session or seat is None:
            return self.templates.TemplateResponse(request, "unpaired.html", {"message": NOT_PAIRED})
        try:  # the board says whose seat this is (and whether it still is)
            answer = await self._ask({"op": "seat", "session": session})
        except BoardAway:
            answer = {"ok": True, "seat": seat, "away": True}
        if not answer.get("ok"):
            self.paired.put(session, float("-inf"))
            response = self.templates.TemplateResponse(request, "unpaired.html", {"message": NOT_PAIRED})
            response.delete_cookie(COOKIE, path="/")
            response.delete_cookie(SEAT_COOKIE, path="/")
            return response
        if not answer.get("away"):
            self.paired.put(session, time.monotonic())
        away = BOARD_AWAY if answer.get("away") else ""
        return Response(page(int(answer["seat"]), header_token(session), away), media_type="text/html; charset=utf-8")

    # ---- writes ----------------------------------------------------------------

    async def _refuse(self, request: Request) -> Response | None:
        """None for a session the board paired, with its header token, within its rate; else the answer:
        400 for a cookie that cannot be a session, 403 for a session or token that is not the board's,
        429 when it comes too fast, 503 when the board is not running to say."""
        given = request.cookies.get(COOKIE)
        session = plain_text(given, SESSION_CHARS)
        if given is not None and session is None:
            return JSONResponse({"ok": False, "message": NOT_READ}, status_code=400)
        token = plain_text(request.headers.get(HEADER), SESSION_CHARS) or ""
        if not session or not secrets.compare_digest(token.encode(), header_token(session).encode()):
            return JSONResponse({"ok": False, "message": NOT_PAIRED}, status_code=403)
        confirmed = self.paired.get(session)
        if confirmed is None or time.monotonic() - confirmed > PAIRED_SECONDS:
            client = request.client.host if request.client is not None else ""
            if not self.strangers.take(client):
                return JSONResponse({"ok": False, "message": "Too many requests at once: wait a moment"},
                                    status_code=429)
            try:
                answer = await self._ask({"op": "seat", "session": session})
            except BoardSilent:
                return JSONResponse({"ok": False, "message": BOARD_SILENT}, status_code=504)
            except BoardAway:
                return JSONResponse({"ok": False, "message": BOARD_AWAY, "away": True}, status_code=503)
            if not answer.get("ok"):
                return JSONResponse({"ok": False, "unpaired": True, "message": NOT_PAIRED}, status_code=403)
            self.paired.put(session, time.monotonic())
        if not self.buckets.take(session):
            return JSONResponse({"ok": False, "message": "Too many taps at once: wait a moment"}, status_code=429)
        return None

    async def entry(self, request: Request):
        """``POST /api/phone/entry`` {"id", "act", "points"}: the board's answer to one entry."""
        refused = await self._refuse(request)
        if refused is not None:
            return refused
        body = await _small_json(request)
        if body is None:
            return JSONResponse({"ok": False, "message": NOT_READ}, status_code=400)
        act, points, request_id = body.get("act"), body.get("points", 0), plain_text(body.get("id"), 64)
        if act not in PHONE_ACT_NAMES or type(points) is not int or not -1000 < points < 1000 or request_id is None:
            return JSONResponse({"ok": False, "message": NOT_READ}, status_code=400)
        return await self._relay({"op": "enter", "session": request.cookies[COOKIE], "id": request_id,
                                  "act": act, "points": points})

    async def unpair(self, request: Request):
        """``POST /api/phone/unpair``: this phone scores no more (the board forgets its session)."""
        refused = await self._refuse(request)
        if refused is not None:
            return refused
        self.paired.put(request.cookies[COOKIE], float("-inf"))
        response = await self._relay({"op": "unpair", "session": request.cookies[COOKIE]})
        response.delete_cookie(COOKIE, path="/")
        response.delete_cookie(SEAT_COOKIE, path="/")
        return response

    async def _relay(self, request: dict) -> JSONResponse:
        try:
            answer = await self._ask(request)
        except BoardSilent:
            return JSONResponse({"ok": False, "message": BOARD_SILENT}, status_code=504)
        except BoardAway:
            return JSONResponse({"ok": False, "message": BOARD_AWAY, "away": True}, status_code=503)
        except ValueError:
            return JSONResponse({"ok": False, "message": NOT_READ}, status_code=400)
        if answer.get("unpaired"):
            self.paired.put(request.get("session"), float("-inf"))
            return JSONResponse(answer, status_code=403)
        return JSONResponse(answer, status_code=200 if answer.get("ok") else 409)

    # ---- check my count ----------------------------------------------------------

    async def count(self, request: Request):
        """``GET /api/count?hand=5H,5D,5S,JC&starter=5C[&crib=1]``: the count, item by item, as the
        board's check my count gives it. Reads nothing of the game: any page may ask."""
        params = request.query_params
        try:
            hand = parse_cards(params.get("hand", "").replace(",", " ").split())
            starter = parse_cards(params.get("starter", "").split(), hand)
            if len(starter) != 1:
                raise CribbageError("give one starter card")
            score = score_hand(hand, starter[0], crib=params.get("crib") == "1")
        except CribbageError as error:
            return JSONResponse({"ok": False, "message": str(error)}, status_code=400)
        return JSONResponse({"ok": True, "total": score.total, "said": score.say(), **score.to_dict()})


    async def coach(self, request: Request):
        """``GET /api/coach?cards=5H,5D,JC,6S,7S,KD&dealer=1``: the 15 discards, best first, as
        ``cribbage-board coach --json`` gives them (``dealer=0``: the opponent's crib). For a paired
        phone's page (rate-limited as its taps are); reads
        nothing of the game; computed off the event loop, one at a time, and kept for hands asked again."""
        refused = await self._refuse(request)
        if refused is not None:
            return refused
        params = request.query_params
        dealer = params.get("dealer")
        try:
            cards = parse_cards(params.get("cards", "").replace(",", " ").split())
            if dealer not in ("0", "1"):
                raise CribbageError("say whose crib it is: dealer=1 (yours) or dealer=0 (the opponent's)")
            key = (tuple(sorted(cards)), dealer == "1")
            answer = self.coached.get(key)
            if answer is None:
                async with self.coaching:
                    ranked = await run_in_threadpool(coach, cards, dealer == "1")
                answer = {"ok": True, **coach_answer(ranked, dealer == "1")}
                self.coached.put(key, answer)
        except CribbageError as error:
            return JSONResponse({"ok": False, "message": str(error)}, status_code=400)
        return JSONResponse(answer)


def _seat_cookie(request: Request) -> int | None:
    value = request.cookies.get(SEAT_COOKIE, "")
    return int(value) if value in ("0", "1", "2", "3") else None


async def _small_body(request: Request) -> bytes | None:
    """The request's body, None when it is longer than a phone's request can be."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_LINE:
            return None
    return body


async def _small_json(request: Request) -> dict | None:
    body = await _small_body(request)
    if body is None:
        return None
    value = shallow_json(body)
    return value if isinstance(value, dict) else None


async def _small_form(request: Request) -> dict | None:
    """A form's fields (application/x-www-form-urlencoded), None if it does not read."""
    from urllib.parse import parse_qsl

    body = await _small_body(request)
    if body is None:
        return None
    try:
        return dict(parse_qsl(body.decode("ascii"), max_num_fields=4))
    except (UnicodeDecodeError, ValueError):
        return None

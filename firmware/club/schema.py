"""The club's topics and payloads, version 1: what ``docs/club.md`` documents.

Every topic is under ``cribbage/<club>/``; a table's are under
``cribbage/<club>/table/<table>/``. Every payload is a JSON object (UTF-8) with
``"v": 1``. A board publishes its table's ``status``, ``state``, ``entry`` and
``result``; the hub publishes each table's ``pairing``, and the club's
``standings`` and ``hub`` status. Club and table names are 1 to 32 letters,
digits, ``-`` or ``_`` (nothing MQTT gives a meaning: no ``/``, ``+``, ``#``).

:func:`decode` is the one door for a received message: it checks the size, the
JSON, the version, every field's type and range, and that the table the
payload names is the table of its topic, and raises :class:`PayloadError` with
one line saying what is wrong. Nothing here touches the network.
"""

from __future__ import annotations

import json
import re

from ..clubs import name_problem

VERSION = 1
ROOT = "cribbage"
BOARD_KINDS = ("status", "state", "entry", "result")  # a board publishes these for its table
HUB_KINDS = ("pairing",)  # the hub publishes these for each table
TABLE_KINDS = BOARD_KINDS + HUB_KINDS
MAX_BYTES = {"status": 1024, "entry": 2048, "result": 8192, "state": 32768, "pairing": 1024,
             "standings": 262144, "hub": 1024}
RESULT_STATUSES = ("finished", "abandoned", "open")  # open: the game's end was undone
MAX_SEQ = 10**9  # entries of one game, revisions of one result: far more than any game has
MAX_LINE = 200  # a record line (scorer.record: 160)
LEDGER_ID = re.compile(r"[0-9a-f]{16}")
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")


class PayloadError(ValueError):
    """A received message that breaks the schema; the message says what, in one line."""


# ---- names and topics ----------------------------------------------------------


class Topics:
    """The topics of one club, and of one table of it when ``table`` is given."""

    def __init__(self, club: str, table: str | None = None):
        for kind, name in (("club", club), ("table", table)):
            if name is not None and (problem := name_problem(kind, name)):
                raise ValueError(problem)
        self.club, self.table = club, table
        self.base = f"{ROOT}/{club}"

    def of_table(self, kind: str, table: str | None = None) -> str:
        """``cribbage/<club>/table/<table>/<kind>``: this table's, or another's."""
        table = table if table is not None else self.table
        if table is None or kind not in TABLE_KINDS:
            raise ValueError(f"no table topic {kind!r} for table {table!r}")
        return f"{self.base}/table/{table}/{kind}"

    @property
    def every_table(self) -> str:
        """The filter that matches every table's every topic: ``cribbage/<club>/table/+/+``."""
        return f"{self.base}/table/+/+"

    @property
    def standings(self) -> str:
        return f"{self.base}/standings"

    @property
    def hub(self) -> str:
        return f"{self.base}/hub"

    def parse(self, topic: str) -> tuple[str, str] | None:
        """(table, kind) of one of this club's table topics; None for any other topic."""
        parts = topic.split("/")
        if (len(parts) != 5 or f"{parts[0]}/{parts[1]}" != self.base or parts[2] != "table"
                or name_problem("table", parts[3]) or parts[4] not in TABLE_KINDS):
            return None
        return parts[3], parts[4]


# ---- what a board sends ----------------------------------------------------------


def status_payload(table: str, online: bool, version: str, problem: str | None = None) -> dict:
    """A board's presence, retained (and its last will, ``online`` false)."""
    return {"v": VERSION, "table": table, "online": online, "version": version, "problem": problem}


def entry_payload(table: str, ledger: str, game: int, seq: int, line: str, at: str | None) -> dict:
    """One line of a game's record: seq 0 is the game line, 1... its entries in order
    (undo and redo are entries too). (table, ledger, game, seq) names it for good."""
    return {"v": VERSION, "table": table, "ledger": ledger, "game": game, "seq": seq, "line": line, "at": at}


def result_payload(table: str, ledger: str, game: int, rev: int, status: str, variant: str,
                   seats: list[str], scores: dict[str, int], outcome: dict | None, at: str | None) -> dict:
    """A game's result as it stands after its first ``rev`` entries: "finished" (with
    the winner, the losers, the margin, the game points and the skunk), "abandoned"
    (a new game replaced it before its end: it counts for nobody) or "open" (the
    winning entry was undone: a result sent before no longer stands). The one with
    the highest ``rev`` is the game's result."""
    outcome = outcome or {}
    losers = outcome.get("losers", [])
    return {
        "v": VERSION, "table": table, "ledger": ledger, "game": game, "rev": rev, "status": status,
        "variant": variant, "seats": list(seats), "scores": dict(scores),
        "winner": outcome.get("winner"), "losers": losers, "margin": outcome.get("margin"),
        "result": outcome.get("result"), "game_points": outcome.get("game_points"),
        "skunk": any(loser.get("result", "win") != "win" for loser in losers) if outcome else None,
        "at": at,
    }


def state_payload(table: str, ledger: str, game: int | None, seq: int, state: dict | None) -> dict:
    """A table's live board, retained: the current match as ``/api/state`` shows it
    (``replay --json``), after the current game's first ``seq`` entries."""
    return {"v": VERSION, "table": table, "ledger": ledger, "game": game, "seq": seq, "state": state}


def pairing_payload(table: str, night: str, round_number: int, players: list[str]) -> dict:
    """The hub's word to a table, retained: who plays there in ``round`` (no players: the
    table is free this round)."""
    return {"v": VERSION, "table": table, "night": night, "round": round_number, "players": list(players)}


def encode(payload: dict) -> bytes:
    """A payload as sent: compact JSON in UTF-8."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# ---- what is received ------------------------------------------------------------


def decode(kind: str, table: str, data: bytes) -> dict:
    """The payload of a ``kind`` message on ``table``'s topic, checked; PayloadError if it
    is too large, not UTF-8 JSON, of another version, of the wrong shape or for another table."""
    limit = MAX_BYTES.get(kind)
    if limit is None:
        raise PayloadError(f"no such message kind {_short(kind)}")
    if len(data) > limit:
        raise PayloadError(f"{kind}: {len(data)} bytes, more than the {limit} a {kind} may have")
    try:
        payload = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise PayloadError(f"{kind}: not UTF-8 text (byte {error.start + 1})") from None
    except (ValueError, RecursionError):
        raise PayloadError(f"{kind}: not JSON") from None
    if not isinstance(payload, dict):
        raise PayloadError(f"{kind}: a JSON object is needed, not {type(payload).__name__}")
    version = payload.get("v")
    if version != VERSION or isinstance(version, bool):
        raise PayloadError(f"{kind}: schema version {_short(version)}; this hub reads version {VERSION}")
    if kind in TABLE_KINDS and payload.get("table") != table:
        raise PayloadError(f"{kind}: claims table {_short(payload.get('table'))} on table {table}'s topic")
    for field, check in _FIELDS[kind].items():
        problem = check(payload.get(field, _MISSING))
        if problem:
            raise PayloadError(f"{kind}: {field} {problem}")
    if kind == "result":
        _check_result(payload)
    return payload


_MISSING = object()


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is(kinds: tuple, optional: bool = False):
    def check(value):
        if value is _MISSING or (value is None and not optional):
            return "is missing"
        if value is None:
            return None
        if isinstance(value, bool) != (bool in kinds) or not isinstance(value, kinds):
            return f"is {_short(value)}: the wrong type"
        return None
    return check


def _count(low: int, high: int = MAX_SEQ, optional: bool = False):
    def check(value):
        if optional and value is None:
            return None
        if value is _MISSING:
            return "is missing"
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"is {_short(value)}: a whole number from {low} to {high} is needed"
        return None
    return check


def _text(limit: int, pattern: re.Pattern | None = None, optional: bool = False):
    def check(value):
        if optional and value is None:
            return None
        if not isinstance(value, str) or value is _MISSING:
            return "is missing" if value is _MISSING else f"is {_short(value)}: text is needed"
        if len(value) > limit or not value.isprintable() or (pattern and not pattern.fullmatch(value)):
            return f"is {_short(value)}: not a valid value"
        return None
    return check


def _player(value) -> str | None:
    from scorer.names import name_problem as problem_of
    from scorer.names import normal

    if not isinstance(value, str) or len(value) > 40:
        return f"{_short(value)} is not a player's name"
    problem = problem_of(normal(value))
    return f"{_short(value)}: {problem}" if problem else None


def _players(low: int, high: int):
    def check(value):
        if not isinstance(value, list) or not low <= len(value) <= high:
            return f"must be a list of {low} to {high} names"
        for name in value:
            if problem := _player(name):
                return problem
        return None
    return check


def _scores(value) -> str | None:
    if not isinstance(value, dict) or not 1 <= len(value) <= 4:
        return "must map each side to its score"
    for side, score in value.items():
        if len(side) > 90 or isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= 1000:
            return f"{_short(side)}: {_short(score)} is not a score"
    return None


def _losers(value) -> str | None:
    if not isinstance(value, list) or len(value) > 3:
        return "must be a list of at most 3 losing sides"
    for loser in value:
        if not isinstance(loser, dict):
            return "each loser is an object"
        for field, check in (("side", _text(90)), ("score", _count(0, 1000)), ("result", _text(20)),
                             ("margin", _count(-1000, 1000)), ("game_points", _count(0, 100))):
            problem = check(loser.get(field, _MISSING))
            if problem:
                return f"{field} {problem}"
    return None


def _check_result(payload: dict) -> None:
    """A finished result names a winner among its scores; the others name none."""
    if payload["status"] == "finished":
        if payload["winner"] not in payload["scores"]:
            raise PayloadError(f"result: winner {_short(payload['winner'])} is not one of its sides")
        if not payload["losers"]:
            raise PayloadError("result: a finished game has losers")
    elif payload["winner"] is not None or payload["losers"]:
        raise PayloadError(f"result: a game {payload['status']} has no winner")


_LEDGER = {"ledger": _text(16, LEDGER_ID), "game": _count(1)}
_FIELDS: dict[str, dict] = {
    "status": {"online": _is((bool,)), "version": _text(40), "problem": _text(300, optional=True)},
    "entry": {**_LEDGER, "seq": _count(0), "line": _text(MAX_LINE), "at": _text(30, STAMP, optional=True)},
    "result": {
        **_LEDGER, "rev": _count(0), "status": lambda v: None if v in RESULT_STATUSES else
        f"is {_short(v)}: use one of {', '.join(RESULT_STATUSES)}",
        "variant": _text(30), "seats": _players(2, 4), "scores": _scores,
        "winner": _text(90, optional=True), "losers": _losers, "margin": _count(-1000, 1000, optional=True),
        "result": _text(20, optional=True), "game_points": _count(0, 100, optional=True),
        "skunk": _is((bool,), optional=True), "at": _text(30, STAMP, optional=True),
    },
    "state": {"ledger": _text(16, LEDGER_ID), "game": _count(1, optional=True), "seq": _count(0),
              "state": _is((dict,), optional=True)},
    "pairing": {"night": _text(40), "round": _count(1, 1000), "players": _players(0, 4)},
    "standings": {"night": _text(40), "standings": _is((list,))},
    "hub": {"online": _is((bool,)), "version": _text(40)},
}

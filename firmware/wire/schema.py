"""The club's topics and payloads, version 1: what ``docs/club.md`` documents.

Every topic is under ``cribbage/<club>/`` (:class:`Topics`); every payload is a JSON object with
``"v": 1``. :func:`decode` is the one door for a received message. Nothing here touches the network.
"""

from __future__ import annotations

import json
import re

from scorer.errors import CribbageBoardError
from scorer.limits import MAX_LINE
from scorer.variants import GAME_POINTS_MOST, SkunkLines

from ..club_settings import club_name_problem, shown

VERSION = 1
ROOT = "cribbage"
BOARD_KINDS = ("status", "state", "entry", "result")  # a board publishes these for its table
HUB_KINDS = ("pairing", "kept")  # the hub publishes these for each table
TABLE_KINDS = BOARD_KINDS + HUB_KINDS
MAX_BYTES = {"status": 1024, "entry": 2048, "result": 8192, "state": 32768, "pairing": 1024,
             "kept": 4096, "standings": 262144, "hub": 1024}
LARGEST = max(MAX_BYTES.values())  # the broker's message_size_limit (systemd/mosquitto-cribbage.conf)
KEPT_GAMES = 64  # games a "kept" lists at most, from the board's floor on
KEPT_REFUSED = 8  # refusals a "kept" lists at most (its newest), as many as fit its size
REFUSED_KINDS = ("entry", "result")
REASON_MOST = 300  # characters of a refusal's reason in a "kept"
RESULT_STATUSES = ("finished", "abandoned", "open")  # open: the game's end was undone
MAX_SEQ = 10**9  # entries of one game, revisions of one result: far more than any game has
# An entry's line has at most scorer.limits.MAX_LINE characters, the record's own limit.
PLAYER_NAME_MOST = 40  # characters in a player's name a hub takes from a board of any version (NAME_MOST: given now)
SIDE_NAME_MOST = 90  # characters in a side's name (partners: two players' names and a +)
SKUNK_LINES = tuple(lines.value for lines in SkunkLines)
LEDGER_ID = re.compile(r"[0-9a-f]{16}")
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")


class PayloadError(CribbageBoardError, ValueError):
    """A received message that breaks the schema; the message says what, in one line."""


class ImpossibleResult(PayloadError):
    """A result of the right shape that cannot be (scores past the target, a winner short of it,
    a margin the scores do not give...); ``payload`` is what was sent."""

    def __init__(self, message: str, payload: dict):
        super().__init__(message)
        self.payload = payload


# ---- names and topics ----------------------------------------------------------


class Topics:
    """The topics of one club, and of one table of it when ``table`` is given.

    Every topic is under ``cribbage/<club>/``; a table's are under
    ``cribbage/<club>/table/<table>/``. Every payload is a JSON object (UTF-8) with
    ``"v": 1``. A board publishes its table's ``status``, ``state``, ``entry`` and
    ``result``; the hub publishes each table's ``pairing``, and the club's
    ``standings`` and ``hub`` status. Club and table names are 1 to 32 letters,
    digits, ``-`` or ``_`` (nothing MQTT gives a meaning: no ``/``, ``+``, ``#``).
    """

    def __init__(self, club: str, table: str | None = None):
        for kind, name in (("club", club), ("table", table)):
            if name is not None and (problem := club_name_problem(kind, name)):
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
                or club_name_problem("table", parts[3]) or parts[4] not in TABLE_KINDS):
            return None
        return parts[3], parts[4]


# ---- what a board sends ----------------------------------------------------------


def status_payload(table: str, online: bool, version: str, problem: str | None = None,
                   ledger: str | None = None, floor: int | None = None) -> dict:
    """A board's presence, retained (and its last will, ``online`` false); with its ``ledger``
    and ``floor``, the first game of it the board still needs the hub's word on."""
    payload = {"v": VERSION, "table": table, "online": online, "version": version, "problem": problem}
    if ledger is not None:
        payload.update(ledger=ledger, floor=floor)
    return payload


def entry_payload(table: str, ledger: str, game: int, seq: int, line: str, at: str | None) -> dict:
    """One line of a game's record: seq 0 is the game line, 1... its entries in order
    (undo and redo are entries too). (table, ledger, game, seq) names it for good."""
    return {"v": VERSION, "table": table, "ledger": ledger, "game": game, "seq": seq, "line": line, "at": at}


def result_payload(table: str, ledger: str, game: int, rev: int, status: str, variant: str,
                   seats: list[str], scores: dict[str, int], outcome: dict | None, at: str | None,
                   rule: dict | None = None) -> dict:
    """A game's result as it stands after its first ``rev`` entries: "finished" (with
    the winner, the losers, the margin, the game points and the skunk), "abandoned"
    (a new game replaced it before its end: it counts for nobody) or "open" (the
    winning entry was undone: a result sent before no longer stands). The one with
    the highest ``rev`` is the game's result. ``rule``: the board's ``target``,
    ``skunk_lines`` and ``points`` for the game, by which the hub checks it."""
    outcome = outcome or {}
    losers = outcome.get("losers", [])
    return {
        "v": VERSION, "table": table, "ledger": ledger, "game": game, "rev": rev, "status": status,
        "variant": variant, "seats": list(seats), "scores": dict(scores),
        "winner": outcome.get("winner"), "losers": losers, "margin": outcome.get("margin"),
        "result": outcome.get("result"), "game_points": outcome.get("game_points"),
        "skunk": any(loser.get("result", "win") != "win" for loser in losers) if outcome else None,
        "at": at, **(rule or {}),
    }


def state_payload(table: str, ledger: str, game: int | None, seq: int, state: dict | None) -> dict:
    """A table's live board, retained: the current match as ``/api/state`` shows it
    (``replay --json``), after the current game's first ``seq`` entries."""
    return {"v": VERSION, "table": table, "ledger": ledger, "game": game, "seq": seq, "state": state}


def pairing_payload(table: str, night: str, round_number: int, players: list[str]) -> dict:
    """The hub's word to a table, retained: who plays there in ``round`` (no players: the
    table is free this round)."""
    return {"v": VERSION, "table": table, "night": night, "round": round_number, "players": list(players)}


def kept_payload(table: str, ledger: str, first: int, games: list[list], refused: list[list] | None = None) -> dict:
    """The hub's word to a table, retained, after each commit: what it has durably kept of
    ``ledger``'s games from ``first`` on, each ``[game, seq, rev, status]``: its line and entries
    0 to ``seq`` (-1: not even its line), and the highest ``rev`` of its result with that
    revision's ``status`` (both None: no result). ``refused`` (optional, a field boards of the first
    release ignore): what of those games the hub will not keep, each ``[game, "entry" or "result",
    seq or rev, reason]``, newest last, at most KEPT_REFUSED and as many as fit the payload's size;
    each is counted in ``games`` as kept, since sending it again would change nothing."""
    payload = {"v": VERSION, "table": table, "ledger": ledger, "from": first, "games": [list(g) for g in games]}
    if refused:
        shown = [[game, kind, number, reason[:REASON_MOST]] for game, kind, number, reason in refused][-KEPT_REFUSED:]
        while shown and len(encode({**payload, "refused": shown})) > MAX_BYTES["kept"]:
            shown.pop(0)
        if shown:
            payload["refused"] = shown
    return payload


def hub_payload(online: bool, version: str, instance: str, since: str, said: int = 0) -> dict:
    """The hub's presence, retained (and its last will): ``instance`` names this run of it and
    ``since`` says when it began, so a second hub for the club can tell it is the second; ``said``
    counts this run's presences, so a hub that is alive is told from one that only left its word."""
    return {"v": VERSION, "online": online, "version": version, "instance": instance, "since": since,
            "said": said}


def refusal_key(kind: str, table: str, data: bytes) -> dict | None:
    """Of an ``entry`` or ``result`` that :func:`decode` refused, what names it for good, when it can
    be read (JSON of this version, for ``table``, with a ledger, game and seq or rev of the right
    form): {"ledger", "game", "kind", "number", "sent"}; None when it names no game of ``table``."""
    if kind not in REFUSED_KINDS or len(data) > MAX_BYTES[kind]:
        return None
    try:
        sent = json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError):  # _DuplicateKey among them: a payload that names a key twice
        return None
    if not isinstance(sent, dict) or type(sent.get("v")) is not int or sent["v"] != VERSION or \
            sent.get("table") != table:
        return None
    number = sent.get("seq" if kind == "entry" else "rev", _MISSING)
    if _LEDGER["ledger"](sent.get("ledger", _MISSING)) or _LEDGER["game"](sent.get("game", _MISSING)) or \
            _count(0)(number):
        return None
    return {"ledger": sent["ledger"], "game": sent["game"], "kind": kind, "number": number, "sent": sent}


def encode(payload: dict) -> bytes:
    """A payload as sent: compact JSON in UTF-8."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# ---- what is received ------------------------------------------------------------


def decode(kind: str, table: str, data: bytes) -> dict:
    """The payload of a ``kind`` message on ``table``'s topic, checked; PayloadError if it
    is too large, not UTF-8 JSON, of another version, of the wrong shape or for another table.

    :func:`decode` is the one door for a received message: it checks the size, the
    JSON, the version, every field's type and range, and that the table the
    payload names is the table of its topic, and raises :class:`PayloadError` with
    one line saying what is wrong. Nothing here touches the network.
    """
    limit = MAX_BYTES.get(kind)
    if limit is None:
        raise PayloadError(f"no such message kind {shown(kind)}")
    if len(data) > limit:
        raise PayloadError(f"{kind}: {len(data)} bytes, more than the {limit} a {kind} may have")
    try:
        payload = json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as error:
        raise PayloadError(f"{kind}: not UTF-8 text (byte {error.start + 1})") from None
    except _DuplicateKey as error:
        raise PayloadError(f"{kind}: the key {shown(error.args[0])} is given twice; a payload names each once") from None
    except (ValueError, RecursionError):
        raise PayloadError(f"{kind}: not JSON") from None
    if not isinstance(payload, dict):
        raise PayloadError(f"{kind}: a JSON object is needed, not {type(payload).__name__}")
    version = payload.get("v")
    if type(version) is not int or version != VERSION:  # not 1.0, not true
        raise PayloadError(f"{kind}: schema version {shown(version)}; this hub reads version {VERSION}")
    if kind in TABLE_KINDS and payload.get("table") != table:
        raise PayloadError(f"{kind}: claims table {shown(payload.get('table'))} on table {table}'s topic")
    for field, check in _FIELDS[kind].items():
        problem = check(payload.get(field, _MISSING))
        if problem:
            raise PayloadError(f"{kind}: {field} {problem}")
    if kind == "entry":
        _check_entry(payload)
    if kind == "result":
        try:
            _check_result(payload)
        except PayloadError as error:
            raise ImpossibleResult(str(error), payload) from None
    return payload


_MISSING = object()


class _DuplicateKey(PayloadError):
    """A JSON object that gives one key twice (the key is the argument)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object's pairs as a dict; _DuplicateKey if a key comes twice (json would keep the last)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _check_entry(payload: dict) -> None:
    """An entry whose ``line`` reads as a record line: seq 0 a game line (its variant one this
    cribbage-board knows), every later seq an entry, undo, redo or option, never a game line."""
    from scorer.errors import CribbageError
    from scorer.record import GameHeader, parse_line

    line, seq = payload["line"], payload["seq"]
    try:
        action = parse_line(line)
    except CribbageError as error:
        raise PayloadError(f"entry: line {shown(line)} is not a record line: {error}") from None
    if action is None:
        raise PayloadError(f"entry: line {shown(line)} is blank or a comment, not a record line")
    if (seq == 0) != isinstance(action, GameHeader):
        raise PayloadError(f"entry: line {shown(line)} as entry {seq}: "
                           + ("entry 0 is the game line" if seq == 0 else "only entry 0 is a game line"))


def _is(kinds: tuple, optional: bool = False):
    def check(value):
        if optional and value in (None, _MISSING):
            return None
        if value is _MISSING or value is None:
            return "is missing"
        if isinstance(value, bool) != (bool in kinds) or not isinstance(value, kinds):
            return f"is {shown(value)}: the wrong type"
        return None
    return check


def _count(low: int, high: int = MAX_SEQ, optional: bool = False):
    def check(value):
        if optional and (value is None or value is _MISSING):
            return None
        if value is _MISSING:
            return "is missing"
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"is {shown(value)}: a whole number from {low} to {high} is needed"
        return None
    return check


def _text(limit: int, pattern: re.Pattern | None = None, optional: bool = False):
    def check(value):
        if optional and (value is None or value is _MISSING):
            return None
        if not isinstance(value, str) or value is _MISSING:
            return "is missing" if value is _MISSING else f"is {shown(value)}: text is needed"
        if len(value) > limit or not value.isprintable() or (pattern and not pattern.fullmatch(value)):
            return f"is {shown(value)}: not a valid value"
        return None
    return check


def _player(value) -> str | None:
    from scorer.names import name_problem as problem_of
    from scorer.names import normal

    if not isinstance(value, str) or len(value) > PLAYER_NAME_MOST:
        return f"{shown(value)} is not a player's name"
    problem = problem_of(normal(value), PLAYER_NAME_MOST)
    return f"{shown(value)}: {problem}" if problem else None


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
        if (len(side) > SIDE_NAME_MOST or isinstance(score, bool) or not isinstance(score, int)
                or not 0 <= score <= 1000):
            return f"{shown(side)}: {shown(score)} is not a score"
    return None


def _losers(value) -> str | None:
    if not isinstance(value, list) or len(value) > 3:
        return "must be a list of at most 3 losing sides"
    for loser in value:
        if not isinstance(loser, dict):
            return "each loser is an object"
        for field, check in (("side", _text(SIDE_NAME_MOST)), ("score", _count(0, 1000)), ("result", _text(20)),
                             ("margin", _count(-1000, 1000)), ("game_points", _count(0, 100))):
            problem = check(loser.get(field, _MISSING))
            if problem:
                return f"{field} {problem}"
    return None


def _check_result(payload: dict) -> None:
    """A result that agrees with its variant and with itself: every score within the target
    (the variant's, or the board's ``target``); a finished game's winner one of its sides, at
    the target (in low-ball, below it, and a loser at it), every other side a loser with its own
    score, its margin and (by the board's skunk lines and game points, where it gives them) its
    reading and game points; a game not finished has no winner and nobody at the target."""
    from scorer.errors import CribbageError
    from scorer.game import loser_results
    from scorer.standings import GameResult, ResultError
    from scorer.variants import Options, find_variant, parse_game_points, result_kind

    try:
        variant = find_variant(payload["variant"], payload.get("target"))
        points = parse_game_points(payload["points"]) if payload.get("points") is not None else None
    except CribbageError as error:
        raise PayloadError(f"result: {error}") from None
    target, lowball, scores = variant.target, variant.lowball, payload["scores"]
    for side, score in scores.items():
        if score > target:
            raise PayloadError(f"result: {shown(side)} on {score} is past the target {target}")
    if payload["status"] != "finished":
        if payload["winner"] is not None or payload["losers"]:
            raise PayloadError(f"result: a game {payload['status']} has no winner")
        if any(score >= target for score in scores.values()):
            raise PayloadError(f"result: a game {payload['status']} has nobody at the target {target}")
        return
    winner = payload["winner"]
    if winner not in scores:
        raise PayloadError(f"result: winner {shown(winner)} is not one of its sides")
    try:
        GameResult.of(payload["seats"], scores, winner, lowball)
    except ResultError as error:
        raise PayloadError(f"result: {error}") from None
    won = scores[winner]
    if lowball and (won >= target or target not in scores.values()):
        raise PayloadError(f"result: in {variant.name} the loser reaches the target {target} and the winner does not")
    if not lowball and won != target:
        raise PayloadError(f"result: winner {shown(winner)} on {won}, not at the target {target}")
    losers = payload["losers"]
    if sorted(loser["side"] for loser in losers) != sorted(side for side in scores if side != winner):
        raise PayloadError("result: its losers are not the sides other than the winner")
    lines = SkunkLines(payload["skunk_lines"]) if payload.get("skunk_lines") is not None else None
    expected = {each.side: each for each in loser_results(
        tuple(scores.items()), winner, target, Options(skunk=lines or SkunkLines.ACC), lowball)}
    for loser in losers:
        side, right = loser["side"], expected[loser["side"]]
        if loser["score"] != scores[side] or loser["margin"] != right.margin:
            raise PayloadError(f"result: {shown(side)}'s score or margin ({loser['score']}, {loser['margin']}) "
                               f"does not follow from the scores ({scores[side]}, {right.margin})")
        readings = ({right.kind.value} if lines is not None or lowball else
                    {result_kind(loser["score"], target, each).value for each in SkunkLines})
        if loser["result"] not in readings:
            raise PayloadError(f"result: {shown(side)} on {loser['score']} of {target} is not "
                               f"{shown(loser['result'])} ({' or '.join(sorted(readings))})")
        if points is not None and lines is not None and loser["game_points"] != points.for_kind(right.kind):
            raise PayloadError(f"result: {shown(side)}'s {loser['game_points']} game points are not the "
                               f"{points.for_kind(right.kind)} of {loser['result']} by points {payload['points']}")
    if payload["margin"] not in {loser["margin"] for loser in losers}:
        raise PayloadError(f"result: margin {payload['margin']} is no loser's")
    if payload["game_points"] is not None and payload["game_points"] != sum(loser["game_points"] for loser in losers):
        raise PayloadError(f"result: game points {payload['game_points']} are not its losers' "
                           f"{sum(loser['game_points'] for loser in losers)}")


def _kept_games(value) -> str | None:
    if not isinstance(value, list) or len(value) > KEPT_GAMES:
        return f"must be a list of at most {KEPT_GAMES} games"
    for item in value:
        if not isinstance(item, list) or len(item) != 4:
            return "each game is [game, seq, rev, status]"
        game, seq, rev, status = item
        problem = (_count(1)(game) or _count(-1)(seq) or _count(0, optional=True)(rev)
                   or (None if status in (None, *RESULT_STATUSES) else f"status {shown(status)} is not one"))
        if problem or (rev is None) != (status is None):
            return f"{shown(item)}: {problem or 'a rev needs its status'}"
    return None


def _refused(value) -> str | None:
    if value is _MISSING or value is None:
        return None
    if not isinstance(value, list) or len(value) > KEPT_REFUSED:
        return f"must be a list of at most {KEPT_REFUSED} refusals"
    for item in value:
        if not isinstance(item, list) or len(item) != 4:
            return "each refusal is [game, kind, number, reason]"
        game, kind, number, reason = item
        problem = (_count(1)(game) or _count(0)(number) or _text(REASON_MOST)(reason)
                   or (None if kind in REFUSED_KINDS else f"kind {shown(kind)} is not one"))
        if problem:
            return f"{shown(item)}: {problem}"
    return None


def _one_of(choices: tuple[str, ...]):
    def check(value):
        return None if value is None or value is _MISSING or value in choices else \
            f"is {shown(value)}: use one of {', '.join(choices)}"
    return check


_LEDGER = {"ledger": _text(16, LEDGER_ID), "game": _count(1)}
_FIELDS: dict[str, dict] = {
    "status": {"online": _is((bool,)), "version": _text(40), "problem": _text(300, optional=True),
               "ledger": _text(16, LEDGER_ID, optional=True), "floor": _count(1, optional=True)},
    "entry": {**_LEDGER, "seq": _count(0), "line": _text(MAX_LINE), "at": _text(30, STAMP, optional=True)},
    "result": {
        **_LEDGER, "rev": _count(0), "status": lambda v: None if v in RESULT_STATUSES else
        f"is {shown(v)}: use one of {', '.join(RESULT_STATUSES)}",
        "variant": _text(30), "seats": _players(2, 4), "scores": _scores,
        "winner": _text(SIDE_NAME_MOST, optional=True), "losers": _losers, "margin": _count(-1000, 1000, optional=True),
        "result": _text(20, optional=True), "game_points": _count(0, 3 * GAME_POINTS_MOST, optional=True),
        "skunk": _is((bool,), optional=True), "at": _text(30, STAMP, optional=True),
        "target": _count(31, 1000, optional=True), "skunk_lines": _one_of(SKUNK_LINES),
        "points": _text(40, optional=True),
    },
    "kept": {"ledger": _text(16, LEDGER_ID), "from": _count(1), "games": _kept_games, "refused": _refused},
    "state": {"ledger": _text(16, LEDGER_ID), "game": _count(1, optional=True), "seq": _count(0),
              "state": _is((dict,), optional=True)},
    "pairing": {"night": _text(40), "round": _count(1, 1000), "players": _players(0, 4)},
    "standings": {"night": _text(40), "standings": _is((list,))},
    "hub": {"online": _is((bool,)), "version": _text(40), "instance": _text(32, optional=True),
            "since": _text(30, STAMP, optional=True), "said": _count(0, optional=True)},
}

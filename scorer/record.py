"""The plain-text game record: parsing, replay and the scorebook it drives.

One action a line, ``#`` starts a comment; :func:`parse_line` reads one and
gives its grammar. A line is plain text (no control characters) of at most
``MAX_LINE`` characters (:mod:`scorer.limits`); points and targets have at most 4 digits.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any, NamedTuple

from .errors import CribbageError, RecordSyntaxError, RuleError, SetupError
from .game import MID_GAME_OPTIONS, Entry, EntryKind, Game, OptionChange, PeggedEntry
from .limits import MAX_LINE
from .match import Match
from .names import checked_name, normal
from .variants import Options, SkunkLines, Variant, find_variant, parse_game_points


class Command(Enum):
    """Record actions that are not entries.

    >>> parse_line("undo") is Command.UNDO
    True
    """

    UNDO = "undo"
    REDO = "redo"


# GameHeader and Rejection are named tuples, Replay a plain class. A new header
# is ``header._replace(field=...)``.


class GameHeader(NamedTuple):
    """A ``game`` line: the ``variant``, the ``seats`` (a tuple, clockwise), the first
    ``dealer`` (None: the first seat), the ``options`` and ``new_match``. Immutable.

    >>> header = parse_line("game six-card seats=Alice,Bob dealer=Alice target=61")
    >>> header.variant.target, header.seats, header.dealer
    (61, ('Alice', 'Bob'), 'Alice')
    """

    variant: Variant
    seats: tuple[str, ...]
    dealer: str | None = None
    options: Options = Options()
    new_match: bool = False

    def same_match(self, match: Match) -> bool:
        """Whether this game continues ``match`` (same variant, seats and options,
        and no ``new-match``)."""
        return (
            not self.new_match
            and self.variant == match.variant
            and tuple(s.lower() for s in self.seats) == tuple(s.lower() for s in match.seats)
            and self.options == match.options
        )

    def with_names_checked(self) -> "GameHeader":
        """This header with its seats and dealer in NFC; SetupError if a name breaks the rule
        for names given now (:mod:`scorer.names`). Replaying a kept game does not ask it."""
        dealer = None if self.dealer is None else normal(self.dealer.strip())
        return self._replace(seats=tuple(checked_name(seat) for seat in self.seats), dealer=dealer)


Action = GameHeader | Entry | Command | OptionChange

_HEADER_HELP = (
    "seats=A,B dealer=A target=N exact-out muggins skunk=acc|lurch|triple|none "
    "points=acc|casual new-match"
)
_SEAT_AND_POINTS = {"peg": EntryKind.PEG, "hand": EntryKind.HAND, "muggins": EntryKind.MUGGINS}
_SEAT_ONLY = {"go": EntryKind.GO, "31": EntryKind.THIRTY_ONE}
MAX_DIGITS = 4  # points and targets: no rule needs more
MAX_REJECTED = 1000  # refused entries before replay gives up on a record
ABANDONED = "# abandoned: a new game began before this one ended"  # marks such a game in an export


def _control(char: str) -> bool:
    """A control character a record line may not hold: Cc but tab, and Cs (a byte that was not UTF-8)."""
    code = ord(char)
    return (code < 0x20 and char != "\t") or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF


def shown(text: str, limit: int = 24) -> str:
    """``text`` quoted for a message, cut short if long."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def check_line(text: str, most: int = MAX_LINE) -> str:
    """The line without its line ending; RecordSyntaxError if it is longer than ``most`` or
    holds a control character (a NUL, an escape, a byte that was not UTF-8)."""
    text = text.rstrip("\r\n")
    if len(text) > most:
        raise RecordSyntaxError(f"the line is {len(text)} characters long: a record line has at most {most}")
    control = None if text.isprintable() else next((char for char in text if _control(char)), None)
    if control:
        raise RecordSyntaxError(
            f"the line holds the control character U+{ord(control):04X}: a record line is plain text"
        )
    return text


SOURCE_MARK = "# via "  # the comment after an entry made off the board: "hand Blue 8  # via phone Blue"


def source_of(text: str) -> dict[str, str] | None:
    """Where a record line says its entry came from, when not the board: {"via": "phone", "phone":
    "Blue"} for ``# via phone Blue``, {"via": "script"} for ``# via script``; None otherwise.

    >>> source_of("hand Blue 8  # via phone Blue")
    {'via': 'phone', 'phone': 'Blue'}
    >>> source_of("hand Blue 8") is None
    True
    """
    _, mark, said = text.partition(SOURCE_MARK)
    words = said.split()
    if not mark or not words or words[0] not in ("phone", "script"):
        return None
    if words[0] == "phone" and len(words) > 1:
        return {"via": "phone", "phone": words[1]}
    return {"via": words[0]}


def parse_line(text: str, most: int = MAX_LINE) -> Action | None:
    """Parse one record line of at most ``most`` characters; None for a blank or comment line.

    One action a line, ``#`` starts a comment::

        game six-card seats=Alice,Bob dealer=Alice [target=N] [exact-out] [muggins]
             [skunk=acc|lurch|triple|none] [points=acc|casual|W/S/D/T/L] [new-match]
        heels [SEAT]        peg SEAT N        go SEAT        31 SEAT
        hand SEAT N         crib [SEAT] N     muggins SEAT N
        undo                redo              option muggins on|off

    Raises ``RecordSyntaxError`` for a line that is not this grammar.

    >>> parse_line("peg Bob 2")
    Entry(kind=<EntryKind.PEG: 'peg'>, seat='Bob', points=2)
    >>> parse_line("# a comment") is None
    True
    """
    words = check_line(text, most).split("#", 1)[0].split()
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    if verb == "game":
        return _parse_header(args)
    if verb in ("undo", "redo"):
        _expect(verb, args, 0, verb)
        return Command(verb)
    if verb == "option":
        return _parse_option(args)
    if verb == "heels":
        _expect(verb, args, (0, 1), "heels [SEAT]")
        return Entry(EntryKind.HEELS, args[0] if args else None, 2)
    if verb in _SEAT_ONLY:
        _expect(verb, args, 1, f"{verb} SEAT")
        kind = _SEAT_ONLY[verb]
        return Entry(kind, args[0], 1 if kind is EntryKind.GO else 2)
    if verb in _SEAT_AND_POINTS:
        _expect(verb, args, 2, f"{verb} SEAT POINTS")
        return Entry(_SEAT_AND_POINTS[verb], args[0], _points(args[1], verb))
    if verb == "crib":
        _expect(verb, args, (1, 2), "crib [SEAT] POINTS")
        seat = args[0] if len(args) == 2 else None
        return Entry(EntryKind.CRIB, seat, _points(args[-1], verb))
    raise RecordSyntaxError(
        f"unknown line {shown(words[0])}: use game, heels, peg, go, 31, hand, crib, muggins, undo, redo or option"
    )


def _parse_option(args: list[str]) -> OptionChange:
    """``option NAME on|off``: an option changed mid-game."""
    usage = f"{'|'.join(MID_GAME_OPTIONS)} on|off"
    _expect("option", args, 2, usage)
    name, value = args[0].lower(), args[1].lower()
    if name not in MID_GAME_OPTIONS or value not in ("on", "off"):
        raise RecordSyntaxError(f"option takes: {usage}, not {shown(' '.join(args))}")
    return OptionChange(name, value == "on")


def _expect(verb: str, args: list[str], count: int | tuple[int, ...], usage: str) -> None:
    counts = count if isinstance(count, tuple) else (count,)
    if len(args) not in counts:
        raise RecordSyntaxError(f"{verb} takes: {usage}")


def _points(text: str, verb: str) -> int:
    """A whole number of at most MAX_DIGITS ASCII digits, with a sign or not."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not (digits.isascii() and digits.isdigit()):
        raise RecordSyntaxError(f"{verb}: points must be a whole number, not {shown(text)}")
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise RecordSyntaxError(f"{verb}: {shown(text)} is too large: at most {MAX_DIGITS} digits")
    return int(text)


def _parse_header(args: list[str]) -> GameHeader:
    if not args or "=" in args[0]:
        raise RecordSyntaxError(f"game needs a variant first, e.g. game six-card {_HEADER_HELP}")
    settings: dict[str, str] = {}
    flags: set[str] = set()
    for word in args[1:]:
        key, sep, value = word.partition("=")
        key = key.lower()
        if sep:
            if key not in ("seats", "dealer", "target", "skunk", "points") or not value:
                raise RecordSyntaxError(f"unknown game setting {shown(word)}: use {_HEADER_HELP}")
            settings[key] = value
        elif key in ("exact-out", "muggins", "new-match"):
            flags.add(key)
        else:
            raise RecordSyntaxError(f"unknown game option {shown(word)}: use {_HEADER_HELP}")
    try:
        target = settings.get("target")
        variant = find_variant(args[0], None if target is None else _points(target, "target"))
        try:
            skunk = SkunkLines(settings.get("skunk", "acc").lower())
        except ValueError:
            raise RecordSyntaxError(
                f"skunk={settings['skunk']}: use acc, lurch, triple or none"
            ) from None
        points = parse_game_points(settings.get("points", "acc"))
    except RecordSyntaxError:
        raise
    except CribbageError as error:
        raise RecordSyntaxError(str(error)) from None
    if "seats" not in settings:
        raise RecordSyntaxError(f"game needs seats=, e.g. seats=Alice,Bob for {variant.name}")
    seats = tuple(settings["seats"].split(","))
    options = Options(
        exact_out="exact-out" in flags, muggins="muggins" in flags, skunk=skunk, points=points
    )
    return GameHeader(variant, seats, settings.get("dealer"), options, "new-match" in flags)


class Scorebook:
    """Applies record actions: starts games and matches, pegs entries, undoes and redoes.

    >>> book = Scorebook()
    >>> _ = book.apply(parse_line("game six-card seats=Alice,Bob dealer=Alice"))
    >>> book.apply(parse_line("peg Bob 2")).pegged, book.game.score("Bob")
    (2, 2)
    >>> book.record_lines()
    ['game six-card seats=Alice,Bob dealer=Alice', 'peg Bob 2']
    """

    def __init__(self, match: Match | None = None):
        self.match = match
        self.games: list[Game] = []  # finished or abandoned games of this match, in order

    @property
    def game(self) -> Game | None:
        return self.match.game if self.match else None

    def apply(self, action: Action) -> PeggedEntry | OptionChange | Game:
        """Apply one action; raises a CribbageError (and changes nothing) if refused."""
        if isinstance(action, GameHeader):
            return self.start(action)
        game = self.game
        if game is None:
            raise RuleError("No game yet: start one with a game line")
        if action is Command.UNDO:
            return game.undo()
        if action is Command.REDO:
            return game.redo()
        if isinstance(action, OptionChange):
            return game.change_option(action)
        return game.push(action)

    def start(self, header: GameHeader) -> Game:
        """Start the next game of the match, or a new match if the header differs."""
        if self.match is not None and header.same_match(self.match):
            previous = self.match.game
            self.match.new_game(header.dealer)
            self.games.append(previous)
        else:
            self.match = Match(header.variant, header.seats, header.dealer, header.options)
            self.games = []
        return self.match.game

    def record_lines(self) -> list[str]:
        """The whole match as a game record (every game, every action); a game
        replaced before its end, with entries in it, is followed by the comment ``ABANDONED``."""
        lines = []
        for game in self.games:
            lines += game.record_lines()
            if game.outcome is None and game.played:
                lines.append(ABANDONED)
        return lines + (self.game.record_lines() if self.game else [])


class Rejection(NamedTuple):
    """A record line the rules refused (its number ``line``, the ``entry`` as written,
    the ``error``); it is skipped, like a refused button press. Immutable."""

    line: int
    entry: str
    error: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "entry": self.entry, "error": self.error}


class Replay:
    """What replaying a record gives: the scorebook (``book``) and the lines refused
    (``rejected``, a list of Rejection)."""

    __slots__ = ("book", "rejected", "sources")

    def __init__(self, book: Scorebook, rejected: list[Rejection], sources: list[dict[str, Any]] | None = None):
        self.book = book
        self.rejected = rejected
        self.sources = sources or []  # the lines entered off the board: {"line": N, "via": ..., "phone": ...}

    def __eq__(self, other: object) -> bool:
        if type(other) is not Replay:
            return NotImplemented
        return self.book == other.book and self.rejected == other.rejected

    __hash__ = None  # type: ignore[assignment]  # mutable: equal by value, so not hashable

    def __repr__(self) -> str:
        return f"Replay(book={self.book!r}, rejected={self.rejected!r})"


def replay(lines: Iterable[str], book: Scorebook | None = None) -> Replay:
    """Replay a record. A line of bad syntax raises RecordSyntaxError with its
    line number; entries the rules refuse are skipped and listed.

    >>> done = replay(["game six-card seats=Alice,Bob dealer=Alice", "peg Bob 2", "hand Alice 8"])
    >>> done.book.game.score("Bob"), [(refused.line, refused.error) for refused in done.rejected]
    (2, [(3, 'Bob counts next: Bob hand > Alice hand > Alice crib')])
    """
    book = book or Scorebook()
    rejected: list[Rejection] = []
    sources: list[dict[str, Any]] = []
    for number, text in enumerate(lines, start=1):
        try:
            action = parse_line(text)
        except RecordSyntaxError as error:
            raise RecordSyntaxError(str(error), number) from None
        if action is None:
            continue
        if SOURCE_MARK in text and (source := source_of(text)) is not None:
            sources.append({"line": number, **source})
        if book.game is None and not isinstance(action, GameHeader):
            raise RecordSyntaxError("the record must start with a game line", number)
        try:
            book.apply(action)
        except SetupError as error:
            raise RecordSyntaxError(str(error), number) from None
        except CribbageError as error:
            if isinstance(action, GameHeader):
                raise RecordSyntaxError(str(error), number) from None
            rejected.append(Rejection(number, text.split("#", 1)[0].strip(), str(error)))
            if len(rejected) > MAX_REJECTED:
                raise RecordSyntaxError(
                    f"more than {MAX_REJECTED} entries refused: is this the record of a game?", number
                ) from None
    return Replay(book, rejected, sources)

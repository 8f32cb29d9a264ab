"""The game state machine: entries pegged in order, with undo and redo.

A :class:`Game` takes typed :class:`Entry` objects through :meth:`Game.push`,
which either accepts one (and adds it to :attr:`Game.pegged`) or raises a
:class:`~scorer.errors.RuleError` and changes nothing. :meth:`Game.is_legal`
asks the same question without raising. A match (a run of games between the
same seats, with the tally) is :mod:`scorer.match`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any, NamedTuple

from .counting import CRIB_SIZE, possible_totals
from .errors import (
    GameOverError,
    ImpossibleScoreError,
    NothingToUndoError,
    OutOfTurnError,
    RuleError,
    SetupError,
    UnknownSeatError,
)
from .names import normal
from .variants import VARIANTS, Options, ResultKind, SkunkLine, Variant, result_kind, skunk_lines

MAX_PLAY_POINTS = 15  # no single card can peg more

# The value types are typing.NamedTuple classes: immutable, compared and hashed
# as tuples. A new value is ``value._replace(field=...)``.


class EntryKind(Enum):
    """What an entry records.

    >>> EntryKind("31") is EntryKind.THIRTY_ONE
    True
    """

    START = "start"  # five-card: pone's three for last, pegged at the start of the game
    HEELS = "heels"
    PEG = "peg"
    GO = "go"
    THIRTY_ONE = "31"
    HAND = "hand"
    CRIB = "crib"
    MUGGINS = "muggins"


PLAY_KINDS = (EntryKind.PEG, EntryKind.GO, EntryKind.THIRTY_ONE)
FIXED_POINTS = {EntryKind.HEELS: 2, EntryKind.GO: 1, EntryKind.THIRTY_ONE: 2}


class Phase(Enum):
    """Where a deal stands: before the play, in the play, in the show, or game over.

    >>> [phase.value for phase in Phase]
    ['heels', 'play', 'show', 'over']
    """

    HEELS = "heels"
    PLAY = "play"
    SHOW = "show"
    OVER = "over"


# Where a deal stands, in a player's words: the cut (his heels, if a jack), the play, the show.
PHASE_WORDS = {Phase.HEELS: "the cut", Phase.PLAY: "the play", Phase.SHOW: "the show", Phase.OVER: "game over"}


class Entry(NamedTuple):
    """An entry a player makes: ``kind`` (EntryKind), ``seat`` (str, or None for
    heels and crib: the dealer's) and ``points`` (int; heels, go and 31 have fixed
    points). Immutable.

    >>> Entry(EntryKind.PEG, "Bob", 2)
    Entry(kind=<EntryKind.PEG: 'peg'>, seat='Bob', points=2)
    """

    kind: EntryKind
    seat: str | None = None
    points: int = 0

    @classmethod
    def heels(cls) -> "Entry":
        return cls(EntryKind.HEELS, None, 2)

    @classmethod
    def peg(cls, seat: str, points: int) -> "Entry":
        return cls(EntryKind.PEG, seat, points)

    @classmethod
    def go(cls, seat: str) -> "Entry":
        return cls(EntryKind.GO, seat, 1)

    @classmethod
    def thirty_one(cls, seat: str) -> "Entry":
        return cls(EntryKind.THIRTY_ONE, seat, 2)

    @classmethod
    def hand(cls, seat: str, points: int) -> "Entry":
        return cls(EntryKind.HAND, seat, points)

    @classmethod
    def crib(cls, points: int, seat: str | None = None) -> "Entry":
        return cls(EntryKind.CRIB, seat, points)

    @classmethod
    def muggins(cls, seat: str, points: int) -> "Entry":
        return cls(EntryKind.MUGGINS, seat, points)

    def record(self) -> str:
        """The game-record line for this entry."""
        kind = self.kind
        if kind is EntryKind.HEELS:
            return "heels" if self.seat is None else f"heels {self.seat}"
        if kind in (EntryKind.GO, EntryKind.THIRTY_ONE):
            return f"{kind.value} {self.seat}"
        if kind is EntryKind.CRIB and self.seat is None:
            return f"crib {self.points}"
        return f"{kind.value} {self.seat} {self.points}"


class PegMove(NamedTuple):
    """How an accepted entry moved its side's front peg: the side (its index in
    :attr:`Game.sides`), its score from ``start`` to ``end``, the game's skunk lines
    the score rose over (``crossed``, highest first) and whether the move ended the
    game (``ends_game``: the side reached the target). Immutable.

    >>> from scorer.variants import find_variant
    >>> game = Game(find_variant("six-card"), ["Alice", "Bob"], dealer="Alice")
    >>> game.push(Entry.peg("Bob", 2)).move
    PegMove(side=1, start=0, end=2, crossed=(), ends_game=False)
    >>> for _ in range(6):
    ...     _ = game.push(Entry.peg("Alice", 15))
    >>> game.push(Entry.peg("Alice", 2)).move.crossed
    (SkunkLine(kind=<ResultKind.SKUNK: 'skunk'>, below=91),)
    """

    side: int
    start: int
    end: int
    crossed: tuple[SkunkLine, ...] = ()
    ends_game: bool = False


class PeggedEntry(NamedTuple):
    """An accepted entry: ``kind``, ``seat``, the ``points`` claimed and the points
    that moved the peg (``pegged``: fewer under exact-out), the ``deal`` it belongs
    to, the ``entry`` as made, a ``note``, and the ``move`` it made of its side's
    front peg (:class:`PegMove`; None when it pegged nothing). Immutable.

    >>> from scorer.variants import find_variant
    >>> game = Game(find_variant("six-card"), ["Alice", "Bob"], dealer="Alice")
    >>> pegged = game.push(Entry(EntryKind.PEG, "Bob", 2))
    >>> pegged.seat, pegged.pegged, pegged.move.start, pegged.move.end
    ('Bob', 2, 0, 2)
    """

    kind: EntryKind
    seat: str
    points: int
    pegged: int
    deal: int
    entry: Entry
    note: str = ""
    move: PegMove | None = None

    def describe(self) -> str:
        """Short text for a small screen: "Bob hand 8"."""
        what = {EntryKind.START: "3 for last", EntryKind.THIRTY_ONE: "31"}.get(
            self.kind, self.kind.value
        )
        text = f"{self.seat} {what} {self.points}"
        return f"{text} ({self.note})" if self.note else text


# Options a game may change while it is under way: they change what may be entered from then
# on, never what was pegged (muggins: whether a missed count may be claimed).
MID_GAME_OPTIONS = ("muggins",)


class OptionChange(NamedTuple):
    """An option changed mid-game (``name`` one of MID_GAME_OPTIONS, ``value`` a bool): a
    record line of its own (``option muggins on``), in the game's history where it was made,
    so a replay applies it at the same place. It pegs nothing: ``seat`` None, ``pegged`` 0,
    as a history event's entry reads. Immutable.

    >>> from scorer.variants import find_variant
    >>> game = Game(find_variant("six-card"), ["Alice", "Bob"])
    >>> game.change_option(OptionChange("muggins", True))
    OptionChange(name='muggins', value=True)
    >>> game.options.muggins
    True
    """

    name: str
    value: bool

    @property
    def seat(self) -> None:
        return None

    @property
    def points(self) -> int:
        return 0

    @property
    def pegged(self) -> int:
        return 0

    def record(self) -> str:
        return f"option {self.name} {'on' if self.value else 'off'}"

    def describe(self) -> str:
        """Short text for a small screen: "Muggins on, from now"."""
        return f"{self.name.capitalize()} {'on' if self.value else 'off'}, from now"


class Side(NamedTuple):
    """A scoring side: its ``name`` and ``seats`` (a tuple: one seat, or a
    partnership of two). Immutable."""

    name: str
    seats: tuple[str, ...]


class LoserResult(NamedTuple):
    """One losing side's result: the ``side``, its ``score``, the result ``kind`` its
    score makes against the skunk lines, the winner's ``margin`` over it and the
    ``game_points`` it gives. Immutable.

    >>> from scorer.variants import Options
    >>> loser_results((("Alice", 121), ("Bob", 80)), "Alice", 121, Options())[0]
    LoserResult(side='Bob', score=80, kind=<ResultKind.SKUNK: 'skunk'>, margin=41, game_points=3)
    """

    side: str
    score: int
    kind: ResultKind
    margin: int
    game_points: int

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "score": self.score, "result": self.kind.value,
                "margin": self.margin, "game_points": self.game_points}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LoserResult":
        return cls(str(data["side"]), int(data["score"]), ResultKind(data["result"]),
                   int(data["margin"]), int(data["game_points"]))


def loser_results(scores: tuple[tuple[str, int], ...], winner: str, target: int, options: Options,
                  lowball: bool = False) -> tuple[LoserResult, ...]:
    """Every losing side's result, in side order, from the final ``scores``
    (``(side, score)`` pairs): each loser against the skunk lines on its own
    score; in low-ball the one side that reached the target, a plain win.

    >>> from scorer.variants import Options
    >>> [(loser.side, loser.kind.value) for loser in loser_results((("Alice", 121), ("Bob", 95)), "Alice", 121, Options())]
    [('Bob', 'win')]
    """
    table = dict(scores)
    won = table[winner]
    results = []
    for side, score in scores:
        if side == winner:
            continue
        if lowball:
            kind, margin = ResultKind.WIN, score - won
        else:
            kind, margin = result_kind(score, target, options.skunk), won - score
        results.append(LoserResult(side, score, kind, margin, options.points.for_kind(kind)))
    return tuple(results)


class Outcome(NamedTuple):
    """The result of a finished game: the ``winner`` and ``loser`` (side names; the
    loser in low-ball is the side that reached the target), the result ``kind``,
    the ``margin``, the ``game_points``, the final ``scores`` ((side name, score)
    pairs), ``lowball``, and ``losers``: every losing side's LoserResult, in side
    order. Immutable.

    With two sides, ``loser``, ``kind``, ``margin`` and ``game_points`` are the
    one loser's. With more, ``loser`` is the lowest other side, ``kind`` and
    ``margin`` its result (the biggest of the game), and ``game_points`` what
    the winner earns in all: the sum of every loser's (``losers``).

    >>> from scorer.variants import find_variant
    >>> game = Game(find_variant("six-card", 31), ["Alice", "Bob"], dealer="Alice")
    >>> _ = game.push(Entry(EntryKind.PEG, "Bob", 2))
    >>> _ = game.push(Entry(EntryKind.HAND, "Bob", 29))
    >>> game.outcome.winner, game.outcome.loser, game.outcome.margin
    ('Bob', 'Alice', 31)
    """

    winner: str
    loser: str
    kind: ResultKind
    margin: int
    game_points: int
    scores: tuple[tuple[str, int], ...]
    lowball: bool = False
    losers: tuple[LoserResult, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "loser": self.loser,
            "result": self.kind.value,
            "margin": self.margin,
            "game_points": self.game_points,
            "scores": dict(self.scores),
            "lowball": self.lowball,
            "losers": [loser.to_dict() for loser in self.losers],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], target: int | None = None, options: Options | None = None) -> "Outcome":
        """An outcome as ``to_dict`` wrote it. One stored before ``losers`` was kept
        gets them from its scores: the game's ``target`` and ``options`` are needed
        for that with more than two sides (without them, only ``loser`` is listed)."""
        scores = tuple((name, int(score)) for name, score in data["scores"].items())
        kind = ResultKind(data["result"])
        if "losers" in data:
            losers = tuple(LoserResult.from_dict(item) for item in data["losers"])
        elif len(scores) > 2 and target is not None and options is not None:
            losers = loser_results(scores, data["winner"], target, options, bool(data.get("lowball")))
        else:
            table = dict(scores)
            losers = (LoserResult(data["loser"], int(table[data["loser"]]), kind,
                                  int(data["margin"]), int(data["game_points"])),)
        return cls(
            winner=data["winner"],
            loser=data["loser"],
            kind=kind,
            margin=int(data["margin"]),
            game_points=int(data["game_points"]),
            scores=scores,
            lowball=bool(data.get("lowball", False)),
            losers=losers,
        )


class GameState(NamedTuple):
    """Everything that changes as entries are pegged; immutable, one per pegged entry:
    ``scores`` and ``backs`` (tuples, one a side), ``dealer`` (seat index), ``deal``,
    ``phase``, ``shown`` (show counts finished in this deal), ``last_count`` (index
    in ``pegged`` of a count muggins may still be claimed on), ``outcome`` and ``note``.
    A named tuple: ``_replace`` is what replay spends its time on."""

    scores: tuple[int, ...]
    backs: tuple[int, ...]
    dealer: int
    deal: int
    phase: Phase
    shown: int
    last_count: int | None = None
    outcome: Outcome | None = None
    note: str = ""


class HistoryEvent(NamedTuple):
    """One line of the visible history: an ``entry`` (PeggedEntry) accepted, undone
    or redone (``action``: "entry", "undo" or "redo"), or an option changed
    (``action`` "option", ``entry`` the OptionChange). Immutable."""

    action: str
    entry: PeggedEntry | OptionChange

    def record(self) -> str:
        if self.action == "entry" and isinstance(self.entry, PeggedEntry):
            return self.entry.entry.record()
        if self.action == "option" and isinstance(self.entry, OptionChange):
            return self.entry.record()
        return self.action


class Game:
    """One game of cribbage: the rules, the seats, the entries pegged and undo/redo.

    :meth:`push` raises a ``CribbageError`` (whose message fits the OLED) for an entry the rules
    refuse, and changes nothing; :meth:`is_legal` asks without raising.

    >>> from scorer.variants import find_variant
    >>> game = Game(find_variant("six-card"), ["Alice", "Bob"], dealer="Alice")
    >>> game.push(Entry(EntryKind.PEG, "Bob", 2)).pegged, game.score("Bob"), game.phase
    (2, 2, <Phase.PLAY: 'play'>)
    >>> game.push(Entry(EntryKind.PEG, "Carol", 2))
    Traceback (most recent call last):
    ...
    scorer.errors.UnknownSeatError: Carol is not in this game: seats are Alice, Bob
    >>> _ = game.undo()
    >>> game.score("Bob")
    0
    """

    def __init__(
        self,
        variant: Variant,
        seats: list[str] | tuple[str, ...],
        dealer: str | None = None,
        options: Options | None = None,
    ):
        self.variant = variant
        self.options = options or Options()  # as they are now (an option may change mid-game)
        self.start_options = self.options  # as the game began: its game line says these
        self.seats = _check_seats(variant, seats)
        if variant.partnership:
            self.sides = tuple(
                Side(f"{self.seats[i]}+{self.seats[i + 2]}", (self.seats[i], self.seats[i + 2]))
                for i in range(2)
            )
        else:
            self.sides = tuple(Side(seat, (seat,)) for seat in self.seats)
        self._side_of_seat = {
            seat: index for index, side in enumerate(self.sides) for seat in side.seats
        }
        dealer_index = 0 if dealer is None else self._seat_index(dealer, SetupError)
        zero = tuple(0 for _ in self.sides)
        self._base = GameState(zero, zero, dealer_index, 1, Phase.HEELS, 0)
        self._stack: list[tuple[PeggedEntry, GameState]] = []
        self._redo: list[Entry] = []
        self.history: list[HistoryEvent] = []
        if variant.start_bonus:
            pone = self.seats[(dealer_index + 1) % len(self.seats)]
            self._base, bonus = self._peg(
                self._base, EntryKind.START, Entry(EntryKind.START, pone, variant.start_bonus)
            )
            self._start_entries: tuple[PeggedEntry, ...] = (bonus,)
        else:
            self._start_entries = ()

    # ---- queries ---------------------------------------------------------

    @property
    def state(self) -> GameState:
        return self._stack[-1][1] if self._stack else self._base

    @property
    def pegged(self) -> list[PeggedEntry]:
        """The accepted entries in force, oldest first (the start bonus included)."""
        return list(self._start_entries) + [entry for entry, _ in self._stack]

    @property
    def redo_entries(self) -> list[Entry]:
        """Entries undone and not yet redone, the next to redo last."""
        return list(self._redo)

    @property
    def dealer(self) -> str:
        return self.seats[self.state.dealer]

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome

    @property
    def played(self) -> bool:
        """Whether anything was entered (an entry, an undo or a redo): a game replaced
        before its end is abandoned only if so. An option changed is not play."""
        return any(event.action != "option" for event in self.history)

    @property
    def is_over(self) -> bool:
        return self.state.outcome is not None

    @property
    def skunk_lines(self) -> tuple[SkunkLine, ...]:
        """The lines this game's loser is held against: its own rule (``options.skunk``) on its
        target, highest first; none in low-ball, where the loser is the side that got there."""
        if self.variant.lowball:
            return ()
        return skunk_lines(self.variant.target, self.options.skunk)

    @property
    def first_dealer(self) -> str:
        return self.seats[self._base.dealer]

    def side_of(self, seat: str) -> Side:
        """The side a seat scores for."""
        return self.sides[self._side_of_seat[self.seats[self._seat_index(seat)]]]

    def score(self, side: str) -> int:
        return self.state.scores[self._side_index(side)]

    def show_order(self, state: GameState | None = None) -> list[tuple[str, str]]:
        """The whole show of the deal: (seat, "hand"/"crib"), clockwise from the dealer's left."""
        state = state or self.state
        n = len(self.seats)
        order = [(self.seats[(state.dealer + k) % n], "hand") for k in range(1, n + 1)]
        return order + [(self.seats[state.dealer], "crib")]

    def remaining_show(self) -> list[tuple[str, str]]:
        """The counts still to come in this deal's show, next first (empty once over)."""
        if self.is_over:
            return []
        return self.show_order()[self.state.shown:]

    def next_count(self) -> tuple[str, str] | None:
        """The seat and count ("hand" or "crib") the show expects next, or None when over."""
        remaining = self.remaining_show()
        return remaining[0] if remaining else None

    def is_legal(self, entry: Entry) -> bool:
        """Whether :meth:`push` would accept ``entry``."""
        try:
            self._apply(self.state, entry)
        except RuleError:
            return False
        return True

    def check(self, entry: Entry) -> None:
        """Raise the error :meth:`push` would raise for ``entry``; change nothing."""
        self._apply(self.state, entry)

    def header(self) -> str:
        """The game-record line that starts this game."""
        options = self.start_options  # a change made since is a line of the history
        parts = [
            "game",
            self.variant.name,
            "seats=" + ",".join(self.seats),
            f"dealer={self.first_dealer}",
        ]
        if self.variant.target != _default_target(self.variant):
            parts.append(f"target={self.variant.target}")
        if options.exact_out:
            parts.append("exact-out")
        if options.muggins:
            parts.append("muggins")
        if options.skunk.value != "acc":
            parts.append(f"skunk={options.skunk.value}")
        if options.points.spec() != "acc":
            parts.append(f"points={options.points.spec()}")
        return " ".join(parts)

    def record_lines(self) -> list[str]:
        """This game as a game record: the header, then every action in order."""
        return [self.header()] + [event.record() for event in self.history]

    # ---- changes ---------------------------------------------------------

    def push(self, entry: Entry) -> PeggedEntry:
        """Peg an entry, or raise a RuleError and change nothing. Clears redo. The entry
        returned says how it moved its side's peg (:attr:`PeggedEntry.move`)."""
        accepted = self._push(entry)
        self._redo.clear()
        self.history.append(HistoryEvent("entry", accepted))
        return accepted

    def change_option(self, change: OptionChange) -> OptionChange:
        """Change an option from now on (MID_GAME_OPTIONS only); what was pegged stays as it
        is, undo and redo are kept, and the change is a line of the history. RuleError if the
        option cannot change mid-game or already has that value."""
        if not isinstance(change, OptionChange):
            raise RuleError(f"not an option change: {change!r}")
        if change.name not in MID_GAME_OPTIONS:
            raise RuleError(f"{change.name} cannot change mid-game: it applies from the next game")
        if not isinstance(change.value, bool):
            raise RuleError(f"{change.name} is on or off, not {change.value!r}")
        if getattr(self.options, change.name) == change.value:
            raise RuleError(f"{change.name.capitalize()} is {'on' if change.value else 'off'} already")
        changed: dict[str, Any] = {change.name: change.value}
        self.options = self.options._replace(**changed)
        self.history.append(HistoryEvent("option", change))
        return change

    def undo(self) -> PeggedEntry:
        """Take back the last entry in force (any entry of the game); its ``move`` is the one
        now taken back."""
        if not self._stack:
            raise NothingToUndoError("Nothing to undo in this game")
        entry, _ = self._stack.pop()
        self._redo.append(entry.entry)
        self.history.append(HistoryEvent("undo", entry))
        return entry

    def redo(self) -> PeggedEntry:
        """Put back the last entry undone; it moves its side's peg again (:attr:`PeggedEntry.move`)."""
        if not self._redo:
            raise NothingToUndoError("Nothing to redo")
        accepted = self._push(self._redo[-1])
        self._redo.pop()
        self.history.append(HistoryEvent("redo", accepted))
        return accepted

    def _push(self, entry: Entry) -> PeggedEntry:
        state, accepted = self._apply(self.state, entry)
        self._stack.append((accepted, state))
        return accepted

    # ---- the rules -------------------------------------------------------

    def _apply(self, state: GameState, entry: Entry) -> tuple[GameState, PeggedEntry]:
        if state.outcome is not None:
            raise GameOverError(
                f"Game over: {state.outcome.winner} won. Undo, or start a new game"
            )
        if not isinstance(entry, Entry):
            raise RuleError(f"not an entry: {entry!r}")
        if entry.points < 0:
            raise ImpossibleScoreError("Points can't be negative")
        kind = entry.kind
        if kind in FIXED_POINTS and entry.points != FIXED_POINTS[kind]:
            raise ImpossibleScoreError(f"{kind.value} is worth {FIXED_POINTS[kind]}")
        dealer = self.seats[state.dealer]
        if kind is EntryKind.START:
            raise RuleError("The start bonus is pegged by the board at the start of the game")
        if kind is EntryKind.HEELS:
            seat = dealer if entry.seat is None else self.seats[self._seat_index(entry.seat)]
            if state.phase is not Phase.HEELS:
                raise OutOfTurnError("His heels is pegged when the starter is cut, before the play")
            if seat != dealer:
                raise OutOfTurnError(f"Only the dealer, {dealer}, pegs his heels")
            state = state._replace(phase=Phase.PLAY, last_count=None)
            return self._peg(state, kind, Entry(entry.kind, seat, entry.points))
        if kind is EntryKind.CRIB and entry.seat is None:
            entry = Entry(entry.kind, dealer, entry.points)
        if entry.seat is None:
            raise UnknownSeatError(f"{kind.value} needs a seat: one of {', '.join(self.seats)}")
        seat = self.seats[self._seat_index(entry.seat)]
        entry = Entry(entry.kind, seat, entry.points)
        if kind in PLAY_KINDS:
            if state.phase is Phase.SHOW:
                who, what = self.show_order(state)[state.shown]
                raise OutOfTurnError(f"The play is over: {who}'s {what} is next")
            if kind is EntryKind.PEG:
                if entry.points == 0:
                    raise ImpossibleScoreError("Nothing to peg: dial 1 or more")
                if entry.points > MAX_PLAY_POINTS:
                    raise ImpossibleScoreError(
                        f"No card pegs more than {MAX_PLAY_POINTS} in the play"
                    )
            state = state._replace(phase=Phase.PLAY)
            new_state, accepted = self._peg(state, kind, entry)
            return new_state._replace(last_count=self._next_index()), accepted
        if kind in (EntryKind.HAND, EntryKind.CRIB):
            return self._count_show(state, entry)
        if kind is EntryKind.MUGGINS:
            return self._muggins(state, entry)
        raise RuleError(f"unknown entry kind {kind!r}")

    def _count_show(self, state: GameState, entry: Entry) -> tuple[GameState, PeggedEntry]:
        order = self.show_order(state)
        who, what = order[state.shown]
        if entry.kind is EntryKind.CRIB:
            if entry.seat != self.seats[state.dealer]:
                raise OutOfTurnError(f"The crib is the dealer's: {self.seats[state.dealer]}")
            if what != "crib":
                raise OutOfTurnError(f"{who}'s hand comes before the crib")
            size, name = CRIB_SIZE, "crib"
        else:
            if what == "crib":
                raise OutOfTurnError(f"{who}'s crib is next")
            if entry.seat != who:
                raise OutOfTurnError(f"{who} counts next: {_describe_order(order[state.shown:])}")
            size, name = self.variant.hand_size, "hand"
        self._check_show_total(entry.points, size, entry.kind is EntryKind.CRIB, name)
        shown = state.shown + 1
        state = state._replace(phase=Phase.SHOW, shown=shown)
        new_state, accepted = self._peg(state, entry.kind, entry)
        if shown == len(order) and new_state.outcome is None:
            new_state = new_state._replace(
                dealer=(state.dealer + 1) % len(self.seats),
                deal=state.deal + 1,
                phase=Phase.HEELS,
                shown=0,
            )
        return new_state._replace(last_count=self._next_index()), accepted

    def _check_show_total(self, points: int, size: int, crib: bool, name: str) -> None:
        possible = possible_totals(size, crib)
        if points > max(possible):
            raise ImpossibleScoreError(f"{points} is more than a {name} can score ({max(possible)})")
        if points not in possible:
            raise ImpossibleScoreError(f"{points} is not a possible {name}")

    def _muggins(self, state: GameState, entry: Entry) -> tuple[GameState, PeggedEntry]:
        if not self.options.muggins:
            raise RuleError("Muggins is off in this game: turn it on in the options")
        if state.last_count is None:
            raise OutOfTurnError("Muggins is claimed right after a count")
        counted = self.pegged[state.last_count]
        assert entry.seat is not None and counted.seat is not None, "muggins and counts are a seat's"
        if self._side_of_seat[entry.seat] == self._side_of_seat[counted.seat]:
            raise RuleError("Muggins is for an opponent's missed points")
        if entry.points == 0:
            raise ImpossibleScoreError("Nothing to claim: dial 1 or more")
        total = counted.points + entry.points
        if counted.kind in (EntryKind.HAND, EntryKind.CRIB):
            crib = counted.kind is EntryKind.CRIB
            size = CRIB_SIZE if crib else self.variant.hand_size
            possible = possible_totals(size, crib)
            if total not in possible:
                name = counted.kind.value
                raise ImpossibleScoreError(
                    f"{counted.points}+{entry.points}={total} is not a possible {name}"
                )
        elif counted.kind is EntryKind.PEG:
            if total > MAX_PLAY_POINTS:
                raise ImpossibleScoreError(
                    f"{counted.points}+{entry.points}: no card pegs more than {MAX_PLAY_POINTS}"
                )
        else:
            raise RuleError(f"Nothing to claim on {counted.kind.value}")
        new_state, accepted = self._peg(state, EntryKind.MUGGINS, entry)
        return new_state._replace(last_count=None), accepted

    def _peg(self, state: GameState, kind: EntryKind, entry: Entry) -> tuple[GameState, PeggedEntry]:
        """Move the side's pegs; count the game out the instant it reaches the target."""
        assert entry.seat is not None, "the caller names the seat (the dealer's for heels and a crib)"
        side = self._side_of_seat[entry.seat]
        target = self.variant.target
        score = state.scores[side]
        points, note = entry.points, ""
        if self.options.exact_out and score + points > target:
            note = f"{entry.seat} needs exactly {target - score}"
            points = 0
        scores, backs = list(state.scores), list(state.backs)
        move = None
        if points:
            backs[side] = score
            scores[side] = min(score + points, target)
            crossed = tuple(line for line in self.skunk_lines if score < line.below <= scores[side])
            move = PegMove(side, score, scores[side], crossed, scores[side] >= target)
        new_state = state._replace(scores=tuple(scores), backs=tuple(backs), note=note)
        if scores[side] >= target:
            new_state = new_state._replace(phase=Phase.OVER, outcome=self._outcome(side, scores))
        accepted = PeggedEntry(kind, entry.seat, entry.points, points, state.deal, entry, note, move)
        return new_state, accepted

    def _outcome(self, reached: int, scores: list[int]) -> Outcome:
        others = [i for i in range(len(self.sides)) if i != reached]
        if self.variant.lowball:
            winner = min(others, key=lambda i: scores[i])
            loser = reached
        else:
            winner = reached
            loser = min(others, key=lambda i: scores[i])
        final = tuple((side.name, scores[i]) for i, side in enumerate(self.sides))
        losers = loser_results(final, self.sides[winner].name, self.variant.target,
                               self.options, self.variant.lowball)
        lowest = next(result for result in losers if result.side == self.sides[loser].name)
        return Outcome(
            winner=self.sides[winner].name,
            loser=lowest.side,
            kind=lowest.kind,
            margin=lowest.margin,
            game_points=sum(result.game_points for result in losers),
            scores=final,
            lowball=self.variant.lowball,
            losers=losers,
        )

    # ---- helpers ---------------------------------------------------------

    def _next_index(self) -> int:
        return len(self._start_entries) + len(self._stack)

    def _seat_index(self, seat: str, error: type[Exception] = UnknownSeatError) -> int:
        wanted = normal(str(seat).strip()).lower()
        for index, name in enumerate(self.seats):
            if normal(name).lower() == wanted:
                return index
        raise error(f"{seat} is not in this game: seats are {', '.join(self.seats)}")

    def _side_index(self, name: str) -> int:
        wanted = name.strip().lower()
        for index, side in enumerate(self.sides):
            if side.name.lower() == wanted or wanted in (s.lower() for s in side.seats):
                return index
        raise UnknownSeatError(f"{name} is not a side in this game")


def _describe_order(order: list[tuple[str, str]]) -> str:
    return " > ".join(f"{seat} {what}" for seat, what in order)


def _default_target(variant: Variant) -> int:
    base = VARIANTS.get(variant.name)
    return base.target if base else variant.target


def _check_seats(variant: Variant, given: Iterable[object]) -> tuple[str, ...]:
    seats = tuple(str(s).strip() for s in given)
    if len(seats) != variant.players:
        raise SetupError(
            f"{variant.name} is for {variant.players} players, not {len(seats)}: name {variant.players} seats"
        )
    for seat in seats:
        if not seat or any(ch.isspace() or ch in ",=#+" for ch in seat):
            raise SetupError(f"seat name {seat!r}: use letters and digits, no spaces, commas, + or =")
    if len({s.lower() for s in seats}) != len(seats):
        raise SetupError("each seat needs its own name")
    return seats

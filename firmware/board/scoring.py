"""One scoring input, whoever makes it: the knob, a colour button, a script or a seat's phone.

A :class:`ScoreInput` says what is asked (:class:`~firmware.wire.acts.Act`), who asks (:class:`Source`),
for which seat and how many points. :func:`decide` turns it, with the game and the
board's dial, into the action the ledger takes (an :class:`~scorer.game.Entry`, undo
or redo) or a :class:`Refusal` a player can read. It is pure: the controller sends
what it decides to the ledger, so every source goes down the same path.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from hardware.inputs import COLOUR_BUTTONS
from scorer.game import FIXED_POINTS, Entry, EntryKind, Game, Phase
from scorer.record import Command

from ..wire.acts import Act

PHONE_POINTS = 29  # the most a phone's keypad enters at once: a hand's highest count
HEELS_POINTS = FIXED_POINTS[EntryKind.HEELS]


class Source(Enum):
    """Who made an input; the ledger records the board, a script or a seat's phone."""

    KNOB = "knob"
    BUTTON = "button"
    SCRIPT = "script"
    PHONE = "phone"

    @property
    def via(self) -> str:
        """How the ledger names the source of an entry: "board", "script" or "phone"."""
        return "board" if self in (Source.KNOB, Source.BUTTON) else self.value


@dataclass(frozen=True)
class ScoreInput:
    """One scoring input: ``act`` asked by ``source`` for the seat at ``seat`` (its colour
    button's place, 0 for red), with ``points`` (None: the board's dial)."""

    act: Act
    source: Source
    seat: int | None = None
    points: int | None = None
    again: bool = False  # the same input once more, right after a refusal that asked for it again


class NewGame(NamedTuple):
    """Start the next game of the match, or with ``new_match`` a new match (its tally from 0)."""

    new_match: bool = False


class Refusal(NamedTuple):
    """Why an input enters nothing, in words for the OLED and the phone; ``again``: the same
    input once more does what it asked (the refusal said so)."""

    message: str
    again: bool = False


Decision = Entry | Command | NewGame | Refusal


def decide(given: ScoreInput, game: Game, dial: int) -> Decision:
    """The action ``given`` asks of ``game`` with ``dial`` on the board's dial, or why not.
    The rules themselves are the ledger's to apply: an entry decided here may still be refused there.

        >>> from scorer.game import Game
        >>> from scorer.variants import find_variant
        >>> game = Game(find_variant("six-card"), ["Red", "Blue"], dealer="Red")
        >>> decide(ScoreInput(Act.HEELS, Source.PHONE, seat=0), game, dial=0)
        Entry(kind=<EntryKind.HEELS: 'heels'>, seat=None, points=2)
        >>> decide(ScoreInput(Act.HAND, Source.PHONE, seat=0, points=8), game, dial=0).message
        "Blue counts first: Red's hand comes after"
    """
    if given.act is Act.REDO:
        return _redo(given, game)
    if given.act is Act.UNDO:
        return _undo(given, game)
    if given.act in (Act.NEW_GAME, Act.NEW_MATCH):
        return NewGame(new_match=given.act is Act.NEW_MATCH)
    points = dial if given.points is None else given.points
    if points < 0 or (given.source is Source.PHONE and points > PHONE_POINTS):
        return Refusal(f"{points} points: enter 0 to {PHONE_POINTS}")
    if given.act is Act.COUNT:
        expected = game.next_count()
        if expected is None:
            return Refusal("Game over: hold the knob for a new game")
        owner, what = expected
        return Entry.crib(points, owner) if what == "crib" else Entry.hand(owner, points)
    named = _seat_name(given.seat, game)
    if isinstance(named, Refusal):
        return named
    seat = named
    if given.act is Act.HEELS:
        return _heels(seat, game)
    if given.act is Act.GO:
        return Entry.go(seat)
    if given.act is Act.HAND:
        return _show_count(seat, "hand", points, game)
    if given.act is Act.CRIB:
        return _show_count(seat, "crib", points, game)
    if given.act is Act.CLAIM:
        if points == 0 and given.source is Source.PHONE:
            return Refusal("Choose the points the count missed first")
        if points == 0:
            return Refusal("Dial the missed points first, then hold the button")
        return Entry.muggins(seat, points)
    return _peg(given, seat, points, game)


def _peg(given: ScoreInput, seat: str, points: int, game: Game) -> Decision:
    """Points in the play. At the start of a deal the dealer's colour button pegs his heels with
    nothing dialled; with his heels' 2 dialled it asks which is meant (a press again: play points).
    In the show with muggins on, a colour button claims what the last count missed."""
    at_heels = given.source is not Source.PHONE and game.phase is Phase.HEELS and seat == game.dealer
    if points == 0:
        if at_heels:
            return Entry.heels()
        if given.source is Source.PHONE:
            return Refusal("Choose the points first")
        return Refusal("Dial the points first, then press")
    if at_heels and given.source is Source.BUTTON and points == HEELS_POINTS and not given.again:
        button = COLOUR_BUTTONS[given.seat or 0]
        return Refusal(f"His heels (a jack cut)? Dial 0, press {button}. "
                       f"Play points: press {button} again", again=True)
    if given.source is not Source.PHONE and game.phase is Phase.SHOW and game.options.muggins:
        return Entry.muggins(seat, points)
    return Entry.peg(seat, points)


def _heels(seat: str, game: Game) -> Decision:
    if seat != game.dealer:
        return Refusal(f"His heels are the dealer's: {game.dealer} deals")
    return Entry.heels()


def _show_count(seat: str, what: str, points: int, game: Game) -> Decision:
    """A seat's own hand or crib: only when it is the count the show expects next."""
    if what == "crib" and seat != game.dealer:
        return Refusal(f"The crib is the dealer's: {game.dealer} deals")
    expected = game.next_count()
    if expected is not None and expected != (seat, what):
        owner, count = expected
        if owner == seat:
            return Refusal(f"Your {count} counts first")
        later = "your crib" if what == "crib" else f"{seat}'s hand"
        return Refusal(f"{owner} counts first: {later} comes after")
    return Entry.crib(points, seat) if what == "crib" else Entry.hand(seat, points)


def _undo(given: ScoreInput, game: Game) -> Decision:
    """Undo: from the board, the last entry whoever's it is; from a seat's phone, only its own."""
    if given.source is not Source.PHONE:
        return Command.UNDO
    seat = _seat_name(given.seat, game)
    if isinstance(seat, Refusal):
        return seat
    if not game.pegged:
        return Refusal("Nothing to undo in this game")
    last = game.pegged[-1]
    if last.seat != seat:
        return Refusal(f"The last entry is {last.seat}'s ({last.describe()}): undo it on the board")
    return Command.UNDO


def _redo(given: ScoreInput, game: Game) -> Decision:
    """Redo: from the board, the last entry undone whoever's it is; from a seat's phone, only its own."""
    if given.source is not Source.PHONE:
        return Command.REDO
    seat = _seat_name(given.seat, game)
    if isinstance(seat, Refusal):
        return seat
    undone = game.redo_entries
    if not undone:
        return Refusal("Nothing to redo in this game")
    owner = undone[-1].seat or game.dealer  # his heels and a crib with no seat named are the dealer's
    if owner != seat:
        return Refusal(f"The entry to redo is {owner}'s: redo it on the board")
    return Command.REDO


def player_of(given: ScoreInput, game: Game) -> str | None:
    """The player at the input's seat in ``game``, None if it names none there."""
    named = _seat_name(given.seat, game)
    return None if isinstance(named, Refusal) else named


def _seat_name(index: int | None, game: Game) -> str | Refusal:
    """The player at a seat (a colour button's place), or why there is none."""
    if index is None or not 0 <= index < len(COLOUR_BUTTONS):
        return Refusal("No seat given")
    if index >= len(game.seats):
        return Refusal(f"No player on the {COLOUR_BUTTONS[index]} button in {game.variant.name}")
    return game.seats[index]

"""What one input did, and what the board shows after it: the controller's answer to every input (pure data).

:meth:`firmware.board.controller.Controller.handle` returns a :class:`Handled` for
each input: its :class:`Outcome`, the view of the game, the OLED's screen and, for
a phone's request, the answer. The board loop (slides, the win chase, the drawing),
the tones (:func:`firmware.board.tunes.sound_for`) and the simulator's script runner
read it. Nothing downstream works out what a press did by comparing before with after.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from scorer.variants import SkunkLine

if TYPE_CHECKING:
    from .screens import Screen
    from .view import GameView


class Did(Enum):
    """Whether an input made an entry, was refused, or entered nothing (a turn of the dial, a menu step)."""

    ACCEPTED = "accepted"
    REFUSED = "refused"
    NOTHING = "nothing"


@dataclass(frozen=True)
class Move:
    """A front peg that moved (scores ``start`` to ``end``) at clock time ``at``: for the LED slide."""

    side: int
    start: int
    end: int
    at: float


@dataclass(frozen=True)
class Made:
    """One entry the ledger took: the ``action`` sent (an Entry, undo or redo, a game
    header), what the ledger returned (``result``: the entry pegged, or the new game),
    and ``text`` as the board says it ("Blue hand 8", "Undone: Red peg 2")."""

    action: object
    result: object
    text: str


@dataclass(frozen=True)
class Crossed:
    """A side's score rose over one of the game's own skunk lines."""

    side: int
    line: SkunkLine


@dataclass(frozen=True)
class Outcome:
    """What one input did.

    ``did``: accepted (``made`` holds the entries, in order), refused (``message`` says
    why), or nothing. ``moves``: the front pegs that moved; ``crossed``: the skunk lines
    a score rose over; ``won``: the game ended with this input; ``new_game``: a game
    began; ``play_over``: a knob press ended the play and began the show. ``message``:
    the line the OLED shows for it; ``redraw``: the screen or LEDs change (the dial
    turned, a menu moved)."""

    did: Did = Did.NOTHING
    made: tuple[Made, ...] = ()
    moves: tuple[Move, ...] = ()
    crossed: tuple[Crossed, ...] = ()
    won: bool = False
    new_game: bool = False
    play_over: bool = False
    message: str = ""
    redraw: bool = False

    @property
    def accepted(self) -> bool:
        return self.did is Did.ACCEPTED

    @property
    def refused(self) -> bool:
        return self.did is Did.REFUSED


NOTHING = Outcome()


@dataclass(frozen=True)
class Handled:
    """What the controller made of one input, and what the board shows after it.

    ``outcome``: what the input did; ``view``: the game as the LEDs show it; ``screen``:
    what the OLED shows; ``reply``: the answer for the phone whose request it was (None for
    any other input); ``panel``: the name of the open menu or picker ("" for the game's own
    screen); ``notice``: a device's problem is on the OLED; ``dial``: the points dialled;
    ``shutdown``: the menu's Shut down was chosen, so the board saves, goes dark and ends."""

    outcome: Outcome
    view: GameView
    screen: Screen
    reply: dict | None = None
    panel: str = ""
    notice: bool = False
    dial: int = 0
    shutdown: bool = False

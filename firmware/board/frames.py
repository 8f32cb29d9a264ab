"""What the LEDs show: a game's pegs as a colour for every LED of the strip (pure).

Front and back peg per side, as on a wooden board; paler each lap past the
first; the game's own skunk lines (its rule: ACC, lurch, triple or none)
marked faintly (in the dealer's colour on the dealer's track); a slide when a peg moves and a chase along the winner's track.
Nothing here touches a device: the board loop hands the frame to the strip.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hardware.layout import HOLES_PER_TRACK, START_HOLE, Layout, peg_hole

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)
MARK_WHITE: RGB = (255, 255, 255)


# How much white each lap mixes into a side's colour: lap 1 the colour itself,
# lap 2 paler, lap 3 (and any later) palest.
LAP_TINTS = (0.0, 0.4, 0.8)
BLINK_SECONDS = 0.5  # a blinking back peg: this long bright, this long dim
BLINK_DIM = 0.35  # the dim half of a blink, beside the back peg's level


@dataclass(frozen=True)
class LedStyle:
    """Side colours and the relative brightness of back pegs and marks;
    ``blink_back`` makes the back peg blink (bright, dim) so it is told apart by more than colour."""

    colours: tuple[RGB, ...] = ((255, 0, 0), (0, 80, 255), (0, 192, 0), (255, 176, 0))
    back_peg: float = 0.25
    marks: float = 0.06
    blink_back: bool = False

    def colour(self, side: int, lap: int = 0) -> RGB:
        """A side's front-peg colour on a lap (0 the first): paler each lap (see LAP_TINTS)."""
        return lap_shade(self.colours[side % len(self.colours)], lap)

    def back_levels(self) -> tuple[float, ...]:
        """The brightness a back peg may show: steady, or the two halves of its blink."""
        return (self.back_peg, self.back_peg * BLINK_DIM) if self.blink_back else (self.back_peg,)

    def back_level(self, now: float | None) -> float:
        """The back peg's brightness at clock time ``now`` (None: the bright half)."""
        if not self.blink_back or now is None or int(now // BLINK_SECONDS) % 2 == 0:
            return self.back_peg
        return self.back_peg * BLINK_DIM


def lap_shade(colour: RGB, lap: int) -> RGB:
    """``colour`` on lap ``lap`` (0 the first): mixed with white by LAP_TINTS."""
    mix = LAP_TINTS[max(0, min(lap, len(LAP_TINTS) - 1))]
    red, green, blue = (int(c + (255 - c) * mix + 0.5) for c in colour)
    return red, green, blue


def next_blink(now: float) -> float:
    """When a blinking back peg next changes (clock time)."""
    return (int(now // BLINK_SECONDS) + 1) * BLINK_SECONDS


@dataclass(frozen=True)
class Slide:
    """A front peg on its way from ``start`` to ``end`` (scores), ``progress`` 0 to 1."""

    side: int
    start: int
    end: int
    progress: float


@dataclass(frozen=True)
class BoardView:
    """What the LEDs show of a game: made from the board's view of it
    (:attr:`firmware.board.view.GameView.board`)."""

    target: int
    scores: tuple[int, ...]
    backs: tuple[int, ...]
    dealer_side: int
    winner_side: int | None
    skunk_marks: tuple[int, ...] = ()  # the game's skunk lines: the score each starts at


def scale(colour: RGB, level: float) -> RGB:
    """``colour`` at brightness ``level`` (0 to 1)."""
    return _scaled(tuple(colour), level)


@lru_cache(maxsize=256)  # a frame asks for the same few (colour, level) pairs each time
def _scaled(colour: RGB, level: float) -> RGB:
    red, green, blue = (min(255, int(c * level + 0.5)) for c in colour)
    return red, green, blue


def led_frame(
    layout: Layout,
    board: BoardView,
    style: LedStyle = LedStyle(),
    slide: Slide | None = None,
    celebrate: float | None = None,
    now: float | None = None,
) -> list[RGB]:
    """The colour of every LED: marks first, then lap marks, back pegs, and front pegs on top.

    On its second lap and later, a side's pegs take a paler shade of its colour
    (:func:`lap_shade`) and its start hole is lit in the front peg's shade: the
    lap mark. ``celebrate`` (seconds since the win) runs a chase along the
    winner's track; ``now`` times a blinking back peg. Sides beyond the
    layout's tracks are not drawn (the board loop says so).
    """
    frame = [OFF] * layout.strip_leds
    faint = scale(MARK_WHITE, style.marks)
    shown = min(len(board.scores), len(layout.tracks))
    for track in range(shown):
        # The game's skunk lines, on the dealer's track in the dealer's colour.
        mark = faint
        if track == board.dealer_side:
            mark = scale(style.colours[track % len(style.colours)], style.marks * 2)
        for below in board.skunk_marks:
            hole, _ = peg_hole(below, board.target)
            if 1 <= hole <= HOLES_PER_TRACK:
                frame[layout.led(track, hole)] = mark
    frame[layout.game_hole.led] = faint
    if board.winner_side is not None and board.winner_side < shown and celebrate is not None:
        colour = scale(style.colours[board.winner_side], style.back_peg)
        offset = int(celebrate * 20) % 6
        for hole in range(1 + offset, HOLES_PER_TRACK + 1, 6):
            frame[layout.led(board.winner_side, hole)] = colour
    back_level = style.back_level(now)
    for side, (score, back) in enumerate(zip(board.scores[:shown], board.backs[:shown])):
        front = score
        if slide is not None and slide.side == side:
            front = slide.start + round((slide.end - slide.start) * max(0.0, min(1.0, slide.progress)))
        front_hole, lap = peg_hole(front, board.target)
        back_hole, back_lap = peg_hole(back, board.target)
        colour = style.colour(side, lap)
        start = layout.starts[side]
        if lap and start is not None:
            frame[start.led] = colour  # the lap mark
        if (back_hole, back_lap) != (front_hole, lap) and (back or score):
            _light(layout, frame, side, back_hole, scale(style.colour(side, back_lap), back_level))
        _light(layout, frame, side, front_hole, colour)
    return frame


def _light(layout: Layout, frame: list[RGB], track: int, hole: int, colour: RGB) -> None:
    if hole == START_HOLE and layout.starts[track] is None:
        return
    frame[layout.led(track, hole)] = colour


def light_game_counters(layout: Layout, frame: list[RGB], wins, style: LedStyle = LedStyle()) -> None:
    """Light each side's game counters in its colour, one for each game ``wins[side]`` says it won
    in the match (all of its row from as many wins as it has counters: the OLED gives the whole
    tally); the rest stay dark. A layout without game counters is left as it is."""
    for side, row in enumerate(layout.counters):
        won = wins[side] if side < len(wins) else 0
        for hole in row[:max(0, won)]:
            frame[hole.led] = style.colour(side)

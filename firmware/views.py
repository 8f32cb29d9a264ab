"""Pure views: game state to LED colours, screen model to a 128x64 OLED image.

Nothing here touches a device; the app hands the results to the strip and
the display, and the tests compare them with expected frames and images.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from hardware.layout import GAME_HOLE, HOLES_PER_TRACK, START_HOLE, Layout
from scorer.game import Game

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
    return tuple(int(c + (255 - c) * mix + 0.5) for c in colour)


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
    """What the LEDs show of a game."""

    target: int
    scores: tuple[int, ...]
    backs: tuple[int, ...]
    dealer_side: int
    winner_side: int | None

    @classmethod
    def of(cls, game: Game) -> "BoardView":
        state = game.state
        dealer_side = next(i for i, s in enumerate(game.sides) if game.dealer in s.seats)
        winner = None
        if game.outcome is not None:
            winner = next(i for i, s in enumerate(game.sides) if s.name == game.outcome.winner)
        return cls(game.variant.target, state.scores, state.backs, dealer_side, winner)


def peg_hole(score: int, target: int) -> tuple[int, int]:
    """(hole, lap) for a score: 0 is the start hole, the target the game hole;
    past 120 (a 181 game) the peg goes round again (lap 1 is the second lap)."""
    if score <= 0:
        return START_HOLE, 0
    if score >= target:
        return GAME_HOLE, 0
    return (score - 1) % HOLES_PER_TRACK + 1, (score - 1) // HOLES_PER_TRACK


def _scale(colour: RGB, level: float) -> RGB:
    return _scaled(tuple(colour), level)


@lru_cache(maxsize=256)  # a frame asks for the same few (colour, level) pairs each time
def _scaled(colour: RGB, level: float) -> RGB:
    return tuple(min(255, int(c * level + 0.5)) for c in colour)


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
    layout's tracks are not drawn (the app says so).
    """
    frame = [OFF] * layout.strip_leds
    faint = _scale(MARK_WHITE, style.marks)
    shown = min(len(board.scores), len(layout.tracks))
    for track in range(shown):
        # The dealer's track shows its skunk-line marks in the dealer's colour.
        mark = faint
        if track == board.dealer_side:
            mark = _scale(style.colours[track % len(style.colours)], style.marks * 2)
        for line in (board.target - 30, board.target - 60):
            if line > 0:
                hole, _ = peg_hole(line, board.target)
                if 1 <= hole <= HOLES_PER_TRACK:
                    frame[layout.led(track, hole)] = mark
    frame[layout.game_hole.led] = faint
    if board.winner_side is not None and board.winner_side < shown and celebrate is not None:
        colour = _scale(style.colours[board.winner_side], style.back_peg)
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
        if lap and layout.starts[side] is not None:
            frame[layout.starts[side].led] = colour  # the lap mark
        if (back_hole, back_lap) != (front_hole, lap) and (back or score):
            _light(layout, frame, side, back_hole, _scale(style.colour(side, back_lap), back_level))
        _light(layout, frame, side, front_hole, colour)
    return frame


def lap_of(score: int, target: int) -> int:
    """The lap a score's peg is on, counted from 1 (the game hole ends the last lap)."""
    return peg_hole(score, target)[1] + 1 if 0 < score < target else 1


def lap_note(names: tuple[str, ...], scores: tuple[int, ...], target: int) -> str:
    """"lap 2" when every side is past its first lap on the same one, else "Red lap 2" per side
    past its first; "" on the first lap."""
    laps = [lap_of(score, target) for score in scores]
    if all(lap == laps[0] > 1 for lap in laps):
        return f"lap {laps[0]}"
    return ", ".join(f"{name[:6]} lap {lap}" for name, lap in zip(names, laps) if lap > 1)


# The buzzer's tunes: (Hz, seconds) notes, 0 Hz a rest (hardware.buzzer plays 110-1760 Hz).
TUNES: dict[str, tuple[tuple[float, float], ...]] = {
    "accept": ((1319.0, 0.05),),  # a short high blip: the entry is saved
    "refuse": ((196.0, 0.12), (0.0, 0.04), (147.0, 0.2)),  # low, falling: nothing changed
    "skunk": ((784.0, 0.08), (988.0, 0.08), (1175.0, 0.14)),  # rising: a side is over a skunk line
    "win": ((784.0, 0.1), (988.0, 0.1), (1175.0, 0.1), (1568.0, 0.35)),  # a fanfare: game over
}


def sound_for(
    before: tuple[int, ...], after: tuple[int, ...], target: int, lines: str,
    won: bool, accepted: bool, refused: bool,
) -> str | None:
    """The tone for what one input did: "win" (the game just ended), "skunk" (a side's
    score rose over a skunk line), "accept" (any other entry taken), "refuse", or None."""
    if won:
        return "win"
    if accepted:
        if before and any(b < line <= a for b, a in zip(before, after) for line in skunk_lines(target, lines)):
            return "skunk"
        return "accept"
    return "refuse" if refused else None


def skunk_lines(target: int, lines: str) -> tuple[int, ...]:
    """The scores a loser must reach to escape each skunk line (``lines``: acc, lurch,
    triple or none), highest first."""
    if lines == "lurch":
        return ((target + 1) // 2,)
    if lines == "none":
        return ()
    found = (target - 30, target - 60) + ((target - 90,) if lines == "triple" else ())
    return tuple(line for line in found if line > 0)


def _light(layout: Layout, frame: list[RGB], track: int, hole: int, colour: RGB) -> None:
    if hole == START_HOLE and layout.starts[track] is None:
        return
    frame[layout.led(track, hole)] = colour


# ---- the OLED ------------------------------------------------------------

WIDTH, HEIGHT = 128, 64


@lru_cache(maxsize=None)
def font(size: int) -> ImageFont.ImageFont:
    """Pillow's own scalable font: no system font needed."""
    return ImageFont.load_default(size=size)


@dataclass(frozen=True)
class Screen:
    """What the OLED shows: a title line, body lines, an optional big number, a footer.

    ``highlight`` inverts one body line (a menu cursor); ``alert`` inverts the footer
    (a refusal)."""

    title: str = ""
    lines: tuple[str, ...] = ()
    big: str | None = None
    big_caption: str = ""
    footer: str = ""
    alert: bool = False
    highlight: int | None = None
    scores: tuple[tuple[str, str, str], ...] = ()  # large scores: (name, score, note) per side
    picture: object = None  # a whole 128x64 image drawn elsewhere (the phone view's QR code)


def scores_screen(game: Game, dial: int = 0, message: str = "", alert: bool = False) -> Screen:
    """The large-scores OLED mode: every side's score, large, and whose count is next
    (or who won); the dial and an alert take the footer when there is one."""
    state, target = game.state, game.variant.target
    cells = []
    for index, side in enumerate(game.sides):
        dealer = "*" if game.dealer in side.seats else ""
        lap = lap_of(state.scores[index], target)
        cells.append((side.name[:8] + dealer, str(state.scores[index]), f"lap {lap}" if lap > 1 else ""))
    if alert and message:
        footer = message
    elif game.outcome is not None:
        footer = f"{game.outcome.winner} wins, by {game.outcome.margin}"
    else:
        seat, what = game.next_count()
        footer = (f"dial {dial}: " if dial else "next: ") + f"{seat} {what}"
    return Screen(scores=tuple(cells), footer=footer, alert=alert and bool(message))


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> str:
    f = font(size)
    if draw.textlength(text, font=f) <= width:
        return text
    while text and draw.textlength(text + "~", font=f) > width:
        text = text[:-1]
    return text + "~"


def _wrap(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, lines: int) -> list[str]:
    words, out, current = text.split(), [], ""
    for word in words:
        trial = f"{current} {word}".strip()
        if draw.textlength(trial, font=font(size)) <= width:
            current = trial
        else:
            out.append(current)
            current = word
    out.append(current)
    if len(out) > lines:
        out = out[:lines]
        out[-1] = _fit(draw, out[-1] + " ...", size, width)
    return [_fit(draw, line, size, width) for line in out]


def oled_image(screen: Screen) -> Image.Image:
    """Draw a screen model as a 1-bit 128x64 image.

    Title (12 px) and a rule; then either the big number with a caption of up
    to 3 lines beside it, or body lines; the footer at the bottom, two lines
    for an alert (covering a body line if need be). A screen with a ``picture`` is that picture."""
    if screen.picture is not None:
        return screen.picture.convert("1")
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    if screen.scores:
        _draw_scores(draw, screen)
        return image
    y = 0
    if screen.title:
        draw.text((0, -1), _fit(draw, screen.title, 12, WIDTH), font=font(12), fill=1)
        y = 13
        draw.line((0, y - 1, WIDTH - 1, y - 1), fill=1)
    if screen.big is not None:
        big = font(26)
        draw.text((1, y - 2), screen.big, font=big, fill=1)
        caption_x = int(draw.textlength(screen.big, font=big)) + 6
        for k, line in enumerate(_wrap(draw, screen.big_caption, 10, WIDTH - caption_x, 3)):
            draw.text((caption_x, y + 10 * k - 2), line, font=font(10), fill=1)
        y += 29
    footer_lines = 0
    if screen.footer:
        room = 2 if screen.alert or y + 11 * len(screen.lines) <= HEIGHT - 22 else 1
        footer = _wrap(draw, screen.footer, 10, WIDTH - 2, room)
        footer_lines = len(footer)
    for index, line in enumerate(screen.lines):
        if y + 10 > HEIGHT - 11 * footer_lines:
            break
        text = _fit(draw, line, 10, WIDTH - 2)
        if index == screen.highlight:
            draw.rectangle((0, y, WIDTH - 1, y + 10), fill=1)
            draw.text((2, y - 1), text, font=font(10), fill=0)
        else:
            draw.text((0, y - 1), text, font=font(10), fill=1)
        y += 11
    if footer_lines:
        top = HEIGHT - 11 * footer_lines
        if screen.alert:
            draw.rectangle((0, top, WIDTH - 1, HEIGHT - 1), fill=1)
        for k, line in enumerate(footer):
            draw.text((1, top + 11 * k - 1), line, font=font(10), fill=0 if screen.alert else 1)
    return image


def _draw_scores(draw: ImageDraw.ImageDraw, screen: Screen) -> None:
    """Large scores: two sides in two columns (score 30 px high), three or four in a
    2x2 grid (20 px); the footer's one line at the bottom, inverted for an alert."""
    cells = screen.scores
    columns, rows = (len(cells), 1) if len(cells) <= 2 else (2, 2)
    width, height = WIDTH // columns, (HEIGHT - 11) // rows
    size = 30 if rows == 1 else 20
    for index, (name, score, note) in enumerate(cells):
        x, y = (index % columns) * width, (index // columns) * height
        draw.text((x + 1, y - 1), _fit(draw, name, 10, width - 2), font=font(10), fill=1)
        if rows == 1:
            draw.text((x + 1, y + 8), _fit(draw, score, size, width - 2), font=font(size), fill=1)
            if note:
                draw.text((x + 1, y + 40), note, font=font(10), fill=1)
        else:
            shown = _fit(draw, score, size, width - 4)
            right = x + width - 3 - int(draw.textlength(shown, font=font(size)))
            draw.text((right, y + 1), shown, font=font(size), fill=1)
            if note:
                draw.text((x + 1, y + 10), note, font=font(10), fill=1)
    if columns == 2:
        draw.line((WIDTH // 2 - 1, 0, WIDTH // 2 - 1, HEIGHT - 13), fill=1)
    top = HEIGHT - 11
    text = _fit(draw, screen.footer, 10, WIDTH - 2)
    if screen.alert:
        draw.rectangle((0, top, WIDTH - 1, HEIGHT - 1), fill=1)
    else:
        draw.line((0, top - 1, WIDTH - 1, top - 1), fill=1)
    draw.text((1, top - 1), text, font=font(10), fill=0 if screen.alert else 1)

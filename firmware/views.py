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


@dataclass(frozen=True)
class LedStyle:
    """Side colours and the relative brightness of back pegs and marks."""

    colours: tuple[RGB, ...] = ((255, 0, 0), (0, 80, 255), (0, 192, 0), (255, 176, 0))
    back_peg: float = 0.25
    marks: float = 0.06


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
    past 120 (a 181 game) the peg goes round again (lap 1)."""
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
) -> list[RGB]:
    """The colour of every LED: marks first, then back pegs, then front pegs on top.

    ``celebrate`` (seconds since the win) runs a chase along the winner's track.
    Sides beyond the layout's tracks are not drawn (the app says so).
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
    for side, (score, back) in enumerate(zip(board.scores[:shown], board.backs[:shown])):
        colour = style.colours[side % len(style.colours)]
        front = score
        if slide is not None and slide.side == side:
            front = slide.start + round((slide.end - slide.start) * max(0.0, min(1.0, slide.progress)))
        front_hole, lap = peg_hole(front, board.target)
        back_hole, _ = peg_hole(back, board.target)
        if lap and layout.starts[side] is not None:
            frame[layout.starts[side].led] = _scale(colour, style.back_peg)
        if back_hole != front_hole and (back or score):
            _light(layout, frame, side, back_hole, _scale(colour, style.back_peg))
        _light(layout, frame, side, front_hole, colour)
    return frame


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
    picture: object = None  # a whole 128x64 image drawn elsewhere (the phone view's QR code)


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

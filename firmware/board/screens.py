"""What the OLED shows: a screen model, drawn as a 128x64 1-bit image (pure).

The controller, the menus and the pickers describe a :class:`Screen` (a title,
body lines, a big number with its caption, a footer, an alert); :func:`oled_image`
draws it with Pillow's own font. The large-scores mode is :func:`scores_screen`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from hardware.display import HEIGHT, WIDTH

from .view import GameView, lap_note, lap_text, next_text, scores_titles, side_name, status_texts, won_text

__all__ = ["Screen", "font", "game_status", "game_title", "lap_note", "oled_image", "scores_screen"]  # lap_note: .view's, named here too


@lru_cache(maxsize=None)
def font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
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
    picture: Image.Image | None = None  # a whole 128x64 image drawn elsewhere (the phone view's QR code)


def scores_screen(view: GameView, dial: int = 0, message: str = "", alert: bool = False) -> Screen:
    """The large-scores OLED mode: every side's score, large, and whose count is next
    (or who won); the dial and an alert take the footer when there is one."""
    cells = tuple((side_name(view, i, 8), str(score), lap_text(view, i)) for i, score in enumerate(view.scores))
    if alert and message:
        footer = message
    elif view.outcome is not None:
        footer = won_text(view)
    else:
        footer = (f"dial {dial}: " if dial else "next: ") + next_text(view)
    return Screen(scores=cells, footer=footer, alert=alert and bool(message))


@lru_cache(maxsize=1024)
def _stamp(text: str, size: int) -> tuple[tuple[int, int], Image.Image] | None:
    """``text`` in the font of ``size`` px drawn once, as a 1-bit mask cut to its ink, and where that ink
    sits from the point the text is drawn at; None for a text with no ink. Screens repeat their lines,
    and rendering a line is most of what drawing a screen costs (bench/README.md)."""
    box = font(size).getbbox(text, mode="1")
    left, top, right, bottom = math.floor(box[0]), math.floor(box[1]), math.ceil(box[2]), math.ceil(box[3])
    if right <= left or bottom <= top:
        return None
    mask = Image.new("1", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font(size), fill=1)
    return (left, top), mask


def _text(image: Image.Image, xy: tuple[int, int], text: str, size: int, fill: int) -> None:
    """What ``ImageDraw.Draw(image).text(xy, text, font=font(size), fill=fill)`` draws, from the text's stamp."""
    stamp = _stamp(text, size)
    if stamp is not None:
        (left, top), mask = stamp
        image.paste(fill, (xy[0] + left, xy[1] + top), mask)


def _length(draw: ImageDraw.ImageDraw, text: str, size: int) -> float:
    """How wide ``text`` is drawn by ``draw`` in the font of ``size`` px."""
    return _measured(draw.mode, text, size)


@lru_cache(maxsize=4096)
def _measured(mode: str, text: str, size: int) -> float:
    """A text's width, measured once: screens repeat their lines, and fitting one measures it a letter at a time."""
    return ImageDraw.Draw(Image.new(mode, (1, 1))).textlength(text, font=font(size))


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> str:
    if _length(draw, text, size) <= width:
        return text
    while text and _length(draw, text + "~", size) > width:
        text = text[:-1]
    return text + "~"


def _wrap(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, lines: int) -> list[str]:
    """``text`` in lines that fit ``width``, broken between words (a word too long for a line, inside
    it); past ``lines`` lines the last is cut ("...")."""
    words, out, current = text.split(), [], ""
    for word in words:
        trial = f"{current} {word}".strip()
        if _length(draw, trial, size) <= width:
            current = trial
            continue
        if current:
            out.append(current)
        while _length(draw, word, size) > width:  # a word wider than a line, in pieces
            piece = _fit(draw, word, size, width)[:-1] or word[:1]
            out.append(piece)
            word = word[len(piece):]
        current = word
    out.append(current)
    if len(out) > lines:
        out = out[:lines]
        out[-1] = _fit(draw, out[-1] + " ...", size, width)
    return [_fit(draw, line, size, width) for line in out]


TITLE_SIZE, SMALL_TITLE_SIZE, LINE_SIZE = 12, 10, 10  # px: the title's font, a title too long for it, a body line's
LINE_WIDTH = WIDTH - 2  # px a body line has


def fits(text: str, size: int, width: int) -> bool:
    """Whether ``text`` in the font of ``size`` px is drawn within ``width`` px."""
    return _measured("1", text, size) <= width


def first_fitting(forms: tuple[str, ...], size: int = LINE_SIZE, width: int = LINE_WIDTH) -> str:
    """The first of ``forms`` (each shorter than the one before) that fits ``width`` px in the font of
    ``size`` px; the last one when none does."""
    return next((form for form in forms if fits(form, size, width)), forms[-1])


def title_size(title: str) -> int:
    """The font a title is drawn in: TITLE_SIZE, or SMALL_TITLE_SIZE when it is too wide for that."""
    return TITLE_SIZE if fits(title, TITLE_SIZE, WIDTH) else SMALL_TITLE_SIZE


def game_title(view: GameView) -> str:
    """Every side's name and score, as long as the OLED's title holds them (in its own font if any form
    fits, else in the smaller one): "Red* 14  Blue 10", down to "R* 120 B 120 G 120 Y 120"."""
    forms = scores_titles(view)
    return next((form for form in forms if fits(form, TITLE_SIZE, WIDTH)), first_fitting(forms, SMALL_TITLE_SIZE, WIDTH))


def game_status(view: GameView, club: str = "", mark: str = "") -> str:
    """The status line under the dial (:func:`.view.status_texts`), shortened on purpose to fit, never cut."""
    return first_fitting(status_texts(view, club, mark))


FOOTER_MOST = 5  # footer lines the OLED holds: four under the title, five over it


def footer_lines(text: str) -> list[str]:
    """A footer as the OLED's lines, each whole; past FOOTER_MOST lines the last is cut ("...")."""
    return _wrap(ImageDraw.Draw(Image.new("1", (1, 1))), text, 10, WIDTH - 2, FOOTER_MOST) if text else []


def oled_image(screen: Screen) -> Image.Image:
    """Draw a screen model as a 1-bit 128x64 image.

    Title (12 px) and a rule; then either the big number with a caption of up
    to 3 lines beside it, or body lines; the footer at the bottom, on as many
    lines as it needs, over the body lines (and over the title at five). A screen with a ``picture`` is that picture."""
    if screen.picture is not None:
        return screen.picture.convert("1")
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    if screen.scores:
        _draw_scores(image, draw, screen)
        return image
    footer = footer_lines(screen.footer)
    footer_top = HEIGHT - 11 * len(footer)
    y = 0
    if screen.title and len(footer) < FOOTER_MOST:
        size = title_size(screen.title)
        _text(image, (0, -1 if size == TITLE_SIZE else 0), _fit(draw, screen.title, size, WIDTH), size, 1)
        y = 13
        draw.line((0, y - 1, WIDTH - 1, y - 1), fill=1)
    if screen.big is not None:
        _text(image, (1, y - 2), screen.big, 26, 1)
        caption_x = int(_length(draw, screen.big, 26)) + 6
        for k, line in enumerate(_wrap(draw, screen.big_caption, 10, WIDTH - caption_x, 3)):
            _text(image, (caption_x, y + 10 * k - 2), line, 10, 1)
        y += 29
    for index, line in enumerate(screen.lines):
        if y + 10 > footer_top:
            break
        text = _fit(draw, line, 10, WIDTH - 2)
        if index == screen.highlight:
            draw.rectangle((0, y, WIDTH - 1, y + 10), fill=1)
            _text(image, (2, y - 1), text, 10, 0)
        else:
            _text(image, (0, y - 1), text, 10, 1)
        y += 11
    if footer:
        draw.rectangle((0, footer_top, WIDTH - 1, HEIGHT - 1), fill=1 if screen.alert else 0)
        for k, line in enumerate(footer):
            _text(image, (1, footer_top + 11 * k - 1), line, 10, 0 if screen.alert else 1)
    return image


def _draw_scores(image: Image.Image, draw: ImageDraw.ImageDraw, screen: Screen) -> None:
    """Large scores: two sides in two columns (score 30 px high), three or four in a
    2x2 grid (20 px); the footer's one line at the bottom; an alert inverted, on the
    lines it needs."""
    cells = screen.scores
    columns, rows = (len(cells), 1) if len(cells) <= 2 else (2, 2)
    width, height = WIDTH // columns, (HEIGHT - 11) // rows
    size = 30 if rows == 1 else 20
    for index, (name, score, note) in enumerate(cells):
        x, y = (index % columns) * width, (index // columns) * height
        _text(image, (x + 1, y - 1), _fit(draw, name, 10, width - 2), 10, 1)
        if rows == 1:
            _text(image, (x + 1, y + 8), _fit(draw, score, size, width - 2), size, 1)
            if note:
                _text(image, (x + 1, y + 40), note, 10, 1)
        else:
            shown = _fit(draw, score, size, width - 4)
            right = x + width - 3 - int(_length(draw, shown, size))
            _text(image, (right, y + 1), shown, size, 1)
            if note:
                _text(image, (x + 1, y + 10), note, 10, 1)
    if columns == 2:
        draw.line((WIDTH // 2 - 1, 0, WIDTH // 2 - 1, HEIGHT - 13), fill=1)
    lines = footer_lines(screen.footer) if screen.alert else [_fit(draw, screen.footer, 10, WIDTH - 2)]
    top = HEIGHT - 11 * len(lines)  # an alert takes the lines it needs, over the scores
    if screen.alert:
        draw.rectangle((0, top, WIDTH - 1, HEIGHT - 1), fill=1)
    else:
        draw.line((0, top - 1, WIDTH - 1, top - 1), fill=1)
    for k, line in enumerate(lines):
        _text(image, (1, top + 11 * k - 1), line, 10, 0 if screen.alert else 1)

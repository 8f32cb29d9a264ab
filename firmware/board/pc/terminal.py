"""The terminal board: the mock board in a terminal, fitted to its size, redrawn only where it changed.

:func:`run_terminal` runs it; :func:`compose` draws a frame on a :class:`Canvas`, whose changes
alone are sent.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import sys
import textwrap
import threading
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from hardware.layout import HOLES_PER_TRACK, Layout

from ..controller import MAX_DIAL
from ..controls import CONTROLS
from ..outcome import Handled
from ..panels import PAIRING_A_PHONE, PHONE_VIEW
from ..screens import Screen
from ..view import SHORT_PHASES, GameView, deal_text, dealer_mark, lap_text, next_text, won_text
from .simulator import Simulator

MIN_COLUMNS, MIN_ROWS = 80, 24
TITLE = "cribbage-board (mock)"
HELP_TITLE = "mock board"  # the key help's first words

# Keys that do what a key of the controls table does: Enter is the space bar, - and + (= beside
# it) turn the knob a detent, as the arrows do (left and down back, right and up on).
ALIASES = {"\r": " ", "\n": " ", "-": ",", "+": ".", "=": "."}
ARROW_KEYS = {"\x1b[D": ",", "\x1b[C": ".", "\x1b[A": ".", "\x1b[B": ","}
KEYS = {key: action for control in CONTROLS for key, action in control.actions().items()}
KEYS.update({alias: KEYS[key] for alias, key in ALIASES.items()})
ARROWS = {sequence: KEYS[key] for sequence, key in ARROW_KEYS.items()}
# The aliases as the help names them, after the key of the table they stand for.
ALIAS_NAMES = {".": ("-", "+", "arrows"), " ": ("Enter",)}
DIGITS = "0123456789"  # typed on the game's screen, they dial the number they make
TYPE_HELP = ("0-9", "type the number")


def _names(keys) -> list[str]:
    """Keys as the help names them, each followed by its aliases."""
    return [name for key in keys for name in ("space" if key == " " else key, *ALIAS_NAMES.get(key, ()))]


def _turn_rows(control) -> list[tuple[str, str]]:
    """A turn's keys by the detents they turn: "dial ±1", "dial ±5"."""
    steps: dict[int, list[str]] = {}
    for key, drives in control.bindings:
        steps.setdefault(abs(int(drives)), []).append(key)
    return [(" ".join(_names(keys)), f"{control.short} ±{size}")
            for size, keys in sorted(steps.items())]


def key_help() -> list[tuple[str, str]]:
    """(keys, what they do) for every key of the board, in the controls table's order (a turn's keys
    by their steps, then the digits): the one list the screen, ``--help`` and docs/mock-board.md show."""
    rows: dict[str, list[str]] = {}
    for control in CONTROLS:
        if control.gesture == "turn":
            for keys, does in [*_turn_rows(control), TYPE_HELP]:
                rows.setdefault(does, []).append(keys)
            continue
        rows.setdefault(control.short, []).extend(_names(control.keys))
    return [(" ".join(keys), short) for short, keys in rows.items()] + [("q", "quit")]


def help_text() -> str:
    """The keys' help as one paragraph."""
    return "keys: " + " | ".join(f"{keys} {does}" for keys, does in key_help())


HELP = help_text()


# ---- the key help of each screen --------------------------------------------

def _control(part: str, gesture: str):
    """The controls table's row for a gesture on a part: ("knob", "hold")."""
    return next(c for c in CONTROLS if (c.part, c.gesture) == (part, gesture))


def keys_for(*gestures: tuple[str, str]) -> str:
    """The keys of some gestures ((part, gesture) of the controls table), aliases included,
    as the help names them: keys_for(("knob", "press")) is "space Enter"."""
    return " ".join(name for part, gesture in gestures for name in _names(_control(part, gesture).keys))


TURN, PRESS, HOLD = ("knob", "turn"), ("knob", "press"), ("knob", "hold")
UNDO, MENU, CHECK = ("undo", "press"), ("menu", "press"), ("menu", "hold")
COLOUR, COLOUR_HOLD = ("colour", "press"), ("colour", "hold")
QUIT = ("q", "quit")
# What the keys do on each screen but the game's own (which is key_help(): every key).
SCREEN_KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "menu": (
        (keys_for(TURN), "move (it wraps)"), (keys_for(PRESS), "choose"),
        (keys_for(MENU, UNDO), "back"), (keys_for(HOLD), "leave the menu"),
        (keys_for(CHECK), "check count"), QUIT,
    ),
    "check my count": (
        (keys_for(TURN), "rank"), (keys_for(COLOUR), "suit, as the box says"),
        (keys_for(COLOUR_HOLD), "that suit as the starter now"), (keys_for(PRESS), "hand or crib"),
        (keys_for(UNDO), "take a card back"), (keys_for(MENU, HOLD), "back"), QUIT,
    ),
    "count checked": (
        (keys_for(TURN), "pages"), (keys_for(PRESS), "total to the dial"),
        (keys_for(COLOUR), "claim muggins (when offered)"), (keys_for(UNDO), "take a card back"),
        (keys_for(MENU, HOLD), "back"), QUIT,
    ),
    "naming a player": (
        (keys_for(TURN), "letter"), (keys_for(PRESS), "type it (OK: done)"),
        (keys_for(UNDO), "delete"), (keys_for(MENU, HOLD), "cancel"), QUIT,
    ),
    "phone view": ((keys_for(PRESS, UNDO, MENU), "back"), QUIT),
    "game over": (
        (keys_for(HOLD, MENU), "menu: new game"), (keys_for(UNDO), "undo the last entry"),
        (keys_for(("undo", "hold")), "redo"), (keys_for(CHECK), "check count"), QUIT,
    ),
}


HELP_OF_PANEL = {PAIRING_A_PHONE: PHONE_VIEW}  # a panel whose keys are another's, by the other's name


def screen_keys(shown: Handled) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Which screen the board shows (``shown``, as the controller says it; "" for the game's own)
    and its keys: the help follows the OLED."""
    if shown.panel and not shown.notice:
        where = HELP_OF_PANEL.get(shown.panel, shown.panel)
        return where, SCREEN_KEYS[where]
    if not shown.panel and shown.view.outcome is not None:
        return "game over", SCREEN_KEYS["game over"]
    return "", tuple(key_help())


def _short(part: str, gesture: str) -> str:
    """The keys of a gesture in a few characters (a turn: its one-detent keys)."""
    control = _control(part, gesture)
    keys = control.keys[:2] if gesture == "turn" else control.keys
    return " ".join("space" if key == " " else key for key in keys)


# The OLED's words for the physical controls, and the keys that do it on the terminal board:
# the OLED box on the terminal says the keys (the board's own OLED keeps its words).
ON_KEYS: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(pattern), keys) for pattern, keys in (
    (r"\bhold (?:the )?knob\b", "press " + _short(*HOLD)),
    (r"\bpress the knob\b", "press " + _short(*PRESS)),
    (r"\bhold the button\b", "press " + _short(*COLOUR_HOLD)),
    (r"\bturn to\b", "press " + _short(*TURN) + " to"),
    (r"\bturn:", _short(*TURN) + ":"),
    (r"\bknob:", _short(*PRESS) + ":"),
    (r"\bundo:", _short(*UNDO) + ":"),
    (r"\bmenu:", _short(*MENU) + ":"),
    (r"\b(?:colour buttons|colour|button):", _short(*COLOUR) + ":"),
    (r"\bundo one first\b", "take one back first (" + _short(*UNDO) + ")"),
    (r"\bundo takes\b", _short(*UNDO) + " takes"),
    *((rf"\b{name}:(?=\S)", key + ":") for name, key in zip(("red", "blue", "green", "yellow"), "rbgy")),
    *((rf"\bpress {name}\b", "press " + key) for name, key in zip(("red", "blue", "green", "yellow"), "rbgy")),
))


def on_keys(text: str) -> str:
    """An OLED text with its physical controls named by their keys: "hold knob: new game" is
    "press M: new game", "knob: crib, undo: del" is "space: crib, u: del"."""
    for pattern, keys in ON_KEYS:
        text = pattern.sub(keys, text)
    return text


def keyed(screen: Screen) -> Screen:
    """The screen as the terminal shows it: every text with keys for the controls it names."""
    return replace(screen, title=on_keys(screen.title), lines=tuple(on_keys(line) for line in screen.lines),
                   big_caption=on_keys(screen.big_caption), footer=on_keys(screen.footer))


class TypedDial:
    """Digits typed on the game's screen: the knob turned until the dial shows the number they
    make ("1" then "4" is 14). Any other key, or a dial changed since, starts a new number; a
    number past the dial's top starts again from its last digit. Elsewhere (the menu, check my
    count) digits do nothing."""

    def __init__(self):
        self.typed = ""

    def key(self, key: str, sim) -> bool:
        """Act on one key if it is a digit (True), else forget the number typed (False)."""
        if key not in DIGITS:
            self.typed = ""
            return False
        shown = sim.board.look()
        if shown.panel:
            self.typed = ""
            return True
        going = self.typed and shown.dial == int(self.typed)
        typed = self.typed + key if going else key
        if int(typed) > MAX_DIAL:
            typed = key
        self.typed = str(int(typed))
        steps = int(typed) - shown.dial
        if steps:
            sim.act("turn", str(steps))
        return True


def split_keys(chunk: str) -> list[str]:
    """Keys in what the terminal sent: arrow sequences whole, other characters one by one."""
    keys, i = [], 0
    while i < len(chunk):
        if chunk.startswith("\x1b[", i) and i + 2 < len(chunk):
            keys.append(chunk[i:i + 3])
            i += 3
        else:
            keys.append(chunk[i])
            i += 1
    return keys


# ---- cells and the canvas -------------------------------------------------

BOLD, REVERSE = "1", "7"


class Canvas:
    """A grid of cells: (character, SGR style; "" is plain)."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.rows = [[(" ", "")] * width for _ in range(height)]

    def text(self, row: int, col: int, text: str, style: str = "") -> None:
        """Write ``text`` from (row, col); what falls outside is cut off."""
        if not 0 <= row < self.height:
            return
        cells = self.rows[row]
        for offset, char in enumerate(text):
            if 0 <= col + offset < self.width:
                cells[col + offset] = (char, style)

    def lines(self) -> list[str]:
        """The characters without their styles, each row's trailing blanks cut."""
        return ["".join(char for char, _ in row).rstrip() for row in self.rows]


def _styled(cells) -> str:
    out, current = [], ""
    for char, style in cells:
        if style != current:
            out.append("\x1b[0m" + (f"\x1b[{style}m" if style else ""))
            current = style
        out.append(char)
    if current:
        out.append("\x1b[0m")
    return "".join(out)


def full_paint(canvas: Canvas) -> str:
    """Clear the screen and draw every row."""
    rows = [f"\x1b[{n + 1};1H" + _styled(row) for n, row in enumerate(canvas.rows)]
    return "\x1b[H\x1b[2J" + "".join(rows)


def changes(old: Canvas, new: Canvas, gap: int = 4) -> str:
    """Only the cells that differ: a cursor move and the cells, for each run of changes
    (runs closer than ``gap`` unchanged cells are sent as one)."""
    out = []
    for n, (before, after) in enumerate(zip(old.rows, new.rows)):
        if before == after:
            continue
        changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
        start = end = changed[0]
        for i in changed[1:] + [None]:
            if i is not None and i - end <= gap:
                end = i
                continue
            out.append(f"\x1b[{n + 1};{start + 1}H" + _styled(after[start:end + 1]))
            if i is not None:
                start = end = i
    return "".join(out)


# ---- the LED board ----------------------------------------------------------

@dataclass(frozen=True)
class BoardGeometry:
    """Where each hole of a layout goes on the screen at ``hx`` columns a hole, and the labels."""

    cells: dict[int, tuple[int, int]]  # LED: (row, col)
    labels: tuple[tuple[int, int, str], ...]  # (row, col, text): every fifth hole
    width: int
    height: int
    game_led: int


@lru_cache(maxsize=16)
def board_geometry(layout: Layout, hx: int) -> BoardGeometry:
    """Rows of holes grouped in bands (a gap in the layout starts a new one), a label row
    above each band numbering every fifth hole."""
    min_x, _, max_x, _ = layout.bounds()
    holes = layout.all_holes()
    ys = sorted({round(h.y) for h in holes})
    bands: list[list[int]] = []
    row_of: dict[int, int] = {}
    for y in ys:
        if bands and y == bands[-1][-1] + 1:
            bands[-1].append(y)
        else:
            bands.append([y])
    row, label_rows = 0, {}
    for band in bands:
        label_rows[band[0]] = row
        row += 1
        for y in band:
            row_of[y] = row
            row += 1
    band_of = {y: band[0] for band in bands for y in band}
    cells: dict[int, tuple[int, int]] = {}
    labels: list[tuple[int, int, str]] = []
    taken: dict[int, set[int]] = {}
    for hole in holes:
        r, c = row_of[round(hole.y)], 1 + round((hole.x - min_x) * hx)
        cells[hole.led] = (r, c)
        if not hole.counter and hole.track >= 0 and 1 <= hole.number <= HOLES_PER_TRACK and hole.number % 5 == 0:
            text = str(hole.number)
            lr = label_rows[band_of[round(hole.y)]]
            left = c - (len(text) - 1) // 2
            span = range(left - 1, left + len(text) + 1)
            if not any(col in taken.get(lr, set()) for col in span):
                taken.setdefault(lr, set()).update(range(left, left + len(text)))
                labels.append((lr, left, text))
    labels += _counters_label(layout, cells, label_rows, band_of, taken)
    width = 3 + round((max_x - min_x) * hx)
    return BoardGeometry(cells, tuple(sorted(labels)), width, row, layout.game_hole.led)


def _counters_label(layout: Layout, cells, label_rows, band_of, taken) -> list[tuple[int, int, str]]:
    """"games" (or "G" where that is too wide) over the game counters' columns, on the label row
    above their band, where no hole number is."""
    if not layout.counters or not layout.counters[0]:
        return []
    first = layout.counters[0]
    columns = sorted(cells[hole.led][1] for hole in first)
    row = label_rows[band_of[round(first[0].y)]]
    text = "games" if columns[-1] - columns[0] + 1 >= 5 else "G"
    if any(col in taken.get(row, set()) for col in range(columns[0] - 1, columns[0] + len(text) + 1)):
        return []
    return [(row, columns[0], text)]


def led_cell(rgb, colour: bool, game_hole: bool = False) -> tuple[str, str]:
    """One LED as a cell: a front peg (bright) ●, a back peg (dimmer) ○, a faint mark •
    (a skunk line), an unlit hole ·; the game hole ◦ unless a peg is in it, in the LED's
    colour lifted to show on a terminal."""
    r, g, b = rgb
    level = max(r, g, b)
    if level == 0:
        return ("◦" if game_hole else "·"), ""
    char, shown = ("●", 255) if level >= 160 else ("○", 190) if level >= 40 else ("•", 120)
    if game_hole and char == "•":  # its own faint light: the game hole, not a skunk line
        char = "◦"
    if not colour:
        return char, ""
    scale = max(1.0, shown / level)
    return char, "38;2;{};{};{}".format(*(min(255, int(v * scale)) for v in (r, g, b)))


def draw_board(canvas: Canvas, top: int, left: int, geometry: BoardGeometry, frame, colour: bool) -> None:
    for row, col, text in geometry.labels:
        canvas.text(top + row, left + col, text, "2" if colour else "")
    for led, (row, col) in geometry.cells.items():
        char, style = led_cell(frame[led], colour, led == geometry.game_led)
        canvas.text(top + row, left + col, char, style)


# ---- the OLED ------------------------------------------------------------------

OLED_TEXT_WIDTH = 24  # inside the box: about what the OLED's 10-pixel font holds
OLED_TEXT_ROWS = 7  # title, four body lines, a footer of two; a longer footer takes body lines
PAGE_SECONDS = 3.0  # a footer longer than the box shows a page at a time, each this long
BRAILLE_WIDTH, BRAILLE_ROWS = 64, 16


def wrapped(text: str, width: int, indent: str = "  ") -> list[str]:
    """``text`` in lines of ``width`` at most, broken between words (continuations indented)."""
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False) or [""]


def oled_text(screen: Screen, colour: bool, width: int = OLED_TEXT_WIDTH, page: int = 0) -> list[tuple[str, str]]:
    """What the OLED shows, as rows of text (with a style): legible at any terminal size, and every
    line whole. Each text wraps; the footer (a message) keeps every line it needs, then the title,
    the first body line, the dial and a menu's cursor, then the rest; a footer longer than the box
    is paged (``page``: which, counting on)."""
    bold = BOLD if colour else ""
    rows: list[tuple[str, str, int]] = []  # (text, style, rank): the lowest ranks are kept first
    if screen.scores:
        for name, score, note in screen.scores:
            rows += [(line, bold, 1) for line in wrapped(f"{name:<10}{score:>4}  {note}".rstrip(), width)]
    else:
        if screen.title:
            rows += [(line, bold, 1 if k == 0 else 3) for k, line in enumerate(wrapped(screen.title, width))]
        if screen.big is not None:
            head = f"[{screen.big:>2}] "
            for line in screen.lines[:1]:
                rows += [(text, "", 2 if k == 0 else 3) for k, text in enumerate(wrapped(line, width))]
            caption = wrapped(screen.big_caption, width - len(head), "")
            rows += [((head if k == 0 else " " * len(head)) + line, "", 1 if k == 0 else 3)
                     for k, line in enumerate(caption)]
        else:
            for index, line in enumerate(screen.lines):
                if screen.highlight is None:
                    rows += [(text, "", 2) for text in wrapped(line, width)]
                elif index == screen.highlight:  # the menu's cursor: marked, and inverted in colour
                    rows += [(text, REVERSE if colour else "", 1) for text in wrapped("> " + line, width, "    ")]
                else:
                    rows += [(text, "", 3) for text in wrapped("  " + line, width, "    ")]
    style = REVERSE if screen.alert and colour else ""
    footer = wrapped(("! " if screen.alert else "") + screen.footer, width, "") if screen.footer else []
    if len(footer) > OLED_TEXT_ROWS:
        pages = [footer[k:k + OLED_TEXT_ROWS] for k in range(0, len(footer), OLED_TEXT_ROWS)]
        shown = pages[page % len(pages)]
        return [(line, style) for line in shown] + [("", "")] * (OLED_TEXT_ROWS - len(shown))
    room = OLED_TEXT_ROWS - len(footer)
    kept = sorted(sorted(range(len(rows)), key=lambda n: (rows[n][2], n))[:room])
    body = [(rows[n][0], rows[n][1]) for n in kept]
    body += [("", "")] * (room - len(body))
    return body + [(line, style) for line in footer]


def braille(image) -> list[str]:
    """The OLED's pixels in braille: each character is 2x4 pixels (64x16 characters)."""
    image = image.convert("1")
    return list(_braille(image.tobytes(), image.size))


@lru_cache(maxsize=4)  # the OLED changes far less often than the terminal is drawn
def _braille(data: bytes, size: tuple[int, int]) -> tuple[str, ...]:
    from PIL import Image

    pixels = Image.frombytes("1", size, data).load()
    if pixels is None:  # Pillow gives none only for an image with no pixels, which frombytes never makes
        raise ValueError("the OLED image has no pixels")
    width, height = size
    bits = ((0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08),
            (1, 1, 0x10), (1, 2, 0x20), (0, 3, 0x40), (1, 3, 0x80))
    lines = []
    for y in range(0, height, 4):
        chars = []
        for x in range(0, width, 2):
            code = 0
            for dx, dy, bit in bits:
                if pixels[x + dx, y + dy]:
                    code |= bit
            chars.append(chr(0x2800 + code))
        lines.append("".join(chars))
    return tuple(lines)


def draw_box(canvas: Canvas, top: int, left: int, width: int, rows: list[tuple[str, str]], label: str) -> None:
    """A box of ``width`` inside, titled ``label``, around ``rows``."""
    canvas.text(top, left, "┌─ " + label + " " + "─" * max(0, width - len(label) - 3) + "┐")
    for n, (text, style) in enumerate(rows, start=1):
        canvas.text(top + n, left, "│")
        canvas.text(top + n, left + 1, text[:width].ljust(width) if style == REVERSE else text[:width], style)
        canvas.text(top + n, left + width + 1, "│")
    canvas.text(top + len(rows) + 1, left, "└" + "─" * width + "┘")


# ---- the layout for a terminal size ------------------------------------------

@dataclass(frozen=True)
class Plan:
    """How the board is drawn at a size: columns a hole, the OLED as text (or text and
    pixels), where the OLED and the key help go, and the room it takes."""

    hx: int
    pixels: bool
    oled: tuple[int, int]  # (row, column) of the OLED's box
    help: tuple[int, int, int]  # (row, column, width) of the key help
    width: int
    height: int


def oled_size(pixels: bool) -> tuple[int, int]:
    text_w, text_h = OLED_TEXT_WIDTH + 2, OLED_TEXT_ROWS + 2
    if not pixels:
        return text_w, text_h
    return BRAILLE_WIDTH + 2 + 1 + text_w, max(BRAILLE_ROWS + 2, text_h)


# The narrowest key help beside the OLED: 30 columns, and every item whole on a line.
HELP_MIN_WIDTH = max(30, *(len(f"{keys} {does} |") for keys, does in key_help()))


@lru_cache(maxsize=64)
def help_lines(width: int, keys: tuple[tuple[str, str], ...] | None = None, where: str = "") -> tuple[str, ...]:
    """The title and the keys' help (``keys``, of the screen ``where``; the game's, every key,
    by default) in lines of ``width`` at most, a line breaking only between items ("r b g y
    peg points; heels: dealer at 0" stays on one line); an item wider than a line, alone, is wrapped."""
    items = [f"{k} {does}" for k, does in (key_help() if keys is None else keys)]
    lines, line = [], f"{HELP_TITLE} {where + ' ' if where else ''}keys:"
    for index, item in enumerate(items):
        tail = "" if index == len(items) - 1 else " |"
        if len(line) + 1 + len(item) + len(tail) <= width:
            line += " " + item + tail
            continue
        lines.append(line)
        pieces = textwrap.wrap(item + tail, width, break_on_hyphens=False)
        lines += pieces[:-1]
        line = pieces[-1]
    return tuple(lines + [line])


def _plans(layout: Layout, columns: int):
    """Every arrangement: the OLED below the LED board or beside it, the key help beside
    the OLED where there is room, else below everything."""
    for hx in (4, 3, 2, 1):
        board = board_geometry(layout, hx)
        for pixels in (True, False):
            ow, oh = oled_size(pixels)
            for beside in (False, True):
                top, left = (1, board.width + 1) if beside else (1 + board.height, 0)
                bottom = 1 + max(board.height, oh) if beside else top + oh
                width = left + ow
                room = columns - width - 2
                if room >= HELP_MIN_WIDTH and len(help_lines(room)) <= oh - (board.height if beside else 0):
                    help_at = (top + (board.height if beside else 0), width + 2, room)
                    height = bottom
                else:
                    help_at = (bottom, 0, columns)
                    height = bottom + len(help_lines(columns))
                width = max(width, board.width)
                yield (pixels, hx, not beside), Plan(hx, pixels, (top, left), help_at, width, height)


@lru_cache(maxsize=16)
def choose_plan(layout: Layout, columns: int, rows: int) -> Plan | None:
    """The largest way to draw the board in ``columns`` x ``rows``: the OLED's pixels if
    they fit, then the widest holes, then the OLED below the board; None below 80x24."""
    if columns < MIN_COLUMNS or rows < MIN_ROWS:
        return None
    fits = [(rank, plan) for rank, plan in _plans(layout, columns)
            if plan.width <= columns and plan.height <= rows]
    return max(fits, key=lambda fit: fit[0])[1] if fits else None


# ---- what the board shows ------------------------------------------------------

SHORT_NUMBERS = {"three": "3", "four": "4", "five": "5", "six": "6", "seven": "7"}
SHORT_NAMES = (5, 3)  # letters a name keeps when the score line is too long for it whole, then for its shorter form


def score_line(view: GameView, width: int | None = None) -> str:
    """Every side's name and score (its lap past the first, the dealer marked), whose count is
    next or who won, and the variant and deal: one line of plain text. Within ``width`` it is
    shortened on purpose, never cut mid-word: "4-hand, deal 1, cut", the dealer's mark a "*", then
    the variant and the deal left out, then each name to its first letters ("Alexa.", then "Ale."); only a line
    still too long after all that is cut, with "…"."""
    if view.outcome is not None:
        middle = won_text(view)
    else:
        middle = f"next: {next_text(view)}"
    short_variant = "-".join(SHORT_NUMBERS.get(word, word) for word in view.variant.split("-"))
    short_deal = f"{short_variant}, deal {view.deal}, {SHORT_PHASES[view.phase]}"
    for mark, tail in ((" (deals)", f"{view.variant}, {deal_text(view)}"), (" (deals)", short_deal),
                       ("*", short_deal), ("*", "")):
        parts = [" ".join(filter(None, (f"{view.names[i]} {score}", lap_text(view, i))))
                 + dealer_mark(view, i, mark) for i, score in enumerate(view.scores)]
        line = " · ".join(parts) + f" │ {middle}" + (f" │ {tail}" if tail else "")
        if width is None or len(line) <= width:
            return line
    if width is None:
        return line
    named = {*view.names, *(seat for seat, _ in view.show), *(part for name in view.names for part in name.split("+"))}
    for letters in SHORT_NAMES:
        shortened = line
        for name in sorted(named, key=len, reverse=True):
            shortened = shortened.replace(name, _initial_letters(name, letters))
        if len(shortened) <= width:
            return shortened
    return shortened[:width - 1] + "…"


def _initial_letters(name: str, letters: int) -> str:
    """A name (each partner's, in a partnership) to its first ``letters`` letters and a stop ("Alexa.")."""
    return "+".join(part if len(part) <= letters + 1 else part[:letters] + "." for part in name.split("+"))


def compose(sim, columns: int, rows: int, colour: bool) -> Canvas:
    """The whole screen for a terminal of ``columns`` x ``rows``."""
    layout = sim.devices.layout
    canvas = Canvas(columns, rows)
    plan = choose_plan(layout, columns, rows)
    if plan is None:
        message = (f"{TITLE}: the board needs a terminal of at least {MIN_COLUMNS}x{MIN_ROWS}; "
                   f"this one is {columns}x{rows}: make it larger (q quits)")
        for n, line in enumerate(textwrap.wrap(message, max(10, columns))[:rows]):
            canvas.text(n, 0, line)
        return canvas
    canvas.text(0, 0, score_line(sim.board.view(), columns), BOLD if colour else "")
    geometry = board_geometry(layout, plan.hx)
    draw_board(canvas, 1, 0, geometry, sim.shown_frame(), colour)
    top, left = plan.oled
    rows_of_text = oled_text(keyed(sim.board.oled_screen()), colour, page=int(sim.clock() // PAGE_SECONDS))
    image = sim.devices.display.image if sim.devices.display is not None else None
    if plan.pixels and image is not None:
        draw_box(canvas, top, left, BRAILLE_WIDTH, [(line, "") for line in braille(image)], "OLED")
        draw_box(canvas, top, left + BRAILLE_WIDTH + 3, OLED_TEXT_WIDTH, rows_of_text, "OLED text")
    else:
        draw_box(canvas, top, left, OLED_TEXT_WIDTH, rows_of_text, "OLED")
    row, col, width = plan.help
    where, keys = screen_keys(sim.board.look())
    for n, line in enumerate(help_lines(width, keys if where else None, where)):
        canvas.text(row + n, col, line, "2" if colour else "")
    place_legend(canvas, plan.oled[0], (col, left), colour)
    return canvas


# What the board's marks mean: led_cell's characters, in words.
LEGEND = "● peg  ○ back peg  • skunk line  ◦ game hole"


def place_legend(canvas: Canvas, top: int, columns: tuple[int, ...], colour: bool) -> bool:
    """The legend on the first free row from ``top`` down, at one of ``columns`` (under the key
    help, or under the OLED beside the board); False if no row has room."""
    for row in range(top, canvas.height):
        for col in columns:
            if col + len(LEGEND) <= canvas.width and all(
                    char == " " for char, _ in canvas.rows[row][col:col + len(LEGEND)]):
                canvas.text(row, col, LEGEND, "2" if colour else "")
                return True
    return False


class TerminalScreen:
    """Writes composed frames to a terminal: everything after a resize, else only what changed.

    ``size`` gives (columns, rows) each frame; ``written`` keeps the bytes of each paint."""

    def __init__(self, out, size, colour: bool = True, escapes: bool = True):
        self.out = out
        self.size = size
        self.colour = colour
        self.escapes = escapes
        self.last: Canvas | None = None
        self.written: list[int] = []

    def paint(self, sim) -> None:
        columns, rows = self.size()
        canvas = compose(sim, columns, rows, self.colour)
        if not self.escapes:
            text = "\n".join(canvas.lines()).rstrip("\n") + "\n"
        elif self.last is None or (self.last.width, self.last.height) != (columns, rows):
            text = full_paint(canvas)
        else:
            text = changes(self.last, canvas)
        self.last = canvas
        self.written.append(len(text.encode("utf-8")))
        if text:
            self.out.write(text)
            self.out.flush()

    def invalidate(self) -> None:
        """Repaint everything next time (the terminal was resized or disturbed)."""
        self.last = None


def terminal_size(stream) -> tuple[int, int]:
    """The terminal's size (the environment's COLUMNS and LINES, else 80x24, when not one)."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, AttributeError):
        size = shutil.get_terminal_size((MIN_COLUMNS, MIN_ROWS))
    return size.columns, size.lines


def run_terminal(config, state: Path, stdin=sys.stdin, stdout=sys.stdout) -> int:
    """The interactive mock board; keys drive the mock pins. Ends on q or end of input.

    The screen is a grid of cells (a character and its colour). Each frame is
    composed whole, compared with the last one written, and only the runs of
    cells that differ are sent (a cursor move and the new cells); a new size
    (SIGWINCH, or a size check each frame) repaints everything. The layout is
    chosen for the terminal: at 80x24 the LED board with two columns a hole, a
    plain-text score line and the OLED as text; on larger terminals wider
    holes and the OLED's pixels in braille beside its text; below 80x24 one
    line that says the size it needs.
    """
    interactive = stdin.isatty()
    sim = Simulator(config, state, hold_s=None, animate=interactive)
    colour = interactive or os.environ.get("FORCE_COLOR") == "1"
    screen = TerminalScreen(stdout, lambda: terminal_size(stdout), colour, escapes=interactive)
    saved, resized = None, None
    typed_dial = TypedDial()
    try:
        if interactive:
            import termios
            import tty

            saved = termios.tcgetattr(stdin.fileno())
            tty.setcbreak(stdin.fileno())
            resized = _watch_resizes()
            stdout.write("\x1b[?25l")  # hide the cursor
        screen.paint(sim)
        while True:
            if interactive:
                wait = min(1.0, sim.board.wake_in(sim.clock()))
                phones = sim.board.phone_server
                watched = [stdin] + ([resized[0]] if resized else []) + ([phones] if phones else [])
                ready, _, _ = select.select(watched, [], [], wait)
                if resized and resized[0] in ready:
                    os.read(resized[0], 64)
                    screen.invalidate()
                if stdin not in ready:
                    sim.board.step(0)
                    screen.paint(sim)
                    continue
                chunk = os.read(stdin.fileno(), 64).decode("utf-8", "replace")
            else:
                chunk = stdin.read(1)
            keys = split_keys(chunk)
            if not keys or "q" in keys or "\x04" in keys:
                break
            for key in keys:
                if sim.ended or typed_dial.key(key, sim):
                    continue
                action = ARROWS.get(key) or KEYS.get(key)
                if action is not None and not sim.ended:
                    sim.act(*action)
            if sim.ended:  # Shut down from the menu ends the mock board
                break
            if interactive:
                screen.paint(sim)
        if sim.ended or not interactive:
            screen.paint(sim)
        return 0
    finally:
        if interactive:
            rows = screen.last.height if screen.last else MIN_ROWS
            stdout.write(f"\x1b[0m\x1b[?25h\x1b[{rows};1H\n")
            stdout.flush()
        if resized:
            signal.signal(signal.SIGWINCH, resized[2])
            os.close(resized[0])
            os.close(resized[1])
        if saved is not None:
            import termios

            termios.tcsetattr(stdin.fileno(), termios.TCSADRAIN, saved)
        sim.close()


def _watch_resizes():
    """A pipe that SIGWINCH writes to, so a resize wakes the loop: (read end, write end,
    the previous handler); None off the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return None
    reader, writer = os.pipe()
    os.set_blocking(writer, False)

    def on_resize(*_args):
        try:
            os.write(writer, b"w")
        except OSError:
            pass

    previous = signal.signal(signal.SIGWINCH, on_resize)
    return reader, writer, previous

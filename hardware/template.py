"""A drilling template of a board layout at 1:1, as one drawing in millimetres.

:func:`template_drawing` computes every shape once; :func:`svg_text` writes it as one sheet and
``hardware.template_pdf`` tiles it over printable pages, so the two cannot disagree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import escape

from .inputs import DEFAULT_BUTTONS
from .layout import Hole, Layout

HOLE_MM = 5.0  # a 5 mm drill takes a 5050 LED's light, or a peg
BUTTON_MM = 16.0  # 16 mm panel-mount momentary push buttons (arcade style): one 16 mm hole each
BUTTON_PITCH_MM = 28.0  # button centre to centre: room for the bezel and a finger
ENCODER_SHAFT_MM = 7.0  # an EC11 rotary encoder's M7 bushing goes through a 7 mm hole
ENCODER_BODY_MM = 12.0  # the EC11's body, under the board
OLED_WINDOW_MM = (22.0, 11.0)  # 0.96" SSD1306 128x64: lit area about 21.7 x 10.9 mm
OLED_MODULE_MM = (27.0, 27.0)  # its breakout board, about 27 x 27 mm: a recess from below
STRIP_MM = 10.0  # a 60 LEDs/m WS2812B strip's width: the length of a cut mark
MARGIN_MM = 4.0  # blank paper around the drawing
LED_LABEL_EVERY = 10
LED_NUMBER_MM = 2.4  # smaller than a hole number, teal and italic, "LED n": never read as a hole
SCALE_BAR_MM = 100.0  # to check the print's scale

INK = "#000000"
MARK = "#d00000"
START = "#0050d0"
STRIP = "#008080"
CUT = "#e06000"
GREY = "#909090"
COUNTER = "#8000a0"  # the game counters: purple, apart from the track's holes
BUTTON_INK = {"red": "#d00000", "blue": "#0050d0", "green": "#008000", "yellow": "#c09000"}


@dataclass(frozen=True)
class Circle:
    """A circle of radius ``r`` centred on (x, y)."""

    x: float
    y: float
    r: float
    cls: str
    colour: str = INK
    width: float = 0.25
    dash: tuple[float, ...] = ()

    def bbox(self) -> tuple[float, float, float, float]:
        return self.x - self.r, self.y - self.r, self.x + self.r, self.y + self.r


@dataclass(frozen=True)
class Line:
    """A straight line from (x1, y1) to (x2, y2)."""

    x1: float
    y1: float
    x2: float
    y2: float
    cls: str
    colour: str = INK
    width: float = 0.25
    dash: tuple[float, ...] = ()

    def bbox(self) -> tuple[float, float, float, float]:
        return min(self.x1, self.x2), min(self.y1, self.y2), max(self.x1, self.x2), max(self.y1, self.y2)

    def segments(self):
        return [((self.x1, self.y1), (self.x2, self.y2))]


@dataclass(frozen=True)
class Rect:
    """A rectangle outline; (x, y) is its top-left corner."""

    x: float
    y: float
    w: float
    h: float
    cls: str
    colour: str = INK
    width: float = 0.25
    dash: tuple[float, ...] = ()

    def bbox(self) -> tuple[float, float, float, float]:
        return self.x, self.y, self.x + self.w, self.y + self.h

    def segments(self):
        a, b = (self.x, self.y), (self.x + self.w, self.y)
        c, d = (self.x + self.w, self.y + self.h), (self.x, self.y + self.h)
        return [(a, b), (b, c), (c, d), (d, a)]


@dataclass(frozen=True)
class Polyline:
    """An open path through ``points``."""

    points: tuple[tuple[float, float], ...]
    cls: str
    colour: str = INK
    width: float = 0.25
    dash: tuple[float, ...] = ()

    def bbox(self) -> tuple[float, float, float, float]:
        xs, ys = [p[0] for p in self.points], [p[1] for p in self.points]
        return min(xs), min(ys), max(xs), max(ys)

    def segments(self):
        return list(zip(self.points, self.points[1:]))


@dataclass(frozen=True)
class Text:
    """A line of text; (x, y) is on its baseline, ``anchor`` start, middle or end."""

    x: float
    y: float
    text: str
    size: float
    cls: str = "label"
    colour: str = INK
    anchor: str = "start"
    bold: bool = False
    italic: bool = False

    def bbox(self) -> tuple[float, float, float, float]:
        width = 0.6 * self.size * len(self.text)  # generous for Helvetica
        left = self.x - {"start": 0.0, "middle": width / 2, "end": width}[self.anchor]
        return left, self.y - self.size * 0.8, left + width, self.y + self.size * 0.25


Shape = Circle | Line | Rect | Polyline | Text


@dataclass(frozen=True)
class Drawing:
    """A whole template in mm, y down: the sheet's corner and size, and its shapes."""

    title: str
    left: float
    top: float
    width: float
    height: float
    shapes: tuple[Shape, ...]
    notes: tuple[tuple[str, float, str], ...] = ()  # the legend's paragraphs: (text, size, colour)


def template_drawing(
    layout: Layout,
    marks: dict[int, str] | None = None,
    group: int = 5,
    hole_mm: float = HOLE_MM,
    legend: bool = True,
) -> Drawing:
    """The layout at 1:1: holes with centre crosses, every ``group``th hole numbered
    and a tick after it, a red line before each hole number in ``marks`` with its
    label, the start and game holes, the strip's path with its cuts, bridges and
    LED numbers, the controls' outlines below the tracks and a legend (drawn under
    it, or with ``legend`` False only kept as the drawing's ``notes``: the PDF
    prints them whole on a page of their own).

    ``template_drawing`` computes every shape once (holes with centre crosses, the
    LED strip's path, cuts and bridges, the outlines of the OLED window, the
    buttons and the encoder); ``svg_text`` writes it as one sheet and
    ``hardware.template_pdf`` tiles it over printable pages, so the two cannot
    disagree. Hole positions come from the layout (in hole pitches), the pitch
    from the strip's LEDs per metre. Marks (a line before a hole, with a label)
    are given by the caller: the hardware layer knows holes, not cribbage.
    """
    pitch = layout.pitch_mm
    pieces = strip_pieces(layout)
    shapes: list[Shape] = _strip(layout, pieces, hole_mm)  # first: the holes' crosses are drawn over it
    shapes += _holes(layout, hole_mm)
    shapes += _hole_numbers(layout, group)
    shapes += _groups_and_marks(layout, marks or {}, group, shapes)
    shapes.sort(key=lambda s: s.cls == "cut")  # cut bars on top, where they share a place with a mark
    left, top, right, bottom = _extent(shapes)
    cy = bottom + 5 + OLED_MODULE_MM[1] / 2
    controls = _controls((left + right) / 2, cy)
    shapes += controls
    end = _extent(controls)[2] + 15
    if end + SCALE_BAR_MM > right:  # no room beside the controls: under them
        end, cy = _extent(controls)[0], _extent(controls)[3] + 8
    shapes += _scale_bar(end, cy)
    notes = legend_notes(layout, len(pieces), hole_mm, group)
    if legend:
        y = _extent(shapes)[3] + 4
        shapes += [Text(left, y + i * 4.8, text, size, "legend", colour) for i, (text, size, colour) in enumerate(notes)]
    left, top, right, bottom = _extent(shapes)
    left, top = left - MARGIN_MM, top - MARGIN_MM
    width, height = right + MARGIN_MM - left, bottom + MARGIN_MM - top
    outline = Rect(left + 0.5, top + 0.5, width - 1, height - 1, "outline", width=0.3)
    title = f"{layout.name}: drilling template, hole pitch {pitch:.2f} mm"
    return Drawing(title, left, top, width, height, (outline, *shapes), tuple(notes))


def board_svg(
    layout: Layout,
    marks: dict[int, str] | None = None,
    group: int = 5,
    hole_mm: float = HOLE_MM,
) -> str:
    """The template as one SVG sheet (see ``template_drawing``)."""
    return svg_text(template_drawing(layout, marks, group, hole_mm))


def strip_pieces(layout: Layout) -> list[list[Hole]]:
    """The strip's LEDs in order, cut into straight pieces: an LED stays on the
    piece before it when it is the next LED, one pitch on in the same direction
    (a strip lies straight); anywhere else the strip is cut and bridged."""
    pieces: list[list[Hole]] = []
    for hole in sorted(layout.all_holes(), key=lambda h: h.led):
        piece = pieces[-1] if pieces else None
        if piece and hole.led == piece[-1].led + 1 and _continues(piece, hole):
            piece.append(hole)
        else:
            pieces.append([hole])
    return pieces


def _continues(piece: list[Hole], hole: Hole) -> bool:
    last = piece[-1]
    dx, dy = hole.x - last.x, hole.y - last.y
    if abs(math.hypot(dx, dy) - 1) > 1e-6:
        return False
    if len(piece) == 1:
        return True
    return abs(dx - (last.x - piece[-2].x)) < 1e-6 and abs(dy - (last.y - piece[-2].y)) < 1e-6


def _holes(layout: Layout, hole_mm: float) -> list[Shape]:
    pitch, r = layout.pitch_mm, hole_mm / 2
    shapes: list[Shape] = []
    for track in layout.tracks:
        for hole in track:
            shapes += _drill(hole.x * pitch, hole.y * pitch, r, "hole")
        for first, _, (dx, dy) in _streets(track):  # each street's first hole number, before it
            x, y = (first.x - 0.95 * dx) * pitch, (first.y - 0.95 * dy) * pitch
            shapes.append(Text(x, y + 1.0, str(first.number), 2.8, "hole-number", anchor="middle"))
    starts = [s for s in layout.starts if s is not None]
    for start in starts:
        shapes += _drill(start.x * pitch, start.y * pitch, r, "start", START, 0.4)
    if starts:
        last = max(starts, key=lambda s: (s.y, s.x))  # under the column, clear of its cut bar
        shapes.append(Text(last.x * pitch, last.y * pitch + pitch / 2 + 5, "start", 3.0, colour=START, anchor="middle"))
    game = layout.game_hole
    x, y = game.x * pitch, game.y * pitch
    shapes += _drill(x, y, r, "game-hole", MARK, 0.5)
    shapes.append(Circle(x, y, r * 1.6, "game-ring", MARK, 0.3))
    shapes.append(Text(x, y + r * 1.6 + 11, "game", 3.5, colour=MARK, anchor="middle"))
    return shapes + _counters(layout, r)


def _counters(layout: Layout, r: float) -> list[Shape]:
    """The game counters, drilled as holes in purple: each numbered with its game above it (once
    for a column of counters that share it, as the hole numbers are), and "games" above the first
    row; nothing when the layout has none."""
    pitch = layout.pitch_mm
    shapes: list[Shape] = []
    above = {(round(c.x, 3), round(c.y, 3)): c.number for row in layout.counters for c in row}
    for row in layout.counters:
        for counter in row:
            x, y = counter.x * pitch, counter.y * pitch
            shapes += _drill(x, y, r, "game-counter", COUNTER, 0.4)
            if above.get((round(counter.x, 3), round(counter.y - 1, 3))) != counter.number:
                shapes.append(Text(x, y - HOLE_NUMBER_RISE * pitch, str(counter.number), 2.8,
                                   "game-counter-number", COUNTER, "middle"))
    first = [row for row in layout.counters if row]
    if first:
        row = first[0]
        x = sum(c.x for c in row) / len(row) * pitch
        y = (min(c.y for c in row) - HOLE_NUMBER_RISE) * pitch - 4.0
        shapes.append(Text(x, y, "games", 3.0, "game-counter-label", COUNTER, "middle"))
    return shapes


def _drill(x: float, y: float, r: float, cls: str, colour: str = INK, width: float = 0.25) -> list[Shape]:
    """A hole to drill: its circle and a cross on its centre."""
    arm = r + 1.5
    return [
        Circle(x, y, r, cls, colour, width),
        Line(x - arm, y, x + arm, y, "centre", INK, 0.12),
        Line(x, y - arm, x, y + arm, "centre", INK, 0.12),
    ]


HOLE_NUMBER_MM = 3.4  # every fifth hole's number: black, bold, above its column of holes
HOLE_NUMBER_RISE = 0.5  # its baseline, in pitches above the hole (clear of the centre cross)
LED_NUMBER_DROP = 0.42  # an LED number's place, in pitches below its hole (its baseline 0.9 mm lower)
# Those two leave the gap between streets a clear band for the PDF's alignment marks.


def _hole_numbers(layout: Layout, group: int) -> list[Shape]:
    """Every ``group``th hole's number (5, 10, ... 120), once for a column of holes that share it
    (the tracks of a street run side by side): above the top one, in bold black. The LED
    numbers (teal, italic, "LED n") go below their holes, so the two never share a place."""
    pitch = layout.pitch_mm
    number_at = {(round(h.x, 3), round(h.y, 3)): h.number for track in layout.tracks for h in track}
    shapes: list[Shape] = []
    for track in layout.tracks:
        for hole in track:
            if hole.number % group or number_at.get((round(hole.x, 3), round(hole.y - 1, 3))) == hole.number:
                continue  # not a group's end, or the hole above carries the same number
            shapes.append(Text(hole.x * pitch, (hole.y - HOLE_NUMBER_RISE) * pitch, str(hole.number),
                               HOLE_NUMBER_MM, "hole-number-5", INK, "middle", bold=True))
    return shapes


def _streets(track: tuple[Hole, ...]):
    """(first hole, last hole, unit step) of each straight run of neighbouring holes."""
    start = 0
    for i in range(1, len(track) + 1):
        if i == len(track) or not _adjacent(track[i - 1], track[i]):
            first, last = track[start], track[i - 1]
            if last is first:
                step = (1.0, 0.0)
            else:
                n = i - 1 - start
                step = ((last.x - first.x) / n, (last.y - first.y) / n)
            yield first, last, step
            start = i


def _groups_and_marks(layout: Layout, marks: dict[int, str], group: int, placed: list[Shape]) -> list[Shape]:
    """The group ticks, and each mark's line and label (kept clear of the ``placed`` shapes)."""
    pitch = layout.pitch_mm

    def pos(hole: Hole) -> tuple[float, float]:
        return hole.x * pitch, hole.y * pitch

    shapes: list[Shape] = []
    for track in layout.tracks:
        for here, there in zip(track, track[1:]):
            if here.number % group == 0 and _adjacent(here, there):
                shapes.append(_tick(pos(here), pos(there), pitch * 0.45, "group", INK, 0.3))
        for number, label in sorted(marks.items()):
            if 2 <= number <= len(track):
                before, at = track[number - 2], track[number - 1]
                if _adjacent(before, at):
                    a, b = pos(before), pos(at)
                else:  # the mark falls at the turn into a new street: draw it just before the hole
                    after = pos(track[number]) if number < len(track) else None
                    b = pos(at)
                    if after is None or not _adjacent(at, track[number]):
                        a = b
                    else:
                        a = (2 * b[0] - after[0], 2 * b[1] - after[1])
                shapes.append(_tick(a, b, pitch * 0.6, "mark", MARK, 0.6))
                if at.track == 0:
                    shapes.append(_mark_label(b, label, pitch, placed))
    return shapes


def _mark_label(at: tuple[float, float], label: str, pitch: float, placed: list[Shape]) -> Text:
    """A mark's label above its line: centred on it, or else running right or left of it, the
    first way that crosses no line (a dashed bridge, the strip, a cut) and no other text."""
    x, y = at[0], at[1] - pitch * 0.95
    tries = [Text(x, y, label, 4.0, "mark-label", MARK, "middle"),
             Text(x - pitch * 0.3, y, label, 4.0, "mark-label", MARK, "start"),
             Text(x + pitch * 0.3, y, label, 4.0, "mark-label", MARK, "end")]
    for text in tries:
        if not any(_overlaps(text.bbox(), shape) for shape in placed):
            return text
    return tries[0]


def _overlaps(box: tuple[float, float, float, float], shape: Shape) -> bool:
    """Whether ``shape`` (a text's box, or a line's path) comes inside ``box``."""
    left, top, right, bottom = box
    if isinstance(shape, Text):
        a, b, c, d = shape.bbox()
        return a < right and left < c and b < bottom and top < d
    if isinstance(shape, Circle):
        return False
    for (x1, y1), (x2, y2) in shape.segments():
        steps = max(1, int(math.hypot(x2 - x1, y2 - y1) / 0.25))
        for k in range(steps + 1):
            px, py = x1 + (x2 - x1) * k / steps, y1 + (y2 - y1) * k / steps
            if left <= px <= right and top <= py <= bottom:
                return True
    return False


def _strip(layout: Layout, pieces: list[list[Hole]], hole_mm: float) -> list[Shape]:
    """Each piece of strip through its LEDs with a data arrow, LED numbers,
    orange cut bars at its ends and a dashed bridge to the next piece."""
    pitch = layout.pitch_mm
    holes = layout.all_holes()
    occupied = {(round(h.x, 3), round(h.y, 3)) for h in holes}
    shapes: list[Shape] = []
    ends: list[tuple[tuple[float, float], tuple[float, float]]] = []
    previous = None
    for piece in pieces:
        d = _direction(piece, previous)
        first, last = piece[0], piece[-1]
        a = ((first.x - d[0] / 2) * pitch, (first.y - d[1] / 2) * pitch)
        b = ((last.x + d[0] / 2) * pitch, (last.y + d[1] / 2) * pitch)
        shapes.append(Polyline((a, b), "strip", STRIP, 0.5))
        for x, y in (a, b):
            half = STRIP_MM / 2 + 1
            shapes.append(Line(x - d[1] * half, y + d[0] * half, x + d[1] * half, y - d[0] * half, "cut", CUT, 0.7))
        if len(piece) > 1:
            tip = ((first.x + d[0] * 0.6) * pitch, (first.y + d[1] * 0.6) * pitch)
            back = (tip[0] - d[0] * 2.2, tip[1] - d[1] * 2.2)
            shapes.append(Polyline(
                ((back[0] - d[1] * 1.6, back[1] + d[0] * 1.6), tip, (back[0] + d[1] * 1.6, back[1] - d[0] * 1.6)),
                "strip-arrow", STRIP, 0.4))
        for hole in piece:
            # Every LED_LABEL_EVERY-th LED is numbered, and the first game counter's.
            if hole.led % LED_LABEL_EVERY == 0 or (hole.counter and hole.led == layout.hole_leds):
                shapes.append(_led_label(hole, d, occupied, pitch, hole.led == 0))
        ends.append((a, b))
        previous = last
    clearance = hole_mm / 2 + 1.5
    centres = [(h.x * pitch, h.y * pitch) for h in holes]
    for (_, out), (into, _) in zip(ends, ends[1:]):
        shapes.append(Polyline(_route(out, into, centres, clearance), "bridge", STRIP, 0.35, (1.5, 1.0)))
    return shapes


def _direction(piece: list[Hole], previous: Hole | None) -> tuple[float, float]:
    """The piece's unit direction; a one-LED piece lies along the way the data comes in."""
    if len(piece) > 1:
        return piece[1].x - piece[0].x, piece[1].y - piece[0].y
    if previous is None:
        return 1.0, 0.0
    dx, dy = piece[0].x - previous.x, piece[0].y - previous.y
    if abs(dx) >= abs(dy):
        return (1.0 if dx >= 0 else -1.0), 0.0
    return 0.0, (1.0 if dy >= 0 else -1.0)


def _led_label(hole: Hole, d, occupied, pitch: float, first: bool) -> Text:
    """The LED's number, "LED n" in teal italic: below its hole on a row (above is where the
    hole numbers go), half a pitch beside it, on a side with no hole, in a column."""
    if abs(d[1]) < 1e-9:
        chosen, offset = (0.0, 1.0), (0.0, LED_NUMBER_DROP)
    else:
        sides = [(-1.0, 0.0), (1.0, 0.0)]
        chosen = next((side for side in sides
                       if (round(hole.x + side[0], 3), round(hole.y + side[1], 3)) not in occupied), sides[1])
        offset = (chosen[0] * 0.5, 0.0)
    text = f"LED {hole.led} (DIN)" if first else f"LED {hole.led}"
    x, y = (hole.x + offset[0]) * pitch, (hole.y + offset[1]) * pitch
    anchor = "middle" if chosen[0] == 0 else ("start" if chosen[0] > 0 else "end")
    return Text(x, y + 0.9, text, LED_NUMBER_MM, "led-number", STRIP, anchor, italic=True)


def _route(a, b, centres, clearance: float) -> tuple[tuple[float, float], ...]:
    """A bridge from a to b: straight, or an L that keeps clear of the holes."""
    options = [(a, b), (a, (b[0], a[1]), b), (a, (a[0], b[1]), b)]

    def crossings(path) -> int:
        return sum(
            1 for p, q in zip(path, path[1:]) for c in centres if _distance(c, p, q) < clearance
        )

    return min(options, key=crossings)


def _distance(c, p, q) -> float:
    """Distance from point c to the segment p-q."""
    px, py = q[0] - p[0], q[1] - p[1]
    length = px * px + py * py
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((c[0] - p[0]) * px + (c[1] - p[1]) * py) / length))
    return math.hypot(p[0] + t * px - c[0], p[1] + t * py - c[1])


def _controls(cx: float, cy: float) -> list[Shape]:
    """The OLED window in the middle, the colour buttons (in the config's order)
    to its left, the encoder and the other buttons to its right."""
    shapes: list[Shape] = []
    ww, wh = OLED_WINDOW_MM
    mw, mh = OLED_MODULE_MM
    shapes.append(Rect(cx - ww / 2, cy - wh / 2, ww, wh, "oled-window", INK, 0.4))
    shapes.append(Rect(cx - mw / 2, cy - mh / 2, mw, mh, "oled-module", GREY, 0.25, (2.0, 1.0)))
    shapes.append(Line(cx - 3, cy, cx + 3, cy, "centre", INK, 0.12))
    shapes.append(Line(cx, cy - 3, cx, cy + 3, "centre", INK, 0.12))
    label_y = cy + mh / 2 + 4
    shapes.append(Text(cx, label_y, f"OLED: cut {ww:g} x {wh:g} window", 3.0, "control-label", anchor="middle"))
    shapes.append(Text(cx, label_y + 3.5, f"module {mw:g} x {mh:g} from below", 2.6, "control-label", GREY, "middle"))
    names = list(DEFAULT_BUTTONS)
    colours = [n for n in names if n in BUTTON_INK]
    others = [n for n in names if n not in BUTTON_INK]
    gap = mw / 2 + BUTTON_PITCH_MM
    for i, name in enumerate(colours):
        x = cx - gap - (len(colours) - 1 - i) * BUTTON_PITCH_MM
        shapes += _button(x, cy, name, BUTTON_INK[name], label_y)
    ex = cx + gap
    r = ENCODER_SHAFT_MM / 2
    shapes += _drill(ex, cy, r, "encoder")
    body = ENCODER_BODY_MM
    shapes.append(Rect(ex - body / 2, cy - body / 2, body, body, "encoder-body", GREY, 0.25, (2.0, 1.0)))
    shapes.append(Text(ex, label_y, "encoder (EC11)", 3.0, "control-label", anchor="middle"))
    shapes.append(Text(ex, label_y + 3.5, f"{ENCODER_SHAFT_MM:g} mm", 2.6, "control-label", anchor="middle"))
    for i, name in enumerate(others):
        shapes += _button(ex + (i + 1) * BUTTON_PITCH_MM, cy, name, INK, label_y)
    return shapes


def _button(x: float, y: float, name: str, colour: str, label_y: float) -> list[Shape]:
    return [
        *_drill(x, y, BUTTON_MM / 2, "button", colour, 0.4),
        Text(x, label_y, name, 3.0, "button-label", colour, "middle"),
        Text(x, label_y + 3.5, f"{BUTTON_MM:g} mm", 2.6, "control-label", anchor="middle"),
    ]


def _scale_bar(x: float, y: float) -> list[Shape]:
    """A 100 mm bar with a tick every 10 mm, to check the print's scale."""
    shapes: list[Shape] = [Line(x, y, x + SCALE_BAR_MM, y, "scale-bar", INK, 0.4)]
    for mm in range(0, int(SCALE_BAR_MM) + 1, 10):
        shapes.append(Line(x + mm, y, x + mm, y - (2.5 if mm % 50 == 0 else 1.5), "scale-tick", INK, 0.2))
    shapes.append(Text(x, y + 4, "0", 2.6, anchor="middle"))
    shapes.append(Text(x + SCALE_BAR_MM, y + 4, f"{SCALE_BAR_MM:g} mm", 2.6, anchor="middle"))
    shapes.append(Text(x + SCALE_BAR_MM / 2, y + 8.5, "at 100 % this bar is exactly 100 mm", 2.6, anchor="middle"))
    return shapes


def legend_notes(layout: Layout, pieces: int, hole_mm: float, group: int = 5) -> list[tuple[str, float, str]]:
    """The legend's paragraphs, (text, size in mm, colour): under the drawing on one
    sheet (SVG), on a page of their own before the tiles (PDF)."""
    mw, mh = OLED_MODULE_MM
    return [
        (f"{layout.name}: drilling template at 1:1. Hole pitch {layout.pitch_mm:.2f} mm "
         f"({layout.leds_per_metre:g} LEDs/m). Print at 100 % (actual size) and check the scale.", 3.6, INK),
        (f"Drill at the centre crosses: holes, start and game holes {hole_mm:g} mm; buttons {BUTTON_MM:g} mm; "
         f"encoder (EC11) {ENCODER_SHAFT_MM:g} mm. OLED (0.96 in. SSD1306 128x64): cut the "
         f"{OLED_WINDOW_MM[0]:g} x {OLED_WINDOW_MM[1]:g} mm window over its lit area, recess "
         f"{mw:g} x {mh:g} mm from below (check your module).", 3.0, INK),
        (f"Hole numbers: every {group}th hole, in bold black above its column of holes (a tick follows it); "
         "each street's first hole is numbered before it. Red: the skunk lines and the game hole.", 3.0, INK),
        (f"LED strip (teal, under the holes; the arrows run DIN to DOUT): every {LED_LABEL_EVERY}th LED is "
         f"numbered \"LED n\" in teal italic below its hole, the strip's own count (from 0), not a hole "
         f"number. Cut the strip at the orange bars into {pieces} pieces and bridge each dashed gap with "
         "three wires (5 V, data DOUT to DIN, GND).", 3.0, STRIP),
    ] + _counter_notes(layout, hole_mm)


def _counter_notes(layout: Layout, hole_mm: float) -> list[tuple[str, float, str]]:
    """The legend's paragraph on the game counters (none without them)."""
    per_side = max((len(row) for row in layout.counters), default=0)
    if not per_side:
        return []
    first = layout.hole_leds
    return [(f"Game counters (purple): {per_side} a side, numbered by game, one lit for each game a side "
             f"wins in a match. Drill them {hole_mm:g} mm like the holes; their LEDs come after the holes' "
             f"on the strip (LED {first} to LED {layout.strip_leds - 1}), {layout.strip_leds} LEDs in all.",
             3.0, COUNTER)]


def _extent(shapes: list[Shape]) -> tuple[float, float, float, float]:
    boxes = [s.bbox() for s in shapes]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def _adjacent(a: Hole, b: Hole) -> bool:
    return abs(a.x - b.x) + abs(a.y - b.y) <= 1.0001


def _tick(a, b, half: float, cls: str, colour: str, stroke: float) -> Line:
    """A short line across the path half-way between two holes."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    nx, ny = -dy / length * half, dx / length * half
    return Line(mx - nx, my - ny, mx + nx, my + ny, cls, colour, stroke)


def svg_text(drawing: Drawing) -> str:
    """The drawing as one SVG sheet, 1 user unit = 1 mm."""
    d = drawing
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{d.width:.2f}mm" height="{d.height:.2f}mm" '
        f'viewBox="{d.left:.2f} {d.top:.2f} {d.width:.2f} {d.height:.2f}">',
        f"<title>{escape(d.title)}</title>",
    ]
    parts += [_svg(shape) for shape in d.shapes]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _svg(s: Shape) -> str:
    if isinstance(s, Text):
        face = (' font-weight="bold"' if s.bold else "") + (' font-style="italic"' if s.italic else "")
        return (f'<text class="{s.cls}" x="{s.x:.2f}" y="{s.y:.2f}" font-size="{s.size:.2f}" '
                f'font-family="Helvetica, Arial, sans-serif"{face} text-anchor="{s.anchor}" fill="{s.colour}">'
                f"{escape(s.text)}</text>")
    stroke = f'fill="none" stroke="{s.colour}" stroke-width="{s.width:g}"'
    if s.dash:
        stroke += f' stroke-dasharray="{" ".join(f"{v:g}" for v in s.dash)}"'
    if isinstance(s, Circle):
        return f'<circle class="{s.cls}" cx="{s.x:.2f}" cy="{s.y:.2f}" r="{s.r:.2f}" {stroke}/>'
    if isinstance(s, Line):
        return (f'<line class="{s.cls}" x1="{s.x1:.2f}" y1="{s.y1:.2f}" x2="{s.x2:.2f}" '
                f'y2="{s.y2:.2f}" {stroke}/>')
    if isinstance(s, Rect):
        return (f'<rect class="{s.cls}" x="{s.x:.2f}" y="{s.y:.2f}" width="{s.w:.2f}" '
                f'height="{s.h:.2f}" {stroke}/>')
    points = " ".join(f"{x:.2f},{y:.2f}" for x, y in s.points)
    return f'<polyline class="{s.cls}" points="{points}" {stroke}/>'

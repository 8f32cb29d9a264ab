"""The drilling template tiled over printable pages at exactly 1:1, as a PDF (:func:`write_pdf`).

reportlab is imported only when a PDF is written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .template import SCALE_BAR_MM, Circle, Drawing, Line, Polyline, Rect, Shape, Text, _distance

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4), "a3": (297.0, 420.0)}  # portrait, mm
PAPER_NAMES = {"a4": "A4", "letter": "Letter", "a3": "A3"}
PT_PER_MM = 72 / 25.4
PAGE_MARGIN_MM = 8.0  # left, right and top: inside what printers can print
FOOTER_MM = 21.0  # the bottom band: page label and scale bar
OVERLAP_MM = 20.0  # shared by neighbouring pages
ALIGN = "#c000c0"
ALIGN_ARM_MM = 5.0


@dataclass(frozen=True)
class Page:
    """One sheet: its place in the grid and the drawing's point (mm) at its content's top-left."""

    number: int
    row: int
    column: int
    left: float
    top: float


@dataclass(frozen=True)
class Tiling:
    """How a drawing is cut into pages of one paper, in one orientation."""

    paper: str
    width: float  # the sheet as printed, mm
    height: float
    rows: int
    columns: int
    pages: tuple[Page, ...]  # the tiles, numbered after the instructions page when there is one
    marks: tuple[tuple[float, float], ...]  # alignment marks, drawing mm
    instructions: bool = False  # page 1 is the instructions (the drawing has notes)

    @property
    def total(self) -> int:
        """Every page of the PDF: the instructions and the tiles."""
        return len(self.pages) + self.instructions

    @property
    def content_width(self) -> float:
        return self.width - 2 * PAGE_MARGIN_MM

    @property
    def content_height(self) -> float:
        return self.height - PAGE_MARGIN_MM - FOOTER_MM

    @property
    def landscape(self) -> bool:
        return self.width > self.height

    def region(self, page: Page) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of the drawing shown on ``page``, mm."""
        return page.left, page.top, page.left + self.content_width, page.top + self.content_height

    def to_pdf(self, page: Page, x: float, y: float) -> tuple[float, float]:
        """A drawing point (mm, y down) on ``page`` in PDF points (y up)."""
        return ((PAGE_MARGIN_MM + x - page.left) * PT_PER_MM,
                (self.height - PAGE_MARGIN_MM - (y - page.top)) * PT_PER_MM)


def tile(drawing: Drawing, paper: str) -> Tiling:
    """The drawing over as few pages of ``paper`` as fit it, portrait or landscape."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
    short, long_ = PAPERS[paper]
    portrait = _tiling(drawing, paper, short, long_)
    landscape = _tiling(drawing, paper, long_, short)
    return landscape if len(landscape.pages) < len(portrait.pages) else portrait


def _count(size: float, content: float) -> int:
    return 1 if size <= content else math.ceil((size - OVERLAP_MM) / (content - OVERLAP_MM))


def _starts(origin: float, size: float, content: float, n: int) -> list[float]:
    """Where each of ``n`` pages starts: the first at the drawing's start, the
    last ending at its end, evenly between (so overlaps are ``OVERLAP_MM`` or more)."""
    if n == 1:
        return [origin - (content - size) / 2]
    step = (size - content) / (n - 1)
    return [origin + i * step for i in range(n)]


def _tiling(drawing: Drawing, paper: str, width: float, height: float) -> Tiling:
    cw, ch = width - 2 * PAGE_MARGIN_MM, height - PAGE_MARGIN_MM - FOOTER_MM
    columns, rows = _count(drawing.width, cw), _count(drawing.height, ch)
    xs = _starts(drawing.left, drawing.width, cw, columns)
    ys = _starts(drawing.top, drawing.height, ch, rows)
    first = 2 if drawing.notes else 1  # page 1: the instructions
    pages = tuple(
        Page(r * columns + c + first, r + 1, c + 1, xs[c], ys[r]) for r in range(rows) for c in range(columns)
    )
    marks = []
    for c in range(1, columns):  # the band a column shares with the one to its left
        x = xs[c] + 0.75 * OVERLAP_MM
        for y in ys:
            marks += _free_marks(drawing, x, y + 10, y + ch - 10, vertical=True)
    for r in range(1, rows):
        y = ys[r] + 0.75 * OVERLAP_MM
        for x in xs:
            marks += _free_marks(drawing, y, x + 10, x + cw - 10, vertical=False)
    kept: list[tuple[float, float]] = []
    for mark in marks:  # bands cross and overlap: one mark where two would touch
        if all(math.dist(mark, other) >= 3 * ALIGN_ARM_MM for other in kept):
            kept.append(mark)
    return Tiling(paper, width, height, rows, columns, pages, tuple(kept), bool(drawing.notes))


def _free_marks(drawing: Drawing, at: float, start: float, end: float, vertical: bool):
    """Three alignment marks along a band, each where it covers no hole or line."""
    reach = ALIGN_ARM_MM + 1.5
    lo, hi = (at - reach, start - reach), (at + reach, end + reach)
    if not vertical:
        lo, hi = lo[::-1], hi[::-1]
    near = []
    for shape in drawing.shapes:
        left, top, right, bottom = shape.bbox()
        if shape.cls != "outline" and right >= lo[0] and left <= hi[0] and bottom >= lo[1] and top <= hi[1]:
            near.append(shape)
    candidates = []
    v = start
    while v <= end:
        point = (at, v) if vertical else (v, at)
        if not any(_covers(shape, point, reach) for shape in near):
            candidates.append(point)
        v += 2.0
    wanted = [start + (end - start) * f for f in (1 / 6, 1 / 2, 5 / 6)]
    if not candidates:
        return [((at, w) if vertical else (w, at)) for w in wanted]
    chosen = []
    for w in wanted:
        best = min(candidates, key=lambda p: abs((p[1] if vertical else p[0]) - w))
        if best not in chosen:
            chosen.append(best)
    return chosen


def _covers(shape: Shape, point, reach: float) -> bool:
    """Whether an alignment mark at ``point`` would come within ``reach`` of the shape."""
    x, y = point
    left, top, right, bottom = shape.bbox()
    if x < left - reach or x > right + reach or y < top - reach or y > bottom + reach:
        return False
    if isinstance(shape, (Circle, Text)):
        return True
    return any(_distance(point, p, q) < reach for p, q in shape.segments())


def write_pdf(drawing: Drawing, paper: str, path) -> Tiling:
    """Write the tiled template to ``path``; returns how it was tiled.

    Page 1 is the instructions, whole (the drawing's legend, and how to print,
    trim and tape the pages), readable before anything is taped; the tiles follow.
    Tiles overlap by ``OVERLAP_MM`` or more: each but the first in its row (column)
    has a dashed trim line in the overlap; trimmed there and laid over its
    neighbour, the magenta alignment marks, printed on both, meet. Every page
    has "page N of M" (a tile its row and column too) and a 100 mm scale bar to
    check the printer. reportlab is imported only when a PDF is written.
    """
    from reportlab.lib.colors import HexColor
    from reportlab.pdfgen.canvas import Canvas

    tiling = tile(drawing, paper)
    pt = PT_PER_MM
    canvas = Canvas(str(path), pagesize=(tiling.width * pt, tiling.height * pt), invariant=1)
    canvas.setTitle(drawing.title)
    canvas.setCreator("cribbage-board board-template")
    if tiling.instructions:
        _instructions(canvas, HexColor, drawing, tiling)
        canvas.showPage()
    for page in tiling.pages:
        _page(canvas, HexColor, drawing, tiling, page)
        canvas.showPage()
    canvas.save()
    return tiling


def _page(canvas, colour, drawing: Drawing, tiling: Tiling, page: Page) -> None:
    pt = PT_PER_MM
    left, top, right, bottom = tiling.region(page)
    x0, y0 = tiling.to_pdf(page, left, bottom)
    x1, y1 = tiling.to_pdf(page, right, top)
    canvas.saveState()
    clip = canvas.beginPath()
    clip.rect(x0, y0, x1 - x0, y1 - y0)
    canvas.clipPath(clip, stroke=0, fill=0)
    for shape in drawing.shapes:
        sl, st, sr, sb = shape.bbox()
        if sr >= left - 1 and sl <= right + 1 and sb >= top - 1 and st <= bottom + 1:
            _draw(canvas, colour, tiling, page, shape)
    for x, y in tiling.marks:
        for shape in _align_mark(x, y):
            _draw(canvas, colour, tiling, page, shape)
    canvas.restoreState()
    canvas.setStrokeColor(colour("#b0b0b0"))
    canvas.setLineWidth(0.2 * pt)
    canvas.rect(x0, y0, x1 - x0, y1 - y0, stroke=1, fill=0)
    _trim_lines(canvas, colour, tiling, page)
    _footer(canvas, colour, drawing, tiling, page)


# reportlab's standard fonts for a Text's (bold, italic)
FONTS = {(False, False): "Helvetica", (True, False): "Helvetica-Bold",
         (False, True): "Helvetica-Oblique", (True, True): "Helvetica-BoldOblique"}
INSTRUCTION_MM = 3.6  # the instructions page's text size (10 pt)


def instruction_paragraphs(drawing: Drawing, tiling: Tiling) -> list[tuple[str, float, str]]:
    """Page 1's paragraphs, (text, size in mm, colour): printing, trimming and taping the
    tiles, then the drawing's own legend."""
    tiles, first = len(tiling.pages), tiling.pages[0].number
    grid = (f"{tiling.rows} row{'s' if tiling.rows > 1 else ''} of "
            f"{tiling.columns} page{'s' if tiling.columns > 1 else ''}")
    how = [
        (f"Pages {first} to {first + tiles - 1} are the board at 1:1, {grid} (the map below, and "
         "on every page). Print them at 100 % / actual size, never 'fit to page', and check on each "
         "page that the scale bar measures exactly 100 mm.", INSTRUCTION_MM, "#000000"),
        ("Trim each page that has a dashed magenta line along that line, lay it over the page it "
         "names (the one to its left, or above), move it until the magenta marks printed on both "
         "meet, and tape it there. Tape the whole sheet to the board, centre-punch every cross, "
         "then drill.", INSTRUCTION_MM, "#000000"),
    ]
    return how + [(text, max(size, INSTRUCTION_MM), colour) for text, size, colour in drawing.notes]


def _instructions(canvas, colour, drawing: Drawing, tiling: Tiling) -> None:
    """Page 1: the title, every paragraph whole and wrapped to the page, and a map of the tiles."""
    from reportlab.lib.utils import simpleSplit

    pt = PT_PER_MM
    width = tiling.width - 2 * PAGE_MARGIN_MM
    y = tiling.height - PAGE_MARGIN_MM - 6
    canvas.setFillColor(colour("#000000"))
    canvas.setFont("Helvetica-Bold", 5 * pt)
    name = drawing.title.split(":")[0]
    canvas.drawString(PAGE_MARGIN_MM * pt, y * pt, f"{name}: drilling template - read this first")
    y -= 10
    for text, size, ink in instruction_paragraphs(drawing, tiling):
        canvas.setFillColor(colour(ink))
        canvas.setFont("Helvetica", size * pt)
        for line in simpleSplit(text, "Helvetica", size * pt, width * pt):
            canvas.drawString(PAGE_MARGIN_MM * pt, y * pt, line)
            y -= size * 1.35
        y -= size * 0.9
    map_height = min(60.0, y - FOOTER_MM - 10)
    if map_height > 12:
        canvas.setFillColor(colour("#000000"))
        canvas.setFont("Helvetica", 3 * pt)
        canvas.drawString(PAGE_MARGIN_MM * pt, y * pt, "The tiles, as they are taped together:")
        cell = min(map_height / tiling.rows, width / tiling.columns / 1.4, 30.0)
        _page_map(canvas, colour, tiling, None, (PAGE_MARGIN_MM + cell * 1.4 * tiling.columns) * pt,
                  (y - 3 - cell * tiling.rows) * pt, cell * tiling.rows * pt, max_width=width)
    _footer(canvas, colour, drawing, tiling, None)


def _align_mark(x: float, y: float) -> list[Shape]:
    arm = ALIGN_ARM_MM
    return [
        Circle(x, y, arm * 0.6, "align", ALIGN, 0.2),
        Line(x - arm, y, x + arm, y, "align", ALIGN, 0.2),
        Line(x, y - arm, x, y + arm, "align", ALIGN, 0.2),
    ]


def _trim_lines(canvas, colour, tiling: Tiling, page: Page) -> None:
    """Dashed lines in the overlap this page shares with the page left of it and the page above."""
    pt = PT_PER_MM
    left, top, right, bottom = tiling.region(page)
    canvas.setStrokeColor(colour(ALIGN))
    canvas.setFillColor(colour(ALIGN))
    canvas.setLineWidth(0.25 * pt)
    canvas.setDash([3 * pt, 1.5 * pt])
    canvas.setFont("Helvetica", 2.6 * pt)
    columns = tiling.columns
    if page.column > 1:
        x = left + OVERLAP_MM / 2
        canvas.line(*tiling.to_pdf(page, x, top), *tiling.to_pdf(page, x, bottom))
        tx, ty = tiling.to_pdf(page, left + OVERLAP_MM / 4, top + 5 + (OVERLAP_MM if page.row > 1 else 0))
        canvas.saveState()
        canvas.translate(tx, ty)
        canvas.rotate(-90)
        canvas.drawString(0, -1 * pt, f"trim along the dashed line, lay over page {page.number - 1}, match the marks")
        canvas.restoreState()
    if page.row > 1:
        y = top + OVERLAP_MM / 2
        canvas.line(*tiling.to_pdf(page, left, y), *tiling.to_pdf(page, right, y))
        tx, ty = tiling.to_pdf(page, left + 5 + (OVERLAP_MM if page.column > 1 else 0), top + OVERLAP_MM / 4)
        canvas.drawString(tx, ty - 1 * pt,
                          f"trim along the dashed line, lay over page {page.number - columns}, match the marks")
    canvas.setDash([])


def _footer(canvas, colour, drawing: Drawing, tiling: Tiling, page: Page | None) -> None:
    """The page's label, the 100 mm scale bar and a map of the pages (``page`` None: page 1,
    the instructions)."""
    pt = PT_PER_MM
    top = tiling.height - FOOTER_MM  # the footer's top, mm from the page's top

    def at(mm_down: float) -> float:
        return (tiling.height - top - mm_down) * pt

    x = PAGE_MARGIN_MM
    canvas.setFillColor(colour("#000000"))
    canvas.setStrokeColor(colour("#000000"))
    canvas.setFont("Helvetica-Bold", 3.2 * pt)
    name = drawing.title.split(":")[0]
    if page is None:
        label = f"{name} drilling template - page 1 of {tiling.total}: the instructions"
    else:
        label = (f"{name} drilling template - page {page.number} of {tiling.total} "
                 f"(row {page.row} of {tiling.rows}, column {page.column} of {tiling.columns})")
    canvas.drawString(x * pt, at(4.5), label)
    bar_y = at(10)
    canvas.setLineWidth(0.4 * pt)
    canvas.line(x * pt, bar_y, (x + SCALE_BAR_MM) * pt, bar_y)
    canvas.setLineWidth(0.2 * pt)
    canvas.setFont("Helvetica", 2.4 * pt)
    for mm in range(0, int(SCALE_BAR_MM) + 1, 10):
        tick = 2.5 if mm % 50 == 0 else 1.5
        canvas.line((x + mm) * pt, bar_y, (x + mm) * pt, bar_y + tick * pt)
        if mm % 50 == 0:
            canvas.drawCentredString((x + mm) * pt, at(13.2), f"{mm} mm")
    canvas.setFont("Helvetica", 2.8 * pt)
    text_x = (x + SCALE_BAR_MM + 10) * pt
    canvas.drawString(text_x, at(9), "Print at 100 % / actual size (no 'fit to page').")
    canvas.drawString(text_x, at(12.5), "Check: this bar must measure exactly 100 mm.")
    _page_map(canvas, colour, tiling, page, (tiling.width - PAGE_MARGIN_MM) * pt, at(7), 6.5 * pt)


def _page_map(canvas, colour, tiling: Tiling, page: Page | None, right: float, bottom: float, height: float,
              max_width: float = 24.0) -> None:
    """The grid of tiles, this one filled, its bottom-right corner at (right, bottom)."""
    pt = PT_PER_MM
    ch = min(height / tiling.rows, max_width * pt / tiling.columns / 1.4)
    cw = ch * 1.4
    canvas.setLineWidth(0.2 * pt)
    canvas.setStrokeColor(colour("#000000"))
    for other in tiling.pages:
        x = right - (tiling.columns - other.column + 1) * cw
        y = bottom + (tiling.rows - other.row) * ch
        canvas.setFillColor(colour("#c0c0c0"))
        canvas.rect(x, y, cw, ch, stroke=1, fill=1 if other is page else 0)
        canvas.setFillColor(colour("#000000"))
        canvas.setFont("Helvetica", ch * 0.6)
        canvas.drawCentredString(x + cw / 2, y + ch * 0.25, str(other.number))


def _draw(canvas, colour, tiling: Tiling, page: Page, shape: Shape) -> None:
    pt = PT_PER_MM
    if isinstance(shape, Text):
        canvas.setFillColor(colour(shape.colour))
        canvas.setFont(FONTS[shape.bold, shape.italic], shape.size * pt)
        x, y = tiling.to_pdf(page, shape.x, shape.y)
        draw = {"start": canvas.drawString, "middle": canvas.drawCentredString, "end": canvas.drawRightString}
        draw[shape.anchor](x, y, shape.text)
        return
    canvas.setStrokeColor(colour(shape.colour))
    canvas.setLineWidth(shape.width * pt)
    canvas.setDash([v * pt for v in shape.dash] if shape.dash else [])
    if isinstance(shape, Circle):
        canvas.circle(*tiling.to_pdf(page, shape.x, shape.y), shape.r * pt, stroke=1, fill=0)
    elif isinstance(shape, Line):
        canvas.line(*tiling.to_pdf(page, shape.x1, shape.y1), *tiling.to_pdf(page, shape.x2, shape.y2))
    elif isinstance(shape, Rect):
        x, y = tiling.to_pdf(page, shape.x, shape.y + shape.h)
        canvas.rect(x, y, shape.w * pt, shape.h * pt, stroke=1, fill=0)
    elif isinstance(shape, Polyline):
        path = canvas.beginPath()
        path.moveTo(*tiling.to_pdf(page, *shape.points[0]))
        for point in shape.points[1:]:
            path.lineTo(*tiling.to_pdf(page, *point))
        canvas.drawPath(path, stroke=1, fill=0)

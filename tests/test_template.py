"""The drilling template: to scale, every hole, groups of 5, skunk lines, game hole,
the strip's cuts, the controls, and PDF pages at 1:1 with overlaps and a scale bar."""

import functools
import math
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest

from firmware.cli import main
from hardware.inputs import DEFAULT_BUTTONS
from hardware.layout import BUNDLED, load_layout, parse_layout
from hardware.template import (
    BUTTON_MM,
    ENCODER_SHAFT_MM,
    HOLE_MM,
    OLED_WINDOW_MM,
    _overlaps,
    board_svg,
    strip_pieces,
    template_drawing,
)
from hardware.template_pdf import OVERLAP_MM, tile

SVG = "{http://www.w3.org/2000/svg}"
PT = 72 / 25.4
PAPER_PT = {"a4": (595.28, 841.89), "letter": (612.0, 792.0), "a3": (841.89, 1190.55)}
MARKS = {91: "skunk line (91)", 61: "double skunk (61)"}
LINE = re.compile(rb"n (-?[\d.]+) (-?[\d.]+) m (-?[\d.]+) (-?[\d.]+) l\s+S")


def pdf_reader(path):
    """pypdf's reader of ``path`` (pypdf imported here: 0.2 s that only the worker running these tests pays)."""
    from pypdf import PdfReader

    return PdfReader(path)


def shapes(svg, tag, cls):
    root = ET.fromstring(svg)
    return [e for e in root.iter(SVG + tag) if e.get("class") == cls]


@functools.cache
def drawing_of(name, legend):
    """The template of bundled layout ``name`` with MARKS, drawn once a session (a Drawing is immutable)."""
    return template_drawing(load_layout(name), MARKS, legend=legend)


@functools.cache
def tiling_of(name, paper):
    """The tiles board-template prints on ``paper`` (the drawing without its legend), once a session."""
    return tile(drawing_of(name, False), paper)


def crosses(box, line):
    """Whether ``line`` comes inside ``box`` by the template's own test, asked only where their bounding
    boxes meet: no point of a line lies outside its own box (1 micrometre spare for rounding)."""
    left, top, right, bottom = line.bbox()
    near = left <= box[2] + 1e-3 and box[0] <= right + 1e-3 and top <= box[3] + 1e-3 and box[1] <= bottom + 1e-3
    return near and _overlaps(box, line)


def pdf_lines(page):
    """Every single straight line a PDF page strokes, as (x1, y1, x2, y2) in points."""
    return [tuple(float(v) for v in m.groups()) for m in LINE.finditer(page.get_contents().get_data())]


@pytest.fixture(scope="module")
def pdf(tmp_path_factory):
    """The PDF board-template writes for (layout, paper), each written once."""
    written = {}

    def get(layout, paper):
        if (layout, paper) not in written:
            out = tmp_path_factory.mktemp("pdf") / f"{layout}-{paper}.pdf"
            assert main(["board-template", "--layout", layout, "--paper", paper, "-o", str(out)]) == 0
            written[layout, paper] = pdf_reader(out)
        return written[layout, paper]

    return get


def test_template_draws_every_hole_to_scale():
    """240 holes, 2 start holes and the game hole, one pitch (1000/60 mm) apart."""
    layout = load_layout("classic-121")
    svg = board_svg(layout, {91: "skunk line"})
    holes = shapes(svg, "circle", "hole")
    assert len(holes) == 240
    assert len(shapes(svg, "circle", "start")) == 2 and len(shapes(svg, "circle", "game-hole")) == 1
    xs = sorted({round(float(h.get("cx")), 2) for h in holes})
    assert round(xs[1] - xs[0], 2) == round(1000 / 60, 2)
    root = ET.fromstring(svg)
    assert root.get("width").endswith("mm")
    assert float(root.get("width")[:-2]) == float(root.get("viewBox").split()[2])
    (bar,) = shapes(svg, "line", "scale-bar")
    assert float(bar.get("x2")) - float(bar.get("x1")) == 100 and bar.get("y1") == bar.get("y2")


def test_template_groups_of_five_and_marks():
    """A tick after every 5th hole inside a street (5 per street of 30), and the marks in red."""
    svg = board_svg(load_layout("classic-121"), {91: "skunk line", 61: "double skunk"})
    assert len(shapes(svg, "line", "group")) == 2 * 4 * 5
    assert len(shapes(svg, "line", "mark")) == 2 * 2
    labels = [t.text for t in shapes(svg, "text", "mark-label")]
    assert labels == ["double skunk", "skunk line"]


def test_every_hole_has_a_centre_cross():
    """Two crossing lines through each hole's centre, longer than the hole is wide."""
    svg = board_svg(load_layout("three-track-121"))
    crosses = shapes(svg, "line", "centre")
    centres = {(round(float(c.get("cx")), 2), round(float(c.get("cy")), 2))
               for cls in ("hole", "start", "game-hole") for c in shapes(svg, "circle", cls)}
    assert len(centres) == 360 + 3 + 1
    through = defaultdict(int)
    for line in crosses:
        x1, y1, x2, y2 = (float(line.get(k)) for k in ("x1", "y1", "x2", "y2"))
        assert math.hypot(x2 - x1, y2 - y1) > HOLE_MM
        through[(round((x1 + x2) / 2, 2), round((y1 + y2) / 2, 2))] += 1
    assert all(through[c] == 2 for c in centres)


@pytest.mark.parametrize("name", BUNDLED)
def test_game_hole_at_the_end_beside_hole_120(name):
    """The game hole is within a few pitches of every track's hole 120, not across the board."""
    layout = load_layout(name)
    game = layout.game_hole
    for track in range(len(layout.tracks)):
        end = layout.hole(track, 120)
        assert math.hypot(game.x - end.x, game.y - end.y) <= 3
    assert game.led == 120 * len(layout.tracks)  # the strip order is unchanged


def test_strip_is_cut_where_it_jumps_between_runs():
    """Classic: a straight piece per row of 30, the game hole alone, the two start holes
    together; LED order kept, neighbours on a piece one pitch apart in a line."""
    layout = load_layout("classic-121")
    pieces = strip_pieces(layout)
    assert [len(p) for p in pieces] == [30] * 8 + [1, 2]
    assert [h.led for p in pieces for h in p] == list(range(243))
    assert [p[0].led for p in pieces] == [0, 30, 60, 90, 120, 150, 180, 210, 240, 241]
    for piece in pieces:
        steps = {(b.x - a.x, b.y - a.y) for a, b in zip(piece, piece[1:])}
        assert len(steps) <= 1 and all(abs(math.hypot(*s) - 1) < 1e-9 for s in steps)
    assert pieces[1][0].x == 29 and pieces[1][-1].x == 0  # the serpentine's reversed row runs back
    svg = board_svg(layout)
    assert len(shapes(svg, "line", "cut")) == 2 * len(pieces)
    assert len(shapes(svg, "polyline", "bridge")) == len(pieces) - 1
    numbers = [t.text for t in shapes(svg, "text", "led-number")]
    assert numbers[0] == "LED 0 (DIN)" and sorted(int(n.removeprefix("LED ")) for n in numbers[1:]) == list(
        range(10, 243, 10))


def test_strip_runs_in_one_line_need_no_cut():
    """Two runs that carry on in a straight line, LED after LED, are one piece of strip."""
    data = {
        "name": "straight", "strip_leds": 300, "game_hole": {"led": 299, "at": [-2, 0.5]},
        "tracks": [
            {"runs": [{"holes": "1-60", "leds": "0-59", "at": [0, 0]},
                      {"holes": "61-120", "leds": "60-119", "at": [60, 0]}]},
            {"runs": [{"holes": "1-120", "leds": "239-120", "at": [0, 1]}]},
        ],
    }
    pieces = strip_pieces(parse_layout(data))
    assert [(p[0].led, p[-1].led) for p in pieces] == [(0, 119), (120, 239), (299, 299)]


def test_controls_outlined_below_the_tracks():
    """Six buttons in the config's order, the encoder and the OLED window, clear of every hole."""
    layout = load_layout("classic-121")
    svg = board_svg(layout)
    buttons = shapes(svg, "circle", "button")
    assert {float(b.get("r")) for b in buttons} == {BUTTON_MM / 2}
    names = sorted(shapes(svg, "text", "button-label"), key=lambda t: float(t.get("x")))
    assert [t.text for t in names] == list(DEFAULT_BUTTONS)
    (encoder,) = shapes(svg, "circle", "encoder")
    assert float(encoder.get("r")) == ENCODER_SHAFT_MM / 2
    (window,) = shapes(svg, "rect", "oled-window")
    assert (float(window.get("width")), float(window.get("height"))) == OLED_WINDOW_MM
    lowest = max(h.y for h in layout.all_holes()) * layout.pitch_mm + HOLE_MM / 2
    tops = [float(b.get("cy")) - float(b.get("r")) for b in buttons + [encoder]] + [float(window.get("y"))]
    assert min(tops) > lowest


@pytest.mark.parametrize("paper", PAPER_PT)
def test_pdf_pages_match_the_paper(pdf, paper):
    """As many pages as the tiling needs, each exactly the paper's size (either way round)."""
    pdf = pdf("classic-121", paper)
    expected = tiling_of("classic-121", paper)
    assert len(pdf.pages) == len(expected.pages) + 1 == expected.total and len(expected.pages) > 1
    sizes = {(round(float(p.mediabox.width), 2), round(float(p.mediabox.height), 2)) for p in pdf.pages}
    assert len(sizes) == 1
    (size,) = sizes
    short, long_ = PAPER_PT[paper]
    assert abs(min(size) - short) < 0.5 and abs(max(size) - long_) < 0.5


@pytest.mark.slow
def test_every_page_has_a_100_mm_scale_bar_and_its_label(pdf):
    """A horizontal line of exactly 100 mm (283.46 pt) on every page, and the page's label."""
    pdf = pdf("four-track-121", "letter")
    total = len(pdf.pages)
    assert total > 2
    for n, page in enumerate(pdf.pages, 1):
        bars = [seg for seg in pdf_lines(page) if seg[1] == seg[3] and abs(abs(seg[2] - seg[0]) - 100 * PT) < 0.01]
        assert bars, f"page {n} has no 100 mm bar"
        text = " ".join(page.extract_text().split())
        assert f"page {n} of {total}" in text and (n == 1 or "row " in text and "column " in text)
        assert "100 % / actual size" in text


def test_holes_are_printed_at_1_to_1(pdf):
    """The holes' centre crosses on each page are whole pitches apart, in points."""
    pdf = pdf("classic-121", "a4")
    pitch_pt = 1000 / 60 * PT
    arm = (HOLE_MM / 2 + 1.5) * 2 * PT
    found = 0
    for page in pdf.pages:
        rows = defaultdict(list)
        for x1, y1, x2, y2 in pdf_lines(page):
            if y1 == y2 and abs(abs(x2 - x1) - arm) < 0.01:
                rows[round(y1, 1)].append((x1 + x2) / 2)
        for xs in rows.values():
            xs.sort()
            for a, b in zip(xs, xs[1:]):
                steps = (b - a) / pitch_pt
                assert abs(steps - round(steps)) < 0.001 and round(steps) >= 1
                found += 1
    assert found > 200
    # and one known pair through the tiling: holes 1 and 6 of track 1, 5 pitches apart
    tiling = tiling_of("classic-121", "a4")
    page = tiling.pages[0]
    assert page.number == 2  # page 1: the instructions
    p1, p6 = (tiling.to_pdf(page, h * 1000 / 60, 0) for h in (0, 5))
    assert abs((p6[0] - p1[0]) - 5 * pitch_pt) < 1e-6
    lines = pdf_lines(pdf.pages[1])
    for x, y in (p1, p6):
        assert any(seg[1] == seg[3] and abs(seg[1] - y) < 0.01 and abs((seg[0] + seg[2]) / 2 - x) < 0.01 for seg in lines)


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("paper", PAPER_PT)
def test_tiles_overlap_and_cover_every_hole(name, paper):
    """Every hole lies whole on some page; neighbouring pages share at least the overlap,
    and each alignment mark is on two pages or more."""
    layout = load_layout(name)
    drawing = drawing_of(name, False)  # as board-template tiles it
    tiling = tiling_of(name, paper)
    regions = {(p.row, p.column): tiling.region(p) for p in tiling.pages}
    r = HOLE_MM / 2
    pitch = layout.pitch_mm
    for hole in layout.all_holes():
        x, y = hole.x * pitch, hole.y * pitch
        assert any(a <= x - r and x + r <= c and b <= y - r and y + r <= d for a, b, c, d in regions.values())
    for (row, column), (_, _, c, d) in regions.items():
        if (row, column + 1) in regions:
            assert c - regions[(row, column + 1)][0] >= OVERLAP_MM - 1e-9
        if (row + 1, column) in regions:
            assert d - regions[(row + 1, column)][1] >= OVERLAP_MM - 1e-9
    a, b, *_ = regions[(1, 1)]
    *_, c, d = regions[(tiling.rows, tiling.columns)]
    assert a <= drawing.left and b <= drawing.top
    assert c >= drawing.left + drawing.width and d >= drawing.top + drawing.height
    if len(tiling.pages) > 1:
        assert tiling.marks
    for x, y in tiling.marks:
        assert sum(a <= x <= c and b <= y <= d for a, b, c, d in regions.values()) >= 2
    for (row, column), (a, b, c, d) in regions.items():  # two marks kept by each trimmed page and its neighbour
        for key, keep in (((row, column + 1), lambda x, y, n: n[0] + OVERLAP_MM / 2 < x <= c and b <= y <= d),
                          ((row + 1, column), lambda x, y, n: n[1] + OVERLAP_MM / 2 < y <= d and a <= x <= c)):
            if key in regions:
                assert sum(keep(x, y, regions[key]) for x, y in tiling.marks) >= 2, (key, paper)


@pytest.mark.slow
def test_board_template_command(tmp_path, capsys):
    """cribbage-board board-template writes the SVG or the PDF; bad input is a one-line error."""
    out = tmp_path / "board.svg"
    assert main(["board-template", "--layout", "three-track-121", "-o", str(out)]) == 0
    assert len(shapes(out.read_text(), "circle", "hole")) == 360
    assert "print at 100 %" in capsys.readouterr().out
    assert main(["board-template", "--layout", str(tmp_path / "none.toml"), "-o", str(out)]) == 2
    assert "cannot read the layout" in capsys.readouterr().err
    assert main(["board-template", "--paper", "a4", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--paper tiles a PDF" in err and len(err.strip().splitlines()) == 1
    assert main(["board-template", "-o", str(tmp_path / "board.png")]) == 2
    assert "writes a .pdf" in capsys.readouterr().err
    assert main(["board-template", "-o", str(tmp_path / "no" / "board.pdf")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert main(["board-template", "--paper", "a3", "-o", str(tmp_path / "board.pdf")]) == 0
    assert "3 A3 landscape pages: page 1 the instructions, then 2 to tape (1 x 2)" in capsys.readouterr().out
    assert len(pdf_reader(tmp_path / "board.pdf").pages) == 3


def test_help_and_readme_name_every_layout(monkeypatch, capsys):
    """--help and hardware/README.md name all the bundled layouts."""
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["board-template", "--help"]) == 0
    help_text = capsys.readouterr().out
    readme = (Path(__file__).parent.parent / "hardware" / "README.md").read_text()
    for name in BUNDLED:
        assert name in help_text and name in readme


@pytest.mark.parametrize("name", BUNDLED)
def test_every_fifth_hole_is_numbered_apart_from_the_led_numbers(name):
    """5, 10 ... 120 in bold black above each column of holes that share the number; the LED numbers
    are "LED n", teal, italic, smaller and below their holes; the legend tells the two apart."""
    from hardware.template import STRIP, Text

    layout = load_layout(name)
    drawing = drawing_of(name, True)
    pitch = layout.pitch_mm
    texts = [s for s in drawing.shapes if isinstance(s, Text)]
    numbers = {(round(t.x, 2), t.text): t for t in texts if t.cls == "hole-number-5"}
    for track in layout.tracks:
        for hole in track:
            if hole.number % 5:
                continue
            label = numbers[round(hole.x * pitch, 2), str(hole.number)]
            top = min(h.y for t in layout.tracks for h in t if h.number == hole.number and h.x == hole.x)
            assert top * pitch - pitch < label.y < top * pitch and label.bold and label.colour == "#000000"
    assert len(numbers) == 120 // 5  # once a column: the tracks of a street share their numbers
    leds = {t.text: t for t in texts if t.cls == "led-number"}
    by_led = {h.led: h for h in layout.all_holes()}
    assert leds and all(text.startswith("LED ") for text in leds)
    for text, label in leds.items():
        hole = by_led[int(text.split()[1])]
        assert label.italic and not label.bold and label.colour == STRIP
        assert label.size < next(iter(numbers.values())).size
        assert label.y > hole.y * pitch or label.x != hole.x * pitch  # below its hole, or beside it in a column
    legend = " ".join(text for text, _, _ in drawing.notes)
    assert "every 5th hole, in bold black" in legend and '"LED n" in teal italic' in legend
    assert "not a hole number" in legend


@pytest.mark.parametrize("name", BUNDLED)
def test_no_text_overlaps_another_or_crosses_a_line(name):
    """Every label (hole and LED numbers, the skunk lines' labels, start, game, the controls, the legend)
    is clear of every other and of the strip, its dashed bridges, the cut bars, the marks and the ticks:
    "double skunk (61)" no longer sits on a bridge."""
    from hardware.template import Text

    drawing = drawing_of(name, True)
    texts = [s for s in drawing.shapes if isinstance(s, Text)]
    lines = [s for s in drawing.shapes if s.cls in ("bridge", "strip", "cut", "mark", "group", "strip-arrow")]
    assert any(t.cls == "mark-label" and t.text == "double skunk (61)" for t in texts)
    assert any(line.cls == "bridge" for line in lines)
    overlapping = [(a.text, b.text) for i, a in enumerate(texts) for b in texts[i + 1:] if _overlaps(a.bbox(), b)]
    crossing = [(t.text, line.cls) for t in texts for line in lines if crosses(t.bbox(), line)]
    assert not overlapping and not crossing, (overlapping, crossing)


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPER_PT)
def test_pdf_page_1_is_the_instructions_whole(pdf, paper):
    """Page 1 holds every paragraph of the legend and how to print, trim and tape, whole; the tiles
    hold none of it (no paragraph cut across tiles)."""
    from hardware.template_pdf import instruction_paragraphs

    reader = pdf("classic-121", paper)
    drawing = drawing_of("classic-121", False)
    tiling = tiling_of("classic-121", paper)
    first = " ".join(reader.pages[0].extract_text().split())
    assert "read this first" in first and "page 1 of" in first
    paragraphs = instruction_paragraphs(drawing, tiling)
    assert len(paragraphs) == len(drawing.notes) + 2
    for text, _, _ in paragraphs:
        assert " ".join(text.split()) in first, text
    for page in reader.pages[1:]:
        text = " ".join(page.extract_text().split())
        assert "Drill at the centre crosses" not in text and "bridge each dashed gap" not in text

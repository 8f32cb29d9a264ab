"""The printable board template: to scale, every hole, groups of 5, skunk lines, game hole."""

import xml.etree.ElementTree as ET

from firmware.cli import main
from hardware.layout import load_layout
from hardware.template import board_svg

SVG = "{http://www.w3.org/2000/svg}"


def shapes(svg, tag, cls):
    root = ET.fromstring(svg)
    return [e for e in root.iter(SVG + tag) if e.get("class") == cls]


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


def test_template_groups_of_five_and_marks():
    """A tick after every 5th hole inside a street (5 per street of 30), and the marks in red."""
    svg = board_svg(load_layout("classic-121"), {91: "skunk line", 61: "double skunk"})
    assert len(shapes(svg, "line", "group")) == 2 * 4 * 5
    assert len(shapes(svg, "line", "mark")) == 2 * 2
    labels = [t.text for t in shapes(svg, "text", "mark-label")]
    assert labels == ["double skunk", "skunk line"]


def test_board_template_command(tmp_path, capsys):
    """cribbage-board board-template writes the SVG; a bad layout is a one-line error."""
    out = tmp_path / "board.svg"
    assert main(["board-template", "--layout", "three-track-121", "-o", str(out)]) == 0
    assert len(shapes(out.read_text(), "circle", "hole")) == 360
    assert main(["board-template", "--layout", str(tmp_path / "none.toml"), "-o", str(out)]) == 2
    assert "cannot read layout" in capsys.readouterr().err

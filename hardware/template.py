"""A printable drilling template of a board layout, to scale, as SVG.

Hole positions come from the layout (in hole pitches), the pitch from the
strip's LEDs per metre. Marks (a line before a hole, with a label) are given
by the caller: the hardware layer knows holes, not cribbage.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from .layout import Hole, Layout

HOLE_MM = 5.0  # a 5 mm drill takes a 5050 LED's light, or a peg


def board_svg(
    layout: Layout,
    marks: dict[int, str] | None = None,
    group: int = 5,
    hole_mm: float = HOLE_MM,
) -> str:
    """The layout drawn to scale: holes, a tick between each ``group`` of holes,
    a red line before each hole number in ``marks`` with its label, the start
    holes and the game hole marked."""
    pitch = layout.pitch_mm
    marks = marks or {}
    margin = 3 * pitch
    left, top, right, bottom = layout.bounds()
    min_x = left * pitch - margin
    min_y = top * pitch - margin
    width = right * pitch + margin - min_x
    height = bottom * pitch + margin - min_y + 2 * pitch

    def pos(hole: Hole) -> tuple[float, float]:
        return hole.x * pitch - min_x, hole.y * pitch - min_y

    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.2f}mm" height="{height:.2f}mm" '
        f'viewBox="0 0 {width:.2f} {height:.2f}">',
        f"<title>{escape(layout.name)}: drilling template, hole pitch {pitch:.2f} mm</title>",
        f'<rect x="0.5" y="0.5" width="{width - 1:.2f}" height="{height - 1:.2f}" '
        'fill="none" stroke="black" stroke-width="0.3"/>',
    ]
    radius = hole_mm / 2
    for track in layout.tracks:
        for hole in track:
            x, y = pos(hole)
            parts.append(
                f'<circle class="hole" cx="{x:.2f}" cy="{y:.2f}" r="{radius:.2f}" '
                'fill="none" stroke="black" stroke-width="0.25"/>'
            )
        for a, b in zip(track, track[1:]):
            if a.number % group == 0 and _adjacent(a, b):
                parts.append(_tick(pos(a), pos(b), pitch * 0.45, "group", "black", 0.3))
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
                parts.append(_tick(a, b, pitch * 0.6, "mark", "red", 0.6))
                if at.track == 0:
                    parts.append(
                        f'<text class="mark-label" x="{b[0]:.2f}" y="{b[1] - pitch:.2f}" '
                        f'font-size="{pitch * 0.5:.2f}" text-anchor="middle" fill="red">'
                        f"{escape(label)}</text>"
                    )
    for start in layout.starts:
        if start is not None:
            x, y = pos(start)
            parts.append(
                f'<circle class="start" cx="{x:.2f}" cy="{y:.2f}" r="{radius:.2f}" '
                'fill="none" stroke="blue" stroke-width="0.4"/>'
            )
    x, y = pos(layout.game_hole)
    parts.append(
        f'<circle class="game-hole" cx="{x:.2f}" cy="{y:.2f}" r="{radius * 1.4:.2f}" '
        'fill="none" stroke="red" stroke-width="0.6"/>'
    )
    parts.append(
        f'<text x="{x:.2f}" y="{y + pitch * 1.3:.2f}" font-size="{pitch * 0.5:.2f}" '
        'text-anchor="middle">game</text>'
    )
    parts.append(
        f'<text x="{margin / 2:.2f}" y="{height - pitch:.2f}" font-size="{pitch * 0.5:.2f}">'
        f"{escape(layout.name)} - hole pitch {pitch:.2f} mm ({layout.leds_per_metre:g} LEDs/m), "
        f"holes {hole_mm:g} mm. Print at 100%.</text>"
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _adjacent(a: Hole, b: Hole) -> bool:
    return abs(a.x - b.x) + abs(a.y - b.y) <= 1.0001


def _tick(a, b, half: float, cls: str, colour: str, stroke: float) -> str:
    """A short line across the path half-way between two holes."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    nx, ny = -dy / length * half, dx / length * half
    return (
        f'<line class="{cls}" x1="{mx - nx:.2f}" y1="{my - ny:.2f}" x2="{mx + nx:.2f}" '
        f'y2="{my + ny:.2f}" stroke="{colour}" stroke-width="{stroke}"/>'
    )

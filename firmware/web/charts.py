"""Small SVG charts: the pegging race of a game, a player's hands against the exact distribution.

Text in a chart is sized by the page's style in the chart's own units: CHART_FONT on a
wide screen, PHONE_FONT on a phone (the chart is drawn narrower there, so its text would
shrink below 12 CSS pixels). Where a label goes is worked out for the larger of the two,
anchored at its start and its baseline, so the smaller text sits inside the same box: a
label that is clear of every line at one size is clear at the other.
"""

from __future__ import annotations

from html import escape

from .board import COLOURS
from .names import name_text

CHART_FONT = 11  # a chart's text in its own units, on a wide screen (style.css)
PHONE_FONT = 16  # on a screen up to 600 CSS px wide: 12.8 px on a 390 px phone (style.css)
EM_WIDTH = 0.66  # a character's width at most on average, in ems (DejaVu Sans: digits 0.64, "m" 0.97)
ASCENT, DESCENT = 0.95, 0.27  # a line of text's box above and below its baseline, in ems
GAP = 2.0  # the least room between a label and a line, in chart units
LEGEND_ROW = PHONE_FONT + 3

Box = tuple[float, float, float, float]  # left, top, right, bottom


def text_box(x: float, baseline: float, text: str, font: float = PHONE_FONT) -> Box:
    """The box a text anchored at its start (``x``, ``baseline``) takes at most."""
    return (x, baseline - ASCENT * font, x + EM_WIDTH * font * len(text), baseline + DESCENT * font)


def _hits(box: Box, segment: Box, margin: float = GAP) -> bool:
    """Whether a segment (or a box: left, top, right, bottom) comes within ``margin`` of ``box``."""
    left, top, right, bottom = box
    x1, y1, x2, y2 = segment
    return (min(x1, x2) <= right + margin and max(x1, x2) >= left - margin
            and min(y1, y2) <= bottom + margin and max(y1, y2) >= top - margin)


def place(width: float, height: float, plot: Box, candidates, obstacles: list[Box]) -> tuple[float, float] | None:
    """The first of ``candidates`` ((x, y, width, height) of a box) inside ``plot`` and clear of every one
    of ``obstacles`` (segments and boxes); None if none is."""
    left, top, right, bottom = plot
    for x, y in candidates:
        box = (x, y, x + width, y + height)
        if x < left + GAP or y < top + GAP or x + width > right - GAP or y + height > bottom - GAP:
            continue
        if not any(_hits(box, obstacle) for obstacle in obstacles):
            return x, y
    return None


def race_svg(race: list[tuple[int, ...]], sides: list[str], target: int,
             lines: list[tuple[int, str]]) -> str:
    """Each side's score after each entry (a step line a side), the skunk lines and the target dashed,
    each line's label and the legend where no line runs (see the module)."""
    w, h, left, bottom, top, right = 420.0, 250.0, 36.0, 24.0, 10.0, 8.0
    steps = max(len(race) - 1, 1)
    top_score = max(target, max((max(r) for r in race), default=0))
    plot = (left, top, w - right, h - bottom)

    def x(i):
        return left + (w - left - right) * i / steps

    def y(score):
        return top + (h - top - bottom) * (1 - score / top_score)

    out = [f'<svg class="race" viewBox="0 0 {w:.0f} {h:.0f}" role="img" '
           f'aria-label="pegging race" xmlns="http://www.w3.org/2000/svg">',
           f'<rect x="{left}" y="{top}" width="{w - left - right}" height="{h - top - bottom}" class="plot"/>']
    for score in range(0, top_score + 1, 30):
        out.append(f'<text x="{left - 4}" y="{y(score) + 4:.1f}" class="axis" text-anchor="end">{score}</text>')
    marks = lines + [(target, "game")]
    obstacles: list[Box] = [(left, y(score), w - right, y(score)) for score, _ in marks]
    drawn = []
    for s, name in enumerate(sides):
        points: list[tuple[float, float]] = []
        for i, scores in enumerate(race):
            if i:
                points.append((x(i), y(race[i - 1][s])))
            points.append((x(i), y(scores[s])))
        obstacles.extend((a[0], a[1], b[0], b[1]) for a, b in zip(points, points[1:]))
        if len(points) == 1:
            obstacles.append((*points[0], *points[0]))
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        colour = COLOURS[s % len(COLOURS)]
        drawn.append(f'<polyline points="{path}" class="line side-{s % len(COLOURS)}" fill="none" stroke="{colour}" '
                     'stroke-width="2.5">'
                     f'<title>{escape(name_text(name))}</title></polyline>')
    for score, label in marks:
        cls = "target-line" if label == "game" else "skunk-line"
        out.append(f'<line x1="{left}" y1="{y(score):.1f}" x2="{w - right}" y2="{y(score):.1f}" class="{cls}"/>')
    legend, legend_box = _legend(sides, plot, obstacles)
    obstacles.append(legend_box)
    for score, label in marks:
        out.append(_line_label(f"{label} {score}", y(score), plot, obstacles))
    out.extend(drawn)
    out.append(legend)
    out.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 5}" class="axis" text-anchor="middle">'
               f'record lines ({len(race) - 1})</text>')
    out.append("</svg>")
    return "".join(out)


def _line_label(text: str, line_y: float, plot: Box, obstacles: list[Box]) -> str:
    """A line's label just above or below it, from its right end leftwards: the first place clear of
    every line and label (then an obstacle itself); over a backing at the right end if none is."""
    width, height = EM_WIDTH * PHONE_FONT * len(text), (ASCENT + DESCENT) * PHONE_FONT
    left, _, right, _ = plot
    above, below = line_y - GAP - 1 - height, line_y + GAP + 1
    xs = (right - GAP - 2 - width, *(left + (right - left - width) * k / 20 for k in range(19, 0, -1)),
          left + GAP + 2)  # the right end first (where the skunk lines matter), then leftwards
    ys = (above, below, above - height / 2, below + height / 2)  # touching the line, then half a label off
    found = place(width, height, plot, [(x, y) for y in ys for x in xs], obstacles)
    backed = found is None
    if found is None:  # nowhere clear (a race all over the chart): readable over a backing
        found = (xs[0], above if above > plot[1] else below)
    x, top = found
    obstacles.append((x, top, x + width, top + height))
    baseline = top + ASCENT * PHONE_FONT
    back = (f'<rect x="{x - 1:.1f}" y="{top:.1f}" width="{width + 2:.1f}" height="{height:.1f}" rx="2" '
            'class="legend-back"/>' if backed else "")
    return f'{back}<text x="{x:.1f}" y="{baseline:.1f}" class="axis line-label">{escape(text)}</text>'


LEGEND_CHARACTERS = 26  # a longer name is cut with an ellipsis (its title says it whole)


def _legend(sides: list[str], plot: Box, obstacles: list[Box]) -> tuple[str, Box]:
    """Which line is whose: a swatch of each side's colour and its name, one row a side, in the first
    corner of the plot clear of every line (top left, where the race has not been yet, then bottom
    right, top right, bottom left), over a backing; top left if none is clear. Returns it and its box."""
    shown = [name if len(name) <= LEGEND_CHARACTERS else name[:LEGEND_CHARACTERS - 1] + "…" for name in sides]
    width = 22 + EM_WIDTH * PHONE_FONT * max((len(name) for name in shown), default=0)
    height = LEGEND_ROW * len(sides)
    left, top, right, bottom = plot
    corners = [(left + GAP + 2, top + GAP + 2), (right - GAP - 2 - width, bottom - GAP - 2 - height),
               (right - GAP - 2 - width, top + GAP + 2), (left + GAP + 2, bottom - GAP - 2 - height)]
    x, y = place(width, height, plot, corners, obstacles) or corners[0]
    out = [f'<g class="legend"><rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" rx="2" '
           'class="legend-back"/>']
    for s, name in enumerate(sides):
        colour = COLOURS[s % len(COLOURS)]
        row = y + LEGEND_ROW * s
        middle = row + LEGEND_ROW / 2
        out.append(f'<g class="legend-item"><title>{escape(name_text(name))}</title>'
                   f'<line x1="{x + 3:.1f}" y1="{middle:.1f}" x2="{x + 17:.1f}" y2="{middle:.1f}" class="side-{s % len(COLOURS)}" '
                   f'stroke="{colour}" '
                   f'stroke-width="3"/><text x="{x + 21:.1f}" y="{row + 1.5 + ASCENT * PHONE_FONT:.1f}">'
                   f'{escape(name_text(shown[s]))}</text></g>')
    out.append("</g>")
    return "".join(out), (x, y, x + width, y + height)


def distribution_svg(counts: list[int], table: dict[int, int], name: str, size: int = 4,
                     colour: str = COLOURS[1]) -> str:
    """Bars in the player's ``colour``: the share of a player's hands at each total, over the exact
    share of all hands (a line)."""
    w, h, left, bottom, top = 420.0, 190.0, 42.0, 26.0, 22.0
    totals = list(range(0, max(table) + 1))
    every = sum(table.values())
    seen = {t: counts.count(t) / len(counts) for t in totals} if counts else {t: 0.0 for t in totals}
    exact = {t: table.get(t, 0) / every for t in totals}
    peak = max(max(seen.values()), max(exact.values())) or 1.0
    band = (w - left - 4) / len(totals)

    def y(share):
        return top + (h - top - bottom) * (1 - share / peak)

    shown = escape(name_text(name))
    out = [f'<svg class="dist" viewBox="0 0 {w:.0f} {h:.0f}" role="img" '
           f'aria-label="{shown}\'s hands against all hands" xmlns="http://www.w3.org/2000/svg">']
    for share in (0.0, 0.1, 0.2):
        if share <= peak:
            out.append(f'<text x="{left - 4}" y="{y(share) + 4:.1f}" class="axis" text-anchor="end">'
                       f'{share:.0%}</text>')
    for i, t in enumerate(totals):
        bx = left + i * band
        if seen[t]:
            out.append(f'<rect x="{bx + 1:.1f}" y="{y(seen[t]):.1f}" width="{band - 2:.1f}" '
                       f'height="{h - bottom - y(seen[t]):.1f}" class="bar" fill="{colour}"><title>{t}: '
                       f'{seen[t]:.0%} of {shown}\'s hands, {exact[t]:.1%} of all</title></rect>')
        if t % 4 == 0:
            out.append(f'<text x="{bx + band / 2:.1f}" y="{h - bottom + 16}" class="axis" '
                       f'text-anchor="middle">{t}</text>')
    path = " ".join(f"{left + i * band + band / 2:.1f},{y(exact[t]):.1f}" for i, t in enumerate(totals))
    out.append(f'<polyline points="{path}" class="exact" fill="none"/>')
    out.append(f'<text x="{w - 6}" y="{top - 7}" class="axis" text-anchor="end">'
               f'bars: {len(counts)} hands of {size} · line: all hands</text>')
    out.append("</svg>")
    return "".join(out)

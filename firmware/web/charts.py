"""Small SVG charts: the pegging race of a game, a player's hands against the exact distribution.

Text in a chart is sized by the page's style in the chart's own units: CHART_FONT on a
wide screen, PHONE_FONT on a phone (the chart is drawn narrower there, so its text would
shrink below 12 CSS pixels). Where a label goes is worked out for the larger of the two,
anchored at its start and its baseline, so the smaller text sits inside the same box: a
label that is clear of every line at one size is clear at the other. The functions
here work out where each goes; ``templates/race.svg`` and ``distribution.svg`` draw it.
"""

from __future__ import annotations

from markupsafe import Markup

from .board import COLOURS
from .render import part

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
             lines: list[tuple[int, str]]) -> Markup:
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

    marks = lines + [(target, "game")]
    obstacles: list[Box] = [(left, y(score), w - right, y(score)) for score, _ in marks]
    paths = []
    for s, name in enumerate(sides):
        points: list[tuple[float, float]] = []
        for i, scores in enumerate(race):
            if i:
                points.append((x(i), y(race[i - 1][s])))
            points.append((x(i), y(scores[s])))
        obstacles.extend((a[0], a[1], b[0], b[1]) for a, b in zip(points, points[1:]))
        if len(points) == 1:
            obstacles.append((*points[0], *points[0]))
        paths.append({"name": name, "side": s % len(COLOURS), "points": points})
    legend = _legend(sides, plot, obstacles)
    obstacles.append(legend["box"])
    labels = [_line_label(f"{label} {score}", y(score), plot, obstacles) for score, label in marks]
    return part("race.svg", {
        "width": w, "height": h, "left": left, "top": top, "right": w - right, "plot_width": w - left - right,
        "plot_height": h - top - bottom, "colours": COLOURS, "entries": len(race) - 1,
        "axis": [(score, y(score)) for score in range(0, top_score + 1, 30)],
        "lines": [("target-line" if label == "game" else "skunk-line", y(score)) for score, label in marks],
        "labels": labels, "paths": paths, "legend": legend, "ascent": ASCENT * PHONE_FONT,
    })


def _line_label(text: str, line_y: float, plot: Box, obstacles: list[Box]) -> dict:
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
    return {"text": text, "x": x, "top": top, "width": width, "height": height, "backed": backed,
            "baseline": top + ASCENT * PHONE_FONT}


LEGEND_CHARACTERS = 26  # a longer name is cut with an ellipsis (its title says it whole)


def _legend(sides: list[str], plot: Box, obstacles: list[Box]) -> dict:
    """Which line is whose: a swatch of each side's colour and its name, one row a side, in the first
    corner of the plot clear of every line (top left, where the race has not been yet, then bottom
    right, top right, bottom left), over a backing; top left if none is clear. Its ``box`` with it."""
    shown = [name if len(name) <= LEGEND_CHARACTERS else name[:LEGEND_CHARACTERS - 1] + "…" for name in sides]
    width = 22 + EM_WIDTH * PHONE_FONT * max((len(name) for name in shown), default=0)
    height = LEGEND_ROW * len(sides)
    left, top, right, bottom = plot
    corners = [(left + GAP + 2, top + GAP + 2), (right - GAP - 2 - width, bottom - GAP - 2 - height),
               (right - GAP - 2 - width, top + GAP + 2), (left + GAP + 2, bottom - GAP - 2 - height)]
    x, y = place(width, height, plot, corners, obstacles) or corners[0]
    return {"x": x, "y": y, "width": width, "height": height, "box": (x, y, x + width, y + height),
            "rows": [{"name": name, "shown": shown[s], "side": s % len(COLOURS), "top": y + LEGEND_ROW * s,
                      "middle": y + LEGEND_ROW * s + LEGEND_ROW / 2} for s, name in enumerate(sides)]}


def distribution_svg(seen: dict[int, int], table: dict[int, int], name: str, size: int = 4,
                     colour: str = COLOURS[1]) -> Markup:
    """Bars in the player's ``colour``: the share of a player's hands at each total (``seen``: how many
    hands scored each total), over the exact share of all hands (a line)."""
    w, h, left, bottom, top = 420.0, 190.0, 42.0, 26.0, 22.0
    totals = list(range(0, max(table) + 1))
    every = sum(table.values())
    hands = sum(seen.values())
    shares = {t: seen.get(t, 0) / hands for t in totals} if hands else {t: 0.0 for t in totals}
    exact = {t: table.get(t, 0) / every for t in totals}
    peak = max(max(shares.values()), max(exact.values())) or 1.0
    band = (w - left - 4) / len(totals)

    def y(share):
        return top + (h - top - bottom) * (1 - share / peak)

    return part("distribution.svg", {
        "width": w, "height": h, "left": left, "top": top, "bottom": bottom, "band": band, "name": name,
        "colour": colour, "hands": hands, "size": size,
        "axis": [(share, y(share)) for share in (0.0, 0.1, 0.2) if share <= peak],
        "bars": [{"total": t, "x": left + i * band, "y": y(shares[t]), "seen": shares[t], "exact": exact[t]}
                 for i, t in enumerate(totals)],
        "exact": [(left + i * band + band / 2, y(exact[t])) for i, t in enumerate(totals)],
    })

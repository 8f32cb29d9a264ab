"""Small SVG charts: the pegging race of a game, a player's hands against the exact distribution."""

from __future__ import annotations

from html import escape

from .board import COLOURS
from .names import name_text


def race_svg(race: list[tuple[int, ...]], sides: list[str], target: int,
             lines: list[tuple[int, str]]) -> str:
    """Each side's score after each entry (a step line a side), the skunk lines and the target dashed."""
    w, h, left, bottom, top, right = 420.0, 250.0, 30.0, 22.0, 10.0, 8.0
    steps = max(len(race) - 1, 1)
    top_score = max(target, max((max(r) for r in race), default=0))

    def x(i):
        return left + (w - left - right) * i / steps

    def y(score):
        return top + (h - top - bottom) * (1 - score / top_score)

    out = [f'<svg class="race" viewBox="0 0 {w:.0f} {h:.0f}" role="img" '
           f'aria-label="pegging race" xmlns="http://www.w3.org/2000/svg">',
           f'<rect x="{left}" y="{top}" width="{w - left - right}" height="{h - top - bottom}" class="plot"/>']
    for score in range(0, top_score + 1, 30):
        out.append(f'<text x="{left - 4}" y="{y(score) + 4:.1f}" class="axis" text-anchor="end">{score}</text>')
    for score, label in lines + [(target, "game")]:
        cls = "target-line" if label == "game" else "skunk-line"
        out.append(f'<line x1="{left}" y1="{y(score):.1f}" x2="{w - right}" y2="{y(score):.1f}" class="{cls}"/>')
        out.append(f'<text x="{w - right - 2}" y="{y(score) - 3:.1f}" class="axis" text-anchor="end">'
                   f'{escape(label)} {score}</text>')
    for s, name in enumerate(sides):
        points = []
        for i, scores in enumerate(race):
            if i:
                points.append(f"{x(i):.1f},{y(race[i - 1][s]):.1f}")
            points.append(f"{x(i):.1f},{y(scores[s]):.1f}")
        colour = COLOURS[s % len(COLOURS)]
        out.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" stroke-width="2.5">'
                   f'<title>{escape(name_text(name))}</title></polyline>')
    out.append(_legend(sides, left + 6, top + 6))
    out.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 6}" class="axis" text-anchor="middle">'
               f'record lines ({len(race) - 1})</text>')
    out.append("</svg>")
    return "".join(out)


LEGEND_CHARACTERS = 26  # a longer name is cut with an ellipsis (its title says it whole)


def _legend(sides: list[str], x: float, y: float) -> str:
    """Which line is whose: a swatch of each side's colour and its name, top left of the plot
    (where the race has not been yet), one row a side."""
    out = ['<g class="legend">']
    for s, name in enumerate(sides):
        colour = COLOURS[s % len(COLOURS)]
        row = y + 13 * s
        shown = name if len(name) <= LEGEND_CHARACTERS else name[:LEGEND_CHARACTERS - 1] + "…"
        out.append(f'<g class="legend-item"><title>{escape(name_text(name))}</title>'
                   f'<rect x="{x - 1.5:.1f}" y="{row - 1:.1f}" width="{8 + 6.4 * len(shown):.0f}" height="13" '
                   f'rx="2" class="legend-back"/>'
                   f'<line x1="{x:.1f}" y1="{row + 5.5:.1f}" x2="{x + 14:.1f}" y2="{row + 5.5:.1f}" stroke="{colour}" '
                   f'stroke-width="3"/><text x="{x + 18:.1f}" y="{row + 9.5:.1f}">{escape(name_text(shown))}</text></g>')
    out.append("</g>")
    return "".join(out)


def distribution_svg(counts: list[int], table: dict[int, int], name: str, size: int = 4) -> str:
    """Bars: the share of a player's hands at each total, over the exact share of all hands (a line)."""
    w, h, left, bottom, top = 420.0, 190.0, 30.0, 24.0, 22.0
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
                       f'height="{h - bottom - y(seen[t]):.1f}" class="bar"><title>{t}: '
                       f'{seen[t]:.0%} of {shown}\'s hands, {exact[t]:.1%} of all</title></rect>')
        if t % 4 == 0:
            out.append(f'<text x="{bx + band / 2:.1f}" y="{h - bottom + 13}" class="axis" '
                       f'text-anchor="middle">{t}</text>')
    path = " ".join(f"{left + i * band + band / 2:.1f},{y(exact[t]):.1f}" for i, t in enumerate(totals))
    out.append(f'<polyline points="{path}" class="exact" fill="none"/>')
    out.append(f'<text x="{w - 8}" y="{top - 8}" class="axis" text-anchor="end">'
               f'bars: {shown}, {len(counts)} hands of {size} · line: all hands</text>')
    out.append("</svg>")
    return "".join(out)

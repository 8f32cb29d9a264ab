"""The board as SVG, laid out like the physical one: :func:`board_svg` works out where each
hole and peg goes, ``templates/board.svg`` draws it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup

from hardware.layout import (
    BUNDLED_LAYOUTS,
    GAME_HOLE,
    HOLES_PER_TRACK,
    START_HOLE,
    Hole,
    Layout,
    load_layout,
    peg_hole,
)

from ..palette import PALETTES as LED_PALETTES
from .render import part

COLOURS = ("#e8322f", "#2f7bff", "#1faa3b", "#f0a800")  # the LED sides' colours: red, blue, green, amber
# The sides' colours in each of the LEDs' palettes (config ``leds.palette``): "standard" is COLOURS,
# the others the LEDs' own colours. The SVG's colour attributes are COLOURS; the page's style
# (pages.SIDE_COLOURS) gives every side's element the colour of the palette the page is in.
PALETTES: dict[str, tuple[str, ...]] = {
    "standard": COLOURS,
    **{name: tuple(f"#{r:02x}{g:02x}{b:02x}" for r, g, b in colours) for name, colours in LED_PALETTES.items()},
}
GROUP_GAP = 0.55  # extra space after every fifth hole, in hole pitches


@dataclass(frozen=True)
class Geometry:
    """Hole positions of a board as drawn, in hole pitches: tracks[t][n-1] for hole n, starts, the game hole."""

    name: str
    tracks: tuple[tuple[tuple[float, float], ...], ...]
    starts: tuple[tuple[float, float] | None, ...]
    game_hole: tuple[float, float]


def _spread(x: float) -> float:
    """x with a gap after every fifth hole (streets of five)."""
    return x + GROUP_GAP * math.floor((x + 0.001) / 5)


def _at(hole: Hole) -> tuple[float, float]:
    return _spread(hole.x), hole.y


@lru_cache(maxsize=8)
def geometry_of(layout: Layout) -> Geometry:
    """Where a layout's holes are drawn."""
    return Geometry(layout.name, tuple(tuple(_at(hole) for hole in track) for track in layout.tracks),
                    tuple(_at(start) if start else None for start in layout.starts), _at(layout.game_hole))


@lru_cache(maxsize=4)
def _bundled(tracks: int) -> Geometry:
    """The bundled layout with that many tracks (2 to 4)."""
    return geometry_of(load_layout(BUNDLED_LAYOUTS[min(max(tracks, 2), 4)]))


def geometry_for(sides: int, preferred: Layout | None = None) -> Geometry:
    """The board's own layout if it has a track for every side, else the bundled one that has."""
    if preferred is not None and len(preferred.tracks) >= sides:
        return geometry_of(preferred)
    return _bundled(sides)


TALL_SCALE = 2.1  # the tall board's CSS pixels per drawing unit, where the screen is wide enough


def board_svg(state: dict, geometry: Geometry, lines: list[tuple[int, str]], tall: bool = False) -> Markup:
    """The SVG of a game state (``replay --json``): holes, skunk lines, the game hole and the pegs.

    ``tall``: the board the long way down, for a narrow screen: the layout turned so that
    its runs go down the page (start at the top, the first side's track on the left, as
    the score cards are), its pegs and labels larger, its text still upright.

    The geometry is the board's own layout (``hardware.layout``: the data that
    maps the LED strip, each hole's position in hole pitches), the one the config
    names; the web view imports nothing else of ``hardware``. Holes are drawn in
    streets of five (a small gap after every fifth hole), each side's front peg
    in its colour and its back peg paler, the skunk lines of the game's target
    marked across the tracks, the game hole at the end, and a lap badge when a peg
    has gone round again (a 181 game on a 120-hole track). :func:`board_svg` works out
    where each goes; ``templates/board.svg`` draws it.
    """
    pitch = 10.0
    sides = state["sides"]
    target = state["target"]
    laps = any(peg_hole(side["score"], target)[1] for side in sides)

    def turn(p):  # hole pitches as drawn: along the board to the right, or (tall) down the page
        return (p[1], p[0]) if tall else p

    points = [turn(p) for track in geometry.tracks[:len(sides)] for p in track]
    points += [turn(p) for p in geometry.starts if p] + [turn(geometry.game_hole)]
    if tall:  # room above the start for the labels and lap badges, below the end for a label
        left, top, right, bottom = 1.6, 3.4 + (0.8 * len(sides) if laps else 0), 1.6, 2.4
    else:
        left, top, right, bottom = (4.2 if laps else 1.2), 1.6, 1.2, 1.2
    x0 = min(p[0] for p in points) - left
    y0 = min(p[1] for p in points) - top
    x1 = max(p[0] for p in points) + right
    y1 = max(p[1] for p in points) + bottom
    width, height = (x1 - x0) * pitch, (y1 - y0) * pitch
    hole_r, front_r, back_r = (2.4, 5.0, 4.0) if tall else (2.2, 4.4, 3.6)

    def at(p):
        q = turn(p)
        return (q[0] - x0) * pitch, (q[1] - y0) * pitch

    drawn = sides[:len(geometry.tracks)]
    tracks = [{"name": side["name"], "side": t % len(COLOURS),
               "holes": _holes_path([at(p) for p in geometry.tracks[t]], hole_r),
               "start": at(geometry.starts[t]) if geometry.starts[t] else None} for t, side in enumerate(drawn)]
    marks = [mark for score, label in lines if (mark := _skunk_mark(geometry, len(sides), at, score, label, target,
                                                                     width, tall))]
    gx, gy = at(geometry.game_hole)
    pegs = []  # each side's: its back peg (where it is not the front's), its front peg, its lap badge
    for t, side in enumerate(drawn):
        front_hole, lap = peg_hole(side["score"], target)
        back_hole, _ = peg_hole(side["back"], target)
        each = {"side": t % len(COLOURS), "name": side["name"], "pegs": [], "badge": None}
        if back_hole != front_hole and (side["back"] or side["score"]):
            each["pegs"].append((at(_hole_at(geometry, t, back_hole)), "back", side["back"], back_r))
        each["pegs"].append((at(_hole_at(geometry, t, front_hole)), "front", side["score"], front_r))
        if lap:
            x, y = at(geometry.starts[t] or geometry.tracks[t][0])
            if tall:  # one row each above the start holes, the first side's highest
                each["badge"] = (x, y - 8 - 8 * (len(sides) - 1 - t), "start", lap + 1)
            else:
                each["badge"] = (x - 5, y + 2.2, "end", lap + 1)
        pegs.append(each)
    return part("board.svg", {
        "tall": tall, "width": width, "height": height, "shown_width": width * TALL_SCALE if tall else None,
        "hole_r": hole_r, "tracks": tracks, "marks": marks, "game_hole": (gx, gy), "won": state.get("winner") is not None,
        "target": target, "target_at": (gx, gy - 8) if tall else (gx, gy + 12), "colours": COLOURS, "sides": pegs,
    })


def _holes_path(centres: list[tuple[float, float]], r: float) -> str:
    """One SVG path of a track's holes, each a circle of radius ``r`` drawn as two arcs: one element
    a track for the page to lay out and paint, not one a hole."""
    return "".join(f"M{x - r:.1f} {y:.1f}a{r} {r} 0 1 0 {2 * r:.1f} 0a{r} {r} 0 1 0 {-2 * r:.1f} 0" for x, y in centres)


def _skunk_mark(geometry: Geometry, sides: int, at, score: int, label: str, target: int, width: float,
                tall: bool) -> dict | None:
    """A tick across every track before the hole a loser must reach, and its label; None if that
    hole is off the tracks."""
    hole, _ = peg_hole(score, target)
    if not 1 <= hole <= HOLES_PER_TRACK:
        return None
    ticks = []
    run_end = False
    for track in geometry.tracks[:sides]:
        here = track[hole - 1]
        before = track[hole - 2] if hole > 1 else None
        if before is not None and abs(before[1] - here[1]) < 0.01:
            mx = (before[0] + here[0]) / 2
        else:  # the first hole of a run: the tick at the run's end, before the hole
            run_end = True
            mx = here[0] - 0.5 * (1 if hole < HOLES_PER_TRACK and track[hole][0] > here[0] else -1)
        x, y = at((mx, here[1]))
        hx, hy = at(here)
        ticks.append((x, y, hx, hy))
    text = f"{label} {score}"
    if not tall:
        x, y, _, _ = min(ticks, key=lambda p: p[1])
        anchor = "start" if x < width * 0.2 else ("end" if x > width * 0.8 else "middle")
        placed = {"at": (x, y - 6.5), "anchor": anchor, "rotate": False}
    elif run_end:  # beyond the end of the column, upright: above the first hole or below the last
        x = sum(p[0] for p in ticks) / len(ticks)
        above = ticks[0][1] < ticks[0][3]
        y = ticks[0][1] - 4 if above else ticks[0][1] + 10.5
        anchor = "start" if x < width * 0.3 else ("end" if x > width * 0.7 else "middle")
        x = min(p[0] for p in ticks) - 5 if anchor == "start" else (
            max(p[0] for p in ticks) + 5 if anchor == "end" else x)
        placed = {"at": (x, y), "anchor": anchor, "rotate": False}
    else:  # beside the ticks, in the gap left of the tracks, reading up the board
        placed = {"at": (min(ticks)[0] - 9.5, ticks[0][1]), "anchor": "middle", "rotate": True}
    return {"ticks": [(x, y) for x, y, _, _ in ticks], "text": text, **placed}


def _hole_at(geometry: Geometry, track: int, hole: int) -> tuple[float, float]:
    if hole == GAME_HOLE:
        return geometry.game_hole
    if hole == START_HOLE:
        start = geometry.starts[track]
        return start if start else (geometry.tracks[track][0][0] - 1.5, geometry.tracks[track][0][1])
    return geometry.tracks[track][hole - 1]

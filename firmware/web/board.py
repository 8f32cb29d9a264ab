"""The board as SVG, laid out like the physical one.

The geometry comes from the board's layout file (the TOML the LED strip is
mapped with: each hole's position in hole pitches), read here as plain data:
the web view does not import ``hardware``. Holes are drawn in streets of
five (a small gap after every fifth hole), each side's front peg in its
colour and its back peg paler, the skunk lines of the game's target marked
across the tracks, the game hole at the end, and a lap badge when a peg has
gone round again (a 181 game on a 120-hole track).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path

from tomlfile import TomlFileError, read_toml

HOLES = 120  # holes on a track; the game hole is 121
LAYOUTS = Path(__file__).resolve().parent.parent.parent / "hardware" / "layouts"  # data files only
BUNDLED = {2: "classic-121", 3: "three-track-121", 4: "four-track-121"}
COLOURS = ("#e8322f", "#2f7bff", "#1faa3b", "#f0a800")  # the LED sides' colours: red, blue, green, amber
GROUP_GAP = 0.55  # extra space after every fifth hole, in hole pitches


class LayoutFileError(ValueError):
    """A layout file that cannot be drawn."""


@dataclass(frozen=True)
class Geometry:
    """Hole positions of a board, in hole pitches: tracks[t][n-1] for hole n, starts, the game hole."""

    name: str
    tracks: tuple[tuple[tuple[float, float], ...], ...]
    starts: tuple[tuple[float, float] | None, ...]
    game_hole: tuple[float, float]


def _spread(x: float) -> float:
    """x with a gap after every fifth hole (streets of five)."""
    return x + GROUP_GAP * math.floor((x + 0.001) / 5)


def _point(value, where: str) -> tuple[float, float]:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value)):
        raise LayoutFileError(f"{where}: at must be [x, y]")
    return _spread(float(value[0])), float(value[1])


def _numbers(text, where: str) -> list[int]:
    try:
        first, _, last = str(text).partition("-")
        first, last = int(first), int(last or first)
    except ValueError:
        raise LayoutFileError(f"{where}: holes must be a range like \"1-30\"") from None
    if abs(last - first) >= HOLES:
        raise LayoutFileError(f"{where}: a run has at most {HOLES} holes")
    step = 1 if last >= first else -1
    return list(range(first, last + step, step))


def parse_geometry(data: dict, source: str) -> Geometry:
    """The positions of a layout table (only what drawing needs)."""
    tracks, starts = [], []
    tracks_data = data.get("tracks") or []
    if not isinstance(tracks_data, list) or not all(isinstance(track, dict) for track in tracks_data):
        raise LayoutFileError(f"{source}: tracks must be [[tracks]] tables")
    for t, track in enumerate(tracks_data):
        holes: dict[int, tuple[float, float]] = {}
        runs = track.get("runs") or []
        if not isinstance(runs, list) or not all(isinstance(run, dict) for run in runs):
            raise LayoutFileError(f"{source}: track {t + 1}: runs must be tables like {{ holes = \"1-30\" }}")
        for r, run in enumerate(runs):
            where = f"{source}: track {t + 1} run {r + 1}"
            x, y = _point(run.get("at", [0, 0]), where)
            step = run.get("step", [1, 0])
            if not (isinstance(step, list) and len(step) == 2 and all(isinstance(v, (int, float)) for v in step)):
                raise LayoutFileError(f"{where}: step must be [dx, dy]")
            raw_x = float(run.get("at", [0, 0])[0])
            for k, number in enumerate(_numbers(run.get("holes"), where)):
                holes[number] = (_spread(raw_x + k * step[0]), y + k * step[1])
        missing = [n for n in range(1, HOLES + 1) if n not in holes]
        if missing:
            raise LayoutFileError(f"{source}: track {t + 1} lacks hole {missing[0]}")
        tracks.append(tuple(holes[n] for n in range(1, HOLES + 1)))
        start = track.get("start")
        starts.append(_point(start.get("at"), f"{source}: track {t + 1} start") if isinstance(start, dict) else None)
    if len(tracks) < 2:
        raise LayoutFileError(f"{source}: a board has 2 to 4 tracks")
    game = data.get("game_hole")
    if not isinstance(game, dict):
        raise LayoutFileError(f"{source}: no game_hole")
    return Geometry(str(data.get("name", source)), tuple(tracks), tuple(starts), _point(game.get("at"), source))


@lru_cache(maxsize=8)
def load_geometry(name_or_path: str) -> Geometry:
    """A bundled layout by name, or a layout TOML file; LayoutFileError if it cannot be drawn."""
    path = LAYOUTS / f"{name_or_path}.toml" if name_or_path in BUNDLED.values() else Path(name_or_path)
    try:
        data = read_toml(path, "the layout")  # the board's limits: 256 KB, UTF-8, not too deep, no pipe
    except TomlFileError as error:
        raise LayoutFileError(str(error)) from None
    return parse_geometry(data, str(name_or_path))


def geometry_for(sides: int, preferred: str | None = None) -> Geometry:
    """The board's own layout if it has a track for every side, else the bundled one that has."""
    if preferred:
        try:
            geometry = load_geometry(preferred)
            if len(geometry.tracks) >= sides:
                return geometry
        except LayoutFileError:
            pass
    return load_geometry(BUNDLED.get(sides, BUNDLED[4]))


def peg_hole(score: int, target: int) -> tuple[int, int]:
    """(hole, lap): 0 the start hole, 121 the game hole; past 120 a peg goes round again."""
    if score <= 0:
        return 0, 0
    if score >= target:
        return HOLES + 1, 0
    return (score - 1) % HOLES + 1, (score - 1) // HOLES


def board_svg(state: dict, geometry: Geometry, lines: list[tuple[int, str]]) -> str:
    """The SVG of a game state (``replay --json``): holes, skunk lines, the game hole and the pegs."""
    pitch = 10.0
    points = [p for track in geometry.tracks[:len(state["sides"])] for p in track]
    points += [p for p in geometry.starts if p] + [geometry.game_hole]
    laps = any(peg_hole(side["score"], state["target"])[1] for side in state["sides"])
    x0 = min(p[0] for p in points) - (4.2 if laps else 1.2)
    y0 = min(p[1] for p in points) - 1.6
    x1 = max(p[0] for p in points) + 1.2
    y1 = max(p[1] for p in points) + 1.2
    width, height = (x1 - x0) * pitch, (y1 - y0) * pitch

    def at(p):
        return (p[0] - x0) * pitch, (p[1] - y0) * pitch

    out = [
        f'<svg class="board" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="the board" xmlns="http://www.w3.org/2000/svg">',
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="8" class="wood"/>',
    ]
    sides = state["sides"]
    target = state["target"]
    for t, side in enumerate(sides[:len(geometry.tracks)]):
        colour = COLOURS[t % len(COLOURS)]
        track = geometry.tracks[t]
        out.append(f'<g class="track" data-side="{escape(side["name"])}">')
        for n, p in enumerate(track, start=1):
            x, y = at(p)
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.2" class="hole"/>')
        start = geometry.starts[t]
        if start:
            x, y = at(start)
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.6" class="hole start" stroke="{colour}"/>')
        out.append("</g>")
    for score, label in lines:  # a tick across every track before the hole a loser must reach
        hole, _ = peg_hole(score, target)
        if not 1 <= hole <= HOLES:
            continue
        ticks = []
        for track in geometry.tracks[:len(sides)]:
            here = track[hole - 1]
            before = track[hole - 2] if hole > 1 else None
            if before is not None and abs(before[1] - here[1]) < 0.01:
                mx = (before[0] + here[0]) / 2
            else:
                mx = here[0] - 0.5 * (1 if hole < HOLES and track[hole][0] > here[0] else -1)
            x, y = at((mx, here[1]))
            ticks.append((x, y))
            out.append(f'<line x1="{x:.1f}" y1="{y - 5:.1f}" x2="{x:.1f}" y2="{y + 5:.1f}" class="skunk-line"/>')
        x, y = min(ticks, key=lambda p: p[1])
        anchor = "start" if x < width * 0.2 else ("end" if x > width * 0.8 else "middle")
        out.append(f'<text x="{x:.1f}" y="{y - 6.5:.1f}" class="skunk-label" text-anchor="{anchor}">'
                   f'{escape(label)} {score}</text>')
    gx, gy = at(geometry.game_hole)
    won = state.get("winner") is not None
    out.append(f'<circle cx="{gx:.1f}" cy="{gy:.1f}" r="5" class="game-ring{" won" if won else ""}"/>')
    out.append(f'<circle cx="{gx:.1f}" cy="{gy:.1f}" r="2.6" class="hole game"/>')
    out.append(f'<text x="{gx:.1f}" y="{gy + 12:.1f}" class="game-label" text-anchor="middle">{target}</text>')
    for t, side in enumerate(sides[:len(geometry.tracks)]):
        colour = COLOURS[t % len(COLOURS)]
        front_hole, lap = peg_hole(side["score"], target)
        back_hole, _ = peg_hole(side["back"], target)
        if back_hole != front_hole and (side["back"] or side["score"]):
            out.append(_peg(at(_hole_at(geometry, t, back_hole)), colour, "back", side, side["back"]))
        out.append(_peg(at(_hole_at(geometry, t, front_hole)), colour, "front", side, side["score"]))
        if lap:
            x, y = at(geometry.starts[t] or geometry.tracks[t][0])
            out.append(f'<text x="{x - 5:.1f}" y="{y + 2.2:.1f}" class="lap" text-anchor="end" '
                       f'fill="{colour}">lap {lap + 1}</text>')
    out.append("</svg>")
    return "".join(out)


def _hole_at(geometry: Geometry, track: int, hole: int) -> tuple[float, float]:
    if hole == HOLES + 1:
        return geometry.game_hole
    if hole == 0:
        start = geometry.starts[track]
        return start if start else (geometry.tracks[track][0][0] - 1.5, geometry.tracks[track][0][1])
    return geometry.tracks[track][hole - 1]


def _peg(xy, colour: str, kind: str, side: dict, score: int) -> str:
    x, y = xy
    r = 4.4 if kind == "front" else 3.6
    return (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" class="peg {kind}" fill="{colour}">'
            f'<title>{escape(side["name"])} {kind} peg: {score}</title></circle>')

"""Board layouts: which LED of the strip is which hole of which track.

A layout is TOML data (:func:`parse_layout`, :func:`load_layout`), the :class:`Layout` it gives
maps each hole to its LED and its place on the printable template.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from pathlib import Path

from hardware.tomlfile import TomlFileError, read_toml

from . import BUNDLED_LAYOUTS
from .errors import LayoutError

HOLES_PER_TRACK = 120
GAME_HOLE = 121
START_HOLE = 0
MAX_GAME_COUNTERS = 9  # a short row: a match to 9 games a side is long enough
BUNDLED = tuple(BUNDLED_LAYOUTS.values())

_shown = reprlib.Repr()  # a file's values in messages: short, however long or deep
_shown.maxstring = _shown.maxother = 60
_shown.maxlevel = 3


@dataclass(frozen=True)
class Hole:
    """One hole: its LED and its position on the board (in hole pitches)."""

    track: int  # 0-based; -1 for the game hole
    number: int  # 1..120, 0 the start hole, 121 the game hole; a game counter's game, 1..N
    led: int
    x: float
    y: float
    counter: bool = False  # a game-counter hole (its track's row), not a scoring hole


@dataclass(frozen=True)
class Layout:
    """The whole board: tracks of holes, the game hole and the strip's size."""

    name: str
    strip_leds: int
    leds_per_metre: float
    tracks: tuple[tuple[Hole, ...], ...]  # per track, indexed by hole number - 1
    starts: tuple[Hole | None, ...]
    game_hole: Hole
    counters: tuple[tuple[Hole, ...], ...] = ()  # per track, its game counters, game 1 first (none: ())

    @property
    def counter_leds(self) -> int:
        """The LEDs of the game counters, at the strip's end (0 without them)."""
        return sum(len(row) for row in self.counters)

    @property
    def hole_leds(self) -> int:
        """The LEDs before the game counters': the holes' strip, as the layout file gives it."""
        return self.strip_leds - self.counter_leds

    @property
    def pitch_mm(self) -> float:
        """Distance between holes: the strip's LED spacing."""
        return 1000.0 / self.leds_per_metre

    def led(self, track: int, hole: int) -> int:
        """The LED of ``hole`` (0 start, 1-120, 121 game) on ``track`` (0-based)."""
        return self.hole(track, hole).led

    def hole(self, track: int, hole: int) -> Hole:
        if not 0 <= track < len(self.tracks):
            raise LayoutError(f"layout {self.name} has {len(self.tracks)} tracks, not track {track + 1}")
        if hole == GAME_HOLE:
            return self.game_hole
        if hole == START_HOLE:
            start = self.starts[track]
            if start is None:
                raise LayoutError(f"layout {self.name}: track {track + 1} has no start hole")
            return start
        if not 1 <= hole <= HOLES_PER_TRACK:
            raise LayoutError(f"hole {hole} is off the board: holes are 0 to {GAME_HOLE}")
        return self.tracks[track][hole - 1]

    def bounds(self) -> tuple[float, float, float, float]:
        """(min x, min y, max x, max y) over every hole, in hole pitches."""
        holes = self.all_holes()
        xs, ys = [h.x for h in holes], [h.y for h in holes]
        return min(xs), min(ys), max(xs), max(ys)

    def all_holes(self) -> list[Hole]:
        holes = [h for track in self.tracks for h in track]
        holes += [s for s in self.starts if s is not None]
        return holes + [self.game_hole] + [c for row in self.counters for c in row]


def peg_hole(score: int, target: int) -> tuple[int, int]:
    """(hole, lap) of a peg on ``score`` when ``target`` is the game hole: 0 is the
    start hole, the target (and past it) the game hole 121; past 120 (a 181 game)
    the peg goes round the track again (lap 1 is the second lap)."""
    if score <= 0:
        return START_HOLE, 0
    if score >= target:
        return GAME_HOLE, 0
    return (score - 1) % HOLES_PER_TRACK + 1, (score - 1) // HOLES_PER_TRACK


def lap_of(score: int, target: int) -> int:
    """The lap a peg on ``score`` is on, counted from 1 (the game hole ends the last lap)."""
    return peg_hole(score, target)[1] + 1 if 0 < score < target else 1


def _range(text, where: str) -> list[int]:
    """ "1-30" -> [1..30]; "59-30" -> [59..30]; a bare number is a run of one."""
    if isinstance(text, int):
        return [text]
    try:
        low, _, high = str(text).partition("-")
        first, last = int(low), int(high or low)
    except ValueError:
        raise LayoutError(f"{where}: {_shown.repr(text)} is not a range like \"1-30\"") from None
    if abs(last - first) >= HOLES_PER_TRACK:
        raise LayoutError(f"{where}: {_shown.repr(text)}: a run has at most {HOLES_PER_TRACK} holes")
    step = 1 if last >= first else -1
    return list(range(first, last + step, step))


def _point(entry: dict, where: str, key: str = "at", default=(0, 0)) -> tuple[float, float]:
    value = entry.get(key, default)
    if not (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, (int, float)) for v in value)):
        raise LayoutError(f"{where}: {key} must be [x, y], not {_shown.repr(value)}")
    return float(value[0]), float(value[1])


def _led(entry, where: str) -> int:
    led = entry.get("led") if isinstance(entry, dict) else None
    if not isinstance(led, int) or isinstance(led, bool):
        raise LayoutError(f"{where}: needs led = N")
    return led


def parse_layout(data: dict, source: str = "layout", counters: int = 0) -> Layout:
    """Check a layout table and build it, with ``counters`` game counters a side
    (after the strip's hole LEDs); every error names the entry.

    A layout is TOML data. Each track has runs of holes mapped to runs of LEDs
    (a run of LEDs may go backwards, as serpentine strips are laid), an optional
    start hole, and the board has one game hole. Positions (``at``, ``step``, in
    hole pitches) place each hole for the printable template.

    Game counters (``[leds] game_counters`` in the config, 0 for none) are a short
    row of holes a side that count the games of a match. Their LEDs come after the
    strip's last hole LED (the layout's ``strip_leds``), track by track (every
    other row wired back), so adding counters to a layout moves no hole off its LED.
    Each row runs left from beside the track's start hole unless the track places
    it (``counters = { at = [x, y], step = [dx, dy] }``).
    """
    if isinstance(counters, bool) or not isinstance(counters, int) or not 0 <= counters <= MAX_GAME_COUNTERS:
        raise LayoutError(f"{source}: game counters: {_shown.repr(counters)} is not a whole number "
                          f"from 0 to {MAX_GAME_COUNTERS}")
    known = {"name", "strip_leds", "leds_per_metre", "game_hole", "tracks"}
    for key in data:
        if key not in known:
            raise LayoutError(f"{source}: unknown key {_shown.repr(key)}: use {', '.join(sorted(known))}")
    strip_leds = data.get("strip_leds")
    if not isinstance(strip_leds, int) or strip_leds < 1:
        raise LayoutError(f"{source}: strip_leds must be the number of LEDs on the strip")
    per_metre = data.get("leds_per_metre", 60)
    if not isinstance(per_metre, (int, float)) or per_metre <= 0:
        raise LayoutError(f"{source}: leds_per_metre must be a positive number")
    tracks_data = data.get("tracks")
    if not isinstance(tracks_data, list) or not 2 <= len(tracks_data) <= 4:
        raise LayoutError(f"{source}: give 2, 3 or 4 [[tracks]], one per side")
    used: dict[int, str] = {}

    def claim(led: int, what: str, where: str) -> None:
        if not 0 <= led < strip_leds:
            raise LayoutError(f"{where}: LED {led} is past the end of the {strip_leds}-LED strip")
        if led in used:
            raise LayoutError(f"{where}: LED {led} is already {used[led]}")
        used[led] = what

    tracks: list[tuple[Hole, ...]] = []
    starts: list[Hole | None] = []
    for t, track in enumerate(tracks_data):
        where = f"{source}: track {t + 1}"
        if not isinstance(track, dict):
            raise LayoutError(f"{where}: give each track as a [[tracks]] table")
        holes: dict[int, Hole] = {}
        runs = track.get("runs")
        if not isinstance(runs, list) or not runs:
            raise LayoutError(f"{where}: needs runs = [{{ holes = \"1-30\", leds = \"0-29\" }}, ...]")
        for r, run in enumerate(runs):
            run_where = f"{where} run {r + 1}"
            if not isinstance(run, dict):
                raise LayoutError(f"{run_where}: give each run as {{ holes = \"1-30\", leds = \"0-29\" }}")
            numbers = _range(run.get("holes"), run_where)
            leds = _range(run.get("leds"), run_where)
            if len(numbers) != len(leds):
                raise LayoutError(f"{run_where}: {len(numbers)} holes but {len(leds)} LEDs")
            x, y = _point(run, run_where)
            dx, dy = _point(run, run_where, "step", (1, 0))
            for k, (number, led) in enumerate(zip(numbers, leds)):
                if not 1 <= number <= HOLES_PER_TRACK:
                    raise LayoutError(f"{run_where}: hole {number} is out of range 1-{HOLES_PER_TRACK}")
                if number in holes:
                    raise LayoutError(f"{run_where}: hole {number} is given twice")
                claim(led, f"track {t + 1} hole {number}", f"{run_where}: hole {number}")
                holes[number] = Hole(t, number, led, x + k * dx, y + k * dy)
        missing = [n for n in range(1, HOLES_PER_TRACK + 1) if n not in holes]
        if missing:
            raise LayoutError(f"{where}: holes {_ranges(missing)} have no LED")
        tracks.append(tuple(holes[n] for n in range(1, HOLES_PER_TRACK + 1)))
        start = track.get("start")
        if start is None:
            starts.append(None)
        else:
            led = _led(start, f"{where} start")
            claim(led, f"track {t + 1} start hole", f"{where} start")
            starts.append(Hole(t, START_HOLE, led, *_point(start, f"{where} start")))
    game = data.get("game_hole") or {}  # missing: _led says it needs an LED
    led = _led(game, f"{source}: game_hole")
    claim(led, "the game hole", f"{source}: the game hole")
    game_hole = Hole(-1, GAME_HOLE, led, *_point(game, f"{source}: game_hole"))
    rows = _counters(tracks_data, tracks, starts, game_hole, strip_leds, counters, source)
    return Layout(
        str(data.get("name", source)), strip_leds + counters * len(tracks), float(per_metre),
        tuple(tracks), tuple(starts), game_hole, rows if counters else (),
    )


def _counters(tracks_data, tracks, starts, game_hole: Hole, first_led: int, count: int,
              source: str) -> tuple[tuple[Hole, ...], ...]:
    """Each track's row of ``count`` game counters, their LEDs from ``first_led`` on, track by
    track, every other row's running back (a serpentine, as the holes' strip is laid); placed
    by the track's ``counters = { at, step }`` (checked even for none), else running left
    from two pitches left of its start hole (of where one would be, without)."""
    taken = {(round(h.x, 3), round(h.y, 3)): f"track {h.track + 1} hole {h.number}"
             for track in tracks for h in track}
    taken.update({(round(s.x, 3), round(s.y, 3)): f"track {s.track + 1} start hole" for s in starts if s})
    taken[(round(game_hole.x, 3), round(game_hole.y, 3))] = "the game hole"
    rows = []
    for t, track in enumerate(tracks):
        where = f"{source}: track {t + 1} counters"
        placed = tracks_data[t].get("counters")
        if placed is None:
            beside = starts[t] or Hole(t, START_HOLE, -1, track[0].x - 2, track[0].y)
            x, y, dx, dy = beside.x - 2, beside.y, -1.0, 0.0
        elif isinstance(placed, dict):
            (x, y), (dx, dy) = _point(placed, where), _point(placed, where, "step", (-1, 0))
        else:
            raise LayoutError(f"{where}: give them as counters = {{ at = [x, y], step = [-1, 0] }}")
        row = []
        for k in range(count):
            along = k if t % 2 == 0 else count - 1 - k  # every other row wired back (serpentine)
            hole = Hole(t, k + 1, first_led + t * count + along, x + k * dx, y + k * dy, counter=True)
            spot = (round(hole.x, 3), round(hole.y, 3))
            if spot in taken:
                raise LayoutError(f"{where}: game counter {k + 1} falls on {taken[spot]}: "
                                  "place the row with counters = { at = [x, y], step = [dx, dy] }")
            taken[spot] = f"track {t + 1} game counter {k + 1}"
            row.append(hole)
        rows.append(tuple(row))
    return tuple(rows)


def _ranges(numbers: list[int]) -> str:
    parts, start, prev = [], numbers[0], numbers[0]
    for n in numbers[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)


def load_layout(name_or_path: str | Path, counters: int = 0) -> Layout:
    """A bundled layout by name (one of ``BUNDLED``) or a TOML file, read with the
    config's limits (256 KB, UTF-8, not nested too deeply, never a pipe), with
    ``counters`` game counters a side; LayoutError naming the file if it cannot be used."""
    text_name = str(name_or_path)
    if text_name in BUNDLED:
        # Beside this module (a package's data files are plain files once installed);
        # importlib.resources would cost start-up more than the reading does.
        path: Path | str = Path(__file__).parent / "layouts" / f"{text_name}.toml"
        source = f"{text_name} (bundled)"
    else:
        path = source = text_name
    try:
        data = read_toml(path, "the layout")
    except TomlFileError as error:
        raise LayoutError(f"{error} (bundled layouts: {', '.join(BUNDLED)})") from None
    return parse_layout(data, source, counters)

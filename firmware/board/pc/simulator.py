"""The board on a PC: the real application on mock hardware, with helpers to act and to look.

:class:`Simulator` is the board's own loop on mock devices; :func:`run_script`
runs a script of physical actions on it (:mod:`firmware.board.pc.script`) and
returns the final state; the terminal board (:mod:`firmware.board.pc.terminal`)
drives it from the keyboard. Snapshots are PNGs of the LED board and the OLED.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import Callable

from PIL import Image, ImageDraw

from hardware.backend import MockBackend
from hardware.buzzer import MockBuzzer
from hardware.display import MockDisplay
from hardware.inputs import COLOUR_BUTTONS, MockControls
from hardware.layout import GAME_HOLE, HOLES_PER_TRACK, START_HOLE, Layout
from hardware.leds import MockStrip
from ledger.writer import LedgerWriter
from scorer.record import source_of
from scorer.report import state_dict

from ...config import Config
from ..devices import open_devices
from ..frames import OFF, LedStyle, scale
from ..loop import Board
from ..outcome import Outcome
from ..scoring import Act, ScoreInput, Source
from .script import parse_script

MOCK = MockBackend("simulator", "mock hardware (simulator)")
SCRIPT_HOLD_S = 0.05  # the hold time in scripts: the same code, less waiting


def board_png(layout: Layout, frame, path, scale: int = 14) -> None:
    """Draw the LED board: each hole a dot of its colour at its place (to a path or a file)."""
    min_x, min_y, max_x, max_y = layout.bounds()
    width = int((max_x - min_x + 2) * scale)
    height = int((max_y - min_y + 2) * scale)
    image = Image.new("RGB", (width, height), (24, 16, 8))
    draw = ImageDraw.Draw(image)
    r = scale * 0.35
    for hole in layout.all_holes():
        cx = (hole.x - min_x + 1) * scale
        cy = (hole.y - min_y + 1) * scale
        colour = tuple(frame[hole.led])
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=(70, 55, 40))
    image.save(path, format="PNG")


def open_folder(directory: Path) -> int:
    """A descriptor of the snapshot folder, made if missing; OSError if it is
    a symbolic link or not a folder."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        return os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as error:
        if os.path.islink(directory):
            raise OSError(error.errno, "is a symbolic link: give the folder itself", str(directory)) from None
        if os.path.lexists(directory) and not os.path.isdir(directory):
            raise OSError(error.errno, "is not a folder: give a folder for the snapshots", str(directory)) from None
        raise


def write_in(folder: int, name: str, data: bytes) -> None:
    """Write ``name`` in the folder ``folder`` (a descriptor): a new temporary file
    (O_EXCL, O_NOFOLLOW) renamed over ``name``, so a symbolic link already
    called ``name`` is replaced, never followed, and nothing is written elsewhere."""
    temporary = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(temporary, flags, 0o644, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=folder)
        except OSError:
            pass
        raise


def _png(save) -> bytes:
    buffer = io.BytesIO()
    save(buffer)
    return buffer.getvalue()


def read_pegs(layout: Layout, frame, style: LedStyle, target: int, sides: int) -> list[dict]:
    """What a frame shows: for each side, the score its lit front and back peg stand for.

    Decoded from the colours alone, as a player reads the board: the front peg
    is the hole lit in the side's colour for its lap (paler each lap, see
    :func:`firmware.board.frames.lap_shade`), the back peg the hole lit in that
    shade's dimmer back-peg level (either half of a blink). Hole N on lap L
    stands for N + 120 (L - 1), the start hole for 0, the game hole for the
    target; on laps past the first the start hole lit in the front's shade is
    the lap mark. None where no hole (or more than one) is lit so.
    """
    laps = range(max(1, (target - 2) // HOLES_PER_TRACK + 1))
    pegs: list[dict[str, int | None]] = []
    for side in range(sides):
        if side >= len(layout.tracks):
            pegs.append({"front": None, "back": None})
            continue
        fronts, backs = [], []
        for lap in laps:
            shade = style.colour(side, lap)
            fronts += [(hole, lap) for hole in _holes_lit(layout, frame, side, shade)
                       if not (lap and hole == START_HOLE)]  # the lap mark
            for level in style.back_levels():
                backs += [(hole, lap) for hole in _holes_lit(layout, frame, side, scale(shade, level))]
        front = _lap_score(*fronts[0], target) if len(fronts) == 1 else None
        back = _lap_score(*backs[0], target) if len(backs) == 1 else None
        pegs.append({"front": front, "back": back})
    return pegs


def _lap_score(hole: int, lap: int, target: int) -> int:
    return target if hole == GAME_HOLE else hole + lap * HOLES_PER_TRACK


def _holes_lit(layout: Layout, frame, track: int, colour) -> list[int]:
    """The holes of a track (start hole first, game hole last) lit in exactly ``colour``."""
    colour = tuple(colour)
    start = layout.starts[track]
    holes = [start] if start is not None else []
    holes += [*layout.tracks[track], layout.game_hole]
    return [hole.number for hole in holes if tuple(frame[hole.led]) == colour]


class SimClock:
    """Real time (or ``base``: a test's fixed time), plus the time the simulator skipped
    to finish animations at once."""

    def __init__(self, base: Callable[[], float] = time.monotonic):
        self.base = base
        self.skipped = 0.0

    def __call__(self) -> float:
        return self.base() + self.skipped

    def skip(self, seconds: float) -> None:
        self.skipped += max(0.0, seconds)


class Simulator:
    """The board on mock hardware, with helpers to act and to look.

    With ``animate`` off (scripts), each action's slide or win chase is
    finished at once by skipping the clock to its end; the board then draws
    its settled frame through the same loop step as in real time.
    """

    def __init__(
        self, config: Config, state: Path, hold_s: float | None = SCRIPT_HOLD_S, animate: bool = False,
        clock: SimClock | None = None,
    ):
        self.clock = clock or SimClock()
        self.animate = animate
        self.store = LedgerWriter(state, holder="cribbage-board (mock board)")
        try:
            self.devices = open_devices(config, MOCK, hold_s)
        except BaseException:
            self.store.close()  # let the ledger's lock go
            raise
        self.board = Board(config, self.store, self.devices, clock=self.clock)
        self.ended = False
        self.board.draw()

    @property
    def controls(self) -> MockControls:
        """The mock buttons and encoder the simulator presses and turns."""
        controls = self.devices.controls
        if not isinstance(controls, MockControls):
            raise RuntimeError("the mock board's controls are not open")
        return controls

    def act(self, verb: str, argument: str) -> list[Outcome]:
        """One physical action; what each input it made did (the controller's outcomes, a
        turn one a detent). After a confirmed Shut down the board ends (``ended``)."""
        if self.ended:
            raise RuntimeError("the board was shut down")
        self.board.outcomes.clear()
        controls = self.controls
        if verb == "turn":
            controls.turn(int(argument))
        elif verb == "wait":
            time.sleep(float(argument))
            controls.clock.advance(float(argument))  # a button held down meanwhile is a hold
        elif verb == "click":
            controls.click(argument)
        elif verb == "hold":
            controls.hold(argument)
        elif verb == "down":
            controls.press(argument)
        elif verb == "up":
            controls.release(argument)
        elif verb == "enter":
            self.board.feed(script_input(argument))
        self.board.step(0)
        if self.board.shutting_down:
            self.board.shut_down()
            self.ended = True
        elif not self.animate:
            self.finish_animation()
        return list(self.board.outcomes)

    def record(self) -> list[str]:
        """The current game's record lines as the ledger keeps them (read afresh once the board has shut down)."""
        if not self.ended:
            return self.store.export()
        from ledger.reader import LedgerReader

        with LedgerReader(self.store.path) as reader:
            return reader.export()

    def finish_animation(self) -> None:
        """Skip the clock past the running slide or chase, then step: the board draws the settled frame."""
        end = self.board.settles_at(self.clock())
        if end is not None:
            self.clock.skip(end - self.clock() + 1e-6)
        self.board.step(0)

    def shown_frame(self) -> list:
        """The colours of the last frame the strip shows (all off once it is closed)."""
        strip = self.devices.strip
        if not isinstance(strip, MockStrip) or getattr(strip, "closed", False) or not strip.wanted:
            return [OFF] * self.devices.layout.strip_leds
        return list(strip.wanted[-1])

    def strip_pegs(self) -> list[dict]:
        """The scores the strip's last frame shows, side by side (see :func:`read_pegs`)."""
        view = self.board.view()
        return read_pegs(self.devices.layout, self.shown_frame(), self.board.style, view.target, len(view.names))

    def snapshot(self, directory: Path, name: str) -> None:
        """PNGs of the LED board (the frame the strip shows) and the OLED, written
        only inside ``directory`` (see write_in)."""
        frame = self.shown_frame()
        leds = _png(lambda file: board_png(self.devices.layout, frame, file))
        display = self.devices.display
        image = display.image if isinstance(display, MockDisplay) else None
        oled = None
        if image is not None:
            oled = _png(lambda file: image.save(file, format="PNG"))
        folder = open_folder(directory)
        try:
            write_in(folder, f"{name}-leds.png", leds)
            if oled is not None:
                write_in(folder, f"{name}-oled.png", oled)
        finally:
            os.close(folder)

    def close(self) -> None:
        self.board.close()


def script_input(argument: str) -> ScoreInput:
    """An enter line's scoring input ("blue hand 8"), made by the script for that seat."""
    seat, act, points = argument.split()
    return ScoreInput(Act(act), Source.SCRIPT, COLOUR_BUTTONS.index(seat), int(points))


def run_script(
    lines, config: Config, state: Path, snapshots: Path | None = None
) -> dict:
    """Run a script of physical actions; the final state as replay's JSON, with
    each refused press in ``rejected`` (and each line not run after a Shut
    down), and in ``strip`` the scores the strip's last frame shows."""
    actions = parse_script(lines)
    sim = Simulator(config, state)
    rejected = []
    try:
        if snapshots is not None:
            sim.snapshot(snapshots, "step-0000")
        for step, (number, verb, argument) in enumerate(actions, start=1):
            if sim.ended:
                rejected.append({"line": number, "entry": f"{verb} {argument}",
                                 "error": "not run: the board was shut down"})
                continue
            for outcome in sim.act(verb, argument):
                if outcome.refused:
                    rejected.append({"line": number, "entry": f"{verb} {argument}", "error": outcome.message})
            if snapshots is not None:
                sim.snapshot(snapshots, f"step-{step:04d}")
        sources = [{"line": n, **source} for n, text in enumerate(sim.record(), start=1)
                   if (source := source_of(text)) is not None]  # as replay --json gives them
        result = state_dict(sim.store.book, (), sources)
        result["rejected"] = rejected
        result["screen"] = _screen_text(sim.board.oled_screen())
        result["strip"] = sim.strip_pegs()
        if isinstance(sim.devices.buzzer, MockBuzzer):
            result["tones"] = [label for label, _ in sim.devices.buzzer.played]
        return result
    finally:
        sim.close()


def _screen_text(screen) -> dict:
    shown = {
        "title": screen.title, "lines": list(screen.lines), "big": screen.big,
        "caption": screen.big_caption, "footer": screen.footer, "alert": screen.alert,
    }
    if screen.scores:  # the large-scores mode
        shown["scores"] = [{"name": name, "score": score, "note": note} for name, score, note in screen.scores]
    return shown

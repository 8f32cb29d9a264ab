"""The board application: devices from the config, the main loop, clean shutdown.

The loop sleeps on the input queue (no busy polling), wakes for events, for
animation frames and for the systemd watchdog, and draws the LEDs and the
OLED from the scorer's state.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hardware.backend import BackendChoice
from hardware.display import DisplaySettings, LumaDisplay, MockDisplay, open_display
from hardware.errors import HardwareError
from hardware.inputs import Controls, InputPins, MockControls
from hardware.layout import Layout
from hardware.leds import MockStrip, PowerSettings, open_strip
from scorer.store import LedgerStore

from .config import COLOUR_BUTTONS, Config
from .controller import Controller, GameSettings
from .sdnotify import Notifier
from .views import BoardView, LedStyle, Slide, led_frame, oled_image

SLIDE_SECONDS_PER_HOLE = 0.02
SLIDE_MAX_SECONDS = 0.6
CELEBRATE_SECONDS = 4.0
FRAME_SECONDS = 0.02
IDLE_WAKE_SECONDS = 5.0


@dataclass
class Devices:
    """The board's hardware: the strip, the display (None when missing), the inputs."""

    strip: object
    display: LumaDisplay | None
    controls: Controls
    layout: Layout
    warnings: list[str] = field(default_factory=list)


def input_pins(config: Config, hold_s: float | None = None) -> InputPins:
    section = config["inputs"]
    buttons = {name: section[name] for name in (*COLOUR_BUTTONS, "undo", "menu")}
    return InputPins(
        buttons=buttons, encoder_a=section["encoder_a"], encoder_b=section["encoder_b"],
        encoder_button=section["encoder_button"], debounce_s=section["debounce_ms"] / 1000,
        hold_s=section["hold_ms"] / 1000 if hold_s is None else hold_s,
    )


def power_settings(config: Config) -> PowerSettings:
    leds = config["leds"]
    return PowerSettings(leds["max_brightness"], leds["budget_ma"], leds["gamma"])


def display_settings(config: Config) -> DisplaySettings:
    d = config["display"]
    return DisplaySettings(
        chip=d["chip"], bus=d["bus"], i2c_port=d["i2c_port"], i2c_address=d["i2c_address"],
        rotate=d["rotate"],
    )


def open_devices(config: Config, backend: BackendChoice, hold_s: float | None = None) -> Devices:
    """Open the strip, the display and the inputs for the chosen backend.

    A missing OLED is a warning and the board carries on without it; a strip
    or inputs that cannot be opened are a HardwareError.
    """
    layout = config.layout
    power = power_settings(config)
    pins = input_pins(config, hold_s)
    warnings: list[str] = []
    if backend.name == "mock":
        strip = MockStrip(layout.strip_leds, power)
        display = MockDisplay() if config["display"]["enabled"] else None
        controls = MockControls(pins)
        return Devices(strip, display, controls, layout, warnings)
    strip = open_strip(config["leds"]["driver"], layout.strip_leds, config["leds"]["pin"], power,
                       hz=config["leds"]["spi_hz"])
    display = None
    if config["display"]["enabled"]:
        try:
            display = open_display(display_settings(config))
        except HardwareError as error:
            warnings.append(f"{error}; carrying on without the OLED")
    try:
        controls = Controls(pins)
    except HardwareError:
        strip.close()
        raise
    return Devices(strip, display, controls, layout, warnings)


class Board:
    """The running board: controller plus devices plus the drawing."""

    def __init__(
        self,
        config: Config,
        store: LedgerStore,
        devices: Devices,
        clock: Callable[[], float] = time.monotonic,
        notifier: Notifier | None = None,
    ):
        self.config = config
        self.store = store
        self.devices = devices
        self.clock = clock
        self.notifier = notifier or Notifier({})
        leds = config["leds"]
        colours = tuple(leds["colours"])
        self.style = LedStyle(colours, leds["back_peg"], leds["marks"])
        self.controller = Controller(
            store, GameSettings.from_config(config["game"]), clock, devices.strip.set_brightness,
            max_sides=len(devices.layout.tracks),
        )
        for message in store.messages + devices.warnings:
            self.controller.say(message, alert=True)
        sides, tracks = len(self.controller.game.sides), len(devices.layout.tracks)
        if sides > tracks:
            self.controller.say(f"this game has {sides} sides; the board shows {tracks}", alert=True)
        # Count every hand once, in the background, so the first show count does not wait.
        hand_size = self.controller.game.variant.hand_size
        self.warm_thread = threading.Thread(target=_warm_counts, args=(hand_size,), daemon=True)
        self.warm_thread.start()
        self._stop = threading.Event()
        self._last_image: bytes | None = None
        self.frames_shown = 0
        self.strip_error: str | None = None

    # ---- drawing ---------------------------------------------------------

    def animating(self, now: float) -> bool:
        return self._slide(now) is not None or self._celebrating(now) is not None

    def _slide(self, now: float) -> Slide | None:
        for move in self.controller.moves[:1]:
            seconds = min(SLIDE_MAX_SECONDS, SLIDE_SECONDS_PER_HOLE * (move.end - move.start))
            progress = (now - move.at) / seconds if seconds else 1.0
            if progress < 1.0:
                return Slide(move.side, move.start, move.end, progress)
        return None

    def _celebrating(self, now: float) -> float | None:
        finished = self.controller.finished_at
        if finished is not None and now - finished < CELEBRATE_SECONDS:
            return now - finished
        return None

    def draw(self, now: float | None = None, settled: bool = False) -> None:
        """Show the current state on the LEDs and (if changed) the OLED;
        ``settled`` draws the pegs where they end, without animation."""
        now = self.clock() if now is None else now
        game = self.controller.game
        slide, celebrate = (None, None) if settled else (self._slide(now), self._celebrating(now))
        frame = led_frame(self.devices.layout, BoardView.of(game), self.style, slide, celebrate)
        try:
            self.devices.strip.show(frame)
            self.frames_shown += 1
            self.strip_error = None
        except (HardwareError, OSError, RuntimeError) as error:
            # Keep scoring on the OLED; try the strip again with the next frame.
            if self.strip_error is None:
                self.controller.say(f"LED strip failed ({error}); scores are safe", alert=True)
            self.strip_error = str(error)
        display = self.devices.display
        if display is not None:
            image = oled_image(self.controller.screen())
            data = image.tobytes()
            if data != self._last_image:
                try:
                    display.show(image)
                    self._last_image = data
                except (HardwareError, OSError) as error:
                    self.devices.display = None
                    self.controller.say(f"OLED stopped ({error}); carrying on without it", alert=True)

    # ---- running ---------------------------------------------------------

    def step(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for input, handle all that came, draw if needed."""
        controls = self.devices.controls
        event = controls.get(timeout)
        changed = False
        while event is not None:
            changed |= self.controller.handle(event)
            event = controls.get(0)
        now = self.clock()
        if changed or self.animating(now):
            self.draw(now)
        return changed

    def stop(self, *_args) -> None:
        self._stop.set()

    def run(self) -> int:
        """The main loop, until SIGTERM/SIGINT, a shutdown from the menu, or stop()."""
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                previous[sig] = signal.signal(sig, self.stop)
        try:
            self.draw()
            self.notifier.ready(f"board ready: {self.controller.game.variant.name}")
            watchdog = self.notifier.watchdog_interval
            next_ping = self.clock()
            while not self._stop.is_set() and not self.controller.shutdown_requested:
                now = self.clock()
                if watchdog and now >= next_ping:
                    self.notifier.watchdog()
                    next_ping = now + watchdog / 2
                timeout = FRAME_SECONDS if self.animating(now) else IDLE_WAKE_SECONDS
                if watchdog:
                    timeout = max(0.0, min(timeout, next_ping - now))
                self.step(timeout)
            return 0
        finally:
            self.notifier.stopping()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self.close()

    def close(self) -> None:
        """LEDs off, OLED cleared, pins and ledger released."""
        closers = [self.devices.strip.close, self.devices.controls.close, self.store.close]
        if self.devices.display is not None:
            closers.append(self.devices.display.close)
        for closer in closers:
            try:
                closer()
            except Exception:  # closing one device must not stop the rest closing
                pass


def _warm_counts(hand_size: int) -> None:
    from scorer.counting import CRIB_SIZE, possible_totals

    for size, crib in ((hand_size, False), (CRIB_SIZE, True)):
        possible_totals(size, crib)


def state_path(config: Config, override: str | None = None) -> Path:
    from .console import default_state_path

    chosen = override or config.values[""].get("state")
    return Path(chosen) if chosen else default_state_path()

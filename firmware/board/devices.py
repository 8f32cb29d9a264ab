"""The board's devices: opened from the config through the backend, supervised while it runs.

No device is fatal once the board runs: a strip, OLED or buttons that cannot
start (or stop working) are left out, the OLED and the journal (stderr) say
what to fix, and the board tries them again every ``retry_s`` seconds.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable

from hardware.backend import BackendChoice
from hardware.display import Display, DisplaySettings, MockDisplay, open_display
from hardware.errors import HardwareError
from hardware.inputs import Controls, InputPins, MockControls
from hardware.layout import Layout
from hardware.leds import LedStrip, MockStrip, PowerSettings, open_strip
from hardware.power import power_off

from ..config import COLOUR_BUTTONS, Config

RETRY_SECONDS = 30.0
DEVICE_NAMES = {"strip": "LED strip", "display": "OLED", "controls": "buttons", "buzzer": "buzzer"}
# What a device raises when it cannot start or stops answering.
DEVICE_ERRORS = (HardwareError, OSError, RuntimeError)


@dataclass
class Devices:
    """The board's hardware: each device open, or None with the problem to fix.

    ``openers`` open each device (again, to retry); ``power_off`` powers the
    machine off (None on the mock board, where Shut down only ends the program).
    """

    strip: LedStrip | None
    display: Display | None
    controls: Controls | None
    layout: Layout
    warnings: list[str] = field(default_factory=list)
    openers: dict[str, Callable[[], object]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    power_off: Callable[[], None] | None = None
    retry_s: float = RETRY_SECONDS
    buzzer: object | None = None  # hardware.buzzer.Buzzer, when [buzzer] enabled
    later: list[str] = field(default_factory=list)  # opened by Board.run once READY=1 is sent

    def missing(self) -> list[str]:
        """The devices not working now that can be tried again."""
        return [kind for kind in self.problems if kind in self.openers]

    def open(self, kind: str) -> bool:
        """Open one device; False when it cannot start, with the problem noted."""
        try:
            device = self.openers[kind]()
        except DEVICE_ERRORS as error:
            self.problems[kind] = str(error)
            return False
        setattr(self, kind, device)
        self.problems.pop(kind, None)
        return True

    def drop(self, kind: str, problem: str) -> None:
        """Take a device that stopped working out of use, noting why."""
        device = getattr(self, kind)
        setattr(self, kind, None)
        self.problems[kind] = problem
        if device is not None:
            close_quietly(device.close)


def power_settings(config: Config) -> PowerSettings:
    leds = config["leds"]
    return PowerSettings(leds["max_brightness"], leds["budget_ma"], leds["gamma"])


def display_settings(config: Config) -> DisplaySettings:
    d = config["display"]
    return DisplaySettings(
        chip=d["chip"], bus=d["bus"], i2c_port=d["i2c_port"], i2c_address=d["i2c_address"],
        rotate=d["rotate"],
    )


def _open_strip(config: Config, layout: Layout, power: PowerSettings) -> LedStrip:
    """The real LED strip, with the driver the config names (auto: spi, see hardware.backend)."""
    leds = config["leds"]
    return open_strip(leds["driver"], layout.strip_leds, leds["pin"], power, hz=leds["spi_hz"])


def _open_controls(pins: InputPins) -> Controls:
    """The real buttons and encoder; if gpiozero finds no pin library, the error names the first it
    tried (lgpio, the one current Pi OS needs) and how to get it."""
    from gpiozero.exc import PinFactoryFallback

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PinFactoryFallback)
        try:
            return Controls(pins)
        except HardwareError as error:
            fallbacks = [str(w.message) for w in caught if issubclass(w.category, PinFactoryFallback)]
            if not fallbacks:
                raise
            raise HardwareError(f"{error} ({fallbacks[0]}): on a Pi, pip install lgpio in the venv") from None


def device_openers(
    config: Config, backend: BackendChoice, hold_s: float | None = None
) -> dict[str, Callable[[], object]]:
    """How to open each device of the backend: called at start, and again to retry."""
    layout = config.layout
    power = power_settings(config)
    pins = config.input_pins(hold_s)
    if backend.name == "mock":
        openers = {
            "strip": lambda: MockStrip(layout.strip_leds, power),
            "display": MockDisplay,
            "controls": lambda: MockControls(pins),
        }
    else:
        openers = {
            "strip": lambda: _open_strip(config, layout, power),
            "display": lambda: open_display(display_settings(config)),
            "controls": lambda: _open_controls(pins),
        }
    if not config["display"]["enabled"]:
        del openers["display"]
    if config["buzzer"]["enabled"]:
        openers["buzzer"] = _buzzer_opener(config, backend)
    return openers


def _buzzer_opener(config: Config, backend: BackendChoice) -> Callable[[], object]:
    """The buzzer: gpiozero's TonalBuzzer on the configured pin, or a mock that records tones."""
    from hardware.buzzer import MockBuzzer, TonalBuzzer

    if backend.name == "mock":
        return MockBuzzer
    return lambda: TonalBuzzer(config["buzzer"]["pin"])


def open_devices(
    config: Config,
    backend: BackendChoice,
    hold_s: float | None = None,
    openers: dict[str, Callable[[], object]] | None = None,
    retry_s: float = RETRY_SECONDS,
    later: tuple[str, ...] = (),
) -> Devices:
    """Open the strip, the display and the inputs for the chosen backend.

    A device that cannot start is a warning (the board runs without it and
    tries again every ``retry_s``); ``openers`` replaces some of the backend's (tests). Only
    when no device at all opens is it a HardwareError: nothing to run on. The kinds
    in ``later`` are left for Board.run to open after READY=1 (issue 11: the board
    starts the OLED, luma's import and its first image, once the LEDs, the buttons
    and the ledger are up), unless nothing else opens.
    """
    wanted = {**device_openers(config, backend, hold_s), **(openers or {})}
    devices = Devices(
        None, None, None, config.layout, openers=wanted,
        power_off=None if backend.name == "mock" else power_off, retry_s=retry_s,
    )
    devices.later = [kind for kind in wanted if kind in later]
    for kind in wanted:
        if kind not in devices.later:
            devices.open(kind)
    needed = [kind for kind in wanted if kind != "buzzer"]  # a buzzer alone is no board
    if devices.later and not any(getattr(devices, kind) is not None for kind in needed):
        for kind in devices.later:  # nothing else to run on: they are needed now
            devices.open(kind)
        devices.later = []
        devices.problems = {kind: devices.problems[kind] for kind in wanted if kind in devices.problems}
    devices.warnings = [f"{devices.problems[kind]}; trying again every {devices.retry_s:g} s"
                        for kind in wanted if kind in devices.problems]
    if not any(getattr(devices, kind) is not None for kind in needed):
        raise HardwareError("no device could be opened: " + "; ".join(devices.problems.values()))
    return devices


def close_quietly(closer: Callable[[], None]) -> bool:
    """Close one device; False if it raised (closing one must not stop the rest closing)."""
    try:
        closer()
    except Exception:
        return False
    return True


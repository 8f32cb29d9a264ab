"""The board's devices: opened through the backend from the config, supervised while it runs.

No device is fatal once the board runs: a strip, OLED or buttons that cannot
start (or stop working) are left out, the OLED and the journal (stderr) say
what to fix, and the board tries them again every ``retry_s`` seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from hardware.backend import Backend
from hardware.buzzer import Buzzer
from hardware.display import Display
from hardware.errors import HardwareError
from hardware.inputs import Controls
from hardware.layout import Layout
from hardware.leds import LedStrip

from ..config import Config

RETRY_SECONDS = 30.0
DEVICE_NAMES = {"strip": "LED strip", "display": "OLED", "controls": "buttons", "buzzer": "buzzer"}
# What a device raises when it cannot start or stops answering.
DEVICE_ERRORS = (HardwareError, OSError, RuntimeError)


@dataclass
class Devices:
    """The board's hardware: each device open, or None with the problem to fix.

    ``openers`` open each device (again, to retry); ``backend`` opened them, and
    powers the machine off (:attr:`power_off`).
    """

    strip: LedStrip | None
    display: Display | None
    controls: Controls | None
    layout: Layout
    backend: Backend
    warnings: list[str] = field(default_factory=list)
    openers: dict[str, Callable[[], object]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    retry_s: float = RETRY_SECONDS
    buzzer: Buzzer | None = None  # when [buzzer] enabled
    later: list[str] = field(default_factory=list)  # opened by Board.run once READY=1 is sent

    @property
    def power_off(self) -> Callable[[], None] | None:
        """What powers the machine off; None where Shut down only ends the program (the mock board)."""
        return self.backend.power_off if self.backend.powers_off else None

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


def device_openers(config: Config, backend: Backend, hold_s: float | None = None) -> dict[str, Callable[[], object]]:
    """How the backend opens each device the config asks for: called at start, and again to retry.
    ``hold_s`` replaces the buttons' hold time (the simulator's scripts)."""
    strip, count, pins = config.leds.strip, config.layout.strip_leds, config.inputs.pins(hold_s)
    openers: dict[str, Callable[[], object]] = {"strip": lambda: backend.open_strip(strip, count)}
    if config.display.enabled:
        settings = config.display.settings
        openers["display"] = lambda: backend.open_display(settings)
    openers["controls"] = lambda: backend.open_controls(pins)
    if config.buzzer.enabled:
        openers["buzzer"] = lambda: backend.open_buzzer(config.buzzer.pin)
    return openers


def open_devices(
    config: Config,
    backend: Backend,
    hold_s: float | None = None,
    openers: dict[str, Callable[[], object]] | None = None,
    retry_s: float = RETRY_SECONDS,
    later: tuple[str, ...] = (),
) -> Devices:
    """Open the strip, the display, the inputs (and the buzzer) through the backend.

    A device that cannot start is a warning (the board runs without it and
    tries again every ``retry_s``); ``openers`` replaces some of the backend's (tests). Only
    when no device at all opens is it a HardwareError: nothing to run on. The kinds
    in ``later`` (the OLED: luma's import and its first image) are left for Board.run
    to open after READY=1, so that the board is ready once what a press needs (the LEDs,
    the buttons, the ledger) is up, unless nothing else opens.
    """
    wanted = {**device_openers(config, backend, hold_s), **(openers or {})}
    devices = Devices(None, None, None, config.layout, backend, openers=wanted, retry_s=retry_s)
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


def close_quietly(closer: Callable[[], object]) -> bool:
    """Close one device; False if it raised (closing one must not stop the rest closing)."""
    try:
        closer()
    except Exception:
        return False
    return True


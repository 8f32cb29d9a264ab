"""Choosing the backend: real devices on a Raspberry Pi, mocks elsewhere.

The choice is the argument, else ``CRIBBAGE_BACKEND``, else the config, else
what the machine is. The mock is never chosen silently on a Pi: there, only
an explicit choice gives it, and :func:`choose_backend` says so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import HardwareError

BACKENDS = ("real", "mock")
LED_DRIVERS = ("auto", "spi", "ws281x")
ENV_VAR = "CRIBBAGE_BACKEND"
MODEL_FILE = Path("/proc/device-tree/model")


def pi_model(model_file: Path = MODEL_FILE) -> str | None:
    """The Raspberry Pi model string, or None when this is not a Pi."""
    try:
        text = model_file.read_bytes().decode("ascii", "replace").strip("\x00\n ")
    except OSError:
        return None
    return text if text.startswith("Raspberry Pi") else None


@dataclass(frozen=True)
class BackendChoice:
    """Which backend, where the choice came from, and a line to tell the user."""

    name: str
    source: str  # "argument", "environment", "config" or "machine"
    message: str


def choose_backend(
    argument: str | None = None,
    config: str | None = None,
    environ: dict | None = None,
    model: str | None | bool = False,
) -> BackendChoice:
    """Pick the backend; ``model`` is the Pi model (False: look it up)."""
    environ = os.environ if environ is None else environ
    model = pi_model() if model is False else model
    for source, value in (
        ("argument", argument), ("environment", environ.get(ENV_VAR)), ("config", config),
    ):
        if value:
            name = value.strip().lower()
            if name not in BACKENDS:
                where = {"argument": "--backend", "environment": ENV_VAR, "config": "backend in the config"}[source]
                raise HardwareError(f"{where}={value!r}: use real or mock")
            if name == "mock" and model:
                message = f"mock hardware on a {model}, as asked ({source}): the LEDs, OLED and buttons are not used"
            elif name == "real" and not model:
                message = f"real hardware asked ({source}), but this is not a Raspberry Pi"
            else:
                message = f"{name} hardware ({source})"
            return BackendChoice(name, source, message)
    if model:
        return BackendChoice("real", "machine", f"real hardware on a {model}")
    return BackendChoice("mock", "machine", "no Raspberry Pi here: running the mock board")


def pi_generation(model: str | None) -> int | None:
    """The board family: 1 to 5 (the Pi 400 is a 4, the 500 and CM5 are 5s), None off a Pi."""
    if not model:
        return None
    if model.startswith("Raspberry Pi Zero"):
        return 3 if model.startswith("Raspberry Pi Zero 2") else 1  # the Zero 2 W is a Pi 3 chip
    found = re.match(r"Raspberry Pi (?:Compute Module )?(\d)", model)
    return int(found.group(1)) if found else 1  # "Raspberry Pi Model B Plus": the first boards


def ws281x_problem(model: str | None) -> str | None:
    """Why rpi_ws281x cannot drive the strip on this model, or None if it can.

    rpi_ws281x finds the board in a table of revision codes; it has no Pi 5
    (RP1) support, and a model newer than it knows would crash the process.
    """
    generation = pi_generation(model)
    if generation is None or generation <= 4:
        return None
    if generation == 5:
        family = "" if model.startswith("Raspberry Pi 5 ") else f" family (this is a {model})"
        return f'ws281x does not support the Raspberry Pi 5{family}: set leds.driver = "spi"'
    return f'ws281x does not know the {model}: set leds.driver = "spi"'


def led_driver_for(model: str | None) -> tuple[str, str]:
    """The LED driver ``leds.driver = "auto"`` means on this model, and why: always spi.

    spidev is the default on every model: it needs no root (the spi group), it
    runs on the Pi 3, 4, 5, 500 and Zero 2 W alike, and it needs no table of
    board revisions, which new revisions of supported boards have broken in
    rpi_ws281x (its issues 519, 520, 555). The Pi 5 family has no rpi_ws281x
    support at all. ws281x is used only when the config asks for it.
    """
    why = "spidev on /dev/spidev0.0 needs no root and no table of board revisions"
    if model is None:
        return "spi", f"not a Raspberry Pi: spi, the driver every current Pi has ({why})"
    problem = ws281x_problem(model)
    if problem:
        return "spi", f"{model}: spi, the only driver here (rpi_ws281x does not support this board)"
    return "spi", f'{model}: spi ({why}); leds.driver = "ws281x" uses rpi_ws281x instead'

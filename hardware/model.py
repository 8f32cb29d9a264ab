"""Which Raspberry Pi this is, and which LED driver suits it.

Read from the device tree (``/proc/device-tree/model``); None off a Pi.
"""

from __future__ import annotations

import re
from pathlib import Path

MODEL_FILE = Path("/proc/device-tree/model")


def pi_model(model_file: Path = MODEL_FILE) -> str | None:
    """The Raspberry Pi model string, or None when this is not a Pi."""
    try:
        text = model_file.read_bytes().decode("ascii", "replace").strip("\x00\n ")
    except OSError:
        return None
    return text if text.startswith("Raspberry Pi") else None


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
        family = "" if (model or "").startswith("Raspberry Pi 5 ") else f" family (this is a {model})"
        return f'ws281x does not support the Raspberry Pi 5{family}: set leds.driver = "spi"'
    return f'ws281x does not know the {model}: set leds.driver = "spi"'


def led_driver_for(model: str | None) -> tuple[str, str]:
    """The LED driver ``leds.driver = "auto"`` means on this model, and why: always spi.

    spidev is the default on every model: it needs no root (the spi group), it
    runs on the Pi 3, 4, 5, 500 and Zero 2 W alike, and it needs no table of
    board revisions, which new revisions of supported boards have broken in
    rpi_ws281x (docs/decisions.md). The Pi 5 family has no rpi_ws281x
    support at all. ws281x is used only when the config asks for it.
    """
    why = "spidev on /dev/spidev0.0 needs no root and no table of board revisions"
    if model is None:
        return "spi", f"not a Raspberry Pi: spi, the driver every current Pi has ({why})"
    problem = ws281x_problem(model)
    if problem:
        return "spi", f"{model}: spi, the only driver here (rpi_ws281x does not support this board)"
    return "spi", f'{model}: spi ({why}); leds.driver = "ws281x" uses rpi_ws281x instead'


# A revision code for each model whose header the image serves, for a kernel that gives none (Debian's
# own kernel: no /system/linux,revision in the device tree without the firmware's, no Revision in
# /proc/cpuinfo on arm64). gpiozero reads the header's layout from it; every 40-pin model has the same.
MODEL_REVISIONS = (
    ("Raspberry Pi 3 Model B Plus", 0xA020D3),
    ("Raspberry Pi 3 Model A Plus", 0x9020E0),
    ("Raspberry Pi 3 Model B", 0xA02082),
    ("Raspberry Pi Zero 2 W", 0x902120),
    ("Raspberry Pi Compute Module 3 Plus", 0xA02100),
    ("Raspberry Pi 4 Model B", 0xC03111),
    ("Raspberry Pi 400", 0xC03130),
    ("Raspberry Pi Compute Module 4", 0xA03140),
)


def revision_for_model(model: str | None) -> int | None:
    """A revision code for ``model`` (the device tree's model string), None for a model not listed."""
    for prefix, revision in MODEL_REVISIONS:
        if model and model.startswith(prefix):
            return revision
    return None

"""Choosing the backend: real devices on a Raspberry Pi, mocks elsewhere.

The choice is the argument, else ``CRIBBAGE_BACKEND``, else the config, else
what the machine is. The mock is never chosen silently on a Pi: there, only
an explicit choice gives it, and :func:`choose_backend` says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .errors import HardwareError

BACKENDS = ("real", "mock")
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

"""Device backends, as gpiozero has pin factories: each opens the board's devices of one kind.

:class:`PiBackend` opens the real devices, :class:`MockBackend` mocks that record what they were
given; :func:`choose_backend` picks one. Every real device library (spidev, rpi_ws281x, luma,
gpiozero's pin libraries) is imported when a device is opened, never at module import.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping

from . import BACKENDS
from .buzzer import Buzzer, MockBuzzer, TonalBuzzer
from .display import Display, DisplaySettings, MockDisplay, open_display
from .errors import HardwareError
from .inputs import Controls, InputPins, MockControls
from .leds import LedStrip, MockStrip, StripSettings, open_strip
from .model import pi_model, revision_for_model
from .power import power_off

ENV_VAR = "CRIBBAGE_BACKEND"


class Backend:
    """Opens the devices of one kind of board. ``name`` is "real" or "mock",
    ``source`` where the choice came from ("argument", "environment", "config",
    "machine" or a caller's own word) and ``message`` a line to tell the user.

    ``physical`` says whether the devices are physical (a mock board is only
    seen where something draws it: the terminal board); ``powers_off`` whether
    :meth:`power_off` turns a machine off."""

    name = ""
    physical = False
    powers_off = False

    def __init__(self, source: str, message: str):
        self.source = source
        self.message = message

    def open_strip(self, settings: StripSettings, count: int) -> LedStrip:
        raise NotImplementedError

    def open_display(self, settings: DisplaySettings) -> Display:
        raise NotImplementedError

    def open_controls(self, pins: InputPins) -> Controls:
        raise NotImplementedError

    def open_buzzer(self, pin: int) -> Buzzer:
        raise NotImplementedError

    def power_off(self) -> None:
        """Ask for the machine to power off; ``hardware.power.PowerOffError`` if refused."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.source!r}, {self.message!r})"


def model_revision_factory():
    """lgpio's pin factory with the board revision of the device tree's model, for a kernel that gives
    gpiozero none (Debian's own); None where gpiozero finds the revision itself, off a Pi, or without lgpio."""
    from gpiozero.exc import PinUnknownPi
    from gpiozero.pins.local import get_pi_revision

    try:
        get_pi_revision()
        return None
    except PinUnknownPi:
        pass
    except OSError:
        return None
    revision = revision_for_model(pi_model())
    if revision is None:
        return None
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError:
        return None

    class ModelRevisionFactory(LGPIOFactory):
        def _get_revision(self):
            return revision

    try:
        return ModelRevisionFactory()
    except Exception:  # lgpio's own error type: gpiozero's choice then says what is wrong, in words
        return None


class PiBackend(Backend):
    """The Raspberry Pi's own devices: the strip through spidev or rpi_ws281x, the OLED
    through luma, buttons and encoder through gpiozero's pins, a PWM buzzer, and a
    power-off through systemd-logind."""

    name = "real"
    physical = True
    powers_off = True
    _pin_factory = None

    def pin_factory(self):
        """gpiozero's own choice of pin library (None), unless the kernel gives no board revision: then
        lgpio with the revision of the device tree's model (:func:`model_revision_factory`), made once."""
        if self._pin_factory is None:
            self._pin_factory = model_revision_factory()
        return self._pin_factory

    def open_strip(self, settings: StripSettings, count: int) -> LedStrip:
        """The strip with the driver the settings name (auto: spi, see hardware.model)."""
        return open_strip(settings.driver, count, settings.pin, settings.power, hz=settings.spi_hz)

    def open_display(self, settings: DisplaySettings) -> Display:
        return open_display(settings)

    def open_controls(self, pins: InputPins) -> Controls:
        """The buttons and encoder; if gpiozero finds no pin library, the error names the
        first it tried (lgpio, the one current Pi OS needs) and how to get it."""
        from gpiozero.exc import PinFactoryFallback

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PinFactoryFallback)
            try:
                return Controls(pins, pin_factory=self.pin_factory())
            except HardwareError as error:
                fallbacks = [str(w.message) for w in caught if issubclass(w.category, PinFactoryFallback)]
                if not fallbacks:
                    raise
                raise HardwareError(f"{error} ({fallbacks[0]}): on a Pi, pip install lgpio in the venv") from None

    def open_buzzer(self, pin: int) -> Buzzer:
        return TonalBuzzer(pin, pin_factory=self.pin_factory())

    def power_off(self) -> None:
        power_off()


class MockBackend(Backend):
    """Mock devices: a strip and an OLED (luma's dummy) that keep what they showed,
    buttons and an encoder on gpiozero's MockFactory pins, a buzzer that records its
    tunes. Powering off does nothing: on the mock board, Shut down ends the program."""

    name = "mock"

    def open_strip(self, settings: StripSettings, count: int) -> LedStrip:
        return MockStrip(count, settings.power)

    def open_display(self, settings: DisplaySettings) -> Display:
        return MockDisplay()

    def open_controls(self, pins: InputPins) -> Controls:
        return MockControls(pins)

    def open_buzzer(self, pin: int) -> Buzzer:
        return MockBuzzer()

    def power_off(self) -> None:
        """Nothing to power off: the mock board's program just ends."""


def choose_backend(
    argument: str | None = None,
    config: str | None = None,
    environ: Mapping[str, str] | None = None,
    model: str | None | bool = False,
) -> Backend:
    """The backend to use; ``model`` is the Pi model (False: look it up).

    :class:`PiBackend` opens the real strip, OLED, buttons and buzzer, and powers
    the Pi off; :class:`MockBackend` opens mocks that record what they were given,
    and its power-off only ends the program. The board asks its backend for each
    device and never asks which backend it is. :func:`choose_backend` picks one:
    the argument, else ``CRIBBAGE_BACKEND``, else the config, else what the machine
    is. The mock is never chosen silently on a Pi: there, only an explicit choice
    gives it, and the message says so.
    """
    environ = os.environ if environ is None else environ
    model = pi_model() if isinstance(model, bool) else model  # False (a bool): look it up
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
            return (MockBackend if name == "mock" else PiBackend)(source, message)
    if model:
        return PiBackend("machine", f"real hardware on a {model}")
    return MockBackend("machine", "no Raspberry Pi here: running the mock board")

"""A piezo buzzer: short tunes played in the background, never holding up the caller.

A tune is a sequence of notes, (frequency in Hz, seconds); a frequency of 0
is a rest. :class:`TonalBuzzer` plays them on gpiozero's ``TonalBuzzer``
(PWM on any GPIO; the pin factory decides real or mock) from a thread of its
own: ``play`` only hands the tune over, and a new tune cuts one still
playing short. :class:`MockBuzzer` records what it was asked to play.
"""

from __future__ import annotations

import threading
import warnings
from typing import Protocol, Sequence

from .errors import DeviceNotFoundError, HardwareError

Note = tuple[float, float]  # (Hz, seconds); 0 Hz is a rest
LOWEST_HZ, HIGHEST_HZ = 110.0, 1760.0  # A2 to A6: TonalBuzzer's range with two octaves each side of A4
MAX_TUNE_SECONDS = 3.0


class Buzzer(Protocol):
    """What the firmware needs of a buzzer."""

    def play(self, notes: Sequence[Note], label: str = "") -> None:
        """Start playing ``notes`` and return at once; ``label`` names the tune for records."""

    def close(self) -> None:
        """Silence the buzzer and release its pin."""


def check_tune(notes: Sequence[Note]) -> tuple[Note, ...]:
    """The tune as a tuple; ValueError for a note out of range or a tune too long."""
    tune = tuple((float(hz), float(seconds)) for hz, seconds in notes)
    for hz, seconds in tune:
        if hz and not LOWEST_HZ <= hz <= HIGHEST_HZ:
            raise ValueError(f"a note of {hz:g} Hz: the buzzer plays {LOWEST_HZ:g} to {HIGHEST_HZ:g} Hz")
        if seconds <= 0:
            raise ValueError("each note needs a length above 0 seconds")
    if sum(seconds for _, seconds in tune) > MAX_TUNE_SECONDS:
        raise ValueError(f"a tune lasts at most {MAX_TUNE_SECONDS:g} s")
    return tune


class MockBuzzer:
    """A buzzer that records each tune asked for: ``played`` holds (label, notes)."""

    def __init__(self, history: int = 100):
        self.played: list[tuple[str, tuple[Note, ...]]] = []
        self.history = history
        self.closed = False

    def play(self, notes: Sequence[Note], label: str = "") -> None:
        if self.closed:
            raise HardwareError("the buzzer is closed")
        self.played.append((label, check_tune(notes)))
        del self.played[:-self.history]

    def close(self) -> None:
        self.closed = True


class TonalBuzzer:
    """A piezo buzzer on a GPIO pin through gpiozero's ``TonalBuzzer``, played from a thread.

    ``pin_factory`` is gpiozero's (a ``MockFactory`` with PWM pins in tests).
    A failure while playing is kept and raised by the next ``play``, so the
    caller hears of it without ever waiting for a tune."""

    def __init__(self, pin: int, pin_factory=None):
        try:
            from gpiozero import TonalBuzzer as Device
            from gpiozero.exc import GPIOZeroError
        except ImportError as error:
            raise DeviceNotFoundError(f"gpiozero is not installed ({error}): pip install gpiozero") from None
        with warnings.catch_warnings(record=True) as caught:  # gpiozero's pin-library fallbacks
            warnings.simplefilter("always")
            try:
                self._device = Device(pin, octaves=2, pin_factory=pin_factory)
            except (GPIOZeroError, OSError, RuntimeError) as error:
                tried = [str(w.message) for w in caught]
                hint = f" ({tried[0]}): on a Pi, pip install lgpio in the venv" if tried else ""
                raise DeviceNotFoundError(f"buzzer on GPIO{pin} did not start: {error}{hint}") from None
        self.pin = pin
        self._tune: tuple[Note, ...] | None = None
        self._label = ""
        self._wake = threading.Condition()
        self._closing = False
        self.failure: str | None = None
        self.finished = 0  # tunes played to their end or cut short
        self._thread = threading.Thread(target=self._run, name=f"buzzer GPIO{pin}", daemon=True)
        self._thread.start()

    def play(self, notes: Sequence[Note], label: str = "") -> None:
        """Hand ``notes`` to the player thread (a tune still playing is cut short)."""
        if self.failure is not None:
            raise HardwareError(self.failure)
        if self._closing:
            raise HardwareError(f"the buzzer on GPIO{self.pin} is closed")
        tune = check_tune(notes)
        with self._wake:
            self._tune, self._label = tune, label
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._tune is None and not self._closing:
                    self._wake.wait()
                if self._closing:
                    return
                tune, self._tune = self._tune, None
                assert tune is not None, "the wait ends on a tune or on closing"
            try:
                self._play(tune)
            except Exception as error:  # the pin library's own errors included
                self.failure = f"buzzer on GPIO{self.pin} stopped: {error}"
                return
            self.finished += 1

    def _play(self, tune: tuple[Note, ...]) -> None:
        """Each note in turn; a new tune or a close stops this one between notes' waits."""
        try:
            for hz, seconds in tune:
                if hz:
                    self._device.play(hz)
                else:
                    self._device.stop()
                with self._wake:
                    if self._wake.wait_for(lambda: self._tune is not None or self._closing, seconds):
                        return
        finally:
            self._device.stop()

    def close(self) -> None:
        if self._closing:
            return
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._thread.join(timeout=1.0)
        try:
            self._device.close()
        except Exception as error:
            raise HardwareError(f"buzzer on GPIO{self.pin} did not close: {error}") from None

"""The board's own options, changed in its menus and applied at once."""

from __future__ import annotations

from typing import Callable


def _ignore(value: object) -> None:
    """A change nothing outside the options needs to hear of."""


class BoardOptions:
    """How the board looks and sounds: the LEDs' ``brightness`` (0.1 to 1) and ``palette``
    (firmware.palette.PALETTE_NAMES), whether the buzzer plays (``tones``, and ``has_buzzer``:
    whether the board has one), and what the OLED shows (``display_mode``: "full", or "scores"
    for the large scores). ``on_brightness`` and ``on_palette`` hand a change to the devices.

    >>> levels = []
    >>> options = BoardOptions(on_brightness=levels.append)
    >>> options.set_brightness(0.3)
    >>> options.brightness, levels
    (0.3, [0.3])
    """

    def __init__(self, palette: str = "standard", has_buzzer: bool = False, display_mode: str = "full",
                 on_brightness: Callable[[float], None] = _ignore, on_palette: Callable[[str], None] = _ignore):
        self.brightness = 1.0
        self.palette = palette
        self.tones = True
        self.has_buzzer = has_buzzer
        self.display_mode = display_mode
        self._on_brightness = on_brightness
        self._on_palette = on_palette

    def set_brightness(self, level: float) -> None:
        """The LEDs' brightness, at once."""
        self.brightness = level
        self._on_brightness(level)

    def set_palette(self, name: str) -> None:
        """The LEDs' palette, at once."""
        self.palette = name
        self._on_palette(name)

    def set_tones(self, on: bool) -> None:
        """The buzzer plays (or is silent) from the next press on."""
        self.tones = on

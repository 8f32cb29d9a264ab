"""The board's own options: changed at once, and handed to the devices that apply them."""

import doctest

from firmware.board import board_options
from firmware.board.board_options import BoardOptions


def test_defaults_are_full_brightness_tones_on_and_the_full_display():
    """A board without a config says: full brightness, tones on, the standard palette, the full OLED."""
    options = BoardOptions()
    assert (options.brightness, options.tones, options.palette, options.display_mode) == (1.0, True, "standard", "full")
    assert not options.has_buzzer


def test_brightness_and_palette_reach_the_devices_at_once():
    """Each change is kept and handed to the devices' callback; tones need none."""
    heard = []
    options = BoardOptions("colour-blind", has_buzzer=True, display_mode="scores",
                           on_brightness=lambda level: heard.append(("brightness", level)),
                           on_palette=lambda name: heard.append(("palette", name)))
    options.set_brightness(0.4)
    options.set_palette("standard")
    options.set_tones(False)
    assert (options.brightness, options.palette, options.tones) == (0.4, "standard", False)
    assert heard == [("brightness", 0.4), ("palette", "standard")]


def test_without_callbacks_a_change_is_only_kept():
    """Options with no devices behind them (a test's controller) still change."""
    options = BoardOptions()
    options.set_palette("colour-blind")
    options.set_brightness(0.2)
    assert (options.palette, options.brightness) == ("colour-blind", 0.2)


def test_the_examples_in_its_docstring_hold():
    """The module's doctests run."""
    assert doctest.testmod(board_options).failed == 0

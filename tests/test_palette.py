"""Colour-blind-safe palette, lap shades and a back peg told apart by more than colour."""

from __future__ import annotations

import pytest

from firmware.board.frames import LAP_TINTS, LedStyle, lap_shade
from firmware.config import load_config
from firmware.palette import MIN_SIDE_DISTANCE, PALETTES, closest_pair, distance, simulate

VISIONS = ("normal", "protanopia", "deuteranopia")
STANDARD = load_config().leds.colours


def test_simulation_matches_known_points():
    """The simulation keeps black, white and grey, and makes pure red and green alike for a deuteranope."""
    for vision in ("protanopia", "deuteranopia", "tritanopia"):
        for grey in ((0, 0, 0), (255, 255, 255), (128, 128, 128)):
            assert all(abs(a - b) < 1.5 for a, b in zip(simulate(grey, vision), grey)), (vision, grey)
    assert distance((255, 0, 0), (0, 255, 0)) > 80
    assert distance((255, 0, 0), (0, 160, 0), "deuteranopia") < 15


@pytest.mark.parametrize("vision", VISIONS)
def test_the_colour_blind_palette_keeps_every_side_apart(vision):
    """Every pair of the preset's side colours is at least MIN_SIDE_DISTANCE delta E apart under the vision."""
    gap, i, j = closest_pair(PALETTES["colour-blind"], vision)
    assert gap >= MIN_SIDE_DISTANCE, (vision, i, j, gap)


def test_the_standard_palette_fails_the_same_check():
    """The default red, blue, green, yellow do not pass for red-green colour blindness: the check can fail."""
    assert closest_pair(STANDARD, "normal")[0] >= MIN_SIDE_DISTANCE
    for vision in ("protanopia", "deuteranopia"):
        gap, i, j = closest_pair(STANDARD, vision)
        assert gap < MIN_SIDE_DISTANCE and 2 in {i, j}  # green, beside red or yellow


@pytest.mark.parametrize("palette", ["standard", "colour-blind"])
@pytest.mark.parametrize("vision", VISIONS)
def test_each_lap_has_a_shade_of_its_own(palette, vision):
    """A side's first, second and third lap shades stay at least 15 delta E apart, whatever the vision."""
    colours = PALETTES.get(palette, STANDARD)
    for colour in colours:
        shades = [lap_shade(colour, lap) for lap in range(len(LAP_TINTS))]
        assert closest_pair(shades, vision)[0] >= 15, (colour, shades)


def test_the_palette_preset_replaces_the_colours_everywhere():
    """leds.palette = colour-blind gives the board (and the controls card) the preset's colours."""
    from firmware.board.controls import controls_card

    config = load_config(overrides=["leds.palette=colour-blind"])
    assert config.leds.colours == PALETTES["colour-blind"]
    assert [b.colour for b in controls_card(config).buttons] == list(PALETTES["colour-blind"])


def test_a_bad_palette_is_one_line():
    """An unknown palette names the key and the choices."""
    from firmware.errors import ConfigError

    with pytest.raises(ConfigError, match=r"\[leds\] palette = 'pastel': use one of 'standard', 'colour-blind'"):
        load_config(overrides=["leds.palette=pastel"])


def test_the_blinking_back_peg_alternates_bright_and_dim():
    """A blinking back peg is at its level for half a second, then at a third of it, and so on."""
    style = LedStyle(blink_back=True)
    levels = [style.back_level(t) for t in (0.0, 0.49, 0.5, 0.99, 1.0)]
    assert levels == [0.25, 0.25, 0.25 * 0.35, 0.25 * 0.35, 0.25]
    assert LedStyle().back_level(0.7) == 0.25  # no blink unless asked


def test_the_board_blinks_the_back_peg_with_the_colour_blind_palette(tmp_path):
    """With the preset the main loop wakes for the blink and draws the back peg dimmer, then bright again."""
    from firmware.board.pc.simulator import Simulator

    sim = Simulator(load_config(overrides=["leds.palette=colour-blind"]), tmp_path / "l.sqlite3")
    try:
        sim.act("turn", "5")
        sim.act("click", "red")
        sim.act("turn", "3")
        sim.act("click", "red")
        board, layout = sim.board, sim.devices.layout
        assert board.style.blink_back and board.wake_in(sim.clock()) <= 0.5
        seen = set()
        for _ in range(3):
            sim.clock.skip(board._blink_at - sim.clock() + 1e-6)
            board.step(0)
            seen.add(sim.devices.strip.wanted[-1][layout.led(0, 5)])
        vermillion = PALETTES["colour-blind"][0]
        assert seen == {tuple(int(c * 0.25 + 0.5) for c in vermillion),
                        tuple(int(c * 0.25 * 0.35 + 0.5) for c in vermillion)}
        assert sim.strip_pegs()[0] == {"front": 8, "back": 5}
    finally:
        sim.close()

"""Issue 32: the LEDs follow the game's own skunk rule, each press says what it did, and
the presses easy to make by accident (a double press, a knob press in the play) are caught."""

import pytest

from firmware.config import load_config
from firmware.pc.simulator import Simulator
from hardware.layout import BUNDLED, HOLES_PER_TRACK

# RULES.md, for a 121 game: ACC skunk under 91 and double skunk under 61 (the house triple
# under 31 too); the British lurch under half the target (61); no lines at all for "none".
MARKED = {"acc": {91, 61}, "triple": {91, 61, 31}, "lurch": {61}, "none": set()}


def make(tmp_path, *overrides):
    return Simulator(load_config(overrides=list(overrides)), tmp_path / "ledger.sqlite3")


def marked_holes(sim, track):
    """The holes of a track lit on a fresh game (both pegs still in the start holes)."""
    layout = sim.devices.layout
    sim.board.draw(settled=True)
    frame = sim.devices.strip.wanted[-1]
    return {hole for hole in range(1, HOLES_PER_TRACK + 1) if frame[layout.led(track, hole)] != (0, 0, 0)}


@pytest.mark.parametrize("layout", BUNDLED)
@pytest.mark.parametrize("rule", sorted(MARKED))
def test_skunk_marks_follow_the_games_rule_on_every_layout(tmp_path, rule, layout):
    """Each track marks the lines of the game's own rule: ACC, triple, lurch, or none at all."""
    sim = make(tmp_path, f"game.skunk={rule}", f"leds.layout={layout}")
    try:
        assert sim.board.controller.game.options.skunk.value == rule
        for track in range(len(sim.board.controller.game.sides)):
            assert marked_holes(sim, track) == MARKED[rule], f"track {track}"
    finally:
        sim.close()


def test_no_skunk_marks_in_low_ball(tmp_path):
    """In low-ball the side that gets there loses: no loser is held against a line, none is marked."""
    sim = make(tmp_path, "game.variant=low-ball")
    try:
        assert marked_holes(sim, 0) == marked_holes(sim, 1) == set()
    finally:
        sim.close()

"""What the LEDs show (firmware/board/frames.py): pegs drawn and decoded back to the same scores, a paler
shade each lap, a blinking back peg, and the skunk lines of the game's own rule on every layout."""

import pytest
from helpers import make

from firmware.board.frames import BoardView, LedStyle, led_frame
from firmware.board.pc.simulator import read_pegs
from hardware.layout import BUNDLED, HOLES_PER_TRACK, load_layout


@pytest.mark.parametrize("target", [61, 121, 181])
def test_decoding_any_peg_position_gives_it_back(target):
    """Every front score and a range of back pegs, drawn and decoded: the same scores (laps of a 181 game too)."""
    layout = load_layout("classic-121")
    style = LedStyle()
    for front in range(target + 1):
        for back in sorted({front - d for d in (1, 2, 5, 29, 60)} if front else {0}):
            if back < 0:
                continue
            view = BoardView(target, (front, 3), (back, 1), dealer_side=0, winner_side=None)
            pegs = read_pegs(layout, led_frame(layout, view, style), style, target, 2)
            assert pegs[0] == {"front": front, "back": back if front else None}, (front, back)
            assert pegs[1] == {"front": 3, "back": 1}


def test_the_second_lap_shows_in_a_paler_shade_with_the_start_hole_lit(tmp_path):
    """181 (seven-card): on lap 2 the pegs are a paler red and the start hole is lit in it (the lap mark)."""
    layout = load_layout("classic-121")
    style = LedStyle()
    view = BoardView(181, (130, 20), (125, 0), dealer_side=1, winner_side=None)
    frame = led_frame(layout, view, style)
    pale = (255, 102, 102)
    assert frame[layout.starts[0].led] == frame[layout.led(0, 10)] == pale  # lap mark, front peg
    assert frame[layout.led(0, 5)] == (64, 26, 26)  # the back peg, dimmer, in the same shade
    assert read_pegs(layout, frame, style, 181, 2) == [{"front": 130, "back": 125}, {"front": 20, "back": 0}]


def test_a_back_peg_on_the_first_lap_behind_a_front_on_the_second():
    """Front 122 (lap 2, hole 2), back 118 (lap 1): each peg in its own lap's shade, read back exactly."""
    layout = load_layout("classic-121")
    style = LedStyle()
    frame = led_frame(layout, BoardView(181, (122, 0), (118, 0), 0, None), style)
    assert frame[layout.led(0, 118)] == (64, 0, 0) and frame[layout.led(0, 2)] == (255, 102, 102)
    assert read_pegs(layout, frame, style, 181, 2)[0] == {"front": 122, "back": 118}


@pytest.mark.parametrize("now", [0.1, 0.6])
def test_a_blinking_back_peg_reads_in_either_half_of_its_blink(now):
    """With the back peg blinking, both its bright and its dim half read as the back peg."""
    layout = load_layout("classic-121")
    style = LedStyle(blink_back=True)
    frame = led_frame(layout, BoardView(121, (40, 12), (31, 3), 0, None), style, now=now)
    assert frame[layout.led(0, 31)] == ((64, 0, 0) if now < 0.5 else (22, 0, 0))
    assert read_pegs(layout, frame, style, 121, 2) == [{"front": 40, "back": 31}, {"front": 12, "back": 3}]


def test_three_laps_each_have_their_own_shade():
    """A game to 300: laps 1, 2 and 3 show three shades of the side's colour, each read back."""
    layout = load_layout("classic-121")
    style = LedStyle()
    shades = set()
    for front in (30, 150, 270):
        frame = led_frame(layout, BoardView(300, (front, 0), (front - 4, 0), 0, None), style)
        shades.add(frame[layout.led(0, 30)])
        assert read_pegs(layout, frame, style, 300, 2)[0] == {"front": front, "back": front - 4}
    assert shades == {(255, 0, 0), (255, 102, 102), (255, 204, 204)}


def test_sides_beyond_the_tracks_read_as_null():
    """A side with no track on the board has no pegs lit."""
    layout = load_layout("classic-121")
    view = BoardView(121, (4, 6, 8), (0, 0, 0), dealer_side=0, winner_side=None)
    pegs = read_pegs(layout, led_frame(layout, view, LedStyle()), LedStyle(), 121, 3)
    assert pegs[2] == {"front": None, "back": None} and pegs[1] == {"front": 6, "back": 0}


# RULES.md, for a 121 game: ACC skunk under 91 and double skunk under 61 (the house triple
# under 31 too); the British lurch under half the target (61); no lines at all for "none".
MARKED = {"acc": {91, 61}, "triple": {91, 61, 31}, "lurch": {61}, "none": set()}


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

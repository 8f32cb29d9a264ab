"""What a press did (firmware/board/outcome.py) on the mock board: the LEDs follow the game's own skunk
rule, a double press and a knob press in the play are caught in scripts and said on the OLED and the
terminal, and one view a change. The controller's outcomes on their own are in test_controller.py."""

import time

import pytest

from firmware.board.outcome import Did
from firmware.board.pc.simulator import SimClock, Simulator, run_script
from firmware.board.pc.terminal import compose, score_line
from firmware.board.screens import oled_image, scores_screen
from firmware.board.view import result_text, scores_title, tally_text
from firmware.config import load_config
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


# ---- a double press of the knob ------------------------------------------------------

DOUBLE = "Double press: a 19 is one press on its own"


def test_a_double_press_in_a_script_is_refused(tmp_path):
    """The measured script, turn 8 / click knob / click knob, on the mock board (its clock held): no "Red hand 0"."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3", clock=SimClock(lambda: 1000.0))
    try:
        sim.act("turn", "8")
        sim.act("click", "knob")
        outcomes = [outcome for outcome in sim.act("click", "knob") if outcome.did is not Did.NOTHING]
        assert [(outcome.did, outcome.message) for outcome in outcomes] == [(Did.REFUSED, DOUBLE)]
        assert [entry.describe() for entry in sim.board.controller.game.pegged] == ["Blue hand 8"]
        sim.clock.skip(1.5)
        sim.act("click", "knob")
        assert sim.board.controller.game.pegged[-1].describe() == "Red hand 0"
    finally:
        sim.close()


# ---- the knob in the play ------------------------------------------------------------

PLAY_THEN_KNOB = ["turn 2", "click blue", "turn 2", "click knob"]


def test_a_knob_press_in_the_play_says_the_play_is_over(tmp_path):
    """The measured script: the OLED and the terminal say the play is over, with a tone of its own; nothing refused."""
    sim = Simulator(load_config(overrides=["buzzer.enabled=true"]), tmp_path / "ledger.sqlite3")
    try:
        outcomes = []
        for line in PLAY_THEN_KNOB:
            outcomes += sim.act(*line.split())
        last = outcomes[-1]
        assert last.accepted and last.play_over and last.message == "Play over: Blue hand 2 (undo if not)"
        assert not any(outcome.refused for outcome in outcomes)
        assert [label for label, _ in sim.devices.buzzer.played] == ["accept", "play-over"]
        screen = sim.board.oled_screen()
        assert screen.footer == "Play over: Blue hand 2 (undo if not)" and screen.alert
        assert sim.devices.display.image.convert("1").tobytes() == oled_image(screen).tobytes()
        text = "\n".join(compose(sim, 80, 24, colour=False).lines())
        assert "! Play over: Blue hand 2" in text and "(undo if not)" in text
    finally:
        sim.close()


def test_the_play_over_message_is_no_refusal_in_a_script(tmp_path):
    """simulate lists no refusal for the knob press that ends the play."""
    result = run_script(PLAY_THEN_KNOB, load_config(), tmp_path / "ledger.sqlite3")
    assert result["rejected"] == [] and result["screen"]["footer"].startswith("Play over: Blue hand 2")


def test_the_oled_hint_names_the_colour_buttons_while_the_play_is_on(tmp_path):
    """In the play the caption names the colour buttons for play points first; in the show, the knob's counts."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    try:
        sim.act("turn", "2")
        sim.act("click", "blue")
        assert sim.board.oled_screen().big_caption == "colour: play points; knob: Blue hand"
        sim.act("click", "knob")
        assert sim.board.oled_screen().big_caption == "knob: Red hand > Red crib"
    finally:
        sim.close()


# ---- the loop's own wake event -----------------------------------------------------

def test_the_loop_wakes_on_its_own_event_never_a_fake_input(tmp_path):
    """An input sets the loop's wake event; a stop, the club and the ledger check set it too, and put
    nothing on the input queue; a step then comes back at once."""
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    board, controls = sim.board, sim.controls
    try:
        sim.act("turn", "1")
        assert not board.wake.is_set() and controls.events.empty()
        controls.click("red")
        assert board.wake.is_set() and not controls.events.empty()  # the input itself wakes the loop
        board.step(0)
        assert not board.wake.is_set() and controls.events.empty() and board.controller.game.state.scores == (1, 0)
        for wake in (board._club_changed, board.stop):
            wake()
            assert board.wake.is_set() and controls.events.empty()  # no InputEvent("wake") any more
            started = time.monotonic()
            board.step(30)
            assert time.monotonic() - started < 10  # a ceiling: the step did not sleep its 30 s
            assert not board.wake.is_set()
    finally:
        sim.close()


# ---- one view of the state -----------------------------------------------------------

def test_one_view_per_change_drawn_by_the_leds_the_oled_and_the_terminal(tmp_path):
    """The board makes one view per change; the dealer's mark, the scores and the next count on the
    OLED, in the large scores and on the terminal board all come from it, and move with the deal."""
    sim = Simulator(load_config(overrides=["game.skunk=lurch"]), tmp_path / "ledger.sqlite3")
    board = sim.board
    try:
        view = board.view()
        assert board.view() is view  # nothing changed: the same view
        assert view.skunk_marks == (61,) and view.board.skunk_marks == (61,) and view.dealer_side == 0
        sim.act("turn", "2")
        assert board.view() is view  # the dial is not the game
        sim.act("click", "blue")
        view = board.view()
        assert view.scores == (0, 2) and view.in_play and view.show[0] == ("Blue", "hand")
        assert scores_title(view) == board.oled_screen().title == "Red* 0  Blue 2"
        assert scores_screen(view).scores[0][0] == "Red*"
        assert score_line(view).startswith("Red 0 (deals) · Blue 2 │ next: Blue hand │ six-card, deal 1, the play")
        for points in (8, 12, 4):  # the show: Blue's hand, Red's hand, Red's crib; then Blue deals
            sim.act("turn", str(points))
            sim.act("click", "knob")
        view = board.view()
        assert view.dealer_side == 1 and view.deal == 2
        assert board.oled_screen().title == "Red 16  Blue* 10"
        assert " · Blue 10 (deals) │ next: Red hand" in "\n".join(compose(sim, 80, 24, colour=False).lines())
        layout = sim.devices.layout
        sim.board.draw(settled=True)
        frame = sim.devices.strip.wanted[-1]
        assert frame[layout.led(1, 61)] != frame[layout.led(0, 61)]  # the dealer's track marks its line in its colour
    finally:
        sim.close()


def test_the_view_of_a_finished_game_has_the_result_and_the_tally(tmp_path):
    """Game over: the winner's side, how it was won and the match tally, as the OLED says them."""
    from helpers import script_to_win

    result = run_script(script_to_win(), load_config(), tmp_path / "ledger.sqlite3")
    assert result["screen"]["lines"][0] == "Red wins by 53, a skunk"
    sim = Simulator(load_config(), tmp_path / "ledger.sqlite3")
    try:
        view = sim.board.view()
        assert view.winner_side == 0 and view.show == () and result_text(view) == "skunk"
        assert tally_text(view) == "Red won 1 game (3 match points)"
        assert sim.board.oled_screen().lines[1:] == ("Red won 1 game (3", "match points)")
    finally:
        sim.close()


@pytest.mark.parametrize("message", [DOUBLE, "Play over: Blue hand 12 (undo if not)"])
def test_the_new_messages_fit_the_oleds_two_footer_lines(message):
    """The double press's and the end of the play's lines are whole in an alert's two footer lines."""
    from PIL import Image, ImageDraw

    from firmware.board.screens import _wrap
    from hardware.display import HEIGHT, WIDTH

    draw = ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT)))
    assert " ".join(_wrap(draw, message, 10, WIDTH - 2, 2)) == message

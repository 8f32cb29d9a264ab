"""Issue 32: the LEDs follow the game's own skunk rule, each press says what it did, and
the presses easy to make by accident (a double press, a knob press in the play) are caught."""

import time

import pytest

from firmware.board.controller import Controller
from firmware.board.outcome import NOTHING, Did, Move
from firmware.board.pc.simulator import SimClock, Simulator, run_script
from firmware.board.pc.terminal import compose, score_line
from firmware.board.screens import oled_image, scores_screen
from firmware.board.tunes import sound_for
from firmware.board.view import result_text, scores_title, tally_text
from firmware.config import load_config
from hardware.inputs import ENCODER, KNOB, InputEvent
from hardware.layout import BUNDLED, HOLES_PER_TRACK
from ledger.writer import LedgerWriter

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


# ---- what a press did: the controller's outcome ------------------------------------

class FakeClock:
    """Clock time that moves only when a test says so."""

    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def board(tmp_path):
    """A controller on a ledger of its own, on a fake clock (five-card: Red deals, Blue has 3 for last)."""
    store = LedgerWriter(tmp_path / "ledger.sqlite3")
    clock = FakeClock()
    try:
        yield Controller(store, load_config(overrides=["game.variant=five-card"]).game, clock), clock
    finally:
        store.close()


def turn(controller, steps):
    return [controller.handle(InputEvent("turn", ENCODER, 1 if steps > 0 else -1)) for _ in range(abs(steps))]


def click(controller, button):
    return controller.handle(InputEvent("click", button))


def test_outcome_of_a_turn_a_refusal_and_an_entry(board):
    """A turn enters nothing; a colour button with nothing dialled is refused with the reason; play points are accepted."""
    controller, clock = board
    assert {outcome.did for outcome in turn(controller, 2)} == {Did.NOTHING}
    assert turn(controller, 1)[0].redraw and not turn(controller, -1)[0].made
    turn(controller, -2)
    refused = click(controller, "blue")
    assert refused.refused and not refused.accepted and refused.made == () and refused.moves == ()
    assert refused.message == "Dial the points first, then press" and sound_for(refused) == "refuse"
    turn(controller, 2)
    accepted = click(controller, "blue")
    assert accepted.accepted and [made.text for made in accepted.made] == ["Blue peg 2"]
    assert accepted.moves == (Move(1, 3, 5, clock.now),) and accepted.crossed == () and not accepted.won
    assert accepted.message == "Blue peg 2" and not accepted.play_over and sound_for(accepted) == "accept"
    assert controller.handle(InputEvent("press", "blue")) is NOTHING  # edges: only clicks, holds and turns count


def test_outcome_names_the_skunk_lines_crossed_and_the_win(board):
    """A count over the game's own line is named in the outcome; the count that reaches 61 is the win."""
    controller, clock = board
    for button, points in (("blue", 10), ("red", 15), ("red", 15)):  # Blue 13 (3 for last), Red 30
        turn(controller, points)
        assert click(controller, button).accepted
    turn(controller, 20)
    first = click(controller, KNOB)  # Blue hand 20: 33, over the skunk line at 31 (61 - 30)
    assert first.accepted and first.play_over
    assert [(c.side, c.line.below, c.line.kind.value) for c in first.crossed] == [(1, 31, "skunk")]
    assert sound_for(first) == "skunk"
    clock.now += 2
    turn(controller, 20)
    assert click(controller, KNOB).accepted  # Red hand 20: 50
    clock.now += 2
    turn(controller, 11)
    won = click(controller, KNOB)  # Red crib 11: 61
    assert won.accepted and won.won and controller.game.is_over and sound_for(won) == "win"
    clock.now += 2
    over = click(controller, KNOB)
    assert over.refused and over.message == "Game over: hold the knob for a new game"


# ---- a double press of the knob ------------------------------------------------------

DOUBLE = "Double press: a 19 is one press on its own"


def test_a_double_press_of_the_knob_is_refused(board):
    """turn 8, knob, knob at once: the second press is refused (it says how to peg a nineteen), nothing pegged."""
    controller, clock = board
    turn(controller, 8)
    assert click(controller, KNOB).accepted  # Blue hand 8
    clock.now += 0.4
    second = click(controller, KNOB)
    assert second.refused and second.message == DOUBLE and second.made == ()
    assert controller.game.next_count() == ("Red", "hand") and controller.game.state.scores == (0, 11)
    assert controller.screen().footer == DOUBLE and controller.screen().alert


def test_a_nineteen_pressed_after_a_pause_still_pegs(board):
    """The same presses with more than a second between them: the second pegs a nineteen (0) for Red."""
    controller, clock = board
    turn(controller, 8)
    click(controller, KNOB)
    clock.now += 1.2
    nineteen = click(controller, KNOB)
    assert nineteen.accepted and [made.text for made in nineteen.made] == ["Red hand 0"]


def test_a_press_refused_as_double_counts_as_the_press_before(board):
    """A third quick press is a double press too; after a pause, the knob pegs again."""
    controller, clock = board
    turn(controller, 8)
    click(controller, KNOB)
    for _ in range(2):
        clock.now += 0.5
        assert click(controller, KNOB).message == DOUBLE
    clock.now += 1.5
    assert click(controller, KNOB).accepted


def test_a_dialled_count_right_after_the_knob_is_no_double_press(board):
    """Points dialled between two quick presses: both count."""
    controller, clock = board
    turn(controller, 8)
    click(controller, KNOB)
    clock.now += 0.3
    turn(controller, 12)
    assert [made.text for made in click(controller, KNOB).made] == ["Red hand 12"]


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

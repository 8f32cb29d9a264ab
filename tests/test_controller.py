"""The controller (firmware/board/controller.py) on its own: input events in, entries and a screen out.

Pure: a :class:`helpers.MemoryLedger` for the ledger writer, a clock that moves only when a test says so,
and input events made here, with no mock pins, LEDs or SQLite. What the ledger's own part is (an entry
durable, a restart resuming) is tested through the mock board and a real ledger, in test_board.py and the
test_ledger*.py files."""

import pytest
from helpers import DOUBLE, FakeClock, MemoryLedger

from firmware.board.controller import Controller
from firmware.board.outcome import NOTHING, Did, Move
from firmware.board.scoring import Act, ScoreInput, Source
from firmware.board.tunes import sound_for
from firmware.config import load_config
from hardware.inputs import ENCODER, KNOB, InputEvent
from scorer.game import EntryKind

ASKS = "His heels (a jack cut)? Dial 0, press red. Play points: press red again"


class Pins:
    """A controller driven as the mock board's pins drive it (``act("turn", "3")``, ``act("click", "red")``,
    ``act("hold", "knob")``), on the default config and a two-track board, its ledger in memory."""

    def __init__(self, *overrides: str):
        self.store = MemoryLedger()
        self.clock = FakeClock(100.0)
        self.controller = Controller(self.store, load_config(overrides=list(overrides)).game, self.clock, max_sides=2)

    def act(self, verb: str, argument: str) -> list:
        if verb == "turn":
            steps = int(argument)
            return [self.controller.handle(InputEvent("turn", ENCODER, 1 if steps > 0 else -1)).outcome
                    for _ in range(abs(steps))]
        return [self.controller.handle(InputEvent(verb, argument)).outcome]


@pytest.fixture
def pins():
    return Pins()


@pytest.fixture
def board():
    """A controller on a ledger of its own, on a fake clock (five-card: Red deals, Blue has 3 for last)."""
    clock = FakeClock(100.0)
    return Controller(MemoryLedger(), load_config(overrides=["game.variant=five-card"]).game, clock), clock


def turn(controller, steps):
    return [controller.handle(InputEvent("turn", ENCODER, 1 if steps > 0 else -1)).outcome for _ in range(abs(steps))]


def click(controller, button):
    return controller.handle(InputEvent("click", button)).outcome


def dial_and(pins, points, button):
    pins.act("turn", str(points - pins.controller.dial))
    pins.act("click", button)


def scores(pins):
    return pins.controller.game.state.scores


def kinds(pins) -> list[tuple[EntryKind, str | None, int]]:
    return [(e.kind, e.seat, e.points) for e in pins.controller.game.pegged]


# ---- what each input did -------------------------------------------------------------


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
    assert controller.handle(InputEvent("press", "blue")).outcome is NOTHING  # edges: only clicks, holds and turns count


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


# ---- refusals, the show order and undo on the screen ---------------------------------


def test_refusals_show_on_the_oled_and_change_nothing(pins):
    """A 19 hand, a count out of order and a press with nothing dialled are refused on screen."""
    dial_and(pins, 19, "knob")
    screen = pins.controller.screen()
    assert screen.alert and screen.footer == "19 is not a possible hand"
    assert scores(pins) == (0, 0)
    pins.act("turn", "-19")
    pins.act("click", "blue")
    assert pins.controller.screen().footer == "Dial the points first, then press"
    pins.act("click", "green")
    assert "No player on the green button" in pins.controller.screen().footer


def test_show_order_on_the_oled(pins):
    """The screen says whose count is next and the rest of the show."""
    dial_and(pins, 2, "blue")
    screen = pins.controller.screen()
    assert screen.lines[0] == "deal 1, the play"
    assert screen.big == "0"
    assert screen.big_caption == "colour: play points; knob: Blue hand"
    assert screen.title == "Red* 0  Blue 2"
    dial_and(pins, 8, "knob")
    screen = pins.controller.screen()
    assert screen.lines[0] == "deal 1, the show" and screen.big_caption == "knob: Red hand > Red crib"


def test_undo_and_hold_to_redo(pins):
    """Undo takes back a mis-peg and says so; holding undo redoes it."""
    dial_and(pins, 12, "blue")
    pins.act("click", "undo")
    assert scores(pins) == (0, 0) and pins.controller.screen().footer == "Undone: Blue peg 12"
    pins.act("hold", "undo")
    assert scores(pins) == (0, 12) and pins.controller.screen().footer == "Redone: Blue peg 12"


def test_menu_new_match_resets_the_tally(pins):
    """New match from the menu, confirmed: a new game with the tally back to 0."""
    dial_and(pins, 4, "red")
    pins.act("hold", "knob")
    pins.act("turn", "1")
    pins.act("click", "knob")
    assert pins.controller.screen().title == "New match? Tally to 0"
    pins.act("turn", "1")
    pins.act("click", "knob")
    assert scores(pins) == (0, 0) and pins.store.book.match.games_played() == 0


def test_menu_new_game_needs_confirmation(pins):
    """Holding the knob opens the menu; a new game over a game in progress must be confirmed."""
    dial_and(pins, 4, "red")
    pins.act("hold", "knob")
    assert pins.controller.screen().title == "Menu"
    pins.act("click", "knob")  # New game
    assert pins.controller.screen().title == "Abandon this game?"
    pins.act("click", "knob")  # No
    pins.act("click", "menu")  # back out of the menu
    assert scores(pins) == (4, 0) and not pins.controller.panels
    pins.act("hold", "knob")
    pins.act("click", "knob")
    pins.act("turn", "1")
    pins.act("click", "knob")  # Yes
    assert scores(pins) == (0, 0) and pins.controller.game.pegged == []


# ---- his heels from the buttons, the knob and a phone ---------------------------------


def test_the_button_with_two_dialled_pegs_nothing_and_says_how(pins):
    """Dial 2, press the dealer's colour: nothing pegged, the OLED says both ways (alert);
    dial 0 and press: his heels, 2 for Red, and the play begins."""
    pins.act("turn", "2")
    pins.act("click", "red")
    assert kinds(pins) == []
    screen = pins.controller.screen()
    assert screen.alert and screen.footer == ASKS
    pins.act("turn", "-2")
    pins.act("click", "red")
    assert kinds(pins) == [(EntryKind.HEELS, "Red", 2)]
    assert pins.controller.game.state.phase.value == "play"


def test_the_same_press_again_pegs_play_points(pins):
    """After the question, the dealer's button again (2 still dialled) pegs 2 in the play."""
    pins.act("turn", "2")
    pins.act("click", "red")
    pins.act("click", "red")
    assert kinds(pins) == [(EntryKind.PEG, "Red", 2)]


def test_anything_between_asks_again(pins):
    """The answer must be the next press: a turn of the knob between, and the press asks again."""
    pins.act("turn", "2")
    pins.act("click", "red")
    pins.act("turn", "1")
    pins.act("turn", "-1")
    pins.act("click", "red")
    assert kinds(pins) == []
    assert pins.controller.screen().footer == ASKS


def test_the_knob_with_two_dialled_is_a_show_count_and_says_so(pins):
    """The knob at the start of a deal is no way to his heels: it counts pone's hand and says the play is over."""
    pins.act("turn", "2")
    pins.act("click", "knob")
    assert kinds(pins) == [(EntryKind.HAND, "Blue", 2)]
    assert pins.controller.screen().footer.startswith("Play over: Blue hand 2")


def test_a_phone_enters_his_heels(pins):
    """A phone's heels key: his heels, through the controller as the web view sends it."""
    outcome = pins.controller.handle(ScoreInput(Act.HEELS, Source.PHONE, 0)).outcome
    assert outcome.made and kinds(pins) == [(EntryKind.HEELS, "Red", 2)]

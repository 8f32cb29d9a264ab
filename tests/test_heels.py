"""His heels by every route: a player who follows the screen cannot record it as play points by mistake."""

from firmware.board.pc.script import parse_script
from firmware.board.pc.terminal import HELP, key_help
from firmware.board.scoring import Act, Refusal, ScoreInput, Source, decide
from scorer.game import Entry, EntryKind, Game
from scorer.variants import find_variant

ASKS = "His heels (a jack cut)? Dial 0, press red. Play points: press red again"


def game() -> Game:
    return Game(find_variant("six-card"), ["Red", "Blue"], dealer="Red")


def kinds(sim) -> list[tuple[EntryKind, str | None, int]]:
    return [(e.kind, e.seat, e.points) for e in sim.board.controller.game.pegged]


def test_decide_asks_when_the_dealer_presses_with_two_dialled():
    """At the start of a deal a 2 on the dealer's button is his heels or play points: decide() asks,
    and the same press again means play points; 0 dialled is his heels; other points are play points."""
    assert decide(ScoreInput(Act.PEG, Source.BUTTON, 0), game(), 2) == Refusal(ASKS, again=True)
    assert decide(ScoreInput(Act.PEG, Source.BUTTON, 0, again=True), game(), 2) == Entry.peg("Red", 2)
    assert decide(ScoreInput(Act.PEG, Source.BUTTON, 0), game(), 0) == Entry.heels()
    assert decide(ScoreInput(Act.PEG, Source.BUTTON, 0), game(), 3) == Entry.peg("Red", 3)
    assert decide(ScoreInput(Act.PEG, Source.BUTTON, 1), game(), 2) == Entry.peg("Blue", 2)


def test_a_phone_and_a_script_say_which_they_mean():
    """A phone and a script name his heels outright: their play points of 2 are play points."""
    for source in (Source.PHONE, Source.SCRIPT):
        assert decide(ScoreInput(Act.HEELS, source, 0), game(), 0) == Entry.heels()
        assert decide(ScoreInput(Act.PEG, source, 0, 2), game(), 0) == Entry.peg("Red", 2)


def test_the_button_with_two_dialled_pegs_nothing_and_says_how(sim):
    """Dial 2, press the dealer's colour: nothing pegged, the OLED says both ways (alert);
    dial 0 and press: his heels, 2 for Red, and the play begins."""
    sim.act("turn", "2")
    sim.act("click", "red")
    assert kinds(sim) == []
    screen = sim.board.oled_screen()
    assert screen.alert and screen.footer == ASKS
    sim.act("turn", "-2")
    sim.act("click", "red")
    assert kinds(sim) == [(EntryKind.HEELS, "Red", 2)]
    assert sim.board.controller.game.state.phase.value == "play"


def test_the_same_press_again_pegs_play_points(sim):
    """After the question, the dealer's button again (2 still dialled) pegs 2 in the play."""
    sim.act("turn", "2")
    sim.act("click", "red")
    sim.act("click", "red")
    assert kinds(sim) == [(EntryKind.PEG, "Red", 2)]


def test_anything_between_asks_again(sim):
    """The answer must be the next press: a turn of the knob between, and the press asks again."""
    sim.act("turn", "2")
    sim.act("click", "red")
    sim.act("turn", "1")
    sim.act("turn", "-1")
    sim.act("click", "red")
    assert kinds(sim) == []
    assert sim.board.oled_screen().footer == ASKS


def test_the_knob_with_two_dialled_is_a_show_count_and_says_so(sim):
    """The knob at the start of a deal is no way to his heels: it counts pone's hand and says the play is over."""
    sim.act("turn", "2")
    sim.act("click", "knob")
    assert kinds(sim) == [(EntryKind.HAND, "Blue", 2)]
    assert sim.board.oled_screen().footer.startswith("Play over: Blue hand 2")


def test_a_script_enters_his_heels(sim):
    """``enter red heels`` in a script pegs his heels, as a paired phone's heels key does."""
    ((_, verb, argument),) = parse_script(["enter red heels"])
    sim.act(verb, argument)
    assert kinds(sim) == [(EntryKind.HEELS, "Red", 2)]


def test_a_phone_enters_his_heels(sim):
    """A phone's heels key: his heels, through the controller as the web view sends it."""
    outcome = sim.board.controller.handle_input(ScoreInput(Act.HEELS, Source.PHONE, 0), "r1")
    assert outcome.made and kinds(sim) == [(EntryKind.HEELS, "Red", 2)]


def test_the_help_says_how_his_heels_is_pegged():
    """The key help names the dealer and the dial at 0 beside the colour keys."""
    assert ("r b g y", "peg points; heels: dealer at 0") in key_help()
    assert "r b g y peg points; heels: dealer at 0" in HELP

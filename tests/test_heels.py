"""His heels by every route: a player who follows the screen cannot record it as play points by mistake
(the controller's part, the buttons, the knob and a phone, is in test_controller.py)."""

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


def test_a_script_enters_his_heels(sim):
    """``enter red heels`` in a script pegs his heels, as a paired phone's heels key does."""
    ((_, verb, argument),) = parse_script(["enter red heels"])
    sim.act(verb, argument)
    assert kinds(sim) == [(EntryKind.HEELS, "Red", 2)]


def test_the_help_says_how_his_heels_is_pegged():
    """The key help names the dealer and the dial at 0 beside the colour keys."""
    assert ("r b g y", "peg points; heels: dealer at 0") in key_help()
    assert "r b g y peg points; heels: dealer at 0" in HELP

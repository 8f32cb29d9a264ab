"""The typed scoring input: one pure decision for the knob, the buttons, a script and a phone."""

import pytest

from firmware.board.scoring import Act, NewGame, Refusal, ScoreInput, Source, decide
from scorer.game import Entry, Game
from scorer.record import Command
from scorer.variants import find_variant


def game(*lines: Entry, muggins: bool = False) -> Game:
    """A two-hand six-card game, Red dealing, with ``lines`` pegged."""
    made = Game(find_variant("six-card"), ["Red", "Blue"], dealer="Red")
    if muggins:
        from scorer.game import OptionChange

        made.change_option(OptionChange("muggins", True))
    for entry in lines:
        made.push(entry)
    return made


PHONE, BUTTON, KNOB, SCRIPT = Source.PHONE, Source.BUTTON, Source.KNOB, Source.SCRIPT
RED, BLUE = 0, 1


@pytest.mark.parametrize("given, before, dial, decided", [
    # the knob: the next count of the show, whoever's it is
    (ScoreInput(Act.COUNT, KNOB), (), 8, Entry.hand("Blue", 8)),
    (ScoreInput(Act.COUNT, KNOB), (Entry.hand("Blue", 8), Entry.hand("Red", 4)), 6, Entry.crib(6, "Red")),
    # a colour button: play points from the dial; with nothing dialled, heels for the dealer only
    (ScoreInput(Act.PEG, BUTTON, BLUE), (), 2, Entry.peg("Blue", 2)),
    (ScoreInput(Act.PEG, BUTTON, RED), (), 0, Entry.heels()),
    (ScoreInput(Act.PEG, BUTTON, BLUE), (), 0, Refusal("Dial the points first, then press")),
    (ScoreInput(Act.PEG, BUTTON, 2), (), 2, Refusal("No player on the green button in six-card")),
    (ScoreInput(Act.CLAIM, BUTTON, BLUE), (), 0, Refusal("Dial the missed points first, then hold the button")),
    (ScoreInput(Act.UNDO, BUTTON), (Entry.peg("Blue", 2),), 0, Command.UNDO),
    (ScoreInput(Act.REDO, BUTTON), (), 0, Command.REDO),
    # a phone: its own seat's entries, its points, never the dial's
    (ScoreInput(Act.PEG, PHONE, BLUE, 3), (), 9, Entry.peg("Blue", 3)),
    (ScoreInput(Act.PEG, PHONE, RED, 0), (), 2, Refusal("Choose the points first")),
    (ScoreInput(Act.HEELS, PHONE, RED, 0), (), 0, Entry.heels()),
    (ScoreInput(Act.HEELS, PHONE, BLUE, 0), (), 0, Refusal("His heels are the dealer's: Red deals")),
    (ScoreInput(Act.HAND, PHONE, BLUE, 0), (), 5, Entry.hand("Blue", 0)),
    (ScoreInput(Act.HAND, PHONE, RED, 8), (), 0, Refusal("Blue counts first: Red's hand comes after")),
    (ScoreInput(Act.CRIB, PHONE, BLUE, 4), (), 0, Refusal("The crib is the dealer's: Red deals")),
    (ScoreInput(Act.CRIB, PHONE, RED, 4), (Entry.hand("Blue", 8),), 0, Refusal("Your hand counts first")),
    (ScoreInput(Act.CRIB, PHONE, RED, 4), (Entry.hand("Blue", 8), Entry.hand("Red", 2)), 0, Entry.crib(4, "Red")),
    (ScoreInput(Act.HAND, PHONE, BLUE, 30), (), 0, Refusal("30 points: enter 0 to 29")),
    (ScoreInput(Act.CLAIM, PHONE, BLUE, 0), (), 0, Refusal("Choose the points the count missed first")),
    (ScoreInput(Act.CLAIM, PHONE, BLUE, 2), (), 0, Entry.muggins("Blue", 2)),
    (ScoreInput(Act.UNDO, PHONE, RED), (), 0, Refusal("Nothing to undo in this game")),
    (ScoreInput(Act.UNDO, PHONE, RED), (Entry.peg("Blue", 2),), 0,
     Refusal("The last entry is Blue's (Blue peg 2): undo it on the board")),
    (ScoreInput(Act.UNDO, PHONE, BLUE), (Entry.peg("Blue", 2),), 0, Command.UNDO),
    (ScoreInput(Act.PEG, PHONE, None, 2), (), 0, Refusal("No seat given")),
    (ScoreInput(Act.GO, PHONE, BLUE, 0), (Entry.peg("Blue", 2),), 7, Entry.go("Blue")),
    (ScoreInput(Act.GO, PHONE, 3, 0), (), 0, Refusal("No player on the yellow button in six-card")),
    # a script enters as the board does, for the seat it names
    (ScoreInput(Act.PEG, SCRIPT, RED), (), 0, Entry.heels()),
    (ScoreInput(Act.HAND, SCRIPT, BLUE, 12), (), 0, Entry.hand("Blue", 12)),
    (ScoreInput(Act.GO, SCRIPT, RED), (Entry.peg("Blue", 2),), 0, Entry.go("Red")),
    # a new game or match, from a phone as from the board's menu (the page asks first)
    (ScoreInput(Act.NEW_GAME, PHONE, BLUE), (Entry.peg("Blue", 2),), 0, NewGame(new_match=False)),
    (ScoreInput(Act.NEW_MATCH, PHONE, RED), (), 0, NewGame(new_match=True)),
])

def test_each_source_decides_as_the_rules_say(given, before, dial, decided):
    """One table for the four sources: the entry each input asks of the game, or the refusal's words."""
    assert decide(given, game(*before), dial) == decided


def test_a_phone_redoes_only_its_own_seats_entry():
    """Redo from a seat's phone: the entry undone last, when it is that seat's (his heels and the crib
    are the dealer's); anyone's from the board."""
    played = game(Entry.peg("Blue", 2))
    assert decide(ScoreInput(Act.REDO, PHONE, BLUE), played, 0) == Refusal("Nothing to redo in this game")
    played.undo()
    assert decide(ScoreInput(Act.REDO, PHONE, RED), played, 0) == Refusal("The entry to redo is Blue's: redo it on the board")
    assert decide(ScoreInput(Act.REDO, PHONE, BLUE), played, 0) is Command.REDO
    assert decide(ScoreInput(Act.REDO, BUTTON), played, 0) is Command.REDO
    heels = game(Entry.heels())
    heels.undo()
    assert decide(ScoreInput(Act.REDO, PHONE, RED), heels, 0) is Command.REDO
    assert decide(ScoreInput(Act.REDO, PHONE, BLUE), heels, 0).message == "The entry to redo is Red's: redo it on the board"


def test_in_the_show_with_muggins_on_a_colour_button_claims_and_a_phone_pegs():
    """A colour button in the show claims (muggins on); a phone says what it means, so it pegs."""
    shown = game(Entry.hand("Blue", 8), muggins=True)
    assert decide(ScoreInput(Act.PEG, BUTTON, BLUE), shown, 2) == Entry.muggins("Blue", 2)
    assert decide(ScoreInput(Act.PEG, PHONE, BLUE, 2), shown, 0) == Entry.peg("Blue", 2)


def test_sources_are_recorded_as_board_script_or_phone():
    assert [source.via for source in Source] == ["board", "board", "script", "phone"]

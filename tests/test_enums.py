"""The closed sets of named values the rules use (scorer.game, scorer.variants, scorer.record): enums
whose values are what ledgers and the wire store."""

import pickle
from enum import Enum

import pytest

from firmware.board.outcome import Did
from scorer.game import EntryKind, Phase
from scorer.record import Command
from scorer.variants import ResultKind, SkunkLines

# Each member's value, as ledgers, game records and the club's messages spell it.
STORED = {
    EntryKind: {"START": "start", "HEELS": "heels", "PEG": "peg", "GO": "go", "THIRTY_ONE": "31", "HAND": "hand",
                "CRIB": "crib", "MUGGINS": "muggins"},
    Phase: {"HEELS": "heels", "PLAY": "play", "SHOW": "show", "OVER": "over"},
    SkunkLines: {"NONE": "none", "ACC": "acc", "LURCH": "lurch", "TRIPLE": "triple"},
    ResultKind: {"WIN": "win", "SKUNK": "skunk", "DOUBLE_SKUNK": "double-skunk", "TRIPLE_SKUNK": "triple-skunk",
                 "LURCH": "lurch"},
    Command: {"UNDO": "undo", "REDO": "redo"},
    Did: {"ACCEPTED": "accepted", "REFUSED": "refused", "NOTHING": "nothing"},
}


@pytest.mark.parametrize("kind", list(STORED), ids=lambda kind: kind.__name__)
def test_members_and_their_values_are_what_is_stored(kind):
    """Every member, in order, with the value ledgers and the wire keep; each found by its value."""
    assert issubclass(kind, Enum)
    assert {member.name: member.value for member in kind} == STORED[kind]
    assert list(STORED[kind]) == [member.name for member in kind]
    for member in kind:
        assert kind(member.value) is member and kind[member.name] is member


def test_members_are_found_by_value_in_order_and_are_themselves():
    """Kind("value") is the member; iteration is in the class's order; members are singletons."""
    assert SkunkLines("acc") is SkunkLines.ACC and Phase("play") is Phase.PLAY
    assert list(SkunkLines) == [SkunkLines.NONE, SkunkLines.ACC, SkunkLines.LURCH, SkunkLines.TRIPLE]
    assert len(ResultKind) == 5 and EntryKind.THIRTY_ONE.value == "31" and EntryKind.THIRTY_ONE.name == "THIRTY_ONE"
    assert pickle.loads(pickle.dumps(ResultKind.DOUBLE_SKUNK)) is ResultKind.DOUBLE_SKUNK
    assert {EntryKind.HEELS: 2}[EntryKind("heels")] == 2
    assert repr(Phase.SHOW) == "<Phase.SHOW: 'show'>"


@pytest.mark.parametrize("value", ["ACC", "", None, ["acc"], 2])
def test_an_unknown_value_is_a_value_error(value):
    """A value no member has (or one that cannot be looked up) is a ValueError naming the kind."""
    with pytest.raises(ValueError, match="is not a valid SkunkLines"):
        SkunkLines(value)


def test_members_and_the_set_cannot_change():
    """A member's value, and the set's members, are fixed; a member is not its value."""
    with pytest.raises(AttributeError):
        Phase.PLAY.value = "show"
    with pytest.raises(AttributeError):
        Phase.PLAY = "play"
    assert Phase.PLAY != "play" and Phase.PLAY is not Phase.HEELS and EntryKind.HEELS != Phase.HEELS

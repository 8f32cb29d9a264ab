"""scorer.kinds: the closed sets of named values the rules use, as enums do."""

import pickle

import pytest

from scorer.game import EntryKind, Phase
from scorer.kinds import Kind
from scorer.variants import ResultKind, SkunkLines


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
    """A member's value, and the set's members, are fixed."""
    with pytest.raises(AttributeError):
        Phase.PLAY.value = "show"
    with pytest.raises(AttributeError):
        Phase.PLAY = "play"

    class Two(Kind):
        ONE = 1
        TWO = 2

        def double(self):
            return self.value * 2

    assert [member.double() for member in Two] == [2, 4] and Two(2) is Two.TWO
    assert Phase.PLAY != "play" and Two.ONE is not Two.TWO

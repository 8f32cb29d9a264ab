"""firmware.board.pc.script: a script of physical actions for the mock board, each line and the whole script bounded."""

import pytest

from firmware.board.pc.script import MAX_ACTIONS, MAX_DETENTS, parse_script
from scorer.errors import RecordSyntaxError


@pytest.mark.parametrize("script, line, message", [
    (["turn 1000000000"], 1, "use turn N, N from -1000 to 1000 detents"),
    (["click red", "turn -1001"], 2, "use turn N, N from -1000 to 1000 detents"),
    (["wait 61"], 1, "use wait SECONDS, from 0 to 60"),
    (["wait inf"], 1, "use wait SECONDS"),
    (["wait 60"] * 5 + ["wait 0.5"], 6, "the script waits more than 300 seconds in all: split it"),
    (["turn 1000"] * (MAX_DETENTS // 1000) + ["turn -1"], MAX_DETENTS // 1000 + 1,
     f"the script turns more than {MAX_DETENTS} detents in all: split it"),
    (["click red"] * (MAX_ACTIONS + 1), MAX_ACTIONS + 1, f"the script has more than {MAX_ACTIONS} actions"),
])
def test_script_bounds(script, line, message):
    """Each line and the whole script are bounded; past a bound, the line that passes it."""
    with pytest.raises(RecordSyntaxError, match=message) as caught:
        parse_script(script)
    assert caught.value.line == line



def test_script_at_the_bounds_is_accepted():
    """Exactly at the bounds is fine."""
    assert len(parse_script(["turn 1000", "turn -1000", "wait 60", "wait 0"])) == 4

"""Results in words (scorer/variants.py): said as a player says them, for the winner and for a loser."""

import pytest

from scorer.variants import ResultKind, result_words


@pytest.mark.parametrize("kind, won, lost", [
    (ResultKind.WIN, "Red won by 12", ""),
    (ResultKind.SKUNK, "Red won by 12, a skunk", ", skunked"),
    (ResultKind.DOUBLE_SKUNK, "Red won by 12, a double skunk", ", double skunked"),
    (ResultKind.TRIPLE_SKUNK, "Red won by 12, a triple skunk", ", triple skunked"),
    (ResultKind.LURCH, "Red won by 12, a lurch", ", lurched"),
])
def test_each_result_is_said_after_the_winner_and_of_the_loser(kind, won, lost):
    """"Red won by 12, a skunk": the winner first, the result after it; a loser "lost by 12, skunked";
    never "Red (skunk)"."""
    assert result_words("Red", kind, 12) == won and result_words("Red", kind.value, 12) == won
    assert result_words("Red", kind) == won.replace(" by 12", "") and kind.loser_words == lost


def test_the_board_says_wins_where_the_history_says_won():
    """The verb is the caller's: the board's game over screen says "wins", the history "won"."""
    assert result_words("Blue", "skunk", 40, "wins") == "Blue wins by 40, a skunk"

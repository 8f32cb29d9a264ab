"""Counting hands and the play from cards, and the exact distribution."""

import functools

import pytest

from scorer.counting import SHOW_TOTALS, impossible_totals, possible_totals, score_hand, score_play
from scorer.distribution import combinations_count, distribution
from scorer.errors import CardError, PlayError


def every_hand(size, crib=False):
    """distribution(size, crib), counted once a session for the tests that read it (none changes it)."""
    return _every_hand(size, bool(crib))


@functools.cache
def _every_hand(size, crib):
    return distribution(size, crib)


def hand(text, starter, crib=False):
    return score_hand(text.split(), starter, crib=crib)


def test_the_29_hand_breakdown():
    """The 29: eight fifteens, a double pair royal and nobs, said as players say it."""
    score = hand("5H 5D 5S JC", "5C")
    kinds = [item.kind for item in score.items]
    assert kinds.count("fifteen") == 8 and kinds.count("pair") == 6 and kinds == [
        *["fifteen"] * 8, *["pair"] * 6, "nobs"]
    assert score.say() == (
        "fifteen 2, fifteen 4, fifteen 6, fifteen 8, fifteen 10, fifteen 12, fifteen 14, "
        "fifteen 16, a double pair royal is 28 and nobs is 29")
    assert [str(c) for c in score.items[-1].cards] == ["JC"]


@pytest.mark.parametrize("cards, starter, crib, total", [
    ("5H 5D 5S JC", "5C", False, 29),
    ("5H 5D 5S 5C", "JH", False, 28),
    ("4H 4D 5S 6C", "6H", False, 24),
    ("7H 7D 8S 8C", "9H", False, 24),
    ("3H 3D 3S 4C", "5H", False, 21),
    ("2H 4D 6S 8C", "10H", False, 0),
    ("2H 4H 6H 8H", "QS", False, 4),
    ("2H 4H 6H 8H", "QS", True, 0),
    ("2H 4H 6H 8H", "QH", True, 5),
    ("2H 4H 6H 8H", "QH", False, 5),
    ("JH 2C 4D 6S", "8H", False, 1),
    ("JC 2C 4D 6S", "8H", False, 0),
    ("JH QH KH AC", "5C", False, 9),
    ("AH 2D 3S 4C", "5H", False, 7),       # run of 5 counts once, plus 1+2+3+4+5 = 15
    ("6H 7D 8S 9C", "9H", False, 16),      # double run of 4 (10) + pair + two fifteens
    ("3H 3D 4S 4C", "5H", True, 20),       # double double run in a crib
])
def test_famous_and_rule_hands(cards, starter, crib, total):
    """Totals of famous hands, double runs, flushes in hand and crib, nobs."""
    assert hand(cards, starter, crib).total == total


def test_run_of_five_counts_once_not_as_shorter_runs():
    """A run of 5 scores 5 once, not the runs of 3 and 4 inside it."""
    runs = [i for i in hand("AH 2D 3S 4C", "5H").items if i.kind == "run"]
    assert [(r.points, len(r.cards)) for r in runs] == [(5, 5)]


def test_triple_run_is_fifteen_with_the_pairs():
    """Three of a kind inside a run of 3: 3 runs (9) and a pair royal (6)."""
    score = hand("3H 3D 3S 4C", "5H")
    assert sum(i.points for i in score.items if i.kind in ("run", "pair")) == 15


def test_quadruple_run_is_sixteen():
    """Two pairs inside a run of 3: 4 runs (12) and 2 pairs (4)."""
    score = hand("3H 3D 4S 4C", "5H")
    assert sum(i.points for i in score.items if i.kind in ("run", "pair")) == 16


@pytest.mark.parametrize("cards, starter, total", [
    ("5H 5D 5S", "5C", 20),
    ("2H 4H 6H", "8S", 3),    # three-card flush in a three-card hand
    ("2H 4H 6H", "8H", 4),
    ("5H 5D 5S JC JD", "5C", 39),  # 12 fifteens, 7 pairs, nobs
    ("2H 4H 6H 8H QH", "KS", 5),   # five-card flush in a five-card hand
    ("2H 4H 6H 8H QH", "KH", 6),
])
def test_three_and_five_card_hands(cards, starter, total):
    """Hands of 3 (five-card game) and 5 (seven-card game) are counted too."""
    assert hand(cards, starter).total == total


@pytest.mark.parametrize("cards, starter, message", [
    ("5H 5D 5S JC", "5H", "5H is given twice"),
    ("5H 5D 5H JC", "5C", "5H is given twice"),
    ("5H 5D", "5C", "a hand has 3, 4 or 5 cards, not 2"),
    ("5H 5D 5S XX", "5C", "'XX' is not a card"),
])
def test_bad_hands_are_clear_errors(cards, starter, message):
    """Duplicates, wrong sizes and bad cards are refused, naming the card."""
    with pytest.raises(CardError, match=message):
        hand(cards, starter)


# (cards since the reset, go, points, kinds)
PLAYS = [
    ("10H 5S", False, 2, ["fifteen"]),
    ("5H 5S", False, 2, ["pair"]),
    ("5H 5S 5D", False, 8, ["fifteen"] + ["pair"] * 3),
    ("5H 5S 5D 5C", False, 12, ["pair"] * 6),
    ("3H 4S 2D", False, 3, ["run"]),
    ("3H 4S 2D 5C", False, 4, ["run"]),
    ("3H 4S 2D 5C AH", True, 8, ["fifteen", "run", "go"]),
    ("2H 3S 2D", False, 0, []),                     # no run across a repeated rank
    ("KH QS", False, 0, []),                         # K and Q are no pair
    ("KH QS JD", False, 3, ["run"]),
    ("10H 10S JD AH", True, 2, ["thirty-one"]),     # 31 is never also the go
    ("10H 10S 9D", True, 1, ["go"]),
    ("10H 10S 5D 6C", False, 2, ["thirty-one"]),
    ("6H 4S 5D", False, 5, ["fifteen", "run"]),
    ("7H 8S", True, 2 + 1, ["fifteen", "go"]),
    ("AH", False, 0, []),
]


@pytest.mark.parametrize("cards, go, points, kinds", PLAYS)
def test_play_points_for_the_last_card(cards, go, points, kinds):
    """Fifteen, thirty-one, pairs, runs in any order and one for last."""
    score = score_play(cards.split(), go=go)
    assert score.total == points
    assert [i.kind for i in score.items] == kinds


def test_card_past_31_is_refused():
    """A card that would pass 31 cannot be played."""
    with pytest.raises(PlayError, match="KC makes 40, past 31"):
        score_play("KH KS KD KC".split())


@pytest.mark.slow
def test_no_card_pegs_more_than_15_in_the_play():
    """Over every legal sequence of up to 5 cards, no card scores over 15 (7 2 2 2 2 + go does)."""
    from scorer.cards import Card

    best = 0

    def walk(cards, count, used):
        nonlocal best
        if cards:
            best = max(best, score_play(cards, go=True).total)
        if len(cards) == 5:
            return
        for rank in range(1, 14):
            value = min(rank, 10)
            if count + value <= 31 and used.get(rank, 0) < 4:
                used[rank] = used.get(rank, 0) + 1
                walk(cards + [Card(rank, "CDHS"[used[rank] - 1])], count + value, used)
                used[rank] -= 1

    walk([], 0, {})
    assert best == 15  # 7 2 2 2 2 and last card: a double pair royal, fifteen and one for last


def test_distribution_sums_to_every_combination():
    """The exact distribution over 4-card hands + starter covers 12,994,800 combinations."""
    counts = every_hand(4)
    assert combinations_count(4) == 12_994_800
    assert sum(counts.values()) == 12_994_800
    assert sum(every_hand(4, True).values()) == 12_994_800


def test_distribution_known_values():
    """Published counts: 1,009,008 zero hands, 76 hands of 28, 4 hands of 29."""
    counts = every_hand(4)
    assert counts[0] == 1_009_008
    assert counts[28] == 76 and counts[29] == 4
    assert counts[24] == 3_680
    assert max(counts) == 29


def test_impossible_totals_are_derived():
    """No 4-card hand or crib scores 19, 25, 26 or 27; derived by counting."""
    assert impossible_totals(4) == {19, 25, 26, 27}
    assert impossible_totals(4, crib=True) == {19, 25, 26, 27}
    counts = every_hand(4)
    assert not ({19, 25, 26, 27} & set(counts))


@pytest.mark.slow
@pytest.mark.parametrize("size, crib", sorted(SHOW_TOTALS))
def test_show_totals_table_is_what_counting_every_hand_gives(size, crib):
    """The table the game runs on equals the totals found by counting every hand."""
    counted = frozenset(every_hand(size, crib))
    assert possible_totals(size, crib) == counted
    highest, impossible = SHOW_TOTALS[size, crib]
    assert highest == max(counted)
    assert impossible == frozenset(range(highest + 1)) - counted


@pytest.mark.slow
def test_distribution_agrees_with_brute_force_on_a_small_pack():
    """Counting by rank pattern matches scoring every hand of one sample pattern set."""
    from itertools import combinations

    from scorer.cards import deck

    cards = [c for c in deck() if c.rank in (1, 5, 10, 11)]  # 16 cards, a smaller world
    direct = {}
    for four in combinations(cards, 4):
        for starter in cards:
            if starter in four:
                continue
            total = score_hand(four, starter).total
            direct[total] = direct.get(total, 0) + 1
    assert sum(direct.values()) == 1820 * 12
    assert set(direct) <= set(every_hand(4))


@pytest.mark.parametrize("size", [3, 5])
def test_other_hand_sizes_sum_to_every_combination(size):
    """Three- and five-card hands are counted exactly too."""
    assert sum(every_hand(size).values()) == combinations_count(size)


def test_a_score_is_a_value():
    """A Score and its items are equal by value, hashable, immutable, and survive pickle and deepcopy."""
    import copy
    import pickle

    score = hand("5H 5D 5S JC", "5C")
    assert pickle.loads(pickle.dumps(score)) == score == copy.deepcopy(score) == hand("5H 5D 5S JC", "5C")
    assert hash(score) == hash(copy.deepcopy(score)) and len({score, hand("5H 5D 5S JC", "5C")}) == 1
    assert repr(score.items[-1]) == "ScoreItem(kind='nobs', points=1, cards=(Card(rank=11, suit='C'),))"
    with pytest.raises(AttributeError):
        score.total = 0
    with pytest.raises(AttributeError):
        score.items[0].points = 99


@pytest.mark.parametrize("cards, starter, said", [
    ("4H 5H 6H 6D", "7C", "fifteen 2, fifteen 4 and a double run of four is 14"),
    ("3C 4C 5C 5D", "KC", "fifteen 2, fifteen 4 and a double run of three is 12"),
    ("3H 3D 3S 4C", "5H", "fifteen 2, fifteen 4, fifteen 6 and a triple run of three is 21"),
    ("3C 3D 4H 4S", "5D", "fifteen 2, fifteen 4 and a double-double run of three is 20"),
    ("6H 7D 8S 9C", "9H", "fifteen 2, fifteen 4, fifteen 6 and a double run of four is 16"),
    ("AH 2D 3S 4C", "5H", "fifteen 2 and a run of five is 7"),
    ("3C 4D 5H KS", "KD", "fifteen 2, fifteen 4, a pair is 6 and a run of three is 9"),
])
def test_runs_are_said_as_players_say_them(cards, starter, said):
    """Runs on the same ranks are one double, triple or double-double run, its pairs in it; a pair
    outside the run is said on its own; the running total ends on the hand's total."""
    score = hand(cards, starter)
    assert score.say() == said and said.endswith(f" {score.total}")

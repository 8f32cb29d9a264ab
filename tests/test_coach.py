"""The discard coach, checked against plain loops over every starter and every crib written here, apart
from its rank pairs and closed forms."""

import random
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import pytest
from coach_reference import brute_totals

from scorer import coach as coach_module
from scorer.cards import deck, parse_cards
from scorer.coach import CRIBS, STARTERS, coach, verdict
from scorer.counting import score_hand
from scorer.errors import CardError
from scorer.totals import hand_parts

ROOT = Path(__file__).resolve().parent.parent

HANDS = [
    "5H 5D JC 6S 7S KD",  # the jack of clubs: nobs with a club starter
    "5H 6H 7H 8H 9H JH",  # six hearts: flushes in hand and crib, and the heart jack
    "AC 2C 3D KS QH 9S",
    "JH JD 5S 5C 4H 6D",
]


def brute_hand(keep, unseen):
    """Sum, minimum and maximum of the kept hand's total over every starter."""
    totals = [score_hand(list(keep), starter).total for starter in unseen]
    return sum(totals), min(totals), max(totals)


def brute_crib(throw, starter, unseen):
    """The crib's total summed over every pair of the other cards the opponent may throw."""
    rest = [card for card in unseen if card != starter]
    return sum(score_hand([*throw, a, b], starter, crib=True).total for a, b in combinations(rest, 2))


def brute_coach(cards, dealer):
    """(keep, throw, expected as a Fraction, hand sum, min, max, crib sum), one per discard, by plain loops."""
    six = parse_cards(cards.split())
    unseen = [card for card in deck() if card not in six]
    rows = []
    for throw in combinations(six, 2):
        keep = [card for card in six if card not in throw]
        hand_sum, low, high = brute_hand(keep, unseen)
        crib_sum = sum(brute_crib(throw, starter, unseen) for starter in unseen)
        crib = Fraction(crib_sum, 46 * 990)
        expected = Fraction(hand_sum, 46) + (crib if dealer else -crib)
        rows.append((frozenset(keep), frozenset(throw), expected, hand_sum, low, high, crib_sum))
    return rows


def test_the_counts_of_starters_and_cribs():
    """46 starters the player cannot see; for each, C(45, 2) = 990 throws of the opponent."""
    assert (STARTERS, CRIBS) == (46, 990)


@pytest.mark.parametrize("cards", HANDS)
def test_each_discards_hand_figures_match_every_starter_counted(cards):
    """Hand average, minimum and maximum of all 15 discards: the sums of score_hand over the 46 starters."""
    six = parse_cards(cards.split())
    unseen = [card for card in deck() if card not in six]
    ranked = coach(cards.split(), dealer=True)
    assert len(ranked) == 15 and len({d.throw for d in ranked}) == 15
    for discard in ranked:
        assert set(discard.keep) | set(discard.throw) == set(six)
        assert (discard.hand_sum, discard.hand_min, discard.hand_max) == brute_hand(discard.keep, unseen)


@pytest.mark.slow
@pytest.mark.parametrize("cards, throw", [
    ("5H 5D JC 6S 7S KD", "JC KD"),  # the nobs jack thrown
    ("5H 5D JC 6S 7S KD", "6S 7S"),  # the club jack kept: no nobs for a club starter; a spade flush possible
    ("5H 6H 7H 8H 9H JH", "5H 6H"),  # a five-card crib flush possible, the heart jack kept
    ("5H 6H 7H 8H 9H JH", "9H JH"),  # a flush possible and the heart jack thrown
    ("JH JD 5S 5C 4H 6D", "5S 5C"),  # two jacks kept; the others with the opponent
])
def test_the_crib_flushes_and_nobs_in_closed_form_match_every_crib_counted(cards, throw):
    """The crib's flush and nobs points over every starter and every pair the opponent may throw (45,540
    cribs) add up to the closed forms' sum."""
    six = parse_cards(cards.split())
    unseen = [card for card in deck() if card not in six]
    thrown = tuple(parse_cards(throw.split()))
    counted = 0
    for starter in unseen:
        rest = [card for card in unseen if card != starter]
        for a, b in combinations(rest, 2):
            parts = hand_parts([*thrown, a, b], starter, crib=True)
            counted += parts.flush + parts.nobs
    seen = {(card.rank, card.suit) for card in six}
    suited = Counter(card.suit for card in unseen)
    assert coach_module._crib_suits(thrown, seen, suited) == counted


RANDOM_DEALS = [sorted(random.Random(seed).sample(deck(), 6)) for seed in range(20)]


@pytest.mark.slow
@pytest.mark.parametrize("six", [sorted(parse_cards(hand.split())) for hand in HANDS] + RANDOM_DEALS,
                         ids=lambda six: "-".join(map(str, six)))
def test_every_sum_matches_every_starter_and_crib_counted_on_24_deals(six):
    """The four hands above and 20 random deals: each throw's hand sum, minimum, maximum and crib sum
    equal plain loops over the 46 starters and the 45,540 cribs of each throw."""
    reference = brute_totals(six)
    ranked = coach(six, dealer=True)
    assert {d.throw: (d.hand_sum, d.hand_min, d.hand_max, d.crib_sum) for d in ranked} == reference


def test_the_first_hand_of_a_process_counts_no_hand_of_the_table():
    """A new process's first hand reads the shipped table: the itemised counter's and the totals path's
    tables stay empty (it does not count the 6,175 rank multisets)."""
    code = ("from scorer import counting, totals; from scorer.coach import coach; "
            "best = coach('5H 5D JC 6S 7S KD'.split(), dealer=True)[0]; "
            "print(' '.join(map(str, best.throw)), len(counting.FIFTEENS), len(counting.PAIRS_AND_RUNS), "
            "len(totals._POINTS))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["6S", "7S", "0", "0", "0"]


@pytest.mark.slow
@pytest.mark.parametrize("cards, dealer", [(HANDS[0], True), (HANDS[1], False)])
def test_the_ranking_matches_every_starter_and_crib_counted(cards, dealer):
    """All 15 discards, every crib of every starter (683,100 counts by score_hand): the same sums, the
    same order of expected points (discards that tie may come in either order)."""
    reference = brute_coach(cards, dealer)
    by_throw = {row[1]: row for row in reference}
    ranked = coach(cards.split(), dealer)
    for discard in ranked:
        keep, throw, expected, hand_sum, low, high, crib_sum = by_throw[frozenset(discard.throw)]
        assert (discard.hand_sum, discard.hand_min, discard.hand_max, discard.crib_sum) == (
            hand_sum, low, high, crib_sum)
        assert discard.expected == pytest.approx(float(expected))
    exact = [by_throw[frozenset(d.throw)][2] for d in ranked]
    assert exact == sorted(exact, reverse=True)


def test_dealer_adds_the_crib_and_pone_subtracts_it():
    """The same sums either way; the expected points differ by twice the crib's average."""
    as_dealer = {d.throw: d for d in coach(HANDS[0].split(), dealer=True)}
    for discard in coach(HANDS[0].split(), dealer=False):
        other = as_dealer[discard.throw]
        assert other.crib_sum == discard.crib_sum
        assert other.expected - discard.expected == pytest.approx(2 * discard.crib_average)


def test_a_known_hand_keeps_its_fives_and_the_run_as_pone():
    """5H 5D JC 6S 7S KD as pone: keep 5 5 6 7, throw the jack and king (the smallest crib help)."""
    best = coach(HANDS[0].split(), dealer=False)[0]
    assert {str(c) for c in best.throw} == {"JC", "KD"}
    assert best.to_dict() == {"keep": ["5D", "5H", "6S", "7S"], "throw": ["JC", "KD"], "expected": 8.216,
                              "hand": {"average": 12.217, "min": 8, "max": 17}, "crib": {"average": 4.001}}


@pytest.mark.parametrize("cards, message", [
    ("5H 5D JC 6S 7S", "the coach needs the 6 cards dealt, not 5"),
    ("5H 5D JC 6S 7S KD 2C", "the coach needs the 6 cards dealt, not 7"),
    ("5H 5D JC 6S 7S 5H", "5H is given twice: each card is in the pack once"),
    ("5H 5D JC 6S 7S 5X", "'5X' is not a card: use rank A 2-9 10 T J Q K and suit C D H S, e.g. 5H or TD"),
])
def test_the_coach_refuses_anything_but_six_different_cards(cards, message):
    with pytest.raises(CardError) as refused:
        coach(cards.split(), dealer=True)
    assert str(refused.value) == message


def test_the_verdict_names_the_best_throw_each_figure_and_its_lead():
    """The verdict: the best throw, its net with the hand's and the crib's averages named, its lead over the next."""
    ranked = coach("5D 5H 5S JC 8C 8H".split(), dealer=False)
    assert verdict(ranked) == "Throw 8C 8H: 11.0 net on average (hand 16.6, crib \u22125.6), 3.5 better than the next"
    assert verdict(coach("5H 5D JC 6S 7S KD".split(), dealer=True), lambda card: card.shown) == (
        "Throw 6\u2660 7\u2660: 17.8 net on average (hand 12.4, crib +5.4), 1.6 better than the next")


def test_a_verdict_level_with_the_next_throw_names_it():
    """Two throws worth the same (9C or 9D with the king, no flush or nobs between them): "as good as throwing"."""
    ranked = coach("KH 2S 3H 4S 9C 9D".split(), dealer=False)
    assert ranked[0].expected == ranked[1].expected
    assert verdict(ranked) == "Throw 9C KH: 4.5 net on average (hand 8.1, crib \u22123.6), as good as throwing 9D KH"


def test_a_net_below_zero_carries_the_minus_sign():
    """A throw that keeps less than the crib gives away is shown with U+2212, never a hyphen-minus."""
    worst = coach("5D 5H 5S JC 8C 8H".split(), dealer=False)[-1]
    assert worst.figures() == "\u22122.8 net on average (hand 6.0, crib \u22128.8)"

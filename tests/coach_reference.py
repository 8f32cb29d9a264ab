"""The coach's brute-force reference: every starter and every crib the opponent may make, each counted
by ``hand_total``, for tests/test_coach.py and bench/coach.py."""

from itertools import combinations

from scorer.cards import deck
from scorer.totals import hand_total


def brute_totals(six):
    """(hand sum, min, max, crib sum) of each throw by plain loops over every starter and crib, each
    counted by hand_total (score_hand's total on every hand: tests/test_totals.py)."""
    unseen = [card for card in deck() if card not in six]
    found = {}
    for throw in combinations(six, 2):
        keep = [card for card in six if card not in throw]
        hands = [hand_total(keep, starter) for starter in unseen]
        crib = 0
        for starter in unseen:
            rest = [card for card in unseen if card != starter]
            crib += sum([hand_total((*throw, a, b), starter, True) for a, b in combinations(rest, 2)])
        found[throw] = (sum(hands), min(hands), max(hands), crib)
    return found

"""The totals path (scorer.totals) against the itemised count, on every hand by classes."""

from collections import Counter
from itertools import combinations_with_replacement
from math import comb

import pytest

from scorer.cards import JACK, SUITS, Card, parse_card, parse_cards
from scorer.counting import HAND_SIZES, score_hand
from scorer.errors import CardError
from scorer.totals import Parts, hand_parts, hand_total

PAIRS_OF_HAND_AND_STARTER = 12_994_800  # C(52, 4) four-card hands, each with one of the 48 other cards


def itemised_parts(cards, starter, crib=False):
    """score_hand's items added up by kind, as a Parts."""
    points = Counter()
    for item in score_hand(cards, starter, crib).items:
        points[item.kind] += item.points
    return Parts(points["fifteen"], points["pair"], points["run"], points["flush"], points["nobs"])


def rank_classes(size):
    """Every multiset of ``size`` ranks that cards can have (at most four of a rank), sorted."""
    return [ranks for ranks in combinations_with_replacement(range(1, 14), size) if max(Counter(ranks).values()) <= 4]


def plain_show(ranks):
    """Cards with these ranks, the first the starter, that make no flush and no nobs: each rank's
    cards take suits in the order C D H S, and a jack starts the show if there is one, so no jack
    in the hand shares the starter's suit (a jack's suit is never the first jack's)."""
    ranks = sorted(ranks, key=lambda rank: rank != JACK)  # a jack first, if any
    used = Counter()
    cards = []
    for rank in ranks:
        cards.append(Card(rank, SUITS[used[rank]]))
        used[rank] += 1
    starter, hand = cards[0], cards[1:]
    if len({card.suit for card in hand}) == 1:  # e.g. four different ranks, all clubs
        hand[-1] = Card(hand[-1].rank, next(s for s in SUITS if s != hand[-1].suit and Card(hand[-1].rank, s) not in cards))
    return hand, starter


@pytest.mark.parametrize("size", [3, pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow)])
def test_the_totals_path_equals_the_itemised_count_on_every_hand_by_classes(size):
    """hand_total and hand_parts equal score_hand on every hand and starter (12,994,800 pairs for four cards).

    Why these classes cover every pair. Both counts are, by their code, the sum of three terms:

    - fifteens, pairs and runs: score_hand counts them from the five cards' values and ranks
      alone (``_fifteens`` and ``_pairs_and_runs`` are given the sorted values and ranks), and
      hand_total looks them up by the rank multiset's key. So this term is a function R of the
      multiset of ranks of hand and starter, whichever card is the starter, crib or not;
    - the flush: both read only whether the hand's cards share one suit, whether the starter's
      suit is that one, the hand's size and ``crib``. So it is a function F of (those two
      answers, size, crib);
    - nobs: both count the hand's jack of the starter's suit (a hand holds at most one card of a
      rank and suit), a function N of (that jack held or not).

    So the two agree on every pair exactly when R agrees on every rank multiset and F + N on
    every one of the 3 x 2 suit situations (not one suit / one suit, not the starter's / one
    suit with it; the jack or not), for each crib setting. The rank classes: each multiset of
    ranks, dealt so that F and N are 0 (``plain_show``), where the totals are R alone. The suit
    classes: one pair of each situation (``test_..._every_suit_situation``), where R is now known
    equal. That every pair's rank multiset is among the classes is counted below: the pairs
    that each multiset stands for (the suits of each rank's cards, then which card is the starter)
    add up to every pair of hand and starter.
    """
    pairs = 0
    for ranks in rank_classes(size + 1):
        hand, starter = plain_show(ranks)
        expected = itemised_parts(hand, starter)
        assert expected.flush == expected.nobs == 0, (hand, starter)
        for crib in (False, True):
            assert hand_total(hand, starter, crib) == expected.total, (hand, starter, crib)
            assert hand_parts(hand, starter, crib) == expected, (hand, starter, crib)
        sets = 1
        for count in Counter(ranks).values():
            sets *= comb(4, count)  # the suits the cards of each rank can have
        pairs += sets * (size + 1)  # any one of the cards as the starter
    if size == 4:
        assert pairs == PAIRS_OF_HAND_AND_STARTER


SITUATIONS = [  # (hand, starter, flush in the hand, flush in the crib, nobs): every suit situation, each size
    ("2H 4H 6H", "KH", 4, 4, 0), ("2H 4H 6H", "KS", 3, 0, 0), ("2H 4S 6H", "KH", 0, 0, 0),
    ("2H 4H JH", "KH", 4, 4, 1), ("2H 4H JH", "KS", 3, 0, 0), ("2H 4S JH", "KH", 0, 0, 1),
    ("2H 4H 6H 8H", "KH", 5, 5, 0), ("2H 4H 6H 8H", "KS", 4, 0, 0), ("2H 4H 6S 8H", "KH", 0, 0, 0),
    ("2H 4H 6H JH", "KH", 5, 5, 1), ("2H 4H 6H JH", "KS", 4, 0, 0), ("2H 4H 6S JH", "KH", 0, 0, 1),
    ("2H 4H 6H 8H 9H", "KH", 6, 6, 0), ("2H 4H 6H 8H 9H", "KS", 5, 0, 0), ("2H 4H 6S 8H 9H", "KH", 0, 0, 0),
    ("2H 4H 6H 8H JH", "KH", 6, 6, 1), ("2H 4H 6H 8H JH", "KS", 5, 0, 0), ("2H 4H 6S 8H JH", "KH", 0, 0, 1),
]


@pytest.mark.parametrize("cards, starter, hand_flush, crib_flush, nobs", SITUATIONS)
def test_the_totals_path_equals_the_itemised_count_in_every_suit_situation(cards, starter, hand_flush, crib_flush, nobs):
    """The suit classes: each flush and nobs situation, in a hand and in the crib (a crib's flush
    counts only with the starter), agrees with score_hand and with the rules."""
    hand, (card,) = parse_cards(cards.split()), parse_cards([starter])
    for crib, flush in ((False, hand_flush), (True, crib_flush)):
        expected = itemised_parts(hand, card, crib)
        assert (expected.flush, expected.nobs) == (flush, nobs)
        assert hand_parts(hand, card, crib) == expected
        assert hand_total(hand, card, crib) == expected.total == score_hand(hand, card, crib).total


def test_the_totals_path_on_random_hands_and_cribs():
    """Beside the classes, 1,000 random hands of each size, hand and crib, card for card."""
    import random

    rng = random.Random(47)
    pack = [Card(rank, suit) for rank in range(1, 14) for suit in SUITS]
    for size in HAND_SIZES:
        for _ in range(1000):
            cards = rng.sample(pack, size + 1)
            for crib in (False, True):
                expected = itemised_parts(cards[:-1], cards[-1], crib)
                assert hand_parts(cards[:-1], cards[-1], crib) == expected
                assert hand_total(cards[:-1], cards[-1], crib) == expected.total


def test_the_29_hand_and_text():
    """The 29 by kind; cards as text, and a hand in any iterable, count the same."""
    assert hand_parts("5H 5D 5S JC".split(), "5C") == Parts(16, 12, 0, 0, 1)
    assert hand_total("5H 5D 5S JC".split(), "5C") == 29
    cards = parse_cards("5H 5D 5S JC".split())
    assert hand_total(iter(cards), "5C") == hand_total(tuple(cards), parse_cards(["5C"])[0]) == 29
    assert hand_parts(iter(cards), "5C").total == 29


@pytest.mark.parametrize("cards, starter, message", [
    ("5H 5H 5S JC", "5C", "5H is given twice: each card is in the pack once"),
    ("5H 5D 5S JC", "5D", "5D is given twice: each card is in the pack once"),
    ("5H 5D 5S 5C", "5D", "5D is given twice: each card is in the pack once"),
    ("5H 6D", "5C", "a hand has 3, 4 or 5 cards, not 2"),
    ("", "5C", "a hand has 3, 4 or 5 cards, not 0"),
    ("AH 2H 3H 4H 6H 7H", "5C", "a hand has 3, 4 or 5 cards, not 6"),
    ("5H 5D 5S XC", "5C", "'XC' is not a card"),
])
def test_the_totals_path_refuses_what_score_hand_refuses(cards, starter, message):
    """A card given twice, a hand of another size, text that is no card: CardError, as score_hand says it."""
    for count in (hand_total, hand_parts, score_hand):
        with pytest.raises(CardError) as refused:
            count(cards.split(), starter)
        assert str(refused.value).startswith(message)
        if "XC" not in cards:  # the same as Card objects
            with pytest.raises(CardError) as refused:
                count([parse_card(text) for text in cards.split()], parse_card(starter))
            assert str(refused.value) == message

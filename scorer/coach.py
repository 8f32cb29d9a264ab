"""The discard coach: which two of six cards to throw to the crib, ranked by the points they keep.

Exact, not sampled; pegging is not counted; the six-card two-player game only (:func:`coach`).
Fifteens, pairs and runs depend on the ranks alone: a hand's are read from the table of
:mod:`scorer.rank_points`, and a crib's are summed over the opponent's two cards taken as counts
of rank pairs, weighed against that table's rows. Flushes and nobs, which need the suits, are
counted in closed form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import mul

from . import rank_points
from .cards import JACK, SUITS, Card
from .counting import _as_cards
from .errors import CardError
from .figures import figure

DEALT = 6
STARTERS = 52 - DEALT  # the starters the player cannot rule out
CRIBS = (STARTERS - 1) * (STARTERS - 2) // 2  # the opponent's possible throws, for each starter
ASSUMES = ("the opponent's two cards are any two of the 45 left, each pair as likely; pegging is not counted; "
           "the six-card two-player game only")

_ROW = rank_points.ROW
# Where each three ranks' row starts in the table (the ranks sorted); the table itself is loaded on the
# first hand coached.
_ROWS: dict[tuple[int, ...], int] = {triple: index * _ROW for index, triple in enumerate(rank_points.TRIPLES)}
_TABLE: list[bytes] = []


def _pair_places() -> list[list[int]]:
    """The place in a row of each two ranks, either way round."""
    places = [[0] * 14 for _ in range(14)]
    for index, (low, high) in enumerate(rank_points.PAIRS):
        places[low][high] = places[high][low] = index
    return places


_PAIR = _pair_places()


@dataclass(frozen=True)
class Discard:
    """One way to throw: the four cards ``keep``, the two ``throw``n, and the exact sums behind the
    averages (``hand_sum`` over the 46 starters, ``crib_sum`` over the 46 x 990 cribs)."""

    keep: tuple[Card, ...]
    throw: tuple[Card, ...]
    dealer: bool
    hand_sum: int
    hand_min: int
    hand_max: int
    crib_sum: int

    @property
    def hand_average(self) -> float:
        return self.hand_sum / STARTERS

    @property
    def crib_average(self) -> float:
        return self.crib_sum / (STARTERS * CRIBS)

    @property
    def expected(self) -> float:
        """The net: the hand's average plus the crib's (the dealer's crib) or minus it (the opponent's)."""
        return self.hand_average + (self.crib_average if self.dealer else -self.crib_average)

    @property
    def crib_net(self) -> float:
        """The crib's average as it counts for the player: added for the dealer, taken off for the pone."""
        return self.crib_average if self.dealer else -self.crib_average

    def figures(self) -> str:
        """The net with what makes it, each figure named: "11.0 net on average (hand 16.6, crib \u22125.6)"."""
        return (f"{figure(self.expected, 1)} net on average (hand {figure(self.hand_average, 1)}, "
                f"crib {figure(self.crib_net, 1, plus=True)})")

    def to_dict(self) -> dict[str, object]:
        return {"keep": [str(c) for c in self.keep], "throw": [str(c) for c in self.throw],
                "expected": round(self.expected, 3),
                "hand": {"average": round(self.hand_average, 3), "min": self.hand_min, "max": self.hand_max},
                "crib": {"average": round(self.crib_average, 3)}}


def coach(cards: Iterable[Card | str], dealer: bool) -> tuple[Discard, ...]:
    """The 15 discards of six cards (Card or text like ``5H``), best first; ``dealer`` says whose crib it is.
    Ties keep the order of the better hand average, then the order the throws are made in.

    For each of the 15 ways to throw two of the six cards dealt, :func:`coach` gives
    the kept hand's average, minimum and maximum over the 46 starters the player
    cannot see, and the crib's average over those starters and every pair of cards
    the opponent may throw. It is exact, not sampled: the opponent's two cards are
    taken as any two of the 45 cards left, each pair as likely as any other (the
    coach knows nothing of how the opponent chooses). The expected points kept are
    the hand's average plus the crib's for the dealer, minus it for the pone.
    Pegging is not counted. The six-card two-player game only: the other variants
    deal and throw other numbers of cards.

    Raises ``CardError`` unless six distinct cards are given.

    >>> best = coach(["5H", "5D", "JC", "6S", "7S", "KD"], dealer=True)[0]
    >>> [str(card) for card in best.throw]
    ['6S', '7S']
    """
    six = _as_cards(cards)
    if len(six) != DEALT:
        raise CardError(f"the coach needs the 6 cards dealt, not {len(six)}")
    six.sort()
    if not _TABLE:
        _TABLE.append(rank_points.load())
    table = _TABLE[0]
    seen = {(card.rank, card.suit) for card in six}
    left = [0] + [4 - sum(card.rank == rank for card in six) for rank in range(1, 14)]  # unseen, by rank
    suited = {suit: 13 - sum(card.suit == suit for card in six) for suit in SUITS}  # unseen, by suit
    weights = _pair_weights(left)
    by_ranks: dict[tuple[int, int], int] = {}
    found = []
    for throw in combinations(six, 2):
        first, second = throw
        keep = tuple([card for card in six if card is not first and card is not second])
        ranks = (first.rank, second.rank)
        crib_ranks = by_ranks.get(ranks)
        if crib_ranks is None:
            crib_ranks = by_ranks[ranks] = _crib_ranks(ranks, weights, table)
        crib_sum = crib_ranks + _crib_suits(throw, seen, suited)
        found.append(Discard(keep, throw, dealer, *_hand(keep, left, seen, suited, table), crib_sum))
    order = sorted(range(len(found)), key=lambda i: (-found[i].expected, -found[i].hand_sum, i))
    return tuple(found[i] for i in order)


def _pair_weights(left: list[int]) -> dict[int, list[int]]:
    """For each starter rank, the number of ways (starter, opponent's pair) that give each pair of ranks
    (``rank_points.PAIRS`` order): the starters of that rank times the pairs of the 45 cards left with it.
    They depend on the six cards' ranks alone, so every throw of a hand shares them."""
    weights = {}
    for starter, starters in enumerate(left):
        if starters:
            rest = left.copy()
            rest[starter] -= 1
            weights[starter] = [starters * (rest[x] * rest[y] if x != y else rest[x] * (rest[x] - 1) // 2)
                                for x, y in rank_points.PAIRS]
    return weights


def verdict(ranked: Sequence[Discard], card: Callable[[Card], str] = str) -> str:
    """The coach's answer in one line: the best throw of ``ranked`` (:func:`coach`'s order), its net with
    the hand's and the crib's averages, and how far ahead of the next throw it is (or, level with it, which
    throw is as good); ``card`` writes a card
    (``str``: "8C"; ``Card.shown``: "8♣"). Returns the line.

    >>> verdict(coach(["5D", "5H", "5S", "JC", "8C", "8H"], dealer=False))
    'Throw 8C 8H: 11.0 net on average (hand 16.6, crib \u22125.6), 3.5 better than the next'
    """
    best, runner = ranked[0], ranked[1]
    lead = figure(best.expected - runner.expected, 1)
    ahead = (f"as good as throwing {' '.join(card(c) for c in runner.throw)}" if lead == "0.0"
             else f"{lead} better than the next")
    return f"Throw {' '.join(card(c) for c in best.throw)}: {best.figures()}, {ahead}"


def answer(ranked: Sequence[Discard], dealer: bool) -> dict[str, object]:
    """The coach's answer as data (``cribbage-board coach --json``, a phone's ``/api/coach``): whose crib
    (``dealer``), the ``starters`` and ``cribs_per_starter`` averaged over, what it ``assumes``, the
    ``verdict`` in one line (cards with their suits' signs) and the ``discards`` of ``ranked``, best first.
    Returns the dict.

    >>> answer(coach(["5H", "5D", "JC", "6S", "7S", "KD"], dealer=True), True)["discards"][0]["throw"]
    ['6S', '7S']
    """
    return {"dealer": dealer, "starters": STARTERS, "cribs_per_starter": CRIBS, "assumes": ASSUMES,
            "verdict": verdict(ranked, lambda card: card.shown), "discards": [discard.to_dict() for discard in ranked]}


def _crib_ranks(thrown: tuple[int, int], weights: dict[int, list[int]], table: bytes) -> int:
    """The fifteens, pairs and runs of the crib summed over every starter and every pair the opponent may
    throw: each starter rank's weights against the row of the two thrown ranks and the starter's."""
    first, second = thrown
    total = 0
    for starter, weight in weights.items():
        at = _ROWS[tuple(sorted((first, second, starter)))]
        total += sum(map(mul, weight, table[at:at + _ROW]))
    return total


def _crib_suits(throw: tuple[Card, ...], seen: set[tuple[int, str]], suited: dict[str, int]) -> int:
    """The crib's flushes and nobs summed over every starter and every pair the opponent may throw.

    A crib flush needs both thrown cards, the starter and the opponent's two of one
    suit: the starters of that suit times the pairs of the rest of it, 5 points each.
    Nobs is the jack of the starter's suit in the crib: for every starter of a suit
    but that jack, all 990 pairs when it was thrown, the 44 pairs that hold it when
    the opponent may have it, none when it is kept.
    """
    first, second = throw
    total = 0
    if first.suit == second.suit:
        rest = suited[first.suit] - 1
        total += 5 * (rest + 1) * (rest * (rest - 1) // 2)
    for suit, starters in suited.items():
        if (JACK, suit) in ((first.rank, first.suit), (second.rank, second.suit)):
            total += starters * CRIBS
        elif (JACK, suit) not in seen:
            total += (starters - 1) * (STARTERS - 2)  # the pairs of the 45 left that hold the jack
    return total


def _hand(keep: tuple[Card, ...], left: list[int], seen: set[tuple[int, str]], suited: dict[str, int],
          table: bytes) -> tuple[int, int, int]:
    """The kept hand's total summed over the 46 starters, and its lowest and highest: the ranks' points by
    the starter's rank, the flush and nobs by the starter's suit."""
    a, b, c, d = keep
    suit = a.suit
    flush = b.suit == suit and c.suit == suit and d.suit == suit
    held = {(card.rank, card.suit) for card in keep}
    bonus = {}
    for starter_suit in SUITS:
        bonus[starter_suit] = ((5 if starter_suit == suit else 4) if flush else 0) + ((JACK, starter_suit) in held)
    total = sum(suited[s] * bonus[s] for s in SUITS)
    low, high = 99, -1
    at = _PAIR[c.rank][d.rank]
    for starter, starters in enumerate(left):
        if starters:
            ranks = table[_ROWS[tuple(sorted((a.rank, b.rank, starter)))] + at]
            total += starters * ranks
            extras = [bonus[s] for s in SUITS if (starter, s) not in seen]
            low = min(low, ranks + min(extras))
            high = max(high, ranks + max(extras))
    return total, low, high

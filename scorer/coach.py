"""The discard coach: which two of six cards to throw to the crib, ranked by the points they keep.

Exact, not sampled; pegging is not counted; the six-card two-player game only (:func:`coach`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from .cards import JACK, Card, deck
from .counting import _as_cards
from .errors import CardError
from .figures import figure
from .totals import hand_total

DEALT = 6
STARTERS = 52 - DEALT  # the starters the player cannot rule out
CRIBS = (STARTERS - 1) * (STARTERS - 2) // 2  # the opponent's possible throws, for each starter
ASSUMES = ("the opponent's two cards are any two of the 45 left, each pair as likely; pegging is not counted; "
           "the six-card two-player game only")

_Counts = tuple[tuple[tuple[int, bool, bool], int], ...]
_Kinds = tuple[int, bool, _Counts]
_Sorted = tuple[list[list[Card]], _Counts]


def _total(hand: tuple[Card, ...], starter: Card, crib: bool) -> int:
    """The show total of ``hand`` with ``starter`` (a crib if ``crib``): the totals path's."""
    return hand_total(hand, starter, crib)


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
    unseen = [card for card in deck() if card not in six]
    sorted_out: dict[tuple[Card, bool], _Sorted] = {}
    found = []
    for throw in combinations(six, 2):
        keep = tuple(card for card in six if card not in throw)
        hands = [_total(keep, starter, False) for starter in unseen]
        by_kinds: dict[_Kinds, int] = {}
        crib_sum = sum(_crib_sum(throw, starter, unseen, by_kinds, sorted_out) for starter in unseen)
        found.append(Discard(keep, throw, dealer, sum(hands), min(hands), max(hands), crib_sum))
    order = sorted(range(len(found)), key=lambda i: (-found[i].expected, -found[i].hand_sum, i))
    return tuple(found[i] for i in order)


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


def _crib_sum(throw: tuple[Card, ...], starter: Card, unseen: list[Card], by_kinds: dict[_Kinds, int],
              sorted_out: dict[tuple[Card, bool], _Sorted] | None = None) -> int:
    """The crib's total summed over every pair the opponent may throw, with this ``starter``. Starters
    that leave the same kinds in the same numbers give the same sum: ``by_kinds`` keeps it for them;
    ``sorted_out`` keeps each starter's cards sorted into kinds for the other throws.

    The crib is counted by groups: a crib's count depends on its cards' ranks, on
    whether it is a five-card flush and on whether it holds the jack of the
    starter's suit (nobs), so the opponent's cards are sorted into kinds (rank,
    of the flush suit, the nobs jack) and each pair of kinds is counted once and
    weighed by how many pairs of cards it stands for.
    """
    first, second = throw
    flush = first.suit == second.suit == starter.suit
    sorted_out = {} if sorted_out is None else sorted_out
    found = sorted_out.get((starter, flush))
    if found is None:
        found = sorted_out[(starter, flush)] = _sort_out(starter, flush, unseen)
    groups, counts = found
    held_nobs = any(card.rank == JACK and card.suit == starter.suit for card in throw)
    key: _Kinds = (starter.rank, held_nobs, counts)
    known = by_kinds.get(key)
    if known is not None:
        return known
    total = 0
    for i, one in enumerate(groups):
        if len(one) > 1:
            total += len(one) * (len(one) - 1) // 2 * _total((first, second, one[0], one[1]), starter, True)
        for other in groups[i + 1:]:
            total += len(one) * len(other) * _total((first, second, one[0], other[0]), starter, True)
    by_kinds[key] = total
    return total


def _sort_out(starter: Card, flush: bool, unseen: list[Card]) -> _Sorted:
    """The cards the opponent may throw with this ``starter``, by kind (rank; of the starter's suit, when
    the crib can be a flush; the nobs jack), and how many of each kind: a crib's count is the same for
    any two cards of the same kinds."""
    cut = starter.suit
    kinds: dict[tuple[int, bool, bool], list[Card]] = {}
    for card in unseen:
        if card != starter:
            suited = card.suit == cut
            kinds.setdefault((card.rank, flush and suited, suited and card.rank == JACK), []).append(card)
    counts = tuple(sorted((kind, len(cards)) for kind, cards in kinds.items()))
    return list(kinds.values()), counts

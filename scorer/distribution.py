"""What every hand can score: the exact distribution of show totals over a 52-card pack.

Counted by rank pattern (suits only matter for flushes and nobs); the
impossible totals the rules refuse are derived from it, never hard-coded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations, product
from math import comb

from .cards import JACK, SUITS
from .counting import HAND_SIZES
from .errors import CardError

_VALUES = tuple(min(r, 10) for r in range(1, 14))


@lru_cache(maxsize=None)
def _rank_points(counts: tuple[int, ...]) -> int:
    """Fifteens, pairs and runs of the cards whose rank counts are ``counts``
    (index 0 is the ace); suits play no part in these."""
    ways = [0] * 16
    ways[0] = 1
    for index, count in enumerate(counts):
        if not count:
            continue
        value = _VALUES[index]
        new = ways[:]
        for k in range(1, count + 1):
            add = k * value
            if add > 15:
                break
            ways_k = comb(count, k)
            for total in range(15 - add, -1, -1):
                if ways[total]:
                    new[total + add] += ways[total] * ways_k
        ways = new
    points = 2 * ways[15]
    points += sum(c * (c - 1) for c in counts)  # 2 per pair
    length = 0
    multiplicity = 1
    for count in counts + (0,):
        if count:
            length += 1
            multiplicity *= count
        else:
            if length >= 3:
                points += length * multiplicity
            length, multiplicity = 0, 1
    return points


def _hand_patterns(size: int) -> Iterator[tuple[int, ...]]:
    """Every rank-count vector of ``size`` cards, at most 4 of a rank."""

    def walk(index: int, left: int, prefix: list[int]) -> Iterator[tuple[int, ...]]:
        if index == 13:
            if left == 0:
                yield tuple(prefix)
            return
        for count in range(min(4, left) + 1):
            prefix.append(count)
            yield from walk(index + 1, left - count, prefix)
            prefix.pop()

    return walk(0, size, [])


@lru_cache(maxsize=None)
def _suit_outcomes(hand_counts: tuple[int, ...], starter_rank: int, crib: bool) -> tuple[tuple[int, int], ...]:
    """For one rank pattern: (extra points from flush and nobs, number of
    distinct card combinations) pairs, by enumerating the suits once."""
    tally: Counter[int] = Counter()
    ranks = [r for r in range(1, 14) if hand_counts[r - 1]]
    choices = [list(combinations(SUITS, hand_counts[r - 1])) for r in ranks]
    size = sum(hand_counts)
    for picks in product(*choices):
        used_at_starter: tuple[str, ...] = ()
        jack_suits: tuple[str, ...] = ()
        suits: list[str] = []
        for rank, chosen in zip(ranks, picks):
            suits.extend(chosen)
            if rank == starter_rank:
                used_at_starter = chosen
            if rank == JACK:
                jack_suits = chosen
        flush_suit = suits[0] if len(set(suits)) == 1 else None
        for starter_suit in SUITS:
            if starter_suit in used_at_starter:
                continue
            extra = 0
            if flush_suit is not None:
                if starter_suit == flush_suit:
                    extra += size + 1
                elif not crib:
                    extra += size
            if starter_rank != JACK and starter_suit in jack_suits:
                extra += 1
            tally[extra] += 1
    return tuple(sorted(tally.items()))


def _suit_key(hand_counts: tuple[int, ...], starter_rank: int) -> tuple[tuple[int, ...], int, int, bool]:
    """What the flush and nobs counts depend on: the multiset of counts,
    the count at the starter's rank, the jacks, and whether the starter is a jack."""
    return (
        tuple(sorted(c for c in hand_counts if c)),
        hand_counts[starter_rank - 1],
        hand_counts[JACK - 1],
        starter_rank == JACK,
    )


@lru_cache(maxsize=None)
def distribution(hand_size: int = 4, crib: bool = False) -> dict[int, int]:
    """Exact number of (hand, starter) combinations from a 52-card pack that
    score each total: ``{total: count}``, totals in increasing order.

    >>> counts = distribution(4)
    >>> sum(counts.values()), counts[29]
    (12994800, 4)
    """
    if hand_size not in HAND_SIZES:
        raise CardError(f"a hand has 3, 4 or 5 cards, not {hand_size}")
    by_key: dict[tuple[tuple[int, ...], int, int, bool], tuple[tuple[int, int], ...]] = {}
    totals: Counter[int] = Counter()
    for hand_counts in _hand_patterns(hand_size):
        for starter_rank in range(1, 14):
            if hand_counts[starter_rank - 1] == 4:
                continue
            full = list(hand_counts)
            full[starter_rank - 1] += 1
            base = _rank_points(tuple(full))
            key = _suit_key(hand_counts, starter_rank)
            outcomes = by_key.get(key)
            if outcomes is None:
                outcomes = by_key[key] = _suit_outcomes(hand_counts, starter_rank, crib)
            for extra, count in outcomes:
                totals[base + extra] += count
    return {total: totals[total] for total in sorted(totals)}


def combinations_count(hand_size: int = 4) -> int:
    """How many (hand, starter) combinations a 52-card pack holds."""
    return comb(52, hand_size) * (52 - hand_size)

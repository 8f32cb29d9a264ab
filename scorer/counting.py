"""Counting from cards: the show (hand or crib + starter) and the play.

``score_hand`` and ``score_play`` return an itemised :class:`Score`; the
exact distribution of show totals is counted by rank pattern, and the
impossible totals the rules refuse are derived from it, never hard-coded.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations, product
from math import comb
from collections import namedtuple
from collections.abc import Iterable, Sequence

from .cards import JACK, SUITS, Card, parse_cards
from .errors import CardError, PlayError

HAND_SIZES = (3, 4, 5)
CRIB_SIZE = 4
_PAIR_NAMES = {2: "a pair", 3: "a pair royal", 4: "a double pair royal"}


# Named tuples from collections, not typing.NamedTuple: ``count`` starts
# without importing typing.
class ScoreItem(namedtuple("ScoreItem", "kind points cards")):
    """One scoring combination: ``kind`` (str) is fifteen, pair, run, flush,
    nobs, thirty-one or go; ``points`` (int); ``cards`` (tuple of Card) are the
    cards that make it."""

    __slots__ = ()

    def to_dict(self) -> dict:
        return {"kind": self.kind, "points": self.points, "cards": [str(c) for c in self.cards]}


class Score(namedtuple("Score", "total items")):
    """A total (int) with the items (tuple of ScoreItem) that make it up."""

    __slots__ = ()

    def to_dict(self) -> dict:
        return {"total": self.total, "items": [item.to_dict() for item in self.items]}

    def say(self) -> str:
        """The count the way players say it: "fifteen 2, fifteen 4 and a pair is 6"."""
        if not self.items:
            return "nineteen: no points"
        phrases = []
        running = 0
        items = list(self.items)
        i = 0
        while i < len(items):
            item = items[i]
            if item.kind == "pair":
                rank = item.cards[0].rank
                group = [it for it in items[i:] if it.kind == "pair" and it.cards[0].rank == rank]
                running += sum(it.points for it in group)
                size = len({c for it in group for c in it.cards})
                phrases.append(f"{_PAIR_NAMES[size]} is {running}")
                i += len(group)
                continue
            running += item.points
            if item.kind == "fifteen":
                phrases.append(f"fifteen {running}")
            elif item.kind == "run":
                phrases.append(f"a run of {len(item.cards)} is {running}")
            elif item.kind == "flush":
                phrases.append(f"a flush of {item.points} is {running}")
            elif item.kind == "nobs":
                phrases.append(f"nobs is {running}")
            elif item.kind == "thirty-one":
                phrases.append(f"thirty-one for {running}")
            elif item.kind == "go":
                phrases.append(f"one for last is {running}")
            i += 1
        if len(phrases) == 1:
            return phrases[0]
        return ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _as_cards(cards: Iterable[Card | str], already: Iterable[Card] = ()) -> list[Card]:
    cards = list(cards)
    if all(isinstance(c, Card) for c in cards):
        seen = set(already)
        for card in cards:
            if card in seen:
                raise CardError(f"{card} is given twice: each card is in the pack once")
            seen.add(card)
        return cards
    return parse_cards([str(c) for c in cards], already)


@lru_cache(maxsize=None)
def _fifteens(values: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Index sets of the cards (values sorted) that total 15; at most 2002 keys."""
    n = len(values)
    return tuple(
        subset
        for k in range(2, n + 1)
        for subset in combinations(range(n), k)
        if sum(values[i] for i in subset) == 15
    )


@lru_cache(maxsize=None)
def _pairs_and_runs(ranks: tuple[int, ...]) -> tuple[tuple[str, int, tuple[int, ...]], ...]:
    """(kind, points, indices) of every pair and run among cards whose ranks
    (sorted) are ``ranks``; at most 6188 keys for five cards."""
    by_rank: dict[int, list[int]] = {}
    for index, rank in enumerate(ranks):
        by_rank.setdefault(rank, []).append(index)
    found = [("pair", 2, pair) for rank in by_rank for pair in combinations(by_rank[rank], 2)]
    for run_ranks in _maximal_runs(by_rank):
        for run in product(*(by_rank[r] for r in run_ranks)):
            found.append(("run", len(run), run))
    return tuple(found)


def score_hand(cards: Iterable[Card | str], starter: Card | str, crib: bool = False) -> Score:
    """Score a hand or crib of 3, 4 or 5 cards with the starter, itemised.

    In a hand, a flush of every hand card counts one per card, one more if
    the starter matches; in the crib only a flush that includes the starter
    counts.
    """
    (starter,) = _as_cards([starter])
    hand = _as_cards(cards, [starter])
    if len(hand) not in HAND_SIZES:
        raise CardError(f"a hand has 3, 4 or 5 cards, not {len(hand)}")
    five = sorted(hand + [starter])
    items = [
        ScoreItem("fifteen", 2, tuple([five[i] for i in subset]))
        for subset in _fifteens(tuple([min(c.rank, 10) for c in five]))
    ]
    for kind, points, indices in _pairs_and_runs(tuple([c.rank for c in five])):
        items.append(ScoreItem(kind, points, tuple([five[i] for i in indices])))
    suit = hand[0].suit
    if all(c.suit == suit for c in hand):
        if starter.suit == suit:
            items.append(ScoreItem("flush", len(five), tuple(five)))
        elif not crib:
            items.append(ScoreItem("flush", len(hand), tuple(hand)))
    for card in hand:
        if card.rank == JACK and card.suit == starter.suit:
            items.append(ScoreItem("nobs", 1, (card,)))
    return Score(sum(item.points for item in items), tuple(items))


def _maximal_runs(by_rank) -> list[list[int]]:
    """Rank sequences of 3 or more consecutive ranks that cannot be extended."""
    runs, current = [], []
    for rank in range(1, 15):
        if rank in by_rank:
            current.append(rank)
        else:
            if len(current) >= 3:
                runs.append(current)
            current = []
    return runs


def score_play(cards: Sequence[Card | str], go: bool = False) -> Score:
    """Points for the last card of ``cards``, the cards played since the count
    was last reset; ``go`` means it is the last card before a go or the end
    of the play (one point, unless it makes 31)."""
    played = _as_cards(cards)
    if not played:
        raise PlayError("no card played: give the cards since the count was reset")
    count = sum(c.value for c in played)
    last = played[-1]
    if count > 31:
        raise PlayError(
            f"{last} makes {count}, past 31: it cannot be played; say go or play a lower card"
        )
    items: list[ScoreItem] = []
    if count == 15:
        items.append(ScoreItem("fifteen", 2, tuple(played)))
    elif count == 31:
        items.append(ScoreItem("thirty-one", 2, tuple(played)))
    same = 1
    while same < len(played) and played[-same - 1].rank == last.rank:
        same += 1
    for pair in combinations(played[-same:], 2) if same >= 2 else ():
        items.append(ScoreItem("pair", 2, pair))
    for length in range(len(played), 2, -1):
        ranks = [c.rank for c in played[-length:]]
        if len(set(ranks)) == length and max(ranks) - min(ranks) == length - 1:
            items.append(ScoreItem("run", length, tuple(sorted(played[-length:]))))
            break
    if go and count != 31:
        items.append(ScoreItem("go", 1, (last,)))
    return Score(sum(item.points for item in items), tuple(items))


# ---- the exact distribution, by rank pattern ---------------------------------

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


def _hand_patterns(size: int):
    """Every rank-count vector of ``size`` cards, at most 4 of a rank."""

    def walk(index: int, left: int, prefix: list[int]):
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
def _suit_outcomes(hand_counts: tuple[int, ...], starter_rank: int, crib: bool) -> tuple:
    """For one rank pattern: (extra points from flush and nobs, number of
    distinct card combinations) pairs, by enumerating the suits once."""
    tally: Counter = Counter()
    ranks = [r for r in range(1, 14) if hand_counts[r - 1]]
    choices = [list(combinations(SUITS, hand_counts[r - 1])) for r in ranks]
    size = sum(hand_counts)
    for picks in product(*choices):
        used_at_starter = ()
        jack_suits = ()
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


def _suit_key(hand_counts: tuple[int, ...], starter_rank: int) -> tuple:
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
    score each total: ``{total: count}``, totals in increasing order."""
    if hand_size not in HAND_SIZES:
        raise CardError(f"a hand has 3, 4 or 5 cards, not {hand_size}")
    by_key: dict[tuple, tuple] = {}
    totals: Counter = Counter()
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


# The show totals, (hand size, crib) -> (highest total, totals below it that no
# hand scores). Found by counting every hand with distribution() (0.1-0.6 s a
# size): tests/test_counting.py derives this table again and compares, so the
# count stays the reference while start-up and replay enumerate nothing.
SHOW_TOTALS: dict[tuple[int, bool], tuple[int, frozenset[int]]] = {
    (3, False): (20, frozenset({16, 17, 18, 19})),
    (3, True): (20, frozenset({16, 17, 18, 19})),
    (4, False): (29, frozenset({19, 25, 26, 27})),
    (4, True): (29, frozenset({19, 25, 26, 27})),
    (5, False): (46, frozenset({35, 41, 42, 43, 44, 45})),
    (5, True): (46, frozenset({35, 41, 42, 43, 44, 45})),
}


@lru_cache(maxsize=None)
def possible_totals(hand_size: int = 4, crib: bool = False) -> frozenset[int]:
    """Every total some hand (or crib) of ``hand_size`` cards can score."""
    known = SHOW_TOTALS.get((hand_size, bool(crib)))
    if known is None:
        return frozenset(distribution(hand_size, crib))  # raises for a size no hand has
    highest, impossible = known
    return frozenset(range(highest + 1)) - impossible


def impossible_totals(hand_size: int = 4, crib: bool = False) -> frozenset[int]:
    """Totals below the maximum that no hand (or crib) can score."""
    possible = possible_totals(hand_size, crib)
    return frozenset(range(max(possible) + 1)) - possible

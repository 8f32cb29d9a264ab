"""Counting from cards: one show (a hand or crib with the starter) and one card of the play.

``score_hand`` and ``score_play`` return an itemised :class:`Score`;
``possible_totals`` says which show totals the rules accept. How many hands
score each total is :mod:`scorer.distribution`'s. This module imports no
collections, functools or typing: ``cribbage-board count`` starts with little
more than Python itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, product
from operator import attrgetter
from typing import Any

from .cards import JACK, Card, parse_cards
from .errors import CardError, PlayError

HAND_SIZES = (3, 4, 5)
CRIB_SIZE = 4
_PAIR_NAMES = {2: "a pair", 3: "a pair royal", 4: "a double pair royal"}


class ScoreItem:
    """One scoring combination: ``kind`` (str) is fifteen, pair, run, flush,
    nobs, thirty-one or go; ``points`` (int); ``cards`` (tuple of Card) are the
    cards that make it. Immutable, equal by value, hashable (a plain class, as
    Card is: a named tuple would load collections at start)."""

    __slots__ = ("kind", "points", "cards")
    kind: str
    points: int
    cards: tuple[Card, ...]

    def __init__(self, kind: str, points: int, cards: tuple[Card, ...]) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "cards", tuple(cards))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a score item cannot change: cannot assign to {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not ScoreItem:
            return NotImplemented
        return (self.kind, self.points, self.cards) == (other.kind, other.points, other.cards)

    def __hash__(self) -> int:
        return hash((self.kind, self.points, self.cards))

    def __reduce__(self) -> tuple[type[ScoreItem], tuple[str, int, tuple[Card, ...]]]:
        return ScoreItem, (self.kind, self.points, self.cards)

    def __repr__(self) -> str:
        return f"ScoreItem(kind={self.kind!r}, points={self.points!r}, cards={self.cards!r})"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "points": self.points, "cards": [str(c) for c in self.cards]}


class Score:
    """A ``total`` (int) with the ``items`` (tuple of ScoreItem) that make it up.
    Immutable, equal by value, hashable.

    >>> score = score_play(["5H", "10D"])
    >>> score.total, [item.kind for item in score.items]
    (2, ['fifteen'])
    """

    __slots__ = ("total", "items")
    total: int
    items: tuple[ScoreItem, ...]

    def __init__(self, total: int, items: tuple[ScoreItem, ...]) -> None:
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "items", tuple(items))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a score cannot change: cannot assign to {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not Score:
            return NotImplemented
        return (self.total, self.items) == (other.total, other.items)

    def __hash__(self) -> int:
        return hash((self.total, self.items))

    def __reduce__(self) -> tuple[type[Score], tuple[int, tuple[ScoreItem, ...]]]:
        return Score, (self.total, self.items)

    def __repr__(self) -> str:
        return f"Score(total={self.total!r}, items={self.items!r})"

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "items": [item.to_dict() for item in self.items]}

    def say(self) -> str:
        """The count the way players say it: "fifteen 2, fifteen 4 and a pair is 6"; runs that share
        their ranks as one, their pairs in it: "fifteen 2, fifteen 4 and a double run of four is 14"."""
        if not self.items:
            return "nineteen: no points"
        runs = _run_groups(self.items)
        in_runs = {pair for group in runs for pair in group[1]}
        said_runs = set()
        phrases = []
        running = 0
        items = [item for item in self.items if item not in in_runs]
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
            if item.kind == "run":
                for run_items, pairs, name in runs:
                    if item in run_items and name not in said_runs:
                        said_runs.add(name)
                        running += sum(it.points for it in (*run_items, *pairs))
                        phrases.append(f"{name} is {running}")
                i += 1
                continue
            running += item.points
            if item.kind == "fifteen":
                phrases.append(f"fifteen {running}")
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


_LENGTHS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
# Runs on the same ranks, by how often each doubled rank is held: two of one rank, a double run.
_RUN_NAMES = {(2,): "a double run", (3,): "a triple run", (2, 2): "a double-double run", (4,): "a quadruple run"}


def _run_groups(items: Sequence[ScoreItem]) -> list[tuple[list[ScoreItem], list[ScoreItem], str]]:
    """The runs of a count on the same ranks, each with the pairs among those ranks (counted with
    it, as players do) and its name: ([runs], [pairs], "a double run of four")."""
    groups: dict[tuple[int, ...], list[ScoreItem]] = {}
    for item in items:
        if item.kind == "run":
            groups.setdefault(tuple(sorted({c.rank for c in item.cards})), []).append(item)
    found: list[tuple[list[ScoreItem], list[ScoreItem], str]] = []
    for ranks, runs in groups.items():
        length = _LENGTHS.get(len(ranks), str(len(ranks)))
        if len(runs) == 1:
            found.append((runs, [], f"a run of {length}"))
            continue
        held = [len({c for run in runs for c in run.cards if c.rank == rank}) for rank in ranks]
        doubled = tuple(sorted(n for n in held if n > 1))
        pairs = [item for item in items if item.kind == "pair" and item.cards[0].rank in ranks]
        name = _RUN_NAMES.get(doubled, f"{len(runs)} runs")
        found.append((runs, pairs, f"{name} of {length}"))
    return found


def _as_cards(cards: Iterable[Card | str], already: Iterable[Card] = ()) -> list[Card]:
    texts = list(cards)
    given = [card for card in texts if isinstance(card, Card)]
    if len(given) != len(texts):
        return parse_cards([str(c) for c in texts], already)
    # Cards compared as (rank, suit) tuples, hashed in C: Card.__hash__ is Python code.
    held = {(card.rank, card.suit) for card in already}
    if len({(card.rank, card.suit) for card in given} | held) != len(given) + len(held):
        seen = held
        for card in given:
            if (card.rank, card.suit) in seen:
                raise CardError(f"{card} is given twice: each card is in the pack once")
            seen.add((card.rank, card.suit))
    return given


# The cards' order, (rank, suit), with no Python-level __lt__ call in the sort.
_ORDER = attrgetter("rank", "suit")
_VALUE = (0, *(min(rank, 10) for rank in range(1, 14)))  # a card's counting value by rank


# What the cards' values and ranks alone decide, kept by the values and ranks (sorted): at
# most 2002 and 6188 keys for five cards. Plain dicts, not functools.lru_cache: functools
# would load collections at start.
FIFTEENS: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}
PAIRS_AND_RUNS: dict[tuple[int, ...], tuple[tuple[str, int, tuple[int, ...]], ...]] = {}


def _fifteens(values: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Index sets of the cards (values sorted) that total 15."""
    found = FIFTEENS.get(values)
    if found is None:
        n = len(values)
        found = FIFTEENS[values] = tuple(
            subset
            for k in range(2, n + 1)
            for subset in combinations(range(n), k)
            if sum(values[i] for i in subset) == 15
        )
    return found


def _pairs_and_runs(ranks: tuple[int, ...]) -> tuple[tuple[str, int, tuple[int, ...]], ...]:
    """(kind, points, indices) of every pair and run among cards whose ranks (sorted) are ``ranks``."""
    found = PAIRS_AND_RUNS.get(ranks)
    if found is None:
        found = PAIRS_AND_RUNS[ranks] = _count_pairs_and_runs(ranks)
    return found


def _count_pairs_and_runs(ranks: tuple[int, ...]) -> tuple[tuple[str, int, tuple[int, ...]], ...]:
    by_rank: dict[int, list[int]] = {}
    for index, rank in enumerate(ranks):
        by_rank.setdefault(rank, []).append(index)
    found: list[tuple[str, int, tuple[int, ...]]] = [("pair", 2, pair) for rank in by_rank for pair in combinations(by_rank[rank], 2)]
    for run_ranks in _maximal_runs(by_rank):
        for run in product(*(by_rank[r] for r in run_ranks)):
            found.append(("run", len(run), run))
    return tuple(found)


def score_hand(cards: Iterable[Card | str], starter: Card | str, crib: bool = False) -> Score:
    """Score a hand or crib of 3, 4 or 5 cards with the starter, itemised.

    In a hand, a flush of every hand card counts one per card, one more if
    the starter matches; in the crib only a flush that includes the starter
    counts.

    Raises ``CardError`` for a card that does not read or is given twice, or a hand of the wrong size.

    >>> score = score_hand(["5H", "5D", "5S", "JC"], "5C")
    >>> score.total, len(score.items)
    (29, 15)
    """
    if not isinstance(starter, Card):
        (starter,) = _as_cards([starter])
    hand = _as_cards(cards, [starter])
    if len(hand) not in HAND_SIZES:
        raise CardError(f"a hand has 3, 4 or 5 cards, not {len(hand)}")
    five = sorted(hand + [starter], key=_ORDER)
    items = [
        ScoreItem("fifteen", 2, tuple([five[i] for i in subset]))
        for subset in _fifteens(tuple([_VALUE[c.rank] for c in five]))
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


def _maximal_runs(by_rank: dict[int, list[int]]) -> list[list[int]]:
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
    of the play (one point, unless it makes 31).

    >>> score_play(["5H", "10D"]).total
    2
    >>> score_play(["7H", "7D", "7S"]).total
    6
    """
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


# The show totals, (hand size, crib) -> (highest total, totals below it that no
# hand scores). Found by counting every hand with scorer.distribution (a fraction
# of a second a size): tests/test_counting.py derives this table again and compares, so the
# count stays the reference while start-up and replay enumerate nothing.
SHOW_TOTALS: dict[tuple[int, bool], tuple[int, frozenset[int]]] = {
    (3, False): (20, frozenset({16, 17, 18, 19})),
    (3, True): (20, frozenset({16, 17, 18, 19})),
    (4, False): (29, frozenset({19, 25, 26, 27})),
    (4, True): (29, frozenset({19, 25, 26, 27})),
    (5, False): (46, frozenset({35, 41, 42, 43, 44, 45})),
    (5, True): (46, frozenset({35, 41, 42, 43, 44, 45})),
}
_POSSIBLE: dict[tuple[int, bool], frozenset[int]] = {}


def possible_totals(hand_size: int = 4, crib: bool = False) -> frozenset[int]:
    """Every total some hand (or crib) of ``hand_size`` cards can score."""
    key = (hand_size, bool(crib))
    possible = _POSSIBLE.get(key)
    if possible is None:
        if key not in SHOW_TOTALS:
            raise CardError(f"a hand has 3, 4 or 5 cards, not {hand_size}")
        highest, impossible = SHOW_TOTALS[key]
        possible = _POSSIBLE[key] = frozenset(range(highest + 1)) - impossible
    return possible


def impossible_totals(hand_size: int = 4, crib: bool = False) -> frozenset[int]:
    """Totals below the maximum that no hand (or crib) can score."""
    possible = possible_totals(hand_size, crib)
    return frozenset(range(max(possible) + 1)) - possible

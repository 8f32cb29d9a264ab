"""A show's total without its items: a hand or crib with the starter, counted by table.

Fifteens, pairs and runs depend on the ranks alone, so they are looked up by
the hand's rank multiset in a table that :mod:`scorer.counting`'s own counter
fills, one size at a time on first use; the flush and nobs, which need the
suits, are checked inline. ``score_hand`` stays the itemised count (what
"check my count" shows); this is for callers that count many hands and want
only the figures (the coach has its own table, :mod:`scorer.rank_points`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from .cards import JACK, Card
from .counting import HAND_SIZES, _as_cards, _fifteens, _pairs_and_runs
from .errors import CardError


class Parts(NamedTuple):
    """A show's points by kind; ``total`` is their sum."""

    fifteens: int
    pairs: int
    runs: int
    flush: int
    nobs: int

    @property
    def total(self) -> int:
        return self.fifteens + self.pairs + self.runs + self.flush + self.nobs


# A rank multiset's key: three bits a rank, the count of that rank in them. Seven
# cards at most fit a field, so two multisets of up to seven cards never share a key.
# A field of 2 or more (a rank held twice) has one of its upper two bits set.
_WEIGHT = (0, *(1 << 3 * (rank - 1) for rank in range(1, 14)))
_REPEATED = sum(0b110 << 3 * (rank - 1) for rank in range(1, 14))
_JACKS = 0b111 << 3 * (JACK - 1)

# Key -> points of fifteens, pairs and runs, and key -> (fifteens, pairs, runs), for
# the sizes (hand and starter) filled so far: a key of another size is in neither.
_POINTS: dict[int, int] = {}
_RANK_PARTS: dict[int, tuple[int, int, int]] = {}


def _fill(size: int) -> None:
    """Put every multiset of ``size`` ranks (at most four of each) in the tables,
    counted by the itemised counter's own fifteens, pairs and runs."""

    def multisets(low: int, left: int, prefix: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if not left:
            yield prefix
            return
        for rank in range(low, 14):
            if prefix[-4:] != (rank,) * 4:  # a fifth card of one rank is no hand
                yield from multisets(rank, left - 1, prefix + (rank,))

    for ranks in multisets(1, size, ()):
        fifteens = 2 * len(_fifteens(tuple([min(rank, 10) for rank in ranks])))
        pairs = runs = 0
        for kind, points, _ in _pairs_and_runs(ranks):
            if kind == "pair":
                pairs += points
            else:
                runs += points
        key = sum(_WEIGHT[rank] for rank in ranks)
        _RANK_PARTS[key] = (fifteens, pairs, runs)
        _POINTS[key] = fifteens + pairs + runs


def _checked(cards: Iterable[Card | str], starter: Card | str) -> tuple[list[Card], Card]:
    """The hand and the starter as cards, refused as ``score_hand`` refuses them."""
    (starter,) = _as_cards([starter])
    hand = _as_cards(cards, [starter])
    if len(hand) not in HAND_SIZES:
        raise CardError(f"a hand has 3, 4 or 5 cards, not {len(hand)}")
    return hand, starter


def hand_total(cards: Sequence[Card | str], starter: Card | str, crib: bool = False) -> int:
    """The show total of a hand or crib of 3, 4 or 5 cards with the starter:
    ``score_hand(cards, starter, crib).total``, looked up rather than itemised.
    Refuses what ``score_hand`` refuses (a card given twice, a hand of another size).

    >>> hand_total(["5H", "5D", "5S", "JC"], "5C")
    29
    """
    try:
        if len(cards) != 4:
            return _other_total(cards, starter, crib)
        a, b, c, d = cards
        ra, rb, rc, rd, rs = a.rank, b.rank, c.rank, d.rank, starter.rank  # type: ignore[union-attr]
        sa, sb, sc, sd, ss = a.suit, b.suit, c.suit, d.suit, starter.suit  # type: ignore[union-attr]
        held = _WEIGHT[ra] + _WEIGHT[rb] + _WEIGHT[rc] + _WEIGHT[rd]
    except (AttributeError, IndexError, TypeError, ValueError):  # text, not a sequence of four cards
        return _other_total(cards, starter, crib)
    key = held + _WEIGHT[rs]
    # A card given twice shares its rank with another: only then are the cards compared, pair by pair.
    if key & _REPEATED and (
            (ra == rb and sa == sb) or (ra == rc and sa == sc) or (ra == rd and sa == sd) or (ra == rs and sa == ss)
            or (rb == rc and sb == sc) or (rb == rd and sb == sd) or (rb == rs and sb == ss)
            or (rc == rd and sc == sd) or (rc == rs and sc == ss) or (rd == rs and sd == ss)):
        _checked(cards, starter)  # raises, naming the card
    points = _POINTS.get(key)
    if points is None:  # the table not filled yet
        _fill(5)
        points = _POINTS[key]
    if held & _JACKS and ((ra == JACK and sa == ss) or (rb == JACK and sb == ss) or (rc == JACK and sc == ss)
                          or (rd == JACK and sd == ss)):
        points += 1
    if sa == sb == sc == sd:
        if sa == ss:
            return points + 5
        if not crib:
            return points + 4
    return points


def _other_total(cards: Sequence[Card | str] | Iterable[Card | str], starter: Card | str, crib: bool) -> int:
    """:func:`hand_total` of a hand of three or five cards, of text or of an iterable; refuses the rest."""
    try:
        s_rank, s_suit = starter.rank, starter.suit  # type: ignore[union-attr]
        suit = cards[0].suit  # type: ignore[index, union-attr]
        key = _WEIGHT[s_rank]
        flush = True
        nobs = 0
        for card in cards:
            rank = card.rank  # type: ignore[union-attr]
            key += _WEIGHT[rank]
            if card.suit != suit:  # type: ignore[union-attr]
                flush = False
            if rank == JACK and card.suit == s_suit:  # type: ignore[union-attr]
                nobs = 1
    except (AttributeError, IndexError, TypeError):  # text, no cards, not a sequence
        return hand_total(*_checked(cards, starter), crib)
    if key & _REPEATED:  # a card given twice shares its rank with another
        seen = {(s_rank, s_suit)}
        for card in cards:
            seen.add((card.rank, card.suit))  # type: ignore[union-attr]
        if len(seen) != len(cards) + 1:  # type: ignore[arg-type]
            _checked(cards, starter)  # raises, naming the card
    try:
        points = _POINTS[key] + nobs
    except KeyError:  # a size not in the table yet, or a hand of another size
        hand, starter = _checked(cards, starter)
        _fill(len(hand) + 1)
        return hand_total(hand, starter, crib)
    if not flush:
        return points
    if suit == s_suit:
        return points + len(cards) + 1  # type: ignore[arg-type]
    return points if crib else points + len(cards)  # type: ignore[arg-type]


def hand_parts(cards: Sequence[Card | str], starter: Card | str, crib: bool = False) -> Parts:
    """The show of a hand or crib with the starter by kind: fifteens, pairs, runs, flush, nobs.

    >>> hand_parts(["5H", "5D", "5S", "JC"], "5C")
    Parts(fifteens=16, pairs=12, runs=0, flush=0, nobs=1)
    """
    if not isinstance(cards, (list, tuple)):
        cards = list(cards)
    total = hand_total(cards, starter, crib)  # refuses what score_hand refuses, fills the table
    try:
        key = _WEIGHT[starter.rank]  # type: ignore[union-attr]
        nobs = 0
        for card in cards:
            key += _WEIGHT[card.rank]  # type: ignore[union-attr]
            if card.rank == JACK and card.suit == starter.suit:  # type: ignore[union-attr]
                nobs = 1
    except AttributeError:  # text
        return hand_parts(*_checked(cards, starter), crib)
    fifteens, pairs, runs = _RANK_PARTS[key]
    return Parts(fifteens, pairs, runs, total - fifteens - pairs - runs - nobs, nobs)

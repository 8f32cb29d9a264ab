"""Playing cards: parsing, values and the 52-card deck."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import CardError

SUITS = "CDHS"
SUIT_SIGNS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}  # each suit's sign, as cards are shown to people
RANK_NAMES = {1: "A", 10: "10", 11: "J", 12: "Q", 13: "K"}
_RANK_BY_TEXT = {"A": 1, "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13}
_RANK_BY_TEXT.update({str(n): n for n in range(2, 10)})
JACK = 11


class Card:
    """One card: ``rank`` 1 (ace) to 13 (king), ``suit`` one of ``CDHS``.

    Immutable, hashable and ordered by (rank, suit). A plain class rather than
    a dataclass: ``cribbage-board count`` starts without importing dataclasses
    (and the inspect it loads).

    >>> Card(5, "H"), str(Card(11, "C"))
    (Card(rank=5, suit='H'), 'JC')
    """

    __slots__ = ("rank", "suit")
    rank: int
    suit: str

    def __init__(self, rank: int, suit: str) -> None:
        if not 1 <= rank <= 13 or suit not in SUITS:
            raise CardError(f"no such card: rank {rank!r} suit {suit!r}")
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "suit", suit)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a card cannot change: cannot assign to {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a card cannot change: cannot delete {name!r}")

    def __reduce__(self) -> tuple[type[Card], tuple[int, str]]:
        return Card, (self.rank, self.suit)

    def __repr__(self) -> str:
        return f"Card(rank={self.rank!r}, suit={self.suit!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Card:
            return NotImplemented
        return self.rank == other.rank and self.suit == other.suit

    def __hash__(self) -> int:
        return hash((self.rank, self.suit))

    def __lt__(self, other: object) -> bool:
        if type(other) is not Card:
            return NotImplemented
        return (self.rank, self.suit) < (other.rank, other.suit)

    def __le__(self, other: object) -> bool:
        if type(other) is not Card:
            return NotImplemented
        return (self.rank, self.suit) <= (other.rank, other.suit)

    def __gt__(self, other: object) -> bool:
        if type(other) is not Card:
            return NotImplemented
        return (self.rank, self.suit) > (other.rank, other.suit)

    def __ge__(self, other: object) -> bool:
        if type(other) is not Card:
            return NotImplemented
        return (self.rank, self.suit) >= (other.rank, other.suit)

    @property
    def value(self) -> int:
        """Counting value: ace 1, pip cards face value, court cards 10."""
        return min(self.rank, 10)

    def __str__(self) -> str:
        return RANK_NAMES.get(self.rank, str(self.rank)) + self.suit

    @property
    def shown(self) -> str:
        """The card as people read it, with its suit's sign: "10♦", "J♣"."""
        return RANK_NAMES.get(self.rank, str(self.rank)) + SUIT_SIGNS[self.suit]


def parse_card(text: str) -> Card:
    """Parse ``5H``, ``10D``, ``TD``, ``js`` into a :class:`Card`."""
    token = text.strip().upper()
    rank = _RANK_BY_TEXT.get(token[:-1])
    suit = token[-1:] if token else ""
    if rank is None or suit not in SUITS or not suit:
        raise CardError(
            f"{text!r} is not a card: use rank A 2-9 10 T J Q K and suit C D H S, e.g. 5H or TD"
        )
    return Card(rank, suit)


def parse_cards(texts: Iterable[str], already: Iterable[Card] = ()) -> list[Card]:
    """Parse several cards, refusing any card given twice (also against ``already``).

    Raises ``CardError`` (a ``CribbageError``) for a card that does not read or is given twice.

    >>> [str(card) for card in parse_cards(["5H", "jc"])]
    ['5H', 'JC']
    >>> parse_cards(["5H", "5H"])
    Traceback (most recent call last):
    ...
    scorer.errors.CardError: 5H is given twice: each card is in the pack once
    """
    seen = set(already)
    cards = []
    for text in texts:
        card = parse_card(text)
        if card in seen:
            raise CardError(f"{card} is given twice: each card is in the pack once")
        seen.add(card)
        cards.append(card)
    return cards


def deck() -> list[Card]:
    """The 52 cards, in rank then suit order.

    >>> cards = deck()
    >>> len(cards), str(cards[0])
    (52, 'AC')
    """
    return [Card(rank, suit) for rank in range(1, 14) for suit in SUITS]

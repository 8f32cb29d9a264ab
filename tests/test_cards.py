"""Card parsing: 10H, TH, lower case; clear errors naming the card."""

import pytest

from scorer.cards import Card, deck, parse_card, parse_cards
from scorer.errors import CardError


@pytest.mark.parametrize("text, rank, suit", [
    ("5H", 5, "H"), ("10D", 10, "D"), ("TD", 10, "D"), ("td", 10, "D"), ("js", 11, "S"),
    ("AC", 1, "C"), ("kh", 13, "H"), ("Qd", 12, "D"), (" 9s ", 9, "S"),
])
def test_parse_card(text, rank, suit):
    """Ranks A 2-9 10 T J Q K and suits C D H S, in any case."""
    assert parse_card(text) == Card(rank, suit)


@pytest.mark.parametrize("text", ["1H", "11D", "5X", "H", "", "10", "ZZ", "5HH"])
def test_bad_card_names_the_card(text):
    """A bad card is an error that quotes it and says what a card looks like."""
    with pytest.raises(CardError, match=f"{text!r} is not a card"):
        parse_card(text)


def test_duplicate_card_is_refused():
    """The same card twice is an error naming it, whatever the spelling."""
    with pytest.raises(CardError, match="10H is given twice"):
        parse_cards(["10H", "5S", "th"])


def test_card_values_and_names():
    """Court cards count 10, aces 1; cards print as players write them."""
    assert [parse_card(t).value for t in ("AS", "9S", "10S", "JS", "QS", "KS")] == [1, 9, 10, 10, 10, 10]
    assert [str(parse_card(t)) for t in ("ah", "th", "jc")] == ["AH", "10H", "JC"]
    assert len(set(deck())) == 52


def test_cards_are_values():
    """Cards compare, sort, hash and copy by rank and suit, and cannot change."""
    import copy
    import pickle

    five, king = parse_card("5H"), parse_card("KS")
    assert five == parse_card("5h") and five != king and five < king and sorted([king, five]) == [five, king]
    assert len({five, parse_card("5H"), king}) == 2
    assert copy.deepcopy(five) == pickle.loads(pickle.dumps(five)) == five
    assert repr(five) == "Card(rank=5, suit='H')"
    with pytest.raises(AttributeError):
        five.rank = 6

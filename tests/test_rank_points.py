"""The coach's shipped table of rank-multiset points against the itemised count."""

from collections import Counter
from itertools import combinations_with_replacement
from pathlib import Path

import pytest

from scorer import rank_points
from scorer.cards import SUITS, Card
from scorer.counting import score_hand


def itemised_points(ranks):
    """score_hand's fifteens, pairs and runs of cards with these ranks (each rank's cards take suits in
    the order C D H S), the last card the starter; 0 for five cards of one rank, which no pack holds."""
    if max(Counter(ranks).values()) > 4:
        return 0
    used = Counter()
    cards = []
    for rank in ranks:
        cards.append(Card(rank, SUITS[used[rank]]))
        used[rank] += 1
    items = score_hand(cards[:4], cards[4]).items
    return sum(item.points for item in items if item.kind in ("fifteen", "pair", "run"))


@pytest.mark.slow
def test_the_shipped_rows_are_what_the_module_writes_again(tmp_path, monkeypatch, capsys):
    """scorer/rank_rows.py holds the rows build() counts, and python -m scorer.rank_points writes it again
    byte for byte."""
    shipped = rank_points.load()
    assert len(shipped) == len(rank_points.TRIPLES) * rank_points.ROW == 455 * 91
    assert shipped == rank_points.build()
    monkeypatch.setattr(rank_points, "MODULE", str(tmp_path / "rank_rows.py"))
    assert rank_points.main() == 0
    assert (tmp_path / "rank_rows.py").read_text() == Path(rank_points.__file__).with_name("rank_rows.py").read_text()
    assert capsys.readouterr().out == f"wrote {tmp_path / 'rank_rows.py'}\n"


@pytest.mark.slow
def test_every_entry_is_the_itemised_count_of_its_five_ranks():
    """Each of the 41,405 entries (three ranks' row, two ranks' place) is score_hand's fifteens, pairs and
    runs of those five ranks: the 6,175 multisets a pack can deal, each counted once."""
    expected = {ranks: itemised_points(ranks) for ranks in combinations_with_replacement(range(1, 14), 5)}
    assert sum(max(Counter(ranks).values()) <= 4 for ranks in expected) == 6175
    table = rank_points.load()
    for row, triple in enumerate(rank_points.TRIPLES):
        for place, pair in enumerate(rank_points.PAIRS):
            ranks = tuple(sorted(triple + pair))
            assert table[row * rank_points.ROW + place] == expected[ranks], ranks
    assert expected[(5, 5, 5, 11, 11)] == 14 + 8 and expected[(1, 2, 3, 3, 4)] == 2 * 4 + 2

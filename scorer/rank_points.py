"""The points of fifteens, pairs and runs of every multiset of five ranks, in rows, as the coach reads them.

A row for each multiset of three ranks (``TRIPLES``, 455), an entry for each two ranks added (``PAIRS``,
91 a row): a crib's thrown ranks and the starter's pick its row, and the opponent's rank pairs are
weighed against it whole. Five of a rank, which no pack deals, is 0. The rows ship as the module
``scorer.rank_rows`` (:func:`load`), written by ``python -m scorer.rank_points`` from the itemised
counter's own fifteens, pairs and runs (:func:`build`).
"""

from __future__ import annotations

import os
import sys
from itertools import combinations_with_replacement

from .counting import _fifteens, _pairs_and_runs

RANKS = range(1, 14)
TRIPLES = tuple(combinations_with_replacement(RANKS, 3))
PAIRS = tuple(combinations_with_replacement(RANKS, 2))
ROW = len(PAIRS)
# rank_rows holds each entry as a printable character, the points plus this ("0" is none, "L" 28).
TEXT_ZERO = ord("0")
_FROM_TEXT = bytes((code - TEXT_ZERO) % 256 for code in range(256))
MODULE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rank_rows.py")


def points(ranks: tuple[int, ...]) -> int:
    """Fifteens, pairs and runs of cards whose ranks (sorted) are ``ranks``, by the itemised counter."""
    fifteens = 2 * len(_fifteens(tuple([min(rank, 10) for rank in ranks])))
    return fifteens + sum(item_points for _, item_points, _ in _pairs_and_runs(ranks))


def build() -> bytes:
    """Every row, counted again: a byte an entry, rows in ``TRIPLES`` order, entries in ``PAIRS`` order."""
    table = bytearray()
    counted: dict[tuple[int, ...], int] = {}
    for triple in TRIPLES:
        for pair in PAIRS:
            ranks = tuple(sorted(triple + pair))
            found = counted.get(ranks)
            if found is None:
                found = counted[ranks] = 0 if ranks[0] == ranks[4] else points(ranks)
            table.append(found)
    return bytes(table)


def load() -> bytes:
    """The rows as shipped in ``scorer.rank_rows``, as :func:`build` gives them."""
    from .rank_rows import TEXT

    return TEXT.translate(_FROM_TEXT)


def source(table: bytes) -> str:
    """The text of ``scorer/rank_rows.py`` holding ``table``: a line a row."""
    lines = ['"""The coach\'s table of rank-multiset points (``scorer.rank_points``), a line a row of three ranks,',
             'a character an entry: written by ``python -m scorer.rank_points``, not by hand."""', "",
             "TEXT = ("]
    for start in range(0, len(table), ROW):
        lines.append('    b"' + bytes(value + TEXT_ZERO for value in table[start:start + ROW]).decode() + '"')
    lines.append(")")
    return "\n".join(lines) + "\n"


def main() -> int:
    """Write ``scorer/rank_rows.py`` again from the itemised counter."""
    with open(MODULE, "w", encoding="utf-8") as file:
        file.write(source(build()))
    print(f"wrote {MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

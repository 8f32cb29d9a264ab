"""Check my count: physical actions (presses, holds, detents) to enter a hand, before and after issue 13.

Before: hold the knob, 6 detents and a press to reach *Check my count*, then for
each card a menu of the free ranks (cursor on the first, turning wraps) and a
menu of that rank's free suits. After: hold menu, then for each card the rank
dial (it stays where it was, starts on 5, wraps) and one press of the suit's
colour button; the hand's cards in the best order, the starter last.

    .venv/bin/python bench/presses.py [HANDS]
"""

from __future__ import annotations

import random
import sys
from itertools import permutations

from scorer.cards import Card, deck

START_RANK = 5


def wrap_distance(a: int, b: int, size: int) -> int:
    d = (b - a) % size
    return min(d, size - d)


def before(hand: list[Card], starter: Card) -> int:
    """Presses the old menus took, turning the shorter way round each menu."""
    actions = 1 + 6 + 1  # hold the knob, down to Check my count, press
    chosen: list[Card] = []
    for card in hand + [starter]:
        free = [c for c in deck() if c not in chosen]
        ranks = sorted({c.rank for c in free})
        actions += wrap_distance(0, ranks.index(card.rank), len(ranks)) + 1
        suits = [c for c in free if c.rank == card.rank]
        actions += wrap_distance(0, suits.index(card), len(suits)) + 1
        chosen.append(card)
    return actions


def after(hand: list[Card], starter: Card) -> int:
    """Presses now: hold menu, then the shortest dial path over the hand (any order), the starter last."""
    best = None
    for order in permutations(hand):
        rank, detents = START_RANK, 0
        for card in list(order) + [starter]:
            detents += wrap_distance(rank, card.rank, 13)
            rank = card.rank
        best = detents if best is None else min(best, detents)
    return 1 + best + len(hand) + 1


def main(argv: list[str]) -> int:
    hands = int(argv[0]) if argv else 2000
    rng = random.Random(13)
    typical = [Card(5, "C"), Card(5, "D"), Card(11, "C"), Card(12, "C")], Card(5, "H")
    print(f"typical hand 5C 5D JC QC + 5H: before {before(*typical)}, after {after(*typical)}")
    totals = [0, 0]
    for _ in range(hands):
        cards = rng.sample(deck(), 5)
        totals[0] += before(cards[:4], cards[4])
        totals[1] += after(cards[:4], cards[4])
    print(f"{hands} random hands, mean: before {totals[0] / hands:.1f}, after {totals[1] / hands:.1f} "
          f"({totals[1] / totals[0]:.2f} of before)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Check my count: physical actions (presses, holds, detents) to enter a hand, before and after issue 13.

Before: hold the knob, 6 detents and a press to reach *Check my count*, then for
each card a menu of the free ranks (cursor on the first, turning wraps) and a
menu of that rank's free suits (counted from that design: those menus are gone).
After: hold menu, then for each card the rank dial (it stays where it was,
starts on 5, wraps) and one press of the suit's colour button; the hand's cards
in the best order, the starter last. Each "after" count is the length of a
script (a detent counts one) that is played on the mock board for the typical
hand and the first ``PLAYED`` random ones: it stops unless the board's checker
then holds exactly that hand and starter and counts them as the rules do.

    .venv/bin/python bench/presses.py [HANDS]
"""

from __future__ import annotations

import random
import sys
import tempfile
from itertools import permutations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware.board.pc.simulator import Simulator  # noqa: E402
from firmware.board.picker import START_RANK, SUIT_OF_BUTTON, CountChecker  # noqa: E402
from firmware.config import load_config  # noqa: E402
from scorer.cards import Card, deck  # noqa: E402
from scorer.counting import score_hand  # noqa: E402

BUTTON_OF_SUIT = {suit: button for button, suit in SUIT_OF_BUTTON.items()}
PLAYED = 100  # random hands also played on the mock board


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


def turn(rank: int, to: int) -> int:
    """Detents from ``rank`` to ``to`` the shorter way round the dial (negative: back)."""
    forward = (to - rank) % 13
    return forward if forward <= 13 - forward else forward - 13


def after_script(hand: list[Card], starter: Card) -> list[str]:
    """Hold menu, then the shortest dial path over the hand (any order), the starter last."""
    def detents(order) -> int:
        ranks = [START_RANK] + [card.rank for card in order]
        return sum(abs(turn(a, b)) for a, b in zip(ranks, ranks[1:]))
    best = min(permutations(hand), key=lambda order: detents(list(order) + [starter]))
    lines, rank = ["hold menu"], START_RANK
    for card in list(best) + [starter]:
        if turn(rank, card.rank):
            lines.append(f"turn {turn(rank, card.rank)}")
        lines.append(f"click {BUTTON_OF_SUIT[card.suit]}")
        rank = card.rank
    return lines


def after(hand: list[Card], starter: Card) -> int:
    """Presses and detents now."""
    return sum(abs(int(line.split()[1])) if line.startswith("turn") else 1 for line in after_script(hand, starter))


def play(hand: list[Card], starter: Card) -> None:
    """Play the "after" script on the mock board; stop unless its checker holds this hand and starter."""
    with tempfile.TemporaryDirectory() as scratch:
        sim = Simulator(load_config(), Path(scratch) / "ledger.sqlite3")
        try:
            for line in after_script(hand, starter):
                sim.act(*line.split())
            checker = sim.board.controller.panels[-1]
            assert isinstance(checker, CountChecker), f"{hand} {starter}: check my count did not open"
            assert (sorted(checker.hand), checker.starter) == (sorted(hand), starter), \
                f"entered {checker.hand} {checker.starter}, not {hand} {starter}"
            assert checker.result.total == score_hand(hand, starter).total
        finally:
            sim.close()


def main(argv: list[str]) -> int:
    hands = int(argv[0]) if argv else 2000
    rng = random.Random(13)
    typical = [Card(5, "C"), Card(5, "D"), Card(11, "C"), Card(12, "C")], Card(5, "H")
    play(*typical)
    print(f"typical hand 5C 5D JC QC + 5H: before {before(*typical)}, after {after(*typical)} "
          "(played on the mock board)")
    totals = [0, 0]
    for k in range(hands):
        cards = rng.sample(deck(), 5)
        totals[0] += before(cards[:4], cards[4])
        totals[1] += after(cards[:4], cards[4])
        if k < PLAYED:
            play(cards[:4], cards[4])
    print(f"{hands} random hands, mean: before {totals[0] / hands:.1f}, after {totals[1] / hands:.1f} "
          f"({totals[1] / totals[0]:.2f} of before; the first {min(hands, PLAYED)} after played on the mock board)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

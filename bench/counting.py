"""Benchmark: counting hands and the play, the exact distribution, and the
PyPI package cribbage-scorer on the same hands. Prints a table."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer import counting  # noqa: E402
from scorer import distribution as whole_pack  # noqa: E402
from scorer.cards import deck  # noqa: E402
from scorer.counting import score_hand, score_play  # noqa: E402
from scorer.distribution import distribution  # noqa: E402

from table import print_table  # noqa: E402

HANDS = 5000
REPEATS = 7


def sample_hands(n: int, seed: int = 2026):
    rng = random.Random(seed)
    cards = deck()
    hands = []
    for _ in range(n):
        five = rng.sample(cards, 5)
        hands.append((five[:4], five[4]))
    return hands


def per_call(fn, items, repeats=REPEATS) -> float:
    """Best-of-repeats mean seconds per call of fn over items."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for item in items:
            fn(*item)
        times.append((time.perf_counter() - start) / len(items))
    return min(times)


def cold_distribution(hand_size: int, crib: bool) -> float:
    whole_pack.distribution.cache_clear()
    whole_pack._suit_outcomes.cache_clear()
    whole_pack._rank_points.cache_clear()
    start = time.perf_counter()
    distribution(hand_size, crib)
    return time.perf_counter() - start


def main() -> int:
    hands = sample_hands(HANDS)
    rows = []
    counting.FIFTEENS.clear()
    counting.PAIRS_AND_RUNS.clear()
    cold = per_call(lambda h, s: score_hand(h, s), hands, repeats=1)
    ours = per_call(lambda h, s: score_hand(h, s), hands)
    rows.append(("score_hand, first pass (pattern tables cold)", f"{cold * 1e6:.1f} us"))
    rows.append(("score_hand, itemised, random hand", f"{ours * 1e6:.1f} us"))
    from scorer.cards import parse_cards
    h29 = parse_cards("5H 5D 5S JC".split())
    s29 = parse_cards(["5C"])[0]
    rows.append(("score_hand, the 29 hand", f"{per_call(score_hand, [(h29, s29)] * 2000) * 1e6:.1f} us"))
    plays = [(parse_cards("3H 4S 2D 5C AH".split()),)] * 2000
    rows.append(("score_play, 5 cards", f"{per_call(score_play, plays) * 1e6:.1f} us"))
    for size, crib in ((4, False), (4, True), (3, False), (5, False)):
        best = min(cold_distribution(size, crib) for _ in range(3))
        what = f"distribution, {size}-card {'crib' if crib else 'hand'} (cold)"
        rows.append((what, f"{best:.3f} s"))
    try:
        from cribbage_scorer import cribbage_scorer as other
    except ImportError:
        rows.append(("cribbage-scorer", "not installed: pip install -e '.[bench]'"))
    else:
        theirs_hands = [([(c.rank, c.suit) for c in h], (s.rank, s.suit)) for h, s in hands]
        mismatches = sum(
            1
            for (h, s), (th, ts) in zip(hands, theirs_hands)
            if score_hand(h, s).total != other.show_calc_score(ts, th)[0]
        )
        theirs = per_call(lambda h, s: other.show_calc_score(s, h), theirs_hands)
        rows.append(("cribbage-scorer show_calc_score, same hands", f"{theirs * 1e6:.1f} us"))
        rows.append(("ratio cribbage-scorer / score_hand", f"{theirs / ours:.2f}x"))
        rows.append((f"totals that differ on {HANDS} hands", str(mismatches)))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

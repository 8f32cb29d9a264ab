"""Benchmark: counting hands and the play, the exact distribution, and the
PyPI package cribbage-scorer on the same hands. Prints a table.

A hand is counted four ways on the same random hands, each chunk of hands by
each way in turn, so that the machine's load falls on each alike: ``score_hand`` (itemised),
``hand_total`` (the totals path), a lookup-table limit (the totals path's table
with the flush and nobs checked inline on exactly four cards, nothing refused:
what no path that takes cards can beat by much) and cribbage-scorer. Exits 1
if any two of them give a hand different totals.

    .venv/bin/python bench/counting.py [--hands N] [--repeats N] [--short]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer import counting, totals  # noqa: E402
from scorer import distribution as whole_pack  # noqa: E402
from scorer.cards import JACK, deck, parse_cards  # noqa: E402
from scorer.counting import score_hand, score_play  # noqa: E402
from scorer.distribution import distribution  # noqa: E402
from scorer.totals import hand_parts, hand_total  # noqa: E402

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
    return side_by_side({"": (fn, items)}, repeats)[""]


def side_by_side(runs: dict, repeats=REPEATS, chunk=250) -> dict:
    """Mean seconds per call for each name's (fn, items): the items in chunks, each chunk timed for
    every name in turn, and each chunk's best of ``repeats`` kept, so a busy moment of the machine
    falls on all alike and the quietest time of each chunk counts."""
    best = {name: [float("inf")] * -(-len(items) // chunk) for name, (_, items) in runs.items()}
    gc.collect()
    gc.disable()  # as timeit does: a collection that one count's garbage set off would fall on another's time
    try:
        return _side_by_side(runs, repeats, chunk, best)
    finally:
        gc.enable()


def _side_by_side(runs: dict, repeats: int, chunk: int, best: dict) -> dict:
    for _ in range(repeats):
        for index in range(max(len(times) for times in best.values())):
            for name, (fn, items) in runs.items():
                part = items[index * chunk:(index + 1) * chunk]
                if not part:
                    continue
                start = time.perf_counter()
                for item in part:
                    fn(*item)
                best[name][index] = min(best[name][index], time.perf_counter() - start)
    return {name: sum(best[name]) / len(items) for name, (_, items) in runs.items()}


def table_limit(cards, starter):
    """A 4-card hand's total from the totals path's table, the flush and nobs inline, nothing checked."""
    a, b, c, d = cards
    s_suit, suit = starter.suit, a.suit
    flush = 0
    if b.suit == suit and c.suit == suit and d.suit == suit:
        flush = 5 if s_suit == suit else 4
    nobs = ((a.rank == JACK and a.suit == s_suit) or (b.rank == JACK and b.suit == s_suit)
            or (c.rank == JACK and c.suit == s_suit) or (d.rank == JACK and d.suit == s_suit))
    weight = totals._WEIGHT
    key = weight[a.rank] + weight[b.rank] + weight[c.rank] + weight[d.rank] + weight[starter.rank]
    return totals._POINTS[key] + flush + nobs


def cold_distribution(hand_size: int, crib: bool) -> float:
    whole_pack.distribution.cache_clear()
    whole_pack._suit_outcomes.cache_clear()
    whole_pack._rank_points.cache_clear()
    start = time.perf_counter()
    distribution(hand_size, crib)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=HANDS, help=f"random hands to count (default {HANDS})")
    parser.add_argument("--repeats", type=int, default=REPEATS, help=f"rounds, best taken (default {REPEATS})")
    parser.add_argument("--short", action="store_true", help="leave out the play and the distributions")
    args = parser.parse_args(argv)
    hands = sample_hands(args.hands)
    rows = []
    counting.FIFTEENS.clear()
    counting.PAIRS_AND_RUNS.clear()
    cold = per_call(score_hand, hands, repeats=1)
    rows.append(("score_hand, first pass (pattern tables cold)", f"{cold * 1e6:.1f} us"))
    start = time.perf_counter()
    hand_total(*hands[0])
    rows.append(("hand_total's first call (fills the 4-card table)", f"{(time.perf_counter() - start) * 1e3:.0f} ms"))
    runs = {name: (fn, hands) for name, fn in
            (("score_hand", score_hand), ("hand_total", hand_total), ("hand_parts", hand_parts),
             ("limit", table_limit))}
    differ = dict.fromkeys(["hand_total", "hand_parts", "limit"], 0)
    for h, s in hands:
        for crib in (False, True):
            expected = score_hand(h, s, crib).total
            differ["hand_total"] += hand_total(h, s, crib) != expected
            differ["hand_parts"] += hand_parts(h, s, crib).total != expected
        differ["limit"] += table_limit(h, s) != score_hand(h, s).total
    try:
        from cribbage_scorer import cribbage_scorer as other
    except ImportError:
        rows.append(("cribbage-scorer", "not installed: pip install -e '.[bench]'"))
    else:
        theirs_hands = [((s.rank, s.suit), [(c.rank, c.suit) for c in h]) for h, s in hands]
        differ["cribbage-scorer"] = sum(
            1 for (h, s), (ts, th) in zip(hands, theirs_hands) if score_hand(h, s).total != other.show_calc_score(ts, th)[0]
        )
        runs["cribbage-scorer"] = (other.show_calc_score, theirs_hands)
    timed = side_by_side(runs, args.repeats)
    limit = timed["limit"]
    for name, what in (("score_hand", "score_hand, itemised"), ("hand_total", "hand_total, the totals path"),
                       ("hand_parts", "hand_parts, the totals path by kind"),
                       ("limit", "lookup-table limit (4 cards inline, unchecked)"),
                       ("cribbage-scorer", "cribbage-scorer show_calc_score")):
        if name in timed:
            rows.append((f"{what}, random hand", f"{timed[name] * 1e6:.2f} us, {timed[name] / limit:.2f}x the limit"))
    if "cribbage-scorer" in timed:
        theirs = timed["cribbage-scorer"]
        rows.append(("ratio cribbage-scorer / score_hand (goal 2.5x)", f"{theirs / timed['score_hand']:.2f}x"))
        rows.append(("ratio cribbage-scorer / hand_total", f"{theirs / timed['hand_total']:.2f}x"))
    rows.append(("ratio hand_total / limit (goal at most 2.5x)", f"{timed['hand_total'] / limit:.2f}x"))
    if not args.short:
        h29 = parse_cards("5H 5D 5S JC".split())
        s29 = parse_cards(["5C"])[0]
        rows.append(("score_hand, the 29 hand", f"{per_call(score_hand, [(h29, s29)] * 2000) * 1e6:.1f} us"))
        plays = [(parse_cards("3H 4S 2D 5C AH".split()),)] * 2000
        rows.append(("score_play, 5 cards", f"{per_call(score_play, plays) * 1e6:.1f} us"))
        for size, crib in ((4, False), (4, True), (3, False), (5, False)):
            best = min(cold_distribution(size, crib) for _ in range(3))
            what = f"distribution, {size}-card {'crib' if crib else 'hand'} (cold)"
            rows.append((what, f"{best:.3f} s"))
    for name, count in differ.items():
        against = "hand and crib" if name.startswith("hand_") else "hand"
        rows.append((f"{name}: totals unlike score_hand's, {len(hands)} hands ({against})", str(count)))
    print_table(rows)
    return 1 if any(differ.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

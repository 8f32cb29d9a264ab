"""scorer.pairings at a regional event's size, and against today's algorithm on small nights
(tests/pairings_reference.py, the module as it was before it lost its recursion)."""

from __future__ import annotations

import random
import sys
import traceback
import tracemalloc
from collections import Counter

import pytest

from scorer import pairings
from scorer.pairings import Round, first_order, pair_round

import pairings_reference as reference


def results(rng: random.Random, made: Round, wins: Counter) -> None:
    """Each game won by one of its pair at random; a bye counts as a win."""
    for pair in made.pairs:
        wins[rng.choice(pair)] += 1
    if made.bye is not None:
        wins[made.bye] += 1


def standings(players: list[str], wins: Counter) -> list[str]:
    return sorted(players, key=lambda name: (-wins[name], name))


def check_round(order: list[str], past: list[Round], made: Round) -> None:
    """Everyone once; no pair met before; the bye to the lowest-ranked without one; each pair
    the higher-ranked and the nearest below it not met, among those not paired above (Swiss)."""
    seen = [p for pair in made.pairs for p in pair] + ([made.bye] if made.bye is not None else [])
    assert sorted(seen) == sorted(order)
    assert (made.bye is None) == (len(order) % 2 == 0)
    met = {frozenset(pair) for each in past for pair in each.pairs}
    assert not met & {frozenset(pair) for pair in made.pairs}
    had = {each.bye for each in past}
    if made.bye is not None:
        assert made.bye == next(name for name in reversed(order) if name not in had)
    place = {name: k for k, name in enumerate(order)}
    unpaired = [name for name in order if name != made.bye]
    for high, low in sorted(made.pairs, key=lambda pair: place[pair[0]]):
        assert high == unpaired[0]
        assert low == next(name for name in unpaired[1:] if frozenset((high, name)) not in met)
        unpaired.remove(high)
        unpaired.remove(low)


def test_two_thousand_players_are_paired_round_after_round_with_little_stack():
    """2,000 and 2,001 players, 4 rounds of a 9-round night after standings: every guarantee
    holds, with the recursion limit a few dozen frames above the test's own."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(traceback.extract_stack()) + 40)
    try:
        for count in (2000, 2001):
            rng, wins = random.Random(count), Counter()
            players = [f"Player {k:04d}" for k in range(count)]
            past: list[Round] = []
            for number in range(4):
                order = standings(players, wins) if number else first_order(players, "regional")
                made = pair_round(order, past, 9 - number - 1)
                check_round(order, past, made)
                past.append(made)
                results(rng, made, wins)
    finally:
        sys.setrecursionlimit(limit)


def test_one_round_of_two_thousand_players_peaks_under_50_mb():
    """tracemalloc's peak for the 9th round of 2,001 players (8 rounds before, a bye each)."""
    rng, wins = random.Random(9), Counter()
    players = [f"Player {k:04d}" for k in range(2001)]
    past: list[Round] = []
    for number in range(8):
        past.append(pair_round(standings(players, wins) if number else players, past, 8 - number))
        results(rng, past[-1], wins)
    order = standings(players, wins)
    tracemalloc.start()
    try:
        made = pair_round(order, past, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    check_round(order, past, made)
    assert peak < 50e6, f"{peak / 1e6:.1f} MB"


def small_night(rng: random.Random) -> tuple[list[str], int, int]:
    """A night's players (1-12), rounds (up to a few past a full round robin) and budget: the
    whole budget up to 8 players, smaller ones (the test's time) above and at times below, so
    that the budget runs out in some rounds."""
    count = rng.randint(1, 12)
    small = [30, 300, 1000]
    budget = rng.choice([pairings.BUDGET, pairings.BUDGET, *small] if count <= 8 else [10_000, *small])
    return [f"P{k}" for k in range(count)], rng.randint(1, count + 3), budget


@pytest.mark.slow
def test_small_nights_are_paired_as_today():
    """150 random small nights, every round in standings drawn at random (now and then one
    leaves, a late one joins a night of under 8, names change case): the same pairings as the reference's."""
    rng = random.Random(2026)
    for night in range(150):
        players, rounds, budget = small_night(rng)
        past: list[Round] = []
        for number in range(rounds):
            if number and rng.random() < 0.1 and len(players) > 2:
                players.remove(rng.choice(players))
            if number and rng.random() < 0.1 and len(players) < 8:
                players.append(f"Late{number}")
            order = rng.sample(players, len(players)) if number else first_order(players, "night")
            if rng.random() < 0.1:
                order = [name.lower() for name in order]
            expected = reference.pair_round(order, past, rounds - number - 1, budget)
            assert pair_round(order, past, rounds - number - 1, budget) == expected, (night, number)
            past.append(expected)


def test_the_look_ahead_shortcut_agrees_with_the_exact_search():
    """Where every vertex has n/2 + k - 1 possible partners, the exact search finds the k
    disjoint matchings the shortcut takes for granted."""
    rng = random.Random(7)
    tried = 0
    while tried < 60:
        size = rng.choice([4, 6, 8, 10, 12])
        graph = [(1 << size) - 1 & ~(1 << v) for v in range(size)]
        for _ in range(rng.randint(0, size * size // 4)):  # take random pairs away
            a, b = rng.sample(range(size), 2)
            graph[a] &= ~(1 << b)
            graph[b] &= ~(1 << a)
        least = min(each.bit_count() for each in graph)
        count = least - size // 2 + 1
        if count < 1:
            continue
        tried += 1
        assert pairings._disjoint_matchings(graph, count, pairings._Budget(10**7)) is True

"""REFERENCE ONLY: scorer/pairings.py as it was at e5cb760, before the search lost its recursion.

Kept unchanged (but for this docstring's first lines and the absolute import of
``name_key``) so that tests/test_pairings.py can check the new module gives the
same pairings on small nights, and bench/pairings.py can time both side by side.
Not used by the project. It recurses once per pairing (RecursionError past about
1,800 players) and holds a size x size matrix.

The original module docstring follows.

A club night's pairings, pure: who plays whom in the next round, and who sits out.

Swiss style: round 1 in registration order or a shuffle seeded by the night's
name (:func:`first_order`, reproducible), later rounds in standings order; each
player is paired with the nearest in that order they have not met. With an odd
count one player has a bye: the lowest-ranked who has not had one.

No repeat opponents while others remain. That takes a search, not a greedy
pass: a round that looks fine can leave the next rounds no way round a repeat
(8 players: after 5 rounds of a round robin the games left can form two
triangles). So each round is the first pairing, in Swiss order, after which
the rounds still to come can each be played without a repeat, as far as the
games left allow (with 8 players and 7 rounds, everyone meets everyone once).
A bye counts as a game against a phantom player, so it takes part in the same
search (and goes to another than the lowest-ranked only where that is what
avoids a repeat).

Once repeats cannot be avoided, the pairing with the fewest is chosen, never
the same pair twice in a row where another way exists: a pair that met last
round costs most, then each earlier meeting, then the distance in the order.

The searches count the positions they try and stop at a fixed budget (no
clock: the same input gives the same pairing): past it, the best pairing found
so far is taken.
"""

from __future__ import annotations

import hashlib
from collections import Counter, namedtuple
from typing import Sequence

from scorer.standings import name_key

BUDGET = 200_000  # positions tried in one round's searches, at most


class PairingError(ValueError):
    """Players that cannot be paired as given (one listed twice); the message says who."""


class Round(namedtuple("Round", "pairs bye", defaults=(None,))):
    """One round: its ``pairs`` ((player, player) tuples, the higher-ranked first, best pair
    first) and its ``bye`` (the player who sits out, or None). Immutable."""

    __slots__ = ()


def first_order(players: Sequence[str], seed: str | None = None) -> list[str]:
    """Round 1's order: ``players`` as registered, or shuffled by ``seed`` (the night's name):
    the same seed and players give the same order on every machine."""
    if seed is None:
        return list(players)

    def draw(name: str) -> bytes:
        return hashlib.sha256(f"{seed}\0{name_key(name)}".encode("utf-8")).digest()

    return sorted(players, key=lambda name: (draw(name), name))


class _Budget:
    def __init__(self, limit: int):
        self.left = limit

    def spend(self) -> bool:
        """One more position tried; False once the budget is spent."""
        self.left -= 1
        return self.left >= 0


def pair_round(order: Sequence[str], past: Sequence[Round] = (), rounds_after: int = 0,
               budget: int = BUDGET) -> Round:
    """The next round for ``order`` (players, best-ranked first) after the ``past`` rounds;
    ``rounds_after`` is how many rounds will follow this one (the look-ahead's reach)."""
    keys = [name_key(name) for name in order]
    if len(set(keys)) != len(keys):
        twice = next(name for name, key in zip(order, keys) if keys.count(key) > 1)
        raise PairingError(f"{twice} is listed twice")
    n = len(keys)
    if n < 2:
        return Round((), order[0] if n else None)
    index = {key: k for k, key in enumerate(keys)}
    phantom = n if n % 2 else None  # the bye, as a player
    size = n + (phantom is not None)
    met = [[0] * size for _ in range(size)]
    last = set()
    for number, each in enumerate(past):
        games = [tuple(index.get(name_key(p)) for p in pair) for pair in each.pairs]
        if each.bye is not None and phantom is not None:
            games.append((index.get(name_key(each.bye)), phantom))
        for a, b in games:
            if a is None or b is None:  # a player no longer in the order
                continue
            met[a][b] += 1
            met[b][a] += 1
            if number == len(past) - 1:
                last.add((min(a, b), max(a, b)))
    spent = _Budget(budget)
    matching = _repeat_free(size, met, phantom, rounds_after, spent)
    if matching is None:
        matching = _fewest_repeats(size, met, last, phantom, spent)
    pairs, bye = [], None
    for a, b in sorted(matching):
        if phantom in (a, b):
            bye = order[a if b == phantom else b]
        else:
            pairs.append((order[a], order[b]))
    return Round(tuple(pairs), bye)


def _preference(size: int, phantom: int | None, vertex: int, free) -> list[int]:
    """Whom ``vertex`` would rather play, first first: the nearest below it in the order;
    the phantom (the bye) the lowest-ranked."""
    others = [other for other in free if other != phantom]
    if vertex == phantom:
        return sorted(others, reverse=True)
    return sorted(others, key=lambda other: (abs(other - vertex), other))


def _repeat_free(size: int, met, phantom, rounds_after: int, spent: _Budget) -> list[tuple[int, int]] | None:
    """The first matching in Swiss order of players who have not met, after which the most
    rounds that can still follow without a repeat (up to ``rounds_after``) can; None if there
    is none (or the budget ran out before one was found)."""
    free = [{other for other in range(size) if other != v and met[v][other] == 0} for v in range(size)]
    found: list = []
    fallback: list = []

    def reach(left) -> int:
        return min(rounds_after, min(len(each) for each in left))

    def search(unmatched: list[int], chosen: list) -> bool:
        if not spent.spend():
            return True  # stop: take what was found
        if not unmatched:
            left = [set(each) for each in free]
            for a, b in chosen:
                left[a].discard(b)
                left[b].discard(a)
            if not fallback:
                fallback.append(list(chosen))
            outcome = _disjoint_matchings(left, reach(left), spent)
            if outcome is not False:  # True, or None: the budget ran out: take it
                found.append(list(chosen))
                return True
            return False
        vertex = phantom if phantom in unmatched else unmatched[0]
        rest = [v for v in unmatched if v != vertex]
        for other in _preference(size, phantom, vertex, free[vertex] & set(rest)):
            chosen.append((min(vertex, other), max(vertex, other)))
            if search([v for v in rest if v != other], chosen):
                return True
            chosen.pop()
        return False

    search(list(range(size)), [])
    if found:
        return found[0]
    return fallback[0] if fallback else None


def _disjoint_matchings(free: list[set], count: int, spent: _Budget) -> bool | None:
    """Whether ``count`` perfect matchings with no pair in common can be cut from ``free``
    (each vertex's possible partners): True, False, or None when the budget ran out."""
    if count <= 0:
        return True
    size = len(free)
    partner = [-1] * size

    def search(matched: int) -> bool | None:
        if not spent.spend():
            return None
        if matched == size:
            left = [set(each) for each in free]
            for a in range(size):
                left[a].discard(partner[a])
            return _disjoint_matchings(left, count - 1, spent)
        # the unmatched vertex with the fewest choices first: a dead end shows at once
        vertex, options = -1, None
        for v in range(size):
            if partner[v] < 0:
                choice = [o for o in free[v] if partner[o] < 0]
                if options is None or len(choice) < len(options):
                    vertex, options = v, choice
                    if len(choice) <= 1:
                        break
        for other in sorted(options):
            partner[vertex], partner[other] = other, vertex
            outcome = search(matched + 2)
            partner[vertex] = partner[other] = -1
            if outcome is not False:
                return outcome
        return False

    return search(0)


def _fewest_repeats(size: int, met, last: set, phantom, spent: _Budget) -> list[tuple[int, int]]:
    """The matching of least cost (see the module), by branch and bound in Swiss order; the
    best found when the budget runs out (the first found is the greedy Swiss pairing)."""

    def cost(a: int, b: int) -> tuple[int, int, int]:
        low, high = min(a, b), max(a, b)
        if high == phantom:  # the bye: to the lowest-ranked with the fewest byes
            return (0, met[low][high], size - 1 - low)
        return (int((low, high) in last), met[low][high], high - low)

    best: list = [None, None]  # cost, matching

    def search(unmatched: list[int], chosen: list, total: tuple) -> None:
        if best[0] is not None and (total >= best[0] or not spent.spend()):
            return
        if not unmatched:
            best[0], best[1] = total, list(chosen)
            return
        vertex = phantom if phantom in unmatched else unmatched[0]
        rest = [v for v in unmatched if v != vertex]
        options = sorted(rest, key=lambda other: (cost(vertex, other), other))
        for other in options:
            step = cost(vertex, other)
            chosen.append((min(vertex, other), max(vertex, other)))
            search([v for v in rest if v != other], chosen, tuple(x + y for x, y in zip(total, step)))
            chosen.pop()

    search(list(range(size)), [], (0, 0, 0))
    return best[1]


def opponents(rounds: Sequence[Round]) -> Counter:
    """How often each pair of players (a frozenset of name keys) was paired."""
    return Counter(frozenset((name_key(a), name_key(b))) for each in rounds for a, b in each.pairs)

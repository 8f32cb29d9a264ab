"""A club night's pairings, pure: who plays whom in the next round, and who sits out.

Swiss style: round 1 in registration order or a shuffle seeded by the night's
name (:func:`first_order`, reproducible), later rounds in standings order; each
player is paired with the nearest in that order they have not met, with no
repeat opponent while the games left allow it (:func:`pair_round`). With an odd
count one player has a bye: the lowest-ranked who has not had one.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any, Iterator, NamedTuple, Sequence

from scorer.errors import CribbageBoardError

from .standings import name_key

BUDGET = 200_000  # positions tried in one round's searches, at most


class PairingError(CribbageBoardError, ValueError):
    """Players that cannot be paired as given (one listed twice); the message says who."""


class Round(NamedTuple):
    """One round: its ``pairs`` ((player, player) tuples, the higher-ranked first, best pair
    first) and its ``bye`` (the player who sits out, or None). Immutable.

    >>> pair_round(["Ann", "Bob", "Cy", "Di", "Ed"])
    Round(pairs=(('Ann', 'Bob'), ('Cy', 'Di')), bye='Ed')
    """

    pairs: tuple[tuple[str, str], ...]
    bye: str | None = None


def first_order(players: Sequence[str], seed: str | None = None) -> list[str]:
    """Round 1's order: ``players`` as registered, or shuffled by ``seed`` (the night's name):
    the same seed and players give the same order on every machine.

    >>> first_order(["Ann", "Bob", "Cy", "Di"])
    ['Ann', 'Bob', 'Cy', 'Di']
    >>> first_order(["Ann", "Bob", "Cy", "Di"], seed="club night")
    ['Cy', 'Di', 'Ann', 'Bob']
    """
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
    ``rounds_after`` is how many rounds will follow this one (the look-ahead's reach).

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

    How, so that a regional event (2,000 players) fits: who met whom is kept per
    player (a player has met at most one other a round), the searches keep their
    own stack (no recursion) and walk the players not yet paired as a linked list.
    The look-ahead needs no search where a theorem settles it: if every player has
    at least n/2 + k - 1 possible opponents left (n players, the phantom counted),
    k rounds without a repeat can follow (Dirac: a minimum degree of n/2 gives a
    Hamiltonian cycle, so one round; playing it lowers each degree by one). Where
    it does not (small nights, late rounds), the exact search runs, trying the
    positions in the same order either way, so the theorem changes only the time.

    Raises ``PairingError`` for a player listed twice.

    >>> first = pair_round(["Ann", "Bob", "Cy", "Di", "Ed"])
    >>> pair_round(["Ann", "Bob", "Cy", "Di", "Ed"], [first])
    Round(pairs=(('Ann', 'Cy'), ('Bob', 'Ed')), bye='Di')
    """
    keys = [name_key(name) for name in order]
    if len(set(keys)) != len(keys):
        counts = Counter(keys)
        twice = next(name for name, key in zip(order, keys) if counts[key] > 1)
        raise PairingError(f"{twice} is listed twice")
    n = len(keys)
    if n < 2:
        return Round((), order[0] if n else None)
    index = {key: k for k, key in enumerate(keys)}
    phantom = n if n % 2 else None  # the bye, as a player
    size = n + (phantom is not None)
    times: Counter[tuple[int, int]] = Counter()  # (low, high) -> games between them
    last: set[tuple[int, int]] = set()
    for number, each in enumerate(past):
        games = [tuple(index.get(name_key(p)) for p in pair) for pair in each.pairs]
        if each.bye is not None and phantom is not None:
            games.append((index.get(name_key(each.bye)), phantom))
        for a, b in games:
            if a is None or b is None:  # a player no longer in the order
                continue
            pair = (min(a, b), max(a, b))
            times[pair] += 1
            if number == len(past) - 1:
                last.add(pair)
    met: list[set[int]] = [set() for _ in range(size)]
    for a, b in times:
        if a != b:
            met[a].add(b)
            met[b].add(a)
    spent = _Budget(budget)
    matching = _repeat_free(size, met, phantom, rounds_after, spent)
    if matching is None:
        matching = _fewest_repeats(size, met, times, last, phantom, spent)
    pairs, bye = [], None
    for a, b in sorted(matching):
        if phantom in (a, b):
            bye = order[a if b == phantom else b]
        else:
            pairs.append((order[a], order[b]))
    return Round(tuple(pairs), bye)


class _Unmatched:
    """The players not yet paired, in order, as a doubly linked list closed by ``end``: one
    taken out and put back (last out, first back) in constant time, and the neighbours of
    one taken out still found from it."""

    def __init__(self, size: int):
        self.end = size
        self.next = list(range(1, size + 1)) + [0]
        self.prev = [size] + list(range(size))
        self.out = bytearray(size)

    def first(self) -> int:
        return self.next[self.end]

    def remove(self, v: int) -> None:
        self.next[self.prev[v]] = self.next[v]
        self.prev[self.next[v]] = self.prev[v]
        self.out[v] = 1

    def restore(self, v: int) -> None:
        self.next[self.prev[v]] = v
        self.prev[self.next[v]] = v
        self.out[v] = 0

    def unmet(self, vertex: int, met: set[int], backwards: bool = False) -> Iterator[int]:
        """The players still unpaired after ``vertex`` (taken out, the first) that it has not
        met, nearest first; ``backwards``: from the last, for the phantom. Lazy: each is read
        when asked for, with the list as it was when ``vertex`` was taken out."""
        step = self.prev if backwards else self.next
        other = step[vertex]
        while other != self.end:
            if other not in met:
                yield other
            other = step[other]


def _repeat_free(size: int, met: list[set[int]], phantom: int | None, rounds_after: int,
                 spent: _Budget) -> list[tuple[int, int]] | None:
    """The first matching in Swiss order of players who have not met, after which the most
    rounds that can still follow without a repeat (up to ``rounds_after``) can; None if there
    is none (or the budget ran out before one was found)."""
    ahead = _LookAhead(size, met, rounds_after)
    links = _Unmatched(size)
    stack: list[list[Any]] = []  # per pairing made: [vertex, its options, the one tried]
    fallback = None
    while True:
        # a new position: the pairings on the stack
        if not spent.spend():
            return fallback  # stop: take what was found
        if links.first() == links.end:
            chosen = [(min(v, other), max(v, other)) for v, _, other in stack]
            if fallback is None:
                fallback = chosen
            if ahead.holds(chosen, spent) is not False:  # True, or None: the budget ran out
                return chosen
        else:
            vertex = phantom if phantom is not None and not stack else links.first()
            links.remove(vertex)
            # the phantom (the bye) takes the lowest-ranked first, anyone else the nearest below
            stack.append([vertex, links.unmet(vertex, met[vertex], vertex == phantom), None])
        while stack:  # the next pairing to try, backing up where a player has no other left
            frame = stack[-1]
            if frame[2] is not None:
                links.restore(frame[2])
            frame[2] = next(frame[1], None)
            if frame[2] is not None:
                links.remove(frame[2])
                break
            links.restore(frame[0])
            stack.pop()
        else:
            return fallback


class _LookAhead:
    """Whether the rounds still to come can be played without a repeat after a matching of
    players who have not met (the graph of pairs not met, less that matching's)."""

    def __init__(self, size: int, met: list[set[int]], rounds_after: int):
        self.size, self.met = size, met
        least = min(size - 2 - len(each) for each in met)  # options left, after this round
        self.count = min(rounds_after, least)  # as far as the games left allow
        self.settled = self.count <= 0 or least >= size // 2 + self.count - 1  # Dirac
        self.graph: list[int] | None = None

    def holds(self, chosen: list[tuple[int, int]], spent: _Budget) -> bool | None:
        """True, False, or None when the budget ran out."""
        if self.settled:
            return True
        if self.graph is None:  # bitmasks of the pairs not met, made only where the theorem fails
            everyone = (1 << self.size) - 1
            self.graph = [everyone & ~(1 << v) & ~sum(1 << o for o in self.met[v]) for v in range(self.size)]
        graph = list(self.graph)
        for a, b in chosen:
            graph[a] &= ~(1 << b)
            graph[b] &= ~(1 << a)
        return _disjoint_matchings(graph, self.count, spent)


def _disjoint_matchings(graph: list[int], count: int, spent: _Budget) -> bool | None:
    """Whether ``count`` perfect matchings with no pair in common can be cut from ``graph``
    (each vertex's possible partners, a bitmask): True, False, or None when the budget ran out."""
    if count <= 0:
        return True
    everyone = (1 << len(graph)) - 1
    graphs = [graph]  # what each matching is cut from: the graph less the matchings before it
    stack: list[list[int]] = []  # per pair made: [matching, unpaired before it, vertex, options left, other]
    level, unpaired = 0, everyone
    while True:
        # a new position: the matchings and pairs on the stack
        if not spent.spend():
            return None
        if not unpaired:
            if level + 1 == count:
                return True
            left = list(graphs[level])
            for frame in reversed(stack):
                if frame[0] != level:
                    break
                left[frame[2]] &= ~(1 << frame[4])
                left[frame[4]] &= ~(1 << frame[2])
            graphs.append(left)
            level, unpaired = level + 1, everyone
            continue
        # the unpaired vertex with the fewest choices first: a dead end shows at once
        vertex, options, fewest, rest = -1, 0, -1, unpaired
        while rest:
            low = rest & -rest
            rest ^= low
            choice = graphs[level][low.bit_length() - 1] & unpaired
            if fewest < 0 or choice.bit_count() < fewest:
                vertex, options, fewest = low.bit_length() - 1, choice, choice.bit_count()
                if fewest <= 1:
                    break
        stack.append([level, unpaired, vertex, options, -1])
        while stack:  # the next pair to try, lowest partner first, backing up when none is left
            frame = stack[-1]
            if frame[3]:
                low = frame[3] & -frame[3]
                frame[3] ^= low
                frame[4] = low.bit_length() - 1
                level = frame[0]
                del graphs[level + 1:]
                unpaired = frame[1] & ~(1 << frame[2]) & ~low
                break
            stack.pop()
        else:
            return False


def _fewest_repeats(size: int, met: list[set[int]], times: Counter[tuple[int, int]], last: set[tuple[int, int]],
                    phantom: int | None, spent: _Budget) -> list[tuple[int, int]]:
    """The matching of least cost (see :func:`pair_round`), by branch and bound in Swiss order; the
    best found when the budget runs out (the first found is the greedy Swiss pairing)."""

    def cost(a: int, b: int) -> tuple[int, int, int]:
        low, high = min(a, b), max(a, b)
        if high == phantom:  # the bye: to the lowest-ranked with the fewest byes
            return (0, times[(low, high)], size - 1 - low)
        return (int((low, high) in last), times[(low, high)], high - low)

    def options(vertex: int) -> Iterator[int]:
        """The unpaired in order of cost: those not met (nearest first; the lowest-ranked
        first for the phantom), then those met, each costing more than any not met."""
        yield from links.unmet(vertex, met[vertex], vertex == phantom)
        again = [other for other in met[vertex] if not links.out[other]]
        yield from sorted(again, key=lambda other: (cost(vertex, other), other))

    links = _Unmatched(size)
    best: list[Any] = [None, None]  # cost, matching
    stack: list[list[Any]] = []  # per pairing made: [vertex, cost so far, its options, the one tried]
    total = (0, 0, 0)
    while True:
        # a new position (within the bound, the budget spent on it): the pairings on the stack
        if links.first() == links.end:
            best[0], best[1] = total, [(min(v, other), max(v, other)) for v, _, _, other in stack]
        else:
            vertex = phantom if phantom is not None and not stack else links.first()
            links.remove(vertex)
            stack.append([vertex, total, options(vertex), None])
        while stack:  # the next pairing to try: options come dearest last, so one over the bound ends them
            frame = stack[-1]
            if frame[3] is not None:
                links.restore(frame[3])
            other, frame[3] = next(frame[2], None), None
            if other is not None:
                total = tuple(x + y for x, y in zip(frame[1], cost(frame[0], other)))
                if best[0] is None or total < best[0]:
                    if best[0] is not None and not spent.spend():
                        return list(best[1])  # no later position could be tried either
                    frame[3] = other
                    links.remove(other)
                    break
            links.restore(frame[0])
            stack.pop()
        else:
            return list(best[1])


def opponents(rounds: Sequence[Round]) -> Counter[frozenset[str]]:
    """How often each pair of players (a frozenset of name keys) was paired."""
    return Counter(frozenset((name_key(a), name_key(b))) for each in rounds for a, b in each.pairs)

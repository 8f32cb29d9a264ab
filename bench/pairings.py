"""Benchmark: pairing a club night's rounds (scorer.pairings) for 200, 800 and 2,000 players,
today's algorithm beside the one before it. Prints a table.

The night: round 1 in the order drawn by the night's name, then each round in the standings
(scorer.standings) after games won at random, the stronger player (a hidden strength) the more
likely; byes with an odd count. The old algorithm is tests/pairings_reference.py (the module as
it was before it lost its recursion). Each night runs in a process of its own: its time per
round and its peak memory (VmHWM, less the RSS before the night). The run stops unless every
round pairs everyone once, repeats no pair, gives the bye to the lowest-ranked without one, and
the old and the new pair every round alike.

Run: .venv/bin/python bench/pairings.py [PLAYERS ...]   (default 200 800 2000)
     --rounds N      the night's rounds (default 9)
     --old-up-to N   the largest night the old algorithm is timed on (default 800: its 2,000
                     players take about half an hour and 1.5 GB)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from scorer.pairings import Round, first_order  # noqa: E402
from scorer.standings import GameResult, standings  # noqa: E402

from table import print_table  # noqa: E402

RAISED_LIMIT = 100_000  # what the old algorithm needs past a few hundred players


def memory_kb(field: str) -> int:
    """A VmRSS or VmHWM line of /proc/self/status, in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise SystemExit(f"bench/pairings.py: no {field} in /proc/self/status")


def check(order: list[str], past: list[Round], made: Round) -> None:
    """Everyone once, no pair met before, the bye to the lowest-ranked without one."""
    seen = [p for pair in made.pairs for p in pair] + ([made.bye] if made.bye is not None else [])
    assert sorted(seen) == sorted(order), "not everyone paired once"
    met = {frozenset(pair) for each in past for pair in each.pairs}
    assert not met & {frozenset(pair) for pair in made.pairs}, "a pair met before"
    if made.bye is not None:
        had = {each.bye for each in past}
        assert made.bye == next(name for name in reversed(order) if name not in had), "the bye"


def night(which: str, count: int, rounds: int) -> dict:
    """One night paired by ``which`` (old or new), in this process: seconds per round, peak
    memory growth, the old algorithm's first RecursionError, a digest of the rounds made."""
    if which == "old":
        from pairings_reference import pair_round
    else:
        from scorer.pairings import pair_round
    rng = random.Random(count)
    players = [f"Player {k:04d}" for k in range(count)]
    strength = {name: rng.random() for name in players}
    results: list[GameResult] = []
    past: list[Round] = []
    seconds, recursion_error = [], None
    before = memory_kb("VmRSS")
    for number in range(rounds):
        if number:
            order = [line.player for line in standings(results, registered=players)]
        else:
            order = first_order(players, f"bench {count}")
        began = time.perf_counter()
        try:
            made = pair_round(order, past, rounds - number - 1)
        except RecursionError:
            if which != "old" or recursion_error is not None:
                raise
            recursion_error = number + 1
            sys.setrecursionlimit(RAISED_LIMIT)
            began = time.perf_counter()
            made = pair_round(order, past, rounds - number - 1)
        seconds.append(time.perf_counter() - began)
        print(f"{which}, {count} players, round {number + 1}: {seconds[-1]:.3f} s", file=sys.stderr, flush=True)
        check(order, past, made)
        past.append(made)
        for a, b in made.pairs:
            won = a if rng.random() < strength[a] / (strength[a] + strength[b]) else b
            lost = b if won == a else a
            results.append(GameResult.of((a, b), {won: 121, lost: rng.randint(70, 120)}, won))
    digest = hashlib.sha256(repr([tuple(each) for each in past]).encode()).hexdigest()
    return {"seconds": seconds, "peak_mb": (memory_kb("VmHWM") - before) / 1024,
            "recursion_error": recursion_error, "digest": digest}


def run_night(which: str, count: int, rounds: int) -> dict:
    """``night`` in a process of its own (so that each peak is its own)."""
    done = subprocess.run([sys.executable, __file__, "--night", which, str(count), "--rounds", str(rounds)],
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"bench/pairings.py: {which}, {count} players, exit status {done.returncode}:\n"
                         f"{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", nargs="*", type=int, default=[200, 800, 2000])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--old-up-to", type=int, default=800)
    parser.add_argument("--night", nargs=2, metavar=("WHICH", "PLAYERS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.night:
        print(json.dumps(night(args.night[0], int(args.night[1]), args.rounds)))
        return 0
    rows = []
    for count in args.players:
        new = run_night("new", count, args.rounds)
        old = run_night("old", count, args.rounds) if count <= args.old_up_to else None
        what = f"{count:,} players, {args.rounds} rounds"
        if old is not None:
            assert old["digest"] == new["digest"], f"{count} players: the old and the new pair differently"
            rows.append((f"{what}: old, the night / its slowest round",
                         f"{ms(sum(old['seconds']))} / {ms(max(old['seconds']))}"))
            rows.append((f"{what}: old, peak memory (VmHWM growth)", f"{old['peak_mb']:.1f} MB"))
            if old["recursion_error"]:
                rows.append((f"{what}: old, at Python's default recursion limit",
                             f"RecursionError in round {old['recursion_error']} (timed at {RAISED_LIMIT:,})"))
        rows.append((f"{what}: new, the night / its slowest round",
                     f"{ms(sum(new['seconds']))} / {ms(max(new['seconds']))}"))
        rows.append((f"{what}: new, peak memory (VmHWM growth)", f"{new['peak_mb']:.1f} MB"))
        if old is not None:
            rows.append((f"{what}: old / new, the night's time",
                         f"{sum(old['seconds']) / sum(new['seconds']):,.0f}x (same pairings)"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Benchmark: the discard coach on one hand of six, cold (the first hand a process coaches: the totals
path builds its table of four-card hands then) and warm (every hand after), in CPU time, and the Pi
Zero 2 W estimate from startup.py's stated factor. Prints a table.

    .venv/bin/python bench/coach.py [HANDS]     # HANDS random deals timed warm (default 50)
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.cards import deck  # noqa: E402
from scorer.coach import coach  # noqa: E402

from startup import PI_ZERO_2W_FACTOR  # noqa: E402
from table import print_table  # noqa: E402

HAND = "5H 5D JC 6S 7S KD".split()


def cpu(fn) -> float:
    """CPU seconds of one call (the shared machine's other work does not count)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


COLD = ("import sys, time; sys.path.insert(0, sys.argv[1]); from scorer.coach import coach; "
        "start = time.process_time(); coach(sys.argv[2:], dealer=True); print(time.process_time() - start)")


def _cold() -> float:
    """CPU seconds of the first hand a new process coaches."""
    root = str(Path(__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-c", COLD, root, *HAND], capture_output=True, text=True, check=True)
    return float(done.stdout)


def main() -> int:
    try:
        hands = int(sys.argv[1]) if len(sys.argv) > 1 else 50
        if hands < 1:
            raise ValueError
    except ValueError:
        print("coach: give the number of hands to time as a whole number, at least 1 (default 50)", file=sys.stderr)
        return 1
    colds = [_cold() for _ in range(5)]
    rng = random.Random(2026)
    cards = deck()
    deals = [rng.sample(cards, 6) for _ in range(hands)]
    coach(deals[0], dealer=True)  # the totals path's table, as a web view has it after its first hand
    warms = sorted(cpu(lambda six=six: coach(six, dealer=bool(i % 2))) for i, six in enumerate(deals))
    cold, warm, worst = statistics.median(colds), statistics.median(warms), warms[-1]
    low, high = PI_ZERO_2W_FACTOR
    print_table([
        (f"coach {' '.join(HAND)}, cold (median of 5)", f"{cold * 1000:.0f} ms CPU"),
        (f"coach one deal, warm (median of {hands} random deals)", f"{warm * 1000:.0f} ms CPU"),
        (f"coach one deal, warm (slowest of {hands})", f"{worst * 1000:.0f} ms CPU"),
        (f"Pi Zero 2 W estimate, cold (x{low}-{high}, startup.py's stated factor)",
         f"{cold * low:.1f}-{cold * high:.1f} s"),
        (f"Pi Zero 2 W estimate, warm (x{low}-{high})", f"{warm * low:.1f}-{warm * high:.1f} s"),
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())

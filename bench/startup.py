"""Benchmark: what a user waits for, as ratios to a baseline measured in the same run.

- start-up to READY=1 (1,000 and 10,000 finished games) against a process that
  only imports gpiozero, PIL, sqlite3 and tomllib
- ``replay example-game.txt --json`` and ``count ... --starter 5C`` against ``python -c pass``
- press to show() with the ledger on disk against a bare SQLite WAL
  ``synchronous=FULL`` transaction on the same disk
- wake-ups of an idle board in 10 s, all threads together

Each figure has an estimate for a Raspberry Pi Zero 2 W: this machine's time
times PI_ZERO_2W_FACTOR (a range: the Zero 2 W's Cortex-A53 at 1 GHz runs
CPython 8-15x slower than one core here, and its SD card is slower still for
fsync, so the disk rows are a floor).
"""

from __future__ import annotations

import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from board import fill_ledger, latency, start_board  # noqa: E402
from table import print_table  # noqa: E402

PI_ZERO_2W_FACTOR = (8, 15)
RUNS = 7
BASELINE_IMPORTS = "import gpiozero, PIL.Image, sqlite3, tomllib"
TARGETS = {
    "ready_1000": 1.5, "replay": 3.0, "count": 2.0, "press": 2.0, "idle_wakeups": 20,
}


def process_seconds(argv: list[str], runs: int = RUNS) -> float:
    """Median wall time of a command, from start to exit."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class BareTransaction:
    """One committed WAL synchronous=FULL insert: the floor of a durable entry."""

    def __init__(self, directory: Path):
        self.conn = sqlite3.connect(directory / "bare.sqlite3", isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, line TEXT NOT NULL)")
        self.times: list[float] = []

    def __call__(self) -> None:
        start = time.perf_counter()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("INSERT INTO t (line) VALUES (?)", (f"peg Red {len(self.times) % 6 + 1}",))
        self.conn.execute("COMMIT")
        self.times.append(time.perf_counter() - start)

    def close(self) -> None:
        self.conn.close()


def bare_transaction_seconds(directory: Path, count: int = 400) -> float:
    """Median time of one committed WAL synchronous=FULL insert, alone."""
    bare = BareTransaction(directory)
    for _ in range(count):
        bare()
    bare.close()
    return statistics.median(bare.times)


def ready_seconds(path: Path, runs: int = 5) -> float:
    return statistics.median(start_board(path)["ready_s"] for _ in range(runs))


def pi_zero(seconds: float) -> str:
    low, high = PI_ZERO_2W_FACTOR
    return f"{seconds * low * 1e3:.0f}-{seconds * high * 1e3:.0f} ms on a Pi Zero 2 W"


def ratio_row(name: str, seconds: float, baseline: float, target: float) -> tuple[str, str]:
    ratio = seconds / baseline
    verdict = "ok" if ratio <= target else "OVER"
    return (name, f"{ratio:.2f}x (target <= {target}x, {verdict}): {seconds * 1e3:.1f} ms vs "
                  f"{baseline * 1e3:.1f} ms; {pi_zero(seconds)}")


def main() -> int:
    python = sys.executable
    rows = []
    imports = process_seconds([python, "-c", BASELINE_IMPORTS])
    bare = process_seconds([python, "-c", "pass"])
    rows.append(("baseline: python imports gpiozero, PIL, sqlite3, tomllib", f"{imports * 1e3:.1f} ms"))
    rows.append(("baseline: python -c pass", f"{bare * 1e3:.1f} ms"))
    with tempfile.TemporaryDirectory(dir=ROOT) as scratch:
        thousand, ten_thousand = Path(scratch) / "1k.sqlite3", Path(scratch) / "10k.sqlite3"
        fill_ledger(thousand, 1000)
        fill_ledger(ten_thousand, 10000)
        ready_1k = ready_seconds(thousand)
        ready_10k = ready_seconds(ten_thousand)
        rows.append(ratio_row("READY=1, 1,000 games / import baseline", ready_1k, imports, TARGETS["ready_1000"]))
        growth = ready_10k / ready_1k - 1
        rows.append(("READY=1, 10,000 games over 1,000 (target <= 10%)",
                     f"{growth * 100:+.0f}% ({ready_10k * 1e3:.0f} ms vs {ready_1k * 1e3:.0f} ms)"))
        idle = start_board(thousand, idle_seconds=10.0)
        verdict = "ok" if idle["idle_wakeups"] <= TARGETS["idle_wakeups"] else "OVER"
        rows.append(("idle wake-ups in 10 s, all threads (target <= 20)", f"{idle['idle_wakeups']} ({verdict})"))
        # One bare transaction after each press: this disk's fsync time drifts (0.3-4 ms here
        # from one minute to the next), so the floor is measured side by side, not after.
        side_by_side = BareTransaction(Path(scratch))
        seconds, _ = latency(Path(scratch), presses=200, between=side_by_side)
        side_by_side.close()
        floor = statistics.median(side_by_side.times)
        rows.append(ratio_row("press to show() on disk, median / bare WAL FULL transaction",
                              statistics.median(seconds), floor, TARGETS["press"]))
    cli = [python, "-m", "firmware.cli"]
    replay = process_seconds(cli + ["replay", "tests/data/example-game.txt", "--json"])
    count = process_seconds(cli + ["count", "5H", "5D", "5S", "JC", "--starter", "5C"])
    rows.append(ratio_row("replay example-game.txt --json / python -c pass", replay, bare, TARGETS["replay"]))
    rows.append(ratio_row("count 5H 5D 5S JC --starter 5C / python -c pass", count, bare, TARGETS["count"]))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: opening the ledger (the writer, and the read-only reader) as games pile up. Prints a table.

Run: .venv/bin/python bench/ledger.py [GAMES ...]   (default 0 1000)
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # the project's ledger package before bench/ledger.py

from ledger.reader import LedgerReader  # noqa: E402
from ledger.writer import LedgerWriter  # noqa: E402

from board import fill_ledger  # noqa: E402
from table import print_table  # noqa: E402


def time_open(opener, path: Path, repeats: int = 21) -> str:
    """Median wall and CPU milliseconds to open the ledger and have the current game ready
    (CPU time is the steadier figure on a shared machine)."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        ledger = opener(path)
        _ = ledger.book  # the current game, as the board needs it at start
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        ledger.close()
    return f"{statistics.median(wall) * 1000:.1f} ms (CPU {statistics.median(cpu) * 1000:.1f} ms)"


def time_call(call, repeats: int = 5) -> str:
    """Median wall and CPU milliseconds of a call."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return f"{statistics.median(wall) * 1000:.1f} ms (CPU {statistics.median(cpu) * 1000:.1f} ms)"


def main(argv: list[str]) -> int:
    counts = [int(n) for n in argv] or [0, 1000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for games in counts:
            path = Path(tmp) / f"ledger-{games}.sqlite3"
            fill_ledger(path, games) if games else LedgerWriter(path).close()
            size_mb = path.stat().st_size / 1e6
            rows.append((f"open as writer, {games:,} finished games ({size_mb:.1f} MB)",
                         time_open(LedgerWriter, path)))
            rows.append((f"open as writer, check later, {games:,} finished games",
                         time_open(lambda p: LedgerWriter(p, check="later"), path)))
            check = LedgerWriter(path, check="later")
            rows.append((f"  its check (quick_check, in a thread after READY), {games:,} games",
                         time_call(check.check)))
            check.close()
            rows.append((f"open as reader, {games:,} finished games", time_open(LedgerReader, path)))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

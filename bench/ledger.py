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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from board import fill_ledger  # noqa: E402
from table import print_table  # noqa: E402

import scorer.store as store_module  # noqa: E402
from scorer.store import LedgerStore  # noqa: E402


def time_open(opener, path: Path, repeats: int = 15) -> float:
    """Median seconds to open the ledger and have the current game ready."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        ledger = opener(path)
        ledger.book  # the current game, as the board needs it at start
        times.append(time.perf_counter() - start)
        ledger.close()
    return statistics.median(times)


def main(argv: list[str]) -> int:
    counts = [int(n) for n in argv] or [0, 1000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for games in counts:
            path = Path(tmp) / f"ledger-{games}.sqlite3"
            fill_ledger(path, games) if games else LedgerStore(path).close()
            size_mb = path.stat().st_size / 1e6
            rows.append((f"open as writer, {games:,} finished games ({size_mb:.1f} MB)",
                         f"{time_open(LedgerStore, path) * 1000:.1f} ms"))
            reader = getattr(store_module, "LedgerReader", None)
            if reader is not None:
                rows.append((f"open as reader, {games:,} finished games",
                             f"{time_open(reader, path) * 1000:.1f} ms"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

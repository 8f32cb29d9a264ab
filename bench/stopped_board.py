"""Benchmark: the web view's reader with the board stopped (issue 12: the ledger shown at all times).

The reader runs as the web unit does, in a folder it cannot write (a read-only bind mount in a
mount namespace of its own: root and ``unshare`` needed), polling ``data_version()`` every 50 ms
as the web does. Side by side:

- ``data_version()`` per call: reading the stopped board's file (``immutable``, it also looks at
  the files and the lock) against following a running board (``mode=ro``)
- an entry to the reader seeing it: the board already running, against the board starting while
  the reader reads the stopped board's file (the board's open included)

Run: sudo .venv/bin/python bench/stopped_board.py [ROUNDS]   (default 10)
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]  # the project's ledger package before bench/ledger.py

from ledger.reader import LedgerReader  # noqa: E402
from ledger.writer import LedgerWriter  # noqa: E402
from scorer.record import parse_line  # noqa: E402

from table import print_table  # noqa: E402

POLL = 0.05  # the web's poll


def child(path: str) -> None:
    """In the namespace: per round, open a reader, say how it reads, report when the entry shows."""
    for _command in sys.stdin:
        reader = LedgerReader(path)
        per_call = timeit.timeit(reader.data_version, number=2000) / 2000
        print(f"open {int(reader.immutable)} {per_call}", flush=True)
        token, entries = reader.data_version(), len(reader.export())
        while True:  # as the web: a new token, then the state read afresh
            time.sleep(POLL)
            if reader.data_version() != token:
                token = reader.data_version()
                if len(reader.export()) != entries:
                    break
        seen = f"seen {time.monotonic()} {int(reader.immutable)}"
        # Closed before it is said: a reader still open when the board closes would keep the board's
        # -wal and -shm (the last to close removes them, and this one cannot in its read-only folder),
        # so the next round's reader would find them and read live, not immutable.
        reader.close()
        print(seen, flush=True)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("needs root and unshare (a read-only bind mount, as the web unit's ReadOnlyPaths=)")
        return
    from web_games import game_record

    folder = tempfile.mkdtemp(prefix="cribbage-bench-ro-")
    path = os.path.join(folder, "ledger.sqlite3")
    record = game_record("game six-card seats=Alice,Bob dealer=Alice", seed=8)
    lines = iter(record[3:])
    with LedgerWriter(path) as store:
        for line in record[:3]:
            store.apply(parse_line(line))
    reader = subprocess.Popen(
        ["unshare", "-m", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
         folder, sys.executable, __file__, "--child", path],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    costs = {0: [], 1: []}
    seen = {"running": [], "starting": []}
    try:
        for k in range(2 * rounds):
            starting = k % 2 == 0
            store = None if starting else LedgerWriter(path)
            reader.stdin.write("go\n")
            reader.stdin.flush()
            _, immutable, per_call = reader.stdout.readline().split()
            assert int(immutable) == starting, "the reader did not read as expected"
            costs[int(immutable)].append(float(per_call))
            time.sleep(0.2 + random.uniform(0, POLL))  # any phase of the poll
            began = time.monotonic()
            store = store or LedgerWriter(path)
            store.apply(parse_line(next(lines)))
            _, when, live = reader.stdout.readline().split()
            seen["starting" if starting else "running"].append(float(when) - began)
            store.close()
    finally:
        reader.stdin.close()
        try:
            reader.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a round failed while the child waits for its entry
            reader.kill()
            reader.wait()
        shutil.rmtree(folder, ignore_errors=True)
    us = lambda values: f"{statistics.median(values) * 1e6:.1f} us"  # noqa: E731
    ms = lambda values: f"{statistics.median(values) * 1e3:.0f} ms (max {max(values) * 1e3:.0f})"  # noqa: E731
    print_table([
        ("data_version(), board running (mode=ro)", us(costs[0])),
        ("data_version(), board stopped (immutable)", us(costs[1])),
        (f"entry -> reader sees it, board running ({rounds} rounds, {POLL * 1000:.0f} ms poll)", ms(seen["running"])),
        ("board start + entry -> reader sees it, reader was immutable", ms(seen["starting"])),
    ])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()

"""Benchmark: ledger schema 2 (issue 12 item 6) on 1,000 games. Prints a table.

- migrating a 1,000-game schema 1 ledger (the writer's first open) against opening it again
- ``LedgerReader.games()`` and ``data_version()`` on 1,000 games
- scorer.history over those games (race, player_stats, the percentile's first count)
- press to show() with the ledger on disk against a bare WAL FULL transaction, side by side
  (the same row as bench/startup.py; the entry's time is one more bound column)

Run: .venv/bin/python bench/ledger_v2.py [GAMES]   (default 1000)
"""

from __future__ import annotations

import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # the project's ledger package before bench/ledger.py

from ledger.reader import LedgerReader  # noqa: E402
from ledger.schema import MIGRATE_1_TO_2  # noqa: E402
from ledger.writer import LedgerWriter  # noqa: E402
from scorer.history import hand_percentile, player_stats, race  # noqa: E402

from board import fill_ledger, latency  # noqa: E402
from startup import BareTransaction  # noqa: E402
from table import print_table  # noqa: E402

SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE matches (id INTEGER PRIMARY KEY, started TEXT NOT NULL);
CREATE TABLE games (id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
                    header TEXT NOT NULL, outcome TEXT);
CREATE TABLE actions (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id), line TEXT NOT NULL);
CREATE INDEX actions_by_game ON actions (game_id, id);
CREATE INDEX games_by_match ON games (match_id, id);
INSERT INTO meta VALUES ('schema', '1');
"""


def as_schema_1(source: Path, target: Path) -> None:
    """A copy of a ledger's rows in the schema 1 layout, as the first release wrote it (no marker)."""
    new = sqlite3.connect(target, isolation_level=None)
    new.executescript(SCHEMA_1)
    new.execute("ATTACH DATABASE ? AS old", (str(source),))
    new.execute("BEGIN")
    new.execute("INSERT INTO matches SELECT id, started FROM old.matches")
    new.execute("INSERT INTO games SELECT id, match_id, header, outcome FROM old.games")
    new.execute("INSERT INTO actions SELECT id, game_id, line FROM old.actions")
    new.execute("COMMIT")
    new.execute("DETACH DATABASE old")
    new.close()


def median_ms(call, repeats: int) -> str:
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return f"{statistics.median(wall) * 1000:.2f} ms (CPU {statistics.median(cpu) * 1000:.2f} ms)"


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 1000
    rows = []
    with tempfile.TemporaryDirectory(dir=ROOT) as scratch:
        folder = Path(scratch)
        filled, old = folder / "filled.sqlite3", folder / "v1.sqlite3"
        fill_ledger(filled, games)
        as_schema_1(filled, old)
        migrations = []
        for k in range(5):
            copy = folder / f"migrate-{k}.sqlite3"
            shutil.copy(old, copy)
            start = time.perf_counter()
            LedgerWriter(copy).close()
            migrations.append(time.perf_counter() - start)
        rows.append((f"first open of a {games:,}-game schema 1 ledger (migrates to 2, counts the tally)",
                     f"{statistics.median(migrations) * 1000:.1f} ms"))
        statements = []
        for k in range(5):
            copy = folder / f"statements-{k}.sqlite3"
            shutil.copy(old, copy)
            conn = sqlite3.connect(copy, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            start = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            for statement in MIGRATE_1_TO_2:
                conn.execute(statement)
            conn.execute("COMMIT")
            statements.append(time.perf_counter() - start)
            conn.close()
        rows.append(("  of which the schema 1 -> 2 transaction alone",
                     f"{statistics.median(statements) * 1000:.1f} ms"))
        rows.append(("next open of it (schema 2, nothing to do)",
                     median_ms(lambda: LedgerWriter(folder / "migrate-0.sqlite3").close(), 5)))
        with LedgerReader(filled) as reader:
            listed = reader.games()
            rows.append((f"LedgerReader.games(), {len(listed):,} games", median_ms(reader.games, 21)))
            rows.append(("LedgerReader.data_version()", median_ms(reader.data_version, 201)))
            rows.append(("LedgerReader.times(last game)", median_ms(lambda: reader.times(listed[0].id), 21)))
            records = [reader.export(game.id) for game in listed]
            rows.append((f"export() of each of {len(listed):,} games",
                         median_ms(lambda: [reader.export(game.id) for game in listed], 3)))
        rows.append(("history.race(one game)", median_ms(lambda: race(records[0]), 21)))
        rows.append((f"history.player_stats({len(records):,} games), first call: replays each game",
                     median_ms(lambda: player_stats(records, percentile=False), 1)))
        rows.append((f"history.player_stats({len(records):,} games) again (games kept), no percentile",
                     median_ms(lambda: player_stats(records, percentile=False), 5)))
        rows.append(("history.hand_percentile, first call (counts every 4-card hand once)",
                     median_ms(lambda: hand_percentile([8], 4), 1)))
        rows.append((f"history.player_stats({len(records):,} games) again, with percentile",
                     median_ms(lambda: player_stats(records), 5)))
        side_by_side = BareTransaction(folder)
        seconds, ledger = latency(folder, presses=200, between=side_by_side)
        side_by_side.close()
        floor = statistics.median(side_by_side.times)
        rows.append(("press to show() on disk / bare WAL FULL transaction",
                     f"{statistics.median(seconds) / floor:.2f}x: {statistics.median(seconds) * 1e3:.2f} ms "
                     f"vs {floor * 1e3:.2f} ms (the ledger's write {statistics.median(ledger) * 1e3:.2f} ms)"))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

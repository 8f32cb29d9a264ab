"""Benchmark: SD-card wear, measured (issue 30): bytes written to storage per entry and per game. Prints a table.

The project's writer (``ledger.writer.LedgerWriter``) is fed whole six-card games of real record lines
(``parse_line``, as the console does), one transaction an entry, in a fresh folder on a real disk (never
tmpfs: ``ledger.memory`` is asked). Beside it, in the same run, a bare SQLite insert: WAL, the
``synchronous`` setting read from the writer's own connection, a row of the same text per entry and a
commit per entry. Each case runs in a child process of its own, so that nothing else is counted:

- ``/proc/self/io``'s ``write_bytes``: the bytes the process caused to be sent to the storage layer (pages
  dirtied in the page cache, counted when they are dirtied; with an fsync on every commit each commit
  dirties its pages afresh, so it is close to what reaches the device);
- the block device's ``/sys/dev/block/MAJ:MIN/stat`` sectors written (field 7, 512 bytes each) over the
  same work, when the folder's device is found: it counts every process (the filesystem's journal too),
  so the device's count over as long a time idle is printed beside it.

What SQLite's WAL checkpoints add is the same lines again with ``PRAGMA wal_autocheckpoint=0`` on the
writer's connection; the close (the last checkpoint, the WAL removed) is a row of its own. A club night
(4 games, the ledger opened and closed, so its WAL grows from nothing) is measured as a case of its own,
and from it a year of weekly club nights against a card's endurance, each assumption said as one.
Every case counts its rows afterwards and stops unless all it was given is in the file.

Run: .venv/bin/python bench/sd_wear.py [ENTRIES]   (default 1000: enough to cross the WAL's checkpoints)
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # the project's ledger package before bench/ledger.py

from ledger.memory import MOUNTINFO, memory_cause, mount_of, parse_mountinfo  # noqa: E402
from ledger.writer import LedgerWriter  # noqa: E402
from scorer.record import Scorebook, parse_line  # noqa: E402

from table import print_table  # noqa: E402

SEATS = ("Ann", "Bob")
SHOW_COUNTS = [value for value in range(30) if value not in (19, 25, 26, 27)]  # a hand's or crib's possible totals
GAME_ENTRIES = 30  # the game
SYNCHRONOUS = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}  # PRAGMA synchronous's values
# A year of club nights and a card's endurance: assumptions, printed as such.
NIGHTS_A_YEAR = 52
GAMES_A_NIGHT = 4  # games a board plays in a club night
CARD_BYTES = 32e9  # a 32 GB consumer microSD card
CARD_CYCLES = 500  # program/erase cycles of its (TLC) flash
WRITE_AMPLIFICATION = (10, 100)  # the card's flash writes per byte sent, for small synchronous writes


# ---- the games ---------------------------------------------------------------------------------


def game_lines(entries: int, games_at_least: int = 1, seed: int = 30) -> tuple[list[str], int]:
    """Whole six-card games of record lines, back to back, until at least ``entries`` lines (game lines
    included: each accepted line is one transaction) and ``games_at_least`` games; a peg in each deal's
    play, then its show (about 30 lines a game).
    Made beside a scorebook, so that the board accepts every line. Returns (lines, games begun)."""
    rng = random.Random(seed)
    book, lines, games = Scorebook(), [], 0

    def enter(line: str) -> None:
        book.apply(parse_line(line))
        lines.append(line)

    while len(lines) < entries or games < games_at_least:
        enter(f"game six-card seats={','.join(SEATS)}" + ("" if games else f" dealer={SEATS[0]}"))
        games += 1
        game = book.game
        while not game.is_over:
            enter(f"peg {rng.choice(SEATS)} {rng.randint(1, 6)}")
            for seat, what in game.remaining_show():
                if game.is_over:
                    break
                points = min(SHOW_COUNTS, key=lambda v: abs(v - rng.randint(2, 18)))
                enter(f"crib {points}" if what == "crib" else f"hand {seat} {points}")
    return lines, games


# ---- what was written --------------------------------------------------------------------------


def write_bytes() -> int:
    """This process's ``write_bytes`` from /proc/self/io."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise SystemExit("sd_wear: /proc/self/io has no write_bytes (a Linux kernel with task I/O accounting needed)")


def device_stat(folder: Path) -> Path | None:
    """The block device statistics of the device that holds ``folder``, if there is one."""
    device = os.stat(folder).st_dev
    stat = Path(f"/sys/dev/block/{os.major(device)}:{os.minor(device)}/stat")
    return stat if stat.exists() else None


def device_bytes(stat: Path | None) -> int | None:
    """Bytes written to the device so far (sectors written, field 7, times 512)."""
    return int(stat.read_text().split()[6]) * 512 if stat is not None else None


def wal_restarts(path: Path) -> int:
    """The WAL header's checkpoint sequence number: how many times the WAL began again after a checkpoint."""
    try:
        with open(f"{path}-wal", "rb") as wal:
            header = wal.read(16)
    except FileNotFoundError:
        header = b""
    return struct.unpack(">I", header[12:16])[0] if len(header) == 16 else 0


class Meter:
    """write_bytes and the device's bytes around a piece of work on a database, and for each of its
    transactions: (write_bytes, device bytes, WAL restarts so far)."""

    def __init__(self, database: Path):
        self.database = database
        self.stat = device_stat(database.parent)
        self.each: list[tuple[int, int | None, int]] = []
        self.start = self.last = write_bytes()
        self.device = self.last_device = device_bytes(self.stat)
        self.began = time.perf_counter()

    def step(self) -> None:
        now, device = write_bytes(), device_bytes(self.stat)
        self.each.append((now - self.last, None if device is None else device - self.last_device,
                          wal_restarts(self.database)))
        self.last, self.last_device = now, device

    def result(self) -> dict:
        end_device = device_bytes(self.stat)
        return {"write_bytes": write_bytes() - self.start, "each": self.each,
                "restarts": self.each[-1][2] if self.each else 0,
                "device": None if self.device is None else end_device - self.device,
                "seconds": time.perf_counter() - self.began}


# ---- the cases, each in a child process ----------------------------------------------------------


def ledger_case(folder: Path, lines: list[str], checkpoints: bool) -> dict:
    """The project's writer, as the console writes a line: parsed, applied, durable before the next."""
    path = folder / "ledger.sqlite3"
    writer = LedgerWriter(path)
    conn = writer._conn  # the writer's own connection: its settings are read, not assumed
    settings = {name: conn.execute(f"PRAGMA {name}").fetchone()[0]
                for name in ("journal_mode", "synchronous", "wal_autocheckpoint", "page_size")}
    if not checkpoints:
        conn.execute("PRAGMA wal_autocheckpoint=0")
    meter = Meter(path)
    for line in lines:
        writer.apply(parse_line(line))
        meter.step()
    work = meter.result()
    closing = Meter(path)
    writer.close()
    rows = count_rows(path, "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM actions)")
    games = sum(line.startswith("game ") for line in lines)
    if rows != (games, len(lines) - games):
        raise SystemExit(f"sd_wear: the ledger holds {rows[0]} games and {rows[1]} entries after the run, "
                         f"not the {games} and {len(lines) - games} it was given")
    return {**work, "settings": settings, "close": closing.result()}


def bare_case(folder: Path, lines: list[str], synchronous: int) -> dict:
    """A bare SQLite insert of a row of the same text per entry (its line and an ISO time), a commit each."""
    path = folder / "bare.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={int(synchronous)}")
    conn.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, game INTEGER, line TEXT, at TEXT)")
    meter = Meter(path)
    for line in lines:
        at = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        conn.execute("BEGIN")
        conn.execute("INSERT INTO rows (game, line, at) VALUES (1, ?, ?)", (line, at))
        conn.execute("COMMIT")
        meter.step()
    work = meter.result()
    closing = Meter(path)
    conn.close()
    rows = count_rows(path, "SELECT count(*) FROM rows")
    if rows != (len(lines),):
        raise SystemExit(f"sd_wear: the bare table holds {rows[0]} rows after the run, not {len(lines)}")
    return {**work, "close": closing.result()}


def count_rows(path: Path, query: str) -> tuple:
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute(query).fetchone()
    finally:
        conn.close()


def run_child(case: str, folder: Path, lines: list[str], synchronous: int | None = None) -> dict:
    """One case in a fresh child process and a fresh folder; its figures as a dict."""
    folder.mkdir()
    (folder / "lines.txt").write_text("\n".join(lines) + "\n")
    command = [sys.executable, str(Path(__file__).resolve()), "--child", case, str(folder)]
    if synchronous is not None:
        command.append(str(synchronous))
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if result.returncode != 0:
        raise SystemExit(f"sd_wear: the {case} case failed: {result.stderr.strip()[-2000:]}")
    return json.loads(result.stdout)


def child_main(case: str, folder: str, synchronous: str | None) -> int:
    folder = Path(folder)
    lines = (folder / "lines.txt").read_text().splitlines()
    if case == "bare":
        figures = bare_case(folder, lines, int(synchronous))
    else:
        figures = ledger_case(folder, lines, checkpoints=case == "ledger")
    print(json.dumps(figures))
    return 0


# ---- the run -----------------------------------------------------------------------------------


def real_disk_folder() -> tuple[Path, str]:
    """The system's temporary folder, or /var/tmp when that one is in memory (``ledger.memory`` tells),
    and where it is; stops if neither is on a disk."""
    mounts = parse_mountinfo(MOUNTINFO.read_text(errors="replace"))
    skipped = []
    for candidate in (Path(tempfile.gettempdir()).resolve(), Path("/var/tmp").resolve()):
        mount = mount_of(str(candidate), mounts)
        if mount is None:  # in a chroot the mounts outside it are not listed: the block device tells
            device = os.stat(candidate).st_dev
            if device_stat(candidate) is None:
                skipped.append(f"{candidate} has no mount listed here (a chroot?) and no block device, not used")
                continue
            where = (f"{candidate} (block device {os.major(device)}:{os.minor(device)}, its mount outside this "
                     "root's mount table, as in a chroot; not in memory)")
            return candidate, "; ".join([*skipped, where])
        cause = memory_cause(str(candidate), mounts)
        if cause is None:
            where = f"{candidate} ({mount.fstype} on {mount.source}; not in memory)"
            return candidate, "; ".join([*skipped, where])
        skipped.append(f"{candidate} is in memory ({cause}), not used")
    raise SystemExit("sd_wear: neither the temporary folder nor /var/tmp is on a disk: no disk to measure")


def idle_device(stat: Path | None, seconds: float) -> int | None:
    """The device's bytes written while this benchmark writes nothing, for ``seconds``."""
    if stat is None:
        return None
    start = device_bytes(stat)
    time.sleep(seconds)
    return device_bytes(stat) - start


def measure(case: str, folder: Path, lines: list[str], synchronous: int | None = None) -> dict:
    """A case in its child process, then the device idle for as long (what the others write meanwhile)."""
    figures = run_child(case, folder, lines, synchronous)
    figures["idle"] = idle_device(device_stat(folder), figures["seconds"] + figures["close"]["seconds"])
    return figures


def size(value: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:,.1f} {unit}"
    return f"{value:,.0f} B"


def device_total(figures: dict) -> int | None:
    """The device's bytes over a case's work and its close."""
    return None if figures["device"] is None else figures["device"] + figures["close"]["device"]


def phase_medians(figures: dict, reused: bool) -> str:
    """Median write_bytes and device bytes of one transaction while the WAL grows (its first pass) or
    once it is reused from its start (after a checkpoint): growing a file also writes the filesystem's journal."""
    each = [(wrote, device) for wrote, device, restarts in figures["each"] if (restarts > 0) == reused]
    if not each:
        return "none in this run (no checkpoint yet)" if reused else "none"
    device = [d for _, d in each if d is not None]
    return (f"{size(statistics.median([w for w, _ in each]))} write_bytes, "
            + (f"{size(statistics.median(device))} on the device" if device else "the device not found")
            + f" ({len(each):,} transactions)")


def device_row(figures: dict, entries: int) -> str:
    total = device_total(figures)
    if total is None:
        return "the folder's block device was not found"
    return (f"{size(total)}: {size(total / entries)} an entry ({size(figures['idle'])} idle over as long "
            "just after: other processes write there too)")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return child_main(argv[1], argv[2], argv[3] if len(argv) > 3 else None)
    entries = int(argv[0]) if argv and argv[0].isdigit() else 0 if argv else 1000
    if entries < 2:
        raise SystemExit("sd_wear: give the entries to write as a whole number, at least 2 (default 1000)")
    lines, games = game_lines(entries)
    night_lines, _ = game_lines(0, GAMES_A_NIGHT, seed=31)
    base, where = real_disk_folder()
    with tempfile.TemporaryDirectory(prefix="sd-wear-", dir=base) as scratch:
        scratch = Path(scratch)
        cases = {"ledger": measure("ledger", scratch / "ledger", lines)}
        synchronous = cases["ledger"]["settings"]["synchronous"]
        cases["bare"] = measure("bare", scratch / "bare", lines, synchronous)
        cases["still"] = measure("ledger-no-checkpoints", scratch / "still", lines)
        cases["night"] = measure("ledger", scratch / "night", night_lines)
        cases["bare_night"] = measure("bare", scratch / "bare-night", night_lines, synchronous)
    report(where, len(lines), games, len(night_lines), **cases)
    return 0


def report(where: str, n: int, games: int, night_n: int, ledger: dict, bare: dict, still: dict, night: dict,
           bare_night: dict) -> None:
    """The table of what the cases wrote, and the year it makes against a card's endurance."""
    settings = ledger["settings"]
    synchronous = settings["synchronous"]
    sync = f"synchronous={SYNCHRONOUS.get(synchronous, synchronous)}"
    per_entry, bare_entry = ledger["write_bytes"] / n, bare["write_bytes"] / n
    checkpoint_share = (ledger["write_bytes"] - still["write_bytes"]) / n
    night_bytes = night["write_bytes"] + night["close"]["write_bytes"]
    night_entries = GAMES_A_NIGHT * GAME_ENTRIES
    year_bytes = NIGHTS_A_YEAR * (night_entries * night["write_bytes"] / night_n + night["close"]["write_bytes"])
    year, year_device = year_bytes, None
    night_device = [device for _, device, _ in night["each"] if device is not None]
    if night_device:  # the device's median a transaction is the figure the other processes move least
        year_device = NIGHTS_A_YEAR * (night_entries * statistics.median(night_device) + night["close"]["device"])
        year = max(year, year_device)
    print(f"Method: /proc/self/io write_bytes of a child process per case, around the work only (opening excluded), "
          f"each in a fresh folder under {where}; "
          f"whole six-card games of real record lines, game lines included (each line one transaction). "
          f"The writer's connection: journal_mode={settings['journal_mode']}, {sync} (read from it), "
          f"wal_autocheckpoint={settings['wal_autocheckpoint']} pages of {settings['page_size']} bytes.")
    rows = [
        (f"ledger: {n:,} entries ({games} game{'s' * (games != 1)}), checkpoints included",
         f"{size(ledger['write_bytes'])}: {size(per_entry)} an entry, {ledger['restarts']} WAL restarts "
         f"after a checkpoint; {ledger['seconds']:.1f} s"),
        ("  an entry while the WAL grows, median", phase_medians(ledger, reused=False)),
        ("  an entry once the WAL is reused after a checkpoint, median", phase_medians(ledger, reused=True)),
        ("  what the WAL's checkpoints add (against wal_autocheckpoint=0)",
         f"{size(checkpoint_share)} an entry ({size(still['write_bytes'] / n)} an entry without them, "
         f"{still['restarts']} restarts)"),
        ("  the close (the last checkpoint; the WAL removed)", size(ledger["close"]["write_bytes"])),
        ("  the device over the same work and close (sectors written x 512)", device_row(ledger, n)),
        (f"bare SQLite insert, WAL, {sync}: {n:,} rows, a commit each",
         f"{size(bare['write_bytes'])}: {size(bare_entry)} an entry, {bare['restarts']} WAL restarts"),
        ("  an entry while the WAL grows, median", phase_medians(bare, reused=False)),
        ("  an entry once the WAL is reused after a checkpoint, median", phase_medians(bare, reused=True)),
        ("  the device over the same work and close", device_row(bare, n)),
        ("ledger / bare SQLite, an entry", f"{per_entry / bare_entry:.2f}x"),
        (f"a {GAME_ENTRIES}-entry game", f"{size(GAME_ENTRIES * per_entry)} (bare SQLite {size(GAME_ENTRIES * bare_entry)}); "
                                         f"a game here averages {n / games:.1f} entries"),
        (f"a club night: {GAMES_A_NIGHT} games, {night_n} entries, the ledger opened and closed",
         f"{size(night_bytes)}, close included ({size(night['close']['write_bytes'])}): "
         f"{size(night_bytes / night_n)} an entry; bare SQLite "
         f"{size(bare_night['write_bytes'] + bare_night['close']['write_bytes'])}"),
        ("  an entry of the night, median", phase_medians(night, reused=False)),
        ("  the device over the night and its close", f"{device_row(night, night_n)}; bare SQLite "
                                                      f"{size(device_total(bare_night) or 0)}"),
        (f"a year: {NIGHTS_A_YEAR} club nights x {GAMES_A_NIGHT} games x {GAME_ENTRIES} entries a board "
         "(assumed), a close a night",
         f"{size(year_bytes)} by write_bytes"
         + (f", {size(year_device)} by the device (the night's median a transaction, its close)"
            if year_device is not None else "")),
    ]
    for amplification in WRITE_AMPLIFICATION:
        endurance = CARD_BYTES * CARD_CYCLES / amplification
        rows.append((f"  years to wear out a card at the larger, write amplification {amplification}x (assumed)",
                     f"{endurance / year:,.0f} years ({size(endurance)} of writes)"))
    print_table(rows)
    print(f"Assumed, not measured: a {CARD_BYTES / 1e9:.0f} GB consumer card of TLC flash rated about "
          f"{CARD_CYCLES} program/erase cycles, so {size(CARD_BYTES * CARD_CYCLES)} of flash writes; small "
          f"synchronous writes (4 KiB pages on flash pages of 16 KiB and erase blocks of MiB) cost the card "
          f"{' to '.join(f'{a}x' for a in WRITE_AMPLIFICATION)} what is sent (its controller is not known). "
          "The card's other writers (the system's logs) are not counted.")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The benchmarks still run: each script in bench/ has a short run here that checks what it measured was
accepted (bench/ledger.py once hid the ledger package from every script that put bench/ first on its path,
and bench/memory.py's session came to be refused, and nothing noticed: a benchmark is no test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import read_only_mount_problem

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.parametrize("script, argument", [("ledger.py", "5"), ("stopped_board.py", "2"), ("pairings.py", "40"),
                                              ("coach.py", "3")])
def test_a_small_run_of_a_benchmark_finishes_and_prints_its_table(script, argument, tmp_path):
    """Run from another folder, the script imports the project's packages (its ledger package, not
    bench/ledger.py), times something and prints figures (stopped_board.py: where a read-only bind mount
    can be made, as the web unit's; a chroot refuses the mount namespace)."""
    if script == "stopped_board.py" and read_only_mount_problem() is not None:
        pytest.skip(f"bench/stopped_board.py: {read_only_mount_problem()}")
    result = subprocess.run([sys.executable, str(ROOT / "bench" / script), argument], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "ms" in result.stdout or "us" in result.stdout, result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_small_run_of_the_sd_wear_benchmark_measures_the_ledger_beside_bare_sqlite(tmp_path):
    """bench/sd_wear.py with 60 entries, from another folder: each case in its child process wrote what it
    was given (the script stops otherwise), on a disk, and the table gives bytes an entry, the ratio to a
    bare SQLite insert with the writer's own synchronous setting, and the year against a card."""
    import re

    result = subprocess.run([sys.executable, str(ROOT / "bench" / "sd_wear.py"), "60"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "Traceback" not in result.stderr
    assert "synchronous=FULL (read from it)" in out and "not in memory" in out, out
    entries = re.search(r"^ledger: (\d+) entries .*?: ([\d.]+) KB an entry", out, re.M)
    assert entries and int(entries[1]) >= 60 and float(entries[2]) > 0, out
    assert re.search(r"^bare SQLite insert, WAL, synchronous=FULL: \d+ rows", out, re.M), out
    ratio = re.search(r"^ledger / bare SQLite, an entry +([\d.]+)x$", out, re.M)
    assert ratio and float(ratio[1]) > 0, out
    assert re.search(r"^a 30-entry game +[\d.]+ KB", out, re.M), out
    assert re.search(r"^a year: 52 club nights .* [\d.]+ MB by write_bytes", out, re.M), out
    assert re.search(r"years to wear out a card .* +[\d,]+ years", out), out


def test_the_sd_wear_benchmark_refuses_a_count_that_is_not_a_number():
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "sd_wear.py"), "many"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == "sd_wear: give the entries to write as a whole number, at least 2 (default 1000)"


def test_the_sd_wear_benchmark_finds_its_disk_in_a_chroot_whose_mount_table_lists_no_root(tmp_path):
    """In a chroot /proc/self/mountinfo lists only the mounts inside it (tests/system/test-install-arm64.sh): the
    folder's block device says it is a disk, and no mount found is no traceback."""
    import os

    chroot_mounts = tmp_path / "mountinfo"
    chroot_mounts.write_text("1 0 0:5 / /proc rw - proc proc rw\n")
    probe = (f"import pathlib, sd_wear; sd_wear.MOUNTINFO = pathlib.Path({str(chroot_mounts)!r})\n"
             "folder, where = sd_wear.real_disk_folder(); print(folder); print(where)")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT / "bench", capture_output=True, text=True,
                            timeout=60)
    assert "Traceback" not in result.stderr, result.stderr
    if result.returncode != 0:  # neither folder on a block device here (an overlay, say): said in one line
        assert result.stderr.strip().startswith("sd_wear: neither the temporary folder nor /var/tmp is on a disk")
        return
    folder, where = result.stdout.splitlines()
    device = os.stat(folder).st_dev
    assert Path(f"/sys/dev/block/{os.major(device)}:{os.minor(device)}").exists()
    assert f"block device {os.major(device)}:{os.minor(device)}" in where and "as in a chroot; not in memory" in where

def test_no_benchmark_puts_bench_before_the_project_on_its_path():
    """A script that puts bench/ on sys.path and imports the project's packages puts the root first."""
    import re

    for script in sorted((ROOT / "bench").glob("*.py")):
        text = script.read_text()
        if 'ROOT / "bench"' in text and re.search(r"^from (ledger|firmware|scorer|hardware)\b", text, re.M):
            assert "sys.path[:0] = [str(ROOT), " in text, script.name


@pytest.mark.slow
@pytest.mark.broker
def test_a_small_run_of_the_club_benchmark_finishes_and_prints_its_table(tmp_path):
    """bench/club.py at 3 tables for 1 s at 30 times a player's pace (a real broker, hub and baseline), from
    another folder: every message it sent is in both ledgers, and it prints its figures."""
    from broker import need_mosquitto

    need_mosquitto()
    # 3 s at the default pace (10) sent 4 messages; 1 s at 30 sends as many, 2 s sooner.
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "club.py"), "--tables", "3", "--seconds", "1",
                             "--pace", "30", "--drain", "30", "--nbody-steps", "2000", "--no-round-timing"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "entry -> /club/events" in result.stdout and " ms (" in result.stdout, result.stdout
    assert "Traceback" not in result.stderr


def _bench_script(name: str):
    """bench/NAME.py loaded as a module: bench/ is on sys.path while it loads (for the bench modules it
    imports), and sys.path is as it was afterwards (the script puts the root and tests/ first)."""
    import importlib.util

    saved = list(sys.path)
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


def test_the_club_benchmark_says_when_a_run_was_too_short_to_time_the_hub(capsys):
    """A short run whose hub used less CPU than the kernel's clock tick (10 ms) gets a cell that says so
    in the Pi estimates, not a division by zero (it happened at 3 tables for 1 s on a loaded machine)."""
    club = _bench_script("club")
    factors = {"here_s": 1.0, "Pi 4": (3.0, 4.5), "Pi Zero 2 W": (4.5, 6.75)}
    timed = {"tables": 40, "hub_cpu": 0.02, "hub_cpu_per_message": 0.0004}
    club.estimates([{"tables": 3, "hub_cpu": 0.0, "hub_cpu_per_message": 0.0}, timed], factors, 0.25)
    table = capsys.readouterr().out
    assert table.count("too little CPU to measure: run longer") == 2  # a row for each Pi
    assert "6-9 %" in table  # the timed size still gets its figures: 0.02 x 3.0-4.5 of a core


def _event(kind: str, data: dict) -> list[bytes]:
    import json

    return [f"event: {kind}\n".encode(), b"data: " + json.dumps(data).encode() + b"\n", b"\n"]


def test_the_club_benchmark_follows_club_events_whole_or_in_deltas():
    """bench/club.py's reader: today's whole events, and a snapshot then deltas (only the changed tables and
    standings rows), give each table's entries and each player's games the time they were first shown."""
    live = _bench_script("club_load").Live()  # bench/club.py's events reader
    row = {"player": "A", "games": 0, "place": 0}
    whole = {"version": 1, "title": "t", "html": "", "round": 1, "standings": [row, {**row, "player": "B"}],
             "tables": [{"table": "1", "online": False, "entries": 0, "sides": []}]}
    lines = [(line, 1.0) for line in [b": keep-alive\n", b"\n", *_event("message", whole)]]
    lines += [(line, 2.0) for line in _event("message", {**whole, "version": 2, "tables": [
        {"table": "1", "online": False, "entries": 2, "sides": []}]})]
    lines += [(line, 3.0) for line in _event("snapshot", {**whole, "version": 3, "tables": [
        {"table": "1", "online": True, "entries": 3, "sides": []}]})]
    lines += [(line, 4.0) for line in _event("delta", {"version": 4, "base": 3, "standings": [
        {"player": "A", "games": 1, "place": 0}, {"player": "B", "games": 1, "place": 1}]})]
    lines += [(line, 5.0) for line in _event("delta", {"version": 5, "base": 4, "tables": [
        {"table": "2", "online": True, "entries": 1, "sides": []}]})]
    lines += [(line, 6.0) for line in _event("delta", {"version": 7, "base": 6, "round": 2, "tables": [
        {"table": "1", "online": True, "entries": 4, "sides": []}]})]
    for line, at in lines:
        live.line(line, at)
    assert live.reached_entries == {"1": [2.0, 2.0, 3.0, 6.0], "2": [5.0]}
    assert live.reached_games == {"A": [4.0], "B": [4.0]}
    assert sorted(live.tables) == ["1", "2"] and live.rows["A"]["games"] == 1 and live.version == 7
    assert live.gaps == 1  # the last delta's base (6) was not the version held (5)
    assert [kind for _, kind, _ in live.events] == ["message", "message", "snapshot", "delta", "delta", "delta"]
    assert live.reached({"1": 4, "2": 1}, {"A": 1}) and not live.reached({"1": 5}, {})


@pytest.mark.slow
def test_a_small_run_of_the_phones_benchmark_times_taps_beside_clicks_and_counts_taps(tmp_path):
    """bench/phones.py with a few taps, from another folder: a real web view relays each tap to the running
    board (the script stops unless each is accepted and in the ledger), and the table gives both latencies,
    their ratio and the actions a deal."""
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "phones.py"), "--taps", "6", "--where", "disk",
                             "--games", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "tap to its answer at the client" in out and "click to its accepted outcome" in out, out
    assert "(6 taps, 6 clicks, each accepted and in the ledger)" in out, out
    assert "phone / board (goal: at most 0.5)" in out, out


# Each script's short run: its arguments and what its output must say (each a regular expression,
# multiline). The runs are from another folder, so a script that finds the project from the current
# folder fails here.
SHORT_RUNS = {
    "counting.py": (["--short", "--hands", "300", "--repeats", "1"], [
        r"^score_hand, itemised, random hand +[\d.]+ us",
        r"^hand_total, the totals path, random hand +[\d.]+ us",
        r"^lookup-table limit \(4 cards inline, unchecked\), random hand +[\d.]+ us, 1\.00x the limit",
        r"^hand_total: totals unlike score_hand's, 300 hands \(hand and crib\) +0$",
        r"^hand_parts: totals unlike score_hand's, 300 hands \(hand and crib\) +0$",
        r"^limit: totals unlike score_hand's, 300 hands \(hand\) +0$",
        r"^cribbage-scorer: totals unlike score_hand's, 300 hands \(hand\) +0$"]),
    "memory.py": (["--checkout", "--actions", "300"], [
        r"^peak RSS, simulate 300 actions +[\d.]+ MB",
        r"^  what they did, none refused +[1-9][\d,]* entries in the ledger, [1-9]\d* games finished$"]),
    "board.py": (["--short"], [
        r"^  press to show\(\) / bare transaction +[\d.]+x \(20 presses, each accepted and written\)$",
        r"^start to READY=1, 20 finished games \(median of 1\) +\d+ ms$", r"^peak memory \(VmHWM\) +[\d.]+ MB$"]),
    "startup.py": (["--short"], [
        r"^READY=1, 50 games / import baseline +[\d.]+x",
        r"^press to durable entry to show\(\) on disk, 20 accepted, median / bare WAL FULL transaction +[\d.]+x",
        r"^cribbage-board count 5H 5D 5S JC --starter 5C / python -c pass +[\d.]+x"]),
    "ledger_v2.py": (["20"], [r"^press to show\(\) on disk / bare WAL FULL transaction +[\d.]+x"]),
    "presses.py": (["20"], [r"^typical hand 5C 5D JC QC \+ 5H: before \d+, after \d+ \(played on the mock board\)$",
                            r"^20 random hands, mean: .*the first 20 after played on the mock board\)$"]),
    "spi.py": ([], [r"^  encode / wire time \(6\.4 MHz\) +[\d.]+ ms / [\d.]+ ms = [\d.]+$"]),
    "terminal_redraw.py": ([], [r"^80x24 +\d+ B +\d+ B +[\d.]+x$", r"^120x40 +\d+ B +\d+ B +[\d.]+x$"]),
    "web.py": (["--short"], [r"^starlette: entry -> event \(5 entries\) +median \d+ ms",
                             r"^aiohttp: entry -> event \(5 entries\) +median \d+ ms",
                             r"^starlette: GET /games/1 +first \d+ ms"]),
    "pages.py": (["--short"], [r"^web view: /games/1 +[\d.]+ ms$",
                               r"^hub: /club \(100 tables, 200 players\), a snapshot's first +[\d.]+ ms$"]),
    "history.py": (["--short"], [r"^games /games lists \(at most 50\) +10: 10; 100: 50$",
                                 r"^/games, gzip +10: [\d.]+ ms \(1\.00x\), [\d.]+ KB; 100: [\d.]+ ms \([\d.]+x\)"]),
    "wire_bytes.py": (["--entries", "4"], [
        r"^bytes on the wire, gzip : as written, /phone and what it loads \(4 files\) +0\.\d\dx \([\d,]+ against "
        r"[\d,]+ bytes; gzip\)$"]),
    "web_load.py": (["--rows", "burst", "--rounds", "1"], [
        r"^1005 console entries, 100 /events clients : none .* every line kept, \d+ entries and \d+ games"]),
}
# The scripts with short runs of their own above (ledger.py, stopped_board.py, pairings.py, sd_wear.py,
# club.py, phones.py, coach.py), and the modules the scripts import or start, each with the script that runs it.
OWN_TESTS = ("ledger.py", "stopped_board.py", "pairings.py", "sd_wear.py", "club.py", "phones.py", "coach.py")
HELPERS = {"table.py": "counting.py", "club_load.py": "club.py", "club_baseline.py": "club.py"}


def test_every_benchmark_script_has_a_short_run_in_the_suite():
    """Each bench/*.py is run short by a test here, or is a module a script that is run here uses."""
    scripts = {path.name for path in (ROOT / "bench").glob("*.py")}
    assert scripts == set(SHORT_RUNS) | set(OWN_TESTS) | set(HELPERS)
    for helper, user in HELPERS.items():
        assert helper.removesuffix(".py") in (ROOT / "bench" / user).read_text(), (helper, user)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SHORT_RUNS))
def test_a_short_run_of_each_benchmark_measures_what_it_was_given_accepted(script, tmp_path):
    """The script's short run, from another folder: it exits 0 (each stops when the board, the ledger or
    the count refuses what it was given, or when two counts differ) and prints the rows that say so."""
    import re

    arguments, expected = SHORT_RUNS[script]
    if script == "web.py":
        pytest.importorskip("aiohttp", reason="bench/web.py measures aiohttp beside Starlette: the bench extra")
    if script == "counting.py":
        pytest.importorskip("cribbage_scorer", reason="bench/counting.py compares with cribbage-scorer: the bench extra")
    result = subprocess.run([sys.executable, str(ROOT / "bench" / script), *arguments], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    for pattern in expected:
        assert re.search(pattern, result.stdout, re.M), (pattern, result.stdout)

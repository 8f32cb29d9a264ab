"""Benchmark: what a user waits for, as ratios to a baseline measured in the same run.

- start-up to READY=1 (1,000 and 10,000 finished games) against a process that
  only imports gpiozero, PIL, sqlite3 and tomllib
- ``cribbage-board replay example-game.txt`` (and with ``--json``, which loads
  json and re: no target), ``cribbage-board count 5H 5D 5S JC --starter 5C``
  and ``cribbage-board --version`` against ``python -c pass``, each checked
  once for the answer it must print before it is timed
- an accepted press to its entry durable and its LED frame handed to the
  strip's show(), the ledger on disk, against a bare SQLite WAL
  ``synchronous=FULL`` transaction on the same disk, side by side (in this
  process: no start-up in it; every timed press is checked written)
- wake-ups of an idle board in 10 s, all threads together
- SIGTERM (``systemctl stop``) to the board's exit, the ledger closed

The processes run as the board is installed (systemd/install.sh): a plain
``pip install .`` into its own venv (build/bench-venv, made on the first run,
the project reinstalled on each), bytecode compiled by pip, started through the
``cribbage-board`` command pip installs (the wrapper of the ``[project.scripts]``
entry point); each baseline runs that venv's python. A
development checkout measures differently: an editable install's finder
imports pathlib, re and urllib at every start of its venv's python (which
lowers every ratio to ``python -c pass``), and with PYTHONDONTWRITEBYTECODE set
each run compiles the project again; the last rows show that checkout for
comparison. Candidates and baselines are interleaved, round by round, and
each figure is a median.

Rerun: ``.venv/bin/python bench/startup.py`` (about 3 minutes; give
``--rounds N`` for more rounds on a busy machine).

Each figure has an estimate for a Raspberry Pi Zero 2 W: this machine's time
times PI_ZERO_2W_FACTOR (a range: the Zero 2 W's Cortex-A53 at 1 GHz runs
CPython 8-15x slower than one core here, and its SD card is slower still for
fsync, so the disk rows are a floor).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from board import BareTransaction, fill_ledger, latency, start_board  # noqa: E402
from table import print_table  # noqa: E402

PI_ZERO_2W_FACTOR = (8, 15)
RUNS = 7
BASELINE_IMPORTS = "import gpiozero, PIL.Image, sqlite3, tomllib"
TARGETS = {
    "ready_1000": 1.5, "replay": 3.0, "count": 2.5, "version": 2.5, "press": 2.0, "idle_wakeups": 20,
    "stop_s": 1.0,
}


def interleaved_seconds(commands: dict[str, list[str]], rounds: int) -> dict[str, float]:
    """Median wall time of each command from start to exit, run in turn round by
    round (the order reversed every other round), so load drifts hit all alike."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    order = list(commands)
    for k in range(rounds):
        for name in order if k % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            subprocess.run(commands[name], cwd=Path(tempfile.gettempdir()), check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def installed_venv() -> Path:
    """The project installed as systemd/install.sh installs it (``pip install .``, not
    editable) into build/bench-venv; its bin directory."""
    venv = ROOT / "build" / "bench-venv"
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    # Bytecode for everything, as on the Pi: with PYTHONDONTWRITEBYTECODE set, the venv's own
    # setuptools shim (_distutils_hack, run by a .pth at every start) would be compiled at
    # every start instead, which flatters every ratio to python -c pass (bench/README.md).
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    quiet = {"cwd": ROOT, "check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    if not (venv / "bin" / "cribbage-board").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], **quiet)
        subprocess.run(pip + [str(ROOT)], **quiet)
    else:  # this checkout's code, not the last run's
        subprocess.run(pip + ["--no-deps", "--force-reinstall", str(ROOT)], **quiet)
    subprocess.run([python, "-m", "compileall", "-q", str(venv / "lib")], **quiet)
    return venv / "bin"


def ready_seconds(paths: dict[str, Path], command: list[str], baseline: list[str], rounds: int) -> dict:
    """Median time to READY=1 for each ledger, and of the baseline process, interleaved."""
    times: dict[str, list[float]] = {name: [] for name in [*paths, "baseline"]}
    for k in range(rounds):
        order = [*paths, "baseline"]
        for name in order if k % 2 == 0 else order[::-1]:
            if name == "baseline":
                start = time.perf_counter()
                subprocess.run(baseline, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[name].append(time.perf_counter() - start)
            else:
                times[name].append(start_board(paths[name], command=command)["ready_s"])
    return {name: statistics.median(values) for name, values in times.items()}


def instructions(command: list[str]) -> int:
    """Instructions a command runs from start to exit, counted by valgrind's callgrind:
    unlike wall time, the same on a busy machine."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                          cwd=Path(tempfile.gettempdir()), check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def pi_zero(seconds: float) -> str:
    low, high = PI_ZERO_2W_FACTOR
    return f"{seconds * low * 1e3:.0f}-{seconds * high * 1e3:.0f} ms on a Pi Zero 2 W"


def ratio_row(name: str, seconds: float, baseline: float, target: float) -> tuple[str, str]:
    ratio = seconds / baseline
    verdict = "ok" if ratio <= target else "OVER"
    return (name, f"{ratio:.2f}x (target <= {target}x, {verdict}): {seconds * 1e3:.1f} ms vs "
                  f"{baseline * 1e3:.1f} ms; {pi_zero(seconds)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=RUNS, help="rounds of each command (medians)")
    parser.add_argument("--no-instructions", action="store_true",
                        help="leave out the instruction counts (callgrind; skipped without valgrind)")
    parser.add_argument("--short", action="store_true",
                        help="a quick check: 50 and 500 games, idle 1 s, 20 presses, one round (no figures to report)")
    options = parser.parse_args(argv)
    rounds = options.rounds
    few, many, idle_s, presses = (50, 500, 1.0, 20) if options.short else (1000, 10000, 10.0, 200)
    if options.short:
        rounds, options.no_instructions = 1, True
    bin_dir = installed_venv()
    python, board = str(bin_dir / "python"), str(bin_dir / "cribbage-board")
    rows = [("installed as systemd/install.sh does", f"{bin_dir.parent} (pip install ., bytecode compiled)")]
    with tempfile.TemporaryDirectory(dir=ROOT) as scratch:
        thousand, ten_thousand = Path(scratch) / "1k.sqlite3", Path(scratch) / "10k.sqlite3"
        fill_ledger(thousand, few)
        fill_ledger(ten_thousand, many)
        ready = ready_seconds({"1k": thousand, "10k": ten_thousand}, [board],
                              [python, "-c", BASELINE_IMPORTS], rounds)
        imports = ready["baseline"]
        rows.append(("baseline: python imports gpiozero, PIL, sqlite3, tomllib", f"{imports * 1e3:.1f} ms"))
        rows.append(ratio_row(f"READY=1, {few:,} games / import baseline", ready["1k"], imports, TARGETS["ready_1000"]))
        growth = ready["10k"] / ready["1k"] - 1
        rows.append((f"READY=1, {many:,} games over {few:,} (target <= 10%)",
                     f"{growth * 100:+.0f}% ({ready['10k'] * 1e3:.0f} ms vs {ready['1k'] * 1e3:.0f} ms)"))
        stops = [start_board(thousand, command=[board], stop=True)["stop_s"] for _ in range(rounds)]
        verdict = "ok" if statistics.median(stops) < TARGETS["stop_s"] else "OVER"
        rows.append((f"SIGTERM to exit, ledger closed, {few:,} games (target < 1 s)",
                     f"{statistics.median(stops) * 1e3:.0f} ms median, {max(stops) * 1e3:.0f} ms max ({verdict})"))
        idle = start_board(thousand, idle_seconds=idle_s, command=[board])
        verdict = "ok" if idle["idle_wakeups"] <= TARGETS["idle_wakeups"] * idle_s / 10 else "OVER"
        rows.append((f"idle wake-ups in {idle_s:g} s, all threads (target <= {TARGETS['idle_wakeups'] * idle_s / 10:g})",
                     f"{idle['idle_wakeups']} ({verdict})"))
        # One bare transaction after each press: this disk's fsync time drifts (0.3-4 ms here
        # from one minute to the next), so the floor is measured side by side, not after.
        side_by_side = BareTransaction(Path(scratch))
        timed = latency(Path(scratch), presses=presses, between=side_by_side)
        side_by_side.close()
        floor = statistics.median(side_by_side.times)
        rows.append(ratio_row(f"press to durable entry to show() on disk, {len(timed.shown)} accepted, "
                              "median / bare WAL FULL transaction", statistics.median(timed.shown), floor,
                              TARGETS["press"]))
        rows.append(("  of which press to durable entry", f"{statistics.median(timed.durable) * 1e3:.2f} ms"))
    example = str(ROOT / "tests" / "data" / "example-game.txt")
    count_args = ["count", "5H", "5D", "5S", "JC", "--starter", "5C"]
    dev = str(ROOT / ".venv" / "bin" / "python")
    commands = {
        "pass": [python, "-c", "pass"],
        "replay": [board, "replay", example],
        "replay json": [board, "replay", example, "--json"],
        "count": [board, *count_args],
        "version": [board, "--version"],
    }
    answers = {"replay": "Alice wins", "replay json": '"winner": "Alice"', "count": "nobs is 29",
               "version": "cribbage-board 0."}
    for name, answer in answers.items():  # what is timed is a command that did its work
        said = subprocess.run(commands[name], capture_output=True, text=True, check=True).stdout
        assert answer in said, (name, said[-300:])
    if Path(dev).exists():
        commands.update({
            "dev pass": [dev, "-c", "pass"],
            "dev replay": [dev, "-m", "firmware.cli", "replay", example],
            "dev count": [dev, "-m", "firmware.cli", *count_args],
            "dev version": [dev, "-m", "firmware.cli", "--version"],
        })
    times = interleaved_seconds(commands, rounds * 3)
    bare = times["pass"]
    rows.append(("baseline: python -c pass", f"{bare * 1e3:.1f} ms"))
    rows.append(ratio_row("cribbage-board replay example-game.txt / python -c pass",
                          times["replay"], bare, TARGETS["replay"]))
    rows.append(("  the same with --json (json loads re: no target)", f"{times['replay json'] / bare:.2f}x"))
    rows.append(ratio_row("cribbage-board count 5H 5D 5S JC --starter 5C / python -c pass",
                          times["count"], bare, TARGETS["count"]))
    rows.append(ratio_row("cribbage-board --version / python -c pass", times["version"], bare, TARGETS["version"]))
    if not options.no_instructions and shutil.which("valgrind"):
        named = ("pass", "replay", "replay json", "count", "version")
        counted = {name: instructions(commands[name]) for name in named}
        rows.append(("instructions (callgrind): python -c pass", f"{counted['pass'] / 1e6:.1f} M"))
        for name in named[1:]:
            rows.append((f"  {name} / python -c pass in instructions",
                         f"{counted[name] / counted['pass']:.2f}x: {counted[name] / 1e6:.1f} M"))
    if "dev pass" in times:
        dev_bare = times["dev pass"]
        rows.append(("development checkout (.venv, editable): python -c pass", f"{dev_bare * 1e3:.1f} ms"))
        rows.append(ratio_row("  python -m firmware.cli replay ... / its python -c pass",
                              times["dev replay"], dev_bare, TARGETS["replay"]))
        rows.append(ratio_row("  python -m firmware.cli count ... / its python -c pass",
                              times["dev count"], dev_bare, TARGETS["count"]))
        rows.append(ratio_row("  python -m firmware.cli --version / its python -c pass",
                              times["dev version"], dev_bare, TARGETS["version"]))
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

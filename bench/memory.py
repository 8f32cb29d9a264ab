"""Benchmark: peak memory of a long session on the mock board. Prints a table.

Plays 20,000 actions through ``cribbage-board simulate`` in a child process:
whole games, each deal its pegs in the play (dial and a colour button), an undo
and its redo (hold undo), and the show's counts (dial and the knob), every game
to its end and then a new game from the menu. The script is made beside the
rules (a scorebook kept in step), so that the board accepts every press: the
run must refuse none, and the entries in its ledger must be the ones the
script makes. It reports the child's peak resident memory against the 80 MB
target and, as a ratio, against a bare ``python -c "import firmware.pc.simulator"``.
Both run as installed (``pip install .`` into build/bench-venv, as
bench/startup.py does), not from the editable checkout. Each figure is that
process's own peak (``wait4``), started by a bare python: a child's peak also
counts the pages of the process that started it, and this one has the board
and the rules imported and the script's games in memory (started from here,
the bare import read 31 MB instead of 21).

    .venv/bin/python bench/memory.py [--actions N]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # the project's ledger package before bench/ledger.py

from firmware.pc.script import MAX_ACTIONS  # noqa: E402
from scorer.game import Entry  # noqa: E402
from scorer.record import Command, Scorebook, parse_line  # noqa: E402

from startup import installed_venv  # noqa: E402
from table import print_table  # noqa: E402

TARGET_MB = 80.0
FIRST_GAME = "game six-card seats=Red,Blue dealer=Red"  # the default config's game
NEXT_GAME = "game six-card seats=Red,Blue"  # the next of the match: the loser deals
BUTTONS = {"Red": "red", "Blue": "blue"}  # the first seat's colour, then the second's
SHOW_POINTS = (0, 2, 4, 6, 7, 8, 12, 16)


def dial(points: int) -> list[str]:
    return [f"turn {points}"] if points else []


def deal(book: Scorebook, rng: random.Random):
    """One deal as units of script, (lines, ledger entries, games finished), each applied to
    ``book`` as the board will apply it; a game that ends is followed by a new one from the menu."""
    game = book.game
    for _ in range(rng.randint(2, 6)):
        seat, points = rng.choice(game.seats), rng.randint(1, 3)
        book.apply(Entry.peg(seat, points))
        yield dial(points) + [f"click {BUTTONS[seat]}"], 1, 0
        if game.is_over:
            break
    else:
        book.apply(Command.UNDO)
        book.apply(Command.REDO)
        yield ["click undo", "hold undo"], 2, 0
        for seat, count in game.remaining_show():
            points = rng.choice(SHOW_POINTS)
            book.apply(Entry.crib(points) if count == "crib" else Entry.hand(seat, points))
            yield dial(points) + ["click knob"], 1, 0
            if game.is_over:
                break
    if game.is_over:
        book.apply(parse_line(NEXT_GAME))
        yield ["click menu", "click knob"], 0, 1


def session(actions: int) -> tuple[list[str], int, int]:
    """Exactly ``actions`` script lines the board accepts, the ledger entries they make and the
    games they finish (the last lines are ``wait 0`` when a whole unit no longer fits)."""
    rng = random.Random(21)
    book = Scorebook()
    book.apply(parse_line(FIRST_GAME))
    lines: list[str] = []
    entries = finished = 0
    while True:
        for unit, made, ended in deal(book, rng):
            if len(lines) + len(unit) > actions:
                return lines + ["wait 0"] * (actions - len(lines)), entries, finished
            lines += unit
            entries += made
            finished += ended


# Runs a command with its output to a file; prints its exit status, peak resident KB and seconds.
LAUNCHER = """import os, subprocess, sys, time
with open(sys.argv[1], "wb") as out:
    start = time.perf_counter()
    child = subprocess.Popen(sys.argv[2:], stdout=out)
    _, status, usage = os.wait4(child.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, time.perf_counter() - start)
"""


def run(python: Path, argv: list[str]) -> tuple[str, float, float]:
    """(standard output, peak resident MB, seconds) of a command, started by a bare ``python``."""
    with tempfile.NamedTemporaryFile("r") as out:
        said = subprocess.run([str(python), "-c", LAUNCHER, out.name, *argv], cwd=tempfile.gettempdir(),
                              capture_output=True, text=True, check=True).stdout.split()
        status, peak_kb, seconds = int(said[0]), int(said[1]), float(said[2])
        if status != 0:
            raise SystemExit(f"{' '.join(argv[:3])} ... exited {status}")
        return out.read(), peak_kb / 1024, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=MAX_ACTIONS,
                        help=f"actions in the session (default and most: {MAX_ACTIONS})")
    actions = parser.parse_args().actions
    lines, entries, finished = session(actions)
    bin_dir = installed_venv()
    python = bin_dir / "python"
    _, base_mb, _ = run(python, [str(python), "-c", "import firmware.pc.simulator"])
    with tempfile.TemporaryDirectory() as scratch:
        script, ledger = Path(scratch) / "session.txt", Path(scratch) / "ledger.sqlite3"
        script.write_text("\n".join(lines) + "\n")
        out, session_mb, seconds = run(python, [str(bin_dir / "cribbage-board"), "simulate", str(script),
                                                "--json", "--state", str(ledger)])
        conn = sqlite3.connect(ledger)
        written = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
        conn.close()
    result = json.loads(out)
    refused = len(result["rejected"])
    assert refused == 0, f"{refused} of {actions} actions refused, the first: {result['rejected'][0]}"
    assert written == entries, f"{written} entries in the ledger, the script makes {entries}"
    assert result["match"]["games"] == finished, f"{result['match']['games']} games finished, not {finished}"
    verdict = "under" if session_mb < TARGET_MB else "OVER"
    print_table([
        ("installed as systemd/install.sh does", f"{bin_dir.parent} (pip install .)"),
        ("peak RSS, python -c 'import firmware.pc.simulator'", f"{base_mb:.1f} MB"),
        (f"peak RSS, simulate {actions:,} actions", f"{session_mb:.1f} MB in {seconds:.1f} s"),
        ("  what they did, none refused", f"{written:,} entries in the ledger, {finished} games finished"),
        ("  against the target", f"{verdict} {TARGET_MB:.0f} MB ({session_mb / TARGET_MB:.2f} of it)"),
        ("  against the bare import", f"{session_mb / base_mb:.2f}x"),
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: peak memory of a long session on the mock board. Prints a table.

Plays 20,000 actions through ``cribbage-board simulate`` in a child process:
whole games, each deal its pegs in the play (dial and a colour button; never
the dealer's 2 first, which the board asks about: his heels or play points), an undo
and its redo (hold undo), and the show's counts (dial and the knob), every game
to its end and then a new game from the menu. A nineteen (nothing dialled) is
only ever a show's first count: right after the knob's press before, a press
with nothing dialled is a double press, which the board refuses. The script is made beside the
rules (a scorebook kept in step), so that the board accepts every press: the
run must refuse none, and the entries in its ledger must be the ones the
script makes. It reports the child's peak resident memory against the 80 MB
target and, as a ratio, against a bare ``python -c "import firmware.board.pc.simulator"``.
Both run as installed (``pip install .`` into build/bench-venv, as
bench/startup.py does), not from the editable checkout. Each figure is that
process's own peak (``wait4``), started by a bare python: a child's peak also
counts the pages of the process that started it, and this one has the board
and the rules imported and the script's games in memory (started from here,
the bare import read 31 MB instead of 21).

    .venv/bin/python bench/memory.py [--actions N] [--checkout]

``--checkout`` runs this checkout's ``python -m firmware.cli`` instead, with no
install: a quick check that the session still plays (tests/test_bench_scripts.py),
no figure to report.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # the project's ledger package before bench/ledger.py

from firmware.board.pc.script import MAX_ACTIONS  # noqa: E402
from scorer.game import FIXED_POINTS, Entry, EntryKind, Phase  # noqa: E402
from scorer.record import Command, Scorebook, parse_line  # noqa: E402

from startup import installed_venv  # noqa: E402
from table import print_table  # noqa: E402

TARGET_MB = 80.0
FIRST_GAME = "game six-card seats=Red,Blue dealer=Red"  # the default config's game
NEXT_GAME = "game six-card seats=Red,Blue"  # the next of the match: the loser deals
BUTTONS = {"Red": "red", "Blue": "blue"}  # the first seat's colour, then the second's
NINETEEN = 0  # no points: the knob pressed with nothing dialled
SHOW_POINTS = (NINETEEN, 2, 4, 6, 7, 8, 12, 16)


def dial(points: int) -> list[str]:
    return [f"turn {points}"] if points else []


def deal(book: Scorebook, rng: random.Random):
    """One deal as units of script, (lines, ledger entries, games finished), each applied to
    ``book`` as the board will apply it; a game that ends is followed by a new one from the menu."""
    game = book.game
    for _ in range(rng.randint(2, 6)):
        seat, points = rng.choice(game.seats), rng.randint(1, 3)
        if game.phase is Phase.HEELS and seat == game.dealer and points == FIXED_POINTS[EntryKind.HEELS]:
            points = 1  # the dealer's button with his heels' points dialled at the deal's start asks which
        book.apply(Entry.peg(seat, points))
        yield dial(points) + [f"click {BUTTONS[seat]}"], 1, 0
        if game.is_over:
            break
    else:
        book.apply(Command.UNDO)
        book.apply(Command.REDO)
        yield ["click undo", "hold undo"], 2, 0
        first = True
        for seat, count in game.remaining_show():
            # A knob press with nothing dialled right after the knob's press before is a double press.
            points = rng.choice(SHOW_POINTS if first else [p for p in SHOW_POINTS if p != NINETEEN])
            first = False
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


def run(python: Path, argv: list[str], path: str | None = None) -> tuple[str, float, float]:
    """(standard output, peak resident MB, seconds) of a command, started by a bare ``python``
    (``path``: put on PYTHONPATH, for the checkout)."""
    env = dict(os.environ, PYTHONPATH=path) if path else None
    with tempfile.NamedTemporaryFile("r") as out:
        said = subprocess.run([str(python), "-c", LAUNCHER, out.name, *argv], cwd=tempfile.gettempdir(),
                              capture_output=True, text=True, check=True, env=env).stdout.split()
        status, peak_kb, seconds = int(said[0]), int(said[1]), float(said[2])
        if status != 0:
            raise SystemExit(f"{' '.join(argv[:3])} ... exited {status}")
        return out.read(), peak_kb / 1024, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=MAX_ACTIONS,
                        help=f"actions in the session (default and most: {MAX_ACTIONS})")
    parser.add_argument("--checkout", action="store_true",
                        help="run this checkout's python -m firmware.cli, not an installed copy (a quick check)")
    args = parser.parse_args()
    actions = args.actions
    lines, entries, finished = session(actions)
    if args.checkout:
        python, command, where = Path(sys.executable), [sys.executable, "-m", "firmware.cli"], f"{ROOT} (checkout)"
        env_path = str(ROOT)
    else:
        bin_dir = installed_venv()
        python, command = bin_dir / "python", [str(bin_dir / "cribbage-board")]
        where, env_path = f"{bin_dir.parent} (pip install .)", None
    _, base_mb, _ = run(python, [str(python), "-c", "import firmware.board.pc.simulator"], env_path)
    with tempfile.TemporaryDirectory() as scratch:
        script, ledger = Path(scratch) / "session.txt", Path(scratch) / "ledger.sqlite3"
        script.write_text("\n".join(lines) + "\n")
        out, session_mb, seconds = run(python, [*command, "simulate", str(script), "--json", "--state", str(ledger)],
                                       env_path)
        conn = sqlite3.connect(ledger)
        written = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
        conn.close()
    result = json.loads(out)
    refused = len(result["rejected"])
    if refused:
        raise SystemExit(f"memory: {refused} of {actions} actions refused, the first: {result['rejected'][0]}")
    if written != entries:
        raise SystemExit(f"memory: {written} entries in the ledger, the script makes {entries}")
    if result["match"]["games"] != finished:
        raise SystemExit(f"memory: {result['match']['games']} games finished, not {finished}")
    verdict = "under" if session_mb < TARGET_MB else "OVER"
    print_table([
        ("installed as systemd/install.sh does" if not args.checkout else "run from", where),
        ("peak RSS, python -c 'import firmware.board.pc.simulator'", f"{base_mb:.1f} MB"),
        (f"peak RSS, simulate {actions:,} actions", f"{session_mb:.1f} MB in {seconds:.1f} s"),
        ("  what they did, none refused", f"{written:,} entries in the ledger, {finished} games finished"),
        ("  against the target", f"{verdict} {TARGET_MB:.0f} MB ({session_mb / TARGET_MB:.2f} of it)"),
        ("  against the bare import", f"{session_mb / base_mb:.2f}x"),
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())

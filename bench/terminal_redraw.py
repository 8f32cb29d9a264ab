"""Bytes the terminal board writes for one frame when one score changes: a full repaint
against only the changed cells (colour on, 80x24 and 120x40); with ``--against REV``
also the board of git revision REV, which cleared and repainted the whole screen
every frame (4efb1d8 is the last such revision).

    .venv/bin/python bench/terminal_redraw.py [--against 4efb1d8]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.board.pc.simulator import Simulator  # noqa: E402
from firmware.board.pc.terminal import changes, compose, full_paint  # noqa: E402
from firmware.config import load_config  # noqa: E402


def measure(columns: int, rows: int) -> tuple[int, int]:
    """(full repaint, changed cells only) in bytes for the frame after Blue pegs 2."""
    with tempfile.TemporaryDirectory() as scratch:
        sim = Simulator(load_config(), Path(scratch) / "ledger.sqlite3")
        try:
            sim.act("turn", "3")
            sim.act("click", "red")
            before = compose(sim, columns, rows, colour=True)
            sim.act("turn", "2")
            sim.act("click", "blue")
            after = compose(sim, columns, rows, colour=True)
        finally:
            sim.close()
    return len(full_paint(after).encode()), len(changes(before, after).encode())


OLD_FRAME = """
import io, sys, tempfile
from pathlib import Path
from firmware.config import load_config
from firmware import simulator
with tempfile.TemporaryDirectory() as scratch:
    sim = simulator.Simulator(load_config(), Path(scratch) / "ledger.sqlite3")
    try:
        for verb, argument in (("turn", "3"), ("click", "red"), ("turn", "2"), ("click", "blue")):
            sim.act(verb, argument)
        out = io.StringIO()
        simulator._paint(sim, out, True, True)
    finally:
        sim.close()
text = out.getvalue()
print(len(text.encode()), text.count("\\n"))
"""


def measure_old(revision: str) -> tuple[int, int]:
    """(bytes, rows) of one frame of the terminal board of ``revision`` after the same presses:
    that revision's tree, unpacked with ``git archive``, run in a process of its own."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tree:
        archive = subprocess.run(["git", "-C", str(root), "archive", revision], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, check=True)
        done = subprocess.run([sys.executable, "-c", OLD_FRAME], cwd=tree, env={**os.environ, "PYTHONPATH": tree},
                              capture_output=True, text=True, check=True)
    size, lines = done.stdout.split()
    return int(size), int(lines)


def main() -> None:
    print("size     full repaint  changed cells  ratio")
    for columns, rows in ((80, 24), (120, 40)):
        full, diff = measure(columns, rows)
        print(f"{columns}x{rows:<5} {full:>9} B  {diff:>10} B  {full / diff:5.1f}x")
    if "--against" in sys.argv:
        revision = sys.argv[sys.argv.index("--against") + 1]
        size, lines = measure_old(revision)
        print(f"{revision}: {size} B every frame (the whole screen cleared and repainted, {lines} rows)")


if __name__ == "__main__":
    main()

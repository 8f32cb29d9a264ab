"""Bytes the terminal board writes for one frame when one score changes: a full repaint
against only the changed cells (colour on, 80x24 and 120x40).

    .venv/bin/python bench/terminal_redraw.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.config import load_config  # noqa: E402
from firmware.simulator import Simulator  # noqa: E402
from firmware.terminal import changes, compose, full_paint  # noqa: E402


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


def main() -> None:
    print("size     full repaint  changed cells  ratio")
    for columns, rows in ((80, 24), (120, 40)):
        full, diff = measure(columns, rows)
        print(f"{columns}x{rows:<5} {full:>9} B  {diff:>10} B  {full / diff:5.1f}x")


if __name__ == "__main__":
    main()

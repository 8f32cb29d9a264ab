"""Benchmark: peak memory of a long session on the mock board. Prints a table.

Runs 6,000 actions (turns, colour presses, undos, knob presses) through
``cribbage-board simulate`` in a child process and reports its peak resident
memory (``ru_maxrss`` of the children) against the 80 MB target and, as a
ratio, against a bare ``python -c "import firmware.pc.simulator"``, measured
first in the same way on the same machine.

    .venv/bin/python bench/memory.py [--actions N]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from table import print_table  # noqa: E402

TARGET_MB = 80.0
# One round of play: dial and peg to red and blue, take one back, press the knob.
ROUND = ["turn 2", "click red", "turn 1", "click blue", "click undo", "click knob"]


def script(actions: int) -> str:
    """``actions`` lines of play, round after round."""
    return "\n".join(ROUND[k % len(ROUND)] for k in range(actions)) + "\n"


def peak_mb(argv: list[str]) -> tuple[float, float]:
    """(peak resident MB of the children so far, seconds) after running ``argv``.
    ru_maxrss is the largest child yet, so run the smaller command first."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=6000, help="actions in the session (default 6000)")
    actions = parser.parse_args().actions
    base_mb, _ = peak_mb([sys.executable, "-c", "import firmware.pc.simulator"])
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "session.txt"
        path.write_text(script(actions))
        session_mb, seconds = peak_mb([sys.executable, "-m", "firmware.cli", "simulate", str(path), "--json"])
    verdict = "under" if session_mb < TARGET_MB else "OVER"
    print_table([
        ("peak RSS, python -c 'import firmware.pc.simulator'", f"{base_mb:.1f} MB"),
        (f"peak RSS, simulate {actions:,} actions", f"{session_mb:.1f} MB in {seconds:.1f} s"),
        ("  against the target", f"{verdict} {TARGET_MB:.0f} MB ({session_mb / TARGET_MB:.2f} of it)"),
        ("  against the bare import", f"{session_mb / base_mb:.2f}x"),
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())

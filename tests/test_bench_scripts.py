"""The benchmarks still run: bench/ledger.py once hid the ledger package from every script that put
bench/ first on its path, and nothing noticed (a benchmark is no test; this is the smallest run of a few)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("script, argument", [("ledger.py", "5"), ("stopped_board.py", "2"), ("pairings.py", "40")])
def test_a_small_run_of_a_benchmark_finishes_and_prints_its_table(script, argument, tmp_path):
    """Run from another folder, the script imports the project's packages (its ledger package, not
    bench/ledger.py), times something and prints figures."""
    result = subprocess.run([sys.executable, str(ROOT / "bench" / script), argument], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "ms" in result.stdout or "us" in result.stdout, result.stdout
    assert "Traceback" not in result.stderr


def test_no_benchmark_puts_bench_before_the_project_on_its_path():
    """A script that puts bench/ on sys.path and imports the project's packages puts the root first."""
    import re

    for script in sorted((ROOT / "bench").glob("*.py")):
        text = script.read_text()
        if 'ROOT / "bench"' in text and re.search(r"^from (ledger|firmware|scorer|hardware)\b", text, re.M):
            assert "sys.path[:0] = [str(ROOT), " in text, script.name

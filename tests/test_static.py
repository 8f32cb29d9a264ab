"""The static checks, run as tests: ruff's lint rules and mypy's types (pyproject.toml's
[tool.ruff] and [tool.mypy]: strict on scorer, the files mypy checks listed there)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_tool(module: str, *args: str) -> subprocess.CompletedProcess:
    """``python -m module args`` in the project's folder with this python, which has the test extra;
    skipped where the tool is not installed."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed: pip install -e '.[test]'")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing():
    """ruff check, with the project's rules, finds nothing anywhere in the checkout."""
    result = run_tool("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_passes():
    """mypy, with the project's settings (the files and how strictly each is checked), finds no error."""
    result = run_tool("mypy")
    assert result.returncode == 0, result.stdout + result.stderr

"""Shared helpers for the tests."""

import subprocess
import textwrap

import pytest

from firmware.config import load_config
from firmware.pc.simulator import Simulator
from scorer.record import replay
from scorer.report import state_dict

from broker import broker  # noqa: F401  (a running Mosquitto, for the club tests)


def play(record: str) -> dict:
    """Replay a record given as indented text; return the JSON state."""
    result = replay(textwrap.dedent(record).strip().splitlines())
    return state_dict(result.book, result.rejected)


@pytest.fixture
def run_record():
    return play


def make(tmp_path, *overrides):
    """A board on mock pins with the default config (plus ``overrides``) and its ledger in ``tmp_path``."""
    return Simulator(load_config(overrides=list(overrides)), tmp_path / "ledger.sqlite3")


@pytest.fixture
def sim(tmp_path):
    """``make(tmp_path)``, closed afterwards."""
    board = make(tmp_path)
    try:
        yield board
    finally:
        board.close()


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MB tmpfs, unmounted afterwards; skipped where mounting is not permitted."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0777", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}): run as root to test a full disk")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)

"""Waiting for a condition in tests: a ceiling, never a pace, so a slow machine only takes longer."""

from __future__ import annotations

import time

CEILING_S = 30.0  # the longest a wait may take before the test fails


def eventually(condition, timeout: float = CEILING_S) -> bool:
    """True once ``condition()`` holds; False if it still does not after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return bool(condition())

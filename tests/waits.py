"""Waiting for a condition in tests: a ceiling, never a pace, so a slow machine only takes longer."""

from __future__ import annotations

import time

CEILING_S = 30.0  # the longest a wait may take before the test fails
# The longest one request may take: the first /stats counts every hand of each hand
# size, 0.9 s here and 41 s under qemu arm64 (systemd/test-install-arm64.sh).
REQUEST_CEILING_S = 120.0


def eventually(condition, timeout: float = CEILING_S) -> bool:
    """True once ``condition()`` holds; False if it still does not after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return bool(condition())

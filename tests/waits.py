"""Waiting for a condition in tests: a ceiling, never a pace, so a slow machine only takes longer."""

from __future__ import annotations

import os
import signal
import time
from contextlib import contextmanager

# The longest a wait may take before the test fails: 30 s, or CRIBBAGE_TEST_CEILING_S where everything is
# many times slower (tests/system/test-install-arm64.sh sets 120 under qemu-user, where a board takes 30 s and
# more to play a whole game). A ceiling, never a pace: a quick machine never waits longer for it.
CEILING_S = float(os.environ.get("CRIBBAGE_TEST_CEILING_S") or 30.0)
# The longest one request may take: the first /stats counts every hand of each hand
# size, 0.9 s here and 41 s under qemu arm64 (tests/system/test-install-arm64.sh).
REQUEST_CEILING_S = 120.0


def eventually(condition, timeout: float = CEILING_S) -> bool:
    """True once ``condition()`` holds; False if it still does not after ``timeout`` seconds.

    It asks again after 5 ms, then ever less often, up to every 50 ms: a quick condition is seen at
    once, and a long wait (a hub's or a server's answer each time) does not spend the suite's CPU."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(pause)
        pause = min(pause * 1.5, 0.05)
    return bool(condition())


class Blocked(BaseException):
    """A body ran past its time (not an OSError: nothing on the way may turn it into a message)."""


@contextmanager
def no_hang(seconds: float = 20):
    """Raise Blocked in the test if the body is still running after ``seconds`` (it blocked or spun)."""
    def expire(signum, frame):
        raise Blocked(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)

"""The hub's log: lines for the journal (standard error), a flood of dropped messages summed up."""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable


class Journal:
    """Lines for the journal (standard error): :meth:`say` always; :meth:`ignored` (a message
    dropped) at most ``burst`` lines a ``window``, then one line saying how many more."""

    def __init__(self, write: Callable[[str], None] | None = None, burst: int = 20, window: float = 60.0,
                 clock=time.monotonic):
        self._write = write or _to_stderr
        self.burst, self.window, self._clock = burst, window, clock
        self._lock = threading.Lock()
        self._began = clock()
        self._shown = self._hidden = 0

    def say(self, line: str) -> None:
        self._write(" ".join(str(line).split())[:400])

    def ignored(self, line: str) -> None:
        with self._lock:
            self._roll()
            if self._shown >= self.burst:
                self._hidden += 1
                return
            self._shown += 1
        self.say(f"ignored: {line}")

    def tick(self) -> None:
        with self._lock:
            self._roll()

    def _roll(self) -> None:
        now = self._clock()
        if now - self._began < self.window:
            return
        if self._hidden:
            self.say(f"ignored {self._hidden} more messages in {self.window:g} s (not each shown)")
        self._began, self._shown, self._hidden = now, 0, 0


def _to_stderr(line: str) -> None:
    try:
        print(f"cribbage-board hub: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass

"""SIGTERM and SIGINT wake the board's main loop at once, so ``systemctl stop`` is seen at once.

A signal handler must not take a lock (the main thread may hold the one it
needs), so it only notes the signal; Python's C-level handler also writes the
signal's number to a pipe (:func:`signal.set_wakeup_fd`), and a thread blocked
on that pipe calls ``wake``, which may take locks. Idle, the thread sleeps in
``read()``: it adds no wake-ups.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Callable

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopSignals:
    """While open (``with``; in the main thread only, elsewhere it does nothing), SIGTERM and
    SIGINT set ``received`` to the signal's number and call ``wake`` from a thread of its own."""

    def __init__(self, wake: Callable[[], None]):
        self.wake = wake
        self.received: int | None = None
        self._previous: dict[int, signal._HANDLER] = {}
        self._previous_fd = -1
        self._writer: int | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is not threading.main_thread():
            return self
        reader, self._writer = os.pipe()
        os.set_blocking(self._writer, False)  # a full pipe drops a byte, never blocks the handler
        self._thread = threading.Thread(target=self._watch, args=(reader,), name="stop signals", daemon=True)
        self._thread.start()
        self._previous_fd = signal.set_wakeup_fd(self._writer, warn_on_full_buffer=False)
        self._previous = {sig: signal.signal(sig, self._note) for sig in STOP_SIGNALS}
        return self

    def _note(self, signum, _frame) -> None:
        self.received = signum  # the watching thread wakes the loop

    def _watch(self, reader: int) -> None:
        try:
            while True:
                numbers = os.read(reader, 64)
                if not numbers:  # the write end closed: the board is closing
                    return
                if any(number in STOP_SIGNALS for number in numbers):
                    self.wake()
        finally:
            os.close(reader)

    def __exit__(self, *_exc) -> None:
        if self._writer is None:
            return
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(self._previous_fd)
        os.close(self._writer)
        self._writer = None
        if self._thread is not None:
            self._thread.join(timeout=5)

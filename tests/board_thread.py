"""The real main loop, ``Board.run()``, in its own thread on mock devices and the real clock.

Every wait is a ceiling, never a pace: a slow machine (an arm64 root under qemu) only takes
longer to pass, it does not fail.
"""

from __future__ import annotations

import threading

from firmware.board.devices import open_devices
from firmware.board.loop import Board
from firmware.board.pc.simulator import MOCK
from firmware.config import load_config
from ledger.writer import LedgerWriter

from waits import CEILING_S, eventually

BOUND_S = CEILING_S


class BoardThread:
    """Board.run() in a daemon thread (the ledger opened, used and closed there); journal lines kept."""

    def __init__(self, tmp_path, devices=None, config=None, **board_args):
        self.config = config or load_config()
        self.devices = devices or open_devices(self.config, MOCK, hold_s=0.05)
        self.journal: list[str] = []
        self.result = None
        ready = threading.Event()

        def main():  # SQLite: the ledger belongs to the loop's own thread
            store = self.opened_store(LedgerWriter(tmp_path / "l.sqlite3"))
            self.board = Board(self.config, store, self.devices, log=self.journal.append, **board_args)
            ready.set()
            self.result = self.board.run()

        self.thread = threading.Thread(target=main, daemon=True)
        self.thread.start()
        assert ready.wait(BOUND_S)

    def opened_store(self, store: LedgerWriter) -> LedgerWriter:
        """The ledger the board gets (a subclass may wrap it)."""
        return store

    def wait_until(self, condition, bound: float = BOUND_S) -> bool:
        """True once ``condition()`` holds; False if it still does not after ``bound`` seconds."""
        return eventually(condition, bound)

    def join(self) -> None:
        """Wait for run() to end by itself (a shut-down); it must."""
        self.thread.join(BOUND_S)
        assert not self.thread.is_alive()

    def stop(self) -> None:
        self.board.stop()
        self.join()

"""The hub's log: lines for the journal (standard error), a flood of dropped messages summed up, per table."""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable

TABLES_MOST = 256  # tables with a budget of their own; any more share the club's


class Journal:
    """Lines for the journal (standard error): :meth:`say` always; :meth:`ignored` (a message dropped)
    and :meth:`refused` (one the hub will not keep, told to its table) at most ``burst`` lines a
    ``window`` for each table (and as many for what names no table), then one line saying how many more
    of that table's: one table's flood never hides another's refusals."""

    def __init__(self, write: Callable[[str], None] | None = None, burst: int = 20, window: float = 60.0,
                 clock=time.monotonic):
        self._write = write or _to_stderr
        self.burst, self.window, self._clock = burst, window, clock
        self._lock = threading.Lock()
        self._began = clock()
        self._shown: dict[str | None, int] = {}  # table (None: none named) -> lines shown in this window
        self._hidden: dict[str | None, int] = {}  # table -> lines not shown in this window

    def say(self, line: str) -> None:
        self._write(" ".join(str(line).split())[:400])

    def ignored(self, line: str, table: str | None = None) -> None:
        """A message dropped (``table``: the table whose topic it came on), within that table's budget."""
        self._budgeted(f"ignored: {line}", table)

    def refused(self, line: str, table: str) -> None:
        """An entry or result ``table`` sent that the hub will not keep, within that table's budget."""
        self._budgeted(f"refused: {line}", table)

    def _budgeted(self, line: str, table: str | None) -> None:
        with self._lock:
            self._roll()
            if table not in self._shown and len(self._shown) >= TABLES_MOST:
                table = None
            if self._shown.get(table, 0) >= self.burst:
                self._hidden[table] = self._hidden.get(table, 0) + 1
                return
            self._shown[table] = self._shown.get(table, 0) + 1
        self.say(line)

    def tick(self) -> None:
        with self._lock:
            self._roll()

    def _roll(self) -> None:
        now = self._clock()
        if now - self._began < self.window:
            return
        for table, count in sorted(self._hidden.items(), key=lambda item: str(item[0])):
            where = f" from table {table}" if table is not None else ""
            self.say(f"ignored {count} more messages{where} in {self.window:g} s (not each shown)")
        self._began, self._shown, self._hidden = now, {}, {}


def _to_stderr(line: str) -> None:
    try:
        print(f"cribbage-board hub: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass

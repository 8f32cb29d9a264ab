"""The board's log: one line to standard error, which systemd's journal keeps when it runs as the service."""

from __future__ import annotations

import sys

PREFIX = "cribbage-board: "


def journal(line: str) -> None:
    """Write ``line`` to standard error with the program's name before it, at once (flushed)."""
    print(f"{PREFIX}{line}", file=sys.stderr, flush=True)

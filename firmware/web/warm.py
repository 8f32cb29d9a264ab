"""Count the statistics once in the background at start-up, so the first visit to /stats is quick.

``scorer.history`` keeps each finished game's figures once it has replayed it
(a game that is over never changes); replaying a few hundred games takes
seconds on a Pi Zero 2 W. This does it in a thread at the lowest CPU priority,
with a read-only reader of its own, while the server already answers.
"""

from __future__ import annotations

import os
import threading

from ledger.errors import LedgerError
from ledger.reader import LedgerReader
from scorer.history import player_stats


def warm(path) -> int:
    """Replay every finished and abandoned game of the ledger into ``scorer.history``'s
    cache; how many games were counted (0 when the ledger cannot be read: missing,
    damaged, or a path this process may not look at, which the pages say)."""
    try:
        with LedgerReader(path) as reader:
            records = [reader.export(game.id) for game in reversed(reader.games())]
    except (LedgerError, OSError):
        return 0
    try:
        player_stats(records)
    except ValueError:  # a game changed by another program: /stats sorts it out when asked
        return 0
    return len(records)


def warm_in_background(path) -> threading.Thread:
    """Start :func:`warm` in a daemon thread at the lowest priority (nice 19 on Linux)."""
    def run():
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)  # this thread only (Linux)
        except (AttributeError, OSError):
            pass
        warm(path)

    thread = threading.Thread(target=run, name="cribbage-web-warm", daemon=True)
    thread.start()
    return thread

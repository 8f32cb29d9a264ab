"""The hub writer's inbox: one typed message for each thing the writer is told, from any thread.

The writer takes what is there in one go (:meth:`Inbox.take`), so a burst of messages is one
transaction and one new snapshot.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from typing import Callable, NamedTuple


class Received(NamedTuple):
    """A table's ``entry`` or ``result`` to keep, or a result ``refused`` to note (``kind``), checked by the
    schema; acknowledged (``mid`` at ``qos``) once durable, if it came on connection ``generation``. Immutable."""

    kind: str
    table: str
    payload: dict
    mid: int
    qos: int
    generation: int


class FloorMoved(NamedTuple):
    """A board's ``status`` gave another floor for ``ledger``: the hub's word to ``table`` is due. Immutable."""

    table: str
    ledger: str


class TableChanged(NamedTuple):
    """What a table's ``status`` or ``state`` says changed (its card on the page); ``came``: it is new or
    came online or went (the night may begin). Immutable."""

    table: str
    came: bool


class BrokerChanged(NamedTuple):
    """The broker's state in words changed (the page says it)."""


class Connected(NamedTuple):
    """A connection as the club's one hub: everything retained is said again (the first time, the night
    may begin)."""


class PresenceAsked(NamedTuple):
    """Another hub asked about the club: this hub's presence is said again."""


class Stop(NamedTuple):
    """Wakes the writer to stop (what is queued is written first)."""


@dataclass
class Job:
    """A director's command to run on the writer thread; ``done`` once it has run (``value`` or ``error``)."""

    run: Callable
    done: threading.Event = field(default_factory=threading.Event)
    value: object = None
    error: BaseException | None = None


class Inbox:
    """The writer's queue (unbounded: what the broker delivers is already bounded by its in-flight window)."""

    def __init__(self):
        self._queue: queue.Queue = queue.Queue()

    def put(self, message) -> None:
        self._queue.put(message)

    def take(self, wait: float, most: int) -> list:
        """What is queued, up to ``most`` messages; waits up to ``wait`` seconds for the first."""
        items = []
        try:
            items.append(self._queue.get(timeout=wait))
            while len(items) < most:
                items.append(self._queue.get_nowait())
        except queue.Empty:
            pass
        return items

    def empty(self) -> bool:
        return self._queue.empty()

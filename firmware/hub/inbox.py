"""The hub writer's inbox: one typed message for each thing the writer is told, from any thread.

The writer takes what is there in one go (:meth:`Inbox.take`), so a burst of messages is one
transaction and one new snapshot.
"""

from __future__ import annotations

import queue
import threading
from collections import namedtuple
from dataclasses import dataclass, field
from typing import Callable


class Received(namedtuple("Received", "kind table payload mid qos generation")):
    """A table's ``entry`` or ``result`` to keep, or a result ``refused`` to note (``kind``), checked by the
    schema; acknowledged (``mid`` at ``qos``) once durable, if it came on connection ``generation``. Immutable."""

    __slots__ = ()


class FloorMoved(namedtuple("FloorMoved", "table ledger")):
    """A board's ``status`` gave another floor for ``ledger``: the hub's word to ``table`` is due. Immutable."""

    __slots__ = ()


class TableChanged(namedtuple("TableChanged", "table came")):
    """What a table's ``status`` or ``state`` says changed (its card on the page); ``came``: it is new or
    came online or went (the night may begin). Immutable."""

    __slots__ = ()


class BrokerChanged(namedtuple("BrokerChanged", "")):
    """The broker's state in words changed (the page says it)."""

    __slots__ = ()


class Connected(namedtuple("Connected", "")):
    """A connection as the club's one hub: everything retained is said again (the first time, the night
    may begin)."""

    __slots__ = ()


class PresenceAsked(namedtuple("PresenceAsked", "")):
    """Another hub asked about the club: this hub's presence is said again."""

    __slots__ = ()


class Stop(namedtuple("Stop", "")):
    """Wakes the writer to stop (what is queued is written first)."""

    __slots__ = ()


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

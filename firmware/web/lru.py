"""A small least-recently-used cache: a dict that forgets its oldest entries past a size."""

from __future__ import annotations

from collections import OrderedDict


class LRU:
    """At most ``size`` values by key; reading or storing a key makes it the newest."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()

    def get(self, key, default=None):
        try:
            self._items.move_to_end(key)
        except KeyError:
            return default
        return self._items[key]

    def put(self, key, value) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key) -> bool:
        return key in self._items

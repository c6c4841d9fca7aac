"""A bounded least-recently-used map, shared by threads: the per-process caches of what never
changes or is versioned (a Delta snapshot by its version, a data file's footer or columns by its
path: files are immutable and a path is never reused)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

__all__ = ["Lru"]


class Lru:
    """A small thread-safe LRU map (a server's connections share it), of at most `size` entries
    and, with `max_bytes`, at most that many bytes of values (their ``nbytes``)."""

    def __init__(self, size: int, max_bytes: int | None = None):
        self.size = size
        self.max_bytes = max_bytes
        self._bytes = 0
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def _weight(self, value: Any) -> int:
        return int(getattr(value, "nbytes", 0)) if self.max_bytes is not None else 0

    def get(self, key: Hashable) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            if key in self._items:
                self._bytes -= self._weight(self._items[key])
            self._items[key] = value
            self._items.move_to_end(key)
            self._bytes += self._weight(value)
            while len(self._items) > self.size or (self.max_bytes is not None and self._bytes > self.max_bytes):
                _, dropped = self._items.popitem(last=False)
                self._bytes -= self._weight(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

"""A small least-recently-used cache shared by the scorer's caches (private module)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRUCache(Generic[V]):
    """A map of at most ``capacity`` entries that forgets the least recently used one first.

    ``capacity`` 0 caches nothing (every :meth:`get_or_compute` computes).

    Thread safety: every method may be called from any number of threads (one lock). The value
    of a missing key is computed outside the lock, so two threads asking for the same new key
    may both compute it; callers only cache deterministic values, so either result is right.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = int(capacity)
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The cached value of ``key``, else ``compute()``, remembered."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = compute()
        self.put(key, value)
        return value

    def get(self, key: Hashable) -> V | None:
        """The cached value of ``key`` (marked as recently used), else None."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        return None

    def put(self, key: Hashable, value: V) -> None:
        """Remember ``value`` for ``key`` (nothing when the capacity is 0)."""
        if self.capacity > 0:
            with self._lock:
                self._data[key] = value
                self._data.move_to_end(key)
                while len(self._data) > self.capacity:
                    self._data.popitem(last=False)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._data.clear()

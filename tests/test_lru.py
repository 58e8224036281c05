"""The scorer's LRU cache: bounded, least recently used first out, capacity 0 caches nothing,
safe under concurrent use."""

from __future__ import annotations

import sys
from pathlib import Path

from director_fast._lru import LRUCache

sys.path.insert(0, str(Path(__file__).parent))
from _concurrency import run_threads  # noqa: E402


def test_eviction_order_and_capacity():
    c: LRUCache[int] = LRUCache(2)
    calls = []

    def value(k):
        def compute():
            calls.append(k)
            return k * 10
        return compute

    assert c.get_or_compute("a", value(1)) == 10 and c.get_or_compute("b", value(2)) == 20
    assert c.get_or_compute("a", value(9)) == 10  # hit: "a" is now the most recent
    c.get_or_compute("c", value(3))  # evicts "b"
    assert len(c) == 2 and calls == [1, 2, 3]
    c.get_or_compute("b", value(4))
    assert calls == [1, 2, 3, 4]
    zero: LRUCache[int] = LRUCache(0)
    zero.get_or_compute("x", value(5))
    zero.get_or_compute("x", value(6))
    assert calls[-2:] == [5, 6] and len(zero) == 0
    c.clear()
    assert len(c) == 0


def test_concurrent_use_stays_bounded_and_correct():
    c: LRUCache[int] = LRUCache(50)

    def work():
        for i in range(2000):
            k = i % 120
            assert c.get_or_compute(k, lambda k=k: k * k) == k * k

    assert run_threads(work) == [] and len(c) <= 50

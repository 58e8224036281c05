"""The guard in a live server: the upstream is closed on cancellation, close and garbage
collection; sync scorers run off the event loop in a bounded executor with real deadlines;
upstream failures are halts."""

from __future__ import annotations

import asyncio
import gc
import time

import pytest

import director_fast as df


def good(text):
    return 0.9


# --------------------------------------------------------------------------------------------
# 1. cancellation-safe streaming
# --------------------------------------------------------------------------------------------

class AgenUpstream:
    """An async-generator upstream (a model stream) that produces `before` tokens, then waits
    for more like a slow model; records when its ``finally`` ran."""

    def __init__(self, before=3):
        self.before = before
        self.closed_at = None
        self.produced = 0

    async def gen(self):
        try:
            for i in range(10_000):
                if i >= self.before:
                    await asyncio.sleep(3600)
                self.produced += 1
                yield f"w{i} "
        finally:
            self.closed_at = time.monotonic()


class AcloseOnlyUpstream:
    """Like an HTTP stream object: ``__anext__`` and ``aclose()`` only (no ``__aiter__``, no
    generator ``finally``)."""

    def __init__(self, before=3):
        self.before = before
        self.i = 0
        self.closed_at = None

    async def __anext__(self):
        if self.closed_at is not None:
            raise StopAsyncIteration
        if self.i >= self.before:
            await asyncio.sleep(3600)
        self.i += 1
        return f"w{self.i} "

    async def aclose(self):
        if self.closed_at is None:
            self.closed_at = time.monotonic()


async def _consume(guard, got, slow_consumer=False):
    async for tok in guard:
        got.append(tok)
        if slow_consumer and len(got) >= 2:
            await asyncio.sleep(3600)  # e.g. a write to a client socket that never drains


async def _one_cancellation(kind, how, where, use_with):
    up = AgenUpstream() if kind == "agen" else AcloseOnlyUpstream()
    src = up.gen() if kind == "agen" else up
    guard = df.astream_guard(src, good)
    got: list[str] = []
    slow = where == "consumer"

    async def body():
        if use_with:
            async with guard:
                await _consume(guard, got, slow)
        else:
            await _consume(guard, got, slow)

    if how == "cancel":
        task = asyncio.ensure_future(body())
        while len(got) < 2:
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.002)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    else:
        t0 = time.monotonic() + 0.03
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(body(), 0.03)
    # where == "consumer" without `async with`: nobody awaits the guard when the task is
    # cancelled; the guard follows its reading task and closes itself when it ends
    for _ in range(3):
        await asyncio.sleep(0)
    return up.closed_at, t0


async def test_upstream_closed_within_100ms_of_cancellation_100_of_100():
    combos = [(kind, how, where, use_with)
              for kind in ("agen", "aclose_only")
              for how in ("cancel", "wait_for")
              for where in ("upstream", "consumer")
              for use_with in (False, True)]
    delays = []
    for trial in range(100):
        kind, how, where, use_with = combos[trial % len(combos)]
        closed_at, t0 = await _one_cancellation(kind, how, where, use_with)
        assert closed_at is not None, (trial, kind, how, where, use_with)
        delays.append(closed_at - t0)
    assert max(delays) < 0.100, max(delays)


async def test_aclose_after_cancellation_and_aclose_only_object_on_halt():
    up = AcloseOnlyUpstream(before=100)
    guard = df.astream_guard(up, lambda t: 0.2)  # halts at the first token
    assert [t async for t in guard] == [] and guard.session.halt_reason == "hard_limit"
    assert up.closed_at is not None
    await guard.aclose()  # idempotent

    up = AgenUpstream()
    guard = df.astream_guard(up.gen(), good)
    task = asyncio.ensure_future(_consume(guard, []))
    await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert up.closed_at is not None and not guard.session.halted
    await guard.aclose()
    assert guard.session.end_time > 0


async def test_aclose_from_another_task_closes_the_upstream():
    up = AcloseOnlyUpstream()
    guard = df.astream_guard(up, good)
    got: list[str] = []
    task = asyncio.ensure_future(_consume(guard, got))
    while len(got) < 3:
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.005)  # the reader now waits inside the upstream's __anext__
    await guard.aclose()  # e.g. a disconnect handler
    assert up.closed_at is not None
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_async_guard_closes_upstream_on_garbage_collection():
    up = AgenUpstream(before=100)
    guard = df.astream_guard(up.gen(), good)
    it = guard.__aiter__()
    assert await it.__anext__() == "w0 "
    del guard, it
    gc.collect()
    for _ in range(5):
        await asyncio.sleep(0)
    assert up.closed_at is not None


def test_sync_guard_closes_upstream_on_garbage_collection_and_sdk_stream_objects():
    closed = []

    def gen():
        try:
            for i in range(100):
                yield f"w{i} "
        finally:
            closed.append("gen")

    g = df.stream_guard(gen(), good)
    assert next(g) == "w0 "
    del g
    gc.collect()
    assert closed == ["gen"]

    class SdkStream:
        """An SDK stream: ``__iter__`` is a generator; only the object's close() releases the
        HTTP response."""

        def __init__(self):
            self.closed = False

        def __iter__(self):
            for i in range(100):
                yield f"w{i}. "

        def close(self):
            self.closed = True

    for scorer in (lambda t: 0.2, good):
        sdk = SdkStream()
        g = df.stream_guard(sdk, scorer)
        out = list(g) if scorer is not good else [next(g)]
        if scorer is good:
            g.close()
        assert sdk.closed, out

"""The guard's own upstream deadlines: an idle timeout between tokens and a total deadline.

A stalled model must not hold a stream (and a server's connection) open until the SDK's own read
timeout (10 minutes by default for the OpenAI client). :func:`~director_fast.stream.stream_guard.stream_guard`
and :func:`~director_fast.stream.stream_guard.astream_guard` therefore bound every read of the token
source themselves:

* ``idle_timeout_s`` (default :data:`DEFAULT_IDLE_TIMEOUT_S`): the longest wait for the next token
  from the upstream. Only the wait for the upstream counts: time the guard spends scoring (or
  waiting for a busy scorer) and time the consumer spends between two tokens do not.
* ``deadline_s`` (default :data:`DEFAULT_DEADLINE_S`): the longest a stream may run, counted from
  the guard's creation; checked at every read.

Either one, when it passes, raises :class:`~director_fast.errors.UpstreamError` (``kind`` =
``"idle_timeout"`` or ``"deadline"``) from the read; the guard records it like any other upstream
failure: an ``upstream_error`` halt with a SafetyEvent (attribute ``upstream`` = the kind), the
held-back sentence not delivered, the upstream closed. ``None`` switches a limit off.

Async sources are interrupted at the limit (the pending read is cancelled). A synchronous
iterator cannot be interrupted from outside: the sync guard checks the limits when the read
returns (a token that arrived too late is not delivered); give the client a read timeout of its
own (``httpx.Timeout(read=...)``) to end a read that blocks forever. Tokens that are already in
memory (a ``list`` or ``tuple``, or a plain iterable handed to the async guard) are not bounded.

Thread-safety: one wrapper per guard, used by its one consumer.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any, AsyncIterator, Iterator

from director_fast.errors import ConfigError, UpstreamError

__all__ = ["DEFAULT_IDLE_TIMEOUT_S", "DEFAULT_DEADLINE_S", "check_limit", "timed_source", "atimed_source"]

#: default longest wait (seconds) for the next token from the upstream
DEFAULT_IDLE_TIMEOUT_S = 60.0
#: default longest run (seconds) of one guarded stream
DEFAULT_DEADLINE_S = 600.0

_timeout = getattr(asyncio, "timeout", None)  # Python 3.11+: no task per read


def check_limit(name: str, value: Any) -> float | None:
    """``value`` as seconds (a finite number > 0) or None.

    Raises:
        ConfigError: anything else (field ``name``).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 \
            or not math.isfinite(value):
        raise ConfigError(f"{name} must be a positive number of seconds or None, got {value!r}", field=name)
    return float(value)


def _expired(kind: str, limit: float) -> UpstreamError:
    what = ("no token from the upstream for" if kind == "idle_timeout" else "the stream ran longer than")
    return UpstreamError(f"{what} {limit:g} s (the guard's {'idle_timeout_s' if kind == 'idle_timeout' else 'deadline_s'})",
                         kind=kind, provider="guard")


class _TimedSync:
    __slots__ = ("_it", "_idle", "_end", "_deadline")

    def __init__(self, it: Iterator[str], idle: float | None, end: float | None, deadline: float | None) -> None:
        self._it, self._idle, self._end, self._deadline = it, idle, end, deadline

    def __iter__(self) -> "_TimedSync":
        return self

    def __next__(self) -> str:
        t0 = time.monotonic()
        try:
            tok = next(self._it)
        except StopIteration:  # a stall before the end is a stall too (the last sentence waits on it)
            self._check(t0)
            raise
        self._check(t0)
        return tok

    def _check(self, t0: float) -> None:
        """Raise when the read that began at ``t0`` ended past the deadline or the idle limit."""
        now = time.monotonic()
        if self._end is not None and now > self._end:
            raise _expired("deadline", self._deadline or 0.0)
        if self._idle is not None and now - t0 > self._idle:
            raise _expired("idle_timeout", self._idle)


class _TimedAsync:
    __slots__ = ("_it", "_idle", "_end", "_deadline")

    def __init__(self, it: AsyncIterator[str], idle: float | None, end: float | None,
                 deadline: float | None) -> None:
        self._it, self._idle, self._end, self._deadline = it, idle, end, deadline

    def __aiter__(self) -> "_TimedAsync":
        return self

    async def __anext__(self) -> str:
        wait = self._idle
        kind = "idle_timeout"
        if self._end is not None:
            left = self._end - time.monotonic()
            if left <= 0:
                raise _expired("deadline", self._deadline or 0.0)
            if wait is None or left < wait:
                wait, kind = left, "deadline"
        limit = self._idle if kind == "idle_timeout" else self._deadline
        if _timeout is None:  # pragma: no cover - Python 3.10
            try:
                return await asyncio.wait_for(self._it.__anext__(), wait)
            except asyncio.TimeoutError:
                raise _expired(kind, limit or 0.0) from None
        cm = _timeout(wait)
        try:
            async with cm:
                return await self._it.__anext__()
        except TimeoutError:
            if cm.expired():  # our limit, not a TimeoutError of the upstream's own
                raise _expired(kind, limit or 0.0) from None
            raise


def timed_source(it: Iterator[str], idle: float | None, deadline: float | None, start: float) -> Iterator[str]:
    """``it`` with the limits checked at every read (``start``: the stream's ``time.monotonic()``
    start); ``it`` itself when both are None."""
    if idle is None and deadline is None:
        return it
    return _TimedSync(it, idle, None if deadline is None else start + deadline, deadline)


def atimed_source(it: AsyncIterator[str], idle: float | None, deadline: float | None,
                  start: float) -> AsyncIterator[str]:
    """Async twin of :func:`timed_source`: a read that passes a limit is cancelled."""
    if idle is None and deadline is None:
        return it
    return _TimedAsync(it, idle, None if deadline is None else start + deadline, deadline)


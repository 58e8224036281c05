"""A bounded thread pool for synchronous scorer calls (``astream_guard``, ``scorer_timeout_s``).

:class:`ScorerExecutor` runs calls on at most ``max_workers`` daemon threads, started when needed
and stopped after ``idle_timeout_s`` without work. Calls beyond the running ones wait in a FIFO
queue: a busy scorer **delays** a stream (backpressure), it does not halt it.

* **Queue bound.** A guarded stream has at most one scorer call in flight (it reads nothing more
  from its upstream until that call has answered), so the queue never holds more calls than
  there are open streams: by default (``max_pending=None``) that per-stream budget of one call is
  the only bound. ``max_pending=N`` sets a fixed level beyond which the executor is *saturated*;
  ``on_saturated`` then says what a new call does: ``"wait"`` (default: it is queued anyway, the
  saturation is counted and logged) or ``"fail"`` (:meth:`try_submit` returns ``None`` and the
  stream fails closed at once).
* **Deadlines count from the start of the call.** :meth:`result` / :meth:`aresult` wait for a
  call's answer with a deadline counted from when a worker *started* it, never from when it was
  queued: time spent waiting behind other calls is not the scorer's fault.
* **A stalled executor fails closed.** A call that missed its deadline keeps its worker until the
  scorer returns (Python cannot stop a running thread). When every worker is held by such an
  overdue call nothing queued can start: the executor is *stalled*, its queued calls fail at once
  with :class:`ExecutorStalled` and new calls are refused until an overdue call returns. The
  number of threads never grows beyond ``max_workers``.

Visible in metrics (:mod:`director_fast.telemetry`): ``director_fast_scorer_queue_seconds``
(histogram: seconds each call waited for a worker) and ``director_fast_executor_saturated_total``
(counter, label ``outcome``: ``wait``, ``fail`` or ``stalled``); saturation and stalls are also
logged at WARNING (rate-limited).

``ScorerExecutor.for_scorer(scorer)`` is the executor shared by every stream guarded with that
scorer object (created on first use, released with the scorer).

Thread-safety: every method may be called from any thread; :meth:`aresult` from a running event
loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import os
import threading
import time
import weakref
from collections import deque
from typing import Any, Callable

from director_fast import telemetry as _telemetry
from director_fast._log import warn_limited
from director_fast.errors import ConfigError, InputTypeError

logger = logging.getLogger("director_fast.stream.executor")

__all__ = ["ScorerExecutor", "ScorerCall", "ExecutorStalled", "DeadlineMissed", "default_max_workers",
           "SATURATION_POLICIES"]

#: what a call does when a bounded executor is saturated
SATURATION_POLICIES = ("wait", "fail")


def default_max_workers() -> int:
    """``min(32, cpu_count + 4)``: the standard library's thread-pool default."""
    return min(32, (os.cpu_count() or 1) + 4)


def _check_count(name: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputTypeError(f"{name} must be an int, got {type(v).__name__}")
    if not lo <= v <= hi:
        raise ConfigError(f"{name} must be in [{lo}, {hi}], got {v}", field=name)
    return v


class ExecutorStalled(TimeoutError):
    """Every worker of the executor is held by a call that missed its deadline: a queued call
    cannot start (the scorer is hung or far too slow). The guard fails closed with
    ``callback_timeout`` (SafetyEvent attribute ``executor_stalled="true"``)."""


class DeadlineMissed(TimeoutError):
    """A call ran longer than its deadline (counted from its start); it still holds its worker."""


class ScorerCall(concurrent.futures.Future):
    """The Future of one scorer call; ``submitted_at`` / ``started_at`` are ``time.monotonic()``
    seconds (``started_at`` is None while the call waits for a worker)."""

    def __init__(self) -> None:
        super().__init__()
        self.submitted_at = time.monotonic()
        self.started_at: float | None = None
        self.overdue = False  # missed its deadline while running (executor lock)
        self.finished = False  # the scorer returned or raised (executor lock)


class ScorerExecutor:
    """Bounded pool of daemon threads for synchronous scorer calls (module docstring).

    Args:
        max_workers: most threads alive at once (1 to 4096; default ``min(32, cpu_count + 4)``).
        max_pending: waiting calls (on top of the ``max_workers`` running ones) beyond which the
            executor is saturated (0 to 1,000,000), or ``None`` (default): no fixed level; the queue holds
            at most one call per open stream.
        on_saturated: ``"wait"`` (default: a call made while saturated is queued anyway, the
            stream is delayed; counted and logged) or ``"fail"`` (it is refused and the stream
            halts at once with ``callback_timeout``, SafetyEvent attribute
            ``executor_saturated="true"``). Only meaningful with ``max_pending``.
        idle_timeout_s: a worker with nothing to do for this long exits (> 0, default 30 s).
        name: thread name prefix.

    Raises:
        ConfigError / InputTypeError: invalid arguments (the message names the field).

    Thread-safety: all methods are thread-safe. Workers are daemon threads, so a scorer call
    that never returns cannot keep the interpreter from exiting.
    """

    def __init__(self, max_workers: int | None = None, *, max_pending: int | None = None,
                 on_saturated: str = "wait", idle_timeout_s: float = 30.0,
                 name: str = "director_fast-scorer") -> None:
        mw = default_max_workers() if max_workers is None else _check_count("max_workers", max_workers, 1, 4096)
        mp = None if max_pending is None else _check_count("max_pending", max_pending, 0, 1_000_000)
        if on_saturated not in SATURATION_POLICIES:
            raise ConfigError(f"on_saturated must be one of {SATURATION_POLICIES}, got {on_saturated!r}",
                              field="on_saturated")
        if isinstance(idle_timeout_s, bool) or not isinstance(idle_timeout_s, (int, float)) \
                or not idle_timeout_s > 0 or idle_timeout_s != idle_timeout_s:
            raise ConfigError("idle_timeout_s must be a positive number of seconds", field="idle_timeout_s")
        if not isinstance(name, str):
            raise InputTypeError("name must be a str")
        self._max_workers = mw
        self._max_pending = mp
        self._policy = on_saturated
        self._idle_timeout = float(idle_timeout_s)
        self._name = name
        self._cv = threading.Condition(threading.Lock())
        self._queue: deque[tuple[ScorerCall, Callable[..., Any], tuple, dict]] = deque()
        self._alive = 0
        self._idle = 0
        self._in_flight = 0
        self._overdue = 0  # running calls that missed their deadline
        self._shutdown = False
        self._seq = 0
        self._saturations = 0
        self._peak_queued = 0

    # ---- introspection -------------------------------------------------------------------------
    @property
    def max_workers(self) -> int:
        """Most threads this executor ever has alive."""
        return self._max_workers

    @property
    def max_pending(self) -> int | None:
        """Waiting calls beyond which the executor is saturated (None: no fixed level)."""
        return self._max_pending

    @property
    def on_saturated(self) -> str:
        """``"wait"`` or ``"fail"``: what a call made while saturated does."""
        return self._policy

    @property
    def in_flight(self) -> int:
        """Calls running or waiting (an overdue call counts until its scorer returns)."""
        return self._in_flight

    @property
    def queued(self) -> int:
        """Calls waiting for a worker now."""
        return len(self._queue)

    @property
    def peak_queued(self) -> int:
        """Most calls ever waiting at once."""
        return self._peak_queued

    @property
    def saturations(self) -> int:
        """Calls made while the executor was saturated or stalled (waited, refused or failed)."""
        return self._saturations

    @property
    def threads_alive(self) -> int:
        """Worker threads alive now (<= :attr:`max_workers`)."""
        return self._alive

    @property
    def saturated(self) -> bool:
        """True when ``max_pending`` is set and that many calls are waiting beyond the running
        ones."""
        mp = self._max_pending
        return mp is not None and self._in_flight >= self._max_workers + mp

    @property
    def stalled(self) -> bool:
        """True while every worker is held by a call that missed its deadline."""
        return self._overdue >= self._max_workers

    def __repr__(self) -> str:
        return (f"ScorerExecutor(max_workers={self._max_workers}, max_pending={self._max_pending}, "
                f"on_saturated={self._policy!r}, in_flight={self._in_flight}, queued={len(self._queue)}, "
                f"threads_alive={self._alive})")

    # ---- work ----------------------------------------------------------------------------------
    def try_submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> ScorerCall | None:
        """Schedule ``fn(*args, **kwargs)``; returns its :class:`ScorerCall` (a Future), or ``None``
        when the call is refused: the executor is stalled, or saturated with
        ``on_saturated="fail"``.

        Cancelling the Future of a call that has not started removes it from the queue.

        Raises:
            ConfigError: (field ``executor``) after :meth:`shutdown`.
        """
        fut = ScorerCall()
        cv = self._cv
        outcome = None
        with cv:
            if self._shutdown:
                raise ConfigError("the ScorerExecutor was shut down", field="executor")
            if self._overdue >= self._max_workers:
                outcome = "stalled"
            elif self.saturated:
                outcome = self._policy
            if outcome is not None:
                self._saturations += 1
            if outcome not in ("stalled", "fail"):
                self._in_flight += 1
                q = self._queue
                q.append((fut, fn, args, kwargs))
                if len(q) > self._peak_queued:
                    self._peak_queued = len(q)
                if self._idle >= len(q):
                    cv.notify()
                elif self._alive < self._max_workers:
                    self._spawn()
        if outcome is not None:
            self._report(outcome)
            if outcome != "wait":
                return None
        fut.add_done_callback(self._on_done)
        return fut

    def _report(self, outcome: str) -> None:
        _telemetry.record_saturation(outcome)
        what = {"wait": "saturated: the call waits (backpressure)",
                "fail": "saturated: the call is refused (on_saturated='fail')",
                "stalled": "stalled: every worker is held by a call past its deadline"}[outcome]
        warn_limited(logger, "executor_" + outcome, "%s: %s (%d in flight, %d queued, max_workers=%d, "
                     "max_pending=%s)", self._name, what, self._in_flight, len(self._queue),
                     self._max_workers, self._max_pending)

    def _on_done(self, fut: concurrent.futures.Future) -> None:
        if not fut.cancelled():
            return
        with self._cv:  # a call cancelled before a worker took it: free its slot now
            q = self._queue
            for i, item in enumerate(q):
                if item[0] is fut:
                    del q[i]
                    self._in_flight -= 1
                    return

    def _spawn(self) -> None:  # called with the lock held
        self._seq += 1
        t = threading.Thread(target=self._worker, name=f"{self._name}-{self._seq}", daemon=True)
        self._alive += 1
        logger.debug("%s: starting worker %s (%d of %d)", self._name, t.name, self._alive, self._max_workers)
        try:
            t.start()
        except BaseException:
            self._alive -= 1
            raise

    def _worker(self) -> None:
        cv = self._cv
        q = self._queue
        while True:
            with cv:
                while not q:
                    if self._shutdown:
                        self._alive -= 1
                        return
                    self._idle += 1
                    woke = cv.wait(self._idle_timeout)
                    self._idle -= 1
                    if not woke and not q:
                        self._alive -= 1
                        return
                fut, fn, args, kwargs = q.popleft()
            if not fut.set_running_or_notify_cancel():
                with cv:
                    self._in_flight -= 1
                continue
            fut.started_at = now = time.monotonic()
            _telemetry.record_queue_wait(now - fut.submitted_at)
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to the caller through the Future
                self._finished(fut)
                fut.set_exception(exc)
            else:
                # the slot is freed before the result is published, so a caller that submits its
                # next call as soon as it sees this result never finds the executor saturated
                self._finished(fut)
                fut.set_result(result)
            del fut, fn, args, kwargs

    def _finished(self, fut: ScorerCall) -> None:
        with self._cv:
            self._in_flight -= 1
            fut.finished = True
            if fut.overdue:
                self._overdue -= 1

    def _mark_overdue(self, fut: ScorerCall) -> None:
        """``fut`` (running) missed its deadline; when that leaves no worker free of overdue
        calls, fail every queued call with :class:`ExecutorStalled`."""
        failed: list[ScorerCall] = []
        with self._cv:
            if fut.overdue or fut.finished or fut.started_at is None:
                return
            fut.overdue = True
            self._overdue += 1
            if self._overdue >= self._max_workers:
                while self._queue:
                    failed.append(self._queue.popleft()[0])
                    self._in_flight -= 1
                    self._saturations += 1
        for f in failed:
            if f.set_running_or_notify_cancel():
                f.set_exception(ExecutorStalled(
                    f"{self._name}: every worker is held by a scorer call past its deadline"))
        if failed:
            self._report("stalled")

    # ---- waiting for a call --------------------------------------------------------------------
    def _left(self, fut: ScorerCall, timeout: float) -> float | None:
        """Seconds left of ``fut``'s deadline (None while it waits for a worker)."""
        started = fut.started_at
        return None if started is None else started + timeout - time.monotonic()

    def result(self, fut: ScorerCall, timeout: float | None) -> Any:
        """Wait (blocking) for ``fut``'s result; ``timeout`` seconds counted from when the call
        started running (None: no deadline).

        Raises:
            DeadlineMissed: the call ran past its deadline (it keeps its worker until it returns);
            ExecutorStalled: the call could not start (see the module docstring); the scorer's own
            exception.
        """
        while True:
            if timeout is None:
                return fut.result()
            left = self._left(fut, timeout)
            if left is not None and left <= 0 and not fut.done():
                self._mark_overdue(fut)
                raise DeadlineMissed(f"scorer call exceeded its {timeout} s deadline")
            concurrent.futures.wait((fut,), timeout if left is None else left)
            if fut.done():
                return fut.result()

    async def aresult(self, fut: ScorerCall, timeout: float | None) -> Any:
        """Async twin of :meth:`result` (the loop is never blocked). Cancelling the waiting task
        cancels a call that has not started."""
        afut = asyncio.wrap_future(fut)
        try:
            while True:
                left = None if timeout is None else self._left(fut, timeout)
                if left is not None and left <= 0 and not afut.done():
                    self._mark_overdue(fut)
                    raise DeadlineMissed(f"scorer call exceeded its {timeout} s deadline")
                await asyncio.wait((afut,), timeout=timeout if left is None else left)
                if afut.done():
                    return afut.result()
        except asyncio.CancelledError:
            afut.cancel()  # a queued call leaves the queue; a running one finishes on its own
            raise

    def shutdown(self) -> None:
        """Refuse new calls and let idle workers exit (running calls finish on their own)."""
        with self._cv:
            self._shutdown = True
            self._cv.notify_all()

    # ---- one executor per scorer ---------------------------------------------------------------
    _registry: dict[int, tuple[Any, "ScorerExecutor"]] = {}
    _registry_lock = threading.Lock()
    _fallback: "ScorerExecutor | None" = None
    # (key, weak reference) of scorers that were garbage collected, for the next registry call to
    # drop: a weakref callback runs wherever the collector does, possibly inside a section that
    # holds the registry lock, so it only appends (atomic) and never takes a lock
    _dead: deque[tuple[int, Any]] = deque()

    @classmethod
    def for_scorer(cls, scorer: Any) -> "ScorerExecutor":
        """The executor shared by every guard of ``scorer`` (created with the defaults on first
        use; dropped and shut down by the first registry call after the scorer is garbage
        collected). For a bound method the executor of the object it is bound to. Objects that
        cannot be weakly referenced share one process-wide executor."""
        target = getattr(scorer, "__self__", None)
        if target is None or isinstance(target, type(os)):  # a builtin's __self__ is its module
            target = scorer
        key = id(target)
        with cls._registry_lock:
            dropped = cls._drop_dead()
            entry = cls._registry.get(key)
            if entry is not None and entry[0]() is target:
                ex = entry[1]
            else:
                try:
                    ref = weakref.ref(target, functools.partial(cls._forget, key))
                except TypeError:
                    if cls._fallback is None:
                        cls._fallback = ScorerExecutor()
                    ex = cls._fallback
                else:
                    ex = ScorerExecutor()
                    cls._registry[key] = (ref, ex)
        for old in dropped:
            old.shutdown()
        return ex

    @classmethod
    def set_for_scorer(cls, scorer: Any, executor: "ScorerExecutor") -> None:
        """Make ``executor`` the one :meth:`for_scorer` returns for ``scorer`` (e.g. a smaller or
        larger pool, or ``ScorerExecutor(1)`` for a scorer that is not thread-safe).

        Raises:
            InputTypeError: ``executor`` is not a ScorerExecutor, or ``scorer`` cannot be weakly
            referenced (pass ``executor=`` to the guard instead).
        """
        if not isinstance(executor, ScorerExecutor):
            raise InputTypeError(f"executor must be a ScorerExecutor, got {type(executor).__name__}")
        target = getattr(scorer, "__self__", None)
        if target is None or isinstance(target, type(os)):
            target = scorer
        key = id(target)
        try:
            ref = weakref.ref(target, functools.partial(cls._forget, key))
        except TypeError:
            raise InputTypeError(
                f"scorer of type {type(target).__name__} cannot be weakly referenced; pass "
                "executor= to the guard instead") from None
        with cls._registry_lock:
            dropped = cls._drop_dead()
            cls._registry[key] = (ref, executor)
        for old in dropped:
            old.shutdown()

    @classmethod
    def _forget(cls, key: int, ref: Any) -> None:
        """Weakref callback of a registered scorer: queued only (see ``_dead``)."""
        cls._dead.append((key, ref))

    @classmethod
    def _drop_dead(cls) -> list["ScorerExecutor"]:
        """Remove the entries of collected scorers (caller holds the registry lock); their
        executors, for the caller to shut down after releasing it (idle workers exit on their
        own after ``idle_timeout_s`` meanwhile)."""
        dropped = []
        while cls._dead:
            key, ref = cls._dead.popleft()
            entry = cls._registry.get(key)
            if entry is not None and entry[0] is ref:
                del cls._registry[key]
                dropped.append(entry[1])
        return dropped

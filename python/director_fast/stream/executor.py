"""A bounded thread pool for synchronous scorer calls (``astream_guard``, ``scorer_timeout_s``).

:class:`ScorerExecutor` runs calls on at most ``max_workers`` daemon threads, started when needed
and stopped after ``idle_timeout_s`` without work. At most ``max_workers + max_pending`` calls are
in flight (running or waiting); :meth:`ScorerExecutor.try_submit` returns ``None`` instead of
queueing beyond that (the executor is *saturated*), so a caller can fail closed at once instead of
waiting behind calls that may never return.

A call whose deadline passed keeps its worker busy until the scorer returns (Python cannot stop a
running thread); it still counts against the bound, so a scorer that hangs forever makes the
executor saturated and every later stream fails closed, but the number of threads never grows
beyond ``max_workers``.

``ScorerExecutor.for_scorer(scorer)`` is the executor shared by every stream guarded with that
scorer object (created on first use, released with the scorer).

Thread-safety: every method may be called from any thread.
"""

from __future__ import annotations

import concurrent.futures
import functools
import logging
import os
import threading
import weakref
from collections import deque
from typing import Any, Callable

from director_fast.errors import ConfigError, InputTypeError

logger = logging.getLogger("director_fast._executor")

__all__ = ["ScorerExecutor", "default_max_workers"]


def default_max_workers() -> int:
    """``min(32, cpu_count + 4)``: the standard library's thread-pool default."""
    return min(32, (os.cpu_count() or 1) + 4)


def _check_count(name: str, v: Any, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputTypeError(f"{name} must be an int, got {type(v).__name__}")
    if not lo <= v <= 4096:
        raise ConfigError(f"{name} must be in [{lo}, 4096], got {v}", field=name)
    return v


class ScorerExecutor:
    """Bounded pool of daemon threads for synchronous scorer calls.

    Args:
        max_workers: most threads alive at once (>= 1; default ``min(32, cpu_count + 4)``).
        max_pending: calls that may wait for a free worker on top of the ``max_workers`` running
            ones (>= 0; default ``4 * max_workers``). Beyond that the executor is saturated.
        idle_timeout_s: a worker with nothing to do for this long exits (> 0, default 30 s).
        name: thread name prefix.

    Raises:
        ConfigError / InputTypeError: invalid arguments (the message names the field).

    Thread-safety: all methods are thread-safe. Workers are daemon threads, so a scorer call
    that never returns cannot keep the interpreter from exiting.
    """

    def __init__(self, max_workers: int | None = None, *, max_pending: int | None = None,
                 idle_timeout_s: float = 30.0, name: str = "director_fast-scorer") -> None:
        mw = default_max_workers() if max_workers is None else _check_count("max_workers", max_workers, 1)
        mp = 4 * mw if max_pending is None else _check_count("max_pending", max_pending, 0)
        if isinstance(idle_timeout_s, bool) or not isinstance(idle_timeout_s, (int, float)) \
                or not idle_timeout_s > 0 or idle_timeout_s != idle_timeout_s:
            raise ConfigError("idle_timeout_s must be a positive number of seconds", field="idle_timeout_s")
        if not isinstance(name, str):
            raise InputTypeError("name must be a str")
        self._max_workers = mw
        self._max_pending = mp
        self._idle_timeout = float(idle_timeout_s)
        self._name = name
        self._cv = threading.Condition(threading.Lock())
        self._queue: deque[tuple[concurrent.futures.Future, Callable[..., Any], tuple, dict]] = deque()
        self._alive = 0
        self._idle = 0
        self._in_flight = 0
        self._shutdown = False
        self._seq = 0

    # ---- introspection -------------------------------------------------------------------------
    @property
    def max_workers(self) -> int:
        """Most threads this executor ever has alive."""
        return self._max_workers

    @property
    def max_pending(self) -> int:
        """Calls that may wait for a worker before the executor is saturated."""
        return self._max_pending

    @property
    def in_flight(self) -> int:
        """Calls running or waiting (a timed-out call counts until its scorer returns)."""
        return self._in_flight

    @property
    def threads_alive(self) -> int:
        """Worker threads alive now (<= :attr:`max_workers`)."""
        return self._alive

    @property
    def saturated(self) -> bool:
        """True when :meth:`try_submit` would refuse a call now."""
        return self._in_flight >= self._max_workers + self._max_pending

    def __repr__(self) -> str:
        return (f"ScorerExecutor(max_workers={self._max_workers}, max_pending={self._max_pending}, "
                f"in_flight={self._in_flight}, threads_alive={self._alive})")

    # ---- work ----------------------------------------------------------------------------------
    def try_submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future | None:
        """Schedule ``fn(*args, **kwargs)``; returns its Future, or ``None`` when saturated.

        Cancelling the Future of a call that has not started removes it from the queue.

        Raises:
            ConfigError: (field ``executor``) after :meth:`shutdown`.
        """
        fut: concurrent.futures.Future = concurrent.futures.Future()
        cv = self._cv
        with cv:
            if self._shutdown:
                raise ConfigError("the ScorerExecutor was shut down", field="executor")
            if self._in_flight >= self._max_workers + self._max_pending:
                logger.debug("%s: saturated (%d calls in flight)", self._name, self._in_flight)
                return None
            self._in_flight += 1
            item = (fut, fn, args, kwargs)
            self._queue.append(item)
            if self._idle >= len(self._queue):
                cv.notify()
            elif self._alive < self._max_workers:
                self._spawn()
        fut.add_done_callback(self._on_done)
        return fut

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
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to the caller through the Future
                with cv:
                    self._in_flight -= 1
                fut.set_exception(exc)
            else:
                # the slot is freed before the result is published, so a caller that submits its
                # next call as soon as it sees this result never finds the executor saturated
                with cv:
                    self._in_flight -= 1
                fut.set_result(result)
            del fut, fn, args, kwargs

    def shutdown(self) -> None:
        """Refuse new calls and let idle workers exit (running calls finish on their own)."""
        with self._cv:
            self._shutdown = True
            self._cv.notify_all()

    # ---- one executor per scorer ---------------------------------------------------------------
    _registry: dict[int, tuple[Any, "ScorerExecutor"]] = {}
    _registry_lock = threading.Lock()
    _fallback: "ScorerExecutor | None" = None

    @classmethod
    def for_scorer(cls, scorer: Any) -> "ScorerExecutor":
        """The executor shared by every guard of ``scorer`` (created with the defaults on first
        use; dropped when the scorer is garbage collected). For a bound method the executor of
        the object it is bound to. Objects that cannot be weakly referenced share one
        process-wide executor."""
        target = getattr(scorer, "__self__", None)
        if target is None or isinstance(target, type(os)):  # a builtin's __self__ is its module
            target = scorer
        key = id(target)
        with cls._registry_lock:
            entry = cls._registry.get(key)
            if entry is not None and entry[0]() is target:
                return entry[1]
            try:
                ref = weakref.ref(target, functools.partial(cls._forget, key))
            except TypeError:
                if cls._fallback is None:
                    cls._fallback = ScorerExecutor()
                return cls._fallback
            ex = ScorerExecutor()
            cls._registry[key] = (ref, ex)
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
            cls._registry[key] = (ref, executor)

    @classmethod
    def _forget(cls, key: int, ref: Any) -> None:
        with cls._registry_lock:
            entry = cls._registry.get(key)
            if entry is None or entry[0] is not ref:
                return
            del cls._registry[key]
        entry[1].shutdown()

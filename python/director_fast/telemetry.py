"""Observability: an optional metrics hook and OpenTelemetry spans (both off unless set up).

Logging needs no set-up here: every module logs to ``logging.getLogger("director_fast.<module>")``
(``director_fast.scorer``, ``director_fast.stream.stream_guard``, ``director_fast.stream.client_guard``,
``director_fast.integrations.fastapi``, ...). Halts are logged at INFO; scorer errors, timeouts
and no-evidence / unknown-tenant decisions at WARNING, rate-limited to one record per kind per
10 s (``director_fast._log``).

Metrics
    :func:`set_metrics_hook` installs one process-wide hook: any object with
    ``inc(name, labels)`` and ``observe(name, value, labels)`` (``labels`` is a ``dict[str, str]``).
    The library reports these series:

    ==================================  =========  ==============================================
    name                                kind       labels / unit
    ==================================  =========  ==============================================
    ``director_fast_halts_total``       counter    ``reason``: the :class:`HaltReason` value of
                                                   every stream halt (``stream_guard``,
                                                   ``astream_guard``, guarded clients, SSE)
    ``director_fast_verdicts_total``    counter    ``approved``: ``"true"`` / ``"false"``, one per
                                                   ``CoherenceScorer.score`` / ``review`` /
                                                   ``areview`` / ``director_fast.score``
    ``director_fast_review_seconds``    histogram  seconds (wall clock) of that same call
    ``director_fast_scorer_queue_       histogram  seconds a stream's scorer call waited for a
    seconds``                                      worker of its :class:`ScorerExecutor`
                                                   (backpressure under load)
    ``director_fast_executor_           counter    ``outcome``: ``wait`` (a call queued past
    saturated_total``                              ``max_pending``), ``fail`` (refused,
                                                   ``on_saturated="fail"``), ``stalled`` (every
                                                   worker held by a call past its deadline)
    ==================================  =========  ==============================================

    :class:`RecordingMetrics` keeps them in memory; :class:`PrometheusMetrics` exports them with
    ``prometheus-client`` (``pip install director-fast[metrics]``). With no hook installed the
    cost is one global lookup per event. A hook that raises is logged (rate-limited) and never
    breaks a verdict or a stream.

Spans
    When ``opentelemetry-api`` is installed (``pip install director-fast[otel]``), every
    ``CoherenceScorer.score`` / ``review`` runs in a span ``director_fast.review`` (attributes
    ``director_fast.approved``, ``director_fast.score``, ``director_fast.verify.claims``; the exception
    recorded on failure), and every stream halt adds an event ``director_fast.halt`` (attributes
    ``director_fast.halt_reason``, ``director_fast.token_offset``, ``director_fast.event_id``) to
    the span current at that moment (for example a server's request span). Without an SDK
    tracer provider the OpenTelemetry API makes these no-ops; without the package nothing is
    imported. :func:`configure_tracing` switches spans off or binds a given tracer provider.

Thread-safety: every function may be called from any thread; hooks are called on the thread that
produced the event (a scorer's executor thread included), so a hook must be thread-safe
(:class:`RecordingMetrics` and :class:`PrometheusMetrics` are).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Mapping, Protocol

from director_fast._log import warn_limited
from director_fast.errors import ConfigError, InputTypeError

logger = logging.getLogger("director_fast.telemetry")

__all__ = [
    "MetricsHook",
    "RecordingMetrics",
    "PrometheusMetrics",
    "set_metrics_hook",
    "get_metrics_hook",
    "configure_tracing",
    "HALTS_TOTAL",
    "VERDICTS_TOTAL",
    "REVIEW_SECONDS",
    "SCORER_QUEUE_SECONDS",
    "EXECUTOR_SATURATED_TOTAL",
    "REVIEW_BUCKETS",
]

HALTS_TOTAL = "director_fast_halts_total"
VERDICTS_TOTAL = "director_fast_verdicts_total"
REVIEW_SECONDS = "director_fast_review_seconds"
SCORER_QUEUE_SECONDS = "director_fast_scorer_queue_seconds"
EXECUTOR_SATURATED_TOTAL = "director_fast_executor_saturated_total"
#: Histogram bucket upper bounds (seconds) used by :class:`PrometheusMetrics`: a lexical review
#: takes tens of microseconds, an NLI-backed one milliseconds to seconds.
REVIEW_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                  0.5, 1.0, 2.5, 5.0, 10.0)


class MetricsHook(Protocol):
    """What :func:`set_metrics_hook` accepts."""

    def inc(self, name: str, labels: Mapping[str, str]) -> None:
        """Add 1 to the counter ``name`` with ``labels``."""
        ...

    def observe(self, name: str, value: float, labels: Mapping[str, str]) -> None:
        """Record ``value`` in the histogram ``name``."""
        ...


_hook: Any = None


def set_metrics_hook(hook: MetricsHook | None) -> MetricsHook | None:
    """Install ``hook`` process-wide (``None`` removes it); returns the previous hook.

    Raises:
        InputTypeError: ``hook`` has no callable ``inc`` and ``observe``.
    """
    global _hook
    if hook is not None and not (callable(getattr(hook, "inc", None)) and callable(getattr(hook, "observe", None))):
        raise InputTypeError(f"hook must have inc(name, labels) and observe(name, value, labels), "
                             f"got {type(hook).__name__}")
    old, _hook = _hook, hook
    return old


def get_metrics_hook() -> MetricsHook | None:
    """The installed hook, or None."""
    return _hook


def _hook_failed(exc: BaseException) -> None:
    warn_limited(logger, "metrics_hook", "metrics hook %s raised %s: %s (the event is dropped)",
                 type(_hook).__name__, type(exc).__name__, exc)


class RecordingMetrics:
    """A metrics hook that keeps every series in memory.

    ``counters[(name, labels_tuple)] -> count`` and ``histograms[(name, labels_tuple)] -> list of
    values``, where ``labels_tuple`` is ``tuple(sorted(labels.items()))``. :meth:`count` and
    :meth:`values` read them.

    Thread-safety: thread-safe (one lock).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counters: dict[tuple[str, tuple[tuple[str, str], ...]], int] = {}
        self.histograms: dict[tuple[str, tuple[tuple[str, str], ...]], list[float]] = {}

    def inc(self, name: str, labels: Mapping[str, str]) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            self.counters[key] = self.counters.get(key, 0) + 1

    def observe(self, name: str, value: float, labels: Mapping[str, str]) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            self.histograms.setdefault(key, []).append(float(value))

    def count(self, name: str, **labels: str) -> int:
        """Sum of the counter ``name`` over every series whose labels include ``labels``."""
        want = set(labels.items())
        with self._lock:
            return sum(v for (n, lab), v in self.counters.items() if n == name and want <= set(lab))

    def values(self, name: str, **labels: str) -> list[float]:
        """Every value observed in the histogram ``name`` under series matching ``labels``."""
        want = set(labels.items())
        with self._lock:
            return [x for (n, lab), vs in self.histograms.items() if n == name and want <= set(lab) for x in vs]


class PrometheusMetrics:
    """A metrics hook that exports the five series with ``prometheus-client``.

    Args:
        registry: a ``prometheus_client.CollectorRegistry`` (default: the global ``REGISTRY``).
        buckets: histogram bucket upper bounds in seconds (default :data:`REVIEW_BUCKETS`).

    Raises:
        ConfigError: ``prometheus-client`` is not installed (``pip install director-fast[metrics]``).

    Creating two instances on one registry raises ``ValueError`` from prometheus-client
    (duplicated time series), as for any collector; create one per registry.

    Thread-safety: thread-safe (prometheus-client's metrics are).
    """

    def __init__(self, registry: Any = None, *, buckets: tuple[float, ...] = REVIEW_BUCKETS) -> None:
        try:
            import prometheus_client as pc
        except ImportError as exc:
            raise ConfigError("PrometheusMetrics needs prometheus-client: pip install director-fast[metrics]",
                              field="registry") from exc
        kw = {} if registry is None else {"registry": registry}
        self.halts = pc.Counter(HALTS_TOTAL, "Stream halts by reason.", ["reason"], **kw)
        self.verdicts = pc.Counter(VERDICTS_TOTAL, "Response verdicts (CoherenceScorer.score/review).",
                                   ["approved"], **kw)
        self.review_seconds = pc.Histogram(REVIEW_SECONDS, "Wall-clock seconds of one review.",
                                           buckets=tuple(buckets), **kw)
        self.queue_seconds = pc.Histogram(SCORER_QUEUE_SECONDS, "Seconds a scorer call waited for a worker.",
                                          buckets=tuple(buckets), **kw)
        self.saturated = pc.Counter(EXECUTOR_SATURATED_TOTAL, "Scorer calls made while the executor was "
                                    "saturated or stalled.", ["outcome"], **kw)

    def inc(self, name: str, labels: Mapping[str, str]) -> None:
        if name == HALTS_TOTAL:
            self.halts.labels(reason=labels.get("reason", "")).inc()
        elif name == VERDICTS_TOTAL:
            self.verdicts.labels(approved=labels.get("approved", "")).inc()
        elif name == EXECUTOR_SATURATED_TOTAL:
            self.saturated.labels(outcome=labels.get("outcome", "")).inc()

    def observe(self, name: str, value: float, labels: Mapping[str, str]) -> None:
        if name == REVIEW_SECONDS:
            self.review_seconds.observe(value)
        elif name == SCORER_QUEUE_SECONDS:
            self.queue_seconds.observe(value)


# ---- OpenTelemetry ----------------------------------------------------------------------------

_UNSET = object()
_tracing_enabled = True
_tracer: Any = _UNSET
_otel_trace: Any = _UNSET  # the opentelemetry.trace module, or None when not installed
_tracer_lock = threading.Lock()


def configure_tracing(enabled: bool = True, *, tracer_provider: Any = None) -> None:
    """Switch OpenTelemetry spans on or off, or bind them to ``tracer_provider``.

    Args:
        enabled: False: no span and no halt event is ever created (the default is on when
            ``opentelemetry-api`` is installed).
        tracer_provider: an ``opentelemetry.trace.TracerProvider`` to take the tracer from
            (default: the global provider, resolved on first use).

    Raises:
        InputTypeError: ``enabled`` is not a bool, or ``tracer_provider`` has no ``get_tracer``.
    """
    global _tracing_enabled, _tracer
    if not isinstance(enabled, bool):
        raise InputTypeError(f"enabled must be a bool, got {type(enabled).__name__}")
    if tracer_provider is not None and not callable(getattr(tracer_provider, "get_tracer", None)):
        raise InputTypeError(f"tracer_provider must have get_tracer(), got {type(tracer_provider).__name__}")
    with _tracer_lock:
        _tracing_enabled = enabled
        _tracer = _UNSET
        if enabled and tracer_provider is not None:
            _tracer = tracer_provider.get_tracer("director_fast", _version())


def _version() -> str:
    from director_fast._core import __version__

    return __version__


def _trace_module() -> Any:
    global _otel_trace
    if _otel_trace is _UNSET:
        try:
            from opentelemetry import trace
        except ImportError:
            trace = None
        _otel_trace = trace
    return _otel_trace


def _get_tracer() -> Any:
    global _tracer
    t = _tracer
    if t is not _UNSET:
        return t
    with _tracer_lock:
        if _tracer is _UNSET:
            trace = _trace_module() if _tracing_enabled else None
            _tracer = trace.get_tracer("director_fast", _version()) if trace is not None else None
        return _tracer


class _Review:
    """Times one review, reports its verdict and closes its span (internal)."""

    __slots__ = ("t0", "span", "hook")

    def __init__(self, hook: Any, tracer: Any) -> None:
        self.hook = hook
        self.span = tracer.start_span("director_fast.review") if tracer is not None else None
        self.t0 = time.perf_counter()

    def __enter__(self) -> "_Review":
        return self

    def done(self, result: Any) -> None:
        """Report a finished review (``result``: a CoherenceScore)."""
        dt = time.perf_counter() - self.t0
        approved = "true" if getattr(result, "approved", False) else "false"
        if self.hook is not None:
            try:
                self.hook.inc(VERDICTS_TOTAL, {"approved": approved})
                self.hook.observe(REVIEW_SECONDS, dt, {})
            except Exception as exc:  # a broken hook never breaks a verdict
                _hook_failed(exc)
        span = self.span
        if span is not None and span.is_recording():
            ev = getattr(result, "evidence", None)
            span.set_attribute("director_fast.approved", approved == "true")
            span.set_attribute("director_fast.score", float(getattr(result, "score", 0.0)))
            span.set_attribute("director_fast.claims", len(getattr(ev, "claims", None) or ()))

    def __exit__(self, et: Any, exc: Any, tb: Any) -> None:
        span = self.span
        if span is None:
            return
        if exc is not None and span.is_recording():
            span.record_exception(exc)
            trace = _trace_module()
            span.set_status(trace.Status(trace.StatusCode.ERROR, type(exc).__name__))
        span.end()


class _NoReview:
    __slots__ = ()

    def __enter__(self) -> "_NoReview":
        return self

    def done(self, result: Any) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        pass


_NO_REVIEW = _NoReview()


def review() -> Any:
    """Context manager around one review: ``with review() as r: ...; r.done(score)``. A shared
    no-op object when no hook is installed and no tracer is available (internal)."""
    hook = _hook
    tracer = _get_tracer()
    if hook is None and tracer is None:
        return _NO_REVIEW
    return _Review(hook, tracer)


def _to_hook(method: str, *args: Any) -> None:
    """Call the installed metrics hook's ``method`` (``inc`` / ``observe``) with ``args``; a hook
    that raises is reported by :func:`_hook_failed`, never to the caller. Nothing without a hook."""
    hook = _hook
    if hook is not None:
        try:
            getattr(hook, method)(*args)
        except Exception as exc:
            _hook_failed(exc)


def record_halt(reason: str, token_offset: int, event_id: str) -> None:
    """Report one stream halt: the halts counter and a ``director_fast.halt`` event on the
    current span (internal; called by the stream guard)."""
    _to_hook("inc", HALTS_TOTAL, {"reason": reason})
    if _get_tracer() is None:
        return
    span = _trace_module().get_current_span()
    if span.is_recording():
        span.add_event("director_fast.halt", {"director_fast.halt_reason": reason,
                                              "director_fast.token_offset": int(token_offset),
                                              "director_fast.event_id": event_id})


def record_queue_wait(seconds: float) -> None:
    """Report how long one scorer call waited for an executor worker (internal; called by
    :class:`~director_fast.stream.executor.ScorerExecutor` on the worker thread)."""
    _to_hook("observe", SCORER_QUEUE_SECONDS, seconds, {})


def record_saturation(outcome: str) -> None:
    """Report one call made while an executor was saturated or stalled (``outcome``: ``wait``,
    ``fail``, ``stalled``; internal)."""
    _to_hook("inc", EXECUTOR_SATURATED_TOTAL, {"outcome": outcome})

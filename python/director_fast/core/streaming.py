"""Streaming session records and the director-ai compatible ``StreamingKernel``.

``StreamingKernel(**kwargs).stream_tokens(token_generator, coherence_callback, ...)`` mirrors
director-ai 3.21.0 (same keyword arguments, same ``StreamSession`` fields) on top of the C++
kernel and :func:`director_fast.stream_guard`. Deliberate differences (see ``docs/streaming.md``):
parameters and scores are validated, every stream starts from fresh state, a soft halt still
pending when the stream ends is finalised (fail closed), and every halt - timeouts included -
carries a :class:`SafetyEvent`. ``halt_reason`` holds the machine reason (``"hard_limit"``);
``halt_reason_text`` the anchor's human-readable form (``"hard_limit (0.4500 < 0.5)"``).
"""

from __future__ import annotations

import threading
from array import array
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from director_fast.core.halt import HaltConfig, HaltReason
from director_fast.core.safety_event import SafetyEvent
from director_fast.core.types import HaltEvidence
from director_fast.errors import ScoreError

__all__ = ["TokenEvent", "StreamSession", "StreamingKernel"]

# per-token flag bits kept by a session
_F_SCORED = 1
_F_WARNING = 2
_F_HALTED = 4


@dataclass
class TokenEvent:
    """One token of a guarded stream.

    Attributes:
        token: token text.
        index: token index in the stream (0-based).
        coherence: the effective coherence score the kernel used for it, in [0, 1].
        timestamp: ``time.monotonic()`` seconds when the kernel processed it.
        halted: the stream halted at this token.
        warning: score below ``soft_limit`` without a halt.
        scored: the score was fresh (not reused under a cadence).
        evidence: optional evidence text (compatibility ``evidence_callback``).
        halt_evidence / safety_event: set on the halting token.
    """

    token: str
    index: int
    coherence: float
    timestamp: float
    halted: bool = False
    warning: bool = False
    scored: bool = False
    evidence: str | None = None
    halt_evidence: HaltEvidence | None = None
    safety_event: SafetyEvent | None = None


@dataclass
class StreamSession:
    """The record of one guarded stream.

    Per-token data is stored compactly (token strings plus 8-byte score, 8-byte timestamp and
    1-byte flags per token); :attr:`events` materialises ``TokenEvent`` objects on demand. With
    ``keep_events=False`` only the token texts (the output), counters and the halt record are
    kept.

    Attributes:
        tokens: every token the kernel consumed (in order).
        halted / soft_halted: the stream was halted; the halt was a (finalised) soft halt.
        halt_index: token where the halt condition held (-1: none).
        final_index: token where the halt took effect (soft halts: the sentence end / cap).
        halt_reason: machine reason (a :class:`HaltReason`, ``""`` when none).
        halt_reason_text: director-ai's human-readable reason string.
        halt_evidence: evidence text from an ``evidence_callback`` (compatibility).
        halt_evidence_structured: :class:`HaltEvidence` with trace attribution.
        safety_events: :class:`SafetyEvent` records (one per halt).
        warning_count: tokens below ``soft_limit`` that did not halt.
        delivered_count: tokens forwarded to the caller; :attr:`output` is their text.
        start_time / end_time: ``time.monotonic()`` seconds.
        scorer_calls: number of scorer invocations (plain calls or sentences scored).
    """

    tokens: list[str] = field(default_factory=list)
    halted: bool = False
    soft_halted: bool = False
    halt_index: int = -1
    final_index: int = -1
    halt_reason: str = ""
    halt_reason_text: str = ""
    halt_evidence: str | None = None
    halt_evidence_structured: HaltEvidence | None = None
    safety_events: list[SafetyEvent] = field(default_factory=list)
    start_time: float = 0.0
    end_time: float = 0.0
    warning_count: int = 0
    delivered_count: int = 0
    scorer_calls: int = 0
    keep_events: bool = True
    _scores: array = field(default_factory=lambda: array("d"), repr=False)
    _times: array = field(default_factory=lambda: array("d"), repr=False)
    _flags: bytearray = field(default_factory=bytearray, repr=False)
    _halt_event: TokenEvent | None = field(default=None, repr=False)

    # --- derived views -------------------------------------------------------------------
    @property
    def output(self) -> str:
        """The text actually delivered to the caller."""
        return "".join(self.tokens[: self.delivered_count])

    @property
    def held_back(self) -> str:
        """Text the kernel consumed but did not deliver (the halted part)."""
        return "".join(self.tokens[self.delivered_count:])

    @property
    def token_count(self) -> int:
        """Number of tokens the kernel consumed."""
        return len(self.tokens)

    @property
    def coherence_history(self) -> array:
        """Effective score per consumed token (``array('d')``; empty with keep_events=False)."""
        return self._scores

    @property
    def scored_indices(self) -> list[int]:
        """Indices of tokens that received a fresh score."""
        return [i for i, f in enumerate(self._flags) if f & _F_SCORED]

    @property
    def avg_coherence(self) -> float:
        """Mean effective score over consumed tokens (0.0 when none)."""
        s = self._scores
        return sum(s) / len(s) if len(s) else 0.0

    @property
    def min_coherence(self) -> float:
        """Minimum effective score (0.0 when none)."""
        return min(self._scores) if len(self._scores) else 0.0

    @property
    def duration_ms(self) -> float:
        """Session duration in milliseconds."""
        return (self.end_time - self.start_time) * 1000.0

    @property
    def events(self) -> list[TokenEvent]:
        """One :class:`TokenEvent` per consumed token (built on demand; ``[]`` with
        keep_events=False)."""
        if not self.keep_events:
            return []
        out: list[TokenEvent] = []
        for i, (tok, sc, ts, fl) in enumerate(zip(self.tokens, self._scores, self._times, self._flags)):
            out.append(
                TokenEvent(
                    token=tok,
                    index=i,
                    coherence=sc,
                    timestamp=ts,
                    halted=bool(fl & _F_HALTED),
                    warning=bool(fl & _F_WARNING),
                    scored=bool(fl & _F_SCORED),
                )
            )
        he = self._halt_event
        if he is not None and 0 <= he.index < len(out):
            out[he.index] = he
        return out

    @property
    def events_count(self) -> int:
        return len(self._flags) if self.keep_events else 0


class StreamingKernel:
    """director-ai compatible streaming kernel (a thin layer over :func:`stream_guard`).

    Same constructor keywords as director-ai 3.21.0's ``StreamingKernel``; all are validated
    (:class:`~director_fast.errors.ConfigError` names the field). Each :meth:`stream_tokens` call
    starts from fresh kernel state. Thread-safety: one instance may serve streams from several
    threads (each call owns its own kernel state); :meth:`emergency_stop` is visible to all.
    """

    def __init__(
        self,
        hard_limit: float = 0.5,
        window_size: int = 10,
        window_threshold: float = 0.55,
        trend_window: int = 5,
        trend_threshold: float = 0.15,
        on_halt: Callable[[StreamSession], None] | None = None,
        soft_limit: float = 0.6,
        streaming_debug: bool = False,
        halt_mode: str = "hard",
        score_every_n: int = 1,
        adaptive: bool = False,
        max_cadence: int = 8,
    ) -> None:
        self.config = HaltConfig(
            hard_limit=hard_limit,
            window_size=window_size,
            window_threshold=window_threshold,
            trend_window=trend_window,
            trend_threshold=trend_threshold,
            soft_limit=soft_limit,
            halt_mode=halt_mode,
            score_every_n=score_every_n,
            adaptive=adaptive,
            max_cadence=max_cadence,
        )
        self.on_halt = on_halt
        self.streaming_debug = streaming_debug
        self._active = True
        # check_halt() state (director-ai's per-score API), kept across calls until reset_state()
        self._check_lock = threading.Lock()
        self._check_window: deque[float] = deque(maxlen=self.config.window_size)
        self._check_trend: deque[float] = deque(maxlen=self.config.trend_window)

    # parameters readable as attributes, like the anchor
    def __getattr__(self, name: str) -> Any:
        cfg = self.__dict__.get("config")
        if cfg is not None and hasattr(cfg, name):
            return getattr(cfg, name)
        raise AttributeError(name)

    @property
    def is_active(self) -> bool:
        """False after :meth:`emergency_stop` until :meth:`reactivate`."""
        return self._active

    def emergency_stop(self) -> None:
        """Switch the kernel off: further streams halt at token 0 with ``kernel_inactive``."""
        self._active = False

    def reactivate(self) -> None:
        self._active = True

    def reset_state(self) -> None:
        """Re-arm the kernel and clear the :meth:`check_halt` history (stream state is per
        :meth:`stream_tokens` call anyway)."""
        self._active = True
        with self._check_lock:
            self._check_window.clear()
            self._check_trend.clear()

    def check_halt(self, score: float) -> bool:
        """director-ai's per-score check: add ``score`` (finite, in [0, 1]) to this instance's
        window and trend history (kept across calls until :meth:`reset_state`) and return True
        when a halt condition holds for this update: ``score < hard_limit``, the mean of the last
        ``window_size`` scores below ``window_threshold``, or the projected drop of the last
        ``trend_window`` scores (least-squares slope x (n - 1), the halt kernel's trend statistic)
        above ``trend_threshold``. Unlike a stream, the history continues after a True.

        Raises:
            ScoreError: ``score`` is not a finite number in [0, 1] (the history is unchanged).

        Thread-safety: calls are serialised by a lock (one shared history per instance). For
        streams use :meth:`stream_tokens` / :func:`~director_fast.stream_guard`, whose C++
        kernel state is per stream.
        """
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not (0.0 <= float(score) <= 1.0):
            raise ScoreError(f"check_halt: score must be a finite number in [0, 1], got {score!r}")
        x = float(score)
        cfg = self.config
        with self._check_lock:
            self._check_window.append(x)
            self._check_trend.append(x)
            if x < cfg.hard_limit:
                return True
            # the same arithmetic, in the same order, as the C++ kernel (halt_kernel.cpp)
            w = self._check_window
            if len(w) >= cfg.window_size:
                total = 0.0
                for y in w:
                    total += y
                if total / len(w) < cfg.window_threshold:
                    return True
            t = self._check_trend
            if len(t) >= cfg.trend_window:
                n = len(t)
                xbar = (n - 1) / 2.0
                sy = 0.0
                for y in t:
                    sy += y
                ybar = sy / n
                num = den = 0.0
                for i, y in enumerate(t):
                    num += (i - xbar) * (y - ybar)
                    den += (i - xbar) * (i - xbar)
                if -(num / den) * (n - 1) > cfg.trend_threshold:
                    return True
        return False

    def stream_tokens(
        self,
        token_generator: Iterable[str],
        coherence_callback: Callable[[str], float],
        evidence_callback: Callable[[str], str | None] | None = None,
        scorer: Any = None,
        top_k: int = 3,
        prompt: str = "",
        trace_callbacks: Any = None,
        tenant_id: str = "",
        request_id: str = "",
    ) -> StreamSession:
        """Run a whole stream; ``coherence_callback(accumulated_text) -> float`` in [0, 1].

        Tokens are released as the kernel passes them (``release="token"``). Returns the
        :class:`StreamSession`. A callback raising ``TimeoutError``/``OSError`` halts with
        ``callback_timeout``; other exceptions and invalid scores propagate after the session
        records the halt as ``scorer_error``.
        """
        from director_fast.stream_guard import stream_guard

        guard = stream_guard(
            token_generator,
            coherence_callback,
            prompt=prompt,
            config=self.config,
            tenant_id=tenant_id,
            request_id=request_id,
            release="token",
            evidence_callback=evidence_callback,
            kernel_active=lambda: self._active,
        )
        for _ in guard:
            pass
        session = guard.session
        if session.halted and self.on_halt is not None:
            self.on_halt(session)
        return session

    def stream_output(self, token_generator: Iterable[str], coherence_callback: Callable[[str], float]) -> str:
        """Output text, or ``"[KERNEL INTERRUPT: <reason>]"`` when halted (anchor format)."""
        session = self.stream_tokens(token_generator, coherence_callback)
        if session.halted:
            return f"[KERNEL INTERRUPT: {session.halt_reason_text or session.halt_reason}]"
        return session.output

"""The director-ai compatible ``StreamingKernel`` (session records live in
:mod:`director_fast.stream.session` and are re-exported here).

``StreamingKernel(**kwargs).stream_tokens(token_generator, coherence_callback, ...)`` mirrors
director-ai 3.21.0 (same keyword arguments, same ``StreamSession`` fields) on top of the C++
kernel and :func:`director_fast.stream.stream_guard`. Deliberate differences (see ``docs/streaming.md``):
parameters and scores are validated, every stream starts from fresh state, a soft halt still
pending when the stream ends is finalised (fail closed), and every halt - timeouts included -
carries a :class:`SafetyEvent`. ``halt_reason`` holds the machine reason (``"hard_limit"``);
``halt_reason_text`` the anchor's human-readable form (``"hard_limit (0.4500 < 0.5)"``).
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable, Iterable

from director_fast.stream.halt import HaltConfig, HaltReason
from director_fast.stream.session import StreamSession, TokenEvent
from director_fast.errors import ScoreError
from director_fast.stream.stream_guard import stream_guard

__all__ = ["TokenEvent", "StreamSession", "StreamingKernel"]


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
        streams use :meth:`stream_tokens` / :func:`~director_fast.stream.stream_guard`, whose C++
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

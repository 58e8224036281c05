"""Halt configuration, reasons and the batch replay over the C++ kernel.

The semantics are those of director-ai 3.21.0's ``StreamingKernel`` (hard limit, window mean,
downward trend; checked against recorded reference cases in the test suite), with every parameter
and score validated.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, fields
from collections.abc import Mapping
from typing import Any

import numpy as np

from director_fast import _core
from director_fast.errors import ConfigError, InputTypeError

__all__ = [
    "HaltReason",
    "HaltConfig",
    "HaltDecision",
    "replay",
    "format_reason",
    "suggested_action",
    "SOFT_HALT_CAP",
]

#: Extra tokens a pending soft halt may run before it is finalised without a sentence end.
SOFT_HALT_CAP = 50


class HaltReason(str, enum.Enum):
    """Machine-readable halt reasons (stable string values)."""

    HARD_LIMIT = "hard_limit"
    WINDOW_AVG = "window_avg"
    DOWNWARD_TREND = "downward_trend"
    CALLBACK_TIMEOUT = "callback_timeout"
    KERNEL_INACTIVE = "kernel_inactive"
    SCORER_ERROR = "scorer_error"
    UPSTREAM_ERROR = "upstream_error"

    def __str__(self) -> str:  # "hard_limit", not "HaltReason.HARD_LIMIT"
        return self.value


_SUGGESTED = {
    "hard_limit": "Reduce generation temperature or add KB facts.",
    "window_avg": "Context may be drifting from grounded facts.",
    "downward_trend": "Response quality degrading; rephrase the prompt.",
    "callback_timeout": "The coherence scorer did not answer in time; the stream was stopped (fail closed).",
    "scorer_error": "The coherence scorer failed; the stream was stopped (fail closed).",
    "kernel_inactive": "The guard was switched off by the operator; the stream was refused.",
    "upstream_error": "The model's stream failed or ended early; the partial answer was stopped (fail closed).",
}


def suggested_action(reason: str) -> str:
    """Tenant-safe remediation text for a machine reason (``""`` -> generic advice)."""
    return _SUGGESTED.get(str(reason), "Review the generated output for factual accuracy.")


def format_reason(reason: str, statistic: float | None, threshold: float | None) -> str:
    """The anchor's human-readable reason, e.g. ``"hard_limit (0.3100 < 0.5)"``.

    ``statistic`` is formatted with 4 decimals and ``threshold`` with Python's shortest ``repr``,
    exactly as director-ai 3.21.0 prints them; reasons without a statistic are returned bare.
    """
    r = str(reason)
    if statistic is None or threshold is None:
        return r
    if r in ("hard_limit", "window_avg"):
        return f"{r} ({statistic:.4f} < {threshold})"
    if r == "downward_trend":
        return f"{r} ({statistic:.4f} > {threshold})"
    return r


@dataclass(frozen=True)
class HaltConfig:
    """Streaming halt kernel parameters (hard limit, sliding-window mean, downward trend; the
    defaults are those of director-ai's StreamingKernel).

    Attributes:
        hard_limit: a score strictly below it halts at once (reason ``hard_limit``); in [0, 1].
        window_size: tokens in the sliding window (>= 1).
        window_threshold: once the window is full, a window mean strictly below it halts
            (``window_avg``); in [0, 1].
        trend_window: tokens in the trend regression (>= 2).
        trend_threshold: a projected drop (least-squares slope x (n - 1), negated) strictly
            above it halts (``downward_trend``); in [0, 1].
        soft_limit: a score strictly below it, without a halt, marks a warning; in [0, 1].
        halt_mode: ``"hard"`` (window/trend halts stop at once) or ``"soft"`` (they run on to the
            next sentence end, at most ``soft_halt_cap`` more tokens; hard-limit halts are always
            immediate).
        score_every_n: scoring cadence of the plain-callable path (>= 1): token ``i`` is scored
            when ``i % cadence == 0``; other tokens reuse the last score (0.5 before the first).
        adaptive: adapt the cadence (plain-callable path): +1 per scored token while the window
            mean is above ``soft_limit`` (up to ``max_cadence``), back to 1 on a score below it.
        max_cadence: upper bound of the adaptive cadence (>= 1).
        soft_halt_cap: extra tokens a pending soft halt may run (>= 1, default 50).

    Raises:
        ConfigError: (a ``ValueError``) naming the first invalid field.
    """

    hard_limit: float = 0.5
    window_size: int = 10
    window_threshold: float = 0.55
    trend_window: int = 5
    trend_threshold: float = 0.15
    soft_limit: float = 0.6
    halt_mode: str = "hard"
    score_every_n: int = 1
    adaptive: bool = False
    max_cadence: int = 8
    soft_halt_cap: int = SOFT_HALT_CAP

    def __post_init__(self) -> None:
        for name in ("hard_limit", "window_threshold", "trend_threshold", "soft_limit"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ConfigError(f"{name} must be a number, got {type(v).__name__}", field=name)
            if not math.isfinite(v) or not 0.0 <= v <= 1.0:
                raise ConfigError(f"{name} must be a finite number in [0, 1], got {v!r}", field=name)
        for name, lo in (("window_size", 1), ("trend_window", 2), ("score_every_n", 1),
                         ("max_cadence", 1), ("soft_halt_cap", 1)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"{name} must be an int, got {type(v).__name__}", field=name)
            if not lo <= v <= (1 << 20):
                raise ConfigError(f"{name} must be in [{lo}, 1048576], got {v}", field=name)
        if self.halt_mode not in ("hard", "soft"):
            raise ConfigError(f"halt_mode must be 'hard' or 'soft', got {self.halt_mode!r}", field="halt_mode")
        if not isinstance(self.adaptive, bool):
            raise ConfigError("adaptive must be a bool", field="adaptive")

    def kernel_kwargs(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def new_kernel(self) -> "_core.HaltKernel":
        """A fresh C++ :class:`HaltKernel` with these parameters."""
        return _core.HaltKernel(**self.kernel_kwargs())


@dataclass(frozen=True)
class HaltDecision:
    """Decision of a replayed stream (:func:`replay`).

    Attributes:
        halted / soft_halted: whether the stream halted, and whether it was a soft halt.
        reason: machine reason (``""`` when not halted).
        reason_text: the anchor's human-readable reason (``"window_avg (0.5200 < 0.55)"``).
        halt_index: token where the halt condition held (-1: none).
        final_index: token where the halt took effect (soft halts: the sentence end or cap).
        output_tokens: number of tokens the user receives (a prefix of the input).
        tokens_seen: tokens consumed by the kernel.
        warning_count: tokens below ``soft_limit`` that did not halt.
        statistic / threshold / margin: the statistic that crossed (score, window mean or trend
            drop), its limit, and the distance beyond it (> 0); ``None`` when not halted.
        last_score: raw score of the halt token.
        flags: uint8 array (len = number of input tokens): bit0 scored, bit1 warning, bit2 halt
            token, bit3 soft-halt trigger; entries after ``tokens_seen`` are 0.
    """

    halted: bool
    soft_halted: bool
    reason: str
    reason_text: str
    halt_index: int
    final_index: int
    output_tokens: int
    tokens_seen: int
    warning_count: int
    statistic: float | None
    threshold: float | None
    margin: float | None
    last_score: float | None
    flags: np.ndarray

    @property
    def scored_indices(self) -> list[int]:
        return np.flatnonzero(self.flags & 1).tolist()


def decision_from_core(d: Any, flags: np.ndarray) -> HaltDecision:
    halted = bool(d.halted)
    return HaltDecision(
        halted=halted,
        soft_halted=bool(d.soft_halted),
        reason=d.reason if halted else "",
        reason_text=format_reason(d.reason, d.statistic, d.threshold) if halted else "",
        halt_index=int(d.halt_index) if halted else -1,
        final_index=int(d.final_index) if halted else -1,
        output_tokens=int(d.output_tokens),
        tokens_seen=int(d.tokens_seen),
        warning_count=int(d.warning_count),
        statistic=d.statistic if halted else None,
        threshold=d.threshold if halted else None,
        margin=d.margin if halted else None,
        last_score=d.last_score if halted else None,
        flags=flags,
    )


def replay(scores: Any, sentence_end: Any = None, config: HaltConfig | None = None) -> HaltDecision:
    """Replay a whole stream of per-token scores through the C++ kernel (GIL released).

    Args:
        scores: 1-D ``float64`` C-contiguous array; ``scores[i]`` is the coherence the scorer
            returns when token ``i`` is the newest (only the entries the cadence selects are read;
            each read entry must be finite and in [0, 1]).
        sentence_end: optional 1-D ``bool``/``uint8`` array of the same length: token ``i`` ends a
            sentence (used by soft halts).
        config: kernel parameters (default :class:`HaltConfig()`).

    Returns:
        :class:`HaltDecision`; a soft halt still pending at the end is finalised (fail closed).

    Raises:
        InputTypeError: wrong dtype, shape or layout (no silent copies are made).
        ScoreError: a read score is non-finite or outside [0, 1] (``.index`` names the token).
    """
    if config is None:
        cfg = HaltConfig()
    elif isinstance(config, HaltConfig):
        cfg = config
    elif isinstance(config, Mapping):
        known = {f.name for f in fields(HaltConfig)}
        for key in config:
            if key not in known:
                raise ConfigError(f"config: unknown HaltConfig field {key!r}", field=str(key))
        cfg = HaltConfig(**config)
    else:
        raise InputTypeError(f"config must be a HaltConfig or a mapping of its fields, got {type(config).__name__}")
    kernel = cfg.new_kernel()
    n = scores.shape[0] if isinstance(scores, np.ndarray) else 0
    flags = np.zeros(n, dtype=np.uint8)
    d = kernel.run(scores, sentence_end, flags)
    return decision_from_core(d, flags)

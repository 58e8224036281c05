"""Slow pure-Python oracle of the streaming halt kernel (DESIGN §2), written from the spec.

Used only by the tests to check the C++ kernel. Plain lists, no cleverness.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def mean_ltr(values):
    s = 0.0
    for v in values:
        s += v
    return s / len(values)


def trend_drop(values):
    n = len(values)
    ybar = mean_ltr(values)
    xbar = (n - 1) / 2.0
    num = 0.0
    den = 0.0
    for i, y in enumerate(values):
        dx = i - xbar
        num += dx * (y - ybar)
        den += dx * dx
    return -(num / den) * (n - 1)


@dataclass
class OracleResult:
    halted: bool = False
    soft_halted: bool = False
    reason: str = ""
    halt_index: int = -1
    final_index: int = -1
    output_tokens: int = 0
    warning_count: int = 0
    scored: list = field(default_factory=list)
    statistic: float | None = None
    threshold: float | None = None
    effective: list = field(default_factory=list)


def oracle(scores, sentence_end=None, *, hard_limit=0.5, window_size=10, window_threshold=0.55,
           trend_window=5, trend_threshold=0.15, soft_limit=0.6, halt_mode="hard", score_every_n=1,
           adaptive=False, max_cadence=8, soft_halt_cap=50):
    n = len(scores)
    se = sentence_end or [False] * n
    r = OracleResult()
    hist = []
    cadence = score_every_n
    last = 0.5
    pending = False
    extra = 0
    for i in range(n):
        if i % cadence == 0:
            s = scores[i]
            if adaptive:
                w = hist[-window_size:]
                wavg = mean_ltr(w) if w else s
                if wavg > soft_limit and cadence < max_cadence:
                    cadence = min(cadence + 1, max_cadence)
                elif s < soft_limit:
                    cadence = 1
            last = s
            r.scored.append(i)
        else:
            s = last
        hist.append(s)
        r.effective.append(s)
        if s < hard_limit:
            r.halted, r.soft_halted, r.reason = True, False, "hard_limit"
            r.halt_index = r.final_index = i
            r.output_tokens = i
            r.statistic, r.threshold = s, hard_limit
            return r
        if pending:
            extra += 1
            if se[i] or extra >= soft_halt_cap:
                r.halted = r.soft_halted = True
                r.final_index = i
                r.output_tokens = i + 1
                return r
            continue
        reason = ""
        if len(hist) >= window_size:
            m = mean_ltr(hist[-window_size:])
            if m < window_threshold:
                reason, r.statistic, r.threshold = "window_avg", m, window_threshold
        if not reason and len(hist) >= trend_window:
            d = trend_drop(hist[-trend_window:])
            if d > trend_threshold:
                reason, r.statistic, r.threshold = "downward_trend", d, trend_threshold
        if reason:
            r.reason = reason
            r.halt_index = i
            if halt_mode == "soft":
                if se[i]:
                    r.halted = r.soft_halted = True
                    r.final_index = i
                    r.output_tokens = i + 1
                    return r
                pending = True
                extra = 0
                continue
            r.halted = True
            r.final_index = i
            r.output_tokens = i
            return r
        if s < soft_limit:
            r.warning_count += 1
    if pending:  # fail closed at the end of the stream
        r.halted = r.soft_halted = True
        r.final_index = n - 1
        r.output_tokens = n
    else:
        r.output_tokens = n
    return r

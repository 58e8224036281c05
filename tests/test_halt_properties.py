"""Hypothesis properties of the halt kernel against the pure-Python oracle (DESIGN §2)."""

from __future__ import annotations

import asyncio

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import director_fast as df
from director_fast.stream.halt import HaltConfig

from halt_oracle import oracle, mean_ltr, trend_drop

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
# scores on a coarse grid hit exact thresholds often
grid = st.integers(0, 40).map(lambda k: k / 40)
score_lists = st.lists(st.one_of(unit, grid), min_size=0, max_size=80)


@st.composite
def configs(draw):
    hard = draw(st.one_of(grid, unit))
    return HaltConfig(
        hard_limit=hard,
        window_size=draw(st.integers(1, 12)),
        window_threshold=draw(st.one_of(grid, unit)),
        trend_window=draw(st.integers(2, 8)),
        trend_threshold=draw(st.one_of(grid, unit)),
        soft_limit=draw(st.one_of(grid, unit)),
        halt_mode=draw(st.sampled_from(["hard", "soft"])),
        score_every_n=draw(st.integers(1, 4)),
        adaptive=draw(st.booleans()),
        max_cadence=draw(st.integers(1, 9)),
        soft_halt_cap=draw(st.integers(1, 12)),
    )


def _run_all(scores, ends, cfg):
    arr = np.array(scores, dtype=np.float64)
    se = np.array(ends, dtype=bool)
    d = df.replay(arr, se, cfg)
    k = cfg.new_kernel()
    for i, s in enumerate(scores):
        if k.finished:
            break
        k.step(s, k.wants_score, ends[i])
    sd = k.finish()
    o = oracle(scores, ends, **cfg.kernel_kwargs())
    return d, sd, o


SET = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SET
@given(scores=score_lists, cfg=configs(), data=st.data())
def test_step_equals_batch_equals_oracle(scores, cfg, data):
    ends = data.draw(st.lists(st.booleans(), min_size=len(scores), max_size=len(scores)))
    d, sd, o = _run_all(scores, ends, cfg)
    assert (d.halted, d.soft_halted, d.halt_index, d.final_index, d.output_tokens, d.warning_count) == (
        o.halted, o.soft_halted, o.halt_index, o.final_index, o.output_tokens, o.warning_count)
    assert d.scored_indices == o.scored
    assert (sd.halted, sd.soft_halted, sd.halt_index, sd.final_index, sd.output_tokens) == (
        d.halted, d.soft_halted, d.halt_index, d.final_index, d.output_tokens)
    if d.halted and d.reason in ("hard_limit", "window_avg", "downward_trend"):
        assert d.reason == o.reason
        assert d.statistic == o.statistic and d.threshold == o.threshold


@SET
@given(scores=score_lists, cfg=configs(), data=st.data())
def test_guard_output_is_prefix_and_sync_equals_async(scores, cfg, data):
    toks = data.draw(st.lists(st.sampled_from(["a ", "b", "c. ", "d!", " ", "e? ", "f\n"]),
                              min_size=len(scores), max_size=len(scores)))
    text_to_index = {}
    pos = 0
    for i, t in enumerate(toks):
        pos += len(t)
        text_to_index[pos] = i

    def cb(text):
        return scores[text_to_index[len(text)]]

    g = df.stream_guard(iter(toks), cb, config=cfg)
    out = list(g)
    assert out == toks[: len(out)]
    assert g.session.output == "".join(out)

    async def run():
        ag = df.astream_guard(iter(toks), cb, config=cfg)
        return [t async for t in ag], ag.session

    aout, asess = asyncio.run(run())
    s = g.session
    assert aout == out
    assert (asess.halted, asess.soft_halted, asess.halt_index, asess.final_index, asess.halt_reason,
            asess.warning_count, list(asess.coherence_history), asess.scored_indices) == (
        s.halted, s.soft_halted, s.halt_index, s.final_index, s.halt_reason, s.warning_count,
        list(s.coherence_history), s.scored_indices)
    # soft halts end on a sentence end, at the cap, or at the end of the stream
    if s.soft_halted:
        fi = s.final_index
        assert (toks[fi].rstrip()[-1:] in (".", "!", "?") and toks[fi].strip()) or \
            fi - s.halt_index == cfg.soft_halt_cap or fi == len(toks) - 1
        assert s.output == "".join(toks[: fi + 1])
    elif s.halted:
        assert s.output == "".join(toks[: s.halt_index])


def _first_condition_index(scores, cfg):
    """Independent scan: the first index where any halt condition holds (hard mode, cadence 1)."""
    for i in range(len(scores)):
        if scores[i] < cfg.hard_limit:
            return i
        if i + 1 >= cfg.window_size and mean_ltr(scores[i + 1 - cfg.window_size: i + 1]) < cfg.window_threshold:
            return i
        if i + 1 >= cfg.trend_window and trend_drop(scores[i + 1 - cfg.trend_window: i + 1]) > cfg.trend_threshold:
            return i
    return -1


@SET
@given(scores=score_lists, cfg=configs())
def test_halt_index_is_first_condition(scores, cfg):
    cfg = HaltConfig(**{**cfg.kernel_kwargs(), "halt_mode": "hard", "score_every_n": 1, "adaptive": False})
    d = df.replay(np.array(scores, dtype=np.float64), None, cfg)
    assert d.halt_index == _first_condition_index(scores, cfg)


@SET
@given(base=st.lists(unit, min_size=1, max_size=60), cfg=configs())
def test_nondecreasing_scores_above_limits_never_halt(base, cfg):
    # strictly above every limit (by more than the rounding of a mean: ten 0.55s average to
    # 0.5499999999999999, which is *not* above 0.55)
    floor = max(cfg.hard_limit, cfg.window_threshold) + 1e-9
    scores = sorted(floor + (1.0 - floor) * x for x in base)
    scores = [s for s in scores if floor <= s <= 1.0]
    # a non-decreasing series has a non-positive projected drop (up to rounding)
    d = df.replay(np.array(scores, dtype=np.float64), None, cfg)
    assert not d.halted or (d.reason == "downward_trend" and d.statistic < 1e-12)


@SET
@given(scores=st.lists(unit, min_size=1, max_size=60), cfg=configs(), data=st.data())
def test_lowering_scores_never_delays_hard_limit_halt(scores, cfg, data):
    cfg = HaltConfig(**{**cfg.kernel_kwargs(), "score_every_n": 1, "adaptive": False})
    d = df.replay(np.array(scores, dtype=np.float64), None, cfg)
    assume(d.halted and d.reason == "hard_limit")
    deltas = data.draw(st.lists(unit, min_size=len(scores), max_size=len(scores)))
    lowered = [max(0.0, s - dl * s) for s, dl in zip(scores, deltas)]
    d2 = df.replay(np.array(lowered, dtype=np.float64), None, cfg)
    assert d2.halted and d2.halt_index <= d.halt_index


@SET
@given(scores=score_lists, cfg=configs())
def test_trace_attribution_agrees_with_decision(scores, cfg):
    toks = [f"t{i} " for i in range(len(scores))]
    by_len = {}
    pos = 0
    for i, t in enumerate(toks):
        pos += len(t)
        by_len[pos] = i
    g = df.stream_guard(iter(toks), lambda text: scores[by_len[len(text)]], config=cfg)
    list(g)
    s = g.session
    if not s.halted:
        assert s.halt_evidence_structured is None and s.safety_events == []
        return
    ev = s.halt_evidence_structured
    tr = ev.trace_attribution
    assert tr.token_offset == s.halt_index
    d = df.replay(np.array(scores, dtype=np.float64), None, cfg)
    assert tr.threshold == d.threshold
    assert tr.causal_contribution == d.margin
    assert tr.causal_contribution > 0
    if s.halt_reason == "hard_limit":
        assert tr.causal_contribution == cfg.hard_limit - ev.last_score
    elif s.halt_reason == "window_avg":
        assert d.statistic < cfg.window_threshold
    elif s.halt_reason == "downward_trend":
        assert d.statistic > cfg.trend_threshold
    (sev,) = s.safety_events
    assert sev.threshold == d.threshold and sev.observed_score == d.statistic
    assert sev.attributes["token_offset"] == str(s.halt_index)

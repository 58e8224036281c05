"""Every recorded director-ai 3.21.0 halt case, through the compat kernel, the batch replay and
the step API; the deliberate differences of shared/reference/README.md get tests of their own."""

from __future__ import annotations

import math

import numpy as np
import pytest

import director_fast as df
from director_fast import _core
from director_fast.stream.halt import HaltConfig
from director_fast.errors import ConfigError, ScoreError

from conftest import load_halt_cases
from halt_oracle import oracle

DATA = load_halt_cases()
CASES = {c["name"]: c for c in DATA["cases"]}
DELIBERATE = {
    "window_size_zero",
    "nan_score",
    "score_above_one",
    "soft_pending_at_end_of_stream",
    "kernel_inactive_after_hard_halt",
}
MATCHING = [n for n in CASES if n not in DELIBERATE]


def _num(x):
    if x == "NaN":
        return math.nan
    if x == "Infinity":
        return math.inf
    return x


def _config(case) -> HaltConfig:
    kw = dict(case["kernel_kwargs_effective"])
    return HaltConfig(**kw)


def _callback(case):
    """Returns scores[i] where i is the index of the newest token of the accumulated text."""
    tokens = case["tokens"]
    ends = {}
    pos = 0
    for i, t in enumerate(tokens):
        pos += len(t)
        ends[pos] = i
    raise_at = {int(k): v for k, v in case.get("raise_at", {}).items()}
    calls = []

    def cb(text: str) -> float:
        i = ends[len(text)]
        calls.append(i)
        if i in raise_at:
            raise {"TimeoutError": TimeoutError, "OSError": OSError}[raise_at[i]]("scorer failed")
        return _num(case["scores"][i])

    return cb, calls


def _run_compat(case):
    kernel = df.StreamingKernel(**case["kernel_kwargs_effective"])
    cb, calls = _callback(case)
    session = kernel.stream_tokens(iter(case["tokens"]), cb)
    return session, calls


@pytest.mark.parametrize("name", MATCHING)
def test_reference_case_compat(name):
    case = CASES[name]
    r = case["result"]
    session, calls = _run_compat(case)
    assert session.halted == r["halted"]
    assert session.soft_halted == r["soft_halted"]
    assert session.halt_index == r["halt_index"]
    assert session.halt_reason_text == r["halt_reason"]
    assert session.halt_reason == r["halt_reason"].split(" ")[0]
    assert session.output == r["output"]
    assert len(session.output) == r["output_len_chars"] if "output_len_chars" in r else True
    assert session.token_count == r["token_count"]
    assert session.events_count == r["events_count"]
    assert session.warning_count == r["warning_count"]
    # the scorer was called exactly where the anchor called it; the session lists the consumed
    # tokens that got a fresh score (a token whose callback raised is not consumed)
    assert calls == r["scored_indices"]
    consumed = [i for i in r["scored_indices"] if i < r["token_count"]]
    assert session.scored_indices == consumed
    # ours: one SafetyEvent per halt, timeouts included (the anchor emits none for those)
    assert len(session.safety_events) == (1 if r["halted"] else 0)
    if r["halted"] and r.get("safety_event_threshold") is not None and session.halt_reason == "hard_limit":
        ev = session.safety_events[0]
        assert ev.threshold == r["safety_event_threshold"]
        assert ev.observed_score == r["safety_event_observed_score"]
        assert ev.attributes["token_offset"] == r["safety_event_attributes"]["token_offset"]


@pytest.mark.parametrize("name", [n for n in MATCHING if "raise_at" not in CASES[n]])
def test_reference_case_batch_and_step(name):
    case = CASES[name]
    r = case["result"]
    cfg = _config(case)
    scores = np.array([_num(s) for s in case["scores"]], dtype=np.float64)
    se = np.array([t.rstrip()[-1:] in (".", "!", "?") and bool(t.rstrip()) for t in case["tokens"]], dtype=bool)
    d = df.replay(scores, se, cfg)
    assert d.halted == r["halted"]
    assert d.soft_halted == r["soft_halted"]
    assert d.halt_index == r["halt_index"]
    assert d.reason_text == r["halt_reason"]
    assert "".join(case["tokens"][: d.output_tokens]) == r["output"]
    assert d.warning_count == r["warning_count"]
    assert d.scored_indices == r["scored_indices"]
    # step API: identical decision, and the exact recorded window means / trend drops
    k = cfg.new_kernel()
    wins = r.get("ref_window_avg_by_index") or []
    trends = r.get("ref_trend_drop_by_index") or []
    for i, s in enumerate(scores):
        if k.finished:
            break
        step = k.step(float(s), k.wants_score, bool(se[i]))
        if i < len(wins) and wins[i] is not None and step.window_mean is not None:
            assert step.window_mean == wins[i]
        if i < len(trends) and trends[i] is not None and step.trend_drop is not None:
            assert step.trend_drop == trends[i]
    sd = k.finish()
    assert (sd.halted, sd.soft_halted, sd.halt_index, sd.output_tokens) == (
        d.halted, d.soft_halted, d.halt_index, d.output_tokens)
    # and the pure-Python oracle
    o = oracle([float(x) for x in scores], [bool(x) for x in se], **cfg.kernel_kwargs())
    assert (o.halted, o.soft_halted, o.halt_index, o.output_tokens, o.warning_count, o.scored) == (
        d.halted, d.soft_halted, d.halt_index, d.output_tokens, d.warning_count, d.scored_indices)


def test_recorded_series_are_reproduced_exactly():
    """All recorded window means and trend drops, bit for bit (summing left to right, centred
    least squares)."""
    checked = 0
    for case in DATA["cases"]:
        r = case["result"]
        kw = case["kernel_kwargs_effective"]
        eff = r.get("ref_effective_scores")
        if not eff or kw["window_size"] < 1:
            continue
        eff = [_num(x) for x in eff]
        if any(not (0 <= x <= 1) for x in eff):
            continue
        cfg = HaltConfig(**{**kw, "hard_limit": 0.0, "window_threshold": 0.0, "trend_threshold": 1.0})
        k = cfg.new_kernel()
        for i, s in enumerate(eff):
            st = k.step(s, True, False)
            w = (r.get("ref_window_avg_by_index") or [None] * len(eff))[i]
            t = (r.get("ref_trend_drop_by_index") or [None] * len(eff))[i]
            if w is not None:
                assert st.window_mean == w
                checked += 1
            if t is not None:
                assert st.trend_drop == t
                checked += 1
    assert checked > 300


def test_exact_threshold_cases_bit_for_bit():
    d = df.replay(np.full(20, 0.55), None, HaltConfig())
    assert d.halted and d.reason == "window_avg" and d.halt_index == 9
    assert d.statistic == 0.5499999999999999
    case = CASES["downward_trend_exact_threshold"]
    d2 = df.replay(np.array(case["scores"], dtype=np.float64))
    assert not d2.halted


# ---- deliberate differences -------------------------------------------------------------------

def test_window_size_zero_is_rejected():
    with pytest.raises(ConfigError) as ei:
        df.StreamingKernel(window_size=0)
    assert ei.value.field == "window_size"
    assert isinstance(ei.value, ValueError)
    with pytest.raises(ValueError, match="window_size"):
        _core.HaltKernel(window_size=0)


@pytest.mark.parametrize("name", ["nan_score", "score_above_one"])
def test_invalid_scores_raise_and_record_scorer_error(name):
    case = CASES[name]
    cb, _ = _callback(case)
    guard = df.stream_guard(iter(case["tokens"]), cb)
    with pytest.raises(ScoreError) as ei:
        list(guard)
    bad = next(i for i, s in enumerate(case["scores"]) if not (0 <= _num(s) <= 1))
    assert ei.value.index == bad
    assert f"token {bad}" in str(ei.value)
    s = guard.session
    assert s.halted and s.halt_reason == "scorer_error" and s.halt_index == bad
    assert len(s.safety_events) == 1
    # the bad score never reached the window: history holds only the good tokens
    assert s.token_count == bad
    assert all(0 <= x <= 1 for x in s.coherence_history)


def test_invalid_score_in_batch_names_token():
    with pytest.raises(ScoreError) as ei:
        df.replay(np.array([0.9, 0.9, np.nan, 0.9]))
    assert ei.value.index == 2


def test_soft_pending_at_end_of_stream_fails_closed():
    case = CASES["soft_pending_at_end_of_stream"]
    session, _ = _run_compat(case)
    r = case["result"]
    assert session.halted and session.soft_halted
    assert session.halt_index == r["halt_index"]
    assert session.final_index == len(case["tokens"]) - 1
    assert session.halt_reason == "downward_trend"
    assert session.output == r["output"]
    assert len(session.safety_events) == 1
    ev = session.safety_events[0]
    assert ev.attributes["token_offset"] == str(r["halt_index"])
    assert ev.attributes["final_token_offset"] == str(len(case["tokens"]) - 1)


def test_kernel_reuse_after_hard_halt_starts_fresh():
    kernel = df.StreamingKernel()
    s1 = kernel.stream_tokens(["a "] * 5, lambda t: 0.2)
    assert s1.halted and s1.halt_reason == "hard_limit"
    s2 = kernel.stream_tokens(["a "] * 5, lambda t: 0.9)
    assert not s2.halted and s2.output == "a " * 5
    kernel.emergency_stop()
    s3 = kernel.stream_tokens(["a "] * 5, lambda t: 0.9)
    assert s3.halted and s3.halt_reason == "kernel_inactive" and s3.halt_index == 0
    assert s3.output == "" and len(s3.safety_events) == 1
    kernel.reactivate()
    assert not kernel.stream_tokens(["a "] * 5, lambda t: 0.9).halted


@pytest.mark.parametrize("name", ["callback_timeout", "callback_oserror"])
def test_callback_errors_halt_with_safety_event(name):
    case = CASES[name]
    session, _ = _run_compat(case)
    r = case["result"]
    assert session.halt_reason == "callback_timeout" and session.halt_index == r["halt_index"]
    assert session.output == r["output"]
    (ev,) = session.safety_events
    assert ev.halt_reason == "callback_timeout" and ev.threshold is None
    assert ev.hook_id == "streaming.kernel" and ev.policy_decision == "halt"


def test_check_halt_per_score_api():
    from director_fast.stream.kernel import StreamingKernel

    k = StreamingKernel(hard_limit=0.3, window_size=3, window_threshold=0.55, trend_window=3, trend_threshold=0.15)
    assert [k.check_halt(x) for x in (0.9, 0.9, 0.9)] == [False, False, False]
    assert k.check_halt(0.2) is True            # hard limit
    assert k.check_halt(0.9) is False           # history continues after a True: (0.9+0.2+0.9)/3 >= 0.55
    k.reset_state()
    assert [k.check_halt(x) for x in (0.5, 0.5, 0.5)] == [False, False, True]  # window mean 0.5 < 0.55
    k.reset_state()
    # trend: 0.95, 0.8, 0.65 -> slope -0.15, projected drop 0.3 > 0.15
    assert [k.check_halt(x) for x in (0.95, 0.8, 0.65)] == [False, False, True]
    for bad in (float("nan"), 1.5, -0.1, "0.5", None, True):
        with pytest.raises(ScoreError):
            k.check_halt(bad)
    assert len(k._check_window) == 3  # invalid scores leave the history unchanged


def test_check_halt_matches_director_ai():
    D = pytest.importorskip("director_ai.core").StreamingKernel
    from director_fast.stream.kernel import StreamingKernel

    rng = np.random.default_rng(0)
    for _ in range(200):
        kw = dict(hard_limit=float(rng.choice([0.3, 0.5])), window_size=int(rng.integers(2, 9)),
                  window_threshold=float(rng.choice([0.5, 0.55, 0.7])), trend_window=int(rng.integers(2, 7)),
                  trend_threshold=float(rng.choice([0.05, 0.15, 0.3])))
        ours, anchor = StreamingKernel(**kw), D(**kw)
        for x in np.round(rng.uniform(0.2, 1.0, 40), 3):
            assert ours.check_halt(float(x)) == anchor.check_halt(float(x)), (kw, x)

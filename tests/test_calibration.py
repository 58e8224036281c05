"""Threshold calibration: tune_threshold known answers, split, bootstrap, per-tenant thresholds,
reliability curve, the scorer config (CoherenceScorer.from_config) and `director-fast tune`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from director_fast import CoherenceScorer, TuneResult, tune_threshold
from director_fast.diagnostics.calibration import load_scorer_config, read_tune_data
from director_fast.jobs.cli import main
from director_fast.errors import ConfigError, FormatError, InputTypeError, ValidationError
from director_fast.stream.stream_state import _derived_config


def _synthetic(n: int, seed: int, mu_pos=0.35, mu_neg=0.65, sd=0.1):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    s = np.clip(np.where(y, rng.normal(mu_pos, sd, n), rng.normal(mu_neg, sd, n)), 0.0, 1.0)
    return s, y


def test_known_answer_balanced_accuracy():
    r = tune_threshold([0.1, 0.2, 0.8, 0.9], [True, True, False, False], holdout=0, resamples=0)
    assert r.threshold == 0.5 and r.score == 1.0 and r.metric == "balanced_accuracy"
    assert r.curve == {"0.000000": 0.5, "0.150000": 0.75, "0.500000": 1.0, "0.850000": 0.75, "1.000000": 0.5}
    assert (r.true_positives, r.false_positives, r.true_negatives, r.false_negatives) == (2, 0, 2, 0)
    assert r.samples == 4 and r.interval == [] and r.heldout["split"] == "tuning"


def test_known_answer_ties_take_the_middle_of_the_best():
    # BA 0.75 at 0.25 and 0.75: two best, the lower middle is 0.25
    r = tune_threshold([0.1, 0.4, 0.6, 0.9], [1, 0, 1, 0], holdout=0, resamples=0)
    assert r.threshold == 0.25 and r.score == 0.75
    # three best (0.15, 0.35 and 0.55, balanced accuracy 2/3): the middle one
    r = tune_threshold([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [1, 0, 1, 0, 1, 0], holdout=0, resamples=0)
    best = [k for k, v in r.curve.items() if v == max(r.curve.values())]
    assert best == ["0.150000", "0.350000", "0.550000"] and r.threshold == pytest.approx(0.35)


def test_known_answer_max_fpr():
    s = [0.1, 0.3, 0.4, 0.6, 0.7, 0.9]
    y = [1, 1, 0, 1, 0, 0]
    r = tune_threshold(s, y, objective="max_fpr", max_fpr=0.0, holdout=0, resamples=0)
    assert r.threshold == pytest.approx(0.35) and r.metric == "catch_rate" and r.score == pytest.approx(2 / 3)
    assert r.false_positives == 0 and r.true_positives == 2
    r = tune_threshold(s, y, objective="max_fpr", max_fpr=1 / 3, holdout=0, resamples=0)
    assert r.threshold == pytest.approx(0.65) and r.score == 1.0 and r.false_positives == 1


def test_split_is_stratified_seeded_and_evaluated_on_the_holdout():
    s, y = _synthetic(400, 3)
    a = tune_threshold(s, y, seed=7, resamples=50)
    b = tune_threshold(s, y, seed=7, resamples=50)
    assert a == b
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    held = round(0.3 * n_pos) + round(0.3 * n_neg)
    assert a.heldout["split"] == "holdout" and a.heldout["samples"] == held and a.samples == 400 - held
    assert a.true_positives + a.false_positives + a.true_negatives + a.false_negatives == held
    assert a.true_positives + a.false_negatives == round(0.3 * n_pos)
    lo, hi = a.interval
    assert lo <= hi and 0.4 < lo and hi < 0.6  # the optimum of this population is 0.5
    blo, bhi = a.heldout["balanced_accuracy_interval"]
    assert blo <= a.heldout["balanced_accuracy"] <= bhi


def test_per_tenant_thresholds_and_reliability():
    s1, y1 = _synthetic(200, 1, 0.2, 0.4, 0.03)
    s2, y2 = _synthetic(200, 2, 0.6, 0.8, 0.03)
    tiny_s, tiny_y = [0.1, 0.9], [True, False]
    s = np.concatenate([s1, s2, tiny_s])
    y = np.concatenate([y1, y2, tiny_y])
    tenants = ["a"] * 200 + ["b"] * 200 + ["tiny"] * 2
    r = tune_threshold(s, y, tenants=tenants, resamples=0)
    assert set(r.per_tenant) == {"a", "b"}  # "tiny" has too few records: it uses the global one
    assert abs(r.per_tenant["a"] - 0.3) < 0.05 and abs(r.per_tenant["b"] - 0.7) < 0.05
    bins = r.reliability["bins"]
    assert len(bins) == 10 and sum(b["count"] for b in bins) == len(s)
    for b in bins:
        if b["count"]:
            assert b["lo"] <= b["mean_score"] <= b["hi"]
    assert 0.0 <= r.reliability["ece"] <= 1.0
    assert TuneResult.from_dict(r.to_dict()) == r


def test_config_round_trip_and_scorer(tmp_path):
    s, y = _synthetic(300, 5, 0.55, 0.85, 0.05)
    tenants = ["acme" if i % 2 else "" for i in range(300)]
    r = tune_threshold(s, y, tenants=tenants, resamples=20)
    path = tmp_path / "scorer.json"
    cfg = r.write_config(path)
    assert json.loads(path.read_text()) == cfg
    sc = CoherenceScorer.from_config(path)
    assert sc.threshold == r.threshold and sc.soft_limit == min(r.threshold + 0.1, 1.0)
    assert sc.score_scale == (0.5, 0.6)
    st = CoherenceScorer.from_config(path, tenant_id="acme")
    assert st.threshold == r.per_tenant["acme"]
    # the streaming halt config is derived from the tuned threshold
    assert _derived_config(sc).hard_limit == sc.threshold
    # same scale: the calibrated scorer's scores equal the default scorer's; approval is the cut
    facts = ["The museum opens at 10:00 on weekdays.", "Entry costs 12 euros for adults."]
    base = CoherenceScorer(knowledge=facts)
    cal = CoherenceScorer.from_config(path, knowledge=facts)
    for text in ("The museum opens at 10:00 on weekdays.", "Entry costs 15 euros for adults.",
                 "The museum has a rooftop cafe.", "Entry costs 12 euros for adults, and the museum opens at 10:00."):
        _ok0, s0 = base.review("", text)
        ok1, s1 = cal.review("", text)
        assert s1.score == s0.score and ok1 == (s0.score >= cal.threshold)
    with pytest.raises(ConfigError):
        CoherenceScorer.from_config(path, threshold=0.3)


def test_bad_config_files(tmp_path):
    p = tmp_path / "c.json"
    p.write_text("{not json")
    with pytest.raises(FormatError):
        load_scorer_config(p)
    p.write_text(json.dumps({"format": "other", "threshold": 0.5}))
    with pytest.raises(FormatError, match="format"):
        load_scorer_config(p)
    p.write_text(json.dumps({"format": "director_fast.scorer_config.v1", "threshold": 1.5}))
    with pytest.raises(FormatError, match="threshold"):
        load_scorer_config(p)
    p.write_text(json.dumps({"format": "director_fast.scorer_config.v1", "threshold": 0.5,
                             "tenant_thresholds": {"x": "high"}}))
    with pytest.raises(FormatError, match="tenant_thresholds"):
        CoherenceScorer.from_config(p)


def test_bad_arguments():
    with pytest.raises(ConfigError, match="objective"):
        tune_threshold([0.1, 0.9], [1, 0], objective="f1")
    with pytest.raises(ConfigError, match="max_fpr"):
        tune_threshold([0.1, 0.9], [1, 0], objective="max_fpr")
    with pytest.raises(ConfigError, match="max_fpr"):
        tune_threshold([0.1, 0.9], [1, 0], max_fpr=0.1)
    with pytest.raises(ValidationError, match="labels"):
        tune_threshold([0.1, 0.9], [1])
    with pytest.raises(ValidationError, match=r"scores\[1\]"):
        tune_threshold([0.1, 1.5], [1, 0])
    with pytest.raises(ValidationError, match=r"labels\[0\]"):
        tune_threshold([0.1, 0.9], ["yes", 0])
    with pytest.raises(ValidationError, match="both"):
        tune_threshold([0.1, 0.9], [1, 1], holdout=0)
    with pytest.raises(InputTypeError):
        tune_threshold([[0.1], [0.9]], [1, 0])
    with pytest.raises(ConfigError, match="holdout"):
        tune_threshold([0.1, 0.9], [1, 0], holdout=1.0)


def test_cli_tune(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    s, y = _synthetic(120, 9)
    lines = [json.dumps({"score": float(a), "hallucinated": bool(b)}) for a, b in zip(s, y)]
    lines.append(json.dumps({"context": "The bridge is 40 metres long.", "response": "The bridge is 90 metres long.",
                             "hallucinated": True}))
    data.write_text("\n".join(lines) + "\n")
    scores, labels, tenants = read_tune_data(data)
    assert len(scores) == 121 and labels[-1] is True and scores[-1] < 0.5
    out = tmp_path / "cfg.json"
    assert main(["tune", "--data", str(data), "--out", str(out), "--resamples", "50"]) == 0
    text = capsys.readouterr().out
    assert "threshold" in text and "confusion tp/fp/tn/fn" in text
    assert CoherenceScorer.from_config(out).threshold == json.loads(out.read_text())["threshold"]
    written = out.read_text()
    assert main(["tune", "--data", str(data), "--out", str(out), "--resamples", "50"]) == 2  # never silently
    assert "--force" in capsys.readouterr().err and out.read_text() == written
    assert main(["tune", "--data", str(data), "--out", str(out), "--resamples", "50", "--force"]) == 0
    capsys.readouterr()
    assert main(["tune", "--data", str(data), "--json", "--resamples", "0", "--objective", "max_fpr",
                 "--max-fpr", "0.05"]) == 0
    res = TuneResult.from_dict(json.loads(capsys.readouterr().out))
    assert res.objective == "max_fpr" and res.heldout["false_positive_rate"] is not None
    data.write_text('{"score": 0.5}\n')
    assert main(["tune", "--data", str(data)]) == 2
    assert "hallucinated" in capsys.readouterr().err

"""Fit the claim verifier's calibration (``calibration.json``) on the held-out grounded rows.

    python training/calibrate.py MODEL_DIR            # the package venv (director_fast + onnxruntime)

Reads ``calib.jsonl`` (build_mix.py: rows of the trainable grounded files held out of training by
evidence passage) and splits it again by passage: rows whose passage hash (``build_mix.group_of``)
is below half the calibration share *fit* the constants, the rest *report* them (ECE, Brier score,
a 10-bin reliability table, balanced accuracy at 0.5), so the reported calibration is measured on
rows that neither trained nor calibrated the model.

Every row is judged by the library as shipped (the int8 model of MODEL_DIR through
``CoherenceScorer``, ``review(question, response, context=[evidence])``), with the claim features
the verifier combines (``director_fast.verify.claim_model``): the model's P(entailment) for the
claim's premise, the lexical coverage and verdict. The constants ``a, b, c, d`` and the
probability of a rule-contradicted claim are fitted by maximum likelihood of the response label
under ``P(response) = min_i p_i`` (the library's response score; Adam on the class-balanced mean
log-loss, numerical gradients; 5 parameters), so the scores are probabilities under a 50 / 50
prior and the default threshold 0.5 balances the two errors.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paths  # noqa: E402
from build_mix import CALIB_SHARE, group_of  # noqa: E402

PARAMS = ("entailment_weight", "coverage_weight", "support_weight", "bias", "rule_contradiction")


def features(scorer, rows: list[dict]) -> list[dict]:
    """Per row: the eligible claims' (logit P(e), coverage, supported), the number of rule-
    contradicted claims, the smallest fixed score of the other claims (1.0: none), the label."""
    from director_fast.verify.claim_model import _logit

    out = []
    for r in rows:
        claims = scorer.claim_features(r["question"], r["response"], context=[r["context"]])
        out.append({"x": [(_logit(f["entailment"]), f["coverage"], float(f["supported"]))
                          for f in claims if f["kind"] == "model"],
                    "rules": sum(f["kind"] == "rule" for f in claims),
                    "fixed": min((f["score"] for f in claims if f["kind"] == "fixed"), default=1.0),
                    "y": 0.0 if r["hallucinated"] else 1.0, "file": r["file"]})
    return out


def response_probs(theta: np.ndarray, feats: list[dict]) -> np.ndarray:
    a, b, c, d, lr = theta
    r = 1.0 / (1.0 + math.exp(-lr))
    out = np.empty(len(feats))
    for i, f in enumerate(feats):
        p = min(f["fixed"], r if f["rules"] else 1.0)
        for x, cov, sup in f["x"]:
            z = a * x + b * cov + c * sup + d
            p = min(p, 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z)))
        out[i] = p
    return out


def balanced_weights(y: np.ndarray) -> np.ndarray:
    """Per-row weights giving each class half the total: the fitted probabilities are those of a
    50 / 50 prior (the calibration rows are 2:1 hallucinated; a user's traffic is not), so that
    the default threshold 0.5 balances passed faithful and blocked hallucinated answers."""
    pos = y.mean()
    return np.where(y == 1, 0.5 / max(pos, 1e-9), 0.5 / max(1 - pos, 1e-9))


def log_loss(theta: np.ndarray, feats: list[dict]) -> float:
    p = np.clip(response_probs(theta, feats), 1e-6, 1 - 1e-6)
    y = np.array([f["y"] for f in feats])
    return float(-np.mean(balanced_weights(y) * (y * np.log(p) + (1 - y) * np.log(1 - p))))


def fit(feats: list[dict], steps: int = 600) -> np.ndarray:
    theta = np.array([1.0, 0.0, 0.0, 0.0, -3.0])
    m, v = np.zeros(5), np.zeros(5)
    lr, eps = 0.05, 1e-4
    for t in range(1, steps + 1):
        g = np.array([(log_loss(theta + eps * e, feats) - log_loss(theta - eps * e, feats)) / (2 * eps)
                      for e in np.eye(5)])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return theta


def report(p: np.ndarray, y: np.ndarray) -> dict:
    """ECE (10 equal-width bins), Brier score and the reliability table, all class-balanced (each
    row weighted as in the fit, so they measure calibration to the 50 / 50 prior the scores
    stand for), and BA, faithful passed and hallucinated blocked at 0.5 (prior-free)."""
    w = balanced_weights(y)
    bins = []
    ece = 0.0
    for k in range(10):
        sel = (p >= k / 10) & ((p < (k + 1) / 10) if k < 9 else (p <= 1.0))
        if sel.any():
            ws = w[sel]
            conf, acc = float(np.average(p[sel], weights=ws)), float(np.average(y[sel], weights=ws))
            ece += ws.sum() / w.sum() * abs(conf - acc)
            bins.append({"bin": f"{k / 10:.1f}-{(k + 1) / 10:.1f}", "n": int(sel.sum()), "mean_p": round(conf, 3),
                         "faithful_rate_balanced": round(acc, 3)})
    pos, neg = y == 1, y == 0
    passed, blocked = float((p[pos] >= 0.5).mean()), float((p[neg] < 0.5).mean())
    return {"n": int(len(p)), "ece_balanced": round(ece, 4),
            "brier_balanced": round(float(np.average((p - y) ** 2, weights=w)), 4),
            "ba_at_0.5": round((passed + blocked) / 2, 4), "faithful_passed": round(passed, 3),
            "hallucinated_blocked": round(blocked, 3), "reliability": bins}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("--mix-dir", default=None)
    args = ap.parse_args()
    import director_fast as df

    rows = [json.loads(line) for line in Path(args.mix_dir or paths.work_dir(), "calib.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    fit_rows = [r for r in rows if group_of(r["context"]) < CALIB_SHARE / 2]
    test_rows = [r for r in rows if group_of(r["context"]) >= CALIB_SHARE / 2]
    scorer = df.CoherenceScorer(nli=df.NLIModel.from_pretrained(args.model_dir))  # features need no calibration
    f_fit, f_test = features(scorer, fit_rows), features(scorer, test_rows)
    theta = fit(f_fit)
    out = dict(zip(PARAMS, [float(x) for x in theta[:4]] + [1.0 / (1.0 + math.exp(-theta[4]))]))
    out["split"] = (f"calib.jsonl rows with build_mix.group_of(context) < {CALIB_SHARE / 2} "
                    f"({len(fit_rows)} rows of the trainable grounded files, held out of training)")
    p_test = response_probs(theta, f_test)
    y_test = np.array([f["y"] for f in f_test])
    out["report"] = {"rows": f"the other {len(test_rows)} calibration rows (neither trained nor fitted on)",
                     **report(p_test, y_test)}
    Path(args.model_dir, "calibration.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

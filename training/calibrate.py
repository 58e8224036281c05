"""Fit the claim verifier's calibration (``calibration.json``) on the held-out grounded rows.

    python training/calibrate.py MODEL_DIR            # the package venv (director_fast + onnxruntime)

Reads ``calib.jsonl`` (build_mix.py: rows of the trainable grounded files held out of training by
evidence passage); with ``--chat-dev`` also the development split of the project's chat/RAG set
(:data:`CHAT_DEV`: answers of a support assistant judged against a knowledge base of short facts,
the setting the training files lack); with ``--summary-dev`` also the development splits of the
summary-gate files (:data:`SUMMARY_DEV`; measured in bench/RESULTS.md, not used for the shipped
constants). Every row is judged by the library as shipped (the int8 model of MODEL_DIR
through ``CoherenceScorer``, ``review(question, response, context=[evidence])``), with the claim
features the verifier combines (``CoherenceScorer.claim_features``): the model's P(entailment) for
the claim's premise, the lexical coverage and verdict, whether the claim shares no word with the
evidence. The constants ``a, b, c, e, d`` of

    p = sigmoid(a * logit(P_entailment) + b * coverage + c * lexically_supported + e * unrelated + d)

are fitted by maximum likelihood of the response label under the library's response score (the
smallest claim score, each unsupported claim's prompt contradiction capping it as in ``review``;
Adam on the prior-weighted mean log-loss, numerical gradients, 5 parameters; a claim a rule
contradicts keeps the rules' score), so the scores are probabilities under a stated prior share of
faithful answers (``prior_faithful``). The prior is chosen on the calibration rows by a stated rule
(``--prior``; default ``equal-errors``: the smallest prior, in steps of 0.05 from 0.5, at which the
cross-fitted scores pass at least as many faithful answers as they block hallucinated ones at the
default threshold 0.5: the equal-error operating point).

The shipped constants are fitted on every calibration row. The reported calibration (ECE, Brier
score, a 10-bin reliability table, balanced accuracy at 0.5) is cross-fitted: the rows are split in
two by passage hash (``build_mix.group_of`` below / above half the calibration share) and each half
is scored with constants fitted on the other half only, so every reported row was neither trained
nor fitted on. Per file, the report also gives BA and AUC of the cross-fitted scores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paths  # noqa: E402
from build_mix import CALIB_SHARE, group_of, read_jsonl  # noqa: E402

from director_fast.verify.claim_model import _logit  # noqa: E402

PARAMS = ("entailment_weight", "coverage_weight", "support_weight", "unrelated_weight", "bias")
#: the development splits of the summary-gate files (claims against long web pages, summaries of
#: documents): calibration rows of other kinds than dialogue; their test splits are never read here
SUMMARY_DEV = (("wice_claim_dev.jsonl", "dev"), ("summedits.jsonl", "evaluation"))
#: the project's chat/RAG set and its development split (``bench/data/chat_rag``; written by the
#: project, with a knowledge base per invented organisation); its ``heldout`` split is never read here
CHAT_DEV = ("cases.jsonl", "dev")
CHAT_RAG_DIR = Path(__file__).resolve().parents[1] / "bench" / "data" / "chat_rag"


def calibration_rows(mix_dir: str | None, summary_dev: bool, chat_dev: bool = False) -> list[dict]:
    """The calibration rows: ``calib.jsonl`` (grounded rows held out of training), with
    ``summary_dev`` the :data:`SUMMARY_DEV` splits of ``halluc/`` and with ``chat_dev`` the
    :data:`CHAT_DEV` split (``file`` = ``name:split``; a chat row has ``domain``, ``kb`` and
    ``system`` instead of ``context``). Each row gets ``first_half``: which cross-fitting half it
    is in (by passage hash, or by organisation for chat rows, so the two halves share no passage
    or knowledge base: below half the calibration share for ``calib.jsonl``, whose hashes all lie
    below it, below 0.5 for the others)."""
    rows = read_jsonl(os.path.join(mix_dir or paths.work_dir(), "calib.jsonl"))
    for r in rows:
        r["first_half"] = group_of(r["context"]) < CALIB_SHARE / 2
    for name, split in SUMMARY_DEV if summary_dev else ():
        for r in read_jsonl(os.path.join(paths.shared_data(), "halluc", name)):
            if r["split"] == split:
                rows.append({"file": f"{name}:{split}", "context": r["context"], "question": r["question"],
                             "response": r["response"], "hallucinated": r["hallucinated"],
                             "first_half": group_of(r["context"]) < 0.5})
    name, split = CHAT_DEV
    for r in read_jsonl(str(CHAT_RAG_DIR / name)) if chat_dev else ():
        if r["split"] == split:
            rows.append({"file": f"{name}:{split}", "domain": r["domain"], "kb": r["kb"], "system": r["system"],
                         "question": r["question"], "response": r["response"], "hallucinated": not r["supported"],
                         "first_half": group_of(r["domain"]) < 0.5})
    return rows


class Features:
    """The rows' claim features as arrays: model-judged claims (``x``: logit P(e), coverage,
    supported, unrelated; ``row``: their row; ``cap``: 1 - prompt contradiction, applied when the
    claim is not supported), and per row the cap of the other claims (``fixed``) and the smallest
    rule score (``rule``; 1.0: no rule-contradicted claim)."""

    def __init__(self, rows: list[dict]) -> None:
        x, row, cap, fixed, rule = [], [], [], [], []
        for k, r in enumerate(rows):
            f_cap, r_min = 1.0, 1.0
            for f in r["claims"]:
                unsupported_cap = 1.0 - f["prompt_contradiction"]
                if f["kind"] == "model":
                    x.append([_logit(f["entailment"]), f["coverage"], float(f["supported"]), float(f["unrelated"])])
                    row.append(k)
                    cap.append(unsupported_cap)
                elif f["kind"] == "rule":  # keeps the rules' score
                    f_cap, r_min = min(f_cap, unsupported_cap), min(r_min, f["score"])
                else:
                    f_cap = min(f_cap, f["score"], 1.0 if f["supported"] else unsupported_cap)
            fixed.append(f_cap)
            rule.append(r_min)
        self.x = np.array(x, dtype=float).reshape(-1, 4)
        self.row, self.cap = np.array(row, dtype=int), np.array(cap, dtype=float)
        self.fixed, self.rule = np.array(fixed), np.array(rule)
        self.y = np.array([0.0 if r["hallucinated"] else 1.0 for r in rows])
        self.files = [r["file"] for r in rows]


def features(nli, rows: list[dict]) -> list[dict]:
    """Each row with its claims' features (``claim_features`` of a scorer judging with ``nli``):
    against its ``context``, or for a chat row against its organisation's knowledge base (one
    tenant per organisation) with its system prompt."""
    import director_fast as df

    plain = df.CoherenceScorer(nli=nli)  # features need no calibration
    kb = df.KnowledgeBase()
    for domain, docs in {r["domain"]: r["kb"] for r in rows if "kb" in r}.items():
        for source, text in docs.items():
            kb.add(text, source=source, tenant=domain)
    with_kb = df.CoherenceScorer(knowledge=kb, nli=nli)
    return [{**r, "claims": with_kb.claim_features(r["question"], r["response"], tenant_id=r["domain"],
                                                    system=r["system"] or None)
             if "kb" in r else plain.claim_features(r["question"], r["response"], context=[r["context"]])}
            for r in rows]


def response_probs(theta: np.ndarray, f: Features) -> np.ndarray:
    """The response scores ``review`` gives under the constants ``theta`` (a, b, c, e, d)."""
    p = np.minimum(f.fixed, f.rule)
    if len(f.x):
        s = 1.0 / (1.0 + np.exp(-(f.x @ theta[:4] + theta[4])))
        s = np.minimum(s, np.where(s < 0.5, f.cap, 1.0))
        np.minimum.at(p, f.row, s)
    return p


def prior_weights(y: np.ndarray, prior: float = 0.5) -> np.ndarray:
    """Per-row weights giving the faithful rows ``prior`` of the total and the hallucinated ones
    the rest: the fitted probabilities are those of traffic in which a share ``prior`` of the
    answers is faithful (the calibration rows are 2:1 hallucinated; a user's traffic is not).
    0.5: the default threshold 0.5 balances passed faithful and blocked hallucinated answers."""
    pos = y.mean()
    return np.where(y == 1, prior / max(pos, 1e-9), (1.0 - prior) / max(1 - pos, 1e-9))


def log_loss(theta: np.ndarray, f: Features, prior: float = 0.5) -> float:
    p = np.clip(response_probs(theta, f), 1e-6, 1 - 1e-6)
    return float(-np.mean(prior_weights(f.y, prior) * (f.y * np.log(p) + (1 - f.y) * np.log(1 - p))))


def fit(f: Features, steps: int = 800, prior: float = 0.5) -> np.ndarray:
    theta = np.array([1.0, 0.0, 0.0, 0.0, 0.0])
    m, v = np.zeros(5), np.zeros(5)
    lr, eps = 0.05, 1e-4
    for t in range(1, steps + 1):
        g = np.array([(log_loss(theta + eps * e, f, prior) - log_loss(theta - eps * e, f, prior)) / (2 * eps)
                      for e in np.eye(5)])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return theta


def report(p: np.ndarray, y: np.ndarray, prior: float = 0.5) -> dict:
    """ECE (10 equal-width bins), Brier score and the reliability table, all weighted as in the
    fit (so they measure calibration to the prior the scores stand for), and BA, faithful passed
    and hallucinated blocked at 0.5 (prior-free)."""
    w = prior_weights(y, prior)
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
    return {"n": int(len(p)), "prior_faithful": prior, "ece_balanced": round(ece, 4),
            "brier_balanced": round(float(np.average((p - y) ** 2, weights=w)), 4),
            "ba_at_0.5": round((passed + blocked) / 2, 4), "faithful_passed": round(passed, 3),
            "hallucinated_blocked": round(blocked, 3), "reliability": bins}


def per_file(p: np.ndarray, f: Features) -> dict:
    """BA at 0.5 and AUC per file of the cross-fitted scores."""
    from director_fast.diagnostics.metrics import roc_auc

    out = {}
    for name in sorted(set(f.files)):
        sel = np.array([x == name for x in f.files])
        y, q = f.y[sel], p[sel]
        passed, blocked = float((q[y == 1] >= 0.5).mean()), float((q[y == 0] < 0.5).mean())
        out[name] = {"n": int(sel.sum()), "ba": round((passed + blocked) / 2, 4),
                     "auc": round(float(roc_auc(list(y == 1), list(q)) or float("nan")), 4)}
    return out


def cross_fitted(halves: list[list[dict]], prior: float) -> np.ndarray:
    """The response scores of both halves (in order), each scored with constants fitted on the
    other half under ``prior``."""
    return np.concatenate([response_probs(fit(Features(train), prior=prior), Features(test))
                           for train, test in ((halves[1], halves[0]), (halves[0], halves[1]))])


def choose_prior(halves: list[list[dict]], both: Features, rule: str) -> tuple[float, np.ndarray, list[dict]]:
    """The prior share of faithful answers ``rule`` picks (``--prior``), the cross-fitted scores
    under it and every prior tried with its faithful-passed / hallucinated-blocked shares at 0.5."""
    fixed = rule != "equal-errors" and not rule.startswith("passed:")
    tried: list[dict] = []
    for prior in [float(rule)] if fixed else [round(0.5 + 0.05 * k, 2) for k in range(10)]:
        p_cross = cross_fitted(halves, prior)
        passed = float((p_cross[both.y == 1] >= 0.5).mean())
        blocked = float((p_cross[both.y == 0] < 0.5).mean())
        tried.append({"prior_faithful": prior, "faithful_passed": round(passed, 3),
                      "hallucinated_blocked": round(blocked, 3)})
        print(json.dumps(tried[-1]), file=sys.stderr)
        if fixed or passed >= (blocked if rule == "equal-errors" else float(rule.split(":", 1)[1])):
            break
    return prior, p_cross, tried


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("--mix-dir", default=None)
    ap.add_argument("--summary-dev", action="store_true",
                    help="also calibrate on the summary files' development splits (SUMMARY_DEV); measured in "
                         "bench/RESULTS.md (tenth session) and not used for the shipped constants")
    ap.add_argument("--chat-dev", action="store_true",
                    help="also calibrate on the development split of the project's chat/RAG set (CHAT_DEV)")
    ap.add_argument("--prior", default="equal-errors",
                    help="the share of faithful answers the scores assume: a number in (0, 1), or "
                         "'equal-errors' (default): the smallest of 0.50, 0.55, ... 0.95 whose cross-fitted "
                         "scores pass at least as many faithful calibration answers as they block "
                         "hallucinated ones at 0.5, or 'passed:X': the smallest that passes a share >= X of "
                         "the faithful calibration answers")
    args = ap.parse_args()
    import director_fast as df

    rows = calibration_rows(args.mix_dir, summary_dev=args.summary_dev, chat_dev=args.chat_dev)
    judged = features(df.NLIModel.from_pretrained(args.model_dir), rows)
    halves = [[r for r in judged if r["first_half"] == first] for first in (True, False)]
    both = Features(halves[0] + halves[1])
    prior, p_cross, tried = choose_prior(halves, both, args.prior)
    theta = fit(Features(judged), prior=prior)
    out = dict(zip(PARAMS, [float(x) for x in theta]))
    out["prior_faithful"] = prior
    n_calib = sum(":" not in r["file"] for r in rows)
    out["split"] = (f"calib.jsonl: {n_calib} rows of the trainable grounded files held out of training "
                    f"(build_mix.group_of(context) < {CALIB_SHARE})"
                    + "".join(f"; {where}/{name} split {split!r}: {sum(r['file'] == f'{name}:{split}' for r in rows)} rows"
                              for where, (name, split) in [("halluc", s) for s in SUMMARY_DEV if args.summary_dev]
                              + [("bench/data/chat_rag", CHAT_DEV)] * args.chat_dev))
    out["report"] = {"rows": "cross-fitted: each half (by passage hash) scored with constants fitted on the other",
                     "prior_rule": args.prior,
                     "priors_tried": tried, **report(p_cross, both.y, prior), "per_file": per_file(p_cross, both)}
    Path(args.model_dir, "calibration.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

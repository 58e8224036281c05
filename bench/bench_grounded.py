"""Verdict quality on human-labelled grounded answers and on the project's chat/RAG sets, per file.

For every file of the shared ``grounded/`` folder each row is judged as a user would call the
library: ``scorer.review(question, response, context=[evidence])`` (dialogue rows: the history as
the question). Files the shipped model was trained on are judged on their *calibration split
only* (the rows ``training/build_mix.py`` holds out by evidence passage); ``begin_wow_test`` and
``dialfact_testsmall_test`` were never trained on and are judged whole. The chat/RAG sets
(``bench/data/chat_rag``) are judged with each domain's knowledge base in a ``KnowledgeBase``.

Columns per file and scorer: n, balanced accuracy at the scorer's own threshold (``approved``),
faithful passed, hallucinated blocked, and AUC of ``score.score`` (faithful = positive; ties get
average ranks). Scorers, in one run:

* ``verifier``: the shipped claim verifier, ``CoherenceScorer(use_nli=True)``;
* ``lexical``: the lexical backend, the default (``CoherenceScorer()``);
* ``model``: the shipped model's verdicts alone, without the rules and the calibration
  (``CoherenceScorer(use_nli=True, lexical_signals=False)``);
* ``director-ai``: director-ai 3.21.0's heuristic ``CoherenceScorer(use_nli=False)`` with the
  evidence in its ``GroundTruthStore`` (a sample of ``--director-ai-sample`` rows per file; it
  is slow).

``--halluc`` adds the summary-file gate: the summary-consistency test files of ``halluc/``
(never trained on), where the verifier may not be worse than the lexical backend by more than 0.02
balanced accuracy on any file.

Usage: python bench/bench_grounded.py [--files a,b] [--scorers verifier,lexical,model,director-ai]
       [--limit N] [--director-ai-sample 300] [--halluc] [--json OUT]
Data: ``DIRECTOR_FAST_SHARED_DATA`` or ``<checkout>/../shared/data``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "training"))
from _util import env_line, table  # noqa: E402

EVAL_ONLY = ("begin_wow_test.jsonl", "dialfact_testsmall_test.jsonl")
# the summary-consistency test files of the summary-file gate (``--halluc``)
HALLUC = ("summac_factcc.jsonl", "summac_polytope.jsonl", "summac_summeval.jsonl", "summac_xsumfaith.jsonl",
          "summedits.jsonl:test", "wice_claim_test.jsonl")
GATE = -0.02  # the summary-file gate: BA(verifier) - BA(lexical) per file
CHAT_RAG = ("cases.jsonl:dev", "cases.jsonl:heldout", "fresh_check.jsonl", "fresh_check_2.jsonl", "fresh_check_3.jsonl",
            "fresh_check_4.jsonl", "fresh_check_5.jsonl")
SCORERS = ("verifier", "lexical", "model", "director-ai")


def shared_data() -> Path:
    return Path(os.environ.get("DIRECTOR_FAST_SHARED_DATA") or HERE.parent.parent / "shared" / "data")


def grounded_rows(name: str) -> tuple[list[dict], str]:
    """The rows of one grounded file that may be reported, and what they are."""
    from build_mix import CALIB_SHARE, group_of

    rows = [json.loads(line) for line in (shared_data() / "grounded" / name).read_text(encoding="utf-8").splitlines()
            if line.strip()]
    if name in EVAL_ONLY:
        return rows, "never trained on"
    return [r for r in rows if group_of(r["context"]) < CALIB_SHARE], "calibration split (held out of training)"


def metrics(faithful: list[bool], approved: list[bool], scores: list[float] | None) -> dict:
    pos = [a for f, a in zip(faithful, approved) if f]
    neg = [a for f, a in zip(faithful, approved) if not f]
    passed = sum(pos) / len(pos) if pos else float("nan")
    blocked = sum(not a for a in neg) / len(neg) if neg else float("nan")
    return {"n": len(faithful), "ba": (passed + blocked) / 2, "passed": passed, "blocked": blocked,
            "auc": _auc(faithful, scores)}


def _auc(faithful: list[bool], scores: list[float] | None) -> float:
    """AUC of ``score`` with faithful answers as positives (``roc_auc``: ties by average rank);
    NaN without scores or without one of the classes."""
    from director_fast.diagnostics.metrics import roc_auc

    got = roc_auc(faithful, scores) if scores is not None else None
    return float("nan") if got is None else got


MODEL_DIR: str | None = None  # --model-dir: a candidate model directory instead of the shipped one


def make_scorer(kind: str, knowledge=None):
    import director_fast as df

    kw = {"knowledge": knowledge} if knowledge is not None else {}
    if MODEL_DIR and kind in ("verifier", "model"):
        kw["nli"] = df.NLIModel.from_pretrained(MODEL_DIR)
    if kind == "verifier":
        return df.CoherenceScorer(use_nli=True, **kw)
    if kind == "lexical":
        return df.CoherenceScorer(**kw)
    if kind == "model":
        return df.CoherenceScorer(use_nli=True, lexical_signals=False, **kw)
    raise ValueError(kind)


def judge_grounded(kind: str, rows: list[dict]) -> tuple[list[bool], list[float]]:
    scorer = make_scorer(kind)
    approved, scores = [], []
    for r in rows:
        ok, score = scorer.review(r["question"], r["response"], context=[r["context"]])
        approved.append(bool(ok))
        scores.append(float(score.score))
    return approved, scores


def director_ai_grounded(rows: list[dict]) -> tuple[list[bool], list[float]]:
    from director_ai import CoherenceScorer as AnchorScorer
    from director_ai import GroundTruthStore

    logging.getLogger("director_ai").setLevel(logging.CRITICAL)
    approved, scores = [], []
    for r in rows:
        store = GroundTruthStore()
        store.add("evidence", r["context"])
        ok, score = AnchorScorer(use_nli=False, ground_truth_store=store).review(r["question"], r["response"])
        approved.append(bool(ok))
        scores.append(float(score.score))
    return approved, scores


def halluc_rows(spec: str) -> list[dict]:
    name, _, split = spec.partition(":")
    rows = [json.loads(line) for line in (shared_data() / "halluc" / name).read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [r for r in rows if not split or r.get("split") == split]


def chat_rag_rows(spec: str) -> list[dict]:
    name, _, split = spec.partition(":")
    rows = [json.loads(line) for line in (HERE / "data" / "chat_rag" / name).read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [r for r in rows if not split or r.get("split") == split]


def judge_chat_rag(kind: str, rows: list[dict]) -> tuple[list[bool], list[float]]:
    from bench_chat_rag import build_kb

    scorer = make_scorer(kind, knowledge=build_kb(rows))
    approved, scores = [], []
    for c in rows:
        ok, score = scorer.review(c["question"], c["response"], tenant_id=c["domain"], system=c["system"] or None)
        approved.append(bool(ok))
        scores.append(float(score.score))
    return approved, scores


def director_ai_chat_rag(rows: list[dict]) -> tuple[list[bool], list[float]]:
    from bench_chat_rag import run_director_ai

    approved = run_director_ai(rows)
    return approved, None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", default=None, help="comma-separated grounded files and chat/RAG sets (default: all)")
    ap.add_argument("--scorers", default=",".join(SCORERS))
    ap.add_argument("--limit", type=int, default=0, help="first N rows per file (smoke runs; not for reporting)")
    ap.add_argument("--director-ai-sample", type=int, default=300)
    ap.add_argument("--json", default=None, help="also write the results as JSON here")
    ap.add_argument("--halluc", action="store_true",
                    help="also the summary-file gate: the summary-consistency test files, verifier vs lexical")
    ap.add_argument("--model-dir", default=None,
                    help="judge with this model directory (with its calibration.json) instead of the shipped model")
    a = ap.parse_args(argv)
    global MODEL_DIR
    MODEL_DIR = a.model_dir
    grounded = sorted(p.name for p in (shared_data() / "grounded").glob("*.jsonl"))
    wanted = a.files.split(",") if a.files else grounded + list(CHAT_RAG) + (list(HALLUC) if a.halluc else [])
    scorers = a.scorers.split(",")
    print(f"command: python bench/bench_grounded.py {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
    print(f"env: {env_line()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results, lines = {}, []
    for spec in wanted:
        is_grounded = spec in grounded or spec in HALLUC
        if spec in grounded:
            rows, what = grounded_rows(spec)
        elif spec in HALLUC:
            rows, what = halluc_rows(spec), "summary-consistency test file (never trained on)"
        else:
            rows, what = chat_rag_rows(spec), "project-written chat/RAG set"
        rows = rows[:a.limit] if a.limit else rows
        faithful = [not r["hallucinated"] for r in rows] if is_grounded else [bool(r["supported"]) for r in rows]
        for kind in scorers:
            t0 = time.perf_counter()
            if kind == "director-ai":
                idx = sorted(random.Random(0).sample(range(len(rows)), min(a.director_ai_sample, len(rows))))
                sub = [rows[i] for i in idx]
                approved, scores = (director_ai_grounded if is_grounded else director_ai_chat_rag)(sub)
                m = metrics([faithful[i] for i in idx], approved, scores)
            else:
                approved, scores = (judge_grounded if is_grounded else judge_chat_rag)(kind, rows)
                m = metrics(faithful, approved, scores)
            m["seconds"] = time.perf_counter() - t0
            results.setdefault(spec, {"rows": what})[kind] = m
            lines.append([spec, kind, m["n"], f"{m['ba']:.3f}", f"{m['passed']:.2f}", f"{m['blocked']:.2f}",
                          f"{m['auc']:.3f}", f"{m['seconds']:.0f}"])
            print(f"  {spec} {kind}: BA {m['ba']:.3f} AUC {m['auc']:.3f} ({m['n']} rows, {m['seconds']:.0f} s)",
                  flush=True)
    print()
    print(table(lines, ["file", "scorer", "n", "BA", "faithful passed", "halluc. blocked", "AUC", "s"]))
    print("rows: " + "; ".join(f"{k}: {v['rows']}" for k, v in results.items()))
    gated = [(k, v["verifier"]["ba"] - v["lexical"]["ba"]) for k, v in results.items()
             if k in HALLUC and "verifier" in v and "lexical" in v]
    if gated:
        worst = min(d for _k, d in gated)
        print(f"summary-file gate (BA(verifier) - BA(lexical) >= {GATE} per file): "
              f"{'PASS' if worst >= GATE else 'FAIL'}; " + ", ".join(f"{k} {d:+.3f}" for k, d in gated))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

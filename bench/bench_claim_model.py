"""The shipped claim verifier (``NLIModel.shipped()``) measured as the learned-verifier issue asks.

Usage: python bench/bench_claim_model.py [--summary] [--quick] [--repeats 7] [--boot 1000]

Parts (each printed as a Markdown table, with the command and the load average):

* ``--summary``: the six summary-consistency test files of the shared data (summac_factcc,
  summac_polytope, summac_summeval, summac_xsumfaith, summedits rows with split == "test",
  wice_claim_test; ``--quick``: a seeded sample of 200 per file). Each record is reviewed with the
  document as evidence, ``review(question, response, context=document)``, by the lexical default
  and by the hybrid judge with the shipped model (``CoherenceScorer(nli=NLIModel.shipped())``), in
  the same run. Predicted hallucinated = not approved. Balanced accuracy per file with a bootstrap
  95 % interval (``--boot`` resamples of the records, numpy default_rng(0), percentile method),
  the difference hybrid - lexical with its own paired bootstrap interval, and the mean over the
  files (the issue's target: mean difference >= +0.03); the model alone (``lexical_signals=False``)
  likewise.
* latency (always): model forward time of 9 pairs of about 48 tokens (3 claims x 3 evidence
  units; medians of ``--repeats`` after warm-up); ``review`` of a 3-claim answer against a
  1,000-fact knowledge base (k = 3 evidence units per claim) with the model alone
  (``lexical_signals=False``, every claim goes to the model: its worst case), with the hybrid
  judge (the model asked only about thinly covered units; pairs per review reported) and with the
  lexical backend, p50 / p99 over 60 answers; pairs/s with and without length bucketing over 512
  pairs of mixed length; cold start (``NLIModel.shipped()`` plus the first forward, in a fresh
  subprocess) and the resident memory that loading the model adds (VmRSS, Linux); the size of the
  shipped model directory.

onnxruntime runs on CPU with intra-op threads = physical cores (``NLIModel`` default).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

logging.disable(logging.WARNING)
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_claims import FACTS, QUESTION  # noqa: E402  (the same 1,000-fact catalogue and question)
from bench_halluc_regression import datasets  # noqa: E402

import director_fast as df  # noqa: E402
from director_fast.diagnostics.metrics import binary_metrics  # noqa: E402


# --------------------------------------------------------------------------- summary files

def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    """Balanced accuracy of boolean predictions ``pred`` (True = hallucinated) against ``y``."""
    return binary_metrics(y.tolist(), pred.tolist()).balanced_accuracy


def bootstrap(y: np.ndarray, preds: list[np.ndarray], n: int, seed: int = 0) -> np.ndarray:
    """``n`` x len(preds) balanced accuracies over record resamples (the same resample for every
    prediction vector, so differences are paired). Resamples holding one class only are redrawn."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, len(preds)))
    k = 0
    while k < n:
        idx = rng.integers(0, len(y), len(y))
        ys = y[idx]
        if ys.all() or not ys.any():
            continue
        out[k] = [balanced_accuracy(ys, p[idx]) for p in preds]
        k += 1
    return out


def summary_files(quick: bool, boot: int) -> None:
    model = df.NLIModel.shipped()
    rows = []
    diffs, model_diffs = [], []
    for name, recs in datasets(quick).items():
        y = np.array([bool(r["hallucinated"]) for r in recs])
        preds = []
        times = []
        for kw in ({}, {"nli": model}, {"nli": model, "lexical_signals": False}):
            scorer = df.CoherenceScorer(**kw)
            t0 = time.process_time()
            approved = [scorer.review(r.get("question") or "", r["response"], context=r["context"])[0]
                        for r in recs]
            times.append((time.process_time() - t0) / max(1, len(recs)) * 1e3)
            preds.append(~np.array(approved))
        ba = [balanced_accuracy(y, p) for p in preds]
        b = bootstrap(y, preds, boot)
        lo, hi = np.percentile(b, [2.5, 97.5], axis=0)
        d = b[:, 1] - b[:, 0]
        dlo, dhi = np.percentile(d, [2.5, 97.5])
        diffs.append(ba[1] - ba[0])
        m = b[:, 2] - b[:, 0]
        mlo, mhi = np.percentile(m, [2.5, 97.5])
        model_diffs.append(ba[2] - ba[0])
        rows.append(f"| {name} | {len(recs)} ({int(y.sum())} halluc.) | {ba[0]:.3f} [{lo[0]:.3f}, {hi[0]:.3f}] | "
                    f"{ba[1]:.3f} [{lo[1]:.3f}, {hi[1]:.3f}] | {ba[1] - ba[0]:+.3f} [{dlo:+.3f}, {dhi:+.3f}] | "
                    f"{ba[2]:.3f} [{lo[2]:.3f}, {hi[2]:.3f}] | {ba[2] - ba[0]:+.3f} [{mlo:+.3f}, {mhi:+.3f}] | "
                    f"{times[0]:.1f} / {times[1]:.1f} / {times[2]:.1f} |")
        print(f"  scored {name}", file=sys.stderr, flush=True)
    print("\nSummary-consistency test files: balanced accuracy [bootstrap 95 %], lexical vs hybrid "
          "(shipped model) vs the model alone\n")
    print("| file | records | lexical | hybrid | hybrid - lexical | model alone | model - lexical | "
          "CPU ms/record lex / hyb / model |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nmean difference hybrid - lexical over {len(diffs)} files: {statistics.mean(diffs):+.3f} "
          f"(target >= +0.030); model alone - lexical: {statistics.mean(model_diffs):+.3f}")


# --------------------------------------------------------------------------- latency and resources

def _pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs), q * 100))


def reworded_answers(n: int, seed: int = 1) -> list[str]:
    """3-claim answers that restate catalogue facts in other words ("Item 12 sells for 54 euros.")."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [f"Item {i} sells for {10 + (i * 37) % 490} euros." for i in rng.sample(range(len(FACTS)), 3)]
        out.append(" ".join(parts))
    return out


def review_times(scorer, texts: list[str], model) -> tuple[list[float], float]:
    """Per-review wall ms, and model pairs per review (0 without a model)."""
    pairs0 = model.forward_count if model is not None else 0
    out = []
    for t in texts:
        t0 = time.perf_counter()
        scorer.review(QUESTION, t, tenant_id="t")
        out.append((time.perf_counter() - t0) * 1e3)
    pairs = (model.forward_count - pairs0) / len(texts) if model is not None else 0.0
    return out, pairs


def _rss_kib() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


_COLD = """
import time, json, sys
from pathlib import Path
def rss():
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    return -1
import director_fast as df
r0 = rss(); t0 = time.perf_counter()
m = df.NLIModel.shipped()
t1 = time.perf_counter()
m.predict_proba([("The shop opens at 9 am.", "The shop opens at nine.")])
t2 = time.perf_counter()
print(json.dumps({"load_s": t1 - t0, "first_s": t2 - t1, "rss_added_mib": (rss() - r0) / 1024}))
"""


def latency(repeats: int) -> None:
    model = df.NLIModel.shipped()
    kb = df.KnowledgeBase()
    kb.add_facts(FACTS, source="catalog.md", tenant="t")
    # model forward: 9 pairs (3 claims x 3 units) of about 48 tokens
    pairs = [(f"{FACTS[i]} {FACTS[i + 1]}", f"Item {i} sells for {10 + (i * 37) % 490} euros.")
             for i in range(0, 27, 3)]
    toks = [model.count_tokens(p) + model.count_tokens(h) for p, h in pairs]
    model.predict_proba(pairs)
    fwd = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model.predict_proba(pairs)
        fwd.append((time.perf_counter() - t0) * 1e3)
    texts = reworded_answers(60)
    rows = []
    for label, kw, m in (("model alone (every claim to the model)", {"nli": model, "lexical_signals": False}, model),
                         ("hybrid (default combination with the model)", {"nli": model}, model),
                         ("lexical backend", {}, None)):
        p50s, p99s, per = [], [], 0.0
        for _ in range(max(3, repeats // 2)):
            scorer = df.CoherenceScorer(knowledge=kb, **kw)  # fresh: nothing cached between passes
            review_times(scorer, texts[:3], m)
            scorer = df.CoherenceScorer(knowledge=kb, **kw)
            ms, per = review_times(scorer, texts, m)
            p50s.append(_pct(ms, 0.5))
            p99s.append(_pct(ms, 0.99))
        rows.append(f"| {label} | {statistics.median(p50s):.2f} | {statistics.median(p99s):.2f} | {per:.1f} |")
    # pairs/s with and without length bucketing: 512 pairs, hypotheses of 6-40 words, premises 1-4 facts
    rng = random.Random(2)
    mixed = []
    for _ in range(512):
        i = rng.randrange(len(FACTS) - 4)
        mixed.append((" ".join(FACTS[i:i + rng.randint(1, 4)]),
                      " ".join(["The item", *(["really"] * rng.randint(0, 30)), "ships fast."])))
    rates = {}
    for bucketing in (True, False):
        model.predict_proba(mixed[:32], bucketing=bucketing)
        ts = []
        for _ in range(3):
            t0 = time.perf_counter()
            model.predict_proba(mixed, bucketing=bucketing)
            ts.append(time.perf_counter() - t0)
        rates[bucketing] = len(mixed) / statistics.median(ts)
    cold = json.loads(subprocess.run([sys.executable, "-c", _COLD], capture_output=True, text=True,
                                     check=True).stdout)
    size = sum(f.stat().st_size for f in df.shipped_model_dir().rglob("*") if f.is_file())
    print(f"\nmodel forward, 9 pairs of {statistics.mean(toks):.0f} tokens on average: "
          f"p50 {statistics.median(fwd):.1f} ms (min {min(fwd):.1f}, max {max(fwd):.1f}; {repeats} repeats)")
    print("\nreview of a 3-claim answer against 1,000 facts, k = 3 units per claim (ms; 60 answers; "
          "medians over passes with a fresh scorer)\n")
    print("| judge | p50 | p99 | model pairs per review |\n|---|---|---|---|")
    print("\n".join(rows))
    print(f"\npairs/s over 512 mixed-length pairs: bucketed {rates[True]:.0f}, unbucketed {rates[False]:.0f} "
          f"({rates[True] / rates[False]:.2f}x)")
    print(f"cold start in a fresh process: NLIModel.shipped() {cold['load_s'] * 1e3:.0f} ms, first forward "
          f"{cold['first_s'] * 1e3:.0f} ms; resident memory added by the loaded model {cold['rss_added_mib']:.0f} MiB")
    print(f"shipped model directory: {size / 2**20:.1f} MiB ({df.shipped_model_dir().name})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--summary", action="store_true", help="also the six summary-consistency test files")
    ap.add_argument("--quick", action="store_true", help="200 records per summary file (seeded)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--boot", type=int, default=1000)
    a = ap.parse_args(argv)
    load0 = os.getloadavg()
    print(f"command: python bench/bench_claim_model.py{' --summary' if a.summary else ''}"
          f"{' --quick' if a.quick else ''} --repeats {a.repeats} --boot {a.boot}")
    print(f"load average at start {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f}; {os.cpu_count()} cores")
    latency(a.repeats)
    if a.summary:
        summary_files(a.quick, a.boot)
    load1 = os.getloadavg()
    print(f"\nload average at end {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark of the shipped learned factual-consistency model (int8 ONNX) against director-ai's heuristic.

Quality: per test file of /work/shared/data/halluc (WiCE test, SummEdits split=test, SummaC FactCC,
XSumFaith, SummEval; never Polytope), balanced accuracy at the model's default threshold (0.5 on
P(supported)) and ROC-AUC. One pair per record: premise = training/premise.py:select_premise(document,
response), hypothesis = response, tokenised with the shipped tokenizer.json (premise-only truncation to 256).
Baseline in the same run: director-ai 3.21.0 CoherenceScorer(use_nli=False) (its heuristic default)
with the document as the prompt, prediction = ``approved`` at its default threshold 0.5.

Latency: batches of 16 test pairs (all of 256 tokens after truncation when long enough), onnxruntime CPU,
intra-op threads 2, median of 7 repeats after 2 warm-ups, reported per pair.

Run:  python bench/bench_learned.py [--skip-baseline] [--model DIR]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "training"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import data  # noqa: E402
from director_fast.metrics import binary_metrics  # noqa: E402
from director_fast.metrics import roc_auc as _roc_auc  # noqa: E402
import tok as toklib  # noqa: E402

DEFAULT_MODEL = os.path.join(ROOT, "python", "director_fast", "models", "factcons-minilm-l6")


def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    """Balanced accuracy of 0/1 predictions (the library's definition; symmetric in the classes)."""
    return binary_metrics((y == 1).tolist(), (pred == 1).tolist()).balanced_accuracy


def roc_auc(y: np.ndarray, s: np.ndarray) -> float:
    """ROC-AUC of score s for label 1 (the library's Mann-Whitney implementation, ties 1/2)."""
    return _roc_auc((y == 1).tolist(), s.tolist())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--skip-baseline", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(os.path.join(args.model, "model.onnx"), so, providers=["CPUExecutionProvider"])
    tk = toklib.make_tokenizer(os.path.join(args.model, "tokenizer.json"))

    def probs(pairs, batch=16):
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i].premise) + len(pairs[i].hypothesis))
        out = np.zeros(len(pairs))
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            enc = toklib.encode_pairs(tk, [pairs[i].premise for i in idx], [pairs[i].hypothesis for i in idx])
            lg = sess.run(["logits"], enc)[0]
            e = np.exp(lg - lg.max(1, keepdims=True))
            out[idx] = e[:, 1] / e.sum(1)
        return out

    sets = data.test_sets()
    rows = []
    baccs, baccs_base = [], []
    t0 = time.time()
    for name, pairs in sets.items():
        y = np.array([p.label for p in pairs])
        p = probs(pairs)
        bacc = balanced_accuracy(y, (p >= 0.5).astype(int))
        auc = roc_auc(y, p)
        baccs.append(bacc)
        base = ("-", "-")
        if not args.skip_baseline:
            logging.disable(logging.CRITICAL)
            from director_ai import CoherenceScorer

            sc = CoherenceScorer(use_nli=False)
            bs, bp = [], []
            for pr in pairs:
                ok, cs = sc.review(pr.context, pr.hypothesis)
                bs.append(cs.score)
                bp.append(1 if ok else 0)
            bb = balanced_accuracy(y, np.array(bp))
            baccs_base.append(bb)
            base = (f"{bb:.3f}", f"{roc_auc(y, np.array(bs)):.3f}")
        rows.append([name, str(len(pairs)), f"{int(y.sum())}/{int(len(y) - y.sum())}", f"{bacc:.3f}",
                     f"{auc:.3f}", base[0], base[1]])
        print(f"  {name}: bacc {bacc:.3f} auc {auc:.3f} (elapsed {time.time() - t0:.0f}s)", flush=True)
    rows.append(["mean", "", "", f"{np.mean(baccs):.3f}", "", f"{np.mean(baccs_base):.3f}" if baccs_base else "-",
                 ""])

    # latency at batch 16 with the longest test pairs (256 tokens)
    allp = [p for ps in sets.values() for p in ps]
    allp.sort(key=lambda p: -(len(p.premise) + len(p.hypothesis)))
    batch = allp[:16]
    enc = toklib.encode_pairs(tk, [p.premise for p in batch], [p.hypothesis for p in batch])
    for _ in range(2):
        sess.run(["logits"], enc)
    ts = []
    for _ in range(7):
        t = time.perf_counter()
        sess.run(["logits"], enc)
        ts.append(time.perf_counter() - t)
    ms_pair = statistics.median(ts) / 16 * 1000
    t = time.perf_counter()
    for _ in range(5):
        toklib.encode_pairs(tk, [p.premise for p in batch], [p.hypothesis for p in batch])
    tok_ms = (time.perf_counter() - t) / 5 / 16 * 1000

    size = os.path.getsize(os.path.join(args.model, "model.onnx"))
    total = sum(os.path.getsize(os.path.join(args.model, f)) for f in os.listdir(args.model))
    from _util import table

    print()
    print(table(rows, ["test file", "n", "supported/unsupported", "learned bacc@0.5", "learned AUC",
                       "director-ai heuristic bacc", "director-ai heuristic AUC"]))
    print()
    print(f"latency (int8, batch 16, seq {enc['input_ids'].shape[1]}, {args.threads} threads): "
          f"{ms_pair:.2f} ms/pair forward (median of 7) + {tok_ms:.2f} ms/pair tokenisation")
    print(f"size: model.onnx {size / 1e6:.1f} MB, directory {total / 1e6:.1f} MB")
    print("command: python bench/bench_learned.py" + (" --skip-baseline" if args.skip_baseline else ""))


if __name__ == "__main__":
    main()

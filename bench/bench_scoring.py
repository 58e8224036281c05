"""Scoring benchmark: detection quality and latency of the lexical default vs director-ai's
heuristic scorer, lexical pair cost, and the ONNX path's throughput (tiny model).

Run:  python bench/bench_scoring.py [--quick]

Quality: every record of /work/shared/data/halluc/*.jsonl (and SICK test) is reviewed with the
source document as the prompt for director-ai (its retrieval is prompt-driven: with an empty prompt
it scores every record exactly 0.5) and as the call's evidence (``context=``) for director_fast. Predicted hallucinated = not approved at each backend's own
default threshold (0.5). ROC-AUC uses 1 - score. A second column applies a threshold tuned on the
design data only (WiCE dev + SummEdits 'evaluation' split), the files looked at while writing the
lexical rules. ms/rec: median CPU ms per record over the first 200 records of each file, 5 passes
alternating the two libraries with fresh scorers (see latency()).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

logging.disable(logging.CRITICAL)
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("DIRECTOR_DATA", ROOT.parent / "shared" / "data"))
sys.path.insert(0, str(ROOT / "tests"))

from director_fast.diagnostics.metrics import binary_metrics  # noqa: E402
from _util import ours_review  # noqa: E402
from director_fast.diagnostics.metrics import roc_auc as _roc_auc  # noqa: E402


def roc_auc(y, s):
    """ROC-AUC (ties count 1/2): the library's implementation, NaN when a class is empty."""
    auc = _roc_auc([bool(v) for v in y], [float(v) for v in s])
    return float("nan") if auc is None else auc


def metrics(y, pred):
    """(balanced accuracy, catch rate, false-positive rate) of boolean predictions."""
    m = binary_metrics([bool(v) for v in y], [bool(v) for v in pred])
    return m.balanced_accuracy, m.catch_rate, m.false_positive_rate


def load(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def datasets(quick):
    out = {}
    for p in sorted((DATA / "halluc").glob("*.jsonl")):
        recs = load(p)
        if p.stem == "summedits":
            out["summedits[evaluation]*"] = [r for r in recs if r["split"] == "evaluation"]
            out["summedits[test]"] = [r for r in recs if r["split"] == "test"]
        elif p.stem == "wice_claim_dev":
            out["wice_claim_dev*"] = recs
        else:
            out[p.stem] = recs
    sick = load(DATA / "nli" / "sick_test.jsonl")
    out["sick_test (not entailment)"] = [
        dict(context=r["premise"], response=r["hypothesis"], hallucinated=r["label"] != "entailment")
        for r in sick]
    out["sick_test (contradiction)"] = [
        dict(context=r["premise"], response=r["hypothesis"], hallucinated=r["label"] == "contradiction")
        for r in sick]
    if quick:
        rng = np.random.default_rng(0)
        out = {k: [v[i] for i in sorted(rng.choice(len(v), min(len(v), 150), replace=False))]
               for k, v in out.items()}
    return out


def run_scorer(review, recs):
    scores = np.empty(len(recs))
    approved = np.empty(len(recs), bool)
    t0 = time.perf_counter()
    for i, r in enumerate(recs):
        ok, c = review(r["context"], r["response"])
        scores[i] = c.score
        approved[i] = ok
    return scores, approved, (time.perf_counter() - t0) / len(recs)


def latency(make_ours, make_anchor, recs, passes=5, n=200):
    """Median ms per record of ``review(context, response)`` over the first ``n`` records:
    ``passes`` passes alternating the two libraries, each pass with a fresh scorer (no cache
    carries over), timed with this process's CPU time (robust to other processes)."""
    sample = recs[:n]
    out = {"ours": [], "anchor": []}
    for _ in range(passes):
        for who, make in (("ours", make_ours), ("anchor", make_anchor)):
            review = make().review
            t0 = time.process_time()
            for r in sample:
                review(r["context"], r["response"])
            out[who].append((time.process_time() - t0) / len(sample))
    return statistics.median(out["ours"]), statistics.median(out["anchor"])


class _Reviewing:
    """Gives a ``review(context, response)`` function a ``.review`` attribute (for latency())."""

    def __init__(self, review):
        self.review = review


def tune_threshold(y, scores):
    best = (0.0, 0.5)
    for t in np.unique(np.round(scores, 4)):
        ba = metrics(y, scores < t)[0]
        if ba > best[0]:
            best = (ba, float(t))
    return best[1]


def quality(quick):
    from director_ai import CoherenceScorer as AnchorScorer

    from director_fast.core.scorer import CoherenceScorer

    ours = CoherenceScorer()
    anchor = AnchorScorer(use_nli=False)
    data = datasets(quick)
    res = {}
    for name, recs in data.items():
        y = np.array([r["hallucinated"] for r in recs])
        s_o, a_o, _ = run_scorer(ours_review(ours), recs)
        s_a, a_a, _ = run_scorer(anchor.review, recs)
        t_o, t_a = latency(lambda: _Reviewing(ours_review(CoherenceScorer())), lambda: AnchorScorer(use_nli=False), recs,
                           passes=3 if quick else 5)
        res[name] = dict(y=y, ours=(s_o, a_o, t_o), anchor=(s_a, a_a, t_a))
        print(f"  scored {name} ({len(recs)})", file=sys.stderr, flush=True)
    design = [k for k in res if k.endswith("*")]
    thr = {}
    for who in ("ours", "anchor"):
        y = np.concatenate([res[k]["y"] for k in design])
        s = np.concatenate([res[k][who][0] for k in design])
        thr[who] = tune_threshold(y, s)
    print(f"\nthresholds tuned on {design}: ours {thr['ours']:.4f}, director-ai {thr['anchor']:.4f}")
    hdr = ("| data | n | halluc | ours BA | catch | FPR | AUC | BA@tuned | ms/rec "
           "| director-ai BA | catch | FPR | AUC | BA@tuned | ms/rec |")
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for name, r in res.items():
        y = r["y"]
        row = [name, str(len(y)), str(int(y.sum()))]
        for who in ("ours", "anchor"):
            s, a, t = r[who]
            ba, tpr, fpr = metrics(y, ~a)
            ba_t = metrics(y, s < thr[who])[0]
            row += [f"{ba:.3f}", f"{tpr:.3f}", f"{fpr:.3f}", f"{roc_auc(y, 1 - s):.3f}", f"{ba_t:.3f}",
                    f"{t * 1e3:.2f}"]
        print("| " + " | ".join(row) + " |")
    return res


def lexical_pair_cost():
    from director_fast.verify.nli import LexicalNLI

    sick = load(DATA / "nli" / "sick_test.jsonl")[:2000]
    pairs = [(r["premise"], r["hypothesis"]) for r in sick]
    nli = LexicalNLI()
    nli.score_batch(pairs[:100])
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        nli.score_batch(pairs)
        times.append((time.perf_counter() - t0) / len(pairs))
    single = []
    for _ in range(5):
        t0 = time.perf_counter()
        for p, h in pairs[:500]:
            nli.score(p, h)
        single.append((time.perf_counter() - t0) / 500)
    print(f"\nlexical NLI, SICK sentence pairs: score_batch {statistics.median(times) * 1e6:.1f} us/pair, "
          f"score() from Python {statistics.median(single) * 1e6:.1f} us/pair (median of 5)")


def streaming_sentence_cost():
    from director_fast.core.scorer import CoherenceScorer

    recs = load(DATA / "halluc" / "wice_claim_test.jsonl")[:20]
    prompt = " ".join(r["context"] for r in recs)[:5000]
    facts = [f"The capital of country_{i} is City{i}." for i in range(1000)]
    sentences = [f"The capital of country_{i} is City{(i * 7) % 1000}." for i in range(200)]
    s = CoherenceScorer(knowledge=facts)
    s.score_sentence(sentences[0], prompt=prompt)
    ts, cached = [], []
    for _ in range(5):
        s.clear_cache()
        t0 = time.perf_counter()
        for x in sentences:
            s.score_sentence(x, prompt=prompt)
        ts.append((time.perf_counter() - t0) / len(sentences))
        t0 = time.perf_counter()
        for x in sentences:
            s.score_sentence(x, prompt=prompt)
        cached.append((time.perf_counter() - t0) / len(sentences))
    print(f"\nscore_sentence (lexical, 5 kB prompt, 1,000 facts, top_k=3): {statistics.median(ts) * 1e6:.0f} us "
          f"per new sentence, {statistics.median(cached) * 1e6:.1f} us per cached sentence (median of 5)")


def onnx_throughput(quick):
    from _tiny_onnx import WORDS, build_tiny_nli

    from director_fast.verify.nli import NLIModel

    rng = np.random.default_rng(0)
    n = 256 if quick else 1024
    # skewed lengths, as in real traffic: mostly short pairs, a few long ones
    lens = np.minimum(500, (rng.pareto(1.5, n) * 20 + 5).astype(int))
    pairs = [(" ".join(rng.choice(WORDS, size=int(L))), " ".join(rng.choice(WORDS, size=6))) for L in lens]
    print(f"\nONNX tiny models (one residual tanh layer + mean pooling), {n} pairs, premise tokens median "
          f"{int(np.median(lens))}, max {int(lens.max())}; pairs/s end to end (tokenisation included), "
          f"median of 5. Hidden 64: tokenisation is most of the time, so bucketing can only save the "
          f"rest; hidden 384 (MiniLM's width): the forward dominates, as with a real NLI model.")
    print("| hidden | threads | bucketed | padded to max | ratio |")
    print("|---|---|---|---|---|")
    for hidden in (64, 384):
        d = Path(tempfile.mkdtemp())
        build_tiny_nli(d, hidden=hidden, max_position_embeddings=512)
        for threads in (1, 2):
            m = NLIModel.from_pretrained(d, providers="cpu", intra_op_threads=threads, batch_size=32,
                                         token_budget=32 * 512)
            m.predict_proba(pairs[:64])
            r = {}
            for mode in (True, False):
                ts = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    m.predict_proba(pairs, bucketing=mode)
                    ts.append(time.perf_counter() - t0)
                r[mode] = n / statistics.median(ts)
            print(f"| {hidden} | {threads} | {r[True]:.0f} | {r[False]:.0f} | {r[True] / r[False]:.2f}x |")
    d = Path(tempfile.mkdtemp())
    build_tiny_nli(d, hidden=64, max_position_embeddings=512)
    # bounded forwards: 50 kB premise vs 50 kB answer; 120-claim answer vs 150-sentence context
    m = NLIModel.from_pretrained(d, providers="cpu", intra_op_threads=2, top_k=4)

    def sent(i):
        return f"The {rng.choice(WORDS)} {rng.choice(WORDS)} {rng.choice(WORDS)} number {i % 10} is {rng.choice(WORDS)}."

    premise = " ".join(sent(i) for i in range(1400))
    while len(premise) < 50_000:
        premise += " " + sent(0)
    answer = " ".join(sent(i) for i in range(1400))
    t0 = time.perf_counter()
    r = m.score_detailed(premise[:50_000], answer[:50_000])
    t1 = time.perf_counter() - t0
    print(f"\n50 kB premise x 50 kB answer: {len(r.chunks)} premise chunks x {len(r.sentences)} sentences -> "
          f"{r.forwards} forwards (top_k=4; director-ai: 11,288), {t1:.2f} s")
    ctx = " ".join(sent(i) for i in range(150))
    ans = " ".join(sent(i) for i in range(120))
    r = m.score_detailed(ctx, ans)
    print(f"120-claim answer x 150-sentence context: {len(r.chunks)} chunks x {len(r.sentences)} claims -> "
          f"{r.forwards} forwards (director-ai raises ValueError)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="150 records per file, fewer ONNX pairs")
    ap.add_argument("--only", choices=("quality", "onnx"), help="run one part only")
    args = ap.parse_args()
    print("command: python bench/bench_scoring.py" + (" --quick" if args.quick else "") +
          (f" --only {args.only}" if args.only else "") + f"  (cpu count {os.cpu_count()})")
    if args.only != "onnx":
        print("* = design data (looked at while writing the lexical rules; also where the tuned threshold comes from)")
        quality(args.quick)
        lexical_pair_cost()
        streaming_sentence_cost()
    if args.only != "quality":
        onnx_throughput(args.quick)


if __name__ == "__main__":
    main()

"""Side-by-side harness: director-ai 3.21.0 and director_fast on the same inputs, one process.

Usage: python bench/compare_director_ai.py [--quick] [--repeats 5]
       (or: director-fast bench [--quick])

Installs nothing: needs the ``bench`` extra (``director-ai[rust]==3.21.0``). Every figure is the
median of ``--repeats`` (>= 5) runs after a warm-up. Prints each section's table as it
completes (a failing section is reported and the rest still run; the exit status is then 1),
then all rows in one table to paste into bench/RESULTS.md with the date and machine.

Sections:
  * streaming kernel, us/token at 1k/10k/50k tokens, constant and text-proportional plain
    callables (director-ai StreamingKernel.stream_tokens vs stream_guard), plus director_fast's
    incremental-scorer path and batch replay;
  * heuristic scoring on shared/data/halluc: balanced accuracy at each backend's default
    threshold, ROC-AUC and ms/record (director-ai's heuristic CoherenceScorer(use_nli=False) given
    the source document as prompt, vs the lexical CoherenceScorer given it as context=);
  * SafetyEvent build + to_dict + validate and signal build + to_json + validate (us/op);
  * temporal graph record throughput (director-ai ships no temporal graph in 3.21.0: the
    baseline is the pure-Python scan-the-group oracle of its algorithm).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from _util import env_line, median_time, ours_review, table  # noqa: E402

SHARED = Path(os.environ.get("DIRECTOR_FAST_SHARED", HERE.parent.parent / "shared"))


def _require_anchor():
    import logging

    try:
        import director_ai  # noqa: F401
    except ImportError:
        sys.exit("director-ai is not installed: pip install '.[bench]' (director-ai[rust]==3.21.0)")
    logging.getLogger("director_ai").setLevel(logging.CRITICAL)  # its per-review failure logs


def streaming_rows(sizes, repeats):
    import bench_stream as bs
    from director_ai.core.runtime.streaming import StreamingKernel as AK

    rows = []
    for label, cb in (("constant", bs.const_cb), ("text-proportional", bs.proportional_cb)):
        for n in sizes:
            ta, to, tr = bs.plain_guard_times(n, cb, repeats, AK)
            rows.append([f"stream, {label} callable, {n // 1000}k tok", f"{ta / n * 1e6:.2f} us/tok",
                         f"{to / n * 1e6:.2f} us/tok", f"{ta / to:.1f}x"])
    for n in sizes:
        toks = ["word "] * n
        ta = median_time(lambda: AK().stream_tokens(iter(toks), bs.const_cb), repeats)
        ti = bs.incremental_time(n, 20, repeats)
        tr = median_time(lambda: __import__("director_fast").replay(np.full(n, 0.9)), repeats)
        rows.append([f"stream, incremental scorer, {n // 1000}k tok", f"{ta / n * 1e6:.2f} us/tok (const)",
                     f"{ti / n * 1e6:.2f} us/tok", f"{ta / ti:.1f}x"])
        rows.append([f"kernel batch replay, {n // 1000}k tok", f"{ta / n * 1e6:.2f} us/tok (const)",
                     f"{tr / n * 1e9:.1f} ns/tok", f"{ta / tr:.0f}x"])
    return rows


def scoring_rows(quick, repeats):
    from director_ai import CoherenceScorer as AnchorScorer

    from director_fast.core.scorer import CoherenceScorer
    from director_fast.diagnostics.metrics import binary_metrics

    ours = CoherenceScorer()
    anchor = AnchorScorer(use_nli=False)
    rows = []
    files = ["wice_claim_test", "summedits", "summac_factcc", "summac_summeval", "summac_xsumfaith",
             "summac_polytope"]
    rng = np.random.default_rng(0)
    for name in files:
        path = SHARED / "data" / "halluc" / f"{name}.jsonl"
        if not path.is_file():
            continue
        recs = [json.loads(x) for x in open(path, encoding="utf-8")]
        if name == "summedits":
            recs = [r for r in recs if r["split"] == "test"]
        cap = 120 if quick else 400
        if len(recs) > cap:
            recs = [recs[i] for i in sorted(rng.choice(len(recs), cap, replace=False))]
        y = [r["hallucinated"] for r in recs]
        res = {}
        for who, review in (("anchor", anchor.review), ("ours", ours_review(ours))):
            scores, flags = [], []
            t0 = time.perf_counter()
            for r in recs:
                ok, cs = review(r["context"], r["response"])
                scores.append(1.0 - cs.score)
                flags.append(not ok)
            dt = (time.perf_counter() - t0) / len(recs)
            m = binary_metrics(y, flags, scores)
            res[who] = (m, dt)
        (ma, ta), (mo, to) = res["anchor"], res["ours"]
        rows.append([f"heuristic scoring, {name} (n={len(recs)})",
                     f"BA {ma.balanced_accuracy:.3f} AUC {ma.roc_auc:.3f} {ta * 1e3:.2f} ms",
                     f"BA {mo.balanced_accuracy:.3f} AUC {mo.roc_auc:.3f} {to * 1e3:.2f} ms",
                     f"{ta / to:.2g}x"])
    return rows


def safety_rows(quick):
    import bench_safety as sb

    sb.QUICK = quick
    sb.REPEATS = 5 if quick else 9
    sb.N = 1000 if quick else 4000
    rows = []
    for name, ours, theirs in (
        ("safety event build+to_dict+validate", sb.event_cycle(sb.F_ev), sb.event_cycle(sb.D_ev)),
        ("safety signal build+to_json+validate", sb.signal_cycle_dict(sb.F_ev, sb.F_pr),
         sb.signal_cycle_dict(sb.D_ev, sb.D_pr)),
    ):
        r = sb.paired(ours, theirs)
        rows.append([name, f"{r['theirs_cpu']:.1f} us CPU", f"{r['ours_cpu']:.1f} us CPU", f"{r['x_cpu']:.1f}x"])
    return rows


def temporal_rows(quick, repeats):
    import bench_temporal as bt

    rows = []
    n = 20_000 if quick else 100_000
    w = bt.workload("many", n)
    claims = bt.claims_of(w)
    r_rec = bt.median_rate(lambda: bt.run_record(claims), n, repeats)
    r_batch = bt.median_rate(lambda: bt.run_batch(w), n, repeats)
    r_orc = bt.median_rate(lambda: bt._oracle_run(claims), n, max(1, repeats // 2) if not quick else 1)
    rows.append([f"temporal record, many subjects, {n // 1000}k claims", f"{r_orc / 1e3:.0f}k/s (oracle)",
                 f"{r_rec / 1e3:.0f}k/s record", f"{r_rec / r_orc:.1f}x"])
    rows.append([f"temporal record_batch, many subjects, {n // 1000}k claims", f"{r_orc / 1e3:.0f}k/s (oracle)",
                 f"{r_batch / 1e3:.0f}k/s batch", f"{r_batch / r_orc:.1f}x"])
    hot = 5_000 if quick else 20_000
    wh = bt.workload("hot", hot)
    ch = bt.claims_of(wh)
    r_hot = bt.median_rate(lambda: bt.run_record(ch), hot, repeats)
    r_hot_orc = bt.median_rate(lambda: bt._oracle_run(ch[: hot // 4]), hot // 4, 1)
    rows.append([f"temporal record, one hot group, {hot // 1000}k claims",
                 f"{r_hot_orc / 1e3:.1f}k/s (oracle, first {hot // 4000}k)", f"{r_hot / 1e3:.0f}k/s",
                 f"{r_hot / r_hot_orc:.0f}x"])
    return rows


HEADER = ["measure", "director-ai 3.21.0", "director_fast", "ratio"]


def run_sections(sections, out=None) -> tuple[list[list[str]], list[str]]:
    """Run ``(name, fn)`` sections in order, printing each section's table as soon as it
    completes. A section that raises is reported (its exception on one line) and the rest still
    run. Returns all rows and the names of the failed sections."""
    out = out if out is not None else sys.stdout
    rows: list[list[str]] = []
    failed: list[str] = []
    for name, fn in sections:
        print(f"## {name}", file=out, flush=True)
        t0 = time.perf_counter()
        try:
            got = fn()
        except Exception as exc:  # noqa: BLE001 - one failing section must not lose the others
            failed.append(name)
            print(f"FAILED after {time.perf_counter() - t0:.1f} s: {type(exc).__name__}: {exc}\n",
                  file=out, flush=True)
            continue
        rows += got
        print(table(got, HEADER) if got else "(no rows)", file=out)
        print(f"({time.perf_counter() - t0:.1f} s)\n", file=out, flush=True)
    return rows, failed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="compare_director_ai")
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke run, about a minute)")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per figure (at least 5)")
    a = ap.parse_args(argv)
    _require_anchor()
    repeats = max(5, a.repeats)
    sizes = [1000, 5000] if a.quick else [1000, 10000, 50000]
    print(env_line())
    print(f"command: python bench/compare_director_ai.py{' --quick' if a.quick else ''} --repeats {repeats}")
    print(f"date: {time.strftime('%Y-%m-%d')}, load average at start: {os.getloadavg()[0]:.2f}\n", flush=True)
    sections = [
        ("streaming kernel", lambda: streaming_rows(sizes, repeats)),
        ("heuristic scoring", lambda: scoring_rows(a.quick, repeats)),
        ("safety events", lambda: safety_rows(a.quick)),
        ("temporal graph", lambda: temporal_rows(a.quick, repeats)),
    ]
    rows, failed = run_sections(sections)
    if rows:
        print("## all sections")
        print(table(rows, HEADER))
    if failed:
        print(f"\n{len(failed)} of {len(sections)} sections failed: {', '.join(failed)}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

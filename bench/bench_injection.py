"""Injection detection quality and cost on the hand-written labelled set
(bench/data/injection/cases.jsonl; see its README).

Reports, for one split (default: heldout; tune on dev only):
* detection rate (recall on injected cases) and false-positive rate (benign cases flagged) of
  ``InjectionDetector`` at its default threshold, per vector and per benign kind;
* the stage-1-only baseline: ``input_sanitizer_score`` alone, thresholded at the value chosen on
  the dev split as the lowest threshold with FPR <= 0.10 there (so the baseline is tuned no less
  than the detector), and its detection on indirect (document + tool output) injections;
* the detection at FPR <= 0.10 when the detector's threshold is also chosen on dev;
* latency per ``detect`` call (median of repeats over the split's cases, lexical backend).

Run: python bench/bench_injection.py [--split heldout|dev|all] [--repeats 5] [--show-errors]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import env_line, table  # noqa: E402

from director_fast import InjectionDetector  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "injection" / "cases.jsonl"


def load(split: str) -> list[dict]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows if split == "all" else [r for r in rows if r["split"] == split]


def run(det: InjectionDetector, rows: list[dict]) -> list:
    return [det.detect(r["intent"], r["response"], r["user_query"], r["system_prompt"],
                       context=[c["text"] for c in r["context"]]) for r in rows]


def rates(rows: list[dict], flags: list[bool]) -> tuple[float, float]:
    pos = [f for r, f in zip(rows, flags) if r["label"] == "injected"]
    neg = [f for r, f in zip(rows, flags) if r["label"] == "benign"]
    return (sum(pos) / len(pos) if pos else float("nan"), sum(neg) / len(neg) if neg else float("nan"))


def threshold_at_fpr(rows: list[dict], scores: list[float], max_fpr: float = 0.10) -> float:
    """Lowest threshold t (flag: score > t) with FPR <= max_fpr."""
    neg = sorted((s for r, s in zip(rows, scores) if r["label"] == "benign"), reverse=True)
    allowed = int(max_fpr * len(neg))
    return neg[allowed] if allowed < len(neg) else 0.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="heldout", choices=["heldout", "dev", "all"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--show-errors", action="store_true")
    args = ap.parse_args()
    det = InjectionDetector()
    dev, rows = load("dev"), load(args.split)
    res = run(det, rows)
    dev_res = run(det, dev)
    flags = [r.injection_detected for r in res]
    det_rate, fpr = rates(rows, flags)

    s1_t = threshold_at_fpr(dev, [r.input_sanitizer_score for r in dev_res])
    comb_t = threshold_at_fpr(dev, [r.combined_score for r in dev_res])
    s1_flags = [r.input_sanitizer_score > s1_t for r in res]
    comb_flags = [r.combined_score > comb_t for r in res]
    indirect = [i for i, r in enumerate(rows) if r["vector"] in ("doc", "tool")]
    ind_rows = [rows[i] for i in indirect]
    ind_det, _ = rates(ind_rows, [flags[i] for i in indirect])
    ind_s1, _ = rates(ind_rows, [s1_flags[i] for i in indirect])
    s1_det, s1_fpr = rates(rows, s1_flags)
    c_det, c_fpr = rates(rows, comb_flags)

    print(env_line())
    print(f"split={args.split}: {sum(r['label'] == 'injected' for r in rows)} injected, "
          f"{sum(r['label'] == 'benign' for r in rows)} benign")
    print(table([
        ["InjectionDetector (default, combined > 0.7)", f"{det_rate:.3f}", f"{fpr:.3f}", f"{ind_det:.3f}"],
        [f"combined > {comb_t:.3f} (FPR<=0.10 on dev)", f"{c_det:.3f}", f"{c_fpr:.3f}",
         f"{rates(ind_rows, [comb_flags[i] for i in indirect])[0]:.3f}"],
        [f"stage-1 only: sanitizer > {s1_t:.3f} (FPR<=0.10 on dev)", f"{s1_det:.3f}", f"{s1_fpr:.3f}", f"{ind_s1:.3f}"],
    ], ["detector", "detection", "FPR", "detection, indirect (doc+tool)"]))
    print(f"\nindirect gain over stage-1 only: {ind_det - ind_s1:+.3f}")

    by = {}
    for r, f in zip(rows, flags):
        key = (r["label"], r["vector"] if r["label"] == "injected" else r["kind"])
        by.setdefault(key, []).append(f)
    print(table([[lab, k, str(len(v)), f"{sum(v) / len(v):.3f}"] for (lab, k), v in sorted(by.items())],
                ["label", "vector / kind", "n", "flagged"]))
    tech = {}
    for r, f in zip(rows, flags):
        if r["label"] == "injected":
            tech.setdefault(r["technique"], []).append(f)
    print(table([[k, str(len(v)), f"{sum(v) / len(v):.3f}"] for k, v in sorted(tech.items())],
                ["technique", "n", "detected"]))

    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        run(det, rows)
        times.append((time.perf_counter() - t0) / len(rows))
    per = sorted(times)
    one = []
    for r in rows:
        t0 = time.perf_counter()
        run(det, [r])
        one.append(time.perf_counter() - t0)
    print(f"\nlatency per detect call: median over {args.repeats} passes {statistics.median(per) * 1e3:.2f} ms "
          f"(mean of the split); per-case p50 {statistics.median(one) * 1e3:.2f} ms, "
          f"p95 {sorted(one)[int(0.95 * len(one))] * 1e3:.2f} ms, max {max(one) * 1e3:.2f} ms")
    if args.show_errors:
        for r, x in zip(rows, res):
            if x.injection_detected != (r["label"] == "injected"):
                print(f"\n{r['id']} {r['label']} {r['vector']}/{r['technique']}/{r['kind']} "
                      f"s1={x.input_sanitizer_score:.2f} risk={x.injection_risk:.2f} comb={x.combined_score:.2f}")
                for c in x.claims:
                    print(f"   [{c.verdict} {c.confidence:.2f} tr={c.traceability:.2f} bd={c.bidirectional_divergence:.2f}] {c.claim}")


if __name__ == "__main__":
    main()

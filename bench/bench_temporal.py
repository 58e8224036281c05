"""Benchmark of the temporal consistency graph (issue 6, DESIGN §9).

Workloads (fixed seeds):
  many   N claims over N/2 subjects x 2 predicates, values v0..v9, 10% negations (groups of ~1).
  hot    N claims in ONE (subject, predicate) group: distinct values, 1% negations of an earlier
         value (each finds ~1 contradiction), so the per-claim work of an index is O(1) while a
         scan of the group is O(group size).

APIs measured:
  record        TemporalConsistencyGraph.record(claim), one Python call per prebuilt TemporalClaim
  record_batch  TemporalConsistencyGraph.record_batch(...) columnar, whole workload in one call
  record+log    record() on a durable graph (path=..., fsync=False: one write(2) per claim)
  oracle        the anchor's scan-the-group algorithm in pure Python (tests/test_temporal_oracle.py)
director-ai 3.21.0 does not ship director_ai.core.temporal_consistency (advanced tier; its guard
raises on access), so the oracle is the baseline.

Throughput: median of >= 5 repeats, each on a fresh graph, after one warm-up. Latency p50/p99:
per-call perf_counter_ns over one extra pass. Run:
    python bench/bench_temporal.py            (full; ~2-3 min on 2 cores)
    python bench/bench_temporal.py --quick    (smoke)
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from test_temporal_oracle import OracleGraph  # noqa: E402

from director_fast.memory.temporal import TemporalClaim, TemporalConsistencyGraph  # noqa: E402


def workload(kind: str, n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    if kind == "many":
        subj = [f"patient:{i}" for i in rng.integers(0, max(1, n // 2), size=n)]
        pred = [("has_condition", "takes_drug")[i] for i in rng.integers(0, 2, size=n)]
        val = [f"v{i}" for i in rng.integers(0, 10, size=n)]
        pol = rng.random(n) >= 0.10
    else:
        subj = ["patient:hot"] * n
        pred = ["has_condition"] * n
        val = [f"v{i}" for i in range(n)]
        pol = np.ones(n, dtype=bool)
        neg = np.flatnonzero(rng.random(n) < 0.01)
        for i in neg:
            if i > 0:
                val[i] = val[int(rng.integers(0, i))]
                pol[i] = False
    ts = rng.random(n) * 1e6
    return {"subjects": subj, "predicates": pred, "values": val, "polarities": pol, "timestamps": ts}


def claims_of(w: dict) -> list[TemporalClaim]:
    return [
        TemporalClaim(s, p, float(t), v, polarity=bool(b))
        for s, p, v, b, t in zip(w["subjects"], w["predicates"], w["values"], w["polarities"], w["timestamps"])
    ]


CPU_RATES: dict = {}


def median_rate(fn, n: int, repeats: int) -> float:
    """Median wall-clock claims/s; the median CPU-time (process_time) rate goes to CPU_RATES."""
    fn()  # warm-up
    times, cpu = [], []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        finally:
            gc.enable()
    CPU_RATES["last"] = n / statistics.median(cpu)
    return n / statistics.median(times)


def run_record(claims, **kw):
    g = TemporalConsistencyGraph(**kw)
    rec = g.record
    for c in claims:
        rec(c)
    return g


def latency(graph_factory, claims):
    g = graph_factory()
    rec = g.record
    ns = np.empty(len(claims), dtype=np.int64)
    clock = time.perf_counter_ns
    gc.disable()
    try:
        for i, c in enumerate(claims):
            t0 = clock()
            rec(c)
            ns[i] = clock() - t0
    finally:
        gc.enable()
    return float(np.percentile(ns, 50)) / 1e3, float(np.percentile(ns, 99)) / 1e3, g


def run_batch(w):
    g = TemporalConsistencyGraph()
    g.record_batch(w["subjects"], w["predicates"], w["values"], w["timestamps"], w["polarities"])
    return g


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    hot_sizes = [10_000, 100_000]
    rows = []
    print(f"# bench_temporal  (python {sys.version.split()[0]}, {os.cpu_count()} cpus)  command: "
          f"python bench/bench_temporal.py{' --quick' if args.quick else ''}")
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"| workload | N | API | claims/s (wall) | claims/s (CPU) | p50 us | p99 us | note |")
    print("|---|---:|---|---:|---:|---:|---:|---|")

    def emit(wl, n, api, rate, p50=None, p99=None, note="", cpu=None):
        rows.append((wl, n, api, rate, p50, p99, note))
        f = lambda x: f"{x:.2f}" if x is not None else ""  # noqa: E731
        c = f"{cpu:,.0f}" if cpu is not None else ""
        print(f"| {wl} | {n:,} | {api} | {rate:,.0f} | {c} | {f(p50)} | {f(p99)} | {note} |", flush=True)

    for kind, ns in (("many", sizes), ("hot", hot_sizes)):
        for n in ns:
            w = workload(kind, n)
            reps = args.repeats if n <= 100_000 else max(5, args.repeats)
            rate = median_rate(lambda: run_batch(w), n, reps)
            g = run_batch(w)
            st = g.stats()
            emit(kind, n, "record_batch", rate, cpu=CPU_RATES["last"],
                 note=f"{st['contradictions']:,} contradictions, {st['memory_bytes'] / n:.0f} B/claim index")  # fmt: skip
            del g
            t0 = time.perf_counter()
            claims = claims_of(w)
            build = n / (time.perf_counter() - t0)
            rate = median_rate(lambda: run_record(claims), n, reps)
            cpu_rate = CPU_RATES["last"]
            p50, p99, _ = latency(TemporalConsistencyGraph, claims)
            emit(kind, n, "record", rate, p50, p99, cpu=cpu_rate, note=f"TemporalClaim() build {build:,.0f}/s")
            if n == 100_000:
                with tempfile.TemporaryDirectory() as d:
                    k = [0]

                    def durable():
                        k[0] += 1
                        g = TemporalConsistencyGraph(path=os.path.join(d, f"l{k[0]}.log"))
                        rec = g.record
                        for c in claims:
                            rec(c)
                        g.close()

                    rate = median_rate(durable, n, reps)
                    emit(kind, n, "record+log", rate, cpu=CPU_RATES["last"], note="durable, fsync=False")
            # Oracle: full runs where affordable; for the hot group, latency at group size n.
            if kind == "many" and n <= 100_000:
                o_rate = median_rate(lambda: _oracle_run(claims), n, reps)
                emit(kind, n, "oracle", o_rate, cpu=CPU_RATES["last"], note="pure-Python scan of the group")
            elif kind == "hot":
                o = OracleGraph()
                o.groups[("", "patient:hot", "has_condition")] = list(claims)
                probe = claims_of(workload("hot", 50, seed=9))
                t0 = time.perf_counter()
                for c in probe:
                    o.record(c)
                per = (time.perf_counter() - t0) / len(probe)
                emit(kind, n, "oracle", 1 / per, per * 1e6, None, note=f"per record at group size {n:,} (50 probes)")
            del claims
            gc.collect()

    def rate_of(wl, n, api):
        return next(r[3] for r in rows if r[:3] == (wl, n, api))

    print()
    many_b = rate_of("many", sizes[-1], "record_batch")
    many_r = rate_of("many", sizes[-1], "record")
    print(f"targets: record_batch {many_b:,.0f}/s (>= 1,000,000) on many/{sizes[-1]:,}; "
          f"record {many_r:,.0f}/s (>= 200,000) on many/{sizes[-1]:,}")
    for api in ("record", "record_batch"):
        r = rate_of("many", 100_000, api) / rate_of("hot", 100_000, api)
        print(f"hot-group cost / many-subjects cost at 100k ({api}): {r:.2f}x (target <= 3x)")
    r = rate_of("many", 100_000, "record") / rate_of("many", 100_000, "oracle")
    print(f"record vs oracle, many/100k: {r:.1f}x; hot/100k: "
          f"{rate_of('hot', 100_000, 'record') / rate_of('hot', 100_000, 'oracle'):,.0f}x")


def _oracle_run(claims):
    o = OracleGraph()
    rec = o.record
    for c in claims:
        rec(c)


if __name__ == "__main__":
    main()

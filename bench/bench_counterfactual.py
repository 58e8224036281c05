"""Cost of the counterfactual halt diagnostic per halt (p50 / p99), on the chat/RAG dev split.

Every dev reply is streamed (word tokens) through ``stream_guard`` with a lexical
``CoherenceScorer`` whose knowledge is the case's knowledge base (one fact per document; a fresh
scorer per domain). For every halt the time spent building the diagnostic
(``director_fast.stream.counterfactual.diagnose_halt``: candidate edits, re-scoring, kernel replays) is
recorded, next to the time of the whole guarded stream. Only ``"split": "dev"`` lines are read.

Usage: python bench/bench_counterfactual.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _util import env_line  # noqa: E402

import director_fast.stream.counterfactual as cf  # noqa: E402
from director_fast import CoherenceScorer, stream_guard  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parent / "data" / "chat_rag" / "cases.jsonl"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="passes over the cases (timings of all passes)")
    a = ap.parse_args()
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r["split"] == "dev"]
    costs: list[float] = []
    by_candidates: dict[int, list[float]] = {}
    streams: list[float] = []
    outcome = {"prevented": 0, "not_prevented": 0, "no_candidate": 0, "none": 0}
    candidates = 0
    original = cf.diagnose_halt

    def timed(*args, **kw):
        t0 = time.perf_counter()
        d = original(*args, **kw)
        dt = time.perf_counter() - t0
        costs.append(dt)
        by_candidates.setdefault(len(d.candidates) if d is not None else 0, []).append(dt * 1000)
        return d

    cf.diagnose_halt = timed
    scorers: dict[str, CoherenceScorer] = {}
    halts = 0
    for rep in range(a.repeat):
        for r in rows:
            sc = scorers.get(r["domain"])
            if sc is None:
                sc = scorers[r["domain"]] = CoherenceScorer(knowledge=list(r["kb"].values()))
            toks = re.findall(r"\S+\s*", r["response"])
            t0 = time.perf_counter()
            g = stream_guard(toks, sc, prompt=r["question"])
            "".join(g)
            dt = time.perf_counter() - t0
            s = g.session
            if not s.halted:
                continue
            streams.append(dt)
            if rep == 0:
                halts += 1
                d = s.halt_evidence_structured.counterfactual_diagnostic
                key = s.safety_events[-1].attributes.get("counterfactual", "none") if d is not None else "none"
                outcome[key] += 1
                candidates += len(d.candidates) if d is not None else 0
    cf.diagnose_halt = original
    print(f"# counterfactual halt diagnostic, chat/RAG dev split ({len(rows)} replies, {halts} halts)\n")
    print(env_line())
    print(f"command: python bench/bench_counterfactual.py --repeat {a.repeat}\n")
    ms = [c * 1000 for c in costs]
    st = [c * 1000 for c in streams]
    print(f"diagnostic cost per halt: p50 {pct(ms, 0.5):.2f} ms, p99 {pct(ms, 0.99):.2f} ms, "
          f"max {max(ms):.2f} ms, mean {statistics.fmean(ms):.2f} ms ({len(ms)} halts over {a.repeat} passes)")
    print(f"whole guarded stream of a halting reply (diagnostic included): p50 {pct(st, 0.5):.2f} ms, "
          f"p99 {pct(st, 0.99):.2f} ms")
    for k in sorted(by_candidates):
        v = by_candidates[k]
        print(f"  halts with {k} candidate(s): {len(v)}, p50 {pct(v, 0.5):.2f} ms, p99 {pct(v, 0.99):.2f} ms")
    print(f"outcomes (first pass): {outcome}; candidates {candidates} "
          f"({candidates / max(1, halts):.2f} per halt)")


if __name__ == "__main__":
    main()

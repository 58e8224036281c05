"""CoherenceAgent overhead per candidate beyond the scorer.

Usage: python bench/bench_agent.py [--calls 200] [--repeats 5]

Setup: ``CoherenceScorer(knowledge=KnowledgeBase)`` over the 1,000 catalogue facts of
``bench_stream.py`` (lexical backend), a generator that returns 3 prepared candidates of 3 claims
each (no model time). For each scenario the same candidates are judged two ways in alternating
passes:

* scorer only: ``scorer.review(prompt, candidate)`` for each candidate the agent would judge;
* agent: ``agent.process(prompt)`` (candidate checks, verdicts, halt evidence, one SafetyEvent per
  candidate and one for the fallback, the fallback text).

overhead per candidate = (agent time - scorer-only time) / candidates judged. "warm": the scorer's
verdict cache is warm (the same candidates again: the scorer's own cost is smallest, so the
agent's share is the largest it gets); "cold": ``scorer.clear_cache()`` before every call in both
paths. ``aprocess`` (event loop, one worker thread per candidate) and ``stream`` are timed warm
against the same scorer-only figure. Each figure is the median over ``--repeats`` passes of
``--calls`` calls; the load average at start and end is printed (2 shared cores: absolute numbers
drift with load).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
logging.disable(logging.WARNING)

import director_fast as df  # noqa: E402

from _util import env_line, table  # noqa: E402
from bench_stream import _FACTS as FACTS  # noqa: E402

PROMPT = "Tell me about these products."


def candidates(rng: random.Random, wrong: bool) -> list[str]:
    out = []
    for _ in range(3):
        ids = rng.sample(range(len(FACTS)), 3)
        parts = [FACTS[i] for i in ids]
        if wrong:  # a price no product has, in the last claim of each candidate
            parts[-1] = re.sub(r"costs \d+", "costs 7777", parts[-1])
        out.append(" ".join(parts))
    return out


class ColdScorer(df.CoherenceScorer):
    """A scorer whose caches are emptied before every review (every claim retrieved and judged)."""

    def review(self, *a, **kw):
        self.clear_cache()
        return super().review(*a, **kw)


def per_candidate(fn, repeats: int, n: int) -> float:
    """Median over ``repeats`` runs of ``fn()``, in microseconds per candidate (``n`` judged)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(env_line())
    print(f"load average at start: {os.getloadavg()[0]:.2f}")

    kb = df.KnowledgeBase()
    for f in FACTS:
        kb.add(f)
    rng = random.Random(0)
    scenarios = [
        ("3 approved, stop_on_first=False", dict(stop_on_first=False), False),
        ("3 approved, stop_on_first=True", dict(), False),
        ("3 rejected, fallback=abstain", dict(), True),
        ("3 rejected, fallback=extractive", dict(fallback="extractive"), True),
    ]
    rows = []
    for name, kw, wrong in scenarios:
        sets = [candidates(rng, wrong) for _ in range(args.calls)]
        box: dict = {}

        def gen(prompt, n):
            return box["c"]

        for mode, scorer in (("warm", df.CoherenceScorer(knowledge=kb)), ("cold", ColdScorer(knowledge=kb))):
            agent = df.CoherenceAgent(gen, scorer, **kw)
            judged = []
            for c in sets:  # candidates judged per call (also warms the retrieval / verdict caches)
                box["c"] = c
                judged.append(agent.process(PROMPT).candidates_evaluated)
            n = sum(judged)

            def scorer_only():
                for c, k in zip(sets, judged):
                    for text in c[:k]:
                        scorer.review(PROMPT, text)

            def agent_sync():
                for c in sets:
                    box["c"] = c
                    agent.process(PROMPT)

            async def agent_async():
                for c in sets:
                    box["c"] = c
                    await agent.aprocess(PROMPT)

            variants = [("process", agent_sync)]
            if mode == "warm":
                variants.append(("aprocess", lambda: asyncio.run(agent_async())))
            for label, fn in variants:
                # alternate the two paths so that drifting load hits both
                s_t, a_t = [], []
                for _ in range(args.repeats):
                    s_t.append(per_candidate(scorer_only, 1, n))
                    a_t.append(per_candidate(fn, 1, n))
                s, a = statistics.median(s_t), statistics.median(a_t)
                rows.append([name, f"{mode}, {label}", f"{n / args.calls:.1f}", f"{s:.1f}", f"{a:.1f}",
                             f"{a - s:.1f}", f"{(a - s) / s * 100:.0f}%"])
    print(table(rows, ["scenario", "mode", "judged/call", "scorer us/cand", "agent us/cand",
                       "overhead us/cand", "overhead"]))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

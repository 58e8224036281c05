"""CoherenceAgent overhead per candidate beyond the scorer.

Usage: python bench/bench_agent.py [--calls 200] [--repeats 7]

Setup: ``CoherenceScorer(knowledge=KnowledgeBase)`` over the 1,000 catalogue facts of
``bench_stream.py`` (lexical backend); a generator that returns 3 prepared candidates of 3 claims
each (no model time); ``--calls`` calls per pass.

The agent's own cost is measured directly: the scorer's verdicts are computed once, and a
``ReplayScorer`` (a ``CoherenceScorer`` over the same knowledge whose ``review`` returns the stored
verdict of that candidate) stands in for the scorer, so everything the agent does with a real
verdict (result checks, halt evidence, one SafetyEvent per candidate, the fallback event, the
extractive fallback's retrieval) runs for real while the scorer's work is a dict look-up.

* overhead us/cand = (agent time - look-up time) / candidates judged, ``process`` and
  ``aprocess`` (one event loop per pass; a sync scorer runs on worker threads, so this includes
  the thread hand-off);
* for scale, the real scorer's ``review`` per candidate: warm (verdict cache hit: the same
  candidates again) and cold (caches cleared before each review).

Each figure is the median over ``--repeats`` passes; the load average at start and end is printed
(2 shared cores: absolute numbers drift with load).
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


class ReplayScorer(df.CoherenceScorer):
    """A CoherenceScorer whose ``review`` returns stored verdicts (``self.verdicts[response]``)."""

    verdicts: dict = {}

    def review(self, prompt, action, session=None, tenant_id="", *, context=None, system=None, messages=None):
        return self.verdicts[action]


def median_us(fn, repeats: int, n: int) -> float:
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
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    print(env_line())
    print(f"load average at start: {os.getloadavg()[0]:.2f}")

    kb = df.KnowledgeBase()
    for f in FACTS:
        kb.add(f)
    real = df.CoherenceScorer(knowledge=kb)
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
        replay = ReplayScorer(knowledge=kb)
        replay.verdicts = {t: real.review(PROMPT, t) for c in sets for t in c}
        box: dict = {}

        def gen(prompt, n):
            return box["c"]

        agent = df.CoherenceAgent(gen, replay, **kw)
        judged = []
        for c in sets:
            box["c"] = c
            judged.append(agent.process(PROMPT).candidates_evaluated)
        n = sum(judged)

        def lookups():
            for c, k in zip(sets, judged):
                for text in c[:k]:
                    replay.review(PROMPT, text)

        def agent_sync():
            for c in sets:
                box["c"] = c
                agent.process(PROMPT)

        async def agent_async():
            for c in sets:
                box["c"] = c
                await agent.aprocess(PROMPT)

        def real_warm():
            for c, k in zip(sets, judged):
                for text in c[:k]:
                    real.review(PROMPT, text)

        def real_cold():
            for c, k in zip(sets, judged):
                for text in c[:k]:
                    real.clear_cache()
                    real.review(PROMPT, text)

        base = median_us(lookups, args.repeats, n)
        sync = median_us(agent_sync, args.repeats, n) - base
        asyn = median_us(lambda: asyncio.run(agent_async()), args.repeats, n) - base
        warm = median_us(real_warm, args.repeats, n)
        cold = median_us(real_cold, max(3, args.repeats // 2), n)
        rows.append([name, f"{n / args.calls:.1f}", f"{sync:.1f}", f"{asyn:.1f}", f"{warm:.0f}", f"{cold:.0f}",
                     f"{sync / cold * 100:.1f}%"])
    print(table(rows, ["scenario", "judged/call", "process overhead us/cand", "aprocess overhead us/cand",
                       "scorer warm us/cand", "scorer cold us/cand", "process overhead / cold scorer"]))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

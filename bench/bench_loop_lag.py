"""Event-loop lag while ``astream_guard`` runs a slow synchronous scorer.

Usage: python bench/bench_loop_lag.py [--streams 1,20] [--sentences 5] [--delay 0.2] [--quick]

A probe task sleeps ``--period`` seconds (default 5 ms) in a loop and records how late it wakes
(lag = measured - requested); an ASGI server's other requests (a /ping endpoint) wait exactly that
long. Scenarios, each with 1 and 20 concurrent streams of ``--sentences`` sentences:

  * ``sleep``: a 200 ms scorer that sleeps (releases the GIL, like ONNX Runtime or the C++
    lexical NLI), run on the scorer's bounded executor (the default) and ``executor="inline"``
    (on the event loop: the behaviour before the executor);
  * ``cpu``: a 200 ms pure-Python busy loop (holds the GIL; the loop thread gets it back every
    ``sys.getswitchinterval()`` = 5 ms at best), also with ``ScorerExecutor(1)`` (such a scorer
    gains nothing from several threads, and each extra thread competes with the loop for the GIL);
  * ``hop``: the cost of running a cheap sync plain callable off the loop: us/token of a
    10k-token stream scored at every token, executor vs inline.

Prints one table; p50 / p99 / max of the probe's lag in ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import director_fast as df  # noqa: E402
from _util import env_line, table  # noqa: E402


class SleepScorer:
    scorer_path = "bench.SleepScorer"

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def score_sentence(self, sentence, **kw):
        time.sleep(self.delay)
        return 0.9


class CpuScorer:
    scorer_path = "bench.CpuScorer"

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def score_sentence(self, sentence, **kw):
        end = time.perf_counter() + self.delay
        x = 0
        while time.perf_counter() < end:
            x += 1
        return 0.9


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


async def _probe(stop: asyncio.Event, lags: list[float], period: float) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        t = loop.time()
        await asyncio.sleep(period)
        lags.append(loop.time() - t - period)


async def _scenario(scorer, streams: int, sentences: int, executor, period: float) -> tuple[list[float], float]:
    toks = []
    for i in range(sentences):
        toks += ["Sentence ", f"number {i} ", "is here. "]
    stop = asyncio.Event()
    lags: list[float] = []
    probe = asyncio.ensure_future(_probe(stop, lags, period))
    await asyncio.sleep(0)
    kw = {} if executor is None else {"executor": executor}
    t0 = time.perf_counter()

    async def one():
        g = df.astream_guard(list(toks), scorer, **kw)
        out = [t async for t in g]
        assert len(out) == len(toks), "unexpected halt"

    await asyncio.gather(*(one() for _ in range(streams)))
    wall = time.perf_counter() - t0
    stop.set()
    await probe
    return lags, wall


async def _hop(executor, n: int) -> float:
    toks = [f"w{i} " for i in range(n)]
    kw = {} if executor is None else {"executor": executor}

    def cheap(text):
        return 0.9

    g = df.astream_guard(toks, cheap, **kw)
    t0 = time.perf_counter()
    async for _ in g:
        pass
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--streams", default="1,20", help="comma-separated concurrent stream counts")
    ap.add_argument("--sentences", type=int, default=5, help="sentences per stream (one scorer call each)")
    ap.add_argument("--delay", type=float, default=0.2, help="scorer time per call in seconds")
    ap.add_argument("--period", type=float, default=0.005, help="probe sleep in seconds")
    ap.add_argument("--quick", action="store_true", help="2 sentences, streams 1,8")
    args = ap.parse_args()
    streams = [int(x) for x in args.streams.split(",")]
    sentences = args.sentences
    if args.quick:
        streams, sentences = [1, 8], 2
    print(f"# bench_loop_lag  ({env_line()}, switch interval {sys.getswitchinterval() * 1000:.0f} ms)")
    print(f"# command: python bench/bench_loop_lag.py {' '.join(sys.argv[1:])}".rstrip())
    rows = []
    ex_workers = df.ScorerExecutor().max_workers
    for kind, cls in (("sleep", SleepScorer), ("cpu", CpuScorer)):
        for n in streams:
            variants = [None, "inline"] + (["one"] if kind == "cpu" and n > 1 else [])
            for executor in variants:
                if kind == "cpu" and executor == "inline" and n > 1:
                    continue  # same as 1 stream inline, only longer
                ex = df.ScorerExecutor(1, max_pending=n) if executor == "one" else executor
                lags, wall = asyncio.run(_scenario(cls(args.delay), n, sentences, ex, args.period))
                ms = [x * 1000 for x in lags]
                name = {None: "executor", "inline": "inline", "one": "ScorerExecutor(1, max_pending=streams)"}[executor]
                rows.append([kind, str(n), name, str(len(ms)),
                             f"{statistics.median(ms):.2f}", f"{_pct(ms, 0.99):.2f}", f"{max(ms):.2f}",
                             f"{wall:.2f}"])
                print("  ".join(rows[-1]), flush=True)
    print()
    print(f"{args.delay * 1000:.0f} ms scorer, {sentences} sentences per stream, probe period "
          f"{args.period * 1000:.0f} ms, default executor max_workers={ex_workers}")
    print(table(rows, ["scorer", "streams", "scorer runs", "probes", "lag p50 ms", "lag p99 ms",
                       "lag max ms", "wall s"]))
    n = 2000 if args.quick else 10000
    hop = [[name, f"{asyncio.run(_hop(ex, n)):.1f}"] for name, ex in (("executor", None), ("inline", "inline"))]
    print()
    print(f"cheap plain callable scored at every token ({n} tokens): us/token")
    print(table(hop, ["scorer runs", "us/token"]))


if __name__ == "__main__":
    main()

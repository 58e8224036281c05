"""Cost of the observability hooks and of the SSE layer.

Usage: python bench/bench_integrations.py [--quick]

* review: median microseconds of ``CoherenceScorer.review`` on a one-claim answer with 3 facts,
  under: no hook and tracing off; tracing on with no SDK provider (the OpenTelemetry API's no-op
  tracer; the default when ``opentelemetry-api`` is installed); a ``RecordingMetrics`` hook; an
  SDK ``TracerProvider`` with no exporter (spans recorded and dropped).
* sse: microseconds per token of a 2,000-token stream (plain ``text -> float`` scorer) read
  directly from ``astream_guard`` vs through ``sse_events`` without keep-alive (one JSON frame per
  token) and with keep-alive (one extra task per token, needed to send comments while waiting).

Prints one table per section; medians of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import env_line, table  # noqa: E402

import director_fast as df  # noqa: E402
from director_fast import telemetry  # noqa: E402
from director_fast.integrations.sse import sse_events  # noqa: E402


def bench_review(n: int, repeats: int) -> list[list[str]]:
    scorer = df.CoherenceScorer(knowledge=["Acme was founded in 1998.", "Acme is based in Oslo.",
                                           "Acme employs 2,500 people."], cache_size=0)
    answer = "Acme was founded in 1998."
    try:
        from opentelemetry.sdk.trace import TracerProvider
        sdk = TracerProvider()
    except ImportError:
        sdk = None
    try:
        import opentelemetry  # noqa: F401
        api = "API installed"
    except ImportError:
        api = "API absent"
    recording = telemetry.RecordingMetrics()
    settings = [("no hook, tracing off", None, False, None),
                (f"tracing on, no SDK provider ({api})", None, True, None),
                ("RecordingMetrics hook, tracing off", recording, False, None)]
    if sdk is not None:
        settings.append(("SDK TracerProvider (spans recorded, no exporter)", None, True, sdk))
    results: dict[str, list[float]] = {name: [] for name, *_ in settings}
    for _ in range(50):
        scorer.review("", answer)
    # settings alternate round by round, so drift in the machine's load hits them all alike
    for _ in range(repeats):
        for name, hook, tracing, provider in settings:
            old = telemetry.set_metrics_hook(hook)
            telemetry.configure_tracing(tracing, tracer_provider=provider)
            t0 = time.perf_counter()
            for _ in range(n):
                scorer.review("", answer)
            results[name].append((time.perf_counter() - t0) / n * 1e6)
            telemetry.set_metrics_hook(old)
    # the instrumentation alone (what each review pays on top of judging), same settings
    result = scorer.score("", answer)
    alone: dict[str, list[float]] = {name: [] for name, *_ in settings}
    m = 20 * n
    for _ in range(repeats):
        for name, hook, tracing, provider in settings:
            old = telemetry.set_metrics_hook(hook)
            telemetry.configure_tracing(tracing, tracer_provider=provider)
            t0 = time.perf_counter()
            for _ in range(m):
                with telemetry.review() as r:
                    r.done(result)
            alone[name].append((time.perf_counter() - t0) / m * 1e6)
            telemetry.set_metrics_hook(old)
    telemetry.configure_tracing(True)
    base = statistics.median(results[settings[0][0]])
    rows = []
    for name, *_ in settings:
        t = statistics.median(results[name])
        rows.append([name, f"{t:.1f}", f"{t - base:+.1f}", f"{statistics.median(alone[name]):.2f}"])
    return rows


def bench_sse(n_tokens: int, repeats: int) -> list[list[str]]:
    toks = [f"w{i} " if i % 10 else f"w{i}. " for i in range(n_tokens)]

    def scorer(text: str) -> float:
        return 0.9

    async def direct() -> None:
        async for _ in df.astream_guard(toks, scorer, executor="inline"):
            pass

    async def via_sse(keepalive: float | None) -> None:
        async for _ in sse_events(df.astream_guard(toks, scorer, executor="inline"), keepalive_s=keepalive):
            pass

    def run(make) -> float:
        asyncio.run(make())
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            asyncio.run(make())
            times.append((time.perf_counter() - t0) / n_tokens * 1e6)
        return statistics.median(times)

    d = run(direct)
    a = run(lambda: via_sse(None))
    b = run(lambda: via_sse(10.0))
    return [["astream_guard, read directly", f"{d:.1f}", "+0.0"],
            ["sse_events, keepalive_s=None", f"{a:.1f}", f"{a - d:+.1f}"],
            ["sse_events, keepalive_s=10", f"{b:.1f}", f"{b - d:+.1f}"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    ap.add_argument("--repeats", type=int, default=9, help="timed runs per row (median reported)")
    args = ap.parse_args()
    n, toks = (100, 500) if args.quick else (500, 2000)
    print(env_line())
    print("\nreview cost (us per CoherenceScorer.review, 1 claim, 3 facts, cache off)")
    print(table(bench_review(n, args.repeats), ["setting", "us/review", "delta (load noise)", "us instrumentation alone"]))
    print(f"\nSSE layer ({toks} tokens, plain scorer, executor='inline')")
    print(table(bench_sse(toks, args.repeats), ["path", "us/token", "delta"]))


if __name__ == "__main__":
    main()

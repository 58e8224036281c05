"""Shared helpers of the bench scripts: timing medians, environment line, table printing."""

from __future__ import annotations

import os
import platform
import statistics
import time
from typing import Callable


def median_time(fn: Callable[[], object], repeats: int = 5, warmup: int = 1) -> float:
    """Median wall time in seconds of ``fn()`` over ``repeats`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def env_line() -> str:
    try:
        import director_ai  # noqa: F401
        from importlib.metadata import version

        da = version("director-ai")
    except Exception:
        da = "not installed"
    import director_fast

    return (f"python {platform.python_version()}, {os.cpu_count()} cores, {platform.machine()}, "
            f"director_fast {director_fast.__version__}, director-ai {da}")


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
    return "\n".join(out)


def ours_review(scorer):
    """``review(context, response)`` for director_fast: the document is evidence passed with the
    call (``context=``), never a prompt to be entailed by (director-ai's benches pass it as the
    prompt, since its retrieval is prompt-driven)."""
    return lambda context, response: scorer.review("", response, context=context)


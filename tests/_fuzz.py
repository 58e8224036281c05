"""Shared time budget for the fuzzers of the default suite.

``DIRECTOR_FAST_FUZZ_SECONDS`` (default 30) is the total wall-clock budget, in seconds, for all
fuzzers together in one test run. Each fuzzer asks for its share with :func:`fuzz_seconds` and
runs until that deadline (Hypothesis ``max_examples`` large, stopped by time). Raise the variable
for a longer campaign, for example ``DIRECTOR_FAST_FUZZ_SECONDS=3600 python -m pytest tests -k fuzz``.
"""
from __future__ import annotations

import os
import time

DEFAULT_TOTAL_SECONDS = 30.0

# Fraction of the total budget each fuzzer gets; the fractions add up to at most 1.0.
SHARES = {
    "index_files": 0.30,
    "temporal_logs": 0.25,
    "validators": 0.25,
    "text_and_citations": 0.20,
}


def total_seconds() -> float:
    """The whole fuzz budget in seconds (``DIRECTOR_FAST_FUZZ_SECONDS``, default 30)."""
    raw = os.environ.get("DIRECTOR_FAST_FUZZ_SECONDS", "")
    if not raw.strip():
        return DEFAULT_TOTAL_SECONDS
    value = float(raw)
    if not value >= 0:
        raise ValueError(f"DIRECTOR_FAST_FUZZ_SECONDS must be >= 0, got {raw!r}")
    return value


def fuzz_seconds(name: str) -> float:
    """Seconds the fuzzer ``name`` (a key of :data:`SHARES`) may run in this test run."""
    return total_seconds() * SHARES[name]


class Deadline:
    """``Deadline(seconds).expired()`` turns true once ``seconds`` of wall time have passed."""

    def __init__(self, seconds: float) -> None:
        self._end = time.monotonic() + seconds

    def expired(self) -> bool:
        return time.monotonic() >= self._end

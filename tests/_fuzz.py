"""Shared time budget for the fuzzers of the default suite.

``DIRECTOR_FAST_FUZZ_SECONDS`` (default 30) is the total wall-clock budget, in seconds, for all
fuzzers together in one test run. Each fuzzer asks for its share with :func:`fuzz_seconds` and
runs until that deadline (Hypothesis ``max_examples`` large, stopped by time). Raise the variable
for a longer campaign, for example ``DIRECTOR_FAST_FUZZ_SECONDS=3600 python -m pytest tests -k fuzz``.

The Unicode properties of the text entry points (``tests/test_unicode_entry_points.py``, issue 30)
get a budget of their own on top of :data:`SHARES`: :data:`ENTRY_POINT_SHARE` of the total for
each entry point (1.5 s each by default). :func:`run_until` runs a Hypothesis property until its
deadline with a seed taken from ``DIRECTOR_FAST_FUZZ_SEED`` (random when unset) and names that
seed in the failure, so ``DIRECTOR_FAST_FUZZ_SEED=<seed>`` replays it.
"""
from __future__ import annotations

import os
import random
import time
from typing import Any, Callable

DEFAULT_TOTAL_SECONDS = 30.0

# Fraction of the total budget each fuzzer gets; the fractions add up to at most 1.0.
SHARES = {
    "index_files": 0.30,
    "temporal_logs": 0.25,
    "validators": 0.25,
    "text_and_citations": 0.20,
}

# Fraction of the total budget each Unicode entry-point property gets (on top of SHARES).
ENTRY_POINT_SHARE = 0.05


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


def entry_point_seconds() -> float:
    """Seconds one Unicode entry-point property may run (:data:`ENTRY_POINT_SHARE` of the total)."""
    return total_seconds() * ENTRY_POINT_SHARE


def fuzz_seed() -> int:
    """The base seed: ``DIRECTOR_FAST_FUZZ_SEED`` when set, else a fresh random one."""
    raw = os.environ.get("DIRECTOR_FAST_FUZZ_SEED", "").strip()
    return int(raw) if raw else random.SystemRandom().randrange(2**32)


def run_until(seconds: float, prop: Callable[..., Any], name: str) -> int:
    """Run the Hypothesis ``@given`` property ``prop`` (built without a seed) round after round
    until ``seconds`` have passed (at least one round); returns the number of rounds. A failure
    is re-raised with a note naming the seed that replays it."""
    from hypothesis import seed as hseed

    base = fuzz_seed()
    deadline = Deadline(seconds)
    rounds = 0
    while True:
        s = (base + rounds) % 2**32
        try:
            hseed(s)(prop)()
        except BaseException as exc:
            msg = f"{name}: replay with DIRECTOR_FAST_FUZZ_SEED={s}"
            print(msg)
            if hasattr(exc, "add_note"):
                exc.add_note(msg)
            raise
        rounds += 1
        if deadline.expired():
            return rounds

"""Benchmark: SafetyEvent build + to_dict + validate, and signal to_json + validate.

director_fast vs director-ai 3.21.0, measured in the same run. Fixed inputs, warm-up, median of
7 repeats. Run:  python bench/bench_safety.py
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time

from director_fast.core import safety_event as F_ev
from director_fast.core import safety_protocol as F_pr

try:
    from director_ai.core import safety_event as D_ev
    from director_ai.core import safety_protocol as D_pr
    import director_ai
except ImportError:  # pragma: no cover
    sys.exit("director-ai is required for the comparison (pip install director-ai==3.21.0)")

REPEATS = 7
N = 4000

SEED = dict(
    hook_id="streaming.kernel", hook_scope="streaming", policy_decision="halt",
    halt_reason="coherence_below_threshold", tenant_safe_explanation="Review grounding evidence.",
    threshold=0.5, observed_score=0.31, evidence_refs=("kb://physics#1",),
    attributes={"policy_id": "policy.streaming.regulated"}, request_id="req-123", tenant_id="tenant-1",
)


def event_cycle(mod, kw):
    def run(i):
        ev = mod.SafetyEvent.from_policy_decision(**kw)
        return mod.validate_safety_event_payload(ev.to_dict())
    return run


def event_cycle_unique(mod):
    # every event carries texts never seen before (defeats director_fast's per-string cache)
    def run(i):
        kw = dict(SEED, halt_reason=f"coherence_below_threshold_{i}", tenant_safe_explanation=f"Review grounding evidence {i}.",
                  evidence_refs=(f"kb://physics#{i}",), attributes={"policy_id": f"policy.streaming.{i}"})
        ev = mod.SafetyEvent.from_policy_decision(**kw)
        return mod.validate_safety_event_payload(ev.to_dict())
    return run


def signal_cycle(ev_mod, pr_mod):
    ev = ev_mod.SafetyEvent.from_policy_decision(**SEED)

    def run(i):
        sig = pr_mod.director_safety_signal_from_event(ev, producer_id="runtime-alpha", framework="generic-agent")
        wire = sig.to_json()
        return pr_mod.validate_director_safety_signal(json.loads(wire))
    return run


def _run(fn, base: int) -> float:
    t0 = time.perf_counter()
    for i in range(N):
        fn(base + i)
    return (time.perf_counter() - t0) / N * 1e6


def timed(fn) -> float:
    for i in range(300):  # warm-up
        fn(i)
    return statistics.median(_run(fn, r * N) for r in range(REPEATS))


def paired(ours, theirs) -> tuple[float, float, float]:
    """Interleave the two implementations repeat by repeat (fair under a loaded machine);
    return the median times and the median of the per-repeat ratios."""
    for i in range(300):
        ours(i)
        theirs(i)
    a, b = [], []
    for r in range(REPEATS):
        a.append(_run(ours, r * N))
        b.append(_run(theirs, r * N))
    return statistics.median(a), statistics.median(b), statistics.median(y / x for x, y in zip(a, b))


def main() -> None:
    rows = [
        ("event build+to_dict+validate (seed example)", event_cycle(F_ev, SEED), event_cycle(D_ev, SEED)),
        ("event build+to_dict+validate (unique texts)", event_cycle_unique(F_ev), event_cycle_unique(D_ev)),
        ("signal build+to_json+json.loads+validate", signal_cycle(F_ev, F_pr), signal_cycle(D_ev, D_pr)),
    ]
    stream_kw = dict(SEED, halt_reason="downward_trend", tenant_safe_explanation="Response quality degrading; rephrase the prompt.",
                     attributes={"token_offset": "5", "trigger": "downward_trend"})
    print(f"python {platform.python_version()}, director-ai {director_ai.__version__}, N={N}, median of {REPEATS}")
    print(f"{'case':48s} {'director_fast us':>17s} {'director-ai us':>15s} {'speed-up':>9s}")
    for name, ours, theirs in rows:
        a, b, ratio = paired(ours, theirs)
        print(f"{name:48s} {a:17.2f} {b:15.2f} {ratio:8.1f}x")
    a = timed(event_cycle(F_ev, stream_kw))
    print(f"{'event streaming kernel kind (ours only*)':48s} {a:17.2f} {'rejects':>15s} {'-':>9s}")
    print("* director-ai's validator rejects its own streaming events (token_offset attribute, 'prompt').")
    print("command: python bench/bench_safety.py")


if __name__ == "__main__":
    main()

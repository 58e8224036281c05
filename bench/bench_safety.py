"""Benchmark: SafetyEvent build + to_dict + validate, and DirectorSafetySignal build + to_json +
validate -- director_fast vs director-ai 3.21.0 in the same run.

Each row runs the same steps through both libraries. The two implementations are interleaved
repeat by repeat (fair under a loaded machine); every repeat times N calls with both the wall
clock (``perf_counter``) and this process's CPU time (``process_time``: not inflated when other
processes take the shared cores). Reported: medians over REPEATS repeats, in microseconds per
cycle, and the median of the per-repeat speed-ups. Inputs are fixed (no randomness except the
event / signal ids both libraries generate).

Rows:
  event (seed example)       SafetyEvent.from_policy_decision(**seed) -> .to_dict() ->
                             validate_safety_event_payload(dict)
  event (unique texts)       the same, every event with a halt_reason, explanation, evidence ref
                             and attribute value never seen before (no per-string cache can help)
  signal (dict form)         director_safety_signal_from_event(ev, ...) -> .to_json() ->
                             validate_director_safety_signal(signal.to_transport_dict())
  signal (+ json.loads)      ... -> .to_json() -> validate_director_safety_signal(json.loads(wire));
                             json.loads is the same stdlib call on both sides and bounds the ratio
  json.loads alone           that shared fixed cost, for reference
  event, Python path         the seed event cycle through the Python implementations kept beside the
                             C++ fast paths (``_from_policy_decision_py``, ``_to_dict_py``,
                             ``_validate_payload_py``; construction by the frozen dataclass) with every
                             check still made in ONE C++ call per event: a lower bound on the cost of
                             replacing bind_safety.cpp's CPython-slot fast path by plain pybind11
                             bindings (pybind11's dispatch and per-field calls can only add to it)

Run:  python bench/bench_safety.py [--quick]
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time

from director_fast.core import safety_event as F_ev
from director_fast.safety import event as F_ev_impl
from director_fast.core import safety_protocol as F_pr

try:
    import director_ai
    from director_ai.core import safety_event as D_ev
    from director_ai.core import safety_protocol as D_pr
except ImportError:  # pragma: no cover
    sys.exit("director-ai is required for the comparison (pip install director-ai==3.21.0)")

QUICK = "--quick" in sys.argv
REPEATS = 5 if QUICK else 9
N = 1000 if QUICK else 4000

SEED = dict(
    hook_id="streaming.kernel", hook_scope="streaming", policy_decision="halt",
    halt_reason="coherence_below_threshold", tenant_safe_explanation="Review grounding evidence.",
    threshold=0.5, observed_score=0.31, evidence_refs=("kb://physics#1",),
    attributes={"policy_id": "policy.streaming.regulated"}, request_id="req-123", tenant_id="tenant-1",
)
SIGNAL_KW = dict(producer_id="runtime-alpha", framework="generic-agent")


def event_cycle(mod):
    def run(i):
        ev = mod.SafetyEvent.from_policy_decision(**SEED)
        return mod.validate_safety_event_payload(ev.to_dict())
    return run


def event_cycle_unique(mod):
    def run(i):
        ev = mod.SafetyEvent.from_policy_decision(
            **{**SEED, "halt_reason": f"coherence_below_threshold_{i}",
               "tenant_safe_explanation": f"Review grounding evidence {i}.",
               "evidence_refs": (f"kb://physics#{i}",), "attributes": {"policy_id": f"policy.streaming.{i}"}}
        )
        return mod.validate_safety_event_payload(ev.to_dict())
    return run


def signal_cycle_dict(ev_mod, pr_mod):
    ev = ev_mod.SafetyEvent.from_policy_decision(**SEED)

    def run(i):
        sig = pr_mod.director_safety_signal_from_event(ev, **SIGNAL_KW)
        sig.to_json()
        return pr_mod.validate_director_safety_signal(sig.to_transport_dict())
    return run


def signal_cycle_wire(ev_mod, pr_mod):
    ev = ev_mod.SafetyEvent.from_policy_decision(**SEED)

    def run(i):
        sig = pr_mod.director_safety_signal_from_event(ev, **SIGNAL_KW)
        wire = sig.to_json()
        return pr_mod.validate_director_safety_signal(json.loads(wire))
    return run


def event_cycle_python_path(mod):
    build = mod.SafetyEvent._from_policy_decision_py.__func__

    def run(i):
        ev = build(mod.SafetyEvent, **SEED)
        return mod._validate_payload_py(ev._to_dict_py())
    return run


def loads_only(ev_mod, pr_mod):
    ev = ev_mod.SafetyEvent.from_policy_decision(**SEED)
    wire = pr_mod.director_safety_signal_from_event(ev, **SIGNAL_KW).to_json()
    return lambda i: json.loads(wire)


def _run(fn, base: int) -> tuple[float, float]:
    w0, c0 = time.perf_counter(), time.process_time()
    for i in range(base, base + N):
        fn(i)
    return (time.perf_counter() - w0) / N * 1e6, (time.process_time() - c0) / N * 1e6


def paired(ours, theirs) -> dict[str, float]:
    """Interleave the implementations repeat by repeat; medians of the per-call times (wall and
    CPU) and of the per-repeat speed-ups."""
    for i in range(300):  # warm-up
        ours(i)
        theirs(i)
    a, b = [], []
    for r in range(REPEATS):
        base = (r + 1) * 10 * N  # fresh texts in every repeat for the unique-text row
        a.append(_run(ours, base))
        b.append(_run(theirs, base + N))
    med = statistics.median
    return {
        "ours_cpu": med(x[1] for x in a), "theirs_cpu": med(x[1] for x in b),
        "ours_wall": med(x[0] for x in a), "theirs_wall": med(x[0] for x in b),
        "x_cpu": med(y[1] / x[1] for x, y in zip(a, b)), "x_wall": med(y[0] / x[0] for x, y in zip(a, b)),
    }


def main() -> None:
    # both libraries accept every benchmarked input, and ours gives director-ai's canonical bytes
    ev_f = F_ev.SafetyEvent.from_policy_decision(**SEED, event_id="sevt_bench", timestamp="2026-11-30T00:00:00Z")
    ev_d = D_ev.SafetyEvent.from_policy_decision(**SEED, event_id="sevt_bench", timestamp="2026-11-30T00:00:00Z")
    sig_kw = dict(SIGNAL_KW, signal_id="dsp_bench", emitted_at="2026-11-30T00:00:00Z")
    assert (F_pr.director_safety_signal_from_event(ev_f, **sig_kw).to_json()
            == D_pr.director_safety_signal_from_event(ev_d, **sig_kw).to_json())

    rows = [
        ("event build+to_dict+validate (seed example)", event_cycle(F_ev), event_cycle(D_ev)),
        ("event build+to_dict+validate (unique texts)", event_cycle_unique(F_ev), event_cycle_unique(D_ev)),
        ("signal build+to_json+validate (dict form)", signal_cycle_dict(F_ev, F_pr), signal_cycle_dict(D_ev, D_pr)),
        ("signal build+to_json+json.loads+validate", signal_cycle_wire(F_ev, F_pr), signal_cycle_wire(D_ev, D_pr)),
        ("  of which json.loads(wire) (stdlib, both)", loads_only(F_ev, F_pr), loads_only(D_ev, D_pr)),
        ("event, Python path (plain-pybind11 bound)", event_cycle_python_path(F_ev_impl), event_cycle(D_ev)),
    ]
    load = os.getloadavg()
    print(f"python {platform.python_version()}, director-ai {director_ai.__version__}, "
          f"{os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"N={N} calls x {REPEATS} interleaved repeats, medians")
    print(f"{'case':46s} {'ours CPU us':>11s} {'d-ai CPU us':>11s} {'x CPU':>6s}   "
          f"{'ours wall us':>12s} {'d-ai wall us':>12s} {'x wall':>6s}")
    for name, ours, theirs in rows:
        r = paired(ours, theirs)
        print(f"{name:46s} {r['ours_cpu']:11.2f} {r['theirs_cpu']:11.2f} {r['x_cpu']:5.1f}x   "
              f"{r['ours_wall']:12.2f} {r['theirs_wall']:12.2f} {r['x_wall']:5.1f}x")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("command: python bench/bench_safety.py" + (" --quick" if QUICK else ""))


if __name__ == "__main__":
    main()

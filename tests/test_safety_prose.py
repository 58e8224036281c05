"""False rejects of the tenant-safety validators on ordinary operator prose (issue 30, item 3).

tests/data/operator_prose.txt: 320 lines of operator prose (incident notes, runbook steps, status
updates) written by a helper who had not seen the rules. Each line is put in every free-text string
field of a SafetyEvent and a DirectorSafetySignal that can hold it (length limits; the id, hook-id
and key fields only take identifiers); the fraction of lines rejected by the validators must stay
at or under 1 %. The first measurement, made once after the rules were final, is in
bench/RESULTS.md ("Eighth session: validators").
"""

from __future__ import annotations

from pathlib import Path

from director_fast.errors import ValidationError
from director_fast.safety import event as se
from director_fast.safety import protocol as sp
from director_fast.safety.tenant import tenant_safety_violation
from director_fast.types.results import HaltTraceAttribution

CORPUS = Path(__file__).resolve().parent / "data" / "operator_prose.txt"
MAX_FALSE_REJECT_RATE = 0.01

BASE = dict(hook_id="agent.tool", hook_scope="agent", policy_decision="warn", halt_reason="r",
            tenant_safe_explanation="Review the safety decision.")
TRACE = dict(fact_source="kb:1", retrieval_path="evidence_index.search", scorer_path="scorer.review",
             token_offset=3, threshold=0.5, causal_contribution=0.2)
# free-text fields and their length limits in code points
EVENT_FIELDS = {"request_id": 128, "tenant_id": 128, "halt_reason": 256, "tenant_safe_explanation": 1024,
                "evidence_ref": 512, "attribute_value": 512, "trace.fact_source": 512,
                "trace.retrieval_path": 512, "trace.scorer_path": 512}
SIGNAL_FIELDS = {"producer_id": 128, "framework": 128, "extension_value": 512}


def _lines() -> list[str]:
    return [ln for ln in CORPUS.read_text(encoding="utf-8").splitlines() if ln.strip()]


def _event(field: str, text: str) -> se.SafetyEvent:
    if field == "evidence_ref":
        kw = {"evidence_refs": (text,)}
    elif field == "attribute_value":
        kw = {"attributes": {"note": text}}
    elif field.startswith("trace."):
        kw = {"trace_attribution": HaltTraceAttribution(**{**TRACE, field[6:]: text})}
    else:
        kw = {field: text}
    ev = se.SafetyEvent.from_policy_decision(**{**BASE, **kw})
    se.validate_safety_event_payload(ev.to_dict())
    return ev


def _signal(field: str, text: str, ev: se.SafetyEvent) -> None:
    kw = {"extensions": {"note": text}} if field == "extension_value" else {field: text}
    sig = sp.director_safety_signal_from_event(ev, **{"producer_id": "runtime-alpha", **kw})
    sp.validate_director_safety_signal(sig.to_transport_dict())


def rejections() -> dict[str, dict[str, str]]:
    """line -> {field: error} for every line some field rejects."""
    ev = se.SafetyEvent.from_policy_decision(**BASE)
    out: dict[str, dict[str, str]] = {}
    for line in _lines():
        for field, limit in {**EVENT_FIELDS, **SIGNAL_FIELDS}.items():
            if len(line) > limit:
                continue
            try:
                _event(field, line) if field in EVENT_FIELDS else _signal(field, line, ev)
            except ValidationError as exc:
                out.setdefault(line, {})[field] = str(exc)
    return out


def test_corpus_is_the_held_out_one():
    lines = _lines()
    assert len(lines) >= 300 and len(set(lines)) > 290


def test_false_reject_rate_at_most_one_percent():
    lines = _lines()
    bad = rejections()
    rate = len(bad) / len(lines)
    detail = "\n".join(f"{line[:100]!r}: {sorted(f)} {next(iter(f.values()))}" for line, f in bad.items())
    assert rate <= MAX_FALSE_REJECT_RATE, f"{len(bad)}/{len(lines)} lines rejected:\n{detail}"


def test_a_rejected_line_is_rejected_in_every_field_it_fits():
    # one rule set for every free-text field: a line is rejected everywhere or nowhere
    for line, fields in rejections().items():
        fits = [f for f, lim in {**EVENT_FIELDS, **SIGNAL_FIELDS}.items() if len(line) <= lim]
        assert sorted(fields) == sorted(fits), line
        assert tenant_safety_violation(line) is not None

"""SafetyEvent: construction, emitted event kinds, payload validation, schema agreement, fuzzing."""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.safety.event import (
    HOOK_SCOPES,
    POLICY_DECISIONS,
    SAFETY_EVENT_JSON_SCHEMA,
    SafetyEvent,
    new_safety_event_id,
    utc_timestamp,
    validate_safety_event_payload,
)
from director_fast.safety.protocol import (
    DirectorSafetySignal,
    director_safety_signal_from_event,
    validate_director_safety_signal,
)
from director_fast.safety.tenant import TenantSafetyError
from director_fast.types.results import EvidenceChunk, HaltEvidence, HaltTraceAttribution
from director_fast.errors import ValidationError
from _concurrency import run_threads

VALIDATOR = jsonschema.Draft202012Validator(SAFETY_EVENT_JSON_SCHEMA)

# Every event kind director_fast emits (streaming kernel halts, agent hooks).
STREAMING_EXPLANATIONS = {
    "hard_limit": "Reduce generation temperature or add KB facts.",
    "window_avg": "Context may be drifting from grounded facts.",
    "downward_trend": "Response quality degrading; rephrase the prompt.",
    "callback_timeout": "The coherence scorer did not answer in time; the stream was stopped (fail closed).",
    "scorer_error": "The coherence scorer failed; the stream was stopped (fail closed).",
    "kernel_inactive": "The streaming kernel is inactive; the stream was stopped (fail closed).",
    "upstream_error": "The model's stream failed or ended early; the partial answer was stopped (fail closed).",
}


def emitted_events() -> list[SafetyEvent]:
    out = []
    for i, (reason, expl) in enumerate(STREAMING_EXPLANATIONS.items()):
        timeout_like = reason in ("callback_timeout", "scorer_error", "kernel_inactive", "upstream_error")
        out.append(SafetyEvent.from_policy_decision(
            hook_id="streaming.kernel", hook_scope="streaming", policy_decision="halt",
            halt_reason=reason, tenant_safe_explanation=expl,
            threshold=None if timeout_like else 0.55, observed_score=None if timeout_like else 0.31,
            latency_ms=1.25, request_id="req-1", tenant_id="tenant-1",
            attributes={"token_offset": str(5 + i), "trigger": reason},
        ))
        trace = HaltTraceAttribution(
            fact_source="kb://physics#1", retrieval_path="evidence_index.search",
            scorer_path="director_fast.scorer.CoherenceScorer.review", token_offset=5 + i,
            threshold=None if timeout_like else 0.55, causal_contribution=0.0 if timeout_like else 0.24,
        )
        he = HaltEvidence(reason=reason, last_score=0.31, evidence_chunks=[
            EvidenceChunk("Water boils at 100 C at sea level.", 0.12, "kb://physics#1"),
            EvidenceChunk("unlabelled chunk text", 0.3)], suggested_action=expl, trace_attribution=trace)
        out.append(SafetyEvent.from_halt_evidence(
            he, hook_id="streaming.kernel", request_id="req-1", tenant_id="tenant-1",
            threshold=trace.threshold, observed_score=0.31,
            attributes={"token_offset": str(5 + i), "trigger": reason}))
    for decision in ("block", "warn", "allow"):
        out.append(SafetyEvent.from_policy_decision(
            hook_id="agent.tool_call_confidence", hook_scope="agent", policy_decision=decision,
            halt_reason="tool_input_low_confidence", tenant_safe_explanation="Tool input not grounded in context.",
            threshold=0.6, observed_score=0.42, attributes={"tool": "search_flights", "argument_count": "3"}))
        out.append(SafetyEvent.from_policy_decision(
            hook_id="agent.citations", hook_scope="agent", policy_decision=decision,
            halt_reason="citation_unsupported", tenant_safe_explanation="A cited source does not support the claim.",
            evidence_refs=("doc:17#p3", "kb://physics#1"), attributes={"citation_index": "2"}))
    return out


@pytest.mark.parametrize("event", emitted_events(), ids=lambda e: f"{e.hook_id}:{e.halt_reason}:{e.policy_decision}")
def test_every_emitted_event_kind_validates_and_survives_the_envelope(event):
    payload = event.to_dict()
    VALIDATOR.validate(payload)
    assert validate_safety_event_payload(payload) == event
    assert validate_safety_event_payload(json.loads(json.dumps(payload))) == event
    signal = director_safety_signal_from_event(event, producer_id="director_fast", framework="director_fast")
    back = validate_director_safety_signal(json.loads(signal.to_json()))
    assert back == signal and back.event == event


def test_from_halt_evidence_fields():
    trace = HaltTraceAttribution("kb://a", "p", "s", 4, 0.5, 0.2)
    he = HaltEvidence("window_avg", 0.3, [EvidenceChunk("fact text", 0.1, "kb://a"), EvidenceChunk("x", 0.2)],
                      suggested_action="Context may be drifting from grounded facts.", trace_attribution=trace)
    ev = SafetyEvent.from_halt_evidence(he, hook_id="streaming.kernel", request_id="r", tenant_id="t")
    assert ev.halt_reason == "window_avg" and ev.threshold == 0.5 and ev.observed_score == 0.3
    assert ev.evidence_refs == ("kb://a", "chunk:1")  # references, never chunk text
    assert ev.trace_attribution == trace and ev.hook_scope == "streaming" and ev.policy_decision == "halt"
    ev2 = SafetyEvent.from_halt_evidence(he, hook_id="streaming.kernel", threshold=0.55, observed_score=0.41,
                                         evidence_refs=())
    assert (ev2.threshold, ev2.observed_score, ev2.evidence_refs) == (0.55, 0.41, ())
    bare = SafetyEvent.from_halt_evidence(HaltEvidence("hard_limit", 0.1, []), hook_id="streaming.kernel")
    assert bare.tenant_safe_explanation == "Review the safety decision."


def test_ids_and_timestamps():
    ids = {new_safety_event_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(re.fullmatch(r"sevt_[0-9a-f]{32}", i) for i in ids)
    ts = utc_timestamp()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", ts)
    import datetime as dt
    parsed = dt.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.timezone.utc)
    assert abs((dt.datetime.now(dt.timezone.utc) - parsed).total_seconds()) < 5


def base_payload() -> dict:
    return emitted_events()[1].to_dict()


@pytest.mark.parametrize(
    "mutate,field",
    [
        (lambda p: p.update(schema_version="director.safety_event.v2"), "schema_version"),
        (lambda p: p.update(hook_scope="kernel"), "hook_scope"),
        (lambda p: p.update(policy_decision="deny"), "policy_decision"),
        (lambda p: p.update(threshold=1.01), "threshold"),
        (lambda p: p.update(observed_score=-0.1), "observed_score"),
        (lambda p: p.update(latency_ms=-1), "latency_ms"),
        (lambda p: p.update(threshold=True), "threshold"),
        (lambda p: p.update(timestamp="2026-11-30T01:02:03+00:00"), "timestamp"),
        (lambda p: p.update(timestamp="2026-13-30T01:02:03Z"), "timestamp"),
        (lambda p: p.update(event_id="evt-1"), "event_id"),
        (lambda p: p.update(halt_reason="   "), "halt_reason"),
        (lambda p: p.update(tenant_safe_explanation=""), "tenant_safe_explanation"),
        (lambda p: p.update(evidence_refs="kb://a"), "evidence_refs"),
        (lambda p: p.update(evidence_refs=[1]), "evidence_refs[0]"),
        (lambda p: p.update(attributes={"k": 1}), "attributes"),
        (lambda p: p.update(attributes={"bad key": "v"}), "attributes"),
        (lambda p: p.update(request_id="r\n1"), "request_id"),
        (lambda p: p.update(extra=1), "payload"),
        (lambda p: p.pop("attributes"), "payload"),
        (lambda p: p["trace_attribution"].update(token_offset=-5), "trace_attribution"),
        (lambda p: p["trace_attribution"].pop("scorer_path"), "trace_attribution"),
    ],
)
def test_payload_rejections_name_the_field(mutate, field):
    p = base_payload()
    mutate(p)
    with pytest.raises(ValidationError) as exc:
        validate_safety_event_payload(p)
    assert field in str(exc.value)


def test_null_token_offset_reads_as_unknown():
    p = base_payload()
    p["trace_attribution"]["token_offset"] = None
    assert validate_safety_event_payload(p).trace_attribution.token_offset == -1


def test_attributes_are_string_to_string_and_copied():
    attrs = {"token_offset": "5"}
    ev = SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="warn",
                                          halt_reason="r", tenant_safe_explanation="e", attributes=attrs)
    attrs["token_offset"] = "6"
    assert ev.attributes == {"token_offset": "5"}
    with pytest.raises(ValidationError, match="attributes"):
        SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="warn",
                                         halt_reason="r", tenant_safe_explanation="e", attributes={"n": 5})


def test_size_limits():
    kw = dict(hook_id="h", hook_scope="agent", policy_decision="warn", halt_reason="r", tenant_safe_explanation="e")
    SafetyEvent.from_policy_decision(**{**kw, "halt_reason": "r " * 128})
    for over in ({"halt_reason": "r " * 128 + "r"}, {"tenant_safe_explanation": "e " * 513},
                 {"evidence_refs": ["x"] * 65}, {"evidence_refs": ["x" * 513]},
                 {"attributes": {f"k{i}": "v" for i in range(65)}}, {"attributes": {"k": "v" * 513}},
                 {"attributes": {"k" * 65: "v"}}, {"request_id": "r" * 129}, {"hook_id": "h" * 129}):
        with pytest.raises(ValidationError):
            SafetyEvent.from_policy_decision(**{**kw, **over})


# --- schema agreement -------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
json_values = st.recursive(json_scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3), max_leaves=8)
interesting_strings = st.sampled_from([
    "", " ", "a", "sevt_" + "a" * 32, "sevt_", "sevt_x y", "2026-11-30T01:02:03Z", "2026-11-30T01:02:03.123456789Z",
    "2026-02-30T23:59:60Z", "2026-11-30T24:00:00Z", "2026-11-30 01:02:03Z", "2026-11-30T01:02:03z", "x\n", "x\x7f",
    "streaming", "agent", "halt", "block", "inference_server", "director.safety_event.v1", "token_offset",
    "a.b:c/d-e_f", ".a", "k" * 64, "k" * 65, "r" * 128, "r" * 129, "e" * 1024, "e" * 1025, "\ud800", "\u00e9t\u00e9",
])
field_values = json_values | interesting_strings | st.floats(0, 1) | st.integers(-2, 2) | st.lists(interesting_strings, max_size=3) | st.dictionaries(interesting_strings, interesting_strings, max_size=2)


def _accepts(payload) -> tuple[bool, Exception | None]:
    try:
        validate_safety_event_payload(payload)
        return True, None
    except ValidationError as exc:
        return False, exc


@settings(max_examples=400, deadline=None)
@given(key=st.sampled_from(sorted(SAFETY_EVENT_JSON_SCHEMA["properties"]) + ["trace.token_offset", "trace.threshold",
       "trace.causal_contribution", "trace.fact_source", "trace", "attributes.x", "extra"]),
       value=field_values)
def test_schema_and_validator_agree(key, value):
    p = base_payload()
    if key.startswith("trace."):
        p["trace_attribution"][key[6:]] = value
    elif key == "attributes.x":
        p["attributes"]["x"] = value
    elif key == "extra":
        p[str(value)[:10] if not isinstance(value, str) else value] = 1
    elif key == "trace":
        p["trace_attribution"] = value
    else:
        p[key] = value
    schema_ok = VALIDATOR.is_valid(p)
    ours, exc = _accepts(p)
    if ours:
        assert schema_ok, f"validator accepted a schema-invalid payload: {key}={value!r}"
    elif schema_ok:
        # the only rejections beyond the schema are the tenant-safety rules
        assert isinstance(exc, TenantSafetyError), f"{key}={value!r}: {exc}"


@settings(max_examples=300, deadline=None)
@given(junk=json_values | st.dictionaries(st.sampled_from(sorted(SAFETY_EVENT_JSON_SCHEMA["properties"])), json_values))
def test_hostile_payloads_raise_only_validation_errors(junk):
    try:
        validate_safety_event_payload(junk)
    except ValidationError:
        pass


@pytest.mark.parametrize("junk", [
    None, 1, "x", [], {1: 2}, {("t",): 1}, {"event_id": float("nan")},
    {**{k: None for k in SAFETY_EVENT_JSON_SCHEMA["properties"]}},
])
def test_hostile_payload_shapes(junk):
    with pytest.raises(ValidationError):
        validate_safety_event_payload(junk)


class _RaisingEqKey(str):
    """A str subclass with a field name's hash whose comparison raises."""

    def __eq__(self, other):
        raise RuntimeError("hostile __eq__")

    __hash__ = str.__hash__


class _HostileMapping(Mapping):
    def __getitem__(self, key):
        raise KeyError(key)

    def __iter__(self):
        raise OSError("hostile __iter__")

    def __len__(self):
        return 16

    def __repr__(self):
        raise TypeError("hostile __repr__")


@pytest.mark.parametrize("field", ["event_id", "attributes", "schema_version"])
def test_payload_code_that_raises_becomes_a_validation_error(field):
    # exceptions raised by the payload's own code never escape the validators
    ev = SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="warn",
                                          halt_reason="r", tenant_safe_explanation="e")
    p = {(_RaisingEqKey(k) if k == field else k): v for k, v in ev.to_dict().items()}
    with pytest.raises(ValidationError, match=r"SafetyEvent\.payload: could not be read \(RuntimeError"):
        validate_safety_event_payload(p)
    sig = director_safety_signal_from_event(ev, producer_id="p", framework="f")
    t = {(_RaisingEqKey(k) if k == "framework" else k): v for k, v in sig.to_transport_dict().items()}
    with pytest.raises(ValidationError, match=r"DirectorSafetySignal\.payload: could not be read"):
        validate_director_safety_signal(t)
    for fn in (validate_safety_event_payload, validate_director_safety_signal):
        with pytest.raises(ValidationError, match="could not be read"):
            fn(_HostileMapping())


def test_nan_inf_huge_numbers_and_deep_nesting():
    for bad in (float("nan"), float("inf"), 10**400, -0.0 - 1e-300):
        p = base_payload()
        p["observed_score"] = bad
        if bad == -0.0 - 1e-300:
            continue
        with pytest.raises(ValidationError):
            validate_safety_event_payload(p)
    p = base_payload()
    p["latency_ms"] = 10**400
    with pytest.raises(ValidationError):
        validate_safety_event_payload(p)
    deep: list = []
    cur = deep
    for _ in range(10000):
        cur.append([])
        cur = cur[0]
    p = base_payload()
    p["attributes"] = {"k": deep}
    with pytest.raises(ValidationError):
        validate_safety_event_payload(p)
    p = base_payload()
    p["halt_reason"] = "x" * 10_000_000
    with pytest.raises(ValidationError):
        validate_safety_event_payload(p)


def test_integer_scores_keep_their_json_form():
    # deliberate difference: director-ai's validator turns 1 into 1.0, so re-serialising a
    # validated payload changes its bytes (and digest); ours keeps the number as sent, so a
    # signature over the producer's bytes still verifies after validation
    ev = SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="warn",
                                          halt_reason="r", tenant_safe_explanation="e", threshold=1,
                                          observed_score=0, latency_ms=12)
    for payload in (ev.to_dict(), dict(ev.to_dict()), json.loads(json.dumps(ev.to_dict()))):
        v = validate_safety_event_payload(payload)
        assert (v.threshold, v.observed_score, v.latency_ms) == (1, 0, 12) and type(v.threshold) is int
        assert v.to_dict() == ev.to_dict()
    sig = director_safety_signal_from_event(ev, producer_id="p", framework="f")
    assert DirectorSafetySignal.from_json(sig.to_json()).digest() == sig.digest()


def test_huge_integers_are_refused():
    for field, value in (("causal_contribution", 10**20), ("token_offset", 2**63)):
        with pytest.raises(ValidationError, match=field):
            HaltTraceAttribution(**{field: value})
    assert HaltTraceAttribution(token_offset=2**63 - 1).token_offset == 2**63 - 1
    assert HaltTraceAttribution(causal_contribution=2**53).causal_contribution == 2**53


def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SAFETY_EVENT_JSON_SCHEMA)
    assert SAFETY_EVENT_JSON_SCHEMA["properties"]["hook_scope"]["enum"] == sorted(HOOK_SCOPES)
    assert SAFETY_EVENT_JSON_SCHEMA["properties"]["policy_decision"]["enum"] == sorted(POLICY_DECISIONS)
    json.dumps(SAFETY_EVENT_JSON_SCHEMA)


def test_concurrent_construction_and_validation():
    payloads = [e.to_dict() for e in emitted_events()]

    def work():
        for _ in range(30):
            for p in payloads:
                assert validate_safety_event_payload(copy.deepcopy(p)).to_dict() == p

    assert run_threads(work) == []

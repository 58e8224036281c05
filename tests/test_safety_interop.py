"""Interoperability with director-ai 3.21.0 (the anchor): events and signals in both directions.

Skipped with a reason when director-ai is not installed; under CI=true a missing director-ai is a
failure (the `bench` extra must be installed in CI).
"""

from __future__ import annotations

import json
import os

import pytest

try:
    import director_ai  # noqa: F401
    from director_ai.core import safety_event as da_event
    from director_ai.core import safety_protocol as da_proto
    from director_ai.core import types as da_types
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI", "").lower() == "true":
        raise
    pytest.skip("director-ai (the `bench` extra) is not installed", allow_module_level=True)

from director_fast.safety import event as ours_event
from director_fast.safety import protocol as ours_proto
from director_fast.types import results as ours_types

from test_safety_event import emitted_events

SEED_KW = dict(
    hook_id="streaming.kernel", hook_scope="streaming", policy_decision="halt",
    halt_reason="coherence_below_threshold", tenant_safe_explanation="Review grounding evidence.",
    threshold=0.5, observed_score=0.31, evidence_refs=("kb://physics#1",),
    attributes={"policy_id": "policy.streaming.regulated", "region": "z\u00fcrich \u2603"},
    event_id="sevt_" + "ab" * 16, timestamp="2026-11-30T00:00:00.123456Z", request_id="req-123", tenant_id="tenant-1",
)
SIG_KW = dict(producer_id="runtime-alpha", framework="generic-agent", signal_id="dsp_" + "cd" * 16,
              emitted_at="2026-11-30T00:00:01.5Z", extensions={"deployment": "eu-west"})


def test_version_pinned():
    assert director_ai.__version__ == "3.21.0"


def test_constants_agree():
    assert ours_event.SAFETY_EVENT_SCHEMA_VERSION == da_event.SAFETY_EVENT_SCHEMA_VERSION
    assert ours_proto.DIRECTOR_SAFETY_PROTOCOL_VERSION == da_proto.DIRECTOR_SAFETY_PROTOCOL_VERSION
    assert ours_proto.DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF == da_proto.DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF
    assert set(ours_event.HOOK_SCOPES) == set(da_event.SAFETY_EVENT_JSON_SCHEMA["properties"]["hook_scope"]["enum"])
    assert set(ours_event.POLICY_DECISIONS) == set(da_event.SAFETY_EVENT_JSON_SCHEMA["properties"]["policy_decision"]["enum"])
    assert set(ours_event.SAFETY_EVENT_JSON_SCHEMA["required"]) == set(da_event.SAFETY_EVENT_JSON_SCHEMA["required"])


def test_same_inputs_give_identical_dicts_and_canonical_bytes():
    theirs = da_event.SafetyEvent.from_policy_decision(**SEED_KW)
    ours = ours_event.SafetyEvent.from_policy_decision(**SEED_KW)
    assert ours.to_dict() == theirs.to_dict()
    t_sig = da_proto.director_safety_signal_from_event(theirs, **SIG_KW)
    o_sig = ours_proto.director_safety_signal_from_event(ours, **SIG_KW)
    assert o_sig.to_json() == t_sig.to_json()
    assert o_sig.to_json().encode() == t_sig.to_json().encode()


def test_anchor_payloads_validate_in_ours_with_identical_bytes():
    theirs = da_event.SafetyEvent.from_policy_decision(**SEED_KW)
    ev = ours_event.validate_safety_event_payload(theirs.to_dict())
    assert ev.to_dict() == theirs.to_dict()
    t_sig = da_proto.director_safety_signal_from_event(theirs, **SIG_KW)
    wire = t_sig.to_json()
    o_sig = ours_proto.DirectorSafetySignal.from_json(wire)
    assert o_sig.to_json() == wire
    assert ours_proto.validate_director_safety_signal(t_sig.to_transport_dict()).to_json() == wire


def test_ours_validate_in_anchor_with_identical_bytes():
    ours = ours_event.SafetyEvent.from_policy_decision(**SEED_KW)
    back = da_event.validate_safety_event_payload(ours.to_dict())
    assert back.to_dict() == ours.to_dict()
    o_sig = ours_proto.director_safety_signal_from_event(ours, **SIG_KW)
    t_back = da_proto.validate_director_safety_signal(json.loads(o_sig.to_json()))
    assert t_back.to_json() == o_sig.to_json()


def test_halt_evidence_events_agree():
    kw = dict(reason="hard_limit (0.3000 < 0.5)", last_score=0.3, suggested_action="Reduce generation temperature or add KB facts.")
    t_he = da_types.HaltEvidence(evidence_chunks=[da_types.EvidenceChunk("fact", 0.1, "kb://a"), da_types.EvidenceChunk("x", 0.2)],
                                 trace_attribution=da_types.HaltTraceAttribution("kb://a", "scorer.review.evidence.chunks", "m.S.review", 3, 0.5, 0.2), **kw)
    o_he = ours_types.HaltEvidence(evidence_chunks=[ours_types.EvidenceChunk("fact", 0.1, "kb://a"), ours_types.EvidenceChunk("x", 0.2)],
                                   trace_attribution=ours_types.HaltTraceAttribution("kb://a", "scorer.review.evidence.chunks", "m.S.review", 3, 0.5, 0.2), **kw)
    common = dict(hook_id="streaming.kernel", request_id="r", tenant_id="t", event_id="sevt_" + "1" * 32,
                  timestamp="2026-11-30T00:00:00Z")
    t = da_event.SafetyEvent.from_halt_evidence(t_he, **common)
    o = ours_event.SafetyEvent.from_halt_evidence(o_he, **common)
    assert o.to_dict() == t.to_dict()
    assert ours_event.validate_safety_event_payload(t.to_dict()) == o


def test_anchor_streaming_events_pass_ours_but_not_the_anchor():
    """Documented difference: the anchor's own streaming events fail the anchor's validator
    (token_offset attribute; 'rephrase the prompt'), ours accept them."""
    from director_ai.core.runtime.streaming import StreamingKernel

    scores = iter([0.9, 0.9, 0.8, 0.7, 0.6, 0.56, 0.56, 0.56])
    sess = StreamingKernel(hard_limit=0.5, window_size=3, window_threshold=0.55, trend_window=4,
                           trend_threshold=0.15).stream_tokens(iter(["a"] * 8), lambda _t: next(scores, 0.56))
    k2 = StreamingKernel(hard_limit=0.5).stream_tokens(iter(["a", "b"]), lambda _t: 0.2)
    events = list(sess.safety_events) + list(k2.safety_events)
    assert events, "the anchor should have halted"
    for ev in events:
        payload = ev.to_dict()
        with pytest.raises(ValueError):
            da_event.validate_safety_event_payload(payload)
        ours = ours_event.validate_safety_event_payload(payload)
        assert ours.to_dict() == payload
        sig = ours_proto.director_safety_signal_from_event(ours, producer_id="p")
        ours_proto.validate_director_safety_signal(sig.to_transport_dict())


def test_our_emitted_events_in_the_anchor():
    """Ours -> anchor: events without the words the anchor's substring rules block validate
    there with identical dicts; the others are the documented difference."""
    accepted = 0
    for ev in emitted_events():
        payload = ev.to_dict()
        try:
            back = da_event.validate_safety_event_payload(payload)
        except ValueError:
            assert "token_offset" in payload["attributes"] or "prompt" in payload["tenant_safe_explanation"]
            continue
        accepted += 1
        assert back.to_dict() == payload
    assert accepted > 0


def test_listed_difference_prose_and_credential_shapes():
    """Documented difference (docs/safety_events.md): operator prose that the anchor's substring
    deny-list rejects is accepted by ours; credential-shaped values the anchor lets through are
    rejected by ours."""
    for prose in ("password reset policy", "Secret Santa", "The user prompt was ambiguous",
                  "Token budget exceeded: 4096 tokens used."):
        kw = {**SEED_KW, "tenant_safe_explanation": prose}
        payload = ours_event.SafetyEvent.from_policy_decision(**kw).to_dict()
        with pytest.raises(ValueError):
            da_event.validate_safety_event_payload(payload)
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    for field, value in (("request_id", jwt), ("tenant_id", "pwd=hunter2"),
                         ("tenant_safe_explanation", "see postgres://app:hunter2@db.internal/app"),
                         ("attributes", {"authorization": "x"}), ("attributes", {"messages": "x"})):
        theirs = da_event.SafetyEvent.from_policy_decision(**{**SEED_KW, field: value})
        payload = theirs.to_dict()
        assert da_event.validate_safety_event_payload(payload).to_dict() == payload
        with pytest.raises(ours_event.TenantSafetyError):
            ours_event.validate_safety_event_payload(payload)

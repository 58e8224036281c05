"""Director Safety Protocol: envelope, severity, canonical JSON, digest, validation, fuzzing."""

from __future__ import annotations

import copy
import hashlib
import json
import re

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.safety.event import SafetyEvent
from director_fast.safety.protocol import (
    DIRECTOR_SAFETY_PROTOCOL_VERSION,
    DIRECTOR_SAFETY_SIGNAL_JSON_SCHEMA,
    MAX_SIGNAL_JSON_BYTES,
    REDACTION_REQUIRED,
    SEVERITY_BY_DECISION,
    DirectorSafetySignal,
    director_safety_signal_from_event,
    new_director_safety_signal_id,
    validate_director_safety_signal,
)
from director_fast.safety.tenant import TenantSafetyError
from director_fast.errors import ValidationError

VALIDATOR = jsonschema.Draft202012Validator(DIRECTOR_SAFETY_SIGNAL_JSON_SCHEMA)


def seed_event(**kw) -> SafetyEvent:
    base = dict(
        hook_id="streaming.kernel", hook_scope="streaming", policy_decision="halt",
        halt_reason="coherence_below_threshold", tenant_safe_explanation="Review grounding evidence.",
        threshold=0.5, observed_score=0.31, evidence_refs=("kb://physics#1",),
        attributes={"policy_id": "policy.streaming.regulated"},
        event_id="sevt_" + "0" * 32, timestamp="2026-11-30T00:00:00.000001Z",
    )
    return SafetyEvent.from_policy_decision(**{**base, **kw})


def seed_signal(**kw) -> DirectorSafetySignal:
    base = dict(producer_id="runtime-alpha", framework="generic-agent", signal_id="dsp_" + "1" * 32,
                emitted_at="2026-11-30T00:00:01Z")
    return director_safety_signal_from_event(kw.pop("event", seed_event()), **{**base, **kw})


def test_transport_fields_and_interoperability_block():
    d = seed_signal().to_transport_dict()
    assert set(d) == {"protocol_version", "schema_ref", "signal_id", "emitted_at", "producer_id", "framework",
                      "event_schema_version", "event", "interoperability", "privacy", "extensions"}
    assert d["protocol_version"] == DIRECTOR_SAFETY_PROTOCOL_VERSION
    assert d["event_schema_version"] == "director.safety_event.v1"
    assert d["interoperability"] == {"decision": "halt", "severity": "terminal", "hook_scope": "streaming",
                                     "halt_reason": "coherence_below_threshold", "evidence_ref_count": 1}
    assert d["privacy"] == {"payload_classification": "tenant_safe", "raw_payload_included": False,
                            "redaction_required": list(REDACTION_REQUIRED)}
    VALIDATOR.validate(d)


@pytest.mark.parametrize("decision,severity", [("allow", "informational"), ("warn", "advisory"),
                                               ("halt", "terminal"), ("block", "terminal")])
def test_severity_mapping(decision, severity):
    s = seed_signal(event=seed_event(policy_decision=decision))
    assert s.severity == severity == SEVERITY_BY_DECISION[decision]
    assert s.to_transport_dict()["interoperability"]["severity"] == severity


def test_canonical_json_known_bytes():
    s = seed_signal(extensions={"region": "z\u00fcrich"})
    text = s.to_json()
    assert text.isascii() and "\\u00fc" in text and " " not in text.replace("Review grounding evidence.", "")
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    assert text.startswith('{"emitted_at":"2026-11-30T00:00:01Z","event":{"attributes":{"policy_id":')
    assert s.digest() == hashlib.sha256(text.encode("ascii")).hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", s.digest())
    # stable: rebuilding from the wire gives the same bytes and digest
    again = DirectorSafetySignal.from_json(text)
    assert again.to_json() == text and again.digest() == s.digest()


def test_ids():
    ids = {new_director_safety_signal_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(re.fullmatch(r"dsp_[0-9a-f]{32}", i) for i in ids)
    s = director_safety_signal_from_event(seed_event(), producer_id="p")
    assert s.signal_id.startswith("dsp_") and s.framework == "generic" and s.emitted_at.endswith("Z")


def payload() -> dict:
    return seed_signal().to_transport_dict()


@pytest.mark.parametrize("mutate,where", [
    (lambda p: p.update(protocol_version="director.safety_protocol.v2"), "protocol_version"),
    (lambda p: p.update(event_schema_version="director.safety_event.v0"), "event_schema_version"),
    (lambda p: p["privacy"].update(payload_classification="internal"), "payload_classification"),
    (lambda p: p["privacy"].update(raw_payload_included=True), "raw_payload_included"),
    (lambda p: p["privacy"].update(raw_payload_included=0), "raw_payload_included"),
    (lambda p: p["privacy"].update(redaction_required=["credentials"]), "redaction_required"),
    (lambda p: p["interoperability"].update(severity="advisory"), "severity"),
    (lambda p: p["interoperability"].update(severity="critical"), "severity"),
    (lambda p: p["interoperability"].update(decision="warn"), "decision"),
    (lambda p: p["interoperability"].update(hook_scope="agent"), "hook_scope"),
    (lambda p: p["interoperability"].update(halt_reason="other"), "halt_reason"),
    (lambda p: p["interoperability"].update(evidence_ref_count=2), "evidence_ref_count"),
    (lambda p: p.update(signal_id="sig-1"), "signal_id"),
    (lambda p: p.update(emitted_at="yesterday"), "emitted_at"),
    (lambda p: p.update(producer_id=" "), "producer_id"),
    (lambda p: p.update(extensions={"api_key": "x"}), "extensions"),
    (lambda p: p.update(extensions={"note": "postgres://app:hunter2@db:5432/x"}), "extensions"),
    (lambda p: p["event"]["attributes"].update(password="x"), "attributes"),
    (lambda p: p.update(surprise=1), "payload"),
    (lambda p: p.pop("privacy"), "payload"),
])
def test_validation_rejections(mutate, where):
    p = payload()
    mutate(p)
    with pytest.raises(ValidationError) as exc:
        validate_director_safety_signal(p)
    assert where in str(exc.value)


def test_unsafe_extensions_rejected_at_construction():
    with pytest.raises(TenantSafetyError, match="extensions key"):
        seed_signal(extensions={"bearer": "abc"})
    assert seed_signal(extensions={"token_offset": "5"}).extensions == {"token_offset": "5"}


@pytest.mark.parametrize("text", [
    "", "{", "[]", "null", "NaN", '{"a": NaN}', "[" * 100000 + "]" * 100000, "x" * (MAX_SIGNAL_JSON_BYTES + 1),
    b"\xff\xfe", json.dumps(payload()).replace('"halt"', '"HALT"'),
])
def test_from_json_hostile(text):
    with pytest.raises(ValidationError):
        DirectorSafetySignal.from_json(text)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3), max_leaves=8)
TOP = sorted(DIRECTOR_SAFETY_SIGNAL_JSON_SCHEMA["properties"])


@settings(max_examples=300, deadline=None)
@given(key=st.sampled_from(TOP + ["privacy.raw_payload_included", "privacy.payload_classification",
                                  "privacy.redaction_required", "extensions.k"]), value=json_values)
def test_schema_and_validator_agree(key, value):
    p = payload()
    if "." in key:
        a, b = key.split(".")
        p[a][b] = value
    else:
        p[key] = value
    schema_ok = VALIDATOR.is_valid(p)
    try:
        validate_director_safety_signal(p)
        ours = True
    except ValidationError as exc:
        ours = False
        if schema_ok:
            # beyond the schema: tenant-safety rules and the cross-field interoperability checks
            assert isinstance(exc, TenantSafetyError) or "interoperability" in str(exc), str(exc)
    if ours:
        assert schema_ok, f"{key}={value!r}"


@settings(max_examples=200, deadline=None)
@given(junk=json_values | st.dictionaries(st.sampled_from(TOP), json_values))
def test_hostile_payloads_only_raise_validation_errors(junk):
    try:
        validate_director_safety_signal(junk)
    except ValidationError:
        pass
    p = payload()
    if isinstance(junk, dict):
        p.update(junk)
        try:
            validate_director_safety_signal(p)
        except ValidationError:
            pass


def test_validated_payload_is_not_aliased():
    p = payload()
    s = validate_director_safety_signal(p)
    p2 = copy.deepcopy(p)
    p["extensions"]["x"] = "y"
    p["event"]["attributes"]["policy_id"] = "changed"
    assert s.to_transport_dict() == p2


def test_schema_checks():
    jsonschema.Draft202012Validator.check_schema(DIRECTOR_SAFETY_SIGNAL_JSON_SCHEMA)


def test_from_json_limit_is_in_utf8_bytes():
    wire = seed_signal().to_json()
    pad = MAX_SIGNAL_JSON_BYTES - len(wire.encode())
    # whitespace padding up to exactly the limit is accepted, one byte more is not
    assert DirectorSafetySignal.from_json(wire + " " * pad).to_json() == wire
    with pytest.raises(ValidationError, match="bytes"):
        DirectorSafetySignal.from_json(wire + " " * (pad + 1))
    # a str with fewer code points than the limit but more UTF-8 bytes (3 bytes each) is refused
    big = "\u20ac" * (MAX_SIGNAL_JSON_BYTES // 3 + 1)
    assert len(big) < MAX_SIGNAL_JSON_BYTES
    with pytest.raises(ValidationError, match="bytes"):
        DirectorSafetySignal.from_json(big)


def test_signal_of_an_event_subclass_uses_its_to_dict():
    from director_fast.safety.event import SafetyEvent

    class TaggedEvent(SafetyEvent):
        __slots__ = ()

        def to_dict(self):
            d = super().to_dict()
            d["attributes"] = {**d["attributes"], "tagged": "yes"}
            return d

    base = SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="warn",
                                            halt_reason="r", tenant_safe_explanation="e")
    ev = TaggedEvent(**{f: getattr(base, f) for f in base.__dataclass_fields__})
    sig = director_safety_signal_from_event(ev, producer_id="p", framework="f")
    assert sig.to_transport_dict()["event"]["attributes"] == {"tagged": "yes"}
    assert json.loads(sig.to_json())["event"]["attributes"] == {"tagged": "yes"}
    assert sig.to_json() == json.dumps(sig.to_transport_dict(), sort_keys=True, separators=(",", ":"))
    # the exact class still takes the C++ writers, with the same bytes as the Python reference
    plain = director_safety_signal_from_event(base, producer_id="p", framework="f")
    assert plain.to_json() == plain._to_json_py()

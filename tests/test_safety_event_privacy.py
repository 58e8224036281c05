"""Tenant-safety rules R1..R8: each rule has rejected cases and accepted near-misses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import _safety_oracle as ts
from director_fast.core.safety_event import SafetyEvent
from director_fast.core.tenant_safety import TenantSafetyError, tenant_safety_violation

# (role, text, rejected?, rule)
CASES = [
    # R1 credential words
    ("key", "password", True, "R1"), ("text", "raw prompt leaked: secret=xyz", True, "R"),
    ("key", "client_secret", True, "R1"), ("text", "Authorization: Bearer abc", True, "R1"),
    ("key", "session_cookie", True, "R1"), ("text", "secret=xyz", True, "R1"),
    ("key", "secret_id", False, "R1"), ("text", "secretary", False, "R1"), ("key", "passage", False, "R1"),
    ("key", "credential_ref", False, "R1"), ("text", "compass bearing", False, "R1"),
    # R2 key pairs
    ("key", "api_key", True, "R2"), ("text", "Private Key", True, "R2"), ("key", "apiKey", True, "R2"),
    ("key", "ssh_keys", True, "R2"), ("key", "key_id", False, "R2"), ("key", "api_key_id", False, "R2"),
    ("text", "primary key", False, "R2"), ("key", "monkey", False, "R2"),
    # R3 tokens
    ("key", "token", True, "R3"), ("key", "access_token", True, "R3"), ("key", "auth_token", True, "R3"),
    ("key", "api_token", True, "R3"), ("key", "bearer", True, "R1"), ("key", "accessToken", True, "R3"),
    ("key", "refresh_tokens", True, "R3"), ("text", "the token expired", True, "R3"),
    ("key", "token_offset", False, "R3"), ("key", "token_index", False, "R3"), ("key", "token_count", False, "R3"),
    ("key", "token_id", False, "R3"), ("key", "max_tokens", False, "R3"), ("text", "stopped after 5 tokens", False, "R3"),
    ("text", "token 17 crossed the limit", False, "R3"), ("text", "latency per token", False, "R3"),
    ("key", "tokenizer", False, "R3"), ("key", "prompt_tokens", False, "R3"),
    # R3 assignment form (any role) and run-together qualifier + token
    ("text", "retry 2 token=hunter2hunter2", True, "R3"), ("text", "v1 token: hunter2", True, "R3"),
    ("text", "max token=abc", True, "R3"), ("text", "TOKEN = s3cr3t", True, "R3"),
    ("key", "accesstoken", True, "R3"), ("key", "refreshtoken", True, "R3"), ("text", "AUTHTOKEN", True, "R3"),
    ("text", "token: 5", False, "R3"), ("text", "token=17, then stopped", False, "R3"),
    ("text", "tokens=512", False, "R3"), ("text", "token_offset=5", False, "R3"),
    # R1 / R2 run-together words
    ("key", "clientsecret", True, "R1"), ("key", "secretkey", True, "R2"), ("key", "accesskey", True, "R2"),
    ("key", "secretkey_id", False, "R2"), ("text", "turkey", False, "R2"),
    # R4 private prompts
    ("text", "system prompt follows", True, "R4"), ("key", "prompt", True, "R4"), ("key", "prompt_text", True, "R4"),
    ("key", "user_prompt", True, "R4"), ("text", "prompt: tell me", True, "R4"), ("text", "prompt=hi", True, "R4"),
    ("text", "the private prompt", True, "R4"), ("key", "completion", True, "R4"),
    ("text", "Response quality degrading; rephrase the prompt.", False, "R4"), ("key", "prompt_id", False, "R4"),
    ("key", "prompt_hash", False, "R4"), ("text", "prompt injection suspected", False, "R4"),
    ("text", "promptly", False, "R4"),
    ("key", "systemprompt", True, "R4"), ("text", "rawprompt follows", True, "R4"),
    ("key", "systemprompt_id", False, "R4"),
    # R5 raw payloads
    ("key", "raw_text", True, "R5"), ("text", "raw prompt", True, "R5"), ("key", "raw", True, "R5"),
    ("key", "rawResponse", True, "R5"), ("text", "raw sensor dump", True, "R5"),
    ("key", "rawhide", False, "R5"), ("key", "raw_score", False, "R5"), ("text", "mode raw", False, "R5"),
    ("text", "drawn", False, "R5"),
    # R6 private media
    ("key", "image", True, "R6"), ("key", "user_photo", True, "R6"), ("text", "user photo attached", True, "R6"),
    ("text", "image bytes follow", True, "R6"), ("key", "audio", True, "R6"),
    ("key", "image_count", False, "R6"), ("key", "video_duration", False, "R6"),
    ("text", "image content policy", False, "R6"), ("key", "imagery_level", False, "R6"),
    # R7 sensor payloads
    ("key", "sensor_reading", True, "R7"), ("text", "sensor data", True, "R7"), ("key", "lidar", True, "R7"),
    ("key", "sensor_id", False, "R7"), ("text", "sensor offline", False, "R7"), ("key", "sensory", False, "R7"),
    # R8 shapes
    ("text", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", True, "R8"),
    ("text", "-----BEGIN RSA PRIVATE KEY-----", True, "R"), ("text", "sk-abcdefghijklmnopqrstuvwx", True, "R8"),
    ("text", "ghp_abcdefghijklmnopqrstuvwxyz0123", True, "R8"), ("text", "AKIAIOSFODNN7EXAMPLE", True, "R8"),
    ("text", "data:image/png;base64,iVBORw0KGgo=", True, "R"), ("text", "A" * 200, True, "R8"),
    ("text", "eyJ is a prefix", False, "R8"), ("text", "task-abcdefghijklmnopqrstuvwx", False, "R8"),
    ("text", "sk-short", False, "R8"), ("text", "kb://physics#1", False, "R8"), ("text", "data: none", False, "R8"),
    ("text", "A" * 199, False, "R8"),
    ("text", "Authorization: Basic dXNlcjpwYXNz", True, "R8"), ("key", "authorization:basic QWxhZGRpbjpvcGVu", True, "R8"),
    ("text", "Authorization: basic understanding required", False, "R8"),
    ("text", "authorization: basic abc", False, "R8"), ("text", "authorization basic dXNlcjpwYXNz", False, "R8"),
]


@pytest.mark.parametrize("role,text,rejected,rule", CASES, ids=[f"{c[0]}:{c[1][:30]}" for c in CASES])
def test_rule_table(role, text, rejected, rule):
    why = tenant_safety_violation(text, role=role)
    if rejected:
        assert why is not None, f"{text!r} should be rejected by {rule}"
        assert rule in why
    else:
        assert why is None, f"{text!r} should be accepted, got {why}"


def test_every_rule_has_both_directions():
    rules = {f"R{i}" for i in range(1, 9)}
    rejected = {c[3] for c in CASES if c[2]}
    accepted = {c[3] for c in CASES if not c[2]}
    assert rules <= rejected and rules <= accepted


def _event(**kw):
    base = dict(hook_id="agent.tool", hook_scope="agent", policy_decision="warn", halt_reason="r",
                tenant_safe_explanation="Review the safety decision.")
    return SafetyEvent.from_policy_decision(**{**base, **kw})


@pytest.mark.parametrize("kw,where", [
    ({"halt_reason": "raw prompt leaked: secret=xyz"}, "halt_reason"),
    ({"tenant_safe_explanation": "Your API key sk-abcdefghijklmnopqrstuv is wrong"}, "tenant_safe_explanation"),
    ({"attributes": {"access_token": "x"}}, "attributes key"),
    ({"attributes": {"note": "Bearer abc"}}, "attributes['note']"),
    ({"evidence_refs": ("s3://bucket/user_photo",)}, "evidence_refs[0]"),
    ({"hook_id": "agent.password_check"}, "hook_id"),
])
def test_every_free_text_field_is_checked(kw, where):
    with pytest.raises(TenantSafetyError) as exc:
        _event(**kw)
    assert where in str(exc.value) and isinstance(exc.value, ValueError)


def test_anchor_false_positives_are_accepted():
    ev = _event(attributes={"rawhide": "1", "token_offset": "5"},
                tenant_safe_explanation="Response quality degrading; rephrase the prompt.")
    assert ev.attributes["rawhide"] == "1"


def test_roles_are_independent():
    # as text "probe_prompt" is fine; as a key it names prompt content (no state carries over)
    assert tenant_safety_violation("probe_prompt", role="text") is None
    assert tenant_safety_violation("probe_prompt", role="key") is not None
    with pytest.raises(TenantSafetyError):
        _event(attributes={"probe_prompt": "x"})
    assert _event(halt_reason="probe_prompt").halt_reason == "probe_prompt"


@pytest.mark.parametrize("hostile", [
    "eyJ" * 20000, "sk-" * 20000, "a" * 100000, "A" * 60000 + "!", "data:" * 20000, "-----BEGIN " * 10000,
    "prompt " * 20000, "aA" * 50000, "token_" * 20000, "=" * 100000, "x:" * 50000,
])
def test_regexes_finish_on_hostile_input(hostile):
    # Linear-time patterns: these complete quickly (a backtracking pattern would not finish).
    tenant_safety_violation(hostile, role="text")
    tenant_safety_violation(hostile, role="key")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["key", "text"]))
def test_violation_is_total_and_deterministic(text, role):
    a = tenant_safety_violation(text, role=role)
    assert a == tenant_safety_violation(text, role=role)
    assert a is None or isinstance(a, str)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="ascii"), max_size=60))
def test_prefilter_is_a_superset(text):
    # oracle: if a rule fires, the text must contain a stem (the prefilter may never hide a
    # violation), so the C++ rules (which have no prefilter) can agree with the oracle
    if ts._word_violation(ts._words(text), True) or ts._word_violation(ts._words(text), False):
        assert ts._PREFILTER_LC.search(text.lower())

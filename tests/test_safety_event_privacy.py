"""Tenant-safety validators V1..V6, S1, S2, K1..K5: each has rejected cases and accepted near-misses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import _safety_oracle as oracle
from director_fast.safety.event import SafetyEvent
from director_fast.safety.tenant import TenantSafetyError, tenant_safety_violation

# (role, text, rejected?, rule)
CASES = [
    # V1 JWT
    ("text", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", True, "V1"),
    ("text", "EYJhbGciOi.eyJzdWIiOi.", True, "V1"), ("text", "JWT expiry", False, "V1"),
    ("text", "eyJ is a prefix", False, "V1"),
    # V2 PEM private keys and bodies
    ("text", "-----BEGIN RSA PRIVATE KEY-----", True, "V2"),
    ("text", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", True, "V2"), ("text", "-----BEGIN CERTIFICATE-----", False, "V2"),
    ("text", "MIIT course notes", False, "V2"),
    # V3 vendor token formats
    ("text", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", True, "V3"), ("text", "ghp_abcdefghijklmnopqrstuvwxyz0123", True, "V3"),
    ("text", "AKIAIOSFODNN7EXAMPLE", True, "V3"), ("text", "xoxb-123456789012-abcdefghij", True, "V3"),
    ("text", "hf_abcdefghijklmnopqrstuvwxyzABCDEF", True, "V3"), ("key", "AIzaSyA1bcDEfgHIjkLMnoPQrsTUvwXYz012345", True, "V3"),
    ("text", "sk-learn-compatible-estimators-list", False, "V3"), ("text", "task-abcdefghijklmnopqrstuvwx", False, "V3"),
    ("text", "sk-short", False, "V3"), ("text", "AKIA is an AWS prefix", False, "V3"),
    # V4 passwords in URLs
    ("text", "postgres://app:hunter2@db.internal:5432/app", True, "V4"), ("text", "redis://:s3cret@cache:6379", True, "V4"),
    ("text", "https://user@example.com/x", False, "V4"), ("text", "kb://physics#1", False, "V4"),
    ("text", "ftp://anonymous:@mirror.example.org", False, "V4"),
    # V5 data: URIs and long base64
    ("text", "data:image/png;base64,iVBORw0KGgo=", True, "V5"), ("text", "A" * 200, True, "V5"),
    ("text", "data: none", False, "V5"), ("text", "A" * 199, False, "V5"),
    # V6 high-entropy runs
    ("text", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", True, "V6"),
    ("text", "session cookie Zx9_Qm2-vL8pKd4R7tYb1NwE3sHc6GjUa5", True, "V6"),
    ("text", "/usr/local/lib/python3/site-packages/director_fast/core/safety_event", False, "V6"),
    ("text", "sha256:9f86d081884c7d659a2feaea0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0", False, "V6"),
    ("text", "sha256-9f86d081884c7d659a2feaea0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0", False, "V6"),
    ("text", "123e4567-e89b-12d3-a456-426614174000", False, "V6"),
    ("text", "getUserAccountSettingsForTenantV2Handler", False, "V6"),
    # S1 secret assignments (keys matched whatever their case / spelling), bearer credentials
    ("text", "PassWord=hunter2", True, "S1"), ("text", "pwd=hunter2", True, "S1"), ("text", "pass: S3cr3t!", True, "S1"),
    ("text", "client_secret = 'abc123'", True, "S1"), ("text", "retry 2 token=hunter2hunter2", True, "S1"),
    ("text", '{"api_key": "q8Zr2vNw"}', True, "S1"), ("text", "Authorization: Basic dXNlcjpwYXNz", True, "S1"),
    ("key", "authorization:basic QWxhZGRpbjpvcGVu", True, "S1"), ("text", "Cookie: sessionid=8f2a9c1e7b", True, "S1"),
    ("text", "DSN=sentry-key-7f3a@o12.ingest", True, "S1"),
    ("text", "Bearer abc123def456ghi789", True, "S1"), ("text", "sessionid=Zx9Qm2vL8pKd4R7t", True, "S1"),
    ("text", "password reset policy", False, "S1"), ("text", "Secret Santa", False, "S1"),
    ("text", "bearer of bad news", False, "S1"), ("text", "Password: required", False, "S1"),
    ("text", "token: 5", False, "S1"), ("text", "token=17, then stopped", False, "S1"), ("text", "tokens=512", False, "S1"),
    ("text", "password=${DB_PASSWORD}", False, "S1"), ("text", "password=********", False, "S1"),
    ("text", "secret_name=prod-db", False, "S1"), ("text", "Authorization: Bearer abc", False, "S1"),
    ("text", "Authorization: basic understanding required", False, "S1"), ("text", 'session_id="mon"', False, "S1"),
    ("text", "compass=north", False, "S1"), ("text", "token_offset=5", False, "S1"),
    # S2 prompt / message content assignments
    ("text", 'messages=[{"role": "user"}]', True, "S2"), ("text", "system_prompt='You are a pirate'", True, "S2"),
    ("text", "prompt: {\"text\": 1}", True, "S2"),
    ("text", "The user prompt was ambiguous", False, "S2"), ("text", "prompt: tell me", False, "S2"),
    ("text", "prompt injection suspected", False, "S2"),
    # K1 keys naming credentials
    ("key", "password", True, "K1"), ("key", "client_secret", True, "K1"), ("key", "api_key", True, "K1"),
    ("key", "apiKey", True, "K1"), ("key", "x-api-key", True, "K1"), ("key", "authorization", True, "K1"),
    ("key", "pwd", True, "K1"), ("key", "dsn", True, "K1"), ("key", "session", True, "K1"),
    ("key", "access_token", True, "K1"), ("key", "refresh_tokens", True, "K1"), ("key", "session_cookie", True, "K1"),
    ("key", "PaSsWoRd", True, "K1"), ("key", "db_pass", True, "K1"), ("key", "password_value", True, "K1"),
    ("key", "secret_id", False, "K1"), ("key", "api_key_id", False, "K1"), ("key", "password_policy", False, "K1"),
    ("key", "token_offset", False, "K1"), ("key", "token_id", False, "K1"), ("key", "max_tokens", False, "K1"),
    ("key", "prompt_tokens", False, "K1"), ("key", "passage", False, "K1"), ("key", "bypass", False, "K1"),
    ("key", "monkey", False, "K1"), ("key", "tokenizer", False, "K1"),
    # K2 keys naming private content
    ("key", "messages", True, "K2"), ("key", "instructions", True, "K2"), ("key", "user_input", True, "K2"),
    ("key", "prompt", True, "K2"), ("key", "prompt_text", True, "K2"), ("key", "systemprompt", True, "K2"),
    ("key", "rawResponse", True, "K2"),
    ("key", "prompt_id", False, "K2"), ("key", "prompt_hash", False, "K2"), ("key", "message_count", False, "K2"),
    ("key", "input_format", False, "K2"),
    # K3 media, K4 sensor payloads, K5 raw payloads
    ("key", "image", True, "K3"), ("key", "user_photo", True, "K3"), ("key", "audio_data", True, "K3"),
    ("key", "image_count", False, "K3"), ("key", "video_duration", False, "K3"), ("key", "imagery_level", False, "K3"),
    ("key", "sensor_reading", True, "K4"), ("key", "lidar", True, "K4"),
    ("key", "sensor_id", False, "K4"), ("key", "sensory", False, "K4"),
    ("key", "raw_text", True, "K5"), ("key", "raw", True, "K5"), ("key", "payload", True, "K5"),
    ("key", "rawhide", False, "K5"), ("key", "raw_score", False, "K5"),
    # free text is not checked for words
    ("text", "sensor data", False, "K4"), ("text", "user photo attached", False, "K3"), ("text", "raw prompt", False, "K5"),
]


@pytest.mark.parametrize("role,text,rejected,rule", CASES, ids=[f"{c[0]}:{c[1][:30]}" for c in CASES])
def test_rule_table(role, text, rejected, rule):
    why = tenant_safety_violation(text, role=role)
    if rejected:
        assert why is not None, f"{text!r} should be rejected by {rule}"
        assert f"({rule})" in why, why
    else:
        assert why is None, f"{text!r} should be accepted, got {why}"
    assert why == oracle.tenant_safety_violation(text, role=role)


def test_every_rule_has_both_directions():
    rules = {f"V{i}" for i in range(1, 7)} | {"S1", "S2"} | {f"K{i}" for i in range(1, 6)}
    rejected = {c[3] for c in CASES if c[2]}
    accepted = {c[3] for c in CASES if not c[2]}
    assert rules <= rejected and rules <= accepted


def _event(**kw):
    base = dict(hook_id="agent.tool", hook_scope="agent", policy_decision="warn", halt_reason="r",
                tenant_safe_explanation="Review the safety decision.")
    return SafetyEvent.from_policy_decision(**{**base, **kw})


@pytest.mark.parametrize("kw,where", [
    ({"halt_reason": "leaked: secret=xyz123"}, "halt_reason"),
    ({"tenant_safe_explanation": "Your API key sk-Ab3dEf6hIj9kLm2nOp5qRs8t is wrong"}, "tenant_safe_explanation"),
    ({"attributes": {"access_token": "x"}}, "attributes key"),
    ({"attributes": {"note": "Bearer abc123def456ghi789"}}, "attributes['note']"),
    ({"evidence_refs": ("s3://AKIAIOSFODNN7EXAMPLE:k@bucket/x",)}, "evidence_refs[0]"),
    ({"hook_id": "agent.pwd:hunter2x"}, "hook_id"),
    ({"request_id": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig"}, "request_id"),
    ({"tenant_id": "pwd=hunter2"}, "tenant_id"),
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


@pytest.mark.parametrize("unit", [
    "password=", "a=", "x:", "://", "bearer ", "MII", "eyJa.", "-----BEGIN ", "Zx9_Qm2-", "\u0430=", "\u200b",
    "pwd: ", "{\"api_key\": ", "sk-A1b2", "k=v;", "ab:cd@", "data:x",
    # split secrets: every removed separator is a word start in the joined view
    "eyJ.", "AKIA ", "B earer ", "hooks.slack.com/services/A", "a-b.c d/e_f:g=", "pass word: x ", "Zx9 ",
])
def test_detectors_stay_linear(unit):
    # every scan is capped or starts where no earlier scan of its kind went: doubling the input
    # at most about doubles the time
    import time

    def cost(n):
        text = unit * (n // len(unit))
        t0 = time.perf_counter()
        for role in ("text", "key"):
            tenant_safety_violation(text, role=role)
        return time.perf_counter() - t0

    def ratio():
        # small and big measured in turn, so a busy machine slows both; the fastest of each
        runs = [(cost(20000), cost(80000)) for _ in range(3)]
        return min(r[0] for r in runs), min(r[1] for r in runs)

    cost(1000)
    small, big = ratio()
    if big >= 12 * small + 0.002:  # a quadratic scan is 16x every time; a preempted run is not
        small, big = ratio()
    assert big < 12 * small + 0.002, (unit, small, big)

"""Trust-boundary validators (issue 16): credential-shaped strings are rejected in every string
field of a SafetyEvent / DirectorSafetySignal, whatever their disguise; operator prose is accepted.

* SECRETS (credential-shaped values and assignments) are rejected in every field, by the
  constructors and by the payload validators;
* INNOCENT operator sentences are accepted in every free-text field;
* a Hypothesis generator applies disguises (case, zero-width characters, soft hyphens, Cyrillic /
  Greek look-alikes, fullwidth forms, embedding in a URL) to base secrets: all rejected (time budget:
  the "validators" share of tests/_fuzz.py);
* the prose of docs/*.md and of the shared seeds, sentence by sentence, is accepted;
* the generated fold table agrees with ``unicodedata`` where both know the code point.
"""

from __future__ import annotations

import random
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import _safety_oracle as oracle
from _fuzz import Deadline, fuzz_seconds
from _safety_fold_table import FOLD, UNICODE_VERSION
from director_fast import _core
from director_fast.safety import event as se
from director_fast.safety import protocol as sp
from director_fast.safety.tenant import TenantSafetyError, tenant_safety_violation
from director_fast.types.results import HaltTraceAttribution
from director_fast.errors import ValidationError

REPO = Path(__file__).resolve().parent.parent

JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
AZURE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
B64URL = "Zx9_Qm2-vL8pKd4R7tYb1NwE3sHc6GjUa5Tf"

SECRETS = [
    # key = value assignments, every spelling and case
    "password=hunter2", "PassWord=hunter2", "PASSWORD: Tr0ub4dor&3", "pwd=hunter2", "passwd=hunter2",
    "pass: S3cr3t!", "db_pass=hunter2", "DB_PASSWORD='correct horse'", '{"password": "hunter2"}',
    "secret: 7fQ2xLm9Pz", "client_secret=7fQ2xLm9Pz", "api_key=q8Zr2vNw", "x-api-key: 8c2f9a1e7b",
    "apiKey: 'abc123xyz'", "access_token=ya29xyzABC", "token=hunter2hunter2", "refresh_token: r-91x2",
    "auth=admin:hunter2", "AUTH_TOKEN=abcd1234efgh", "private_key: k3y!mat3rial", "passphrase=open sesame",
    "credentials=admin:admin123", "Cookie: sessionid=8f2a9c1e7b; csrftoken=abc",
    "Set-Cookie: session=Zx9Qm2vL8pKd4R7tYb1N; Path=/", "sessionid=Zx9Qm2vL8pKd4R7t",
    "dsn: https://key@o12.ingest.example.io/1", "DSN=postgresql://u:p4ss@h/db",
    "Authorization: Basic dXNlcjpwYXNz", "Authorization: Bearer abc123def456ghi789", "Bearer abc123def456ghi789",
    "AccountKey=" + AZURE_KEY[:44], "?sig=" + "Zx9Qm2vL8pKd4R7tYb1N", "pw: pa55w0rd",
    'messages=[{"role": "user", "content": "hi"}]', "system_prompt='You are a pirate'",
    "instructions: {\"steps\": 3}", 'user_input="What is my balance?"',
    # URL credentials
    "postgres://app:hunter2@db.internal:5432/app", "mongodb+srv://admin:Pa55word@cluster0.example.net",
    "redis://:s3cret@cache:6379/0", "https://x-access-token:abc123@github.com/o/r.git", "ftp://bob:b0b@files.example.org",
    # vendor token formats
    "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123",
    "glpat-Ab3dEf6hIj9kLm2nOp5q", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv", "sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8t", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A", "AIzaSyA1bcDEfgHIjkLMnoPQrsTUvwXYz012345",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEF", "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "ya29.a0AfH6SMBx3k9ZLm2Q7vN8pR4t",
    "shpat_0123456789abcdef0123456789abcdef", "dapi0123456789abcdef0123456789abcdef",
    # JWTs, PEM headers and bodies, bare cloud keys, base64url runs, data URIs
    JWT, "Bearer " + JWT, "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----",
    "-----BEGIN EC PRIVATE KEY-----", PEM_BODY, AWS_SECRET, AZURE_KEY, B64URL,
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==", "A1b2" * 55,
]

INNOCENT = [
    "password reset policy", "Secret Santa", "bearer of bad news", "The user prompt was ambiguous", "JWT expiry",
    "/var/lib/director/tenants/acme-corp/evidence/2024/Q3/reports/summary",
    "sha256:9f86d081884c7d659a2feaea0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0",
    "9f86d081884c7d659a2feaea0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0",
    "Review grounding evidence.", "coherence_below_threshold", "Response quality degrading; rephrase the prompt.",
    "Rotate the API key every 90 days.", "The session expired after 30 minutes of inactivity.",
    "Token budget exceeded: 4096 tokens used of 4000.", "token: 5", "tokens=512", "max_tokens=256",
    "Password: required", "Use a passphrase manager for shared credentials.", "The private key never leaves the HSM.",
    "Authorization: basic understanding of the domain is assumed.", "Bearer tokens are rotated hourly.",
    "Request 123e4567-e89b-12d3-a456-426614174000 was retried.", "kb:0123456789abcdef", "fact:3", "ctx:0",
    "chunk:4", "citation:2", "kb://physics#1", "tenant:acme:fact:12", "streaming.kernel",
    "agent.tool_call_confidence", "policy.streaming.regulated", "The secret to good retrieval is chunking.",
    "See https://example.com/docs/safety for details.", "git commit 3f1b5b9e2d1c4a7b8e9f0a1b2c3d4e5f6a7b8c9d",
    "HttpClientConnectionTimeoutV2Exception raised by the retriever",
    "Cookie banner shown; no consent recorded.", "password_policy=strict", "secret_name=prod-db",
    "session_id=\"mon\"", "Image content policy applies to uploads.", "Sensor offline since 10:42 UTC.",
    "Zürich ☃ region, naïve café résumé", "Контроль качества пройден.", "東京の評価は正常です。",
]


def test_tables_are_large_enough():
    assert len(SECRETS) >= 60 and len(INNOCENT) >= 40
    assert len(set(SECRETS)) == len(SECRETS) and len(set(INNOCENT)) == len(INNOCENT)


@pytest.mark.parametrize("text", SECRETS)
def test_secret_rejected_in_both_roles(text):
    for role in ("text", "key"):
        why = tenant_safety_violation(text, role=role)
        assert why is not None, (role, text)
        assert why == oracle.tenant_safety_violation(text, role=role)


@pytest.mark.parametrize("text", INNOCENT)
def test_innocent_accepted(text):
    assert tenant_safety_violation(text) is None
    assert oracle.tenant_safety_violation(text) is None


BASE = dict(hook_id="agent.tool", hook_scope="agent", policy_decision="warn", halt_reason="r",
            tenant_safe_explanation="Review the safety decision.")
TRACE = dict(fact_source="kb://a", retrieval_path="evidence_index.search", scorer_path="scorer.review",
             token_offset=3, threshold=0.5, causal_contribution=0.2)


def _event_fields(value: str) -> dict[str, dict]:
    """Event keyword sets that put `value` in each string field."""
    out = {name: {name: value} for name in ("request_id", "tenant_id", "hook_id", "halt_reason",
                                              "tenant_safe_explanation")}
    out["evidence_refs"] = {"evidence_refs": ("kb:1", value)}
    out["attributes value"] = {"attributes": {"note": value}}
    out["attributes key"] = {"attributes": {value: "x"}}
    for name in ("fact_source", "retrieval_path", "scorer_path"):
        out[f"trace.{name}"] = {"trace_attribution": HaltTraceAttribution(**{**TRACE, name: value})}
    return out


def _signal_fields(value: str) -> dict[str, dict]:
    return {"producer_id": {"producer_id": value}, "framework": {"framework": value},
            "extensions value": {"extensions": {"note": value}}, "extensions key": {"extensions": {value: "x"}}}


def _event(**kw) -> se.SafetyEvent:
    return se.SafetyEvent.from_policy_decision(**{**BASE, **kw}) if "trace_attribution" not in kw else \
        se.SafetyEvent(event_id=se.new_safety_event_id(), timestamp=se.utc_timestamp(), request_id="", tenant_id="",
                       **{**BASE, **kw})


@pytest.mark.parametrize("text", SECRETS)
def test_secret_rejected_in_every_field(text):
    good = _event()
    good_payload = good.to_dict()
    good_sig = sp.director_safety_signal_from_event(good, producer_id="runtime-alpha")
    sig_payload = good_sig.to_transport_dict()
    for field, kw in _event_fields(text).items():
        with pytest.raises(ValidationError):
            _event(**kw)
        payload = dict(good_payload)
        for k, v in kw.items():
            payload[k] = (v.to_dict() if hasattr(v, "to_dict") else {"fact_source": v.fact_source,
                          "retrieval_path": v.retrieval_path, "scorer_path": v.scorer_path, "token_offset": 3,
                          "threshold": 0.5, "causal_contribution": 0.2}) if k == "trace_attribution" else \
                (list(v) if isinstance(v, tuple) else v)
        with pytest.raises(ValidationError):
            se.validate_safety_event_payload(payload)
        bad_sig = {**sig_payload, "event": payload}
        with pytest.raises(ValidationError):
            sp.validate_director_safety_signal(bad_sig)
    for field, kw in _signal_fields(text).items():
        with pytest.raises(ValidationError):
            sp.director_safety_signal_from_event(good, **{"producer_id": "runtime-alpha", **kw})
        with pytest.raises(ValidationError):
            sp.validate_director_safety_signal({**sig_payload, **kw})


def test_rejection_names_the_field_and_is_a_tenant_safety_error():
    with pytest.raises(TenantSafetyError, match="request_id"):
        _event(request_id=JWT)
    with pytest.raises(TenantSafetyError, match="tenant_id"):
        _event(tenant_id="pwd=hunter2")
    with pytest.raises(TenantSafetyError, match="producer_id"):
        sp.director_safety_signal_from_event(_event(), producer_id=AWS_SECRET)
    with pytest.raises(TenantSafetyError, match="attributes key"):
        _event(attributes={"authorization": "x"})
    with pytest.raises(TenantSafetyError, match="extensions key"):
        sp.director_safety_signal_from_event(_event(), producer_id="p", extensions={"user_input": "x"})


@pytest.mark.parametrize("text", INNOCENT)
def test_innocent_accepted_in_every_free_text_field(text):
    fields = {"halt_reason": text, "tenant_safe_explanation": text}
    if len(text) <= 128:
        fields.update(request_id=text, tenant_id=text)
    for name, value in fields.items():
        ev = _event(**{name: value})
        assert se.validate_safety_event_payload(ev.to_dict()) == ev
    ev = _event(evidence_refs=(text,), attributes={"note": text})
    assert se.validate_safety_event_payload(ev.to_dict()) == ev
    ev = _event(trace_attribution=HaltTraceAttribution(**{**TRACE, "fact_source": text, "scorer_path": text}))
    assert se.validate_safety_event_payload(ev.to_dict()) == ev
    kw = {"extensions": {"note": text}}
    if len(text) <= 128:
        kw.update(producer_id=text, framework=text)
    sig = sp.director_safety_signal_from_event(ev, **{"producer_id": "p", **kw})
    assert sp.validate_director_safety_signal(sig.to_transport_dict()).to_json() == sig.to_json()


# ---- disguises ------------------------------------------------------------------------------------
# (label, value): case tricks apply to the label only (changing a token's case makes another
# string); every other disguise applies anywhere
DISGUISE_BASES = [
    ("password=", "hunter2x"), ("pwd: ", "S3cr3t!9"), ("api_key=", "'q8Zr2vNw7'"), ("passwd=", "hunter2"),
    ("client_secret: ", "7fQ2xLm9Pz"), ("pass: ", "Tr0ub4dor&3"), ("Authorization: Basic ", "dXNlcjpwYXNz"),
    ("Cookie: sessionid=", "Zx9Qm2vL8pKd4R7tYb1N"), ("AKIA", "IOSFODNN7EXAMPLE"), ("ghp_", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"),
    ("sk-proj-", "Ab3dEf6hIj9kLm2nOp5qRs8tUv"), ("xoxb-", "123456789012-AbCdEfGhIjKl"), ("", JWT),
    ("postgres://app:", "hunter2@db.internal/app"), ("-----BEGIN RSA PRIVATE KEY-----", ""), ("", AWS_SECRET),
    ("", B64URL), ("", PEM_BODY), ('{"password": ', '"hunter2"}'), ("messages=", '[{"role": "user"}]'),
]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u180e", "\u034f", "\U000e0001"]
LOOKALIKE = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445",
             "i": "\u0456", "j": "\u0458", "s": "\u0455", "y": "\u0443", "A": "\u0391", "B": "\u0392",
             "E": "\u0395", "H": "\u0397", "K": "\u039a", "M": "\u039c", "O": "\u039f", "P": "\u03a1",
             "T": "\u03a4", "X": "\u03a7", "I": "\u0399", "N": "\u039d", "Z": "\u0396"}


def test_lookalikes_fold_back():
    for latin, other in LOOKALIKE.items():
        assert oracle.fold(other) == latin == _core._safety_fold(other)
    for ch in ZERO_WIDTH + ["\u00ad"]:
        assert oracle.fold(ch) == "" == _core._safety_fold(ch)


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


@st.composite
def disguised(draw):
    label, value = draw(st.sampled_from(DISGUISE_BASES))
    kinds = draw(st.lists(st.sampled_from(["case", "zw", "shy", "lookalike", "fullwidth", "url"]),
                          min_size=1, max_size=3, unique=True))
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    if "case" in kinds:
        flips = draw(st.lists(st.booleans(), min_size=len(label), max_size=len(label)))
        label = "".join(c.swapcase() if f else c for c, f in zip(label, flips))
    text = label + value

    def sprinkle(s: str, chars: list[str]) -> str:
        out = list(s)
        for _ in range(rnd.randint(1, 4)):
            out.insert(rnd.randint(0, len(out)), rnd.choice(chars))
        return "".join(out)

    if "zw" in kinds:
        text = sprinkle(text, ZERO_WIDTH)
    if "shy" in kinds:
        text = sprinkle(text, ["\u00ad"])
    if "lookalike" in kinds:
        text = "".join(LOOKALIKE[c] if c in LOOKALIKE and rnd.random() < 0.5 else c for c in text)
    if "fullwidth" in kinds:
        text = _fullwidth(text)
    if "url" in kinds:
        text = "https://example.com/callback?next=" + text
    return text


def test_fuzz_disguised_secrets_are_rejected():
    deadline = Deadline(fuzz_seconds("validators"))
    first = 0 if settings.default.derandomize else random.getrandbits(32)
    count = [0]

    @settings(max_examples=50, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(text=disguised(), role=st.sampled_from(["text", "key"]))
    def one(text, role):
        count[0] += 1
        why = tenant_safety_violation(text, role=role)
        assert why is not None, (text, role)
        assert why == oracle.tenant_safety_violation(text, role=role)
        if role == "text":
            with pytest.raises(TenantSafetyError):
                _event(halt_reason=text[:256])

    batch = 0
    while batch == 0 or not deadline.expired():
        seed(first + batch)(one)()
        batch += 1
    assert count[0] >= 50


# ---- innocent corpus: the prose of the docs and the seeds -------------------------------------------
def _sentences(text: str):
    text = re.sub(r"```.*?```", " ", text, flags=re.S)   # code blocks are not prose
    text = re.sub(r"`[^`\n]*`", " ", text)                # nor are code spans
    for para in re.split(r"\n\s*\n", text):
        for s in re.split(r"(?<=[.!?])\s+|\n", para):
            s = s.strip()
            if s:
                yield s


def _assert_prose_accepted(paths):
    n = 0
    bad = []
    for p in paths:
        for s in _sentences(p.read_text(encoding="utf-8")):
            n += 1
            why = _core._safety_tenant_violation(s, False)
            if why is not None:
                bad.append(f"{p.name}: {why}: {s[:120]}")
    assert not bad, "\n".join(bad)
    return n


def test_docs_prose_is_accepted():
    assert _assert_prose_accepted(sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]) > 200


def test_seed_prose_is_accepted(shared):
    seeds = sorted((shared / "seeds").glob("*"))
    if not seeds:
        pytest.skip("no seeds in shared/")
    assert _assert_prose_accepted(seeds) > 50


# ---- the generated fold table ------------------------------------------------------------------------
def test_fold_table_agrees_with_unicodedata():
    checked = 0
    same_version = unicodedata.unidata_version == UNICODE_VERSION
    for cp, rep in FOLD.items():
        ch = chr(cp)
        if not same_version and unicodedata.category(ch) == "Cn":
            continue
        cat = unicodedata.category(ch)
        if 0xE0020 <= cp <= 0xE007E:
            assert rep == chr(cp - 0xE0000), hex(cp)  # tag characters spell ASCII invisibly
        elif cat in ("Cf", "Mn", "Me"):
            assert rep == "", hex(cp)
        elif cat in ("Zs", "Zl", "Zp"):
            assert rep == " ", hex(cp)
        else:
            d = "".join(c for c in unicodedata.normalize("NFKD", ch) if unicodedata.category(c) not in ("Mn", "Me"))
            if d and d != ch and d.isascii():
                assert rep == d, (hex(cp), rep, d)
                checked += 1
    assert checked > 1500
    # fullwidth ASCII, the Kelvin sign and long s fold to ASCII; CJK and Cyrillic letters without a
    # Latin look-alike do not
    assert oracle.fold("\uff50\uff41\uff53\uff53\u212a\u017f") == "passKs" == _core._safety_fold("\uff50\uff41\uff53\uff53\u212a\u017f")
    assert oracle.fold("東л") == "\x80\x80" == _core._safety_fold("東л")


def test_fold_never_changes_the_payload():
    text = "p\u0430ss\u00adword notes \uff50"
    ev = _event(halt_reason=text)
    assert ev.halt_reason == text and ev.to_dict()["halt_reason"] == text
    assert "p\\u0430ss\\u00adword notes \\uff50" in sp.director_safety_signal_from_event(ev, producer_id="p").to_json()

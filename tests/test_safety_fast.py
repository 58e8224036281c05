"""The C++ fast paths of SafetyEvent / DirectorSafetySignal against their references.

* tenant-safety validators (C++) == the Python reference (tests/_safety_oracle.py), reason text
  and detection fold included, for arbitrary and for adversarial mixes of keys, separators,
  token prefixes and look-alikes;
* each fast path (build, __post_init__, payload validation, to_dict, to_transport_dict, to_json)
  either declines or gives exactly what the Python path gives, and the public functions raise the
  same error class and message as the Python path;
* canonical_json == json.dumps(sort_keys, compact separators, ensure_ascii) byte for byte;
* ids / timestamps: format, uniqueness (also across fork), calendar arithmetic.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import _safety_oracle as oracle
from director_fast import _core
from director_fast.safety import event as se
from director_fast.safety import protocol as sp
from director_fast.safety import tenant as ts
from director_fast.types.results import HaltTraceAttribution
from director_fast.errors import ValidationError
from _concurrency import run_threads

# ---- rules -------------------------------------------------------------------------------------
VOCAB = sorted(
    {w for name in dir(oracle) if name.isupper() or name.startswith("_")
     for obj in [getattr(oracle, name)] if isinstance(obj, (frozenset, tuple))
     for w in obj if isinstance(w, str) and len(w) > 1}
    | {v[0] for v in oracle.VENDOR}
    | {"key", "keys", "token", "tokens", "raw", "Token", "API", "KEY", "accessToken", "HTTPServer",
       "eyJhbGciOi", "eyJzdWIiOi", "sk-", "sk_live_", "ghp_", "github_pat_", "glpat-", "xoxb-",
       "AKIA", "AIza", "data:", ";base64,", "Authorization", "authorization:", "Basic", "dXNlcjpwYXNz", "-----BEGIN ", "PRIVATE KEY", "RSA ", "12", "5",
       "abcdefghijklmnop", "ABCDEFGHIJKLMNOP0123", "\u017fk-", "\u212a", "\u0130", "\u0131", "Bearer", "MII", "://",
       "user:pass@", "hunter2", "S3cr3t!x", "Zx9_Qm2-vL8pKd4R7tYb1NwE3sHc6GjUa5", "${X}", "****", "[{", "{\"", "\"",
       "'", "=>", ":=", "\u0430", "\uff50", "\u00ad", "\u200b", "\U000e0070", "9f86d081884c7d659a2feaea0c55ad01",
       # webhook paths, path values, SSH keys and fingerprints, API ids, look-alike capitals / digits
       "hooks.slack.com", "/services/", "discord.com/api/webhooks/", "T00000000", "%2F", "%5c", "\\", "//", "/./",
       "/x/../", "..", "./", "~/", "/srv/", "C:\\", "fail=", "SameSite=Lax", "AAAAC3NzaC1lZDI1NTE5", "AAAAB3NzaC1yc2E",
       "SHA256:", "chatcmpl-", "msg_", "YouTube", "video", "acca0000", "AKIAIOSFODNN7EXAMPLE", "\u1d00", "\u026a",
       "\u0667", "\U0001f1e6", "\u202e"}
)
SEPS = [" ", "_", "-", ".", ":", "=", "/", "  ", "\t", "\u00a0", "\u3000", "é", "", ";", ",", "+", "1", "A", "x",
        "-----"]
CASES = [str, str.upper, str.title, str.swapcase, lambda w: w[:-1] + w[-1:].upper()]

wordy = st.lists(st.tuples(st.sampled_from(VOCAB), st.sampled_from(CASES), st.sampled_from(SEPS)), max_size=12).map(
    lambda parts: "".join(case(w) + s for w, case, s in parts)
)
texts = st.one_of(st.text(max_size=120), wordy, st.text(alphabet="aA0_-.:=/ +;,eEyYjJkKsS", max_size=80))


@settings(max_examples=1500, deadline=None)
@given(texts, st.booleans())
def test_rules_match_the_oracle(text, key):
    want = oracle.tenant_safety_violation(text, role="key" if key else "text")
    assert _core._safety_tenant_violation(text, key) == want
    assert _core._safety_fold(text) == oracle.fold(text)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="A0/+", min_size=150, max_size=260), st.sampled_from(["", "x", "=", "é"]))
def test_base64_runs_match_the_oracle(run, edge):
    for text in (run, edge + run, run + edge, run[:100] + edge + run[100:]):
        for role in ("key", "text"):
            assert ts.tenant_safety_violation(text, role=role) == oracle.tenant_safety_violation(text, role=role)


@pytest.mark.parametrize("text", [
    "eyJabcdef.ghijkl.", "xeyJabcdef.ghijkl.", "-eyJabcdef.ghijkl.", "eyJabcde.ghijkl.",
    "-----BEGIN " + "A" * 40 + "PRIVATE KEY", "-----BEGIN " + "A" * 41 + "PRIVATE KEY",
    "data:" + "x" * 100 + ";base64,", "data:" + "x" * 101 + ";base64,", "adata:x;base64,",
    "1data:x;BASE64,", "sk-" + "a" * 12, "sk-" + "a" * 11, "_sk-" + "a" * 12, ".sk-" + "a" * 12,
    "xoxr-" + "a" * 12, "xoxz-" + "a" * 12, "prompt" + " " * 8 + ":", "prompt" + " " * 9 + ":",
    "prompts=", "xprompt:", "1prompt:", "transcripts:", "COMPLETION =", "ſk-" + "a" * 12,
    "\u212aEY", "raw", "RAW", "raw_", "HTTPServer token", "token5", "5token", "max_tokens",
    "the access tokens", "Prompt\u00a0:", "prompt\u2028=", "A" * 200 + "é", "é" * 3 + "A" * 200,
    # tenth session: views without three kinds, webhook path forms, path values, joined words
    "AKIAGZ-GSYEBA_NND4YZ.0E", "https://hooks.slack.com/x/../services/" + "T0/" * 5, "hooks.slack.com/.." * 30,
    "pwd=./build now", "pwd=C:\\Users\\dev", "pass=3 fail=1", "auth=oauth2 on", "cookie: SameSite=Lax",
    "YouTube video dQw4w9WgXcQ was flagged", "x y " * 40 + "Zx9_Qm2-vL8pKd4R7tYb1NwE3sHc6GjUa5Tf",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + "Ab+/" * 60 + " u@h", "data:" + "x" * 101 + ";base64,",
])
def test_rule_edges_match_the_oracle(text):
    for role in ("key", "text"):
        assert ts.tenant_safety_violation(text, role=role) == oracle.tenant_safety_violation(text, role=role)


def _outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except ValidationError as exc:
        return (type(exc), str(exc))


@settings(max_examples=400, deadline=None)
@given(st.one_of(texts, st.text(alphabet=st.characters(max_codepoint=0x20), max_size=5) | texts.map(lambda t: t + "\x7f")),
       st.sampled_from(["key", "text"]))
def test_check_text_matches_the_oracle(text, role):
    assert _outcome(ts.check_text, text, "f", role) == _outcome(oracle.check_text, text, "f", role)


def test_tenant_safety_violation_rejects_non_str():
    with pytest.raises(ValidationError):
        ts.tenant_safety_violation(b"secret")  # type: ignore[arg-type]


# ---- SafetyEvent fast paths ------------------------------------------------------------------------
hostile_values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(2**60, 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, 1.0, 1.5, 1e12, 1.0000001, -0.0]),
    texts, st.text(max_size=5).map(lambda t: t * 200), st.lists(texts, max_size=3),
    st.tuples(texts), st.dictionaries(texts, texts, max_size=3),
    st.dictionaries(st.integers(), texts, max_size=2), st.just({"a": {"b": []}}),
    st.sampled_from(["streaming", "agent", "halt", "block", "allow", "warn", "inference_server",
                     "sevt_abc", "sevt_", "sevt_a b", "2026-11-30T01:02:03Z", "2026-11-30T01:02:03.123456789Z",
                     "2026-11-30T01:02:03.1234567890Z", "2026-02-30T24:00:00Z", "2026-11-30T23:59:60Z",
                     "a.b:c/d-e", ".x", "x" * 129, "x" * 128, "director.safety_event.v1"]),
)
EVENT_KEYS = sorted(se._PAYLOAD_KEYS)
TRACE_KEYS = sorted(se._TRACE_KEYS)


def _trace(**kw) -> HaltTraceAttribution:
    base = dict(fact_source="kb://physics#1", retrieval_path="evidence_index.search",
                scorer_path="director_fast.scorer.CoherenceScorer.review", token_offset=5,
                threshold=0.5, causal_contribution=0.2)
    return HaltTraceAttribution(**{**base, **kw})


def _event_payload(trace: bool) -> dict:
    ev = se.SafetyEvent.from_policy_decision(
        hook_id="streaming.kernel", hook_scope="streaming", policy_decision="halt",
        halt_reason="window_avg", tenant_safe_explanation="Context may be drifting.", threshold=0.5,
        observed_score=0.31, latency_ms=2, evidence_refs=("kb://physics#1", "kb://x"),
        attributes={"token_offset": "5", "policy_id": "p.1"}, request_id="req-1", tenant_id="t-1",
        trace_attribution=_trace() if trace else None,
    )
    return ev.to_dict()


def _same_event(a: se.SafetyEvent, b: se.SafetyEvent) -> None:
    assert a.to_dict() == b.to_dict() == a._to_dict_py()
    for name in EVENT_KEYS:  # the same types, too (int stays int, list becomes tuple, ...)
        assert type(getattr(a, name)) is type(getattr(b, name)), name
    if a is not b:
        assert a.attributes is not b.attributes


def _mutate(p: dict, key: str, value, drop: bool) -> dict:
    if key.startswith("trace.") and isinstance(p.get("trace_attribution"), dict):
        p["trace_attribution"][key[6:]] = value
    elif key.startswith("attr.") and isinstance(p.get("attributes"), dict):
        p["attributes"][key[5:] if not drop else value if isinstance(value, str) else 1] = "v" if drop else value
    elif key == "extra":
        p[value if isinstance(value, (str, int)) else "extra"] = 1
    elif drop:
        p.pop(key, None)
    else:
        p[key] = value
    return p


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(EVENT_KEYS + ["trace." + k for k in TRACE_KEYS] + ["attr.k", "attr.x", "extra"]),
       hostile_values, st.booleans(), st.booleans())
def test_event_payload_fast_path_matches_python(key, value, drop, trace):
    p = _mutate(_event_payload(trace), key, value, drop)
    _fast_agrees_with_python(p, _core._safety_event_from_payload, se._validate_payload_py,
                             se.validate_safety_event_payload, _same_event)


def _fast_agrees_with_python(p, fast_fn, python_fn, public_fn, same):
    """The C++ payload validator either declines ``p`` or builds what the Python path builds, and
    the public function gives the Python path's result or its exact error."""
    fast = fast_fn(p)
    ref = _outcome(python_fn, p)
    if fast is not None:
        assert ref[0] == "ok", f"fast path accepted what Python rejects: {ref}"
        same(fast, ref[1])
    public = _outcome(public_fn, p)
    if ref[0] == "ok":
        assert public[0] == "ok"
        same(public[1], ref[1])
    else:
        assert public == ref


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(EVENT_KEYS), hostile_values, max_size=16) | hostile_values)
def test_event_payload_fast_path_on_junk(junk):
    fast = _core._safety_event_from_payload(junk)
    if fast is not None:
        _same_event(fast, se._validate_payload_py(junk))


BUILD_ARGS = ["hook_id", "hook_scope", "policy_decision", "halt_reason", "tenant_safe_explanation",
              "request_id", "tenant_id", "threshold", "observed_score", "latency_ms", "evidence_refs",
              "trace_attribution", "attributes", "event_id", "timestamp"]


def _build_kwargs() -> dict:
    return dict(hook_id="agent.tool", hook_scope="agent", policy_decision="warn", halt_reason="low confidence",
                tenant_safe_explanation="Review the tool call.", request_id="r", tenant_id="t", threshold=0.5,
                observed_score=0.2, latency_ms=1.5, evidence_refs=["kb://a"], trace_attribution=None,
                attributes={"tool": "search"}, event_id="sevt_fixed", timestamp="2026-11-30T01:02:03.5Z")


def _slow_build(kw: dict):
    # the constructor with its C++ check disabled: the pure Python reference of __post_init__
    saved = se._post_init_fast
    se._post_init_fast = lambda self: False
    try:
        return _outcome(lambda: se.SafetyEvent(
            event_id=kw["event_id"] or "sevt_generated", timestamp=kw["timestamp"] or "2026-11-30T00:00:00Z",
            request_id=kw["request_id"], tenant_id=kw["tenant_id"], hook_id=kw["hook_id"],
            hook_scope=kw["hook_scope"], policy_decision=kw["policy_decision"], halt_reason=kw["halt_reason"],
            threshold=kw["threshold"], observed_score=kw["observed_score"], latency_ms=kw["latency_ms"],
            evidence_refs=kw["evidence_refs"], tenant_safe_explanation=kw["tenant_safe_explanation"],
            trace_attribution=kw["trace_attribution"],
            attributes=kw["attributes"] if kw["attributes"] is not None else {}))
    finally:
        se._post_init_fast = saved


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(BUILD_ARGS + ["attr.k", "attr.x"]), st.one_of(hostile_values, st.just(_trace())),
       st.booleans())
def test_build_and_post_init_fast_paths_match_python(key, value, drop):
    kw = _build_kwargs()
    if key.startswith("attr."):
        kw = _mutate({**kw, "attributes": dict(kw["attributes"])}, key, value, drop)
    else:
        kw[key] = value
    ref = _slow_build(kw)
    fast = se._build_fast(*(kw[k] for k in ["event_id", "timestamp", "request_id", "tenant_id", "hook_id",
                                            "hook_scope", "policy_decision", "halt_reason", "threshold",
                                            "observed_score", "latency_ms", "evidence_refs",
                                            "tenant_safe_explanation", "trace_attribution", "attributes"]))
    if fast is not None:
        assert ref[0] == "ok", f"fast build accepted what Python rejects: {ref}"
        if kw["event_id"] and kw["timestamp"]:
            _same_event(fast, ref[1])
    # the public path (C++ first) gives exactly what the Python checks give
    if kw["event_id"] and kw["timestamp"]:
        pub = _outcome(lambda: se.SafetyEvent.from_policy_decision(**kw))
        if ref[0] == "ok":
            assert pub[0] == "ok"
            _same_event(pub[1], ref[1])
        else:
            assert pub == ref


def test_generated_ids_and_timestamps_in_fast_build():
    ev = se.SafetyEvent.from_policy_decision(**{**_build_kwargs(), "event_id": None, "timestamp": ""})
    assert re.fullmatch("sevt_[0-9a-f]{32}", ev.event_id)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", ev.timestamp)


def test_subclass_uses_the_constructor():
    class Sub(se.SafetyEvent):
        __slots__ = ()

    ev = Sub.from_policy_decision(**_build_kwargs())
    assert type(ev) is Sub and ev.evidence_refs == ("kb://a",)


# ---- DirectorSafetySignal fast paths -------------------------------------------------------------
SIGNAL_KEYS = sorted(sp._TOP_KEYS)


def _signal_payload(trace: bool) -> dict:
    ev = se.validate_safety_event_payload(_event_payload(trace))
    sig = sp.director_safety_signal_from_event(ev, producer_id="runtime-alpha", framework="generic-agent",
                                               extensions={"region": "eu-1"})
    return sig.to_transport_dict()


def _same_signal(a: sp.DirectorSafetySignal, b: sp.DirectorSafetySignal) -> None:
    assert a.to_transport_dict() == b.to_transport_dict() == a._to_transport_dict_py()
    assert a.to_json() == b.to_json()
    _same_event(a.event, b.event)


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(SIGNAL_KEYS + ["event." + k for k in EVENT_KEYS] + ["interop." + k for k in sorted(sp._INTEROP_KEYS)]
                       + ["privacy." + k for k in sorted(sp._PRIVACY_KEYS)] + ["ext.k", "ext.x"]),
       st.one_of(hostile_values, st.just(list(sp.REDACTION_REQUIRED)), st.just(tuple(sp.REDACTION_REQUIRED)),
                 st.sampled_from(["informational", "advisory", "terminal", "tenant_safe", 2, 2.0, 2.5, False,
                                  sp.DIRECTOR_SAFETY_PROTOCOL_VERSION, sp.DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF,
                                  "dsp_abc", "dsp_"])),
       st.booleans(), st.booleans())
def test_signal_payload_fast_path_matches_python(key, value, drop, trace):
    p = _signal_payload(trace)
    head, _, tail = key.partition(".")
    sub = {"event": "event", "interop": "interoperability", "privacy": "privacy", "ext": "extensions"}.get(head)
    if sub and tail:
        target = p[sub]
        if drop:
            target.pop(tail, None)
        else:
            target[tail] = value
    elif drop:
        p.pop(key, None)
    else:
        p[key] = value
    _fast_agrees_with_python(p, _core._safety_signal_from_payload, sp._validate_signal_py,
                             sp.validate_director_safety_signal, _same_signal)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["signal_id", "emitted_at", "producer_id", "framework", "schema_ref", "extensions", "event"]),
       hostile_values)
def test_signal_build_fast_path_matches_constructor(key, value):
    ev = se.validate_safety_event_payload(_event_payload(False))
    kw = dict(signal_id="dsp_x", emitted_at="2026-11-30T01:02:03Z", producer_id="runtime-alpha",
              framework="generic-agent", event=ev, schema_ref=sp.DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF,
              extensions={"region": "eu-1"})
    kw[key] = value
    # the fast build generates a missing / empty id or timestamp, as director_safety_signal_from_event does
    ctor_kw = {**kw, "signal_id": kw["signal_id"] or "dsp_generated",
               "emitted_at": kw["emitted_at"] or "2026-11-30T00:00:00Z",
               "extensions": kw["extensions"] if kw["extensions"] is not None else {}}
    saved = sp._signal_post_init_fast
    sp._signal_post_init_fast = lambda self: False
    try:
        ref = _outcome(lambda: sp.DirectorSafetySignal(**ctor_kw))
    finally:
        sp._signal_post_init_fast = saved
    fast = sp._signal_build_fast(kw["signal_id"], kw["emitted_at"], kw["producer_id"], kw["framework"],
                                 kw["event"], kw["schema_ref"], kw["extensions"])
    if fast is not None:
        assert ref[0] == "ok"
        if kw["signal_id"] and kw["emitted_at"]:
            _same_signal(fast, ref[1])
    pub = _outcome(lambda: sp.DirectorSafetySignal(**ctor_kw))
    assert pub[0] == ref[0] and (pub[0] == "ok" or pub == ref)


# ---- canonical JSON --------------------------------------------------------------------------------
json_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-2**200, 2**200),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(), st.text(alphabet="\"\\\x00\x1f\x7f\u2028\ud800\U0001f600é"))
json_trees = st.recursive(json_leaves, lambda c: st.lists(c, max_size=4) | st.tuples(c, c)
                          | st.dictionaries(st.text(max_size=6), c, max_size=5), max_leaves=30)


def _dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


@settings(max_examples=800, deadline=None)
@given(json_trees)
def test_canonical_json_is_byte_identical_to_json_dumps(obj):
    assert _core.canonical_json(obj) == _dumps(obj)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.floats(-1e-3, 1e-3), st.floats(1e14, 1e18),
                 st.integers(-2**53, 2**53).map(float), st.integers(0, 2**64 - 1).map(lambda b: __import__("struct").unpack(
                     "<d", b.to_bytes(8, "little"))[0]).filter(math.isfinite)))
def test_float_repr_matches_python(x):
    assert _core.canonical_json(x) == repr(x) == json.dumps(x)


@pytest.mark.parametrize("x", [0.0, -0.0, 1.0, 0.1, 0.5, 0.31, 1e16, 1e15, 9999999999999998.0, 1e17, 1e-4, 1e-5,
                               1.5e-05, 0.00012, 123456789012345680.0, 5e-324, 2.2250738585072014e-308,
                               1.7976931348623157e308, -1.7976931348623157e308, 2.0**-1074, 1 / 3, 2 / 3, 100.0,
                               1e22, 1e23, 9007199254740993.0, 0.30000000000000004])
def test_float_repr_edges(x):
    assert _core.canonical_json(x) == repr(x)


@pytest.mark.parametrize("x", [float("nan"), float("inf"), -float("inf")])
def test_canonical_json_rejects_non_finite(x):
    with pytest.raises(ValueError):
        _core.canonical_json({"a": [x]})


@pytest.mark.parametrize("obj", [{1: 2}, {"a": object()}, {"a": {1.5}}, b"x"])
def test_canonical_json_rejects_other_types(obj):
    with pytest.raises(TypeError):
        _core.canonical_json(obj)


def test_canonical_json_deep_and_cyclic():
    deep: list = []
    cur = deep
    for _ in range(300):
        cur.append([])
        cur = cur[0]
    with pytest.raises(ValidationError):
        _core.canonical_json(deep)
    # exactly 256 nested containers are accepted, 257 rejected, empty or not
    for inner in ([], {}, [1], {"a": "b"}, ()):
        for levels, ok in ((256, True), (257, False)):
            obj = inner
            for _ in range(levels - 1):
                obj = [obj]
            if ok:
                assert _core.canonical_json(obj) == json.dumps(obj, sort_keys=True, separators=(",", ":"))
            else:
                with pytest.raises(ValidationError):
                    _core.canonical_json(obj)
    cyc: dict = {}
    cyc["a"] = cyc
    with pytest.raises(ValidationError):
        _core.canonical_json(cyc)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40).filter(lambda t: ts.tenant_safety_violation(t) is None and t.strip()
                                    and not ts._CTRL.search(t)),
       st.floats(0, 1), st.integers(0, 10**12), st.booleans())
def test_signal_json_and_dicts_match_the_python_builders(text, score, latency, trace):
    ev = se.SafetyEvent.from_policy_decision(
        hook_id="h", hook_scope="agent", policy_decision="block", halt_reason=text[:256],
        tenant_safe_explanation=text, observed_score=score, latency_ms=latency, evidence_refs=[text[:500]],
        attributes={"note": text}, trace_attribution=_trace(fact_source=text) if trace else None)
    sig = sp.director_safety_signal_from_event(ev, producer_id="p", extensions={"n": text})
    assert ev.to_dict() == ev._to_dict_py()
    assert sig.to_transport_dict() == sig._to_transport_dict_py()
    assert sig.to_json() == _dumps(sig._to_transport_dict_py())
    assert sp.DirectorSafetySignal.from_json(sig.to_json()).to_json() == sig.to_json()


# ---- ids, timestamps, threads ----------------------------------------------------------------------
def test_ids_are_unique_hex_and_differ_across_fork():
    ids = {se.new_safety_event_id() for _ in range(5000)} | {sp.new_director_safety_signal_id() for _ in range(5000)}
    assert len(ids) == 10000
    assert all(re.fullmatch("(sevt|dsp)_[0-9a-f]{32}", i) for i in ids)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report its next id
        os.write(w, se.new_safety_event_id().encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    child = os.read(r, 64).decode()
    os.close(r)
    assert child != se.new_safety_event_id() and re.fullmatch("sevt_[0-9a-f]{32}", child)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**63 - 1))
def test_timestamp_formatting_matches_datetime(ns):
    want = (dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=ns // 1000)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    got = _core._safety_format_timestamp(ns)
    assert got == want and se._TIMESTAMP.fullmatch(got)


def test_utc_timestamp_is_now():
    stamp = se.utc_timestamp()
    parsed = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.timezone.utc)
    assert abs((dt.datetime.now(dt.timezone.utc) - parsed).total_seconds()) < 5


def test_fast_paths_from_many_threads():
    payload = _signal_payload(True)

    def work():
        for _ in range(300):
            sig = sp.validate_director_safety_signal(payload)
            assert sig.to_json() == _dumps(payload) and se.new_safety_event_id() != se.new_safety_event_id()

    assert not run_threads(work)


def test_every_latin1_code_point_at_every_position():
    # the word-at-a-time (8 code units) scans for control characters and JSON escapes
    for length in (1, 7, 8, 9, 16, 17, 23):
        for pos in range(length):
            for cp in range(256):
                text = "a" * pos + chr(cp) + "b" * (length - pos - 1)
                assert _outcome(ts.check_text, text, "f", "text") == _outcome(oracle.check_text, text, "f", "text")
                assert _core.canonical_json(text) == json.dumps(text)


def test_entry_points_keep_the_python_call_forms():
    p = _event_payload(False)
    assert se.validate_safety_event_payload(payload=p).to_dict() == se.validate_safety_event_payload(p).to_dict()
    ev = se.validate_safety_event_payload(p)
    a = sp.director_safety_signal_from_event(ev, producer_id="p", signal_id="dsp_1", emitted_at="2026-11-30T00:00:00Z")
    b = sp.director_safety_signal_from_event(event=ev, producer_id="p", signal_id="dsp_1", emitted_at="2026-11-30T00:00:00Z")
    assert a.to_json() == b.to_json() and a.framework == "generic"
    t = a.to_transport_dict()
    assert sp.validate_director_safety_signal(payload=t).to_json() == a.to_json()
    with pytest.raises(TypeError):
        sp.director_safety_signal_from_event(ev)  # producer_id is required
    with pytest.raises(TypeError):
        sp.director_safety_signal_from_event(ev, producer_id="p", bogus=1)
    with pytest.raises(TypeError):
        se.validate_safety_event_payload()
    with pytest.raises(ValidationError, match="producer_id"):
        sp.director_safety_signal_from_event(ev, producer_id="")
    with pytest.raises(ValidationError, match="SafetyEvent.halt_reason"):
        se.validate_safety_event_payload({**p, "halt_reason": "client_secret=hunter2"})


@pytest.mark.parametrize("text", ["x" * 10000, "é" * 5000, "\U0001f600" * 5000, 'a"b\\c\n' * 3000,
                                  "\ud800" * 5000 + "z", "x" * 4095 + "\U0001f600" * 3])
def test_canonical_json_long_strings(text):
    # strings longer than one 4096-code-unit output block, escapes at block edges
    assert _core.canonical_json([text, {"k": text}]) == _dumps([text, {"k": text}])


def test_public_functions_and_objects_pickle():
    import pickle

    for f in (se.validate_safety_event_payload, sp.validate_director_safety_signal,
              sp.director_safety_signal_from_event, se.SafetyEvent.from_policy_decision, se.SafetyEvent.to_dict):
        assert pickle.loads(pickle.dumps(f)) is f or pickle.loads(pickle.dumps(f)) == f
    ev = se.validate_safety_event_payload(_event_payload(True))
    sig = sp.director_safety_signal_from_event(ev, producer_id="p")
    assert pickle.loads(pickle.dumps(ev)) == ev
    assert pickle.loads(pickle.dumps(sig)).to_json() == sig.to_json()
    assert se.validate_safety_event_payload.__module__ == "director_fast.safety.event"


def test_tampered_instances_raise_type_errors_not_crashes():
    # Slots rewritten behind the frozen guard (or by a crafted pickle) must give TypeError from the
    # C++ serialisers, never a crash or SystemError.
    import pytest as _pt

    from director_fast.safety.event import SafetyEvent
    from director_fast.safety.protocol import director_safety_signal_from_event

    def fresh():
        ev = SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="warn",
                                              halt_reason="r", tenant_safe_explanation="e")
        return ev, director_safety_signal_from_event(ev, producer_id="p")

    for bad in (None, 5, "x"):
        ev, sig = fresh()
        object.__setattr__(sig, "event", bad)
        for call in (sig.to_json, sig.to_transport_dict):
            with _pt.raises(TypeError, match="not a SafetyEvent"):
                call()
    for slot, bad in (("attributes", None), ("attributes", [1]), ("evidence_refs", None)):
        ev, sig = fresh()
        object.__setattr__(ev, slot, bad)
        for call in (ev.to_dict, sig.to_json, sig.to_transport_dict):
            with _pt.raises(TypeError, match=slot):
                call()
    ev, sig = fresh()
    object.__setattr__(sig, "extensions", None)
    for call in (sig.to_json, sig.to_transport_dict):
        with _pt.raises(TypeError, match="extensions"):
            call()


# ---- verified-string cache (bind_safety.cpp: str objects that passed a check are remembered) ----
_BASE = dict(hook_id="h", hook_scope="streaming", policy_decision="halt", halt_reason="r",
             tenant_safe_explanation="e")


def _role_outcome(role, s):
    """'ok' or the error (class, message) of building an event with `s` in one field role."""
    kw = dict(_BASE)
    if role == "attr_value":
        kw["attributes"] = {"k": s}
    elif role == "attr_key":
        kw["attributes"] = {s: "v"}
    elif role == "evidence_ref":
        kw["evidence_refs"] = (s,)
    else:  # halt_reason, tenant_safe_explanation, hook_id, request_id, tenant_id
        kw[role] = s
    try:
        ev = se.SafetyEvent.from_policy_decision(**kw)
        se.validate_safety_event_payload(ev.to_dict())
    except ValidationError as exc:
        return type(exc).__name__, str(exc)
    return "ok"


_ROLES = ["attr_value", "attr_key", "evidence_ref", "halt_reason", "tenant_safe_explanation", "hook_id",
          "request_id", "tenant_id"]


def test_a_string_accepted_in_one_role_is_still_checked_in_another():
    p = "".join(["pro", "mpt"])  # one object: fine as text, a prompt-naming attribute key (R4)
    assert _role_outcome("attr_value", p) == "ok"
    assert _role_outcome("halt_reason", p) == "ok"
    assert _role_outcome("attr_key", p)[0] == "TenantSafetyError"
    h = "".join(["a b", "c"])  # valid text, not a hook id / attribute key (space)
    assert _role_outcome("halt_reason", h) == "ok"
    assert _role_outcome("hook_id", h)[0] == "ValidationError"
    assert _role_outcome("attr_key", h)[0] == "ValidationError"


@settings(max_examples=300, deadline=None)
@given(texts, st.permutations(_ROLES))
def test_verified_cache_never_changes_a_verdict(text, roles):
    # The same str object, checked in every role in a random order (each pass is remembered per
    # object and role), gets exactly the verdict a never-seen equal copy gets.
    for role in roles:
        fresh = (text + "\x00")[:-1]  # a new object of the same content (len >= 2)
        assert _role_outcome(role, text) == _role_outcome(role, fresh), role


def test_verified_cache_survives_churn():
    # far more distinct strings than cache slots; verdicts stay right and memory is bounded
    for i in range(3000):
        good = f"policy.value.{i}"
        bad = f"password={i}x{i}"
        assert _role_outcome("attr_value", good) == "ok"
        assert _role_outcome("halt_reason", bad)[0] == "TenantSafetyError"


# ---- hostile inputs found by review (str-subclass keys, subclasses, raising dunders) -----------
_UAF_SCRIPT = r'''
from director_fast.safety.event import SafetyEvent, validate_safety_event_payload
from director_fast.safety.protocol import director_safety_signal_from_event, validate_director_safety_signal
d = SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="halt",
    halt_reason="r", tenant_safe_explanation="e").to_dict()
calls = [0]
keep = []
class K(str):
    __hash__ = str.__hash__
    def __eq__(self, o):
        calls[0] += 1
        if calls[0] == 2:
            d["attributes"] = {}
            d["evidence_refs"] = ["b"]
            keep.extend(bytearray(b"\xff" * 3000) for _ in range(200))
            keep.append(["INJECTED"])
        return str.__eq__(self, o)
d[K("schema_version")] = d.pop("schema_version")
d["attributes"] = {f"k{i}": f"v{i}" for i in range(40)}
d["evidence_refs"] = ["a"]
ev = validate_safety_event_payload(d)
assert ev.evidence_refs in (("a",), ("b",)), ev.evidence_refs
assert len(ev.attributes) in (0, 40)
p = director_safety_signal_from_event(ev, producer_id="p").to_transport_dict()
io = p["interoperability"]
io["severity"] = "".join(["term", "inal"])
calls[0] = 0
class K2(str):
    __hash__ = str.__hash__
    def __eq__(self, o):
        calls[0] += 1
        if calls[0] == 2:
            io["severity"] = "advisory"
            keep.append("".join(["term", "inal"]))
        return str.__eq__(self, o)
io[K2("evidence_ref_count")] = io.pop("evidence_ref_count")
try:
    validate_director_safety_signal(p)
except ValueError:
    pass
print("survived")
'''


def test_str_subclass_keys_that_mutate_the_payload_do_not_crash():
    # a key whose __eq__ replaces values during the lookups used to free values the C++ path
    # held as borrowed references (segfault / injected values); keys must be exact str there
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _UAF_SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "survived" in out.stdout, out.stderr[-2000:]


def test_trace_subclass_with_property_fields_is_checked_through_the_property():
    class T(HaltTraceAttribution):
        __slots__ = ()

        @property
        def fact_source(self):
            return "password=hunter2"

    t = object.__new__(T)
    for name, val in dict(fact_source="kb://a", retrieval_path="r", scorer_path="s", token_offset=1,
                          threshold=0.5, causal_contribution=0.1).items():
        getattr(HaltTraceAttribution, name).__set__(t, val)
    with pytest.raises(ValidationError, match="fact_source"):
        se.SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="halt",
                                            halt_reason="r", tenant_safe_explanation="e", trace_attribution=t)


def test_keyboard_interrupt_from_payload_code_propagates():
    d = se.SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="halt",
                                            halt_reason="r", tenant_safe_explanation="e").to_dict()

    class K(str):
        __hash__ = str.__hash__

        def __eq__(self, o):
            raise KeyboardInterrupt

    d[K("schema_version")] = d.pop("schema_version")
    with pytest.raises(KeyboardInterrupt):
        se.validate_safety_event_payload(d)


class _BadRepr:
    def __repr__(self):
        raise RuntimeError("repr")

    def __float__(self):
        raise RuntimeError("float")


class _BadClass:
    @property
    def __class__(self):
        raise RuntimeError("__class__")


class _BadMap(Mapping):
    def __getitem__(self, k):
        raise RuntimeError("getitem")

    def __iter__(self):
        raise RuntimeError("iter")

    def __len__(self):
        raise RuntimeError("len")


@pytest.mark.parametrize("make_bad", [_BadRepr, _BadClass, _BadMap])
@pytest.mark.parametrize("field", ["threshold", "halt_reason", "attributes", "evidence_refs", "trace_attribution",
                                   "event_id"])
def test_builders_raise_only_validation_errors_on_hostile_arguments(make_bad, field):
    bad = make_bad()
    kw = dict(hook_id="h", hook_scope="agent", policy_decision="halt", halt_reason="r", tenant_safe_explanation="e")
    kw[field] = bad
    with pytest.raises(ValidationError):
        se.SafetyEvent.from_policy_decision(**kw)
    ev = se.SafetyEvent.from_policy_decision(hook_id="h", hook_scope="agent", policy_decision="halt",
                                             halt_reason="r", tenant_safe_explanation="e")
    for extra in ({"extensions": bad}, {"producer_id": bad}):
        with pytest.raises(ValidationError):
            sp.director_safety_signal_from_event(ev, **{"producer_id": "p", **extra})
    with pytest.raises(ValidationError):
        sp.director_safety_signal_from_event(bad, producer_id="p")

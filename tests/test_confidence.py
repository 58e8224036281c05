"""Pre-dispatch tool-input confidence (seed 004, issue 7)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.diagnostics.confidence import (
    ABSTAIN_THRESHOLD,
    Report,
    evaluate,
    evaluate_tool_call,
    is_placeholder,
)
from director_fast.errors import ConfigError, InputTypeError, ValidationError
from _concurrency import run_threads

WEAK = [
    None,
    "",
    "   ",
    "\t\n",
    "TODO",
    "todo",
    "FIXME",
    "TBD",
    "XXX",
    "TODO: fill in the address",
    "fixme - later",
    "TODO later",
    "<TODO>",
    "N/A",
    "null",
    "None",
    "undefined",
    "placeholder",
    "changeme",
    "xxx-xxx-xxxx",
    "(xxx) xxx-xxxx",
    "XXXX XXXX",
    "...",
    "…",
    "???",
    "<email>",
    "<your name here>",
    "Dear <NAME>, welcome",
    "{{user_email}}",
    "Hello {{ name }}",
    "${API_URL}/v1",
    "[insert name]",
    "[Your Company]",
    "your_api_key",
    "YOUR_API_KEY",
    "your-email",
    "your name here",
    "insert email here",
    "enter value",
    "user@example.com",
    "https://example.org/path",
    "www.example.net",
    "api.service.example",
    "foo",
    "BAR",
    "baz",
    "foobar",
    "lorem ipsum",
    "Lorem ipsum dolor sit amet",
    "string",
    "String",
    "integer",
    "int",
    "number",
    "float",
    "boolean",
    float("nan"),
    b"",
    [],
    {},
    (),
    ["TODO", ""],
    {"a": "", "b": None},
    {"user": {"email": "you@example.com", "name": "<name>"}},
]

NOT_WEAK = [
    "todo-list-app",
    "Todo list for Monday",
    "tbd-service",
    0,
    0.0,
    -1,
    "0",
    False,
    True,
    "an example of the problem",
    "example",
    "string theory",
    "foo fighters tour",
    "barcelona",
    "x",
    "xx",
    "xylophone",
    "Zürich",
    "alice@company.io",
    "https://docs.python.org",
    "your order is ready",
    "My Project",
    "a < b > c",
    "-",
    "+",
    "<p>hi</p>",
    "1.5",
    1.5,
    ["a", ""],
    {"a": 1, "b": None},
    b"data",
    "Lorem",
    "none of the above apply",
]


@pytest.mark.parametrize("value", WEAK, ids=repr)
def test_placeholder_table_weak(value):
    assert is_placeholder(value) is True


@pytest.mark.parametrize("value", NOT_WEAK, ids=repr)
def test_placeholder_table_not_weak(value):
    assert is_placeholder(value) is False


def test_cyclic_container_does_not_recurse_forever():
    a: list = ["TODO"]
    a.append(a)
    assert is_placeholder(a) is True
    b: list = ["real"]
    b.append(b)
    assert is_placeholder(b) is False


def test_score_known_answers():
    r = evaluate({"a": "x", "b": "TODO", "user": {"email": "a@b.io"}}, ["a", "b", "c", "user.email"])
    assert r.score == 0.5 and r.missing_keys == ("c",) and r.weak_keys == ("b",)
    assert not r.should_abstain()  # 0.5 is not below 0.5
    assert "c" in r.reason and "b" in r.reason
    r = evaluate({"a": ""}, ["a", "b"])
    assert r.score == 0.0 and r.should_abstain()
    r = evaluate({"a": "real", "opt": "TODO"}, ["a"])
    assert r.score == 1.0 and r.weak_keys == () and not r.should_abstain()


def test_no_required_keys_is_one():
    assert evaluate({}, []).score == 1.0
    assert evaluate({"x": None}, ()).score == 1.0
    assert evaluate({}, []).reason == "no required keys"


def test_duplicates_in_required_count_once():
    r = evaluate({"a": "x"}, ["a", "b", "b"])
    assert r.score == 0.5 and r.missing_keys == ("b",)


def test_dotted_paths_and_literal_precedence():
    params = {"user": {"email": "a@b.io", "tags": ["x", "<tag>"]}, "a.b": "literal"}
    r = evaluate(params, ["user.email", "user.tags.0", "user.tags.1", "user.tags.9", "a.b", "user.x"])
    assert r.missing_keys == ("user.tags.9", "user.x")
    assert r.weak_keys == ("user.tags.1",)
    params = {"items": [{"sku": "A1"}, {"sku": "TBD"}]}
    r = evaluate(params, ["items.0.sku", "items.1.sku", "items.x.sku", "items.0.sku.deep"])
    assert r.weak_keys == ("items.1.sku",)
    assert r.missing_keys == ("items.x.sku", "items.0.sku.deep")


def test_should_abstain_threshold():
    r = Report(score=0.4)
    assert ABSTAIN_THRESHOLD == 0.5
    assert r.should_abstain() and not r.should_abstain(0.4) and r.should_abstain(0.41)
    for bad in (-0.1, 1.5, float("nan"), "0.5", True):
        with pytest.raises(ConfigError) as exc:
            r.should_abstain(bad)  # type: ignore[arg-type]
        assert exc.value.field == "threshold"


def test_evaluate_input_errors():
    with pytest.raises(InputTypeError):
        evaluate([("a", 1)], ["a"])  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        evaluate({"a": 1}, "a")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match=r"required\[1\]"):
        evaluate({"a": 1}, ["a", 2])  # type: ignore[list-item]


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(list("abcdefg")),
        st.one_of(st.none(), st.text(max_size=8), st.integers(), st.sampled_from(["TODO", "x1"])),
    ),
    st.lists(st.sampled_from(list("abcdefgh")), max_size=8),
)
def test_score_formula_property(params, required):
    r = evaluate(params, required)
    req = list(dict.fromkeys(required))
    assert 0.0 <= r.score <= 1.0
    if not req:
        assert r.score == 1.0
        return
    missing = [k for k in req if k not in params]
    weak = [k for k in req if k in params and is_placeholder(params[k])]
    assert list(r.missing_keys) == missing and list(r.weak_keys) == weak
    assert Fraction(r.score).limit_denominator(100) == Fraction(len(req) - len(missing) - len(weak), len(req))
    assert r.should_abstain() == (r.score < 0.5)


# ------------------------------------------------------------------ JSON-Schema tool calls

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name", "examples": ["Paris"]},
        "unit": {"type": "string", "enum": ["string", "c", "f"], "default": "c"},
        "days": {"type": "integer", "default": 3},
        "user": {
            "type": "object",
            "properties": {"email": {"type": "string"}, "name": {"type": "string"}},
            "required": ["email"],
        },
        "note": {"type": "string"},
    },
    "required": ["city", "unit", "user"],
}

OPENAI = {"type": "function", "function": {"name": "weather", "parameters": WEATHER}}
OPENAI_LEGACY = {"name": "weather", "parameters": WEATHER}
ANTHROPIC = {"name": "weather", "description": "Get weather", "input_schema": WEATHER}


@pytest.mark.parametrize("tool", [OPENAI, OPENAI_LEGACY, ANTHROPIC, WEATHER])
def test_tool_call_shapes(tool):
    args = {"city": "Lyon", "unit": "f", "user": {"email": "a@b.io"}}
    r = evaluate_tool_call(tool, args)
    assert r.score == 1.0 and r.missing_keys == () and r.weak_keys == ()
    r = evaluate_tool_call(tool, json.dumps(args))
    assert r.score == 1.0


def test_tool_call_schema_default_examples_and_description_are_weak():
    args = {"city": "Paris", "unit": "c", "user": {"email": "a@b.io"}}
    r = evaluate_tool_call(OPENAI, args)
    assert r.weak_keys == ("city", "unit")  # example value, default value
    assert r.score == pytest.approx(1 / 3)
    r = evaluate_tool_call(OPENAI, {"city": "city name", "unit": "f", "user": {"email": "x@y.z"}})
    assert r.weak_keys == ("city",)  # copied the description


def test_tool_call_enum_overrides_heuristics_and_nested_required():
    # "string" is a literal type name, but here it is one of the enum's real values
    r = evaluate_tool_call(OPENAI, {"city": "Lyon", "unit": "string", "user": {"name": "A"}})
    assert r.weak_keys == () and r.missing_keys == ("user.email",)
    assert r.score == pytest.approx(2 / 3)
    # a missing parent makes its required members missing
    r = evaluate_tool_call(OPENAI, {"city": "Lyon", "unit": "f"})
    assert r.missing_keys == ("user.email",)
    # optional keys are not scored, even when placeholder-like or equal to their default
    r = evaluate_tool_call(
        OPENAI, {"city": "Lyon", "unit": "f", "user": {"email": "a@b.io"}, "days": 3, "note": "TODO"}
    )
    assert r.score == 1.0


def test_tool_call_own_type_name_is_weak():
    tool = {"name": "t", "input_schema": {"type": "object", "properties": {"n": {"type": "array"}},
                                          "required": ["n"]}}  # fmt: skip
    assert evaluate_tool_call(tool, {"n": "array"}).weak_keys == ("n",)
    assert evaluate_tool_call(tool, {"n": [1]}).weak_keys == ()


def test_tool_call_no_parameters():
    assert evaluate_tool_call({"name": "ping"}, {}).score == 1.0
    assert evaluate_tool_call({"type": "function", "function": {"name": "ping"}}, "{}").score == 1.0


@pytest.mark.parametrize("args", ["[1, 2]", "3", '"x"', [1, 2], 3, None, "null"])
def test_tool_call_arguments_not_an_object(args):
    with pytest.raises(InputTypeError, match="JSON object"):
        evaluate_tool_call(OPENAI, args)


def test_tool_call_invalid_json_and_bad_schema():
    with pytest.raises(ValidationError, match="not valid JSON"):
        evaluate_tool_call(OPENAI, "{city: Paris")
    with pytest.raises(InputTypeError):
        evaluate_tool_call("schema", {})  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        evaluate_tool_call({"type": "object", "required": "city"}, {})
    with pytest.raises(ValidationError):
        evaluate_tool_call({"type": "object", "properties": [], "required": ["a"]}, {"a": 1})
    with pytest.raises(ValidationError):
        evaluate_tool_call({"description": "nothing"}, {})
    with pytest.raises(ValidationError):
        evaluate_tool_call({"name": "x", "parameters": "nope"}, {})


# ------------------------------------------------------------------ events, serialisation, threads


def test_safety_events_and_privacy():
    args = {"api_url": "https://internal.corp/v1", "user": {"email": "TODO"}}
    tool = {"name": "t", "input_schema": {"type": "object", "properties": {
        "api_url": {"type": "string"}, "user": {"type": "object", "required": ["email"]},
        "password_hint": {"type": "string"}}, "required": ["api_url", "user", "password_hint"]}}  # fmt: skip
    r = evaluate_tool_call(tool, args)
    assert r.missing_keys == ("password_hint",) and r.weak_keys == ("user.email",)
    ev = r.to_safety_event(request_id="r1")
    assert (ev.hook_scope, ev.policy_decision, ev.halt_reason) == (
        "agent",
        "block",
        "tool_input_low_confidence",
    )
    assert ev.threshold == 0.5 and ev.observed_score == r.score
    blob = json.dumps(ev.to_dict())
    for forbidden in ("internal.corp", "TODO", "password", "api_url", "email"):
        assert forbidden not in blob
    assert ev.attributes == {"missing_count": "1", "weak_count": "1", "violation_count": "1"}
    warn = evaluate({"a": "x", "b": "", "c": "y"}, ["a", "b", "c"]).to_safety_event()
    assert (warn.policy_decision, warn.halt_reason) == ("warn", "tool_input_weak")
    ok = evaluate({"a": "x"}, ["a"]).to_safety_event()
    assert (ok.policy_decision, ok.halt_reason) == ("allow", "tool_input_confident")
    validate = pytest.importorskip("director_ai.core.safety_event").validate_safety_event_payload
    for event in (ev, warn, ok):
        validate(event.to_dict())


def test_report_to_dict():
    r = evaluate({"a": ""}, ["a", "b"])
    assert r.to_dict() == {
        "score": 0.0,
        "missing_keys": ["b"],
        "weak_keys": ["a"],
        "reason": r.reason,
        "violations": [],
    }
    assert math.isfinite(r.score)


def test_thread_safety():
    args = {"city": "Lyon", "unit": "c", "user": {"email": "a@b.io"}}
    expected = evaluate_tool_call(OPENAI, args)
    out = []

    def work():
        for _ in range(200):
            out.append(evaluate_tool_call(OPENAI, args))

    assert not run_threads(work) and len(out) == 800 and all(r == expected for r in out)

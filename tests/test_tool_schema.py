"""evaluate_tool_call validates the arguments against the tool's JSON Schema (a table of schemas).

Rules (seed 004 + the schema check): a required key whose value violates its schema is weak and
subtracts its share; violations on optional or extra keys leave the score alone but are listed,
named in ``reason`` and make the SafetyEvent a ``warn``."""

from __future__ import annotations

import json

import pytest

import director_fast
from director_fast.diagnostics.confidence import SchemaViolation, evaluate_tool_call
from director_fast.errors import ValidationError

EMAIL_TOOL = {
    "type": "function",
    "function": {
        "name": "send_email",
        "parameters": {
            "type": "object",
            "properties": {
                "to": {"type": "string", "format": "email"},
                "subject": {"type": "string", "minLength": 1},
                "priority": {"type": "string", "enum": ["low", "normal", "high", "none"]},
                "cc": {"type": "array", "items": {"type": "string", "format": "email"}},
                "count": {"type": "integer", "minimum": 1},
            },
            "required": ["to", "subject"],
            "additionalProperties": False,
        },
    },
}

NESTED_TOOL = {
    "name": "create_order",
    "input_schema": {
        "type": "object",
        "properties": {
            "user": {"type": "object", "required": ["email"],
                     "properties": {"email": {"type": "string", "format": "email"},
                                    "name": {"type": "string"}},
                     "additionalProperties": False},
            "items": {"type": "array", "minItems": 1,
                      "items": {"type": "object", "required": ["sku"],
                                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}}},
            "note": {"type": "string", "maxLength": 10},
        },
        "required": ["user", "items"],
    },
}

ONE_OF_TOOL = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
    "oneOf": [{"required": ["id"]}, {"required": ["name"]}],
}

OK = {"to": "ana@mail.acme.io", "subject": "Quarterly numbers"}

# (case, tool, arguments, score, weak_keys, missing_keys, [(path, keyword)], event decision/reason)
CASES = [
    ("valid", EMAIL_TOOL, OK, 1.0, (), (), [], ("allow", "tool_input_confident")),
    ("valid with optionals", EMAIL_TOOL, {**OK, "priority": "none", "cc": ["b.c+x@d.example.co"], "count": 2},
     1.0, (), (), [], ("allow", "tool_input_confident")),
    ("required: wrong type", EMAIL_TOOL, {**OK, "to": 42}, 0.5, ("to",), (), [("to", "type")],
     ("warn", "tool_input_weak")),
    ("required: bad email (no domain)", EMAIL_TOOL, {**OK, "to": "ana@"}, 0.5, ("to",), (),
     [("to", "format")], ("warn", "tool_input_weak")),
    ("required: bad email (no @)", EMAIL_TOOL, {**OK, "to": "ana.mail.acme.io"}, 0.5, ("to",), (),
     [("to", "format")], ("warn", "tool_input_weak")),
    ("required: bad email (two dots)", EMAIL_TOOL, {**OK, "to": "ana..b@acme.io"}, 0.5, ("to",), (),
     [("to", "format")], ("warn", "tool_input_weak")),
    ("both required wrong", EMAIL_TOOL, {"to": 1, "subject": ""}, 0.0, ("to", "subject"), (),
     [("subject", "minLength"), ("to", "type")], ("block", "tool_input_low_confidence")),
    ("required missing", EMAIL_TOOL, {"to": OK["to"]}, 0.5, (), ("subject",), [("", "required")],
     ("warn", "tool_input_weak")),
    ("optional: enum outside the list", EMAIL_TOOL, {**OK, "priority": "urgent"}, 1.0, (), (),
     [("priority", "enum")], ("warn", "tool_input_schema_violation")),
    ("optional: bad email in a list", EMAIL_TOOL, {**OK, "cc": ["ok@acme.io", "nope"]}, 1.0, (), (),
     [("cc.1", "format")], ("warn", "tool_input_schema_violation")),
    ("optional: wrong type and range", EMAIL_TOOL, {**OK, "count": 0}, 1.0, (), (),
     [("count", "minimum")], ("warn", "tool_input_schema_violation")),
    ("extra key, additionalProperties false", EMAIL_TOOL, {**OK, "bcc": "x@acme.io"}, 1.0, (), (),
     [("", "additionalProperties")], ("warn", "tool_input_schema_violation")),
    ("nested required: wrong type", NESTED_TOOL, {"user": {"email": 7}, "items": [{"sku": "A1"}]}, 0.5,
     ("user.email",), (), [("user.email", "type")], ("warn", "tool_input_weak")),
    ("nested: extra key in a required object", NESTED_TOOL,
     {"user": {"email": "ana@acme.io", "vip": True}, "items": [{"sku": "A1"}]}, 1.0, (), (),
     [("user", "additionalProperties")], ("warn", "tool_input_schema_violation")),
    ("required array: item misses its required key", NESTED_TOOL,
     {"user": {"email": "ana@acme.io"}, "items": [{"qty": 2}]}, 0.5, ("items",), (),
     [("items.0", "required")], ("warn", "tool_input_weak")),
    ("required array: empty", NESTED_TOOL, {"user": {"email": "ana@acme.io"}, "items": []}, 0.5,
     ("items",), (), [("items", "minItems")], ("warn", "tool_input_weak")),
    ("optional string too long", NESTED_TOOL,
     {"user": {"email": "ana@acme.io"}, "items": [{"sku": "A1"}], "note": "x" * 11}, 1.0, (), (),
     [("note", "maxLength")], ("warn", "tool_input_schema_violation")),
    ("root oneOf: both branches match", ONE_OF_TOOL, {"id": 3, "name": "n"}, 1.0, (), (),
     [("", "oneOf")], ("warn", "tool_input_schema_violation")),
    ("root oneOf: one branch", ONE_OF_TOOL, {"id": 3}, 1.0, (), (), [], ("allow", "tool_input_confident")),
]


@pytest.mark.parametrize("case,tool,args,score,weak,missing,viol,event", CASES, ids=[c[0] for c in CASES])
def test_schema_table(case, tool, args, score, weak, missing, viol, event):
    r = evaluate_tool_call(tool, args)
    assert r.score == pytest.approx(score)
    assert r.weak_keys == weak and r.missing_keys == missing
    assert sorted((v.path, v.keyword) for v in r.violations) == sorted(viol)
    assert all(isinstance(v, SchemaViolation) and v.message for v in r.violations)
    ev = r.to_safety_event()
    assert (ev.policy_decision, ev.halt_reason) == event
    assert ev.attributes["violation_count"] == str(len(viol))
    for path, kw in viol:
        assert f"{path or '(arguments)'} ({kw})" in r.reason
    # the JSON string form OpenAI sends gives the same report
    assert evaluate_tool_call(tool, json.dumps(args)) == r


def test_reason_and_event_never_carry_values():
    secret = "s3cr3t-val"
    r = evaluate_tool_call(EMAIL_TOOL, {**OK, "to": secret, "bcc": secret, "priority": secret})
    assert {v.keyword for v in r.violations} == {"format", "additionalProperties", "enum"}
    assert secret not in r.reason
    assert secret not in json.dumps(r.to_safety_event().to_dict())
    assert "against the schema to" in r.reason
    d = r.to_dict()
    assert d["violations"] and set(d["violations"][0]) == {"path", "keyword", "message"}


def test_violation_is_frozen_and_exported():
    v = SchemaViolation("to", "type", "42 is not of type 'string'")
    with pytest.raises(AttributeError):
        v.path = "x"  # type: ignore[misc]
    assert director_fast.SchemaViolation is SchemaViolation
    assert "SchemaViolation" in director_fast.__all__


def test_draft_named_by_schema_is_used():
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"n": {"type": "integer", "exclusiveMinimum": 0}}, "required": ["n"]}
    assert evaluate_tool_call(draft7, {"n": 1}).violations == ()
    r = evaluate_tool_call(draft7, {"n": 0})
    assert [(v.path, v.keyword) for v in r.violations] == [("n", "exclusiveMinimum")] and r.score == 0.0


@pytest.mark.parametrize("schema,match", [
    ({"type": "object", "properties": {"to": {"type": "strang"}}}, "tool_schema"),
    ({"type": "object", "properties": {"to": {"$ref": "https://schemas.invalid/x.json"}}}, "tool_schema"),
    ({"type": "object", "properties": {"to": {"minLength": float("nan")}}}, "tool_schema"),
])
def test_bad_schema_raises_validation_error(schema, match):
    with pytest.raises(ValidationError, match=match):
        evaluate_tool_call(schema, {"to": "a@b.io"})


def test_local_ref_resolves():
    schema = {"type": "object", "$defs": {"mail": {"type": "string", "format": "email"}},
              "properties": {"to": {"$ref": "#/$defs/mail"}}, "required": ["to"]}
    assert evaluate_tool_call(schema, {"to": "a@b.io"}).score == 1.0
    r = evaluate_tool_call(schema, {"to": "a@"})
    assert r.weak_keys == ("to",) and r.violations[0].keyword == "format"


def test_deep_arguments_do_not_crash():
    deep: dict = {}
    cur = deep
    for _ in range(3000):
        cur["a"] = {}
        cur = cur["a"]
    schema = {"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]}
    try:
        r = evaluate_tool_call(schema, {"a": deep})
    except ValidationError as exc:
        assert "nested too deeply" in str(exc)
    else:
        assert 0.0 <= r.score <= 1.0

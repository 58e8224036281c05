"""Structured recovery of a halted JSON stream (director_fast.stream.structured, stream_guard(structured=)).

Properties (Hypothesis): for every prefix of a JSON document the recovered text parses, and it is
maximal: it equals the value built from the prefix's complete members (and the containers opened
on the way to the cut), computed here from the spans a separate serializer records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from director_fast import HaltConfig, StructuredRecoveryResult, stream_guard
from director_fast.errors import ConfigError, InputTypeError
from director_fast.stream.structured import recover_json, recover_structured


# ---- an independent serializer that records the span of every value ------------------------------

@dataclass
class Node:
    kind: str  # "obj", "arr", "num", "str", "lit"
    start: int
    end: int = -1
    value: object = None
    children: list = field(default_factory=list)  # [(key or None, Node)]


def serialize(value, ws: str, ensure_ascii: bool) -> tuple[str, Node]:
    parts: list[str] = []
    size = [0]

    def emit(s: str) -> None:
        parts.append(s)
        size[0] += len(s)

    def walk(v) -> Node:
        if isinstance(v, dict):
            node = Node("obj", size[0])
            emit("{")
            for i, (k, x) in enumerate(v.items()):
                emit(("," if i else "") + ws + json.dumps(k, ensure_ascii=ensure_ascii) + ws + ":" + ws)
                node.children.append((k, walk(x)))
            emit(ws + "}")
        elif isinstance(v, list):
            node = Node("arr", size[0])
            emit("[")
            for i, x in enumerate(v):
                emit(("," if i else "") + ws)
                node.children.append((None, walk(x)))
            emit(ws + "]")
        else:
            kind = "lit" if v is None or isinstance(v, bool) else "str" if isinstance(v, str) else "num"
            node = Node(kind, size[0], value=v)
            emit(json.dumps(v, ensure_ascii=ensure_ascii))
        node.end = size[0]
        return node

    root = walk(value)
    return "".join(parts), root


def complete(node: Node, cut: int) -> bool:
    if node.kind == "num":  # a number touching the cut may go on
        return node.end < cut
    return node.end <= cut


def expected(node: Node, cut: int):
    """(present, value) of ``node`` in the prefix of length ``cut``."""
    if node.kind in ("obj", "arr"):
        if node.start >= cut:
            return False, None
        kept = []
        for key, child in node.children:
            if child.kind in ("obj", "arr"):
                ok, val = expected(child, cut)
            else:
                ok, val = complete(child, cut), child.value
            if not ok:
                break
            kept.append((key, val))
        return True, (dict(kept) if node.kind == "obj" else [v for _k, v in kept])
    return complete(node, cut), node.value


def canon(v) -> str:
    return json.dumps(v, sort_keys=True)


scalars = (st.none() | st.booleans() | st.integers(-10**6, 10**12)
           | st.floats(allow_nan=False, allow_infinity=False, width=64)
           | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6))
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
).filter(lambda v: isinstance(v, (dict, list)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents, ws=st.sampled_from(["", " ", "\n  "]), ascii_=st.booleans(), data=st.data())
def test_every_prefix_parses_and_is_maximal(doc, ws, ascii_, data):
    text, root = serialize(doc, ws, ascii_)
    assert json.loads(text) == json.loads(json.dumps(doc))  # the serializer is sound
    cuts = data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=8))
    for cut in cuts + [len(text)]:
        out, valid, errors, meta = recover_json(text[:cut])
        assert errors == []
        parsed = json.loads(out)  # always parses
        present, value = expected(root, cut)
        if present:
            assert valid
            assert canon(parsed) == canon(value), (text[:cut], out)
        else:
            assert not valid and out == "null" and meta["kept_chars"] == 0


@settings(max_examples=60, deadline=None)
@given(prefix=st.text(alphabet='{}[]",: 0123456789.-eEtrufalsn\\x', max_size=40))
def test_arbitrary_text_always_parses(prefix):
    out, valid, errors, meta = recover_json(prefix)
    json.loads(out)
    assert valid == (out != "null" or prefix.strip().startswith("null"))
    json.dumps(meta)  # JSON-safe


@pytest.mark.parametrize("prefix, out, dropped", [
    ('{"a": 1, "b": "hel', '{"a": 1}', [("/b", "string", '"b": "hel')]),
    ('{"a": 1, "b": 12', '{"a": 1}', [("/b", "number", '"b": 12')]),
    ('{"a": 1, "b": 12,', '{"a": 1, "b": 12}', []),
    ('{"a": [1, 2', '{"a": [1]}', [("/a/1", "number", "2")]),
    ('{"a": [1, tr', '{"a": [1]}', [("/a/1", "literal", "tr")]),
    ('{"a": [1, true', '{"a": [1, true]}', []),
    ('{"a": {"x": null}, "b', '{"a": {"x": null}}', [("/", "key", '"b')]),
    ('{"a": 1, "b":', '{"a": 1}', [("/b", "value", '"b":')]),
    ('[{"k": "v"}, {"k": "w', '[{"k": "v"}, {}]', [("/1/k", "string", '"k": "w')]),
    ('{"a~/b": [', '{"a~/b": []}', []),
    ('```json\n{"a": "x\\u00', '{}', [("/a", "string", '"a": "x\\u00')]),
    ('"just a str', 'null', [("", "string", '"just a str')]),
    ('', 'null', []),
])
def test_known_recoveries(prefix, out, dropped):
    got, valid, errors, meta = recover_json(prefix)
    assert got == out
    assert errors == []
    assert [(d["path"], d["kind"], d["text"]) for d in meta["dropped"]] == dropped
    assert valid == (out != "null")


def test_metadata_reports_closed_containers_and_counts():
    out, valid, _e, meta = recover_json('{"a": {"b": [1, 2, {"c": "d"')
    assert out == '{"a": {"b": [1, 2, {"c": "d"}]}}'
    assert meta["closed"] == ["", "/a", "/a/b", "/a/b/2"]
    assert meta["kept_members"] == 3 and meta["complete"] is False and meta["dropped"] == []
    assert meta["cut_offset"] == len('{"a": {"b": [1, 2, {"c": "d"')


def test_syntax_error_ends_the_prefix():
    out, valid, errors, meta = recover_json('{"a": 1, "b": 2 "c": 3}')
    assert out == '{"a": 1, "b": 2}' and valid
    assert errors and "offset 16" in errors[0]
    out, _v, errors, _m = recover_json('{"a": 1, "b": 01}')
    assert out == '{"a": 1}' and errors
    out, _v, errors, meta = recover_json('{"a": 1} trailing words')
    assert out == '{"a": 1}' and errors and meta["dropped"][0]["kind"] == "trailing"
    out, _v, errors, meta = recover_json('```json\n[1, 2]\n```\n')
    assert out == "[1, 2]" and not errors and meta["complete"] and meta["fence"]


def test_deep_nesting_has_no_recursion_limit():
    prefix = '{"a": ' * 20000 + "1"
    out, valid, _e, meta = recover_json(prefix)
    assert valid and meta["closed_count"] == 20000 and len(meta["closed"]) == 64
    assert out.count("}") == 20000
    json.loads(out.replace('{"a": ' * 19990, "").replace("}" * 19990, ""))


def test_bad_arguments():
    with pytest.raises(InputTypeError):
        recover_json(b"{}")
    with pytest.raises(ConfigError) as e:
        recover_structured("xml", "{}", halted_at=0)
    assert e.value.field == "structured"
    with pytest.raises(ConfigError) as e:
        stream_guard(iter(["{"]), lambda t: 1.0, structured="yaml")
    assert e.value.field == "structured"


# ---- the stream -------------------------------------------------------------------------------------

def _json_tokens() -> list[str]:
    return ['{"', 'order', '": ', '{"id', '": 42', ', "items', '": ["', 'tea', '", "cof', 'fee"',
            '], "total": ', '17', '.5', '}}']


def _halt_at(n_ok: int):
    """A plain scorer that approves the first n_ok calls and then fails hard."""
    calls = [0]

    def score(_text: str) -> float:
        calls[0] += 1
        return 0.9 if calls[0] <= n_ok else 0.1

    return score


def test_halted_json_stream_gets_a_recovery():
    g = stream_guard(iter(_json_tokens()), _halt_at(9), structured="json", config=HaltConfig())
    out = "".join(g)
    s = g.session
    assert s.halted and out == s.output
    rec = s.structured_recovery
    assert isinstance(rec, StructuredRecoveryResult)
    assert rec.kind == "json" and rec.policy == "last_valid" and rec.halted_at == s.halt_index
    assert rec.raw_partial == s.output == '{"order": {"id": 42, "items": ["tea", "cof'
    assert json.loads(rec.last_valid_output) == {"order": {"id": 42, "items": ["tea"]}}
    assert rec.valid and rec.metadata["dropped"][0]["path"] == "/order/items/1"
    assert StructuredRecoveryResult.from_dict(rec.to_dict()) == rec


def test_unhalted_or_unstructured_streams_have_none():
    g = stream_guard(iter(_json_tokens()), lambda t: 0.9, structured="json")
    assert json.loads("".join(g)) == {"order": {"id": 42, "items": ["tea", "coffee"], "total": 17.5}}
    assert g.session.structured_recovery is None
    g = stream_guard(iter(_json_tokens()), _halt_at(3))
    list(g)
    assert g.session.halted and g.session.structured_recovery is None


def test_raise_on_halt_session_carries_the_recovery():
    from director_fast.errors import StreamHalted

    g = stream_guard(iter(_json_tokens()), _halt_at(6), structured="json", raise_on_halt=True)
    with pytest.raises(StreamHalted) as e:
        list(g)
    rec = e.value.session.structured_recovery
    assert rec is not None and json.loads(rec.last_valid_output) == {"order": {"id": 42}}


def test_async_stream_gets_a_recovery():
    import asyncio

    from director_fast import astream_guard

    async def run():
        g = astream_guard(iter(_json_tokens()), _halt_at(9), structured="json")
        return "".join([t async for t in g]), g.session

    out, s = asyncio.run(run())
    assert s.halted and s.structured_recovery.raw_partial == out
    assert json.loads(s.structured_recovery.last_valid_output) == {"order": {"id": 42, "items": ["tea"]}}


def test_memory_stays_linear_in_nesting_depth():
    import tracemalloc

    tracemalloc.start()
    out, valid, _errors, meta = recover_json("[" * 200_000)
    _size, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert valid and meta["closed_count"] == 200_000 and out == "[" * 200_000 + "]" * 200_000
    assert peak < 150 * 1024 * 1024  # quadratic pointer strings took ~10 GB at 100k

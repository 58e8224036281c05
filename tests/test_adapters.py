"""Client stream adapters: recorded OpenAI / Anthropic event shapes (no network)."""

from __future__ import annotations

import asyncio

import pytest

import director_fast as df
from director_fast.stream.adapters import (
    aanthropic_text_deltas,
    anthropic_text_deltas,
    aopenai_responses_text_deltas,
    aopenai_text_deltas,
    openai_responses_text_deltas,
    openai_text_deltas,
)
from director_fast.errors import InputTypeError, UpstreamError

OPENAI_CHUNKS = [
    {"id": "c1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]},
    {"id": "c1", "choices": [{"index": 0, "delta": {"content": "Paris is "}, "finish_reason": None}]},
    {"id": "c1", "choices": [{"index": 0, "delta": {"content": "the capital."}, "finish_reason": None}]},
    {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0}]}, "finish_reason": None}]},
    {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    {"id": "c1", "choices": [], "usage": {"total_tokens": 12}},
]

ANTHROPIC_EVENTS = [
    {"type": "message_start", "message": {"id": "m1"}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "ping"},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Paris is "}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "the capital."}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
    {"type": "message_stop"},
]


class Obj:
    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, Obj(**v) if isinstance(v, dict) else [Obj(**x) if isinstance(x, dict) else x for x in v] if isinstance(v, list) else v)


def test_openai_dicts_and_objects():
    assert list(openai_text_deltas(OPENAI_CHUNKS)) == ["Paris is ", "the capital."]
    assert list(openai_text_deltas([Obj(**c) for c in OPENAI_CHUNKS])) == ["Paris is ", "the capital."]
    skipped = []
    list(openai_text_deltas(OPENAI_CHUNKS, on_event=skipped.append))
    assert len(skipped) == 4


def test_anthropic_events():
    assert list(anthropic_text_deltas(ANTHROPIC_EVENTS)) == ["Paris is ", "the capital."]


def test_guard_closes_client_stream_on_halt():
    closed = []

    def stream():
        try:
            yield from OPENAI_CHUNKS
        finally:
            closed.append(True)

    g = df.stream_guard(openai_text_deltas(stream()), lambda text: 0.2)
    assert list(g) == [] and g.session.halt_reason == "hard_limit"
    assert closed == [True]


def test_async_adapters():
    async def agen(items):
        for x in items:
            yield x

    async def run():
        a = [t async for t in aopenai_text_deltas(agen(OPENAI_CHUNKS))]
        b = [t async for t in aanthropic_text_deltas(agen(ANTHROPIC_EVENTS))]
        g = df.astream_guard(aanthropic_text_deltas(agen(ANTHROPIC_EVENTS)), lambda t: 0.9)
        c = [t async for t in g]
        return a, b, c

    a, b, c = asyncio.run(run())
    assert a == b == c == ["Paris is ", "the capital."]


def test_wrong_stream_shapes_raise_instead_of_yielding_nothing():
    import pytest

    from director_fast.errors import InputTypeError

    for bad in (["Paris is ", "the capital."], ANTHROPIC_EVENTS, [b"x"], [42]):
        with pytest.raises(InputTypeError, match="openai_text_deltas"):
            list(openai_text_deltas(bad))
    for bad in (["Paris"], OPENAI_CHUNKS, [None]):
        with pytest.raises(InputTypeError, match="anthropic_text_deltas"):
            list(anthropic_text_deltas(bad))

    async def agen(items):
        for x in items:
            yield x

    async def run():
        return [t async for t in aopenai_text_deltas(agen(["raw text"]))]

    with pytest.raises(InputTypeError):
        asyncio.run(run())


def test_legacy_openai_completion_chunks():
    chunks = [{"choices": [{"index": 0, "text": "Paris ", "finish_reason": None}]},
              {"choices": [{"index": 0, "text": "is big.", "finish_reason": "stop"}]}]
    assert list(openai_text_deltas(chunks)) == ["Paris ", "is big."]


def test_adapters_refuse_non_iterables():
    import pytest

    from director_fast.errors import InputTypeError

    for fn in (openai_text_deltas, anthropic_text_deltas):
        for bad in (None, 3, "text"):
            with pytest.raises(InputTypeError, match="stream"):
                fn(bad)
    for fn in (aopenai_text_deltas, aanthropic_text_deltas):
        with pytest.raises(InputTypeError, match="stream"):
            fn([OPENAI_CHUNKS[0]])  # a sync list given to the async adapter


def test_unknown_anthropic_event_types_and_non_dict_mappings():
    from collections import UserDict
    from types import MappingProxyType, SimpleNamespace

    import pytest

    from director_fast.errors import InputTypeError

    responses_api = [SimpleNamespace(type="response.created"),
                     SimpleNamespace(type="response.output_text.delta", delta="The answer is wrong.")]
    with pytest.raises(InputTypeError, match="unknown event type"):
        list(anthropic_text_deltas(responses_api))
    # an error event is a failure, not an event to skip (the answer so far is incomplete)
    with pytest.raises(UpstreamError) as ei:
        list(anthropic_text_deltas([{"type": "error", "error": {}}] + ANTHROPIC_EVENTS))
    assert ei.value.kind == "error_event" and ei.value.provider == "anthropic"
    assert list(openai_text_deltas([UserDict(c) for c in OPENAI_CHUNKS])) == ["Paris is ", "the capital."]
    assert list(openai_text_deltas([MappingProxyType(c) for c in OPENAI_CHUNKS])) == ["Paris is ", "the capital."]


# Responses API: the event sequence a `client.responses.create(..., stream=True)` call yields
# (shapes as documented for the Responses streaming events; ids shortened)
RESPONSES_EVENTS = [
    {"type": "response.created", "sequence_number": 0,
     "response": {"id": "resp_1", "status": "in_progress", "output": []}},
    {"type": "response.in_progress", "sequence_number": 1, "response": {"id": "resp_1", "status": "in_progress"}},
    {"type": "response.output_item.added", "sequence_number": 2, "output_index": 0,
     "item": {"id": "rs_1", "type": "reasoning", "summary": []}},
    {"type": "response.reasoning_summary_text.delta", "sequence_number": 3, "output_index": 0,
     "item_id": "rs_1", "summary_index": 0, "delta": "Thinking about capitals."},
    {"type": "response.output_item.done", "sequence_number": 4, "output_index": 0,
     "item": {"id": "rs_1", "type": "reasoning"}},
    {"type": "response.output_item.added", "sequence_number": 5, "output_index": 1,
     "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "status": "in_progress"}},
    {"type": "response.content_part.added", "sequence_number": 6, "output_index": 1, "item_id": "msg_1",
     "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}},
    {"type": "response.output_text.delta", "sequence_number": 7, "output_index": 1, "item_id": "msg_1",
     "content_index": 0, "delta": "Paris is ", "logprobs": []},
    {"type": "response.output_text.delta", "sequence_number": 8, "output_index": 1, "item_id": "msg_1",
     "content_index": 0, "delta": "the capital.", "logprobs": []},
    {"type": "response.output_text.done", "sequence_number": 9, "output_index": 1, "item_id": "msg_1",
     "content_index": 0, "text": "Paris is the capital."},
    {"type": "response.content_part.done", "sequence_number": 10, "output_index": 1, "item_id": "msg_1",
     "content_index": 0, "part": {"type": "output_text", "text": "Paris is the capital."}},
    {"type": "response.output_item.done", "sequence_number": 11, "output_index": 1,
     "item": {"id": "msg_1", "type": "message", "status": "completed"}},
]
RESPONSES_COMPLETED = {"type": "response.completed", "sequence_number": 12,
                       "response": {"id": "resp_1", "status": "completed", "usage": {"total_tokens": 30}}}
RESPONSES_FAILED = {"type": "response.failed", "sequence_number": 12, "response": {
    "id": "resp_1", "status": "failed", "error": {"code": "server_error", "message": "The model failed."}}}
RESPONSES_INCOMPLETE = {"type": "response.incomplete", "sequence_number": 12, "response": {
    "id": "resp_1", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}
RESPONSES_ERROR = {"type": "error", "sequence_number": 12, "code": "rate_limit_exceeded",
                   "message": "Slow down.", "param": None}


def _ns(x):
    from types import SimpleNamespace

    if isinstance(x, dict):
        return SimpleNamespace(**{k: _ns(v) for k, v in x.items()})
    if isinstance(x, list):
        return [_ns(v) for v in x]
    return x


def test_responses_api_dicts_and_objects():
    for conv in (lambda e: e, _ns):
        events = [conv(e) for e in RESPONSES_EVENTS + [RESPONSES_COMPLETED]]
        skipped = []
        assert list(openai_responses_text_deltas(events, on_event=skipped.append)) == ["Paris is ", "the capital."]
        assert len(skipped) == len(events) - 2  # the reasoning summary is not answer text
        assert list(openai_responses_text_deltas(events, output_index=1)) == ["Paris is ", "the capital."]
        assert list(openai_responses_text_deltas(events, output_index=0)) == []
    # an incomplete response for a reason outside halt_on ends normally
    other = {"type": "response.incomplete", "response": {"incomplete_details": {"reason": "something_new"}}}
    assert list(openai_responses_text_deltas(RESPONSES_EVENTS + [other])) == ["Paris is ", "the capital."]


@pytest.mark.parametrize("tail,kind,code", [
    ([RESPONSES_FAILED], "failed", "server_error"),
    ([RESPONSES_INCOMPLETE], "incomplete", "max_output_tokens"),
    ([RESPONSES_ERROR], "error_event", "rate_limit_exceeded"),
    ([], "truncated", ""),
])
def test_responses_api_failures_raise_after_the_text(tail, kind, code):
    for conv in (lambda e: e, _ns):
        got = []
        with pytest.raises(UpstreamError) as ei:
            for t in openai_responses_text_deltas([conv(e) for e in RESPONSES_EVENTS + tail]):
                got.append(t)
        assert got == ["Paris is ", "the capital."]
        e = ei.value
        assert (e.kind, e.code, e.provider) == (kind, code, "openai.responses")
        assert "Slow down" not in str(e) and "The model failed" not in str(e)  # provider text stays out

    g = df.stream_guard(openai_responses_text_deltas(RESPONSES_EVENTS + tail), lambda t: 0.9)
    assert "".join(g) == "Paris is the capital."
    s = g.session
    assert s.halt_reason == "upstream_error" and s.safety_events[0].attributes["upstream"] == kind
    if code:
        assert s.safety_events[0].attributes["upstream_code"] == code


def test_responses_api_async_and_guard():
    async def agen(items):
        for x in items:
            await asyncio.sleep(0)
            yield x

    async def run():
        a = [t async for t in aopenai_responses_text_deltas(agen([_ns(e) for e in RESPONSES_EVENTS + [RESPONSES_COMPLETED]]))]
        g = df.astream_guard(aopenai_responses_text_deltas(agen(RESPONSES_EVENTS + [RESPONSES_COMPLETED])), lambda t: 0.9)
        b = [t async for t in g]
        g2 = df.astream_guard(aopenai_responses_text_deltas(agen(RESPONSES_EVENTS + [RESPONSES_FAILED])), lambda t: 0.9)
        c = [t async for t in g2]
        return a, b, c, g.session, g2.session

    a, b, c, s1, s2 = asyncio.run(run())
    assert a == b == c == ["Paris is ", "the capital."]
    assert not s1.halted and s2.halt_reason == "upstream_error"


def test_responses_api_refuses_other_streams_and_bad_arguments():
    for bad in (OPENAI_CHUNKS, ANTHROPIC_EVENTS, ["Paris"], [None], [{"type": 3}]):
        with pytest.raises(InputTypeError, match="openai_responses_text_deltas"):
            list(openai_responses_text_deltas(bad))
    with pytest.raises(InputTypeError, match="output_index"):
        openai_responses_text_deltas([], output_index="1")
    with pytest.raises(InputTypeError, match="halt_on"):
        openai_responses_text_deltas([], halt_on="length")
    with pytest.raises(InputTypeError, match="stream"):
        aopenai_responses_text_deltas(RESPONSES_EVENTS)


def test_finish_reason_in_the_text_chunk_and_sdk_enum_values():
    import enum

    class Reason(str, enum.Enum):
        LENGTH = "length"

    chunks = [{"choices": [{"index": 0, "text": "Paris ", "finish_reason": None}]},
              {"choices": [{"index": 0, "text": "is big", "finish_reason": Reason.LENGTH}]}]
    got = []
    with pytest.raises(UpstreamError) as ei:
        for t in openai_text_deltas(chunks):
            got.append(t)
    assert got == ["Paris ", "is big"] and ei.value.code == "length"
    # another choice's finish_reason does not end choice 0
    two = [{"choices": [{"index": 1, "delta": {"content": None}, "finish_reason": "length"},
                        {"index": 0, "delta": {"content": "ok"}, "finish_reason": None}]},
           {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    assert list(openai_text_deltas(two)) == ["ok"]
    with pytest.raises(InputTypeError):  # choice 0's text would reach the user unchecked
        list(openai_text_deltas(two, index=1))


def test_adapter_close_closes_iterator_and_stream_object_once():
    class SdkStream:
        def __init__(self, items):
            self.items = items
            self.closes = 0

        def __iter__(self):
            yield from self.items

        def close(self):
            self.closes += 1

    sdk = SdkStream(OPENAI_CHUNKS)
    a = openai_text_deltas(sdk)
    assert next(a) == "Paris is "
    a.close()
    a.close()
    assert sdk.closes == 1
    sdk = SdkStream(_ns(RESPONSES_EVENTS))  # no response.completed: truncated
    with pytest.raises(UpstreamError):
        list(openai_responses_text_deltas(sdk))
    assert sdk.closes == 1  # closed by the adapter before it raised

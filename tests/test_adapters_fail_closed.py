"""Text a guard cannot check never reaches the user: another choice's text (n > 1), text that is
not a string, text in an Anthropic part of an unknown type (found by a new user trying to break
the guarded clients)."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

import director_fast as df
from director_fast.errors import InputTypeError
from director_fast.stream.adapters import anthropic_text_deltas, openai_text_deltas

FACTS = {"tents": "Our hire tents sleep four people."}


def _choice(i, content, finish=None):
    return NS(index=i, delta=NS(content=content, role=None, tool_calls=None), finish_reason=finish)


def _chunk(*choices):
    return NS(id="c", object="chat.completion.chunk", choices=list(choices))


def _client(chunks=None, response=None):
    def create(**kw):
        return iter(chunks) if kw.get("stream") else response
    return NS(chat=NS(completions=NS(create=create)))


@pytest.mark.parametrize("chunks", [
    [_chunk(_choice(0, "Our hire tents sleep four people. "), _choice(1, "Our hire tents sleep nine people. ")),
     _chunk(_choice(0, None, "stop"), _choice(1, None, "stop"))],                       # n=2 in one chunk
    [_chunk(_choice(1, "Our hire tents sleep nine people. ")), _chunk(_choice(1, None, "stop"))],
    [_chunk(_choice(0, "Our hire tents sleep four people. ")),
     _chunk(_choice(0, [{"type": "text", "text": "Tents sleep nine people."}])), _chunk(_choice(0, None, "stop"))],
    [_chunk(_choice(0, "Our hire tents sleep four people. ")), _chunk(_choice(0, 9)), _chunk(_choice(0, None, "stop"))],
], ids=["n2", "other-index", "content-list", "content-int"])
def test_openai_text_the_guard_cannot_check_halts_the_stream(chunks):
    with pytest.raises(InputTypeError):
        list(openai_text_deltas(iter(chunks)))
    guarded = df.guard(_client(chunks), facts=FACTS, on_fail="log")
    stream = guarded.chat.completions.create(model="m", messages=[{"role": "user", "content": "?"}], stream=True)
    seen = []
    with pytest.raises(InputTypeError):  # a malformed chunk raises, as the docs say
        for c in stream:
            seen.append(c)
    assert not any("nine" in str(getattr(ch.delta, "content", "")) for c in seen for ch in c.choices)


def test_a_non_streamed_response_with_several_choices_is_refused():
    response = NS(choices=[NS(index=i, message=NS(content=t, tool_calls=None), finish_reason="stop")
                           for i, t in enumerate(["Our hire tents sleep four people.", "Our hire tents sleep nine people."])])
    guarded = df.guard(_client(response=response), facts=FACTS, on_fail="raise")
    with pytest.raises(InputTypeError):
        guarded.chat.completions.create(model="m", messages=[{"role": "user", "content": "?"}])


def _event(kind, **kw):
    return NS(type=kind, **kw)


@pytest.mark.parametrize("bad", [
    _event("content_block_delta", index=0, delta=NS(type="text_delta_v2", text="Our hire tents sleep nine people.")),
    _event("content_block_delta", index=0, delta=NS(type="text_delta", text=None)),
    _event("content_block_delta", index=0, delta=NS(type="text_delta", text=9)),
], ids=["unknown-part", "text-none", "text-int"])
def test_anthropic_text_the_guard_cannot_check_raises(bad):
    events = [_event("message_start", message=NS(id="m")), _event("content_block_start", index=0,
              content_block=NS(type="text", text="")), bad, _event("message_stop")]
    with pytest.raises(InputTypeError):
        list(anthropic_text_deltas(iter(events)))


def test_anthropic_text_in_a_content_block_start_is_read():
    events = [_event("message_start", message=NS(id="m")),
              _event("content_block_start", index=0, content_block=NS(type="text", text="Our hire ")),
              _event("content_block_delta", index=0, delta=NS(type="text_delta", text="tents sleep nine.")),
              _event("message_stop")]
    assert "".join(anthropic_text_deltas(iter(events))) == "Our hire tents sleep nine."

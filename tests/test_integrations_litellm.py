"""DirectorGuardrail against the real litellm package (offline; skipped when litellm is absent)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the cost map
litellm = pytest.importorskip("litellm")

from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices  # noqa: E402

import director_fast as df  # noqa: E402
from director_fast.errors import HallucinationError, StreamHalted  # noqa: E402
from director_fast.integrations.litellm import DirectorGuardrail  # noqa: E402

FACTS = {"Acme founding": "Acme was founded in 1998 in Oslo.", "Acme staff": "Acme employs 2,500 people."}
GOOD = "Acme was founded in 1998 in Oslo. Acme employs 2,500 people."
BAD = "Acme was founded in 1998 in Oslo. Acme employs 9,000 people. It is the biggest firm in Oslo."
REQ = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Tell me about Acme."}]}


async def completion(text: str):
    return await litellm.acompletion(model="gpt-4o-mini", messages=REQ["messages"], mock_response=text)


class ChunkStream:
    """The model's chunk stream: real ModelResponseStream objects, one per word; records closing."""

    def __init__(self, text: str) -> None:
        import re

        self.words = re.findall(r"\S+\s*", text)
        self.sent = 0
        self.closed = False

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.sent >= len(self.words):
            raise StopAsyncIteration
        w = self.words[self.sent]
        self.sent += 1
        return ModelResponseStream(choices=[StreamingChoices(index=0, delta=Delta(content=w))])

    async def aclose(self):
        self.closed = True


async def test_success_hook_reviews_and_raises_or_annotates():
    g = DirectorGuardrail(facts=FACTS)
    ok = await completion(GOOD)
    assert await g.async_post_call_success_hook(REQ, None, ok) is ok
    assert ok._hidden_params["director_fast_approved"] is True
    with pytest.raises(HallucinationError) as e:
        await g.async_post_call_success_hook(REQ, None, await completion(BAD))
    assert isinstance(e.value.score, df.CoherenceScore) and not e.value.score.approved
    lenient = DirectorGuardrail(facts=FACTS, raise_on_fail=False)
    bad = await completion(BAD)
    assert await lenient.async_post_call_success_hook(REQ, None, bad) is bad
    assert bad._hidden_params["director_fast_approved"] is False


async def test_streaming_hook_withholds_and_closes_the_model_stream():
    up = ChunkStream(BAD)
    g = DirectorGuardrail(facts=FACTS, raise_on_fail=False)
    out = [c async for c in g.async_post_call_streaming_iterator_hook(None, up, REQ)]
    assert all(isinstance(c, ModelResponseStream) for c in out)
    assert "".join(c.choices[0].delta.content for c in out) == "Acme was founded in 1998 in Oslo. "
    assert up.closed and up.sent < len(up.words)
    up = ChunkStream(BAD)
    got = []
    with pytest.raises(StreamHalted):
        async for c in DirectorGuardrail(facts=FACTS).async_post_call_streaming_iterator_hook(None, up, REQ):
            got.append(c.choices[0].delta.content)
    assert "".join(got) == "Acme was founded in 1998 in Oslo. " and up.closed
    up = ChunkStream(GOOD)
    out = [c async for c in DirectorGuardrail(facts=FACTS).async_post_call_streaming_iterator_hook(None, up, REQ)]
    assert "".join(c.choices[0].delta.content for c in out) == GOOD


def test_is_a_custom_guardrail():
    from litellm.integrations.custom_guardrail import CustomGuardrail

    g = DirectorGuardrail(facts=FACTS, guardrail_name="facts-check")
    assert isinstance(g, CustomGuardrail) and g.guardrail_name == "facts-check"
    with pytest.raises(TypeError):
        DirectorGuardrail(facts=FACTS, raise_on_fail="no")

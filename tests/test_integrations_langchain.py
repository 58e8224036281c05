"""DirectorAIGuard / CoherenceCallbackHandler against the real langchain-core (skipped without it)."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk  # noqa: E402
from langchain_core.runnables import RunnableGenerator  # noqa: E402

import director_fast as df  # noqa: E402
from director_fast.errors import ConfigError, HallucinationError, StreamHalted  # noqa: E402
from director_fast.integrations.langchain import CoherenceCallbackHandler, DirectorAIGuard  # noqa: E402

FACTS = {"Acme founding": "Acme was founded in 1998 in Oslo.", "Acme staff": "Acme employs 2,500 people."}
GOOD = "Acme was founded in 1998 in Oslo. Acme employs 2,500 people."
BAD = "Acme was founded in 1998 in Oslo. Acme employs 9,000 people. It is the biggest firm in Oslo."


def model(*texts: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=t) for t in texts]))


class Tap:
    """A pass-through stream step that counts the chunks the model produced and sees closing."""

    def __init__(self) -> None:
        self.pulled = 0
        self.closed = False

    def sync(self, chunks):
        try:
            for c in chunks:
                self.pulled += 1
                yield c
        finally:
            self.closed = True

    async def asyn(self, chunks):
        try:
            async for c in chunks:
                self.pulled += 1
                yield c
        finally:
            self.closed = True

    def runnable(self) -> RunnableGenerator:
        return RunnableGenerator(self.sync, self.asyn)


class TokenCounter(BaseCallbackHandler):
    """Counts the chunks the model generated (on_llm_new_token)."""

    def __init__(self) -> None:
        self.n = 0

    def on_llm_new_token(self, token, **kwargs):
        self.n += 1


def test_stream_withholds_from_the_first_failing_sentence_and_stops_the_model():
    counter = TokenCounter()
    chain = model(BAD) | DirectorAIGuard(facts=FACTS)
    chunks = list(chain.stream("Tell me about Acme.", config={"callbacks": [counter]}))
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert "".join(c.content for c in chunks) == "Acme was founded in 1998 in Oslo. "
    full = TokenCounter()
    list(model(BAD).stream("x", config={"callbacks": [full]}))
    assert 0 < counter.n < full.n - 5  # the model stopped soon after the failing sentence
    # an approved answer streams through whole
    chunks = list((model(GOOD) | DirectorAIGuard(facts=FACTS)).stream("Tell me about Acme."))
    assert "".join(c.content for c in chunks) == GOOD and len(chunks) > 3
    # after another step, LangChain's own tracing of that step reads it to the end; the output is
    # still withheld
    tap = Tap()
    chunks = list((model(BAD) | tap.runnable() | DirectorAIGuard(facts=FACTS)).stream("q"))
    assert "".join(c.content for c in chunks) == "Acme was founded in 1998 in Oslo. " and tap.closed


def test_stream_raise_on_fail_raises_stream_halted_after_the_safe_chunks():
    got = []
    with pytest.raises(StreamHalted) as e:
        for c in (model(BAD) | DirectorAIGuard(facts=FACTS, raise_on_fail=True)).stream("q"):
            got.append(c.content)
    assert "".join(got) == "Acme was founded in 1998 in Oslo. "
    assert e.value.session.halted and e.value.session.safety_events


async def test_async_stream_withholds_and_closes():
    tap = Tap()
    counter = TokenCounter()
    chain = model(BAD) | DirectorAIGuard(facts=FACTS)
    chunks = [c async for c in chain.astream("Tell me about Acme.", config={"callbacks": [counter]})]
    assert "".join(c.content for c in chunks) == "Acme was founded in 1998 in Oslo. "
    assert 0 < counter.n < 30
    chain = model(BAD) | tap.runnable() | DirectorAIGuard(facts=FACTS)
    chunks = [c async for c in chain.astream("Tell me about Acme.")]
    assert "".join(c.content for c in chunks) == "Acme was founded in 1998 in Oslo. "
    assert tap.closed
    assert (await (model(GOOD) | DirectorAIGuard(facts=FACTS)).ainvoke("q")).content == GOOD


def test_invoke_message_cut_and_metadata():
    halts = []
    guard = DirectorAIGuard(facts=FACTS, on_halt=halts.append)
    out = (model(BAD) | guard).invoke("Tell me about Acme.")
    assert isinstance(out, AIMessage) and out.content == "Acme was founded in 1998 in Oslo. "
    ev = out.response_metadata["director_fast_halt"]
    df.validate_safety_event_payload(ev)
    assert len(halts) == 1 and halts[0].halted
    ok = (model(GOOD) | guard).invoke("q")
    assert ok.content == GOOD and "director_fast_halt" not in ok.response_metadata
    assert guard.invoke(GOOD) == GOOD and guard.invoke(BAD) == "Acme was founded in 1998 in Oslo. "
    with pytest.raises(HallucinationError):
        DirectorAIGuard(facts=FACTS, raise_on_fail=True).invoke(BAD)


async def test_dict_input_is_directors_check():
    guard = DirectorAIGuard(facts=FACTS)
    r = guard.invoke({"query": "How many people work at Acme?", "response": "Acme employs 9,000 people."})
    assert r["approved"] is False and isinstance(r["coherence_score"], df.CoherenceScore)
    assert set(r) == {"approved", "score", "h_logical", "h_factual", "response", "coherence_score"}
    r = await guard.ainvoke({"question": "Staff?", "output": "Acme employs 2,500 people."})
    assert r["approved"] is True
    with pytest.raises(HallucinationError):
        DirectorAIGuard(facts=FACTS, raise_on_fail=True).check("q", "Acme employs 9,000 people.")


def test_callback_handler_observes_without_changing_output(caplog):
    h = CoherenceCallbackHandler(facts=FACTS)
    out = model(BAD).invoke("Tell me about Acme.", config={"callbacks": [h]})
    assert out.content == BAD  # observe-only
    assert h.last_score is not None and not h.last_score.approved and len(h.scores) == 1
    model(GOOD).invoke("Tell me about Acme.", config={"callbacks": [h]})
    assert h.last_score.approved and len(h.scores) == 2
    m = model(GOOD, BAD, GOOD)
    m.batch(["a", "b", "c"], config={"callbacks": [h]})
    assert len(h.scores) == 5 and sum(not s.approved for s in h.scores) == 2
    strict = CoherenceCallbackHandler(facts=FACTS, raise_on_failure=True)
    with pytest.raises(HallucinationError):
        model(BAD).invoke("q", config={"callbacks": [strict]})


def test_argument_validation():
    with pytest.raises(ConfigError):
        DirectorAIGuard(facts=FACTS, scorer=df.CoherenceScorer())
    with pytest.raises(TypeError):
        DirectorAIGuard(facts=FACTS, raise_on_fail="yes")
    with pytest.raises(TypeError):
        DirectorAIGuard(facts=FACTS).invoke(42)
    with pytest.raises(ConfigError):
        CoherenceCallbackHandler(store=df.KnowledgeBase(), ground_truth_store=df.KnowledgeBase())

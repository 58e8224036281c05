"""director-ai's migration surface: ``director_fast.score`` and ``director_fast.guard(client)``.

The client tests drive the real ``openai`` / ``anthropic`` clients (the ``integrations`` extra;
skipped when absent) against a loopback server replaying recorded-style JSON and SSE."""

from __future__ import annotations

import inspect
import logging

import pytest

import director_fast as df
from director_fast.errors import ConfigError, HallucinationError, InputTypeError, StreamHalted

from _llm_server import LLMServer

FACTS = {"Acme": "Acme was founded in 1998 in Oslo. Acme employs 2,500 people."}
GOOD = "Acme was founded in 1998 in Oslo. Acme employs 2,500 people."
FIRST = "Acme was founded in 1998 in Oslo. "
BAD = FIRST + "Acme employs 9,000 people. " + " ".join(["Acme sells rockets to the moon."] * 30)
ASK = [{"role": "user", "content": "Tell me about Acme."}]
MAIL_TOOL = {"type": "function", "function": {"name": "send_email", "parameters": {
    "type": "object", "properties": {"to": {"type": "string", "format": "email"}}, "required": ["to"]}}}
MAIL_TOOL_ANTHROPIC = {"name": "send_email", "input_schema": MAIL_TOOL["function"]["parameters"]}


# --- score() -------------------------------------------------------------------------------


def test_score_with_facts_and_store():
    good = df.score("Tell me about Acme.", GOOD, facts=FACTS)
    bad = df.score("Tell me about Acme.", "Acme employs 9,000 people.", facts=FACTS)
    assert isinstance(good, df.CoherenceScore) and good.approved and good.score >= 0.3
    assert not bad.approved and bad.score < 0.3
    kb = df.KnowledgeBase()
    kb.add("Acme was founded in 1998 in Oslo.")
    assert df.score("", "Acme was founded in 1998.", store=kb).approved
    assert not df.score("", "Acme was founded in 2005.", store=kb).approved
    # a prebuilt scorer is reused as is
    s = df.CoherenceScorer(use_nli=False, threshold=0.3, knowledge=kb)
    assert df.score("", "Acme was founded in 1998.", scorer=s).approved


def test_score_argument_errors():
    with pytest.raises(ConfigError, match="facts or store"):
        df.score("", "x.", facts=FACTS, store=df.KnowledgeBase())
    with pytest.raises(InputTypeError, match="facts"):
        df.score("", "x.", facts=["Acme was founded in 1998."])  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match="facts must map str to str"):
        df.score("", "x.", facts={"Acme": 1998})  # type: ignore[dict-item]
    with pytest.raises(ConfigError, match="facts is empty") as empty:  # not advice to pass an argument score() lacks
        df.score("Who founded Acme?", "Acme was founded in 1998.", facts={})
    assert empty.value.field == "facts" and isinstance(empty.value, ValueError)
    with pytest.raises(InputTypeError, match="store"):
        df.score("", "x.", store=object())
    with pytest.raises(ConfigError) as exc:
        df.score("", "x.", facts=FACTS, use_nli="yes")  # type: ignore[arg-type]
    assert exc.value.field == "use_nli"
    # a model required: the shipped claim verifier is one
    assert df.score("", "x.", facts=FACTS, use_nli=True).evidence.model_id is not None
    with pytest.raises(ConfigError):
        df.score("", "x.", threshold=1.5)
    with pytest.raises(ConfigError, match="scorer"):
        df.score("", "x.", facts=FACTS, scorer=df.CoherenceScorer(use_nli=False))


def test_signatures_match_director_ai_names():
    for fn, names in ((df.score, ["prompt", "response", "facts", "store", "threshold", "use_nli"]),
                      (df.guard, ["client", "facts", "store", "threshold", "use_nli", "on_fail"])):
        params = inspect.signature(fn).parameters
        assert list(params)[: len(names)] == names
        assert params["threshold"].default == 0.3 and params["use_nli"].default is None
    assert inspect.signature(df.guard).parameters["on_fail"].default == "raise"


def test_guard_is_the_function_and_old_import_paths_work():
    assert callable(df.guard) and inspect.isfunction(df.guard)
    from director_fast.guard import ProductionGuard
    from director_fast.memory.production import ProductionGuard as P2

    assert ProductionGuard is P2 is df.ProductionGuard is df.guard.ProductionGuard


def test_guard_argument_errors():
    with pytest.raises(InputTypeError, match="chat.completions.create"):
        df.guard(object(), facts=FACTS)
    with pytest.raises(ConfigError) as exc:
        df.guard(object(), facts=FACTS, on_fail="ignore")
    assert exc.value.field == "on_fail"


# --- real clients against a loopback server -------------------------------------------------


@pytest.fixture(scope="module")
def server():
    with LLMServer() as srv:
        yield srv


@pytest.fixture
def oai(server):
    openai = pytest.importorskip("openai")
    return openai, (lambda **kw: df.guard(openai.OpenAI(base_url=server.url + "/v1", api_key="test",
                                                        max_retries=0), facts=FACTS, **kw))


@pytest.fixture
def ant(server):
    anthropic = pytest.importorskip("anthropic")
    return anthropic, (lambda **kw: df.guard(anthropic.Anthropic(base_url=server.url, api_key="test",
                                                                 max_retries=0), facts=FACTS, **kw))


def _openai_text(chunks):
    return "".join((c.choices[0].delta.content or "") for c in chunks if c.choices)


def _anthropic_text(events):
    return "".join(e.delta.text for e in events if e.type == "content_block_delta")


def test_openai_whole_message(server, oai, caplog):
    openai, make = oai
    server.reset(GOOD)
    r = make().chat.completions.create(model="m", messages=ASK)
    assert isinstance(r, openai.types.chat.ChatCompletion) and r.choices[0].message.content == GOOD
    server.reset(BAD)
    with pytest.raises(HallucinationError) as exc:
        make().chat.completions.create(model="m", messages=ASK)
    assert exc.value.score is not None and not exc.value.score.approved
    assert isinstance(exc.value.response, openai.types.chat.ChatCompletion)
    with caplog.at_level(logging.WARNING, logger="director_fast.client_guard"):
        r = make(on_fail="log").chat.completions.create(model="m", messages=ASK)
    assert r.choices[0].message.content == BAD and "rejected" in caplog.text
    r = make(on_fail="metadata").chat.completions.create(model="m", messages=ASK)
    assert r.director_approved is False and r.director_score.score < 0.3
    # the rest of the client is the SDK's own
    assert make().base_url == openai.OpenAI(base_url=server.url + "/v1", api_key="t").base_url


def test_openai_tool_call_arguments_are_checked(server, oai):
    _, make = oai
    server.reset("", tools=[("send_email", {"to": 42})])
    with pytest.raises(HallucinationError, match="send_email") as exc:
        make().chat.completions.create(model="m", messages=ASK, tools=[MAIL_TOOL])
    rep = exc.value.tool_reports["send_email"]
    assert rep.score == 0.0 and rep.violations[0].keyword == "type"
    server.reset("", tools=[("send_email", {"to": "ana@acme.io"})])
    r = make(on_fail="metadata").chat.completions.create(model="m", messages=ASK, tools=[MAIL_TOOL])
    assert r.director_approved and r.director_tool_reports["send_email"].score == 1.0
    assert server.script.requests[-1]["body"]["tools"][0]["function"]["name"] == "send_email"


def test_openai_stream_passes_sdk_chunks(server, oai):
    openai, make = oai
    server.reset(GOOD)
    stream = make().chat.completions.create(model="m", messages=ASK, stream=True)
    chunks = list(stream)
    assert all(isinstance(c, openai.types.chat.ChatCompletionChunk) for c in chunks)
    assert _openai_text(chunks) == GOOD
    assert chunks[-1].choices[0].finish_reason == "stop"  # nothing dropped after the text
    assert not stream.session.halted and stream.director_halt is None


def test_openai_stream_halts_at_last_safe_chunk_and_closes_upstream(server, oai):
    _, make = oai
    s = server.reset(BAD, delay_s=0.003)
    stream = make().chat.completions.create(model="m", messages=ASK, stream=True)
    got = []
    with pytest.raises(StreamHalted) as exc:
        for c in stream:
            got.append(c)
    assert _openai_text(got) == FIRST
    assert exc.value.session.halted and exc.value.session is stream.session
    assert s.done.wait(10)
    assert s.events_sent < s.events_total and s.client_gone.is_set()


def test_openai_stream_metadata_and_log(server, oai, caplog):
    _, make = oai
    server.reset(BAD)
    stream = make(on_fail="metadata").chat.completions.create(model="m", messages=ASK, stream=True)
    assert _openai_text(list(stream)) == FIRST
    assert stream.director_halt is not None and stream.director_halt.policy_decision == "halt"
    server.reset(BAD)
    with caplog.at_level(logging.WARNING, logger="director_fast.client_guard"):
        stream = make(on_fail="log").chat.completions.create(model="m", messages=ASK, stream=True)
        assert _openai_text(list(stream)) == FIRST
    assert "halted" in caplog.text


def test_anthropic_whole_message_and_tool_use(server, ant):
    anthropic, make = ant
    server.reset(GOOD)
    r = make().messages.create(model="m", max_tokens=64, messages=ASK, system="Be brief.")
    assert isinstance(r, anthropic.types.Message) and r.content[0].text == GOOD
    server.reset(BAD)
    with pytest.raises(HallucinationError):
        make().messages.create(model="m", max_tokens=64, messages=ASK)
    server.reset("", tools=[("send_email", {"to": "TODO"})])
    with pytest.raises(HallucinationError, match="send_email"):
        make().messages.create(model="m", max_tokens=64, messages=ASK, tools=[MAIL_TOOL_ANTHROPIC])
    # a tool_result block in the conversation is evidence
    server.reset("Acme was founded in 2001.")
    convo = [{"role": "user", "content": "When was Acme founded?"},
             {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                           "content": "Acme was founded in 2001 in Bergen."}]}]
    client = df.guard(anthropic.Anthropic(base_url=server.url, api_key="t", max_retries=0))
    assert client.messages.create(model="m", max_tokens=64, messages=convo).content[0].text


def test_anthropic_stream(server, ant):
    anthropic, make = ant
    server.reset(GOOD)
    events = list(make().messages.create(model="m", max_tokens=64, messages=ASK, stream=True))
    assert _anthropic_text(events) == GOOD and events[-1].type == "message_stop"
    assert events[0].type == "message_start"
    s = server.reset(BAD, delay_s=0.003)
    got = []
    with pytest.raises(StreamHalted):
        for e in make().messages.create(model="m", max_tokens=64, messages=ASK, stream=True):
            got.append(e)
    assert _anthropic_text(got) == FIRST and got[-1].type == "content_block_delta"
    assert s.done.wait(10) and s.events_sent < s.events_total


async def test_async_clients(server):
    openai = pytest.importorskip("openai")
    anthropic = pytest.importorskip("anthropic")
    oc = df.guard(openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="t", max_retries=0), facts=FACTS)
    server.reset(GOOD)
    r = await oc.chat.completions.create(model="m", messages=ASK)
    assert r.choices[0].message.content == GOOD
    server.reset(BAD, delay_s=0.003)
    stream = await oc.chat.completions.create(model="m", messages=ASK, stream=True)
    got = []
    with pytest.raises(StreamHalted):
        async for c in stream:
            got.append(c)
    assert _openai_text(got) == FIRST
    ac = df.guard(anthropic.AsyncAnthropic(base_url=server.url, api_key="t", max_retries=0), facts=FACTS,
                  on_fail="metadata")
    server.reset(BAD)
    r = await ac.messages.create(model="m", max_tokens=64, messages=ASK)
    assert r.director_approved is False
    server.reset(GOOD)
    stream = await ac.messages.create(model="m", max_tokens=64, messages=ASK, stream=True)
    assert _anthropic_text([e async for e in stream]) == GOOD


def test_migration_page_lists_every_director_ai_name():
    director_ai = pytest.importorskip("director_ai")
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "migration.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`"): line for line in page.splitlines()
            if line.startswith("| `")}
    assert set(director_ai.__all__) <= set(rows)
    for name, line in rows.items():
        if "same name" in line:  # the names said to be shared really are
            assert hasattr(df, name), name

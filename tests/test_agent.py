"""CoherenceAgent: candidate selection, fallbacks, halt evidence, safety events, async and
streaming variants (issue 18, CoherenceAgent part)."""

from __future__ import annotations

import json

import asyncio
import re
import threading
import time
from pathlib import Path

import pytest

import director_fast as df
from director_fast.stream.agent import DEFAULT_ABSTAIN_MESSAGE, CoherenceAgent
from director_fast.safety.event import validate_safety_event_payload
from director_fast.errors import ConfigError, InputTypeError, UnknownTenantError, ValidationError

CTX = ("Acme was founded in 1998 in Lund. Acme has 120 employees. "
       "The head office is in Malmo.")
Q = "When was Acme founded?"
WRONG = "Acme was founded in 2005."
RIGHT = "Acme was founded in 1998."
RIGHT_LONG = "Acme was founded in Lund in 1998."
OFF = "Acme has 300 employees."


def fixed(*texts):
    """A generator returning ``texts`` (the first n), counting its calls and arguments."""
    calls = []

    def gen(prompt, n):
        calls.append((prompt, n))
        return list(texts[:n])

    gen.calls = calls
    return gen


class CountingScorer:
    """A CoherenceScorer wrapper that records the responses it reviewed."""

    def __init__(self, **kw):
        self.inner = df.CoherenceScorer(use_nli=False, **kw)
        self.threshold = self.inner.threshold
        self.scorer_path = self.inner.scorer_path
        self.seen = []

    def review(self, prompt, action, session=None, tenant_id="", *, context=None, system=None, messages=None):
        self.seen.append(action)
        return self.inner.review(prompt, action, tenant_id=tenant_id, context=context, messages=messages)


def _event_view(ev):
    d = ev.to_dict()
    for k in ("event_id", "timestamp", "latency_ms"):
        d.pop(k)
    return d


def _view(r: df.ReviewResult):
    """A result without the per-call ids, timestamps and latencies."""
    d = r.to_dict()
    d["safety_events"] = [_event_view(e) for e in r.safety_events]
    return d


def _check_events(r: df.ReviewResult):
    for ev in r.safety_events:
        assert validate_safety_event_payload(ev.to_dict()) == ev
    assert df.ReviewResult.from_dict(r.to_dict()) == r


# ---- selection ----------------------------------------------------------------------------------

def test_first_approved_candidate_is_delivered_and_later_ones_are_not_scored():
    scorer = CountingScorer()
    gen = fixed(RIGHT, WRONG, OFF)
    r = CoherenceAgent(gen, scorer).process(Q, context=CTX)
    assert gen.calls == [(Q, 3)]
    assert scorer.seen == [RIGHT]
    assert r.output == RIGHT and not r.halted and not r.fallback_used
    assert r.candidates_evaluated == 1
    assert r.coherence.approved and r.coherence.score >= 0.6
    assert r.halt_evidence is None
    [ev] = r.safety_events
    assert (ev.hook_id, ev.hook_scope, ev.policy_decision, ev.halt_reason) == (
        "agent.candidate", "agent", "allow", "candidate_approved")
    assert ev.attributes == {"candidate_index": "0", "claims": "1", "supported_claims": "1"}
    assert ev.threshold == 0.5 and ev.observed_score == r.coherence.score and ev.evidence_refs == ()
    _check_events(r)


def test_rejected_candidate_then_approved_one():
    r = CoherenceAgent(fixed(WRONG, RIGHT, OFF)).process(Q, context=CTX)
    assert r.output == RIGHT and r.candidates_evaluated == 2 and not r.halted
    block, allow = r.safety_events
    assert (block.policy_decision, block.halt_reason) == ("block", "candidate_rejected")
    attrs = dict(block.attributes)
    digests = {k: attrs.pop(k) for k in ("claim_sha256", "evidence_sha256")}
    assert attrs == {"candidate_index": "0", "claims": "1", "supported_claims": "0",
                     "claim_index": "0", "verdict": "contradicted", "signal": "number",
                     "cause": "contradicted_number"}
    # references of the deciding claim and evidence (SHA-256 digests), never their text
    from director_fast.types.explanation import text_sha256

    assert digests["claim_sha256"] == text_sha256(WRONG) and len(digests["evidence_sha256"]) == 64
    assert WRONG.strip().rstrip(".") not in json.dumps(block.to_dict(), ensure_ascii=False)
    assert block.evidence_refs == ("context:0",) and block.observed_score < 0.5
    assert allow.attributes["candidate_index"] == "1" and allow.policy_decision == "allow"
    _check_events(r)


def test_stop_on_first_false_takes_the_best_approved_candidate():
    # "unsupported='warn'": an unsupported claim is approved in the warning band, below a supported one
    scorer = df.CoherenceScorer(use_nli=False, unsupported="warn")
    texts = ("Acme has a rooftop cafeteria.", WRONG, RIGHT)
    first = CoherenceAgent(fixed(*texts), scorer).process(Q, context=CTX)
    assert first.output == texts[0] and first.candidates_evaluated == 1
    assert first.coherence.warning and first.safety_events[0].policy_decision == "warn"
    best = CoherenceAgent(fixed(*texts), scorer, stop_on_first=False).process(Q, context=CTX)
    assert best.output == RIGHT and best.candidates_evaluated == 3
    assert [e.halt_reason for e in best.safety_events] == [
        "candidate_approved_not_chosen", "candidate_rejected", "candidate_approved"]
    assert best.coherence.score > first.coherence.score


def test_ties_go_to_the_earliest_candidate():
    r = CoherenceAgent(fixed(RIGHT, RIGHT), stop_on_first=False, candidates=2).process(Q, context=CTX)
    assert r.safety_events[0].halt_reason == "candidate_approved"
    assert r.safety_events[1].halt_reason == "candidate_approved_not_chosen"


# ---- fallbacks ----------------------------------------------------------------------------------

def test_abstain_fallback_with_halt_evidence_of_the_best_rejected_candidate():
    scorer = df.CoherenceScorer(use_nli=False)
    r = CoherenceAgent(fixed(WRONG, OFF, "Acme was founded in 1990."), scorer).process(
        Q, context=CTX, tenant_id="acme", request_id="req-7")
    assert r.output == DEFAULT_ABSTAIN_MESSAGE
    assert r.halted and r.fallback_used and r.candidates_evaluated == 3
    scores = [scorer.score(Q, t, context=CTX).score for t in (WRONG, OFF, "Acme was founded in 1990.")]
    assert r.coherence.score == max(scores) < 0.5
    he = r.halt_evidence
    assert he.reason == "hard_limit" and he.last_score == max(scores)
    assert [c.source for c in he.evidence_chunks] == ["context:0"]
    assert he.nli_scores == r.coherence.evidence.per_claim_divergences
    t = he.trace_attribution
    assert (t.fact_source, t.retrieval_path, t.token_offset, t.threshold) == ("context:0", "context", 0, 0.5)
    assert t.scorer_path == scorer.scorer_path
    assert t.causal_contribution == pytest.approx(0.5 - max(scores))
    *blocks, halt = r.safety_events
    assert [b.policy_decision for b in blocks] == ["block"] * 3
    assert [b.attributes["candidate_index"] for b in blocks] == ["0", "1", "2"]
    assert (halt.hook_id, halt.hook_scope, halt.policy_decision, halt.halt_reason) == (
        "agent.fallback", "agent", "halt", "hard_limit")
    assert halt.attributes == {"candidates_evaluated": "3", "fallback": "abstain"}
    assert halt.trace_attribution == t and halt.evidence_refs == ("context:0",)
    assert all(e.tenant_id == "acme" and e.request_id == "req-7" for e in r.safety_events)
    _check_events(r)


def test_extractive_fallback_quotes_the_evidence_sentences_for_the_prompt():
    agent = CoherenceAgent(fixed(WRONG, OFF), fallback="extractive", candidates=2)
    r = agent.process(Q, context=CTX)
    assert r.output == "Acme was founded in 1998 in Lund."
    assert r.fallback_used and r.halted
    assert r.safety_events[-1].attributes["fallback"] == "extractive"
    r2 = agent.process("Where is the head office, and when was Acme founded?", context=CTX)
    assert r2.output == "The head office is in Malmo. Acme was founded in 1998 in Lund."
    # nothing in the evidence shares a word with the prompt: the abstain message
    r3 = agent.process("Is the cafeteria vegan?", context=CTX)
    assert r3.output == DEFAULT_ABSTAIN_MESSAGE and r3.fallback_used


def test_extractive_fallback_reads_the_tenants_knowledge():
    kb = df.KnowledgeBase()
    kb.add("Acme was founded in 1998 in Lund.", source="history.md", tenant="acme")
    kb.add("Globex was founded in 1975.", source="globex.md", tenant="globex")
    agent = CoherenceAgent(fixed(WRONG), df.CoherenceScorer(use_nli=False, knowledge=kb), fallback="extractive", candidates=1,
                           tenant_id="acme")
    r = agent.process(Q)
    assert r.output == "Acme was founded in 1998 in Lund." and r.fallback_used
    t = r.halt_evidence.trace_attribution
    assert t.retrieval_path == "knowledge_base" and t.fact_source == "history.md"
    assert all(e.tenant_id == "acme" for e in r.safety_events)
    assert agent.extractive_answer("When was Globex founded?", tenant_id="globex") == "Globex was founded in 1975."
    with pytest.raises(UnknownTenantError):
        agent.process(Q, tenant_id="initech")


def test_custom_fallback_message_and_abstain_message():
    r = CoherenceAgent(fixed(WRONG), fallback="Please ask a colleague.", candidates=1).process(Q, context=CTX)
    assert r.output == "Please ask a colleague." and r.safety_events[-1].attributes["fallback"] == "message"
    r = CoherenceAgent(fixed(WRONG), abstain_message="No answer.", candidates=1).process(Q, context=CTX)
    assert r.output == "No answer."


def test_default_scorer_without_context_always_falls_back():
    r = CoherenceAgent(fixed(RIGHT)).process(Q)
    assert r.fallback_used and r.output == DEFAULT_ABSTAIN_MESSAGE
    assert r.coherence.attributions[0].verdict == "not_found"
    assert r.halt_evidence.trace_attribution.retrieval_path == "none"
    assert r.halt_evidence.evidence_chunks == []


def test_blank_candidates_are_dropped():
    r = CoherenceAgent(fixed(" ", "", RIGHT)).process(Q, context=CTX)
    assert r.output == RIGHT and r.candidates_evaluated == 1
    assert r.safety_events[0].attributes["candidate_index"] == "0"
    r = CoherenceAgent(fixed("", "\n")).process(Q, context=CTX)
    assert r.fallback_used and r.halt_evidence.reason == "no_candidates"


def test_a_scorer_without_messages_gets_the_users_turn_and_tool_evidence():
    inner = df.CoherenceScorer(use_nli=False)
    seen = []

    class Plain:
        threshold = 0.5

        def review(self, prompt, action, tenant_id="", *, context=None):
            seen.append((prompt, context))
            return inner.review(prompt, action, tenant_id=tenant_id, context=context)

    msgs = [{"role": "tool", "content": CTX}]
    r = CoherenceAgent(fixed(RIGHT), Plain()).process(Q, messages=msgs)
    assert seen == [(Q, [CTX])] and r.output == RIGHT


def test_no_candidates_falls_back_with_reason_no_candidates():
    r = CoherenceAgent(fixed()).process(Q, context=CTX)
    assert r.fallback_used and r.halted and r.candidates_evaluated == 0 and r.coherence is None
    assert r.halt_evidence.reason == "no_candidates" and r.halt_evidence.last_score == 0.0
    [ev] = r.safety_events
    assert ev.halt_reason == "no_candidates" and ev.attributes["candidates_evaluated"] == "0"
    _check_events(r)


def test_a_source_label_that_is_not_tenant_safe_becomes_a_chunk_reference():
    kb = df.KnowledgeBase()
    kb.add("Acme was founded in 1998.", source="pwd=Hunter2Hunter2xY", tenant="t")
    r = CoherenceAgent(fixed(WRONG), df.CoherenceScorer(use_nli=False, knowledge=kb), candidates=1, tenant_id="t").process(Q)
    assert r.safety_events[0].evidence_refs == ("chunk:0",)
    assert r.safety_events[-1].evidence_refs == ("chunk:0",)
    assert r.safety_events[-1].trace_attribution.fact_source == "chunk:0"
    # the structured evidence itself keeps the chunk (it is not a tenant-safe record)
    assert r.halt_evidence.evidence_chunks[0].source == "pwd=Hunter2Hunter2xY"


# ---- inputs passed on ---------------------------------------------------------------------------

def test_context_and_messages_reach_a_generator_that_accepts_them():
    seen = {}

    def gen(prompt, n, *, context=None, messages=None):
        seen.update(prompt=prompt, n=n, context=context, messages=messages)
        return [RIGHT]

    msgs = [{"role": "system", "content": "Be brief."}, {"role": "tool", "content": CTX}]
    r = CoherenceAgent(gen, candidates=2).process(Q, messages=msgs)
    assert seen == {"prompt": Q, "n": 2, "context": None, "messages": msgs + [{"role": "user", "content": Q}]}
    assert r.output == RIGHT and not r.fallback_used  # the tool message is evidence
    r = CoherenceAgent(gen).process(Q, context=CTX)
    assert seen["context"] == CTX and seen["messages"] is None
    # messages already ending with the user's turn
    full = msgs + [{"role": "user", "content": Q}]
    CoherenceAgent(gen).process(messages=full)
    assert seen["prompt"] == Q and seen["messages"] == full
    # a plain (prompt, n) generator is not handed them
    plain = fixed(RIGHT)
    assert CoherenceAgent(plain).process(Q, context=CTX).output == RIGHT


# ---- async ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("texts,kw", [
    ((RIGHT, WRONG, OFF), {}),
    ((WRONG, RIGHT, OFF), {}),
    ((WRONG, OFF, "Acme was founded in 1990."), {}),
    ((WRONG, OFF), {"fallback": "extractive"}),
    (("Acme has a rooftop cafeteria.", WRONG, RIGHT), {"stop_on_first": False}),
    ((), {}),
])
def test_aprocess_equals_process(texts, kw):
    agent = CoherenceAgent(fixed(*texts), **kw)
    want = agent.process(Q, context=CTX, tenant_id="t", request_id="r")
    got = asyncio.run(agent.aprocess(Q, context=CTX, tenant_id="t", request_id="r"))
    assert _view(got) == _view(want)

    async def agen(prompt, n):
        return list(texts[:n])

    got2 = asyncio.run(CoherenceAgent(agen, **kw).aprocess(Q, context=CTX, tenant_id="t", request_id="r"))
    assert _view(got2) == _view(want)


def test_aprocess_scores_candidates_concurrently_with_a_sync_scorer():
    inner = df.CoherenceScorer(use_nli=False)
    barrier = threading.Barrier(3, timeout=10)

    class Sync:
        threshold = 0.5

        def review(self, prompt, action, tenant_id="", *, context=None):
            barrier.wait()  # passes only when all three candidates are being scored at once
            return inner.review(prompt, action, tenant_id=tenant_id, context=context)

    r = asyncio.run(CoherenceAgent(fixed(WRONG, OFF, RIGHT), Sync()).aprocess(Q, context=CTX))
    assert r.output == RIGHT and r.candidates_evaluated == 3


def test_aprocess_scores_candidates_concurrently_with_an_async_scorer_and_cancels_the_rest():
    inner = df.CoherenceScorer(use_nli=False)
    started = []

    class Async:
        threshold = 0.5

        async def review(self, prompt, action, tenant_id="", *, context=None):
            started.append(action)
            if action != RIGHT:
                await asyncio.sleep(30)  # cancelled once the first candidate is approved
            return inner.review(prompt, action, tenant_id=tenant_id, context=context)

    t0 = time.monotonic()
    r = asyncio.run(CoherenceAgent(fixed(RIGHT, WRONG, OFF), Async()).aprocess(Q, context=CTX))
    assert time.monotonic() - t0 < 10
    assert sorted(started) == sorted([RIGHT, WRONG, OFF])  # all three started together
    assert r.output == RIGHT and r.candidates_evaluated == 1


# ---- errors --------------------------------------------------------------------------------------

def test_configuration_errors_name_the_argument():
    gen = fixed(RIGHT)
    with pytest.raises(InputTypeError):
        CoherenceAgent("not callable")
    with pytest.raises(InputTypeError):
        CoherenceAgent(gen, scorer=object())
    for kw, field in [({"candidates": 0}, "candidates"), ({"candidates": 65}, "candidates"),
                      ({"candidates": True}, "candidates"), ({"fallback": " "}, "fallback"),
                      ({"abstain_message": ""}, "abstain_message"),
                      ({"extractive_sentences": 0}, "extractive_sentences"),
                      ({"tenant_id": "a\x00b"}, "tenant_id"), ({"tenant_id": "x" * 129}, "tenant_id")]:
        with pytest.raises(ConfigError) as e:
            CoherenceAgent(gen, **kw)
        assert e.value.field == field
    with pytest.raises(InputTypeError):
        CoherenceAgent(gen, stop_on_first="yes")
    with pytest.raises(ConfigError) as e:
        CoherenceAgent(gen).process(Q, request_id="pwd=Hunter2Hunter2xY")
    assert e.value.field == "request_id"


def test_bad_generator_and_scorer_results_raise_typed_errors():
    with pytest.raises(InputTypeError, match="list of str"):
        CoherenceAgent(lambda p, n: RIGHT).process(Q)
    with pytest.raises(InputTypeError, match=r"\[1\]"):
        CoherenceAgent(lambda p, n: [RIGHT, 3]).process(Q)
    with pytest.raises(ValidationError, match="more than"):
        CoherenceAgent(lambda p, n: [RIGHT] * (n + 1)).process(Q)
    with pytest.raises(InputTypeError):
        CoherenceAgent(fixed(RIGHT)).process(b"bytes")

    async def agen(prompt, n):
        return [RIGHT]

    with pytest.raises(InputTypeError, match="aprocess"):
        CoherenceAgent(agen).process(Q)

    class Bad:
        def review(self, prompt, action, tenant_id=""):
            return 0.9

    with pytest.raises(InputTypeError, match="CoherenceScore"):
        CoherenceAgent(fixed(RIGHT), Bad()).process(Q)
    with pytest.raises(InputTypeError, match="CoherenceScore"):
        asyncio.run(CoherenceAgent(fixed(RIGHT), Bad()).aprocess(Q))
    with pytest.raises(InputTypeError, match="score_sentence"):
        CoherenceAgent(fixed(RIGHT), Bad()).stream(Q)


# ---- streaming -----------------------------------------------------------------------------------

def _toks(text):
    return re.findall(r"\S+\s*|\s+", text)


def test_stream_replaces_a_candidate_that_halts_before_delivering_anything():
    texts = iter([WRONG + " Acme has 120 employees.", RIGHT + " Acme has 120 employees."])
    calls = []

    def sgen(prompt):
        calls.append(prompt)
        return iter(_toks(next(texts)))

    st = CoherenceAgent(fixed(), stream_generator=sgen).stream(Q, context=CTX)
    out = "".join(st)
    assert out == RIGHT + " Acme has 120 employees."
    r = st.result
    assert r.output == out and not r.halted and not r.fallback_used and r.candidates_evaluated == 2
    assert len(calls) == 2
    assert [(e.hook_id, e.policy_decision) for e in r.safety_events] == [
        ("streaming.kernel", "halt"), ("agent.candidate", "block"), ("agent.candidate", "allow")]
    assert r.coherence.approved
    _check_events(r)


def test_stream_halt_after_delivery_stops_without_retry():
    calls = []

    def sgen(prompt):
        calls.append(prompt)
        return iter(_toks(RIGHT + " It has 900 employees. The head office is in Malmo."))

    st = CoherenceAgent(fixed(), stream_generator=sgen).stream(Q, context=CTX, tenant_id="t")
    toks = list(st)
    assert "".join(toks) == RIGHT + " "
    r = st.result
    assert r.halted and not r.fallback_used and r.candidates_evaluated == 1 and len(calls) == 1
    assert r.output == RIGHT + " "
    he = r.halt_evidence
    assert he is st.session.halt_evidence_structured
    assert he.reason == "hard_limit" and he.trace_attribution.token_offset == len(toks)
    kinds = [(e.hook_id, e.hook_scope, e.policy_decision) for e in r.safety_events]
    assert kinds == [("streaming.kernel", "streaming", "halt"), ("agent.candidate", "agent", "block"),
                     ("agent.stream", "agent", "halt")]
    assert r.safety_events[-1].attributes["delivered_tokens"] == str(len(toks))
    assert all(e.tenant_id == "t" for e in r.safety_events)
    _check_events(r)


def test_stream_falls_back_when_every_candidate_halts_at_once():
    st = CoherenceAgent(fixed(WRONG, "Acme was founded in 1990."), candidates=2,
                        fallback="extractive").stream(Q, context=CTX)
    toks = list(st)
    assert toks == ["Acme was founded in 1998 in Lund."]
    r = st.result
    assert r.fallback_used and r.halted and r.candidates_evaluated == 2 and r.output == toks[0]
    assert [e.hook_id for e in r.safety_events] == ["streaming.kernel", "agent.candidate"] * 2 + ["agent.fallback"]
    _check_events(r)


def test_astream_equals_stream():
    cases = [fixed(WRONG, RIGHT), fixed(WRONG, "Acme was founded in 1990."),
             fixed(RIGHT + " It has 900 employees.")]
    for gen in cases:
        agent = CoherenceAgent(gen, fallback="extractive")
        st = agent.stream(Q, context=CTX)
        want = list(st)

        async def run():
            ast = agent.astream(Q, context=CTX)
            return [t async for t in ast], ast

        got, ast = asyncio.run(run())
        assert got == want
        assert _view(ast.result) == _view(st.result)

    async def asgen(prompt):
        for t in _toks(RIGHT):
            yield t

    async def run2():
        ast = CoherenceAgent(fixed(), stream_generator=asgen).astream(Q, context=CTX)
        return "".join([t async for t in ast]), ast.result

    text, res = asyncio.run(run2())
    assert text == RIGHT and not res.halted


# ---- docs ---------------------------------------------------------------------------------------

def test_docs_examples_run():
    page = (Path(__file__).resolve().parents[1] / "docs" / "agent.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/agent.md", "exec"), {})


def test_a_raising_token_source_is_recorded_by_the_agent():
    import director_fast as df

    def source(prompt):
        yield "Acme was founded in 1998. "
        raise ConnectionError("upstream gone")

    docs = "Acme was founded in 1998 in Lund."
    st = df.CoherenceAgent(lambda p, n: [], stream_generator=source).stream("When?", context=docs)
    with pytest.raises(ConnectionError):
        for _tok in st:
            pass
    assert st.result is not None and st.result.halted and not st.result.fallback_used
    assert st.session.halt_reason == "upstream_error"
    hooks = [e.hook_id for e in st.result.safety_events]
    assert "agent.stream" in hooks


async def test_a_raising_async_token_source_is_recorded_by_the_agent():
    import director_fast as df

    async def source(prompt):
        yield "Acme was founded in 1998. "
        raise ConnectionError("upstream gone")

    docs = "Acme was founded in 1998 in Lund."
    st = df.CoherenceAgent(lambda p, n: [], stream_generator=source).astream("When?", context=docs)
    with pytest.raises(ConnectionError):
        async for _tok in st:
            pass
    assert st.result is not None and st.result.halted
    assert "agent.stream" in [e.hook_id for e in st.result.safety_events]

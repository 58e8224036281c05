"""Every output explains its verdict: the Explanation record, its causes and suggestions, and each
place it is shown (HallucinationError, client metadata, SafetyEvents, stream fallbacks)."""

from __future__ import annotations

import asyncio
import json
import logging
from types import SimpleNamespace

import pytest

import director_fast as df
from director_fast.errors import ConfigError, HallucinationError, InputTypeError, StreamHalted
from director_fast.jobs.guard_job import tokenize_for_stream
from director_fast.types.explanation import CAUSES, SUGGESTIONS, ClaimExplanation, Explanation, text_sha256
from director_fast.types.results import ClaimAttribution, CoherenceScore, ScoringEvidence
from director_fast.verify.explain import claim_cause, explain, explain_halt, halt_cause, suggestion_for

SHOP = ["Standard delivery costs £4.95.", "Club members save 10% on full-price items.",
        "The shop is open on Sundays.", "Returns are accepted within 30 days."]


def _review(response: str, context=SHOP, **kw):
    scorer = df.CoherenceScorer(threshold=0.3, **kw)
    ok, cs = scorer.review("What do I need to know?", response, context=context)
    return ok, cs, explain(cs, threshold=scorer.threshold, approved=ok)


# --- the record and its causes ---------------------------------------------------------------

CAUSE_CASES = [
    # (response, context, cause, deciding claim, deciding evidence sentence)
    ("Club members save 15% on full-price items.", SHOP, "contradicted_number",
     "Club members save 15% on full-price items.", "Club members save 10% on full-price items."),
    ("Returns are accepted within 60 days.", SHOP, "contradicted_number",
     "Returns are accepted within 60 days.", "Returns are accepted within 30 days."),
    ("The shop is closed on Sundays.", SHOP, "contradicted_fact",
     "The shop is closed on Sundays.", "The shop is open on Sundays."),
    ("Standard delivery costs £4.95. We also rent kayaks by the hour.", SHOP, "missing_fact",
     "We also rent kayaks by the hour.", ""),
    ("Standard delivery costs £4.95.", None, "no_evidence", "Standard delivery costs £4.95.", ""),
    ("Der Standardversand kostet 4,95 £ und dauert drei Werktage.", SHOP, "not_english",
     "Der Standardversand kostet 4,95 £ und dauert drei Werktage.", ""),
]


@pytest.mark.parametrize("response,context,cause,claim,evidence", CAUSE_CASES)
def test_each_cause_names_claim_evidence_and_its_own_suggestion(response, context, cause, claim, evidence):
    ok, _cs, exp = _review(response, context)
    assert not ok and exp.cause == cause and exp.suggestion == SUGGESTIONS[cause]
    d = exp.deciding
    assert (d.claim, d.evidence, d.cause, d.suggestion) == (claim, evidence, cause, SUGGESTIONS[cause])
    if evidence:
        assert d.source.startswith("context:") and evidence in exp.summary and claim in exp.summary


def test_unknown_tenant_cause():
    kb = df.KnowledgeBase()
    kb.add("Standard delivery costs £4.95.", tenant="acme")
    scorer = df.CoherenceScorer(knowledge=kb, allow_unknown_tenant=True)
    ok, cs = scorer.review("", "Standard delivery costs £4.95.", tenant_id="other")
    exp = explain(cs)
    assert not ok and exp.cause == "unknown_tenant" and "tenant" in exp.suggestion
    assert exp.deciding.signal == "unknown_tenant"


def _score(*atts: ClaimAttribution, truncated=None, approved=False, **kw) -> CoherenceScore:
    ev = ScoringEvidence(chunks=[], nli_premise="", nli_hypothesis="", nli_score=0.0, attributions=list(atts),
                         evidence_truncated=truncated)
    return CoherenceScore(score=0.1 if not approved else 0.9, approved=approved, h_logical=0.0, h_factual=0.9,
                          evidence=ev, **kw)


def _att(verdict="not_found", signal="neutral", probability=None, index=0, divergence=0.9):
    return ClaimAttribution(claim=f"Claim {index}.", claim_index=index, source_sentence="A long passage.",
                            source_index=0, divergence=divergence, supported=verdict == "supported",
                            verdict=verdict, signal=signal, probability=probability,
                            entailment=None if probability is None else probability)


def test_cut_evidence_passage_cause():
    # the pair did not fit the model (signal too_long), or the model judged a cut passage
    assert explain(_score(_att(signal="too_long"))).cause == "evidence_cut"
    exp = explain(_score(_att(probability=0.2), truncated=True))
    assert exp.cause == "evidence_cut" and "split long documents" in exp.suggestion
    assert exp.deciding.probability == 0.2 and "p(supported)=0.20" in exp.summary
    # the same verdict on an uncut passage is a missing fact; a contradiction stays one
    assert explain(_score(_att(probability=0.2), truncated=False)).cause == "missing_fact"
    assert explain(_score(_att("contradicted", "contradiction", 0.1), truncated=True)).cause == "contradicted_fact"


def test_scorer_error_cause_in_a_stream():
    def slow(text):
        raise TimeoutError

    g = df.stream_guard(iter(["The shop ", "opens."]), slow)
    assert "".join(g) == ""
    exp = g.session.explanation
    assert exp.cause == "scorer_error" and exp.halt_reason == "callback_timeout" and exp.failing == []
    assert g.session.halt_evidence_structured.suggested_action == SUGGESTIONS["scorer_error"]

    def broken(text):
        raise RuntimeError("model crashed")

    g = df.stream_guard(iter(["The shop ", "opens."]), broken)
    with pytest.raises(RuntimeError):
        list(g)
    assert g.session.explanation.cause == "scorer_error"


@pytest.mark.parametrize("verdict,signal,kw,cause", [
    ("supported", "coverage", {}, ""),
    ("contradicted", "number", {}, "contradicted_number"),
    ("contradicted", "unit", {}, "contradicted_number"),
    ("contradicted", "entity", {}, "contradicted_fact"),
    ("contradicted", "contradiction", {"model_judged": True}, "contradicted_fact"),
    ("not_found", "coverage", {}, "missing_fact"),
    ("not_found", "number", {}, "missing_fact"),
    ("not_found", "no_evidence", {}, "no_evidence"),
    ("not_found", "unknown_tenant", {}, "unknown_tenant"),
    ("not_found", "too_long", {}, "evidence_cut"),
    ("not_found", "neutral", {"model_judged": True, "evidence_truncated": True}, "evidence_cut"),
    ("not_found", "neutral", {"model_judged": False, "evidence_truncated": True}, "missing_fact"),
])
def test_claim_cause_table(verdict, signal, kw, cause):
    assert claim_cause(verdict, signal, **kw) == cause


@pytest.mark.parametrize("reason,cause", [("scorer_error", "scorer_error"), ("callback_timeout", "scorer_error"),
                                          ("upstream_error", "upstream_error"), ("kernel_inactive", "guard_off"),
                                          ("window_avg", "below_threshold"), ("hard_limit", "below_threshold")])
def test_halt_cause_table(reason, cause):
    assert halt_cause(reason) == cause and suggestion_for(cause) == SUGGESTIONS[cause]


def test_suggestions_are_distinct_tenant_safe_and_cover_every_cause():
    assert set(SUGGESTIONS) == CAUSES and len(set(SUGGESTIONS.values())) == len(SUGGESTIONS)
    from director_fast.safety.tenant import tenant_safety_violation

    for text in SUGGESTIONS.values():
        assert tenant_safety_violation(text) is None and "Reduce generation temperature" not in text


def test_non_claim_rejections_have_causes():
    assert explain(_score(strict_mode_rejected=True)).cause == "strict_mode"
    assert explain(_score(injection_risk=0.8)).cause == "injection"
    assert explain(_score()).cause == "below_threshold"
    ok = explain(_score(_att("supported", "coverage", divergence=0.0), approved=True))
    assert ok.approved and ok.cause == "" and ok.suggestion == "" and ok.summary.startswith("approved: 1 claim")


def test_failing_claims_order_render_levels_and_round_trip():
    exp = explain(_score(_att("not_found", index=0, divergence=0.9), _att("contradicted", "number", index=1,
                                                                           divergence=0.5),
                         _att("supported", "coverage", index=2, divergence=0.0)))
    assert [c.claim_index for c in exp.failing] == [1, 0] and [c.claim_index for c in exp.supported] == [2]
    assert exp.cause == "contradicted_number" and "(+1 more failing claim(s))" in exp.summary
    assert Explanation.from_dict(exp.to_dict()) == exp
    assert exp.render("none") is None
    assert "supported" not in exp.render("failing") and exp.render("all")["supported"][0]["claim_index"] == 2
    assert exp.render()["summary"] == exp.summary
    json.dumps(exp.render("all"))
    with pytest.raises(ConfigError) as e:
        exp.render("everything")
    assert e.value.field == "explain"
    with pytest.raises(InputTypeError):
        explain("not a score")  # type: ignore[arg-type]


def test_references_carry_digests_never_text():
    exp = explain(_score(_att("contradicted", "number")))
    refs = exp.references()
    assert refs["claim_sha256"] == text_sha256("Claim 0.") and refs["evidence_sha256"] == text_sha256("A long passage.")
    assert (refs["cause"], refs["verdict"], refs["signal"], refs["claim_index"]) == \
        ("contradicted_number", "contradicted", "number", "0")
    assert not any("Claim 0" in v or "passage" in v for v in refs.values())
    odd = ClaimExplanation(claim="x", claim_index=0, verdict="contradicted", signal="weird signal!")
    assert Explanation(approved=False, score=0.1, threshold=0.3, cause="contradicted_fact", suggestion="",
                       failing=[odd]).references()["signal"] == "other"


# --- streams: halt explanation, SafetyEvent references, fallback text -------------------------

WRONG = "Club members save 15% on full-price items. Delivery is quick."


def test_halted_stream_explains_and_its_event_holds_references_only():
    scorer = df.CoherenceScorer(threshold=0.3)
    g = df.stream_guard(tokenize_for_stream(WRONG), scorer, context=SHOP)
    assert "".join(g) == ""
    s = g.session
    exp = s.explanation
    assert exp.halt_reason == "hard_limit" and exp.cause == "contradicted_number"
    d = exp.deciding
    assert (d.claim, d.evidence, d.source) == ("Club members save 15% on full-price items.",
                                              "Club members save 10% on full-price items.", "context:1")
    assert s.halt_evidence_structured.suggested_action == SUGGESTIONS["contradicted_number"]
    ev = s.safety_events[-1]
    attrs = ev.attributes
    assert attrs["cause"] == "contradicted_number" and attrs["signal"] == "number"
    assert attrs["claim_sha256"] == text_sha256(d.claim) and attrs["evidence_sha256"] == text_sha256(d.evidence)
    payload = json.dumps(ev.to_dict(), ensure_ascii=False)
    assert "15%" not in payload and "10%" not in payload and "members" not in payload.lower()
    df.validate_safety_event_payload(ev.to_dict())


def test_every_halt_no_longer_gets_the_same_suggestion():
    scorer = df.CoherenceScorer(threshold=0.3)
    seen = set()
    for text in ("Club members save 15% on full-price items.", "The shop is closed on Sundays.",
                 "We also rent kayaks by the hour."):
        g = df.stream_guard(tokenize_for_stream(text), scorer, context=SHOP)
        list(g)
        assert g.session.halted
        seen.add(g.session.halt_evidence_structured.suggested_action)
    assert len(seen) == 3


FALLBACK = " Sorry, I can't confirm that; please check with our staff."


def test_on_halt_text_sync_is_off_by_default_and_appended_after_a_halt():
    scorer = df.CoherenceScorer(threshold=0.3)
    text = "The shop is open on Sundays. " + WRONG
    plain = "".join(df.stream_guard(tokenize_for_stream(text), scorer, context=SHOP))
    assert plain == "The shop is open on Sundays. "
    g = df.stream_guard(tokenize_for_stream(text), scorer, context=SHOP, on_halt_text=FALLBACK)
    out = list(g)
    assert "".join(out) == plain + FALLBACK and out[-1] == FALLBACK
    assert g.session.output == plain  # the fallback is not model output
    # not halted: nothing is added
    ok = "".join(df.stream_guard(tokenize_for_stream("The shop is open on Sundays."), scorer, context=SHOP,
                                 on_halt_text=FALLBACK))
    assert ok == "The shop is open on Sundays."
    # raise_on_halt: the fallback comes first, then StreamHalted
    g = df.stream_guard(tokenize_for_stream(text), scorer, context=SHOP, on_halt_text=FALLBACK, raise_on_halt=True)
    got = []
    with pytest.raises(StreamHalted):
        for t in g:
            got.append(t)
    assert got[-1] == FALLBACK
    with pytest.raises(InputTypeError):
        df.stream_guard(iter(["x"]), scorer, on_halt_text=5)  # type: ignore[arg-type]


def test_on_halt_text_async():
    scorer = df.CoherenceScorer(threshold=0.3)

    async def run(**kw):
        return [t async for t in df.astream_guard(tokenize_for_stream(WRONG), scorer, context=SHOP, **kw)]

    assert asyncio.run(run()) == []
    assert asyncio.run(run(on_halt_text=FALLBACK)) == [FALLBACK]


# --- guarded clients: error message, metadata on dicts and objects, stream fallback ------------

FACTS = {"Membership": "Club members save 10% on full-price items.", "Delivery": "Standard delivery costs £4.95."}


def _openai_client(response):
    create = lambda **kw: response(kw) if callable(response) else response  # noqa: E731
    return SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))


def _completion(text, as_dict):
    msg = {"role": "assistant", "content": text}
    body = {"choices": [{"index": 0, "message": msg, "finish_reason": "stop"}]}
    if as_dict:
        return body
    return SimpleNamespace(choices=[SimpleNamespace(index=0, message=SimpleNamespace(**msg), finish_reason="stop")])


ASK = [{"role": "user", "content": "Do members get a discount?"}]


def test_hallucination_error_names_claim_evidence_and_suggestion():
    client = df.guard(_openai_client(_completion("Club members save 15% on full-price items.", True)), facts=FACTS)
    with pytest.raises(HallucinationError) as e:
        client.chat.completions.create(model="m", messages=ASK)
    msg = str(e.value)
    assert "Club members save 15% on full-price items." in msg and "Club members save 10% on full-price items." in msg
    assert "contradicted (number)" in msg and SUGGESTIONS["contradicted_number"] in msg and "[Membership]" in msg
    exp = e.value.explanation
    assert isinstance(exp, Explanation) and exp.cause == "contradicted_number" and exp.deciding.source == "Membership"
    assert e.value.score is not None and not e.value.score.approved


@pytest.mark.parametrize("as_dict", [True, False])
def test_metadata_is_attached_to_dict_and_sdk_responses(as_dict):
    client = df.guard(_openai_client(_completion("Club members save 15% on full-price items.", as_dict)),
                      facts=FACTS, on_fail="metadata")
    out = client.chat.completions.create(model="m", messages=ASK)
    if as_dict:
        assert out["director_approved"] is False and out["director_score"]["approved"] is False
        exp = out["director_explanation"]
        assert exp["cause"] == "contradicted_number" and "Club members save 10%" in exp["summary"]
        json.dumps(out)  # JSON-safe
    else:
        assert out.director_approved is False and isinstance(out.director_score, CoherenceScore)
        assert out.director_explanation.cause == "contradicted_number"
    good = df.guard(_openai_client(_completion("Club members save 10% on full-price items.", as_dict)),
                    facts=FACTS, on_fail="metadata").chat.completions.create(model="m", messages=ASK)
    approved = good["director_approved"] if as_dict else good.director_approved
    assert approved is True


def test_metadata_that_cannot_be_attached_is_a_warning(caplog):
    class Frozen:
        __slots__ = ("choices",)

        def __init__(self):
            self.choices = [SimpleNamespace(index=0, message=SimpleNamespace(role="assistant",
                                                                            content="Standard delivery is free."))]

    from types import MappingProxyType

    for response in (Frozen(), MappingProxyType(_completion("Standard delivery is free.", True))):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="director_fast.client_guard"):
            df.guard(_openai_client(response), facts=FACTS, on_fail="metadata").chat.completions.create(
                model="m", messages=ASK)
        assert any("records nothing" in r.getMessage() for r in caplog.records)


def _chunks(text, as_dict=True):
    out = []
    for tok in tokenize_for_stream(text):
        out.append({"choices": [{"index": 0, "delta": {"content": tok}, "finish_reason": None}]})
    out.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return out


def _stream_client(text):
    return _openai_client(lambda kw: iter(_chunks(text)))


def _text_of(items):
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in items)


def test_client_stream_on_halt_text_sync_and_async():
    text = "Standard delivery costs £4.95. Club members save 15% on full-price items."
    client = df.guard(_stream_client(text), facts=FACTS, on_fail="metadata", on_halt_text=FALLBACK)
    stream = client.chat.completions.create(model="m", messages=ASK, stream=True)
    got = list(stream)
    assert _text_of(got) == "Standard delivery costs £4.95. " + FALLBACK
    assert stream.director_explanation.cause == "contradicted_number" and stream.director_halt is not None
    # off by default
    plain = df.guard(_stream_client(text), facts=FACTS, on_fail="metadata").chat.completions.create(
        model="m", messages=ASK, stream=True)
    assert _text_of(list(plain)) == "Standard delivery costs £4.95. "
    # on_fail="raise": the fallback, then StreamHalted whose message explains the halt
    s = df.guard(_stream_client(text), facts=FACTS, on_halt_text=FALLBACK).chat.completions.create(
        model="m", messages=ASK, stream=True)
    got = []
    with pytest.raises(StreamHalted) as e:
        for c in s:
            got.append(c)
    assert _text_of(got).endswith(FALLBACK) and "Club members save 10% on full-price items." in str(e.value)

    async def acreate(**kw):
        async def gen():
            for c in _chunks(text):
                yield c
        return gen()

    aclient = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=acreate)))

    async def run():
        g = await df.guard(aclient, facts=FACTS, on_fail="metadata", on_halt_text=FALLBACK).chat.completions.create(
            model="m", messages=ASK, stream=True)
        return [c async for c in g]

    assert _text_of(asyncio.run(run())) == "Standard delivery costs £4.95. " + FALLBACK
    with pytest.raises(InputTypeError):
        df.guard(_stream_client(text), facts=FACTS, on_halt_text=3)  # type: ignore[arg-type]


def test_anthropic_stream_fallback_is_shaped_like_its_events():
    text = "Standard delivery costs £4.95. Club members save 15% on full-price items."
    events = [{"type": "message_start", "message": {}}, {"type": "content_block_start", "index": 0}]
    events += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
               for t in tokenize_for_stream(text)]
    events += [{"type": "content_block_stop", "index": 0},
               {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"}]
    client = SimpleNamespace(messages=SimpleNamespace(create=lambda **kw: iter(events)))
    s = df.guard(client, facts=FACTS, on_fail="log", on_halt_text=FALLBACK).messages.create(
        model="m", max_tokens=100, messages=ASK, stream=True)
    got = [e for e in s if e["type"] == "content_block_delta"]
    assert "".join(e["delta"]["text"] for e in got) == "Standard delivery costs £4.95. " + FALLBACK


# --- verify_numbers aligns by subject; derived prices are derived ------------------------------

STORE = ["Standard delivery costs £4.95.", "Club members save 10% on full-price items.",
         "The store opens at 9:00 and closes at 17:30.", "Our phone line is open 8am-8pm."]


@pytest.mark.parametrize("response,evidence,matches,mismatches,unverifiable", [
    # the example: £72 is 10% off £80 (derived), £80 is about a jacket, not delivery
    ("Members save 10%, so a £80 jacket costs £72.", STORE[:2], [(10.0, "evidence[1]@18:21"), (72.0, "arithmetic")],
     [], [80.0]),
    # a wrong price is not derived, and not flagged against the unrelated delivery charge
    ("Members save 10%, so a £80 jacket costs £70.", STORE[:2], [(10.0, "evidence[1]@18:21")], [], [80.0, 70.0]),
    # a phone line's hours are not the store's opening time
    ("Our phone line is open 8am-8pm.", STORE[:3], [], [], [480.0, 1200.0]),
    ("Our phone line is open 8am-8pm.", STORE, [(480.0, "evidence[3]@23:26"), (1200.0, "evidence[3]@27:30")], [], []),
    # the same subject: a wrong time or price is a mismatch, found among the facts about it
    ("The store opens at 8:00.", [STORE[2], STORE[3]], [], [(480.0, 540.0)], []),
    ("Standard delivery costs £5.95.", STORE, [], [(5.95, 4.95)], []),
    ("Club members save 15% on full-price items.", STORE, [], [(15.0, 10.0)], []),
    # rate applied the other ways: a surcharge and a share
    ("Prices rise by 10%, so a £80 jacket will be £88.", [], [(88.0, "arithmetic")], [], [10.0, 80.0]),
    ("Members save 10%, that is £8 on an £80 jacket.", [], [(8.0, "arithmetic")], [], [10.0, 80.0]),
])
def test_verify_numbers_aligns_by_subject(response, evidence, matches, mismatches, unverifiable):
    r = df.verify_numbers(response, evidence)
    assert [(m.claim_value, m.evidence_ref) for m in r.matches] == matches
    assert [(m.claim_value, m.evidence_value) for m in r.mismatches] == mismatches
    assert [u.value for u in r.unverifiable] == unverifiable
    assert r.valid is (not mismatches)


# --- conversations: number words, transcript turn numbers --------------------------------------


@pytest.mark.parametrize("earlier,now,contradicts", [
    ("Our hire tents sleep four people.", "Our hire tents sleep six people.", True),
    ("Our hire tents sleep 4 people.", "Our hire tents sleep 6 people.", True),
    ("Our hire tents sleep four people.", "Our hire tents sleep 6 people.", True),
    ("Our hire tents sleep four people.", "Our hire tents sleep 4 people.", False),
    ("A hire lasts two weeks.", "A hire lasts three weeks.", True),
    ("A hire lasts two weeks.", "A hire lasts 14 days.", False),
    ("Our hire tents sleep four people.", "One of our tents has a porch.", False),
])
def test_conversation_compares_numbers_written_as_words(earlier, now, contradicts):
    judge = df.CoherenceScorer().judge
    s = df.ConversationSession()
    s.record("", earlier)
    r = s.check(now, judge=judge)
    assert (r.cross_turn_divergence > 0.5) is contradicts and (contradicts or r.cross_turn_divergence == 0.0)
    if contradicts:
        assert r.contradictions[0].earlier_claim == earlier and r.contradictions[0].claim == now


def test_earlier_turn_is_the_transcripts_number():
    scorer = df.CoherenceScorer(knowledge=["Our hire tents sleep four people.", "Delivery costs £4.95."])
    s = df.ConversationSession()  # remembers approved answers only
    ok, _ = scorer.review("Tents?", "Our hire tents sleep four people.", s)              # turn 0
    assert ok
    ok, _ = scorer.review("Delivery?", "Delivery costs £9.", s)                           # turn 1: rejected
    assert not ok and len(s) == 1
    ok, r = scorer.review("Tents again?", "Our hire tents sleep six people.", s)        # turn 2
    c = r.evidence.cross_turn_contradictions[0]
    assert (c.earlier_turn, c.earlier_claim) == (0, "Our hire tents sleep four people.")
    ok, _ = scorer.review("Delivery?", "Delivery costs £4.95.", s)                        # turn 3
    assert [t.turn_index for t in s.turns] == [0, 3]
    ok, r = scorer.review("Delivery?", "Delivery costs £5.", s)                           # turn 4
    assert r.evidence.cross_turn_contradictions[0].earlier_turn == 3


def test_earlier_turn_with_messages_follows_the_assistant_messages():
    scorer = df.CoherenceScorer(knowledge=["Our hire tents sleep four people.", "Delivery costs £4.95."])
    chat = [{"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Anything else?"}, {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Tents?"}, {"role": "assistant", "content": "Our hire tents sleep four people."},
            {"role": "user", "content": "Really?"}]
    s = df.ConversationSession()
    ok, r = scorer.review("", "Our hire tents sleep six people.", s, messages=chat)
    # the repeated "Hello!" is remembered once, yet the tents answer keeps its number: the third
    # assistant message (2)
    c = r.evidence.cross_turn_contradictions[0]
    assert not ok and c.earlier_turn == 2
    ok, _ = scorer.review("", "Our hire tents sleep four people, yes.", s, messages=chat)
    assert ok and s.turns[-1].turn_index == 3
    # a stream with messages numbers its delivered turn the same way
    s2 = df.ConversationSession()
    g = df.stream_guard(tokenize_for_stream("Our hire tents sleep six people."), lambda t: 0.9,
                        messages=chat, conversation=s2)
    list(g)
    assert g.cross_turn.contradictions[0].earlier_turn == 2 and s2.turns[-1].turn_index == 3

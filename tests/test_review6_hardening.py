"""Hardening from the sixth new-user review: str subclasses at the entry points, the stream
guard's derived halt limits, retriever results and failures, knowledge without any fact, and
``.field`` on the type / validation errors of the scorer's entry points."""

from __future__ import annotations

import asyncio
import logging

import numpy as np
import pytest

import director_fast as df
from director_fast.errors import (
    ConfigError,
    DirectorFastError,
    InputTypeError,
    RetrievalError,
    UnknownTenantError,
    ValidationError,
)
from director_fast.verify.knowledge import KnowledgeBase

FACT = "Nordwind Bikes employs 140 people."
WRONG = "Nordwind Bikes employs 9,000 people."


def _verdicts(s):
    return [(a.verdict, a.signal) for a in s.attributions]


# ---- F12: str subclasses (numpy.str_) behave exactly like the equal plain str ----

def _plain(v):
    """``v`` with every str subclass inside replaced by the equal plain str."""
    if isinstance(v, str):
        return str.__str__(v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


@pytest.mark.parametrize("kw", [
    dict(action=np.str_(FACT)),
    dict(action=np.str_(WRONG)),
    dict(prompt=np.str_("How many people work there?"), action=FACT),
    dict(action=FACT, context=[np.str_("Nordwind Bikes employs 140 people. It is based in Oslo.")]),
    dict(action=WRONG, context=np.str_("Nordwind Bikes employs 140 people.")),
    dict(action=FACT, system=np.str_("Answer briefly.")),
    dict(action=FACT, messages=[{"role": np.str_("user"), "content": np.str_("How many?")},
                                {"role": "tool", "content": [np.str_(FACT)]}]),
])
def test_str_subclass_judged_like_plain_str(kw):
    sc = df.CoherenceScorer(use_nli=False, knowledge=[np.str_(FACT)])
    kw = {"prompt": "", **kw}
    ok, s = sc.review(**kw)
    ok2, s2 = sc.review(**_plain(kw))
    assert (ok, s.score, _verdicts(s)) == (ok2, s2.score, _verdicts(s2))
    assert all(type(c.text) is str for c in s.evidence.chunks)


def test_str_subclass_everywhere_else():
    sc = df.CoherenceScorer(use_nli=False)
    ctx = [np.str_(FACT)]
    assert sc.review("", np.str_(FACT), df.ConversationSession(), context=ctx)[0]
    assert asyncio.run(sc.areview("", np.str_(FACT), context=ctx))[0]
    assert sc.review_batch([(np.str_(""), np.str_(FACT))], context=ctx)[0][0]
    assert sc.score_sentence(np.str_(FACT), previous=np.str_("Hi."), context=ctx).score >= sc.threshold
    g = df.stream_guard([np.str_(FACT)], sc, prompt=np.str_("q"), context=ctx, system=np.str_("s"))
    assert "".join(g) == FACT and not g.session.halted

    async def run():
        async def toks():
            yield np.str_(FACT)
        g = df.astream_guard(toks(), sc, context=ctx, messages=[{"role": "system", "content": np.str_("s")}])
        return "".join([t async for t in g]), g.session.halted
    assert asyncio.run(run()) == (FACT, False)


def test_str_subclass_knowledge():
    kb = KnowledgeBase()
    kb.add(np.str_(FACT), source=np.str_("hr.md"), tenant=np.str_("t"))
    kb.add_facts([np.str_("The shop opens at 09:00.")], source=np.str_("hours"), tenant="t")
    ok, s = df.CoherenceScorer(use_nli=False, knowledge=kb).review("", FACT, tenant_id="t")
    assert ok and [type(c.source) for c in s.evidence.chunks] == [str] * len(s.evidence.chunks)
    for knowledge, tenant in (([np.str_(FACT)], ""), ({"t": [np.str_(FACT)]}, "t")):
        assert df.CoherenceScorer(use_nli=False, knowledge=knowledge).review("", FACT, tenant_id=tenant)[0]


# ---- F13: stream_guard's halt limits derived from a third-party scorer ----

class _ThirdParty:
    def __init__(self, threshold, soft_limit=0.95):
        self.threshold = threshold
        if soft_limit is not None:
            self.soft_limit = soft_limit

    def score_sentence(self, sentence, *, prompt="", previous="", tenant_id=""):
        return 0.7


@pytest.mark.parametrize("t", [0.9, np.float32(0.9), np.float64(0.9), np.int64(1), 1])
def test_numeric_scorer_threshold_is_used(t):
    g = df.stream_guard(["A is b. ", "C is d."], _ThirdParty(t, soft_limit=1.0))
    "".join(g)
    assert g.session.halted  # 0.7 < threshold: the derived hard limit applies (not the 0.5 default)


@pytest.mark.parametrize("t, soft, field", [
    ("0.9", 0.95, "scorer.threshold"), (float("nan"), 0.95, "scorer.threshold"), (1.7, 0.95, "scorer.threshold"),
    (-0.1, 0.95, "scorer.threshold"), (True, 0.95, "scorer.threshold"),
    (0.5, "0.9", "scorer.soft_limit"), (0.5, float("nan"), "scorer.soft_limit"), (0.5, 1.2, "scorer.soft_limit"),
    (0.6, 0.4, "scorer.soft_limit"),
])
def test_unusable_scorer_threshold_raises(t, soft, field):
    with pytest.raises(ConfigError) as ei:
        df.stream_guard(["A is b."], _ThirdParty(t, soft))
    assert ei.value.field == field


def test_scorer_without_threshold_keeps_default_config():
    class NoThreshold:
        def score_sentence(self, sentence, *, prompt="", previous="", tenant_id=""):
            return 0.55

    g = df.stream_guard(["A is b. ", "C is d."], NoThreshold())
    assert "".join(g) == "A is b. C is d." and not g.session.halted
    g = df.stream_guard(["A is b."], _ThirdParty(0.6, soft_limit=None))  # soft_limit absent: = threshold
    assert g._state.config.soft_limit == pytest.approx(0.6)


# ---- F14: what a retriever may return ----

class _Returns:
    def __init__(self, value):
        self.value = value

    def retrieve(self, query, k=3, tenant=""):
        return self.value


class _Doc:  # LangChain-style document
    page_content = FACT
    metadata = {"source": "hr.md"}


@pytest.mark.parametrize("value, source", [
    ([FACT], ""), ([df.EvidenceChunk(FACT, 0.1, "kb")], "kb"), ([{"text": FACT, "source": "s"}], "s"),
    ([(FACT, 0.8)], ""), ([_Doc()], "hr.md"), ((FACT,), ""),
])
def test_documented_retriever_results(value, source):
    ok, s = df.CoherenceScorer(use_nli=False, knowledge=_Returns(value)).review("", FACT)
    assert ok and [(c.text, c.source) for c in s.evidence.chunks] == [(FACT, source)]


def test_retriever_returning_none_is_nothing_found():
    ok, s = df.CoherenceScorer(use_nli=False, knowledge=_Returns(None)).review("", FACT)
    assert not ok and [v for v, _signal in _verdicts(s)] == ["not_found"] and not s.evidence.chunks


@pytest.mark.parametrize("value, what", [
    (FACT, "returned str"), ({"text": FACT}, "returned dict"), (5, "returned int"),
    ([None], "item [0]"), ([FACT, 1], "item [1]"), ([{"a": 1}], "without a str 'text'"),
    ([{"text": 3}], "without a str 'text'"), ([object()], "is object"), ([(1, 0.5)], "is tuple"),
])
def test_junk_retriever_results_raise(value, what):
    sc = df.CoherenceScorer(use_nli=False, knowledge=_Returns(value), unsupported="warn")
    with pytest.raises(InputTypeError) as ei:
        sc.review("", WRONG, tenant_id="t")
    assert what in str(ei.value) and "_Returns.retrieve(...)" in str(ei.value)
    assert ei.value.field == "knowledge"


# ---- F15: knowledge without any fact warns like knowledge=None ----

@pytest.mark.parametrize("knowledge", [None, [], [""], ["  ", "\n"]])
def test_empty_knowledge_warns(knowledge, caplog):
    from director_fast import _log

    _log._reset()  # the warning is rate-limited per process
    sc = df.CoherenceScorer(use_nli=False, knowledge=knowledge, unsupported="warn")
    with caplog.at_level(logging.WARNING, logger="director_fast"):
        ok, s = sc.review("", WRONG)
    assert _verdicts(s) == [("not_found", "no_evidence")] and s.warning
    assert sc.retrieve("Nordwind")[1] == "none"
    assert any("no evidence" in r.getMessage() for r in caplog.records)


def test_tenant_with_only_blank_facts_holds_no_knowledge():
    with pytest.raises(UnknownTenantError):
        df.CoherenceScorer(use_nli=False, knowledge={"acme": ["  "]}).review("", WRONG, tenant_id="acme")
    ok, s = df.CoherenceScorer(use_nli=False, knowledge={"acme": [" "], "b": [FACT]}, allow_unknown_tenant=True,
                               unsupported="warn").review("", WRONG, tenant_id="acme")
    assert _verdicts(s) == [("not_found", "unknown_tenant")]


# ---- F17: retriever failures and signatures ----

class _Raises:
    def __init__(self, exc):
        self.exc = exc

    def retrieve(self, query, k=3, tenant=""):
        raise self.exc


def test_retriever_exception_is_wrapped():
    cause = RuntimeError("db down")
    with pytest.raises(RetrievalError) as ei:
        df.CoherenceScorer(use_nli=False, knowledge=_Raises(cause)).review("", FACT)
    assert ei.value.__cause__ is cause and "_Raises.retrieve" in str(ei.value) and "db down" in str(ei.value)
    assert not isinstance(ei.value, OSError)
    with pytest.raises(RetrievalError) as ei:
        df.CoherenceScorer(use_nli=False, knowledge=_Raises(ConnectionError("refused"))).review("", FACT)
    assert isinstance(ei.value, OSError) and isinstance(ei.value.__cause__, ConnectionError)
    assert type(ei.value).__name__ == "RetrievalOSError"


def test_retriever_own_errors_pass_through():
    with pytest.raises(ConfigError):
        df.CoherenceScorer(use_nli=False, knowledge=_Raises(ConfigError("bad", "x"))).review("", FACT)


def test_stream_guard_mapping_of_retriever_failures():
    g = df.stream_guard([FACT], df.CoherenceScorer(use_nli=False, knowledge=_Raises(ConnectionError("refused"))))
    assert "".join(g) == "" and g.session.halt_reason == "callback_timeout"
    g = df.stream_guard([FACT], df.CoherenceScorer(use_nli=False, knowledge=_Raises(KeyError("x"))))
    with pytest.raises(RetrievalError):
        "".join(g)
    assert g.session.halt_reason == "scorer_error"


def test_retriever_signature_checked_at_construction():
    class NoKeywords:
        def retrieve(self, query):
            return []

    class PositionalOnly:
        def retrieve(self, query, k, tenant, /):
            return []

    class Kwargs:
        def retrieve(self, query, **kw):
            return [FACT]

    class KeywordOnly:
        def retrieve(self, query, *, tenant="", k=3):
            return [FACT]

    for bad in (NoKeywords(), PositionalOnly()):
        with pytest.raises(ConfigError) as ei:
            df.CoherenceScorer(use_nli=False, knowledge=bad)
        assert ei.value.field == "knowledge" and "k and tenant" in str(ei.value)
    for good in (Kwargs(), KeywordOnly()):
        assert df.CoherenceScorer(use_nli=False, knowledge=good).review("", FACT)[0]


# ---- D3: .field on InputTypeError / ValidationError ----

@pytest.mark.parametrize("kw, field, cls", [
    (dict(prompt=1, action="x"), "prompt", InputTypeError),
    (dict(prompt="", action=None), "response", InputTypeError),
    (dict(prompt="", action="x", context=["a", 2]), "context[1]", InputTypeError),
    (dict(prompt="", action="x", context=3), "context", InputTypeError),
    (dict(prompt="", action="x", system=3), "system", InputTypeError),
    (dict(prompt="", action="x", tenant_id=3), "tenant_id", InputTypeError),
    (dict(prompt="", action="x", messages=[{"role": "user", "content": 5}]), "messages[0].content", InputTypeError),
    (dict(prompt="", action="x", messages=["hi"]), "messages[0]", InputTypeError),
    (dict(prompt="", action="a\ud800b"), "response", ValidationError),
])
def test_errors_name_their_field(kw, field, cls):
    with pytest.raises(cls) as ei:
        df.CoherenceScorer(use_nli=False).review(**kw)
    assert ei.value.field == field and isinstance(ei.value, DirectorFastError)


def test_field_on_other_entry_points():
    sc = df.CoherenceScorer(use_nli=False)
    for call, field in ((lambda: sc.score_sentence(3), "response"), (lambda: sc.review_batch([("a",)]), "items[0]"),
                        (lambda: df.split_claims(5), "text"), (lambda: df.split_claims("a\udc00"), "text")):
        with pytest.raises(DirectorFastError) as ei:
            call()
        assert ei.value.field == field
    assert InputTypeError("m").field is None and ValidationError("m", "f").field == "f"

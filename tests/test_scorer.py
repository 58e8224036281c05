"""CoherenceScorer: formula, validation, evidence, tenants, strict mode, incremental scoring."""

from __future__ import annotations

import concurrent.futures as cf
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.verify.scorer import CoherenceScorer, SentenceScore
from director_fast.types.results import CoherenceScore, EvidenceChunk
from director_fast.errors import ConfigError, InputTypeError
from director_fast.verify.nli import NLIScore

FACTS = [f"The capital of country_{i} is City{i}." for i in range(60)]


class FixedNLI:
    """Backend returning a fixed divergence per hypothesis; counts calls."""

    model_backed = False
    name = "fixed"

    def __init__(self, table, default=0.2):
        self.table, self.default, self.calls = table, default, 0

    def score(self, premise, hypothesis):
        self.calls += 1
        return self.table.get(hypothesis, self.default)

    def score_detailed(self, premise, hypothesis, **_):
        d = self.score(premise, hypothesis)
        return NLIScore(divergence=d, sentences=(hypothesis,), sentence_divergences=(d,),
                        best_chunk=(0,), chunks=(premise,), confidence=0.5, token_count=3)


def test_claim_scores_and_thresholds():
    s = CoherenceScorer(use_nli=False, knowledge=FACTS)  # threshold 0.5, soft limit 0.6
    c = s.score("What is the capital of country_3?", "The capital of country_3 is City3.")
    assert c.score == 1.0 and c.approved and not c.warning and c.h_factual == 0.0 and c.h_logical == 0.0
    assert c.attributions[0].verdict == "supported" and c.attributions[0].signal == "coverage"
    # a wrong city: the aligned fact names another city -> contradicted, below threshold / 2
    c = s.score("What is the capital of country_3?", "The capital of country_3 is City9.")
    assert c.attributions[0].verdict == "contradicted" and c.score < 0.25 and not c.approved
    # nothing about it in the knowledge -> not_found, in [t/2, t) under "reject"
    c = s.score("Anything else?", "Bananas are yellow and curved fruit.")
    assert c.attributions[0].verdict == "not_found" and 0.25 <= c.score < 0.5 and not c.approved
    w = CoherenceScorer(use_nli=False, knowledge=FACTS, unsupported="warn")
    c = w.score("Anything else?", "Bananas are yellow and curved fruit.")
    assert 0.5 <= c.score < 0.6 and c.approved and c.warning
    c = w.score("What is the capital of country_3?", "The capital of country_3 is City9.")
    assert c.score < 0.5 and not c.approved  # contradicted stays rejected under "warn"
    # the response score is the minimum over claims: one wrong claim sinks a right one
    c = s.score("", "The capital of country_3 is City3. The capital of country_4 is City9.")
    assert [a.verdict for a in c.attributions] == ["supported", "contradicted"] and not c.approved
    assert c.h_factual == pytest.approx(1.0 - min(1.0 - d for d in c.evidence.per_claim_divergences))
    assert c.evidence.claim_coverage == 0.5 and c.evidence.comparisons >= 2
    assert c.signal_agreement == pytest.approx(1.0 - abs(c.h_logical - c.h_factual))
    assert c.verdict_confidence == pytest.approx(min(1.0, abs(c.score - 0.5) / 0.5))
    # a verbatim answer clears a strict threshold
    assert CoherenceScorer(use_nli=False, threshold=0.75, knowledge=FACTS).review("Capital?", FACTS[5])[0]
    with pytest.raises(ConfigError) as e:
        CoherenceScorer(use_nli=False, unsupported="ignore")
    assert e.value.field == "unsupported"


def test_no_knowledge_judges_claims_not_found_with_a_warning(caplog):
    from director_fast import _log

    _log._reset()  # the warning is rate-limited per process: an earlier test may have used it up
    s = CoherenceScorer(use_nli=False)
    with caplog.at_level("WARNING", logger="director_fast.scorer"):
        c = s.score("", "Anything at all is true.")
    assert c.h_logical == 0.0 and not c.approved
    assert c.attributions[0].verdict == "not_found" and c.attributions[0].signal == "no_evidence"
    assert "no evidence" in caplog.text
    # an answer that asserts nothing is approved without evidence
    ok, c = s.review("Hi", "Sure! Let me know if you have other questions.")
    assert ok and c.score == 1.0 and c.evidence.claims == []
    assert [u.kind for u in c.evidence.skipped_units] == ["pleasantry", "offer"]
    # the call's context is evidence
    ok, c = s.review("When?", "Acme was founded in 1998.", context="Acme was founded in 1998 in Oslo.")
    assert ok and c.attributions[0].source_sentence == "Acme was founded in 1998 in Oslo."


@pytest.mark.parametrize("kwargs,field", [
    (dict(threshold=1.5), "threshold"),
    (dict(threshold=0.7, soft_limit=0.6), "soft_limit"),
    (dict(w_logic=0.7, w_fact=0.7), "w_fact"),
    (dict(w_logic=-0.1), "w_logic"),
    (dict(top_k=0), "top_k"),
    (dict(cache_size=-1), "cache_size"),
    (dict(knowledge="a string"), "knowledge"),
    (dict(knowledge={"t": [1, 2]}), "knowledge"),
    (dict(nli=object()), "nli"),
])
def test_validation(kwargs, field):
    with pytest.raises(ConfigError) as e:
        CoherenceScorer(**kwargs)
    assert e.value.field == field


def test_input_types():
    s = CoherenceScorer(use_nli=False)
    with pytest.raises(InputTypeError):
        s.review("p", None)  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        s.review_batch([("p",)])  # type: ignore[list-item]


def test_plain_question_retrieves_the_right_fact():
    s = CoherenceScorer(use_nli=False, knowledge=FACTS)
    chunks, path = s.retrieve("What is the capital of country_42?")
    assert chunks[0].text == FACTS[42] and chunks[0].distance == 0.0 and path == "lexical_facts"
    ok, c = s.review("What is the capital of country_42?", "The capital of country_42 is City7.")
    assert not ok and c.h_factual > 0.5
    ok, c = s.review("What is the capital of country_42?", "The capital of country_42 is City42.")
    assert ok and c.h_factual == 0.0
    ev = c.evidence
    assert ev.chunks[0].source == "fact:42"
    assert ev.claims == ["The capital of country_42 is City42."]
    a = ev.attributions[0]
    assert a.source_sentence == FACTS[42] and a.supported and a.verdict == "supported"
    assert (a.start, a.end) == (0, len("The capital of country_42 is City42."))
    assert ev.claim_coverage == 1.0 and ev.per_claim_divergences == [0.0]
    assert c.nli_model_confidence is not None and c.signal_agreement is not None


def test_tenant_isolation():
    from director_fast.errors import UnknownTenantError

    kb = {"acme": ["The refund window is 30 days."], "globex": ["The refund window is 90 days."]}
    s = CoherenceScorer(use_nli=False, knowledge=kb)
    _, c = s.review("What is the refund window?", "The refund window is 90 days.", tenant_id="acme")
    assert [x.text for x in c.evidence.chunks] == kb["acme"]
    assert not c.approved
    _, c = s.review("What is the refund window?", "The refund window is 90 days.", tenant_id="globex")
    assert [x.text for x in c.evidence.chunks] == kb["globex"] and c.approved
    for tenant in ("other", "Acme"):  # unknown, and a case variant of a known one: never fail open
        with pytest.raises(UnknownTenantError) as e:
            s.review("What is the refund window?", "The refund window is 90 days.", tenant_id=tenant)
        assert e.value.tenant == tenant and e.value.field == "tenant_id" and isinstance(e.value, ConfigError)
    lenient = CoherenceScorer(use_nli=False, knowledge=kb, allow_unknown_tenant=True)
    ok, c = lenient.review("What is the refund window?", "The refund window is 90 days.", tenant_id="other")
    assert not ok and c.attributions[0].signal == "unknown_tenant" and c.evidence.chunks == []
    r = s.score_sentence("The refund window is 90 days.", prompt="Refund window?", tenant_id="acme")
    assert all(x.text in kb["acme"] for x in r.evidence)
    assert r.fact_source == "tenant:acme:fact:0" and r.evidence_refs == ("fact:0",)


def test_knowledge_object_with_retrieve():
    from director_fast.verify.claim_evidence import chunk_digest

    class KB:
        def __init__(self):
            self.calls = []

        def retrieve(self, query, k=3, tenant=None):
            self.calls.append((query, k, tenant))
            return [EvidenceChunk(text="Water boils at 100 degrees.", distance=0.1, source="kb:1")]

    kb = KB()
    s = CoherenceScorer(use_nli=False, knowledge=kb, top_k=2)
    r = s.score_sentence("Water boils at 90 degrees.", prompt="When does water boil?", tenant_id="t1")
    assert kb.calls == [("Water boils at 90 degrees.", 2, "t1")]  # per claim
    assert r.retrieval_path == "knowledge_base" and r.fact_source == "kb:1"
    assert r.nli_scores is not None and r.nli_scores[0] > 0.5
    assert r.evidence_refs == (f"kb:{chunk_digest('Water boils at 100 degrees.')}",)
    # no version attribute: nothing is cached, every call retrieves again
    s.score_sentence("Water boils at 90 degrees.", prompt="When does water boil?", tenant_id="t1")
    assert len(kb.calls) == 2


def test_strict_mode_rejects_without_model():
    s = CoherenceScorer(use_nli=False, strict_mode=True)
    ok, c = s.review("The sky is blue.", "The sky is blue.")
    assert not ok and c.strict_mode_rejected and not c.approved and not c.warning
    assert s.scorer_path == "director_fast.core.scorer.CoherenceScorer[lexical]"


def test_score_sentence_verdicts_are_cached_per_claim():
    nli = FixedNLI({})
    s = CoherenceScorer(nli=nli, knowledge={"t": ["One thing is true."], "u": ["One thing is false."]})
    a = s.score_sentence("One thing is true.", prompt="What?", tenant_id="t")
    calls = nli.calls
    b = s.score_sentence("One thing is true.", prompt="What?", previous="xyz", tenant_id="t")
    assert nli.calls == calls and b == a
    s.score_sentence("One thing is true.", prompt="What?", tenant_id="u")
    assert nli.calls > calls
    assert isinstance(a, SentenceScore) and a.scorer_path == s.scorer_path
    assert a.score == pytest.approx(0.6 + 0.4 * 0.8) and a.retrieval_path == "lexical_facts"  # divergence 0.2


def test_review_batch_order_and_concurrency():
    s = CoherenceScorer(use_nli=False, knowledge=FACTS)
    items = [(f"What is the capital of country_{i}?", f"The capital of country_{i} is City{(i * 7) % 60}.")
             for i in range(60)]
    serial = [c.score for _, c in s.review_batch(items)]
    with cf.ThreadPoolExecutor(4) as ex:
        par = list(ex.map(lambda it: s.score(*it).score, items))
    assert par == serial
    assert serial[0] > 0.5 and serial[1] < 0.5  # i=0 -> City0 (right), i=1 -> City7 (wrong)


def test_with_onnx_model(tmp_path):
    pytest.importorskip("onnxruntime")
    sys.path.insert(0, str(Path(__file__).parent))
    from _tiny_onnx import build_tiny_nli

    build_tiny_nli(tmp_path)
    s = CoherenceScorer(nli_model=str(tmp_path), strict_mode=True)
    assert s.model_backed and "onnx" in s.scorer_path
    ok, c = s.review("the cat sits in the park", "the cat is not in the park")
    assert isinstance(c, CoherenceScore) and not c.strict_mode_rejected
    assert c.h_logical > 0.9 and not ok
    assert 0.0 <= c.nli_model_confidence <= 1.0


def test_review_batch_with_model_matches_review(tmp_path):
    pytest.importorskip("onnxruntime")
    sys.path.insert(0, str(Path(__file__).parent))
    from _tiny_onnx import build_tiny_nli

    build_tiny_nli(tmp_path)
    kb = {"t": ["the cat sits in the park.", "the dog runs in the park.", "paris is the capital of france."]}
    s = CoherenceScorer(nli_model=str(tmp_path), knowledge=kb)
    items = [("where is the cat", "the cat is not in the park."), ("", "the dog runs."),
             ("capital of france", "berlin is the capital of france."), ("nothing matches", "yes"),
             ("zzz qqq", "the dog runs in the park.")]  # prompt retrieves nothing: the response does
    batched = s.review_batch(items, tenant_id="t")
    for (p, a), (ok, c) in zip(items, batched):
        ok2, c2 = s.review(p, a, tenant_id="t")
        assert ok == ok2 and c.score == pytest.approx(c2.score, abs=1e-6)
        assert c.h_factual == pytest.approx(c2.h_factual, abs=1e-6)
        assert (c.evidence is None) == (c2.evidence is None)
        if c.evidence is not None:
            assert c.evidence.chunk_scores == pytest.approx(c2.evidence.chunk_scores, abs=1e-6) \
                if c.evidence.chunk_scores else c2.evidence.chunk_scores is None


def test_questions_and_requests_are_not_premises():
    from director_fast.verify.scorer import declarative_part

    assert declarative_part("What is the refund window?") == ""
    assert declarative_part("Tell me about Acme. Please be brief.") == ""
    assert declarative_part("Acme was founded in 1998. When was it founded?") == "Acme was founded in 1998."
    kb = ["Acme was founded in 1998 in Oslo."]
    s = CoherenceScorer(use_nli=False, knowledge=kb)
    ok, c = s.review("Tell me about Acme.", "Acme was founded in 1998 in Oslo.")
    assert ok and c.h_logical == 0.0 and c.h_factual < 0.5
    # a supported answer that contradicts the user corrects the user: reported, not penalised
    ok2, c2 = s.review("Acme was founded in 2003.", "Acme was founded in 1998 in Oslo.")
    assert c2.h_logical > 0.5 and ok2 and c2.score == c.score
    # an unsupported one is penalised by the contradiction too
    s_warn = CoherenceScorer(use_nli=False, knowledge=["Acme makes bicycles in Oslo."], unsupported="warn")
    ok3, c3 = s_warn.review("Tell me about Acme.", "Acme was founded in 1998.")
    ok4, c4 = s_warn.review("Acme was founded in 2003.", "Acme was founded in 1998.")
    assert ok3 and c4.h_logical > 0.5 and c4.score < c3.score and not ok4
    # new information is not a contradiction of the question (the example)
    s = CoherenceScorer(use_nli=False, knowledge=["Children under 12 travel with one cabin bag of up to 8 kg."])
    ok, c = s.review("I'm travelling with my son, who is 7. What can he bring?",
                     "Children under 12 can bring one cabin bag of up to 8 kg.")
    assert ok and c.h_logical == 0.0


_DECL_WORDS = ["Tell", "what", "WHY", "Acme", "please,", "(Explain", '"Who', "[list:", "can;", "Is", "is.", "K\u212aelvin",
               "Summarize:", "Continue.", "go!", "Answer:", '"Rewrite:"', "summarize:.", "Let's",
               "\u212aan", "Über", "ſhow", "names", "x", "?", "1998", "\u00a0", "\u2028"]
_DECL_SEPS = [" ", ". ", "? ", "! ", "\n", "\n\n", "  ", "\t", ".\u3000", "... ", ".\u00a0", "?\"", "", "; "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_DECL_WORDS), st.sampled_from(_DECL_SEPS)), max_size=14).map(
    lambda parts: "".join(w + sep for w, sep in parts)) | st.text(max_size=80))
def test_declarative_part_matches_the_python_reference(text):
    from director_fast.verify.scorer import _declarative_part_py, declarative_part

    assert declarative_part(text) == _declarative_part_py(text)


def test_declarative_part_request_words_match_the_python_list():
    from director_fast.verify.scorer import _REQUEST_WORDS, declarative_part

    for w in sorted(_REQUEST_WORDS):
        assert declarative_part(f"{w.title()} it now. Acme sells tea.") == "Acme sells tea.", w
    assert declarative_part("Tellers count cash. Whatever happens, tea.") == "Tellers count cash. Whatever happens, tea."


def test_declarative_part_keeps_material_after_a_request_colon():
    from director_fast.verify.scorer import declarative_part

    assert declarative_part("Summarize: Acme was founded in 1998 in Oslo.") == "Acme was founded in 1998 in Oslo."
    assert declarative_part("Continue.") == "" and declarative_part("Go on!") == ""
    assert declarative_part("Answer: what is the capital?") == ""
    ok, c = CoherenceScorer(use_nli=False).review("Summarize: Acme was founded in 1998 in Oslo.", "Acme was founded in 2005 in Oslo.")
    assert not ok and c.h_logical > 0.5


def test_each_claim_retrieves_its_own_evidence():
    s = CoherenceScorer(use_nli=False, knowledge=["Acme was founded in 1998.", "Acme has 40 staff in Oslo."])
    for prompt in ("Tell me more.", "Any updates?", ""):
        ok, c = s.review(prompt, "Acme was founded in 2005.")
        assert not ok and c.h_factual > 0.5 and c.evidence.chunks, prompt
        ok, c = s.review(prompt, "Acme was founded in 1998. It has 40 staff in Oslo.")
        assert ok and c.h_factual < 0.5 and len(c.evidence.claims) == 2, prompt


def test_director_ai_switches_use_nli_and_onnx_path(tmp_path):
    assert not CoherenceScorer(use_nli=False).model_backed
    # a model required: the shipped claim verifier is one (nothing is downloaded)
    assert CoherenceScorer(use_nli=True).model_backed and CoherenceScorer(require_model_backed_nli=True).model_backed
    for kw, field in ((dict(use_nli="yes"), "use_nli"), (dict(nli_model="x", onnx_path="y"), "onnx_path")):
        with pytest.raises(ConfigError) as exc:
            CoherenceScorer(**kw)
        assert exc.value.field == field
    pytest.importorskip("onnxruntime")
    sys.path.insert(0, str(Path(__file__).parent))
    from _tiny_onnx import build_tiny_nli

    build_tiny_nli(tmp_path)
    assert CoherenceScorer(use_nli=True, onnx_path=str(tmp_path)).model_backed
    assert CoherenceScorer(require_model_backed_nli=True, nli_model=str(tmp_path)).model_backed
    with pytest.raises(ConfigError, match="contradicts"):
        CoherenceScorer(use_nli=False, nli_model=str(tmp_path))

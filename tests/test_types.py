"""Seed-000 dataclasses: validation, to_dict/from_dict round trips, immutability."""

from __future__ import annotations

import dataclasses
import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.core import types as T
from director_fast.safety.event import SafetyEvent
from director_fast.types.results import (
    ClaimAttribution,
    CoherenceScore,
    CounterfactualFactChange,
    CounterfactualHaltDiagnostic,
    EvidenceChunk,
    FieldTypeError,
    HaltEvidence,
    HaltTraceAttribution,
    InjectedClaim,
    InjectionResult,
    ReviewResult,
    ScoringEvidence,
)
from director_fast.errors import InputTypeError, ValidationError
from _concurrency import run_threads

unit = st.floats(0.0, 1.0, allow_nan=False)
fin = st.floats(-1e6, 1e6, allow_nan=False)
nonneg = st.floats(0.0, 1e6, allow_nan=False)
txt = st.text(max_size=20)
idx = st.integers(0, 1000)

chunks = st.builds(EvidenceChunk, text=txt, distance=fin, source=txt)
attribs = st.builds(ClaimAttribution, claim=txt, claim_index=idx, source_sentence=txt,
                    source_index=st.integers(-1, 50), divergence=unit, supported=st.booleans())
evidence = st.builds(
    ScoringEvidence, chunks=st.lists(chunks, max_size=3), nli_premise=txt, nli_hypothesis=txt,
    nli_score=unit, chunk_scores=st.none() | st.lists(unit, max_size=3),
    premise_chunk_count=idx, hypothesis_chunk_count=idx,
    attributions=st.none() | st.lists(attribs, max_size=3), token_count=st.none() | idx,
    estimated_cost_usd=st.none() | nonneg, claim_coverage=st.none() | unit,
    per_claim_divergences=st.none() | st.lists(unit, max_size=3),
    claims=st.none() | st.lists(txt, max_size=3),
)
opt_unit = st.none() | unit
scores = st.builds(
    CoherenceScore, score=unit, approved=st.booleans(), h_logical=unit, h_factual=unit,
    evidence=st.none() | evidence, warning=st.booleans(), strict_mode_rejected=st.booleans(),
    cross_turn_divergence=opt_unit, verdict_confidence=opt_unit, nli_model_confidence=opt_unit,
    signal_agreement=opt_unit, contradiction_index=opt_unit, injection_risk=opt_unit,
)
traces = st.builds(HaltTraceAttribution, fact_source=txt, retrieval_path=txt, scorer_path=txt,
                   token_offset=st.integers(-1, 10**6), threshold=opt_unit, causal_contribution=nonneg)
changes = st.builds(CounterfactualFactChange, fact_source=txt, original_fact=txt, proposed_fact=txt,
                    required_score_delta=nonneg, prevented_halt=st.booleans())
diags = st.builds(CounterfactualHaltDiagnostic, question=txt, observed_score=unit, threshold=unit,
                  best_change=st.none() | changes, candidates=st.lists(changes, max_size=2))
halts = st.builds(HaltEvidence, reason=txt, last_score=unit, evidence_chunks=st.lists(chunks, max_size=2),
                  nli_scores=st.none() | st.lists(unit, max_size=2), suggested_action=txt,
                  trace_attribution=st.none() | traces, counterfactual_diagnostic=st.none() | diags)
inj_claims = st.builds(InjectedClaim, claim=txt, claim_index=idx, intent_divergence=unit,
                       reverse_divergence=unit, bidirectional_divergence=unit, traceability=unit,
                       entity_match=unit, verdict=st.sampled_from(sorted(T.INJECTION_VERDICTS)),
                       confidence=unit)


@st.composite
def injections(draw):
    g, d, i = draw(idx), draw(idx), draw(idx)
    return InjectionResult(
        injection_detected=draw(st.booleans()), injection_risk=draw(unit), intent_coverage=draw(unit),
        total_claims=g + d + i + draw(st.integers(0, 3)), grounded_claims=g, drifted_claims=d,
        injected_claims=i, claims=draw(st.lists(inj_claims, max_size=2)),
        input_sanitizer_score=draw(unit), combined_score=draw(unit),
    )


def _event():
    return SafetyEvent.from_policy_decision(
        hook_id="streaming.kernel", hook_scope="streaming", policy_decision="halt",
        halt_reason="hard_limit", tenant_safe_explanation="Reduce generation temperature or add KB facts.",
        threshold=0.5, observed_score=0.2, attributes={"token_offset": "3"},
    )


reviews = st.builds(ReviewResult, output=txt, coherence=st.none() | scores, halted=st.booleans(),
                    candidates_evaluated=idx, fallback_used=st.booleans(), halt_evidence=st.none() | halts,
                    safety_events=st.lists(st.just(None), max_size=2).map(lambda xs: tuple(_event() for _ in xs)))

ALL = [chunks, attribs, evidence, scores, traces, changes, diags, halts, inj_claims, injections(), reviews]


@pytest.mark.parametrize("strategy", ALL, ids=lambda s: repr(s)[:30])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_round_trip_through_dict_and_json(strategy, data):
    obj = data.draw(strategy)
    d = obj.to_dict()
    assert type(obj).from_dict(d) == obj
    # JSON-safe and lossless through real JSON text
    assert type(obj).from_dict(json.loads(json.dumps(d, allow_nan=False))) == obj


def test_nested_optional_members_round_trip():
    tr = HaltTraceAttribution("kb://a", "index.search", "scorer.review", 7, 0.5, 0.1)
    ch = CounterfactualFactChange("kb://a", "old", "new", 0.2, True)
    he = HaltEvidence("hard_limit", 0.2, [EvidenceChunk("t", 0.1, "kb://a")], [0.9], "retry", tr,
                      CounterfactualHaltDiagnostic("q?", 0.2, 0.5, ch, [ch]))
    d = he.to_dict()
    assert d["trace_attribution"]["token_offset"] == 7
    assert d["counterfactual_diagnostic"]["best_change"]["proposed_fact"] == "new"
    assert HaltEvidence.from_dict(d) == he


@pytest.mark.parametrize(
    "cls,kwargs,field",
    [
        (CoherenceScore, dict(score=1.5, approved=True, h_logical=0, h_factual=0), "score"),
        (CoherenceScore, dict(score=float("nan"), approved=True, h_logical=0, h_factual=0), "score"),
        (CoherenceScore, dict(score=0.5, approved=True, h_logical=-0.1, h_factual=0), "h_logical"),
        (CoherenceScore, dict(score=0.5, approved=True, h_logical=0, h_factual=0, signal_agreement=2.0),
         "signal_agreement"),
        (ClaimAttribution, dict(claim="c", claim_index=-1, source_sentence="s", source_index=0,
                                divergence=0.1, supported=True), "claim_index"),
        (ScoringEvidence, dict(chunks=[], nli_premise="", nli_hypothesis="", nli_score=0.1,
                               token_count=-3), "token_count"),
        (ScoringEvidence, dict(chunks=[], nli_premise="", nli_hypothesis="", nli_score=0.1,
                               chunk_scores=[0.1, 1.2]), "chunk_scores[1]"),
        (HaltTraceAttribution, dict(token_offset=-2), "token_offset"),
        (HaltTraceAttribution, dict(causal_contribution=-0.5), "causal_contribution"),
        (EvidenceChunk, dict(text="t", distance=float("inf")), "distance"),
        (InjectedClaim, dict(claim="c", claim_index=0, intent_divergence=0, reverse_divergence=0,
                             bidirectional_divergence=0, traceability=0, entity_match=0,
                             verdict="weird", confidence=0), "verdict"),
        (InjectionResult, dict(injection_detected=False, injection_risk=0, intent_coverage=0,
                               total_claims=1, grounded_claims=1, drifted_claims=1, injected_claims=0),
         "total_claims"),
        (ReviewResult, dict(output="", coherence=None, halted=False, candidates_evaluated=-1),
         "candidates_evaluated"),
    ],
)
def test_range_errors_name_the_field(cls, kwargs, field):
    with pytest.raises(ValidationError) as exc:
        cls(**kwargs)
    assert f"{cls.__name__}.{field}" in str(exc.value)
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize(
    "cls,kwargs,field",
    [
        (CoherenceScore, dict(score="0.5", approved=True, h_logical=0, h_factual=0), "score"),
        (CoherenceScore, dict(score=True, approved=True, h_logical=0, h_factual=0), "score"),
        (CoherenceScore, dict(score=0.5, approved=1, h_logical=0, h_factual=0), "approved"),
        (EvidenceChunk, dict(text=3, distance=0.1), "text"),
        (ScoringEvidence, dict(chunks=[1], nli_premise="", nli_hypothesis="", nli_score=0.1), "chunks[0]"),
        (ClaimAttribution, dict(claim="c", claim_index=1.5, source_sentence="s", source_index=0,
                                divergence=0.1, supported=True), "claim_index"),
        (ReviewResult, dict(output="", coherence=None, halted=False, candidates_evaluated=0,
                            safety_events=("x",)), "safety_events[0]"),
    ],
)
def test_type_errors_are_both_type_and_value_errors(cls, kwargs, field):
    with pytest.raises(FieldTypeError) as exc:
        cls(**kwargs)
    assert f"{cls.__name__}.{field}" in str(exc.value)
    assert isinstance(exc.value, TypeError) and isinstance(exc.value, ValueError)
    assert isinstance(exc.value, InputTypeError)


def test_numpy_scalars_are_converted():
    s = CoherenceScore(np.float32(0.25), np.bool_(True), np.float64(0.5), 0, evidence=None)
    assert type(s.score) is float and s.score == 0.25 and s.approved is True
    ev = ScoringEvidence([], "", "", np.float32(0.5), chunk_scores=[np.float32(0.5)], token_count=np.int64(7))
    assert type(ev.token_count) is int and type(ev.chunk_scores[0]) is float
    json.dumps(ev.to_dict())


def test_lists_and_tuples_normalised():
    ev = ScoringEvidence((EvidenceChunk("a", 0.1),), "", "", 0.1, claims=("x",))
    assert ev.chunks == [EvidenceChunk("a", 0.1)] and ev.claims == ["x"]
    rr = ReviewResult("o", None, True, 1, safety_events=[_event()])
    assert type(rr.safety_events) is tuple and len(rr.safety_events) == 1


def test_from_dict_rejects_unknown_missing_and_non_mapping():
    d = EvidenceChunk("t", 0.1).to_dict()
    with pytest.raises(ValidationError, match="unknown key 'extra'"):
        EvidenceChunk.from_dict({**d, "extra": 1})
    with pytest.raises(ValidationError, match="missing required key"):
        EvidenceChunk.from_dict({"text": "t"})
    with pytest.raises(FieldTypeError):
        EvidenceChunk.from_dict(["t", 0.1])
    with pytest.raises(FieldTypeError):
        CoherenceScore.from_dict({"score": 0.5, "approved": True, "h_logical": 0, "h_factual": 0,
                                  "evidence": "nope"})
    # optional members may be omitted (defaults apply)
    assert CoherenceScore.from_dict({"score": 0.5, "approved": True, "h_logical": 0, "h_factual": 0}).evidence is None


def test_frozen_slotted_picklable():
    s = CoherenceScore(0.5, True, 0.1, 0.2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.score = 0.1  # type: ignore[misc]
    assert not hasattr(s, "__dict__")
    assert pickle.loads(pickle.dumps(s)) == s
    assert dataclasses.replace(s, score=0.7).score == 0.7
    with pytest.raises(ValidationError):
        dataclasses.replace(s, score=7.0)


def test_seed_field_names_order_and_defaults():
    names = [f.name for f in dataclasses.fields(CoherenceScore)]
    assert names == ["score", "approved", "h_logical", "h_factual", "evidence", "warning",
                     "strict_mode_rejected", "cross_turn_divergence", "verdict_confidence",
                     "nli_model_confidence", "signal_agreement", "contradiction_index", "injection_risk"]
    assert [f.name for f in dataclasses.fields(ReviewResult)] == [
        "output", "coherence", "halted", "candidates_evaluated", "fallback_used", "halt_evidence",
        "safety_events"]
    assert [f.name for f in dataclasses.fields(HaltTraceAttribution)] == [
        "fact_source", "retrieval_path", "scorer_path", "token_offset", "threshold", "causal_contribution"]
    assert HaltTraceAttribution() == HaltTraceAttribution("", "", "", -1, None, 0.0)


def test_reserved_fields_stay_none_by_default():
    s = CoherenceScore(0.5, True, 0.1, 0.2)
    for name in ("evidence", "cross_turn_divergence", "verdict_confidence", "nli_model_confidence",
                 "signal_agreement", "contradiction_index", "injection_risk"):
        assert getattr(s, name) is None
    ev = ScoringEvidence([], "", "", 0.1)
    assert ev.estimated_cost_usd is None
    he = HaltEvidence("hard_limit", 0.2, [])
    assert he.counterfactual_diagnostic is None


def test_claim_helpers():
    a1 = ClaimAttribution("c1", 0, "s", 0, 0.1, True)
    a2 = ClaimAttribution("c2", 1, "s", 0, 0.9, False)
    ev = ScoringEvidence([], "", "", 0.1, attributions=[a1, a2], claims=["c1", "c2"], claim_coverage=0.5)
    s = CoherenceScore(0.5, True, 0.1, 0.2, evidence=ev)
    assert s.claims == ["c1", "c2"] and s.unsupported_claims == [a2] and s.claim_coverage == 0.5
    assert CoherenceScore(0.5, True, 0.1, 0.2).claims == []


def test_thread_safety_of_shared_instances():
    s = CoherenceScore(0.5, True, 0.1, 0.2, evidence=ScoringEvidence([EvidenceChunk("a", 0.1)], "", "", 0.1))
    out: list[bool] = []

    def work():
        out.append(all(CoherenceScore.from_dict(s.to_dict()) == s for _ in range(200)))

    assert run_threads(work) == [] and out == [True] * 4


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3) | st.integers(), c, max_size=3),
                    max_leaves=10))
def test_from_dict_hostile_input_only_raises_validation_errors(junk):
    for cls in (CoherenceScore, ScoringEvidence, HaltEvidence, ReviewResult, InjectionResult):
        try:
            cls.from_dict(junk)
        except ValidationError:
            pass
        payload = {f.name: junk for f in dataclasses.fields(cls)}
        try:
            cls.from_dict(payload)
        except ValidationError:
            pass

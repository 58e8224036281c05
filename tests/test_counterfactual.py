"""Counterfactual halt diagnostic: minimal fact edits, re-scoring, kernel replay, tenant safety."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from director_fast import (
    CoherenceScorer,
    CounterfactualHaltDiagnostic,
    HaltConfig,
    KnowledgeBase,
    replay,
    stream_guard,
)
from director_fast.stream.counterfactual import MAX_CANDIDATES, QUESTION, minimal_edit, required_delta

FACTS = [
    "A checked bag costs NOK 450 on all routes.",
    "Online check-in opens 30 hours before departure.",
    "Pets are not allowed in the cabin on flights to Svalbard.",
    "The airline is led by Margaret Ennis.",
    "The lounge at Tromvik seats 80 guests.",
]


def tokens(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text)


def run(scorer, text: str, **kw):
    g = stream_guard(tokens(text), scorer, **kw)
    "".join(g)
    return g.session


@pytest.fixture(scope="module")
def scorer():
    return CoherenceScorer(use_nli=False, threshold=0.5, knowledge=FACTS)


@pytest.mark.parametrize("fact, claim, signal, want", [
    ("A checked bag costs NOK 450 on all routes.", "A checked bag costs NOK 550.", "number",
     "A checked bag costs NOK 550 on all routes."),
    ("Bags heavier than 32 kg are refused.", "Bags heavier than 32 lb are refused.", "unit",
     "Bags heavier than 32 lb are refused."),
    ("The airline is led by Margaret Ennis.", "The airline is led by Dana Okafor.", "entity",
     "The airline is led by Dana Okafor."),
    ("Pets are not allowed in the cabin.", "Pets are allowed in the cabin.", "negation",
     "Pets are allowed in the cabin."),
    ("The fee doesn't cover insurance.", "The fee covers insurance.", "negation",
     "The fee does cover insurance."),
    ("Pets are allowed in the cabin.", "Pets are not allowed in the cabin.", "negation",
     "Pets are not allowed in the cabin."),
    ("Skerry Air acquired Nordfly in 2019.", "Nordfly acquired Skerry Air in 2019.", "roles",
     "Nordfly acquired Skerry Air in 2019."),
    ("The museum is open on Mondays.", "The museum is closed on Mondays.", "antonym",
     "The museum is closed on Mondays."),
])
def test_minimal_edit_replaces_only_the_mismatched_span(fact, claim, signal, want):
    assert minimal_edit(fact, claim, signal) == want


@pytest.mark.parametrize("fact, claim, signal", [
    ("A checked bag costs NOK 450.", "A checked bag costs NOK 450.", "number"),  # nothing to change
    ("Refunds take 5 days, except gift cards.", "Refunds take 5 days.", "exception"),
    ("The airline is led by Margaret Ennis.", "The airline has a lounge.", "entity"),
])
def test_minimal_edit_declines(fact, claim, signal):
    assert minimal_edit(fact, claim, signal) is None


def test_halt_on_a_wrong_number_is_prevented_by_editing_that_number(scorer):
    s = run(scorer, "Thanks for asking! A checked bag costs NOK 550 on all routes. Enjoy the flight.")
    assert s.halted and s.halt_reason == "hard_limit"
    d = s.halt_evidence_structured.counterfactual_diagnostic
    assert isinstance(d, CounterfactualHaltDiagnostic) and d.question == QUESTION
    assert d.best_change is d.candidates[0] or d.best_change == d.candidates[0]
    c = d.best_change
    assert c.original_fact == FACTS[0] and c.proposed_fact == FACTS[0].replace("450", "550")
    assert c.prevented_halt and c.fact_source
    # required delta: the hard limit minus the observed score, rounded up to 1e-6
    assert d.observed_score == s.halt_evidence_structured.last_score
    assert d.threshold == 0.5
    assert 0.0 <= c.required_score_delta - (0.5 - d.observed_score) <= 2e-6
    # the branch really re-scores: the edited fact supports the claim
    branch = CoherenceScorer(use_nli=False, threshold=0.5, knowledge=[c.proposed_fact] + FACTS[1:])
    assert branch.score_sentence("A checked bag costs NOK 550 on all routes.").score >= 0.5
    assert s.safety_events[-1].attributes["counterfactual"] == "prevented"
    assert CounterfactualHaltDiagnostic.from_dict(json.loads(json.dumps(d.to_dict()))) == d


def test_two_wrong_facts_in_one_sentence_no_single_change_prevents(scorer):
    s = run(scorer, "A checked bag costs NOK 550 on all routes, and online check-in opens 24 hours "
                    "before departure.")
    assert s.halted
    d = s.halt_evidence_structured.counterfactual_diagnostic
    assert 1 <= len(d.candidates) <= MAX_CANDIDATES
    assert {c.original_fact for c in d.candidates} == {FACTS[0], FACTS[1]}
    assert not any(c.prevented_halt for c in d.candidates) and d.best_change is None
    assert d.explanation.startswith("0 of 2")
    assert s.safety_events[-1].attributes["counterfactual"] == "not_prevented"


def test_unsupported_claim_gives_no_candidate(scorer):
    s = run(scorer, "A checked bag includes free travel insurance on all routes.")
    assert s.halted and s.halt_claim.verdict == "not_found"
    d = s.halt_evidence_structured.counterfactual_diagnostic  # evidence was retrieved; nothing contradicts
    assert d.candidates == [] and d.best_change is None and d.explanation.startswith("No single")
    assert s.safety_events[-1].attributes["counterfactual"] == "no_candidate"


def test_safety_event_carries_no_fact_text(scorer):
    s = run(scorer, "The airline is led by Dana Okafor.", tenant_id="t1", request_id="r1")
    d = s.halt_evidence_structured.counterfactual_diagnostic
    assert d.best_change is not None and d.best_change.proposed_fact == "The airline is led by Dana Okafor."
    payload = json.dumps(s.safety_events[-1].to_dict())
    for text in ("Margaret", "Ennis", "Dana", "Okafor"):
        assert text not in payload
    assert "Ennis" not in d.explanation and "Okafor" not in d.explanation


def test_tenant_scoped_branches_use_only_the_tenants_facts():
    kb = KnowledgeBase()
    kb.add_facts(["A checked bag costs NOK 450 on all routes."], source="bags-a.md", tenant="a")
    kb.add_facts(["A checked bag costs NOK 990 on all routes."], source="bags-b.md", tenant="b")
    scorer = CoherenceScorer(use_nli=False, threshold=0.5, knowledge=kb)
    s = run(scorer, "A checked bag costs NOK 550 on all routes.", tenant_id="a")
    d = s.halt_evidence_structured.counterfactual_diagnostic
    assert [c.fact_source for c in d.candidates] == ["bags-a.md"]
    assert "990" not in json.dumps(d.to_dict())
    assert d.best_change is not None


def test_soft_mode_and_plain_callable(scorer):
    cfg = HaltConfig(hard_limit=0.5, window_threshold=0.5 - 1e-9, soft_limit=0.6, trend_threshold=1.0,
                     halt_mode="soft")
    s = run(scorer, "Online check-in opens 24 hours before departure.", config=cfg)
    assert s.halted
    assert s.halt_evidence_structured.counterfactual_diagnostic.best_change is not None
    plain = run(lambda text: 0.1, "Anything at all here.")
    assert plain.halted and plain.halt_evidence_structured.counterfactual_diagnostic is None


def test_required_delta_window_held_down_by_earlier_sentences():
    cfg = HaltConfig(hard_limit=0.0, window_size=4, window_threshold=0.6, trend_threshold=1.0)
    # three tokens at 0.1 already in the window: even 1.0 for the last token averages 0.325
    delta, reachable = required_delta([0.1, 0.1, 0.1], 1, 0.2, cfg)
    assert not reachable and delta == pytest.approx(0.8)
    # a window that the last sentence can lift: mean of [0.5, 0.5, x, x] >= 0.6 needs x >= 0.7
    delta, reachable = required_delta([0.5, 0.5], 2, 0.3, cfg)
    assert reachable and 0.4 <= delta <= 0.4 + 2e-6
    scores = np.array([0.5, 0.5, 0.3 + delta, 0.3 + delta])
    assert not replay(scores, None, cfg).halted
    assert replay(np.array([0.5, 0.5, 0.3 + delta - 1e-5, 0.3 + delta - 1e-5]), None, cfg).halted

"""A correct answer must not be refuted by a fact about something else that shares a number, and
a wrong one must stay refuted by the fact it is about. Each test is a minimal pair (or more) over
a small invented knowledge base: the right answer next to its wrong twins, so that neither side
passes by accident. The classes:

* a number contradiction from an unrelated fact ("30 days" of complaints) against a fact that
  states the claim's number and is at least as much about it ("check-in opens 30 hours before");
* a claim's number aligned with the right number of a fact holding several ("opens 30 hours
  before departure and closes 1 hour before departure");
* a claim joining two facts (a telephone number and opening hours);
* hours swapped between two facts (phone line and shop), a wrong number against the only
  relevant fact, another unit for the same number.
"""

from __future__ import annotations

import pytest

import director_fast as df
from director_fast.verify.claim_verdict import aboutness
from director_fast.verify.number_alignment import align_numbers, evidence_numbers, lead_word
from director_fast.verify.numbers import find_numbers

AIRLINE = [
    "Online check-in opens 30 hours before departure and closes 1 hour before departure.",
    "Written complaints must be sent within 30 days of the flight using the online form.",
    "The phone number is +47 77 40 12 00.",
    "Customer service is open Monday to Friday from 07:00 to 21:00 and at weekends from 09:00 to 17:30.",
]

BIKES = [
    "The workshop phone line is answered Monday to Friday from 08:00 to 16:00.",
    "The shop on Mill Road is open Monday to Saturday from 09:30 to 18:00.",
    "The hire desk opens 30 minutes before the shop and closes 15 minutes before the shop.",
    "Bike hire costs £18 per day, and a deposit of £50 is taken.",
    "Gift vouchers are valid for 14 months.",
    "Unused items can be returned within 14 days of purchase with a receipt.",
]


@pytest.fixture(scope="module")
def airline():
    kb = df.KnowledgeBase()
    for fact in AIRLINE:
        kb.add(fact, source="faq", tenant="t")
    return df.CoherenceScorer(knowledge=kb)


@pytest.fixture(scope="module")
def bikes():
    return df.CoherenceScorer(knowledge=BIKES)


def _review(scorer, answer, question, **kw):
    ok, score = scorer.review(question, answer, **kw)
    return ok, [(a.verdict, a.signal) for a in score.attributions]


# ---- the three answers of the report, and their wrong twins -------------------------------------

@pytest.mark.parametrize("answer, approved", [
    # contradicted before by the complaints fact ("30 days"), which is less about it
    ("You can check in online starting 30 hours ahead of your flight.", True),
    ("You can check in online starting 30 days ahead of your flight.", False),   # the complaints' number
    ("You can check in online starting 20 hours ahead of your flight.", False),  # a wrong number
    ("You can check in online starting 1 hour ahead of your flight.", False),    # the closing time's number
    # its "1 hour" was aligned with the opening's "30 hours" of the same sentence
    ("The online check-in window stays open until 1 hour before the plane leaves.", True),
    ("The online check-in window stays open until 30 hours before the plane leaves.", False),
    ("Online check-in closes 1 hour before departure.", True),
    ("Online check-in closes 30 hours before departure.", False),
    ("Online check-in opens 1 hour before departure.", False),
    # two facts: the telephone number's and the opening hours'
    ("You can reach customer service on +47 77 40 12 00, Monday to Friday from 07:00 to 21:00.", True),
    ("You can reach customer service on +47 77 40 12 99, Monday to Friday from 07:00 to 21:00.", False),
    ("You can reach customer service on +47 77 40 12 00, Monday to Friday from 08:00 to 21:00.", False),
    ("You can reach customer service on +47 77 40 12 00, Monday to Friday from 09:00 to 17:30.", False),
])
def test_a_number_is_judged_by_the_fact_it_is_about(airline, answer, approved):
    ok, verdicts = _review(airline, answer, "when can i check in online", tenant_id="t")
    assert ok is approved, verdicts
    if not approved:
        assert verdicts[0][0] == "contradicted" or "99" in answer, verdicts


# ---- the same classes over a bike shop -----------------------------------------------------------

@pytest.mark.parametrize("answer, approved", [
    ("The hire desk stays open until 15 minutes before the shop shuts.", True),
    ("The hire desk stays open until 30 minutes before the shop shuts.", False),
    ("The hire desk opens 30 minutes before the shop.", True),
    ("The hire desk opens 15 minutes before the shop.", False),
    # phone-line hours against shop hours, both ways
    ("You can phone the workshop on weekdays between 08:00 and 16:00.", True),
    ("You can phone the workshop on weekdays between 09:30 and 18:00.", False),
    ("The Mill Road shop is open from 09:30 to 18:00, Monday to Saturday.", True),
    ("The Mill Road shop is open from 08:00 to 16:00, Monday to Saturday.", False),
    # a wrong number against the only fact about it; the other number of that fact
    ("Bike hire costs £18 per day.", True),
    ("Bike hire costs £20 per day.", False),
    ("The hire deposit is £50.", True),
    ("The hire deposit is £18.", False),
    # the same number in another unit belongs to the other fact
    ("You can return unused items within 14 days of buying them.", True),
    ("You can return unused items within 14 months of buying them.", False),
    ("Gift vouchers stay valid for 14 months.", True),
    ("Gift vouchers stay valid for 14 days.", False),
])
def test_a_number_is_judged_by_the_fact_it_is_about_in_a_bike_shop(bikes, answer, approved):
    ok, verdicts = _review(bikes, answer, "Can you help me?")
    assert ok is approved, verdicts
    if not approved:
        assert verdicts == [("contradicted", "number")]


# ---- the mechanisms one by one -------------------------------------------------------------------

def test_aboutness_leaves_the_claims_numbers_out_and_breaks_ties_with_phrases():
    claim = "You can check in online starting 30 hours ahead of your flight."
    check_in, complaints = AIRLINE[0], AIRLINE[1]
    assert aboutness(claim, check_in) == (2, 1)   # check, online; "check in"
    assert aboutness(claim, complaints) == (2, 0)  # online, flight; the "30" is no shared word
    assert aboutness(claim, check_in) > aboutness(claim, complaints)
    assert aboutness("Standard delivery takes 2 days.", "Express delivery takes 2 days.") == (2, 1)
    assert aboutness("Nothing in common here.", "") == (0, 0)


def test_lead_word_is_what_a_number_is_the_value_of():
    text = AIRLINE[0]
    ms = find_numbers(text)
    assert [lead_word(text, m, ms) for m in ms] == ["open", "clos"]
    text = "The deposit of £75 is refundable; parking is 5 minutes away."
    ms = find_numbers(text)
    assert lead_word(text, ms[0], ms) == "deposit"
    assert lead_word("£5", find_numbers("£5")[0], find_numbers("£5")) == ""


def test_a_number_stated_twice_is_aligned_by_its_own_context():
    units = ["The fleet has 9 aircraft and 3 floatplanes.", "The airline serves 14 destinations."]
    claim = "The airline serves 9 destinations with 9 aircraft and 3 floatplanes."
    got = align_numbers(claim, find_numbers(claim), evidence_numbers(units))
    # the destinations' 9 is not vouched for by the fleet's 9 (the joint step skips it)
    assert [a.kind for a in got][1:] == ["equal", "equal"] and got[0].kind != "equal"
    assert not df.CoherenceScorer(knowledge=units).review("Tell me about it.", claim)[0]
    claim = "The airline serves 14 destinations with 9 aircraft and 3 floatplanes."
    assert [a.kind for a in align_numbers(claim, find_numbers(claim), evidence_numbers(units))] == ["equal"] * 3


def test_the_model_verifier_is_not_vetoed_by_an_unrelated_number(airline):
    """The verifier keeps rule contradictions as vetoes: the rules' verdict on the check-in answer
    is no longer a veto (the rules decide it before the model is asked)."""
    from director_fast.verify.scorer import _model_decides

    decision, _unit, _chunks = airline._verify_claim(
        "You can check in online starting 30 hours ahead of your flight.", "when can i check in online", "t",
        True, None)
    assert decision.verdict == "supported" and _model_decides(decision)
    decision, _unit, _chunks = airline._verify_claim(
        "You can check in online starting 30 days ahead of your flight.", "when can i check in online", "t",
        True, None)
    assert decision.verdict == "contradicted" and not _model_decides(decision)

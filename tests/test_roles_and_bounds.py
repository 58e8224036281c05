"""Two classes of wrong approvals a new user found: a named person put in a relation the evidence
gives someone else (an owner, a founder, a manager, a buyer; active, passive or "the owner is"),
and a limit turned the other way ("at least 8" against "at most 8"). Each case stands next to its
twin that must stay approved, over small invented knowledge bases, with the evidence passed as a
knowledge base, as a list of context strings and as one context string."""

from __future__ import annotations

import pytest

import director_fast as df
from director_fast.verify.rules_roles import holder_replaced, holdings


def _review(facts, answer, how, question=""):
    """(approved, [(verdict, signal)]) of ``answer`` with ``facts`` passed ``how``."""
    if how == "knowledge":
        sc = df.CoherenceScorer(use_nli=False, knowledge=list(facts))
        ok, score = sc.review(question, answer)
    else:
        context = list(facts) if how == "list" else " ".join(facts)
        ok, score = df.CoherenceScorer(use_nli=False).review(question, answer, context=context)
    return ok, [(a.verdict, a.signal) for a in score.attributions]


HOW = ["knowledge", "list", "string"]

# ---- a relation given to another named person ------------------------------------------------------

STABLES = ["Alderbank Stables is owned by Marta Lindqvist, and the head of the riding school is Owen Pryce.",
           "Tidewater Books was founded by Nora Quist in 2003; its head buyer is Felix Amani.",
           "The Quayside branch is managed by Ines Falk, and Bram Olsen runs the warehouse.",
           "In 2019 Corvane Foods acquired Millbrook Dairy from Tessa Rowe."]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("wrong, right", [
    # passive, active and copular forms of one relation, each against the passive evidence
    ("Alderbank Stables is owned by Owen Pryce.", "Alderbank Stables is owned by Marta Lindqvist."),
    ("Owen Pryce owns Alderbank Stables.", "Marta Lindqvist owns Alderbank Stables."),
    ("The owner of Alderbank Stables is Owen Pryce.", "The owner of Alderbank Stables is Marta Lindqvist."),
    # a job title in the evidence ("the head of the riding school") against a verb in the claim
    ("Marta Lindqvist heads the riding school.", "Owen Pryce heads the riding school."),
    ("Felix Amani founded Tidewater Books.", "Nora Quist founded Tidewater Books."),
    ("The founder of Tidewater Books is Felix Amani.", "The founder of Tidewater Books is Nora Quist."),
    # "manages" and "is managed by" are one relation ("runs" another word for it)
    ("Bram Olsen manages the Quayside branch.", "Ines Falk manages the Quayside branch."),
    ("The Quayside branch is run by Bram Olsen.", "The Quayside branch is run by Ines Falk."),
    ("Millbrook Dairy was acquired by Tessa Rowe.", "Millbrook Dairy was acquired by Corvane Foods."),
])
def test_a_relation_given_to_another_named_person_is_contradicted(how, wrong, right):
    ok, v = _review(STABLES, wrong, how)
    assert not ok and v == [("contradicted", "roles")], v
    ok, v = _review(STABLES, right, how)
    assert ok and [x for x, _s in v] == ["supported"], v


@pytest.mark.parametrize("how", HOW)
def test_a_co_holder_and_a_person_in_an_unrelated_role_are_not_swaps(how):
    facts = ["The Lantern Cafe is owned by Hugo Marsh and Leila Tan, and the head chef is Sami Okoro."]
    assert _review(facts, "Leila Tan owns the Lantern Cafe.", how)[0]
    assert _review(facts, "The Lantern Cafe is owned by Hugo Marsh.", how)[0]
    assert _review(facts, "Sami Okoro is the head chef.", how)[0]
    ok, v = _review(facts, "Sami Okoro owns the Lantern Cafe.", how)
    assert not ok and v == [("contradicted", "roles")], v


def test_holdings_read_the_three_forms_with_one_relation_root():
    assert [(h.key, h.holders) for h in holdings("Luis Carvalho owns Pinecrest.")] == [(("own",), ("luis carvalho",))]
    assert [(h.key, h.holders, sorted(h.obj)) for h in holdings("Pinecrest is owned by Harriet Mbeki.")] == \
        [(("own",), ("harriet mbeki",), ["pinecrest"])]
    assert [(h.key, h.holders) for h in holdings("The owner is Harriet Mbeki.")] == [(("own",), ("harriet mbeki",))]
    # a job title keeps the words before its noun: "head handler" is not "handler", nor "head"
    assert [h.key for h in holdings("The head handler is Luis Carvalho.")] == [("head", "handl")]
    # a name after a preposition is no subject; a capitalised first word alone is no name
    assert holdings("The cafe on MV Guillemot serves hot food.") == ()
    assert holdings("Parking costs £5 a day.") == ()
    assert holdings("Priya Raman reports to Miriam Okonjo.") == ()


def test_holder_replaced_needs_the_same_thing_and_the_person_in_the_evidence():
    evidence = "Pinecrest is owned by Harriet Mbeki, and the head handler is Luis Carvalho."
    assert holder_replaced("Luis Carvalho owns Pinecrest.", evidence)
    assert not holder_replaced("Harriet Mbeki owns Pinecrest.", evidence)
    assert not holder_replaced("Luis Carvalho owns Oakridge.", evidence)  # something else held
    assert not holder_replaced("Tom Reyes owns Pinecrest.", evidence)  # a name the evidence lacks: entity's


# ---- a limit turned the other way -------------------------------------------------------------------

KAYAKS = ["Tours start at the north jetty, and each kayak tour takes at most 8 paddlers.",
          "Members may borrow up to 6 books at a time, and loans last 3 weeks."]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("wrong, right", [
    ("Each kayak tour takes at least 8 paddlers.", "Each kayak tour takes no more than 8 paddlers."),
    ("Each kayak tour takes more than 8 paddlers.", "Each kayak tour takes up to 8 paddlers."),
    ("Each kayak tour takes over 8 paddlers.", "Each kayak tour takes a maximum of 8 paddlers."),
    ("Members may borrow a minimum of 6 books at a time.", "Members may borrow at most 6 books at a time."),
])
def test_a_bound_from_the_other_side_is_contradicted_and_the_same_side_supported(how, wrong, right):
    ok, v = _review(KAYAKS, wrong, how)
    assert not ok and v == [("contradicted", "unit")], v
    ok, v = _review(KAYAKS, right, how)
    assert ok and v == [("supported", "coverage")], v


@pytest.mark.parametrize("how", HOW)
def test_capped_at_is_an_upper_bound_on_either_side(how):
    facts = ["Each climbing group is capped at 6 climbers."]
    ok, v = _review(facts, "Each climbing group has at least 6 climbers.", how)
    assert not ok and v == [("contradicted", "unit")], v
    ok, v = _review(facts, "Each climbing group has at most 6 climbers.", how)
    assert ok, v
    ok, v = _review(KAYAKS, "Kayak tours are capped at 8 paddlers.", how)
    assert ok, v

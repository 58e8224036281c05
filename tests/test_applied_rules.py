"""A claim that applies a bound it states to the asker's own number (applied_rules)."""

from __future__ import annotations

import pytest

import director_fast as df
from director_fast.verify.applied_rules import applied_rule, asker_numbers, bounds
from director_fast.verify.numbers import find_numbers


@pytest.mark.parametrize("claim,question,left,consistent", [
    ("Guests aged 60 and over pay £5, so at 72 you pay £5.", "I'm 72, what do I pay?",
     "Guests aged 60 and over pay £5, so at you pay £5.", True),
    ("Guests aged 60 and over pay £5, so at 52 you pay £5.", "I'm 52, what do I pay?", None, False),
    ("Vans are not allowed between 08:00 and 10:00, so 9am won't work.", "Can I bring my van at 9am?",
     "Vans are not allowed between 08:00 and 10:00, so won't work.", True),
    ("Vans are not allowed between 08:00 and 10:00, so 9am is fine.", "Can I bring my van at 9am?", None, False),
    ("The gate is closed between 23:00 and 06:00, so arriving at midnight won't work.",
     "We get back at midnight, can we drive in?", None, True),  # a range past midnight
    ("The museum is open from 10:00 to 17:00, so at 4:30 it's fine.", "Can I come at 4:30?",
     "The museum is open from 10:00 to 17:00, so at it's fine.", True),  # an unmarked 4:30 may be 16:30
    ("Lockers need a 3-month minimum, so renting for 2 months isn't possible.", "Can I rent one for 2 months?",
     None, True),
    ("Lockers need a 3-month minimum, so renting for 2 months is fine.", "Can I rent one for 2 months?", None, False),
])
def test_applications_of_a_stated_bound(claim, question, left, consistent):
    got = applied_rule(claim, question)
    assert got is not None and got.consistent is consistent
    if left is not None:
        assert got.text == left


@pytest.mark.parametrize("claim,question", [
    # found by a reviewer: a fact that happens to hold the asker's number is no application, and
    # an application concluding something other than eligibility, permission, cost or cover is
    # left whole (its number is then checked as any number)
    ("We are open from 12:00 to 22:00, and last orders are taken at 8pm.", "Can I come at 8pm?"),
    ("Groups of 7 or more must call us, so a group of 8 can book online.", "We are a group of 8. Can we book online?"),
    ("The museum is open until 8 pm.", "Is the museum open until 8 pm?"),  # no asker's number
    ("Seniors aged 65 and over pay £9.", "Is it £9 for seniors?"),         # the question asserts nothing of the asker
    ("The pool opens at 7.", "I'm 7, can I swim?"),                         # no bound of the kind
    # found by a second reviewer: an age against a bound that counts something else
    ("Groups of up to 15 people get half price, so at 14 she travels free.", "My daughter is 14, does she travel free?"),
])
def test_no_application(claim, question):
    assert applied_rule(claim, question) is None


def test_asker_numbers_and_bounds():
    assert [m.surface for m in asker_numbers("Is it open at 9? My son is 14.")] == ["14"]
    text = "Children under 8 must be with an adult aged 16 or over between 10:00 and 12:00."
    got = [(b.kind, b.lo, b.hi, b.strict) for b in bounds(text, find_numbers(text))]
    assert got == [("time", 600.0, 720.0, False), ("", None, 8.0, True), ("", 16.0, None, False)]


def test_the_verdict_on_applied_rules():
    kb = ["Visitors aged 65 and over pay the senior rate of £9.", "The car park barrier is closed between 22:30 and 07:00."]
    scorer = df.CoherenceScorer(use_nli=False, knowledge=kb)
    ok = scorer.score("I'm 70, what do I pay?", "Visitors aged 65 and over pay £9, so at 70 you pay £9.")
    assert ok.approved, [(a.verdict, a.signal) for a in ok.attributions]
    bad = scorer.score("I'm 60, what do I pay?", "Visitors aged 65 and over pay £9, so at 60 you pay £9.")
    assert not bad.approved and [a.verdict for a in bad.attributions] == ["contradicted"]
    # the rule itself is still judged: a wrong bound is caught against the evidence
    wrong = scorer.score("I'm 70, what do I pay?", "Visitors aged 60 and over pay £9, so at 70 you pay £9.")
    assert not wrong.approved

"""Numbers an answer computes from numbers it states are checked by arithmetic."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import director_fast as df
from director_fast.derived_numbers import derived_spans


@pytest.mark.parametrize("claim,context,derived", [
    ("Adding the sauna costs £3.50, so that's £6.70 altogether.", ["A swim is £3.20 for you."],
     ["so that's £6.70 altogether"]),
    ("£165 covers up to 15, plus £8 for each of the 5 extra children, so £205 in total.", [], ["so £205 in total"]),
    ("A course costs £240, and with a 20% discount that comes to £192.", [], ["comes to £192"]),
    ("With 30% off, $29 becomes $20.30, which makes $203 a month for 10 users.", [], ["which makes $203"]),
    ("The pool closes at 9:30 pm and the main pool half an hour before that, so at 9 pm.", [], ["so at 9 pm"]),
    # a count from the user's question is not an operand
    ("Parking costs £4 an hour, so that's £8 in total.", [], []),
    # wrong arithmetic, or no result cue: nothing is derived
    ("Adding the sauna costs £3.50, so that's £7.70 altogether.", ["A swim is £3.20 for you."], []),
    ("Adding the sauna costs £3.50 and a swim costs £6.70.", ["A swim is £3.20 for you."], []),
    ("So that's £7 altogether.", ["It costs £3.50."], []),  # one operand is never used twice
])
def test_derived_spans(claim, context, derived):
    got = [claim[a:b] for a, b in derived_spans(claim, context)]
    assert got == derived


KB = ["A swim costs £3.20 for adults aged 65 and over.",
      "The sauna costs £3.50 when added to a swim on the same day."]


@pytest.mark.parametrize("answer,approved", [
    ("A swim costs you £3.20. The sauna costs £3.50 when added to a swim on the same day, so that's £6.70 "
     "altogether.", True),
    ("A swim costs you £3.20, and the sauna costs £3.50 when added to a swim on the same day. So that's "
     "£6.70 altogether.", True),  # operands in the sentence before
    ("A swim costs you £3.20. The sauna costs £3.50 when added to a swim on the same day, so that's £7.70 "
     "altogether.", False),
    ("A swim costs you £3.40. The sauna costs £3.50 when added to a swim on the same day, so that's £6.90 "
     "altogether.", False),  # right sum of a wrong operand: the operand is still checked
])
def test_arithmetic_in_answers(answer, approved):
    scorer = df.CoherenceScorer(knowledge=KB)
    ok, score = scorer.review("I'm 68. What does a swim and the sauna cost?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]
    tokens = [w + " " for w in answer.split()]
    g = df.stream_guard(tokens, df.CoherenceScorer(knowledge=KB), prompt="I'm 68. What does a swim and the sauna cost?")
    for _ in g:
        pass
    assert g.session.halted is (not approved)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=st.integers(100, 900), b=st.integers(100, 900), delta=st.integers(-3, 3))
def test_only_the_right_sum_is_derived(a, b, delta):
    claim = f"That is £{b / 100:.2f} more, so that's £{(a + b + delta) / 100:.2f} in total."
    got = derived_spans(claim, [f"The swim is £{a / 100:.2f}."])
    assert bool(got) is (delta == 0)

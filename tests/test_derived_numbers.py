"""Numbers an answer computes from numbers it states are checked by arithmetic."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import director_fast as df
from director_fast.verify.derived_numbers import derived_spans, strip_derived


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
    scorer = df.CoherenceScorer(use_nli=False, knowledge=KB)
    ok, score = scorer.review("I'm 68. What does a swim and the sauna cost?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]
    tokens = [w + " " for w in answer.split()]
    g = df.stream_guard(tokens, df.CoherenceScorer(use_nli=False, knowledge=KB), prompt="I'm 68. What does a swim and the sauna cost?")
    for _ in g:
        pass
    assert g.session.halted is (not approved)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=st.integers(100, 900), b=st.integers(100, 900), delta=st.integers(-3, 3))
def test_only_the_right_sum_is_derived(a, b, delta):
    claim = f"That is £{b / 100:.2f} more, so that's £{(a + b + delta) / 100:.2f} in total."
    got = derived_spans(claim, [f"The swim is £{a / 100:.2f}."])
    assert bool(got) is (delta == 0)


# ---- fractions, discounts set against each other, periods, counts, durations between times ----

@pytest.mark.parametrize("claim,context,derived", [
    # a fraction of a stated amount
    ("Under-12s pay half, so your daughter's ticket comes to £3.40 (half of the £6.80 adult ticket).", [],
     ["comes to £3.40"]),
    ("Under-12s pay half, so your daughter's ticket comes to £3.60 (half of the £6.80 adult ticket).", [], []),
    # percentages from the sentence before; a second result set against a derived first one
    ("On the £12.00 day ticket, that's £9.00 with the gold card versus £10.80 with the silver card.",
     ["The gold card takes 25% off and the silver card 10% off."], ["that's £9.00", "versus £10.80"]),
    ("On the £12.00 day ticket, that's £9.00 with the gold card versus £10.50 with the silver card.",
     ["The gold card takes 25% off and the silver card 10% off."], ["that's £9.00"]),
    # "versus" alone is no cue: only after a result that was derived
    ("On the £12.00 day ticket, that's £9.50 with the gold card versus £10.80 with the silver card.",
     ["The gold card takes 25% off and the silver card 10% off."], []),
    # a monthly price over a year (12), and the difference with the yearly price
    ("Paying £4 a month adds up to £48 over a year, so the £40 yearly plan saves you £8.", [],
     ["adds up to £48", "saves you £8"]),
    ("£3 a month adds up to £38 over a year.", [], []),
    ("£4 a week adds up to £208 a year.", [], ["adds up to £208"]),
    ("£4 a month adds up to £48.", [], []),  # no year named: no 12
    # a stated count of periods times a rate, then a discount on that result
    ("Storage is £85 a month, so six months would come to £510.", [], ["come to £510"]),
    ("Paying upfront takes 5% off, which brings it down to £484.50.", ["So six months would come to £510."],
     ["brings it down to £484.50"]),
    # a duration between two times of the sentence
    ("Choir meets from 7:15 to 9 pm, so you get one and three-quarter hours of singing.", [],
     ["so you get one and three-quarter hours"]),
    ("The hall is booked 13:30-16:00, so the session lasts two and a half hours.", [],
     ["so the session lasts two and a half hours"]),
    ("Choir meets from 7:15 to 9 pm, so you get two hours of singing.", [], []),
    # "so ... is" with no number between
    ("The gym shuts at 10 pm and the sauna an hour earlier, so the last sauna session is 9 pm.", [],
     ["so the last sauna session is 9 pm"]),
    ("The gym shuts at 10 pm and the sauna an hour earlier, so the last sauna session is 8 pm.", [], []),
    # "would be" / "will cost" after a count of the asker's scenario
    ("Workshops are £7 per child, so 12 children would be £84.", [], ["would be £84"]),
    ("Workshops are £7 per child, so 12 children would be £86.", [], []),
    ("A locker is £2 a day, so 5 days will cost £10.", [], ["will cost £10"]),
    # two groups priced apiece (stated counts only)
    ("2 adults at £12 each and two children at £6 each would come to £36.", [], ["come to £36"]),
    ("2 adults at £12 each and two children at £6 each would come to £38.", [], []),
])
def test_more_derivations(claim, context, derived):
    got = [claim[a:b] for a, b in derived_spans(claim, context)]
    assert got == derived


def test_one_mention_is_one_operand():
    # "one of four ... one of two": no 1 * 2 + 2 (the "two" used twice) nor 1 * 1
    claim = "The band won the prize, making it one of four awards for the label, and one of two for the studio."
    assert derived_spans(claim) == []
    assert strip_derived(claim, ()) == claim


def test_two_wrong_results_never_excuse_each_other():
    # the second result is right arithmetic on the first, wrong one; the first stays to be checked
    claim = "Paying £4 a month adds up to £50 over a year, so the £40 yearly plan saves you £10."
    assert [claim[a:b] for a, b in derived_spans(claim)] == ["saves you £10"]
    assert "£50" in strip_derived(claim, ())


def test_the_count_of_a_computation_is_stripped_with_its_result():
    rest = strip_derived("Storage is £85 a month, so six months would come to £510.", ())
    assert "£85" in rest and "six" not in rest and "£510" not in rest
    # a wrong result keeps its count and its number
    claim = "Storage is £85 a month, so six months would come to £520."
    assert strip_derived(claim, ()) == claim


STUDIO = ["The evening pottery class runs on Wednesdays from 18:00 to 20:30.",
          "Studio membership costs £5 a month or £50 a year.",
          "A firing slot in the kiln lasts 45 minutes.",
          "Members get 20% off glazes, and a 1 kg bag of clay costs £7.50."]


@pytest.mark.parametrize("answer,approved", [
    ("The pottery class runs on Wednesdays from 6 to 8:30 pm, so you get two and a half hours of clay time.", True),
    ("The pottery class runs on Wednesdays from 6 to 8:30 pm, so you get three hours of clay time.", False),
    ("The pottery class runs on Wednesdays from 6 to 8:30 am.", False),
    ("Studio membership is £5 a month, which adds up to £60 over a year, so the £50 yearly option saves you £10.",
     True),
    ("Studio membership is £5 a month, which adds up to £65 over a year, so the £50 yearly option saves you £15.",
     False),
    ("A firing slot in the kiln lasts three-quarters of an hour.", True),
    ("A firing slot in the kiln lasts half an hour.", False),
    ("A 1 kg bag of clay is £7.50, so with the 20% member discount that's £6.00.", True),
    ("A 1 kg bag of clay is £7.50, so with the 20% member discount that's £6.50.", False),
])
def test_new_arithmetic_in_answers(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=STUDIO).review("", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]
    g = df.stream_guard([w + " " for w in answer.split()], df.CoherenceScorer(use_nli=False, knowledge=STUDIO))
    for _ in g:
        pass
    assert g.session.halted is (not approved)


def test_the_work_per_claim_is_bounded(monkeypatch):
    import director_fast.verify.derived_numbers as dn

    seen = []
    real = dn._derivable

    def spy(result, operands, implicit=()):
        seen.append(len(operands))
        return real(result, operands, implicit)

    monkeypatch.setattr(dn, "_derivable", spy)
    text = "aged 65 and over so at 70 " * 60  # 120 numbers, 60 result cues
    dn.derived_spans(text, ["a context sentence with 1 2 3 " * 10])
    assert 0 < len(seen) <= dn._MAX_RESULTS and max(seen) <= 2 * dn._MAX_OPERANDS

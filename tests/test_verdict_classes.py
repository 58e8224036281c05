"""Whole classes of wrong verdicts a new user found on an invented bike-shop knowledge base
(opening times, long digit runs, corrections of the user, ...): each test pins the class with a
few phrasings, and the wrong variant next to the right one, so that neither side can pass by
accident."""

from __future__ import annotations

import pytest

import director_fast as df
from director_fast.verify.numbers import find_numbers, long_digits_differ, same_value


def _verdicts(scorer, answer, prompt="", **kw):
    ok, score = scorer.review(prompt, answer, **kw)
    return ok, [(a.verdict, a.signal) for a in score.attributions]


# ---- opening times: "opens at X ... on weekdays" is a time, not the opposite state ---------------

HOURS = ["The store opens at 09:00 and closes at 18:00 on weekdays."]


@pytest.mark.parametrize("answer", [
    "The store opens at 09:00 on weekdays.",
    "On weekdays the store opens at 9 am.",
    "The store closes at 18:00 on weekdays.",
    "The store closes at 6 pm on weekdays.",
])
def test_an_opening_or_closing_time_on_the_days_stated_is_supported(answer):
    ok, v = _verdicts(df.CoherenceScorer(use_nli=False, knowledge=HOURS), answer)
    assert ok and v == [("supported", "coverage")]


@pytest.mark.parametrize("answer, signal", [
    ("The store opens at 10:00 on weekdays.", "number"),
    ("The store closes at 09:00 on weekdays.", "number"),
    ("The store is closed on weekdays.", "antonym"),
])
def test_a_wrong_time_or_the_opposite_state_stays_contradicted(answer, signal):
    ok, v = _verdicts(df.CoherenceScorer(use_nli=False, knowledge=HOURS), answer)
    assert not ok and v == [("contradicted", signal)]


# ---- long digit runs: phone, order and tracking numbers ------------------------------------------

@pytest.mark.parametrize("stated, claimed", [
    ("5551234567", "5551234568"),                                  # 10 digits, a float tells them apart
    ("9400111899223197428490", "9400111899223197428491"),          # 22 digits, one float for both
])
def test_a_long_number_differing_in_its_last_digit_is_contradicted(stated, claimed):
    sc = df.CoherenceScorer(use_nli=False)
    ok, v = _verdicts(sc, f"Your reference number is {claimed}.", context=f"Your reference number is {stated}.")
    assert not ok and v == [("contradicted", "number")]
    ok, v = _verdicts(sc, f"Your reference number is {stated}.", context=f"Your reference number is {stated}.")
    assert ok and v == [("supported", "coverage")]


def test_same_value_tolerates_conversion_rounding_but_not_another_integer():
    kg, g = find_numbers("1.5 kg or 1,500 g")
    assert same_value(kg.quantity, g.quantity)
    assert not same_value(5551234567.0, 5551234568.0)
    assert same_value(0.1 + 0.2, 0.3)
    assert long_digits_differ("9400111899223197428490", "9400 1118 9922 3197 428491")
    assert not long_digits_differ("9400111899223197428490", "9400 1118 9922 3197 428490")
    assert not long_digits_differ("5551234567", "5551234568")  # short enough: compare values


# ---- a supported correction of the user is not blocked -------------------------------------------

FACTS = ["Nordwind Bikes was founded in 2011.", "Nordwind Bikes employs 140 people.",
         "Standard delivery costs NOK 99."]


@pytest.mark.parametrize("prompt, answer", [
    ("I read that Nordwind was founded in 1999. Is that true?", "No, Nordwind Bikes was founded in 2011."),
    ("My friend said you employ 9,000 people. How many staff do you have?", "We have 140 employees."),
    ("Delivery costs NOK 49. Can you confirm?", "Standard delivery costs NOK 99."),
])
def test_correcting_the_users_premise_with_the_knowledge_is_approved_and_reported(prompt, answer):
    sc = df.CoherenceScorer(use_nli=False, knowledge=FACTS)
    ok, score = sc.review(prompt, answer)
    assert ok and score.score >= sc.soft_limit
    assert score.h_logical > 0.5  # the contradiction with the prompt is still reported
    g = df.stream_guard([w + " " for w in answer.split()], sc, prompt=prompt)
    assert "".join(g).strip() == answer and not g.session.halted


def test_an_unsupported_claim_contradicting_the_prompt_still_lowers_the_score():
    sc = df.CoherenceScorer(use_nli=False, knowledge=FACTS)
    ok, score = sc.review("I read that Nordwind was founded in 1999. Is that true?",
                          "No, Nordwind Bikes was founded in 2012.")
    assert not ok and [a.verdict for a in score.attributions] == ["contradicted"]


# ---- a sentence that only names the claim's subject, or denies something else, supports nothing --

@pytest.mark.parametrize("facts, answer", [
    (["Harbour View Hotel has 85 rooms."], "Harbour View Hotel allows dogs."),
    (["Nordwind Bikes employs 140 people."], "Nordwind Bikes repairs cars."),
    (["The Riverside Dental Clinic opens at 08:00."], "The Riverside Dental Clinic accepts walk-ins."),
    (["The hotel does not allow pets."], "The hotel allows smoking."),
    (["The café does not serve alcohol."], "The café serves breakfast."),
    (["Nordwind Bikes does not sell electric scooters."], "Nordwind Bikes sells children's bikes."),
])
def test_an_invented_claim_about_a_known_subject_is_not_supported(facts, answer):
    ok, v = _verdicts(df.CoherenceScorer(use_nli=False, knowledge=facts), answer)
    assert not ok and v == [("not_found", "coverage")]


@pytest.mark.parametrize("facts, answer", [
    (["Harbour View Hotel allows dogs in every room."], "Harbour View Hotel allows dogs."),
    (["Dogs are allowed at Harbour View Hotel."], "Harbour View Hotel welcomes dogs."),
    (["The IT Help Desk is led by Farah Quinn, who reports to Leon Baptiste."],
     "Farah Quinn heads the IT Help Desk and answers to Leon Baptiste."),
])
def test_the_same_subject_with_what_the_sentence_says_stays_supported(facts, answer):
    ok, v = _verdicts(df.CoherenceScorer(use_nli=False, knowledge=facts), answer)
    assert ok and all(verdict == "supported" for verdict, _s in v)


@pytest.mark.parametrize("sentence, claim, says", [
    ("The hotel does not allow pets, except guide dogs.", "The hotel allows guide dogs.", True),
    ("Students who are not complete beginners must take a free placement test.",
     "Students must take a placement test.", True),   # the negation's scope ends after 3 words
    ("The hotel does not allow pets.", "The hotel does not allow smoking.", True),  # both deny
    ("The hotel does not allow pets.", "The hotel allows smoking.", False),
    ("Harbour View Hotel has 85 rooms.", "Harbour View Hotel has 85 suites.", True),  # a number decides
    ("Harbour View Hotel has 85 rooms.", "Harbour View Hotel allows dogs.", False),
])
def test_says_what_the_claim_says(sentence, claim, says):
    from director_fast.verify.rules_scope import says_what_the_claim_says
    assert says_what_the_claim_says(claim, sentence, 0.45) is says


# ---- "one week", "five working days": written numbers with their period --------------------------

@pytest.mark.parametrize("text, value, unit", [
    ("takes two working days", 2.0, "day"),
    ("within 5 business days", 5.0, "day"),
    ("one calendar month", 1.0, "month"),
    ("two full days", 2.0, "day"),
])
def test_a_qualified_period_is_the_numbers_unit(text, value, unit):
    (m,) = find_numbers(text)
    assert (m.value, m.unit) == (value, unit)


@pytest.mark.parametrize("facts, answer, ok", [
    (["A basic service takes two working days."], "A basic service takes one working day.", False),
    (["The course lasts three weeks."], "The course lasts one week.", False),
    (["The course lasts one week."], "The course lasts one week.", True),
    (["Refunds take 5 business days."], "Refunds take five working days.", True),
    (["A day pass costs £5."], "A one-day pass costs £5.", True),       # a compound is no count
    (["Refunds take 5 working days."], "Refunds take 5 weeks.", False),  # the period is the unit
    (["Refunds take 5 working days."], "Refunds take 5 business days.", True),
    (["Up to 4 guests may join."], "If one of you comes along, that is fine.", True),  # "one" alone
])
def test_a_written_one_with_its_unit_is_checked(facts, answer, ok):
    got, v = _verdicts(df.CoherenceScorer(use_nli=False, knowledge=facts, unsupported="warn"), answer)
    assert got is ok, v


# ---- job titles and their acronyms ----------------------------------------------------------------

@pytest.mark.parametrize("answer, ok", [
    ("The CEO is Ingrid Solberg.", True),
    ("Our HR manager is Ana Ruiz.", True),
    ("The CFO is Owen Brandt.", True),
    ("The CEO is Owen Brandt.", False),
    ("The CFO is Ingrid Solberg.", False),
])
def test_a_job_title_acronym_reads_as_the_spelled_out_title(answer, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["The chief executive is Ingrid Solberg.",
                                       "Our human resources manager is Ana Ruiz.",
                                       "The chief financial officer is Owen Brandt."])
    assert sc.review("", answer)[0] is ok


# ---- a rule's exception applies when the question is about the excepted case ---------------------

@pytest.mark.parametrize("question, ok", [
    ("How long do refunds for a card payment take?", True),   # "card" alone is not "gift cards"
    ("How long do refunds for a gift card take?", False),
    ("How long do refunds take?", True),
])
def test_an_exception_applies_only_when_the_question_names_the_excepted_case(question, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Refunds take 5 working days, except for gift cards, which are not refundable."])
    assert sc.review(question, "Refunds take 5 working days.")[0] is ok


def test_an_exception_is_asked_about_in_other_words_of_the_same_case():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Items may be renewed up to 3 times, unless another member has placed a "
                                       "reservation on them."])
    ok, score = sc.review("Someone has put a reservation on the novel I've got out. Can I still renew it?",
                          "Yes, items can be renewed up to 3 times.")
    assert not ok and [(a.verdict, a.signal) for a in score.attributions] == [("contradicted", "exception")]


def test_a_wrong_number_finds_the_fact_it_is_about_through_its_other_words():
    kb = df.KnowledgeBase()
    kb.add_facts(["Nordwind Bikes employs 140 people.",
                  "Standard delivery costs NOK 99 and is free for orders over NOK 1,500.",
                  "A basic service costs NOK 650."], source="facts.md", tenant="n")
    for facts in (kb, ["Nordwind Bikes employs 140 people.",
                       "Standard delivery costs NOK 99 and is free for orders over NOK 1,500."]):
        sc = df.CoherenceScorer(use_nli=False, knowledge=facts, unsupported="warn")
        ok, score = sc.review("How many people work at Nordwind?", "We have about 1,400 employees.",
                              tenant_id="n" if facts is kb else "")
        assert not ok and [(a.verdict, a.signal) for a in score.attributions] == [("contradicted", "number")]


# ---- email and web addresses are compared letter for letter --------------------------------------

ADDRESSES = ["Complaints go to Marta Kessler at marta@alpenglow-ski.example.",
             "Book online at www.alpenglow-ski.example/booking."]


@pytest.mark.parametrize("answer, ok", [
    ("Complaints should go to Marta Kessler at info@alpenglow-ski.example.", False),
    ("Send complaints to Marta Kessler at marta@alpenglow.example.", False),
    ("You can book online at www.alpenglow-ski.example/courses.", False),
    ("Send complaints to Marta@Alpenglow-Ski.example.", True),                     # case aside
    ("You can book online at https://www.alpenglow-ski.example/booking/.", True),  # scheme, slash
])
def test_an_address_must_stand_in_the_evidence(answer, ok):
    assert df.CoherenceScorer(use_nli=False, knowledge=ADDRESSES).review("", answer)[0] is ok


# ---- a rule applied to the asker's own number --------------------------------------------------

SENIOR = ["Seniors aged 65 and over get 15% off group lessons."]
KIDS = ["Children's group lessons are for ages 4 to 11."]


@pytest.mark.parametrize("facts, question, answer, ok", [
    (SENIOR, "I'm 63 - any discount?",
     "Since you're 63, you qualify for our senior discount: guests aged 65 and over get 15% off.", False),
    (SENIOR, "I'm 63 - any discount?", "Yes, as you're 63 you get 15% off group lessons.", False),
    (SENIOR, "I'm 70 - any discount?", "Yes, as you're 70 you get 15% off group lessons.", True),
    (KIDS, "My son is 12, can he join?",
     "Yes, children's group lessons are for ages 4 to 11, so your 12-year-old can join.", False),
    (KIDS, "Can my 10-year-old join?",
     "The kids' group lessons are for ages 4 to 11, so at 10 your child can join.", True),
])
def test_the_askers_number_must_fit_the_rule_applied_to_it(facts, question, answer, ok):
    got, score = df.CoherenceScorer(use_nli=False, knowledge=facts).review(question, answer)
    assert got is ok, [(a.claim, a.verdict, a.signal) for a in score.attributions]


# ---- a claim that narrows what the evidence says -----------------------------------------------

@pytest.mark.parametrize("answer, verdict", [
    ("The pool is open from 7:00 to 21:00 on weekdays only.", ("contradicted", "antonym")),
    ("The pool is open every day except Sundays, from 7:00 to 21:00.", ("contradicted", "antonym")),
    ("The pool is open on Sundays from 7:00 to 21:00.", ("supported", "coverage")),  # true, not limiting
])
def test_a_claim_limited_to_some_days_against_every_day(answer, verdict):
    ok, v = _verdicts(df.CoherenceScorer(use_nli=False, knowledge=["The pool is open every day from 7:00 to 21:00."]), answer)
    assert v == [verdict]


def test_an_exception_the_evidence_never_makes_is_not_supported():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Delivery is free on all orders."])
    assert _verdicts(sc, "Delivery is free on all orders except furniture.") == (False, [("not_found", "coverage")])
    assert _verdicts(sc, "Delivery is free on all orders.")[0]


# ---- dashes and table cells ------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [
    "| Period | Days | Hours |\n|---|---|---|\n| Off-season | Monday–Friday | 9:00–12:00 |",
    "- **Off-season:** Monday–Friday, 9:00–12:00",
    "Off-season: Monday — Friday, 9:00 to 12:00.",
])
def test_an_en_dash_separates_words_and_a_table_cell_starts_like_a_sentence(answer):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Outside the season the office is open Monday to Friday, 9:00 to 12:00."])
    ok, score = sc.review("What are the office hours?", answer)
    assert ok, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_a_wrong_day_range_with_an_en_dash_is_still_caught():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Outside the season the office is open Monday to Friday, 9:00 to 12:00."])
    assert not sc.review("", "Off-season: Tuesday–Saturday, 9:00–12:00")[0]


# ---- arithmetic the answer shows, with the asker's own party ---------------------------------------

LESSONS = ["Private lessons cost €75 per hour for one or two people; each additional person pays €20 per hour.",
           "Group lessons cost €65 per person per day."]


@pytest.mark.parametrize("question, answer, ok", [
    ("We are 4, price?", "With 4 people you pay €75 + €20 + €20 = €115 per hour.", True),
    ("We are 4, price?", "With 4 people you pay €75 + €20 + €20 = €125 per hour.", False),
    ("2 adults, 2 days?", "Group lessons are €65 per person per day, so 2 adults for 2 days comes to €260.", True),
    ("2 adults, 2 days?", "Group lessons are €65 per person per day, so 2 adults for 2 days comes to €270.", False),
])
def test_worked_prices_for_the_askers_party(question, answer, ok):
    got, score = df.CoherenceScorer(use_nli=False, knowledge=LESSONS).review(question, answer)
    assert got is ok, [(a.claim, a.verdict, a.signal) for a in score.attributions]


@pytest.mark.parametrize("facts, answer", [
    (["Groups have a maximum of 8 pupils."], "You'll never be in a group of more than 8 pupils."),
    (["Booking at least 30 days in advance gives 5% off.",
      "Lessons cancelled more than 48 hours before the start are refunded in full."],
     "If you book 30 days or more ahead, you save 5%."),
    (["Booking at least 30 days in advance gives 5% off."], "Book 30 days or more before the start and you save 5%."),
])
def test_a_bound_in_other_words_is_the_same_bound(facts, answer):
    ok, v = _verdicts(df.CoherenceScorer(use_nli=False, knowledge=facts), answer)
    assert ok, v


def test_a_different_bound_in_other_words_is_still_caught():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Groups have a maximum of 8 pupils."])
    assert not sc.review("", "You'll never be in a group of more than 10 pupils.")[0]


def test_a_quantity_repeated_for_another_thing_is_checked_again():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["The frame warranty lasts 10 years; components are covered for 2 years."])
    assert not sc.review("", "The warranty lasts 10 years for the frame and 10 years for components.")[0]


# ---- pence, and requirement synonyms -------------------------------------------------------------

def test_pence_are_an_amount_of_pounds():
    (m,) = find_numbers("costs 50p")
    assert (m.value, m.unit) == (0.5, "gbp")
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Each extra 15 minutes costs 50p."])
    assert sc.review("", "Each extra 15 minutes costs £0.50.")[0]
    assert not sc.review("", "Each extra 15 minutes costs £5.")[0]


@pytest.mark.parametrize("answer, ok", [
    ("Helmets aren't mandatory.", True),
    ("Helmets aren't compulsory, though they are recommended.", True),
    ("Helmets are compulsory.", False),
])
def test_mandatory_and_compulsory_read_as_required(answer, ok):
    assert df.CoherenceScorer(use_nli=False, knowledge=["Helmets are recommended but not required."]).review("", answer)[0] is ok


def test_the_askers_number_is_no_fact_for_a_composition_to_contradict():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Riders must be at least 16 years old.",
                                       "Riders must be 18 or over to hire an e-bike."])
    _ok, score = sc.review("Can my 17-year-old hire an e-bike?", "Your 17-year-old can ride a regular bike.")
    assert [a.verdict for a in score.attributions] != ["contradicted"]


@pytest.mark.parametrize("answer, ok", [
    ("Not at 8am on a Tuesday — bikes aren't allowed on the Riverside Walk from 7:00 to 10:00 on weekdays.", True),
    ("The Riverside Walk is closed to bikes 7:00–10:00 on weekdays.", True),
    ("The Riverside Walk is closed to bikes 8:00–11:00 on weekdays.", False),
])
def test_a_ban_in_other_words_and_a_bare_no_applied_to_the_askers_time(answer, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Bikes are not allowed on the Riverside Walk between 7:00 and 10:00 on weekdays."])
    got, score = sc.review("Can I ride there on Tuesday at 8am?", answer)
    assert got is ok, [(a.claim, a.verdict, a.signal) for a in score.attributions]


@pytest.mark.parametrize("answer, ok", [
    ("10 sessions cost £105, so that works out at £10.50 per session.", True),
    ("10 sessions cost £105, so that works out at £11.50 per session.", False),
])
def test_a_price_divided_by_a_count_is_a_derived_result(answer, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["A pass of 10 sessions costs £105."])
    assert sc.review("How much is each session on the 10-pass?", answer)[0] is ok


def test_an_address_is_not_borrowed_from_another_fact():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Email refunds@bounceworks.example with your booking number to request a refund.",
                                       "You can call the front desk on 0113 496 0725 or email hello@bounceworks.example."])
    assert not sc.review("Refund?", "Email hello@bounceworks.example with your booking number to request a refund.")[0]
    assert sc.review("Refund?", "Email refunds@bounceworks.example with your booking number to request a refund.")[0]


# ---- day groups in other words ---------------------------------------------------------------------

HOURS_WEEK = ["BounceWorks is open from 10:00 to 20:00 Monday to Friday.", "At weekends we open from 09:00 to 21:00."]


@pytest.mark.parametrize("answer, ok", [
    ("We are open 10am–8pm on weekdays.", True),
    ("| Days | Hours |\n|---|---|\n| Mon–Fri | 10:00–20:00 |\n| Saturday–Sunday | 09:00–21:00 |", True),
    ("Mon-Fri 10:00-20:00", True),
    ("Mon–Fri | 09:00–21:00", False),
    ("We are open 10am–8pm at weekends.", False),
])
def test_day_groups_in_other_words(answer, ok):
    got, score = df.CoherenceScorer(use_nli=False, knowledge=HOURS_WEEK).review("When are you open?", answer)
    assert got is ok, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_additional_reads_as_extra():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Each extra 15 minutes costs 50p."])
    assert sc.review("", "It's 50p for every additional 15 minutes.")[0]
    assert not sc.review("", "It's 80p for every additional 15 minutes.")[0]


def test_closed_from_a_date_is_no_opening_time():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Both offices close from 24 December to 1 January."])
    assert sc.review("", "Both offices are closed from 24 December to 1 January.")[0]
    assert not sc.review("", "Both offices are open from 24 December to 1 January.")[0]


@pytest.mark.parametrize("years, ok", [(7, True), (3, False)])
def test_a_waived_charge_applied_to_the_askers_years(years, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["The surcharge is waived for clients who have been with us for more than 5 years."])
    answer = (f"The surcharge is waived for clients who have been with us for more than 5 years, so with "
              f"{years} years you won't pay it.")
    assert sc.review(f"I have been a client for {years} years. Do I pay the surcharge?", answer)[0] is ok


@pytest.mark.parametrize("answer, verdict", [
    ("Our number is 0113 496 0712.", "supported"),           # the number is what the claim says
    ("You can call us on 0113 496 0712.", "not_found"),      # the York number does not contradict it
    ("Our number is 0113 496 0713.", "contradicted"),
])
def test_a_telephone_number_is_judged_by_the_sentence_that_holds_it(answer, verdict):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["The Leeds office is at 14 Wellington Street, telephone 0113 496 0712.",
                                       "The York office can be reached on 01904 555 0199."])
    _ok, score = sc.review("What is your phone number?", answer)
    assert [a.verdict for a in score.attributions] == [verdict]


@pytest.mark.parametrize("answer, ok", [
    ("Priya Raman reports to Miriam Okonjo.", True),
    ("Priya Raman answers to Miriam Okonjo.", True),
    ("Priya Raman answers to Daniel Pike.", False),
    ("Priya Raman reports to Daniel Pike, who heads the York office.", False),
])
def test_a_person_reporting_to_someone_else(answer, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Priya Raman is our senior tax manager and reports to Miriam Okonjo.",
                                       "Daniel Pike heads the York office."])
    assert sc.review("", answer)[0] is ok


def test_a_negation_closer_to_the_claim_outweighs_a_broader_support():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Photography is allowed in the galleries.", "Flash photography is not allowed."])
    assert not sc.review("", "Flash photography is allowed in the galleries.")[0]
    assert sc.review("", "Photography is allowed in the galleries.")[0]


@pytest.mark.parametrize("answer, ok", [
    ("The museum stays open until 20:00 every evening.", False),
    ("The museum stays open until 20:00 on Thursdays.", True),
])
def test_every_evening_is_every_day(answer, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["The museum stays open until 20:00 on Thursdays."])
    assert sc.review("", answer)[0] is ok


@pytest.mark.parametrize("age, conclusion, ok", [(23, "you qualify", True), (19, "you qualify", False),
                                                  (19, "you don't qualify", True)])
def test_an_age_bound_written_in_years_old(age, conclusion, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Drivers must be at least 21 years old."])
    assert sc.review(f"I'm {age}, can I rent?",
                     f"Drivers must be at least 21 years old, so at {age} {conclusion}.")[0] is ok


def test_a_negation_in_another_clause_of_the_evidence_does_not_flip_the_claim():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Smoking is not allowed in any car, and a cleaning fee of £150 is charged if "
                                       "there are signs of smoking."])
    assert sc.review("Can I smoke?", "A cleaning fee of £150 is charged if there are signs of smoking.")[0]
    assert not sc.review("Can I smoke?", "Smoking is allowed in the cars.")[0]


@pytest.mark.parametrize("answer, ok", [
    ("The deposit is £250, or £500 for premium cars.", True),
    ("The deposit is £250, or £600 for premium cars.", False),
])
def test_two_amounts_of_two_facts_in_one_claim(answer, ok):
    sc = df.CoherenceScorer(use_nli=False, knowledge=["A security deposit of £250 is held on a credit card.",
                                       "For premium cars the deposit is £500."])
    assert sc.review("How much is the deposit?", answer)[0] is ok


def test_a_pronoun_clause_keeps_its_sentence():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["The Bergen store opens at 09:00 and closes at 18:00 on weekdays.",
                                       "On Saturdays the store is open from 10:00 to 16:00, and it is closed on Sundays."])
    assert sc.review("Are you open on Sundays?", "No, the store is closed on Sundays.")[0]


# ---- review fixes -----------------------------------------------------------------------------------

def test_a_first_table_row_with_a_number_is_judged():
    from director_fast.verify.claims import split_claims

    units = split_claims("Our prices:\n| Adult day pass | £45 |\n| Child day pass | £20 |")
    assert [u.kind for u in units] == ["pleasantry", "claim", "claim"]


@pytest.mark.parametrize("text, unit", [("50p", "gbp"), ("1080p", ""), ("720p", "")])
def test_pence_only_below_a_pound(text, unit):
    (m,) = find_numbers(text)
    assert m.unit == unit


@pytest.mark.parametrize("answer", ["Refunds take 5\u00a0working days.", "Refunds take 5  working days."])
def test_a_qualified_period_keeps_its_words_whatever_the_spacing(answer):
    assert df.CoherenceScorer(use_nli=False, knowledge=["Refunds take 5 working days."]).review("", answer)[0]


def test_a_person_reporting_to_two_managers():
    sc = df.CoherenceScorer(use_nli=False, knowledge=["Priya Raman reports to Miriam Okonjo and Daniel Pike."])
    assert sc.review("", "Priya Raman reports to Daniel Pike.")[0]
    assert not sc.review("", "Priya Raman reports to Grace Whitfield.")[0]


def test_a_retriever_failing_while_its_results_are_read_is_wrapped():
    from director_fast.errors import RetrievalError

    class Lazy:
        version = 1

        def retrieve(self, q, k=3, tenant=""):
            yield "Fact one is here."
            raise TimeoutError("slow")

    with pytest.raises(RetrievalError):
        df.CoherenceScorer(use_nli=False, knowledge=Lazy()).review("", "Fact one is here.")


# ---- the same facts however they arrive: a passage is judged by its sentences --------------------

MANAGER = ["The store manager is Priya Shah.", "Tom Avery runs customer service."]


def _arrivals(facts):
    """The same sentences as one string, one list element, a list of sentences and a knowledge
    base."""
    passage = " ".join(facts)
    return [dict(context=passage), dict(context=[passage]), dict(context=list(facts)), dict(knowledge=list(facts))]


@pytest.mark.parametrize("use_nli", [False, True])
@pytest.mark.parametrize("answer, ok", [
    ("The store manager is Tom Avery.", False),      # every word is in the passage, one sentence refutes it
    ("The store manager is Priya Shah.", True),
    ("Tom Avery runs customer service.", True),
])
def test_a_passage_is_judged_like_its_sentences_however_it_arrives(use_nli, answer, ok):
    got = []
    for how in _arrivals(MANAGER):
        knowledge = how.pop("knowledge", None)
        scorer = df.CoherenceScorer(use_nli=use_nli, **({"knowledge": knowledge} if knowledge else {}))
        got.append(scorer.review("Who manages the store?", answer, **how)[0])
    assert got == [ok] * 4


def test_a_passage_still_supports_a_claim_that_joins_its_sentences():
    passage = "Skerry Air was founded in 2004. The airline is based in Kirkwall."
    ok, v = _verdicts(df.CoherenceScorer(use_nli=False), "Skerry Air, founded in 2004, is based in Kirkwall.",
                      context=passage)
    assert ok and v[0][0] == "supported"


# ---- text the rules and the model cannot read is reported, not judged ----------------------------

@pytest.mark.parametrize("use_nli", [False, True])
@pytest.mark.parametrize("answer", ["店は9時に開きます。", "Der Laden öffnet um 9 Uhr und schließt um 18 Uhr."])
def test_a_claim_not_in_english_is_reported_not_judged(use_nli, answer):
    scorer = df.CoherenceScorer(use_nli=use_nli)
    ok, score = scorer.review("", answer, context=[answer])  # even word for word: English rules cannot tell
    (a,) = score.attributions
    assert not ok and (a.verdict, a.signal, a.entailment) == ("not_found", "not_english", None)
    warned = df.CoherenceScorer(use_nli=use_nli, unsupported="warn").review("", answer, context=[answer])
    assert warned[0] and warned[1].warning
    # an English sentence beside it is judged as usual
    ok, score = scorer.review("", "The store opens at 9:00. " + answer, context=["The store opens at 9:00."])
    assert [a.signal for a in score.attributions][1] == "not_english" and score.attributions[0].verdict == "supported"


# ---- digits of other scripts are numbers too -------------------------------------------------------

@pytest.mark.parametrize("digit, ok", [("９", False), ("٩", False), ("९", False), ("𝟗", False), ("⁹", False),
                                       ("⑨", False), ("４", True), ("٤", True), ("४", True)])
def test_a_number_in_non_ascii_digits_is_checked_like_ascii(digit, ok):
    answer = f"Our hire tents sleep {digit} people."
    got, score = df.CoherenceScorer().review("", answer, context=["Our hire tents sleep 4 people."])
    assert got is ok and score.attributions[0].claim == answer  # the claim keeps the user's text
    guard = df.stream_guard([answer], df.CoherenceScorer(), context=["Our hire tents sleep 4 people."])
    list(guard)
    assert guard.session.halted is (not ok)


@pytest.mark.parametrize("digit, ok", [("٤", True), ("٩", False), ("९", False), ("４", True), ("９", False)])
def test_evidence_in_non_ascii_digits_is_read_like_ascii(digit, ok):
    # the evidence side too: a knowledge base typed with a Japanese input method says "４"
    got, score = df.CoherenceScorer().review("", "Our hire tents sleep 4 people.",
                                             context=[f"Our hire tents sleep {digit} people."])
    assert got is ok, score.attributions[0]


def test_a_citation_in_non_ascii_digits_is_confirmed():
    for asserted, verdict in (("٢.٥k", "confirmed"), ("٣.٥k", "refuted"), ("２.５k", "confirmed")):
        report = df.check_citations(f'INV-7 totals {asserted} [ref:amount="{asserted}"].',
                                    [{"invoice": "INV-7", "amount": 2500}])
        assert [c.verdict for c in report.checks] == [verdict], asserted

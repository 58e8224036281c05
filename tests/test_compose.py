"""Claims that join facts from several evidence units (claim_verdict.compose): composed support
when every number and name is anchored to the unit about it, never from a number or name that
stands in an unrelated fact."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import director_fast as df

AIRLINE = [
    "Skerry Air serves 14 destinations from Tromvik Harbour Airport.",
    "The fleet consists of 9 ATR 72-600 aircraft and 3 Twin Otter floatplanes.",
    "It was founded in 1998 by Ingrid Halvorsen, who served as chief executive until 2016.",
    "Solveig Brandt has led the loyalty programme since 2019.",
    "The emergency line, 0800 412 7799, is open 24 hours a day.",
]


@pytest.fixture(scope="module")
def scorer():
    return df.CoherenceScorer(use_nli=False, knowledge=AIRLINE)


def verdict(scorer, answer, question="Tell me about it."):
    score = scorer.score(question, answer)
    return [(a.verdict, a.signal) for a in score.attributions], score.approved


def test_a_claim_joining_two_facts_is_supported(scorer):
    got, approved = verdict(scorer, "Skerry Air serves 14 destinations with 9 ATR 72-600 aircraft "
                                    "and 3 Twin Otter floatplanes.")
    assert approved, got
    assert got == [("supported", "composed")]


@pytest.mark.parametrize("answer", [
    "Skerry Air serves 14 destinations with 19 ATR 72-600 aircraft and 3 Twin Otter floatplanes.",
    "Skerry Air serves 9 destinations with 9 ATR 72-600 aircraft and 3 Twin Otter floatplanes.",
])
def test_a_wrong_number_in_a_joined_claim_is_not_supported(scorer, answer):
    got, approved = verdict(scorer, answer)
    assert not approved, got


def test_a_name_from_another_fact_does_not_confirm(scorer):
    got, approved = verdict(scorer, "Skerry Air was founded in 1998 by Solveig Brandt, who served as chief "
                                    "executive until 2016.", "Who founded Skerry Air?")
    assert not approved, got


def test_a_phone_number_is_anchored_by_its_digits(scorer):
    got, approved = verdict(scorer, "You can call the emergency line on 0800 412 7799, 24 hours a day.")
    assert approved, got


_UNRELATED = st.lists(st.builds("Hangar {} stores {} {}.".format, st.integers(1, 99),
                                st.sampled_from(["spare", "old", "new"]),
                                st.sampled_from(["tyres", "seats", "engines"])), max_size=5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extra=_UNRELATED, n=st.integers(1, 30))
def test_unrelated_facts_never_change_a_composed_verdict(extra, n):
    claim = f"Skerry Air serves {n} destinations with 9 ATR 72-600 aircraft and 3 Twin Otter floatplanes."
    alone = df.CoherenceScorer(use_nli=False, knowledge=AIRLINE[:2]).score("Tell me about it.", claim)
    more = df.CoherenceScorer(use_nli=False, knowledge=AIRLINE[:2] + extra).score("Tell me about it.", claim)
    assert [a.verdict for a in alone.attributions] == [a.verdict for a in more.attributions]
    assert alone.approved == more.approved == (n == 14)


# ---- chat details: emoji, telephone numbers ---------------------------------------------------

def test_an_emoji_is_no_yes_to_a_yes_no_question():
    s = df.CoherenceScorer(use_nli=False, knowledge=["The shop is closed on Sundays."])
    for answer in ("No, the shop is closed on Sundays. 🙂", "🙂"):
        ok, score = s.review("Are you open on Sundays?", answer)
        assert ok, [(a.claim, a.verdict) for a in score.attributions]
    ok, _ = s.review("Are you open on Sundays?", "Yes! 🙂")
    assert not ok


@pytest.mark.parametrize("answer,approved", [
    ("You can call the service desk on 0800 412 7799.", True),
    ("You can call the service desk on +47 77 40 12 00 from 08:00 to 18:00.", True),
    ("You can call the service desk on 0800 412 7790.", False),
])
def test_a_telephone_number_is_matched_whole(answer, approved):
    s = df.CoherenceScorer(use_nli=False, knowledge=["Call the service desk on 0800 412 7799 or +47 77 40 12 00 from 08:00 to 18:00."])
    ok, score = s.review("How do I reach the desk?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


# ---- common paraphrases of service English --------------------------------------------------------

POLICY = ["Rooms must be booked at least 14 days in advance.",
          "Bookings cancelled with less than 72 hours' notice are not refunded.",
          "Pets are prohibited in the reading rooms.",
          "The help desk is open Monday to Friday and closed on Saturdays and Sundays.",
          "Children under 10 must be collected from the crèche by a parent."]


@pytest.mark.parametrize("answer,approved", [
    ("If you call off a booking less than 72 hours beforehand, you won't get your money back.", True),
    ("Rooms have to be reserved at least 14 days ahead of time.", True),
    ("Pets are not allowed in the reading rooms.", True),
    ("Pets are allowed in the reading rooms.", False),
    ("The help desk is closed at weekends.", True),
    ("Rooms have to be reserved at least 7 days ahead of time.", False),
    ("Any child younger than 10 has to be picked up from the crèche by a parent.", True),
    ("Any child younger than 12 has to be picked up from the crèche by a parent.", False),
])
def test_common_paraphrases_are_matched(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=POLICY).review("Tell me the rules.", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


PRICES_AND_AGES = ["A day pass costs £12.", "The sauna is for adults aged 18 and over.",
                   "Take the tablets twice a day.",
                   "Each swimming lesson lasts 45 minutes.", "The guided tour takes about an hour.",
                   "Delivery takes 3 to 5 working days."]


@pytest.mark.parametrize("answer,approved", [
    ("A day pass will set you back £12.", True),
    ("Day passes are priced at £12.", True),
    ("Day passes are priced at £15.", False),
    ("You must be 18 or older to use the sauna.", True),
    ("You must be 16 or older to use the sauna.", False),
    ("Take the tablets once a day.", False),  # "once" is a frequency of one
    ("Take the tablets twice a day.", True),
    ("The guided tour lasts around 60 minutes.", True),
    ("Day passes cost £12.", True),  # "a day pass" is a name, not one day
    ("It arrives in 3-5 business days.", True),
])
def test_prices_and_ages_in_other_words(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=PRICES_AND_AGES).review("Tell me more.", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal, a.source_sentence) for a in score.attributions]


WITH_RECEIPT = ["Refunds are given only with a receipt.", "Delivery is free on orders over £50."]


@pytest.mark.parametrize("answer,approved", [
    ("You can get a refund without a receipt.", False),
    ("You need a receipt to get a refund.", True),
    ("Delivery is free on orders over £50, and returns are free too.", False),  # an invented clause
    ("Orders over £50 ship free.", True),
])
def test_without_is_not_with_and_an_invented_clause_is_judged(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=WITH_RECEIPT).review("Tell me the rules.", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal, a.source_sentence) for a in score.attributions]


# ---- opening hours: "open until" is "closes at", "open from .. to .." gives both -------------------

HOURS = ["The help desk closes at 21:00 on weekdays.",
         "The shop is open from 8 am to 9 pm.",
         "The pool is open until 22:00.",
         "The café on the ground floor is open from 08:00 to 15:00 on weekdays.",
         "Reception is open until 20:00."]


@pytest.mark.parametrize("question,answer,approved", [
    ("When does the help desk close?", "The help desk is open until 9 pm on weekdays.", True),
    ("When does the help desk close?", "On weekdays the help desk stays open till 9pm.", True),
    ("When does the help desk close?", "The help desk is open until 8 pm on weekdays.", False),
    ("When does the shop close?", "The shop is open until 9 pm.", True),
    ("When does the pool close?", "The pool closes at 10 pm.", True),
    ("When does the pool close?", "The pool closes at 9 pm.", False),
    ("When is the café open?", "It's open on weekdays from 08:00 to 15:00.", True),
    ("When is the café open?", "The café is open on weekdays from 08:00 to 16:00.", False),
    ("When can I go to reception?", "Reception is closed until 8 pm.", False),  # an opening time
    ("When does the shop open?", "The shop isn't open until 8 am.", True),
    ("When does the shop open?", "The shop isn't open until 9 am.", False),
])
def test_opening_hours_in_other_words(question, answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=HOURS).review(question, answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal, a.source_sentence) for a in score.attributions]


CLOSED_DAYS = ["The museum is open Tuesday to Sunday and closed on Mondays.", "The café is open every day."]


@pytest.mark.parametrize("answer,approved", [
    ("The museum doesn't open on Mondays.", True),
    ("The museum never opens on Mondays.", True),
    ("The museum isn't open on Mondays.", True),
    ("The museum is open on Mondays.", False),
    ("The museum doesn't open on Sundays.", False),
    ("The museum is open every day.", False),  # only some days are named
])
def test_closed_days_in_other_words(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=CLOSED_DAYS).review("When can I visit?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal, a.source_sentence) for a in score.attributions]


@pytest.mark.parametrize("text,folded", [
    ("The pool is open until further notice.", "The pool is open until further notice."),  # no time
    ("The lab is open 2 to 3 times a week.", "The lab is open 2 to 3 times a week."),  # counts, not hours
    ("The shop is open from 9 to 5.", "The shop is open from 9 to 5."),  # a range stays: "closes" would cover "closed"
    ("The museum doesn't open before 10 am.", "The museum does not open before 10 am."),  # an opening time
])
def test_the_hours_folds_touch_only_hours(text, folded):
    from director_fast.verify.rules_wording import _normalise_idioms

    assert _normalise_idioms(text) == folded


# ---- roles: job titles and relation synonyms ------------------------------------------------------

ORG = ["The head of billing operations, Nadia Vesely, reports to the CFO, Owen Brandt.",
       "In 2019 Skerry Air acquired the seaplane operator Fjordhopper."]


@pytest.mark.parametrize("answer,approved", [
    ("Nadia Vesely is the head of billing operations and reports to the CFO, Owen Brandt.", True),
    ("Owen Brandt is the CFO.", True),
    ("Nadia Vesely is the CFO.", False),
    ("Owen Brandt, the head of billing operations, reports to Nadia Vesely.", False),
    ("Skerry Air bought Fjordhopper in 2019.", True),
    ("Fjordhopper bought Skerry Air in 2019.", False),
    ("Nadia Vesely is CFO.", False),
    ("Nadia Vesely serves as CFO.", False),
    ("Skerry Air was acquired by Fjordhopper in 2019.", False),
    ("Fjordhopper was acquired by Skerry Air in 2019.", True),
    ("Skerry Air sold Fjordhopper in 2019.", False),
])
def test_roles_in_an_org_chart(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=ORG).review("Who is who?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_job_titles():
    from director_fast.verify.rules_roles import job_titles
    assert job_titles(ORG[0]) == {"head of billing operations": "nadia vesely", "cfo": "owen brandt"}
    assert job_titles("The Saturday Book Club is led by volunteer Dana Okafor.") == {}


# ---- exceptions dropped by a claim for every case ------------------------------------------------

RULES = ["Residents with a ResiCard get £1 off every adult swim, except during the Sunday fun session.",
         "Claims must be reported within 30 days, except for theft, which must be reported to the police "
         "within 24 hours."]


@pytest.mark.parametrize("question,answer,approved", [
    ("What does the ResiCard give me?", "Residents with a ResiCard get £1 off every adult swim.", False),
    ("What does the ResiCard give me?", "Residents with a ResiCard get £1 off adult swims, except during "
                                        "the Sunday fun session.", True),
    ("What does the ResiCard give me?", "With a ResiCard you get £1 off an adult swim.", True),
    ("My bike was stolen 20 days ago. Can I still claim?", "Yes, claims must be reported within 30 days.", False),
    ("My roof leaked 20 days ago. Can I still claim?", "Yes, claims must be reported within 30 days.", True),
])
def test_a_rule_stated_without_its_exception(question, answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=RULES).review(question, answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_a_bare_not_yet_is_judged_through_the_question():
    s = df.CoherenceScorer(use_nli=False, knowledge=["The plan has a minimum term of 12 months."])
    ok, score = s.review("Is there a minimum term?", "Not yet.")
    assert not ok and score.attributions[0].signal == "yes_no"


# ---- found by a fresh reviewer: negated prohibitions, the excepted case itself ----------------------

@pytest.mark.parametrize("kb,question,answer,approved", [
    (["Smoking is prohibited on the premises."], "Can I smoke?", "Smoking is not prohibited on the premises.", False),
    (["Smoking is prohibited on the premises."], "Can I smoke?", "Smoking isn't banned on the premises.", False),
    (["Smoking is prohibited on the premises."], "Can I smoke?", "Smoking is not allowed on the premises.", True),
    (["Smoking is allowed on the terrace."], "Can I smoke?", "Smoking is not prohibited on the terrace.", True),
    (["Items can be returned within 30 days, except for gift cards."], "What can I return?",
     "Gift cards can be returned within 30 days.", False),
    (["Items can be returned within 30 days, except for gift cards."], "Can I return a gift card?", "Yes.", False),
    (["Items can be returned within 30 days, except for gift cards."], "Can I return a gift card?",
     "No, gift cards cannot be returned.", True),
    (["The pool is open every day except Christmas Day."], "Is it open?", "The pool is open on Christmas Day.", False),
    (["Customers must report a claim within 30 days, except for theft, which must be reported to the police "
      "within 24 hours."], "My bike was stolen.", "If anything is stolen, it must be reported to the police "
                                                  "within 24 hours.", True),
])
def test_reviewer_findings_on_folding_and_exceptions(kb, question, answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review(question, answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


MUSEUM = "The museum is led by Margaret Ennis. Dana Okafor curates the textile collection. The museum has 40 rooms."


@pytest.mark.parametrize("answer", ["The museum is led by Dana Okafor.",
                                    "The museum, with 40 rooms, is led by Dana Okafor."])
def test_a_name_from_the_same_document_does_not_take_someone_elses_place(answer):
    kb = df.KnowledgeBase()
    kb.add(MUSEUM, source="museum.md")
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review("Who leads the museum?", answer)
    assert not ok, [(a.claim, a.verdict, a.signal) for a in score.attributions]
    ok, _ = df.CoherenceScorer(use_nli=False, knowledge=kb).review("Who leads the museum?", "The museum, with 40 rooms, is led by Margaret Ennis.")
    assert ok


@pytest.mark.parametrize("question,answer,approved", [
    ("Do I get a refund if I cancel with less than 72 hours' notice?", "Yes, you do.", False),
    ("Do I get a refund if I cancel with less than 72 hours' notice?", "No, you don't.", True),
    ("Are you closed on Sundays?", "We aren't.", False),
    ("Are you closed on Sundays?", "Yes, we are.", True),
    ("The shop is open on Sundays, right?", "Yes.", False),
    ("The shop is closed on Sundays, right?", "Yes.", True),
])
def test_short_yes_no_replies_are_judged_through_the_question(question, answer, approved):
    kb = ["Bookings cancelled with less than 72 hours' notice are not refunded.", "The shop is closed on Sundays."]
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review(question, answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


@pytest.mark.parametrize("answer,approved", [
    ("Membership costs £10 a year.", False),
    ("Membership costs £10 annually.", False),
    ("Membership costs £10 a week.", False),
    ("Membership costs £10 a month.", True),
    ("Membership costs £10 monthly.", True),
])
def test_an_amount_per_another_period_contradicts(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=["Membership costs £10 a month."]).review("How much?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_a_number_beyond_the_float_range_is_never_confirmed():
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=["A swim costs £3.20."]).review("Cost?", "A swim costs £" + "9" * 400 + ".")
    assert not ok and score.attributions[0].signal == "number"


def test_a_catalogue_price_of_another_product_never_confirms():
    facts = [f"Product {i} costs {10 + (i * 37) % 490} euros and ships from warehouse {'ABCDEFG'[i % 7]} "
             f"within {1 + i % 9} days." for i in range(200)]
    kb = df.KnowledgeBase()
    kb.add_facts(facts, source="catalog.md")
    s = df.CoherenceScorer(use_nli=False, knowledge=kb)
    assert s.review("Product 2?", "Product 2 costs 84 euros and ships from warehouse C within 3 days.")[0]
    assert not s.review("Product 2?", "Product 2 costs 184 euros and ships from warehouse C within 3 days.")[0]


@pytest.mark.parametrize("claim,approved", [
    ("The temperature is -5 °C.", False),
    ("The temperature is minus 5 degrees.", False),
    ("The temperature is 5 °C.", True),
])
def test_the_sign_of_a_number_counts(claim, approved):
    ok, score = df.CoherenceScorer(use_nli=False).review("", claim, context="The temperature is 5 °C.")
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


@pytest.mark.parametrize("claim,context,approved", [
    ("Aspirin is safe for children.", "Aspirin is safe for adults.", False),
    ("Refunds are given for used items.", "Refunds are given for unused items.", False),
    ("It is taken in the third trimester.", "It is taken in the first trimester.", False),
    ("Quiet sessions run every Tuesday.", "Quiet sessions run on Wednesdays.", False),
    ("Quiet sessions run every Wednesday.", "Quiet sessions run on Wednesdays.", True),
    ("Kids swim free.", "Children swim free.", True),
    ("Adults pay £5 and children £3.", "Adults pay £5 and children pay £3.", True),
])
def test_one_member_of_a_closed_class_for_another_contradicts(claim, context, approved):
    ok, score = df.CoherenceScorer(use_nli=False).review("", claim, context=context)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


# a negation in a clause the claim does not speak about is no flip; one in the claim's own clause is
@pytest.mark.parametrize("answer, approved", [
    ("Guide dogs are welcome in the gallery and the cafe.", True),
    ("Guide dogs are welcome in the gallery, the cafe and the sculpture garden.", False),
    ("The tour runs every Friday at 14:00.", True),
    ("The tour runs every Friday at 14:00 and booking is required.", False),
])
def test_a_negation_is_read_within_its_clause(answer, approved):
    kb = ["Guide dogs are welcome in the gallery and the cafe but not in the sculpture garden.",
          "The tour runs every Friday at 14:00, and booking is not required."]
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review("Tell me about visiting.", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_negation_in_scope():
    from director_fast.verify.rules_wording import negation_in_scope

    assert not negation_in_scope("Dogs are welcome in the cafe.", "Dogs are welcome in the cafe but not in the garden.")
    assert negation_in_scope("Dogs are welcome in the garden.", "Dogs are not welcome in the garden.")
    assert negation_in_scope("Dogs are not welcome in the cafe.", "Dogs are welcome in the cafe.")
    assert negation_in_scope("A not-for-profit trust runs it.", "A trust runs it.")  # no negator read: kept


def test_owner_and_operator_swapped():
    kb = ["Larchfield Arena is owned by Dunmore District Council and has been operated since 2015 by "
          "the Quayside Sports Trust, a charity."]
    sc = df.CoherenceScorer(use_nli=False, knowledge=kb)
    assert sc.review("Who runs it?", "Larchfield Arena is owned by Dunmore District Council and has been "
                                     "operated since 2015 by the Quayside Sports Trust.")[0]
    assert not sc.review("Who runs it?", "Larchfield Arena is owned by the Quayside Sports Trust and has been "
                                         "operated since 2015 by Dunmore District Council.")[0]


OFFICE = ["Employees get 1 TB of personal file storage.",
          "Contractors get 100 GB of personal file storage instead.",
          "Each mailbox has a quota of 50 GB, and shared mailboxes have 200 GB.",
          "Trials can be extended once by 7 days by contacting support."]


@pytest.mark.parametrize("answer, approved", [
    # one passage lacking a number of a joined claim does not refute it
    ("As a contractor you get 100 GB of personal file storage, and your mailbox quota is 50 GB.", True),
    ("As a contractor you get 100 GB of personal file storage, and your mailbox quota is 200 GB.", False),
    ("You can extend a trial once, by 14 days, by contacting support.", False),
])
def test_a_number_missing_from_one_passage_of_a_joined_claim(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=OFFICE).review("What do I get?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal, a.source_sentence) for a in score.attributions]


def test_number_conflict():
    from director_fast.verify.claim_verdict import number_conflict

    assert number_conflict("Trials can be extended by 14 days.", "Trials can be extended once by 7 days.")
    assert not number_conflict("Employees get 1 TB of storage.", "Each mailbox has a quota of 50 GB.")


def test_a_negation_about_another_part_of_the_sentence():
    # the claim negates what the premise affirms; the premise's own negation is about the archive
    kb = ["Visitors must leave their bags in the lockers, and access to the archive is not permitted after 17:00."]
    sc = df.CoherenceScorer(use_nli=False, knowledge=kb)
    assert sc.review("Can I keep my bag?", "No, visitors must leave their bags in the lockers.")[0]
    assert not sc.review("Can I keep my bag?", "Visitors must not leave their bags in the lockers.")[0]


def test_a_passive_relation_does_not_set_the_voice_of_another():
    from director_fast.verify.rules_roles import roles_swapped

    evidence = "Senior keeper Ana Ruiz runs the Heron Hide and reports to Tom Vale."
    assert not roles_swapped("Heron Hide is run by senior keeper Ana Ruiz, who reports to Tom Vale.", evidence)
    assert roles_swapped("Heron Hide is run by Tom Vale, who reports to Ana Ruiz.", evidence)
    assert roles_swapped("Tom Vale reports to Ana Ruiz.", evidence)


@pytest.mark.parametrize("answer, approved", [
    ("Members get a vote at the AGM.", True),
    ("Members get a vote at the EGM.", False),
])
def test_an_acronym_of_words_in_the_evidence(answer, approved):
    kb = ["Members get one vote at the annual general meeting in March."]
    assert df.CoherenceScorer(use_nli=False, knowledge=kb).review("What do members get?", answer)[0] is approved


@pytest.mark.parametrize("question, answer, approved", [
    ("My son is 9. Can he join the junior club?", "Yes, your 9-year-old can join: the junior club is for ages 8 to 12.", True),
    ("Is the deposit £50?", "Yes, the deposit is £50.", False),
    ("Can I book for 12 people?", "Bookings are for up to 12 people.", False),
])
def test_the_users_own_numbers(question, answer, approved):
    kb = ["The junior club is for ages 8 to 12.", "The deposit is £75.", "Bookings are for up to 10 people."]
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review(question, answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


@pytest.mark.parametrize("question, answer, approved", [
    ("Do you take scooters?", "Yes, we accept kick scooters at both sites.", False),
    ("Do you take scooters?", "No, kick scooters are not accepted.", True),
    ("Do you take road bikes?", "Yes, we accept donated bikes at both sites.", True),
])
def test_an_exception_listing_several_cases(question, answer, approved):
    kb = ["We accept donated bikes at both sites, except kick scooters and bikes with petrol engines."]
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review(question, answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_a_carve_out_stated_as_a_negated_clause():
    from director_fast.verify.rules_scope import dropped_exception

    unit = "A claim reduces the bonus by 10 points, but claims under the glass cover do not affect it."
    assert dropped_exception(unit, "A claim reduces the bonus by 10 points.", "Will a glass cover claim cut my bonus?")
    assert not dropped_exception(unit, "A claim reduces the bonus by 10 points.", "Will a claim cut my bonus?")


@pytest.mark.parametrize("answer, approved", [
    ("Members get printing credit of 100 pages a month.", True),
    ("Members get printing credit of 100 pages a week.", False),
])
def test_an_amount_per_period_with_its_counted_noun(answer, approved):
    kb = ["Every member gets fast wifi and printing credit of 100 pages a month."]
    assert df.CoherenceScorer(use_nli=False, knowledge=kb).review("How much printing?", answer)[0] is approved


def test_a_lease_is_a_relation_with_roles():
    from director_fast.verify.rules_roles import roles_swapped

    evidence = "The cafe is run by Tallow Bakery, which leases the space from Quillhouse."
    assert roles_swapped("Quillhouse leases the space from Tallow Bakery.", evidence)
    assert not roles_swapped("Tallow Bakery leases the space from Quillhouse.", evidence)


def test_an_exception_stated_with_its_own_numbers():
    kb = ["Personal file storage is 1 TB per employee, except for contractors, who get 100 GB."]
    sc = df.CoherenceScorer(use_nli=False, knowledge=kb)
    assert sc.review("I'm a contractor.", "As a contractor you get 100 GB of personal file storage.")[0]
    assert not sc.review("I'm a contractor.", "As a contractor you get 1 TB of personal file storage.")[0]


def test_looks_after_is_not_an_order_in_time():
    kb = ["Nervous patients can book a free chat with Dr Okonjo before any treatment."]
    assert df.CoherenceScorer(use_nli=False, knowledge=kb).review(
        "I'm nervous.", "You can book a free chat with Dr Okonjo, who looks after nervous patients.")[0]


@pytest.mark.parametrize("answer, approved", [
    ("Unfortunately not.", True),
    ("Generally no.", True),
    ("Yes, you can.", False),
])
def test_a_bare_answer_to_a_question_whose_words_align_loosely(answer, approved):
    kb = ["On the first Saturday of each month the clinic opens 9:00 to 13:00 for check-ups only; "
          "no fillings are done on Saturdays."]
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review(
        "I only have Saturdays free. Could I get a filling done on a Saturday?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_roles_in_an_object_relative_clause_and_numbered_names():
    from director_fast.verify.rules_roles import roles_swapped

    evidence = "Card payments are handled by Fernpay Ltd, which Larkspur acquired in 2021."
    assert roles_swapped("Fernpay Ltd acquired Larkspur in 2021.", evidence)
    assert not roles_swapped("Larkspur acquired Fernpay Ltd in 2021.", evidence)
    evidence = "On Sundays, bus route 7 is replaced by tram T2 between Hale and Dunmore."
    assert roles_swapped("On Sundays, tram T2 is replaced by bus route 7.", evidence)
    assert not roles_swapped("On Sundays, bus route 7 is replaced by tram T2.", evidence)


def test_a_written_one_is_not_aligned_as_a_quantity():
    kb = ["Members must be at least 14 to use the workshop alone; children from 10 to 13 may attend with an adult member."]
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review(
        "Can my daughter come?", "Children aged 10 to 13 can attend with an adult member, so she can come with one.")
    assert ok, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_a_bare_answer_may_repeat_words_of_the_question():
    from director_fast.verify.rules_scope import bare_answer

    assert bare_answer("Not on her own, I'm afraid.", "Can she come to the workshop on her own?") == (
        "Can she come to the workshop on her own", False)
    assert bare_answer("Not on Sundays.", "Can she come to the workshop on her own?") is None
    assert bare_answer("Sort of!", "Do members get money off a service?")[1] is True
    # a full restatement is judged as itself, with its own evidence
    assert bare_answer("We are open on Sundays.", "Are you open on Sunday?") is None
    ok, score = df.CoherenceScorer(use_nli=False).review("Are you open on Sunday?", "We are open on Sundays.",
                                            context=["We are closed on Sundays."])
    assert not ok and score.attributions[0].signal != "no_evidence"


@pytest.mark.parametrize("answer, approved", [
    ("While a payment is retried, the workspace keeps full access.", True),
    ("While a payment is retried, the workspace does not keep full access.", False),
])
def test_a_negated_clause_stated_by_the_evidence(answer, approved):
    kb = ["If a card payment fails it is retried 3 times. During this period the workspace keeps full access."]
    ok, score = df.CoherenceScorer(use_nli=False, knowledge=kb).review("Can we still use it?", answer)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


@pytest.mark.parametrize("text", ["Abc " * 50_000, "A" * 200_000, "Abc is Abc is " * 15_000])
def test_long_runs_of_capitalised_words_are_judged_in_linear_time(text):
    # the job-title patterns backtracked quadratically (about 100 s for the first text); linear
    # now, well under a second here: the bound only catches a return of the quadratic case
    import time

    kb = df.KnowledgeBase()
    kb.add("The bakery opens at 7:30.", source="a", tenant="t")
    t0 = time.perf_counter()
    df.CoherenceScorer(use_nli=False, knowledge=kb).review("q", text, tenant_id="t")
    assert time.perf_counter() - t0 < 20


@pytest.mark.parametrize("answer, approved", [
    ("The owner is Maria Lindqvist.", True),
    ("The owner is Tom Reyes.", False),
    ("Tom Reyes is the head baker.", True),
])
def test_a_title_the_evidence_gives_that_person_differently(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False).review(
        "Who owns it?", answer, context=["The owner is Maria Lindqvist.", "The head baker is Tom Reyes."])
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


@pytest.mark.parametrize("answer, approved", [
    ("Delivery is always free.", False),
    ("Delivery is free for orders over £25.", True),
])
def test_an_otherwise_clause_is_an_exception(answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False).review(
        "How much is delivery?", answer,
        context=["Deliveries are free for orders over £25; otherwise delivery costs £3."])
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


BAKERY = ["The bakery is on Mill Lane. It opens at 7:30 am from Monday to Saturday and is closed on Sundays."]


@pytest.mark.parametrize("question, answer, approved", [
    ("Are you open on Sunday?", "Yes, we are open on Sundays.", False),
    ("Are you open on Sunday?", "No, we are closed on Sundays.", True),
    ("Are you open on Saturday?", "Yes, we are open on Saturdays.", True),  # "Saturdays" finds "Saturday"
    ("Are you open on Monday?", "No, we are closed on Mondays.", False),
])
def test_open_and_closed_in_one_sentence(question, answer, approved):
    ok, score = df.CoherenceScorer(use_nli=False).review(question, answer, context=BAKERY)
    assert ok is approved, [(a.claim, a.verdict, a.signal) for a in score.attributions]


def test_state_bound_elsewhere():
    from director_fast.verify.rules_values import state_bound_elsewhere

    desk = "The help desk is open Monday to Friday and closed on Saturdays and Sundays."
    assert not state_bound_elsewhere("The help desk is closed at weekends.", desk)  # the shared subject
    assert state_bound_elsewhere("The help desk is open on Saturdays.", desk)


def test_a_sentence_covering_a_claim_only_across_its_clauses_yields_to_a_negation():
    # "Weekly passes are refundable" is covered by the annual-pass sentence only by joining its
    # two clauses ("refunded" in one, "weekly" in the other); the weekly-pass sentence negates it
    kb = ["Weekly passes are not refundable, but they can be paused once.",
          "Annual passes can be refunded within 14 days; after that, fees are reduced for unused weekly slots."]
    scorer = df.CoherenceScorer(use_nli=False, knowledge=kb)
    got = scorer.score("Can I get my money back on a weekly pass?", "Weekly passes are refundable.")
    assert not got.approved
    assert [(a.verdict, a.signal) for a in got.attributions] == [("contradicted", "negation")]
    ok = scorer.score("Can I get my money back on an annual pass?", "Annual passes can be refunded within 14 days.")
    assert ok.approved


def test_one_clause_of_a_sentence_negating_what_another_clause_half_supports():
    kb = ["Fees are paid at the desk by card or cash; cheques are not accepted.",
          "Day passes cost £6, except the first pass for members under 12, which is free."]
    scorer = df.CoherenceScorer(use_nli=False, knowledge=kb)
    bad = scorer.score("Can I pay by cheque?", "Cheques are accepted as well as card or cash.")
    assert not bad.approved, [(a.verdict, a.signal, a.source_sentence) for a in bad.attributions]
    # the whole sentence negates something else ("won't cost" / "free") than what its clause supports
    ok = scorer.score("My son is 9. Does his first day pass cost anything?",
                      "It won't cost you anything, because the first pass for members under 12 is free.")
    assert ok.approved, [(a.verdict, a.signal, a.source_sentence) for a in ok.attributions]


def test_the_opposite_state_for_the_claims_subject():
    from director_fast.verify.rules_values import state_bound_elsewhere

    assert state_bound_elsewhere("Both branches stay open on bank holidays as usual.",
                                 "Both branches are closed on Sundays, Mondays and bank holidays.")
    assert not state_bound_elsewhere("The cafe is open on Sundays.", "The pool is closed on Sundays.")
    scorer = df.CoherenceScorer(use_nli=False, knowledge=["Both branches are closed on Sundays, Mondays and bank holidays."])
    got = scorer.score("Are you open on bank holidays?", "Both branches stay open on bank holidays as usual.")
    assert not got.approved and got.attributions[0].verdict == "contradicted"


@pytest.mark.parametrize("question,answer,approved,warning", [
    # the knowledge does not answer the question: approved with a warning, the explanation judged
    ("Can my 11 year old use the gym on her own, is that ok?",
     "Not on her own, I'm afraid. Gym users under 14 must be with an adult.", True, True),
    ("Can my 11 year old use the gym on her own, is that ok?",
     "Not on her own, I'm afraid. Gym users under 16 must be with an adult.", False, False),
    # a bare answer that is the whole answer asserts the unanswered proposition and nothing else:
    # judged like "Members get money off a massage." (unsupported), never approved without evidence
    ("I'm a member - do I get money off a massage?", "Sort of!", False, False),
    ("Do you offer massages?", "Yes, we do!", False, False),
    ("Do you offer massages?", "Yes, we offer massages.", False, False),
    # the knowledge answers it: judged as before
    ("I'm a member - do I get a free towel?", "Yes.", True, False),
    ("I'm a member - do I get a free towel?", "No.", False, False),
])
def test_bare_answers_the_knowledge_does_not_settle(question, answer, approved, warning):
    # (see also test_a_short_answer_with_numbers_of_its_own below)
    kb = ["Gym users under 14 must be with an adult.", "Members get a free towel."]
    scorer = df.CoherenceScorer(use_nli=False, knowledge=kb)
    got = scorer.score(question, answer)
    assert (got.approved, got.warning) == (approved, warning), [(a.claim, a.verdict, a.signal) for a in got.attributions]


@pytest.mark.parametrize("question,answer,approved", [
    ("Is the library open on Sundays?", "Yes, from 6:00 to 23:00.", False),
    ("Is the library open on Sundays?", "Yes, from 11:00 to 16:00.", True),
    ("Do I have to pay for the locker?", "Yes, it is £20.", False),
    ("Do I have to pay for the locker?", "Yes, it is £2 a day.", True),
])
def test_a_short_answer_with_numbers_of_its_own(question, answer, approved):
    kb = ["The library is open on Sundays from 11:00 to 16:00.", "Lockers cost £2 a day."]
    got = df.CoherenceScorer(use_nli=False, knowledge=kb).score(question, answer)
    assert (got.approved, got.warning) == (approved, False), [(a.claim, a.verdict, a.signal) for a in got.attributions]


@pytest.mark.parametrize("question,answer,approved", [
    # found by a reviewer: affirmative chat that answers a yes / no question is a bare "yes"
    ("Can I bring my dog into the cafe?", "No problem!", False),
    ("Can I bring my dog into the cafe?", "Sure thing!", False),
    ("Can I bring my dog into the cafe?", "No worries at all!", False),
    ("Can I bring my dog into the cafe?", "Why not!", False),
    ("Is parking free?", "No problem!", True),
    # a bare answer to two questions asserts both
    ("Can I bring my dog into the cafe? Is parking free?", "Yes!", False),
    ("Is parking free? Can I bring my dog into the garden?", "Yes!", True),
    # "welcome" is a permission: "not allowed" negates it
    ("Can I bring my dog into the cafe?", "No problem, dogs are welcome in the cafe.", False),
])
def test_affirmative_chat_and_several_questions(question, answer, approved):
    kb = ["Dogs are not allowed in the cafe.", "Dogs are allowed in the garden.", "Parking is free for visitors."]
    got = df.CoherenceScorer(use_nli=False, knowledge=kb).score(question, answer)
    assert got.approved is approved, [(a.claim, a.verdict, a.signal) for a in got.attributions]


@pytest.mark.parametrize("question", [
    # found by a second reviewer: yes / no questions the bare-answer reading missed
    "So can I bring my dog?", "Quick question: can I bring my dog?", "can i bring my dog",
    "Any chance I could bring my dog?", "Dogs allowed?", "Are dogs allowed? Thanks!",
])
@pytest.mark.parametrize("answer", ["Yes.", "Sure thing!", "OK!", "Sounds good!"])
def test_a_bare_yes_is_never_approved_silently(question, answer):
    got = df.CoherenceScorer(use_nli=False, knowledge=["Dogs are not allowed in the hotel."]).score(question, answer)
    assert not got.approved or got.warning, [(a.claim, a.verdict, a.signal) for a in got.attributions]


@pytest.mark.parametrize("kb,answer,approved", [
    # a negated "welcome" stays negated; "need not" negates a duty (second reviewer)
    (["Dogs are welcome in reception."], "Dogs are not welcome in reception.", False),
    (["Dogs are welcome in reception."], "Dogs aren't welcome in reception.", False),
    (["Dogs are welcome in reception."], "Dogs are very welcome in reception.", True),
    (["Lost cards should be reported by phone immediately."], "Lost cards need not be reported.", False),
    (["Lost cards should be reported by phone immediately."], "Lost cards should be reported by phone.", True),
])
def test_negations_of_permissions_and_duties(kb, answer, approved):
    got = df.CoherenceScorer(use_nli=False, knowledge=kb).score("q?", answer)
    assert got.approved is approved, [(a.verdict, a.signal) for a in got.attributions]


@pytest.mark.parametrize("kb,answer,approved", [
    # a day the evidence names as part of a group (second reviewer)
    (["The bakery opens at 7 am on weekdays."], "On Mondays the bakery opens at 7 am.", True),
    (["The bakery opens at 7 am on weekdays."], "On Sundays the bakery opens at 7 am.", False),
    (["The bakery opens at 8 am at weekends."], "On Saturday the bakery opens at 8 am.", True),
    (["The bakery opens at 7 am daily."], "On Thursday the bakery opens at 7 am.", True),
])
def test_a_day_within_a_group_of_days(kb, answer, approved):
    got = df.CoherenceScorer(use_nli=False, knowledge=kb).score("q?", answer)
    assert got.approved is approved, [(a.verdict, a.signal) for a in got.attributions]

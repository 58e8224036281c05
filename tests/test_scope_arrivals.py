"""Exceptions, negated bounds and coordinated predicates read in their scope, with the same
verdict however the facts arrive: one string (a context document, whose runs of sentences are
units too), a list of sentences, or a knowledge base. Each case sits next to its wrong twin over
small invented knowledge bases, so that neither side can pass by accident."""

from __future__ import annotations

import pytest

import director_fast as df
from director_fast.verify.claim_evidence import EvidenceChunk, member_about, sentence_units, window_units
from director_fast.verify.rules_scope import outside_negated_bound, restates_exception, unstated_conjunct


def _arrivals(facts):
    """The same sentences as one string, a list of sentences and a knowledge base."""
    return [("string", dict(context=" ".join(facts))), ("list", dict(context=list(facts))), ("kb", dict())]


def _review(facts, answer, prompt="", how="kb", kw=None):
    scorer = df.CoherenceScorer(use_nli=False, knowledge=list(facts) if how == "kb" else None)
    return scorer.review(prompt, answer, **(kw or {}))


def _all_agree(facts, answer, prompt=""):
    """``(approved, [(verdict, signal)], [source sentence])`` of the knowledge base, after
    asserting that every arrival gives the same approval and claim verdicts (a claim no unit of a
    context shares a word with is ``no_evidence`` there, ``coverage`` in a knowledge base)."""
    got = []
    for how, kw in _arrivals(facts):
        ok, score = _review(facts, answer, prompt, how, kw)
        got.append((how, ok, [(a.verdict, a.signal) for a in score.attributions],
                    [a.source_sentence for a in score.attributions]))
    assert len({(ok, tuple(v for v, _s in vs)) for _h, ok, vs, _s in got}) == 1, got
    return got[-1][1], got[-1][2], got[-1][3]


# ---- (1) an exception binds only claims about its own sentence ------------------------------------

KENNEL = ["Hollybrook Kennels is open Monday to Friday from 7:00 to 19:00.",
          "All dogs must be vaccinated against kennel cough, except puppies under 16 weeks, who need a vet letter instead.",
          "Collecting a dog after 19:00 incurs a late fee of £15 per 15 minutes."]


def test_an_exception_in_a_neighbouring_sentence_does_not_touch_the_claim():
    answer = "If you collect your dog after 7 pm, there's a late fee of £15 for every 15 minutes."
    ok, v, _s = _all_agree(KENNEL, answer)
    assert ok and v == [("supported", "coverage")]
    for how, kw in _arrivals(KENNEL):  # the attribution names the deciding sentence, never the passage
        assert [a.source_sentence for a in _review(KENNEL, answer, "", how, kw)[1].attributions] == [KENNEL[2]]


def test_a_dropped_exception_about_the_asked_case_stays_caught_however_it_arrives():
    answer, prompt = "Yes, all dogs must be vaccinated against kennel cough.", \
        "Does my 10-week-old puppy need the kennel cough vaccine?"
    ok, v, _s = _all_agree(KENNEL, answer, prompt)
    assert not ok and v == [("contradicted", "exception")]
    for how, kw in _arrivals(KENNEL):
        assert [a.source_sentence for a in _review(KENNEL, answer, prompt, how, kw)[1].attributions] == [KENNEL[1]]


def test_member_about_picks_the_sentence_of_a_run():
    chunk = EvidenceChunk(text=" ".join(KENNEL), distance=0.0)
    runs = window_units(sentence_units(chunk, "ctx:0"))
    whole = next(u for u in runs if u.sentences == 3)
    about = member_about("Collecting a dog late costs £15 per 15 minutes.", whole)
    assert (about.text, about.sentences, about.members, about.ref) == (KENNEL[2], 1, (), whole.ref)
    single = sentence_units(chunk, "ctx:0")[0]
    assert member_about("anything", single) is single


# ---- (2) the exception's own case with its consequence restates it --------------------------------

VACCINE = ["All dogs must be vaccinated against kennel cough, except puppies under 16 weeks, who need a vet "
           "letter instead."]


@pytest.mark.parametrize("answer, ok, signal", [
    ("Puppies under 16 weeks do not need the kennel cough vaccine.", True, "coverage"),
    ("Puppies under 16 weeks are exempt from the kennel cough vaccination.", True, "coverage"),
    # wrong twins: the rule applied to the excepted case, the exception's own clause denied, a
    # flipped negation of the rule for everyone else
    ("Puppies under 16 weeks must be vaccinated against kennel cough.", False, "exception"),
    ("Puppies under 16 weeks do not need a vet letter.", False, "negation"),
    ("Adult dogs do not need to be vaccinated against kennel cough.", False, None),
])
def test_the_excepted_case_with_the_exceptions_consequence(answer, ok, signal):
    got, v, _s = _all_agree(VACCINE, answer)
    assert got is ok and v[0][0] == ("supported" if ok else "contradicted")
    if signal is not None:
        assert v[0][1] == signal


CAFE = ["Dogs are not allowed in the garden cafe, except guide dogs."]


@pytest.mark.parametrize("answer, ok", [
    ("Guide dogs are allowed in the garden cafe.", True),     # a negated rule's exception, stated
    ("Guide dogs are not allowed in the garden cafe.", False),  # the negated rule applied to the exception
    ("Dogs are allowed in the garden cafe.", False),
])
def test_the_exception_of_a_negated_rule(answer, ok):
    assert _all_agree(CAFE, answer)[0] is ok


def test_restates_exception_reads_the_case_and_the_polarity():
    sentence = VACCINE[0]
    assert restates_exception("Puppies under 16 weeks do not need the kennel cough vaccine.", sentence)
    assert not restates_exception("Puppies under 16 weeks do not need a vet letter.", sentence)
    assert not restates_exception("Puppies do not need the kennel cough vaccine.", sentence)  # not the whole case
    assert not restates_exception("Puppies under 16 weeks need the kennel cough vaccine.", sentence)
    assert not restates_exception("Dogs do not need the kennel cough vaccine.", "Dogs need the kennel cough vaccine.")


# ---- (3) a negated bound: a value outside it is not contradicted, one inside is ------------------

SURGERY = ["Dogs are not allowed to attend within 10 days after surgery."]


@pytest.mark.parametrize("answer, ok", [
    ("Dogs are allowed to attend 11 days after surgery.", True),
    ("Dogs are allowed to attend 3 weeks after surgery.", True),
    ("Dogs are allowed to attend 5 days after surgery.", False),
    ("Dogs are allowed to attend 10 days after surgery.", False),
    ("Dogs are allowed to attend within 10 days after surgery.", False),
])
def test_a_negated_bound(answer, ok):
    got, v, _s = _all_agree(SURGERY, answer)
    assert got is ok, v
    if not ok:
        assert v == [("contradicted", "negation")]


def test_outside_negated_bound_names_the_numbers_it_explains():
    sentence = SURGERY[0]
    assert outside_negated_bound("Dogs are allowed to attend 11 days after surgery.", sentence) == ("11 days",)
    assert outside_negated_bound("Dogs are allowed to attend 5 days after surgery.", sentence) == ()
    assert outside_negated_bound("Dogs are not allowed to attend 11 days after surgery.", sentence) == ()
    # a bound that is not negated explains nothing
    assert outside_negated_bound("Dogs may attend 11 days after surgery.",
                                 "Dogs may attend within 10 days after surgery.") == ()


# ---- (4) a coordinated predicate the evidence never mentions -------------------------------------

PASS = ["A 10-visit pass costs £290 and is valid for 6 months.", "Day visits cost £32."]


@pytest.mark.parametrize("answer, ok", [
    ("A 10-visit pass costs £290, is valid for 6 months and includes a free bath.", False),
    ("A 10-visit pass costs £290 and is valid for 6 months, and it includes a free bath.", False),
    ("A 10-visit pass costs £290 and is valid for 6 months.", True),
    ("A 10-visit pass costs £290, is valid for 6 months and saves money over day visits.", True),
    ("A 10-visit pass costs £290, is valid for 9 months and costs less than day visits.", False),
])
def test_a_coordinated_predicate_needs_words_of_the_evidence(answer, ok):
    assert _all_agree(PASS, answer, prompt="What does the pass cost?")[0] is ok


def test_unstated_conjunct_only_reads_predicates_without_a_subject():
    premise = PASS[0]
    assert unstated_conjunct("A 10-visit pass costs £290, is valid for 6 months and includes a free bath.", premise)
    assert not unstated_conjunct("A 10-visit pass costs £290 and is valid for 6 months.", premise)
    # a consequence with a subject of its own is a claim the splitter judges, not a predicate here
    assert not unstated_conjunct("The pass costs £290, so you save on every visit.", premise)


# ---- a run of sentences is judged like its sentences ----------------------------------------------

PRICES = ["Entry is free for children under 5.", "Adults pay £9.", "A full day of daycare costs £30.",
          "Grooming costs £15 per hour."]


@pytest.mark.parametrize("answer, ok", [
    ("Entry is free for children under 5.", True),
    ("A full day of daycare costs £30 per day.", True),  # a neighbour's rate is no wrong rate
    ("A full day of daycare costs £35 per day.", False),
])
def test_a_run_of_sentences_is_judged_like_its_sentences(answer, ok):
    assert _all_agree(PRICES, answer)[0] is ok


def test_a_coordinated_predicate_against_a_lone_supporting_sentence():
    # the only unit covers the rest of the claim: not_found with that unit for reference
    ok, v, sources = _all_agree(PASS[:1], "A 10-visit pass costs £290, is valid for 6 months and includes a free bath.")
    assert not ok and v == [("not_found", "coverage")] and sources == [PASS[0]]

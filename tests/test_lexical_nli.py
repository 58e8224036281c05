"""Lexical NLI heuristic (C++): known answers per signal, properties, thread safety."""

from __future__ import annotations

import concurrent.futures as cf

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast import _core
from director_fast.errors import ConfigError, InputTypeError
from director_fast.verify.nli import LexicalNLI, split_sentences_text
from director_fast.verify.text import split_sentences


@pytest.fixture(scope="module")
def nli():
    return LexicalNLI()


def sig(nli, premise, hypothesis):
    return nli.score_detailed(premise, hypothesis).signals[0]


@pytest.mark.parametrize("premise,hypothesis", [
    ("The fee is 2,500 dollars.", "The fee is $2500."),
    ("The fee is $2,500.", "The fee is 2500 dollars."),
    ("Revenue was $3 billion.", "Revenue was $3bn."),
    ("Revenue was 3,000,000,000 dollars.", "Revenue was 3 billion dollars."),
    ("Sales increased 5%.", "Sales increased 5 percent."),
    ("There were twenty-five people.", "There were 25 people."),
    ("There were 12 people.", "There were twelve people."),
    ("The rate is 2.5%.", "The rate is 2.5 percent."),
    ("It ran from 1990-1995.", "It ran from 1990 to 1995."),
    # one quantity in two units of one dimension
    ("Refunds take 2 weeks.", "Refunds take 14 days."),
    ("Refunds take 14 days.", "Refunds take 2 weeks."),
    ("The test takes half an hour.", "The test takes 30 minutes."),
    ("The test takes 30 minutes.", "The test takes half an hour."),
    ("The bag weighs 1.5 kg.", "The bag weighs 1,500 g."),
    ("The bag weighs 1,500 g.", "The bag weighs 1.5 kg."),
    ("The call lasts an hour.", "The call lasts 60 minutes."),
    ("The call lasts one hour.", "The call lasts 60 minutes."),
    ("Returns are accepted for a fortnight.", "Returns are accepted for 14 days."),
    ("The course takes 120 minutes.", "The course takes 2 hours."),
    ("The trail is 2 km long.", "The trail is 2,000 m long."),
    ("Tickets are valid for 48 hours.", "Tickets are valid for 2 days."),
    ("The break is a quarter of an hour.", "The break is 15 minutes."),
    ("The flight takes an hour and a half.", "The flight takes 90 minutes."),
    ("Each bottle holds 1.5 litres.", "Each bottle holds 1,500 ml."),
    # a clock time without am / pm is either half of the day; words and parts of the day
    ("The gate shuts at 20:40 on Fridays.", "The gate shuts at 8:40 on Fridays."),
    ("The gate shuts at 8:40 on Fridays.", "The gate shuts at 20:40 on Fridays."),
    ("The gate shuts at 08:40 on Fridays.", "The gate shuts at 8:40 on Fridays."),
    ("The quiz starts at 21:30.", "The quiz starts at half past nine."),
    ("The quiz starts at 21:30.", "The quiz starts at half past nine in the evening."),
    ("The quiz starts at 9:30 pm.", "The quiz starts at half nine."),
    ("The bakery opens at 06:45.", "The bakery opens at a quarter to seven."),
    ("The bakery opens at 06:45.", "The bakery opens at quarter to seven in the morning."),
    ("Visiting ends at 17:00.", "Visiting ends at five o'clock."),
    ("Visiting ends at 17:00.", "Visiting ends at 5 in the afternoon."),
    ("The last bus is at 23:50.", "The last bus is at ten to twelve."),
    ("Choir practice runs from 16:30 to 19:00.", "Choir practice runs from half past four until 7 pm."),
    # shares written as fractions
    ("The grant pays 75% of the course fee.", "The grant pays three-quarters of the course fee."),
    ("The grant pays three quarters of the course fee.", "The grant pays 75% of the course fee."),
    ("Members get 50% of the hire cost back.", "Members get half of the hire cost back."),
    ("Roughly 33% of the seats are reserved.", "Roughly a third of the seats are reserved."),
    ("Roughly a third of the seats are reserved.", "Roughly 33.3% of the seats are reserved."),
    ("Two-thirds of the budget goes on wages.", "67% of the budget goes on wages."),
    ("66.7% of the budget goes on wages.", "Two-thirds of the budget goes on wages."),
    ("One-fifth of the plots are organic.", "20% of the plots are organic."),
    ("Apprentices pay 50% of the full rate.", "Apprentices pay half price."),
])
def test_numbers_that_match(nli, premise, hypothesis):
    s = sig(nli, premise, hypothesis)
    assert s["numeric_mismatches"] == 0, s
    assert s["numbers"] >= 1


@pytest.mark.parametrize("premise,hypothesis,missing", [
    # a missing number is reported by its whole mention (unit, currency and multiplier included)
    ("Refunds within 30 days.", "Refunds within 90 days.", "90 days"),
    ("The fee is 2,500 dollars.", "The fee is 2,600 dollars.", "2,600 dollars"),
    ("The rate is 2.5%.", "The rate is 25%.", "25%"),
    ("Revenue was $3 million.", "Revenue was $3 billion.", "$3 billion"),
    ("The trip takes 30 days.", "The trip takes 30 hours.", "30 hours"),
    ("He was born in 1990.", "He was born in 1991.", "1991"),
    # same number, other unit; other quantity; months are never days; a duration is no count
    ("Refunds take 2 days.", "Refunds take 2 weeks.", "2 weeks"),
    ("Refunds take 2 weeks.", "Refunds take 2 days.", "2 days"),
    ("The test takes 30 hours.", "The test takes 30 minutes.", "30 minutes"),
    ("The test takes 30 minutes.", "The test takes 30 hours.", "30 hours"),
    ("The bag weighs 1.5 g.", "The bag weighs 1.5 kg.", "1.5 kg"),
    ("The bag weighs 1.5 kg.", "The bag weighs 1.5 g.", "1.5 g"),
    ("The warranty lasts 90 days.", "The warranty lasts 3 months.", "3 months"),
    ("The warranty lasts 3 months.", "The warranty lasts 90 days.", "90 days"),
    ("The test takes 3 hours.", "The test takes half an hour.", "half an hour"),
    ("The course has 120 pages.", "The course takes 2 hours.", "2 hours"),
    ("The course takes 120 minutes.", "The course costs 120 euros.", "120 euros"),
    ("The bag weighs 1,500 g.", "The bag is 1.5 km long.", "1.5 km"),
    # a marked or 24-hour time keeps its half-day; a written clock phrase its minutes
    ("The gate shuts at 20:40 on Fridays.", "The gate shuts at 8:40 am on Fridays.", "8:40 am"),
    ("The gate shuts at 20:40 on Fridays.", "The gate shuts at 08:40 on Fridays.", "08:40"),
    ("The gate shuts at 8:40 pm on Fridays.", "The gate shuts at 08:40 on Fridays.", "08:40"),
    ("The quiz starts at 21:30.", "The quiz starts at half past nine in the morning.",
     "half past nine in the morning"),
    ("The quiz starts at 21:30.", "The quiz starts at half past eight.", "half past eight"),
    ("The bakery opens at 06:45.", "The bakery opens at a quarter past seven.", "a quarter past seven"),
    ("Visiting ends at 17:00.", "Visiting ends at 5 in the morning.", "5 in the morning"),
    # a fraction is its own share; thirds round to the whole or tenth percent, not further
    ("The grant pays 75% of the course fee.", "The grant pays two-thirds of the course fee.", "two-thirds"),
    ("The grant pays 25% of the course fee.", "The grant pays a third of the course fee.", "a third"),
    ("Roughly 34% of the seats are reserved.", "Roughly a third of the seats are reserved.", "a third"),
    ("Two-thirds of the budget goes on wages.", "66% of the budget goes on wages.", "66%"),
    ("Apprentices pay 40% of the full rate.", "Apprentices pay half price.", "half"),
])
def test_numbers_that_differ(nli, premise, hypothesis, missing):
    s = sig(nli, premise, hypothesis)
    assert s["numeric_mismatches"] == 1
    assert s["missing_numbers"] == [missing]
    assert nli.score(premise, hypothesis) > 0.5


_QUANTITY_TEXTS = ["2 weeks", "14 days", "a fortnight", "half an hour", "30 minutes", "0.5 hours",
                   "1800 seconds", "2 hours", "120 minutes", "48 hours", "2 days", "3 months", "90 days",
                   "1.5 kg", "1,500 g", "1.5 g", "2 km", "2,000 m", "200 cm", "1.5 litres", "1,500 ml",
                   "30 euros", "2 years"]


def test_number_matching_follows_quantity(nli):
    # the lexical NLI (C++ table) and NumberMention.quantity / base_unit (Python table) agree
    from director_fast.verify.numbers import find_numbers

    for a in _QUANTITY_TEXTS:
        (ma,) = find_numbers(a)
        for b in _QUANTITY_TEXTS:
            (mb,) = find_numbers(b)
            same = ma.base_unit == mb.base_unit and ma.quantity == pytest.approx(mb.quantity, rel=1e-9)
            s = sig(nli, f"It is {a}.", f"It is {b}.")
            if b == "a fortnight":  # a written 1 in the hypothesis is not counted ("one of", "a day")
                assert s["numbers"] == 0
                continue
            assert s["numbers"] == 1, (a, b)
            assert (s["numeric_mismatches"] == 0) == same, (a, b, s)


_READING_TEXTS = ["7:15", "07:15", "19:15", "7:15 am", "7:15 pm", "a quarter past seven",
                  "quarter past seven in the evening", "12:30", "00:30", "half past twelve", "33% of", "33.3% of",
                  "34% of", "a third of", "two-thirds of", "67% of", "66% of", "half of", "50% of", "half price"]


def test_clock_and_share_rules_agree_with_same_quantity(nli):
    # the lexical NLI (same_time_of_day / same_share in C++) and number_alignment.same_quantity
    # (Python) apply one rule
    from director_fast.verify.number_alignment import same_quantity
    from director_fast.verify.numbers import find_numbers

    def sentence(x):
        return f"They pay {x} the fee." if x.endswith(" of") or x.endswith("price") else f"It starts at {x}."

    for a in _READING_TEXTS:
        (ma,) = find_numbers(sentence(a))
        for b in _READING_TEXTS:
            (mb,) = find_numbers(sentence(b))
            s = sig(nli, sentence(a), sentence(b))
            assert s["numbers"] == 1, (a, b)
            assert (s["numeric_mismatches"] == 0) == same_quantity(mb, ma) == same_quantity(ma, mb), (a, b, s)
    both = {(a, b) for a in _READING_TEXTS for b in _READING_TEXTS
            if same_quantity(find_numbers(sentence(a))[0], find_numbers(sentence(b))[0])}
    assert ("7:15", "19:15") in both and ("7:15", "7:15 pm") in both and ("a third of", "33.3% of") in both
    assert ("7:15 am", "19:15") not in both and ("07:15", "19:15") not in both and ("34% of", "a third of") not in both


def test_identical_is_zero(nli):
    text = "The Eiffel Tower is in Paris. It was completed in 1889 and is 330 metres tall."
    assert nli.score(text, text) == 0.0


def test_negation_flip(nli):
    s = sig(nli, "The man is playing the guitar.", "The man is not playing the guitar.")
    assert s["negation_flips"] == 1
    s = sig(nli, "The man isn't playing the guitar.", "The man is playing the guitar.")
    assert s["negation_flips"] == 1
    s = sig(nli, "The man is not playing the guitar.", "The man is not playing the guitar.")
    assert s["negation_flips"] == 0
    assert nli.score("The man is playing the guitar.", "The man is not playing the guitar.") > 0.5


def test_antonym(nli):
    s = sig(nli, "Prices rose sharply in May.", "Prices fell sharply in May.")
    assert s["antonym_hits"] == 1 and s["antonym_pairs"] == ["fell/rose"]
    s = sig(nli, "Profits increased this quarter.", "Profits decreased this quarter.")
    assert s["antonym_hits"] == 1
    assert nli.score("Profits increased this quarter.", "Profits decreased this quarter.") > 0.5


def test_entity_mismatch(nli):
    s = sig(nli, "The summit was held in Paris by Macron.", "The summit was held in Berlin by Macron.")
    assert s["entities"] == 2 and s["entity_mismatches"] == 1
    assert s["missing_entities"] == ["berlin"]


def test_coverage_and_possessives(nli):
    s = sig(nli, "Apple's revenue grew strongly.", "APPLE revenue grew strongly.")
    assert s["coverage"] == 1.0
    s = sig(nli, "The cat sat on the mat.", "The dog sat on the rug.")
    assert s["content_words"] == 3 and s["covered_words"] == 1  # dog, sat, rug


def test_empty_hypothesis_is_neutral(nli):
    assert nli.score("anything", "") == 0.5
    assert nli.score("", "") == 0.5
    assert nli.score("", "The cat sat.") > 0.5


def test_alignment_reports_premise_sentence(nli):
    premise = "Rome is in Italy. Oslo is in Norway. Lima is in Peru."
    d = nli.score_detailed(premise, "Oslo is in Norway.")
    assert d.best_chunk == (1,)
    assert d.chunks[1] == "Oslo is in Norway."
    assert d.sentence_divergences == (0.0,)


def test_aggregation_modes():
    premise = "The cat sat on the mat."
    hyp = "The cat sat on the mat. The zebra danced wildly yesterday."
    mx = LexicalNLI(aggregation="max").score_detailed(premise, hyp)
    mean = LexicalNLI(aggregation="mean").score(premise, hyp)
    d = mx.sentence_divergences
    assert mx.divergence == pytest.approx(max(d))
    assert mean == pytest.approx(sum(d) / 2)


def test_config_validation():
    with pytest.raises(ConfigError) as e:
        LexicalNLI(w_numeric=1.5)
    assert e.value.field == "w_numeric"
    with pytest.raises(ConfigError) as e:
        LexicalNLI(aggregation="median")
    assert e.value.field == "aggregation"
    with pytest.raises(InputTypeError):
        LexicalNLI().score(b"bytes", "x")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        LexicalNLI().score_batch([("a", 3)])  # type: ignore[list-item]


def test_sentence_splitter():
    # the lexical NLI splits with the package's one segmenter (director_fast.verify.text.split_sentences)
    text = "Dr. Smith paid $2.5 million. The U.S. agreed! Really?\nNew line here"
    spans = split_sentences(text)
    assert [text[a:b] for a, b in spans] == [
        "Dr. Smith paid $2.5 million.", "The U.S. agreed!", "Really?", "New line here"]
    assert _core.LexicalPremise(text).sentences() == tuple(split_sentences_text(text))
    text = "Café prices rose. Ünïcödé text follows."
    assert split_sentences_text(text) == ["Café prices rose.", "Ünïcödé text follows."]
    assert _core.LexicalPremise(text).sentences() == ("Café prices rose.", "Ünïcödé text follows.")


words = st.sampled_from("the a cat dog Paris Berlin not never rose fell 30 90 2,500 days percent % $ . ! ? ’ é 中".split())
texts = st.lists(words, max_size=30).map(" ".join) | st.text(max_size=80)


@settings(max_examples=150, deadline=None)
@given(premise=texts, hypothesis=texts)
def test_properties(premise, hypothesis):
    nli = LexicalNLI()
    d = nli.score_detailed(premise, hypothesis)
    assert 0.0 <= d.divergence <= 1.0
    assert all(0.0 <= x <= 1.0 for x in d.sentence_divergences)
    # prepared premise and batch give the same answer
    assert nli.score(nli.prepare(premise), hypothesis) == d.divergence
    assert nli.score_batch([(premise, hypothesis)]) == [d.divergence]
    # a single sentence always supports itself
    one = hypothesis.replace(".", " ").replace("!", " ").replace("?", " ").replace("\n", " ")
    if nli.score_detailed(one, one).sentences:  # has word or number tokens
        assert nli.score(one, one) == 0.0


def test_concurrent_use_matches_serial():
    nli = LexicalNLI()
    premise = " ".join(f"Item {i} costs {i * 10} dollars and is not red." for i in range(200))
    prepared = nli.prepare(premise)
    hyps = [f"Item {i} costs {i * 10 + (i % 3)} dollars." for i in range(200)]
    serial = [nli.score(prepared, h) for h in hyps]
    with cf.ThreadPoolExecutor(4) as ex:
        par = list(ex.map(lambda h: nli.score(prepared, h), hyps))
    assert par == serial
    assert nli.score_batch([(premise, h) for h in hyps]) == serial


def test_core_objects_are_exposed():
    p = _core.LexicalPremise("One. Two.")
    assert p.sentence_count == 2 and p.sentence(1) == "Two."
    with pytest.raises(IndexError):
        p.sentence(5)


def _oracle_divergence(sig, w):
    """Pure-Python oracle of the noisy-OR combination from the reported signals."""
    keep = 1.0
    keep *= 1 - w["w_uncovered"] * (1 - sig["coverage"])
    keep *= 1 - w["w_numeric"] * (1.0 if sig["numeric_mismatches"] else 0.0)
    keep *= 1 - w["w_entity"] * (1 - (1 - w["q_entity"]) ** sig["entity_mismatches"])
    w_neg = w["w_negation"] if sig["negation_close"] else w["w_negation_weak"]
    keep *= 1 - w_neg * sig["negation_flips"]
    keep *= 1 - w["w_polarity"] * (1 - (1 - w["q_polarity"]) ** sig["novel_polarity"])
    keep *= 1 - w["w_antonym"] * (1.0 if sig["antonym_hits"] else 0.0)
    keep *= 1 - w["w_novel"] * (sig["novel_bigrams"] / sig["bigrams"] if sig["bigrams"] else 0.0)
    return 1 - keep


@settings(max_examples=100, deadline=None)
@given(premise=texts, hypothesis=texts, w_novel=st.sampled_from([0.0, 0.4]),
       aggregation=st.sampled_from(["max", "mean", "mean_max"]))
def test_combination_matches_oracle(premise, hypothesis, w_novel, aggregation):
    nli = LexicalNLI(w_novel=w_novel, aggregation=aggregation)
    w = nli._impl.weights
    d = nli.score_detailed(premise, hypothesis)
    raw = nli._impl.score(premise, hypothesis)
    sigs = [dict(s, bigrams=r.signals.bigrams, novel_bigrams=r.signals.novel_bigrams)
            for s, r in zip(d.signals, raw.sentences)]
    per = [_oracle_divergence(s, w) for s in sigs]
    assert d.sentence_divergences == pytest.approx(per, abs=1e-12)
    if per:
        expected = {"max": max(per), "mean": sum(per) / len(per),
                    "mean_max": 0.5 * (max(per) + sum(per) / len(per))}[aggregation]
        assert d.divergence == pytest.approx(expected, abs=1e-12)


def test_novel_bigrams_signal():
    s = LexicalNLI(w_novel=1.0).score_detailed("the cat sat on the mat", "the mat sat on the cat")
    sig = s.signals[0]
    assert s.divergence > 0.0
    raw = LexicalNLI()._impl.score("the cat sat on the mat", "the mat sat on the cat").sentences[0].signals
    # hypothesis bigrams: the-mat, mat-sat, sat-on, on-the, the-cat; only mat-sat is not in the premise
    assert (raw.bigrams, raw.novel_bigrams) == (5, 1)
    assert sig["coverage"] == 1.0


# ---- polarity cues and alignment-graded negation (2026-11-30 revision) ----


def test_novel_polarity_known_answers():
    nli = LexicalNLI()
    w = nli._impl.weights
    # a failure cue inserted into an otherwise covered sentence
    d = nli.score_detailed("The report covers prices and fees.", "The report fails to cover prices.")
    s = d.signals[0]
    assert (s["novel_polarity"], s["polarity_words"]) == (1, ["fail"])
    assert s["negation_flips"] == 0
    assert s["coverage"] == 0.75  # report, cover, price covered; "fail" is not
    expected = 1 - (1 - w["w_uncovered"] * 0.25) * (1 - w["w_polarity"] * w["q_polarity"])
    assert d.divergence == pytest.approx(expected, abs=1e-12)
    # two distinct cues, each counted once ("incorrectly" twice is one cue)
    s = nli.score_detailed("Ann guessed the title.",
                           "Ann only incorrectly guessed the title, incorrectly.").signals[0]
    assert (s["novel_polarity"], sorted(s["polarity_words"])) == (2, ["incorrect", "only"])
    # inflections and n't share a key: a cue already in the premise is not novel
    s = nli.score_detailed("The firm refused the offer. It didn't pay.",
                           "The firm refuses the offer and does not pay.").signals[0]
    assert s["novel_polarity"] == 0
    # distinct negation words keep their own keys
    s = nli.score_detailed("He did not go.", "He never went.").signals[0]
    assert s["polarity_words"] == ["never"]
    # no cue at all
    s = nli.score_detailed("The cat sat.", "The cat sat.").signals[0]
    assert (s["novel_polarity"], s["polarity_words"]) == (0, [])


def test_negation_flip_graded_by_alignment():
    nli = LexicalNLI()
    w = nli._impl.weights
    # close: every content word of the hypothesis is in the aligned premise sentence
    d = nli.score_detailed("A man is playing a guitar.", "A man is not playing a guitar.")
    s = d.signals[0]
    assert (s["negation_flips"], s["negation_close"]) == (1, 1)
    expected = 1 - (1 - w["w_negation"]) * (1 - w["w_polarity"] * w["q_polarity"])
    assert d.divergence == pytest.approx(expected, abs=1e-12)
    # loose: alignment 2/3 (< negation_alignment 0.8) -> the weak weight; the premise already
    # has "not" elsewhere so no polarity cue is novel
    d = nli.score_detailed("Prices did not rise. The shop sold apples and pears.",
                           "The shop sold apples but no bananas.")
    s = d.signals[0]
    raw = nli._impl.score("Prices did not rise. The shop sold apples and pears.",
                          "The shop sold apples but no bananas.").sentences[0]
    assert raw.alignment < w["negation_alignment"]
    assert (s["negation_flips"], s["negation_close"]) == (1, 0)
    assert s["polarity_words"] == ["no"]
    # custom threshold: with negation_alignment=0.5 the same flip counts as close
    s2 = LexicalNLI(negation_alignment=0.5).score_detailed(
        "Prices did not rise. The shop sold apples and pears.",
        "The shop sold apples but no bananas.").signals[0]
    assert s2["negation_close"] == 1


@pytest.mark.parametrize("field", ["w_negation_weak", "negation_alignment", "w_polarity", "q_polarity"])
def test_new_weights_validated(field):
    with pytest.raises(ConfigError) as e:
        LexicalNLI(**{field: 1.5})
    assert e.value.field == field


@pytest.mark.parametrize("premise,hypothesis,uncovered", [
    ("Members who finish a module with 80% attendance get a badge.", "Attendees who attended 80% get a badge.", 0),
    ("A cancellation is free up to 2 days ahead.", "You can cancel for free up to 2 days ahead.", 0),
    ("Donations are collected on Mondays.", "We collect what you donate on Mondays.", 0),
    ("The bakery was bought by Ines Ruiz in 2011.", "Ines Ruiz took over the bakery in 2011, buying it.", 1),  # took
    ("Renewal of the permit costs £20.", "Renewing the permit costs £20.", 0),
    ("The deposit is refundable.", "The deposit is refunded.", 0),
    ("Delivery is free over £40.", "We deliver free over £40.", 0),
])
def test_words_derived_from_one_root_cover_each_other(nli, premise, hypothesis, uncovered):
    s = sig(nli, premise, hypothesis)
    assert s["content_words"] - s["covered_words"] == uncovered, s
    assert _core.lexical_stem("attendance") != _core.lexical_stem("attend")  # stems stay apart: roots are for coverage


def test_look_alike_words_do_not_share_a_root(nli):
    # "department" is not "departure"; short words keep their own stem ("payment" / "pay" differ)
    assert sig(nli, "The sales department is on floor 2.", "The departure is on floor 2.")["covered_words"] == 1
    assert sig(nli, "Payment is by card.", "You pay by card.")["covered_words"] == 1
    # found by a reviewer: "personal" is not "person", "sold" (out) not "sell", "left" (the side) not "leave"
    assert sig(nli, "Personal trainers cost £40.", "It costs £40 per person.")["covered_words"] == 1
    assert sig(nli, "Tickets are sold out.", "We still sell tickets.")["covered_words"] == 1
    assert sig(nli, "The lockers are on the left.", "You can leave bags in the lockers.")["covered_words"] == 1

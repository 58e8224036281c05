"""verify_numeric (internal consistency) and verify_numbers (numbers against evidence)."""

from __future__ import annotations

import json
import pathlib

import pytest

from director_fast import (
    EvidenceChunk,
    InputTypeError,
    NumericMatch,
    NumericMismatch,
    NumericSpan,
    NumericVerificationResult,
    ValidationError,
    find_numbers,
    split_claims,
    verify_numbers,
    verify_numeric,
)
from director_fast.verify.number_alignment import align_number, align_numbers, evidence_numbers

YEAR = 2026


def kinds(r):
    return [(i.issue_type, i.severity) for i in r.issues]


@pytest.mark.parametrize("text, expected", [
    ("Revenue grew 50% from $10M to $12M.", [("arithmetic", "error")]),
    ("Revenue grew 20% from $10M to $12M.", []),
    ("Revenue grew 20.5% from $10M to $12M.", []),  # within 1 percentage point
    ("Sales fell 10% from 200 to 220 units.", [("arithmetic", "error")]),  # the other way
    ("Sales fell 10% from 200 to 180 units.", []),
    ("She was born in 1950 and died in 1940.", [("date_logic", "error")]),
    ("She was born in 1900 and died in 1980.", []),
    ("The firm was founded in 2032.", [("date_logic", "error"), ("date_logic", "warning")]),
    ("The firm was founded in 2030.", [("date_logic", "error")]),
    ("The plan runs to 2031.", []),  # within 5 years: no warning
    ("The plan runs to 2032.", [("date_logic", "warning")]),
    ("There is a 120% chance of rain.", [("probability", "error")]),
    ("There is a -5% probability of that.", [("probability", "error")]),
    ("There is a 95% chance of rain.", []),
    ("The world population is about 800 million.", [("magnitude", "warning")]),
    ("The world population is about 8 billion.", []),
    ("The speed of light is 150,000 km/s.", [("magnitude", "warning")]),
    ("The speed of light is 299,792 km/s.", []),
    ("The total is 40 apples, and later a total of 45 apples.", [("internal", "error")]),
    ("The total is 40 apples, and later a total of 40 apples.", []),
    ("Refunds take 5 days.", []),
])
def test_verify_numeric_known_answers(text, expected):
    r = verify_numeric(text, current_year=YEAR)
    assert sorted(kinds(r)) == sorted(expected)
    assert r.valid == all(s != "error" for _t, s in expected)
    assert r.claims_found == len(find_numbers(text))
    assert r.matches == [] and r.mismatches == [] and r.unverifiable == []


def test_verify_numeric_arithmetic_description_names_the_real_change():
    r = verify_numeric("Revenue grew 50% from $10M to $12M.", current_year=YEAR)
    assert "20.0%" in r.issues[0].description and r.error_count == 1 and r.warning_count == 0


def test_verify_numeric_errors_name_the_argument():
    with pytest.raises(InputTypeError, match="text"):
        verify_numeric(b"12")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        verify_numeric("a \ud800 b")
    with pytest.raises(InputTypeError, match="current_year"):
        verify_numeric("x", current_year="2026")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="current_year"):
        verify_numeric("x", current_year=0)


def test_verify_numbers_buckets():
    evidence = [EvidenceChunk(text="A checked bag costs NOK 450. Refunds are paid within 14 days. "
                                   "Bags heavier than 32 kg are not accepted.", distance=0.0, source="bags.md")]
    response = ("A checked bag costs NOK 550. Refunds are paid within two weeks. Bags heavier than 32 lb "
                "are not accepted. Our lounge seats 80 guests.")
    r = verify_numbers(response, evidence)
    assert r.claims_found == 4
    got = {response[m.start:m.end]: m for m in r.matches + r.mismatches + r.unverifiable}
    assert isinstance(got["NOK 550"], NumericMismatch) and got["NOK 550"].evidence_value == 450.0
    assert isinstance(got["two weeks"], NumericMatch) and got["two weeks"].evidence_unit == "day"
    assert isinstance(got["32 lb"], NumericMismatch) and (got["32 lb"].unit, got["32 lb"].evidence_unit) == ("lb", "kg")
    assert isinstance(got["80"], NumericSpan)
    assert not r.valid and [i.issue_type for i in r.issues] == ["evidence_mismatch"] * 2
    # evidence_ref points at the evidence number's span
    text = evidence[0].text
    for m in r.matches + r.mismatches:
        label, span = m.evidence_ref.split("@")
        a, b = map(int, span.split(":"))
        assert label == "bags.md"
        assert [n.value for n in find_numbers(text[a:b])] == [m.evidence_value]
    assert NumericVerificationResult.from_dict(json.loads(json.dumps(r.to_dict()))) == r


def test_verify_numbers_valid_when_everything_matches_and_labels_plain_strings():
    r = verify_numbers("The pool opens at 6:30 am and closes at 9:30 pm.",
                       ["Opening hours: the pool opens at 06:30 and closes at 21:30 on weekdays."])
    assert r.valid and len(r.matches) == 2 and not r.mismatches
    assert all(m.evidence_ref.startswith("evidence[0]@") for m in r.matches)


def test_verify_numbers_arithmetic_results_match():
    r = verify_numbers("A swim is £3.20 and the sauna adds £3.50, so that's £6.70 altogether.",
                       "A swim costs £3.20. The sauna costs £3.50 extra.")
    total = [m for m in r.matches if m.evidence_ref == "arithmetic"]
    assert r.valid and not r.mismatches and [(m.claim_value, m.unit) for m in total] == [(6.7, "gbp")]


def test_verify_numbers_joint_alignment_uses_the_sentence_holding_both_numbers():
    kb = ("Customer service is open Monday to Friday from 07:00 to 21:00 and on Saturdays and Sundays "
          "from 09:00 to 17:30.")
    ok = verify_numbers("On Saturdays and Sundays, customer service is open from 9 am until 5:30 pm.", kb)
    assert ok.valid and len(ok.matches) == 2
    bad = verify_numbers("On Saturdays and Sundays, customer service is open from 8 am until 5:30 pm.", kb)
    assert not bad.valid


def test_verify_numbers_input_errors_name_the_argument():
    with pytest.raises(InputTypeError, match="response"):
        verify_numbers(3, "x")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match=r"evidence\[1\]"):
        verify_numbers("x", ["a", 5])
    with pytest.raises(InputTypeError, match="evidence"):
        verify_numbers("x", 5)
    with pytest.raises(ValidationError):
        NumericMismatch(1.0, 2.0, "", 5, 3, "e")


def test_every_number_of_a_unit_lands_in_one_bucket_on_dev_cases():
    path = pathlib.Path(__file__).resolve().parents[1] / "bench" / "data" / "chat_rag" / "cases.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r["split"] == "dev" and r["kind"] in ("numeric_paraphrase", "wrong_number")][:16]
    for row in rows:
        ev = [EvidenceChunk(text=t, distance=0.0, source=s) for s, t in row["kb"].items()]
        r = verify_numbers(row["response"], ev)
        spans = sorted((m.start, m.end) for m in r.matches + r.mismatches + r.unverifiable)
        want = sorted((u.start + m.start, u.start + m.end) for u in split_claims(row["response"])
                      for m in find_numbers(u.text) if m.surface.lower() != "one")
        assert spans == want, row["id"]
        if row["kind"] == "wrong_number":
            assert r.mismatches, row["id"]


def test_align_number_finds_the_number_about_the_claim():
    units = ["Escape-of-water claims carry an excess of £500, and subsidence claims carry £1,000."]
    ev = evidence_numbers(units)
    claim = "Subsidence claims carry £1,000."
    ms = find_numbers(claim)
    assert align_numbers(claim, ms, ev)[0].kind == "equal"
    assert align_number(claim, ms[0], ms, ev).evidence.mention.surface == "£1,000"
    wrong = "Subsidence claims carry £500."
    ms = find_numbers(wrong)
    assert align_numbers(wrong, ms, ev)[0].kind == "conflict"


@pytest.mark.parametrize("evidence,claim,kind", [
    ("Last boarding at the quay is at 19:15.", "Last boarding at the quay is at a quarter past seven.", "equal"),
    ("Last boarding at the quay is at 19:15.", "Last boarding at the quay is at 7:15.", "equal"),
    ("Last boarding at the quay is at 19:15.", "Last boarding at the quay is at 7:15 am.", "conflict"),
    ("Last boarding at the quay is at 19:15.", "Last boarding at the quay is at 07:15.", "conflict"),
    ("Last boarding at the quay is at 7:15 pm.", "Last boarding at the quay is at half past seven.", "conflict"),
    ("The hardship fund covers 75% of course fees.", "The hardship fund covers three-quarters of course fees.",
     "equal"),
    ("The hardship fund covers 33% of course fees.", "The hardship fund covers a third of course fees.", "equal"),
    ("The hardship fund covers 60% of course fees.", "The hardship fund covers two-thirds of course fees.",
     "conflict"),
])
def test_align_number_reads_open_clock_times_and_written_shares(evidence, claim, kind):
    ev = evidence_numbers([evidence])
    ms = find_numbers(claim)
    assert len(ms) == 1
    assert align_number(claim, ms[0], ms, ev).kind == kind


def test_a_number_another_unit_about_the_claim_states_is_not_a_conflict():
    claim = "A single ticket (€2.40) covers zones A and B."
    ev = evidence_numbers(["Single tickets cover zones A and B only, and Zone C needs a supplement of €1.10.",
                           "A single adult ticket costs €2.40."])
    ms = find_numbers(claim)
    assert align_number(claim, ms[0], ms, ev).kind in ("absent", "equal")
    wrong = "A single ticket (€3.10) covers zones A and B."
    ms = find_numbers(wrong)
    assert align_number(wrong, ms[0], ms, ev).kind == "conflict"


def test_aligning_many_numbers_reads_the_claim_a_bounded_number_of_times(monkeypatch):
    # found by a reviewer: "You pay 9 9 9 ..." re-read the whole claim for every number (quadratic)
    import director_fast.verify.number_alignment as na

    read = []
    real = na.content_word_list
    monkeypatch.setattr(na, "content_word_list", lambda text: read.append(len(text)) or real(text))
    na._word_counts.cache_clear()
    claim = "You pay " + "9 " * 400
    ev = evidence_numbers(["Visitors aged 65 and over pay £9.", "The pool is open from 7:00 to 21:00."])
    ms = find_numbers(claim)
    align_numbers(claim, ms, ev)
    assert sum(read) <= 40 * len(claim)  # a few passes over the claim, not one per number

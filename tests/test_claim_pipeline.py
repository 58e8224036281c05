"""The claim-level pipeline end to end: per-claim evidence isolation, roles of the inputs,
stream / review agreement, one scoring call per sentence, cache invalidation on kb.add, unknown
tenants, tenant-safe halt events."""

from __future__ import annotations

import logging
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import director_fast as df
from director_fast.safety.event import validate_safety_event_payload
from director_fast.errors import ConfigError, InputTypeError, UnknownTenantError

SHOP = {
    "opening-hours.md": "The shop opens at 08:30 and closes at 18:00 from Monday to Saturday. "
                        "On Sundays the shop is closed.",
    "returns.md": "Refunds take 5 working days, except for gift cards, which are not refundable. "
                  "Returns need the original receipt.",
    "delivery.md": "Delivery costs EUR 4 and is free for orders over EUR 50. Deliveries leave the "
                   "warehouse in Lund every morning.",
    "password-reset.md": "Passwords are reset at the service desk on the ground floor. "
                         "The service desk is staffed by Mia Berg and Jon Alm.",
}


def tokens(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


@pytest.fixture(scope="module")
def kb():
    k = df.KnowledgeBase()
    for source, text in SHOP.items():
        k.add(text, source=source, tenant="shop")
    return k


@pytest.fixture(scope="module")
def scorer(kb):
    return df.CoherenceScorer(use_nli=False, knowledge=kb)


# ---- verdicts on typical chat answers -------------------------------------------------------

@pytest.mark.parametrize("question,answer,approved", [
    ("When do you open?", "The shop opens at 08:30.", True),
    ("When do you open?", "Sure! The shop opens at 08:30. I hope this helps!", True),
    ("When do you open?", "The shop opens at 9 am.", False),
    ("Are you open on Sundays?", "No, on Sundays the shop is closed.", True),
    ("Are you open on Sundays?", "Yes, the shop opens on Sundays.", False),
    ("Can I return a gift card?", "Yes, refunds take 5 working days.", False),  # dropped exception
    ("How long do refunds take?", "Refunds take 5 working days.", True),
    ("Do you sell bikes?", "I'm sorry, I don't have information about that.", True),
    ("Who staffs the desk?", "The service desk is staffed by Mia Berg and Jon Alm.", True),
    ("How much is delivery?", "Delivery costs EUR 4 and is free for orders over EUR 50.", True),
    ("How much is delivery?", "Delivery costs EUR 7.", False),
    # a wrong number that the same sentence holds for another quantity ("free for orders over
    # EUR 50"): the number aligner reads what each number is about
    ("How much is delivery?", "Delivery costs EUR 50.", False),
])
def test_typical_answers(scorer, question, answer, approved):
    ok, c = scorer.review(question, answer, tenant_id="shop")
    assert ok == approved, [(a.claim, a.verdict, a.signal, a.source_sentence) for a in c.attributions]
    g = df.stream_guard(tokens(answer), scorer, prompt=question, tenant_id="shop")
    out = "".join(g)
    assert g.session.halted == (not approved)
    if approved:
        assert out == answer


def test_pleasantries_are_skipped_and_released_at_once(scorer):
    ok, c = scorer.review("When do you open?", "Sure! Great question. The shop opens at 08:30. "
                          "Let me know if you have other questions.", tenant_id="shop")
    assert ok and c.evidence.claims == ["The shop opens at 08:30."]
    assert [u.kind for u in c.evidence.skipped_units] == ["pleasantry", "pleasantry", "offer"]
    seen = []
    g = df.stream_guard(iter(tokens("Sure! The shop opens at 9 am.")), scorer, prompt="When?", tenant_id="shop")
    for t in g:
        seen.append(t)
    assert "".join(seen) == "Sure! " and g.session.halted  # the pleasantry reached the user
    assert g.session.halt_claim.claim == "The shop opens at 9 am." and g.session.halt_claim.claim_index == 0


def test_verbatim_copy_of_the_whole_knowledge_base_passes(scorer):
    everything = " ".join(SHOP.values())
    ok, c = scorer.review("Tell me everything.", everything, tenant_id="shop")
    assert ok and c.score >= 0.9 and len(c.evidence.claims) >= 8
    assert df.CoherenceScorer(use_nli=False, knowledge=scorer.knowledge, threshold=0.75).review(
        "Tell me everything.", everything, tenant_id="shop")[0]


# ---- per-claim evidence isolation ---------------------------------------------------------------

_UNRELATED = st.lists(st.builds("Aisle {} holds {} {}.".format, st.integers(1, 99),
                                st.sampled_from(["garden", "kitchen", "paint", "pet"]),
                                st.sampled_from(["tools", "supplies", "items", "goods"])),
                      max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extra=_UNRELATED, hour=st.integers(1, 12))
def test_an_unrelated_fact_never_changes_a_verdict(extra, hour):
    base = ["The shop opens at 08:30.", "Refunds take 5 working days."]
    claim = f"The shop opens at {hour} am."
    alone = df.CoherenceScorer(use_nli=False, knowledge=base).score("When do you open?", claim)
    more = df.CoherenceScorer(use_nli=False, knowledge=base + extra).score("When do you open?", claim)
    assert [a.verdict for a in alone.attributions] == [a.verdict for a in more.attributions]
    assert alone.approved == more.approved is False  # 8:30 is never a whole hour "am" claim


def test_a_number_from_another_fact_never_confirms_a_claim():
    s = df.CoherenceScorer(use_nli=False, knowledge=["The shop opens at 08:30.", "Aisle 9 holds garden tools."])
    ok, c = s.review("When do you open?", "The shop opens at 9 am.")
    assert not ok and c.attributions[0].verdict == "contradicted"
    assert c.evidence.comparisons >= 1


def test_each_claim_gets_its_own_evidence(scorer):
    answer = ("The shop opens at 08:30. Refunds take 5 working days. Delivery costs EUR 4. "
              "Passwords are reset at the service desk on the ground floor.")
    ok, c = scorer.review("Tell me the basics.", answer, tenant_id="shop")
    assert ok, [(a.claim, a.verdict, a.signal) for a in c.attributions]
    assert len({a.source_sentence for a in c.attributions}) == 4


# ---- roles of the inputs --------------------------------------------------------------------------

def test_messages_roles(scorer):
    msgs = [
        {"role": "system", "content": "You are a helpful assistant for Example Corp. Answer briefly. "
                                      "The shop opens at 07:00."},  # instructions, never evidence
        {"role": "user", "content": "When do you open?"},
    ]
    ok, c = scorer.review("", "The shop opens at 08:30.", tenant_id="shop", messages=msgs)
    assert ok and c.h_logical == 0.0
    ok, c = scorer.review("", "The shop opens at 07:00.", tenant_id="shop", messages=msgs)
    assert not ok  # a fact in the system prompt supports nothing
    tool = msgs + [{"role": "tool", "content": "Store 12 opens at 07:00 today."}]
    ok, c = scorer.review("", "Store 12 opens at 07:00 today.", tenant_id="shop", messages=tool)
    assert ok  # tool output is evidence
    parts = [{"role": "user", "content": [{"type": "text", "text": "When do you open?"}, {"type": "image_url"}]}]
    assert scorer.review("", "The shop opens at 08:30.", tenant_id="shop", messages=parts)[0]
    with pytest.raises(ConfigError) as e:
        scorer.review("When?", "The shop opens at 08:30.", tenant_id="shop", messages=msgs)
    assert e.value.field == "messages"
    with pytest.raises(ConfigError):
        scorer.review("", "x", tenant_id="shop", messages=[{"role": "wizard", "content": "x"}])
    with pytest.raises(InputTypeError):
        scorer.review("", "x", tenant_id="shop", messages="hello")
    with pytest.raises(InputTypeError):
        scorer.review("q", "x", tenant_id="shop", context=[1, 2])


def test_system_prompt_does_not_turn_correct_answers_into_rejections(scorer):
    system = ("You are a helpful assistant for Example Corp. Answer briefly and politely. Never "
              "promise refunds. Do not discuss competitors. Always answer in English.")
    ok, _ = scorer.review("When do you open?", "The shop opens at 08:30.", tenant_id="shop", system=system)
    assert ok
    g = df.stream_guard(tokens("The shop opens at 08:30."), scorer, prompt="When?", tenant_id="shop", system=system)
    assert "".join(g) == "The shop opens at 08:30." and not g.session.halted


def test_a_user_statement_can_be_contradicted():
    s = df.CoherenceScorer(use_nli=False, knowledge=["Acme was founded in 1998."])
    ok, c = s.review("Acme was founded in 2003. Is that right?", "Acme was founded in 1998.")
    # the answer contradicts what the user stated (reported), with the knowledge: a correction
    assert c.h_logical > 0.5 and ok
    ok, c = s.review("Acme was founded in 2003. Is that right?", "Acme was founded in 2005.")
    assert c.h_logical > 0.5 and not ok
    ok, c = s.review("I'm travelling with my son. When was Acme founded?", "Acme was founded in 1998.")
    assert ok and c.h_logical == 0.0


# ---- stream / review agreement -------------------------------------------------------------------

_SENTENCES = [
    "The shop opens at 08:30.", "The shop opens at 10:00.", "On Sundays the shop is closed.",
    "On Sundays the shop is open.", "Refunds take 5 working days.", "Refunds take 9 working days.",
    "Delivery costs EUR 4.", "Delivery costs EUR 7.", "Returns need the original receipt.",
    "Sure!", "I hope this helps!", "Let me know if you have other questions.", "Great question.",
    "Deliveries leave the warehouse in Lund every morning.", "Deliveries leave the warehouse in Oslo.",
    "The service desk is staffed by Mia Berg and Jon Alm.", "Bananas are sold by the kilo.",
    "No, on Sundays the shop is closed.", "Yes, refunds take 5 working days.",
    # fenced code blocks (closed: skipped by review and held whole by the stream; a lone fence
    # opens a block that a later one may close, or that stays open and is judged line by line)
    "\n```\nThe shop opens at 10:00.\n```\n", "\n```python\nprint(refund_days(9))\n```\n", "\n~~~\n", "\n```\n",
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(_SENTENCES), min_size=1, max_size=6),
       threshold=st.sampled_from([0.3, 0.5, 0.75]), mode=st.sampled_from(["reject", "warn"]))
def test_stream_halts_exactly_when_review_rejects(kb, parts, threshold, mode):
    answer = " ".join(parts)
    s = df.CoherenceScorer(use_nli=False, knowledge=kb, threshold=threshold, unsupported=mode)
    ok, c = s.review("Tell me about the shop.", answer, tenant_id="shop")
    g = df.stream_guard(tokens(answer), s, prompt="Tell me about the shop.", tenant_id="shop")
    delivered = "".join(g)
    assert ok == (not g.session.halted), (answer, c.score)
    if ok:
        assert delivered == answer


def test_each_completed_sentence_is_scored_exactly_once(kb):
    s = df.CoherenceScorer(use_nli=False, knowledge=kb)
    calls = []
    inner = s.score_sentence

    def counted(sentence, **kw):
        calls.append(sentence)
        return inner(sentence, **kw)

    s.score_sentence = counted  # type: ignore[method-assign]
    answer = " ".join(["The shop opens at 08:30.", "Refunds take 5 working days.", "I hope this helps!"] * 20)
    g = df.stream_guard(tokens(answer), s, prompt="Tell me.", tenant_id="shop")
    assert "".join(g) == answer and not g.session.halted
    assert len(calls) == 60 and g.session.scorer_calls == 60


def test_halt_config_is_derived_from_the_scorer(kb):
    s = df.CoherenceScorer(use_nli=False, knowledge=kb, threshold=0.7, soft_limit=0.8)
    g = df.stream_guard(iter(["The shop opens at 08:30."]), s, tenant_id="shop")
    cfg = g._state.config
    assert (cfg.hard_limit, cfg.soft_limit, cfg.trend_threshold) == (0.7, 0.8, 1.0)
    assert 0.7 - 1e-8 < cfg.window_threshold < 0.7
    # ten scores exactly at the threshold average to just below it in floating point: no halt
    g = df.stream_guard(tokens("Bananas are sold by the kilo. " * 3), df.CoherenceScorer(use_nli=False, 
        knowledge=kb, threshold=0.3, unsupported="warn"), tenant_id="shop")
    "".join(g)
    assert not g.session.halted
    g = df.stream_guard(iter(["x"]), lambda t: 0.9)  # a plain callable keeps director-ai's defaults
    assert g._state.config == df.HaltConfig()


def test_third_party_scorer_without_the_new_arguments_keeps_working(caplog):
    class Old:
        def score_sentence(self, sentence, *, prompt="", previous="", tenant_id=""):
            return 0.9

    with caplog.at_level(logging.WARNING, logger="director_fast.stream_guard"):
        g = df.stream_guard(iter(["A b. ", "C d."]), Old(), context="evidence", system="be nice")
        assert "".join(g) == "A b. C d."
    assert "does not accept context, system" in caplog.text


# ---- knowledge changes, tenants, audit events -------------------------------------------------------

def test_kb_add_takes_effect_at_once_in_review_and_stream():
    k = df.KnowledgeBase()
    k.add("The shop opens at 08:30.", source="hours.md", tenant="t")
    s = df.CoherenceScorer(use_nli=False, knowledge=k)
    v0 = k.version
    assert not s.review("Parking?", "Parking is free for 2 hours.", tenant_id="t")[0]
    g = df.stream_guard(tokens("Parking is free for 2 hours."), s, tenant_id="t")
    assert "".join(g) == "" and g.session.halted
    k.add("Parking is free for 2 hours.", source="parking.md", tenant="t")
    assert k.version > v0
    assert s.review("Parking?", "Parking is free for 2 hours.", tenant_id="t")[0]
    g = df.stream_guard(tokens("Parking is free for 2 hours."), s, tenant_id="t")
    assert "".join(g) == "Parking is free for 2 hours." and not g.session.halted


def test_unknown_tenant_fails_loudly(kb, scorer):
    with pytest.raises(UnknownTenantError) as e:
        scorer.review("When?", "The shop opens at 08:30.", tenant_id="Shop")
    assert e.value.tenant == "Shop"
    with pytest.raises(UnknownTenantError):
        df.stream_guard(iter(["The shop opens at 08:30."]), scorer, tenant_id="Shop")  # at start
    lenient = df.CoherenceScorer(use_nli=False, knowledge=kb, allow_unknown_tenant=True)
    ok, c = lenient.review("When?", "The shop opens at 08:30.", tenant_id="Shop")
    assert not ok and c.attributions[0].signal == "unknown_tenant"
    g = df.stream_guard(iter(["Sure! ", "The shop opens at 08:30."]), lenient, tenant_id="Shop")
    assert "".join(g) == "Sure! " and g.session.halted
    assert df.CoherenceScorer(use_nli=False, knowledge=["Shared fact."]).check_tenant("anyone")  # a list is shared


def test_halt_event_is_tenant_safe_whatever_the_source_is_called(scorer):
    g = df.stream_guard(tokens("Passwords are reset at the service desk on floor 3."), scorer,
                        prompt="Where do I reset my password?", tenant_id="shop", request_id="r-1")
    out = "".join(g)
    s = g.session
    assert out == "" and s.halted
    ev = s.safety_events[0]
    d = ev.to_dict()
    validate_safety_event_payload(d)
    assert all(re.fullmatch(r"kb:\d+", r) for r in d["evidence_refs"]) and d["evidence_refs"]
    assert d["attributes"]["claim_index"] == "0" and d["attributes"]["verdict"] in ("contradicted", "not_found")
    assert "password-reset.md" not in str(d)
    assert s.halt_evidence_structured.evidence_chunks[0].source == "password-reset.md"  # operator side
    assert s.halt_claim.source_sentence.startswith("Passwords are reset")


def test_guard_job_reports_records_without_evidence(tmp_path):
    import json

    from director_fast.jobs.guard_job import GuardOptions, run_guard

    data = tmp_path / "in.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in [
        {"context": "Acme was founded in 1998.", "question": "When?", "response": "Acme was founded in 1998."},
        {"context": "", "question": "When?", "response": "Acme was founded in 1998."},
    ]) + "\n", encoding="utf-8")
    summary = run_guard(data, options=GuardOptions(stream=True), progress=False)
    d = summary.to_dict()
    assert d["records"] == 2 and d["no_evidence"] == 1 and d["approved"] == 1


async def test_areview_equals_review_off_the_event_loop(scorer):
    import asyncio
    import threading

    seen = []
    inner = scorer.score

    def spy(*a, **kw):
        seen.append(threading.current_thread() is threading.main_thread())
        return inner(*a, **kw)

    scorer.score = spy  # type: ignore[method-assign]
    try:
        ok, c = await scorer.areview("When do you open?", "The shop opens at 08:30.", tenant_id="shop")
    finally:
        del scorer.score
    ok2, c2 = scorer.review("When do you open?", "The shop opens at 08:30.", tenant_id="shop")
    assert (ok, c.score) == (ok2, c2.score) and ok and seen == [False]
    assert asyncio.get_running_loop() is not None


async def test_ascore_equals_score_off_the_event_loop(scorer):
    import threading

    seen = []
    inner = scorer._judge_text

    def spy(*a, **kw):
        seen.append(threading.current_thread() is threading.main_thread())
        return inner(*a, **kw)

    scorer._judge_text = spy  # type: ignore[method-assign]
    try:
        c = await scorer.ascore("When do you open?", "The shop opens at 9 am.", tenant_id="shop")
    finally:
        del scorer._judge_text
    c2 = scorer.score("When do you open?", "The shop opens at 9 am.", tenant_id="shop")
    assert (c.approved, c.score) == (c2.approved, c2.score) and not c.approved and seen == [False]


def test_concurrent_reviews_and_streams_while_the_knowledge_grows():
    import itertools
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from _concurrency import run_threads

    k = df.KnowledgeBase()
    for source, text in SHOP.items():
        k.add(text, source=source, tenant="shop")
    s = df.CoherenceScorer(use_nli=False, knowledge=k)
    answers = ["The shop opens at 08:30.", "The shop opens at 9 am.", "Sure! Refunds take 5 working days.",
               "Delivery costs EUR 7."]
    expected = {a: s.review("Tell me.", a, tenant_id="shop")[0] for a in answers}
    counter = itertools.count()

    def work():
        for i in range(25):
            a = answers[(i + next(counter)) % len(answers)]
            assert s.review("Tell me.", a, tenant_id="shop")[0] == expected[a]
            g = df.stream_guard(tokens(a), s, prompt="Tell me.", tenant_id="shop")
            "".join(g)
            assert g.session.halted == (not expected[a])
            if i % 5 == 0:  # unrelated knowledge arrives meanwhile (other tenant, other topic)
                k.add(f"Aisle {i} holds item {next(counter)}.", source="aisles.md", tenant="other")

    assert run_threads(work) == []


def test_hybrid_judge_keeps_the_lexical_hard_signals_over_a_model():
    from director_fast.verify.claim_evidence import EvidenceUnit
    from director_fast.verify.comparison import Comparison
    from director_fast.verify.judges import HybridJudge, LexicalJudge
    from director_fast.types.results import EvidenceChunk

    class AlwaysEntails:
        def compare(self, claim, units, question=""):
            return [Comparison("supported", 0.99, "entailment") for _ in units]

        def compare_texts(self, claim, premises):
            return [Comparison("supported", 0.99, "entailment") for _ in premises]

    def unit(text):
        return EvidenceUnit(text, text, "kb:0", EvidenceChunk(text=text, distance=0.0), text)

    j = HybridJudge(AlwaysEntails(), LexicalJudge(df.LexicalNLI()))
    # a unit contradicts: the lexical verdicts stand, even where the model would support
    got = j.compare("The shop opens at 9 am.", [unit("The shop opens at 08:30."), unit("Aisle 9 holds tools.")])
    assert [c.verdict for c in got] == ["contradicted", "not_found"]
    got = j.compare("Walter bought the shop from Priya.", [unit("Priya bought the shop from Walter.")])
    assert got[0].signal == "roles"
    assert j.compare_texts("The shop opens at 08:30.", ["The shop opens at 08:30."])[0].signal == "coverage"
    # a paraphrase the lexical backend covers too thinly: the model upgrades it
    got = j.compare("Drivers should report to the check-in lane with the car half an hour before the boat leaves.",
                    [unit("Vehicles must check in at least 30 minutes before departure."), unit("Dogs are welcome.")])
    assert [(c.verdict, c.signal) for c in got] == [("supported", "entailment"), ("not_found", "number")]

    class Unsure(AlwaysEntails):
        def compare(self, claim, units, question=""):
            return [Comparison("supported", 0.55, "entailment") for _ in units]

    got = HybridJudge(Unsure(), LexicalJudge(df.LexicalNLI())).compare(
        "Drivers should report to the check-in lane with the car half an hour before the boat leaves.",
        [unit("Vehicles must check in at least 30 minutes before departure.")])
    assert got[0].verdict == "not_found"  # below UPGRADE_ENTAILMENT


def test_hybrid_judge_never_lets_the_model_confirm_a_number_its_unit_does_not_state():
    from director_fast.verify.claim_evidence import EvidenceUnit
    from director_fast.verify.comparison import Comparison
    from director_fast.verify.judges import HybridJudge, LexicalJudge
    from director_fast.types.results import EvidenceChunk

    class AlwaysEntails:
        def compare(self, claim, units, question=""):
            return [Comparison("supported", 0.99, "entailment") for _ in units]

    def unit(text):
        return EvidenceUnit(text, text, "kb:0", EvidenceChunk(text=text, distance=0.0), text)

    lexical = LexicalJudge(df.LexicalNLI())
    j = HybridJudge(AlwaysEntails(), lexical)
    # the lexical backend sees no number mismatch here (the unit's 10:00 is a time of day), only a
    # thin cover: the model would be asked, but the unit does not state "ten" cars
    claim = "There's a small customer car park behind the shop with space for about ten cars."
    units = [unit("The shop delivers groceries and hardware to addresses within 5 km of the shop, "
                  "Monday to Friday between 10:00 and 18:00.")]
    assert [(c.verdict, c.signal) for c in lexical.compare(claim, units)] == [("not_found", "coverage")]
    assert [c.verdict for c in j.compare(claim, units)] == ["not_found"]
    # a unit stating the claim's number (30 minutes = half an hour) is upgraded
    got = j.compare("Drivers should report to the check-in lane with the car half an hour before the boat leaves.",
                    [unit("Vehicles must check in at least 30 minutes before departure.")])
    assert [(c.verdict, c.signal) for c in got] == [("supported", "entailment")]


@pytest.mark.parametrize("claim,evidence,expected", [
    ("The shop opens at 9 am.", "Aisle 9 holds tools.", False),
    ("Check in at least half an hour before.", "Vehicles must check in at least 30 minutes before departure.", True),
    ("Parking costs £5 per day.", "Parking costs £8 per day.", False),
    ("Dogs are welcome.", "Pets are allowed on a lead.", True),  # no number to state
])
def test_states_numbers_needs_every_number_of_the_claim_with_the_same_quantity(claim, evidence, expected):
    from director_fast.verify.rules_values import states_numbers

    assert states_numbers(claim, evidence) is expected


# ---- found by a fresh reviewer: nothing false passes unjudged ---------------------------------

ACME = ("Parking is free for 2 hours. Pets are not allowed in the office, except guide dogs. "
        "The office opens at 9 am and closes at 5 pm. Acme employs 2,500 people. "
        "Acme was founded in 1998 in Oslo.")


@pytest.fixture(scope="module")
def acme():
    k = df.KnowledgeBase()
    k.add(ACME, source="acme.md", tenant="acme")
    return df.CoherenceScorer(use_nli=False, knowledge=k)


@pytest.mark.parametrize("question,answer,approved", [
    ("Does Acme employ 9,000 people?", "Yes.", False),       # a bare yes asserts the question
    ("Does Acme employ 9,000 people?", "That's right!", False),
    ("Does Acme employ 2,500 people?", "Yes.", True),
    ("Does Acme employ 9,000 people?", "No.", True),           # ... a bare no denies it
    ("Are pets allowed in the office?", "No. Pets are not allowed in the office, except guide dogs.", True),
    ("Is the office open at 7 am?", "Yes, it is.", False),     # no content word: judged through the question
    ("Tell me something.", "It is.", False),                   # ... and without a question: not_found
    ("How many?", "Acme employs 9,000 people, doesn't it?", False),   # a tag does not hide a claim
    ("How many?", "Did you know Acme employs 9,000 people?", False),
    ("How many?", "Acme employs ９，０００ people.", False),    # non-ASCII digits are numbers
    ("How many?", "Acme employs ٩٠٠٠ people.", False),
    ("Hi", "Sure! Anything else?", True),
])
def test_nothing_false_passes_unjudged(acme, question, answer, approved):
    ok, c = acme.review(question, answer, tenant_id="acme")
    assert ok == approved, [(a.claim, a.verdict, a.signal) for a in c.attributions]
    g = df.stream_guard(tokens(answer), acme, prompt=question, tenant_id="acme")
    "".join(g)
    assert g.session.halted == (not approved)


def test_claim_attribution_payloads_old_and_new():
    from director_fast.types.results import ClaimAttribution, ScoringEvidence
    from director_fast.errors import ValidationError

    old = {"claim": "x", "claim_index": 0, "source_sentence": "y", "source_index": 0, "divergence": 0.1,
           "supported": True}
    a = ClaimAttribution.from_dict(old)
    assert (a.verdict, a.signal, a.start, a.end) == ("supported", "", -1, -1)
    assert ClaimAttribution.from_dict({**old, "supported": False}).verdict == "not_found"
    new = ClaimAttribution(claim="x", claim_index=0, source_sentence="y", source_index=0, divergence=0.9,
                           supported=False, verdict="contradicted", signal="number", start=3, end=4)
    assert ClaimAttribution.from_dict(new.to_dict()) == new
    with pytest.raises(ValidationError):
        ClaimAttribution(claim="x", claim_index=0, source_sentence="", source_index=-1, divergence=0.5,
                         supported=True, verdict="contradicted")
    with pytest.raises(ValidationError):
        ClaimAttribution(claim="x", claim_index=0, source_sentence="", source_index=-1, divergence=0.5,
                         supported=False, verdict="maybe")
    ev = ScoringEvidence(chunks=[], nli_premise="", nli_hypothesis="", nli_score=0.0)
    assert ev.skipped_units is None and ev.comparisons is None
    assert ScoringEvidence.from_dict(ev.to_dict()) == ev


@pytest.mark.parametrize("kb,answer,approved", [
    # found by a reviewer: the number of a neighbouring fact partly covering the claim
    (["Standard delivery takes 5 days.", "Express delivery takes 2 days."], "Standard delivery takes 2 days.", False),
    (["Standard delivery takes 5 days.", "Express delivery takes 2 days."], "Express delivery takes 2 days.", True),
    (["The pool opens at 6:30 on weekdays.", "The gym opens at 7:00 on weekdays."], "The pool opens at 7:00 on weekdays.", False),
    (["The pool opens at 6:30 on weekdays.", "The gym opens at 7:00 on weekdays."], "The gym opens at 7:00 on weekdays.", True),
])
def test_a_number_of_a_neighbouring_fact_never_confirms(kb, answer, approved):
    got = df.CoherenceScorer(use_nli=False, knowledge=kb).score("q?", answer)
    assert got.approved is approved, [(a.verdict, a.signal, a.source_sentence) for a in got.attributions]


@pytest.mark.parametrize("answer,approved", [
    # found by a reviewer: "free" against a price, and one shared word supporting a short claim
    ("Please note that parking is free.", False),
    ("Parking is free of charge.", False),
    ("Lockers are free.", False),                          # "free" of the delivery fact is no support
    ("Delivery is free for orders over £50.", True),
    ("Parking costs £5 a day.", True),
])
def test_free_against_a_price(answer, approved):
    kb = ["Parking costs £5 a day.", "Delivery is free for orders over £50 and costs £4 otherwise."]
    got = df.CoherenceScorer(use_nli=False, knowledge=kb).score("q?", answer)
    assert got.approved is approved, [(a.verdict, a.signal, a.source_sentence) for a in got.attributions]


@pytest.mark.parametrize("answer", [
    # "free" of another noun, or meaning "available", is no price claim: never contradicted by a price
    "A checked bag includes free travel insurance.",
    "You can sit at whichever desk is free.",
])
def test_free_that_is_no_price(answer):
    kb = ["A checked bag costs £35 and comes with travel insurance.", "Hot desks cost £160 a month; you can sit at any free desk."]
    got = df.CoherenceScorer(use_nli=False, knowledge=kb).score("q?", answer)
    assert all(a.verdict != "contradicted" for a in got.attributions), [(a.verdict, a.signal) for a in got.attributions]


@pytest.mark.parametrize("kb,answer,approved", [
    # found by a second reviewer: a quantity bounded from the other side
    (["Passengers may carry one cabin bag up to 10 kg."], "You are allowed a carry-on bag weighing at least 10 kg.", False),
    (["Passengers may carry one cabin bag up to 10 kg."], "You may carry one cabin bag of up to 10 kg.", True),
    (["Guests can check in from 3 pm."], "Guests can check in until 3 pm.", False),
    (["Guests can check in from 3 pm."], "You can check in from 3 pm.", True),
])
def test_a_bound_from_the_other_side_contradicts(kb, answer, approved):
    got = df.CoherenceScorer(use_nli=False, knowledge=kb).score("q?", answer)
    assert got.approved is approved, [(a.verdict, a.signal) for a in got.attributions]

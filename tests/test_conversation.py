"""ConversationSession: cross-turn contradictions (known answers with the earlier turn), new
information is not divergence, noisy-or index, review / stream integration, messages seeding,
the temporal graph (own and a guard's), serialisation, caps, TTL, tenants, and the property that
an unrelated turn never changes cross_turn_divergence."""

from __future__ import annotations

import asyncio
import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import director_fast as df
from director_fast.memory.conversation import comparable, structured_claim
from director_fast.errors import ConfigError, InputTypeError, ValidationError

DOCS = Path(__file__).resolve().parents[1] / "docs" / "conversation.md"


def _session(turns, **kw):
    s = df.ConversationSession(**kw)
    for t in turns:
        s.record("", t)
    return s


# (earlier turns, new response, expected earlier turn, expected earlier claim, signal)
KNOWN = [
    (["The Grand Hotel has an outdoor pool.", "Breakfast is served from 7 am. Check-in starts at 3 pm."],
     "Check-in starts at 2 pm.", 1, "Check-in starts at 3 pm.", "number"),
    (["The museum is open on Mondays.", "Tickets cost 12 euros."],
     "The museum is not open on Mondays.", 0, "The museum is open on Mondays.", "antonym"),  # "not open" = "closed"
    (["Our office is open on Saturdays.", "Parking is free for visitors."],
     "Our office is closed on Saturdays.", 0, "Our office is open on Saturdays.", "antonym"),
    (["Harbor Hotel has no parking.", "Harbor Hotel has 40 rooms."],
     "Harbor Hotel has free parking.", 0, "Harbor Hotel has no parking.", "negation"),
    (["The conference takes place in Oslo.", "The conference lasts three days.", "Lunch is included."],
     "The conference takes place in Bergen.", 0, "The conference takes place in Oslo.", "entity"),
    (["Acme was founded in 1998.", "Acme has 200 employees.", "The CEO of Acme is Maria Lopez."],
     "The CEO of Acme is John Smith.", 2, "The CEO of Acme is Maria Lopez.", "entity"),
    (["The refund takes 5 business days.", "Refunds go to the original card."],
     "The refund takes 14 business days.", 0, "The refund takes 5 business days.", "number"),
]


@pytest.mark.parametrize("turns,response,turn,earlier,signal", KNOWN)
def test_known_contradictions_name_the_earlier_turn(turns, response, turn, earlier, signal):
    report = _session(turns).check(response)
    assert report.cross_turn_divergence >= 0.5
    top = report.contradictions[0]
    assert (top.earlier_turn, top.earlier_claim, top.signal) == (turn, earlier, signal)
    assert top.claim == response and top.claim_index == 0 and top.source == "nli"
    assert report.contradiction_index == pytest.approx(
        1 - math.prod(1 - c.probability for c in report.contradictions))


# new information about the same subject is not divergence
NEW_INFO = [
    (["Cedar Clinic has 78 employees."], "Cedar Clinic was founded in 1957."),
    (["The museum opens at 9 am."], "The museum has a cafe on the second floor."),
    (["Dune Dental is located in Narvik."], "Garnet Gallery is located in Narvik."),
    (["Dune Dental is located in Narvik."], "Dune Dental opens at 10 am."),
    (["Maple Market has 68 employees."], "Maple Market is located in Narvik."),
    (["The hotel has a pool."], "The hotel has a gym."),
    (["Check-in starts at 3 pm."], "Check-out is at 11 am."),
    (["The museum is open on Mondays."], "The museum is open on Mondays."),
]


@pytest.mark.parametrize("turns,response", NEW_INFO)
def test_new_information_is_not_divergence(turns, response):
    report = _session(turns).check(response)
    assert report.cross_turn_divergence == 0.0 and report.contradiction_index == 0.0
    assert report.contradictions == ()


def test_noisy_or_over_several_contradicted_earlier_claims():
    s = _session(["Check-in starts at 3 pm.", "The refund takes 5 days."])
    report = s.check("Check-in starts at 2 pm. The refund takes 14 days.")
    probs = sorted((c.probability for c in report.contradictions), reverse=True)
    assert len(probs) == 2 and {c.earlier_turn for c in report.contradictions} == {0, 1}
    assert report.cross_turn_divergence == probs[0]
    assert report.contradiction_index == pytest.approx(1 - (1 - probs[0]) * (1 - probs[1]))
    assert report.contradiction_index > report.cross_turn_divergence


def test_frame_gate_rules():
    assert comparable("Check-in starts at 2 pm.", "Check-in starts at 3 pm.", "number")
    assert not comparable("Cedar Clinic has 78 employees.", "Cedar Clinic was founded in 1957.", "number")
    assert comparable("Dune Dental is in Bodo.", "Dune Dental is in Narvik.", "entity")
    assert not comparable("Dune Dental is in Narvik.", "Garnet Gallery is in Narvik.", "entity")
    assert not comparable("Alder Books sells bread.", "Alder Bakery sells bread.", "entity")
    assert not comparable("Alder Books has free parking.", "Alder Bakery has no parking.", "negation")
    assert comparable("The shop is closed today.", "The shop is open today.", "antonym")
    assert not comparable("Room 12 costs 90 euros.", "Room 14 costs 80 euros.", "number")
    assert comparable("Room 12 costs 90 euros.", "Room 12 costs 80 euros.", "number")
    assert comparable("anything", "else", "contradiction")  # a model's verdict stands


def test_structured_claims():
    assert structured_claim("The hotel doesn't have a pool.") == structured_claim("The hotel has no pool.")
    sc = structured_claim("The Hotel has a pool.")
    assert (sc.subject, sc.predicate, sc.value, sc.polarity) == ("hotel", "has", "pool", True)
    assert structured_claim("Acme was not founded in 1998.").predicate == "was"
    for text in ("It is open.", "The shop is no longer open.", "The bar is open, and cheap.",
                 "Rooms are cheap and clean.", "Is the shop open?"):
        assert structured_claim(text) is None, text
    with pytest.raises(InputTypeError):
        structured_claim(3)


# ---- review integration --------------------------------------------------------------------------

KB = ["The Grand Hotel has an outdoor pool, open from May to September.", "Breakfast is served from 7 am to 10 am.",
      "Check-in starts at 3 pm."]


def test_review_fills_fields_and_remembers_only_approved_responses():
    scorer = df.CoherenceScorer(knowledge=KB)
    s = df.ConversationSession()
    ok, r = scorer.review("Pool?", "The hotel has an outdoor pool.", s)
    assert ok and r.cross_turn_divergence == 0.0 and r.contradiction_index == 0.0
    assert r.evidence.cross_turn_contradictions == []
    ok, r = scorer.review("Check-in?", "Check-in starts at 2 pm.", s)  # contradicts the KB: rejected
    assert not ok and r.cross_turn_divergence == 0.0  # nothing earlier about check-in
    assert len(s) == 1
    ok, r = scorer.review("Check-in?", "Check-in starts at 3 pm.", s)
    # the rejected answer was not remembered but had its turn: numbers follow the transcript
    assert ok and [t.turn_index for t in s.turns] == [0, 2]
    # score and approval never change with a session
    plain = scorer.score("Check-in?", "Check-in starts at 3 pm.")
    assert (r.score, r.approved) == (plain.score, plain.approved)
    assert df.CoherenceScore.from_dict(r.to_dict()) == r


def test_review_record_all_and_reported_turn():
    scorer = df.CoherenceScorer(knowledge=KB)
    s = df.ConversationSession(record="all")
    scorer.review("Check-in?", "Check-in starts at 2 pm.", s)  # rejected, remembered anyway
    ok, r = scorer.review("Check-in?", "Check-in starts at 3 pm.", s)
    (c,) = r.evidence.cross_turn_contradictions
    assert (c.earlier_turn, c.earlier_claim, c.claim) == (0, "Check-in starts at 2 pm.", "Check-in starts at 3 pm.")
    assert r.cross_turn_divergence == c.probability == r.contradiction_index


def test_review_rejects_foreign_session_objects_and_tenants():
    scorer = df.CoherenceScorer(knowledge=KB)
    with pytest.raises(InputTypeError):
        scorer.review("q", "Check-in starts at 3 pm.", object())
    s = df.ConversationSession(tenant_id="acme")
    with pytest.raises(ConfigError) as e:
        scorer.review("q", "Check-in starts at 3 pm.", s, "globex")
    assert e.value.field == "tenant_id"
    with pytest.raises(ValidationError):
        df.ConversationSession(tenant_id="bad tenant")


def test_messages_seed_once_in_order():
    scorer = df.CoherenceScorer(unsupported="warn")
    chat = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "The shop opens at 9 am."},
            {"role": "user", "content": "b"}, {"role": "assistant", "content": "The shop has 12 staff."},
            {"role": "user", "content": "c"}]
    s = df.ConversationSession()
    ok, r = scorer.review("", "The shop opens at 10 am.", s, messages=chat)
    assert r.evidence.cross_turn_contradictions[0].earlier_turn == 0
    assert [t.response for t in s.turns] == ["The shop opens at 9 am.", "The shop has 12 staff.",
                                            "The shop opens at 10 am."]
    assert s.seed(chat) == 0  # already seen
    assert s.turns[-1].prompt == "c"


def test_async_review_equals_sync():
    scorer = df.CoherenceScorer(knowledge=KB)
    a, b = df.ConversationSession(session_id="x"), df.ConversationSession(session_id="x")
    for q, text in (("p", "Check-in starts at 3 pm."), ("p", "Breakfast is served from 7 am to 10 am.")):
        sync = scorer.review(q, text, a)
        asyn = asyncio.run(scorer.areview(q, text, b))
        assert sync == asyn


# ---- streaming ---------------------------------------------------------------------------------

def test_stream_guard_checks_and_records_delivered_text():
    s = df.ConversationSession()
    s.record("", "Check-in starts at 3 pm.")
    g = df.stream_guard(iter(["Check-in ", "starts ", "at ", "2 pm."]), lambda t: 0.9, conversation=s)
    assert g.cross_turn is None
    assert "".join(g) == "Check-in starts at 2 pm."
    (c,) = g.cross_turn.contradictions
    assert c.earlier_turn == 0 and g.cross_turn.cross_turn_divergence == c.probability
    assert [t.turn_index for t in s.turns] == [0, 1]


def test_stream_guard_halted_stream_records_only_what_was_delivered():
    scorer = df.CoherenceScorer(knowledge=KB)
    s = df.ConversationSession()
    g = df.stream_guard(iter(["Breakfast is served from 7 am to 10 am. ", "Check-in ", "starts at 5 pm."]),
                        scorer, prompt="When?", conversation=s)
    out = "".join(g)
    assert g.session.halted and out.strip() == "Breakfast is served from 7 am to 10 am."
    assert [t.response.strip() for t in s.turns] == [out.strip()]


def test_astream_guard_equals_sync():
    async def run(s):
        g = df.astream_guard(iter(["Check-in ", "starts ", "at ", "2 pm."]), lambda t: 0.9, conversation=s)
        return "".join([t async for t in g]), g.cross_turn

    a, b = _session(["Check-in starts at 3 pm."]), _session(["Check-in starts at 3 pm."])
    g = df.stream_guard(iter(["Check-in ", "starts ", "at ", "2 pm."]), lambda t: 0.9, conversation=a)
    text = "".join(g)
    assert asyncio.run(run(b)) == (text, g.cross_turn)
    with pytest.raises(InputTypeError):
        df.stream_guard(iter(["x"]), lambda t: 0.9, conversation="not a session")


# ---- temporal graph ------------------------------------------------------------------------------

def test_guard_graph_catches_contradiction_across_sessions():
    guard = df.ProductionGuard()
    mon = df.ConversationSession(guard=guard, tenant_id="clinic-7")
    mon.record("", "The patient has diabetes.")
    tue = df.ConversationSession(guard=guard, tenant_id="clinic-7")
    other = df.ConversationSession(guard=guard, tenant_id="clinic-8")
    assert other.check("The patient does not have diabetes.").contradictions == ()  # tenant-scoped
    report = tue.observe("", "The patient does not have diabetes.")
    (c,) = report.contradictions
    assert (c.source, c.signal, c.earlier_session_id, c.earlier_turn) == ("temporal", "polarity", mon.session_id, 0)
    assert c.probability == 1.0  # the judge confirms the negation
    (tc,) = guard.temporal_consistency.contradictions(tenant_id="clinic-7")
    assert (tc.earlier.session_id, tc.later.session_id) == (mon.session_id, tue.session_id)
    assert tue.delete_tenant("clinic-7") == 1
    assert guard.temporal_consistency.claim_count(tenant_id="clinic-7") == 0


def test_own_graph_finds_contradiction_outside_top_k():
    s = _session(["The spa has a sauna. The spa has a steam room. The spa has a pool. The spa has a gym."], top_k=1)
    r = s.check("The spa does not have a pool.")
    assert [(c.earlier_claim, c.earlier_turn) for c in r.contradictions] == [("The spa has a pool.", 0)]
    assert s.temporal_consistency.claim_count() == 4


# ---- serialisation, caps, TTL ----------------------------------------------------------------

def test_round_trip_json_and_validation():
    s = _session(["The shop opens at 9 am.", "The shop has 12 staff. Parking is free."], tenant_id="acme")
    payload = json.loads(json.dumps(s.to_dict()))
    r = df.ConversationSession.from_dict(payload)
    assert r.to_dict() == s.to_dict() and r.turns == s.turns
    assert r.check("The shop opens at 8 am.") == s.check("The shop opens at 8 am.")
    bad = json.loads(json.dumps(payload))
    bad["turns"][1]["claims"][0] = [5, 999]
    with pytest.raises(ValidationError, match=r"turns\[1\]\.claims\[0\]"):
        df.ConversationSession.from_dict(bad)
    with pytest.raises(ValidationError, match="unknown keys"):
        df.ConversationSession.from_dict({**payload, "x": 1})
    with pytest.raises(ConfigError):
        df.ConversationSession.from_dict({**payload, "max_turns": 0})


def test_caps_forget_oldest_turns_and_from_dict_overrides():
    s = _session([f"Shop {i} opens at {i} am." for i in range(8)], max_turns=5)
    assert [t.turn_index for t in s.turns] == [3, 4, 5, 6, 7] and s.claim_count == 5
    assert s.check("Shop 1 opens at 2 am.").contradictions == ()  # forgotten
    assert s.check("Shop 4 opens at 5 am.").contradictions[0].earlier_turn == 4
    r = df.ConversationSession.from_dict(s.to_dict(), max_turns=2)
    assert [t.turn_index for t in r.turns] == [6, 7]
    assert r.record("", "Shop 9 opens at 9 am.").turn_index == 8
    c = _session(["A is big. B is big. C is big.", "D is big. E is big."], max_claims=3)
    assert [t.turn_index for t in c.turns] == [1] and c.claim_count == 2


def test_ttl_forgets_old_turns():
    now = [1000.0]
    s = df.ConversationSession(ttl_s=60, clock=lambda: now[0])
    s.record("", "The shop opens at 9 am.")
    now[0] += 30
    s.record("", "The shop has 12 staff.")
    assert s.check("The shop opens at 10 am.").cross_turn_divergence > 0.5
    now[0] += 45
    assert len(s) == 1 and s.check("The shop opens at 10 am.").contradictions == ()
    r = df.ConversationSession.from_dict(s.to_dict(), clock=lambda: now[0] + 100)
    assert len(r) == 0


def test_bad_arguments():
    for kw in ({"max_turns": 0}, {"top_k": True}, {"ttl_s": -1}, {"min_similarity": 2}, {"record": "x"},
               {"guard": object()}, {"temporal": object()}):
        with pytest.raises(ConfigError):
            df.ConversationSession(**kw)
    s = df.ConversationSession()
    with pytest.raises(ValidationError):
        s.record("", "x", 1.5)
    with pytest.raises(ValidationError):
        s.record("", "The shop is open.", claims=[("The shop", 0, 3)])
    with pytest.raises(InputTypeError):
        s.check(None)


# ---- properties ----------------------------------------------------------------------------

# names that share words, so retrieval ranks partial matches and the top-k cut and the similarity
# floor matter
NAMES_A = ["Alder Bakery", "Alder Books", "Birch Bakery", "Birch Books", "Cedar Clinic", "Cedar Bakery"]
NAMES_B = ["Quartz Quarry", "Vortex Vault", "Zenith Zinc", "Yonder Yurt"]


def _fact_a(name, kind, value):
    return [f"{name} opens at {value % 12 + 1} am.", f"{name} has {value} employees.",
            f"{name} is located in {['Oslo', 'Bergen', 'Alta'][value % 3]}.",
            f"{name} has {'free' if value % 2 else 'no'} parking.", f"{name} sells bread."][kind]


def _fact_b(name, kind, value):
    return [f"{name} rents {value} lamps.", f"{name} rents kayaks for {value} kroner.",
            f"{name} ships tiles weekly."][kind]


fact_a = st.builds(_fact_a, st.sampled_from(NAMES_A), st.integers(0, 4), st.integers(1, 300))
fact_b = st.builds(_fact_b, st.sampled_from(NAMES_B), st.integers(0, 2), st.integers(1, 300))
turn_a = st.lists(fact_a, min_size=1, max_size=4).map(" ".join)
turn_b = st.lists(fact_b, min_size=1, max_size=3).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(turn_a, max_size=8), turn_a, turn_b, st.integers(0, 8), st.sampled_from([1, 2, 4]),
       st.sampled_from([0.0, 0.3, 0.5, 0.7]))
def test_unrelated_turn_never_changes_cross_turn_divergence(turns, response, unrelated, at, k, floor):
    kw = {"top_k": k, "min_similarity": floor}
    a, b = _session(turns, **kw), _session(turns[:at] + [unrelated] + turns[at:], **kw)
    plain, with_unrelated = a.check(response), b.check(response)
    for claim in df.split_claims(response):  # retrieval itself is unchanged, similarities included
        assert [(t, sim) for t, _turn, sim in a.relevant(claim.text)] == \
            [(t, sim) for t, _turn, sim in b.relevant(claim.text)]
    assert with_unrelated.cross_turn_divergence == plain.cross_turn_divergence
    assert with_unrelated.contradiction_index == plain.contradiction_index
    assert [(c.claim, c.earlier_claim) for c in with_unrelated.contradictions] == \
        [(c.claim, c.earlier_claim) for c in plain.contradictions]
    assert 0.0 <= plain.cross_turn_divergence <= plain.contradiction_index <= 1.0


def test_docs_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 4
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOCS.name}[{i}]", "exec"), {})

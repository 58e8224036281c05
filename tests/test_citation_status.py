"""Citation status feed: KnowledgeBase.set_source_status, the effect table, the injectable clock,
and the per-source verdicts in ScoringEvidence.citation_status."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from director_fast import CoherenceScorer, KnowledgeBase, ScoringEvidence, stream_guard
from director_fast.verify.citation_status import (
    SOURCE_STATUSES,
    STATUS_EFFECTS,
    SourceStatusFeed,
    parse_as_of,
    warned_score,
)
from director_fast.types.verification import CitationStatusVerdict
from director_fast.errors import ConfigError, InputTypeError, ValidationError

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
FACT_A = "The Tromso clinic accepts walk-in patients on Tuesdays."
FACT_B = "The Narvik depot stores 400 spare tyres."
CLAIM_A = "The Tromso clinic accepts walk-in patients on Tuesdays."
CLAIM_B = "The Narvik depot stores 400 spare tyres."


class Clock:
    def __init__(self, t: datetime = T0) -> None:
        self.t = t

    def __call__(self) -> datetime:
        return self.t


def _kb(clock: Clock, tenant: str = "") -> KnowledgeBase:
    kb = KnowledgeBase(clock=clock)
    kb.add_facts([FACT_A], source="clinic-guide", tenant=tenant)
    kb.add_facts([FACT_B], source="depot-sheet", tenant=tenant)
    return kb


def _review(scorer, claim, tenant=""):
    return scorer.review("", claim, tenant_id=tenant)


def test_no_status_means_current_and_nothing_reported():
    kb = _kb(Clock())
    ok, s = _review(CoherenceScorer(use_nli=False, knowledge=kb), CLAIM_A)
    assert ok and not s.warning and s.evidence.citation_status is None
    assert kb.source_status("clinic-guide") is None


@pytest.mark.parametrize("status", SOURCE_STATUSES)
def test_effect_table(status):
    clock = Clock()
    kb = _kb(clock)
    scorer = CoherenceScorer(use_nli=False, knowledge=kb)
    v = kb.set_source_status("clinic-guide", status, as_of=T0, status_source="registry")
    assert v == CitationStatusVerdict(source_id="clinic-guide", status=status, risk=STATUS_EFFECTS[status].risk,
                                      reason=v.reason, status_source="registry", as_of="2025-01-01T00:00:00Z")
    ok, s = _review(scorer, CLAIM_A)
    a = s.evidence.attributions[0]
    assert [c.source_id for c in s.evidence.citation_status] == ["clinic-guide"]
    assert s.evidence.citation_status[0].status == status
    if status == "current":
        assert ok and not s.warning and a.verdict == "supported"
    elif status in ("superseded", "expired"):
        assert ok and s.warning and a.verdict == "supported"
        assert scorer.threshold <= s.score < scorer.soft_limit
    else:  # retracted evidence never supports
        assert not ok and a.verdict == "not_found" and a.source_sentence != FACT_A
    # the other source is untouched and not reported
    ok_b, s_b = _review(scorer, CLAIM_B)
    assert ok_b and not s_b.warning
    assert all(v.source_id != "depot-sheet" for v in (s_b.evidence.citation_status or []))


def test_clock_decides_when_a_status_takes_effect_and_verdicts_are_not_cached_stale():
    clock = Clock()
    kb = _kb(clock)
    scorer = CoherenceScorer(use_nli=False, knowledge=kb)
    assert _review(scorer, CLAIM_A)[0]  # cached as supported
    kb.set_source_status("clinic-guide", "retracted", as_of=T0 + timedelta(days=30))
    ok, s = _review(scorer, CLAIM_A)
    assert ok and s.evidence.citation_status is None  # not yet in effect
    clock.t = T0 + timedelta(days=30)  # the instant it takes effect
    ok, s = _review(scorer, CLAIM_A)
    assert not ok and s.evidence.citation_status[0].status == "retracted"
    kb.set_source_status("clinic-guide", "current", as_of=T0 + timedelta(days=40), reason="retraction withdrawn")
    clock.t = T0 + timedelta(days=41)
    ok, s = _review(scorer, CLAIM_A)
    assert ok and not s.warning and s.evidence.citation_status[0].reason == "retraction withdrawn"
    clock.t = T0 + timedelta(days=35)  # back in time: the retraction is in effect again
    assert not _review(scorer, CLAIM_A)[0]


def test_history_order_and_ties():
    clock = Clock(T0 + timedelta(days=10))
    feed = SourceStatusFeed(clock)
    feed.set("s", "expired", as_of=T0 + timedelta(days=5))
    feed.set("s", "superseded", as_of=T0)  # set later, takes effect earlier
    assert feed.verdict("s").status == "expired"
    clock.t = T0 + timedelta(days=1)
    assert feed.verdict("s").status == "superseded"
    feed.set("s", "retracted", as_of=T0)  # same as_of: the last one set wins
    assert feed.verdict("s").status == "retracted"
    clock.t = T0 - timedelta(seconds=1)
    assert feed.verdict("s") is None
    assert feed.version == 3


def test_tenants_are_separate():
    clock = Clock()
    kb = KnowledgeBase(clock=clock)
    for tenant in ("acme", "globex"):
        kb.add_facts([FACT_A], source="clinic-guide", tenant=tenant)
    kb.set_source_status("clinic-guide", "retracted", as_of=T0, tenant="acme")
    scorer = CoherenceScorer(use_nli=False, knowledge=kb)
    assert not _review(scorer, CLAIM_A, "acme")[0]
    ok, s = _review(scorer, CLAIM_A, "globex")
    assert ok and s.evidence.citation_status is None


def test_stream_halts_on_a_claim_only_retracted_evidence_supports():
    clock = Clock()
    kb = _kb(clock)
    scorer = CoherenceScorer(use_nli=False, knowledge=kb)
    text = CLAIM_B + " " + CLAIM_A
    tokens = [w + " " for w in text.split()]
    g = stream_guard(iter(tokens), scorer)
    list(g)
    assert not g.session.halted
    kb.set_source_status("clinic-guide", "retracted", as_of=T0)
    g = stream_guard(iter(tokens), scorer)
    out = "".join(g)
    assert g.session.halted and out.strip() == CLAIM_B


def test_evidence_round_trip_with_citation_status():
    kb = _kb(Clock())
    kb.set_source_status("clinic-guide", "expired", as_of="2024-12-31T20:00:00-02:00")
    _ok, s = _review(CoherenceScorer(use_nli=False, knowledge=kb), CLAIM_A)
    ev = s.evidence
    assert ev.citation_status[0].as_of == "2024-12-31T22:00:00Z"
    assert ScoringEvidence.from_dict(ev.to_dict()) == ev
    assert CitationStatusVerdict.from_dict(ev.citation_status[0].to_dict()) == ev.citation_status[0]


def test_warned_score_band():
    for x in (0.0, 0.3, 1.0):
        sc = warned_score(x, 0.5, 0.6)
        assert 0.5 <= sc < 0.6
    assert warned_score(1.0, 0.5, 0.5) == 0.5


def test_bad_input():
    kb = _kb(Clock())
    with pytest.raises(ValidationError, match="status"):
        kb.set_source_status("clinic-guide", "withdrawn", as_of=T0)
    with pytest.raises(ValidationError, match="as_of"):
        kb.set_source_status("clinic-guide", "expired", as_of=datetime(2025, 1, 1))  # naive
    with pytest.raises(ValidationError, match="as_of"):
        kb.set_source_status("clinic-guide", "expired", as_of="yesterday")
    with pytest.raises(InputTypeError, match="as_of"):
        kb.set_source_status("clinic-guide", "expired", as_of=1735689600)
    with pytest.raises(InputTypeError, match="source"):
        kb.set_source_status(None, "expired", as_of=T0)
    with pytest.raises(ValidationError, match="source"):
        kb.set_source_status("", "expired", as_of=T0)
    with pytest.raises(ConfigError, match="clock"):
        SourceStatusFeed(clock="now")
    feed = SourceStatusFeed(clock=lambda: datetime(2025, 1, 1))
    feed.set("s", "expired", as_of=T0)
    with pytest.raises(ConfigError, match="clock"):
        feed.verdict("s")
    assert parse_as_of("2025-03-01") == datetime(2025, 3, 1, tzinfo=timezone.utc)


def test_concurrent_writes_and_reviews():
    import threading

    clock = Clock()
    kb = _kb(clock)
    scorer = CoherenceScorer(use_nli=False, knowledge=kb)
    errors = []
    statuses = ["retracted", "current", "superseded"]

    def writer():
        try:
            for i in range(200):
                kb.set_source_status("clinic-guide", statuses[i % 3], as_of=T0 - timedelta(seconds=200 - i))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader():
        try:
            for _ in range(100):
                ok, s = _review(scorer, CLAIM_A)
                st = s.evidence.citation_status
                assert st is None or st[0].status in statuses
                assert ok == (st is None or st[0].status != "retracted")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert kb.source_status("clinic-guide").status == statuses[199 % 3]


def test_a_retracted_source_does_not_hide_the_same_text_given_as_context():
    import datetime as dt

    import director_fast as df

    kb = df.KnowledgeBase()
    kb.add("The pool opens at 7 am.", source="g")
    kb.set_source_status("g", "retracted", as_of=dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc))
    s = df.CoherenceScorer(use_nli=False, knowledge=kb)
    assert not s.review("", "The pool opens at 7 am.")[0]
    assert s.review("", "The pool opens at 7 am.", context="The pool opens at 7 am.")[0]

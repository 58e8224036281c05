"""Differential and property tests of the temporal graph against a pure-Python oracle.

The oracle is the anchor's algorithm (director-ai seed 003): every new claim is compared with every
claim already in its (tenant, subject, predicate) group, so recording costs O(group size). It adds
the two rules the seed and issue fix on top of that: identical claims are idempotent, and keys are
normalised (NFC + strip, optional case folding) before comparison. It lives in tests only and is
also the baseline of bench/bench_temporal.py.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from director_fast.memory.temporal import (
    FUNCTIONAL_VALUE,
    POLARITY,
    TemporalClaim,
    TemporalConsistencyGraph,
    TemporalContradiction,
)


def _fold(s: str) -> str:
    return unicodedata.normalize("NFC", s.casefold())


class OracleGraph:
    """Scan-the-group reference implementation (slow on purpose)."""

    def __init__(self, functional_predicates=(), case_sensitive=True):
        self.cs = case_sensitive
        self.functional = {self._k(unicodedata.normalize("NFC", p).strip()) for p in functional_predicates}
        self.functional.discard("")
        self.groups: dict[tuple[str, str, str], list[TemporalClaim]] = {}
        self.found: list[TemporalContradiction] = []

    def _k(self, s: str) -> str:
        return s if self.cs else _fold(s)

    def record(self, claim: TemporalClaim) -> tuple[TemporalContradiction, ...]:
        key = (claim.tenant_id, self._k(claim.subject), self._k(claim.predicate))
        group = self.groups.setdefault(key, [])
        for prior in group:
            if prior == claim:
                return ()
        out = []
        for prior in group:
            kind = None
            same_value = self._k(prior.value) == self._k(claim.value)
            if same_value and prior.polarity != claim.polarity:
                kind = POLARITY
            elif (
                key[2] in self.functional
                and prior.polarity
                and claim.polarity
                and prior.value
                and claim.value
                and not same_value
            ):
                kind = FUNCTIONAL_VALUE
            if kind is None:
                continue
            earlier, later = (prior, claim) if prior.timestamp <= claim.timestamp else (claim, prior)
            out.append(TemporalContradiction(claim.subject, claim.predicate, kind, earlier, later))
        group.append(claim)
        self.found.extend(out)
        return tuple(out)

    def contradictions(self, tenant_id=None):
        if tenant_id is None:
            return tuple(self.found)
        return tuple(c for c in self.found if c.later.tenant_id == tenant_id)

    def history(self, subject, predicate, tenant_id=""):
        norm = lambda x: self._k(unicodedata.normalize("NFC", x).strip())  # noqa: E731
        key = (tenant_id, norm(subject), norm(predicate))
        return tuple(sorted(self.groups.get(key, ()), key=lambda c: c.timestamp))

    def claim_count(self, tenant_id=None):
        return sum(len(v) for k, v in self.groups.items() if tenant_id is None or k[0] == tenant_id)

    def delete_tenant(self, tenant_id):
        removed = 0
        for key in [k for k in self.groups if k[0] == tenant_id]:
            removed += len(self.groups.pop(key))
        self.found = [c for c in self.found if c.later.tenant_id != tenant_id]
        return removed


# ---- strategies ---------------------------------------------------------------------------------
SUBJECTS = ["p:1", "p:2", " p:1 ", "P:1", "caf\u00e9", "cafe\u0301"]
PREDICATES = ["diagnosis", "has_condition", "Diagnosis"]
VALUES = ["", "diabetes", "healthy", "Healthy", "flu "]
TENANTS = ["", "acme", "globex"]

claims_st = st.builds(
    TemporalClaim,
    subject=st.sampled_from(SUBJECTS),
    predicate=st.sampled_from(PREDICATES),
    timestamp=st.sampled_from([0.0, 1.0, 2.0, 2.0, 3.5, -1.0, 1e9]),
    value=st.sampled_from(VALUES),
    polarity=st.booleans(),
    tenant_id=st.sampled_from(TENANTS),
    session_id=st.sampled_from(["", "mon", "tue"]),
    source_text=st.sampled_from(["", "secret text"]),
)
sequences = st.lists(claims_st, max_size=40)
functional_st = st.sampled_from([(), ("diagnosis",), ("diagnosis", "has_condition")])
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _pair_key(c: TemporalContradiction):
    return (c.kind, frozenset([c.earlier, c.later]) if c.earlier != c.later else (c.earlier,))


# ---- oracle self-check (known answers) ----------------------------------------------------------
def test_oracle_known_answer():
    o = OracleGraph(functional_predicates={"diagnosis"})
    assert o.record(TemporalClaim("p", "diagnosis", 1.0, "a")) == ()
    (c,) = o.record(TemporalClaim("p", "diagnosis", 0.5, "b"))
    assert (c.kind, c.earlier.value, c.later.value) == (FUNCTIONAL_VALUE, "b", "a")
    (c,) = o.record(TemporalClaim("p", "diagnosis", 2.0, "a", polarity=False))
    assert c.kind == POLARITY and c.earlier.timestamp == 1.0


# ---- differential properties --------------------------------------------------------------------
@SETTINGS
@given(seq=sequences, functional=functional_st, cs=st.booleans())
def test_record_matches_oracle_step_by_step(seq, functional, cs):
    g = TemporalConsistencyGraph(functional_predicates=functional, case_sensitive=cs)
    o = OracleGraph(functional, cs)
    for claim in seq:
        assert g.record(claim) == o.record(claim)
    assert g.contradictions() == o.contradictions()
    assert g.claim_count() == o.claim_count()
    for t in TENANTS:
        assert g.contradictions(tenant_id=t) == o.contradictions(t)
        assert g.claim_count(tenant_id=t) == o.claim_count(t)
        for s in SUBJECTS:
            for p in PREDICATES:
                assert g.history(s, p, tenant_id=t) == o.history(s, p, t)


@SETTINGS
@given(seq=sequences, functional=functional_st, data=st.data())
def test_contradiction_set_independent_of_insertion_order(seq, functional, data):
    perm = data.draw(st.permutations(seq))
    a = TemporalConsistencyGraph(functional_predicates=functional)
    b = TemporalConsistencyGraph(functional_predicates=functional)
    for c in seq:
        a.record(c)
    for c in perm:
        b.record(c)
    ca, cb = a.contradictions(), b.contradictions()
    assert Counter(map(_pair_key, ca)) == Counter(map(_pair_key, cb))
    for c in ca + cb:
        assert c.earlier.timestamp <= c.later.timestamp
        assert c.earlier.tenant_id == c.later.tenant_id  # never across tenants


@SETTINGS
@given(seq=sequences, functional=functional_st, victim=st.sampled_from(TENANTS))
def test_delete_tenant_removes_everything_of_that_tenant(seq, functional, victim):
    g = TemporalConsistencyGraph(functional_predicates=functional)
    o = OracleGraph(functional)
    for c in seq:
        g.record(c)
        o.record(c)
    assert g.delete_tenant(victim) == o.delete_tenant(victim)
    assert g.claim_count(tenant_id=victim) == 0
    assert g.contradictions(tenant_id=victim) == ()
    assert all(c.later.tenant_id != victim for c in g.contradictions())
    rep = g.report(tenant_id=victim)
    assert rep["subjects"] == [] and rep["claim_count"] == 0 and rep["consistent"]
    for s in SUBJECTS:
        for p in PREDICATES:
            assert g.history(s, p, tenant_id=victim) == ()
    assert g.contradictions() == o.contradictions()
    # Re-recording after a delete starts the tenant afresh.
    for c in seq:
        g.record(c)
    assert g.claim_count(tenant_id=victim) == sum(
        1 for i, c in enumerate(seq) if c.tenant_id == victim and c not in seq[:i]
    )


@SETTINGS
@given(seq=sequences, functional=functional_st, cs=st.booleans())
def test_record_batch_matches_sequential_records(seq, functional, cs):
    g = TemporalConsistencyGraph(functional_predicates=functional, case_sensitive=cs)
    o = OracleGraph(functional, cs)
    expected = [c for claim in seq for c in o.record(claim)]
    got = g.record_batch(
        [c.subject for c in seq],
        [c.predicate for c in seq],
        [c.value for c in seq],
        np.array([c.timestamp for c in seq], dtype=np.float64),
        np.array([c.polarity for c in seq], dtype=bool),
        tenant_ids=[c.tenant_id for c in seq],
        session_ids=[c.session_id for c in seq],
        document_ids=[c.document_id for c in seq],
        source_texts=[c.source_text for c in seq],
        claim_ids=[c.claim_id for c in seq],
    )
    assert list(got) == expected
    assert g.contradictions() == o.contradictions()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seq=sequences, functional=functional_st, cs=st.booleans())
def test_durable_graph_reopened_equals_in_memory(tmp_path_factory, seq, functional, cs):
    path = str(tmp_path_factory.mktemp("tlog") / "claims.log")
    mem = TemporalConsistencyGraph(functional_predicates=functional, case_sensitive=cs)
    with TemporalConsistencyGraph(functional_predicates=functional, case_sensitive=cs, path=path) as d:
        half = len(seq) // 2
        for c in seq[:half]:
            assert d.record(c) == mem.record(c)
        rest = seq[half:]
        if rest:
            d.record_batch(
                [c.subject for c in rest], [c.predicate for c in rest], [c.value for c in rest],
                np.array([c.timestamp for c in rest]), np.array([c.polarity for c in rest]),
                tenant_ids=[c.tenant_id for c in rest], session_ids=[c.session_id for c in rest],
                source_texts=[c.source_text for c in rest],
            )  # fmt: skip
            for c in rest:
                mem.record(c)
    with TemporalConsistencyGraph(functional_predicates=functional, case_sensitive=cs, path=path) as r:
        assert r.contradictions() == mem.contradictions()
        assert r.claim_count() == mem.claim_count()
        for t in TENANTS:
            assert r.report(tenant_id=t, include_text=True) == mem.report(tenant_id=t, include_text=True)
            for s in SUBJECTS:
                for p in PREDICATES:
                    assert r.history(s, p, tenant_id=t) == mem.history(s, p, tenant_id=t)
        assert r.stats()["replayed_claims"] == mem.claim_count()
        assert r.stats()["recovered_bytes"] == 0


@pytest.mark.parametrize("hot", [False, True])
def test_larger_workload_matches_oracle(hot):
    rng = np.random.default_rng(7)
    n = 3000
    g = TemporalConsistencyGraph(functional_predicates={"f"})
    o = OracleGraph({"f"})
    for i in range(n):
        subj = "s" if hot else f"s{rng.integers(0, 300)}"
        claim = TemporalClaim(
            subj,
            ["f", "g"][int(rng.integers(0, 2))],
            float(rng.integers(0, 50)),
            f"v{rng.integers(0, 20)}",
            polarity=bool(rng.random() < 0.8),
            tenant_id=["", "t1"][int(rng.integers(0, 2))],
        )
        assert g.record(claim) == o.record(claim)
    assert g.contradictions() == o.contradictions()

"""Seed 003 examples, semantics, validation and thread-safety of the temporal graph."""

from __future__ import annotations

import threading
from collections import Counter

import numpy as np
import pytest

from director_fast.types.config import DirectorConfig
from director_fast.memory.temporal import (
    TemporalClaim,
    TemporalConsistencyGraph,
    TemporalContradiction,
)
from director_fast.errors import ConfigError, InputTypeError, ValidationError
from director_fast.memory.production import ProductionGuard

MONDAY, TUESDAY = 1_700_000_000.0, 1_700_086_400.0


# ---- seed 003, word for word --------------------------------------------------------------------
def test_seed_quick_start_on_the_guard():
    guard = ProductionGuard(DirectorConfig())
    graph = guard.temporal_consistency  # persists across sessions on this guard
    assert guard.temporal_consistency is graph

    assert (
        graph.record(
            TemporalClaim(
                subject="patient:123", predicate="has_condition", value="diabetes",
                polarity=True, timestamp=MONDAY, session_id="mon",
            )
        )
        == ()
    )  # fmt: skip
    contradictions = graph.record(
        TemporalClaim(
            subject="patient:123", predicate="has_condition", value="diabetes",
            polarity=False, timestamp=TUESDAY, session_id="tue",
        )
    )  # fmt: skip
    assert len(contradictions) == 1
    assert contradictions[0].kind == "polarity"
    assert contradictions[0].earlier.session_id == "mon"
    assert contradictions[0].later.session_id == "tue"
    assert graph.contradictions() == contradictions  # retained


def test_seed_functional_predicate():
    graph = TemporalConsistencyGraph(functional_predicates={"diagnosis"})
    assert graph.record(TemporalClaim("patient:1", "diagnosis", value="diabetes", timestamp=1.0)) == ()
    flip = graph.record(TemporalClaim("patient:1", "diagnosis", value="healthy", timestamp=2.0))
    assert [c.kind for c in flip] == ["functional_value"]
    assert (flip[0].earlier.value, flip[0].later.value) == ("diabetes", "healthy")
    # Without the declaration the same two claims are compatible.
    plain = TemporalConsistencyGraph()
    plain.record(TemporalClaim("patient:1", "diagnosis", value="diabetes", timestamp=1.0))
    assert plain.record(TemporalClaim("patient:1", "diagnosis", value="healthy", timestamp=2.0)) == ()


def test_seed_querying_and_report():
    graph = TemporalConsistencyGraph()
    for ts, pol, sess in [(3.0, True, "c"), (1.0, True, "a"), (2.0, False, "b")]:
        graph.record(
            TemporalClaim(
                "patient:123", "has_condition", ts, "diabetes", polarity=pol, session_id=sess,
                tenant_id="acme", source_text=f"raw text {sess}",
            )
        )  # fmt: skip
    hist = graph.history("patient:123", "has_condition", tenant_id="acme")
    assert [c.session_id for c in hist] == ["a", "b", "c"]  # oldest first
    assert graph.history("patient:123", "has_condition") == ()  # default tenant is separate
    cons = graph.contradictions(tenant_id="acme")
    # b conflicts with c (recorded first); a conflicts with b.
    assert [(c.earlier.session_id, c.later.session_id) for c in cons] == [("b", "c"), ("a", "b")]
    assert graph.contradictions(tenant_id="") == ()
    rep = graph.report(tenant_id="acme")
    assert set(rep) == {"tenant_id", "subjects", "claim_count", "contradiction_count", "contradictions", "consistent"}
    assert rep["tenant_id"] == "acme"
    assert rep["subjects"] == ["patient:123"]
    assert rep["claim_count"] == 3
    assert rep["contradiction_count"] == 2
    assert rep["consistent"] is False
    assert "raw text" not in repr(rep) and "source_text" not in repr(rep)
    full = graph.report(tenant_id="acme", include_text=True)
    assert full["contradictions"][0]["earlier"]["source_text"] == "raw text b"
    assert graph.report()["consistent"] is True and graph.report()["claim_count"] == 0


# ---- semantics ----------------------------------------------------------------------------------
def test_late_arriving_older_claim_is_the_earlier_side():
    g = TemporalConsistencyGraph()
    g.record(TemporalClaim("p", "q", 10.0, "v", session_id="new"))
    (c,) = g.record(TemporalClaim("p", "q", 5.0, "v", polarity=False, session_id="old"))
    assert (c.earlier.session_id, c.later.session_id) == ("old", "new")


def test_timestamp_ties_are_broken_by_recording_order():
    g = TemporalConsistencyGraph()
    g.record(TemporalClaim("p", "q", 5.0, "v", session_id="first"))
    (c,) = g.record(TemporalClaim("p", "q", 5.0, "v", polarity=False, session_id="second"))
    assert (c.earlier.session_id, c.later.session_id) == ("first", "second")


def test_negation_never_conflicts_with_a_different_functional_value():
    g = TemporalConsistencyGraph(functional_predicates=["diagnosis"])
    g.record(TemporalClaim("p", "diagnosis", 1.0, "diabetes"))
    assert g.record(TemporalClaim("p", "diagnosis", 2.0, "healthy", polarity=False)) == ()
    # ... but an empty value never takes part in a functional conflict either
    assert g.record(TemporalClaim("p", "diagnosis", 3.0, "")) == ()
    got = g.record(TemporalClaim("p", "diagnosis", 4.0, "healthy"))
    assert [(c.kind, c.earlier.value, c.earlier.polarity) for c in got] == [
        ("functional_value", "diabetes", True),
        ("polarity", "healthy", False),
    ]
    kinds = Counter(x.kind for x in g.record(TemporalClaim("p", "diagnosis", 5.0, "flu")))
    assert kinds == {"functional_value": 2}


def test_identical_claim_is_idempotent():
    g = TemporalConsistencyGraph()
    a = TemporalClaim("p", "q", 1.0, "v")
    g.record(a)
    neg = TemporalClaim("p", "q", 2.0, "v", polarity=False)
    assert len(g.record(neg)) == 1
    assert g.record(a) == () and g.record(neg) == ()
    assert g.claim_count() == 2 and g.contradiction_count() == 1
    # same tuple and timestamp but another session is a distinct claim (provenance differs)
    assert len(g.record(TemporalClaim("p", "q", 1.0, "v", session_id="s2"))) == 1
    assert g.claim_count() == 3


def test_tenants_never_contradict_each_other():
    g = TemporalConsistencyGraph(functional_predicates={"d"})
    g.record(TemporalClaim("p", "d", 1.0, "x", tenant_id="acme"))
    assert g.record(TemporalClaim("p", "d", 2.0, "x", polarity=False, tenant_id="globex")) == ()
    assert g.record(TemporalClaim("p", "d", 2.0, "y", tenant_id="globex")) == ()
    assert g.record(TemporalClaim("p", "d", 2.0, "y")) == ()
    assert g.tenants() == ("", "acme", "globex")


def test_delete_tenant_is_complete_and_scoped():
    g = TemporalConsistencyGraph()
    for t in ("acme", "globex"):
        g.record(TemporalClaim("p", "q", 1.0, "v", tenant_id=t, source_text="secret"))
        g.record(TemporalClaim("p", "q", 2.0, "v", polarity=False, tenant_id=t))
    before = g.stats()["memory_bytes"]
    assert g.delete_tenant("acme") == 2
    assert g.delete_tenant("acme") == 0
    assert g.history("p", "q", tenant_id="acme") == ()
    assert g.contradictions(tenant_id="acme") == ()
    assert g.report(tenant_id="acme") == {
        "tenant_id": "acme", "subjects": [], "claim_count": 0, "contradiction_count": 0,
        "contradictions": [], "consistent": True,
    }  # fmt: skip
    assert g.claim_count() == 2 and len(g.contradictions()) == 1
    assert g.contradictions()[0].later.tenant_id == "globex"
    assert g.stats()["memory_bytes"] < before
    assert g.tenants() == ("globex",)


def test_normalisation_nfc_and_whitespace():
    g = TemporalConsistencyGraph()
    c = TemporalClaim("  cafe\u0301 ", "\thas\n", 1.0, " caf\u00e9")
    assert (c.subject, c.predicate, c.value) == ("caf\u00e9", "has", "caf\u00e9")
    g.record(c)
    (x,) = g.record(TemporalClaim("caf\u00e9", "has", 2.0, "cafe\u0301", polarity=False))
    assert x.kind == "polarity"
    assert len(g.history(" cafe\u0301", "has ")) == 2
    # case-sensitive by default
    assert g.record(TemporalClaim("CAF\u00c9", "has", 3.0, "caf\u00e9", polarity=False)) == ()


def test_case_insensitive_mode():
    g = TemporalConsistencyGraph(functional_predicates={"Diagnosis"}, case_sensitive=False)
    g.record(TemporalClaim("Patient:1", "diagnosis", 1.0, "Diabetes"))
    assert g.record(TemporalClaim("patient:1", "DIAGNOSIS", 2.0, "diabetes")) == ()
    got = g.record(TemporalClaim("PATIENT:1", "Diagnosis", 3.0, "DIABETES", polarity=False))
    assert [c.kind for c in got] == ["polarity", "polarity"]
    assert {c.subject for c in got} == {"PATIENT:1"}
    assert [c.earlier.subject for c in got] == ["Patient:1", "patient:1"]  # spelling kept
    assert [x.kind for x in g.record(TemporalClaim("patient:1", "diagnosis", 4.0, "Flu"))] == [
        "functional_value", "functional_value",
    ]  # fmt: skip
    assert g.subjects() == ("Patient:1",)


# ---- validation ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        (dict(subject=" ", predicate="q", timestamp=1.0), ValidationError, "subject"),
        (dict(subject="s", predicate="", timestamp=1.0), ValidationError, "predicate"),
        (dict(subject="s", predicate="q", timestamp=float("nan")), ValidationError, "timestamp"),
        (dict(subject="s", predicate="q", timestamp=float("inf")), ValidationError, "timestamp"),
        (dict(subject="s", predicate="q", timestamp=10**400), ValidationError, "timestamp"),
        (dict(subject="s", predicate="q", timestamp="1"), InputTypeError, "timestamp"),
        (dict(subject="s", predicate="q", timestamp=True), InputTypeError, "timestamp"),
        (dict(subject=1, predicate="q", timestamp=1.0), InputTypeError, "subject"),
        (dict(subject="s", predicate="q", timestamp=1.0, value=None), InputTypeError, "value"),
        (dict(subject="s", predicate="q", timestamp=1.0, polarity=1), InputTypeError, "polarity"),
        (dict(subject="s", predicate="q", timestamp=1.0, tenant_id="bad tenant"), ValidationError, "tenant_id"),
        (dict(subject="s", predicate="q", timestamp=1.0, tenant_id="_x"), ValidationError, "tenant_id"),
        (dict(subject="s", predicate="q", timestamp=1.0, tenant_id="a" * 129), ValidationError, "tenant_id"),
        (dict(subject="s", predicate="q", timestamp=1.0, session_id=3), InputTypeError, "session_id"),
    ],
)
def test_bad_claims_are_rejected_with_the_field_named(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        TemporalClaim(**kwargs)


def test_valid_edge_tenants_and_types():
    assert TemporalClaim("s", "q", 1, tenant_id="a" * 128).timestamp == 1.0
    assert TemporalClaim("s", "q", np.float32(2.5), polarity=np.bool_(False)).polarity is False
    assert TemporalClaim("s", "q", 1.0, tenant_id="A1_.:-z").tenant_id == "A1_.:-z"


def test_graph_argument_errors_change_nothing():
    g = TemporalConsistencyGraph()
    g.record(TemporalClaim("s", "q", 1.0, "v"))
    with pytest.raises(InputTypeError):
        g.record(("s", "q", 1.0))
    with pytest.raises(ValidationError, match="tenant_id"):
        g.history("s", "q", tenant_id="no spaces")
    with pytest.raises(InputTypeError):
        g.history(None, "q")
    with pytest.raises(ValidationError):
        g.delete_tenant("-bad")
    with pytest.raises(ConfigError) as e:
        TemporalConsistencyGraph(functional_predicates="diagnosis")
    assert e.value.field == "functional_predicates"
    with pytest.raises(ConfigError):
        TemporalConsistencyGraph(functional_predicates=[1])
    assert g.claim_count() == 1


# ---- record_batch -------------------------------------------------------------------------------
def test_record_batch_broadcast_and_errors_are_atomic():
    g = TemporalConsistencyGraph(functional_predicates={"d"})
    got = g.record_batch(
        ["p", "p", "p"], ["d", "d", "d"], ["x", "y", "x"], np.array([1.0, 2.0, 0.5]),
        np.array([True, True, False]), tenant_ids="acme", session_ids=["a", "b", "c"],
    )  # fmt: skip
    assert [(c.kind, c.earlier.session_id, c.later.session_id) for c in got] == [
        ("functional_value", "a", "b"), ("polarity", "c", "a"),
    ]  # fmt: skip
    assert g.claim_count(tenant_id="acme") == 3
    bad_cases = [
        (dict(timestamps=np.array([1.0, np.nan])), ValidationError, "row 1"),
        (dict(subjects=["p", " "]), ValidationError, "row 1: subject"),
        (dict(tenant_ids=["ok", "not ok"]), ValidationError, "row 1: tenant_id"),
        (dict(timestamps=[1.0, 2.0]), InputTypeError, "timestamps"),
        (dict(timestamps=np.array([1, 2])), InputTypeError, "float64"),
        (dict(timestamps=np.array([1.0, 2.0, 3.0])), ValidationError, "timestamps"),
        (dict(polarities=np.array([1, 0])), InputTypeError, "polarities"),
        (dict(values=["a"]), ValidationError, "values"),
        (dict(values=["a", 3]), InputTypeError, r"values\[1\]"),
        (dict(subjects="p"), InputTypeError, "subjects"),
    ]
    for override, exc, word in bad_cases:
        args = dict(
            subjects=["p", "p"], predicates=["d", "d"], values=["z", "w"],
            timestamps=np.array([5.0, 6.0]), polarities=None, tenant_ids="acme",
        )  # fmt: skip
        args.update(override)
        tenant_ids = args.pop("tenant_ids")
        with pytest.raises(exc, match=word):
            g.record_batch(**args, tenant_ids=tenant_ids)
    assert g.claim_count() == 3 and g.contradiction_count() == 2


def test_record_batch_normalises_non_ascii_and_padded_strings():
    g = TemporalConsistencyGraph()
    g.record_batch([" cafe\u0301", "caf\u00e9"], ["q ", "q"], ["v", "v"], np.array([1.0, 2.0]), np.array([True, False]))
    assert [c.subject for c in g.history("caf\u00e9", "q")] == ["caf\u00e9", "caf\u00e9"]
    assert g.contradiction_count() == 1


@pytest.mark.parametrize("cs", [True, False])
def test_long_record_batch_matches_per_claim_records(cs):
    # Long enough to run the batch's prefetch pipeline through table growth, new and repeated
    # subjects, runs of alternating tenants and duplicates; results must equal record() calls.
    rng = np.random.default_rng(11)
    n = 12_000
    subj = [f"Patient:{i}" for i in rng.integers(0, n // 8, size=n)]
    pred = [("has_condition", "takes_drug", "dose")[i] for i in rng.integers(0, 3, size=n)]
    val = [f"v{i}" for i in rng.integers(0, 6, size=n)]
    pol = rng.random(n) >= 0.2
    ts = rng.integers(0, 500, size=n).astype(np.float64)
    tenants = [("", "acme", "globex")[(i // 7) % 3] for i in range(n)]
    for i in rng.integers(1, n, size=300):  # exact duplicates of earlier rows
        j = int(rng.integers(0, i))
        subj[i], pred[i], val[i], pol[i], ts[i], tenants[i] = subj[j], pred[j], val[j], pol[j], ts[j], tenants[j]
    if not cs:
        subj = [s.upper() if k % 2 else s for k, s in enumerate(subj)]
    kw = dict(functional_predicates={"dose"}, case_sensitive=cs)
    a, b = TemporalConsistencyGraph(**kw), TemporalConsistencyGraph(**kw)
    got = a.record_batch(subj, pred, val, ts, pol, tenant_ids=tenants)
    want = []
    for i in range(n):
        want.extend(b.record(TemporalClaim(subj[i], pred[i], ts[i], val[i], polarity=bool(pol[i]), tenant_id=tenants[i])))
    assert len(got) > 300
    assert list(got) == want
    assert a.contradictions() == b.contradictions()
    assert a.claim_count() == b.claim_count() < n


def test_record_batch_lone_surrogate_is_a_validation_error_naming_the_row():
    g = TemporalConsistencyGraph()
    for kw in ({"subjects": ["a", "x\ud800"]}, {"values": ["v", "w\udfff"]}):
        args = dict(subjects=["a", "b"], predicates=["p", "p"], values=["v", "v"], timestamps=np.ones(2))
        args.update(kw)
        with pytest.raises(ValidationError, match=r"\[1\] holds a lone surrogate"):
            g.record_batch(**args)
    with pytest.raises(ValidationError, match="tenant_ids holds a lone surrogate"):
        g.record_batch(["a"], ["p"], "v", np.ones(1), tenant_ids="t\ud800")
    assert g.claim_count() == 0


def test_large_batch_spanning_tenants_does_not_pre_grow_the_first_tenant():
    # Row 0 is tenant "a", the rest "b": the batch's capacity estimate must not be spent on "a"
    # (it then holds tables sized for 20,000 subjects); the memory stays that of plain records.
    n = 20_000
    subj = [f"s{i}" for i in range(n)]
    tenants = ["a"] + ["b"] * (n - 1)
    mixed = TemporalConsistencyGraph()
    mixed.record_batch(subj, ["p"] * n, "v", np.arange(n, dtype=np.float64), tenant_ids=tenants)
    plain = TemporalConsistencyGraph()
    for i in range(n):
        plain.record(TemporalClaim(subj[i], "p", float(i), "v", tenant_id=tenants[i]))
    assert mixed.contradictions() == plain.contradictions()
    assert mixed.stats()["memory_bytes"] <= plain.stats()["memory_bytes"] * 1.05


def test_memory_per_claim_is_reported_and_bounded():
    g = TemporalConsistencyGraph()
    n = 20_000
    g.record_batch([f"patient:{i}" for i in range(n)], ["has_condition"] * n, [f"v{i % 50}" for i in range(n)], np.arange(n, dtype=np.float64))
    per_claim = g.stats()["memory_bytes"] / n
    assert 64 <= per_claim <= 400, per_claim


# ---- thread-safety ------------------------------------------------------------------------------
def test_concurrent_records_lose_nothing_and_report_each_contradiction_once():
    rng = np.random.default_rng(3)
    n_threads, per_thread = 4, 600
    work = [
        [
            TemporalClaim(
                f"s{rng.integers(0, 20)}", "d", float(rng.integers(0, 100)), f"v{rng.integers(0, 4)}",
                polarity=bool(rng.random() < 0.7), session_id=f"t{t}", claim_id=str(i),
            )
            for i in range(per_thread)
        ]
        for t in range(n_threads)
    ]  # fmt: skip
    g = TemporalConsistencyGraph(functional_predicates={"d"})
    returned: list[list[TemporalContradiction]] = [[] for _ in range(n_threads + 1)]
    barrier = threading.Barrier(n_threads + 1)

    def worker(t):
        barrier.wait()
        for c in work[t]:
            returned[t].extend(g.record(c))

    def batcher():
        claims = work[0][::3]  # duplicates of thread 0's claims: must be idempotent
        barrier.wait()
        for k in range(0, len(claims), 50):
            chunk = claims[k : k + 50]
            returned[n_threads].extend(
                g.record_batch(
                    [c.subject for c in chunk], [c.predicate for c in chunk], [c.value for c in chunk],
                    np.array([c.timestamp for c in chunk]), np.array([c.polarity for c in chunk]),
                    session_ids=[c.session_id for c in chunk], claim_ids=[c.claim_id for c in chunk],
                )
            )  # fmt: skip

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(n_threads)]
    threads.append(threading.Thread(target=batcher))
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    all_returned = [c for r in returned for c in r]
    assert g.claim_count() == n_threads * per_thread
    assert Counter(all_returned) == Counter(g.contradictions())
    # Same set as a single-threaded run in any order.
    ref = TemporalConsistencyGraph(functional_predicates={"d"})
    for w in work:
        for c in w:
            ref.record(c)

    def key(c):
        return (c.kind, frozenset([c.earlier, c.later]))

    assert Counter(map(key, g.contradictions())) == Counter(map(key, ref.contradictions()))

"""Tests of director_fast.verify.knowledge.KnowledgeBase."""

from __future__ import annotations

import threading

import pytest

from director_fast.types.results import EvidenceChunk
from director_fast.errors import ConfigError, InputTypeError
from director_fast.verify.evidence import HashingEmbedder
from director_fast.verify.knowledge import BM25, KnowledgeBase


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    kb = KnowledgeBase(dim=256)
    kb.add_facts([f"The capital of country_{i} is city_{i}." for i in range(200)], source="geo", tenant="a")
    kb.add_facts(["The capital of country_42 is Secretville."], source="secret", tenant="b")
    kb.add("Water boils at 100 degrees Celsius at sea level. Dr. Smith measured it in 1900. "
           "Ice melts at 0 degrees.", source="physics", tenant="b")
    return kb


@pytest.mark.parametrize("hybrid", [True, False])
@pytest.mark.parametrize("query", ["capital of country_42?", "Country_42's capital", "CAPITAL, COUNTRY_42!"])
def test_query_normalisation_finds_fact(query: str, hybrid: bool, kb: KnowledgeBase) -> None:
    if not hybrid and query != "capital of country_42?":
        pytest.skip("dense-only hashing is not robust to reordered queries at dim 256 (documented)")
    kb.hybrid = hybrid
    try:
        res = kb.retrieve(query, k=3, tenant="a")
    finally:
        kb.hybrid = True
    assert isinstance(res[0], EvidenceChunk)
    assert res[0].text == "The capital of country_42 is city_42." and res[0].source == "geo"
    assert [r.distance for r in res] == sorted(r.distance for r in res)
    assert all(r.distance >= 0 for r in res)


def test_tenant_isolation(kb: KnowledgeBase) -> None:
    a = kb.retrieve("capital of country_42", k=300, tenant="a")
    assert len(a) == 200 and all(r.source == "geo" for r in a)
    b = kb.retrieve("capital of country_42", k=10, tenant="b")
    assert b[0].text == "The capital of country_42 is Secretville."
    assert all(r.source in ("secret", "physics") for r in b)
    assert kb.retrieve("capital", k=3, tenant="zzz") == []
    everyone = kb.retrieve("Secretville", k=1, tenant=None)  # explicit opt-in: every tenant
    assert everyone[0].source == "secret"
    assert all(r.source not in ("secret", "geo") for r in kb.retrieve("Secretville", k=5))  # default: tenant ""


def test_add_chunks_documents_by_sentences(kb: KnowledgeBase) -> None:
    small = KnowledgeBase(dim=64, chunk_tokens=12)
    ids = small.add("Water boils at 100 degrees Celsius at sea level. Dr. Smith measured it. Ice melts at 0 degrees.")
    assert ids == [0, 1]  # 10 tokens | 6 + 6 tokens packed within the budget of 12
    assert small.chunk("Water boils at 100 degrees Celsius at sea level. Dr. Smith measured it.") == [
        "Water boils at 100 degrees Celsius at sea level.", "Dr. Smith measured it."]
    assert len(small) == 2
    res = small.retrieve("When does ice melt?", k=1)
    assert res[0].text == "Dr. Smith measured it. Ice melts at 0 degrees."


def test_edge_cases() -> None:
    kb = KnowledgeBase(embedder=HashingEmbedder(32))
    assert kb.retrieve("anything") == []
    assert kb.add("   ") == [] and kb.add_facts(["", " "]) == []
    kb.add_facts(["one fact"])
    assert len(kb.retrieve("fact", k=5)) == 1
    assert kb.retrieve("fact", k=0) == []
    with pytest.raises(InputTypeError):
        kb.retrieve(3)  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        kb.add_facts([1])  # type: ignore[list-item]
    with pytest.raises(ConfigError):
        kb.retrieve("x", k=-1)
    with pytest.raises(ConfigError):
        KnowledgeBase(embedder=object())


def test_bm25_known_scores() -> None:
    bm = BM25()
    bm.add(0, ["a", "b"])
    bm.add(1, ["b", "c", "c"])
    top = bm.top(["c"], 5)
    # idf(c) = ln(1 + (2 - 1 + .5)/(1 + .5)) = ln 2; tf=2, dl=3, avgdl=2.5
    import math
    expect = math.log(2) * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / 2.5))
    assert top == [(1, pytest.approx(expect))]
    assert bm.top(["zzz"], 3) == []


def test_concurrent_add_and_retrieve() -> None:
    kb = KnowledgeBase(dim=64)
    errors: list = []

    def writer(t: int) -> None:
        try:
            for i in range(30):
                kb.add_facts([f"tenant {t} fact {i} about item_{t}_{i}"], tenant=f"t{t}")
        except Exception as e:  # pragma: no cover
            errors.append(e)

    def reader() -> None:
        try:
            for _ in range(30):
                for r in kb.retrieve("fact about item_1_3", k=3, tenant="t1"):
                    assert r.text.startswith("tenant 1 ")
        except Exception as e:  # pragma: no cover
            errors.append(e)

    ts = [threading.Thread(target=writer, args=(t,)) for t in range(3)] + [threading.Thread(target=reader)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and len(kb) == 90
    assert kb.retrieve("item_1_3", k=1, tenant="t1")[0].text == "tenant 1 fact 3 about item_1_3"


def _bm25_reference(docs, query, k, k1=1.2, b=0.75):
    """Okapi BM25 written out term by term (the textbook formula) for the vectorised BM25."""
    import math
    from collections import Counter

    n = len(docs)
    avgdl = sum(len(d) for d in docs.values()) / n
    scores = {}
    for t, qtf in Counter(query).items():
        df_ = sum(1 for d in docs.values() if t in d)
        if not df_:
            continue
        idf = math.log(1.0 + (n - df_ + 0.5) / (df_ + 0.5))
        for i, d in docs.items():
            tf = d.count(t)
            if tf:
                scores[i] = scores.get(i, 0.0) + qtf * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl))
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.sampled_from("alpha beta gamma delta eps zeta eta theta".split())


@settings(max_examples=200, deadline=None)
@given(docs=st.lists(st.lists(_WORDS, min_size=1, max_size=8), min_size=1, max_size=30),
       query=st.lists(_WORDS, min_size=1, max_size=5), k=st.integers(1, 40))
def test_bm25_matches_the_textbook_formula(docs, query, k):
    from director_fast.verify.knowledge import BM25

    bm = BM25()
    for i, d in enumerate(docs):
        bm.add(i * 3, d)  # sparse ids
        if i % 4 == 0:
            bm.top(query, k)  # queried between adds: cached arrays must follow new postings
    got = bm.top(query, k)
    want = _bm25_reference({i * 3: d for i, d in enumerate(docs)}, query, k)
    assert [i for i, _ in got] == [i for i, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9)

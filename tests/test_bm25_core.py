"""The C++ BM25 index behind knowledge.BM25: identical ranking and scores to a plain Python
reference, its errors, and concurrent use."""

from __future__ import annotations

import math
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.errors import ConfigError, InputTypeError, ValidationError
from director_fast.verify.knowledge import BM25
from director_fast.verify.text import normalize_terms


class RefBM25:
    """Okapi BM25 written out loop by loop: the reference the C++ index must reproduce."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs: list[tuple[int, list[str]]] = []

    def add(self, doc_id: int, terms: list[str]) -> None:
        self.docs.append((doc_id, list(terms)))

    def top(self, query: list[str], k: int) -> list[tuple[int, float]]:
        n = len(self.docs)
        if n == 0 or k <= 0:
            return []
        total = sum(len(t) for _, t in self.docs)
        avgdl = total / n if total else 1.0
        qtf: dict[str, int] = {}
        for t in query:  # first-occurrence order, as the index sums them
            qtf[t] = qtf.get(t, 0) + 1
        scores = [0.0] * n
        for t, q in qtf.items():
            df = sum(1 for _, d in self.docs if t in d)
            if df == 0:
                continue
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            for i, (_, d) in enumerate(self.docs):
                tf = d.count(t)
                if tf:
                    scores[i] += q * idf * tf * (self.k1 + 1.0) / (tf + self.k1 * (1.0 - self.b + self.b * len(d) / avgdl))
        ranked = sorted((i for i in range(n) if scores[i] > 0.0),
                        key=lambda i: (-scores[i], self.docs[i][0], i))
        return [(self.docs[i][0], scores[i]) for i in ranked[:k]]


_TERMS = st.sampled_from(["a", "b", "c", "d", "e", "ünï", "数据", "x_1", "42", "e"])
_DOC = st.lists(_TERMS, min_size=0, max_size=10)
_OPS = st.lists(st.tuples(st.integers(-3, 40), _DOC, st.booleans()), min_size=1, max_size=40)


def _same(got, want):
    assert [d for d, _ in got] == [d for d, _ in want]
    for (_, s), (_, r) in zip(got, want):
        assert abs(s - r) <= 1e-9


@settings(max_examples=300, deadline=None)
@given(ops=_OPS, query=st.lists(_TERMS, min_size=0, max_size=6), k=st.integers(-1, 50),
       k1=st.sampled_from([0.0, 0.5, 1.2, 2.0]), b=st.sampled_from([0.0, 0.3, 0.75, 1.0]))
def test_matches_reference_on_random_corpora(ops, query, k, k1, b):
    bm, ref = BM25(k1, b), RefBM25(k1, b)
    for doc_id, terms, probe in ops:  # ids repeat and go negative; empty documents occur
        bm.add(doc_id, terms)
        ref.add(doc_id, terms)
        if probe:  # queried between adds: later adds must be visible
            _same(bm.top(query, k), ref.top(query, k))
    _same(bm.top(query, k), ref.top(query, k))
    assert len(bm) == len(ops)
    assert bm.total_len == sum(len(t) for _, t, _ in ops)
    assert bm.postings_size == sum(len(set(t)) for _, t, _ in ops)


@settings(max_examples=100, deadline=None)
@given(docs=st.lists(st.text(max_size=40), min_size=1, max_size=15), query=st.text(max_size=40),
       k=st.integers(0, 20))
def test_top_text_is_top_of_normalized_terms(docs, query, k):
    bm = BM25()
    for i, d in enumerate(docs):
        bm.add(i, normalize_terms(d))
    assert bm.top_text(query, k) == bm.top(normalize_terms(query), k)


def test_ties_by_doc_id_then_insertion_order():
    bm = BM25()
    for doc_id in (9, 3, 7, 3):
        bm.add(doc_id, ["same", "words"])
    got = bm.top(["same"], 3)
    assert [d for d, _ in got] == [3, 3, 7]
    assert len({s for _, s in got}) == 1


def test_errors_name_the_argument():
    bm = BM25()
    with pytest.raises(ConfigError) as e:
        BM25(k1=-0.1)
    assert e.value.field == "k1"
    with pytest.raises(ConfigError) as e:
        BM25(b=1.5)
    assert e.value.field == "b"
    with pytest.raises(ConfigError):
        BM25(k1=float("nan"))
    with pytest.raises(InputTypeError, match="terms"):
        bm.add(0, "a single string")
    with pytest.raises(InputTypeError, match=r"terms\[1\]"):
        bm.add(0, ["ok", 3])
    with pytest.raises(InputTypeError, match="doc_id"):
        bm.add("0", ["a"])
    with pytest.raises(InputTypeError, match="k"):
        bm.top(["a"], 1.5)
    with pytest.raises(ValidationError, match=r"terms\[0\]"):
        bm.add(1, ["\ud800"])
    with pytest.raises(InputTypeError, match="query"):
        bm.top_text(b"bytes", 3)
    assert len(bm) == 0  # nothing was added by the failed calls
    bm.add(0, iter(["a", "b"]))  # any iterable of str is accepted
    assert bm.top(("a",), 5) == bm.top(["a"], 5) != []


def test_concurrent_adds_and_queries():
    bm, ref = BM25(), RefBM25()
    docs = [[f"t{(i * j) % 13}" for j in range(1, 6)] for i in range(400)]
    errors: list[BaseException] = []

    def writer(lo: int) -> None:
        try:
            for i in range(lo, 400, 2):
                bm.add(i, docs[i])
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    def reader() -> None:
        try:
            for _ in range(300):
                for d, s in bm.top(["t3", "t7"], 10):
                    assert 0 <= d < 400 and s > 0
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    ts = [threading.Thread(target=writer, args=(0,)), threading.Thread(target=writer, args=(1,)),
          threading.Thread(target=reader), threading.Thread(target=reader)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    order = sorted(range(400))  # ranking does not depend on insertion order except equal ids
    for i in order:
        ref.add(i, docs[i])
    got = bm.top(["t3", "t7", "t3"], 25)
    want = ref.top(["t3", "t7", "t3"], 25)
    assert [d for d, _ in got] == [d for d, _ in want]
    assert all(abs(a - b) <= 1e-9 for (_, a), (_, b) in zip(got, want))


def _fused_reference(kb, query, k, tenant):
    """KnowledgeBase's hybrid ranking recomputed from public parts: EvidenceIndex.search (with
    metadata) and the Python reference BM25 over the tenant's chunks."""
    import numpy as np

    depth = max(kb.candidates, k)
    qv = np.ascontiguousarray(kb.embedder.embed_batch([query]), dtype=np.float32)
    hits = kb.index.search(qv, depth, tenant=tenant)[0]
    ref = RefBM25()
    for i in kb.index.ids(tenant):
        ref.add(i, normalize_terms(kb._texts[i]))
    fused: dict[int, float] = {}
    for rank, h in enumerate(hits, 1):
        fused[h.id] = fused.get(h.id, 0.0) + kb.dense_weight / (kb.rrf_k + rank)
    for rank, (d, _s) in enumerate(ref.top(normalize_terms(query), depth), 1):
        fused[d] = fused.get(d, 0.0) + 1.0 / (kb.rrf_k + rank)
    fmax = (1.0 + kb.dense_weight) / (kb.rrf_k + 1)
    best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return [(d, kb._texts[d], max(0.0, 1.0 - s / fmax)) for d, s in best]


def test_knowledge_base_ranking_is_unchanged():
    from director_fast import KnowledgeBase

    kb = KnowledgeBase(dim=64, candidates=20)
    for t in ("", "acme"):
        kb.add_facts([f"Product {i} of {t or 'main'} costs {i * 3} euros and weighs {i % 7} kg." for i in range(60)],
                     tenant=t)
    for q in ("What does product 12 cost?", "weighs 3 kg", "euros", "nothing matches zzz", "Product 5 acme"):
        for tenant in ("", "acme", None):
            got = [(d, c.text, c.distance) for d, c in kb.retrieve_with_ids(q, 7, tenant)]
            want = _fused_reference(kb, q, 7, tenant) if tenant is not None else None
            if want is not None:
                assert [g[:2] for g in got] == [w[:2] for w in want]
                assert all(abs(g[2] - w[2]) <= 1e-12 for g, w in zip(got, want))
            else:
                assert len(got) == 7


def test_evidence_search_ids_matches_search():
    import numpy as np

    from director_fast.verify.evidence import EvidenceIndex

    rng = np.random.default_rng(0)
    idx = EvidenceIndex(16)
    vecs = rng.standard_normal((50, 16)).astype(np.float32)
    idx.add(vecs, [i if i % 3 else f"s{i}" for i in range(50)], texts=[f"t{i}" for i in range(50)],
            tenants=["a" if i % 2 else "b" for i in range(50)])
    q = rng.standard_normal((3, 16)).astype(np.float32)
    for tenant in (None, "a", "zzz"):
        for k in (0, 5, 80):
            ids, dists = idx.search_ids(q, k, tenant=tenant)
            hits = idx.search(q, k, tenant=tenant)
            assert ids == [[h.id for h in row] for row in hits]
            for i, row in enumerate(hits):
                assert dists[i, :len(row)].tolist() == [h.distance for h in row]
    with pytest.raises(InputTypeError):
        idx.search_ids(q.astype(np.float64), 3)
    with pytest.raises(ConfigError):
        idx.search_ids(q, -1)


@settings(max_examples=150, deadline=None)
@given(ops=_OPS, query=st.lists(_TERMS, min_size=0, max_size=6),
       dense=st.lists(st.integers(-3, 45), max_size=20), depth=st.integers(0, 30), k=st.integers(0, 30),
       weight=st.sampled_from([0.0, 0.5, 1.0, 2.5]), rrf_k=st.sampled_from([0, 1, 60]))
def test_fusion_matches_reference(ops, query, dense, depth, k, weight, rrf_k):
    bm, ref = BM25(), RefBM25()
    for doc_id, terms, _ in ops:
        bm.add(doc_id, terms)
        ref.add(doc_id, terms)
    fused: dict[int, float] = {}
    for rank, d in enumerate(dense, 1):
        fused[d] = fused.get(d, 0.0) + weight / (rrf_k + rank)
    for rank, (d, _s) in enumerate(ref.top(query, depth), 1):
        fused[d] = fused.get(d, 0.0) + 1.0 / (rrf_k + rank)
    want = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    _same(bm.fuse_top_text(dense, weight, rrf_k, " ".join(query), depth, k), want)


def test_fusion_errors():
    bm = BM25()
    with pytest.raises(InputTypeError, match=r"dense_ids\[1\]"):
        bm.fuse_top_text([1, "2"], 0.5, 60, "q", 5, 3)
    with pytest.raises(InputTypeError, match="query"):
        bm.fuse_top_text([1], 0.5, 60, None, 5, 3)
    assert bm.fuse_top_text((4, 2, 4), 1.0, 0, "nothing", 5, 2) == [(4, 1.0 + 1.0 / 3), (2, 0.5)]


def test_docs_example_runs():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "evidence.md").read_text(encoding="utf-8")
    section = text[text.index("## BM25 index"):]
    block = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    exec(compile(block, "evidence.md[BM25]", "exec"), {"__name__": "__docs__"})

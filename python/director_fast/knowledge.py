"""KnowledgeBase: chunk documents, embed them, index them, retrieve evidence.

Retrieval fuses two rankings with weighted reciprocal rank fusion (RRF, Cormack, Clarke & Büttcher
2009: ``score(d) = sum_r w_r / (rrf_k + rank_r(d))``, ranks from 1; BM25 weight 1, dense
``dense_weight``):

* dense: the embedder's vectors in an :class:`~director_fast.evidence.EvidenceIndex` (cosine);
* lexical: Okapi BM25 (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25
  and Beyond"; ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, ``k1`` = 1.2, ``b`` = 0.75) over
  :func:`~director_fast.text.normalize_terms` (lower-cased, punctuation-free, possessive "'s"
  dropped), so "capital of country_42?" matches "The capital of Country_42's ...".

Both rankings are computed inside the query's tenant only (BM25 statistics are per tenant, so one
tenant's documents never influence another's scores).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from director_fast.citation_status import SourceStatusFeed
from director_fast.core.types import EvidenceChunk
from director_fast.core.verification_types import CitationStatusVerdict
from director_fast.errors import ConfigError, InputTypeError
from director_fast.evidence import EvidenceIndex, HashingEmbedder
from director_fast.text import chunk_by_tokens, normalize_terms, word_offsets

__all__ = ["KnowledgeBase", "BM25"]


class BM25:
    """Incremental Okapi BM25 over pre-tokenised documents (ids are ints).

    Documents get dense local indices in insertion order. Each term's postings are kept as a
    dict (cheap to extend) and, once queried, as numpy arrays (local indices, term frequencies,
    document lengths) rebuilt only after that term gains a document; a query accumulates the
    per-term contributions with one ``bincount`` over the local indices, so its cost is the
    postings of its terms plus one pass over the documents, with no Python loop per posting.

    Thread-safety: not thread-safe; :class:`KnowledgeBase` guards it with its lock.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = float(k1)
        self.b = float(b)
        self.postings: dict[str, dict[int, int]] = {}  # term -> {local index: tf}
        self.lengths: list[int] = []  # by local index
        self.doc_ids: list[int] = []  # local index -> doc id
        self.total_len = 0
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self.lengths)

    def add(self, doc_id: int, terms: Sequence[str]) -> None:
        local = len(self.doc_ids)
        self.doc_ids.append(int(doc_id))
        self.lengths.append(len(terms))
        self.total_len += len(terms)
        for t, c in Counter(terms).items():
            self.postings.setdefault(t, {})[local] = c
            self._arrays.pop(t, None)

    def _term_arrays(self, term: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        arr = self._arrays.get(term)
        if arr is None:
            post = self.postings.get(term)
            if not post:
                return None
            idx = np.fromiter(post.keys(), dtype=np.int64, count=len(post))
            tf = np.fromiter(post.values(), dtype=np.float64, count=len(post))
            dl = np.fromiter((self.lengths[i] for i in post), dtype=np.float64, count=len(post))
            arr = self._arrays[term] = (idx, tf, dl)
        return arr

    def top(self, terms: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The ``k`` best ``(doc_id, score)`` for the query terms, best first (score > 0; ties
        by doc id)."""
        n = len(self.lengths)
        if n == 0 or k <= 0:
            return []
        avgdl = self.total_len / n if self.total_len else 1.0
        k1, b = self.k1, self.b
        scores = np.zeros(n, dtype=np.float64)
        hit = False
        for t, qtf in Counter(terms).items():
            arr = self._term_arrays(t)
            if arr is None:
                continue
            idx, tf, dl = arr
            df = len(idx)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            scores += np.bincount(idx, weights=qtf * idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl)),
                                  minlength=n)
            hit = True
        if not hit:
            return []
        cand = np.nonzero(scores > 0.0)[0]
        if len(cand) > k:
            cut = np.partition(scores[cand], len(cand) - k)[len(cand) - k]
            cand = cand[scores[cand] >= cut]  # every doc tied with the k-th, for id tie-breaks
        ids = np.asarray(self.doc_ids, dtype=np.int64)[cand] if len(cand) else cand
        order = np.lexsort((ids, -scores[cand]))[:k]  # score desc, then doc id asc
        return [(int(ids[i]), float(scores[cand[i]])) for i in order]


class KnowledgeBase:
    """Documents and facts, chunked, embedded and indexed, retrieved as ``EvidenceChunk``.

    Args:
        embedder: an object with ``dim`` and ``embed_batch(list[str]) -> float32 (n, dim)``
            (e.g. :class:`~director_fast.evidence.HashingEmbedder`,
            :class:`~director_fast.evidence.OnnxEmbedder`); default ``HashingEmbedder(dim)``.
        dim: dimension of the default embedder.
        chunk_tokens: token budget of a chunk made by :meth:`add` (word tokens,
            :func:`~director_fast.text.word_offsets`); whole sentences are packed up to it and a
            longer sentence is split at word boundaries (never dropped).
        overlap_tokens: whole trailing sentences (at most this many tokens) repeated at the start
            of the next chunk.
        hybrid: fuse BM25 with the dense ranking (RRF); False = dense only.
        rrf_k: the RRF constant (60 in Cormack et al.).
        dense_weight: weight of the dense ranking in the fusion (BM25 has weight 1); 0.5 by
            measurement (bench/RESULTS.md, "evidence"): on the shared data's lexical proxy BM25
            alone ranks best, equal weights lose ~2-3 points, 0.5 about 1 point, while the dense
            side adds matching across word forms ("melt" / "melts") that BM25 misses.
        candidates: depth of each ranking fed to the fusion (>= k).
        space, M, ef_construction, ef_search: of the underlying :class:`EvidenceIndex`.
        clock: the status feed's clock, a callable returning an aware ``datetime`` (default:
            the system clock, UTC); see :meth:`set_source_status`.

    ``retrieve`` returns ``EvidenceChunk(text, distance, source)``: with ``hybrid`` the distance
    is ``1 - fused / fused_max`` in [0, 1) (``fused_max = (1 + dense_weight) / (rrf_k + 1)``, a
    chunk ranked first by both), so lower is more relevant and the list is sorted by it; without, it is the cosine
    distance ``1 - cos`` clipped to [0, 2].

    :attr:`version` counts mutations (every :meth:`add` / :meth:`add_facts` that indexed
    something bumps it), so caches of derived verdicts can be keyed on it.

    Thread-safety: all methods may be called from several threads; writers are serialised and
    readers see each ``add`` completely or not at all.
    """

    def __init__(self, embedder: Any = None, dim: int = 384, *, chunk_tokens: int = 96,
                 overlap_tokens: int = 0, hybrid: bool = True, rrf_k: int = 60, candidates: int = 50,
                 dense_weight: float = 0.5,
                 space: str = "cosine", M: int = 16, ef_construction: int = 200, ef_search: int = 64,
                 bm25_k1: float = 1.2, bm25_b: float = 0.75, clock: Any = None) -> None:
        self.embedder = embedder if embedder is not None else HashingEmbedder(dim)
        if not hasattr(self.embedder, "embed_batch"):
            raise ConfigError("embedder must have embed_batch(list[str]) and dim", field="embedder")
        if chunk_tokens < 1:
            raise ConfigError("chunk_tokens must be >= 1", field="chunk_tokens")
        if rrf_k < 0:
            raise ConfigError("rrf_k must be >= 0", field="rrf_k")
        self.chunk_tokens = int(chunk_tokens)
        self.overlap_tokens = int(overlap_tokens)
        self.hybrid = bool(hybrid)
        self.rrf_k = int(rrf_k)
        self.dense_weight = float(dense_weight)
        self.candidates = int(candidates)
        self._bm25_params = (bm25_k1, bm25_b)
        self.index = EvidenceIndex(int(self.embedder.dim), space, M, ef_construction, ef_search)
        self._texts: dict[int, str] = {}
        self._sources: dict[int, str] = {}
        self._bm25: dict[str | None, BM25] = {None: BM25(bm25_k1, bm25_b)}
        self._next_id = 0
        self._version = 0
        self._tenant_sizes: Counter[str] = Counter()
        self._lock = threading.RLock()
        #: the citation status feed (:mod:`director_fast.citation_status`) the scorer applies
        self.status_feed = SourceStatusFeed(clock)

    def __len__(self) -> int:
        return len(self.index)

    @property
    def version(self) -> int:
        """Mutation counter (>= 0): bumped by every write that indexed at least one chunk."""
        return self._version

    def tenants(self) -> list[str]:
        """The tenants that hold at least one chunk, sorted."""
        with self._lock:
            return sorted(t for t, n in self._tenant_sizes.items() if n)

    def has_tenant(self, tenant: str) -> bool:
        """True when ``tenant`` holds at least one chunk (tenant ids are compared exactly:
        ``"Acme"`` is not ``"acme"``). Raises InputTypeError for a non-str."""
        if not isinstance(tenant, str):
            raise InputTypeError(f"tenant must be a str, got {type(tenant).__name__}")
        with self._lock:
            return self._tenant_sizes.get(tenant, 0) > 0

    # ---- writing ----
    def chunk(self, text: str) -> list[str]:
        """The chunks :meth:`add` would index for ``text`` (whitespace-only chunks skipped)."""
        if not isinstance(text, str):
            raise InputTypeError(f"text must be a str, got {type(text).__name__}")
        chunks = chunk_by_tokens(text, word_offsets(text), self.chunk_tokens, overlap=self.overlap_tokens)
        return [c.text for c in chunks if c.text.strip()]

    def add(self, text: str, source: str = "", tenant: str = "") -> list[int]:
        """Chunk ``text`` by sentences within ``chunk_tokens``, embed and index the chunks.
        Returns the new chunk ids (ints, increasing). Raises InputTypeError for a non-str."""
        return self._add_chunks(self.chunk(text), source, tenant)

    def add_facts(self, facts: Iterable[str], source: str = "", tenant: str = "") -> list[int]:
        """Index each fact as one chunk (a fact over the token budget is chunked like a document).

        Raises:
            InputTypeError: ``facts`` is a single ``str`` (pass a list of facts) or holds a non-str.
        """
        if isinstance(facts, (str, bytes)):
            raise InputTypeError("facts must be an iterable of str, not a single str (wrap it in a list)")
        chunks: list[str] = []
        for i, f in enumerate(facts):
            if not isinstance(f, str):
                raise InputTypeError(f"facts[{i}] must be a str, got {type(f).__name__}")
            if not f.strip():
                continue
            if len(word_offsets(f)) <= self.chunk_tokens:
                chunks.append(f.strip())
            else:
                chunks.extend(self.chunk(f))
        return self._add_chunks(chunks, source, tenant)

    def _add_chunks(self, chunks: list[str], source: str, tenant: str) -> list[int]:
        if not isinstance(source, str) or not isinstance(tenant, str):
            raise InputTypeError("source and tenant must be str")
        if not chunks:
            return []
        vecs = np.ascontiguousarray(self.embedder.embed_batch(chunks), dtype=np.float32)
        terms = [normalize_terms(c) for c in chunks]
        with self._lock:
            ids = list(range(self._next_id, self._next_id + len(chunks)))
            self.index.add(vecs, ids, texts=chunks, sources=[source] * len(chunks), tenant=tenant)
            self._next_id += len(chunks)
            per = self._bm25.setdefault(tenant, BM25(*self._bm25_params))
            for i, c, t in zip(ids, chunks, terms):
                self._texts[i] = c
                self._sources[i] = source
                self._bm25[None].add(i, t)
                per.add(i, t)
            self._tenant_sizes[tenant] += len(ids)
            self._version += 1
        return ids

    # ---- citation status ----
    def set_source_status(self, source: str, status: str, *, as_of: Any, tenant: str = "",
                          status_source: str = "", reason: str = "") -> CitationStatusVerdict:
        """Record an external status for the documents added with source label ``source`` in
        ``tenant``, in effect from ``as_of`` (an aware ``datetime`` or an ISO-8601 string with an
        offset; it may lie in the future). Statuses and their effect on the scorer:

        * ``current``: none (sets a source back after an earlier status);
        * ``superseded`` / ``expired``: its sentences still support claims, but such a claim is
          approved with a warning (it scores in [threshold, soft_limit));
        * ``retracted``: its sentences are not evidence at all; a claim only they supported is
          ``not_found``.

        The scorer reports each retrieved source with a status in effect in
        ``ScoringEvidence.citation_status``. The status in effect at time ``t`` (the feed's
        ``clock``) is the one with the latest ``as_of <= t``.

        Returns:
            The :class:`~director_fast.core.verification_types.CitationStatusVerdict` of the record.

        Raises:
            InputTypeError: a non-``str`` argument (``as_of``: not a datetime or str).
            ValidationError: an unknown status, an empty source, an ``as_of`` without an offset.
        """
        return self.status_feed.set(source, status, as_of=as_of, tenant=tenant,
                                    status_source=status_source, reason=reason)

    def source_status(self, source: str, *, tenant: str = "") -> CitationStatusVerdict | None:
        """The status verdict of ``source`` in ``tenant`` in effect now (None: current, no record)."""
        return self.status_feed.verdict(source, tenant=tenant)

    # ---- reading ----
    def retrieve(self, query: str, k: int = 3, tenant: str | None = "") -> list[EvidenceChunk]:
        """The ``k`` most relevant chunks for ``query`` within ``tenant`` (default ``""``, the
        tenant that :meth:`add` uses by default, so a call without a tenant never returns a named
        tenant's chunks); ``tenant=None`` searches every tenant (an explicit opt-in, e.g. for an
        operator's tool). Fewer come back when fewer exist. Raises InputTypeError for a non-str
        query, ConfigError for k < 0."""
        return [chunk for _id, chunk in self.retrieve_with_ids(query, k, tenant)]

    def retrieve_with_ids(self, query: str, k: int = 3,
                          tenant: str | None = "") -> list[tuple[int, EvidenceChunk]]:
        """:meth:`retrieve` with each chunk's id (the int :meth:`add` returned): ``[(id, chunk)]``,
        most relevant first. The ids are what the scorer puts in audit references
        (``kb:<id>``), never the chunk's source label or text."""
        if not isinstance(query, str):
            raise InputTypeError(f"query must be a str, got {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ConfigError(f"k must be a non-negative int, got {k!r}", field="k")
        if k == 0:
            return []
        depth = max(self.candidates, k)
        qv = np.ascontiguousarray(self.embedder.embed_batch([query]), dtype=np.float32)
        with self._lock:
            hits = self.index.search(qv, depth if self.hybrid else k, tenant=tenant)[0]
            if not self.hybrid:
                return [(int(h.id), EvidenceChunk(h.text, float(min(max(h.distance, 0.0), 2.0)), h.source))
                        for h in hits]
            bm = self._bm25.get(tenant)
            lex = bm.top(normalize_terms(query), depth) if bm is not None else []
            fused: dict[int, float] = {}
            for rank, h in enumerate(hits, 1):
                fused[int(h.id)] = fused.get(int(h.id), 0.0) + self.dense_weight / (self.rrf_k + rank)
            for rank, (d, _s) in enumerate(lex, 1):
                fused[d] = fused.get(d, 0.0) + 1.0 / (self.rrf_k + rank)
            best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
            fmax = (1.0 + self.dense_weight) / (self.rrf_k + 1)
            return [(d, EvidenceChunk(self._texts[d], float(max(0.0, 1.0 - s / fmax)), self._sources[d]))
                    for d, s in best]

"""KnowledgeBase: chunk documents, embed them, index them, retrieve evidence.

Retrieval fuses two rankings with weighted reciprocal rank fusion (RRF, Cormack, Clarke & Büttcher
2009: ``score(d) = sum_r w_r / (rrf_k + rank_r(d))``, ranks from 1; BM25 weight 1, dense
``dense_weight``):

* dense: the embedder's vectors in an :class:`~director_fast.verify.evidence.EvidenceIndex` (cosine);
* lexical: Okapi BM25 (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25
  and Beyond"; ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, ``k1`` = 1.2, ``b`` = 0.75) over
  :func:`~director_fast.verify.text.normalize_terms` (lower-cased, punctuation-free, possessive "'s"
  dropped), so "capital of country_42?" matches "The capital of Country_42's ...".

Both rankings are computed inside the query's tenant only (BM25 statistics are per tenant, so one
tenant's documents never influence another's scores).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from director_fast import _core
from director_fast.verify.citation_status import SourceStatusFeed
from director_fast.types.results import EvidenceChunk
from director_fast.types.verification import CitationStatusVerdict
from director_fast.errors import ConfigError, InputTypeError
from director_fast.verify.evidence import EvidenceIndex, HashingEmbedder
from director_fast.verify.text import chunk_by_tokens, normalize_terms, word_offsets

__all__ = ["KnowledgeBase", "BM25"]


class BM25:
    """Incremental Okapi BM25 over pre-tokenised documents (ids are ints), in the C++ core.

    ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``; a document's score is the sum over the
    distinct query terms (each weighted by its count in the query, ``qtf``) of
    ``qtf * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))`` (``dl``: the document's
    length in terms, ``avgdl``: the mean length). Terms are interned to integer ids and each
    term's postings are one compact array of (document, term frequency), about 8 bytes per
    posting; a query reads only its terms' postings, so its cost does not grow with documents
    that share none of its terms.

    Args:
        k1: term-frequency saturation, finite and >= 0.
        b: length normalisation, in [0, 1].

    Raises:
        ConfigError: ``k1`` or ``b`` out of range (the error's ``field`` names it).

    Thread-safety: safe to share between threads (``add`` is exclusive, ``top`` calls run
    concurrently, both release the GIL); :class:`KnowledgeBase` also guards its indexes with its
    own lock so that a retrieval sees each of its writes completely or not at all.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self._idx = _core.Bm25Index(float(k1), float(b))

    @property
    def k1(self) -> float:
        return self._idx.k1

    @property
    def b(self) -> float:
        return self._idx.b

    @property
    def total_len(self) -> int:
        """Sum of the documents' lengths, in terms."""
        return self._idx.total_length

    @property
    def vocabulary_size(self) -> int:
        """Number of distinct terms indexed."""
        return self._idx.vocabulary_size

    @property
    def postings_size(self) -> int:
        """Number of (term, document) postings (memory is about 8 bytes each)."""
        return self._idx.postings_size

    def __len__(self) -> int:
        """Number of documents added (an id added twice counts as two documents)."""
        return len(self._idx)

    def add(self, doc_id: int, terms: Sequence[str]) -> None:
        """Append a document: ``doc_id`` an int in the int64 range, ``terms`` a list or tuple of
        str (repeats counted as term frequency). Raises InputTypeError for other types."""
        if not isinstance(terms, (list, tuple)) and not isinstance(terms, str):
            terms = list(terms)
        self._idx.add(doc_id, terms)

    def top(self, terms: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The ``k`` best ``(doc_id, score)`` for the query terms, best first (score > 0; ties
        by doc id, then by insertion order). Empty for ``k <= 0``, an empty index or no known
        term. Raises InputTypeError when ``terms`` is not a sequence of str or ``k`` not an int."""
        if not isinstance(terms, (list, tuple)) and not isinstance(terms, str):
            terms = list(terms)
        return self._idx.top(terms, k)

    def top_text(self, query: str, k: int) -> list[tuple[int, float]]:
        """``top(normalize_terms(query), k)`` in one call (the terms never become Python
        objects). Raises InputTypeError for a non-str ``query``."""
        return self._idx.top_text(query, k)

    def fuse_top_text(self, dense_ids: Sequence[int], dense_weight: float, rrf_k: float, query: str,
                      depth: int, k: int) -> list[tuple[int, float]]:
        """Weighted reciprocal rank fusion (Cormack, Clarke & Büttcher 2009) of a dense ranking
        ``dense_ids`` (best first) with :meth:`top_text` ``(query, depth)``:
        ``fused(d) = dense_weight / (rrf_k + rank_dense(d)) + 1 / (rrf_k + rank_bm25(d))`` (ranks
        from 1; a missing ranking adds nothing). Returns the ``k`` best ``(doc_id, fused)``,
        fused descending, ties by doc id. Raises InputTypeError when ``dense_ids`` is not a list
        or tuple of int or ``query`` is not a str."""
        if not isinstance(dense_ids, (list, tuple)):
            dense_ids = list(dense_ids)
        return self._idx.fuse_top_text(dense_ids, float(dense_weight), float(rrf_k), query, depth, k)


class KnowledgeBase:
    """Documents and facts, chunked, embedded and indexed, retrieved as ``EvidenceChunk``.

    Args:
        embedder: an object with ``dim`` and ``embed_batch(list[str]) -> float32 (n, dim)``
            (e.g. :class:`~director_fast.verify.evidence.HashingEmbedder`,
            :class:`~director_fast.verify.evidence.OnnxEmbedder`); default ``HashingEmbedder(dim)``.
        dim: dimension of the default embedder.
        chunk_tokens: token budget of a chunk made by :meth:`add` (word tokens,
            :func:`~director_fast.verify.text.word_offsets`); whole sentences are packed up to it and a
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
        self._no_bm25 = BM25(bm25_k1, bm25_b)  # stays empty: a tenant without documents
        self._next_id = 0
        self._version = 0
        self._tenant_sizes: Counter[str] = Counter()
        self._lock = threading.RLock()
        #: the citation status feed (:mod:`director_fast.verify.citation_status`) the scorer applies
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
            raise InputTypeError(f"tenant must be a str, got {type(tenant).__name__}", "tenant")
        with self._lock:
            return self._tenant_sizes.get(tenant, 0) > 0

    # ---- writing ----
    def chunk(self, text: str) -> list[str]:
        """The chunks :meth:`add` would index for ``text`` (whitespace-only chunks skipped)."""
        if not isinstance(text, str):
            raise InputTypeError(f"text must be a str, got {type(text).__name__}", "text")
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
            raise InputTypeError("facts must be an iterable of str, not a single str (wrap it in a list)", "facts")
        chunks: list[str] = []
        for i, f in enumerate(facts):
            if not isinstance(f, str):
                raise InputTypeError(f"facts[{i}] must be a str, got {type(f).__name__}", f"facts[{i}]")
            if not f.strip():
                continue
            if len(word_offsets(f)) <= self.chunk_tokens:
                chunks.append(f.strip())
            else:
                chunks.extend(self.chunk(f))
        return self._add_chunks(chunks, source, tenant)

    def _add_chunks(self, chunks: list[str], source: str, tenant: str) -> list[int]:
        for name, value in (("source", source), ("tenant", tenant)):
            if not isinstance(value, str):
                raise InputTypeError(f"{name} must be a str, got {type(value).__name__}", name)
        if not chunks:
            return []
        # str subclasses (numpy.str_) are stored as the equal plain str
        source, tenant = str.__str__(source), str.__str__(tenant)
        chunks = [str.__str__(c) for c in chunks]
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
            The :class:`~director_fast.types.verification.CitationStatusVerdict` of the record.

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
            # ids and distances only: the chunk texts and sources are this object's own maps
            rows, dists = self.index.search_ids(qv, depth if self.hybrid else k, tenant=tenant)
            hits = rows[0]
            if not self.hybrid:
                drow = dists[0].tolist()
                return [(d, EvidenceChunk(self._texts[d], min(max(drow[j], 0.0), 2.0), self._sources[d]))
                        for j, d in enumerate(hits)]
            # BM25 ranking and the fusion in one C++ call (an unknown tenant: an empty index)
            bm = self._bm25.get(tenant, self._no_bm25)
            best = bm.fuse_top_text(hits, self.dense_weight, self.rrf_k, query, depth, k)
            fmax = (1.0 + self.dense_weight) / (self.rrf_k + 1)
            return [(d, EvidenceChunk(self._texts[d], float(max(0.0, 1.0 - s / fmax)), self._sources[d]))
                    for d, s in best]

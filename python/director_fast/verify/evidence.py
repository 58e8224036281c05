"""Evidence index and embedders.

* :class:`EvidenceIndex` — an HNSW index (hnswlib's C++ library, Malkov & Yashunin 2018,
  arXiv:1603.09320) with metadata (id -> text, source, tenant), upsert and delete, tenant-filtered
  batched k-NN, exact search, automatic growth and versioned, checksummed, atomic persistence.
* :class:`HashingEmbedder` — the built-in deterministic embedder (no model): word unigrams,
  word bigrams and character 3-5-grams, signed feature hashing (Weinberger et al. 2009),
  L2-normalised.
* :class:`OnnxEmbedder` — a sentence-embedding model exported to ONNX with its
  ``tokenizer.json``: mean pooling over the attention mask, L2-normalised.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from director_fast import _core
from director_fast._validate import check_text
from director_fast.errors import ConfigError, InputTypeError, StorageError

__all__ = ["EvidenceIndex", "EvidenceHit", "HashingEmbedder", "OnnxEmbedder"]

ItemId = Union[int, str]


@dataclass(frozen=True)
class EvidenceHit:
    """One search result.

    Attributes:
        id: the item's id (int or str, as added).
        distance: ``cosine``: 1 - cosine similarity, in [0, 2] up to float32 rounding (with
            ``storage="float16"`` rounding of the stored components: an item's distance to
            itself can be about -1e-3); ``ip``: 1 - inner product; ``l2``: squared Euclidean
            distance. Lower is nearer.
        text, source, tenant: the item's metadata.
    """

    id: ItemId
    distance: float
    text: str
    source: str
    tenant: str


def _as_matrix(vectors: Any, dim: int, what: str) -> np.ndarray:
    if not isinstance(vectors, np.ndarray):
        raise InputTypeError(
            f"{what} must be a numpy.ndarray of float32, got {type(vectors).__name__} "
            "(convert with numpy.ascontiguousarray(x, dtype=numpy.float32))"
        )
    if vectors.ndim == 1:
        vectors = vectors.reshape(1, -1)  # a view, never a copy
    return vectors


def _check_simd_env() -> None:
    value = os.environ.get("DIRECTOR_FAST_SIMD")
    if value is not None and value not in ("", "baseline", "avx2", "avx512"):
        warnings.warn(
            f"DIRECTOR_FAST_SIMD={value!r} is not one of 'baseline', 'avx2', 'avx512' (lower case); "
            "it is ignored and the best kernel this CPU supports is used",
            RuntimeWarning,
            stacklevel=3,
        )


_check_simd_env()


def _fs_path(path: str | os.PathLike[str]) -> bytes:
    """``path`` as the bytes the OS sees (``os.fsencode``); a NUL raises ConfigError, as
    ``open()`` refuses it (the C++ core would otherwise see a shorter path)."""
    p = os.fsencode(os.fspath(path))
    if b"\0" in p:
        raise ConfigError(f"path must not contain a NUL character, got {os.fsdecode(p)!r}", field="path")
    return p


def _check_storage(storage: object) -> str:
    if not isinstance(storage, str):
        raise ConfigError(f"storage must be 'float32' or 'float16', got {storage!r}", field="storage")
    return storage


class EvidenceIndex:
    """HNSW k-NN index over float32 vectors with per-item metadata and tenants.

    Args:
        dim: vector dimension, in [1, 65536].
        space: ``"cosine"`` (vectors normalised on add and query; distance 1 - cos),
            ``"ip"`` (distance 1 - <q, x>) or ``"l2"`` (squared Euclidean distance).
        M: HNSW graph degree, in [2, 2048] (memory ~ 2*M*4 bytes per vector on the base layer).
        ef_construction: candidate list size while building (>= 1; higher = better graph, slower).
        ef_search: candidate list size while searching (>= 1; the recall/latency knob; raised to
            ``k`` for a query that asks for more). Settable later through the property.
        initial_capacity: items allocated up front; the index doubles itself when full.
        seed: random seed of the level generator (builds are deterministic for one thread).
        storage: element type of the stored vectors: ``"float32"`` (default; :meth:`get_vector`
            returns what was added, normalised for cosine) or ``"float16"`` (IEEE binary16: half
            the memory and half the bytes a search reads, the main cost of a large index; each
            component is rounded with relative error <= 2**-11, queries are rounded the same
            way, distances are accumulated in float32; values beyond +-65504 are rejected; ``dim``
            must be even, so each stored record stays 4-byte aligned: ConfigError otherwise).
            Exact search then ranks the stored float16 vectors.
        exact_threshold: while the index, or the tenant searched, holds at most this many live
            items, searches are exact (brute force). A graph search that returns fewer than
            ``min(k, live items)`` results (possible under a very selective tenant filter) is
            redone exactly, so a search always returns every eligible item up to ``k``.

    Ids are ints or strs (``7`` and ``"7"`` are different ids). Deleted items are never returned;
    their slots are reused by later adds. Items of other tenants are never returned by a
    tenant-scoped search.

    Thread-safety: searches (and other readers) may run concurrently from several threads;
    writers (``add``, ``upsert``, ``remove``, setting ``ef_search``) take an exclusive lock and wait
    for running searches. :meth:`search` reads hits and their metadata under one lock, so a
    concurrent ``upsert`` never pairs a hit with another version's text. ``save`` runs as a
    reader (concurrent saves of one process take turns). Batch calls release the GIL; inputs are
    checked before that.
    """

    FORMAT_VERSION: int = _core.EvidenceIndex.FORMAT_VERSION

    def __init__(self, dim: int, space: str = "cosine", M: int = 16, ef_construction: int = 200,
                 ef_search: int = 64, *, initial_capacity: int = 1024, seed: int = 100,
                 exact_threshold: int = 1024, num_threads: int = 1, storage: str = "float32") -> None:
        for name, v in (("dim", dim), ("M", M), ("ef_construction", ef_construction),
                        ("ef_search", ef_search), ("initial_capacity", initial_capacity),
                        ("exact_threshold", exact_threshold)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ConfigError(f"{name} must be a non-negative int, got {v!r}", field=name)
        self._idx = _core.EvidenceIndex(int(dim), space, int(M), int(ef_construction), int(ef_search),
                                        int(initial_capacity), int(seed), int(exact_threshold),
                                        _check_storage(storage))
        self.num_threads = num_threads

    # ---- properties ----
    @property
    def dim(self) -> int:
        return self._idx.dim

    @property
    def space(self) -> str:
        return self._idx.space

    @property
    def M(self) -> int:
        return self._idx.M

    @property
    def ef_construction(self) -> int:
        return self._idx.ef_construction

    @property
    def ef_search(self) -> int:
        return self._idx.ef_search

    @ef_search.setter
    def ef_search(self, value: int) -> None:
        self._idx.ef_search = int(value)

    @property
    def storage(self) -> str:
        """``"float32"`` or ``"float16"``: element type of the stored vectors."""
        return self._idx.storage

    @property
    def distance_kernel(self) -> str:
        """Instruction set of the distance kernel, chosen at run time from the CPU: ``"avx512"``
        (AVX-512F), ``"avx2"`` (AVX2 + FMA) or ``"baseline"`` (hnswlib's compile-time kernels, SSE
        on x86-64). The environment variable ``DIRECTOR_FAST_SIMD`` (``baseline``, ``avx2`` or
        ``avx512``; read once per process, other values are ignored with a RuntimeWarning at
        import) caps the choice, e.g. to compare kernels."""
        return self._idx.distance_kernel

    @property
    def capacity(self) -> int:
        """Allocated slots (grows automatically)."""
        return self._idx.capacity()

    def __len__(self) -> int:
        """Number of live (not deleted) items."""
        return self._idx.size()

    def __contains__(self, item_id: ItemId) -> bool:
        return self._idx.contains(item_id)

    def tenant_size(self, tenant: str) -> int:
        """Live items of ``tenant``."""
        return self._idx.tenant_size(tenant)

    def ids(self, tenant: str | None = None) -> list[ItemId]:
        """Ids of the live items (of ``tenant`` if given), in insertion order."""
        return self._idx.ids(tenant)

    def get_vector(self, item_id: ItemId) -> np.ndarray:
        """The stored vector (normalised under ``cosine``), shape (dim,), float32.
        Raises DirectorKeyError for an unknown id."""
        return self._idx.get_vector(item_id)

    # ---- writers ----
    def add(self, vectors: np.ndarray, ids: Sequence[ItemId] | None = None, *,
            texts: Sequence[str] | None = None, sources: Sequence[str] | None = None,
            tenants: Sequence[str] | None = None, tenant: str | None = None,
            upsert: bool = False) -> list[ItemId]:
        """Add items.

        Args:
            vectors: float32 array (n, dim) or (dim,), C-contiguous (never copied silently).
            ids: n ids (int or str); default: fresh integer ids.
            texts, sources, tenants: n strs each (default ""); ``tenant`` sets one tenant for all.
            upsert: replace items whose id exists (else that raises DirectorKeyError and nothing
                is added).
        Returns:
            the ids of the added items, in order.
        Raises:
            InputTypeError: wrong dtype/shape/layout or id type. ValidationError: NaN/inf in the
            vectors, or metadata lengths that do not match n. DirectorKeyError: duplicate id.

        Cost: amortised O(log n) graph work per item (hnswlib insertion); earlier items keep
        their ids and stay searchable.
        """
        mat = _as_matrix(vectors, self.dim, "vectors")
        if tenant is not None:
            if tenants is not None:
                raise ConfigError("give tenant or tenants, not both", field="tenants")
            tenants = [tenant] * int(mat.shape[0])
        meta = []
        for name, seq in (("texts", texts), ("sources", sources), ("tenants", tenants)):
            if seq is None:
                meta.append(None)
                continue
            if isinstance(seq, str):
                raise InputTypeError(f"{name} must be a sequence of str, not a single str")
            seq = list(seq)
            for i, v in enumerate(seq):
                check_text(v, f"{name}[{i}]")
            meta.append(seq)
        return self._idx.add(mat, None if ids is None else list(ids), meta[0], meta[1], meta[2],
                             bool(upsert), int(self.num_threads))

    def upsert(self, vectors: np.ndarray, ids: Sequence[ItemId], **kwargs: Any) -> list[ItemId]:
        """:meth:`add` with ``upsert=True``: existing ids are replaced (metadata included)."""
        return self.add(vectors, ids, upsert=True, **kwargs)

    def remove(self, ids: Sequence[ItemId] | ItemId, *, missing_ok: bool = False) -> int:
        """Delete items by id; returns how many were removed. Unknown ids raise
        DirectorKeyError (before anything is removed) unless ``missing_ok``."""
        if isinstance(ids, (int, str, np.integer)) and not isinstance(ids, bool):
            ids = [ids]
        return self._idx.remove(list(ids), bool(missing_ok))

    # ---- readers ----
    def search_arrays(self, queries: np.ndarray, k: int = 10, *, tenant: str | None = None,
                      exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Batched k-NN returning arrays: ``labels`` (nq, k') int64 internal labels (-1 where
        fewer than k' items qualify) and ``distances`` (nq, k') float32 (+inf there), where
        k' = min(k, len(index)). Use
        :meth:`records` to map labels to metadata. The fastest path (no Python objects per hit)."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ConfigError(f"k must be a non-negative int, got {k!r}", field="k")
        q = _as_matrix(queries, self.dim, "queries")
        # never more columns than live items: a huge k costs no memory (len() is a snapshot; a
        # concurrent add may leave the newest items out of this call)
        return self._idx.search_raw(q, min(int(k), len(self)), tenant, bool(exact), int(self.num_threads))

    def records(self, labels: np.ndarray) -> list[list[tuple[ItemId, str, str, str]]]:
        """``(id, text, source, tenant)`` for each label of :meth:`search_arrays` (rows stop at -1).

        Not atomic with the search: if an ``upsert`` or ``remove`` ran in between, a label may name
        an item that has since been deleted (its text and source are then empty). :meth:`search`
        reads hits and metadata under one lock and never mixes versions."""
        return self._idx.records(labels)

    def search_ids(self, queries: np.ndarray, k: int = 10, *, tenant: str | None = None,
                   exact: bool = False) -> tuple[list[list[ItemId]], np.ndarray]:
        """:meth:`search` without the metadata: ``(ids, distances)``, where ``ids[i]`` lists
        query ``i``'s hits' ids nearest first (as many as qualify, at most ``k``) and
        ``distances`` is float32 (nq, k') with k' = min(k, len(index)) (``distances[i, j]``
        belongs to ``ids[i][j]``; +inf past the end of a row). Ids and distances come from one
        lock, like :meth:`search`; no text is copied, so this is the cheap call when the caller
        keeps its own id -> text map. Same arguments and errors as :meth:`search`."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ConfigError(f"k must be a non-negative int, got {k!r}", field="k")
        q = _as_matrix(queries, self.dim, "queries")
        return self._idx.search_ids(q, min(int(k), len(self)), tenant, bool(exact), int(self.num_threads))

    def search(self, queries: np.ndarray, k: int = 10, *, tenant: str | None = None,
               exact: bool = False) -> list[list[EvidenceHit]]:
        """Batched k-NN search.

        Args:
            queries: float32 (nq, dim) or (dim,), C-contiguous.
            k: results per query (>= 0). Fewer come back when fewer items qualify (empty index,
                k > size, deletions, a tenant filter): never an exception, never a deleted or
                foreign-tenant item.
            tenant: only items of this tenant (None: all tenants).
            exact: brute-force search (exact; O(n) per query).
        Returns:
            one list per query of :class:`EvidenceHit`, nearest first.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ConfigError(f"k must be a non-negative int, got {k!r}", field="k")
        q = _as_matrix(queries, self.dim, "queries")
        # one call, one lock: labels, distances and metadata of the same index state
        _, dists, recs = self._idx.search_hits(q, min(int(k), len(self)), tenant, bool(exact),
                                               int(self.num_threads))
        dl = dists.tolist()  # Python floats once (float32 -> float is exact), not a numpy scalar per hit
        return [[EvidenceHit(r[0], drow[j], r[1], r[2], r[3]) for j, r in enumerate(row)]
                for row, drow in zip(recs, dl)]

    # ---- persistence ----
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the index to ``path`` atomically: a temporary ``<path>.tmp-<host>-<pid>-<start>``
        (``start``: the process start time) is written and fsynced, renamed over ``path``, and the
        directory is fsynced (a crash never destroys an earlier file at ``path``). Format: magic,
        version, config, metadata, hnswlib graph, 64-bit checksum.

        Each save and load first removes stale temporaries of ``path`` left by interrupted saves:
        those of processes of this host that no longer run, and any older than 24 hours (index
        files may be shared between machines, whose processes cannot be checked).

        Raises:
            ConfigError (a ValueError): ``path`` contains a NUL character.
            StorageError: an I/O failure (the temporary is removed)."""
        self._idx.save(_fs_path(path))

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, num_threads: int = 1) -> "EvidenceIndex":
        """Read an index written by :meth:`save`. Nothing is written (a read-only mount works; stale
        temporaries of interrupted saves are removed where the directory allows it).

        The file is not trusted: every header field, graph link, label, id and string is checked
        against the file's own sizes and the configuration before use (the checksum only catches
        accidents), so an edited file raises FormatError instead of crashing.

        Raises:
            FormatError (a ValueError): a corrupt, truncated, inconsistent or foreign file, or an
                unknown format version.
            ConfigError (a ValueError): ``path`` contains a NUL character.
            StorageError: the file cannot be read."""
        p = _fs_path(path)
        if not os.path.exists(p):
            raise StorageError(f"no such file: {os.fsdecode(p)}")
        obj = cls.__new__(cls)
        obj._idx = _core.EvidenceIndex.load(p)
        obj.num_threads = num_threads
        return obj

    def __repr__(self) -> str:
        return (f"EvidenceIndex(dim={self.dim}, space={self.space!r}, M={self.M}, "
                f"ef_construction={self.ef_construction}, ef_search={self.ef_search}, size={len(self)})")


class HashingEmbedder:
    """Deterministic hashing embedder (no model; the embedded default).

    Features of the normalised terms (see :func:`director_fast.verify.text.normalize_terms`): word
    unigrams (common English function words down-weighted), word bigrams and character
    n-grams of each word with boundary markers, each hashed (64-bit FNV-1a + splitmix) to a
    signed bucket (Weinberger et al. 2009). The vector is L2-normalised; a text without terms
    gives the zero vector. Output is identical on every platform and run.

    Args:
        dim: output dimension, in [1, 2**20].
        char_ngrams: (min, max) character n-gram sizes, or None to disable.
        word_bigrams: include word bigrams.
        seed: hash seed.

    Thread-safety: immutable; ``embed`` / ``embed_batch`` may be called from several threads
    (``embed_batch`` releases the GIL).
    """

    def __init__(self, dim: int = 384, *, char_ngrams: tuple[int, int] | None = (3, 5),
                 word_bigrams: bool = True, seed: int = 0) -> None:
        cmin, cmax = (0, 0) if char_ngrams is None else char_ngrams
        self._e = _core.HashingEmbedder(int(dim), int(cmin), int(cmax), bool(word_bigrams), int(seed))

    @property
    def dim(self) -> int:
        return self._e.dim

    def embed(self, text: str) -> np.ndarray:
        """One text -> float32 vector (dim,), unit norm (or zero)."""
        return self._e.embed(text)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Texts -> float32 (n, dim), C-contiguous."""
        return self._e.embed_batch(list(texts))

    def __call__(self, texts: str | Sequence[str]) -> np.ndarray:
        return self.embed(texts) if isinstance(texts, str) else self.embed_batch(texts)


class OnnxEmbedder:
    """A sentence-embedding model exported to ONNX, with its Hugging Face ``tokenizer.json``.

    ``model_dir`` must hold ``tokenizer.json`` and one ``*.onnx`` file (``model.onnx`` preferred,
    or pass ``model_file``). The model takes ``input_ids`` and ``attention_mask`` (and
    ``token_type_ids`` if it declares it), int64 (batch, seq); its first output is either the
    token states (batch, seq, hidden), mean-pooled over the attention mask, or an already pooled
    (batch, hidden). The result is L2-normalised (Reimers & Gurevych 2019, Sentence-BERT).
    Texts longer than ``max_length`` tokens are truncated (embeddings only; ``truncated`` counts
    how many texts were).

    Thread-safety: an onnxruntime session may run from several threads; the tokenizer is
    used per call. ``truncated`` is a best-effort counter.

    Raises:
        StorageError: the files are missing. ConfigError: the model's inputs are not supported.
    """

    def __init__(self, model_dir: str | os.PathLike[str], *, model_file: str | None = None,
                 max_length: int = 256, batch_size: int = 32, providers: Sequence[str] | None = None) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:  # pragma: no cover - optional extra
            raise ConfigError("OnnxEmbedder needs onnxruntime and tokenizers (pip install director-fast[nli])",
                              field="model_dir") from e
        d = os.fspath(model_dir)
        tok_path = os.path.join(d, "tokenizer.json")
        if model_file is None:
            cands = sorted(f for f in os.listdir(d) if f.endswith(".onnx")) if os.path.isdir(d) else []
            model_file = "model.onnx" if "model.onnx" in cands else (cands[0] if cands else "model.onnx")
        model_path = os.path.join(d, model_file)
        for p in (tok_path, model_path):
            if not os.path.isfile(p):
                raise StorageError(f"OnnxEmbedder: missing {p}")
        self.tokenizer = Tokenizer.from_file(tok_path)
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self.tokenizer.enable_truncation(self.max_length)
        self.tokenizer.no_padding()
        self.session = ort.InferenceSession(model_path, providers=list(providers or ["CPUExecutionProvider"]))
        names = [i.name for i in self.session.get_inputs()]
        if "input_ids" not in names or "attention_mask" not in names:
            raise ConfigError(f"model inputs {names} lack input_ids/attention_mask", field="model_dir")
        self._use_type_ids = "token_type_ids" in names
        unsupported = set(names) - {"input_ids", "attention_mask", "token_type_ids"}
        if unsupported:
            raise ConfigError(f"unsupported model inputs {sorted(unsupported)}", field="model_dir")
        self._dim: int | None = None
        self.truncated = 0

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed_batch(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]

    def __call__(self, texts: str | Sequence[str]) -> np.ndarray:
        return self.embed(texts) if isinstance(texts, str) else self.embed_batch(texts)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Texts -> float32 (n, hidden), unit rows. Batches are padded to their longest text."""
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise InputTypeError(f"texts[{i}] must be a str, got {type(t).__name__}")
        outs: list[np.ndarray] = []
        # sort by length so each batch pads little; restore order at the end
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for b in range(0, len(order), self.batch_size):
            idx = order[b:b + self.batch_size]
            encs = self.tokenizer.encode_batch([texts[i] for i in idx])
            self.truncated += sum(1 for e in encs if e.overflowing)
            seq = max(1, max(len(e.ids) for e in encs))
            ids = np.zeros((len(encs), seq), dtype=np.int64)
            mask = np.zeros((len(encs), seq), dtype=np.int64)
            types = np.zeros((len(encs), seq), dtype=np.int64)
            for r, e in enumerate(encs):
                n = len(e.ids)
                ids[r, :n] = e.ids
                mask[r, :n] = e.attention_mask
                types[r, :n] = e.type_ids
            feeds = {"input_ids": ids, "attention_mask": mask}
            if self._use_type_ids:
                feeds["token_type_ids"] = types
            out = np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)
            if out.ndim == 3:
                m = mask[:, :, None].astype(np.float32)
                out = (out * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            elif out.ndim != 2:
                raise ConfigError(f"model output has shape {out.shape}; expected (b, t, h) or (b, h)",
                                  field="model_dir")
            outs.append((np.asarray(idx), out))
        if not outs:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        hidden = outs[0][1].shape[1]
        res = np.zeros((len(texts), hidden), dtype=np.float32)
        for idx, out in outs:
            res[idx] = out
        norms = np.linalg.norm(res, axis=1, keepdims=True)
        res /= np.maximum(norms, 1e-12)
        return np.ascontiguousarray(res, dtype=np.float32)

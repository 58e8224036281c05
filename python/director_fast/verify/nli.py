"""Natural-language-inference backends: the embedded lexical heuristic and ONNX Runtime models.

Two backends share one surface (``score``, ``score_batch``, ``score_detailed``, ``model_backed``,
``name``):

* :class:`LexicalNLI` -- the embedded default, a C++ heuristic (English only) that needs no model.
  It is *not* a model: ``model_backed`` is ``False`` and ``CoherenceScorer(strict_mode=True)``
  rejects when it is the only backend.
* :class:`NLIModel` -- an ONNX export of a sequence-classification NLI model
  (``NLIModel.from_pretrained(dir)``), three-way (entailment / neutral / contradiction) or
  two-way (supported / unsupported: FactCG, MiniCheck, HHEM style).

Divergence is in [0, 1]: P(contradiction) for three-way heads, 1 - P(supported) for two-way heads.

Long inputs are never truncated: the premise is split into token-budget chunks, the hypothesis into
sentences, and the chunk x sentence divergence matrix is aggregated in the SummaC zero-shot way
(Laban et al., 2022, "SummaC: Re-Visiting NLI-based Models for Inconsistency Detection in
Summarization", TACL): per hypothesis sentence the best-supporting premise chunk, then the response
divergence over sentences (``"max"`` = the worst sentence, the default, or ``"mean"``). For
three-way heads a confident contradiction (P >= ``conflict_threshold``) in any chunk is kept even
when another chunk supports the sentence. Only the ``top_k`` premise chunks most similar to each
hypothesis sentence (lexical overlap) are sent to the model, so the number of forwards grows with
the number of hypothesis sentences, not with premise x response size; ``exhaustive=True`` scores
every pair (for evaluation).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from director_fast import _core
from director_fast.errors import ConfigError, InputTypeError, StorageError, ValidationError
from director_fast.verify.text import split_sentences

__all__ = [
    "NLIScore",
    "LexicalNLI",
    "NLIModel",
    "SHIPPED_MODEL",
    "shipped_model_dir",
    "aggregate_matrix",
    "label_roles",
    "LexicalIndex",
    "lexical_top_k",
]

logger = logging.getLogger("director_fast.nli")

_AGGREGATIONS = ("max", "mean")


# ---- text helpers ------------------------------------------------------------------------------


def split_sentences_text(text: str) -> list[str]:
    """The sentences of ``text`` as strings, by :func:`director_fast.verify.text.split_sentences` (the
    package's one segmenter; the lexical NLI splits premise and hypothesis with it too)."""
    return [text[a:b] for a, b in split_sentences(text)]


_WORD_RE = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    "a an the and or but of at by for with to from in on is are was were be been it its this that "
    "these those as what which who whom how when where why do does did has have had i you he she "
    "we they me him her us them my your his our their not no".split()
)


def query_terms(text: str) -> list[str]:
    """Lower-cased word terms of ``text`` for lexical retrieval.

    Punctuation, case and possessives never stop a word from matching: ``"country_42?"`` gives
    ``"country_42"``, ``"Paris's"`` gives ``"paris"``.
    """
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"'s\b", "", text)
    return [w for w in _WORD_RE.findall(text) if w not in _STOP]


def _index_terms(text: str) -> set[str]:
    """:func:`query_terms` reduced to the lexical NLI's stems ("Saturdays" finds "Saturday",
    "opens" finds "open")."""
    return {_core.lexical_stem(t) for t in query_terms(text)}


class LexicalIndex:
    """An inverted index over ``docs`` for :func:`lexical_top_k` (built once, queried many times).

    Score of a doc for a query: the IDF mass of the query terms it contains over the IDF mass of
    all query terms, in [0, 1]; IDF = ln(1 + N / (1 + df)); terms are compared by their stems
    (:func:`_index_terms`). Immutable; thread-safe.
    """

    def __init__(self, docs: Sequence[str]) -> None:
        self.docs = list(docs)
        self._postings: dict[str, list[int]] = {}
        for i, d in enumerate(self.docs):
            for t in _index_terms(d):
                self._postings.setdefault(t, []).append(i)

    def top_k(self, query: str, k: int) -> list[tuple[int, float]]:
        """``[(doc_index, score)]`` of the ``k`` best docs, best first, ties by index; docs that
        share no term with the query are included only to fill ``k`` (score 0)."""
        if k <= 0 or not self.docs:
            return []
        q = _index_terms(query)
        n = len(self.docs)
        idf = {t: math.log(1.0 + n / (1 + len(self._postings.get(t, ())))) for t in q}
        total = sum(idf.values()) or 1.0
        acc: dict[int, float] = {}
        for t in q:
            for i in self._postings.get(t, ()):
                acc[i] = acc.get(i, 0.0) + idf[t]
        scored = sorted(((i, v / total) for i, v in acc.items()), key=lambda x: (-x[1], x[0]))[:k]
        if len(scored) < k:
            seen = {i for i, _ in scored}
            scored += [(i, 0.0) for i in range(n) if i not in seen][: k - len(scored)]
        return scored


def lexical_top_k(query: str, docs: Sequence[str], k: int) -> list[tuple[int, float]]:
    """Indices and scores of the ``k`` docs most similar to ``query`` (see :class:`LexicalIndex`).

    Returns ``[(doc_index, score)]`` best first, ties broken by index, score in [0, 1].
    """
    return LexicalIndex(docs).top_k(query, k)


# ---- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NLIScore:
    """Detailed result of ``score_detailed(premise, hypothesis)``.

    Attributes:
        divergence: response-level divergence in [0, 1] (0 = supported, 1 = contradicted).
        sentences: hypothesis sentences (claims) that were scored.
        sentence_divergences: divergence per hypothesis sentence, in [0, 1]; ``nan`` for a
            sentence that alone exceeds the model's maximum length (see ``oversize``).
        best_chunk: per hypothesis sentence, the index into ``chunks`` of the premise chunk that
            decided its divergence (-1 when none).
        chunks: premise chunks (model: token-budget chunks; lexical: premise sentences).
        chunk_scores: per chunk, the lowest divergence it gave any hypothesis sentence
            (``nan`` when it was not scored).
        matrix: chunk x sentence divergence matrix, float64 shape (len(chunks), len(sentences)),
            ``nan`` where a pair was not sent to the model (top-k); ``None`` for the lexical backend.
        confidence: mean model confidence in [0, 1] (1 - normalised softmax entropy), or the
            lexical backend's signal strength.
        token_count: tokens processed (model tokens, or lexical word tokens).
        forwards: number of (premise chunk, hypothesis sentence) pairs sent to the model.
        oversize: indices of hypothesis sentences longer than the model's maximum (reported, not cut).
        signals: per sentence, a dict of the lexical signals (lexical backend only).
        backend: ``"lexical"`` or ``"onnx:<provider>"``.
    """

    divergence: float
    sentences: tuple[str, ...] = ()
    sentence_divergences: tuple[float, ...] = ()
    best_chunk: tuple[int, ...] = ()
    chunks: tuple[str, ...] = ()
    chunk_scores: tuple[float, ...] = ()
    matrix: Any = None
    confidence: float | None = None
    token_count: int = 0
    forwards: int = 0
    oversize: tuple[int, ...] = ()
    signals: tuple[dict, ...] = ()
    backend: str = ""


def aggregate_matrix(
    matrix: np.ndarray,
    *,
    aggregation: str = "max",
    contradiction: np.ndarray | None = None,
    conflict_threshold: float = 0.5,
) -> tuple[float, np.ndarray, np.ndarray]:
    """SummaC-ZS aggregation of a chunk x sentence divergence matrix.

    Args:
        matrix: float array, shape (n_chunks, n_sentences), divergences in [0, 1]; ``nan`` =
            pair not scored.
        aggregation: ``"max"`` (worst sentence, default) or ``"mean"`` over sentences.
        contradiction: optional same-shape P(contradiction) (three-way heads). When given, a
            sentence's divergence is at least the largest P(contradiction) >= ``conflict_threshold``
            of any chunk, so a contradiction is never hidden by another chunk's support.
        conflict_threshold: in [0, 1].

    Returns:
        ``(divergence, per_sentence, best_chunk)``: the response divergence (0.5 when no sentence
        was scored), per-sentence divergences (float64, ``nan`` for unscored sentences) and the
        deciding chunk index per sentence (int64, -1 for unscored).

    Raises:
        ConfigError: unknown ``aggregation``.
    """
    if aggregation not in _AGGREGATIONS:
        raise ConfigError(f"aggregation must be one of {_AGGREGATIONS}, got {aggregation!r}", "aggregation")
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise InputTypeError(f"matrix must be 2-D (chunks x sentences), got {m.ndim} dimensions")
    n_c, n_s = m.shape
    per = np.full(n_s, np.nan)
    best = np.full(n_s, -1, dtype=np.int64)
    for s in range(n_s):
        col = m[:, s]
        ok = ~np.isnan(col)
        if not ok.any():
            continue
        idx = np.where(ok)[0]
        b = int(idx[np.argmin(col[idx])])
        d = float(col[b])
        if contradiction is not None:
            ccol = np.asarray(contradiction, dtype=np.float64)[:, s]
            cc = np.where(ok & (ccol >= conflict_threshold), ccol, -1.0)
            j = int(np.argmax(cc))
            if cc[j] > d:
                d, b = float(cc[j]), j
        per[s], best[s] = d, b
    valid = per[~np.isnan(per)]
    if valid.size == 0:
        return 0.5, per, best
    agg = float(valid.max()) if aggregation == "max" else float(valid.mean())
    return agg, per, best


def label_roles(id2label: dict) -> tuple[str, dict[str, int]]:
    """Map a head's ``id2label`` to roles.

    Returns ``("three_way", {"entailment": i, "neutral": j, "contradiction": k})`` or
    ``("two_way", {"supported": i, "unsupported": j})``. Names are matched case-insensitively
    (``ENTAILMENT``, ``entail``, ``contradiction``, ``CONTRADICT``, ``neutral``; ``supported`` /
    ``consistent`` / ``factual`` vs ``unsupported`` / ``inconsistent`` / ``hallucinated``).

    Raises:
        ConfigError: labels that match neither scheme (field ``id2label``).
    """
    try:
        labels = {int(k): str(v).strip().lower() for k, v in dict(id2label).items()}
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"id2label must map integer ids to names: {exc}", "id2label") from None
    roles: dict[str, int] = {}
    for i, name in labels.items():
        if name.startswith("entail"):
            roles["entailment"] = i
        elif name.startswith("contradict"):
            roles["contradiction"] = i
        elif name.startswith("neutral"):
            roles["neutral"] = i
        elif name in ("unsupported", "not_supported", "inconsistent", "hallucinated", "hallucination",
                      "not_entailment", "non_entailment", "unfaithful", "refuted"):
            roles["unsupported"] = i
        elif name in ("supported", "consistent", "factual", "faithful", "entailed", "grounded"):
            roles["supported"] = i
    if len(labels) == 3 and {"entailment", "neutral", "contradiction"} <= roles.keys():
        return "three_way", {k: roles[k] for k in ("entailment", "neutral", "contradiction")}
    if len(labels) == 2:
        if "entailment" in roles and "unsupported" in roles:
            roles["supported"] = roles["entailment"]
        if {"supported", "unsupported"} <= roles.keys():
            return "two_way", {k: roles[k] for k in ("supported", "unsupported")}
    raise ConfigError(
        "id2label must name entailment/neutral/contradiction (three-way) or supported/unsupported "
        f"(two-way) labels, got {dict(sorted(labels.items()))}; pass labels=... to override",
        "id2label",
    )


# ---- lexical backend ---------------------------------------------------------------------------


def _signals_dict(sig: Any) -> dict:
    return {
        "coverage": sig.coverage,
        "content_words": sig.content_words,
        "covered_words": sig.covered_words,
        "numbers": sig.numbers,
        "numeric_mismatches": sig.numeric_mismatches,
        "missing_numbers": list(sig.missing_numbers),
        "entities": sig.entities,
        "entity_mismatches": sig.entity_mismatches,
        "missing_entities": list(sig.missing_entities),
        "negation_flips": sig.negation_flips,
        "negation_close": sig.negation_close,
        "novel_polarity": sig.novel_polarity,
        "polarity_words": list(sig.polarity_words),
        "antonym_hits": sig.antonym_hits,
        "antonym_pairs": list(sig.antonym_pairs),
    }


class LexicalNLI:
    """The embedded lexical NLI heuristic (C++; English only; not a learned model).

    Divergence per hypothesis sentence is a noisy-OR of weighted signals -- uncovered content
    words, unsupported numbers (thousands separators, decimals, %, currency, units, multipliers,
    written numbers, times of day: :func:`director_fast.verify.numbers.find_numbers`), unsupported capitalised entities, negation-parity flips (graded by alignment)
    and antonyms against the best-aligned premise sentence, polarity cues ("not", "fails",
    "incorrectly", "only", ...) absent from the premise -- and the response divergence is their ``aggregation``
    (``"max"`` default, ``"mean"``, ``"mean_max"``). Every signal is reported per sentence in
    :attr:`NLIScore.signals`. Cost: linear in premise + hypothesis length, microseconds per
    sentence pair.

    Args:
        w_uncovered, w_numeric, w_entity, w_negation, w_negation_weak, w_polarity, w_antonym,
            w_novel: signal weights in [0, 1]; q_entity, q_polarity: per-item strengths in [0, 1];
            negation_alignment: alignment in [0, 1] from which a negation flip weighs
            ``w_negation`` instead of ``w_negation_weak``. Defaults and how they were chosen
            (design files only): docs/scoring.md.
        aggregation: ``"max"``, ``"mean"`` or ``"mean_max"``.

    Raises:
        ConfigError: a weight outside [0, 1] or an unknown aggregation (``.field`` names it).

    Thread safety: immutable; all methods may be called concurrently (the C++ calls release the
    GIL).
    """

    name = "lexical-heuristic"
    model_backed = False
    provider = "cpu"

    def __init__(self, **weights: Any) -> None:
        self._impl = _core.LexicalNLI(**weights)

    @property
    def aggregation(self) -> str:
        return self._impl.aggregation

    def prepare(self, premise: str) -> Any:
        """Analyse ``premise`` once for many hypotheses (returns an opaque, thread-safe object)."""
        _check_str(premise, "premise")
        return _core.LexicalPremise(premise)

    def score(self, premise: str | Any, hypothesis: str) -> float:
        """Divergence in [0, 1] of ``hypothesis`` given ``premise`` (0.5 for an empty hypothesis)."""
        return self._result(premise, hypothesis).divergence

    def score_batch(self, pairs: Iterable[tuple[str, str]]) -> list[float]:
        """Divergences for ``[(premise, hypothesis), ...]``, in input order."""
        pairs = list(pairs)
        for i, p in enumerate(pairs):
            if not (isinstance(p, tuple) and len(p) == 2):
                raise InputTypeError(f"pairs[{i}] must be a (premise, hypothesis) tuple")
            _check_str(p[0], f"pairs[{i}][0]")
            _check_str(p[1], f"pairs[{i}][1]")
        return self._impl.score_batch([p for p, _ in pairs], [h for _, h in pairs]).tolist()

    def _result(self, premise: str | Any, hypothesis: str) -> Any:
        _check_str(hypothesis, "hypothesis")
        if isinstance(premise, _core.LexicalPremise):
            return self._impl.score_prepared(premise, hypothesis)
        _check_str(premise, "premise")
        return self._impl.score(premise, hypothesis)

    def score_detailed(self, premise: str | Any, hypothesis: str, **_: Any) -> NLIScore:
        """Per-sentence divergences, aligned premise sentences and signals (see :class:`NLIScore`)."""
        prem = premise if isinstance(premise, _core.LexicalPremise) else self.prepare(premise)
        r = self._result(prem, hypothesis)
        chunks = prem.sentences()
        sents = r.sentences
        chunk_scores = [math.nan] * len(chunks)
        for s in sents:
            j = s.premise_sentence
            if j >= 0 and (math.isnan(chunk_scores[j]) or s.divergence < chunk_scores[j]):
                chunk_scores[j] = s.divergence
        conf = None
        if sents:
            # signal strength: distance of each sentence divergence from the undecided 0.5
            conf = float(np.mean([abs(s.divergence - 0.5) * 2.0 for s in sents]))
        return NLIScore(
            divergence=r.divergence,
            sentences=tuple(s.text for s in sents),
            sentence_divergences=tuple(s.divergence for s in sents),
            best_chunk=tuple(s.premise_sentence for s in sents),
            chunks=chunks,
            chunk_scores=tuple(chunk_scores),
            matrix=None,
            confidence=conf,
            token_count=r.hypothesis_tokens + r.premise_tokens,
            forwards=0,
            signals=tuple(_signals_dict(s.signals) for s in sents),
            backend="lexical",
        )


def _check_str(value: Any, name: str) -> None:
    if not isinstance(value, str):
        raise InputTypeError(f"{name} must be a str, got {type(value).__name__}")


# ---- ONNX Runtime backend ----------------------------------------------------------------------


def _physical_cores() -> int:
    try:
        import psutil  # type: ignore[import-not-found]

        n = psutil.cpu_count(logical=False)
        if n:
            return int(n)
    except ImportError:
        pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


_MODEL_FILES_CPU = ("model_quantized.onnx", "model.int8.onnx", "model_int8.onnx", "model.onnx")
# a directory with only an int8 file (the shipped model) runs it on the GPU provider too: ONNX
# Runtime places the integer kernels it has no CUDA version of on the CPU
_MODEL_FILES_GPU = ("model_fp16.onnx", "model.fp16.onnx", "model.onnx", "model_quantized.onnx", "model.int8.onnx",
                    "model_int8.onnx")


_CUDA = "CUDAExecutionProvider"
_CPU = "CPUExecutionProvider"


def _provider_entry(entry: Any, available: Sequence[str]) -> Any:
    """One provider spec as ONNX Runtime takes it: a name or a ``(name, options)`` tuple."""
    if isinstance(entry, str):
        low = entry.strip().lower()
        if low in ("cuda", "gpu"):
            return _CUDA
        if low.startswith("cuda:"):
            dev = low[5:]
            if not dev.isdigit():
                raise ConfigError(f"providers: {entry!r} is not 'cuda:<device number>'", "providers")
            return (_CUDA, {"device_id": int(dev)})
        if low == "cpu":
            return _CPU
        if entry not in available and entry != _CUDA:
            raise ConfigError(f"providers: {entry!r} is not available (available: {list(available)})",
                              "providers")
        return entry
    if (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)
            and isinstance(entry[1], dict)):
        name = _provider_entry(entry[0], available)
        if isinstance(name, tuple):  # ("cuda:1", {...}): merge the device into the options
            return (name[0], {**name[1], **entry[1]})
        return (name, dict(entry[1]))
    raise ConfigError(
        f"providers entries must be provider names or (name, options) tuples, got {entry!r}",
        "providers")


def _resolve_providers(providers: Any, available: Sequence[str]) -> tuple[list[Any], list[str]]:
    """(provider specs for the session, accelerator providers that were asked for explicitly)."""
    if isinstance(providers, str) and providers.strip().lower() == "auto":
        return ([_CUDA, _CPU] if _CUDA in available else [_CPU]), []
    if isinstance(providers, str) or (
        isinstance(providers, tuple) and len(providers) == 2 and isinstance(providers[1], dict)
    ):
        entries = [providers]
    elif isinstance(providers, (list, tuple)) and providers:
        entries = list(providers)
    else:
        raise ConfigError(
            f"providers must be 'auto', 'cpu', 'cuda', a provider name or a non-empty list, got "
            f"{providers!r}", "providers")
    chosen = [_provider_entry(e, available) for e in entries]
    requested: list[str] = []
    for spec in chosen:
        name = spec if isinstance(spec, str) else spec[0]
        if name != _CPU and name not in requested:
            requested.append(name)
    if _CUDA in requested and _CUDA not in available:
        raise ConfigError(
            f"providers: CUDA was requested ({providers!r}) but this onnxruntime has no "
            f"CUDAExecutionProvider (available: {list(available)}); install onnxruntime-gpu or "
            "use providers='auto'", "providers")
    return chosen, requested


#: the name of the model directory that ships with the package (under ``director_fast/models/``)
SHIPPED_MODEL = "claim-verifier-minilm-l6"


_SHIPPED: dict[str, "NLIModel"] = {}
_SHIPPED_LOCK = threading.Lock()


def shipped_model_dir() -> Path:
    """The directory of the claim verifier that ships with the package
    (``director_fast/models/claim-verifier-minilm-l6``: ``model_quantized.onnx``, ``tokenizer.json``,
    ``config.json``, ``calibration.json``, ``golden.json``, ``MODEL_CARD.md``, ``LICENSE``, ``export.json``).

    Raises:
        ConfigError: the directory or its ``model_quantized.onnx`` is missing (named in the
            message): never a silent fallback to the lexical backend.
    """
    d = Path(str(resources.files("director_fast") / "models" / SHIPPED_MODEL))
    if not (d / "model_quantized.onnx").is_file():
        raise ConfigError(f"the shipped model is missing from this installation: {d}/model_quantized.onnx", "model")
    return d


class NLIModel:
    """An ONNX Runtime NLI model (three-way or two-way head).

    Build with :meth:`from_pretrained`. Thread safety: one ``InferenceSession`` is shared by all
    threads (ONNX Runtime's ``run`` is thread-safe); the object is otherwise immutable except for
    the ``forward_count`` / ``token_count`` counters, which are updated under a lock.
    """

    model_backed = True

    def __init__(
        self,
        session: Any,
        tokenizer: Any,
        *,
        head: str,
        roles: dict[str, int],
        max_length: int,
        batch_size: int = 32,
        token_budget: int = 16384,
        provider: str = "CPUExecutionProvider",
        top_k: int = 4,
        aggregation: str = "max",
        conflict_threshold: float = 0.5,
        name: str = "onnx-nli",
        pad_id: int = 0,
    ) -> None:
        if max_length < 8:
            raise ConfigError(f"max_length must be >= 8, got {max_length}", "max_length")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}", "batch_size")
        if token_budget < max_length:
            raise ConfigError(
                f"token_budget ({token_budget}) must be >= max_length ({max_length})", "token_budget"
            )
        if top_k < 1:
            raise ConfigError(f"top_k must be >= 1, got {top_k}", "top_k")
        if aggregation not in _AGGREGATIONS:
            raise ConfigError(f"aggregation must be one of {_AGGREGATIONS}, got {aggregation!r}", "aggregation")
        if not 0.0 <= conflict_threshold <= 1.0:
            raise ConfigError("conflict_threshold must be in [0, 1]", "conflict_threshold")
        self._session = session
        self._tokenizer = tokenizer
        self.head = head
        self.roles = dict(roles)
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self.token_budget = int(token_budget)
        self.provider = provider
        self.top_k = int(top_k)
        self.aggregation = aggregation
        self.conflict_threshold = float(conflict_threshold)
        self.name = name
        #: the directory and ONNX file :meth:`from_pretrained` loaded (None when built directly)
        self.model_dir: Path | None = None
        self.model_file: Path | None = None
        self._pad_id = int(pad_id)
        self._inputs = {i.name for i in session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise ConfigError(f"model.onnx must take an 'input_ids' input, has {sorted(self._inputs)}", "model")
        self._output = session.get_outputs()[0].name
        self._lock = threading.Lock()
        self.forward_count = 0
        self.token_count = 0
        self.batch_count = 0

    # -- loading --

    @classmethod
    def shipped(cls, **kwargs: Any) -> "NLIModel":
        """The claim verifier model that ships inside the package (:func:`shipped_model_dir`: an
        int8 all-MiniLM-L6-v2 cross-encoder fine-tuned on varied sentence pairs and human-labelled
        grounded answers; its ``MODEL_CARD.md`` gives data, metrics, limits and license, CC BY-SA
        4.0). ``CoherenceScorer(use_nli=True)`` uses it, with the calibration beside it. Without
        arguments one instance is shared per process (its ONNX Runtime session is thread-safe);
        with arguments, ``from_pretrained(shipped_model_dir(), **kwargs)`` builds a new one.

        Raises:
            ConfigError: the model directory is missing from this installation (an install from a
                source tree without it), or onnxruntime / tokenizers cannot be imported.
        """
        if kwargs:
            return cls.from_pretrained(str(shipped_model_dir()), **kwargs)
        with _SHIPPED_LOCK:  # one session per process for the default model: it is thread-safe
            if "model" not in _SHIPPED:
                _SHIPPED["model"] = cls.from_pretrained(str(shipped_model_dir()))
            return _SHIPPED["model"]

    @classmethod
    def from_pretrained(
        cls,
        model_dir: str | os.PathLike,
        *,
        providers: str | Sequence[str] = "auto",
        max_length: int | None = None,
        batch_size: int = 32,
        token_budget: int = 16384,
        intra_op_threads: int | None = None,
        quantized: bool | None = None,
        labels: dict | None = None,
        top_k: int = 4,
        aggregation: str = "max",
        conflict_threshold: float = 0.5,
    ) -> "NLIModel":
        """Load ``model_dir`` (``model.onnx`` [+ quantised / fp16 variants], ``tokenizer.json``,
        ``config.json`` with ``id2label``).

        Args:
            model_dir: directory path.
            providers: ``"auto"`` (CUDA when onnxruntime-gpu finds a GPU, else CPU), ``"cpu"``,
                ``"cuda"`` / ``"cuda:N"`` / ``"gpu"`` (device N, default 0), an ONNX Runtime
                provider name, or a list of names, ``(name, options)`` tuples and the short
                spellings. Any explicit accelerator request (every spelling but ``"auto"``) runs
                on that provider or raises ConfigError -- never a silent CPU fallback, even when
                the list also names ``CPUExecutionProvider``.
            max_length: model maximum in tokens (pair incl. special tokens); default from
                ``config.json``: its ``max_length`` (the training length) when set, else
                ``max_position_embeddings`` (minus 2 for RoBERTa-style offsets when
                ``pad_token_id`` is 1), else 512.
            batch_size: most pairs per forward.
            token_budget: most (pairs x padded length) tokens per forward.
            intra_op_threads: CPU threads; default = physical cores.
            quantized: CPU only: prefer ``model_quantized.onnx``/``model.int8.onnx`` (default: when
                present); ``False`` forces ``model.onnx``.
            labels: override ``id2label`` (``{id: name}``).
            top_k: premise chunks sent per hypothesis sentence.
            aggregation: ``"max"`` or ``"mean"`` over hypothesis sentences.
            conflict_threshold: three-way heads: P(contradiction) that is never hidden.

        Raises:
            StorageError: the directory or a required file is missing (the message lists them).
            ConfigError: unusable ``config.json`` / labels / provider / parameters.
        """
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - optional extra
            raise ConfigError(
                f"NLIModel needs the 'nli' extra (onnxruntime, tokenizers): {exc}", "providers"
            ) from None
        d = Path(model_dir)
        if not d.is_dir():
            raise StorageError(f"model_dir {str(d)!r} is not a directory")
        missing = [f for f in ("tokenizer.json", "config.json") if not (d / f).is_file()]
        if not any((d / f).is_file() for f in _MODEL_FILES_CPU + _MODEL_FILES_GPU):
            missing.insert(0, "model.onnx")
        if missing:
            raise StorageError(
                f"model_dir {str(d)!r} is missing {', '.join(missing)} (expected model.onnx, "
                "tokenizer.json and config.json with id2label; see `director-fast export-nli`)"
            )
        try:
            config = json.loads((d / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"config.json in {str(d)!r} is not valid JSON: {exc}", "config.json") from None
        id2label = labels if labels is not None else config.get("id2label")
        if not id2label:
            raise ConfigError("config.json has no id2label (pass labels=...)", "id2label")
        head, roles = label_roles(id2label)

        available = ort.get_available_providers()
        chosen, requested = _resolve_providers(providers, available)
        first = chosen[0] if isinstance(chosen[0], str) else chosen[0][0]
        want_gpu = first == "CUDAExecutionProvider"
        names = _MODEL_FILES_GPU if want_gpu else _MODEL_FILES_CPU
        if quantized is False:
            names = ("model.onnx",)
        model_path = next((d / f for f in names if (d / f).is_file()), None)
        if model_path is None:
            raise StorageError(f"model_dir {str(d)!r} has none of {names}")

        so = ort.SessionOptions()
        so.intra_op_num_threads = int(intra_op_threads) if intra_op_threads else _physical_cores()
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            session = ort.InferenceSession(str(model_path), sess_options=so, providers=chosen)
        except Exception as exc:  # noqa: BLE001 - ORT raises its own types
            raise ConfigError(f"cannot load {model_path.name}: {exc}", "model") from None
        active = session.get_providers()
        used = active[0]
        failed = [p for p in requested if p not in active]
        if failed:  # ONNX Runtime falls back to CPU (with a log line) when a provider cannot load
            raise ConfigError(
                f"providers: {', '.join(failed)} was requested but could not be loaded (the session "
                f"would run on {used}); check the CUDA / cuDNN installation or use providers='cpu' "
                "or 'auto'", "providers")
        if _CUDA in [c if isinstance(c, str) else c[0] for c in chosen] and _CUDA not in active:
            # "auto" with a CUDA build whose provider did not start: runs, on the CPU, but never silently
            logger.warning("NLIModel %s: CUDAExecutionProvider is installed but did not start; running on %s "
                           "(check the CUDA / cuDNN libraries, or pass providers='cpu')", d.name, used)
        logger.info("NLIModel %s loaded %s on %s", d.name, model_path.name, used)

        tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
        if max_length is None and isinstance(config.get("max_length"), int) and config["max_length"] >= 8:
            max_length = config["max_length"]  # the length the model was trained at
        if max_length is None:
            mpe = config.get("max_position_embeddings")
            if isinstance(mpe, int) and mpe > 0:
                max_length = mpe - 2 if config.get("pad_token_id") == 1 else mpe
            else:
                max_length = 512
            max_length = min(int(max_length), 512 if mpe is None else int(max_length))
        pad_id = config.get("pad_token_id")
        if not isinstance(pad_id, int):
            pad_id = 0
        model = cls(session, tok, head=head, roles=roles, max_length=int(max_length),
                    batch_size=batch_size, token_budget=token_budget, provider=used,
                    top_k=top_k, aggregation=aggregation, conflict_threshold=conflict_threshold,
                    name=d.name, pad_id=pad_id)
        model.model_dir = d
        model.model_file = model_path
        return model

    # -- low level --

    def _encode(self, pairs: Sequence[tuple[str, str]]) -> list[Any]:
        return self._tokenizer.encode_batch([(p, h) for p, h in pairs])

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` without special tokens."""
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def predict_proba(self, pairs: Sequence[tuple[str, str]], *, bucketing: bool = True) -> np.ndarray:
        """Softmax probabilities, float32 shape (len(pairs), n_labels), rows in input order.

        Pairs are sorted by token length and padded per batch (``bucketing=True``), each batch
        bounded by ``batch_size`` pairs and ``token_budget`` padded tokens; ``bucketing=False``
        pads every batch to the longest pair (for benchmarks).

        Raises:
            ValidationError: a pair longer than ``max_length`` tokens (use ``score_detailed``,
                which chunks instead of truncating).
        """
        return self._predict(list(pairs), bucketing)[0]

    def _predict(self, pairs: list[tuple[str, str]], bucketing: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities (input order) and the token length of each pair."""
        n_labels = len(self.roles) if self.head == "two_way" else 3
        if not pairs:
            return np.zeros((0, n_labels), dtype=np.float32), np.zeros(0, dtype=np.int64)
        encs = self._encode(pairs)
        lens = np.array([len(e.ids) for e in encs], dtype=np.int64)
        too_long = np.where(lens > self.max_length)[0]
        if too_long.size:
            i = int(too_long[0])
            raise ValidationError(
                f"pair {i} has {int(lens[i])} tokens > max_length {self.max_length}; "
                "use score_detailed() to chunk it (nothing is truncated)")
        order = np.argsort(lens, kind="stable") if bucketing else np.arange(len(pairs))
        global_max = int(lens.max())
        out = np.empty((len(pairs), n_labels), dtype=np.float32)
        start = 0
        batches = 0
        tokens = 0
        while start < len(order):
            end = start
            width = 0
            while end < len(order) and end - start < self.batch_size:
                w = max(width, int(lens[order[end]])) if bucketing else global_max
                if (end - start + 1) * w > self.token_budget and end > start:
                    break
                width = w
                end += 1
            idx = order[start:end]
            logits = self._run([encs[i] for i in idx], width)
            z = logits - logits.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            out[idx] = p
            tokens += int(lens[idx].sum())
            batches += 1
            start = end
        with self._lock:
            self.forward_count += len(pairs)
            self.token_count += tokens
            self.batch_count += batches
        return out, lens

    def _run(self, encs: list[Any], width: int) -> np.ndarray:
        b = len(encs)
        ids = np.full((b, width), self._pad_id, dtype=np.int64)
        mask = np.zeros((b, width), dtype=np.int64)
        types = np.zeros((b, width), dtype=np.int64)
        for r, e in enumerate(encs):
            n = len(e.ids)
            ids[r, :n] = e.ids
            mask[r, :n] = 1
            types[r, :n] = e.type_ids
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = types
        if self.provider == "CUDAExecutionProvider":  # pragma: no cover - needs a GPU
            binding = self._session.io_binding()
            for k, v in feed.items():
                binding.bind_cpu_input(k, v)
            binding.bind_output(self._output)
            self._session.run_with_iobinding(binding)
            return np.asarray(binding.copy_outputs_to_cpu()[0], dtype=np.float32)
        return np.asarray(self._session.run([self._output], feed)[0], dtype=np.float32)

    def _divergence(self, probs: np.ndarray) -> np.ndarray:
        if self.head == "three_way":
            return probs[:, self.roles["contradiction"]].astype(np.float64)
        return 1.0 - probs[:, self.roles["supported"]].astype(np.float64)

    @staticmethod
    def _confidence(probs: np.ndarray) -> np.ndarray:
        p = np.clip(probs.astype(np.float64), 1e-12, 1.0)
        h = -(p * np.log(p)).sum(axis=1)
        return 1.0 - h / math.log(probs.shape[1])

    # -- public scoring --

    def score(self, premise: str, hypothesis: str) -> float:
        """Response-level divergence in [0, 1] (chunked, never truncated)."""
        return self.score_detailed(premise, hypothesis).divergence

    def score_batch(self, pairs: Iterable[tuple[str, str]]) -> list[float]:
        """Divergences for ``[(premise, hypothesis)]`` in input order (each chunked as needed;
        all forwards of all pairs share length-bucketed batches)."""
        return [r.divergence for r in self.score_detailed_batch(list(pairs))]

    def _chunk_premise(self, premise: str, budget: int) -> list[str]:
        """Greedy packing of premise sentences into chunks of at most ``budget`` tokens; a
        sentence longer than the budget is split at token boundaries (by character offsets)."""
        sents = split_sentences_text(premise) or ([premise] if premise.strip() else [])
        chunks: list[str] = []
        cur: list[str] = []
        cur_len = 0
        for s in sents:
            enc = self._tokenizer.encode(s, add_special_tokens=False)
            n = len(enc.ids)
            if n > budget:
                if cur:
                    chunks.append(" ".join(cur))
                    cur, cur_len = [], 0
                offs = enc.offsets
                for a in range(0, n, budget):
                    b = min(n, a + budget)
                    chunks.append(s[offs[a][0]: offs[b - 1][1]])
                continue
            if cur and cur_len + n > budget:
                chunks.append(" ".join(cur))
                cur, cur_len = [], 0
            cur.append(s)
            cur_len += n
        if cur:
            chunks.append(" ".join(cur))
        return chunks

    def score_detailed(
        self,
        premise: str,
        hypothesis: str,
        *,
        top_k: int | None = None,
        exhaustive: bool = False,
        aggregation: str | None = None,
    ) -> NLIScore:
        """Chunk x sentence scoring with SummaC-ZS aggregation (see the module docstring).

        Args:
            premise, hypothesis: texts of any length.
            top_k: premise chunks per hypothesis sentence (default ``self.top_k``).
            exhaustive: score every chunk x sentence pair.
            aggregation: ``"max"`` / ``"mean"`` (default ``self.aggregation``).

        Returns:
            :class:`NLIScore` with the matrix, per-sentence and per-chunk divergences, forwards,
            tokens and ``oversize`` (hypothesis sentences longer than the model maximum: their
            divergence is ``nan``, they are excluded from the aggregate and reported).
        """
        return self.score_detailed_batch([(premise, hypothesis)], top_k=top_k, exhaustive=exhaustive,
                                         aggregation=aggregation)[0]

    def score_detailed_batch(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        top_k: int | None = None,
        exhaustive: bool = False,
        aggregation: str | None = None,
    ) -> list[NLIScore]:
        """:meth:`score_detailed` for many ``(premise, hypothesis)`` pairs, in input order; the
        forwards of all pairs go through one bucketed :meth:`predict_proba` call."""
        k = self.top_k if top_k is None else int(top_k)
        plans = []
        flat: list[tuple[str, str]] = []
        for n, pair in enumerate(pairs):
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise InputTypeError(f"pairs[{n}] must be a (premise, hypothesis) tuple")
            _check_str(pair[0], "premise")
            _check_str(pair[1], "hypothesis")
            plan = self._plan(pair[0], pair[1], k, exhaustive)
            plans.append((plan, len(flat)))
            if plan is not None:
                sents, chunks, cells, _ = plan
                flat.extend((chunks[c], sents[s]) for c, s in cells)
        probs, lens = self._predict(flat)
        out = []
        for plan, offset in plans:
            if plan is None:
                out.append(NLIScore(divergence=0.5, backend=f"onnx:{self.provider}"))
                continue
            sents, chunks, cells, oversize = plan
            p = probs[offset: offset + len(cells)]
            tok = int(lens[offset: offset + len(cells)].sum())
            out.append(self._finish(sents, chunks, cells, oversize, p, tok, aggregation))
        return out

    def _plan(self, premise: str, hypothesis: str, k: int, exhaustive: bool):
        sents = split_sentences_text(hypothesis)
        if not sents:
            return None
        hyp_tokens = [self.count_tokens(x) for x in sents]
        special = 4
        oversize = tuple(i for i, n in enumerate(hyp_tokens) if n + special + 8 > self.max_length)
        fit = [i for i in range(len(sents)) if i not in oversize]
        longest = max((hyp_tokens[i] for i in fit), default=0)
        budget = max(8, self.max_length - longest - special)
        chunks = self._chunk_premise(premise, budget) or [""]
        index = LexicalIndex(chunks) if not exhaustive and len(chunks) > k else None
        cells: list[tuple[int, int]] = []
        for x in fit:
            cand = range(len(chunks)) if index is None else [i for i, _ in index.top_k(sents[x], k)]
            cells.extend((c, x) for c in cand)
        return sents, chunks, cells, oversize

    def _finish(self, sents, chunks, cells, oversize, probs, tokens, aggregation) -> NLIScore:
        matrix = np.full((len(chunks), len(sents)), np.nan)
        contra = np.full_like(matrix, np.nan) if self.head == "three_way" else None
        conf = None
        if cells:
            div = self._divergence(probs)
            for (c, x), d, p in zip(cells, div, probs):
                matrix[c, x] = d
                if contra is not None:
                    contra[c, x] = p[self.roles["contradiction"]]
            conf = float(self._confidence(probs).mean())
        agg, per, best = aggregate_matrix(
            matrix, aggregation=aggregation or self.aggregation, contradiction=contra,
            conflict_threshold=self.conflict_threshold)
        with np.errstate(all="ignore"):
            chunk_scores = tuple(
                float(np.nanmin(row)) if not np.all(np.isnan(row)) else math.nan for row in matrix)
        return NLIScore(
            divergence=agg,
            sentences=tuple(sents),
            sentence_divergences=tuple(float(x) for x in per),
            best_chunk=tuple(int(x) for x in best),
            chunks=tuple(chunks),
            chunk_scores=chunk_scores,
            matrix=matrix,
            confidence=conf,
            token_count=tokens,
            forwards=len(cells),
            oversize=oversize,
            backend=f"onnx:{self.provider}",
        )

"""CoherenceScorer: dual-entropy coherence of an LLM response (DESIGN section 7).

``coherence = 1 - (w_logic * h_logical + w_fact * h_factual)`` with ``w_logic + w_fact = 1``
(defaults 0.6 / 0.4). ``h_logical`` is the NLI divergence of the response from the prompt (the
neutral 0.5 when the prompt is empty or blank, as in director-ai); ``h_factual`` is the divergence
of the response's claims from the evidence retrieved for (prompt, response) in the caller's tenant
(the neutral 0.5 when nothing is retrieved). Approved iff ``score >= threshold``; ``warning`` iff
``threshold <= score < soft_limit``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from director_fast import _core
from director_fast.core.types import ClaimAttribution, CoherenceScore, EvidenceChunk, ScoringEvidence
from director_fast._validate import check_text
from director_fast.errors import ConfigError, InputTypeError
from director_fast.nli import LexicalIndex, LexicalNLI, NLIModel, NLIScore

__all__ = ["CoherenceScorer", "SentenceScore"]

_NEUTRAL = 0.5


@dataclass(frozen=True)
class SentenceScore:
    """Coherence of one completed sentence, for incremental (streaming) scoring.

    Attributes:
        score: coherence in [0, 1] (1 = fully consistent).
        evidence: evidence chunks retrieved for the sentence in its tenant.
        nli_scores: divergence of the sentence from each evidence chunk, in [0, 1] (None: none).
        retrieval_path: ``"none"``, ``"lexical_facts"`` or ``"knowledge_base"``.
        scorer_path: dotted path of the scorer and backend, e.g.
            ``"director_fast.core.scorer.CoherenceScorer[lexical]"``.
        fact_source: comma-joined unique source labels of the evidence used ("" when none).
        informative: False when the sentence had nothing to be compared with (no declarative
            prompt and no evidence in the tenant): ``score`` is then the neutral 0.5 and
            ``stream_guard`` releases the sentence without feeding the kernel an invented score.
    """

    score: float
    evidence: tuple[EvidenceChunk, ...] = ()
    nli_scores: tuple[float, ...] | None = None
    retrieval_path: str = "none"
    scorer_path: str = ""
    fact_source: str = ""
    informative: bool = True


def _check_unit(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name} must be a number in [0, 1], got {type(value).__name__}", name)
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise ConfigError(f"{name} must be in [0, 1], got {value}", name)
    return v


_REQUEST_WORDS = frozenset(
    "tell describe explain summarize summarise list give write show compare name provide please "
    "can could would will do does did is are was were what who whom whose when where why how which "
    "find answer translate define continue elaborate expand rewrite rephrase paraphrase complete "
    "generate create draft respond reply say help check verify classify extract analyze analyse "
    "discuss outline suggest recommend calculate solve go let".split())


def declarative_part(prompt: str) -> str:
    """The sentences of ``prompt`` that assert something: questions (ending in ``?``) and
    requests (starting with a request or question word such as "Tell", "Explain", "What",
    "Continue") are dropped, since an answer neither follows from nor contradicts them; a request
    word followed by a colon keeps what follows it ("Summarize: Acme was founded in 1998." keeps
    "Acme was founded in 1998."). Returns ``""`` when
    nothing declarative remains; the prompt is then treated like an empty one (h_logical = 0.5).
    Sentences are split with :func:`director_fast.text.split_sentences`, each kept one is
    stripped of whitespace, and they are joined with one space.

    Runs in C++ (``_core.declarative_part``, GIL released); :func:`_declarative_part_py` is the
    reference the tests compare it with.

    Raises:
        InputTypeError: ``prompt`` is not a str. ValidationError: a lone surrogate.
    """
    return _core.declarative_part(prompt)


def _declarative_part_py(prompt: str) -> str:
    """Python reference of :func:`declarative_part`."""
    from director_fast.text import split_sentences

    if not prompt.strip():
        return ""
    kept = []
    for a, b in split_sentences(prompt):
        sent = prompt[a:b].strip()
        if not sent or sent.endswith("?"):
            continue
        first_raw = sent.split(None, 1)[0]
        first = first_raw.strip("\"'([{").lower()
        if first.rstrip(",:;.!") in _REQUEST_WORDS:
            # "Summarize: <material>": the request is dropped, the material after it is kept
            rest = sent[len(first_raw):].strip() if first.endswith(":") else ""
            if rest:
                kept.append(rest)
            continue
        kept.append(sent)
    return " ".join(kept)


class CoherenceScorer:
    """Scores (prompt, response) pairs and approves or rejects them.

    Args:
        threshold: approval threshold in [0, 1] (approved iff score >= threshold). Default 0.5.
        soft_limit: warning band upper bound in [threshold, 1]; default ``min(threshold + 0.1, 1)``.
        w_logic, w_fact: weights in [0, 1] summing to 1 (defaults 0.6 / 0.4; giving one alone
            sets the other to its complement).
        strict_mode: reject (``strict_mode_rejected=True``, ``approved=False``) whenever no NLI
            *model* is loaded -- the lexical heuristic is not a model.
        nli: the NLI backend: a :class:`~director_fast.nli.LexicalNLI` (default) or
            :class:`~director_fast.nli.NLIModel`, or any object with ``score``,
            ``score_detailed`` and ``model_backed``.
        nli_model: path of an ONNX NLI directory; loads ``NLIModel.from_pretrained(nli_model)``.
        knowledge: evidence source, one of: ``None``; a list of fact strings (shared by all
            tenants); a mapping ``tenant_id -> list of fact strings`` (strictly tenant-scoped: a
            tenant never sees another tenant's facts); or an object with
            ``retrieve(query, k=..., tenant=...) -> list[EvidenceChunk]`` (the knowledge base).
        ground_truth_store: director-ai's name for ``knowledge``.
        use_nli: director-ai's switch. ``None`` (default): the model when ``nli`` / ``nli_model``
            is given, else the lexical heuristic. ``False``: the lexical heuristic (a model given
            as well is a ConfigError). ``True``: a model is required -- ConfigError when none is
            given (nothing is ever downloaded).
        require_model_backed_nli: ``True`` raises ConfigError unless an NLI model is loaded.
        onnx_path: director-ai's name for ``nli_model`` (an ONNX NLI directory).
        top_k: evidence chunks retrieved per query (>= 1).
        cache_size: entries of the per-sentence cache used by :meth:`score_sentence` (>= 0).

    Raises:
        ConfigError: an invalid parameter (``.field`` names it).

    Thread safety: scoring methods may be called concurrently from many threads; the caches are
    guarded by a lock, the backends are thread-safe, and a knowledge object must itself be
    thread-safe for concurrent reads.
    """

    W_LOGIC = 0.6
    W_FACT = 0.4

    def __init__(
        self,
        threshold: float = 0.5,
        *,
        soft_limit: float | None = None,
        w_logic: float | None = None,
        w_fact: float | None = None,
        strict_mode: bool = False,
        nli: Any | None = None,
        nli_model: str | None = None,
        knowledge: Any | None = None,
        ground_truth_store: Any | None = None,
        top_k: int = 3,
        cache_size: int = 4096,
        use_nli: bool | None = None,
        require_model_backed_nli: bool = False,
        onnx_path: str | None = None,
    ) -> None:
        self.threshold = _check_unit(threshold, "threshold")
        self.soft_limit = (_check_unit(soft_limit, "soft_limit") if soft_limit is not None
                           else min(self.threshold + 0.1, 1.0))
        if self.soft_limit < self.threshold:
            raise ConfigError(f"soft_limit ({self.soft_limit}) must be >= threshold ({self.threshold})",
                              "soft_limit")
        if w_logic is not None or w_fact is not None:
            wl = _check_unit(w_logic, "w_logic") if w_logic is not None else 1.0 - _check_unit(w_fact, "w_fact")
            wf = _check_unit(w_fact, "w_fact") if w_fact is not None else 1.0 - wl
            if abs(wl + wf - 1.0) > 1e-9:
                raise ConfigError(f"w_logic + w_fact must equal 1.0, got {wl + wf}", "w_fact")
            self.W_LOGIC, self.W_FACT = wl, wf
        if not isinstance(strict_mode, bool):
            raise ConfigError("strict_mode must be a bool", "strict_mode")
        self.strict_mode = strict_mode
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ConfigError(f"top_k must be an int >= 1, got {top_k!r}", "top_k")
        self.top_k = top_k
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ConfigError(f"cache_size must be an int >= 0, got {cache_size!r}", "cache_size")
        self._cache_size = cache_size
        if onnx_path is not None:
            if nli_model is not None:
                raise ConfigError("give either nli_model or onnx_path, not both", "onnx_path")
            nli_model = onnx_path
        if nli is not None and nli_model is not None:
            raise ConfigError("give either nli or nli_model, not both", "nli_model")
        for name, flag in (("use_nli", use_nli), ("require_model_backed_nli", require_model_backed_nli)):
            if flag is not None and not isinstance(flag, bool):
                raise ConfigError(f"{name} must be a bool", name)
        if use_nli is False and (nli is not None or nli_model is not None):
            raise ConfigError("use_nli=False contradicts the nli / nli_model given", "use_nli")
        if nli_model is not None:
            nli = NLIModel.from_pretrained(nli_model)
        self.nli = nli if nli is not None else LexicalNLI()
        if (use_nli or require_model_backed_nli) and not getattr(self.nli, "model_backed", False):
            raise ConfigError(
                "an NLI model was required (use_nli=True / require_model_backed_nli=True) but none is "
                "loaded: pass nli=NLIModel.from_pretrained(DIR) or nli_model=DIR (nothing is downloaded; "
                "`director-fast export-nli` makes such a directory)",
                "use_nli" if use_nli else "require_model_backed_nli")
        for attr in ("score", "score_detailed"):
            if not callable(getattr(self.nli, attr, None)):
                raise ConfigError(f"nli backend must have a callable {attr}()", "nli")
        if knowledge is not None and ground_truth_store is not None:
            raise ConfigError("give either knowledge or ground_truth_store, not both", "knowledge")
        self.knowledge = knowledge if knowledge is not None else ground_truth_store
        self._validate_knowledge(self.knowledge)
        # Fact lists are indexed once here (later mutation of the list is not seen).
        self._fact_index: dict[str | None, LexicalIndex] = {}
        if isinstance(self.knowledge, Mapping):
            self._fact_index = {t: LexicalIndex(f) for t, f in self.knowledge.items()}
        elif self.knowledge is not None and not callable(getattr(self.knowledge, "retrieve", None)):
            self._fact_index = {None: LexicalIndex(self.knowledge)}
        kind = "lexical" if not self.model_backed else f"onnx:{getattr(self.nli, 'name', 'model')}"
        self.scorer_path = f"director_fast.core.scorer.CoherenceScorer[{kind}]"
        self._lock = threading.Lock()
        self._sentence_cache: OrderedDict[tuple, SentenceScore] = OrderedDict()
        self._premises: OrderedDict[str, Any] = OrderedDict()
        self._retrieval_cache: OrderedDict[tuple, tuple] = OrderedDict()

    # ---- configuration helpers ----

    @property
    def model_backed(self) -> bool:
        """True when an NLI model (not the lexical heuristic) scores."""
        return bool(getattr(self.nli, "model_backed", False))

    @staticmethod
    def _validate_knowledge(k: Any) -> None:
        if k is None or callable(getattr(k, "retrieve", None)):
            return
        if isinstance(k, Mapping):
            for t, facts in k.items():
                if not isinstance(t, str):
                    raise ConfigError("knowledge mapping keys must be tenant id strings", "knowledge")
                CoherenceScorer._validate_facts(facts, f"knowledge[{t!r}]")
            return
        CoherenceScorer._validate_facts(k, "knowledge")

    @staticmethod
    def _validate_facts(facts: Any, name: str) -> None:
        if isinstance(facts, str) or not isinstance(facts, (list, tuple)):
            raise ConfigError(f"{name} must be a list of fact strings", "knowledge")
        for i, f in enumerate(facts):
            if not isinstance(f, str):
                raise ConfigError(f"{name}[{i}] must be a str, got {type(f).__name__}", "knowledge")

    # ---- retrieval ----

    def retrieve(self, query: str, *, tenant_id: str = "", k: int | None = None) -> tuple[list[EvidenceChunk], str]:
        """Evidence for ``query`` in ``tenant_id``: ``(chunks, retrieval_path)``.

        :meth:`score` queries with the prompt when it is not blank, and with the response when
        the prompt is blank or retrieves nothing.
        Lists of facts are searched lexically (IDF-weighted word overlap; punctuation, case and
        possessives never block a match); ``distance = 1 - overlap`` in [0, 1]. Only facts that
        share at least one word with the query are returned.
        """
        k = self.top_k if k is None else k
        kb = self.knowledge
        if kb is None:
            return [], "none"
        if callable(getattr(kb, "retrieve", None)):
            # tenant "" is the default tenant, never "all tenants" (None): retrieval is always scoped
            got = kb.retrieve(query, k=k, tenant=tenant_id)
            chunks = [c if isinstance(c, EvidenceChunk) else EvidenceChunk(text=str(c), distance=0.0)
                      for c in (got or [])]
            return chunks, "knowledge_base" if chunks else "none"
        if isinstance(kb, Mapping):
            index = self._fact_index.get(tenant_id)
            label = f"tenant:{tenant_id}:fact:" if tenant_id else "fact:"
        else:
            index = self._fact_index[None]
            label = "fact:"
        if index is None:
            return [], "none"
        key = (tenant_id, query, k)
        with self._lock:
            hit = self._retrieval_cache.get(key)
            if hit is not None:
                self._retrieval_cache.move_to_end(key)
                return list(hit[0]), hit[1]
        hits = [(i, s) for i, s in index.top_k(query, k) if s > 0.0]
        chunks = [EvidenceChunk(text=index.docs[i], distance=round(1.0 - s, 12), source=f"{label}{i}")
                  for i, s in hits]
        path = "lexical_facts" if chunks else "none"
        with self._lock:
            self._retrieval_cache[key] = (tuple(chunks), path)
            while len(self._retrieval_cache) > 256:
                self._retrieval_cache.popitem(last=False)
        return chunks, path

    # ---- core ----

    def _premise(self, text: str) -> Any:
        """Prepared premise for the lexical backend (small LRU), else the text."""
        prepare = getattr(self.nli, "prepare", None)
        if prepare is None:
            return text
        with self._lock:
            p = self._premises.get(text)
            if p is not None:
                self._premises.move_to_end(text)
                return p
        p = prepare(text)
        with self._lock:
            self._premises[text] = p
            while len(self._premises) > 8:
                self._premises.popitem(last=False)
        return p

    def _logical(self, prompt: str, response: str) -> NLIScore | None:
        premise = declarative_part(prompt)
        if not premise:
            return None
        return self.nli.score_detailed(self._premise(premise), response)

    def calculate_logical_divergence(self, prompt: str, response: str) -> float:
        """h_logical in [0, 1]: divergence of the response from the prompt's declarative part
        (see :func:`declarative_part`); the neutral 0.5 when the prompt asserts nothing (empty,
        or only questions and requests)."""
        r = self._logical(prompt, response)
        return _NEUTRAL if r is None else float(r.divergence)

    def calculate_factual_divergence(self, prompt: str, response: str, tenant_id: str = "") -> float:
        """h_factual in [0, 1]; 0.5 when no evidence is retrieved."""
        return self._factual(prompt, response, tenant_id)[0]

    def _evidence_for(self, prompt: str, response: str, tenant_id: str) -> tuple[list[EvidenceChunk], str]:
        # Retrieval is driven by the question when there is one (a wrong answer must not pull in
        # the facts that would make it look supported), else -- blank prompt, or a prompt that
        # matches no fact ("Tell me more.") -- by the response itself, so that a generic
        # follow-up prompt cannot turn every answer into "no evidence, neutral 0.5".
        chunks: list[EvidenceChunk] = []
        path = "none"
        if prompt.strip():
            chunks, path = self.retrieve(prompt, tenant_id=tenant_id)
        if not chunks:
            chunks, path = self.retrieve(response, tenant_id=tenant_id)
        return chunks, path

    def _factual(self, prompt: str, response: str, tenant_id: str):
        chunks, path = self._evidence_for(prompt, response, tenant_id)
        if not chunks:
            return _NEUTRAL, chunks, path, None, []
        premise = "\n".join(c.text for c in chunks)
        detail = self.nli.score_detailed(premise, response)
        per_chunk = [float(self.nli.score(c.text, response)) for c in chunks]
        return float(detail.divergence), chunks, path, detail, per_chunk

    def _check_inputs(self, prompt: Any, response: Any, tenant_id: Any) -> None:
        check_text(prompt, "prompt")
        check_text(response, "response")
        if not isinstance(tenant_id, str):
            raise InputTypeError(f"tenant_id must be a str, got {type(tenant_id).__name__}")

    def score(self, prompt: str, action: str, *, tenant_id: str = "") -> CoherenceScore:
        """Score ``action`` (the response) against ``prompt`` and the tenant's evidence.

        Returns:
            :class:`CoherenceScore` with ``score`` in [0, 1], ``h_logical``, ``h_factual``,
            ``approved``, ``warning``, ``strict_mode_rejected``, ``evidence`` (chunks, per-chunk
            divergences, claims, per-claim attributions, claim coverage, token count),
            ``nli_model_confidence`` (model: 1 - normalised softmax entropy; lexical: signal
            strength), ``signal_agreement`` = 1 - |h_logical - h_factual| and
            ``verdict_confidence`` = |score - threshold| / max(threshold, 1 - threshold).

        Raises:
            InputTypeError: non-string inputs.
        """
        self._check_inputs(prompt, action, tenant_id)
        logical = self._logical(prompt, action)
        _h, chunks, _path, factual, per_chunk = self._factual(prompt, action, tenant_id)
        return self._assemble(prompt, action, logical, chunks, factual, per_chunk)

    def _assemble(self, prompt: str, action: str, logical: NLIScore | None, chunks: list[EvidenceChunk],
                  factual: NLIScore | None, per_chunk: list[float]) -> CoherenceScore:
        h_logical = _NEUTRAL if logical is None else float(logical.divergence)
        h_factual = _NEUTRAL if factual is None else float(factual.divergence)
        score = 1.0 - (self.W_LOGIC * h_logical + self.W_FACT * h_factual)
        score = min(1.0, max(0.0, score))
        strict_rejected = self.strict_mode and not self.model_backed
        approved = score >= self.threshold and not strict_rejected
        warning = (not strict_rejected) and self.threshold <= score < self.soft_limit

        detail = factual if factual is not None else logical
        evidence = None
        if detail is not None:
            src = [c.text for c in chunks] if factual is not None else None
            attributions = []
            for i, (claim, d, b) in enumerate(zip(detail.sentences, detail.sentence_divergences,
                                                  detail.best_chunk)):
                source_sentence = detail.chunks[b] if 0 <= b < len(detail.chunks) else ""
                attributions.append(ClaimAttribution(
                    claim=claim, claim_index=i, source_sentence=source_sentence, source_index=int(b),
                    divergence=float(d), supported=bool(d == d and d < 0.5)))
            n_claims = len(detail.sentences)
            coverage = (sum(1 for a in attributions if a.supported) / n_claims) if n_claims else None
            tokens = (logical.token_count if logical is not None else 0) + (
                factual.token_count if factual is not None else 0)
            evidence = ScoringEvidence(
                chunks=list(chunks),
                nli_premise=("\n".join(src) if src is not None else prompt),
                nli_hypothesis=action,
                nli_score=float(detail.divergence),
                chunk_scores=per_chunk or None,
                premise_chunk_count=max(1, len(detail.chunks)),
                hypothesis_chunk_count=max(1, n_claims),
                attributions=attributions,
                token_count=tokens,
                claim_coverage=coverage,
                per_claim_divergences=[float(d) for d in detail.sentence_divergences],
                claims=list(detail.sentences),
            )
        confs = [r.confidence for r in (logical, factual) if r is not None and r.confidence is not None]
        nli_conf = float(sum(confs) / len(confs)) if confs else None
        agreement = 1.0 - abs(h_logical - h_factual)
        verdict_conf = min(1.0, abs(score - self.threshold) / max(self.threshold, 1.0 - self.threshold, 1e-12))
        return CoherenceScore(
            score=score, approved=approved, h_logical=h_logical, h_factual=h_factual,
            evidence=evidence, warning=warning, strict_mode_rejected=strict_rejected,
            verdict_confidence=verdict_conf, nli_model_confidence=nli_conf,
            signal_agreement=agreement,
        )

    def review(self, prompt: str, action: str, session: Any | None = None,
               tenant_id: str = "") -> tuple[bool, CoherenceScore]:
        """``(approved, CoherenceScore)`` for ``action`` given ``prompt`` (see :meth:`score`).

        ``session`` is accepted for director-ai compatibility and ignored.
        """
        s = self.score(prompt, action, tenant_id=tenant_id)
        return s.approved, s

    def review_batch(self, items: Iterable[tuple[str, str]], tenant_id: str = "") -> list[tuple[bool, CoherenceScore]]:
        """``review`` for each ``(prompt, response)`` pair, in input order.

        With an NLI model every model call of the whole batch (logical, factual and per-chunk
        pairs) goes through one length-bucketed ``score_detailed_batch`` call.
        """
        if not hasattr(items, "__iter__") or isinstance(items, (str, bytes)):
            raise InputTypeError(f"items must be an iterable of (prompt, response) tuples, got {type(items).__name__}")
        items = list(items)
        for i, it in enumerate(items):
            if not (isinstance(it, tuple) and len(it) == 2):
                raise InputTypeError(f"items[{i}] must be a (prompt, response) tuple")
            self._check_inputs(it[0], it[1], tenant_id)
        batch = getattr(self.nli, "score_detailed_batch", None)
        if batch is None:
            return [self.review(p, a, tenant_id=tenant_id) for p, a in items]
        requests: list[tuple[str, str]] = []
        plans = []
        for prompt, action in items:
            chunks, _path = self._evidence_for(prompt, action, tenant_id)
            li = None
            declarative = declarative_part(prompt)
            if declarative:
                li = len(requests)
                requests.append((declarative, action))
            fi = None
            if chunks:
                fi = len(requests)
                requests.append(("\n".join(c.text for c in chunks), action))
                requests.extend((c.text, action) for c in chunks)
            plans.append((prompt, action, chunks, li, fi))
        results = batch(requests)
        out = []
        for prompt, action, chunks, li, fi in plans:
            logical = results[li] if li is not None else None
            factual = results[fi] if fi is not None else None
            per_chunk = ([float(r.divergence) for r in results[fi + 1: fi + 1 + len(chunks)]]
                         if fi is not None else [])
            c = self._assemble(prompt, action, logical, chunks, factual, per_chunk)
            out.append((c.approved, c))
        return out

    def score_batch(self, items: Sequence[tuple[str, str]], *, tenant_id: str = "") -> list[CoherenceScore]:
        """``score`` for each ``(prompt, response)`` pair, in input order."""
        return [s for _, s in self.review_batch(items, tenant_id=tenant_id)]

    # ---- incremental (streaming) ----

    def score_sentence(self, sentence: str, *, prompt: str = "", previous: str = "",
                       tenant_id: str = "") -> SentenceScore:
        """Coherence of one completed sentence of a streamed response.

        Scored once per ``(tenant_id, prompt, sentence)`` and cached (LRU of ``cache_size``), so
        a streamed response costs about as much as scoring it once. Retrieval is scoped to
        ``tenant_id``. ``previous`` (the text before the sentence) is accepted for the streaming
        guard's protocol but does not change the score.

        Returns:
            :class:`SentenceScore`.
        """
        self._check_inputs(prompt, sentence, tenant_id)
        key = (tenant_id, prompt, sentence)
        with self._lock:
            hit = self._sentence_cache.get(key)
            if hit is not None:
                self._sentence_cache.move_to_end(key)
                return hit
        logical = self._logical(prompt, sentence)
        h_logical = _NEUTRAL if logical is None else float(logical.divergence)
        h_factual, chunks, path, _detail, per_chunk = self._factual(prompt, sentence, tenant_id)
        nli_scores = tuple(per_chunk) if chunks else None
        score = min(1.0, max(0.0, 1.0 - (self.W_LOGIC * h_logical + self.W_FACT * h_factual)))
        sources = list(dict.fromkeys(c.source for c in chunks if c.source))
        result = SentenceScore(score=score, evidence=tuple(chunks), nli_scores=nli_scores,
                               retrieval_path=path, scorer_path=self.scorer_path,
                               fact_source=",".join(sources),
                               informative=logical is not None or bool(chunks))
        if self._cache_size:
            with self._lock:
                self._sentence_cache[key] = result
                while len(self._sentence_cache) > self._cache_size:
                    self._sentence_cache.popitem(last=False)
        return result

    def clear_cache(self) -> None:
        """Drop the sentence and premise caches."""
        with self._lock:
            self._sentence_cache.clear()
            self._premises.clear()
            self._retrieval_cache.clear()

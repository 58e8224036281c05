"""CoherenceScorer: claim-level verification of an LLM response against evidence.

A response is split into units (:func:`director_fast.verify.claims.split_claims`); only factual
``claim`` units are judged; pleasantries, offers, questions, self-references and abstentions are
reported in ``ScoringEvidence.skipped_units`` and never lower the score. Each claim is compared,
one evidence unit at a time, with the sentences of the chunks retrieved for that claim in the
caller's tenant and with the call's own ``context`` (:mod:`director_fast.verify.claim_evidence`);
the rules give a verdict per claim, ``supported``, ``contradicted`` or ``not_found``
(:mod:`director_fast.verify.claim_verdict`). With the claim verifier that ships with the package
(``use_nli=True``; :mod:`director_fast.verify.claim_model`), every claim the rules do not
contradict on a precise check (number, unit, name, role, negation, antonym, dropped exception) is
then judged by the model against a premise composed of its evidence sentences (a claim the rules
found supported, against that one supporting fact; a claim sharing no word with the call's
context, against the context's first sentences), and gets a calibrated
probability of being supported as its score; a rule-contradicted claim keeps the rules' score.
With the lexical backend (the default) claim scores map the rules' verdicts:

* ``supported`` >= ``soft_limit``; ``not_found`` in [``threshold``, ``soft_limit``) under
  ``unsupported="warn"`` and below ``threshold`` under the default ``unsupported="reject"``;
  ``contradicted`` below ``not_found``.

Either way:

* ``h_logical`` = the strongest contradiction between a claim and a statement of the user's
  prompt (0.0 when the prompt states nothing: a question is never a premise to entail);
* response score = min(claim scores, 1 - h), ``h`` the strongest contradiction with the prompt
  among the claims the knowledge does not support (a supported claim that contradicts the prompt
  corrects the user: it stays in ``h_logical`` but lowers nothing); 1.0 when the response makes
  no factual claim; ``approved = score >= threshold``; ``warning = threshold <= score < soft_limit``;
  ``h_factual`` = the largest per-claim divergence (1 - claim score).

This replaces director-ai's weighted ``1 - (w_logic * h_logical + w_fact * h_factual)``: a weighted
mean lets a well-supported claim hide a wrong one, and a question treated as a premise rejects
correct answers that add information.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from director_fast import _core, telemetry as _telemetry
from director_fast._log import warn_limited
from director_fast._lru import LRUCache
from director_fast._validate import check_text, check_unit_interval
from director_fast.verify.claim_evidence import (
    ContextEvidence,
    EvidenceUnit,
    KnowledgeAccess,
    member_about,
    member_unit,
    most_about,
    opens_with_anaphor as _opens_with_anaphor,
    sentence_units,
)
from director_fast.verify.claim_verdict import (
    UNSUPPORTED_MODES,
    VERDICT_ORDER,
    ClaimDecision,
    bare_answers,
    claim_score,
    compose,
    conjuncts,
    content_words,
    decide,
    flip,
    make_judge,
    number_conflict,
    polarity_flipped,
)
from director_fast.verify.claims import split_claims
from director_fast.verify.claim_model import (
    RULE_SIGNALS,
    ClaimVerifier,
    ModelCheck,
    VerifierCalibration,
    file_sha256,
    response_probability,
)
from director_fast.verify.citation_status import StatusView, warned_score
from director_fast.verify.applied_rules import applied_rule
from director_fast.verify.derived_numbers import strip_derived
from director_fast.verify.numbers import ascii_digits, without_numbers
from director_fast.verify.text import split_sentences
from director_fast.types.verification import CitationStatusVerdict
from director_fast.types.results import (
    ClaimAttribution,
    CoherenceScore,
    EvidenceChunk,
    ScoringEvidence,
    SkippedUnit,
)
from director_fast.errors import ConfigError, InputTypeError, UnknownTenantError
from director_fast.verify.nli import LexicalIndex, LexicalNLI, NLIModel
from director_fast.verify.roles import CallRoles, resolve_roles

__all__ = ["CoherenceScorer", "SentenceScore", "backend_kwargs", "declarative_part"]

logger = logging.getLogger("director_fast.scorer")


@dataclass(frozen=True)
class SentenceScore:
    """Coherence of one completed sentence, for incremental (streaming) scoring.

    Attributes:
        score: min over the sentence's claim scores and 1 - the contradictions with the prompt
            of its unsupported claims, in [0, 1] (as the response score); 1.0 when the sentence
            makes no factual claim.
        evidence: the evidence chunks that decided the sentence's claims.
        nli_scores: divergence (1 - score) of each claim of the sentence, in [0, 1] (None: none).
        retrieval_path: ``"none"``, ``"lexical_facts"``, ``"knowledge_base"``, ``"context"``,
            ``"unknown_tenant"``.
        scorer_path: dotted path of the scorer and backend.
        fact_source: comma-joined unique source labels of the deciding evidence ("" when none).
        informative: False when the sentence makes no factual claim (a pleasantry, an offer, a
            question, an abstention): ``stream_guard`` then releases it at once without feeding
            the halt kernel a score.
        attributions: one :class:`ClaimAttribution` per claim of the sentence (``claim_index``
            counts within the sentence; start/end are offsets in the sentence).
        evidence_refs: audit references (``kb:<id>``, ``fact:<i>``, ``ctx:<i>``) of the evidence
            that decided the lowest-scoring claim; never source labels.
        worst_claim: index in ``attributions`` of the lowest-scoring claim (-1: none).
    """

    score: float
    evidence: tuple[EvidenceChunk, ...] = ()
    nli_scores: tuple[float, ...] | None = None
    retrieval_path: str = "none"
    scorer_path: str = ""
    fact_source: str = ""
    informative: bool = True
    attributions: tuple[ClaimAttribution, ...] = ()
    evidence_refs: tuple[str, ...] = ()
    worst_claim: int = -1


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
    "Acme was founded in 1998."). Returns ``""`` when nothing declarative remains. Sentences are
    split with :func:`director_fast.verify.text.split_sentences`, each kept one is stripped of
    whitespace, and they are joined with one space.

    Runs in C++ (``_core.declarative_part``, GIL released); :func:`_declarative_part_py` is the
    reference the tests compare it with.

    Raises:
        InputTypeError: ``prompt`` is not a str. ValidationError: a lone surrogate.
    """
    return _core.declarative_part(prompt)


def _declarative_part_py(prompt: str) -> str:
    """Python reference of :func:`declarative_part`."""
    from director_fast.verify.text import split_sentences

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


@dataclass(frozen=True, slots=True)
class _ClaimResult:
    """One judged claim: the unit, the decision, its score and the deciding evidence."""

    text: str
    start: int
    end: int
    decision: ClaimDecision
    score: float
    unit: EvidenceUnit | None
    chunks: tuple[EvidenceChunk, ...]
    contradiction: float  # h_logical contribution: contradiction with the prompt, in [0, 1]
    # the part of it that lowers the score: 0.0 for a supported claim (it corrects the user)
    counted: float
    check: ModelCheck | None = None  # what the claim verifier's model said (None: not asked)
    lexical: ClaimDecision | None = None  # the rules' decision the model's replaced


@dataclass(frozen=True, slots=True)
class _Judgement:
    claims: tuple[_ClaimResult, ...]
    skipped: tuple[SkippedUnit, ...]
    path: str
    citation_status: tuple[CitationStatusVerdict, ...] | None = None  # sources with a status


class CoherenceScorer:
    """Judges responses claim by claim against evidence and approves or rejects them.

    Args:
        threshold: approval threshold in [0, 1] (approved iff score >= threshold). Default 0.5.
        soft_limit: warning band upper bound in [threshold, 1]; default ``min(threshold + 0.1, 1)``.
            Supported claims score at least this.
        unsupported: what a claim without supporting evidence (``not_found``) does: ``"reject"``
            (default; it scores below ``threshold``) or ``"warn"`` (it scores in the warning band
            [threshold, soft_limit): approved with ``warning=True``).
        w_logic, w_fact: accepted for director-ai compatibility and validated (in [0, 1], summing
            to 1) but unused: the claim-level score takes the minimum, not a weighted mean.
        strict_mode: reject (``strict_mode_rejected=True``, ``approved=False``) whenever no NLI
            *model* is loaded -- the lexical heuristic is not a model.
        nli: the NLI backend: ``None`` (default: the lexical backend, unless ``use_nli=True``),
            a :class:`~director_fast.verify.nli.LexicalNLI`, or an
            :class:`~director_fast.verify.nli.NLIModel`: a three-way model becomes the claim
            verifier, calibrated by its directory's ``calibration.json`` when it has one (else
            claim probability = P(entailment)); ``NLIModel.shipped()`` is the one that ships.
        nli_model: path of an ONNX NLI directory; loads ``NLIModel.from_pretrained(nli_model)``.
        knowledge: evidence source, one of: ``None`` (no evidence: every claim is ``not_found``
            and a warning is logged, unless the call passes ``context``); a list of fact strings
            (shared by all tenants); a mapping ``tenant_id -> list of fact strings`` (strictly
            tenant-scoped); or an object with ``retrieve(query, k=..., tenant=...)`` such as
            :class:`~director_fast.verify.knowledge.KnowledgeBase` (tenant-scoped; its ``version`` keys
            the caches, so ``kb.add(...)`` takes effect at once).
        ground_truth_store: director-ai's name for ``knowledge``.
        allow_unknown_tenant: with a ``KnowledgeBase`` or a tenant mapping, a tenant that holds
            no knowledge raises :class:`~director_fast.errors.UnknownTenantError` (at ``review``
            and when ``stream_guard`` starts) unless this is True; then every claim is
            ``not_found`` with signal ``unknown_tenant`` and a warning is logged.
        use_nli: director-ai's switch. ``None`` (default): the model given (``nli`` /
            ``nli_model``), else the lexical backend. ``False``: the lexical backend (a model
            given as well is a ConfigError). ``True``: a model is required: the shipped claim
            verifier (:meth:`~director_fast.verify.nli.NLIModel.shipped`) unless one is given;
            an error, never a fallback, when it cannot load (nothing is ever downloaded).
        require_model_backed_nli: ``True`` raises ConfigError unless an NLI model is loaded.
        onnx_path: director-ai's name for ``nli_model``.
        top_k: chunks retrieved per claim (>= 1); each chunk's sentences are the claim's
            evidence units.
        context_units: units of the call's ``context`` compared with each claim (>= 1; the most
            similar ones by IDF-weighted word overlap).
        lexical_signals: with an NLI model, the claim verifier: the rules keep the precise
            checks and the model judges the other claims, calibrated (default True); False: the
            model's verdicts alone (largest class; no rules, no calibration).
        injection_detection: also run intent-grounded injection detection
            (:class:`~director_fast.verify.injection.InjectionDetector`'s rules) on every :meth:`score` /
            :meth:`review`: ``CoherenceScore.injection_risk`` is its ``combined_score``, and a
            response with ``injection_risk > injection_threshold`` is rejected (``approved=False``,
            ``warning=False``; ``score`` is unchanged). Default False (``injection_risk`` None).
            Not applied by :meth:`score_sentence` (streaming).
        injection_threshold: in [0, 1], default 0.7.
        cache_size: entries of the per-claim verdict cache (>= 0; keyed on the knowledge's
            ``version``, so it never serves a verdict from before a ``kb.add``).
        score_scale: ``(threshold, soft_limit)`` that claim verdicts are mapped to scores with
            (default: ``threshold`` and ``soft_limit`` themselves). A calibrated threshold
            (:func:`director_fast.tune_threshold`, :meth:`from_config`) is a cut on the scale the
            tuning scores were produced with; keeping that scale makes ``approved`` exactly
            ``score >= threshold`` on it.

    Raises:
        ConfigError: an invalid parameter (``.field`` names it).

    Thread safety: every scoring method may be called concurrently from many threads; the caches
    are guarded by locks, the backends are thread-safe, and a knowledge object must itself be
    thread-safe for concurrent reads.
    """

    W_LOGIC = 0.6
    W_FACT = 0.4

    def __init__(
        self,
        threshold: float = 0.5,
        *,
        soft_limit: float | None = None,
        unsupported: str = "reject",
        w_logic: float | None = None,
        w_fact: float | None = None,
        strict_mode: bool = False,
        nli: Any | None = None,
        nli_model: str | None = None,
        knowledge: Any | None = None,
        ground_truth_store: Any | None = None,
        allow_unknown_tenant: bool = False,
        top_k: int = 3,
        context_units: int = 8,
        cache_size: int = 4096,
        use_nli: bool | None = None,
        require_model_backed_nli: bool = False,
        onnx_path: str | None = None,
        lexical_signals: bool = True,
        injection_detection: bool = False,
        injection_threshold: float = 0.7,
        score_scale: tuple[float, float] | None = None,
    ) -> None:
        self.threshold = check_unit_interval(threshold, "threshold")
        self.soft_limit = (check_unit_interval(soft_limit, "soft_limit") if soft_limit is not None
                           else min(self.threshold + 0.1, 1.0))
        if self.soft_limit < self.threshold:
            raise ConfigError(f"soft_limit ({self.soft_limit}) must be >= threshold ({self.threshold})",
                              "soft_limit")
        if unsupported not in UNSUPPORTED_MODES:
            raise ConfigError(f"unsupported must be one of {UNSUPPORTED_MODES}, got {unsupported!r}", "unsupported")
        self.unsupported = unsupported
        if score_scale is None:
            self.score_scale = (self.threshold, self.soft_limit)
        else:
            from director_fast.verify.scorer_config import _check_scale

            self.score_scale = _check_scale(score_scale)
        if w_logic is not None or w_fact is not None:
            wl = check_unit_interval(w_logic, "w_logic") if w_logic is not None else 1.0 - check_unit_interval(w_fact, "w_fact")
            wf = check_unit_interval(w_fact, "w_fact") if w_fact is not None else 1.0 - wl
            if abs(wl + wf - 1.0) > 1e-9:
                raise ConfigError(f"w_logic + w_fact must equal 1.0, got {wl + wf}", "w_fact")
            self.W_LOGIC, self.W_FACT = wl, wf
        for name, flag in (("strict_mode", strict_mode), ("allow_unknown_tenant", allow_unknown_tenant)):
            if not isinstance(flag, bool):
                raise ConfigError(f"{name} must be a bool", name)
        self.strict_mode = strict_mode
        for name, val in (("top_k", top_k), ("context_units", context_units)):
            if isinstance(val, bool) or not isinstance(val, int) or val < 1:
                raise ConfigError(f"{name} must be an int >= 1, got {val!r}", name)
        self.top_k = top_k
        self.context_units = context_units
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ConfigError(f"cache_size must be an int >= 0, got {cache_size!r}", "cache_size")
        self._cache_size = cache_size
        self.nli = self._load_backend(nli, nli_model, onnx_path, use_nli, require_model_backed_nli)
        if not isinstance(lexical_signals, bool):
            raise ConfigError("lexical_signals must be a bool", "lexical_signals")
        self._verifier = self._make_verifier(self.nli) if lexical_signals else None
        self._judge = make_judge(LexicalNLI() if self._verifier is not None else self.nli,
                                 lexical_signals=lexical_signals)
        if knowledge is not None and ground_truth_store is not None:
            raise ConfigError("give either knowledge or ground_truth_store, not both", "knowledge")
        self.knowledge = knowledge if knowledge is not None else ground_truth_store
        self._access = KnowledgeAccess(self.knowledge, allow_unknown_tenant=allow_unknown_tenant)
        self.allow_unknown_tenant = allow_unknown_tenant
        if self._verifier is not None:
            kind = f"verifier:{self._verifier.model_id}@sha256:{self._verifier.model_sha256[:16]}"
        else:
            kind = "lexical" if not self.model_backed else f"onnx:{getattr(self.nli, 'name', 'model')}"
        self.scorer_path = f"director_fast.core.scorer.CoherenceScorer[{kind}]"
        self._claim_cache: LRUCache[tuple] = LRUCache(cache_size)
        self._context_cache: LRUCache[ContextEvidence] = LRUCache(8)
        self._facts_cache: LRUCache[Any] = LRUCache(8)
        self._contra_cache: LRUCache[float] = LRUCache(cache_size)
        if not isinstance(injection_detection, bool):
            raise ConfigError("injection_detection must be a bool", "injection_detection")
        self.injection_threshold = check_unit_interval(injection_threshold, "injection_threshold")
        self._injection = None
        if injection_detection:
            from director_fast.verify.injection_core import InjectionEngine

            # claim verdicts come from this scorer (passed per call), never from a second scorer
            self._injection = InjectionEngine(self.nli, injection_threshold=self.injection_threshold)

    @staticmethod
    def _make_verifier(backend: Any) -> ClaimVerifier | None:
        """The claim verifier over a three-way NLI model (None for the lexical backend, a two-way
        model or a third-party scorer): its directory's ``calibration.json``, or the identity
        calibration (p = P(entailment)) with a log line when the directory has none."""
        if not getattr(backend, "model_backed", False) or getattr(backend, "head", None) != "three_way":
            return None
        d = getattr(backend, "model_dir", None)
        if d is not None and (d / "calibration.json").is_file():
            return ClaimVerifier.from_dir(backend, d)
        logger.info("CoherenceScorer: %s has no calibration.json; claim probability = P(entailment)",
                    getattr(backend, "name", "the model"))
        identity = VerifierCalibration(1.0, 0.0, 0.0, 0.0, 0.05, "none")
        sha = file_sha256(backend.model_file) if getattr(backend, "model_file", None) is not None else ""
        return ClaimVerifier(backend, identity, model_id=getattr(backend, "name", "model"), model_sha256=sha)

    def _load_backend(self, nli: Any, nli_model: Any, onnx_path: Any, use_nli: Any, require: Any) -> Any:
        if onnx_path is not None:
            if nli_model is not None:
                raise ConfigError("give either nli_model or onnx_path, not both", "onnx_path")
            nli_model = onnx_path
        if nli is not None and nli_model is not None:
            raise ConfigError("give either nli or nli_model, not both", "nli_model")
        for name, flag in (("use_nli", use_nli), ("require_model_backed_nli", require)):
            if flag is not None and not isinstance(flag, bool):
                raise ConfigError(f"{name} must be a bool", name)
        if use_nli is False and (nli is not None or nli_model is not None):
            raise ConfigError("use_nli=False contradicts the nli / nli_model given", "use_nli")
        if nli_model is not None:
            nli = NLIModel.from_pretrained(nli_model)
        if nli is None and (use_nli or require):
            nli = NLIModel.shipped()  # a model is required: the shipped claim verifier
        backend = nli if nli is not None else LexicalNLI()
        if (use_nli or require) and not getattr(backend, "model_backed", False):
            raise ConfigError(
                "an NLI model was required (use_nli=True / require_model_backed_nli=True) but none is "
                "loaded: pass nli=NLIModel.from_pretrained(DIR) or nli_model=DIR (nothing is downloaded; "
                "`director-fast export-nli` makes such a directory)",
                "use_nli" if use_nli else "require_model_backed_nli")
        return backend

    # ---- configuration helpers ----

    @classmethod
    def from_config(cls, path: Any, *, tenant_id: str | None = None, **kwargs: Any) -> "CoherenceScorer":
        """A scorer with the calibrated threshold of a JSON config written by
        ``tune_threshold(...).write_config(path)`` / ``director-fast tune``: its ``threshold``,
        ``soft_limit`` and ``score_scale`` (``tenant_id``: that tenant's own threshold when the
        config has one). Other keyword arguments (``knowledge``, ``nli``, ...) are passed on.

        Raises:
            StorageError / FormatError: the file cannot be read or is not such a config.
            ConfigError: ``kwargs`` also set threshold, soft_limit or score_scale.
        """
        from director_fast.verify.scorer_config import load_scorer_config

        clash = sorted({"threshold", "soft_limit", "score_scale"} & set(kwargs))
        if clash:
            raise ConfigError(f"from_config: {clash[0]} comes from the config file", clash[0])
        return cls(**load_scorer_config(path, tenant_id=tenant_id), **kwargs)

    @property
    def judge(self) -> Any:
        """The claim judge (``compare(claim, units)`` / ``compare_texts(claim, premises)``, see
        :func:`director_fast.verify.claim_verdict.make_judge`) built for this scorer's NLI backend."""
        return self._judge

    @property
    def model_backed(self) -> bool:
        """True when an NLI model (not the lexical heuristic) scores."""
        return bool(getattr(self.nli, "model_backed", False))

    def check_tenant(self, tenant_id: str) -> bool:
        """True when ``tenant_id`` holds knowledge (or the knowledge is shared by all tenants).

        Raises:
            UnknownTenantError: the tenant holds nothing and ``allow_unknown_tenant`` is off.
        """
        return self._access.check_tenant(tenant_id)

    # ---- retrieval ----

    def retrieve(self, query: str, *, tenant_id: str = "", k: int | None = None) -> tuple[list[EvidenceChunk], str]:
        """Evidence chunks for ``query`` in ``tenant_id``: ``(chunks, retrieval_path)``, where the
        path is ``"knowledge_base"``, ``"lexical_facts"`` or ``"none"`` (nothing found)."""
        got = self._access.retrieve(query, tenant_id, self.top_k if k is None else k)
        chunks = [c for _ref, c in got]
        return chunks, (self._path_name() if chunks else "none")

    def _path_name(self) -> str:
        return {"retriever": "knowledge_base", "facts": "lexical_facts", "tenant_facts": "lexical_facts"}.get(
            self._access.kind, "none")

    def _status_view(self, tenant_id: str) -> StatusView | None:
        """Source statuses in effect for ``tenant_id`` (``KnowledgeBase.set_source_status``), or
        None when the knowledge has no status for the tenant."""
        feed = getattr(self.knowledge, "status_feed", None) if self._access.kind == "retriever" else None
        return feed.view(tenant_id) if feed is not None else None

    def _context(self, texts: tuple[str, ...]) -> ContextEvidence | None:
        texts = tuple(t for t in texts if t.strip())
        if not texts:
            return None
        return self._context_cache.get_or_compute(texts, lambda: ContextEvidence(texts))

    def _units_for(self, claim: str, question: str, tenant_id: str, known: bool,
                   ctx: ContextEvidence | None, view: StatusView | None = None,
                   retrieved: list[EvidenceChunk] | None = None, *,
                   query: str | None = None) -> list[EvidenceUnit]:
        """The claim's evidence units: its retrieved chunks' sentences (those of retracted sources
        left out, ``view``), then the call's context units, each text once. ``retrieved``
        collects every retrieved chunk, retracted ones included (for the status report);
        ``query`` replaces the claim as the retrieval query."""
        units: list[EvidenceUnit] = []
        seen: set[str] = set()
        if known:
            # a short claim, or one whose subject is a pronoun ("It takes half an hour."), is
            # retrieved together with the question it answers
            if query is None:
                query = claim if not question or (len(claim.split()) >= 4 and not _opens_with_anaphor(claim)) \
                    else f"{question} {claim}"
            for ref, chunk in self._access.retrieve(query, tenant_id, self.top_k):
                if retrieved is not None:
                    retrieved.append(chunk)
                kb_units = sentence_units(chunk, ref)
                if view is not None:  # a retracted source's sentences are not evidence (and do not
                    kb_units = view.usable(kb_units)  # hide the same text given as context)
                for u in kb_units:
                    if u.premise not in seen:
                        seen.add(u.premise)
                        units.append(u)
        if ctx is not None:
            for u in ctx.top_units(claim, self.context_units):
                if u.premise not in seen:
                    seen.add(u.premise)
                    units.append(u)
        return units

    # ---- claim verification ----

    def _verify_claim(self, claim: str, question: str, tenant_id: str, known: bool,
                      ctx: ContextEvidence | None,
                      view: StatusView | None = None) -> tuple[ClaimDecision, EvidenceUnit | None, tuple]:
        def verify() -> tuple[ClaimDecision, EvidenceUnit | None, tuple]:
            out = self._judge_claim(claim, question, tenant_id, known, ctx, view)
            if out[0].verdict == "not_found" or (out[0].verdict == "contradicted" and out[0].signal == "number"
                                                 and out[1] is not None and not number_conflict(claim, out[1].text, question)):
                out = self._judge_conjuncts(claim, question, tenant_id, known, ctx, out, view) or out
            return out

        version = self._access.version
        if version is None:  # a retriever without a version: its answers may change, never cache
            return verify()
        key = (version, tenant_id, known, question, claim, ctx.texts if ctx is not None else (),
               view.key if view is not None else None)
        return self._claim_cache.get_or_compute(key, verify)

    def _judge_claim(self, claim: str, question: str, tenant_id: str, known: bool,
                     ctx: ContextEvidence | None,
                     view: StatusView | None = None) -> tuple[ClaimDecision, EvidenceUnit | None, tuple]:
        kb_chunks: list[EvidenceChunk] = []
        units = self._units_for(claim, question, tenant_id, known, ctx, view, kb_chunks)
        comparisons = self._judge.compare(claim, units, question)
        decision = decide(claim, units, comparisons, question)
        if known and decision.verdict == "not_found" and decision.signal == "number":
            # a number the evidence lacks: the words of the claim without its numbers find the
            # fact it is about ("We have about 1,400 employees." retrieves the "1,500" sentence)
            words = without_numbers(claim)
            if words != claim and words.strip():
                seen = {u.premise for u in units}
                more = [u for u in self._units_for(claim, question, tenant_id, known, None, view, kb_chunks,
                                                   query=words) if u.premise not in seen]
                if more:
                    units = units + more
                    comparisons = comparisons + self._judge.compare(claim, more, question)
                    decision = decide(claim, units, comparisons, question)
        retrieved = tuple(dict.fromkeys([*kb_chunks, *(u.chunk for u in units)]))
        if decision.verdict != "supported" and decision.signal in _COMPOSABLE:
            decision = compose(claim, units, comparisons, question) or decision
        elif decision.verdict == "supported" and decision.signal == "coverage" \
                and _number_conflict(claim, units[decision.unit_index], question):
            # the unit holds the claim's number, but about something else ("shared mailboxes have
            # 200 GB" for "your mailbox quota is 200 GB")
            decision = ClaimDecision("contradicted", 0.75, "number", decision.unit_index, decision.comparisons)
        unit = units[decision.unit_index] if decision.unit_index >= 0 else None
        return decision, unit, retrieved

    def _judge_bare(self, bare: tuple[str, bool], prompt: str, tenant_id: str, known: bool,
                    ctx: ContextEvidence | None,
                    view: StatusView | None) -> tuple[ClaimDecision, EvidenceUnit | None, tuple]:
        """A bare yes / no (``bare``: the proposition and whether it is affirmed) judged through
        its question's proposition."""
        decision, unit, chunks = self._verify_claim(bare[0], prompt, tenant_id, known, ctx, view)
        if decision.verdict == "supported" and unit is not None \
                and polarity_flipped(bare[0], unit.sentence or unit.premise):
            decision = ClaimDecision("contradicted", decision.strength, "negation", decision.unit_index,
                                     decision.comparisons)
        return (decision if bare[1] else flip(decision)), unit, chunks

    def _judge_conjuncts(self, claim: str, question: str, tenant_id: str, known: bool,
                         ctx: ContextEvidence | None, whole: tuple,
                         view: StatusView | None = None) -> tuple[ClaimDecision, EvidenceUnit | None, tuple] | None:
        """For a claim no single unit supports (or that one unit "contradicts" only by lacking a
        number it has nothing about: :func:`~director_fast.verify.claim_verdict.number_conflict`): its conjuncts
        (:func:`~director_fast.verify.claim_verdict.conjuncts`), each retrieved and judged alone, since
        a claim may join facts from several passages ("Flex fares include two bags, and skis
        travel free."). Supported when every conjunct is, contradicted when one is; None when
        the claim has one conjunct or some conjunct is not found (the claim's verdict stands).
        (Also demoting supported claims with an unsupported conjunct was measured on the dev
        split and the design files: it rejected many more correct paraphrases than it caught.)"""
        parts = conjuncts(claim)
        if len(parts) < 2:
            return None
        judged = [self._judge_claim(p, question, tenant_id, known, ctx, view) for p in parts]
        n = whole[0].comparisons + sum(d.comparisons for d, _u, _c in judged)
        chunks = tuple(dict.fromkeys(c for _d, _u, cs in (whole, *judged) for c in cs))
        for d, u, _c in judged:
            if d.verdict == "contradicted":
                return ClaimDecision("contradicted", d.strength, d.signal, d.unit_index, n), u, chunks
        if all(d.verdict == "supported" for d, _u, _c in judged):
            d, u, _c = min(judged, key=lambda j: j[0].strength)
            return ClaimDecision("supported", d.strength, "conjuncts", d.unit_index, n), u, chunks
        return None

    def _prompt_facts(self, prompt: str) -> Any:
        """The prompt's statements (:func:`_declarative_sentences`) as an index, cached per
        prompt (a long prompt is split once per stream, not once per sentence); None when the
        prompt states nothing."""
        if not prompt.strip():
            return None

        def index() -> Any:
            sentences = _declarative_sentences(prompt)
            return LexicalIndex(sentences) if sentences else None

        return self._facts_cache.get_or_compute(prompt, index)

    def _cached_contradiction(self, claim: str, prompt: str, facts: Any) -> float:
        """h_logical of one claim: its strongest contradiction with the ``context_units``
        statements of the prompt most similar to it (0.0 when the prompt states nothing)."""
        if facts is None:
            return 0.0
        def contradiction() -> float:
            near = [facts.docs[i] for i, sim in facts.top_k(claim, self.context_units) if sim > 0.0]
            return self._prompt_contradiction(claim, near)

        return self._contra_cache.get_or_compute((prompt, claim), contradiction)

    def _prompt_contradiction(self, claim: str, premises: list[str]) -> float:
        if not premises:
            return 0.0
        worst = 0.0
        for c in self._judge.compare_texts(claim, premises):
            if c.verdict == "contradicted":
                worst = max(worst, float(c.strength))
        return worst

    def _judge_text(self, text: str, roles: CallRoles, tenant_id: str, previous: str = "") -> _Judgement:
        """Split ``text`` into units and judge its claims (offsets relative to ``text``).
        ``previous``: the sentence before ``text`` (streaming), for numbers the answer computes and
        for telling a table's header row from its body."""
        known = self._access.check_tenant(tenant_id)
        status = self._status_view(tenant_id) if known else None
        ctx = self._context(roles.evidence)
        prompt_facts = self._prompt_facts(roles.prompt)
        claims: list[_ClaimResult] = []
        skipped: list[SkippedUnit] = []
        asked: list[tuple[int, str, list[EvidenceUnit]]] = []  # claims for the verifier's model
        units = split_claims(text, previous=previous)
        sentences = _SentenceContext(text, previous) if any(_HAS_DIGIT.search(u.text) for u in units) else None
        for u in units:
            bares = bare_answers(u.text, roles.prompt) if u.kind in ("claim", "pleasantry") else []
            bare = bares[0] if bares else None
            if u.kind != "claim" and bare is None:
                skipped.append(SkippedUnit(text=u.text, start=u.start, end=u.end, kind=u.kind))
                continue
            if not known and ctx is None:
                reason = "unknown_tenant" if self._access.kind != "none" else "no_evidence"
                decision, unit, chunks = ClaimDecision("not_found", 0.0, reason), None, ()
            elif not u.english:  # neither the rules nor the model read it: reported, not judged
                decision, unit, chunks = ClaimDecision("not_found", 0.0, "not_english"), None, ()
            elif bare is not None:  # "Yes." / "It is not.": judged through the question(s)
                decision, unit, chunks = min((self._judge_bare(b, roles.prompt, tenant_id, known, ctx, status)
                                              for b in bares), key=lambda j: VERDICT_ORDER[j[0].verdict])
            elif not content_words(u.text):  # "It is." without a question: nothing to check
                decision, unit, chunks = ClaimDecision("not_found", 0.0, "no_content"), None, ()
            else:
                judged = ascii_digits(u.text)  # "９ people" is checked as "9 people"
                if sentences is not None:
                    judged = strip_derived(judged, sentences.around(u.start, u.end))
                applied = applied_rule(judged, roles.prompt) if judged is not None else None
                if applied is not None and applied.consistent:  # "I'm 70" -> "at 70 you pay the 65+ rate"
                    judged = applied.text
                if judged is None:  # nothing but numbers computed right from the answer's own
                    decision, unit, chunks = ClaimDecision("supported", 1.0, "arithmetic"), None, ()
                else:
                    decision, unit, chunks = self._verify_claim(judged, roles.prompt, tenant_id, known, ctx, status)
                    if self._verifier is not None and _model_decides(decision):
                        asked.append((len(claims), judged, self._model_units(judged, roles.prompt, tenant_id, known,
                                                                             ctx, status)))
                    if decision.verdict == "supported" and (
                            (applied is not None and not applied.consistent)
                            or (applied is None and unit is not None and _misapplies(judged, unit, roles.prompt))):
                        # the claim applies a rule to the asker's number the wrong way ("since
                        # you're 63, you qualify" with "aged 65 and over"; "as you're 63 you get 15%
                        # off" supported by "Seniors aged 65 and over get 15% off"): its supported
                        # rule does not make the application right
                        decision = ClaimDecision("contradicted", 0.75, "number", decision.unit_index,
                                                 decision.comparisons)
            # a bare "Not on her own." whose question the knowledge does not answer: its content is
            # what the answer goes on to say (judged claim by claim); approved with a warning. A
            # bare "Yes, we do!" that says nothing more is itself the answer's content: unsupported
            mode = "warn" if bare is not None and decision.verdict == "not_found" and known \
                and not _HAS_DIGIT.search(u.text) and any(o is not u and o.kind == "claim" for o in units) \
                else self.unsupported  # a number is checked in full
            score = claim_score(decision, *self.score_scale, mode)
            if status is not None and unit is not None and decision.verdict == "supported" \
                    and status.effect(unit.chunk.source).warn:  # superseded / expired support
                score = warned_score(decision.strength, *self.score_scale)
            contra = self._cached_contradiction(u.text, roles.prompt, prompt_facts)
            # a claim the knowledge supports that contradicts the prompt corrects the user ("I read
            # you were founded in 1999?" -> "No, in 2011."): the knowledge outranks what the user
            # believes, so the contradiction stays in h_logical but does not lower the score
            counted = 0.0 if decision.verdict == "supported" else contra
            claims.append(_ClaimResult(u.text, u.start, u.end, decision, score, unit, chunks, contra, counted))
        if asked:
            self._apply_model(claims, asked, status)
        if claims and not known and ctx is None:
            # rate-limited: one record per kind per 10 s (a server would log this per request)
            if self._access.kind == "none":
                warn_limited(logger, "no_evidence", "no evidence: the scorer has no knowledge and the call "
                             "passed no context; %d claim(s) judged not_found", len(claims))
            else:
                warn_limited(logger, "unknown_tenant", "tenant %r holds no knowledge (allow_unknown_tenant=True); "
                             "%d claim(s) judged not_found", tenant_id, len(claims))
        if not known:
            path = "context" if ctx is not None else ("unknown_tenant" if self._access.kind != "none" else "none")
        else:
            path = self._path_name()
        verdicts = status.verdicts(ch.source for c in claims for ch in c.chunks) if status is not None else None
        return _Judgement(tuple(claims), tuple(skipped), path, tuple(verdicts) if verdicts else None)

    def _model_units(self, claim: str, question: str, tenant_id: str, known: bool, ctx: ContextEvidence | None,
                     status: StatusView | None) -> list[EvidenceUnit]:
        """The evidence units the model judges a claim against: its own (:meth:`_units_for`), or,
        when none shares a word with it, the first sentences of the call's context."""
        units = self._units_for(claim, question, tenant_id, known, ctx, status)
        if not units and ctx is not None:
            units = ctx.leading_units(self.context_units)
        return units

    def _apply_model(self, claims: list[_ClaimResult], asked: list[tuple[int, str, list[EvidenceUnit]]],
                     status: StatusView | None) -> None:
        """Replace the decisions of the ``asked`` claims (index, judged text, evidence units) by the
        verifier's (claims without evidence units keep the rules'; support from a superseded or
        expired source scores in the warning band, as with the rules). Rule-contradicted claims
        are not asked and keep the rules' score."""
        todo = [(i, text, ev, _unit_texts(ev)) for i, text, units in asked
                if units and _model_decides(claims[i].decision)  # (a misapplied rule may have contradicted it since)
                for ev in [_model_evidence(claims[i], units)]]
        checks = self._verifier.check([(text, texts, _coverage(claims[i].decision),
                                        claims[i].decision.verdict == "supported",
                                        claims[i].decision.signal == "no_evidence")
                                       for i, text, _u, texts in todo]) if todo else []
        for (i, _text, units, texts), check in zip(todo, checks):
            c = claims[i]
            premise = [texts[k] for k in check.units]
            best = premise[most_about(c.text, premise)]
            u_index, unit = _unit_holding(units, best)
            strength = check.contradiction if check.verdict == "contradicted" else check.probability
            index = c.decision.unit_index if len(units) == 1 and units[0] is c.unit else u_index
            # supported although no evidence unit shares a word with it (the model read the
            # context's first sentences): approved, never silently -- signal "unrelated", warning
            unrelated = check.verdict == "supported" and c.decision.signal == "no_evidence"
            decision = ClaimDecision(check.verdict, strength, "unrelated" if unrelated else check.signal, index,
                                     c.decision.comparisons + 1)
            score = check.probability
            if self.unsupported == "warn" and check.verdict == "not_found":
                score = claim_score(decision, *self.score_scale, "warn")
            elif unrelated or (check.verdict == "supported" and status is not None
                               and status.effect(units[u_index].chunk.source).warn):
                score = warned_score(check.probability, *self.score_scale)
            claims[i] = replace(c, decision=decision, score=score, unit=unit, check=check,
                                lexical=c.decision, counted=0.0 if check.verdict == "supported" else c.contradiction)

    def claim_features(self, prompt: str, response: str, *, tenant_id: str = "", context: Any = None,
                       system: str | None = None, messages: Any = None) -> list[dict]:
        """The inputs of the verifier's claim probability, one dict per judged claim, for
        fitting a calibration on labelled data of your own (see ``training/calibrate.py`` in
        the source tree). ``kind`` is

        * ``"model"``: the model judged it. ``entailment``, ``neutral``, ``contradiction``: the
          model's class probabilities; ``coverage`` in [0, 1] and ``supported`` (bool): the
          lexical backend's coverage and verdict; ``unrelated`` (bool): no evidence unit shares
          a word with the claim (the model saw the context's first sentences);
        * ``"rule"``: a rule contradicted it; ``score``: the rules' score, which it keeps;
        * ``"fixed"``: no evidence, arithmetic, a yes / no answer; ``score``: its score,
          ``supported`` (bool): whether its verdict is supported.

        Every dict also has ``prompt_contradiction`` in [0, 1]: how strongly the claim
        contradicts the prompt; an unsupported claim's (a model-judged one is supported when its
        probability is >= 0.5) caps the response score at 1 minus it. Same arguments and errors
        as :meth:`score`; needs a model-backed scorer (ConfigError otherwise)."""
        if self._verifier is None:
            raise ConfigError("claim_features needs a scorer with the claim verifier (an NLI model)", "nli")
        roles = self._roles(prompt, response, tenant_id, context, system, messages)
        return [_features(c) for c in self._judge_text(str.__str__(response), roles, tenant_id).claims]

    # ---- assembling results ----

    def _attributions(self, claims: Sequence[_ClaimResult]) -> list[ClaimAttribution]:
        out = []
        for i, c in enumerate(claims):
            d = c.decision
            out.append(ClaimAttribution(
                claim=c.text, claim_index=i,
                source_sentence=member_about(c.text, c.unit).text if c.unit is not None else "",
                source_index=d.unit_index, divergence=1.0 - c.score,
                supported=d.verdict == "supported", verdict=d.verdict, signal=d.signal,
                start=c.start, end=c.end,
                entailment=c.check.entailment if c.check is not None else None,
                probability=c.check.probability if c.check is not None else None))
        return out

    def _assemble(self, response: str, j: _Judgement) -> CoherenceScore:
        claims = j.claims
        h_logical = max((c.contradiction for c in claims), default=0.0)
        score = min(response_probability([c.score for c in claims]),
                    1.0 - max((c.counted for c in claims), default=0.0))
        h_factual = max((1.0 - c.score for c in claims), default=0.0)
        strict_rejected = self.strict_mode and not self.model_backed
        approved = score >= self.threshold and not strict_rejected
        warning = (not strict_rejected) and self.threshold <= score < self.soft_limit
        chunks = list(dict.fromkeys(ch for c in claims for ch in c.chunks))
        attributions = self._attributions(claims)
        deciding = [a.source_sentence for a, c in zip(attributions, claims) if c.unit is not None]
        evidence = ScoringEvidence(
            chunks=chunks,
            nli_premise="\n".join(dict.fromkeys(deciding)),
            nli_hypothesis=response,
            nli_score=h_factual,
            chunk_scores=None,
            premise_chunk_count=len(chunks),
            hypothesis_chunk_count=len(claims),
            attributions=attributions,
            token_count=None,
            claim_coverage=(sum(a.supported for a in attributions) / len(claims)) if claims else None,
            per_claim_divergences=[a.divergence for a in attributions],
            claims=[c.text for c in claims],
            skipped_units=list(j.skipped),
            comparisons=sum(c.decision.comparisons for c in claims),
            citation_status=list(j.citation_status) if j.citation_status else None,
            model_id=self._verifier.model_id if self._verifier is not None else None,
            model_sha256=self._verifier.model_sha256 if self._verifier is not None else None,
            evidence_truncated=(any(c.check.truncated for c in claims if c.check is not None)
                                if self._verifier is not None else None),
        )
        nli_conf = (sum(c.decision.strength for c in claims) / len(claims)) if claims else None
        verdict_conf = min(1.0, abs(score - self.threshold) / max(self.threshold, 1.0 - self.threshold, 1e-12))
        return CoherenceScore(
            score=score, approved=approved, h_logical=h_logical, h_factual=h_factual,
            evidence=evidence, warning=warning, strict_mode_rejected=strict_rejected,
            verdict_confidence=verdict_conf, nli_model_confidence=nli_conf,
            signal_agreement=1.0 - abs(h_logical - h_factual),
        )

    # ---- public scoring ----

    def _roles(self, prompt: Any, response: Any, tenant_id: Any, context: Any, system: Any,
               messages: Any) -> CallRoles:
        # str subclasses (numpy.str_) are accepted here and judged as the equal plain str:
        # resolve_roles converts prompt / context / system / messages, callers convert response
        check_text(prompt, "prompt")
        check_text(response, "response")
        if not isinstance(tenant_id, str):
            raise InputTypeError(f"tenant_id must be a str, got {type(tenant_id).__name__}", "tenant_id")
        return resolve_roles(prompt, context=context, system=system, messages=messages)

    def score(self, prompt: str, action: str, *, tenant_id: str = "", context: Any = None,
              system: str | None = None, messages: Any = None) -> CoherenceScore:
        """Judge ``action`` (the response) claim by claim.

        Args:
            prompt: the user's message ("" with ``messages``).
            action: the response to judge.
            tenant_id: the tenant whose knowledge is evidence.
            context: evidence for this call (a str or a list of str), with the knowledge.
            system: the system prompt (instructions; never evidence).
            messages: OpenAI-format chat messages (see :mod:`director_fast.verify.roles`).

        Returns:
            :class:`CoherenceScore`: ``score`` in [0, 1] (module docstring), ``h_logical``,
            ``h_factual``, ``approved``, ``warning``, ``strict_mode_rejected``, ``evidence``
            (retrieved chunks, factual claims, per-claim attributions with verdict / signal /
            span, skipped units, comparisons made, claim coverage), ``nli_model_confidence``
            (mean strength of the claim verdicts), ``signal_agreement`` = 1 - |h_logical -
            h_factual| and ``verdict_confidence`` = |score - threshold| / max(threshold,
            1 - threshold).

        Raises:
            InputTypeError: non-string inputs. ConfigError: ``messages`` with a non-empty
            ``prompt``. UnknownTenantError: a tenant without knowledge (see the constructor).
        """
        roles = self._roles(prompt, action, tenant_id, context, system, messages)
        action = str.__str__(action)  # a str subclass (numpy.str_) as the equal plain str
        with _telemetry.review() as rec:  # metrics hook and span (no-ops unless set up)
            try:
                result = self._assemble(action, self._judge_text(action, roles, tenant_id))
                if self._injection is not None:
                    result = self._with_injection(result, action, roles, tenant_id)
            except UnknownTenantError:
                raise
            except Exception as exc:
                warn_limited(logger, "scorer_error", "CoherenceScorer.score failed: %s: %s",
                             type(exc).__name__, exc)
                raise
            rec.done(result)
        return result

    def _with_injection(self, result: CoherenceScore, action: str, roles: CallRoles, tenant_id: str) -> CoherenceScore:
        """``injection_risk`` = the :class:`~director_fast.verify.injection.InjectionDetector` combined
        score (the prompt is both intent and scanned user message; ``context`` / tool messages are
        scanned and are the evidence); a detected injection rejects the response."""
        verdicts = {(a.start, a.end): a.verdict for a in result.attributions}

        def rescore(clean: tuple[str, ...]) -> dict[tuple[int, int], str]:
            # the claims judged again with the flagged evidence segments removed (knowledge kept)
            clean_roles = CallRoles(prompt=roles.prompt, evidence=clean, system=roles.system)
            s = self._assemble(action, self._judge_text(action, clean_roles, tenant_id))
            return {(a.start, a.end): a.verdict for a in s.attributions}

        inj = self._injection._detect(roles.prompt, action, roles.prompt, roles.system, roles.evidence, verdicts,
                                      rescore)
        if not inj.injection_detected:
            return replace(result, injection_risk=inj.combined_score)
        return replace(result, injection_risk=inj.combined_score, approved=False, warning=False)

    def review(self, prompt: str, action: str, session: Any | None = None, tenant_id: str = "", *,
               context: Any = None, system: str | None = None,
               messages: Any = None) -> tuple[bool, CoherenceScore]:
        """``(approved, CoherenceScore)`` for ``action`` given ``prompt`` (see :meth:`score`).

        ``session``: director-ai's positional slot; a
        :class:`~director_fast.ConversationSession` (or None). With one, the response's claims
        are also checked against the claims of the session's earlier turns (seeded from the
        ``assistant`` messages of ``messages``): ``cross_turn_divergence``,
        ``contradiction_index`` and ``evidence.cross_turn_contradictions`` are filled (they do
        not change ``score`` or ``approved``), and the response is remembered when approved.
        Raises InputTypeError for any other ``session`` object, ConfigError when the session
        belongs to another tenant.
        """
        s = self.score(prompt, action, tenant_id=tenant_id, context=context, system=system, messages=messages)
        if session is not None:
            # a ConversationSession reviews itself (memory sits above this layer: no import here)
            review_in_session = getattr(type(session), "_review_in_session", None)
            if review_in_session is None:
                raise InputTypeError(
                    f"session must be a director_fast.ConversationSession, got {type(session).__name__}")
            s = review_in_session(session, self, str.__str__(prompt), str.__str__(action), s, tenant_id=tenant_id,
                                  messages=messages)
        return s.approved, s

    async def areview(self, prompt: str, action: str, session: Any | None = None, tenant_id: str = "", *,
                      context: Any = None, system: str | None = None,
                      messages: Any = None) -> tuple[bool, CoherenceScore]:
        """:meth:`review` on a worker thread (``asyncio.to_thread``), so an event loop keeps
        serving while a response is judged."""
        return await asyncio.to_thread(self.review, prompt, action, session, tenant_id,
                                       context=context, system=system, messages=messages)

    async def ascore(self, prompt: str, action: str, *, tenant_id: str = "", context: Any = None,
                     system: str | None = None, messages: Any = None) -> CoherenceScore:
        """:meth:`score` on a worker thread (``asyncio.to_thread``), so an event loop keeps
        serving while a response is judged. Same arguments, result and errors as :meth:`score`."""
        return await asyncio.to_thread(self.score, prompt, action, tenant_id=tenant_id, context=context,
                                       system=system, messages=messages)

    def review_batch(self, items: Iterable[tuple[str, str]], tenant_id: str = "", *, context: Any = None,
                     system: str | None = None) -> list[tuple[bool, CoherenceScore]]:
        """``review`` for each ``(prompt, response)`` pair, in input order (``context`` and
        ``system`` apply to every item)."""
        if not hasattr(items, "__iter__") or isinstance(items, (str, bytes)):
            raise InputTypeError(f"items must be an iterable of (prompt, response) tuples, got {type(items).__name__}",
                                 "items")
        items = list(items)
        for i, it in enumerate(items):
            if not (isinstance(it, tuple) and len(it) == 2):
                raise InputTypeError(f"items[{i}] must be a (prompt, response) tuple", f"items[{i}]")
            self._roles(it[0], it[1], tenant_id, context, system, None)
        return [self.review(p, a, tenant_id=tenant_id, context=context, system=system) for p, a in items]

    def score_batch(self, items: Sequence[tuple[str, str]], *, tenant_id: str = "") -> list[CoherenceScore]:
        """``score`` for each ``(prompt, response)`` pair, in input order."""
        return [s for _, s in self.review_batch(items, tenant_id=tenant_id)]

    def calculate_logical_divergence(self, prompt: str, response: str) -> float:
        """h_logical in [0, 1]: the strongest contradiction between a claim of ``response`` and
        a statement of ``prompt`` (0.0 when the prompt states nothing)."""
        facts = self._prompt_facts(prompt)
        claims = [u.text for u in split_claims(response) if u.kind == "claim"]
        return max((self._cached_contradiction(c, prompt, facts) for c in claims), default=0.0)

    def calculate_factual_divergence(self, prompt: str, response: str, tenant_id: str = "") -> float:
        """h_factual in [0, 1]: the largest per-claim divergence of ``response``."""
        return self.score(prompt, response, tenant_id=tenant_id).h_factual

    # ---- incremental (streaming) ----

    def score_sentence(self, sentence: str, *, prompt: str = "", previous: str = "", tenant_id: str = "",
                       context: Any = None, system: str | None = None, messages: Any = None) -> SentenceScore:
        """Judge one completed sentence of a streamed response the way :meth:`score` judges it
        inside the whole response (the same units, evidence and verdicts), so a stream halts
        exactly when ``review`` would reject.

        ``previous`` (the text before the sentence) is accepted for the streaming guard's
        protocol. Verdicts are cached per claim (keyed on the knowledge's version).

        Returns:
            :class:`SentenceScore`.
        """
        roles = self._roles(prompt, sentence, tenant_id, context, system, messages)
        sentence = str.__str__(sentence)  # a str subclass (numpy.str_) as the equal plain str
        j = self._judge_text(sentence, roles, tenant_id, str.__str__(previous) if isinstance(previous, str) else "")
        claims = j.claims
        if not claims:
            return SentenceScore(score=1.0, retrieval_path=j.path, scorer_path=self.scorer_path,
                                 informative=False)
        scores = [min(c.score, 1.0 - c.counted) for c in claims]
        worst = min(range(len(claims)), key=scores.__getitem__)
        w = claims[worst]
        deciding = tuple(dict.fromkeys(c.unit.chunk for c in claims if c.unit is not None))
        sources = list(dict.fromkeys(ch.source for ch in deciding if ch.source))
        return SentenceScore(
            score=scores[worst],
            evidence=deciding,
            nli_scores=tuple(1.0 - c.score for c in claims),
            retrieval_path=j.path,
            scorer_path=self.scorer_path,
            fact_source=",".join(sources),
            informative=True,
            attributions=tuple(self._attributions(claims)),
            evidence_refs=(w.unit.ref,) if w.unit is not None else (),
            worst_claim=worst,
        )

    def clear_cache(self) -> None:
        """Drop the verdict, context and retrieval caches (never needed for correctness: the
        caches are keyed on the knowledge's ``version``)."""
        for cache in (self._claim_cache, self._context_cache, self._facts_cache, self._contra_cache):
            cache.clear()
        self._access.clear()


def backend_kwargs(backend: str) -> dict[str, Any]:
    """The :class:`CoherenceScorer` keyword arguments of a backend name (the CLI's ``--backend``):
    ``"model"`` (the shipped claim verifier: ``{"use_nli": True}``), ``"lexical"`` (the default:
    the lexical backend alone, ``{}``) or ``"onnx:DIR"`` (the model directory DIR, loaded
    here: ``{"nli": NLIModel}``).

    Raises:
        ConfigError: any other string (field ``backend``); loading errors of DIR.
    """
    if backend == "model":
        return {"use_nli": True}
    if backend == "lexical":
        return {}
    if backend.startswith("onnx:"):
        if not backend[5:].strip():
            raise ConfigError("backend 'onnx:' needs a model directory: onnx:DIR", "backend")
        return {"nli": NLIModel.from_pretrained(backend[5:])}
    raise ConfigError(f"backend must be 'model', 'lexical' or 'onnx:DIR', got {backend!r}", "backend")


def _model_decides(d: ClaimDecision) -> bool:
    """Whether the verifier's model judges a claim the rules decided as ``d``: every claim but a
    rule's contradiction (:data:`~director_fast.claim_model.RULE_SIGNALS`) and claims without
    evidence to compare (an unknown tenant, nothing to check, worked arithmetic; a claim sharing
    no word with the evidence is judged against the call's context when there is one)."""
    if d.verdict == "contradicted" and d.signal in RULE_SIGNALS:
        return False
    return d.signal not in ("unknown_tenant", "no_content", "arithmetic", "not_english")


def _features(c: _ClaimResult) -> dict:
    """One claim's :meth:`CoherenceScorer.claim_features` dict."""
    if c.check is not None:
        return {"kind": "model", "entailment": c.check.entailment, "neutral": c.check.neutral,
                "contradiction": c.check.contradiction, "coverage": _coverage(c.lexical),
                "supported": c.lexical.verdict == "supported", "unrelated": c.lexical.signal == "no_evidence",
                "prompt_contradiction": c.contradiction}
    if c.decision.verdict == "contradicted" and c.decision.signal in RULE_SIGNALS:
        return {"kind": "rule", "score": c.score, "prompt_contradiction": c.contradiction}
    return {"kind": "fixed", "score": c.score, "supported": c.decision.verdict == "supported",
            "prompt_contradiction": c.contradiction}


def _coverage(d: ClaimDecision) -> float:
    """The rules' graded support of a claim in [0, 1]: the deciding unit's strength when it
    supports the claim or covers it without a mismatch, else 0."""
    return float(d.strength) if d.verdict == "supported" or (d.verdict == "not_found" and d.signal == "coverage") else 0.0


def _model_evidence(c: _ClaimResult, units: list[EvidenceUnit]) -> list[EvidenceUnit]:
    """The units the model reads for a claim: the one the rules found supporting it, when they
    did (a premise of several near-identical facts -- a price list -- reads to a small model as
    contradicting a claim that one of them states word for word), else all of its units (the
    premise composes them; also for a claim the rules found supported by several units together,
    signal ``composed`` or ``conjuncts``: one of them alone lacks the others' facts)."""
    if c.decision.verdict == "supported" and c.decision.signal not in ("composed", "conjuncts") \
            and c.unit is not None:
        return [c.unit]
    return units


def _unit_texts(units: Sequence[EvidenceUnit]) -> list[str]:
    """The distinct sentences of a claim's evidence units, in the units' order: a clause unit
    counts as its whole sentence, a run of several sentences (a context document's window, or
    the whole document) as its sentences. The model's premise picks and composes sentences
    itself (:func:`~director_fast.claim_model.premise_for`); a run sent whole would be cut to
    its first sentences to fit the model's length."""
    return list(dict.fromkeys(t for u in units for t in (u.members or (u.sentence or u.text,))))


def _unit_holding(units: Sequence[EvidenceUnit], sentence: str) -> tuple[int, EvidenceUnit]:
    """The index of the first unit that is, or whose run holds, ``sentence`` (one of
    :func:`_unit_texts`), and the unit a claim's attribution names: that unit, or for a run the
    unit of its member sentence (one sentence, never a whole document)."""
    for k, u in enumerate(units):
        if (u.sentence or u.text) == sentence:
            return k, u
        if sentence in u.members:
            return k, member_unit(u, sentence)
    raise ValueError(f"no evidence unit holds {sentence!r}")  # _unit_texts of these units: unreachable


_HAS_DIGIT = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|"
                        r"sixty|seventy|eighty|ninety|hundred)\b", re.IGNORECASE)


class _SentenceContext:
    """The sentences of a judged text, for the operands of numbers a claim computes: the rest of
    the claim's sentence and the sentence before it (``previous`` before the first one)."""

    def __init__(self, text: str, previous: str) -> None:
        self.text = text
        self.previous = previous
        self.spans = [(a, b) for a, b in split_sentences(text) if text[a:b].strip()]

    def around(self, start: int, end: int) -> tuple[str, ...]:
        i = next((k for k, (a, b) in enumerate(self.spans) if a <= start < b), -1)
        if i < 0:
            return (self.previous,)
        a, b = self.spans[i]
        before = self.text[self.spans[i - 1][0]:self.spans[i - 1][1]] if i > 0 else self.previous
        return (self.text[a:start], self.text[end:b], before)


def _number_conflict(claim: str, unit: EvidenceUnit, question: str) -> bool:
    """:func:`~director_fast.verify.claim_verdict.number_conflict` of ``claim`` with ``unit``;
    for a run of sentences, with the run and with its member the claim is about
    (:func:`~director_fast.verify.claim_evidence.member_about`) both: a neighbour's "£15 per
    hour" is no conflict for "A full day costs £30 per day." when the day sentence states £30,
    and a claim fusing the numbers of several members is not held to one of them alone."""
    if not number_conflict(claim, unit.text, question):
        return False
    return not unit.members or number_conflict(claim, member_about(claim, unit).text, question)


def _misapplies(claim: str, unit: EvidenceUnit, question: str) -> bool:
    """Whether ``claim`` applies the bound its supporting sentence states to the asker's number
    the wrong way (:func:`~director_fast.verify.applied_rules.applied_rule` over the claim followed by
    that sentence): "As you're 63 you get 15% off." supported by "Seniors aged 65 and over get
    15% off." """
    if not question:
        return False
    applied = applied_rule(f"{claim} {unit.sentence or unit.text}", question)  # (None: no asker's number)
    return applied is not None and not applied.consistent


# single-unit verdicts that may come from a claim spread over several units
_COMPOSABLE = frozenset({"coverage", "number", "entity"})


def _declarative_sentences(prompt: str) -> list[str]:
    """The statements of the user's prompt (questions and requests dropped), one per sentence."""
    from director_fast.verify.text import split_sentences

    part = declarative_part(prompt) if prompt.strip() else ""
    return [part[a:b].strip() for a, b in split_sentences(part) if part[a:b].strip()]

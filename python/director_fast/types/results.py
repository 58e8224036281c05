"""Result and evidence data types (``director_ai.core.types`` compatible names and fields).

Every class is a frozen, slotted dataclass. ``__post_init__`` validates each field (type, range,
closed sets) and raises :class:`~director_fast.errors.ValidationError` (a ``ValueError``) naming
the field, or :class:`FieldTypeError` (both ``ValueError`` and ``TypeError``) for a wrong type.
numpy scalars are converted to Python scalars so that every instance is JSON-safe.

Every class has ``to_dict()`` (a JSON-safe dict, nested members as dicts) and
``from_dict(payload)`` (the exact inverse; unknown keys, missing required keys and wrong types are
rejected). ``cls.from_dict(obj.to_dict()) == obj`` for every valid ``obj``.

Thread-safety: instances are immutable (their ``list``/``dict`` members must not be mutated after
construction by convention) and may be shared freely between threads; the functions keep no state.

Producers (which part of director_fast fills which field) are listed per class; fields with no
producer yet are marked *reserved* and stay ``None`` unless a caller sets them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any

from director_fast._fields import F, FieldTypeError, _Base, dump_fields, load_fields, validate_fields
from director_fast.safety.halt_evidence import (
    _UNIT,
    CounterfactualFactChange,
    CounterfactualHaltDiagnostic,
    EvidenceChunk,
    HaltEvidence,
    HaltTraceAttribution,
)
from director_fast.safety.event import SafetyEvent, validate_safety_event_payload
from director_fast.errors import ValidationError
from director_fast.types.verification import CitationStatusVerdict

__all__ = [
    "EvidenceChunk",
    "ClaimAttribution",
    "SkippedUnit",
    "CrossTurnContradiction",
    "CLAIM_VERDICTS",
    "ScoringEvidence",
    "CoherenceScore",
    "HaltTraceAttribution",
    "CounterfactualFactChange",
    "CounterfactualHaltDiagnostic",
    "HaltEvidence",
    "ReviewResult",
    "InjectedClaim",
    "InjectionResult",
    "FieldTypeError",
    "INJECTION_VERDICTS",
]

#: verdicts an :class:`InjectedClaim` may carry.
INJECTION_VERDICTS = frozenset({"grounded", "drifted", "injected"})


#: per-claim verdicts of the claim-level pipeline.
CLAIM_VERDICTS = frozenset({"supported", "contradicted", "not_found"})

#: kinds of the response units that are not judged as facts (see :mod:`director_fast.verify.claims`).
SKIPPED_UNIT_KINDS = frozenset({"pleasantry", "offer", "question", "self_reference", "abstention"})


@dataclass(frozen=True, slots=True)
class ClaimAttribution(_Base):
    """Maps a response claim to the evidence unit that decided its verdict.

    Attributes:
        claim: the atomic claim (answer particles such as "Yes," stripped).
        claim_index: index of the claim among the response's factual claims (>= 0).
        source_sentence: the deciding evidence unit (a sentence of a retrieved chunk or of the
            call's context; ``""`` when no evidence unit was found).
        source_index: index of that unit among the claim's compared units (-1 when none).
        divergence: 1 - the claim's score, in [0, 1] (lower = better support).
        supported: ``verdict == "supported"``.
        verdict: ``"supported"``, ``"contradicted"`` or ``"not_found"``. Optional when loading
            payloads written before the claim-level pipeline: derived from ``supported``
            (``"supported"`` or ``"not_found"``).
        signal: the signal that decided the verdict (e.g. ``"coverage"``, ``"number"``,
            ``"unit"``, ``"entity"``, ``"negation"``, ``"antonym"``, ``"exception"``,
            ``"no_evidence"``; ``"entailment"``, ``"contradiction"`` or ``"neutral"`` when the
            claim verifier's model decided; ``"unrelated"`` when the model found it supported
            although no evidence unit shares a word with it: approved with a warning, scored in
            the warning band; ``""`` in older payloads).
        start, end: code-point span of the claim in the response (-1 when unknown).
        entailment: the model's P(entailment) of the claim given its evidence, in [0, 1], or
            None when the model was not asked (a rule decided, or no model is loaded).
        probability: the claim's calibrated probability of being supported, in [0, 1], or
            None when the model was not asked.

    Producer: the scorer's claim-level verification.
    """

    claim: str
    claim_index: int
    source_sentence: str
    source_index: int
    divergence: float
    supported: bool
    verdict: str = ""
    signal: str = ""
    start: int = -1
    end: int = -1
    entailment: float | None = None
    probability: float | None = None

    _SPEC = (
        F("claim", "str"),
        F("claim_index", "int", lo=0),
        F("source_sentence", "str"),
        F("source_index", "int", lo=-1),
        F("divergence", "float", **_UNIT),
        F("supported", "bool"),
        F("verdict", "str", choices=CLAIM_VERDICTS | {""}),
        F("signal", "str", max_len=64),
        F("start", "int", lo=-1),
        F("end", "int", lo=-1),
        F("entailment", "float", optional=True, **_UNIT),
        F("probability", "float", optional=True, **_UNIT),
    )

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        if self.verdict == "":
            object.__setattr__(self, "verdict", "supported" if self.supported else "not_found")
        elif (self.verdict == "supported") != self.supported:
            raise ValidationError(
                f"ClaimAttribution.supported ({self.supported}) disagrees with verdict {self.verdict!r}")
        if (self.start == -1) != (self.end == -1) or self.end < self.start:
            raise ValidationError(
                f"ClaimAttribution.start/end must both be -1 or satisfy start <= end, got {self.start}, {self.end}")


@dataclass(frozen=True, slots=True)
class SkippedUnit(_Base):
    """A unit of the response that is not judged as a fact.

    Attributes:
        text: the unit's text.
        start, end: its code-point span in the response (``0 <= start <= end``).
        kind: ``"pleasantry"``, ``"offer"``, ``"question"``, ``"self_reference"`` or
            ``"abstention"``.

    Producer: the scorer (from :func:`director_fast.verify.claims.split_claims`).
    """

    text: str
    start: int
    end: int
    kind: str

    _SPEC = (
        F("text", "str"),
        F("start", "int", lo=0),
        F("end", "int", lo=0),
        F("kind", "str", choices=SKIPPED_UNIT_KINDS),
    )


#: where a :class:`CrossTurnContradiction` was found.
CROSS_TURN_SOURCES = frozenset({"nli", "temporal"})


@dataclass(frozen=True, slots=True)
class CrossTurnContradiction(_Base):
    """A claim of the response that contradicts a claim the assistant made in an earlier turn.

    Attributes:
        claim: the response's claim; claim_index: its index among the response's claims (>= 0).
        earlier_claim: the contradicted earlier claim.
        earlier_turn: the earlier turn's index in its conversation (0-based count of the
            assistant turns the session recorded, evicted ones included); -1 for a claim of the
            temporal graph that no session recorded.
        probability: contradiction probability in [0, 1] (the claim judge's strength).
        signal: the deciding signal (``"number"``, ``"negation"``, ``"antonym"``, ``"entity"``,
            ``"polarity"``, ``"functional_value"``, ...).
        source: ``"nli"`` (retrieved among the earlier claims and judged) or ``"temporal"``
            (the structured claim timeline found it).
        earlier_session_id: the session of the earlier claim (``""``: this session).

    Producer: :class:`director_fast.ConversationSession` (via ``review(..., session)``).
    """

    claim: str
    claim_index: int
    earlier_claim: str
    earlier_turn: int
    probability: float
    signal: str = ""
    source: str = "nli"
    earlier_session_id: str = ""

    _SPEC = (
        F("claim", "str"),
        F("claim_index", "int", lo=0),
        F("earlier_claim", "str"),
        F("earlier_turn", "int", lo=-1),
        F("probability", "float", **_UNIT),
        F("signal", "str", max_len=64),
        F("source", "str", choices=CROSS_TURN_SOURCES),
        F("earlier_session_id", "str", max_len=256),
    )


@dataclass(frozen=True, slots=True)
class ScoringEvidence(_Base):
    """Evidence collected during scoring (fields in director-ai's order).

    Attributes:
        chunks: top-k retrieved chunks.
        nli_premise / nli_hypothesis: NLI texts used.
        nli_score: raw NLI divergence in [0, 1].
        chunk_scores: deprecated, always None (kept for director-ai compatibility: verdicts
            are per claim, see ``attributions``).
        premise_chunk_count / hypothesis_chunk_count: >= 0.
        attributions: per-claim attribution, or None.
        token_count: deprecated, always None (kept for director-ai compatibility; the
            model's running totals are ``NLIModel.token_count`` / ``forward_count``).
        estimated_cost_usd: >= 0, or None (reserved: no producer prices inference yet).
        claim_coverage: fraction of supported claims in [0, 1], or None.
        per_claim_divergences: each in [0, 1], or None.
        claims: the response's factual claims (judged units only), or None.
        skipped_units: the units not judged as facts (pleasantries, offers, questions,
            self-references, abstentions), or None.
        comparisons: (claim, evidence unit) comparisons made (>= 0), or None.
        cross_turn_contradictions: the response's contradictions of earlier turns (only with a
            conversation session; ``[]`` when none), or None.
        citation_status: per-source :class:`CitationStatusVerdict` for the retrieved sources
            that have a status in effect (``KnowledgeBase.set_source_status``), or None when
            none has.
        model_id: the claim verifier model that judged (its directory name), or None when no
            model judged (the lexical backend).
        model_sha256: the SHA-256 (hex) of that model's ONNX file, or None.
        evidence_truncated: True when some claim's evidence was cut to fit the model's length,
            False when none was, None when no model judged.

    Producer: the CoherenceScorer; ``cross_turn_contradictions``: its ``ConversationSession``.
    """

    chunks: list[EvidenceChunk]
    nli_premise: str
    nli_hypothesis: str
    nli_score: float
    chunk_scores: list[float] | None = None
    premise_chunk_count: int = 1
    hypothesis_chunk_count: int = 1
    attributions: list[ClaimAttribution] | None = None
    token_count: int | None = None
    estimated_cost_usd: float | None = None
    claim_coverage: float | None = None
    per_claim_divergences: list[float] | None = None
    claims: list[str] | None = None
    skipped_units: list[SkippedUnit] | None = None
    comparisons: int | None = None
    cross_turn_contradictions: list[CrossTurnContradiction] | None = None
    citation_status: list[CitationStatusVerdict] | None = None
    model_id: str | None = None
    model_sha256: str | None = None
    evidence_truncated: bool | None = None

    _SPEC = (
        F("chunks", "lobj", cls=EvidenceChunk),
        F("nli_premise", "str"),
        F("nli_hypothesis", "str"),
        F("nli_score", "float", **_UNIT),
        F("chunk_scores", "lfloat", optional=True, **_UNIT),
        F("premise_chunk_count", "int", lo=0),
        F("hypothesis_chunk_count", "int", lo=0),
        F("attributions", "lobj", optional=True, cls=ClaimAttribution),
        F("token_count", "int", optional=True, lo=0),
        F("estimated_cost_usd", "float", optional=True, lo=0.0),
        F("claim_coverage", "float", optional=True, **_UNIT),
        F("per_claim_divergences", "lfloat", optional=True, **_UNIT),
        F("claims", "lstr", optional=True),
        F("skipped_units", "lobj", optional=True, cls=SkippedUnit),
        F("comparisons", "int", optional=True, lo=0),
        F("cross_turn_contradictions", "lobj", optional=True, cls=CrossTurnContradiction),
        F("citation_status", "lobj", optional=True, cls=CitationStatusVerdict),
        F("model_id", "str", optional=True, max_len=256),
        F("model_sha256", "str", optional=True, max_len=64),
        F("evidence_truncated", "bool", optional=True),
    )


@dataclass(frozen=True, slots=True)
class CoherenceScore(_Base):
    """The primary return type of ``CoherenceScorer.review()`` (as ``(approved, score)``) and
    ``score()``.

    Attributes:
        score: composite coherence in [0, 1].
        approved: ``score >= threshold``.
        h_logical: logical divergence (NLI contradiction probability) in [0, 1].
        h_factual: factual divergence (retrieval deviation) in [0, 1].
        evidence: retrieved evidence and scoring details, or None.
        warning: True when the score lies between threshold and soft limit.
        strict_mode_rejected: True when rejected because NLI was unavailable in strict mode.
        cross_turn_divergence: the strongest contradiction probability between a claim of the
            response and a claim of an earlier turn, in [0, 1] (set when ``review`` is given a
            ``ConversationSession``; 0.0 when nothing contradicts).
        verdict_confidence, nli_model_confidence, signal_agreement: in [0, 1]; computed by the
            scorer (hooks kept here; None until the scorer fills them).
        contradiction_index: cross-turn self-contradiction severity in [0, 1]: noisy-or
            ``1 - prod(1 - c_i)`` over the contradicted earlier claims (set with a session).
        injection_risk: intent-grounded injection risk in [0, 1] (when detection is enabled).

    Producer: the CoherenceScorer.
    """

    score: float
    approved: bool
    h_logical: float
    h_factual: float
    evidence: ScoringEvidence | None = None
    warning: bool = False
    strict_mode_rejected: bool = False
    cross_turn_divergence: float | None = None
    verdict_confidence: float | None = None
    nli_model_confidence: float | None = None
    signal_agreement: float | None = None
    contradiction_index: float | None = None
    injection_risk: float | None = None

    _SPEC = (
        F("score", "float", **_UNIT),
        F("approved", "bool"),
        F("h_logical", "float", **_UNIT),
        F("h_factual", "float", **_UNIT),
        F("evidence", "obj", optional=True, cls=ScoringEvidence),
        F("warning", "bool"),
        F("strict_mode_rejected", "bool"),
        F("cross_turn_divergence", "float", optional=True, **_UNIT),
        F("verdict_confidence", "float", optional=True, **_UNIT),
        F("nli_model_confidence", "float", optional=True, **_UNIT),
        F("signal_agreement", "float", optional=True, **_UNIT),
        F("contradiction_index", "float", optional=True, **_UNIT),
        F("injection_risk", "float", optional=True, **_UNIT),
    )

    @property
    def claims(self) -> list[str]:
        """Atomic claims of the scored response (``[]`` without evidence)."""
        ev = self.evidence
        return list(ev.claims) if ev is not None and ev.claims else []

    @property
    def attributions(self) -> list[ClaimAttribution]:
        """Per-claim source attributions (``[]`` without evidence)."""
        ev = self.evidence
        return list(ev.attributions) if ev is not None and ev.attributions else []

    @property
    def claim_coverage(self) -> float | None:
        """Fraction of supported claims in [0, 1], or None."""
        return self.evidence.claim_coverage if self.evidence is not None else None

    @property
    def unsupported_claims(self) -> list[ClaimAttribution]:
        """Attributions whose claim is not supported by any source."""
        return [a for a in self.attributions if not a.supported]


@dataclass(frozen=True, slots=True)
class InjectedClaim(_Base):
    """Per-claim injection attribution.

    Attributes:
        claim: atomic claim text; claim_index: position (>= 0).
        intent_divergence, reverse_divergence, bidirectional_divergence: NLI divergences in
            [0, 1]; ``bidirectional_divergence`` is ``min(forward, reverse)``.
        traceability, entity_match: overlaps with the intent in [0, 1].
        verdict: one of ``grounded``, ``drifted``, ``injected``.
        confidence: verdict confidence in [0, 1].

    Producer: :class:`director_fast.verify.injection.InjectionDetector` (``InjectionResult.claims``).
    """

    claim: str
    claim_index: int
    intent_divergence: float
    reverse_divergence: float
    bidirectional_divergence: float
    traceability: float
    entity_match: float
    verdict: str
    confidence: float

    _SPEC = (
        F("claim", "str"),
        F("claim_index", "int", lo=0),
        F("intent_divergence", "float", **_UNIT),
        F("reverse_divergence", "float", **_UNIT),
        F("bidirectional_divergence", "float", **_UNIT),
        F("traceability", "float", **_UNIT),
        F("entity_match", "float", **_UNIT),
        F("verdict", "str", choices=INJECTION_VERDICTS),
        F("confidence", "float", **_UNIT),
    )


@dataclass(frozen=True, slots=True)
class InjectionResult(_Base):
    """Return type of injection detection.

    Attributes:
        injection_detected: whether ``combined_score`` exceeds the threshold.
        injection_risk, intent_coverage, input_sanitizer_score, combined_score: in [0, 1].
        total_claims, grounded_claims, drifted_claims, injected_claims: counts >= 0 with
            ``grounded + drifted + injected <= total``.
        claims: per-claim breakdown.

    Producer: :meth:`director_fast.verify.injection.InjectionDetector.detect`,
    :meth:`director_fast.memory.production.ProductionGuard.check_injection`.
    """

    injection_detected: bool
    injection_risk: float
    intent_coverage: float
    total_claims: int
    grounded_claims: int
    drifted_claims: int
    injected_claims: int
    claims: list[InjectedClaim] = field(default_factory=list)
    input_sanitizer_score: float = 0.0
    combined_score: float = 0.0

    _SPEC = (
        F("injection_detected", "bool"),
        F("injection_risk", "float", **_UNIT),
        F("intent_coverage", "float", **_UNIT),
        F("total_claims", "int", lo=0),
        F("grounded_claims", "int", lo=0),
        F("drifted_claims", "int", lo=0),
        F("injected_claims", "int", lo=0),
        F("claims", "lobj", cls=InjectedClaim),
        F("input_sanitizer_score", "float", **_UNIT),
        F("combined_score", "float", **_UNIT),
    )

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        parts = self.grounded_claims + self.drifted_claims + self.injected_claims
        if parts > self.total_claims:
            raise ValidationError(
                f"InjectionResult.total_claims: grounded + drifted + injected = {parts} "
                f"exceeds total_claims = {self.total_claims}"
            )


@dataclass(frozen=True, slots=True)
class ReviewResult(_Base):
    """Return type of ``CoherenceAgent.process()``.

    Attributes:
        output: best approved response (or fallback / halt message).
        coherence: score of the selected candidate, or None.
        halted: whether the safety kernel halted.
        candidates_evaluated: candidates scored (>= 0).
        fallback_used: whether a fallback was activated.
        halt_evidence: structured halt reason, or None.
        safety_events: tenant-safe hook decisions (a tuple of SafetyEvent; lists are converted).

    Producer: the agent (``CoherenceAgent``).
    """

    output: str
    coherence: CoherenceScore | None
    halted: bool
    candidates_evaluated: int
    fallback_used: bool = False
    halt_evidence: HaltEvidence | None = None
    safety_events: tuple[SafetyEvent, ...] = ()

    _SPEC = (
        F("output", "str"),
        F("coherence", "obj", optional=True, cls=CoherenceScore),
        F("halted", "bool"),
        F("candidates_evaluated", "int", lo=0),
        F("fallback_used", "bool"),
        F("halt_evidence", "obj", optional=True, cls=HaltEvidence),
    )

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        events = self.safety_events
        if type(events) is not tuple:
            if not isinstance(events, (list, tuple)):
                raise FieldTypeError(
                    f"ReviewResult.safety_events: expected a tuple of SafetyEvent, "
                    f"got {type(events).__name__}"
                )
            events = tuple(events)
            object.__setattr__(self, "safety_events", events)
        for i, ev in enumerate(events):
            if not isinstance(ev, SafetyEvent):
                raise FieldTypeError(
                    f"ReviewResult.safety_events[{i}]: expected SafetyEvent, got {type(ev).__name__}"
                )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict; ``safety_events`` become a list of ``SafetyEvent.to_dict()``."""
        out = dump_fields(self, self._SPEC)
        out["safety_events"] = [ev.to_dict() for ev in self.safety_events]
        return out

    @classmethod
    def from_dict(cls, payload: Mapping[str, Any]) -> "ReviewResult":
        """Inverse of :meth:`to_dict`; events go through ``validate_safety_event_payload``."""
        if not isinstance(payload, Mapping):
            raise FieldTypeError(f"ReviewResult.from_dict: expected a mapping, got {type(payload).__name__}")
        rest = dict(payload)
        raw_events = rest.pop("safety_events", [])
        if not isinstance(raw_events, (list, tuple)):
            raise FieldTypeError("ReviewResult.safety_events: expected a list")
        events = tuple(validate_safety_event_payload(ev) for ev in raw_events)
        base = load_fields(_ReviewResultNoEvents, cls._SPEC, rest)
        return cls(**{s.name: getattr(base, s.name) for s in cls._SPEC}, safety_events=events)


@dataclass(frozen=True, slots=True)
class _ReviewResultNoEvents(_Base):
    output: str
    coherence: CoherenceScore | None
    halted: bool
    candidates_evaluated: int
    fallback_used: bool = False
    halt_evidence: HaltEvidence | None = None

    _SPEC = ReviewResult._SPEC

"""Shared data types (seed 000). Field names, order and defaults follow director-ai's types.

NOTE: minimal first cut (fields only); validation and dict round-trips are added by the
dataclass-API work (issue 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "EvidenceChunk",
    "ClaimAttribution",
    "ScoringEvidence",
    "CoherenceScore",
    "HaltTraceAttribution",
    "CounterfactualFactChange",
    "CounterfactualHaltDiagnostic",
    "HaltEvidence",
    "ReviewResult",
    "InjectedClaim",
    "InjectionResult",
]


@dataclass(frozen=True)
class EvidenceChunk:
    """A single chunk of retrieved evidence.

    Attributes:
        text: chunk text.
        distance: similarity distance (lower = more relevant), >= 0.
        source: source identifier ("" when unknown).
    """

    text: str
    distance: float
    source: str = ""


@dataclass(frozen=True)
class ClaimAttribution:
    """Maps a response claim to its best-matching source sentence."""

    claim: str
    claim_index: int
    source_sentence: str
    source_index: int
    divergence: float
    supported: bool


@dataclass(frozen=True)
class ScoringEvidence:
    """Evidence collected during scoring."""

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


@dataclass(frozen=True)
class CoherenceScore:
    """The primary return type of CoherenceScorer.review() and score()."""

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


@dataclass(frozen=True)
class HaltTraceAttribution:
    """Trace coordinates for a halt decision.

    Attributes:
        fact_source: source label(s) of the evidence behind the halt ("" when none).
        retrieval_path: retrieval actually done for the halt evidence ("none" when none).
        scorer_path: dotted path of the scorer that produced the scores.
        token_offset: token index where the halt condition triggered.
        threshold: the limit that was crossed (None for external halts such as timeouts).
        causal_contribution: absolute margin beyond the limit (>= 0).
    """

    fact_source: str
    retrieval_path: str
    scorer_path: str
    token_offset: int
    threshold: float | None
    causal_contribution: float


@dataclass(frozen=True)
class CounterfactualFactChange:
    """Candidate single-fact intervention."""

    fact_source: str
    original_fact: str
    proposed_fact: str
    required_score_delta: float
    prevented_halt: bool


@dataclass(frozen=True)
class CounterfactualHaltDiagnostic:
    """Answer to "what single fact change would have prevented this halt?"."""

    question: str
    observed_score: float
    threshold: float
    best_change: CounterfactualFactChange | None
    candidates: list[CounterfactualFactChange] = field(default_factory=list)


@dataclass(frozen=True)
class HaltEvidence:
    """Structured halt reason with evidence chunks."""

    reason: str
    last_score: float
    evidence_chunks: list[EvidenceChunk]
    nli_scores: list[float] | None = None
    suggested_action: str = ""
    trace_attribution: HaltTraceAttribution | None = None
    counterfactual_diagnostic: CounterfactualHaltDiagnostic | None = None


@dataclass(frozen=True)
class InjectedClaim:
    """Per-claim injection attribution."""

    claim: str
    claim_index: int
    intent_divergence: float
    reverse_divergence: float
    bidirectional_divergence: float
    traceability: float
    entity_match: float
    verdict: str
    confidence: float


@dataclass(frozen=True)
class InjectionResult:
    """Return type of injection detection."""

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


@dataclass(frozen=True)
class ReviewResult:
    """Return type of CoherenceAgent.process()."""

    output: str
    coherence: CoherenceScore | None
    halted: bool
    candidates_evaluated: int
    fallback_used: bool = False
    halt_evidence: HaltEvidence | None = None
    safety_events: tuple = ()

"""Evidence records shared by scoring, streaming and safety events: :class:`EvidenceChunk` and the
halt evidence (:class:`HaltEvidence`, :class:`HaltTraceAttribution` and the counterfactual types).

They sit below both :mod:`director_fast.types.results` (which re-exports them) and
:mod:`director_fast.safety.event` (which builds events from halt evidence), so neither
module needs the other at import time.

Every class is a frozen, slotted dataclass validated on construction (see
:mod:`director_fast.types.results` for the conventions). Thread-safety: instances are immutable and
may be shared between threads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from director_fast._fields import F, _Base

__all__ = [
    "EvidenceChunk",
    "HaltTraceAttribution",
    "CounterfactualFactChange",
    "CounterfactualHaltDiagnostic",
    "HaltEvidence",
]

_UNIT = {"lo": 0.0, "hi": 1.0}


@dataclass(frozen=True, slots=True)
class EvidenceChunk(_Base):
    """A single chunk of retrieved evidence.

    Attributes:
        text: chunk text (code points).
        distance: similarity distance, finite; lower = more relevant (L2 / cosine distances are
            >= 0; an inner-product distance ``1 - <a, b>`` may be negative).
        source: source identifier (``""`` when unknown).

    Producer: the evidence index (``director_fast`` retrieval) and the scorer.
    """

    text: str
    distance: float
    source: str = ""

    _SPEC = (F("text", "str"), F("distance", "float"), F("source", "str"))


@dataclass(frozen=True, slots=True)
class HaltTraceAttribution(_Base):
    """Trace coordinates for a halt decision.

    Attributes:
        fact_source: source label(s) of the evidence behind the halt (``""`` when none).
        retrieval_path: retrieval actually done for the halt evidence.
        scorer_path: dotted path of the scorer that produced the scores.
        token_offset: token index (>= 0) where the halt triggered; -1 when unknown.
        threshold: the limit that was crossed, in [0, 1]; None for external halts (timeouts).
        causal_contribution: absolute margin beyond the limit (finite, >= 0).

    Strings are at most 512 code points (they travel inside SafetyEvents).
    Producer: the streaming guard.
    """

    fact_source: str = ""
    retrieval_path: str = ""
    scorer_path: str = ""
    token_offset: int = -1
    threshold: float | None = None
    causal_contribution: float = 0.0

    _SPEC = (
        F("fact_source", "str", max_len=512),
        F("retrieval_path", "str", max_len=512),
        F("scorer_path", "str", max_len=512),
        F("token_offset", "int", lo=-1),
        F("threshold", "float", optional=True, **_UNIT),
        F("causal_contribution", "float", lo=0.0),
    )


@dataclass(frozen=True, slots=True)
class CounterfactualFactChange(_Base):
    """Candidate single-fact intervention.

    Attributes:
        fact_source, original_fact, proposed_fact: labels and texts of the branch.
        required_score_delta: minimum score increase that prevents the halt (finite, >= 0).
        prevented_halt: whether this branch satisfies the halt invariant (recomputed: the
            halting sentence re-scored with ``proposed_fact`` in place of ``original_fact``, the
            stream's scores replayed through the kernel).

    Producer: the streaming guard (:mod:`director_fast.stream.counterfactual`).
    """

    fact_source: str
    original_fact: str
    proposed_fact: str
    required_score_delta: float
    prevented_halt: bool

    _SPEC = (
        F("fact_source", "str"),
        F("original_fact", "str"),
        F("proposed_fact", "str"),
        F("required_score_delta", "float", lo=0.0),
        F("prevented_halt", "bool"),
    )


@dataclass(frozen=True, slots=True)
class CounterfactualHaltDiagnostic(_Base):
    """Answer to "what single fact change would have prevented this halt?".

    Attributes:
        question: the diagnostic question answered.
        observed_score, threshold: in [0, 1].
        best_change: first candidate that prevents the halt, or None.
        candidates: all candidate branches.
        explanation: short operator-facing summary holding no fact text (at most 512 code
            points; ``""`` when not given).

    Producer: the streaming guard (:mod:`director_fast.stream.counterfactual`).
    """

    question: str
    observed_score: float
    threshold: float
    best_change: CounterfactualFactChange | None
    candidates: list[CounterfactualFactChange] = field(default_factory=list)
    explanation: str = ""

    _SPEC = (
        F("question", "str"),
        F("observed_score", "float", **_UNIT),
        F("threshold", "float", **_UNIT),
        F("best_change", "obj", optional=True, cls=CounterfactualFactChange),
        F("candidates", "lobj", cls=CounterfactualFactChange),
        F("explanation", "str", max_len=512),
    )


@dataclass(frozen=True, slots=True)
class HaltEvidence(_Base):
    """Structured halt reason with evidence chunks.

    Attributes:
        reason: halt mechanism that triggered (e.g. ``hard_limit``).
        last_score: coherence at the halt point, in [0, 1].
        evidence_chunks: contradicting chunks.
        nli_scores: NLI divergences at the halt point (each in [0, 1]), or None.
        suggested_action: recommended, tenant-safe action.
        trace_attribution: trace coordinates, or None.
        counterfactual_diagnostic: single-fact change diagnostic (filled by the streaming guard
            on a halt decided by evidence with a :class:`~director_fast.CoherenceScorer`; None
            otherwise).

    Producer: the streaming guard.
    """

    reason: str
    last_score: float
    evidence_chunks: list[EvidenceChunk]
    nli_scores: list[float] | None = None
    suggested_action: str = ""
    trace_attribution: HaltTraceAttribution | None = None
    counterfactual_diagnostic: CounterfactualHaltDiagnostic | None = None

    _SPEC = (
        F("reason", "str"),
        F("last_score", "float", **_UNIT),
        F("evidence_chunks", "lobj", cls=EvidenceChunk),
        F("nli_scores", "lfloat", optional=True, **_UNIT),
        F("suggested_action", "str"),
        F("trace_attribution", "obj", optional=True, cls=HaltTraceAttribution),
        F("counterfactual_diagnostic", "obj", optional=True, cls=CounterfactualHaltDiagnostic),
    )

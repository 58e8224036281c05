"""director-ai's import path ``director_ai.core.types``: the result data types.

A re-export only; the implementation lives in :mod:`director_fast.types.results`.
"""

from director_fast.types.results import (  # noqa: F401
    EvidenceChunk,
    ClaimAttribution,
    SkippedUnit,
    CrossTurnContradiction,
    CLAIM_VERDICTS,
    ScoringEvidence,
    CoherenceScore,
    HaltTraceAttribution,
    CounterfactualFactChange,
    CounterfactualHaltDiagnostic,
    HaltEvidence,
    ReviewResult,
    InjectedClaim,
    InjectionResult,
    FieldTypeError,
    INJECTION_VERDICTS,
)

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

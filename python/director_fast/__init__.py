"""director_fast: fast, correct guardrails for LLM output.

A director-ai compatible API (same class, field and function names) over a C++ core: the
streaming halt kernel, text spans, the HNSW evidence index and the temporal contradiction index.
"""

from director_fast._core import __version__
from director_fast.core.halt import HaltConfig, HaltDecision, HaltReason, replay
from director_fast.core.safety_event import SafetyEvent
from director_fast.core.streaming import StreamingKernel, StreamSession, TokenEvent
from director_fast.core.types import (
    ClaimAttribution,
    CoherenceScore,
    CounterfactualFactChange,
    CounterfactualHaltDiagnostic,
    EvidenceChunk,
    HaltEvidence,
    HaltTraceAttribution,
    InjectedClaim,
    InjectionResult,
    ReviewResult,
    ScoringEvidence,
)
from director_fast.errors import (
    ConfigError,
    DirectorFastError,
    InputTypeError,
    ScoreError,
    StreamHalted,
    ValidationError,
)
from director_fast.stream_guard import astream_guard, stream_guard

__all__ = [
    "__version__",
    "HaltConfig",
    "HaltDecision",
    "HaltReason",
    "replay",
    "SafetyEvent",
    "StreamingKernel",
    "StreamSession",
    "TokenEvent",
    "ClaimAttribution",
    "CoherenceScore",
    "CounterfactualFactChange",
    "CounterfactualHaltDiagnostic",
    "EvidenceChunk",
    "HaltEvidence",
    "HaltTraceAttribution",
    "InjectedClaim",
    "InjectionResult",
    "ReviewResult",
    "ScoringEvidence",
    "ConfigError",
    "DirectorFastError",
    "InputTypeError",
    "ScoreError",
    "StreamHalted",
    "ValidationError",
    "stream_guard",
    "astream_guard",
]

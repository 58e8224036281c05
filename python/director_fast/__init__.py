"""director_fast: fast, correct guardrails for LLM output.

A director-ai compatible API (same class, field and function names) over a C++ core: the
streaming halt kernel, text spans, the HNSW evidence index and the temporal contradiction index.
"""

from director_fast._core import __version__
from director_fast.stream.halt import HaltConfig, HaltDecision, HaltReason, replay
from director_fast.safety.event import (
    SAFETY_EVENT_JSON_SCHEMA,
    SAFETY_EVENT_SCHEMA_VERSION,
    SafetyEvent,
    validate_safety_event_payload,
)
from director_fast.safety.protocol import (
    DIRECTOR_SAFETY_PROTOCOL_VERSION,
    DirectorSafetySignal,
    director_safety_signal_from_event,
    new_director_safety_signal_id,
    validate_director_safety_signal,
)
from director_fast.stream.kernel import StreamingKernel, StreamSession, TokenEvent
from director_fast.types.results import (
    ClaimAttribution,
    CoherenceScore,
    CrossTurnContradiction,
    CounterfactualFactChange,
    CounterfactualHaltDiagnostic,
    EvidenceChunk,
    HaltEvidence,
    HaltTraceAttribution,
    InjectedClaim,
    InjectionResult,
    ReviewResult,
    ScoringEvidence,
    SkippedUnit,
)
from director_fast.errors import (
    ConfigError,
    DirectorFastError,
    FormatError,
    InputTypeError,
    RetrievalError,
    ScoreError,
    StreamHalted,
    UnknownTenantError,
    ValidationError,
)
from director_fast.types.verification import (
    CitationStatusVerdict,
    NumericIssue,
    NumericMatch,
    NumericMismatch,
    NumericSpan,
    NumericVerificationResult,
    StructuredRecoveryResult,
    TuneResult,
)
from director_fast.verify.claims import CLAIM_KINDS, ClaimUnit, split_claims
from director_fast.verify.numbers import NumberMention, find_numbers
from director_fast.diagnostics.numeric_verify import verify_numbers, verify_numeric
from director_fast.diagnostics.citations import CitationCheck, CitationReport, check_citations, strip_markers
from director_fast.diagnostics.confidence import ABSTAIN_THRESHOLD, SchemaViolation, evaluate, evaluate_tool_call, is_placeholder
from director_fast.diagnostics.confidence import Report as ConfidenceReport
from director_fast.verify.evidence import EvidenceHit, EvidenceIndex, HashingEmbedder, OnnxEmbedder
from director_fast.verify.knowledge import KnowledgeBase
from director_fast.verify.injection import InjectionDetector, InputSanitizer
from director_fast.verify.text import SentenceSegmenter, TokenSpans, chunk_by_tokens, split_sentences
from director_fast.verify.scorer import CoherenceScorer, SentenceScore
from director_fast.memory.temporal import (
    TemporalClaim,
    TemporalConsistencyGraph,
    TemporalContradiction,
)
from director_fast.types.config import DirectorConfig
from director_fast.memory.production import ProductionGuard
from director_fast.verify.nli import LexicalNLI, NLIModel, NLIScore, shipped_model_dir
from director_fast.stream.stream_guard import ScorerExecutor, astream_guard, stream_guard
from director_fast.stream.agent import CoherenceAgent
from director_fast.stream.structured import recover_json
from director_fast.diagnostics.calibration import tune_threshold
from director_fast.types.explanation import ClaimExplanation, Explanation
from director_fast.verify.explain import explain, explain_halt
from director_fast.diagnostics.finetune import benchmark_finetuned_model, validate_finetune_data
from director_fast.types.verification import DataQualityReport, FinetuneConfig, FinetuneResult, RegressionReport
from director_fast.errors import HallucinationError, MissingDependencyError
from director_fast.jobs.distributed import guard_dataset, read_dataset, score_dataset
from director_fast.memory import production as _production
from director_fast.stream.client_guard import guard, score
from director_fast.telemetry import PrometheusMetrics, RecordingMetrics, configure_tracing, set_metrics_hook
from director_fast.memory.conversation import ConversationSession, CrossTurnReport, Turn

# ``director_fast.guard`` is the client-wrapping function; the module that held ProductionGuard
# until now is director_fast.memory.production. Old imports keep working:
# ``from director_fast.guard import ProductionGuard`` / ``import director_fast.guard`` (the
# module alias) and ``director_fast.guard.ProductionGuard`` (an attribute of the function).
import sys as _sys

_sys.modules.setdefault("director_fast.guard", _production)
guard.ProductionGuard = ProductionGuard  # type: ignore[attr-defined]
del _sys

from director_fast.runtime_check import (  # noqa: E402
    OnnxRuntimeConflictWarning,
    OnnxRuntimeInstall,
    onnxruntime_install,
)
from director_fast.runtime_check import _warn_on_conflict  # noqa: E402

_warn_on_conflict()  # onnxruntime and onnxruntime-gpu installed side by side: say which one runs
del _warn_on_conflict

__all__ = [
    "__version__",
    "OnnxRuntimeConflictWarning",
    "OnnxRuntimeInstall",
    "onnxruntime_install",
    "HaltConfig",
    "HaltDecision",
    "HaltReason",
    "replay",
    "SafetyEvent",
    "SAFETY_EVENT_JSON_SCHEMA",
    "SAFETY_EVENT_SCHEMA_VERSION",
    "validate_safety_event_payload",
    "DIRECTOR_SAFETY_PROTOCOL_VERSION",
    "DirectorSafetySignal",
    "director_safety_signal_from_event",
    "new_director_safety_signal_id",
    "validate_director_safety_signal",
    "CitationStatusVerdict",
    "NumericVerificationResult",
    "NumericIssue",
    "NumericMatch",
    "NumericMismatch",
    "NumericSpan",
    "verify_numeric",
    "verify_numbers",
    "StructuredRecoveryResult",
    "TuneResult",
    "CitationCheck",
    "CitationReport",
    "check_citations",
    "strip_markers",
    "ABSTAIN_THRESHOLD",
    "ConfidenceReport",
    "evaluate",
    "evaluate_tool_call",
    "SchemaViolation",
    "is_placeholder",
    "EvidenceHit",
    "EvidenceIndex",
    "HashingEmbedder",
    "OnnxEmbedder",
    "KnowledgeBase",
    "SentenceSegmenter",
    "TokenSpans",
    "chunk_by_tokens",
    "split_sentences",
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
    "InjectionDetector",
    "InputSanitizer",
    "ReviewResult",
    "ScoringEvidence",
    "SkippedUnit",
    "ClaimUnit",
    "CLAIM_KINDS",
    "split_claims",
    "NumberMention",
    "find_numbers",
    "ConfigError",
    "DirectorFastError",
    "FormatError",
    "InputTypeError",
    "RetrievalError",
    "ScoreError",
    "StreamHalted",
    "UnknownTenantError",
    "ValidationError",
    "stream_guard",
    "CoherenceScorer",
    "SentenceScore",
    "TemporalClaim",
    "TemporalConsistencyGraph",
    "TemporalContradiction",
    "DirectorConfig",
    "ProductionGuard",
    "HallucinationError",
    "MissingDependencyError",
    "guard_dataset",
    "read_dataset",
    "score_dataset",
    "guard",
    "score",
    "LexicalNLI",
    "NLIModel",
    "shipped_model_dir",
    "NLIScore",
    "astream_guard",
    "ScorerExecutor",
    "CoherenceAgent",
    "set_metrics_hook",
    "configure_tracing",
    "RecordingMetrics",
    "PrometheusMetrics",
    "ConversationSession",
    "CrossTurnReport",
    "CrossTurnContradiction",
    "Turn",
    "recover_json",
    "tune_threshold",
    "explain",
    "explain_halt",
    "Explanation",
    "ClaimExplanation",
    "validate_finetune_data",
    "benchmark_finetuned_model",
    "DataQualityReport",
    "FinetuneConfig",
    "FinetuneResult",
    "RegressionReport",
]

"""Verification, recovery and calibration result types named at the end of seed 000.

Seed 000 names these types without listing fields; fields follow director-ai 3.21.0 where it defines
the type (``NumericVerificationResult``, ``NumericIssue``, ``StructuredRecoveryResult``,
``CitationStatusVerdict``) and are chosen here otherwise (``TuneResult``, ``FinetuneConfig``,
``FinetuneResult``, ``RegressionReport``, ``DataQualityReport``). All are frozen, slotted,
validated on construction and round-trip through ``to_dict()`` / ``from_dict()``.

Producers: :func:`director_fast.verify_numeric` and :func:`director_fast.verify_numbers` build
``NumericVerificationResult`` (with ``NumericIssue``, ``NumericMatch``, ``NumericMismatch``,
``NumericSpan``); the other types are data-only, filled by whoever constructs them.

Thread-safety: immutable; share freely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from director_fast.core._fields import F, validate_fields
from director_fast.core._fields import _Base
from director_fast.errors import ValidationError

__all__ = [
    "NumericIssue",
    "NumericMatch",
    "NumericMismatch",
    "NumericSpan",
    "NumericVerificationResult",
    "StructuredRecoveryResult",
    "CitationStatusVerdict",
    "TuneResult",
    "FinetuneConfig",
    "FinetuneResult",
    "RegressionReport",
    "DataQualityReport",
]

_UNIT = {"lo": 0.0, "hi": 1.0}


@dataclass(frozen=True, slots=True)
class NumericIssue(_Base):
    """A numeric inconsistency: ``issue_type`` (arithmetic, date_logic, magnitude, probability,
    internal, evidence_mismatch), ``description``, ``severity`` (``error`` or ``warning``),
    ``context``."""

    issue_type: str
    description: str
    severity: str
    context: str

    _SPEC = (
        F("issue_type", "str", choices=frozenset({"arithmetic", "date_logic", "magnitude", "probability", "internal",
                                                  "evidence_mismatch"})),
        F("description", "str"),
        F("severity", "str", choices=frozenset({"error", "warning"})),
        F("context", "str"),
    )


_SPAN = (F("start", "int", lo=0), F("end", "int", lo=0))


def _check_span(obj: Any) -> None:
    if obj.end < obj.start:
        raise ValidationError(f"{type(obj).__name__}.end: {obj.end} is before start {obj.start}")


@dataclass(frozen=True, slots=True)
class NumericMatch(_Base):
    """A number of a response that an evidence number about the same thing states.

    Attributes:
        claim_value, evidence_value: the two values (finite; each in its own ``unit``, multiplier
            applied: "3bn" is 3e9; times of day are minutes since midnight).
        unit: the response number's unit key (:data:`director_fast.numbers.UNITS`, ``""``: none).
        start, end: code-point span of the number in the response (end exclusive).
        evidence_ref: ``<label>@<start>:<end>``, the evidence number's span in its evidence item
            (``label`` = the chunk's ``source``, else ``evidence[<i>]``); ``arithmetic`` for a
            number the response computes from its own numbers (no evidence span).
        evidence_unit: the evidence number's unit key (differs from ``unit`` for equal
            quantities such as "2 weeks" / "14 days").
    """

    claim_value: float
    evidence_value: float
    unit: str
    start: int
    end: int
    evidence_ref: str
    evidence_unit: str = ""

    _SPEC = (F("claim_value", "float"), F("evidence_value", "float"), F("unit", "str"), *_SPAN,
             F("evidence_ref", "str"), F("evidence_unit", "str"))

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        _check_span(self)


@dataclass(frozen=True, slots=True)
class NumericMismatch(_Base):
    """A number of a response that contradicts the evidence number about the same thing: a
    different quantity ("NOK 550" against "NOK 450"), or the same value in another unit ("32 lb"
    against "32 kg"; then ``evidence_unit != unit``). Fields as in :class:`NumericMatch`."""

    claim_value: float
    evidence_value: float
    unit: str
    start: int
    end: int
    evidence_ref: str
    evidence_unit: str = ""

    _SPEC = (F("claim_value", "float"), F("evidence_value", "float"), F("unit", "str"), *_SPAN,
             F("evidence_ref", "str"), F("evidence_unit", "str"))

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        _check_span(self)


@dataclass(frozen=True, slots=True)
class NumericSpan(_Base):
    """A number of a response that no evidence number is about (unverifiable): ``value``
    (finite), ``unit`` key, code-point span ``start`` / ``end``."""

    value: float
    unit: str
    start: int
    end: int

    _SPEC = (F("value", "float"), F("unit", "str"), *_SPAN)

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        _check_span(self)


@dataclass(frozen=True, slots=True)
class NumericVerificationResult(_Base):
    """Result of numeric claim verification: ``claims_found`` (>= 0) numbers extracted, the
    ``issues`` found, and ``valid`` (False iff an issue has severity ``error``).

    :func:`director_fast.verify_numbers` also fills, for every number of the response,
    exactly one of ``matches`` (:class:`NumericMatch`), ``mismatches`` (:class:`NumericMismatch`,
    each with an ``evidence_mismatch`` error issue, so ``valid`` is False) or ``unverifiable``
    (:class:`NumericSpan`); :func:`director_fast.verify_numeric` leaves them empty."""

    claims_found: int
    issues: list[NumericIssue] = field(default_factory=list)
    valid: bool = True
    matches: list[NumericMatch] = field(default_factory=list)
    mismatches: list[NumericMismatch] = field(default_factory=list)
    unverifiable: list[NumericSpan] = field(default_factory=list)

    _SPEC = (F("claims_found", "int", lo=0), F("issues", "lobj", cls=NumericIssue), F("valid", "bool"),
             F("matches", "lobj", cls=NumericMatch), F("mismatches", "lobj", cls=NumericMismatch),
             F("unverifiable", "lobj", cls=NumericSpan))

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        if self.valid and self.error_count:
            raise ValidationError("NumericVerificationResult.valid: True although an issue is an error")
        if self.valid and self.mismatches:
            raise ValidationError("NumericVerificationResult.valid: True although a number mismatches the evidence")

    @property
    def error_count(self) -> int:
        """Number of issues with severity ``error``."""
        return sum(1 for i in self.issues if i.severity == "error")

    @property
    def warning_count(self) -> int:
        """Number of issues with severity ``warning``."""
        return sum(1 for i in self.issues if i.severity == "warning")


@dataclass(frozen=True, slots=True)
class StructuredRecoveryResult(_Base):
    """Parser-safe recovery of a halted structured stream: ``kind`` (json, tool_call,
    reasoning_chain), ``policy`` (last_valid, raw_partial, ...), ``halted_at`` (token index >= 0),
    the last valid output, the raw partial, ``valid``, parser ``errors`` and JSON ``metadata``."""

    kind: str
    policy: str
    halted_at: int
    last_valid_output: str = ""
    raw_partial: str = ""
    valid: bool = False
    errors: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    _SPEC = (
        F("kind", "str"), F("policy", "str"), F("halted_at", "int", lo=0), F("last_valid_output", "str"),
        F("raw_partial", "str"), F("valid", "bool"), F("errors", "lstr"), F("metadata", "json"),
    )


@dataclass(frozen=True, slots=True)
class CitationStatusVerdict(_Base):
    """Per-source freshness contribution from an external citation-status feed: ``source_id``,
    ``status`` (e.g. ``retracted``), ``risk`` in [0, 1], ``reason``, ``status_source``."""

    source_id: str
    status: str
    risk: float
    reason: str
    status_source: str = ""

    _SPEC = (F("source_id", "str"), F("status", "str"), F("risk", "float", **_UNIT), F("reason", "str"),
             F("status_source", "str"))


@dataclass(frozen=True, slots=True)
class TuneResult(_Base):
    """Calibration tuning outcome: the selected ``threshold`` in [0, 1], the ``metric`` optimised
    and its ``score`` at that threshold, ``samples`` used (>= 0) and the per-candidate
    ``curve`` (threshold string -> metric value) as diagnostic evidence."""

    threshold: float
    metric: str
    score: float
    samples: int
    curve: dict[str, float] = field(default_factory=dict)

    _SPEC = (F("threshold", "float", **_UNIT), F("metric", "str"), F("score", "float"),
             F("samples", "int", lo=0), F("curve", "dfloat"))


@dataclass(frozen=True, slots=True)
class FinetuneConfig(_Base):
    """Fine-tuning hyper-parameters: ``base_model``, ``epochs`` (>= 1), ``batch_size`` (>= 1),
    ``learning_rate`` (> 0, <= 1), ``warmup_ratio`` in [0, 1], ``mix_general_ratio`` (share of
    general data mixed in, [0, 1]), ``early_stopping_patience`` (>= 0; 0 disables), ``seed``."""

    base_model: str
    epochs: int = 3
    batch_size: int = 16
    learning_rate: float = 2e-5
    warmup_ratio: float = 0.1
    mix_general_ratio: float = 0.0
    early_stopping_patience: int = 0
    seed: int = 0

    _SPEC = (F("base_model", "str"), F("epochs", "int", lo=1), F("batch_size", "int", lo=1),
             F("learning_rate", "float", lo=1e-12, hi=1.0), F("warmup_ratio", "float", **_UNIT),
             F("mix_general_ratio", "float", **_UNIT), F("early_stopping_patience", "int", lo=0),
             F("seed", "int"))


@dataclass(frozen=True, slots=True)
class RegressionReport(_Base):
    """Anti-regression verdict before a fine-tune may be activated: ``baseline_score`` and
    ``candidate_score`` (same metric), allowed ``max_regression`` (>= 0), ``passed``
    (``baseline - candidate <= max_regression``) and per-benchmark ``per_task_delta``."""

    baseline_score: float
    candidate_score: float
    max_regression: float
    passed: bool
    per_task_delta: dict[str, float] = field(default_factory=dict)

    _SPEC = (F("baseline_score", "float"), F("candidate_score", "float"), F("max_regression", "float", lo=0.0),
             F("passed", "bool"), F("per_task_delta", "dfloat"))

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        expected = self.baseline_score - self.candidate_score <= self.max_regression
        if self.passed != expected:
            raise ValidationError(f"RegressionReport.passed: must be {expected} for these scores")


@dataclass(frozen=True, slots=True)
class DataQualityReport(_Base):
    """Validation of uploaded fine-tuning JSONL: ``total_rows`` / ``valid_rows`` / ``duplicate_rows``
    (counts, valid and duplicates <= total), ``label_counts``-based ``label_balance`` in [0, 1]
    (minority / majority share), ``estimated_minutes`` and ``estimated_cost_usd`` (>= 0), ``errors``."""

    total_rows: int
    valid_rows: int
    duplicate_rows: int
    label_balance: float
    estimated_minutes: float = 0.0
    estimated_cost_usd: float = 0.0
    errors: list[str] = field(default_factory=list)

    _SPEC = (F("total_rows", "int", lo=0), F("valid_rows", "int", lo=0), F("duplicate_rows", "int", lo=0),
             F("label_balance", "float", **_UNIT), F("estimated_minutes", "float", lo=0.0),
             F("estimated_cost_usd", "float", lo=0.0), F("errors", "lstr"))

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        if self.valid_rows > self.total_rows or self.duplicate_rows > self.total_rows:
            raise ValidationError("DataQualityReport.total_rows: smaller than valid_rows or duplicate_rows")


@dataclass(frozen=True, slots=True)
class FinetuneResult(_Base):
    """Training summary: ``output_dir``, ``train_samples`` (>= 0), ``epochs_completed`` (>= 0),
    ``eval_metrics`` (name -> value) and the optional ``regression_report``."""

    output_dir: str
    train_samples: int
    epochs_completed: int
    eval_metrics: dict[str, float] = field(default_factory=dict)
    regression_report: RegressionReport | None = None

    _SPEC = (F("output_dir", "str"), F("train_samples", "int", lo=0), F("epochs_completed", "int", lo=0),
             F("eval_metrics", "dfloat"), F("regression_report", "obj", optional=True, cls=RegressionReport))

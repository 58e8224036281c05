"""Verification, recovery and calibration result types.

Fields follow director-ai 3.21.0 where it defines the type (``NumericVerificationResult``,
``NumericIssue``, ``StructuredRecoveryResult``, ``CitationStatusVerdict``) and are chosen here
otherwise (``TuneResult``, ``FinetuneConfig``, ``FinetuneResult``, ``RegressionReport``,
``DataQualityReport``). All are frozen, slotted, validated on construction and round-trip
through ``to_dict()`` / ``from_dict()``.

Producers: :func:`director_fast.verify_numeric` and :func:`director_fast.verify_numbers` build
``NumericVerificationResult`` (with ``NumericIssue``, ``NumericMatch``, ``NumericMismatch``,
``NumericSpan``); ``stream_guard(structured="json")`` builds ``StructuredRecoveryResult``;
``KnowledgeBase.set_source_status`` ``CitationStatusVerdict``; ``tune_threshold`` ``TuneResult``;
``validate_finetune_data`` / ``benchmark_finetuned_model`` ``DataQualityReport`` /
``RegressionReport``. ``FinetuneConfig`` and ``FinetuneResult`` are data-only, filled by whoever
constructs them.

Thread-safety: immutable; share freely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from director_fast._fields import F, validate_fields
from director_fast._fields import _Base
from director_fast.errors import StorageError, ValidationError

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

#: the ``format`` member of a scorer config file (``TuneResult.to_config``).
SCORER_CONFIG_FORMAT = "director_fast.scorer_config.v1"


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
class _NumericPair(_Base):
    """The fields and checks :class:`NumericMatch` and :class:`NumericMismatch` share."""

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
class NumericMatch(_NumericPair):
    """A number of a response that an evidence number about the same thing states.

    Attributes:
        claim_value, evidence_value: the two values (finite; each in its own ``unit``, multiplier
            applied: "3bn" is 3e9; times of day are minutes since midnight).
        unit: the response number's unit key (:data:`director_fast.verify.numbers.UNITS`, ``""``: none).
        start, end: code-point span of the number in the response (end exclusive).
        evidence_ref: ``<label>@<start>:<end>``, the evidence number's span in its evidence item
            (``label`` = the chunk's ``source``, else ``evidence[<i>]``); ``arithmetic`` for a
            number the response computes from its own numbers (no evidence span).
        evidence_unit: the evidence number's unit key (differs from ``unit`` for equal
            quantities such as "2 weeks" / "14 days").
    """


@dataclass(frozen=True, slots=True)
class NumericMismatch(_NumericPair):
    """A number of a response that contradicts the evidence number about the same thing: a
    different quantity ("NOK 550" against "NOK 450"), or the same value in another unit ("32 lb"
    against "32 kg"; then ``evidence_unit != unit``). Fields as in :class:`NumericMatch`."""


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
    the last valid output, the raw partial, ``valid``, parser ``errors`` and JSON ``metadata``.

    Producer: ``stream_guard(..., structured="json")`` on a halt (``StreamSession.structured_recovery``;
    rules in :mod:`director_fast.stream.structured`)."""

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
    ``status`` (e.g. ``retracted``), ``risk`` in [0, 1], ``reason``, ``status_source``, and
    ``as_of`` (RFC-3339 UTC time the status took effect; ``""`` when unknown).

    Producer: :mod:`director_fast.verify.citation_status` (``KnowledgeBase.set_source_status``), reported
    per source in ``ScoringEvidence.citation_status``."""

    source_id: str
    status: str
    risk: float
    reason: str
    status_source: str = ""
    as_of: str = ""

    _SPEC = (F("source_id", "str"), F("status", "str"), F("risk", "float", **_UNIT), F("reason", "str"),
             F("status_source", "str"), F("as_of", "str"))


@dataclass(frozen=True, slots=True)
class TuneResult(_Base):
    """Calibration tuning outcome (producer: :func:`director_fast.tune_threshold`).

    Attributes:
        threshold: the selected threshold in [0, 1] (approved iff score >= threshold).
        metric: the metric optimised (``balanced_accuracy``, or ``catch_rate`` under a
            false-positive-rate cap) and ``score``: its value at ``threshold`` on the tuning part.
        samples: tuning records (>= 0).
        curve: candidate threshold (``"%.6f"``) -> metric value on the tuning part.
        objective: ``balanced_accuracy`` or ``max_fpr``; ``max_fpr``: the cap, or None.
        true_positives / false_positives / true_negatives / false_negatives: confusion counts
            (>= 0) at ``threshold`` on the evaluation part (positive = hallucinated = flagged).
        interval: ``[low, high]``, the 95 % bootstrap interval of the threshold (``[]`` when no
            resampling was done).
        heldout: metrics on the evaluation part (JSON: counts, rates, ``split``,
            ``balanced_accuracy_interval``).
        per_tenant: tenant id -> its own threshold, each in [0, 1].
        reliability: reliability curve (JSON: ``bins`` of count / mean score / faithful share,
            ``ece``).
        score_scale: ``[threshold, soft_limit]`` of the scorer that produced the scores.
        seed: the seed of the split and the bootstrap.
        unreliable: True when the threshold is not pinned down: its interval is wider than the
            ``max_width`` asked for, or fewer than ``min_records`` records tuned it (see
            ``warnings``).
        warnings: one sentence per problem, stating the interval and its width or the number of
            tuning records and the size asked for (``[]`` when none).
    """

    threshold: float
    metric: str
    score: float
    samples: int
    curve: dict[str, float] = field(default_factory=dict)
    objective: str = "balanced_accuracy"
    max_fpr: float | None = None
    true_positives: int = 0
    false_positives: int = 0
    true_negatives: int = 0
    false_negatives: int = 0
    interval: list[float] = field(default_factory=list)
    heldout: dict[str, Any] = field(default_factory=dict)
    per_tenant: dict[str, float] = field(default_factory=dict)
    reliability: dict[str, Any] = field(default_factory=dict)
    score_scale: list[float] = field(default_factory=lambda: [0.5, 0.6])
    seed: int = 0
    unreliable: bool = False
    warnings: list[str] = field(default_factory=list)

    _SPEC = (F("threshold", "float", **_UNIT), F("metric", "str"), F("score", "float"),
             F("samples", "int", lo=0), F("curve", "dfloat"), F("objective", "str"),
             F("max_fpr", "float", optional=True, **_UNIT),
             F("true_positives", "int", lo=0), F("false_positives", "int", lo=0),
             F("true_negatives", "int", lo=0), F("false_negatives", "int", lo=0),
             F("interval", "lfloat", **_UNIT), F("heldout", "json"), F("per_tenant", "dfloat", **_UNIT),
             F("reliability", "json"), F("score_scale", "lfloat", **_UNIT), F("seed", "int"),
             F("unreliable", "bool"), F("warnings", "lstr"))

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        if len(self.interval) not in (0, 2) or (self.interval and self.interval[0] > self.interval[1]):
            raise ValidationError("TuneResult.interval: must be [] or [low, high] with low <= high")
        if len(self.score_scale) != 2 or self.score_scale[0] > self.score_scale[1]:
            raise ValidationError("TuneResult.score_scale: must be [threshold, soft_limit], threshold <= soft_limit")

    def to_config(self) -> dict[str, Any]:
        """The JSON scorer config of this result, loaded by ``CoherenceScorer.from_config``:
        ``format`` (:data:`SCORER_CONFIG_FORMAT`), ``threshold``, ``soft_limit`` (threshold +
        0.1, at most 1), ``score_scale``, ``tenant_thresholds``, and the tuning record
        (``objective``, ``max_fpr``, ``metric``, ``score``, ``interval``, ``samples``, ``seed``)."""
        t = float(self.threshold)
        return {
            "format": SCORER_CONFIG_FORMAT, "threshold": t, "soft_limit": min(t + 0.1, 1.0),
            "score_scale": list(self.score_scale), "tenant_thresholds": dict(self.per_tenant),
            "objective": self.objective, "max_fpr": self.max_fpr, "metric": self.metric, "score": self.score,
            "interval": list(self.interval), "samples": self.samples, "seed": self.seed,
        }

    def write_config(self, path: Any) -> dict[str, Any]:
        """Write :meth:`to_config` to ``path`` as JSON and return it.

        Raises:
            StorageError: the file cannot be written.
        """
        import json
        from pathlib import Path

        cfg = self.to_config()
        try:
            Path(path).write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        except OSError as exc:
            raise StorageError(f"cannot write the scorer config {path}: {exc}") from exc
        return cfg


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
    """Anti-regression verdict before a fine-tune may be activated (producer:
    :func:`director_fast.benchmark_finetuned_model`).

    Attributes:
        baseline_score / candidate_score: the metric averaged over the benchmark files.
        max_regression: the largest drop allowed on any file (>= 0).
        passed: True iff no file's delta (candidate - baseline) and not the average fall below
            ``-max_regression``.
        per_task_delta: file name -> candidate - baseline.
        metric: the metric compared (``balanced_accuracy``).
        per_task: file name -> JSON details (``n``, ``baseline``, ``candidate``, ``delta``,
            ``interval``: 95 % paired-bootstrap interval of the delta).
        failed_tasks: the files that regressed by more than ``max_regression``.
    """

    baseline_score: float
    candidate_score: float
    max_regression: float
    passed: bool
    per_task_delta: dict[str, float] = field(default_factory=dict)
    metric: str = "balanced_accuracy"
    per_task: dict[str, Any] = field(default_factory=dict)
    failed_tasks: list[str] = field(default_factory=list)

    _SPEC = (F("baseline_score", "float"), F("candidate_score", "float"), F("max_regression", "float", lo=0.0),
             F("passed", "bool"), F("per_task_delta", "dfloat"), F("metric", "str"), F("per_task", "json"),
             F("failed_tasks", "lstr"))

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        failed = sorted(k for k, d in self.per_task_delta.items() if d < -self.max_regression)
        if sorted(self.failed_tasks) != failed:
            raise ValidationError(f"RegressionReport.failed_tasks: must be {failed} for these deltas")
        expected = self.baseline_score - self.candidate_score <= self.max_regression and not failed
        if self.passed != expected:
            raise ValidationError(f"RegressionReport.passed: must be {expected} for these scores")


@dataclass(frozen=True, slots=True)
class DataQualityReport(_Base):
    """Validation of uploaded fine-tuning JSONL (producer:
    :func:`director_fast.validate_finetune_data`).

    Attributes:
        total_rows / valid_rows: non-blank lines, and those with a usable premise, hypothesis and
            label (valid <= total).
        duplicate_rows: valid rows repeating an earlier row exactly (after trimming white space).
        label_balance: minority / majority label count in [0, 1] (0.0 with fewer than two labels).
        estimated_minutes / estimated_cost_usd: training time for ``epochs`` passes over the
            unique rows at the measured examples per second, and its price (>= 0).
        errors: per-line problems (``"line N: ..."``; at most 100, then a count).
        near_duplicate_rows: further rows equal to an earlier one after normalisation (case,
            punctuation and spacing ignored), not counted in ``duplicate_rows``.
        conflicting_rows: rows whose normalised pair already appeared with another label.
        truncated_rows: rows longer than ``max_length`` tokens (pair plus special tokens).
        label_counts: label -> rows (JSON).
        length_stats: tokens per row (JSON: ``unit``, ``min``, ``mean``, ``p50``, ``p95``, ``max``).
        max_length: the model's sequence limit used for ``truncated_rows`` (>= 1).
        examples_per_second: the training throughput the estimate used (> 0).
    """

    total_rows: int
    valid_rows: int
    duplicate_rows: int
    label_balance: float
    estimated_minutes: float = 0.0
    estimated_cost_usd: float = 0.0
    errors: list[str] = field(default_factory=list)
    near_duplicate_rows: int = 0
    conflicting_rows: int = 0
    truncated_rows: int = 0
    label_counts: dict[str, Any] = field(default_factory=dict)
    length_stats: dict[str, Any] = field(default_factory=dict)
    max_length: int = 128
    examples_per_second: float = 70.0

    _SPEC = (F("total_rows", "int", lo=0), F("valid_rows", "int", lo=0), F("duplicate_rows", "int", lo=0),
             F("label_balance", "float", **_UNIT), F("estimated_minutes", "float", lo=0.0),
             F("estimated_cost_usd", "float", lo=0.0), F("errors", "lstr"),
             F("near_duplicate_rows", "int", lo=0), F("conflicting_rows", "int", lo=0),
             F("truncated_rows", "int", lo=0), F("label_counts", "json"), F("length_stats", "json"),
             F("max_length", "int", lo=1), F("examples_per_second", "float", lo=1e-9))

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)
        if self.valid_rows > self.total_rows or self.duplicate_rows > self.total_rows:
            raise ValidationError("DataQualityReport.total_rows: smaller than valid_rows or duplicate_rows")
        if self.duplicate_rows + self.near_duplicate_rows > self.valid_rows or self.truncated_rows > self.valid_rows:
            raise ValidationError("DataQualityReport.valid_rows: smaller than the duplicate or truncated rows")


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

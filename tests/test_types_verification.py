"""Verification / recovery / calibration types: round trips and validation."""

from __future__ import annotations

import json

import pytest

from director_fast.types.verification import (
    CitationStatusVerdict, DataQualityReport, FinetuneConfig, FinetuneResult, NumericIssue,
    NumericVerificationResult, RegressionReport, StructuredRecoveryResult, TuneResult,
)
from director_fast.errors import ValidationError

ISSUE = NumericIssue("arithmetic", "10% of 50 is not 7", "error", "10% of 50 is 7")
OBJS = [
    ISSUE,
    NumericVerificationResult(3, [ISSUE], valid=False),
    NumericVerificationResult(0),
    StructuredRecoveryResult("json", "last_valid", 12, '{"a": 1}', "", True, ["json_parse:x"],
                             {"depth": 1, "path": ["a", {"b": None}], "ok": True, "f": 0.5}),
    CitationStatusVerdict("doi:10/x", "retracted", 0.9, "source retracted", "crossref"),
    TuneResult(0.55, "balanced_accuracy", 0.81, 200, {"0.5": 0.8, "0.55": 0.81}),
    FinetuneConfig("nli-base", epochs=2),
    FinetuneResult("/tmp/out", 1000, 2, {"f1": 0.8}, RegressionReport(0.8, 0.79, 0.02, True, {"a": -0.01})),
    DataQualityReport(100, 98, 2, 0.45, 3.5, 0.2, ["row 7: missing label"]),
]


@pytest.mark.parametrize("obj", OBJS, ids=lambda o: type(o).__name__)
def test_round_trip(obj):
    assert type(obj).from_dict(json.loads(json.dumps(obj.to_dict()))) == obj


def test_counts_and_consistency():
    r = NumericVerificationResult(3, [ISSUE, NumericIssue("magnitude", "d", "warning", "c")], valid=False)
    assert (r.error_count, r.warning_count) == (1, 1)
    with pytest.raises(ValidationError, match="valid"):
        NumericVerificationResult(1, [ISSUE], valid=True)
    with pytest.raises(ValidationError, match="passed"):
        RegressionReport(0.8, 0.5, 0.01, True)
    with pytest.raises(ValidationError, match="total_rows"):
        DataQualityReport(1, 2, 0, 0.5)
    with pytest.raises(ValidationError, match="severity"):
        NumericIssue("arithmetic", "d", "fatal", "c")
    with pytest.raises(ValidationError, match="risk"):
        CitationStatusVerdict("s", "retracted", 1.5, "r")
    with pytest.raises(ValidationError, match="epochs"):
        FinetuneConfig("m", epochs=0)
    with pytest.raises(ValidationError, match="metadata"):
        StructuredRecoveryResult("json", "last_valid", 0, metadata={"x": float("nan")})
    deep: dict = {}
    cur = deep
    for _ in range(100):
        cur["k"] = {}
        cur = cur["k"]
    with pytest.raises(ValidationError, match="nested deeper"):
        StructuredRecoveryResult("json", "last_valid", 0, metadata=deep)

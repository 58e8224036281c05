"""Fine-tuning data checks (validate_finetune_data) and the anti-regression gate
(benchmark_finetuned_model) with a tiny ONNX model built by the test."""

from __future__ import annotations

import json

import pytest

from director_fast import DataQualityReport, RegressionReport, benchmark_finetuned_model, validate_finetune_data
from director_fast.errors import ConfigError, StorageError, ValidationError
from director_fast.diagnostics.finetune import TRAINING_EXAMPLES_PER_SECOND, load_benchmark_records

from _tiny_onnx import build_tiny_nli


def _write(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


ROWS = [
    {"premise": "The cat sat on the mat.", "hypothesis": "A cat sat.", "label": "entailment"},
    {"premise": "The cat sat on the mat.", "hypothesis": "A cat sat.", "label": "entailment"},   # exact dup
    {"premise": "the CAT sat on the mat", "hypothesis": "a cat sat!", "label": "contradiction"},  # near + conflict
    {"premise": "Rain fell all day in Oslo.", "hypothesis": "It was dry in Oslo.", "label": "contradiction"},
    {"premise": "Rain fell.", "hypothesis": "", "label": "neutral"},                              # bad
    {"premise": "Rain fell.", "hypothesis": "Snow fell.", "label": True},                         # bad label
    "not json",
    "",
]


def test_counts_balance_duplicates_and_errors(tmp_path):
    r = validate_finetune_data(_write(tmp_path / "d.jsonl", ROWS))
    assert isinstance(r, DataQualityReport)
    assert (r.total_rows, r.valid_rows, r.duplicate_rows, r.near_duplicate_rows, r.conflicting_rows) == (7, 4, 1, 1, 1)
    assert r.label_counts == {"contradiction": 2, "entailment": 2} and r.label_balance == 1.0
    assert [e.split(":")[0] for e in r.errors] == ["line 5", "line 6", "line 7"]
    assert r.length_stats["unit"] == "words" and r.length_stats["max"] == 7 + 6 + 3  # words and marks + 3 specials
    # time: the 2 unique rows, 3 epochs, at the measured throughput
    assert r.examples_per_second == TRAINING_EXAMPLES_PER_SECOND
    assert r.estimated_minutes == round(2 * 3 / TRAINING_EXAMPLES_PER_SECOND / 60, 3)
    r2 = validate_finetune_data(tmp_path / "d.jsonl", epochs=60, examples_per_second=0.5, cost_per_hour=3.0,
                                max_length=14)
    assert r2.estimated_minutes == 4.0 and r2.estimated_cost_usd == 0.2
    assert r2.truncated_rows == 1 and r2.max_length == 14  # lengths 14, 14, 13, 16
    assert DataQualityReport.from_dict(r2.to_dict()) == r2


def test_single_label_has_no_balance_and_errors_are_capped(tmp_path):
    rows = [{"premise": f"p {i}", "hypothesis": f"h {i}", "label": 0} for i in range(5)] + ["{"] * 150
    r = validate_finetune_data(_write(tmp_path / "d.jsonl", rows))
    assert r.label_balance == 0.0 and r.label_counts == {"0": 5}
    assert len(r.errors) == 101 and r.errors[-1] == "... and 50 more malformed lines"


def test_tokenizer_lengths_and_config_max_length(tmp_path):
    model = tmp_path / "m"
    build_tiny_nli(model)
    r = validate_finetune_data(_write(tmp_path / "d.jsonl", ROWS), model_dir=model, max_length=12)
    assert r.length_stats["unit"] == "tokens" and r.truncated_rows >= 1
    with pytest.raises(ConfigError, match="tokenizer"):
        validate_finetune_data(tmp_path / "d.jsonl", model_dir=tmp_path)


def test_bad_arguments(tmp_path):
    with pytest.raises(StorageError):
        validate_finetune_data(tmp_path / "missing.jsonl")
    p = _write(tmp_path / "d.jsonl", ROWS[:1])
    for kw in ({"epochs": 0}, {"max_length": 0}, {"examples_per_second": 0}, {"cost_per_hour": -1}):
        with pytest.raises(ConfigError):
            validate_finetune_data(p, **kw)


BENCH = [
    {"context": "The bridge is 40 metres long and opened in 1999.", "question": "How long is the bridge?",
     "response": "The bridge is 40 metres long.", "hallucinated": False},
    {"context": "The bridge is 40 metres long and opened in 1999.", "question": "How long is the bridge?",
     "response": "The bridge is 90 metres long.", "hallucinated": True},
    {"context": "The shop opens at nine on Mondays.", "question": "When does the shop open?",
     "response": "The shop opens at nine on Mondays.", "hallucinated": False},
    {"context": "The shop opens at nine on Mondays.", "question": "When does the shop open?",
     "response": "The shop does not open on Mondays.", "hallucinated": True},
    {"context": "x", "response": "unlabelled"},
]


def test_gate_against_itself_and_against_the_default(tmp_path):
    model = tmp_path / "m"
    build_tiny_nli(model)
    bench = _write(tmp_path / "b.jsonl", BENCH)
    same = benchmark_finetuned_model(model, baseline_dir=model, data=[bench], resamples=100)
    assert isinstance(same, RegressionReport) and same.passed and same.failed_tasks == []
    assert same.per_task_delta == {"b.jsonl": 0.0} and same.per_task["b.jsonl"]["interval"] == [0.0, 0.0]
    assert same.per_task["b.jsonl"]["n"] == 4 and same.per_task["b.jsonl"]["hallucinated"] == 2
    r = benchmark_finetuned_model(model, data=[bench], resamples=100, seed=1)
    d = r.per_task_delta["b.jsonl"]
    assert d == pytest.approx(r.per_task["b.jsonl"]["candidate"] - r.per_task["b.jsonl"]["baseline"], abs=1e-6)
    assert r.per_task["b.jsonl"]["baseline"] == 1.0  # the default catches both on this file
    assert r.passed == (d >= -0.01) and r.failed_tasks == ([] if d >= -0.01 else ["b.jsonl"])
    lenient = benchmark_finetuned_model(model, data=[bench], resamples=0, max_regression=1.0)
    assert lenient.passed and lenient.per_task["b.jsonl"]["interval"] == []
    assert RegressionReport.from_dict(r.to_dict()) == r


def test_gate_bad_input(tmp_path):
    model = tmp_path / "m"
    build_tiny_nli(model)
    only_faithful = _write(tmp_path / "f.jsonl", [BENCH[0], BENCH[2]])
    with pytest.raises(ConfigError, match="both classes"):
        benchmark_finetuned_model(model, data=[only_faithful], resamples=0)
    with pytest.raises(ConfigError, match="max_regression"):
        benchmark_finetuned_model(model, data=[only_faithful], max_regression=-0.1)
    bad = _write(tmp_path / "bad.jsonl", ['{"context": "x"}'])
    with pytest.raises(ValidationError, match="bad.jsonl:1"):
        load_benchmark_records(bad)
    with pytest.raises(ValidationError, match="passed"):
        RegressionReport(baseline_score=0.8, candidate_score=0.8, max_regression=0.01, passed=True,
                         per_task_delta={"a": -0.2}, failed_tasks=["a"])

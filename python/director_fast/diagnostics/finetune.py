"""Fine-tuning data checks and the anti-regression gate for a fine-tuned NLI model.

* :func:`validate_finetune_data` reads JSONL rows ``{"premise", "hypothesis", "label"}`` and
  reports what would go wrong in training: malformed rows, label balance, exact and near
  duplicates (by hashing normalised text: case, punctuation and spacing ignored, the terms of
  :func:`director_fast.verify.text.normalize_terms`), pairs that appear with two labels, length
  statistics, rows the model would truncate, and a time estimate from the training script's
  measured throughput.
* :func:`benchmark_finetuned_model` scores benchmark files with a candidate model directory and
  with the shipped default, and refuses the candidate when any file regresses by more than
  ``max_regression`` (balanced accuracy, with a paired-bootstrap 95 % interval per file).

Thread-safety: pure functions over their arguments (each call builds its own scorers).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from director_fast.types.verification import DataQualityReport, RegressionReport
from director_fast.errors import ConfigError, InputTypeError, StorageError, ValidationError
from director_fast.verify.text import normalize_terms, word_offsets

__all__ = ["TRAINING_EXAMPLES_PER_SECOND", "validate_finetune_data", "benchmark_finetuned_model",
           "default_benchmark_files", "load_benchmark_records"]

#: training throughput of ``training/train_nli.py`` measured on 2 shared CPU cores (MiniLM-L6
#: cross-encoder, batches of 32, sequence length <= 128): "about 70 examples/s on average"
#: (training/README.md). Pass ``examples_per_second`` for other hardware.
TRAINING_EXAMPLES_PER_SECOND = 70.0
_MAX_ERRORS = 100
_SPECIAL_TOKENS = 3  # [CLS] premise [SEP] hypothesis [SEP]


def _tokenizer(model_dir: Any) -> tuple[Any, int | None]:
    """(tokenizer or None, max_length from config.json or None) of a model directory."""
    if model_dir is None:
        return None, None
    d = Path(model_dir)
    tok_path = d / "tokenizer.json"
    if not tok_path.is_file():
        raise ConfigError(f"model_dir {d} has no tokenizer.json", field="model_dir")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tok_path))
    tok.no_truncation()
    tok.no_padding()
    max_len = None
    cfg = d / "config.json"
    if cfg.is_file():
        try:
            v = json.loads(cfg.read_text(encoding="utf-8")).get("max_length")
            max_len = int(v) if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None
        except (ValueError, OSError):
            max_len = None
    return tok, max_len


def _jsonl_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each non-blank line of a UTF-8 JSONL file.

    Raises:
        StorageError: the file cannot be opened.
    """
    try:
        f = open(path, encoding="utf-8")
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc}") from exc
    with f:
        for lineno, line in enumerate(f, 1):
            if line.strip():
                yield lineno, line


def _pct(xs: list[int], q: float) -> float:
    return float(np.percentile(np.asarray(xs, dtype=np.float64), q)) if xs else 0.0


def validate_finetune_data(path: str | Path, *, max_length: int | None = None, model_dir: Any = None,
                           epochs: int = 3, examples_per_second: float | None = None,
                           cost_per_hour: float = 0.0) -> DataQualityReport:
    """Check a fine-tuning JSONL file before training.

    Args:
        path: JSONL, one object per line: ``premise`` and ``hypothesis`` (non-empty str) and
            ``label`` (a non-empty str such as ``"entailment"``, or an int class id).
        max_length: the model's sequence limit in tokens (pair plus special tokens); default the
            ``max_length`` of ``model_dir``'s config.json, else 128.
        model_dir: a model directory with ``tokenizer.json``: lengths are counted in its tokens
            (3 special tokens added); without it, in words and punctuation marks
            (:func:`director_fast.verify.text.word_offsets`, plus 3; ``length_stats["unit"] == "words"``,
            an approximation: subword tokenizers give more tokens than words).
        epochs: passes over the data for the time estimate (>= 1).
        examples_per_second: training throughput (> 0); default
            :data:`TRAINING_EXAMPLES_PER_SECOND` (measured on 2 CPU cores).
        cost_per_hour: price of the training machine per hour (>= 0) for ``estimated_cost_usd``.

    Returns:
        :class:`~director_fast.types.verification.DataQualityReport`. The time estimate
        counts unique rows only (exact and near duplicates removed).

    Raises:
        StorageError: the file cannot be read.
        ConfigError: a bad ``max_length``, ``epochs``, ``examples_per_second``,
            ``cost_per_hour`` or ``model_dir``.
    """
    for name, val, lo in (("epochs", epochs, 1), ("max_length", max_length, 1)):
        if val is not None and (isinstance(val, bool) or not isinstance(val, int) or val < lo):
            raise ConfigError(f"{name} must be an int >= {lo}, got {val!r}", field=name)
    eps = TRAINING_EXAMPLES_PER_SECOND if examples_per_second is None else examples_per_second
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps <= 0:
        raise ConfigError(f"examples_per_second must be > 0, got {examples_per_second!r}", field="examples_per_second")
    if isinstance(cost_per_hour, bool) or not isinstance(cost_per_hour, (int, float)) \
            or not math.isfinite(cost_per_hour) or cost_per_hour < 0:
        raise ConfigError(f"cost_per_hour must be >= 0, got {cost_per_hour!r}", field="cost_per_hour")
    tok, cfg_len = _tokenizer(model_dir)
    limit = max_length if max_length is not None else (cfg_len or 128)
    errors: list[str] = []
    n_errors = 0
    total = valid = dup = near = conflict = truncated = 0
    labels: Counter[str] = Counter()
    exact_seen: set[bytes] = set()
    norm_seen: dict[bytes, str] = {}
    lengths: list[int] = []

    def err(msg: str) -> None:
        nonlocal n_errors
        n_errors += 1
        if len(errors) < _MAX_ERRORS:
            errors.append(msg)

    for lineno, line in _jsonl_lines(path):
        total += 1
        try:
            row = json.loads(line)
        except ValueError:
            err(f"line {lineno}: not JSON")
            continue
        if not isinstance(row, dict):
            err(f"line {lineno}: not a JSON object")
            continue
        bad = [k for k in ("premise", "hypothesis") if not isinstance(row.get(k), str) or not row[k].strip()]
        if bad:
            err(f"line {lineno}: field {bad[0]!r} must be a non-empty string")
            continue
        label = row.get("label")
        if isinstance(label, bool) or not isinstance(label, (str, int)) or (isinstance(label, str) and not label.strip()):
            err(f"line {lineno}: field 'label' must be a non-empty string or an int class id")
            continue
        valid += 1
        lab = str(label).strip()
        labels[lab] += 1
        p, h = row["premise"], row["hypothesis"]
        exact = hashlib.blake2b(f"{p.strip()}\x00{h.strip()}".encode("utf-8", "surrogatepass"),
                                digest_size=16).digest()
        norm = hashlib.blake2b((" ".join(normalize_terms(p)) + "\x00" + " ".join(normalize_terms(h)))
                               .encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if exact in exact_seen:
            dup += 1
        elif norm in norm_seen:
            near += 1
        exact_seen.add(exact)
        first = norm_seen.setdefault(norm, lab)
        if first != lab:
            conflict += 1
        if tok is not None:
            n_tok = len(tok.encode(p, h, add_special_tokens=True).ids)
        else:
            n_tok = len(word_offsets(p)) + len(word_offsets(h)) + _SPECIAL_TOKENS
        lengths.append(n_tok)
        if n_tok > limit:
            truncated += 1
    if n_errors > len(errors):
        errors.append(f"... and {n_errors - len(errors)} more malformed lines")
    counts = sorted(labels.values())
    balance = counts[0] / counts[-1] if len(counts) >= 2 else 0.0
    unique = valid - dup - near
    minutes = unique * epochs / eps / 60.0
    stats = {"unit": "tokens" if tok is not None else "words", "min": min(lengths, default=0),
             "mean": round(float(np.mean(lengths)), 3) if lengths else 0.0, "p50": _pct(lengths, 50),
             "p95": _pct(lengths, 95), "max": max(lengths, default=0)}
    return DataQualityReport(
        total_rows=total, valid_rows=valid, duplicate_rows=dup, label_balance=balance,
        estimated_minutes=round(minutes, 3), estimated_cost_usd=round(minutes / 60.0 * cost_per_hour, 4),
        errors=errors, near_duplicate_rows=near, conflicting_rows=conflict, truncated_rows=truncated,
        label_counts=dict(sorted(labels.items())), length_stats=stats, max_length=limit,
        examples_per_second=float(eps))


# ---- the anti-regression gate ----------------------------------------------------------------------

def default_benchmark_files() -> list[Path]:
    """The benchmark files used when none are given: the labelled sample shipped with the package,
    and in a source checkout the chat/RAG dev set (``bench/data/chat_rag/cases.jsonl``)."""
    here = Path(__file__).resolve().parent
    out = [here / "data" / "sample.jsonl"]
    cases = here.parents[1] / "bench" / "data" / "chat_rag" / "cases.jsonl"
    if cases.is_file():
        out.append(cases)
    return out


def load_benchmark_records(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Labelled records of one benchmark file as ``{context, question, response, system,
    hallucinated}``. Accepted lines: the ``director-fast guard`` format (``context``,
    ``response``, optional ``question``, bool ``hallucinated``) and the chat/RAG case format
    (``kb`` mapping source -> text, ``question``, ``response``, optional ``system``, bool
    ``supported``). Unlabelled lines are skipped.

    Raises:
        StorageError: the file cannot be read.
        ValidationError: a malformed line (file and line named).
    """
    out = []
    for lineno, line in _jsonl_lines(path):
        try:
            rec = json.loads(line)
        except ValueError:
            raise ValidationError(f"{path}:{lineno}: not JSON") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("response"), str):
            raise ValidationError(f"{path}:{lineno}: a record needs a string 'response'")
        if isinstance(rec.get("kb"), dict):
            if not isinstance(rec.get("supported"), bool):
                continue
            context = "\n".join(str(v) for v in rec["kb"].values())
            label = not rec["supported"]
        else:
            if not isinstance(rec.get("hallucinated"), bool):
                continue
            if not isinstance(rec.get("context", ""), str):
                raise ValidationError(f"{path}:{lineno}: field 'context' must be a string")
            context = rec.get("context", "")
            label = rec["hallucinated"]
        out.append({"context": context, "question": rec.get("question") or "",
                    "system": rec.get("system") or None, "response": rec["response"], "hallucinated": label})
        if limit is not None and len(out) >= limit:
            break
    return out


def _scorer(model_dir: Any) -> Any:
    from director_fast.verify.scorer import CoherenceScorer

    if model_dir is None:
        return CoherenceScorer()
    from director_fast.verify.nli import NLIModel

    return CoherenceScorer(nli=NLIModel.from_pretrained(str(model_dir)))


def _flags(scorer: Any, records: list[dict[str, Any]]) -> np.ndarray:
    out = np.empty(len(records), dtype=bool)
    for i, r in enumerate(records):
        ok, _s = scorer.review(r["question"], r["response"], context=r["context"] or None, system=r["system"])
        out[i] = not ok
    return out


def _ba(w: np.ndarray, flag: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Balanced accuracy per weight row (rows without both classes: NaN)."""
    P = w @ y
    N = w @ ~y
    tp = w @ (flag & y)
    fp = w @ (flag & ~y)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((P > 0) & (N > 0), (tp / P + 1.0 - fp / N) / 2.0, np.nan)


def benchmark_finetuned_model(candidate_dir: str | Path, *, baseline_dir: str | Path | None = None,
                              data: Sequence[str | Path] | None = None, max_regression: float = 0.01,
                              resamples: int = 1000, seed: int = 0, limit: int | None = None) -> RegressionReport:
    """Compare a fine-tuned NLI model directory with the shipped default on benchmark files.

    Each file's labelled records are reviewed by ``CoherenceScorer(nli=NLIModel(candidate_dir))``
    and by the baseline (``baseline_dir``'s model, or the shipped default scorer when None), the
    record's context passed as evidence; a record is flagged when the scorer rejects it. Per file:
    balanced accuracy of both, the delta (candidate - baseline), and a 95 % paired-bootstrap
    interval of the delta (records resampled together, ``resamples`` times, seeded).

    Args:
        candidate_dir: the candidate model directory (``NLIModel.from_pretrained`` format).
        baseline_dir: the model to compare with (default: the shipped default scorer).
        data: benchmark JSONL files (:func:`load_benchmark_records` formats); default
            :func:`default_benchmark_files`.
        max_regression: the largest drop in balanced accuracy allowed on any file (>= 0).
        resamples: bootstrap resamples (>= 0). seed: their seed.
        limit: at most this many records per file (for a quick check).

    Returns:
        :class:`~director_fast.types.verification.RegressionReport`: ``passed`` is False
        when any file (or the average) regresses by more than ``max_regression``;
        ``failed_tasks`` names those files.

    Raises:
        ConfigError: a bad ``max_regression`` / ``resamples`` / ``limit``, a model directory that
            does not load, or no file with labelled records of both classes.
        StorageError / ValidationError: a benchmark file that cannot be read or is malformed.
    """
    if isinstance(max_regression, bool) or not isinstance(max_regression, (int, float)) \
            or not math.isfinite(max_regression) or max_regression < 0:
        raise ConfigError(f"max_regression must be a number >= 0, got {max_regression!r}", field="max_regression")
    for name, val, lo in (("resamples", resamples, 0), ("limit", limit, 1)):
        if val is not None and (isinstance(val, bool) or not isinstance(val, int) or val < lo):
            raise ConfigError(f"{name} must be an int >= {lo}, got {val!r}", field=name)
    if not isinstance(candidate_dir, (str, Path)):
        raise InputTypeError(f"candidate_dir must be a path, got {type(candidate_dir).__name__}")
    files = [Path(p) for p in (data if data is not None else default_benchmark_files())]
    cand = _scorer(candidate_dir)
    base = _scorer(baseline_dir)
    rng = np.random.default_rng(seed)
    per_task: dict[str, Any] = {}
    deltas: dict[str, float] = {}
    b_scores, c_scores = [], []
    for p in files:
        recs = load_benchmark_records(p, limit)
        y = np.array([r["hallucinated"] for r in recs], dtype=bool)
        if not y.any() or y.all():
            continue
        fb, fc = _flags(base, recs), _flags(cand, recs)
        one = np.ones((1, len(recs)))
        ba_b, ba_c = float(_ba(one, fb, y)[0]), float(_ba(one, fc, y)[0])
        interval: list[float] = []
        if resamples:
            w = rng.multinomial(len(recs), np.full(len(recs), 1.0 / len(recs)), size=resamples).astype(np.float64)
            d = _ba(w, fc, y) - _ba(w, fb, y)
            d = d[np.isfinite(d)]
            if len(d):
                interval = [round(float(np.percentile(d, 2.5)), 6), round(float(np.percentile(d, 97.5)), 6)]
        name = p.name if p.name not in per_task else str(p)
        deltas[name] = ba_c - ba_b
        per_task[name] = {"n": len(recs), "hallucinated": int(y.sum()), "baseline": round(ba_b, 6),
                          "candidate": round(ba_c, 6), "delta": round(ba_c - ba_b, 6), "interval": interval}
        b_scores.append(ba_b)
        c_scores.append(ba_c)
    if not per_task:
        raise ConfigError("no benchmark file has labelled records of both classes", field="data")
    base_avg, cand_avg = float(np.mean(b_scores)), float(np.mean(c_scores))
    failed = sorted(k for k, d in deltas.items() if d < -max_regression)
    return RegressionReport(
        baseline_score=base_avg, candidate_score=cand_avg, max_regression=float(max_regression),
        passed=base_avg - cand_avg <= max_regression and not failed, per_task_delta=deltas,
        metric="balanced_accuracy", per_task=per_task, failed_tasks=failed)

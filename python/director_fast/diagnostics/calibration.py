"""Threshold calibration: pick the scorer threshold from labelled scores (``tune_threshold``).

Conventions (as :mod:`director_fast.diagnostics.metrics`): the positive class is *hallucinated*; a record is
*flagged* (rejected) when its score is below the threshold (``approved = score >= threshold``).

Procedure of :func:`tune_threshold`:

1. a seeded, label-stratified split into a tuning part and a held-out part (``holdout`` share;
   ``holdout=0`` tunes and evaluates on everything);
2. candidate thresholds: 0.0 (flags nothing), every midpoint between consecutive distinct tuning
   scores, and 1.0 (flags everything below 1);
3. the objective picks one: ``"balanced_accuracy"`` maximises (catch rate + 1 - FPR) / 2 (ties: the
   middle of the best plateau); ``"max_fpr"`` maximises the catch rate subject to FPR <=
   ``max_fpr`` (ties: the lowest FPR);
4. a 95 % percentile-bootstrap interval of the threshold: the tuning part resampled with
   replacement ``resamples`` times (1,000 by default, seeded), the threshold re-picked each time;
5. confusion counts, metrics and their bootstrap interval on the held-out part at the chosen
   threshold, and a reliability curve (per score bin: count, mean score, observed share of
   faithful records; expected calibration error);
6. per-tenant thresholds, tuned the same way for each tenant with enough labelled records of both
   classes (others use the global one).

The result's :meth:`TuneResult.write_config` writes the JSON file that
``CoherenceScorer.from_config(path)`` loads. The threshold is a cut on the score scale the scores
were produced with (``score_scale``, the default scorer's threshold 0.5 / soft limit 0.6); the
config keeps that scale so the loaded scorer maps claim verdicts to the same scores and
approves exactly when ``score >= threshold`` (and its streams derive their halt limits from it).
With the claim verifier (``use_nli=True``) the scores are already calibrated probabilities (the scale then
only maps the claims no model judged: no evidence, worked arithmetic, yes / no answers), so a
tuned threshold is a cut on that probability; tune on scores of the backend you will run, and
again after changing it (scores of the lexical backend and of the verifier are not comparable).

Thread-safety: pure functions over their arguments; call from any thread.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from director_fast.verify.scorer_config import DEFAULT_SCORE_SCALE, _check_scale, load_scorer_config
from director_fast.types.verification import SCORER_CONFIG_FORMAT as CONFIG_FORMAT
from director_fast.types.verification import TuneResult
from director_fast.errors import ConfigError, InputTypeError, StorageError, ValidationError
from director_fast._validate import utf8_problem

__all__ = ["OBJECTIVES", "MAX_INTERVAL_WIDTH", "MIN_TUNING_RECORDS", "CONFIG_FORMAT", "DEFAULT_SCORE_SCALE", "tune_threshold", "load_scorer_config",
           "write_scorer_config", "read_tune_data"]

#: objectives :func:`tune_threshold` accepts.
OBJECTIVES = ("balanced_accuracy", "max_fpr")
#: widest 95 % interval of the threshold :func:`tune_threshold` accepts without a warning
MAX_INTERVAL_WIDTH = 0.2
#: fewest tuning records :func:`tune_threshold` accepts without a warning
MIN_TUNING_RECORDS = 100
_log = logging.getLogger("director_fast.calibration")
_MIN_TENANT = 20  # labelled records (with both classes) a tenant needs for its own threshold


def _as_arrays(scores: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputTypeError("scores must be a sequence of real numbers") from exc
    if s.ndim != 1:
        raise InputTypeError(f"scores must be one-dimensional, got shape {s.shape}")
    lab = list(labels) if not isinstance(labels, np.ndarray) else labels.tolist()
    if len(lab) != len(s):
        raise ValidationError(f"labels: length {len(lab)} differs from scores ({len(s)})")
    y = np.empty(len(lab), dtype=bool)
    for i, v in enumerate(lab):
        if v is True or v is False or (isinstance(v, (int, np.integer)) and v in (0, 1)):
            y[i] = bool(v)
        elif isinstance(v, np.bool_):
            y[i] = bool(v)
        else:
            raise ValidationError(f"labels[{i}]: must be a bool or 0/1 (True = hallucinated), got {v!r}")
    if len(s) and (not np.all(np.isfinite(s)) or s.min() < 0.0 or s.max() > 1.0):
        bad = int(np.nonzero(~np.isfinite(s) | (s < 0.0) | (s > 1.0))[0][0])
        raise ValidationError(f"scores[{bad}]: must be a finite number in [0, 1], got {s[bad]!r}")
    return s, y


def _split(y: np.ndarray, holdout: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Stratified split: indices (tune, held-out); each class gives round(holdout * n_class)."""
    tune, held = [], []
    for cls in (True, False):
        idx = np.nonzero(y == cls)[0]
        idx = idx[rng.permutation(len(idx))]
        k = int(round(holdout * len(idx)))
        held.append(idx[:k])
        tune.append(idx[k:])
    return np.sort(np.concatenate(tune)), np.sort(np.concatenate(held))


def _candidates(s: np.ndarray) -> np.ndarray:
    u = np.unique(s)
    mids = (u[:-1] + u[1:]) / 2.0 if len(u) > 1 else np.empty(0)
    out = np.concatenate(([0.0], mids, [1.0] if (len(u) == 0 or u[-1] < 1.0) else []))
    return np.unique(out)


def _rates(s: np.ndarray, y: np.ndarray, cands: np.ndarray, w: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Flagged positives and negatives (weighted counts) at each candidate, and class totals.
    With ``w`` of shape (B, n): arrays of shape (B, m)."""
    order = np.argsort(s, kind="stable")
    ss = s[order]
    cut = np.searchsorted(ss, cands, side="left")  # samples with score < c are flagged
    if w is None:
        w = np.ones((1, len(s)))
    wo = w[:, order]
    pos = np.concatenate([np.zeros((w.shape[0], 1)), np.cumsum(wo * y[order], axis=1)], axis=1)
    neg = np.concatenate([np.zeros((w.shape[0], 1)), np.cumsum(wo * ~y[order], axis=1)], axis=1)
    return pos[:, cut], neg[:, cut], pos[:, -1:], neg[:, -1:]


def _pick(tp: np.ndarray, fp: np.ndarray, P: np.ndarray, N: np.ndarray, objective: str,
          max_fpr: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Index of the chosen candidate per row, and the objective's value curve (rows x m)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        catch = np.where(P > 0, tp / np.where(P > 0, P, 1), 0.0)
        fpr = np.where(N > 0, fp / np.where(N > 0, N, 1), 0.0)
    if objective == "balanced_accuracy":
        value = (catch + 1.0 - fpr) / 2.0
        best = value.max(axis=1, keepdims=True)
        mask = value >= best - 1e-12
        count = mask.sum(axis=1)
        target = count // 2 + (count % 2)  # the middle of the best candidates (lower middle if even)
        idx = np.argmax(np.cumsum(mask, axis=1) >= target[:, None], axis=1)
        return idx, value
    feasible = fpr <= max_fpr + 1e-12
    value = np.where(feasible, catch, -1.0)
    best = value.max(axis=1, keepdims=True)
    idx = np.argmax(value >= best - 1e-12, axis=1)  # lowest threshold reaching it: lowest FPR
    return idx, catch


def _metrics(s: np.ndarray, y: np.ndarray, t: float) -> dict[str, Any]:
    flagged = s < t
    tp = int(np.sum(flagged & y))
    fp = int(np.sum(flagged & ~y))
    fn = int(np.sum(~flagged & y))
    tn = int(np.sum(~flagged & ~y))
    catch = tp / (tp + fn) if tp + fn else None
    fpr = fp / (fp + tn) if fp + tn else None
    ba = (catch + 1.0 - fpr) / 2.0 if catch is not None and fpr is not None else None
    return {"tp": tp, "fp": fp, "tn": tn, "fn": fn, "catch_rate": catch, "false_positive_rate": fpr,
            "balanced_accuracy": ba, "samples": int(len(s))}


def _reliability(s: np.ndarray, y: np.ndarray, bins: int) -> dict[str, Any]:
    """Per equal-width score bin: count, mean score, share of faithful records; ECE."""
    out = []
    ece = 0.0
    n = len(s)
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.minimum(np.searchsorted(edges, s, side="right") - 1, bins - 1)
    for b in range(bins):
        m = which == b
        c = int(m.sum())
        row: dict[str, Any] = {"lo": round(float(edges[b]), 6), "hi": round(float(edges[b + 1]), 6), "count": c,
                               "mean_score": None, "faithful_rate": None}
        if c:
            ms = float(s[m].mean())
            fr = float((~y[m]).mean())
            row["mean_score"], row["faithful_rate"] = round(ms, 6), round(fr, 6)
            ece += c / n * abs(fr - ms)
        out.append(row)
    return {"bins": out, "ece": round(ece, 6) if n else None}


def _tune_one(s: np.ndarray, y: np.ndarray, objective: str, max_fpr: float | None, rng: np.random.Generator,
              resamples: int) -> tuple[float, float, dict[str, float], list[float]]:
    cands = _candidates(s)
    tp, fp, P, N = _rates(s, y, cands)
    idx, value = _pick(tp, fp, P, N, objective, max_fpr)
    t = float(cands[idx[0]])
    curve = {f"{c:.6f}": round(float(v), 6) for c, v in zip(cands, value[0])}
    interval: list[float] = []
    if resamples > 0 and len(s):
        picks = []
        chunk = max(1, min(resamples, 2_000_000 // max(len(s), 1)))
        done = 0
        while done < resamples:
            b = min(chunk, resamples - done)
            w = rng.multinomial(len(s), np.full(len(s), 1.0 / len(s)), size=b).astype(np.float64)
            tpb, fpb, Pb, Nb = _rates(s, y, cands, w)
            ib, _v = _pick(tpb, fpb, Pb, Nb, objective, max_fpr)
            picks.append(cands[ib])
            done += b
        allp = np.concatenate(picks)
        interval = [float(np.percentile(allp, 2.5)), float(np.percentile(allp, 97.5))]
    return t, float(value[0][idx[0]]), curve, interval


def tune_threshold(scores: Sequence[float], labels: Sequence[bool], *, objective: str = "balanced_accuracy",
                   max_fpr: float | None = None, seed: int = 0, holdout: float = 0.3, resamples: int = 1000,
                   tenants: Sequence[str] | None = None, bins: int = 10,
                   score_scale: tuple[float, float] = DEFAULT_SCORE_SCALE,
                   max_width: float = MAX_INTERVAL_WIDTH, min_records: int = MIN_TUNING_RECORDS) -> TuneResult:
    """Choose the scorer threshold that best separates hallucinated from faithful records.

    Args:
        scores: coherence scores in [0, 1], one per record (``CoherenceScore.score``).
        labels: one per record, True (or 1) = hallucinated, False (or 0) = faithful.
        objective: ``"balanced_accuracy"`` or ``"max_fpr"`` (needs ``max_fpr``).
        max_fpr: with ``objective="max_fpr"``, the largest false-positive rate allowed, in [0, 1].
        seed: seeds the split and the bootstrap (same inputs and seed: same result).
        holdout: share of each class held out for evaluation, in [0, 0.9] (0: tune and evaluate
            on everything).
        resamples: bootstrap resamples for the 95 % intervals (>= 0; 0 skips them).
        tenants: optional tenant id per record; tenants with at least 20 tuning records of which
            both classes get their own threshold (``per_tenant``).
        bins: bins of the reliability curve (>= 1).
        score_scale: ``(threshold, soft_limit)`` of the scorer that produced the scores (the
            default scorer's ``(0.5, 0.6)``); stored in the config.
        max_width: the widest 95 % interval of the threshold (high - low, in score units, in
            [0, 1]; default 0.2) accepted without a warning.
        min_records: the fewest tuning records (>= 0; default 100) accepted without a warning.

    Returns:
        :class:`~director_fast.types.verification.TuneResult`: ``threshold``, ``metric`` and
        ``score`` (the objective on the tuning part: balanced accuracy, or the catch rate for
        ``max_fpr``), ``samples`` (tuning records), ``curve`` (candidate threshold -> objective
        value on the tuning part), confusion counts at the threshold on the evaluation part
        (held-out, or everything when ``holdout=0``), ``interval`` (95 % bootstrap interval of
        the threshold), ``heldout`` (metrics and a 95 % bootstrap interval of the balanced
        accuracy there), ``per_tenant``, ``reliability``; ``unreliable`` and ``warnings`` when
        the interval is wider than ``max_width`` or fewer than ``min_records`` records tuned the
        threshold (each warning is also logged on ``director_fast.calibration``).

    Raises:
        ConfigError: an unknown objective, a missing / out-of-range ``max_fpr``, a bad
            ``holdout`` / ``resamples`` / ``bins`` / ``score_scale``.
        ValidationError: lengths differ, a score outside [0, 1], a label not bool / 0 / 1, a
            tuning part without both classes.
        InputTypeError: scores that are not a one-dimensional sequence of numbers.
    """
    if objective not in OBJECTIVES:
        raise ConfigError(f"objective must be one of {OBJECTIVES}, got {objective!r}", field="objective")
    if objective == "max_fpr":
        if max_fpr is None or isinstance(max_fpr, bool) or not isinstance(max_fpr, (int, float)) \
                or not 0.0 <= max_fpr <= 1.0:
            raise ConfigError(f"max_fpr must be a number in [0, 1] with objective='max_fpr', got {max_fpr!r}",
                              field="max_fpr")
    elif max_fpr is not None:
        raise ConfigError("max_fpr is only used with objective='max_fpr'", field="max_fpr")
    if isinstance(holdout, bool) or not isinstance(holdout, (int, float)) or not 0.0 <= holdout <= 0.9:
        raise ConfigError(f"holdout must be in [0, 0.9], got {holdout!r}", field="holdout")
    for name, val, lo in (("resamples", resamples, 0), ("bins", bins, 1), ("seed", seed, 0)):
        if isinstance(val, bool) or not isinstance(val, int) or val < lo:
            raise ConfigError(f"{name} must be an int >= {lo}, got {val!r}", field=name)
    scale = _check_scale(score_scale)
    if isinstance(max_width, bool) or not isinstance(max_width, (int, float)) or not 0.0 <= max_width <= 1.0:
        raise ConfigError(f"max_width must be a number in [0, 1], got {max_width!r}", field="max_width")
    if isinstance(min_records, bool) or not isinstance(min_records, int) or min_records < 0:
        raise ConfigError(f"min_records must be an int >= 0, got {min_records!r}", field="min_records")
    s, y = _as_arrays(scores, labels)
    ten = None
    if tenants is not None:
        ten = [t for t in tenants]
        if len(ten) != len(s) or not all(isinstance(t, str) for t in ten):
            raise ValidationError("tenants: must be one str per score")
    rng = np.random.default_rng(seed)
    tune_idx, held_idx = _split(y, float(holdout), rng) if holdout > 0 else (np.arange(len(s)), np.arange(0))
    st, yt = s[tune_idx], y[tune_idx]
    if not yt.any() or yt.all():
        raise ValidationError("labels: the tuning part needs both hallucinated and faithful records")
    t, value, curve, interval = _tune_one(st, yt, objective, max_fpr, rng, resamples)
    ev_idx = held_idx if len(held_idx) else tune_idx
    se, ye = s[ev_idx], y[ev_idx]
    m = _metrics(se, ye, t)
    heldout: dict[str, Any] = {k: (round(v, 6) if isinstance(v, float) else v) for k, v in m.items()}
    heldout["split"] = "holdout" if len(held_idx) else "tuning"
    if resamples > 0 and len(se) and ye.any() and (~ye).any():
        w = rng.multinomial(len(se), np.full(len(se), 1.0 / len(se)), size=resamples).astype(np.float64)
        flag = (se < t)
        tp = w @ (flag & ye)
        fp = w @ (flag & ~ye)
        P = w @ ye
        N = w @ ~ye
        ok = (P > 0) & (N > 0)
        ba = (tp[ok] / P[ok] + 1.0 - fp[ok] / N[ok]) / 2.0
        if len(ba):
            heldout["balanced_accuracy_interval"] = [round(float(np.percentile(ba, 2.5)), 6),
                                                     round(float(np.percentile(ba, 97.5)), 6)]
    per_tenant: dict[str, float] = {}
    if ten is not None:
        tt = np.asarray(ten, dtype=object)[tune_idx]
        for name in sorted(set(tt.tolist())):
            mask = tt == name
            if mask.sum() >= _MIN_TENANT and yt[mask].any() and (~yt[mask]).any():
                per_tenant[name] = _tune_one(st[mask], yt[mask], objective, max_fpr, rng, 0)[0]
    warnings = _reliability_warnings(interval, len(st), len(s), float(max_width), min_records, resamples)
    for w in warnings:
        _log.warning("tune_threshold: %s", w)
    return TuneResult(
        unreliable=bool(warnings), warnings=warnings,
        threshold=t, metric="balanced_accuracy" if objective == "balanced_accuracy" else "catch_rate",
        score=value, samples=int(len(st)), curve=curve, objective=objective,
        max_fpr=float(max_fpr) if max_fpr is not None else None,
        true_positives=m["tp"], false_positives=m["fp"], true_negatives=m["tn"], false_negatives=m["fn"],
        interval=interval, heldout=heldout, per_tenant=per_tenant, reliability=_reliability(s, y, bins),
        score_scale=list(scale), seed=seed)


def _reliability_warnings(interval: list[float], tuned: int, total: int, max_width: float, min_records: int,
                          resamples: int) -> list[str]:
    """The sentences of ``TuneResult.warnings``: a wide interval, a small tuning set."""
    out = []
    if interval and interval[1] - interval[0] > max_width + 1e-12:
        out.append(f"the threshold's 95% interval [{interval[0]:.2f}, {interval[1]:.2f}] is "
                   f"{interval[1] - interval[0]:.2f} wide, more than {max_width:g}: the threshold is not "
                   f"pinned down; label more records")
    if tuned < min_records:
        out.append(f"only {tuned} of {total} records tuned the threshold (the rest are held out), fewer "
                   f"than {min_records}: the threshold and its metrics may not hold on new data")
    if resamples == 0:
        out.append("no bootstrap resamples (resamples=0): the threshold's uncertainty is unknown")
    return out


def write_scorer_config(result: TuneResult, path: str | Path) -> dict[str, Any]:
    """Write ``result``'s scorer config to ``path`` (JSON) and return it (the same as
    ``result.write_config(path)``; members in :meth:`TuneResult.to_config`).

    Raises:
        StorageError: the file cannot be written.
    """
    return result.write_config(path)


def read_tune_data(path: str | Path, *, backend: str = "lexical", progress: Any = None,
                   knowledge: Any = None) -> tuple[list[float], list[bool], list[str]]:
    """Scores, labels and tenants of a labelled JSONL file for :func:`tune_threshold`.

    Each line is a JSON object with a bool ``hallucinated`` label, an optional str ``tenant``,
    and either a precomputed ``score`` in [0, 1] (from the default scorer's scale) or a record
    for the default scorer: ``response``, ``context`` (evidence, may be empty) and optional
    ``question``, scored with ``CoherenceScorer`` (``backend``: ``model``, ``lexical`` or ``onnx:DIR``) at
    its default threshold, the context passed per call. ``knowledge`` (a
    :class:`~director_fast.verify.knowledge.KnowledgeBase` or a retriever) is evidence for every
    scored record too, as ``director-fast guard --knowledge`` (shared by every record, whatever
    its ``tenant``).

    Raises:
        ValidationError: a malformed line (the message names the file and line).
        StorageError: the file cannot be read.
    """
    scorer = None
    scores: list[float] = []
    labels: list[bool] = []
    tenants: list[str] = []
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc}") from exc
    with f:
        for lineno, raw in enumerate(f, 1):
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValidationError(f"{where}: {utf8_problem(raw, exc.start)}") from None
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: nested too deeply
                raise ValidationError(f"{where}: not a JSON object") from None
            if not isinstance(rec, dict):
                raise ValidationError(f"{where}: a record must be a JSON object")
            label = rec.get("hallucinated")
            if not isinstance(label, bool):
                raise ValidationError(f"{where}: field 'hallucinated' must be a boolean label")
            tenant = rec.get("tenant", "")
            if not isinstance(tenant, str):
                raise ValidationError(f"{where}: field 'tenant' must be a string")
            if "score" in rec:
                sc = rec["score"]
                if isinstance(sc, bool) or not isinstance(sc, (int, float)) or not math.isfinite(sc) \
                        or not 0.0 <= sc <= 1.0:
                    raise ValidationError(f"{where}: field 'score' must be a number in [0, 1]")
                value = float(sc)
            else:
                for key in ("response", "context"):
                    if not isinstance(rec.get(key), str):
                        raise ValidationError(f"{where}: field {key!r} must be a string (or give 'score')")
                question = rec.get("question", "") or ""
                if not isinstance(question, str):
                    raise ValidationError(f"{where}: field 'question' must be a string")
                if scorer is None:
                    scorer = _default_scorer(backend, knowledge)
                try:
                    value = float(scorer.review(question, rec["response"],
                                                context=rec["context"] or None)[1].score)
                except (ValidationError, InputTypeError) as exc:  # a lone surrogate, say
                    raise ValidationError(f"{where}: {exc}") from None
            scores.append(value)
            labels.append(label)
            tenants.append(tenant)
            if progress is not None:
                progress(len(scores))
    return scores, labels, tenants


def _default_scorer(backend: str, knowledge: Any = None) -> Any:
    from director_fast.verify.scorer import CoherenceScorer, backend_kwargs

    kw = backend_kwargs(backend)
    if knowledge is not None:
        kw["knowledge"] = knowledge
    return CoherenceScorer(**kw)

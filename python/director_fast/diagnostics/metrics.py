"""Detection metrics for labelled guard runs (pure Python, no dependencies).

Conventions: the positive class is *hallucinated*; a record is *flagged* when the guard rejects
it (``approved`` is False) or halts its stream.

* catch rate (recall on hallucinated) = flagged hallucinated / hallucinated
* false-positive rate = flagged faithful / faithful
* balanced accuracy = (catch rate + (1 - FPR)) / 2
* ROC-AUC of a risk score (higher = more likely hallucinated), computed as the Mann-Whitney U
  statistic normalised by n_pos * n_neg, ties counted as 1/2 (Hanley & McNeil, 1982).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

__all__ = ["BinaryMetrics", "binary_metrics", "roc_auc", "percentile"]


@dataclass(frozen=True)
class BinaryMetrics:
    n: int
    positives: int
    negatives: int
    catch_rate: float | None
    false_positive_rate: float | None
    balanced_accuracy: float | None
    roc_auc: float | None


def roc_auc(labels: Sequence[bool], risk: Sequence[float]) -> float | None:
    """ROC-AUC of ``risk`` for ``labels`` (True = positive); None when a class is empty."""
    if len(labels) != len(risk):
        raise ValueError("labels and risk must have the same length")
    pairs = sorted(zip(risk, labels), key=lambda p: p[0])
    n_pos = sum(1 for _, y in pairs if y)
    n_neg = len(pairs) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    rank_sum = 0.0
    i = 0
    while i < len(pairs):
        j = i
        while j + 1 < len(pairs) and pairs[j + 1][0] == pairs[i][0]:
            j += 1
        avg_rank = (i + j) / 2.0 + 1.0
        rank_sum += avg_rank * sum(1 for k in range(i, j + 1) if pairs[k][1])
        i = j + 1
    u = rank_sum - n_pos * (n_pos + 1) / 2.0
    return u / (n_pos * n_neg)


def binary_metrics(labels: Sequence[bool], flagged: Sequence[bool], risk: Sequence[float] | None = None) -> BinaryMetrics:
    """Catch rate, FPR, balanced accuracy and (with ``risk``) ROC-AUC."""
    if len(labels) != len(flagged):
        raise ValueError("labels and flagged must have the same length")
    pos = sum(1 for y in labels if y)
    neg = len(labels) - pos
    tp = sum(1 for y, f in zip(labels, flagged) if y and f)
    fp = sum(1 for y, f in zip(labels, flagged) if not y and f)
    catch = tp / pos if pos else None
    fpr = fp / neg if neg else None
    bal = (catch + (1.0 - fpr)) / 2.0 if catch is not None and fpr is not None else None
    auc = roc_auc(labels, risk) if risk is not None else None
    return BinaryMetrics(len(labels), pos, neg, catch, fpr, bal, auc)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in [0, 100]) of a non-empty sequence; NaN when empty."""
    if not values:
        return math.nan
    xs = sorted(values)
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)

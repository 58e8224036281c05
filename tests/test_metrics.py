import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.diagnostics.metrics import binary_metrics, percentile, roc_auc


def test_known_answers():
    m = binary_metrics([True, True, False, False], [True, False, True, False], [0.9, 0.4, 0.6, 0.1])
    assert m.catch_rate == 0.5 and m.false_positive_rate == 0.5 and m.balanced_accuracy == 0.5
    assert m.roc_auc == 0.75  # pairs: (0.9>0.6),(0.9>0.1),(0.4<0.6),(0.4>0.1) -> 3/4
    assert roc_auc([True, False], [0.5, 0.5]) == 0.5
    assert roc_auc([True, True], [0.1, 0.2]) is None
    assert percentile([1, 2, 3, 4], 50) == 2.5 and percentile([5], 99) == 5
    assert math.isnan(percentile([], 50))


@settings(max_examples=200)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=2, max_size=40))
def test_auc_matches_pair_count(data):
    labels = [y for y, _ in data]
    risk = [float(r) for _, r in data]
    auc = roc_auc(labels, risk)
    pos = [r for y, r in zip(labels, risk) if y]
    neg = [r for y, r in zip(labels, risk) if not y]
    if not pos or not neg:
        assert auc is None
        return
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    assert auc == pytest.approx(wins / (len(pos) * len(neg)))

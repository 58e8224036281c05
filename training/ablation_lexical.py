"""Ablation: a 4-feature lexical logistic regression (no transformer) on the same splits.

Features of (document, response): fraction of response content tokens absent from the whole document,
count of response numbers absent from the document, count of response capitalised words absent from
the document (case-sensitive), log(1 + response word tokens). Balanced logistic regression fitted by
gradient descent (numpy) on the training rows only; decision at P(supported) >= 0.5.
Run: python training/ablation_lexical.py
"""

from __future__ import annotations

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
from premise import content_tokens, word_tokens  # noqa: E402

_NUM = re.compile(r"\d+(?:[.,]\d+)*")
_CAP = re.compile(r"\b[A-Z][a-zA-Z]+")


def feats(context: str, response: str) -> list[float]:
    c, r = content_tokens(context), content_tokens(response)
    novel = len(r - c) / max(1, len(r))
    nums = set(_NUM.findall(response)) - set(_NUM.findall(context))
    caps = set(_CAP.findall(response)) - set(_CAP.findall(context))
    return [novel, float(len(nums)), float(len(caps)), float(np.log1p(len(word_tokens(response))))]


def fit(x: np.ndarray, y: np.ndarray, steps: int = 3000, lr: float = 0.5) -> np.ndarray:
    xb = np.hstack([x, np.ones((len(x), 1))])
    w_cls = np.where(y == 1, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))
    w = np.zeros(xb.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-xb @ w))
        w -= lr * xb.T @ (w_cls * (p - y)) / len(y)
    return w


def main() -> None:
    tr, dev = data.train_dev_rows()
    x = np.array([feats(r["context"], r["response"]) for r in tr])
    mu, sd = x.mean(0), x.std(0) + 1e-9
    y = np.array([0 if r["hallucinated"] else 1 for r in tr])
    w = fit((x - mu) / sd, y)
    res = []
    for name, pairs in data.test_sets().items():
        xt = (np.array([feats(p.context, p.hypothesis) for p in pairs]) - mu) / sd
        yt = np.array([p.label for p in pairs])
        pr = 1 / (1 + np.exp(-(np.hstack([xt, np.ones((len(xt), 1))]) @ w)))
        pred = (pr >= 0.5).astype(int)
        b = (np.mean(pred[yt == 1] == 1) + np.mean(pred[yt == 0] == 0)) / 2
        res.append(b)
        print(f"{name}: bacc {b:.3f}")
    print(f"mean: {np.mean(res):.3f}")


if __name__ == "__main__":
    main()

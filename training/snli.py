"""SNLI 1.0 reader: (premise, hypothesis, label) with entailment 0, neutral 1, contradiction 2.

Rows whose ``gold_label`` is "-" (no annotator majority) are dropped.
"""

from __future__ import annotations

import json
import os
import random

LABELS = ("entailment", "neutral", "contradiction")
LABEL2ID = {name: i for i, name in enumerate(LABELS)}
TRAIN_FILE = "snli_1.0_train_subset.jsonl"
TEST_FILE = "snli_1.0_test.jsonl"


def read(path: str) -> list[tuple[str, str, int]]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            lab = r["gold_label"]
            if lab == "-":
                continue
            out.append((r["sentence1"], r["sentence2"], LABEL2ID[lab]))
    return out


def train(data_dir: str) -> list[tuple[str, str, int]]:
    return read(os.path.join(data_dir, TRAIN_FILE))


def test(data_dir: str) -> list[tuple[str, str, int]]:
    return read(os.path.join(data_dir, TEST_FILE))


def heldout(data_dir: str, n: int = 2000, seed: int = 20261201) -> list[tuple[str, str, int]]:
    """A fixed random subset of the test pairs, for the evaluation at each checkpoint."""
    rows = test(data_dir)
    idx = sorted(random.Random(seed).sample(range(len(rows)), min(n, len(rows))))
    return [rows[i] for i in idx]

"""Labelled pairs for training, tuning and testing the learned factual-consistency model.

Label convention everywhere: 1 = supported (faithful), 0 = unsupported (``hallucinated`` is true).

Splits (no test row is ever used for training or tuning):
- train/dev: WiCE ``wice_claim_dev.jsonl`` and SummEdits rows whose ``split`` != "test". Rows are grouped by
  seed id (``orig_id`` before its last underscore; WiCE ids have none, so each claim is its own group) and
  a group goes to dev when ``crc32(group) % 100 < DEV_PERCENT`` (deterministic, no RNG).
- test: ``wice_claim_test.jsonl``, SummEdits ``split == "test"``, ``summac_factcc``, ``summac_xsumfaith``,
  ``summac_summeval``. ``summac_polytope`` (no license) and SICK (CC BY-NC-SA) are never used.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass

from premise import select_premise

DATA_DIR = os.environ.get(
    "DIRECTOR_FAST_DATA",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "halluc"))
DEV_PERCENT = 20

TEST_FILES = {
    "wice_claim_test": ("wice_claim_test.jsonl", None),
    "summedits_test": ("summedits.jsonl", "test"),
    "summac_factcc": ("summac_factcc.jsonl", None),
    "summac_xsumfaith": ("summac_xsumfaith.jsonl", None),
    "summac_summeval": ("summac_summeval.jsonl", None),
}


@dataclass
class Pair:
    premise: str
    hypothesis: str
    label: int  # 1 supported, 0 unsupported
    origin: str  # source file / generator tag
    context: str = ""  # full source document (kept for synthetic generation)


def read_jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def group_of(orig_id: str) -> str:
    return orig_id.rsplit("_", 1)[0]


def is_dev_group(group: str) -> bool:
    return zlib.crc32(group.encode("utf-8")) % 100 < DEV_PERCENT


def row_to_pair(row: dict, origin: str) -> Pair:
    return Pair(select_premise(row["context"], row["response"]), row["response"],
                0 if row["hallucinated"] else 1, origin, row["context"])


def train_dev_rows() -> tuple[list[dict], list[dict]]:
    """(train rows, dev rows) of the tuning material (raw JSON rows with an added ``_origin``)."""
    train, dev = [], []
    for fname, origin in (("wice_claim_dev.jsonl", "wice_dev"), ("summedits.jsonl", "summedits_eval")):
        for r in read_jsonl(os.path.join(DATA_DIR, fname)):
            if r.get("split") == "test":
                continue
            r["_origin"] = origin
            (dev if is_dev_group(group_of(r["orig_id"])) else train).append(r)
    return train, dev


def test_sets() -> dict[str, list[Pair]]:
    """Test pairs per test file (premise chunk selected with ``select_premise``)."""
    out = {}
    for name, (fname, split) in TEST_FILES.items():
        rows = read_jsonl(os.path.join(DATA_DIR, fname))
        if split is not None:
            rows = [r for r in rows if r.get("split") == split]
        out[name] = [row_to_pair(r, name) for r in rows]
    return out

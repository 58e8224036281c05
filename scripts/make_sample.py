"""Build the sample shipped with the package: python/director_fast/data/sample.jsonl.

Seeded, not hand-picked: from each source file below, draw records uniformly at random (seed
20261130) until each file contributes its quota of hallucinated and faithful records, keeping
contexts of at most 3,000 characters so the demo runs in seconds. Files were chosen by license
(permissive, redistributable; see python/director_fast/data/SAMPLE_PROVENANCE.md).

Usage: python scripts/make_sample.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

SEED = 20261130
QUOTA = {  # file -> records per label (hallucinated, faithful)
    "summedits.jsonl": 12,
    "summac_summeval.jsonl": 4,
    "summac_factcc.jsonl": 4,
}
MAX_CONTEXT = 3000
KEEP = ("task", "context", "question", "response", "hallucinated", "source", "split", "orig_id")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared"))
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "python/director_fast/data/sample.jsonl"))
    a = ap.parse_args()
    rng = random.Random(SEED)
    out = []
    for name, quota in QUOTA.items():
        rows = [json.loads(line) for line in open(Path(a.shared) / "data" / "halluc" / name, encoding="utf-8")]
        rows = [r for r in rows if len(r["context"]) <= MAX_CONTEXT]
        rng.shuffle(rows)
        for label in (True, False):
            picked = [r for r in rows if r["hallucinated"] is label][:quota]
            if len(picked) < quota:
                raise SystemExit(f"{name}: only {len(picked)} records with hallucinated={label}")
            out.extend({k: r[k] for k in KEEP if k in r} for r in picked)
    rng.shuffle(out)
    with open(a.out, "w", encoding="utf-8") as f:
        for r in out:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(out)} records to {a.out}")


if __name__ == "__main__":
    main()

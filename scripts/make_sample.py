"""Build the sample shipped with the package: python/director_fast/data/sample.jsonl.

Seeded, not hand-picked: 20 correct and 20 wrong assistant replies drawn uniformly at random
(seed 20261206) from the ``dev`` split of the project's own chat/RAG set
(``bench/data/chat_rag/cases.jsonl``: invented organisations, written for this project,
Apache-2.0). Each record's context is its organisation's whole knowledge base, one document per
paragraph (``source name: text``), so ``director-fast demo`` judges real assistant answers against
the knowledge they were written from. The held-out split and the fresh-writer sets are never used.

Usage: python scripts/make_sample.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SEED = 20261206
PER_LABEL = 20
ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "bench" / "data" / "chat_rag" / "cases.jsonl"
OUT = ROOT / "python" / "director_fast" / "data" / "sample.jsonl"


def record(case: dict) -> dict:
    return {"task": "rag", "context": "\n\n".join(f"{src}: {text}" for src, text in case["kb"].items()),
            "question": case["question"], "response": case["response"], "hallucinated": not case["supported"],
            "source": "director_fast chat/RAG set (project-written)", "split": case["split"], "orig_id": case["id"],
            "kind": case["kind"]}


def main() -> None:
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    dev = [c for c in cases if c["split"] == "dev"]
    rng = random.Random(SEED)
    rng.shuffle(dev)
    out = [record(c) for c in [c for c in dev if c["supported"]][:PER_LABEL]
           + [c for c in dev if not c["supported"]][:PER_LABEL]]
    rng.shuffle(out)
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    print(f"wrote {len(out)} records to {OUT}")


if __name__ == "__main__":
    main()

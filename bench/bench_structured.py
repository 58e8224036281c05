"""Cost of structured recovery (director_fast.stream.structured.recover_json) on cut JSON documents.

A seeded document of records (strings, numbers, nested lists) is serialised and cut in the middle of
its last record; the median of 5 runs is reported per size, with json.loads of the whole document as
the same-run reference (the C parser, which cannot read the cut text at all).

Usage: python bench/bench_structured.py
"""

from __future__ import annotations

import json
import random

from _util import median_time

from director_fast.stream.structured import recover_json


def document(n: int) -> str:
    rng = random.Random(0)
    recs = [{"id": i, "name": f"item {rng.randrange(10**6)}", "price": round(rng.random() * 100, 2),
             "tags": [rng.choice("abcdef") * 3 for _ in range(3)], "ok": rng.random() < 0.5} for i in range(n)]
    return json.dumps({"items": recs})


def main() -> None:
    print("| records | chars | recover_json ms | json.loads (whole doc) ms | µs per 1k chars |")
    print("|---|---|---|---|---|")
    for n in (100, 1000, 10000):
        doc = document(n)
        cut = doc[: len(doc) - 40]
        t = median_time(lambda: recover_json(cut))
        ref = median_time(lambda: json.loads(doc))
        out, valid, _e, _m = recover_json(cut)
        items = json.loads(out)["items"]
        assert valid and len(items) == n and "ok" not in items[-1]  # the cut record kept open, closed
        print(f"| {n} | {len(cut)} | {t * 1e3:.2f} | {ref * 1e3:.2f} | {t * 1e9 / len(cut):.1f} |")


if __name__ == "__main__":
    main()

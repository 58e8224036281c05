"""Numeric alignment of verify_numbers on the numeric kinds of the chat/RAG dev split.

Kinds: numeric_paraphrase (supported: every number is stated by the knowledge base, often in other
words: "eight kilograms", "3:30 pm"), wrong_number, wrong_number_elsewhere (the wrong number is one the
knowledge base states about something else) and wrong_unit (unsupported). Each case's whole
knowledge base is the evidence (one EvidenceChunk per document, labelled by its name).

Reported:

* case level: a case is flagged when verify_numbers finds at least one mismatch. Precision = flagged
  cases that are unsupported / flagged cases; recall = unsupported cases flagged / unsupported cases.
* number level, supported cases (every number there is right): share of numbers aligned to an equal
  evidence number (match recall), wrongly flagged as mismatches, left unverifiable.
* number level, over all numbers: alignment precision = aligned numbers (match or mismatch) whose
  verdict agrees with the case label (a match in a supported case, a mismatch in an unsupported case
  counts right; a mismatch in a supported case wrong; a match in an unsupported case is not counted,
  since an unsupported reply also states right numbers).

Only lines with ``"split": "dev"`` are read; the held-out lines are never opened for this bench.

Usage: python bench/bench_numeric.py [--list]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
from collections import Counter

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _util import env_line, table  # noqa: E402

from director_fast import EvidenceChunk, verify_numbers  # noqa: E402

KINDS = ("numeric_paraphrase", "wrong_number", "wrong_number_elsewhere", "wrong_unit")
DATA = pathlib.Path(__file__).resolve().parent / "data" / "chat_rag" / "cases.jsonl"


def dev_cases() -> list[dict]:
    out = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["split"] == "dev" and row["kind"] in KINDS:
            out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="print every case's verdicts")
    a = ap.parse_args()
    cases = dev_cases()
    per_kind: dict[str, Counter] = {k: Counter() for k in KINDS}
    numbers = Counter()
    t0 = time.perf_counter()
    for c in cases:
        evidence = [EvidenceChunk(text=t, distance=0.0, source=s) for s, t in c["kb"].items()]
        r = verify_numbers(c["response"], evidence)
        k = per_kind[c["kind"]]
        k["cases"] += 1
        flagged = bool(r.mismatches)
        k["flagged"] += flagged
        k["numbers"] += len(r.matches) + len(r.mismatches) + len(r.unverifiable)
        k["match"] += len(r.matches)
        k["mismatch"] += len(r.mismatches)
        k["unverifiable"] += len(r.unverifiable)
        if c["supported"]:
            numbers["aligned_right"] += len(r.matches)
            numbers["aligned_wrong"] += len(r.mismatches)
        else:
            numbers["aligned_right"] += len(r.mismatches)
        if a.list:
            print(f"{c['id']:28} {c['kind']:24} supported={c['supported']!s:5} flagged={flagged!s:5} | "
                  f"{c['response']}")
            for m in r.mismatches:
                print(f"    MISMATCH {c['response'][m.start:m.end]!r} vs {m.evidence_value:g} {m.evidence_unit} "
                      f"({m.evidence_ref})")
            for u in r.unverifiable:
                print(f"    unverifiable {c['response'][u.start:u.end]!r}")
    elapsed = time.perf_counter() - t0
    rows = []
    for kind, k in per_kind.items():
        rows.append([kind, k["cases"], k["flagged"], k["numbers"], k["match"], k["mismatch"], k["unverifiable"]])
    print(f"# numeric alignment, chat/RAG dev split ({len(cases)} cases)\n")
    print(env_line())
    print("command: python bench/bench_numeric.py\n")
    print(table(rows, ["kind", "cases", "flagged", "numbers", "match", "mismatch", "unverifiable"]))
    unsupported = [k for kind, k in per_kind.items() if kind != "numeric_paraphrase"]
    tp = sum(k["flagged"] for k in unsupported)
    fp = per_kind["numeric_paraphrase"]["flagged"]
    pos = sum(k["cases"] for k in unsupported)
    sup = per_kind["numeric_paraphrase"]
    aligned = numbers["aligned_right"] + numbers["aligned_wrong"]
    print(f"\ncase level: precision {tp}/{tp + fp} = {tp / max(1, tp + fp):.3f}, "
          f"recall {tp}/{pos} = {tp / max(1, pos):.3f}")
    print(f"supported cases, number level: matched {sup['match']}/{sup['numbers']} = "
          f"{sup['match'] / max(1, sup['numbers']):.3f}, false mismatches {sup['mismatch']}, "
          f"unverifiable {sup['unverifiable']}")
    print(f"number level alignment precision: {numbers['aligned_right']}/{aligned} = "
          f"{numbers['aligned_right'] / max(1, aligned):.3f}")
    print(f"time: {elapsed * 1000 / len(cases):.2f} ms per case (whole knowledge base as evidence)")


if __name__ == "__main__":
    main()

"""Benchmark: citation checks and tool-input confidence (issue 7).

    python bench/bench_verifiers.py [--repeats 7]

director-ai 3.21.0 has no equivalent of the ``[ref:…]`` row checks (its citation tracer needs a
BUSL module absent from the installed wheel and checks bibliography citations, not row values),
so the citation baseline is a minimal pure-Python exact-match checker (regex strip + dict lookup,
no ladder, no scopes) measured in the same run: the ratio is the cost of the full ladder and
scoping. For tool inputs the nearest director-ai function is
``director_ai.core.verification.tool_call_verifier.verify_tool_call`` (manifest type/presence
check; it does not detect placeholders) -- timed on the same calls, and its detection of the
placeholder cases is reported next to ours.

Fixed seeds, one warm-up, median of ``--repeats`` timed runs.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time

from director_fast.diagnostics.citations import _parse_number, check_citations
from director_fast.diagnostics.confidence import evaluate, evaluate_tool_call

CITIES = ["Cairo", "Paris", "Zürich", "Lyon", "Osaka", "Lima", "Oslo", "Quito"]


def make_rows(n: int, rng: random.Random) -> list[dict]:
    return [
        {
            "name": f"Company {i:05d}",
            "city": rng.choice(CITIES),
            "country": rng.choice(["Egypt", "France", "Switzerland", "Japan"]),
            "revenue": rng.randrange(1000, 10_000_000),
            "founded": rng.randrange(1900, 2024),
            "ceo": f"CEO {rng.randrange(10**6)}",
        }
        for i in range(n)
    ]


def make_answer(rows: list[dict], sentences: int, rng: random.Random) -> str:
    parts = []
    for _ in range(sentences):
        r = rng.choice(rows)
        kind = rng.randrange(4)
        if kind == 0:
            parts.append(f'{r["name"]} earns {r["revenue"]:,} [ref:revenue="{r["revenue"]:,}"].')
        elif kind == 1:
            parts.append(f'It is based in {r["city"]} [ref:city="{r["city"]}"] [ref:name].')
        elif kind == 2:
            parts.append(
                f'{r["name"]} sits in {r["city"]}, {r["country"]} '
                f'[ref:city="{r["city"]}, {r["country"]}"].'
            )
        else:
            parts.append(f'{r["name"]} was founded in 1850 [ref:founded="1850"].')
    return " ".join(parts)


_MARK = re.compile(r'\[ref:([^\]="]+)(?:="((?:[^"\\]|\\.)*)")?\]')


def naive_check(answer: str, rows: list[dict]) -> tuple[str, list[str]]:
    """Baseline: strip markers, exact string match of the value against any row."""
    verdicts = []
    for m in _MARK.finditer(answer):
        var, val = m.group(1), m.group(2)
        if val is None:
            verdicts.append("cited")
            continue
        vals = {str(r[var]) for r in rows if var in r}
        verdicts.append("confirmed" if val in vals else ("refuted" if vals else "unresolved"))
    return _MARK.sub("", answer), verdicts


def timeit(fn, repeats: int, inner: int) -> float:
    fn()  # warm-up
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)


TOOL = {
    "type": "function",
    "function": {
        "name": "book_flight",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string"},
                "destination": {"type": "string"},
                "date": {"type": "string", "examples": ["2026-01-01"]},
                "passengers": {"type": "integer", "default": 1},
                "email": {"type": "string"},
                "cabin": {"type": "string", "enum": ["economy", "business"]},
            },
            "required": ["origin", "destination", "date", "passengers", "email", "cabin"],
        },
    },
}
MANIFEST = {
    "book_flight": {
        "parameters": {
            k: {"type": v["type"], "required": True}
            for k, v in TOOL["function"]["parameters"]["properties"].items()
        }
    }
}
CALLS = [
    {"origin": "ZRH", "destination": "CAI", "date": "2026-12-01", "passengers": 2,
     "email": "ana@corp.io", "cabin": "economy"},
    {"origin": "ZRH", "destination": "TODO", "date": "2026-01-01", "passengers": 1,
     "email": "user@example.com", "cabin": "business"},
    {"origin": "", "destination": "<city>", "date": "{{date}}", "passengers": 2,
     "email": "your_email", "cabin": "economy"},
    {"origin": "ZRH", "destination": "CAI", "passengers": 2, "cabin": "economy"},
]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(7)
    print("command: python bench/bench_verifiers.py --repeats", args.repeats)
    print(f"python {sys.version.split()[0]}")
    print()
    print("## citations (per answer)")
    print(f"{'rows':>6} {'markers':>8} {'ours ms':>9} {'naive ms':>9} {'ratio':>6} {'us/marker':>10}")
    for n_rows, n_sent in ((50, 10), (500, 20), (5000, 40)):
        rows = make_rows(n_rows, rng)
        answer = make_answer(rows, n_sent, rng)
        report = check_citations(answer, rows)
        n_markers = len(report.checks)
        inner = max(1, 2000 // n_rows)
        def ours_fn(answer=answer, rows=rows):
            _parse_number.cache_clear()  # cold cache: rows differ per query in practice
            return check_citations(answer, rows)

        ours = timeit(ours_fn, args.repeats, inner)
        naive = timeit(lambda: naive_check(answer, rows), args.repeats, inner)
        print(
            f"{n_rows:>6} {n_markers:>8} {ours * 1e3:>9.3f} {naive * 1e3:>9.3f} "
            f"{ours / naive:>6.2f} {ours / n_markers * 1e6:>10.1f}"
        )
    counts = report.counts()
    print("verdicts on the last answer:", {k: v for k, v in counts.items() if v})
    print()
    print("## tool-input confidence (per call, 6 required keys)")
    from director_ai.core.verification.tool_call_verifier import verify_tool_call

    ours = timeit(lambda: [evaluate_tool_call(TOOL, c) for c in CALLS], args.repeats, 500)
    plain = timeit(
        lambda: [evaluate(c, list(MANIFEST["book_flight"]["parameters"])) for c in CALLS],
        args.repeats,
        500,
    )
    theirs = timeit(
        lambda: [verify_tool_call("book_flight", c, manifest=MANIFEST) for c in CALLS],
        args.repeats,
        500,
    )
    per = len(CALLS)
    print(f"{'function':<48} {'us/call':>8}")
    print(f"{'director_fast evaluate_tool_call (JSON Schema)':<48} {ours / per * 1e6:>8.1f}")
    print(f"{'director_fast evaluate (key list)':<48} {plain / per * 1e6:>8.1f}")
    print(f"{'director_ai verify_tool_call (manifest)':<48} {theirs / per * 1e6:>8.1f}")
    print(f"ratio evaluate_tool_call / verify_tool_call: {ours / theirs:.2f}")
    print()
    print("detection on the 4 calls (0 clean, 1 = 4 guessed, 2 = 4 placeholders, 3 = 2 missing):")
    for i, c in enumerate(CALLS):
        r = evaluate_tool_call(TOOL, c)
        d = verify_tool_call("book_flight", c, manifest=MANIFEST)
        flagged = sum(v.verdict != "valid" for v in d.verdicts)
        print(
            f"  call {i}: ours score={r.score:.2f} abstain={r.should_abstain()} "
            f"flagged={len(r.missing_keys) + len(r.weak_keys)} | director-ai "
            f"arguments_valid={d.arguments_valid} flagged={flagged}"
        )


if __name__ == "__main__":
    main()

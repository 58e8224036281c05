"""Latency of the claim-level verdict: ``review`` of a 5-claim answer against a 1,000-fact
knowledge base, and ``stream_guard`` with the real scorer, next to director-ai 3.21.0's heuristic
``review`` and a plain baseline in the same run.

Usage: python bench/bench_claims.py [--answers 200] [--repeats 5]

* ours (verifier): ``CoherenceScorer(knowledge=KnowledgeBase, use_nli=True)``, the shipped claim verifier (a fresh
  scorer per pass, so every claim is retrieved and judged: no cache hit), p50 / p99 over
  ``--answers`` answers of 5 claims (4 knowledge-base sentences and one wrong price), the passes
  alternating with the others; each figure is the median over ``--repeats`` passes; with the
  (premise, claim) pairs sent to the model per review;
* ours (verifier), worst case: 5 correct claims, so every claim goes to the model;
* ours (lexical): the default, ``CoherenceScorer(knowledge=KnowledgeBase)``;
* director-ai: ``CoherenceScorer(use_nli=False, ground_truth_store=GroundTruthStore)`` with the
  same 1,000 facts, ``review(question, answer)``;
* plain baseline: for each claim, the best word-overlap fact by a Python scan of all facts
  (what a hand-written check costs without an index);
* streaming: ``stream_guard`` over 1,000 and 4,000 word tokens of correct answers, us/token, with
  the verifier and the lexical scorer, and the floor under it: the same claims' retrievals alone,
  then with the C++ comparisons added;
* first review after import: fresh interpreters (median of 5): ``import director_fast``, then
  ``CoherenceScorer(use_nli=True)`` (onnxruntime and the model load), then the first ``review``.
The load average at start and end is printed: absolute numbers drift with load on this VM.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
logging.disable(logging.WARNING)

import director_fast as df  # noqa: E402

from bench_stream import _FACTS as FACTS  # noqa: E402  (the same 1,000 catalogue facts)
from bench_stream import real_scorer_answer  # noqa: E402
QUESTION = "Tell me about these products."


def answers(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        ids = rng.sample(range(len(FACTS)), 5)
        parts = [FACTS[i] for i in ids[:4]]
        parts.append(FACTS[ids[4]].replace(" costs ", " costs 1"))  # a wrong price
        out.append(" ".join(parts))
    return out


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def ours_pass(kb, texts, **kw) -> list[float]:
    s = df.CoherenceScorer(knowledge=kb, **kw)
    out = []
    for t in texts:
        t0 = time.perf_counter()
        s.review(QUESTION, t, tenant_id="t")
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def correct_answers(n: int, seed: int = 2) -> list[str]:
    """5 knowledge-base sentences per answer: every claim goes to the model (its worst case)."""
    rng = random.Random(seed)
    return [" ".join(FACTS[i] for i in rng.sample(range(len(FACTS)), 5)) for _ in range(n)]


FIRST_REVIEW = """
import time
t0 = time.perf_counter()
import director_fast as df
t1 = time.perf_counter()
s = df.CoherenceScorer(use_nli=True)
t2 = time.perf_counter()
s.review("When do you open?", "We open at 9:00 on weekdays.", context=["The shop opens at 9:00 Monday to Friday."])
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


def first_review_ms(n: int = 5) -> tuple[float, float, float]:
    """Median (import, scorer with model load, first review) in ms over ``n`` fresh interpreters."""
    import subprocess

    runs = [list(map(float, subprocess.run([sys.executable, "-c", FIRST_REVIEW], capture_output=True, text=True,
                                           check=True).stdout.split())) for _ in range(n)]
    return tuple(statistics.median(r[i] for r in runs) * 1e3 for i in range(3))  # type: ignore[return-value]


def anchor_pass(texts) -> list[float] | None:
    try:
        from director_ai import CoherenceScorer, GroundTruthStore
    except ImportError:
        return None
    store = GroundTruthStore()
    for i, f in enumerate(FACTS):
        store.add(f"fact {i}", f)
    s = CoherenceScorer(use_nli=False, ground_truth_store=store)
    out = []
    for t in texts:
        t0 = time.perf_counter()
        s.review(QUESTION, t)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


_W = re.compile(r"\w+")


def plain_pass(texts) -> list[float]:
    fact_words = [set(_W.findall(f.lower())) for f in FACTS]
    out = []
    for t in texts:
        t0 = time.perf_counter()
        for claim in re.split(r"(?<=\.)\s+", t):
            cw = set(_W.findall(claim.lower()))
            max(range(len(FACTS)), key=lambda i: len(cw & fact_words[i]))
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def stream_us_per_token(kb, n_tokens: int, repeats: int, **kw) -> float:
    toks = real_scorer_answer(n_tokens)
    times = []
    for _ in range(repeats):
        s = df.CoherenceScorer(knowledge=kb, **kw)
        t0 = time.perf_counter()
        g = df.stream_guard(toks, s, prompt=QUESTION, tenant_id="t")
        for _tok in g:
            pass
        times.append(time.perf_counter() - t0)
        assert not g.session.halted
    return statistics.median(times) / n_tokens * 1e6


def stream_floor_us_per_token(kb, n_tokens: int, repeats: int) -> tuple[int, float, float]:
    """What any per-claim verdict of the stream's answer costs at least, us/token: the claims'
    retrievals alone (``KnowledgeBase.retrieve_with_ids(claim, top_k)``, the hybrid search every
    claim gets) and, added to them, the C++ lexical comparison of each claim with each retrieved
    evidence unit (``LexicalNLI.score`` on a prepared premise, each premise prepared once per
    pass as the scorer does), with none of the claim rules. Returns ``(claims, retrieval,
    retrieval + comparisons)``."""
    from director_fast.verify.claim_evidence import sentence_units
    from director_fast.verify.claims import split_claims
    from director_fast.verify.nli import LexicalNLI

    text = "".join(real_scorer_answer(n_tokens))
    claims = [u.text for u in split_claims(text) if u.kind == "claim"]
    top_k = df.CoherenceScorer(knowledge=kb).top_k
    nli = LexicalNLI()

    def retrieve() -> list:
        return [kb.retrieve_with_ids(c, top_k, "t") for c in claims]

    def retrieve_and_compare() -> None:
        prepared: dict[str, object] = {}
        for c, hits in zip(claims, retrieve()):
            for ref, chunk in hits:
                for u in sentence_units(chunk, f"kb:{ref}"):
                    if u.premise not in prepared:
                        prepared[u.premise] = nli.prepare(u.premise)
                    nli.score(prepared[u.premise], c)

    out = []
    for f in (retrieve, retrieve_and_compare):
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        out.append(statistics.median(times) / n_tokens * 1e6)
    return len(claims), out[0], out[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--answers", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    load0 = os.getloadavg()
    kb = df.KnowledgeBase()
    kb.add_facts(FACTS, source="catalog.md", tenant="t")
    texts, worst = answers(a.answers), correct_answers(a.answers)
    model = df.NLIModel.shipped()
    ours_pass(kb, texts[:20], use_nli=True)  # warm-up (imports, the model's session, first allocations)
    names = ("ours (verifier)", "ours (verifier), worst case", "ours (lexical)", "director-ai", "plain")
    res: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    pairs = {names[0]: 0.0, names[1]: 0.0}
    for _ in range(a.repeats):
        for name, batch in ((names[0], texts), (names[1], worst)):
            f0 = model.forward_count
            o = ours_pass(kb, batch, use_nli=True)
            pairs[name] = (model.forward_count - f0) / len(batch)
            res[name].append((_pct(o, 0.5), _pct(o, 0.99)))
        lx = ours_pass(kb, texts)
        res[names[2]].append((_pct(lx, 0.5), _pct(lx, 0.99)))
        an = anchor_pass(texts)
        if an is not None:
            res["director-ai"].append((_pct(an, 0.5), _pct(an, 0.99)))
        p = plain_pass(texts)
        res["plain"].append((_pct(p, 0.5), _pct(p, 0.99)))
    print(f"command: python bench/bench_claims.py --answers {a.answers} --repeats {a.repeats}")
    print(f"load average at start {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f}")
    print("\nreview of a 5-claim answer against 1,000 facts (ms; medians over passes)\n")
    print("| system | p50 | p99 | pairs sent to the model per review |")
    print("|---|---|---|---|")
    for name, rows in res.items():
        if rows:
            print(f"| {name} | {statistics.median(r[0] for r in rows):.2f} | "
                  f"{statistics.median(r[1] for r in rows):.2f} | {pairs[name] if name in pairs else '-'} |")
    print("\nstream_guard with the real CoherenceScorer (us/token)\n")
    print("| scorer | 1,000 tokens | 4,000 tokens | T(4k)/T(1k) (ideal 4) |\n|---|---|---|---|")
    for label, kw in (("verifier", {"use_nli": True}), ("lexical (default)", {})):
        s1 = stream_us_per_token(kb, 1000, a.repeats, **kw)
        s4 = stream_us_per_token(kb, 4000, a.repeats, **kw)
        print(f"| {label} | {s1:.1f} | {s4:.1f} | {s4 * 4 / s1:.2f} |")
    n_claims, floor_r, floor_rc = stream_floor_us_per_token(kb, 1000, a.repeats)
    print(f"\nfloor of any per-claim verdict of the 1,000-token answer ({n_claims} claims; us/token)\n")
    print(f"| per-claim retrieval alone | {floor_r:.1f} |\n"
          f"| retrieval + C++ lexical comparisons (no claim rules) | {floor_rc:.1f} |")
    imp, load, first = first_review_ms()
    print(f"\nfirst review after import (fresh interpreters, median of 5; ms): import {imp:.0f}, "
          f"CoherenceScorer(use_nli=True) {load:.0f}, first review {first:.0f}; "
          f"model load + first review {load + first:.0f}")
    load1 = os.getloadavg()
    print(f"\nload average at end {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Latency of the claim-level verdict: ``review`` of a 5-claim answer against a 1,000-fact
knowledge base, and ``stream_guard`` with the real lexical scorer, next to director-ai 3.21.0's
heuristic ``review`` and a plain baseline in the same run.

Usage: python bench/bench_claims.py [--answers 200] [--repeats 5] [--hybrid]

* ours: ``CoherenceScorer(knowledge=KnowledgeBase)`` (lexical backend; a fresh scorer per pass,
  so every claim is retrieved and judged: no cache hit), p50 / p99 over ``--answers`` answers of
  5 claims (4 knowledge-base sentences and one wrong number), the passes alternating with the
  anchor; each figure is the median over ``--repeats`` passes;
* director-ai: ``CoherenceScorer(use_nli=False, ground_truth_store=GroundTruthStore)`` with the
  same 1,000 facts, ``review(question, answer)``;
* plain baseline: for each claim, the best word-overlap fact by a Python scan of all facts
  (what a hand-written check costs without an index);
* streaming: ``stream_guard`` over 1,000 and 4,000 word tokens of correct answers, us/token, and
  the floor under it: the same claims' retrievals alone, then with the C++ comparisons added;
* ``--hybrid``: ``CoherenceScorer(nli=NLIModel.shipped())`` on 3-claim answers reworded so that no
  claim is supported lexically (the model is asked about every claim: its worst case), next to
  the lexical backend alone on the same answers.
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


def ours_pass(kb, texts) -> list[float]:
    s = df.CoherenceScorer(knowledge=kb)
    out = []
    for t in texts:
        t0 = time.perf_counter()
        s.review(QUESTION, t, tenant_id="t")
        out.append((time.perf_counter() - t0) * 1e3)
    return out


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


def stream_us_per_token(kb, n_tokens: int, repeats: int) -> float:
    toks = real_scorer_answer(n_tokens)
    times = []
    for _ in range(repeats):
        s = df.CoherenceScorer(knowledge=kb)
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


def paraphrased_answers(n: int, seed: int = 1) -> list[str]:
    """3-claim answers whose claims the lexical backend does not support (reworded: "The item
    numbered 12 can be bought for 54 euros."), so that the hybrid judge asks the model about every
    claim: its worst case."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for i in rng.sample(range(len(FACTS)), 3):
            price = 10 + (i * 37) % 490
            parts.append(f"The item numbered {i} can be bought for {price} euros.")
        out.append(" ".join(parts))
    return out


def hybrid_pass(kb, texts, model) -> tuple[list[float], float]:
    s = df.CoherenceScorer(knowledge=kb, nli=model)
    out = []
    pairs0 = model.forward_count
    for t in texts:
        t0 = time.perf_counter()
        s.review(QUESTION, t, tenant_id="t")
        out.append((time.perf_counter() - t0) * 1e3)
    return out, (model.forward_count - pairs0) / max(1, len(texts))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--answers", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--hybrid", action="store_true",
                    help="also time CoherenceScorer(nli=NLIModel.shipped()) on paraphrased 3-claim answers")
    a = ap.parse_args(argv)
    load0 = os.getloadavg()
    kb = df.KnowledgeBase()
    kb.add_facts(FACTS, source="catalog.md", tenant="t")
    texts = answers(a.answers)
    ours_pass(kb, texts[:20])  # warm-up (imports, first allocations)
    res: dict[str, list[tuple[float, float]]] = {"ours": [], "director-ai": [], "plain": []}
    for _ in range(a.repeats):
        o = ours_pass(kb, texts)
        res["ours"].append((_pct(o, 0.5), _pct(o, 0.99)))
        an = anchor_pass(texts)
        if an is not None:
            res["director-ai"].append((_pct(an, 0.5), _pct(an, 0.99)))
        p = plain_pass(texts)
        res["plain"].append((_pct(p, 0.5), _pct(p, 0.99)))
    print(f"command: python bench/bench_claims.py --answers {a.answers} --repeats {a.repeats}")
    print(f"load average at start {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f}")
    print("\nreview of a 5-claim answer against 1,000 facts (ms; medians over passes)\n")
    print("| system | p50 | p99 |")
    print("|---|---|---|")
    for name, rows in res.items():
        if rows:
            print(f"| {name} | {statistics.median(r[0] for r in rows):.2f} | "
                  f"{statistics.median(r[1] for r in rows):.2f} |")
    if a.hybrid:
        model = df.NLIModel.shipped()
        para = paraphrased_answers(max(20, a.answers // 4))
        hybrid_pass(kb, para[:5], model)  # warm-up (session, first batches)
        rows, calls = [], 0.0
        lex_rows = []
        for _ in range(a.repeats):
            h, calls = hybrid_pass(kb, para, model)
            rows.append((_pct(h, 0.5), _pct(h, 0.99)))
            lx = ours_pass(kb, para)
            lex_rows.append((_pct(lx, 0.5), _pct(lx, 0.99)))
        print(f"\nreview of a paraphrased 3-claim answer against 1,000 facts, the model asked about every "
              f"claim (ms; {len(para)} answers; model forward calls per review: {calls:.1f})\n")
        print("| system | p50 | p99 |\n|---|---|---|")
        print(f"| hybrid (lexical + shipped model) | {statistics.median(r[0] for r in rows):.2f} | "
              f"{statistics.median(r[1] for r in rows):.2f} |")
        print(f"| lexical alone | {statistics.median(r[0] for r in lex_rows):.2f} | "
              f"{statistics.median(r[1] for r in lex_rows):.2f} |")
    s1 = stream_us_per_token(kb, 1000, a.repeats)
    s4 = stream_us_per_token(kb, 4000, a.repeats)
    print("\nstream_guard with the lexical CoherenceScorer (us/token)\n")
    print(f"| 1,000 tokens | {s1:.1f} |\n| 4,000 tokens | {s4:.1f} |")
    print(f"linearity T(4k)/T(1k) = {s4 * 4 / s1:.2f} (ideal 4)")
    n_claims, floor_r, floor_rc = stream_floor_us_per_token(kb, 1000, a.repeats)
    print(f"\nfloor of any per-claim verdict of the 1,000-token answer ({n_claims} claims; us/token)\n")
    print(f"| per-claim retrieval alone | {floor_r:.1f} |\n"
          f"| retrieval + C++ lexical comparisons (no claim rules) | {floor_rc:.1f} |")
    load1 = os.getloadavg()
    print(f"\nload average at end {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

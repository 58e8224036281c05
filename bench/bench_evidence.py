"""Benchmark of the evidence index and the knowledge base's retrieval quality.

Usage:  python bench/bench_evidence.py [--sizes 10000,100000] [--queries 200] [--threads 2]
        [--retrieval-records 1500] [--M 16] [--ef-construction 200] [--ef-values 16,32,64,128,256]
        [--storage float32|float16]
Set DIRECTOR_FAST_SIMD=baseline (or avx2) to measure with a capped distance kernel.

Part 1 (HNSW): dim 384, clustered (Gaussian blobs around 100 centres) and random data; build time,
memory per vector, recall@10 against exact search (our exact mode, checked against numpy), and
p50/p99 single-query latency over ef_search; the baseline is numpy brute force in the same run.
Recall@10 is measured against float32 brute force in numpy (so float16 storage is charged for its
rounding).
Part 2 (retrieval proxy): see retrieval_proxy() docstring.
Fixed seeds; latency = median and 99th percentile of per-query timings after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

import numpy as np

from director_fast.verify.evidence import EvidenceIndex, HashingEmbedder
from director_fast.verify.knowledge import BM25
from director_fast.verify.text import normalize_terms, split_sentences

DATA = os.environ.get("DIRECTOR_FAST_SHARED_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "halluc"))


def clustered(n: int, dim: int, seed: int, centres: int = 100) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = np.random.default_rng(1234).standard_normal((centres, dim)).astype(np.float32)
    x = c[rng.integers(0, centres, n)] + 0.5 * rng.standard_normal((n, dim)).astype(np.float32)
    return np.ascontiguousarray(x)


def random_data(n: int, dim: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def lat(fn, qs: np.ndarray) -> tuple[float, float]:
    for q in qs[:10]:
        fn(q[None, :])
    ts = []
    for q in qs:
        t0 = time.perf_counter()
        fn(q[None, :])
        ts.append(time.perf_counter() - t0)
    ts_ms = np.asarray(ts) * 1e3
    return float(np.median(ts_ms)), float(np.percentile(ts_ms, 99))


def bench_hnsw(n: int, kind: str, nq: int, threads: int, dim: int = 384, M: int = 16,
               ef_construction: int = 200, ef_values: tuple[int, ...] = (16, 32, 64, 128, 256),
               storage: str = "float32") -> list[str]:
    gen = clustered if kind == "clustered" else random_data
    x = gen(n, dim, 1)
    q = gen(nq, dim, 2)
    idx = EvidenceIndex(dim, "cosine", M=M, ef_construction=ef_construction, ef_search=64, initial_capacity=n,
                        exact_threshold=0, num_threads=threads, storage=storage)
    t0 = time.perf_counter()
    idx.add(x)
    build = time.perf_counter() - t0
    idx.num_threads = 1
    ours_exact, _ = idx.search_arrays(q, 10, exact=True)
    # Ground truth: float32 brute force in numpy over the original (normalised) vectors, so
    # recall also counts what float16 storage loses. Our exact mode is checked against it.
    xn = x / np.linalg.norm(x, axis=1, keepdims=True)
    qn = q / np.linalg.norm(q, axis=1, keepdims=True)
    exact = np.empty((len(q), 10), dtype=np.int64)
    for s in range(0, len(q), 50):
        sims = xn @ qn[s:s + 50].T
        top = np.argpartition(-sims, 10, axis=0)[:10].T
        order = np.argsort(-np.take_along_axis(sims.T, top, axis=1), axis=1, kind="stable")
        exact[s:s + 50] = np.take_along_axis(top, order, axis=1)
    agree = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(exact, ours_exact)])
    np_p50, np_p99 = lat(lambda qq: np.argpartition(-(xn @ qq[0]), 10)[:10], q[: min(nq, 50)])
    ex_p50, _ = lat(lambda qq: idx.search_arrays(qq, 10, exact=True), q[: min(nq, 50)])
    bytes_per_vec = dim * (2 if storage == "float16" else 4) + M * 2 * 4 + 4 + 8
    rows = [f"| {kind} | {n:,} | M={M}, ef_construction={ef_construction}, {storage}, {idx.distance_kernel} kernel: "
            f"build {build:.1f} s ({n / build:,.0f}/s, {threads} threads) | "
            f"~{bytes_per_vec / 1024:.2f} KiB/vector + metadata | numpy brute p50 {np_p50:.3f} ms, "
            f"our exact p50 {ex_p50:.3f} ms (top-10 overlap with numpy float32: {agree:.3f}) |"]
    for ef in ef_values:
        idx.ef_search = ef
        labels, _ = idx.search_arrays(q, 10)
        recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(labels, exact)])
        p50, p99 = lat(lambda qq: idx.search_arrays(qq, 10), q)
        rows.append(f"|  | ef_search={ef} | recall@10 {recall:.3f} | p50 {p50:.3f} ms | p99 {p99:.3f} ms "
                    f"| speed-up vs numpy brute p50: {np_p50 / p50:.1f}x |")
    return rows


def rouge_l_f1(a: list[str], b: list[str]) -> float:
    if not a or not b:
        return 0.0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    lcs = prev[-1]
    if lcs == 0:
        return 0.0
    p, r = lcs / len(b), lcs / len(a)
    return 2 * p * r / (p + r)


def retrieval_proxy(path: str, limit: int, dim: int = 384) -> dict[str, float]:
    """Proxy for "the sentence that best supports or refutes the response lands in the top 3".

    Per record: the context's sentences (split on the newlines that join them in these files,
    then by split_sentences) are indexed under a tenant of their own; each sentence of the
    response (split_sentences) is a query. The gold sentence of a query is the context sentence
    with the highest ROUGE-L F1 (LCS of normalised words, Lin 2004) against it: no method under
    test uses LCS, but the gold is lexical, so the proxy favours lexical matching; ties count any
    tied sentence as gold; queries whose best ROUGE-L F1 is < 0.2 (nothing related) are skipped.
    Reported: fraction of queries whose gold is in the top 3 for dense (hashing embedder),
    BM25, and RRF fusion (k = 60), and the chance rate 3 / #sentences.
    """
    recs = [json.loads(line) for line in open(path, encoding="utf-8")]
    random.Random(0).shuffle(recs)
    recs = recs[:limit]
    emb = HashingEmbedder(dim)
    hits = {"dense": 0, "bm25": 0, "rrf": 0, "rrf_w05": 0, "chance": 0.0}
    n = 0
    for r in recs:
        sents = []
        for line in r["context"].split("\n"):
            sents.extend(line[s:e] for s, e in split_sentences(line))
        sents = [s for s in sents if normalize_terms(s)]
        if len(sents) < 4:
            continue
        terms = [normalize_terms(s) for s in sents]
        idx = EvidenceIndex(dim, exact_threshold=10**9)
        idx.add(np.ascontiguousarray(emb.embed_batch(sents)), list(range(len(sents))))
        bm = BM25()
        for i, t in enumerate(terms):
            bm.add(i, t)
        resp = r["response"]
        for s, e in split_sentences(resp):
            qtext = resp[s:e]
            qt = normalize_terms(qtext)
            scores = [rouge_l_f1(qt, t) for t in terms]
            best = max(scores)
            if best < 0.2:
                continue
            gold = {i for i, v in enumerate(scores) if v == best}
            dense = [h.id for h in idx.search(emb.embed(qtext), 50)[0]]
            lex = [d for d, _ in bm.top(qt, 50)]
            def fuse(wd: float) -> list[int]:
                fused: dict[int, float] = {}
                for lst, w in ((dense, wd), (lex, 1.0)):
                    for rank, d in enumerate(lst, 1):
                        fused[d] = fused.get(d, 0.0) + w / (60 + rank)
                return [d for d, _ in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))]
            rrf = fuse(1.0)
            hits["rrf_w05"] += bool(gold & set(fuse(0.5)[:3]))
            n += 1
            hits["dense"] += bool(gold & set(dense[:3]))
            hits["bm25"] += bool(gold & set(lex[:3]))
            hits["rrf"] += bool(gold & set(rrf[:3]))
            hits["chance"] += min(1.0, 3 * len(gold) / len(sents))
    return {k: v / max(n, 1) for k, v in hits.items()} | {"queries": n, "records": len(recs)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--random-sizes", default="10000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--retrieval-records", type=int, default=1500)
    ap.add_argument("--M", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=200)
    ap.add_argument("--ef-values", default="16,32,64,128,256", help="ef_search values of the recall/latency curve")
    ap.add_argument("--storage", default="float32", choices=("float32", "float16"))
    a = ap.parse_args()
    hnsw_kw = dict(M=a.M, ef_construction=a.ef_construction, storage=a.storage,
                   ef_values=tuple(int(v) for v in a.ef_values.split(",")))
    print("command: python " + " ".join(sys.argv))
    print("| data | n | build | memory | baseline |")
    print("|---|---|---|---|---|")
    for n in [int(s) for s in a.sizes.split(",") if s]:
        for row in bench_hnsw(n, "clustered", a.queries, a.threads, **hnsw_kw):
            print(row, flush=True)
    for n in [int(s) for s in a.random_sizes.split(",") if s]:
        for row in bench_hnsw(n, "random", a.queries, a.threads, **hnsw_kw):
            print(row, flush=True)
    print()
    print("| file | records | queries | dense top-3 | BM25 top-3 | RRF top-3 | RRF, dense weight 0.5 | chance |")
    print("|---|---|---|---|---|---|---|---|")
    for f in ("wice_claim_dev.jsonl", "summedits.jsonl"):
        t0 = time.perf_counter()
        res = retrieval_proxy(os.path.join(DATA, f), a.retrieval_records)
        print(f"| {f} | {res['records']} | {res['queries']} | {res['dense']:.3f} | {res['bm25']:.3f} | "
              f"{res['rrf']:.3f} | {res['rrf_w05']:.3f} | {res['chance']:.3f} |  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()

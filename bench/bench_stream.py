"""Streaming halt kernel and stream_guard vs director-ai 3.21.0, in one process and one run.

Usage: python bench/bench_stream.py [--sizes 1000,10000,50000] [--repeats 5] [--quick]

Measures (medians of --repeats after a warm-up):
  * C++ kernel batch replay (``director_fast.replay``): ns/token;
  * the kernel's step API from Python (``HaltKernel.feed``): ns/token;
  * a plain-Python kernel (deque window, the obvious implementation): ns/token (baseline);
  * ``stream_guard`` with a constant plain callable (handed the accumulated text, as the anchor)
    vs director-ai ``StreamingKernel.stream_tokens`` with the same callable: us/token and ratio;
  * ``stream_guard`` with an incremental scorer (constant work per new sentence), on "word "
    tokens and on "word " tokens with a sentence end every 20 tokens: us/token, 50k/5k time ratio;
  * ``stream_guard`` with the real lexical ``CoherenceScorer`` over a knowledge base (every
    sentence's claims retrieved and judged): us/token at 1k and 4k tokens, and the ratio to
    director-ai's ``StreamingKernel`` with its heuristic ``CoherenceScorer.review`` as the callback
    (the way director-ai guards a stream with a real scorer), where that fits the time budget;
  * memory held by a finished session per token (tracemalloc), ours vs the anchor.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from collections import deque
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import env_line, median_time, table  # noqa: E402

import director_fast as df  # noqa: E402


def const_cb(text: str) -> float:
    return 0.9


def proportional_cb(text: str) -> float:
    """Work proportional to the accumulated text (a scan), as a real plain scorer would do."""
    return 0.9 if text.count("w") >= 0 else 0.0


class ConstSentenceScorer:
    """Constant work per new sentence."""

    scorer_path = "bench.ConstSentenceScorer"

    def score_sentence(self, sentence, *, prompt="", previous="", tenant_id=""):
        return 0.9


def python_kernel(scores, hard=0.5, ws=10, wt=0.55, tw=5, tt=0.15):
    """The obvious plain-Python kernel: deque window, sum()/len(), numpy-free regression."""
    win = deque(maxlen=max(ws, tw))
    for i, s in enumerate(scores):
        win.append(s)
        if s < hard:
            return i
        if len(win) >= ws:
            w = list(win)[-ws:]
            if sum(w) / ws < wt:
                return i
        if len(win) >= tw:
            y = list(win)[-tw:]
            n = tw
            xb = (n - 1) / 2
            yb = sum(y) / n
            num = sum((k - xb) * (v - yb) for k, v in enumerate(y))
            den = sum((k - xb) ** 2 for k in range(n))
            if -(num / den) * (n - 1) > tt:
                return i
    return -1


def anchor_kernel():
    try:
        from director_ai.core.runtime.streaming import StreamingKernel
    except Exception:
        return None
    return StreamingKernel


def plain_guard_times(n: int, cb, repeats: int, AK=None) -> tuple[float, float, float]:
    """(anchor s, ours s, replay s) for a stream of n "word " tokens and plain callable cb."""
    toks = ["word "] * n
    t_ours = median_time(lambda: list(df.stream_guard(toks, cb)), repeats)
    t_anchor = median_time(lambda: AK().stream_tokens(iter(toks), cb), repeats) if AK is not None else float("nan")
    arr = np.full(n, 0.9)
    t_rep = median_time(lambda: df.replay(arr), repeats)
    return t_anchor, t_ours, t_rep


def incremental_time(n: int, every: int, repeats: int) -> float:
    """Seconds for n tokens through stream_guard with a constant incremental scorer; a sentence
    end every `every` tokens (0: none, the whole stream is one sentence scored at the end)."""
    toks = sentence_stream(n, every)
    return median_time(lambda: list(df.stream_guard(toks, ConstSentenceScorer())), repeats)


def sentence_stream(n: int, every: int) -> list[str]:
    """n tokens: "word " tokens, with "word. " every `every` tokens followed by a capitalised
    "Word " (the segmenter, like a reader, does not end a sentence before a lower-case word)."""
    toks = []
    for i in range(n):
        if every and (i + 1) % every == 0:
            toks.append("word. ")
        elif every and i % every == 0 and i:
            toks.append("Word ")
        else:
            toks.append("word ")
    return toks


_FACTS = [f"Product {i} costs {10 + (i * 37) % 490} euros and ships from warehouse {'ABCDEFG'[i % 7]} "
          f"within {1 + i % 9} days." for i in range(1000)]


def real_scorer_answer(n_tokens: int) -> list[str]:
    """About n_tokens word tokens of correct answers (knowledge-base sentences) mixed with
    pleasantries, as a chat model would stream them."""
    toks: list[str] = []
    i = 0
    while len(toks) < n_tokens:
        sent = _FACTS[(i * 7919) % len(_FACTS)] if i % 5 else "Sure, happy to help!"
        toks.extend(w + " " for w in sent.split())
        i += 1
    return toks[:n_tokens]


def real_scorer_times(sizes: list[int], repeats: int) -> list[tuple[int, float]]:
    """Seconds per stream through stream_guard with CoherenceScorer(knowledge=KnowledgeBase)
    (a fresh scorer per repeat: nothing cached between repeats)."""
    kb = df.KnowledgeBase()
    kb.add_facts(_FACTS, source="catalog.md", tenant="t")
    out = []
    for n in sizes:
        toks = real_scorer_answer(n)

        def run():
            s = df.CoherenceScorer(knowledge=kb)
            g = df.stream_guard(toks, s, prompt="Tell me about the products.", tenant_id="t")
            for _ in g:
                pass
            assert not g.session.halted

        out.append((n, median_time(run, repeats)))
    return out


def session_bytes(make) -> float:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    sess = make()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del sess
    return after - before


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 repeats (smoke run)")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    repeats = a.repeats
    if a.quick:
        sizes, repeats = [1000, 5000], 3
    AK = anchor_kernel()
    print(env_line())
    print(f"command: python bench/bench_stream.py --sizes {','.join(map(str, sizes))} --repeats {repeats}\n")

    # --- kernel alone ---------------------------------------------------------------------------
    n_big = 1_000_000
    rng = np.random.default_rng(0)
    scores = rng.uniform(0.9, 1.0, n_big)
    scores.sort()  # non-decreasing high scores: never halts, every check runs
    t_batch = median_time(lambda: df.replay(scores), repeats)
    k_scores = scores[:100_000].tolist()

    def step_py():
        k = df.HaltConfig().new_kernel()
        feed = k.feed
        for s in k_scores:
            feed(s, True, False)

    t_step = median_time(step_py, repeats)
    t_pyk = median_time(lambda: python_kernel(k_scores), repeats)
    rows = [
        ["C++ batch replay (1M tokens, GIL released)", f"{t_batch / n_big * 1e9:.1f}", "-"],
        ["C++ step from Python (HaltKernel.feed, 100k)", f"{t_step / 1e5 * 1e9:.1f}", "-"],
        ["plain-Python kernel (deque, 100k)", f"{t_pyk / 1e5 * 1e9:.1f}",
         f"batch {t_pyk / 1e5 / (t_batch / n_big):.0f}x faster"],
    ]
    print("Kernel alone (ns/token)")
    print(table(rows, ["path", "ns/token", "ratio"]))
    print()

    # --- stream_guard with plain callables vs the anchor ---------------------------------------
    for label, cb in (("Constant plain callable", const_cb),
                      ("Text-proportional plain callable (scans the accumulated text)", proportional_cb)):
        rows = []
        for n in sizes:
            t_anchor, t_ours, t_rep = plain_guard_times(n, cb, repeats, AK)
            rows.append([f"{n:,}", f"{t_anchor / n * 1e6:.2f}", f"{t_ours / n * 1e6:.3f}",
                         f"{t_anchor / t_ours:.1f}x", f"{t_rep / n * 1e9:.1f}", f"{t_anchor / t_rep:.0f}x"])
        print(f"{label} (handed the accumulated text): us/token")
        print(table(rows, ["tokens", "director-ai stream_tokens", "stream_guard", "ratio",
                           "replay ns/token", "anchor / replay"]))
        print()

    # --- incremental scorer ---------------------------------------------------------------------
    rows = []
    inc = {}
    inc_sizes = sorted(set(sizes) | {5000, 50000}) if not a.quick else sizes
    for label, every in (("'word ' tokens", 0), ("sentence end every 20 tokens", 20)):
        for n in inc_sizes:
            t = incremental_time(n, every, repeats)
            inc[(label, n)] = t
            rows.append([label, f"{n:,}", f"{t / n * 1e6:.3f}"])
    print("Incremental scorer (constant work per sentence), release='sentence': us/token")
    print(table(rows, ["stream", "tokens", "us/token"]))
    if not a.quick:
        for label in ("'word ' tokens", "sentence end every 20 tokens"):
            print(f"  linearity {label}: T(50k)/T(5k) = {inc[(label, 50000)] / inc[(label, 5000)]:.2f} (ideal 10)")
    print()

    # --- the real lexical CoherenceScorer -----------------------------------------------------------
    rows = []
    real = real_scorer_times([1000, 4000], repeats)
    for n, t in real:
        rows.append([f"{n:,}", f"{t / n * 1e6:.2f}"])
    print("stream_guard with the lexical CoherenceScorer over a 1,000-fact KnowledgeBase: us/token")
    print(table(rows, ["tokens", "us/token"]))
    print(f"  linearity: T(4k)/T(1k) = {real[1][1] / real[0][1]:.2f} (ideal 4)")
    print()

    # --- memory per token -----------------------------------------------------------------------
    n = 10_000
    toks = [f"w{i} " for i in range(n)]  # distinct strings: the token objects themselves are not counted
    ours = session_bytes(lambda: _consume(df.stream_guard(iter(toks), const_cb)))
    ours_lean = session_bytes(lambda: _consume(df.stream_guard(iter(toks), const_cb, keep_events=False)))
    rows = [["director_fast (keep_events=True)", f"{ours / n:.0f}"],
            ["director_fast (keep_events=False)", f"{ours_lean / n:.0f}"]]
    if AK is not None:
        anchor = session_bytes(lambda: AK().stream_tokens(iter(toks), const_cb))
        rows.insert(0, ["director-ai 3.21.0", f"{anchor / n:.0f}"])
    print("Session memory per token (bytes, 10k tokens, token strings excluded)")
    print(table(rows, ["session", "bytes/token"]))


def _consume(g):
    for _ in g:
        pass
    return g.session


if __name__ == "__main__":
    main()

"""Verdict quality on ordinary assistant replies over small knowledge bases (bench/data/chat_rag).

For each case: the domain's knowledge base goes into one shared ``KnowledgeBase`` (tenant = the
case's domain, source = the document name); the reply is judged by

* ``review``: ``CoherenceScorer(knowledge=kb).review(question, response, tenant_id=domain,
  system=system)``;
* ``stream``: ``stream_guard(tokens, scorer, prompt=question, tenant_id=domain, system=system)``
  over whitespace-delimited tokens; the case counts as approved when the stream did not halt;
* ``director-ai``: director-ai 3.21.0's heuristic ``CoherenceScorer(use_nli=False)`` with the
  domain's documents in its ``GroundTruthStore`` and the question as its prompt (when installed).

Reports, per split (``dev``: rules were tuned on it; ``heldout``: never looked at while tuning),
the pass rate of supported replies, the block rate of unsupported ones, balanced accuracy, the
per-kind accuracy, and every case where ``review`` and ``stream`` disagree.

Usage: python bench/bench_chat_rag.py [--split heldout|dev|all] [--no-director-ai] [--cases N]
       [--list-errors] [--nli-model DIR [--model-only]]

``--nli-model DIR`` judges with an ONNX NLI model directory (``NLIModel.from_pretrained``) instead
of the lexical backend, combined with the lexical number / roles signals unless ``--model-only``.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "data" / "chat_rag" / "cases.jsonl"


def load_cases(path: Path = CASES) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build_kb(cases: list[dict]):
    import director_fast as df

    kb = df.KnowledgeBase()
    seen = set()
    for c in cases:
        if c["domain"] in seen:
            continue
        seen.add(c["domain"])
        for source, text in c["kb"].items():
            kb.add(text, source=source, tenant=c["domain"])
    return kb


def tokens_of(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


def run_ours(cases: list[dict], scorer) -> list[dict]:
    import director_fast as df

    out = []
    for c in cases:
        t0 = time.perf_counter()
        approved, score = scorer.review(c["question"], c["response"], tenant_id=c["domain"],
                                        system=c["system"] or None)
        t1 = time.perf_counter()
        guard = df.stream_guard(tokens_of(c["response"]), scorer, prompt=c["question"],
                                tenant_id=c["domain"], system=c["system"] or None)
        delivered = "".join(guard)
        s = guard.session
        out.append({"review": bool(approved), "stream": not s.halted, "score": score.score,
                    "review_ms": (t1 - t0) * 1e3, "delivered": delivered, "halt": s.halt_reason,
                    "attributions": [(a.claim, a.verdict, a.signal, a.source_sentence)
                                     for a in score.attributions]})
    return out


def run_director_ai(cases: list[dict]) -> list[bool] | None:
    try:
        from director_ai import CoherenceScorer as AnchorScorer
        from director_ai import GroundTruthStore
    except ImportError:
        return None
    logging.getLogger("director_ai").setLevel(logging.CRITICAL)
    scorers = {}
    out = []
    for c in cases:
        sc = scorers.get(c["domain"])
        if sc is None:
            store = GroundTruthStore()
            for source, text in c["kb"].items():
                store.add(source, text)
            sc = scorers[c["domain"]] = AnchorScorer(use_nli=False, ground_truth_store=store)
        approved, _ = sc.review(c["question"], c["response"])
        out.append(bool(approved))
    return out


def metrics(labels: list[bool], approved: list[bool]) -> dict:
    pos = [a for lab, a in zip(labels, approved) if lab]
    neg = [a for lab, a in zip(labels, approved) if not lab]
    passed = sum(pos) / len(pos) if pos else float("nan")
    blocked = sum(1 for a in neg if not a) / len(neg) if neg else float("nan")
    return {"passed": passed, "blocked": blocked, "ba": (passed + blocked) / 2, "n": len(labels)}


def report(cases: list[dict], ours: list[dict], theirs: list[bool] | None, split: str, list_errors: bool) -> None:
    idx = [i for i, c in enumerate(cases) if split == "all" or c["split"] == split]
    if not idx:
        return
    labels = [cases[i]["supported"] for i in idx]
    systems = {"review": [ours[i]["review"] for i in idx], "stream": [ours[i]["stream"] for i in idx]}
    if theirs is not None:
        systems["director-ai"] = [theirs[i] for i in idx]
    print(f"\n## split: {split} ({len(idx)} cases, {sum(labels)} supported)\n")
    print("| system | supported passed | unsupported blocked | balanced accuracy |")
    print("|---|---|---|---|")
    for name, appr in systems.items():
        m = metrics(labels, appr)
        print(f"| {name} | {m['passed']:.3f} | {m['blocked']:.3f} | {m['ba']:.3f} |")
    agree = sum(ours[i]["review"] == ours[i]["stream"] for i in idx)
    print(f"\nreview == stream on {agree}/{len(idx)} cases ({agree / len(idx):.1%})")
    for i in idx:
        if ours[i]["review"] != ours[i]["stream"]:
            print(f"  disagree: {cases[i]['id']} review={ours[i]['review']} stream={ours[i]['stream']} "
                  f"halt={ours[i]['halt']}")
    kinds = defaultdict(list)
    for i in idx:
        kinds[cases[i]["kind"]].append(i)
    print("\n| kind | n | review | stream |" + (" director-ai |" if theirs is not None else ""))
    print("|---|---|---|---|" + ("---|" if theirs is not None else ""))
    for kind in sorted(kinds, key=lambda k: (not cases[kinds[k][0]]["supported"], k)):
        ii = kinds[kind]
        acc = lambda appr: sum(appr[i] == cases[i]["supported"] for i in ii) / len(ii)  # noqa: E731
        row = f"| {kind} ({'supported' if cases[ii[0]]['supported'] else 'unsupported'}) | {len(ii)} | " \
              f"{acc({i: ours[i]['review'] for i in ii}):.2f} | {acc({i: ours[i]['stream'] for i in ii}):.2f} |"
        if theirs is not None:
            row += f" {acc({i: theirs[i] for i in ii}):.2f} |"
        print(row)
    if list_errors:
        print("\nerrors (review):")
        for i in idx:
            if ours[i]["review"] != cases[i]["supported"]:
                c = cases[i]
                print(f"- {c['id']} [{c['kind']}] supported={c['supported']} score={ours[i]['score']:.3f}")
                print(f"  Q: {c['question']}\n  A: {c['response']}")
                for claim, verdict, signal, src in ours[i]["attributions"]:
                    print(f"    {verdict}/{signal}: {claim!r} <- {src!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", default="all", choices=["all", "heldout", "dev"])
    ap.add_argument("--no-director-ai", action="store_true")
    ap.add_argument("--list-errors", action="store_true")
    ap.add_argument("--cases", type=Path, default=CASES)
    ap.add_argument("--nli-model", type=Path, default=None)
    ap.add_argument("--model-only", action="store_true")
    a = ap.parse_args(argv)
    import director_fast as df

    cases = load_cases(a.cases)
    kb = build_kb(cases)
    kw = {}
    if a.nli_model is not None:
        kw = {"nli": df.NLIModel.from_pretrained(str(a.nli_model)), "lexical_signals": not a.model_only}
    scorer = df.CoherenceScorer(knowledge=kb, **kw)
    t0 = time.perf_counter()
    ours = run_ours(cases, scorer)
    t1 = time.perf_counter()
    theirs = None if a.no_director_ai else run_director_ai(cases)
    t2 = time.perf_counter()
    print(f"command: python bench/bench_chat_rag.py --split {a.split}"
          f"{' --no-director-ai' if a.no_director_ai else ''}"
          f"{f' --nli-model {a.nli_model}' if a.nli_model else ''}{' --model-only' if a.model_only else ''}")
    print(f"scorer: {scorer.scorer_path}")
    print(f"ours: {len(cases)} cases (review + stream) in {t1 - t0:.2f} s; "
          f"director-ai: {'not installed' if theirs is None else f'{t2 - t1:.2f} s'}")
    splits = ["dev", "heldout"] if a.split == "all" else [a.split]
    for sp in splits:
        report(cases, ours, theirs, sp, a.list_errors)
    return 0


if __name__ == "__main__":
    sys.exit(main())

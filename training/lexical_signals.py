"""Design-file analysis of the lexical NLI signals (not shipped code; an ablation record).

Prints, for each design file only -- WiCE ``wice_claim_dev``, the SummEdits ``evaluation`` split and
SICK ``trial`` (as "not entailment" and as "contradiction") -- the response-level ROC-AUC of each
signal reported by :class:`director_fast.verify.nli.LexicalNLI` (summed over sentences), and the balanced
accuracy at 0.5 / AUC of the combined divergence. It never reads a test file. This is how the
2026-11-30 defaults (``w_polarity`` 0.7, ``w_negation`` 0.9 / ``w_negation_weak`` 0.35 at
``negation_alignment`` 0.8, ``w_numeric`` / ``w_entity`` 0.7) were chosen; see docs/scoring.md.

Run: python training/lexical_signals.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from director_fast.core.scorer import declarative_part
from director_fast.diagnostics.metrics import binary_metrics, roc_auc
from director_fast.verify.nli import LexicalNLI

DATA = Path(os.environ.get("DIRECTOR_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
SIGNALS = ("numeric_mismatches", "entity_mismatches", "negation_flips", "novel_polarity", "antonym_hits")


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def design_sets() -> dict[str, list[tuple[str, str, bool]]]:
    se = [r for r in _load(DATA / "halluc" / "summedits.jsonl") if r["split"] == "evaluation"]
    wd = _load(DATA / "halluc" / "wice_claim_dev.jsonl")
    st = _load(DATA / "nli" / "sick_trial.jsonl")
    return {
        "summedits[evaluation]": [(declarative_part(r["context"]), r["response"], r["hallucinated"]) for r in se],
        "wice_claim_dev": [(declarative_part(r["context"]), r["response"], r["hallucinated"]) for r in wd],
        "sick_trial (not entailment)": [(r["premise"], r["hypothesis"], r["label"] != "entailment") for r in st],
        "sick_trial (contradiction)": [(r["premise"], r["hypothesis"], r["label"] == "contradiction") for r in st],
    }


def main() -> None:
    nli = LexicalNLI()
    for name, rows in design_sets().items():
        y = [bool(h) for _, _, h in rows]
        feats: dict[str, list[float]] = {k: [] for k in ("divergence", "uncovered", *SIGNALS)}
        for premise, response, _ in rows:
            d = nli.score_detailed(premise, response)
            feats["divergence"].append(d.divergence)
            words = sum(s["content_words"] for s in d.signals)
            covered = sum(s["covered_words"] for s in d.signals)
            feats["uncovered"].append(1 - covered / words if words else 0.0)
            for k in SIGNALS:
                feats[k].append(float(sum(s[k] for s in d.signals)))
        ba = binary_metrics(y, [v > 0.5 for v in feats["divergence"]]).balanced_accuracy
        aucs = ", ".join(f"{k} {roc_auc(y, v):.3f}" for k, v in feats.items())
        print(f"{name} (n={len(y)}): BA@0.5 {ba:.3f}; AUC: {aucs}")


if __name__ == "__main__":
    main()

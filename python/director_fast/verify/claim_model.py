"""The learned stage of a claim's verdict: an NLI model's P(entailment) over the claim's evidence,
combined with the lexical backend's graded coverage into one calibrated probability.

Policy (one place): the precise checks stay rules. A claim that a rule contradicts (a different
number, unit, name, role, negation, antonym or a dropped exception: :data:`RULE_SIGNALS`) is
contradicted whatever the model says and keeps the rules' score (below the threshold). Every other
claim with evidence goes to the model: its premise is the claim's evidence units ranked by
content-word overlap with the claim, the best kept up to :data:`PREMISE_WORDS` words and the
model's token length, in evidence order (:func:`premise_for`, the selection the training mix uses
too, so a passage's sentences compose and a contradiction inside a passage is seen by the model);
a claim the rules found supported is read against that one supporting fact instead (a premise of
near-identical facts, such as a price list, reads to a small model as a contradiction).
A run of a context document's sentences (a window, or the whole document) reaches the model as
its sentences, never cut to its opening lines. A claim that shares no word with any unit of the
call's context (a reply such as "He started it.") is judged against the context's first
sentences, and says so (``unrelated``; the scorer approves such a claim only with a warning);
without a context such a claim has no evidence and is not sent. Its probability of being supported is

    p = sigmoid(a * logit(P_entailment) + b * coverage + c * lexically_supported + e * unrelated + d)

(``coverage``: the lexical backend's share of the claim's content words found in its best unit,
in [0, 1]; ``lexically_supported``: 1 when the lexical backend supports it). ``a, b, c, e, d`` are
fitted by maximum likelihood with the classes weighted to a stated prior share of faithful answers
(``prior_faithful`` in ``calibration.json``; the shipped model's 0.60 is the share at which the
default threshold passes as many faithful held-out answers as it blocks hallucinated ones) on a
held-out calibration split (``calibration.json`` beside the model names it), through the response
score below, so that the response score itself is calibrated. A claim is ``supported`` when
p >= 0.5, ``contradicted`` when it is not and the model's P(contradiction) is its largest class,
else ``not_found``.

The response's score is the smallest of its claims' scores: an upper bound of the probability that
all its claims are supported, exact when the claims' errors go together, and the score the
constants are fitted through. (The product, which assumes independent claims, was not used: a
stream judges one sentence at a time and halts exactly when ``review`` rejects only if the
response score is the minimum of the sentences' scores.)

Determinism: each (premise, claim) pair is sent to the model alone, never batched, because the int8
model's activations are quantised with one scale per tensor: batched, a pair's probabilities would
depend on the other pairs of its batch. With the export's 7-bit weights the integer kernels with
and without VNNI agree, so the same input gives the same verdict on every x86-64 CPU and in every
process (a Ray worker and the local job alike).

Thread safety: :class:`ClaimVerifier` is safe to share between threads (the model is; the cache is
locked); :class:`VerifierCalibration` and :class:`ModelCheck` are immutable.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from director_fast._lru import LRUCache
from director_fast.errors import ConfigError
from director_fast.verify.text import content_words

__all__ = ["RULE_SIGNALS", "PREMISE_WORDS", "VerifierCalibration", "ModelCheck", "ClaimVerifier", "premise_for",
           "response_probability"]

#: lexical contradiction signals that are precise checks: they decide without the model
RULE_SIGNALS = frozenset({"number", "unit", "entity", "roles", "negation", "antonym", "exception"})
#: most words of evidence in one premise (the training premises' length)
PREMISE_WORDS = 110
_LOGIT_CLIP = 9.0


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1.0 - 1e-4)
    return max(-_LOGIT_CLIP, min(_LOGIT_CLIP, math.log(p / (1.0 - p))))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


@dataclass(frozen=True)
class VerifierCalibration:
    """The fitted constants of the claim probability (see the module docstring).

    Attributes:
        entailment_weight, coverage_weight, support_weight, unrelated_weight, bias: ``a``,
            ``b``, ``c``, ``e``, ``d``.
        split: the held-out split the constants were fitted on (for the model card).
    """

    entailment_weight: float
    coverage_weight: float
    support_weight: float
    unrelated_weight: float
    bias: float
    split: str = ""

    def claim_probability(self, entailment: float, coverage: float, lexically_supported: bool,
                          unrelated: bool = False) -> float:
        """``p`` in [0, 1] from the model's P(entailment), the lexical coverage in [0, 1], the
        lexical verdict and whether no evidence unit shares a word with the claim."""
        z = (self.entailment_weight * _logit(entailment) + self.coverage_weight * coverage
             + self.support_weight * float(lexically_supported) + self.unrelated_weight * float(unrelated)
             + self.bias)
        return _sigmoid(z)

    @classmethod
    def load(cls, path: str | Path) -> "VerifierCalibration":
        """Read ``calibration.json``.

        Raises:
            ConfigError: the file is missing or lacks a field (field ``calibration``).
        """
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls(**{k: float(raw[k]) for k in ("entailment_weight", "coverage_weight", "support_weight",
                                                     "unrelated_weight", "bias")}, split=str(raw["split"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"cannot read the verifier calibration {str(path)!r}: {exc}", "calibration") from None


def premise_for(claim: str, texts: Sequence[str], max_words: int = PREMISE_WORDS) -> list[int]:
    """Indices of the evidence ``texts`` that make the claim's premise, in evidence order: ranked
    by the number of the claim's content words they hold (ties: earlier first), the best kept
    while the total stays within ``max_words`` words (the best one always). ``[]`` for no texts."""
    return sorted(_ranked_premise(claim, texts, max_words))


def _ranked_premise(claim: str, texts: Sequence[str], max_words: int) -> list[int]:
    """:func:`premise_for`'s units, best first."""
    if not texts:
        return []
    words = content_words(claim)
    ranked = sorted(range(len(texts)), key=lambda i: (-len(words & content_words(texts[i])), i))
    keep, total = [], 0
    for i in ranked:
        n = len(texts[i].split())
        if keep and total + n > max_words:
            continue
        keep.append(i)
        total += n
        if total >= max_words:
            break
    return keep


def response_probability(probabilities: Sequence[float]) -> float:
    """The response's calibrated probability that every claim is supported: the smallest claim
    probability (1.0 for no claims; see the module docstring)."""
    return min(probabilities, default=1.0)


@dataclass(frozen=True)
class ModelCheck:
    """What the model said about one claim.

    Attributes:
        entailment, neutral, contradiction: the model's class probabilities for the premise.
        probability: the calibrated probability that the claim is supported.
        units: indices (into the texts given) of the evidence units in the premise.
        truncated: the premise was cut to fit the model's length (a unit lost words).
    """

    entailment: float
    neutral: float
    contradiction: float
    probability: float
    units: tuple[int, ...]
    truncated: bool

    @property
    def verdict(self) -> str:
        """``supported`` (probability >= 0.5), ``contradicted`` (else, when contradiction is the
        model's largest class) or ``not_found``."""
        if self.probability >= 0.5:
            return "supported"
        if self.contradiction > self.entailment and self.contradiction > self.neutral:
            return "contradicted"
        return "not_found"

    @property
    def signal(self) -> str:
        """The verdict's signal: ``entailment``, ``contradiction`` or ``neutral``."""
        return {"supported": "entailment", "contradicted": "contradiction", "not_found": "neutral"}[self.verdict]


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class ClaimVerifier:
    """An NLI model with its calibration: :meth:`check` many claims in one batched call.

    Args:
        model: a three-way :class:`~director_fast.nli.NLIModel` (``predict_proba``,
            ``count_tokens``, ``roles``, ``max_length``).
        calibration: the fitted constants.
        model_id: a name for results and audit events (the model directory's name).
        model_sha256: the model file's SHA-256 (hex).
        cache_size: (premise, claim) results kept (0: none).

    Raises:
        ConfigError: the model has no three-way head (field ``nli``).
    """

    def __init__(self, model: Any, calibration: VerifierCalibration, *, model_id: str, model_sha256: str,
                 cache_size: int = 4096) -> None:
        if getattr(model, "head", None) != "three_way":
            raise ConfigError("the claim verifier needs a three-way NLI model (entailment / neutral / "
                              "contradiction)", "nli")
        self.model = model
        self.calibration = calibration
        self.model_id = model_id
        self.model_sha256 = model_sha256
        self._roles = tuple(model.roles[k] for k in ("entailment", "neutral", "contradiction"))
        self._cache: LRUCache = LRUCache(cache_size)

    @classmethod
    def from_dir(cls, model: Any, model_dir: str | Path, **kwargs: Any) -> "ClaimVerifier":
        """The verifier of a model directory: ``calibration.json`` and the SHA-256 of the ONNX file
        ``model`` loaded (``model_quantized.onnx`` when present)."""
        d = Path(model_dir)
        onnx = next((d / f for f in ("model_quantized.onnx", "model.onnx") if (d / f).is_file()), None)
        if onnx is None:
            raise ConfigError(f"no ONNX model in {str(d)!r}", "model")
        return cls(model, VerifierCalibration.load(d / "calibration.json"), model_id=d.name,
                   model_sha256=file_sha256(onnx), **kwargs)

    def check(self, items: Sequence[tuple[str, Sequence[str], float, bool, bool]]) -> list[ModelCheck]:
        """One :class:`ModelCheck` per ``(claim, evidence texts, coverage, lexically supported,
        unrelated)`` item (``unrelated``: no evidence unit shares a word with the claim; the
        texts are then the passage's first sentences), in order; items without evidence texts
        must not be passed. Each distinct (premise,
        claim) pair not in the cache is one model call (never batched with others: the result
        must not depend on what else is judged)."""
        plans = [self._pair(claim, texts) for claim, texts, *_features in items]
        keys = [(premise, hypothesis) for premise, hypothesis, _u, _t in plans]
        found: dict[tuple[str, str], tuple[float, float, float]] = {}
        for k in dict.fromkeys(keys):
            hit = self._cache.get(k)
            if hit is None:
                # one pair per call: the int8 model quantises activations with one scale per
                # tensor, so a batch's other pairs (and their padding) would move this pair's
                # probabilities (by up to ~0.03): alone, a verdict depends on its pair only
                row = self.model.predict_proba([k])[0]
                hit = (float(row[self._roles[0]]), float(row[self._roles[1]]), float(row[self._roles[2]]))
                self._cache.put(k, hit)
            found[k] = hit
        out = []
        for (_p, _h, units, cut), key, (_claim, _texts, coverage, supported, unrelated) in zip(plans, keys, items):
            e, n, c = found[key]
            p = self.calibration.claim_probability(e, coverage, supported, unrelated)
            out.append(ModelCheck(e, n, c, p, units, cut))
        return out

    def _pair(self, claim: str, texts: Sequence[str]) -> tuple[str, str, tuple[int, ...], bool]:
        """The (premise, hypothesis) sent for a claim, the units in the premise and whether
        words had to be cut to fit the model's length (a claim longer than half of it is cut
        to that half)."""
        half = int(self.model.max_length) // 2
        hypothesis = claim if self.model.count_tokens(claim) <= half else _cut_to(claim, half, self.model.count_tokens)
        premise, units, cut = self._premise(hypothesis, texts)
        return premise, hypothesis, units, cut or hypothesis != claim

    def _premise(self, claim: str, texts: Sequence[str]) -> tuple[str, tuple[int, ...], bool]:
        """The premise text, the units in it and whether evidence had to be cut to fit."""
        units = _ranked_premise(claim, texts, PREMISE_WORDS)
        budget = int(self.model.max_length) - self.model.count_tokens(claim) - 3
        kept: list[int] = []
        for i in units:  # best first: a unit that does not fit leaves room for a shorter one
            trial = " ".join(texts[j] for j in sorted([*kept, i]))
            if self.model.count_tokens(trial) <= budget:
                kept.append(i)
        if kept:
            cut = len(kept) < len(units)
            return " ".join(texts[j] for j in sorted(kept)), tuple(sorted(kept)), cut
        best = units[0]
        return _cut_to(texts[best], budget, self.model.count_tokens), (best,), True


def _cut_to(text: str, budget: int, count: Callable[[str], int]) -> str:
    """The longest word prefix of ``text`` within ``budget`` tokens (binary search on words)."""
    words = text.split()
    lo, hi = 0, len(words)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(" ".join(words[:mid])) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return " ".join(words[:lo])

"""The records of a claim's judgement: :class:`Comparison` (one claim against one evidence
sentence or unit, as a judge returns it) and :class:`ClaimDecision` (the claim's verdict, made by
:func:`director_fast.verify.claim_verdict.decide`), with the order of verdicts from worst to
best. Records only; the judges are in :mod:`director_fast.verify.judges`, the rules in
``rules_*.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from director_fast.safety.halt_evidence import EvidenceChunk


@dataclass(frozen=True, slots=True)
class Comparison:
    """One (claim, evidence unit) comparison.

    Attributes:
        verdict: ``"supported"``, ``"contradicted"`` or ``"not_found"``.
        strength: how strongly the evidence backs that verdict, in [0, 1] (lexical: coverage for
            supported, 0.5 + 0.5 * alignment for contradicted (a mismatch against a unit about the
            same thing is at least even odds), coverage for not_found; model: the probability of
            the verdict's class).
        signal: the deciding signal (``coverage``, ``number``, ``unit``, ``entity``, ``negation``,
            ``antonym``, ``entailment``, ``contradiction``, ``neutral``).
    """

    verdict: str
    strength: float
    signal: str
@dataclass(frozen=True, slots=True)
class ClaimDecision:
    """The verdict on one claim.

    Attributes:
        verdict, strength, signal: as in :class:`Comparison`; ``signal`` is also ``exception``
            (a dropped exception), ``no_evidence`` (nothing to compare with) or
            ``unknown_tenant``.
        unit_index: index of the deciding unit among the compared ones (-1: none).
        comparisons: number of comparisons made for the claim.
    """

    verdict: str
    strength: float
    signal: str
    unit_index: int = -1
    comparisons: int = 0
_HAS_NUMBER = re.compile(r"\d")
_NO_CHUNK = EvidenceChunk(text="", distance=0.0)
#: verdicts from worst to best: the worse one counts where several are combined (the sentences of
#: one comparison; a bare "Yes!" to several questions)
VERDICT_ORDER = {"contradicted": 0, "not_found": 1, "supported": 2}
def _rank(c: Comparison) -> int:
    """Order of badness inside one comparison's sentences: contradicted < not_found < supported."""
    return VERDICT_ORDER[c.verdict]


#: a support weaker than this (lexical: coverage) yields to a stronger single-sentence negation or
#: antonym ("The shop opens on Sundays." is covered 2/3 by "The shop opens at 08:30 from Monday
#: to Saturday." and negated by "On Sundays the shop is closed.").
PARTIAL_SUPPORT = 0.75

"""director-ai's import path ``director_ai.core.scorer``: the claim-level scorer.

A re-export only; the implementation lives in :mod:`director_fast.verify.scorer`.
"""

from director_fast.verify.scorer import (  # noqa: F401
    CoherenceScorer,
    SentenceScore,
    declarative_part,
)

__all__ = [
    "CoherenceScorer",
    "SentenceScore",
    "declarative_part",
]

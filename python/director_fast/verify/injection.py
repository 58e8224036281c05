"""Intent-grounded prompt-injection detection: did the response follow an instruction that was
slipped into its inputs? See :mod:`director_fast.verify.injection_core` for the two stages and the
scores, and docs/injection.md.
"""

from __future__ import annotations

from typing import Any

from director_fast.verify.scorer import CoherenceScorer
from director_fast.verify.injection_core import (
    FlaggedSegment,
    InjectionEngine,
    InputSanitizer,
    SanitizerReport,
    detect_language,
)

__all__ = ["InjectionDetector", "InputSanitizer", "SanitizerReport", "FlaggedSegment", "detect_language"]


class InjectionDetector(InjectionEngine):
    """Intent-grounded injection detection: stage 1 scores the inputs (the user's message,
    retrieved documents, tool outputs) for injection phrasings; stage 2 checks the response's
    claims against the user's intent and the evidence (see :mod:`director_fast.verify.injection_core`).

    Args:
        nli_scorer: the NLI backend for intent <-> claim divergences and for the claim-level
            evidence verdicts: a :class:`~director_fast.verify.nli.LexicalNLI` (default), an
            :class:`~director_fast.verify.nli.NLIModel`, or any object with ``score(premise, hypothesis)
            -> divergence in [0, 1]``.
        sanitizer: stage 1: an :class:`InputSanitizer` (default), an object with
            ``scan(sources) -> SanitizerReport``, or a callable / object with ``score(text)``
            returning a score in [0, 1] (applied per sentence; sentences scoring >= 0.5 are
            flagged).
        injection_threshold: ``injection_detected = combined_score > injection_threshold``
            (default 0.7).
        drift_threshold: a claim not grounded otherwise is ``drifted`` only when its
            ``bidirectional_divergence`` exceeds this (default 0.6); in between it counts as
            grounded with low confidence.
        injection_claim_threshold: injection confidence from which a claim is ``injected``
            (default 0.75).
        baseline_divergence: a claim whose ``bidirectional_divergence`` is at most this is grounded
            by the intent (default 0.4).
        stage1_weight: weight in [0, 1] of the stage-1 score in ``combined_score`` (default 0.3).
        scorer: the :class:`~director_fast.verify.scorer.CoherenceScorer` for the claim-level
            evidence verdicts (default: one over ``nli_scorer`` without knowledge, created on first
            use; pass one with a knowledge base to ground claims in it too).

    Raises:
        ConfigError: a parameter out of range or of the wrong kind (``.field`` names it).

    Thread-safety: safe to share between threads: the configuration is immutable after
    construction, the default scorer is created once under a lock, scorers and backends are
    thread-safe, and a call keeps its state on the stack.
    """

    @property
    def scorer(self) -> Any:
        """The claim-level scorer used for evidence verdicts (created on first use)."""
        if self._scorer is None:
            with self._lock:
                if self._scorer is None:
                    self._scorer = CoherenceScorer(nli=self.nli_scorer)
        return self._scorer

"""Build the :class:`~director_fast.types.explanation.Explanation` of a verdict.

* :func:`explain` -- of a :class:`~director_fast.types.results.CoherenceScore` (``review`` /
  ``score``): its claim attributions (claim, verdict, signal, deciding evidence sentence, the
  model's probability) become :class:`~director_fast.types.explanation.ClaimExplanation` s with a
  cause and a suggestion each (:func:`claim_cause`).
* :func:`explain_halt` -- of a halted stream (a :class:`~director_fast.stream.kernel.StreamSession`
  or anything with its ``halted``, ``halt_reason``, ``halt_claim`` and
  ``halt_evidence_structured`` attributes).
* :func:`rejection_error` -- the :class:`~director_fast.errors.HallucinationError` of a rejected
  response, its message built from the explanation.

Thread-safety: pure functions; call from any thread.
"""

from __future__ import annotations

from typing import Any

from director_fast.errors import HallucinationError
from director_fast.types.explanation import SUGGESTIONS, ClaimExplanation, Explanation
from director_fast.types.results import ClaimAttribution, CoherenceScore

__all__ = ["explain", "explain_halt", "claim_cause", "halt_cause", "suggestion_for", "rejection_error",
           "deciding_sentence", "NUMBER_SIGNALS"]

#: signals of a contradicted number (cause ``contradicted_number``).
NUMBER_SIGNALS = frozenset({"number", "unit"})

# a halt reason that no claim explains -> its cause
_HALT_CAUSES = {
    "scorer_error": "scorer_error",
    "callback_timeout": "scorer_error",
    "upstream_error": "upstream_error",
    "kernel_inactive": "guard_off",
}
_RANK = {"contradicted": 0, "not_found": 1, "": 2, "supported": 3}


def suggestion_for(cause: str) -> str:
    """The advice for ``cause`` (:data:`~director_fast.types.explanation.SUGGESTIONS`; ``""`` for
    an unknown or empty cause)."""
    return SUGGESTIONS.get(cause, "")


def claim_cause(verdict: str, signal: str, *, model_judged: bool = False,
                evidence_truncated: bool | None = None) -> str:
    """The cause of one claim's verdict (``""`` for ``supported``):

    * ``contradicted`` with signal ``number`` / ``unit`` -> ``contradicted_number``, other
      contradictions -> ``contradicted_fact``;
    * ``not_found`` with signal ``unknown_tenant`` / ``no_evidence`` / ``not_english`` -> that cause (:func:`explain`
      reads ``no_evidence`` as ``missing_fact`` when the call had other evidence); ``too_long``
      (the pair did not fit the model) -> ``evidence_cut``, as is a ``not_found`` the model gave
      while some evidence was cut (``model_judged`` and ``evidence_truncated``); else
      ``missing_fact``.
    """
    if verdict == "supported":
        return ""
    if verdict == "contradicted":
        return "contradicted_number" if signal in NUMBER_SIGNALS else "contradicted_fact"
    if signal in ("unknown_tenant", "no_evidence", "not_english"):
        return signal
    if signal == "too_long" or (model_judged and evidence_truncated):
        return "evidence_cut"
    return "missing_fact"


def _source_of(sentence: str, chunks: Any) -> str:
    """The label of the first chunk whose text holds ``sentence`` (``""`` when none does)."""
    if not sentence:
        return ""
    for c in chunks or ():
        if sentence in getattr(c, "text", ""):
            return str(getattr(c, "source", "") or "")
    return ""


def deciding_sentence(claim: str, unit: str) -> str:
    """The sentence of an evidence unit that a person should read for ``claim``: the unit itself
    when it is one sentence, else its sentence sharing the most content words with the claim
    (the first of equals). The verdict was made on the whole unit; this only picks what to show."""
    from director_fast.verify.claim_evidence import most_about
    from director_fast.verify.text import split_sentences

    spans = split_sentences(unit) if unit else []
    if len(spans) <= 1:
        return unit
    sentences = [unit[a:b] for a, b in spans]
    return sentences[most_about(claim, sentences)].strip()


def _claim(a: ClaimAttribution, chunks: Any, truncated: bool | None, index: int | None = None,
           nothing: bool = True) -> ClaimExplanation:
    cause = claim_cause(a.verdict, a.signal, model_judged=a.probability is not None, evidence_truncated=truncated)
    if cause == "no_evidence" and not nothing:  # the call had evidence, none of it about this claim
        cause = "missing_fact"
    sentence = deciding_sentence(a.claim, a.source_sentence)
    return ClaimExplanation(
        claim=a.claim, claim_index=a.claim_index if index is None else index, verdict=a.verdict,
        signal=a.signal, evidence=sentence, source=_source_of(a.source_sentence, chunks),
        passage=a.source_sentence if sentence != a.source_sentence else "",
        cause=cause, suggestion=suggestion_for(cause), probability=a.probability, entailment=a.entailment,
        start=a.start, end=a.end)


def _order(claims: list[tuple[ClaimExplanation, float]]) -> list[ClaimExplanation]:
    """Contradicted first, then by divergence (largest first), then in response order."""
    return [c for c, _d in sorted(claims, key=lambda cd: (_RANK.get(cd[0].verdict, 2), -cd[1], cd[0].claim_index))]


def explain(score: CoherenceScore, *, threshold: float | None = None, approved: bool | None = None,
            evidence_given: bool | None = None) -> Explanation:
    """The explanation of a whole-response verdict.

    Args:
        score: the :class:`CoherenceScore` of ``review`` / ``score``.
        threshold: the scorer's threshold in [0, 1] (shown in the summary), or None.
        approved: the verdict when it differs from ``score.approved`` (``review``'s first
            element); default ``score.approved``.
        evidence_given: whether the call had any evidence (knowledge or context). A claim with
            no evidence unit about it (signal ``no_evidence``) is ``missing_fact`` when it did,
            ``no_evidence`` when it did not; None (default): ``no_evidence`` only when nothing
            at all was retrieved for any claim.

    Returns:
        :class:`Explanation`: failing claims (every claim not ``supported``) with cause,
        suggestion, deciding evidence sentence and its chunk's source label; the supported ones
        in ``supported``; the cause of the verdict: the deciding claim's, else ``strict_mode``
        (``strict_mode_rejected``), ``injection`` (rejected with no failing claim and an
        ``injection_risk``), ``below_threshold`` (rejected with nothing else to blame), or ``""``.

    A third-party scorer's result (any object with ``score`` and ``approved``) is explained
    from what it has: its ``attributions`` that are :class:`ClaimAttribution` s, else only the
    verdict's cause.

    Raises:
        InputTypeError: ``score`` has no numeric ``score``.
    """
    value = getattr(score, "score", None)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        from director_fast.errors import InputTypeError

        raise InputTypeError(f"score must be a CoherenceScore, got {type(score).__name__}", "score")
    ok = bool(getattr(score, "approved", False)) if approved is None else bool(approved)
    ev = getattr(score, "evidence", None)
    chunks = getattr(ev, "chunks", None) or ()
    truncated = getattr(ev, "evidence_truncated", None)
    if not isinstance(truncated, bool):
        truncated = None
    atts = [a for a in (getattr(score, "attributions", None) or ()) if isinstance(a, ClaimAttribution)]
    nothing = (not evidence_given) if evidence_given is not None else (
        not chunks and all(a.signal == "no_evidence" for a in atts if a.verdict != "supported"))
    failing, supported = [], []
    for a in atts:
        c = _claim(a, chunks, truncated, nothing=nothing)
        if a.verdict == "supported":
            supported.append(c)
        else:
            failing.append((c, a.divergence))
    ordered = _order(failing)
    cause = ordered[0].cause if ordered else ""
    if not ok and not cause:
        risk = getattr(score, "injection_risk", None)
        cause = ("strict_mode" if getattr(score, "strict_mode_rejected", False) is True else
                 "injection" if isinstance(risk, (int, float)) and risk > 0.0 else
                 "below_threshold")
    return Explanation(approved=ok, score=_unit_or_none(value), threshold=_unit_or_none(threshold), cause=cause,
                       suggestion=suggestion_for(cause), failing=ordered, claims=len(atts),
                       supported=supported, evidence_truncated=truncated)


def _unit_or_none(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if 0.0 <= v <= 1.0 else None


def halt_cause(reason: str, claim: Any = None) -> str:
    """The cause of a stream halt: the halting claim's (:func:`claim_cause`) when the scorer
    named one, else that of the reason (``scorer_error`` / ``callback_timeout`` ->
    ``scorer_error``, ``upstream_error``, ``kernel_inactive`` -> ``guard_off``, a window or
    trend halt -> ``below_threshold``)."""
    reason = str(reason)
    if reason in _HALT_CAUSES:
        return _HALT_CAUSES[reason]
    if isinstance(claim, ClaimAttribution) and claim.verdict != "supported":
        return claim_cause(claim.verdict, claim.signal, model_judged=claim.probability is not None)
    return "below_threshold"


def explain_halt(session: Any, *, threshold: float | None = None) -> Explanation | None:
    """The explanation of a halted stream (None when ``session`` did not halt).

    The failing claim is ``session.halt_claim`` (the claim that halted it, numbered among the
    claims of the whole streamed text) with the source label of its evidence chunk; the cause
    follows :func:`halt_cause`; the suggestion is the halt's own ``suggested_action`` (the
    cause's suggestion when a claim or a failure explains the halt; a plain scorer's window or
    trend halt keeps the reason's advice); ``score`` is the score that halted it and
    ``threshold`` the halt's threshold unless given.
    """
    if not getattr(session, "halted", False):
        return None
    reason = str(getattr(session, "halt_reason", "") or "")
    claim = getattr(session, "halt_claim", None)
    ev = getattr(session, "halt_evidence_structured", None)
    chunks = getattr(ev, "evidence_chunks", ()) if ev is not None else ()
    cause = halt_cause(reason, claim)
    failing = []
    if isinstance(claim, ClaimAttribution) and claim.verdict != "supported" and reason not in _HALT_CAUSES:
        failing.append(_claim(claim, chunks, None))
    score = getattr(ev, "last_score", None) if ev is not None and reason not in _HALT_CAUSES else None
    trace = getattr(ev, "trace_attribution", None) if ev is not None else None
    if threshold is None and trace is not None:
        threshold = getattr(trace, "threshold", None)
    # the halt's own advice when it has one (the same text its SafetyEvent carries)
    advice = getattr(ev, "suggested_action", "") if ev is not None else ""
    return Explanation(approved=False, score=_unit_or_none(score), threshold=_unit_or_none(threshold),
                       cause=cause, suggestion=advice or suggestion_for(cause), failing=failing,
                       claims=len(failing), halt_reason=reason[:64])


def rejection_error(score: CoherenceScore | None, *, threshold: float | None = None, response: Any = None,
                    tool_reports: dict[str, Any] | None = None, problems: tuple[str, ...] = (),
                    prefix: str = "response", explanation: Explanation | None = None) -> HallucinationError:
    """The :class:`HallucinationError` of a rejected response: its message names the verdict,
    the deciding claim with its verdict, signal and evidence, the other failing claims (up to
    three) and the suggestion; ``explanation`` is the one given, else :func:`explain` of
    ``score`` (None when neither is given); ``problems`` are further reasons appended to the
    message (a held tool call)."""
    exp = explanation if explanation is not None else (
        explain(score, threshold=threshold) if score is not None else None)
    parts = [f"{prefix} {exp.message()}"] if exp is not None and not exp.approved else []
    parts += list(problems)
    return HallucinationError("; ".join(parts) or f"{prefix} rejected", score=score, response=response,
                              tool_reports=tool_reports, explanation=exp)

"""Counterfactual halt diagnostic: "what single evidence fact change would have prevented this
halt?", answered by re-scoring and replaying, never by guessing.

On a halt of :func:`director_fast.stream.stream_guard` whose scorer is a
:class:`~director_fast.CoherenceScorer` and whose halting sentence was decided by evidence, the
guard builds a :class:`~director_fast.CounterfactualHaltDiagnostic` eagerly (the halt evidence
is frozen) and stores it in ``HaltEvidence.counterfactual_diagnostic``:

1. **Candidates.** For each claim of the halting sentence that its deciding evidence unit
   contradicts (worst first; at most :data:`MAX_CANDIDATES` distinct facts), the fact is edited
   minimally (:func:`minimal_edit`): only the mismatched span is replaced by what the claim says --
   the number (and its unit) for the ``number`` / ``unit`` signals, the name for ``entity``, the
   negation for ``negation``, the two names for ``roles``, the one differing word for
   ``antonym``. A claim that no evidence contradicts (``not_found``) or a mismatch of another
   kind (a dropped exception) gives no candidate.
2. **Re-score.** The halting sentence is scored again with the same prompt, previous sentence,
   tenant and call context, with the edited fact in place of the original one inside its chunk
   (the same tenant-scoped retrieval; only that chunk's text differs; the verdict cache is
   bypassed).
3. **Replay.** The scores the kernel consumed before the sentence, then the sentence's tokens at
   the branch score, are replayed through a fresh kernel with the stream's configuration
   (:func:`director_fast.replay`). ``prevented_halt`` is True when that replay does not halt.
4. ``required_score_delta`` is the smallest uniform rise of the halting sentence's score that
   makes the same replay not halt (bisection to 1e-6, rounded up); when even a score of 1.0 would
   not prevent it (the window mean is held down by earlier sentences), it is ``1 - score`` and no
   branch prevents the halt. ``best_change`` is the first candidate that prevents it.

Cost: at most :data:`MAX_CANDIDATES` sentence re-scorings plus about 25 kernel replays of the
stream's scored prefix (C++, microseconds per thousand tokens); measured in bench/RESULTS.md
(section "counterfactual halt diagnostic").

Tenant safety: candidates only edit facts the tenant's own retrieval returned for this sentence.
The diagnostic (which holds fact text) lives in the halt evidence; the SafetyEvent carries only
the attribute ``counterfactual`` (``prevented`` / ``not_prevented`` / ``no_candidate``).

Thread safety: pure functions; the branch scorer is a shallow copy that shares the original
scorer's thread-safe backends and caches.
"""

from __future__ import annotations

import copy
import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from director_fast.verify.rules_roles import capitalised_names
from director_fast.safety.halt_evidence import (
    CounterfactualFactChange,
    CounterfactualHaltDiagnostic,
    EvidenceChunk,
)
from director_fast.stream.halt import HaltConfig, replay
from director_fast.verify.number_alignment import align_numbers, evidence_numbers
from director_fast.verify.numbers import find_numbers, same_value
from director_fast.verify.text import content_words

__all__ = ["MAX_CANDIDATES", "QUESTION", "minimal_edit", "diagnose_halt", "required_delta"]

logger = logging.getLogger("director_fast.counterfactual")

#: evidence facts tried per halt
MAX_CANDIDATES = 3
#: the diagnostic question every diagnostic answers
QUESTION = "What single evidence fact change would have prevented this halt?"

_NEGATED = re.compile(r"\b(?:(can)not|(\w+)n['’]t|not|never|no)\b\s*", re.IGNORECASE)
_IRREGULAR_NT = {"wo": "will", "ca": "can", "sha": "shall", "ai": "is"}
_AUX = frozenset("is are was were be been do does did can could will would shall should may might must has "
                 "have had".split())
_NEGATOR_WORDS = frozenset({"not", "never", "no", "cannot"})


def _has_negation(text: str) -> bool:
    return _NEGATED.search(text) is not None


def _drop_negation(fact: str) -> str | None:
    m = _NEGATED.search(fact)
    if m is None:
        return None
    if m.group(1):  # "cannot" -> "can"
        return fact[:m.start()] + m.group(1) + fact[m.end() - len(m.group(0)) + len("cannot"):]
    if m.group(2):  # "doesn't" -> "does", "won't" -> "will"
        stem = m.group(2)
        word = _IRREGULAR_NT.get(stem.lower(), stem)
        if stem[:1].isupper():
            word = word[:1].upper() + word[1:]
        return fact[:m.start()] + word + fact[m.start() + len(stem) + 3:]
    rest = fact[m.end():]
    if m.start() == 0 and rest:
        rest = rest[:1].upper() + rest[1:]
    return fact[:m.start()] + rest


def _add_negation(fact: str, claim: str) -> str | None:
    """Insert "not" after the auxiliary that the claim negates ("is not" -> "is not")."""
    m = _NEGATED.search(claim)
    if m is None:
        return None
    if m.group(2):
        aux = m.group(2).lower()
        aux = _IRREGULAR_NT.get(aux, aux)
    else:
        before = claim[:m.start()].split()
        aux = before[-1].lower() if before else ""
    if aux not in _AUX:
        return None
    a = re.search(rf"\b{re.escape(aux)}\b", fact, re.IGNORECASE)
    if a is None:
        return None
    return fact[:a.end()] + " not" + fact[a.end():]


def _edit_numbers(fact: str, claim: str) -> str | None:
    mentions = find_numbers(claim)
    if not mentions:
        return None
    pool = evidence_numbers([fact])
    edits = []
    for m, al in zip(mentions, align_numbers(claim, mentions, pool, other_units=True)):
        if al.kind == "conflict" and al.evidence is not None:
            edits.append((al.evidence.mention.start, al.evidence.mention.end, m.surface))
    if not edits:  # one number each that the other lacks
        own = [e for e in pool if not any(_same(e.mention, m) for m in mentions)]
        theirs = [m for m in mentions if not any(_same(e.mention, m) for e in pool)]
        if len(own) == 1 and len(theirs) == 1:
            edits = [(own[0].mention.start, own[0].mention.end, theirs[0].surface)]
    if not edits:
        return None
    out, last = [], 0
    for start, end, surface in sorted(set(edits)):
        if start < last:
            continue
        out += [fact[last:start], surface]
        last = end
    return "".join(out) + fact[last:]


def _same(a: Any, b: Any) -> bool:
    return a.base_unit == b.base_unit and same_value(a.quantity, b.quantity)


def _name_spans(text: str) -> list[tuple[str, int, int]]:
    # a capitalised first word alone is no name of its own ("Refunds take ...")
    return [(n, a, b) for n, a, b in capitalised_names(text) if a > 0 or " " in n]


def _edit_entity(fact: str, claim: str) -> str | None:
    fact_l, claim_l = fact.lower(), claim.lower()
    missing = [(n, a, b) for n, a, b in _name_spans(claim) if n not in fact_l]
    other = [(n, a, b) for n, a, b in _name_spans(fact) if n not in claim_l]
    if not missing or not other:
        return None
    _n, a, b = other[0]
    _m, ca, cb = missing[0]
    return fact[:a] + claim[ca:cb] + fact[b:]


def _edit_roles(fact: str, claim: str) -> str | None:
    claim_l = claim.lower()
    shared = [(n, a, b) for n, a, b in _name_spans(fact) if n in claim_l]
    if len(shared) < 2:
        return None
    (n1, a1, b1), (n2, a2, b2) = shared[0], shared[1]
    if claim_l.find(n1) < claim_l.find(n2):
        return None  # same order in the claim: not a swap
    return fact[:a1] + fact[a2:b2] + fact[b1:a2] + fact[a1:b1] + fact[b2:]


def _edit_word(fact: str, claim: str) -> str | None:
    own = content_words(fact) - content_words(claim)
    theirs = content_words(claim) - content_words(fact)
    if len(own) != 1 or len(theirs) != 1:
        return None
    word, new = next(iter(own)), next(iter(theirs))
    m = re.search(rf"\b{re.escape(word)}s?\b", fact, re.IGNORECASE)
    c = re.search(rf"\b{re.escape(new)}\w*", claim, re.IGNORECASE)
    if m is None or c is None:
        return None
    return fact[:m.start()] + c.group(0) + fact[m.end():]


def minimal_edit(fact: str, claim: str, signal: str) -> str | None:
    """``fact`` with only the span that contradicts ``claim`` replaced by what the claim says,
    for the deciding ``signal`` of a contradicted claim; None when no such single edit is found.

    * ``number`` / ``unit``: each evidence number aligned with a claim number that states another
      quantity (:func:`director_fast.verify.number_alignment.align_numbers`) takes the claim's number as
      written ("costs NOK 450" -> "costs NOK 550"); failing that, the one number of the fact the
      claim lacks takes the one number of the claim the fact lacks.
    * ``entity``: the first name of the fact missing from the claim takes the first name of the
      claim missing from the fact ("led by Margaret Ennis" -> "led by Dana Okafor").
    * ``negation``: a negation of the fact is dropped ("is not included" -> "is included",
      "doesn't" -> "does"), or the claim's negated auxiliary gets its "not" in the fact.
    * ``roles``: the first two names the fact shares with the claim swap places.
    * ``antonym``: the one content word of the fact the claim lacks takes the one the claim has.

    Args:
        fact: the evidence unit (one sentence or clause).
        claim: the claim it contradicts.
        signal: :attr:`director_fast.types.results.ClaimAttribution.signal`.

    Returns:
        The edited fact (never equal to ``fact``), or None.
    """
    if signal in ("number", "unit"):
        out = _edit_numbers(fact, claim)
    elif signal == "entity":
        out = _edit_entity(fact, claim)
    elif signal == "negation":
        if _has_negation(fact) and not _has_negation(claim):
            out = _drop_negation(fact)
        elif _has_negation(claim) and not _has_negation(fact):
            out = _add_negation(fact, claim)
        else:
            out = None
    elif signal == "roles":
        out = _edit_roles(fact, claim)
    elif signal == "antonym":
        out = _edit_word(fact, claim)
    else:
        out = None
    return out if out is not None and out != fact else None


class _BranchAccess:
    """A knowledge access whose chunks read with one fact replaced (all else delegated). Its
    ``version`` is None, so the scorer never serves or stores a cached verdict through it."""

    def __init__(self, inner: Any, replacements: Mapping[str, str]) -> None:
        self._inner = inner
        self._replacements = dict(replacements)

    version = None

    def retrieve(self, query: str, tenant_id: str, k: int) -> list[tuple[str, EvidenceChunk]]:
        out = []
        for ref, chunk in self._inner.retrieve(query, tenant_id, k):
            text = self._replacements.get(chunk.text)
            out.append((ref, replace(chunk, text=text) if text is not None else chunk))
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _branch_context(context: Any, replacements: Mapping[str, str]) -> Any:
    if isinstance(context, str):
        return replacements.get(context, context)
    if isinstance(context, (list, tuple)):
        return type(context)(replacements.get(c, c) if isinstance(c, str) else c for c in context)
    return context


def _halts(prefix: np.ndarray, ends_prefix: bytes, n: int, score: float, ends_tail: bytes,
           config: HaltConfig) -> bool:
    scores = np.empty(len(prefix) + n, dtype=np.float64)
    scores[:len(prefix)] = prefix
    scores[len(prefix):] = score
    ends = np.frombuffer(ends_prefix + ends_tail, dtype=np.uint8) if config.halt_mode == "soft" else None
    return replay(scores, ends, config).halted


def _replay_config(config: HaltConfig) -> HaltConfig:
    # the incremental path feeds every token as scored: the cadence never applies
    return replace(config, score_every_n=1, adaptive=False)


def required_delta(prefix: Sequence[float], n: int, score: float, config: HaltConfig,
                   ends_prefix: bytes = b"", ends_tail: bytes = b"") -> tuple[float, bool]:
    """Smallest uniform rise of the last sentence's score (its ``n`` tokens, after the kernel
    consumed ``prefix``) that makes a replay through ``config`` not halt: ``(delta, reachable)``.
    ``delta`` is rounded up to 1e-6; when even 1.0 halts, ``(1 - score, False)``.

    ``ends_prefix`` / ``ends_tail``: sentence-end flags (one byte per token) for soft halts."""
    cfg = _replay_config(config)
    pre = np.asarray(prefix, dtype=np.float64)
    if not _halts(pre, ends_prefix, n, score, ends_tail, cfg):
        return 0.0, True
    if _halts(pre, ends_prefix, n, 1.0, ends_tail, cfg):
        return max(0.0, 1.0 - score), False
    # the usual case, a hard-limit halt: the score has to reach the limit, nothing more
    guess = math.ceil((cfg.hard_limit - score) * 1e6) / 1e6
    if 0.0 < guess <= 1.0 - score and not _halts(pre, ends_prefix, n, score + guess, ends_tail, cfg) \
            and _halts(pre, ends_prefix, n, score + guess - 1e-6, ends_tail, cfg):
        return guess, True
    lo, hi = score, 1.0
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2.0
        if _halts(pre, ends_prefix, n, mid, ends_tail, cfg):
            lo = mid
        else:
            hi = mid
    return min(1.0 - score, math.ceil((hi - score) * 1e6) / 1e6), True


def _chunk_of(fact: str, chunks: Sequence[EvidenceChunk]) -> EvidenceChunk | None:
    return next((c for c in chunks if fact and fact in c.text), None)


def diagnose_halt(scorer: Any, *, sentence: str, previous: str, call_kwargs: Mapping[str, Any],
                  result: Any, prefix: Sequence[float], n_tokens: int, config: HaltConfig,
                  observed_score: float, threshold: float, ends_prefix: bytes = b"",
                  ends_tail: bytes = b"") -> CounterfactualHaltDiagnostic | None:
    """The counterfactual diagnostic of one halt (module docstring), or None when the scorer is
    not a :class:`~director_fast.CoherenceScorer` or the sentence was judged without evidence.

    Args:
        scorer: the stream's scorer.
        sentence, previous: the halting sentence and the sentence before it, as scored.
        call_kwargs: the other keyword arguments of the original ``score_sentence`` call
            (``prompt``, ``tenant_id``, ``context``, ...).
        result: the halting sentence's result (``attributions``, ``evidence``, ``score``).
        prefix: the scores the kernel consumed before the sentence, in kernel order.
        n_tokens: the sentence's tokens.
        config: the stream's halt configuration.
        observed_score, threshold: the score and limit reported at the halt (each in [0, 1]).
        ends_prefix, ends_tail: sentence-end flags for soft halts (one byte per token).
    """
    from director_fast.verify.scorer import CoherenceScorer

    if not isinstance(scorer, CoherenceScorer) or not getattr(result, "evidence", ()):
        return None
    score = float(result.score)
    delta, reachable = required_delta(prefix, n_tokens, score, config, ends_prefix, ends_tail)
    attributions = sorted((a for a in getattr(result, "attributions", ()) if a.verdict == "contradicted"),
                          key=lambda a: -a.divergence)
    cfg = _replay_config(config)
    pre = np.asarray(prefix, dtype=np.float64)
    candidates: list[CounterfactualFactChange] = []
    seen: set[str] = set()
    for a in attributions:
        if len(candidates) >= MAX_CANDIDATES:
            break
        fact = a.source_sentence
        if not fact or fact in seen:
            continue
        chunk = _chunk_of(fact, result.evidence)
        proposed = minimal_edit(fact, a.claim, a.signal)
        if chunk is None or proposed is None:
            continue
        seen.add(fact)
        replacements = {chunk.text: chunk.text.replace(fact, proposed, 1)}
        branch = copy.copy(scorer)
        branch._access = _BranchAccess(scorer._access, replacements)
        kwargs = dict(call_kwargs)
        if "context" in kwargs:
            kwargs["context"] = _branch_context(kwargs["context"], replacements)
        branch_score = float(branch.score_sentence(sentence, previous=previous, **kwargs).score)
        prevented = reachable and not _halts(pre, ends_prefix, n_tokens, branch_score, ends_tail, cfg)
        candidates.append(CounterfactualFactChange(
            fact_source=chunk.source or "", original_fact=fact, proposed_fact=proposed,
            required_score_delta=delta, prevented_halt=prevented))
    best = next((c for c in candidates if c.prevented_halt), None)
    return CounterfactualHaltDiagnostic(
        question=QUESTION, observed_score=observed_score, threshold=threshold, best_change=best,
        candidates=candidates, explanation=_explain(candidates, delta, reachable))


def _explain(candidates: Sequence[CounterfactualFactChange], delta: float, reachable: bool) -> str:
    """Operator-facing summary without any fact text."""
    if not candidates:
        head = "No single evidence fact edit was found for the contradicted claims."
    else:
        k = sum(c.prevented_halt for c in candidates)
        head = f"{k} of {len(candidates)} single-fact branch(es) would have prevented the halt."
    if reachable:
        return f"{head} The halting sentence's score had to rise by {delta:.4f}."
    return f"{head} Earlier sentences alone keep the stream below its limit."

"""The explanation of a verdict: which claims failed, why, on what evidence, and what to do.

One record, :class:`Explanation`, is built from a verdict (a
:class:`~director_fast.types.results.CoherenceScore`, or a halted stream's record) by
:func:`director_fast.verify.explain.explain` / :func:`~director_fast.verify.explain.explain_halt`
and shown the same way wherever a user meets the verdict: the ``explanation`` field of the
``director-fast guard`` / ``review`` / ``stream`` JSON records, the text of ``director-fast stream``
and ``review``, :class:`~director_fast.errors.HallucinationError` (message and ``explanation``
attribute), the ``director_explanation`` metadata of a guarded client's responses, and -- as
references only (claim index, verdict, signal, cause, SHA-256 digests of the claim and of the
evidence sentence; never their text) -- the attributes of a halt's SafetyEvent
(:meth:`Explanation.references`).

Causes (:data:`CAUSES`) and the advice each one gets (:data:`SUGGESTIONS`; every text is
tenant-safe: it names no fact, so it may travel in a SafetyEvent's ``tenant_safe_explanation``):

========================  =========================================================================
cause                     when
========================  =========================================================================
``contradicted_number``   a number (price, count, time, share, unit) of a claim contradicts the
                          evidence about the same thing (signal ``number`` or ``unit``)
``contradicted_fact``     any other contradiction (a name, a negation, an antonym, a role, an
                          exception, the model's ``contradiction``)
``missing_fact``          the evidence holds nothing that supports the claim (``not_found``)
``evidence_cut``          the deciding evidence passage was cut to fit the verifier's input length
                          (signal ``too_long``, or the model judged ``not_found`` on a cut passage)
``no_evidence``           no evidence at all was found for the answer (no knowledge, no context, or
                          nothing in them about any claim)
``unknown_tenant``        the tenant holds no knowledge (``allow_unknown_tenant=True``)
``not_english``           the claim is not in English, which neither the rules nor the model read
                          (signal ``not_english``): it was reported, not judged
``scorer_error``          the scorer failed or missed its deadline (a stream's ``scorer_error`` /
                          ``callback_timeout`` halt)
``upstream_error``        the model's stream failed or ended early
``guard_off``             an operator switched the guard off (``kernel_inactive``)
``strict_mode``           rejected because ``strict_mode`` needs an NLI model and none is loaded
``injection``             rejected by prompt-injection detection
``below_threshold``       rejected by the score alone: no claim failed (a high threshold; the
                          stream's window mean or trend)
========================  =========================================================================

Thread-safety: immutable records; share freely.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from director_fast._fields import F, _Base
from director_fast.errors import ConfigError

__all__ = ["CAUSES", "SUGGESTIONS", "EXPLAIN_LEVELS", "ClaimExplanation", "Explanation", "text_sha256"]

#: advice per cause (tenant-safe: no fact text, no identifiers).
SUGGESTIONS: dict[str, str] = {
    "contradicted_number": "A number in the answer disagrees with the knowledge base about the same thing: "
                           "correct the answer, or update the fact if the knowledge base is out of date.",
    "contradicted_fact": "A claim in the answer contradicts the knowledge base: correct the answer, or update "
                         "the fact if the knowledge base is out of date.",
    "missing_fact": "The knowledge base does not state this claim: add the fact (one fact per sentence) if it "
                    "is true, or have the model answer only from the given facts.",
    "evidence_cut": "The deciding evidence passage was cut to fit the verifier's input length: split long "
                    "documents into shorter passages so each fact fits whole.",
    "no_evidence": "No evidence about the answer was found: pass context= or a knowledge base (facts=, "
                   "store=, --knowledge) that covers the question.",
    "unknown_tenant": "The tenant holds no knowledge: index its documents under that tenant id, or check "
                      "the tenant id of the request.",
    "not_english": "The claim is not in English, which the verifier cannot read: it was not judged. Review "
                   "such answers another way, or pass unsupported='warn' to let them through with a warning.",
    "scorer_error": "The coherence scorer failed or did not answer in time; the answer was stopped (fail "
                    "closed): check the scorer's logs, its deadline (scorer_timeout_s) and its load.",
    "upstream_error": "The model's stream failed or ended early; the partial answer was stopped (fail closed).",
    "guard_off": "The guard was switched off by the operator; the stream was refused.",
    "strict_mode": "strict_mode needs an NLI model and none is loaded: load one (use_nli=True) or turn "
                   "strict_mode off.",
    "injection": "The answer follows instructions injected into the evidence rather than the user's request: "
                 "review the evidence sources.",
    "below_threshold": "No single claim failed but the score is below the threshold: check the threshold "
                       "(director-fast tune) or the answer's weakest sentences.",
}

#: every cause an explanation may name.
CAUSES = frozenset(SUGGESTIONS)

#: detail levels of the rendered explanation (CLI ``--explain``): ``none`` (no explanation
#: field), ``failing`` (the failing claims; the default) and ``all`` (every judged claim).
EXPLAIN_LEVELS = ("none", "failing", "all")

_CODE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")  # a value fit for a SafetyEvent attribute
_VERDICTS = frozenset({"supported", "contradicted", "not_found", ""})
_UNIT = {"lo": 0.0, "hi": 1.0}


def text_sha256(text: str) -> str:
    """SHA-256 (lower-case hex, 64 digits) of ``text`` encoded as UTF-8 (lone surrogates escaped):
    the reference a SafetyEvent carries instead of a claim's or an evidence sentence's text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _quote(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return '"' + (text if len(text) <= limit else text[: limit - 3] + "...") + '"'


@dataclass(frozen=True, slots=True)
class ClaimExplanation(_Base):
    """Why one claim got its verdict.

    Attributes:
        claim: the claim's text; claim_index: its index among the response's factual claims
            (>= 0; in a stream, among the claims of the whole streamed text).
        verdict: ``"supported"``, ``"contradicted"`` or ``"not_found"`` (``""``: no claim, e.g. a
            scorer error).
        signal: what decided the verdict (``"number"``, ``"entity"``, ``"negation"``,
            ``"coverage"``, ``"contradiction"`` when the verifier's model decided, ...).
        evidence: the deciding evidence sentence (``""``: none was found): the sentence of the
            deciding evidence unit that shares the most words with the claim.
        source: the label of the evidence chunk that holds it (a knowledge-base document's
            ``source``, ``"context:<i>"`` for the i-th context item; ``""``: unknown).
        passage: the whole evidence unit the verdict was made on, when it is longer than
            ``evidence`` (several sentences); ``""`` otherwise.
        cause: one of :data:`CAUSES` (``""`` for a supported claim).
        suggestion: :data:`SUGGESTIONS` of the cause (``""`` for a supported claim).
        probability: the verifier model's calibrated probability that the claim is supported,
            in [0, 1]; None when a rule decided or no model is loaded.
        entailment: the model's P(entailment), in [0, 1], or None.
        start, end: code-point span of the claim in the response (-1 when unknown); in a
            stream's halt explanation, in the sentence that halted it.
    """

    claim: str
    claim_index: int
    verdict: str
    signal: str
    evidence: str = ""
    source: str = ""
    cause: str = ""
    suggestion: str = ""
    probability: float | None = None
    entailment: float | None = None
    start: int = -1
    end: int = -1
    passage: str = ""

    _SPEC = (
        F("claim", "str"), F("claim_index", "int", lo=0), F("verdict", "str", choices=_VERDICTS),
        F("signal", "str", max_len=64), F("evidence", "str"), F("source", "str"),
        F("cause", "str", choices=CAUSES | {""}), F("suggestion", "str"),
        F("probability", "float", optional=True, **_UNIT), F("entailment", "float", optional=True, **_UNIT),
        F("start", "int", lo=-1), F("end", "int", lo=-1), F("passage", "str"),
    )

    def line(self, limit: int = 160) -> str:
        """One line a person reads: ``claim 2 "..." contradicted (number); evidence [source]: "..."``
        (texts shortened to ``limit`` code points)."""
        head = f"claim {self.claim_index} {_quote(self.claim, limit)} {self.verdict or 'not judged'}"
        head += f" ({self.signal})" if self.signal else ""
        if self.probability is not None:
            head += f", model p(supported)={self.probability:.2f}"
        if self.evidence:
            where = f" [{self.source}]" if self.source else ""
            return f"{head}; evidence{where}: {_quote(self.evidence, limit)}"
        return f"{head}; no evidence sentence about it"


@dataclass(frozen=True, slots=True)
class Explanation(_Base):
    """The explanation of one verdict (see the module docstring for where it is shown).

    Attributes:
        approved: the verdict (False for a halted stream).
        score: the response's coherence score in [0, 1] (a stream: the score that halted it),
            or None when no score was made (a scorer error).
        threshold: the approval threshold in [0, 1], or None when unknown.
        cause: the cause of the rejection (:data:`CAUSES`): the first failing claim's, else the
            verdict's own (``strict_mode``, ``scorer_error``, ...); ``""`` when approved with no
            failing claim.
        suggestion: the advice for ``cause`` (:data:`SUGGESTIONS`); ``""`` with no cause.
        failing: the claims that were not supported, contradicted ones first, then by how far
            each fell short (the deciding claim first).
        claims: the number of factual claims judged (>= 0).
        supported: the supported claims (filled only at level ``"all"``; else ``[]``).
        halt_reason: a stream's halt reason (``"hard_limit"``, ``"scorer_error"``, ...), ``""``
            for a whole-response verdict.
        evidence_truncated: True when some evidence was cut to fit the verifier model, False
            when none was, None when no model judged.
    """

    approved: bool
    score: float | None
    threshold: float | None
    cause: str
    suggestion: str
    failing: list[ClaimExplanation] = field(default_factory=list)
    claims: int = 0
    supported: list[ClaimExplanation] = field(default_factory=list)
    halt_reason: str = ""
    evidence_truncated: bool | None = None

    _SPEC = (
        F("approved", "bool"), F("score", "float", optional=True, **_UNIT),
        F("threshold", "float", optional=True, **_UNIT), F("cause", "str", choices=CAUSES | {""}),
        F("suggestion", "str"), F("failing", "lobj", cls=ClaimExplanation), F("claims", "int", lo=0),
        F("supported", "lobj", cls=ClaimExplanation), F("halt_reason", "str", max_len=64),
        F("evidence_truncated", "bool", optional=True),
    )

    @property
    def deciding(self) -> ClaimExplanation | None:
        """The claim that decided the rejection (the first failing one), or None."""
        return self.failing[0] if self.failing else None

    @property
    def summary(self) -> str:
        """One line: the verdict, the deciding claim with its evidence, and how many others
        failed; for an approved verdict with nothing failing, ``"approved: N claims supported"``."""
        if self.approved and not self.failing:
            return f"approved: {self.claims} claim(s) supported"
        verdict = "approved" if self.approved else ("halted" if self.halt_reason else "rejected")
        if self.score is not None:
            verdict += f" (score {self.score:.3f}" + (f" < threshold {self.threshold:g})"
                                                      if self.threshold is not None and not self.approved
                                                      else ")")
        d = self.deciding
        if d is None:
            return f"{verdict}: {self.cause}" if self.cause else verdict
        more = len(self.failing) - 1
        return f"{verdict}: {d.line()}" + (f" (+{more} more failing claim(s))" if more else "")

    def message(self, limit: int = 3) -> str:
        """Several lines: the summary, then each failing claim (at most ``limit``) with its
        evidence, then the suggestion."""
        lines = [self.summary]
        if len(self.failing) > 1:
            lines += [f"  - {c.line()}" for c in self.failing[:limit]]
            if len(self.failing) > limit:
                lines.append(f"  - ... {len(self.failing) - limit} more")
        if self.suggestion:
            lines.append(f"  suggestion: {self.suggestion}")
        return "\n".join(lines)

    def render(self, level: str = "failing") -> dict[str, Any] | None:
        """The JSON-safe dict shown in records and metadata: :meth:`to_dict` plus ``summary``;
        ``level`` is one of :data:`EXPLAIN_LEVELS` (``"none"``: None; ``"failing"``: without the
        ``supported`` list; ``"all"``: with it).

        Raises:
            ConfigError: an unknown level (field ``explain``).
        """
        if level not in EXPLAIN_LEVELS:
            raise ConfigError(f"explain level must be one of {EXPLAIN_LEVELS}, got {level!r}", field="explain")
        if level == "none":
            return None
        out = self.to_dict()
        if level != "all":
            out.pop("supported", None)
        out["summary"] = self.summary
        return out

    def references(self) -> dict[str, str]:
        """Tenant-safe references for a SafetyEvent's attributes: ``cause``, ``failing_claims``
        (count) and, for the deciding claim, ``claim_index``, ``verdict``, ``signal``,
        ``claim_sha256`` and ``evidence_sha256`` (:func:`text_sha256`; no fact text ever)."""
        refs = {"cause": self.cause} if self.cause else {}
        refs["failing_claims"] = str(len(self.failing))
        d = self.deciding
        if d is not None:
            refs.update(claim_index=str(d.claim_index), verdict=d.verdict, claim_sha256=text_sha256(d.claim))
            if d.signal:
                refs["signal"] = d.signal if _CODE.fullmatch(d.signal) else "other"
            if d.evidence:
                refs["evidence_sha256"] = text_sha256(d.evidence)
        return refs

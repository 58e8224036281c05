"""``stream_guard`` / ``astream_guard``: guard a token stream with the C++ halt kernel.

Two kinds of scorer are accepted:

* **plain callable** ``scorer(accumulated_text) -> float`` (director-ai compatible): called on
  the tokens the cadence selects (``HaltConfig.score_every_n`` / ``adaptive``) with the whole text
  so far; other tokens reuse the last score (0.5 before the first). Its own cost grows with the
  text; the guard's does not.
* **incremental scorer**: any object with
  ``score_sentence(sentence, *, prompt="", previous="", tenant_id="") -> float | SentenceScore``
  (for example :class:`director_fast.CoherenceScorer`). The guard segments the stream into
  sentences incrementally and calls it once per completed sentence with that sentence, the
  previous sentence (``previous``) and the prompt; the stream's unfinished last sentence is scored
  when the stream ends. Every token of a sentence takes the sentence's score and the kernel steps
  through them in order, so the window, trend and halt index stay token-level and no token enters
  the kernel with an invented score. Optional attributes: ``scorer_path`` (str), and the result
  may carry ``evidence`` (EvidenceChunk tuple), ``nli_scores``, ``retrieval_path``,
  ``fact_source`` which flow into the halt's :class:`HaltEvidence`. An async scorer
  (``async def score_sentence``/``async def __call__``) works with :func:`astream_guard`.

Release policy (``release=``):

* ``"token"``: a token is forwarded as soon as it is known not to halt the stream under the
  information available (plain scorer: after its own kernel step; incremental scorer: at once,
  before its sentence is scored). Lowest latency; with an incremental scorer the tokens of a
  sentence that later halts have already reached the user.
* ``"sentence"`` (default for incremental scorers): the tokens of the sentence being written are
  held until that sentence has been scored, so a wrong value never reaches the user before the
  check that stops it. Extra latency: up to one sentence of tokens plus one scorer call.

Failure handling (fail closed): a scorer raising ``TimeoutError``/``OSError``, missing the
``scorer_timeout_s`` deadline (a real deadline: sync scorers then run on a bounded
:class:`ScorerExecutor`), or finding that executor saturated, halts with ``callback_timeout`` and a
SafetyEvent. Any other exception, or a score that is not a finite number in [0, 1] (``ScoreError``
naming the token), propagates to the caller after the session records the halt as
``scorer_error``. A failed model stream (an adapter's ``UpstreamError``: an error event, a
``length`` finish, a stream without its final chunk) halts with ``upstream_error``; any other
exception from the token source is recorded as ``upstream_error`` and then propagates.

The upstream is closed (``close()`` / ``aclose()``) on every way out: halt, ``close()`` /
``aclose()``, ``with`` / ``async with``, an exception, cancellation of the task reading an async
guard, garbage collection and the normal end. In ``astream_guard`` a sync scorer never runs on the
event loop (``executor=``).

Thread-safety: a guard object belongs to one consumer; distinct guards are independent (each
has its own kernel state). The scorer may be shared between guards if it is thread-safe (sync
scorers of ``astream_guard`` and of timed guards run on executor threads).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from bisect import bisect_left, bisect_right
import dataclasses
import functools
import inspect
import logging
import math
import re
import time
import weakref
from array import array
from collections import deque
from dataclasses import dataclass
from typing import Any, AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Protocol

from director_fast.stream.halt import HaltConfig, HaltReason, format_reason, suggested_action
from director_fast.safety.event import SafetyEvent
from director_fast.stream.session import (
    _F_HALTED,
    _F_SCORED,
    _F_WARNING,
    StreamSession,
    TokenEvent,
)
from director_fast.safety.halt_evidence import EvidenceChunk, HaltEvidence, HaltTraceAttribution
from director_fast.types.results import ClaimAttribution
from director_fast.safety.tenant import TenantSafetyError
from director_fast.errors import ConfigError, InputTypeError, ScoreError, StreamHalted, UpstreamError
from director_fast.stream.executor import ScorerExecutor
from director_fast._log import warn_limited
from director_fast import telemetry as _telemetry
from director_fast.stream.structured import STRUCTURED_KINDS, recover_structured

logger = logging.getLogger("director_fast.stream_guard")

__all__ = [
    "stream_guard",
    "astream_guard",
    "StreamGuard",
    "AsyncStreamGuard",
    "IncrementalScorer",
    "SentenceResult",
    "ScorerExecutor",
]

_ACT_HALT = 3
_ACT_WARN = 1
# kernel action code -> session flag bits (incremental path: every token gets a real score)
_CODE_TO_FLAGS = bytes([_F_SCORED, _F_SCORED | _F_WARNING, _F_SCORED, _F_SCORED | _F_HALTED] + [0] * 252)


class IncrementalScorer(Protocol):
    """Protocol of a scorer told only what is new (one completed sentence at a time)."""

    def score_sentence(self, sentence: str, *, prompt: str = "", previous: str = "",
                       tenant_id: str = "") -> Any:  # float | SentenceScore-like
        ...


@dataclass(frozen=True)
class SentenceResult:
    """Normalised result of one scorer call (internal; mirrors ``SentenceScore``)."""

    score: float
    evidence: tuple[EvidenceChunk, ...] = ()
    nli_scores: tuple[float, ...] | None = None
    retrieval_path: str = "none"
    fact_source: str = ""
    informative: bool = True
    attributions: tuple = ()
    evidence_refs: tuple[str, ...] = ()
    worst_claim: int = -1


def _is_sentence_end(tok: str) -> bool:
    t = tok.rstrip()
    return bool(t) and t[-1] in ".!?"


def _scorer_path(scorer: Any, incremental: bool) -> str:
    path = getattr(scorer, "scorer_path", None)
    if isinstance(path, str) and path:
        return path
    target = scorer
    if inspect.isfunction(target) or inspect.ismethod(target) or inspect.isbuiltin(target):
        return f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"
    t = type(target)
    suffix = ".score_sentence" if incremental else ".__call__"
    return f"{t.__module__}.{t.__qualname__}{suffix}"


def _fact_source(chunks: tuple[EvidenceChunk, ...]) -> str:
    seen: list[str] = []
    for c in chunks:
        s = (getattr(c, "source", "") or "").strip()
        if s and s not in seen:
            seen.append(s)
    return ",".join(seen)


def _is_real(x: Any) -> bool:
    """numbers.Real and numpy floating/integer scalars (np.float32 from ONNX/torch scorers)."""
    import numbers

    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _normalise_result(raw: Any, index: int) -> SentenceResult:
    """Turn a scorer's return value into a SentenceResult; validates the score."""
    if isinstance(raw, bool):
        raise ScoreError(f"score for token {index} must be a number in [0, 1], got a bool", index=index)
    if isinstance(raw, (int, float)) or (_is_real(raw) and not hasattr(raw, "score")):
        score = float(raw)
        res = None
    else:
        sc = getattr(raw, "score", None)
        if sc is None or not _is_real(sc):
            raise ScoreError(
                f"scorer result for token {index} must be a float in [0, 1] or have a numeric "
                f".score, got {type(raw).__name__}", index=index)
        score = float(sc)
        res = raw
    if not (0.0 <= score <= 1.0):  # also rejects NaN
        raise ScoreError(f"score for token {index} must be a finite number in [0, 1], got {score!r}", index=index)
    if res is None:
        return SentenceResult(score)
    evidence = tuple(getattr(res, "evidence", ()) or ())
    nli = getattr(res, "nli_scores", None)
    fact_source = getattr(res, "fact_source", "") or _fact_source(evidence)
    refs = getattr(res, "evidence_refs", ()) or ()
    return SentenceResult(
        score=score,
        informative=bool(getattr(res, "informative", True)),
        evidence=evidence,
        nli_scores=tuple(nli) if nli is not None else None,
        retrieval_path=getattr(res, "retrieval_path", "") or ("none" if not evidence else "scorer.evidence"),
        fact_source=fact_source,
        attributions=tuple(getattr(res, "attributions", ()) or ()),
        evidence_refs=tuple(str(r) for r in refs),
        worst_claim=int(getattr(res, "worst_claim", -1)),
    )


def _scorer_limit(scorer: Any, name: str) -> float:
    """``scorer.<name>`` as a float: a real number (numpy scalars included, not a bool) in [0, 1].

    Raises:
        ConfigError: anything else (a str, NaN, a value outside [0, 1]); field ``scorer.<name>``.
    """
    value = getattr(scorer, name)
    if not _is_real(value):
        raise ConfigError(f"scorer.{name} must be a number in [0, 1] (the stream's halt limit is derived "
                          f"from it), got {type(value).__name__}", field=f"scorer.{name}")
    v = float(value)
    if not 0.0 <= v <= 1.0:  # also rejects NaN
        raise ConfigError(f"scorer.{name} must be a number in [0, 1] (the stream's halt limit is derived "
                          f"from it), got {value!r}", field=f"scorer.{name}")
    return v


def _derived_config(scorer: Any) -> HaltConfig:
    """The halt config that makes a stream agree with ``scorer.review`` (see :func:`stream_guard`);
    ``HaltConfig()`` when the scorer has no ``threshold`` attribute (or it is None).

    Raises:
        ConfigError: ``scorer.threshold`` / ``scorer.soft_limit`` is not a number in [0, 1], or
            ``soft_limit < threshold`` (field ``scorer.threshold`` / ``scorer.soft_limit``).
    """
    if getattr(scorer, "threshold", None) is None:  # no threshold attribute (or None)
        return HaltConfig()
    thr = _scorer_limit(scorer, "threshold")
    soft = _scorer_limit(scorer, "soft_limit") if getattr(scorer, "soft_limit", None) is not None else thr
    if soft < thr:
        raise ConfigError(f"scorer.soft_limit ({soft!r}) must be >= scorer.threshold ({thr!r})",
                          field="scorer.soft_limit")
    # the window mean of scores that are all >= thr can round to just below thr (ten 0.3
    # scores average to 0.29999999999999993): the 1e-9 margin keeps the window check from
    # halting where the hard limit (the claim-level verdict) would not
    return HaltConfig(hard_limit=float(thr), window_threshold=max(0.0, float(thr) - 1e-9),
                      soft_limit=float(soft), trend_threshold=1.0)


def _accepted_extras(fn: Any, **extras: Any) -> dict[str, Any]:
    """The given (non-None) ``extras`` that ``fn``'s signature accepts; a warning names the ones
    it does not (third-party scorers written before these arguments existed keep working)."""
    given = {k: v for k, v in extras.items() if v is not None}
    if not given:
        return {}
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return given
    accepted = {k: v for k, v in given.items() if k in params}
    dropped = sorted(set(given) - set(accepted))
    if dropped:
        logger.warning("stream_guard: the scorer's score_sentence does not accept %s; not forwarded",
                       ", ".join(dropped))
    return accepted


def _new_segmenter() -> Any:
    """The C++ incremental segmenter (abbreviations, decimals, ellipses, closers, newlines,
    CJK terminal punctuation; see docs/evidence.md)."""
    from director_fast.verify.text import SentenceSegmenter

    return SentenceSegmenter()


class _GuardState:
    """State and bookkeeping shared by the sync and async guards."""

    def __init__(self, scorer: Any, *, prompt: str, config: HaltConfig | None, tenant_id: str,
                 request_id: str, raise_on_halt: bool, release: str | None,
                 scorer_timeout_s: float | None, keep_events: bool,
                 evidence_callback: Callable[[str], str | None] | None,
                 kernel_active: Callable[[], bool] | None, context: Any = None,
                 system: str | None = None, messages: Any = None,
                 executor: ScorerExecutor | str | None = None, conversation: Any = None,
                 structured: str | None = None) -> None:
        if structured is not None and structured not in STRUCTURED_KINDS:
            raise ConfigError(f"structured must be one of {STRUCTURED_KINDS} or None, got {structured!r}",
                              field="structured")
        self.structured = structured
        self.incremental = hasattr(scorer, "score_sentence")
        if config is None:
            config = _derived_config(scorer) if self.incremental else HaltConfig()
        if not isinstance(config, HaltConfig):
            raise InputTypeError(f"config must be a HaltConfig, got {type(config).__name__}")
        if not isinstance(prompt, str):
            raise InputTypeError("prompt must be a str", "prompt")
        prompt = str.__str__(prompt)  # a str subclass (numpy.str_) as the equal plain str
        if not isinstance(tenant_id, str) or not isinstance(request_id, str):
            raise InputTypeError("tenant_id and request_id must be str")
        # checked now, not at halt time: they go into the SafetyEvent every halt must carry
        from director_fast.safety.event import _CTRL, MAX_ID_LEN

        for name, val in (("tenant_id", tenant_id), ("request_id", request_id)):
            if len(val) > MAX_ID_LEN:
                raise ConfigError(f"{name} is longer than {MAX_ID_LEN} code points", field=name)
            if val and _CTRL.search(val):
                raise ConfigError(f"{name} contains a control character or lone surrogate", field=name)
            if val:
                from director_fast.safety.tenant import tenant_safety_violation

                reason = tenant_safety_violation(val)
                if reason is not None:  # a halt could not record its SafetyEvent
                    raise ConfigError(f"{name} is not tenant-safe: {reason}", field=name)
        if not self.incremental and not callable(scorer):
            raise InputTypeError(
                "scorer must be a callable text -> float or an object with score_sentence(...)")
        if release is None:
            release = "sentence" if self.incremental else "token"
        if release not in ("token", "sentence"):
            raise ConfigError(f"release must be 'token' or 'sentence', got {release!r}", field="release")
        if release == "sentence" and not self.incremental:
            raise ConfigError("release='sentence' needs an incremental scorer (score_sentence)", field="release")
        if scorer_timeout_s is not None:
            if isinstance(scorer_timeout_s, bool) or not isinstance(scorer_timeout_s, (int, float)) \
                    or not scorer_timeout_s > 0 or scorer_timeout_s != scorer_timeout_s:
                raise ConfigError("scorer_timeout_s must be a positive number of seconds", field="scorer_timeout_s")
        if executor is not None and executor != "inline" and not isinstance(executor, ScorerExecutor):
            raise ConfigError(
                f"executor must be a ScorerExecutor, 'inline' or None, got {type(executor).__name__}",
                field="executor")
        self.scorer = scorer
        self.fn = scorer.score_sentence if self.incremental else scorer
        self.is_async = _is_async_callable(self.fn)
        self.executor_opt = executor
        # the halt's extra SafetyEvent attributes (executor_saturated, deadline_ms)
        self.halt_attrs: dict[str, str] = {}
        self.call_kwargs = {"prompt": prompt, "tenant_id": tenant_id}
        if self.incremental:
            self.call_kwargs.update(_accepted_extras(self.fn, context=context, system=system, messages=messages))
            check = getattr(scorer, "check_tenant", None)
            if callable(check):
                check(tenant_id)  # UnknownTenantError now, not mid-stream
        self.claims_before = 0  # factual claims in the sentences scored before the current one
        self.prompt = prompt
        self.config = config
        self.tenant_id = tenant_id
        self.request_id = request_id
        self.raise_on_halt = raise_on_halt
        self.release = release
        self.timeout = float(scorer_timeout_s) if scorer_timeout_s is not None else None
        self.evidence_callback = evidence_callback
        self.kernel_active = kernel_active
        self.kernel = config.new_kernel()
        self.session = StreamSession(start_time=time.monotonic(), keep_events=keep_events)
        self.keep = keep_events
        self.scorer_path = _scorer_path(scorer, self.incremental)
        self.done = False
        self.last_result: SentenceResult | None = None
        self.halt_result: SentenceResult | None = None
        # incremental state
        self.seg = _new_segmenter() if self.incremental else None
        # tokens not yet assigned to a scored sentence: (index, start cp, last non-space cp, text)
        # tokens not yet assigned to a scored sentence are always the contiguous range
        # tokens[pend_start:]; ends[i] is the code-point offset just after token i
        self.pend_start = 0
        self.ends = array("q")
        self.prev_sentence = ""
        self.ready: deque[int] = deque()  # token indices ready to deliver
        self.halt_sentence_first: int | None = None  # first token of the sentence that halted
        # the worst scored sentence that ended inside a token shared with the next sentence (it
        # has no token of its own): its score is applied to the next sentence's tokens
        self.carried: SentenceResult | None = None
        # incremental path: token index of every token the kernel consumed, in kernel order
        # (differs from the stream index once an uninformative sentence was skipped)
        self.stepped = array("q")
        self.skipped_any = False
        self.next_unscored: int | None = None  # first token of a sentence being scored
        # for the counterfactual diagnostic: every score the kernel consumed (kernel order), the
        # sentence-end flags fed with them (soft mode), the last scored (sentence, previous), and
        # the halting sentence's (tokens, tokens consumed, sentence-end flags)
        self.fed = array("d")
        self.fed_ends = bytearray()
        self.scored_call: tuple[str, str] = ("", "")
        self.halt_span: tuple[int, int, bytes] | None = None
        self.conversation = None
        self.cross_turn: Any = None
        if conversation is not None:
            self._start_conversation(conversation, messages)

    # ---- bookkeeping -------------------------------------------------------------------------
    def record(self, tok: str, score: float, flags: int) -> None:
        s = self.session
        s.tokens.append(tok)
        if self.keep:
            s._scores.append(score)
            s._times.append(time.monotonic())
            s._flags.append(flags)

    def step(self, index: int, score: float, scored: bool, sentence_end: bool) -> int:
        action = self.kernel.feed(score, scored, sentence_end) & 3
        if self.keep:
            fl = _F_SCORED if scored else 0
            if action == _ACT_WARN:
                fl |= _F_WARNING
            elif action == _ACT_HALT:
                fl |= _F_HALTED
            self.session._flags[index] = fl
            self.session._scores[index] = score if scored else self.kernel.last_score
        if action == _ACT_WARN:
            self.session.warning_count += 1
        return action

    # ---- halting -----------------------------------------------------------------------------
    def finish_halt(self, external: str | None = None) -> None:
        """Fill the session's halt record after the kernel halted (or an external halt)."""
        k = self.kernel
        d = k.halt_external(external) if external is not None else k.decision
        s = self.session
        s.halted = True
        s.soft_halted = bool(d.soft_halted)
        s.halt_index = self.token_index(int(d.halt_index))
        s.final_index = self.token_index(int(d.final_index))
        reason = HaltReason(d.reason)
        s.halt_reason = reason
        s.halt_reason_text = format_reason(d.reason, d.statistic, d.threshold)
        res = self.halt_result
        chunks = res.evidence if res is not None else ()
        if self.evidence_callback is not None:
            try:
                s.halt_evidence = self.evidence_callback("".join(s.tokens))
            except Exception:  # evidence text is advisory; never mask the halt
                s.halt_evidence = None
        trace = HaltTraceAttribution(
            # audit references (kb:<id>) when the scorer gives them: source labels are the
            # operator's free text and may break the tenant-safety rules of the event
            fact_source=(",".join(res.evidence_refs) if res.evidence_refs else res.fact_source)
            if res is not None else "",
            retrieval_path=res.retrieval_path if res is not None else "none",
            scorer_path=self.scorer_path,
            token_offset=s.halt_index,
            threshold=d.threshold,
            causal_contribution=d.margin if d.margin is not None else 0.0,
        )
        last = d.last_score if d.last_score is not None else k.last_score
        diagnostic = self.counterfactual(res, d, float(last)) if external is None else None
        evidence = HaltEvidence(
            reason=reason.value,
            last_score=float(last),
            evidence_chunks=list(chunks),
            nli_scores=list(res.nli_scores) if (res is not None and res.nli_scores is not None) else None,
            suggested_action=suggested_action(reason.value),
            trace_attribution=trace,
            counterfactual_diagnostic=diagnostic,
        )
        s.halt_evidence_structured = evidence
        attrs = {"token_offset": str(s.halt_index)}
        if diagnostic is not None:
            attrs["counterfactual"] = ("prevented" if diagnostic.best_change is not None else
                                       "not_prevented" if diagnostic.candidates else "no_candidate")
        if s.soft_halted:
            attrs["final_token_offset"] = str(s.final_index)
        if external is not None and self.halt_attrs:
            attrs.update(self.halt_attrs)
        claim = self._halt_claim(res)
        if claim is not None:
            s.halt_claim = claim
            attrs["claim_index"] = str(claim.claim_index)
            attrs["verdict"] = claim.verdict
        event = self._halt_event(evidence, res, d, attrs)
        s.safety_events.append(event)
        idx = s.final_index if s.soft_halted else s.halt_index
        if self.keep and 0 <= idx < len(s.tokens) and external is None:
            s._halt_event = TokenEvent(
                token=s.tokens[idx], index=idx, coherence=s._scores[idx], timestamp=s._times[idx],
                halted=True, warning=False, scored=bool(s._flags[idx] & _F_SCORED),
                evidence=s.halt_evidence, halt_evidence=evidence, safety_event=event)
        self.done = True
        if reason is HaltReason.UPSTREAM_ERROR:
            warn_limited(logger, "upstream_error", "upstream stream failed (%s%s); stream halted with "
                         "upstream_error", attrs.get("upstream", ""),
                         ": " + attrs.get("upstream_code", attrs.get("error_type", ""))
                         if ("upstream_code" in attrs or "error_type" in attrs) else "")
        elif reason in (HaltReason.CALLBACK_TIMEOUT, HaltReason.SCORER_ERROR):
            what = ("the executor is saturated" if "executor_saturated" in attrs else
                    "missed its deadline" if "deadline_ms" in attrs else
                    "timed out / failed with OSError" if reason is HaltReason.CALLBACK_TIMEOUT else
                    "raised or returned an invalid score")
            warn_limited(logger, reason.value, "scorer %s: %s; stream halted with %s (fail closed)",
                         self.scorer_path, what, reason.value)
        _telemetry.record_halt(reason.value, s.halt_index, event.event_id)
        if logger.isEnabledFor(logging.INFO):
            logger.info("stream halted: reason=%s token=%d request_id=%s tenant_id=%s event_id=%s",
                        reason.value, s.halt_index, self.request_id, self.tenant_id, event.event_id)

    def counterfactual(self, res: SentenceResult | None, d: Any, last: float) -> Any:
        """The halt's :class:`CounterfactualHaltDiagnostic` (:mod:`director_fast.stream.counterfactual`),
        or None (no evidence, not a CoherenceScorer, or the diagnostic failed: it never masks
        the halt)."""
        if res is None or not res.evidence or self.halt_span is None or d.threshold is None:
            return None
        n, used, ends = self.halt_span
        try:
            from director_fast.stream.counterfactual import diagnose_halt

            keep = len(self.fed) - used
            kwargs = {k: v for k, v in self.call_kwargs.items()}
            return diagnose_halt(
                self.scorer, sentence=self.scored_call[0], previous=self.scored_call[1], call_kwargs=kwargs,
                result=res, prefix=self.fed[:keep], n_tokens=n, config=self.config,
                observed_score=min(1.0, max(0.0, last)), threshold=float(d.threshold),
                ends_prefix=bytes(self.fed_ends[:keep]), ends_tail=ends)
        except Exception as exc:  # advisory: the halt stands without it
            warn_limited(logger, "counterfactual", "counterfactual diagnostic failed (%s); halt evidence "
                         "has none", type(exc).__name__)
            return None

    def _halt_claim(self, res: SentenceResult | None) -> Any:
        """The claim that halted the stream, with its index in the whole response (None when the
        scorer reported no claims)."""
        if res is None or not (0 <= res.worst_claim < len(res.attributions)):
            return None
        a = res.attributions[res.worst_claim]
        if isinstance(a, ClaimAttribution):
            return dataclasses.replace(a, claim_index=self.claims_before + res.worst_claim)
        return None  # a third-party scorer's own attribution type: not reported

    def _halt_event(self, evidence: HaltEvidence, res: SentenceResult | None, d: Any,
                    attrs: dict[str, str]) -> SafetyEvent:
        """The halt's SafetyEvent. Evidence references are the scorer's audit references
        (``kb:<id>``) when it gives them; otherwise the chunks' source labels, and ``chunk:<i>``
        when a label would break the tenant-safety rules (a document named like a credential)."""
        kwargs = dict(hook_id="streaming.kernel", hook_scope="streaming", policy_decision="halt",
                      request_id=self.request_id, tenant_id=self.tenant_id, threshold=d.threshold,
                      observed_score=d.statistic,
                      latency_ms=(time.monotonic() - self.session.start_time) * 1000.0, attributes=attrs)
        refs = res.evidence_refs if res is not None and res.evidence_refs else None
        try:
            return SafetyEvent.from_halt_evidence(evidence, evidence_refs=refs, **kwargs)
        except TenantSafetyError:
            safe = tuple(f"chunk:{i}" for i in range(len(evidence.evidence_chunks)))
            trace = evidence.trace_attribution
            if trace is not None:
                evidence = dataclasses.replace(evidence, trace_attribution=dataclasses.replace(
                    trace, fact_source=",".join(safe)))
            return SafetyEvent.from_halt_evidence(evidence, evidence_refs=safe, **kwargs)

    def token_index(self, k: int) -> int:
        """Stream token index of the kernel's k-th token (identity unless sentences were
        skipped); k == tokens consumed (an external halt) maps to the next token to score."""
        if not self.skipped_any or k < 0:
            return k
        if k < len(self.stepped):
            return int(self.stepped[k])
        if self.next_unscored is not None:
            return self.next_unscored
        return int(self.stepped[-1]) + 1 if len(self.stepped) else 0

    def close_session(self) -> None:
        s = self.session
        s.end_time = time.monotonic()
        if self.structured is not None and s.halted and s.structured_recovery is None:
            # the delivered prefix is final once the stream is over (a halted stream delivers
            # nothing more)
            s.structured_recovery = recover_structured(self.structured, s.output,
                                                       halted_at=max(s.halt_index, 0))
        if self.conversation is not None and self.cross_turn is None:
            self._finish_conversation()

    def _start_conversation(self, conversation: Any, messages: Any) -> None:
        from director_fast.memory.conversation import ConversationSession
        from director_fast.verify.roles import resolve_roles

        if not isinstance(conversation, ConversationSession):
            raise InputTypeError(
                f"conversation must be a ConversationSession, got {type(conversation).__name__}")
        conversation.bind_tenant(self.tenant_id)
        if messages is not None:
            conversation.seed(messages)
            self.conversation_prompt = resolve_roles("", messages=messages).prompt
        else:
            self.conversation_prompt = self.prompt
        self.conversation = conversation

    def _finish_conversation(self) -> None:
        """Check the delivered text against the conversation's earlier turns and remember it."""
        conv, self.conversation = self.conversation, None
        out = self.session.output
        judge = getattr(self.scorer, "judge", None)  # a CoherenceScorer's: its NLI backend
        if not callable(getattr(judge, "compare_texts", None)):
            judge = None
        self.cross_turn = conv.observe(self.conversation_prompt, out, judge=judge, remember=bool(out.strip()))

    # ---- scorer calls off the caller's thread ----------------------------------------------------
    def executor(self) -> ScorerExecutor:
        """The executor for this stream's sync scorer calls: the one given, else the one shared by
        every guard of this scorer."""
        ex = self.executor_opt
        if isinstance(ex, ScorerExecutor):
            return ex
        return ScorerExecutor.for_scorer(self.scorer)

    def submit(self, arg: Any) -> concurrent.futures.Future | None:
        """Start a sync scorer call on the executor; None (and the halt attributes set) when the
        executor is saturated."""
        ex = self.executor()
        if self.incremental:
            fut = ex.try_submit(self.fn, arg, previous=self.prev_sentence, **self.call_kwargs)
        else:
            fut = ex.try_submit(self.fn, arg)
        if fut is None:
            self.halt_attrs["executor_saturated"] = "true"
            self.halt_attrs["executor_max_workers"] = str(ex.max_workers)
        return fut

    def upstream_failed(self, exc: BaseException) -> None:
        """Record an ``upstream_error`` halt for a failed token source: an adapter's
        :class:`UpstreamError` (attributes ``upstream`` = its kind, ``upstream_code``) or any
        other exception raised while reading it (``upstream`` = ``exception``, ``error_type``)."""
        if isinstance(exc, UpstreamError):
            self.halt_attrs["upstream"] = _short_code(exc.kind)
            if exc.code:
                self.halt_attrs["upstream_code"] = _short_code(exc.code)
        else:
            self.halt_attrs["upstream"] = "exception"
            self.halt_attrs["error_type"] = _short_code(type(exc).__name__)
        if self.incremental:
            self.next_unscored = self.pend_start  # the first token no sentence score covers
        self.finish_halt("upstream_error")

    def missed_deadline(self) -> None:
        self.halt_attrs["deadline_ms"] = f"{(self.timeout or 0.0) * 1000.0:.0f}"

    def halted_error(self) -> StreamHalted:
        s = self.session
        return StreamHalted(f"stream halted at token {s.halt_index}: {s.halt_reason_text or s.halt_reason}", s)

    # ---- incremental path helpers ---------------------------------------------------------------
    def add_token_incremental(self, tok: str) -> list[tuple[int, int]]:
        """Record an arriving token, return the sentence spans it completes (O(len(tok)))."""
        self.session.tokens.append(tok)
        ends = self.ends
        ends.append((ends[-1] if len(ends) else 0) + len(tok))
        return self.seg.feed(tok)

    def has_pending(self) -> bool:
        return self.pend_start < len(self.session.tokens)

    def _start(self, j: int) -> int:
        return self.ends[j - 1] if j > 0 else 0

    def sentence_text(self, a: int, b: int) -> str:
        """Text of code points [a, b) from the pending tokens (C-level join of the sentence's
        tokens; cost ~ the sentence's length)."""
        ps = self.pend_start
        jb = bisect_left(self.ends, b, ps) + 1
        base = self._start(ps)
        return "".join(self.session.tokens[ps:jb])[a - base: b - base]

    def assign(self, end: int, final: bool) -> list[int]:
        """Take the pending tokens of a sentence ending at code point ``end``: those whose last
        non-space code point lies before ``end``, and whitespace-only tokens right after them."""
        tokens = self.session.tokens
        n = len(tokens)
        ps = self.pend_start
        if final:
            j = n
        else:
            j = bisect_right(self.ends, end, ps)  # tokens[ps:j] end at or before `end`
            if j < n:
                tok = tokens[j]
                k = len(tok.rstrip())
                if k == 0 or self._start(j) + k - 1 < end:  # straddles, only spaces after `end`
                    j += 1
            while j < n and not tokens[j].strip():
                j += 1
        self.pend_start = j
        return list(range(ps, j))

    def apply_sentence(self, indices: list[int], res: SentenceResult) -> bool:
        """Step the kernel through a scored sentence's tokens. True when the stream halted."""
        n = len(indices)
        if n == 0:
            # a sentence that ended inside a token the next sentence shares ("Done.\nP"): its
            # score must not be lost, or a bad sentence would be released with the next one
            if res.informative and (self.carried is None or res.score < self.carried.score):
                self.carried = res
            return False
        if self.carried is not None:
            if not res.informative or self.carried.score < res.score:
                res = self.carried  # the shared token carries the worse of the two sentences
            self.carried = None
        s = self.session
        if not res.informative:
            # nothing to judge the sentence against: release it without feeding the kernel a
            # made-up score (its tokens are recorded with coherence NaN, flags 0)
            self.skipped_any = True
            if self.keep:
                s._scores.extend([math.nan] * n)
                s._times.extend([time.monotonic()] * n)
                s._flags.extend(bytes(n))
            if self.release == "sentence":
                self.ready.extend(indices)
            return False
        self.stepped.extend(indices)
        if self.config.halt_mode == "soft":
            tokens = s.tokens
            ends = bytes(1 if _is_sentence_end(tokens[i]) else 0 for i in indices)
        else:
            ends = b""
        score = res.score
        codes = self.kernel.feed_same(score, ends, n)
        used = len(codes)
        self.fed.extend([score] * used)
        self.fed_ends += ends[:used]
        if self.keep:
            s._scores.extend([score] * used)
            now = time.monotonic()
            s._times.extend([now] * used)
            s._flags.extend(codes.translate(_CODE_TO_FLAGS))
        s.warning_count += codes.count(1)
        if used and codes[-1] == _ACT_HALT:
            self.halt_result = res
            self.halt_span = (n, used, bytes(ends))
            self.halt_sentence_first = indices[0]
            self.finish_halt()
            return True
        if self.release == "sentence":
            self.ready.extend(indices)
        return False

    def begin_sentence(self, a: int, b: int) -> tuple[str, list[int], int]:
        """Text of the completed sentence [a, b), its pending tokens, and the token index a
        scorer failure is reported at."""
        sentence = self.sentence_text(a, b)
        idx = self.assign(b, False)
        self.next_unscored = idx[0] if idx else None
        first = idx[0] if idx else len(self.session.tokens) - 1
        return sentence, idx, first

    def end_sentence(self, sentence: str, idx: list[int], first: int, err: str | None,
                     raw: Any) -> bool:
        """Apply a scorer's answer for a sentence (or its failure ``err``); True when the stream
        halted, with :attr:`ready` then holding exactly the tokens still deliverable."""
        if err is not None:  # halt before the first token of this sentence
            self.finish_halt(err)
            return True
        try:
            res = _normalise_result(raw, first)
        except ScoreError:
            self.finish_halt("scorer_error")
            raise
        self.last_result = res
        self.scored_call = (sentence, self.prev_sentence)
        self.prev_sentence = sentence
        if self.apply_sentence(idx, res):
            self.release_after_halt()
            return True
        self.claims_before += len(res.attributions)
        return False

    def end_stream(self) -> None:
        """After the segmenter's final flush: trailing whitespace-only tokens take the last
        sentence's score; a soft halt still pending is finalised (fail closed)."""
        if self.has_pending():
            idx = self.assign(0, True)
            if self.last_result is not None:
                if self.apply_sentence(idx, self.last_result):
                    self.release_after_halt()
                    return
            elif self.release == "sentence":
                self.ready.extend(idx)
        d = self.kernel.finish()
        if d.halted and not self.done:
            self.finish_halt()
            self.release_after_halt()

    def release_after_halt(self) -> None:
        """Replace :attr:`ready` by the tokens that may still be delivered after a halt."""
        self.ready.clear()
        self.ready.extend(self.deliverable_after_halt())

    def deliverable_after_halt(self) -> list[int]:
        """Token indices (not yet delivered) that may still be delivered after a halt.

        With ``release="sentence"`` a hard halt (hard limit, window, trend) delivers nothing of
        the sentence it fired in, even when the condition first held mid-sentence: the kernel's
        output prefix is cut back to the start of that sentence. A finalised soft halt delivers
        through its finalising token, by design."""
        if self.release != "sentence":
            return []
        out_n = self.token_index(int(self.kernel.decision.output_tokens))
        if not self.session.soft_halted and self.halt_sentence_first is not None:
            out_n = min(out_n, self.halt_sentence_first)
        return list(range(self.session.delivered_count, out_n))


_SHORT_CODE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def _short_code(v: str) -> str:
    """A short identifier for a SafetyEvent attribute (``"other"`` when it is not one)."""
    return v if isinstance(v, str) and _SHORT_CODE.fullmatch(v) else "other"


def _is_async_callable(fn: Any) -> bool:
    """``async def`` functions / methods, and objects whose ``__call__`` is one."""
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(type(fn), "__call__", None)
    return call is not None and inspect.iscoroutinefunction(call)


def _check_token(tok: Any, index: int) -> str:
    if not isinstance(tok, str):
        raise InputTypeError(f"token {index} must be a str, got {type(tok).__name__}")
    return tok


def _check_token_source(tokens: Any, *, asynchronous: bool) -> None:
    """``tokens`` must be an iterable of str tokens (or an async iterable for the async guard);
    a whole ``str`` is refused (it would stream one character per token)."""
    if isinstance(tokens, (str, bytes, bytearray)):
        raise InputTypeError(
            f"tokens must be an iterable of str tokens, not a {type(tokens).__name__} "
            "(split the text, e.g. director_fast.jobs.guard_job.tokenize_for_stream(text), or pass [text])")
    ok = hasattr(tokens, "__iter__") or (
        asynchronous and (hasattr(tokens, "__aiter__") or hasattr(tokens, "__anext__")))
    if not ok:
        kind = "an iterable or async iterable" if asynchronous else "an iterable"
        raise InputTypeError(f"tokens must be {kind} of str tokens, got {type(tokens).__name__}")


def _close_all(objs: Iterable[Any]) -> None:
    """``close()`` each distinct object that has one; errors are logged, never raised (closing
    is cleanup on the way out of a halt, a cancellation or an exception)."""
    seen: list[Any] = []
    for obj in objs:
        if obj is None or any(obj is o for o in seen):
            continue
        seen.append(obj)
        close = getattr(obj, "close", None)
        if close is None:
            continue
        try:
            res = close()
            if inspect.isawaitable(res):  # an async stream handed to the sync guard
                _discard_awaitable(res)
        except Exception as exc:
            logger.debug("closing the upstream %s failed: %r", type(obj).__name__, exc)


def _discard_awaitable(res: Any) -> None:
    close = getattr(res, "close", None)
    if close is not None:
        close()


async def _aclose_all(objs: Iterable[Any]) -> None:
    """Async twin of :func:`_close_all`: ``aclose()`` (awaited) or ``close()`` each distinct
    object once; errors are logged, never raised."""
    seen: list[Any] = []
    for obj in objs:
        if obj is None or any(obj is o for o in seen):
            continue
        seen.append(obj)
        fn = getattr(obj, "aclose", None) or getattr(obj, "close", None)
        if fn is None:
            continue
        try:
            res = fn()
            if inspect.isawaitable(res):
                await res
        except Exception as exc:
            logger.debug("closing the upstream %s failed: %r", type(obj).__name__, exc)


class _SyncSource:
    """A plain iterator seen as an async iterator (no async generator, so nothing is left for
    the event loop's async-generator finaliser)."""

    __slots__ = ("_it",)

    def __init__(self, it: Iterator[str]) -> None:
        self._it = it

    def __aiter__(self) -> "_SyncSource":
        return self

    async def __anext__(self) -> str:
        try:
            return next(self._it)
        except StopIteration:
            raise StopAsyncIteration from None

    def close(self) -> None:
        _close_all((self._it,))


class _AnextOnly:
    """``async for`` over an object that has ``__anext__`` but no ``__aiter__`` (closing is left
    to the object itself: the guard closes the source)."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def __aiter__(self) -> "_AnextOnly":
        return self

    def __anext__(self) -> Any:
        return self._obj.__anext__()


class StreamGuard:
    """Iterator returned by :func:`stream_guard`; ``.session`` is the :class:`StreamSession`.

    The upstream is closed (``close()``) on halt, :meth:`close`, exit of ``with``, an exception
    and garbage collection of a guard abandoned mid-stream.

    Thread-safety: one consumer thread at a time; :meth:`close` may be called from another
    thread (it then closes the upstream directly).
    """

    def __init__(self, tokens: Iterable[str], scorer: Any, **kw: Any) -> None:
        _check_token_source(tokens, asynchronous=False)
        self._state = _GuardState(scorer, **kw)
        self._source = tokens
        self._src_it: Any = None
        self._source_closed = False
        self._closing = False
        self._it: Iterator[str] | None = None

    @property
    def session(self) -> StreamSession:
        return self._state.session

    @property
    def cross_turn(self) -> Any:
        """With ``conversation=``: the :class:`~director_fast.CrossTurnReport` of the delivered
        text, once the stream has ended (None before, and without a conversation)."""
        return self._state.cross_turn

    def __iter__(self) -> Iterator[str]:
        if self._it is None:
            self._it = self._run()
        return self._it

    def __next__(self) -> str:
        return next(iter(self))

    def close(self) -> None:
        """Stop guarding early: the upstream iterator is closed (so the model stops) and the
        session's end time recorded. Idempotent; also called by ``with stream_guard(...)`` and
        when the guard is garbage collected mid-stream."""
        it = self._it
        if it is None:  # never iterated: close the source directly
            self._it = iter(())
            self._state.close_session()
        else:
            self._closing = True
            try:
                it.close()
            except ValueError:  # being iterated by another thread right now
                logger.debug("stream_guard.close(): the guard is running in another thread; "
                             "closing the upstream directly")
        self._close_source()

    def __enter__(self) -> "StreamGuard":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # scorer call with deadline / error mapping (sync)
    def _call(self, arg: Any, index: int) -> tuple[str | None, Any]:
        st = self._state
        try:
            if st.timeout is None or st.executor_opt == "inline":
                t0 = time.monotonic()
                if st.incremental:
                    raw = st.fn(arg, previous=st.prev_sentence, **st.call_kwargs)
                else:
                    raw = st.fn(arg)
                if st.timeout is not None and time.monotonic() - t0 > st.timeout:
                    st.missed_deadline()  # executor="inline": checked after the call returned
                    return "callback_timeout", None
            else:
                # a real deadline: the call runs on the scorer's bounded executor; a call that
                # misses it keeps its worker until it returns (counted against the bound)
                fut = st.submit(arg)
                if fut is None:
                    return "callback_timeout", None  # saturated: fail closed at once
                try:
                    raw = fut.result(timeout=st.timeout)
                except concurrent.futures.TimeoutError:
                    if not fut.done():
                        fut.cancel()
                        st.missed_deadline()
                    return "callback_timeout", None
        except (TimeoutError, OSError):
            return "callback_timeout", None
        except BaseException:
            st.finish_halt("scorer_error")
            raise
        st.session.scorer_calls += 1
        if inspect.isawaitable(raw):
            close = getattr(raw, "close", None)
            if close is not None:
                close()
            st.finish_halt("scorer_error")
            raise InputTypeError("the scorer returned an awaitable: use astream_guard for async scorers")
        return None, raw

    def _close_source(self) -> None:
        """Close the upstream once: its iterator and the source object (an SDK stream whose
        ``__iter__`` is a generator is only released by the object's own ``close()``)."""
        if self._source_closed:
            return
        self._source_closed = True
        _close_all((self._src_it, self._source))

    def _run(self) -> Iterator[str]:
        st = self._state
        src = self._src_it = iter(self._source)
        try:
            if st.incremental:
                yield from self._run_incremental(src)
            else:
                yield from self._run_plain(src)
        except UpstreamError as exc:  # the model's stream failed in-band: a halt
            if st.done:
                raise
            st.upstream_failed(exc)
        except Exception as exc:  # the token source raised: record the halt, then re-raise
            if not st.done and not self._closing:
                st.upstream_failed(exc)
            raise
        finally:
            # every way out closes the upstream: halt, early close(), garbage collection of an
            # abandoned guard, an exception, and the normal end (releases an HTTP connection)
            st.close_session()
            self._close_source()
        if st.session.halted and st.raise_on_halt:
            raise st.halted_error()

    def _run_plain(self, src: Iterator[str]) -> Iterator[str]:
        st = self._state
        s = st.session
        k = st.kernel
        feed = k.feed  # returns action | (4 if the next token wants a fresh score)
        keep = st.keep
        tokens = s.tokens
        scores = s._scores
        times = s._times
        flags = s._flags
        soft = st.config.halt_mode == "soft"
        active = st.kernel_active
        mono = time.monotonic
        fn = st.fn
        timed = st.timeout is not None
        acc = ""
        last = 0.5
        want = k.wants_score
        for tok in src:
            if type(tok) is not str:
                _check_token(tok, len(tokens))
            if active is not None and not active():
                st.finish_halt("kernel_inactive")
                return
            acc += tok
            if want:
                if timed:
                    err, raw = self._call(acc, len(tokens))
                    if err is not None:
                        st.finish_halt(err)
                        return
                else:
                    try:
                        raw = fn(acc)
                    except (TimeoutError, OSError):
                        st.finish_halt("callback_timeout")
                        return
                    except BaseException:
                        st.finish_halt("scorer_error")
                        raise
                    s.scorer_calls += 1
                if type(raw) is float and 0.0 <= raw <= 1.0:
                    last = raw
                else:
                    last = self._slow_score(raw, len(tokens))
                code = feed(last, True, soft and _is_sentence_end(tok))
                fl = _F_SCORED
            else:
                code = feed(last, False, soft and _is_sentence_end(tok))
                fl = 0
            want = code & 4
            act = code & 3
            tokens.append(tok)
            if keep:
                scores.append(last)
                times.append(mono())
            if act == _ACT_HALT:
                if keep:
                    flags.append(fl | _F_HALTED)
                st.finish_halt()
                if s.soft_halted:
                    s.delivered_count += 1
                    yield tok
                return
            if act == _ACT_WARN:
                s.warning_count += 1
                fl |= _F_WARNING
            if keep:
                flags.append(fl)
            s.delivered_count += 1
            yield tok
        d = k.finish()
        if d.halted and not st.done:
            st.finish_halt()

    def _slow_score(self, raw: Any, index: int) -> float:
        """Validate a scorer result that is not a plain float in [0, 1] (halts on error)."""
        st = self._state
        if inspect.isawaitable(raw):
            close = getattr(raw, "close", None)
            if close is not None:
                close()
            st.finish_halt("scorer_error")
            raise InputTypeError("the scorer returned an awaitable: use astream_guard for async scorers")
        try:
            return _normalise_result(raw, index).score
        except ScoreError:
            st.finish_halt("scorer_error")
            raise

    def _run_incremental(self, src: Iterator[str]) -> Iterator[str]:
        st = self._state
        s = st.session
        seg = st.seg
        token_release = st.release == "token"
        active = st.kernel_active
        tokens = s.tokens
        tokens_append = tokens.append
        ends = st.ends
        ends_append = ends.append
        off = ends[-1] if len(ends) else 0
        seg_feed = seg.feed
        # the per-token work of _GuardState.add_token_incremental, inlined (hot loop)
        for tok in src:
            if type(tok) is not str:
                _check_token(tok, len(tokens))
            if active is not None and not active():
                st.finish_halt("kernel_inactive")
                return
            tokens_append(tok)
            off += len(tok)
            ends_append(off)
            spans = seg_feed(tok)
            if token_release:
                s.delivered_count += 1
                yield tok
            for (a, b) in spans:
                if (yield from self._score_span(a, b)):
                    return
        for (a, b) in seg.flush():
            if (yield from self._score_span(a, b)):
                return
        st.end_stream()
        yield from self._drain()

    def _score_span(self, a: int, b: int) -> Iterator[str]:
        """Score the sentence [a, b) and step its tokens; yields the tokens that became
        deliverable and returns True when the stream halted."""
        st = self._state
        sentence, idx, first = st.begin_sentence(a, b)
        err, raw = self._call(sentence, first)
        halted = st.end_sentence(sentence, idx, first, err, raw)
        yield from self._drain()
        return halted

    def _drain(self) -> Iterator[str]:
        st = self._state
        s = st.session
        ready = st.ready
        tokens = s.tokens
        while ready:
            i = ready.popleft()
            s.delivered_count += 1
            yield tokens[i]


def stream_guard(
    tokens: Iterable[str],
    scorer: Any,
    *,
    prompt: str = "",
    config: HaltConfig | None = None,
    tenant_id: str = "",
    request_id: str = "",
    raise_on_halt: bool = False,
    release: str | None = None,
    scorer_timeout_s: float | None = None,
    keep_events: bool = True,
    evidence_callback: Callable[[str], str | None] | None = None,
    kernel_active: Callable[[], bool] | None = None,
    context: Any = None,
    system: str | None = None,
    messages: Any = None,
    executor: ScorerExecutor | str | None = None,
    conversation: Any = None,
    structured: str | None = None,
) -> StreamGuard:
    """Guard a token stream; iterate the result to receive the tokens that are safe to forward.

    Args:
        tokens: any iterable of ``str`` tokens (closed with ``close()`` on halt if it has one).
        scorer: a plain callable ``text -> float`` or an incremental scorer (module docstring).
        prompt: the user's message, handed to an incremental scorer.
        config: :class:`HaltConfig`. Default: for an incremental scorer with a ``threshold``
            attribute (such as ``CoherenceScorer``) it is derived from the scorer so that the
            stream halts exactly when ``review`` would reject: ``hard_limit = window_threshold =
            scorer.threshold`` (the window threshold 1e-9 lower, so float rounding of a mean of
            scores all at the threshold cannot halt), ``soft_limit = scorer.soft_limit``
            (``threshold`` when the scorer has none or None), trend check off
            (``trend_threshold=1.0``); otherwise ``HaltConfig()`` (director-ai's defaults). Any
            real number in [0, 1] is accepted (numpy scalars included); a ``threshold`` or
            ``soft_limit`` that is not (a str, NaN, 1.7, a bool) or ``soft_limit < threshold``
            raises ConfigError (field ``scorer.threshold`` / ``scorer.soft_limit``).
        tenant_id, request_id: copied into SafetyEvents and handed to the scorer (tenant-scoped
            retrieval).
        raise_on_halt: raise :class:`~director_fast.errors.StreamHalted` (with ``.session``) after
            the last safe token instead of just stopping.
        release: ``"token"`` or ``"sentence"`` (default: ``"sentence"`` for incremental scorers,
            ``"token"`` for plain callables).
        scorer_timeout_s: per-call deadline in seconds (> 0); a missed deadline halts with
            ``callback_timeout`` at the deadline, not when the call returns. With it set, sync
            scorers run on the scorer's bounded :class:`ScorerExecutor` (a call that misses the
            deadline keeps its worker until it returns; no thread is ever added beyond
            ``max_workers``); without it they run on the calling thread.
        keep_events: keep per-token records (scores, timestamps, flags: ~17 bytes/token plus the
            token string); ``False`` keeps only tokens, counters and the halt record.
        evidence_callback: compatibility hook ``text -> str | None`` called once on halt.
        kernel_active: callable checked per token; when it returns False the stream halts with
            ``kernel_inactive`` (a shared guard switched off by an operator).
        context, system, messages: the call's evidence (str or list of str), system prompt and
            OpenAI-format messages, forwarded to an incremental scorer whose ``score_sentence``
            accepts them (a warning is logged when it does not, and they are not used).
        executor: where sync scorer calls run when they run off the caller's thread (sync guard:
            with ``scorer_timeout_s``; async guard: always): ``None`` (default) the
            :class:`ScorerExecutor` shared by every guard of this scorer
            (``ScorerExecutor.for_scorer(scorer)``), a given ``ScorerExecutor``, or ``"inline"``
            (call on the caller's thread / the event loop; the deadline is then only checked
            after the call returns). A saturated executor halts the stream at once with
            ``callback_timeout`` and the SafetyEvent attribute ``executor_saturated="true"``.
        structured: ``"json"`` when the stream produces a JSON document (default ``None``). On a
            halt, ``session.structured_recovery`` then holds a
            :class:`~director_fast.types.verification.StructuredRecoveryResult` whose
            ``last_valid_output`` is the delivered prefix made parser-safe: complete members
            kept, the member in progress dropped, open containers closed
            (:func:`director_fast.stream.structured.recover_json`); ``None`` when the stream did not
            halt.

        conversation: a :class:`~director_fast.ConversationSession` (named ``conversation``, not
            ``session``, because a guard's ``.session`` is its StreamSession). It is seeded from
            the ``assistant`` turns of ``messages``; when the stream ends (any way, halts
            included) the text actually delivered is checked against the earlier turns (the
            report is ``guard.cross_turn``, a :class:`~director_fast.CrossTurnReport`) and
            remembered as a new turn. The check does not halt the stream. It runs on the thread
            (or event loop) that ends the stream: about 1-3 ms for five claims.

    Returns:
        :class:`StreamGuard` (an iterator of ``str``) whose ``.session`` is the
        :class:`~director_fast.stream.kernel.StreamSession`.

    Raises:
        ConfigError / InputTypeError: on invalid arguments (at call time);
        UnknownTenantError: the scorer's knowledge holds nothing for ``tenant_id`` (at call
        time; see ``CoherenceScorer(allow_unknown_tenant=...)``); during iteration
        ``ScoreError`` for an invalid score, the scorer's own exception, ``InputTypeError`` for a
        non-``str`` token, ``StreamHalted`` when ``raise_on_halt`` is set.
    """
    return StreamGuard(
        tokens, scorer, prompt=prompt, config=config, tenant_id=tenant_id, request_id=request_id,
        raise_on_halt=raise_on_halt, release=release, scorer_timeout_s=scorer_timeout_s,
        keep_events=keep_events, evidence_callback=evidence_callback, kernel_active=kernel_active,
        context=context, system=system, messages=messages, executor=executor, conversation=conversation,
        structured=structured)


class AsyncStreamGuard:
    """Async iterator returned by :func:`astream_guard`; ``.session`` is the StreamSession.

    Same decisions as :class:`StreamGuard` for the same inputs. The scorer may be sync or async:
    an ``async def`` scorer is awaited on the loop, a sync one runs on a bounded
    :class:`ScorerExecutor` (never on the event loop, unless ``executor="inline"``);
    ``scorer_timeout_s`` is a real deadline for both.

    The upstream is closed (``aclose()`` awaited, or ``close()``) on halt, ``aclose()``, exit of
    ``async with``, an exception, cancellation of the reading task and garbage collection.

    Thread-safety: one consumer task at a time; :meth:`aclose` may be called from another task
    of the same event loop.
    """

    def __init__(self, tokens: AsyncIterable[str] | Iterable[str], scorer: Any, **kw: Any) -> None:
        _check_token_source(tokens, asynchronous=True)
        self._state = _GuardState(scorer, **kw)
        self._source = tokens
        self._src_it: Any = None
        self._source_closed = False
        self._closing = False
        self._reader: asyncio.Task[Any] | None = None
        # the task's callback holds the guard weakly: a guard dropped mid-stream is still closed
        # by garbage collection while its reading task lives on
        self._reader_cb = functools.partial(_reader_done, weakref.ref(self))
        self._it: AsyncGenerator[str, None] | None = None
        self._sync = StreamGuard.__new__(StreamGuard)  # reuse the sync drain helpers
        self._sync._state = self._state

    @property
    def session(self) -> StreamSession:
        return self._state.session

    @property
    def cross_turn(self) -> Any:
        """With ``conversation=``: the :class:`~director_fast.CrossTurnReport` of the delivered
        text, once the stream has ended (None before, and without a conversation)."""
        return self._state.cross_turn

    def __aiter__(self) -> AsyncIterator[str]:
        if self._it is None:
            self._it = self._run()
        return self._it

    async def __anext__(self) -> str:
        return await self.__aiter__().__anext__()

    async def aclose(self) -> None:
        """Stop guarding: the upstream is closed (its ``aclose()`` awaited, or ``close()``) and
        the session's end time recorded. Idempotent; also run by ``async with``, and after a
        cancellation of the task reading the guard (the upstream is then already closed)."""
        it = self._it
        if it is None:  # never iterated: close the source directly
            self._it = _empty_aiter()
            self._state.close_session()
        else:
            self._closing = True
            try:
                await it.aclose()
            except RuntimeError:  # being iterated by another task right now
                logger.debug("astream_guard.aclose(): the guard is running in another task; "
                             "closing the upstream directly")
        await self._close_source()

    async def __aenter__(self) -> "AsyncStreamGuard":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _call(self, arg: Any, index: int) -> tuple[str | None, Any]:
        st = self._state
        timeout = st.timeout
        t0 = time.monotonic()
        try:
            if st.is_async or st.executor_opt == "inline":
                if st.incremental:
                    raw = st.fn(arg, previous=st.prev_sentence, **st.call_kwargs)
                else:
                    raw = st.fn(arg)
            else:
                # a sync scorer never runs on the event loop: bounded executor, real deadline
                fut = st.submit(arg)
                if fut is None:
                    return "callback_timeout", None  # saturated: fail closed at once
                try:
                    if timeout is None:
                        raw = await asyncio.wrap_future(fut)
                    else:
                        raw = await asyncio.wait_for(asyncio.wrap_future(fut), timeout)
                except asyncio.TimeoutError:
                    if not fut.done() or fut.cancelled():
                        st.missed_deadline()
                    return "callback_timeout", None
            if inspect.isawaitable(raw):
                if timeout is None:
                    raw = await raw
                else:
                    left = timeout - (time.monotonic() - t0)
                    try:
                        if left <= 0:
                            raise asyncio.TimeoutError
                        raw = await asyncio.wait_for(raw, left)
                    except asyncio.TimeoutError:
                        close = getattr(raw, "close", None)
                        if left <= 0 and close is not None:
                            close()  # never started
                        if time.monotonic() - t0 >= timeout:
                            st.missed_deadline()
                        return "callback_timeout", None
            elif timeout is not None and time.monotonic() - t0 > timeout:
                st.missed_deadline()  # executor="inline": checked after the call returned
                return "callback_timeout", None
        except asyncio.CancelledError:
            raise  # the reading task was cancelled: not a scorer failure
        except (TimeoutError, OSError):
            return "callback_timeout", None
        except BaseException:
            st.finish_halt("scorer_error")
            raise
        st.session.scorer_calls += 1
        return None, raw

    def _watch(self, task: "asyncio.Task[Any] | None") -> None:
        """Follow the task that reads the guard: when it ends cancelled or with an exception
        while the guard is suspended mid-stream (the consumer was cancelled while it awaited
        something else, e.g. a write to a disconnected client), the guard closes itself without
        waiting for garbage collection."""
        old = self._reader
        if old is not None:
            old.remove_done_callback(self._reader_cb)
        self._reader = task
        if task is not None:
            task.add_done_callback(self._reader_cb)

    def _on_reader_done(self, task: "asyncio.Task[Any]") -> None:
        if task is not self._reader:
            return
        self._reader = None
        if not task.cancelled() and task.exception() is None:
            return  # ended normally: the guard may have been handed on; GC closes it otherwise
        closer = task.get_loop().create_task(self.aclose())
        _PENDING_CLOSES.add(closer)
        closer.add_done_callback(_PENDING_CLOSES.discard)

    async def _close_source(self) -> None:
        if self._source_closed:
            return
        self._source_closed = True
        await _aclose_all((self._src_it, self._source))

    async def _run(self) -> AsyncGenerator[str, None]:
        st = self._state
        src = self._source
        if hasattr(src, "__aiter__"):
            it = src.__aiter__()
        elif hasattr(src, "__anext__"):  # an async iterator object without __aiter__
            it = _AnextOnly(src)
        else:
            it = _SyncSource(iter(src))
        self._src_it = it
        inner = self._run_incremental(it) if st.incremental else self._run_plain(it)
        current_task = asyncio.current_task
        try:
            async for t in inner:
                task = current_task()
                if task is not self._reader:
                    self._watch(task)
                yield t
        except UpstreamError as exc:  # the model's stream failed in-band: a halt
            if st.done:
                raise
            st.upstream_failed(exc)
        except Exception as exc:  # the token source raised: record the halt, then re-raise
            if not st.done and not self._closing:
                st.upstream_failed(exc)
            raise
        finally:
            # every way out closes the upstream: a halt, aclose() / async with, a cancellation of
            # the reading task (CancelledError raised at an await inside, or the task ending while
            # the guard waits at a yield: _on_reader_done), garbage collection (the event loop's
            # async-generator finaliser), an exception and the normal end
            self._watch(None)
            st.close_session()
            try:
                await inner.aclose()
            finally:
                await self._close_source()
        if st.session.halted and st.raise_on_halt:
            raise st.halted_error()

    async def _run_plain(self, src: AsyncIterator[str]) -> AsyncGenerator[str, None]:
        st = self._state
        s = st.session
        k = st.kernel
        soft = st.config.halt_mode == "soft"
        active = st.kernel_active
        acc = ""
        last = 0.5
        async for tok in src:
            i = len(s.tokens)
            _check_token(tok, i)
            if active is not None and not active():
                st.finish_halt("kernel_inactive")
                return
            acc += tok
            se = soft and _is_sentence_end(tok)
            if k.wants_score:
                err, raw = await self._call(acc, i)
                if err is not None:
                    st.finish_halt(err)
                    return
                try:
                    score = _normalise_result(raw, i).score
                except ScoreError:
                    st.finish_halt("scorer_error")
                    raise
                last = score
                st.record(tok, last, _F_SCORED)
                act = st.step(i, score, True, se)
            else:
                st.record(tok, last, 0)
                act = st.step(i, last, False, se)
            if act == _ACT_HALT:
                st.finish_halt()
                if s.soft_halted:
                    s.delivered_count += 1
                    yield tok
                return
            s.delivered_count += 1
            yield tok
        d = k.finish()
        if d.halted and not st.done:
            st.finish_halt()

    async def _run_incremental(self, src: AsyncIterator[str]) -> AsyncGenerator[str, None]:
        st = self._state
        s = st.session
        token_release = st.release == "token"
        active = st.kernel_active
        drain = self._sync._drain
        async for tok in src:
            i = len(s.tokens)
            _check_token(tok, i)
            if active is not None and not active():
                st.finish_halt("kernel_inactive")
                return
            spans = st.add_token_incremental(tok)
            if token_release:
                s.delivered_count += 1
                yield tok
            for (a, b) in spans:
                halted = await self._score_span(a, b)
                for t in drain():
                    yield t
                if halted:
                    return
            for t in drain():
                yield t
        for (a, b) in st.seg.flush():
            halted = await self._score_span(a, b)
            for t in drain():
                yield t
            if halted:
                return
        st.end_stream()
        for t in drain():
            yield t

    async def _score_span(self, a: int, b: int) -> bool:
        st = self._state
        sentence, idx, first = st.begin_sentence(a, b)
        err, raw = await self._call(sentence, first)
        return st.end_sentence(sentence, idx, first, err, raw)


def _reader_done(ref: "weakref.ref[AsyncStreamGuard]", task: "asyncio.Task[Any]") -> None:
    guard = ref()
    if guard is not None:
        guard._on_reader_done(task)


#: close tasks started by _on_reader_done (the loop keeps only weak references to tasks)
_PENDING_CLOSES: set[Any] = set()


async def _empty_aiter() -> AsyncGenerator[str, None]:
    return
    yield  # pragma: no cover - makes this an async generator


def astream_guard(
    tokens: AsyncIterable[str] | Iterable[str],
    scorer: Any,
    *,
    prompt: str = "",
    config: HaltConfig | None = None,
    tenant_id: str = "",
    request_id: str = "",
    raise_on_halt: bool = False,
    release: str | None = None,
    scorer_timeout_s: float | None = None,
    keep_events: bool = True,
    evidence_callback: Callable[[str], str | None] | None = None,
    kernel_active: Callable[[], bool] | None = None,
    context: Any = None,
    system: str | None = None,
    messages: Any = None,
    executor: ScorerExecutor | str | None = None,
    conversation: Any = None,
    structured: str | None = None,
) -> AsyncStreamGuard:
    """Async twin of :func:`stream_guard` (same arguments and decisions).

    ``tokens`` may be an async iterable (an OpenAI-style stream after text extraction), an object
    with ``__anext__`` (and ``aclose()``), or a plain iterable; ``async for tok in
    astream_guard(...)`` yields the safe tokens. A sync scorer runs on a bounded executor, off the
    event loop (``executor=``). The upstream's ``aclose()`` is awaited on halt, on ``aclose()`` /
    ``async with`` exit and when the reading task is cancelled. See :func:`stream_guard` for every
    argument.
    """
    return AsyncStreamGuard(
        tokens, scorer, prompt=prompt, config=config, tenant_id=tenant_id, request_id=request_id,
        raise_on_halt=raise_on_halt, release=release, scorer_timeout_s=scorer_timeout_s,
        keep_events=keep_events, evidence_callback=evidence_callback, kernel_active=kernel_active,
        context=context, system=system, messages=messages, executor=executor, conversation=conversation,
        structured=structured)

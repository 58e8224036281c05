"""The per-stream state machine of :func:`director_fast.stream.stream_guard.stream_guard`
(``_GuardState``): one kernel step per token, the sentence segmenter and the tokens held back
under ``release="sentence"`` until their sentence is scored, the scorer calls (inline or on the
bounded executor, with the deadline), and the halt: its reason, its SafetyEvent and its
:class:`HaltEvidence`. Shared by the sync and async guards of ``stream_guard.py``, which own the
token source, closing it and the iterator protocols. Also the helpers the state machine needs
(score normalisation, the derived halt configuration, the accepted result extras).

Thread-safety: one state per guard; a guard belongs to one consumer.
"""

from __future__ import annotations

import concurrent.futures
from bisect import bisect_left, bisect_right
import dataclasses
import inspect
import logging
import math
import re
import time
from array import array
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

from director_fast.stream.halt import HaltConfig, HaltReason, format_reason, suggested_action
from director_fast.safety.event import SafetyEvent
from director_fast.stream.session import _F_HALTED, _F_SCORED, _F_WARNING, StreamSession, TokenEvent
from director_fast.safety.halt_evidence import EvidenceChunk, HaltEvidence, HaltTraceAttribution
from director_fast.types.results import ClaimAttribution
from director_fast.safety.tenant import TenantSafetyError
from director_fast.errors import ConfigError, InputTypeError, ScoreError, StreamHalted, UpstreamError
from director_fast.stream.executor import ExecutorStalled, ScorerExecutor
from director_fast.stream.deadlines import check_limit
from director_fast.stream.fences import FenceHold
from director_fast._log import warn_limited
from director_fast import telemetry as _telemetry
from director_fast.stream.structured import STRUCTURED_KINDS, recover_structured
from director_fast.verify.explain import explain_halt, halt_cause, suggestion_for


logger = logging.getLogger("director_fast.stream_guard")
_ACT_HALT = 3
_ACT_WARN = 1
# kernel action code -> session flag bits (incremental path: every token gets a real score)
_CODE_TO_FLAGS = bytes([_F_SCORED, _F_SCORED | _F_WARNING, _F_SCORED, _F_SCORED | _F_HALTED] + [0] * 252)
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
                 structured: str | None = None, idle_timeout_s: float | None = None,
                 deadline_s: float | None = None) -> None:
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
        self.ex: ScorerExecutor | None = None  # the executor this stream's calls run on (first use)
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
        self.idle_timeout = check_limit("idle_timeout_s", idle_timeout_s)  # the upstream's limits
        self.deadline = check_limit("deadline_s", deadline_s)
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
        # a fenced code block reaches the scorer whole, as review judges it (stream.fences)
        self.fences = FenceHold(self.session.tokens, self.ends) if self.incremental else None
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
        claim = self._halt_claim(res)
        evidence = HaltEvidence(
            reason=reason.value,
            last_score=float(last),
            evidence_chunks=list(chunks),
            nli_scores=list(res.nli_scores) if (res is not None and res.nli_scores is not None) else None,
            suggested_action=_halt_suggestion(reason.value, claim),
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
        if claim is not None:
            s.halt_claim = claim
            attrs["claim_index"] = str(claim.claim_index)
            attrs["verdict"] = claim.verdict
        explanation = explain_halt(s)
        if explanation is not None:  # references only: cause, signal, digests; never the texts
            attrs.update(explanation.references())
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
                    "the executor is stalled (every worker past its deadline)" if "executor_stalled" in attrs else
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
        self.conversation_turn: int | None = None
        if messages is not None:
            conversation.seed(messages)
            roles = resolve_roles("", messages=messages)
            self.conversation_prompt = roles.prompt
            self.conversation_turn = len(roles.earlier_assistant)  # its number in that transcript
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
        self.cross_turn = conv.observe(self.conversation_prompt, out, judge=judge, remember=bool(out.strip()),
                                       turn_index=self.conversation_turn)

    # ---- scorer calls off the caller's thread ----------------------------------------------------
    def executor(self) -> ScorerExecutor:
        """The executor for this stream's sync scorer calls: the one given, else the one shared by
        every guard of this scorer."""
        ex = self.executor_opt
        if isinstance(ex, ScorerExecutor):
            return ex
        return ScorerExecutor.for_scorer(self.scorer)

    def submit(self, arg: Any) -> concurrent.futures.Future | None:
        """Start a sync scorer call on the executor (kept in :attr:`ex`); None (and the halt
        attributes set) when the executor refuses it: stalled, or saturated with
        ``on_saturated="fail"``."""
        ex = self.ex
        if ex is None:
            ex = self.ex = self.executor()
        if self.incremental:
            fut = ex.try_submit(self.fn, arg, previous=self.prev_sentence, **self.call_kwargs)
        else:
            fut = ex.try_submit(self.fn, arg)
        if fut is None:
            self.halt_attrs["executor_stalled" if ex.stalled else "executor_saturated"] = "true"
            self.halt_attrs["executor_max_workers"] = str(ex.max_workers)
        return fut

    def executor_failed(self, exc: BaseException) -> None:
        """A call on the executor missed its deadline (``DeadlineMissed``) or could not start
        (``ExecutorStalled``): the halt's attributes."""
        if isinstance(exc, ExecutorStalled):
            self.halt_attrs["executor_stalled"] = "true"
            self.halt_attrs["executor_max_workers"] = str(self.ex.max_workers if self.ex else 0)
        else:
            self.missed_deadline()

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
        spans = self.seg.feed(tok)
        return self.fences.merge(spans) if spans else spans

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
def _halt_suggestion(reason: str, claim: Any) -> str:
    """The halt's advice: the cause's (:func:`~director_fast.verify.explain.halt_cause`) when a
    claim or a failure explains the halt, else the reason's (:func:`suggested_action`)."""
    explained = (claim is not None and claim.verdict != "supported") or reason in (
        "scorer_error", "callback_timeout", "upstream_error", "kernel_inactive")
    return suggestion_for(halt_cause(reason, claim)) if explained else suggested_action(reason)


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

"""``CoherenceAgent``: generate several candidate answers, verify each, deliver the best approved
one, and fall back safely when none passes.

One call of :meth:`CoherenceAgent.process`:

1. ``generator(prompt, n)`` returns ``n`` candidate strings (``context=`` / ``messages=`` are
   passed on when its signature accepts them);
2. each candidate is judged by the scorer (``scorer.review``; by default a
   :class:`~director_fast.verify.scorer.CoherenceScorer` whose evidence is the call's ``context``);
3. the best approved candidate is returned; when none is approved, the *fallback* answers
   instead and nothing generated is delivered (``halted=True``, ``fallback_used=True``):

   * ``"abstain"``: a fixed message (``abstain_message``);
   * ``"extractive"``: the evidence sentences most relevant to the prompt, verbatim (from the
     call's ``context`` and tool messages and the scorer's knowledge for the tenant); the abstain
     message when no evidence sentence shares a word with the prompt;
   * any other string: that string is the message.

The result is a :class:`~director_fast.types.results.ReviewResult` with the structured halt reason of
the best rejected candidate (``halt_evidence`` with trace attribution) and the tenant-safe audit
records (``safety_events``, hook scope ``agent``) of every decision taken.

:meth:`CoherenceAgent.aprocess` is the same for async code (an ``async def`` generator or scorer
is awaited; a sync scorer runs on worker threads) and scores the candidates concurrently; it
returns what :meth:`process` returns for the same inputs. :meth:`CoherenceAgent.stream` /
:meth:`CoherenceAgent.astream` deliver the answer as a token stream guarded by
:func:`~director_fast.stream.stream_guard.stream_guard`: a candidate that halts before any of its tokens
reached the caller is replaced by the next one; a halt after tokens were delivered ends the
stream there (no retry mid-stream).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import re
import time
from collections.abc import AsyncIterator, Generator, Mapping, Sequence
from typing import Any, Callable

from director_fast.safety.halt_evidence import EvidenceChunk, HaltEvidence, HaltTraceAttribution
from director_fast.stream.halt import HaltConfig, suggested_action
from director_fast.verify.explain import explain
from director_fast.safety.event import MAX_ID_LEN, MAX_REF_LEN, MAX_REFS, MAX_TRACE_TEXT_LEN, SafetyEvent
from director_fast.stream.session import StreamSession
from director_fast.safety.tenant import _CTRL, TenantSafetyError, check_text
from director_fast.verify.scorer import CoherenceScorer
from director_fast.types.results import CoherenceScore, ReviewResult
from director_fast.errors import ConfigError, InputTypeError, UnknownTenantError, ValidationError
from director_fast.verify.nli import LexicalIndex
from director_fast.verify.roles import resolve_roles
from director_fast.stream.stream_guard import astream_guard, stream_guard
from director_fast.verify.text import split_sentences

__all__ = ["CoherenceAgent", "AgentStream", "AsyncAgentStream", "FALLBACK_MODES", "DEFAULT_ABSTAIN_MESSAGE",
           "EXTRACTIVE_RELATIVE_FLOOR", "MAX_CANDIDATES"]

#: the named fallback modes; any other non-empty string is used as the fallback message itself.
FALLBACK_MODES = frozenset({"abstain", "extractive"})

#: the default ``abstain_message``.
DEFAULT_ABSTAIN_MESSAGE = ("I can't give a reliable answer to that from the information I have, "
                           "so I won't guess.")

#: an ``"extractive"`` answer keeps a sentence only when its word overlap with the prompt is at
#: least this fraction of the best sentence's.
EXTRACTIVE_RELATIVE_FLOOR = 0.5

#: upper bound of ``candidates`` (a guard against a runaway configuration).
MAX_CANDIDATES = 64

_TOKENS = re.compile(r"\S+\s*|\s+")


def _tokens(text: str) -> list[str]:
    """``text`` cut into word tokens, each with its trailing whitespace (``"".join`` restores it)."""
    return _TOKENS.findall(text)


def _accepts(fn: Any, names: Sequence[str]) -> frozenset[str]:
    """Which of ``names`` ``fn`` accepts as keyword arguments (all of them with ``**kwargs``;
    none when the signature cannot be read)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return frozenset(names)
    return frozenset(n for n in names if n in params and params[n].kind in (
        inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD))


def _check_id(value: Any, name: str) -> str:
    """A tenant or request id that can go into a SafetyEvent (checked before anything runs)."""
    if not isinstance(value, str):
        raise InputTypeError(f"{name} must be a str, got {type(value).__name__}")
    if len(value) > MAX_ID_LEN:
        raise ConfigError(f"{name} is longer than {MAX_ID_LEN} code points", name)
    if value:
        try:
            check_text(value, name)
        except (ValidationError, TenantSafetyError) as exc:
            raise ConfigError(str(exc), name) from None
    return value


def _refs(chunks: Sequence[EvidenceChunk]) -> tuple[str, ...]:
    """Evidence references of ``chunks`` for a SafetyEvent: each chunk's source label, or
    ``chunk:<i>`` when it has none or the label cannot travel in an event (too long, a control
    character); at most :data:`MAX_REFS`."""
    out = []
    for i, c in enumerate(chunks[:MAX_REFS]):
        src = c.source
        out.append(src if src and len(src) <= MAX_REF_LEN and not _CTRL.search(src) else f"chunk:{i}")
    return tuple(out)


def _close_awaitable(obj: Any) -> None:
    close = getattr(obj, "close", None)
    if callable(close):
        close()


class _Call:
    """The resolved inputs of one agent call."""

    __slots__ = ("prompt", "score_prompt", "context", "messages", "tenant_id", "request_id", "evidence",
                 "gen_kwargs", "score_kwargs", "t0")

    def __init__(self, agent: "CoherenceAgent", prompt: Any, context: Any, messages: Any, tenant_id: Any,
                 request_id: Any) -> None:
        self.t0 = time.perf_counter()
        if not isinstance(prompt, str):
            raise InputTypeError(f"prompt must be a str, got {type(prompt).__name__}")
        self.tenant_id = _check_id(agent.tenant_id if tenant_id is None else tenant_id, "tenant_id")
        self.request_id = _check_id(request_id, "request_id")
        if messages is not None:
            msgs = list(messages) if isinstance(messages, (list, tuple)) else messages
            if prompt and isinstance(msgs, list):
                msgs = msgs + [{"role": "user", "content": prompt}]
            roles = resolve_roles("", context=context, messages=msgs)
            self.messages = msgs
            self.prompt = roles.prompt
            self.score_prompt = ""  # the scorer reads the user's turn from messages
        else:
            roles = resolve_roles(prompt, context=context)
            self.messages = None
            self.prompt = prompt
            self.score_prompt = prompt
        self.context = context
        self.evidence = roles.evidence
        extras = {"context": context, "messages": self.messages}
        self.gen_kwargs = {k: v for k, v in extras.items() if v is not None and k in agent._gen_accepts}
        self.score_kwargs = {k: v for k, v in extras.items() if v is not None}


@dataclasses.dataclass(frozen=True, slots=True)
class _Judged:
    """One judged candidate."""

    index: int
    text: str
    approved: bool
    score: CoherenceScore


class CoherenceAgent:
    """Generate candidates, verify them, deliver the best approved one or a safe fallback.

    Args:
        generator: ``generator(prompt, n) -> list[str]`` (``n`` candidate answers), a plain or
            ``async def`` callable; ``context=`` and ``messages=`` are passed on when its
            signature accepts them. It may return fewer than ``n`` strings (an API that filtered
            some); blank strings are dropped; none left makes the fallback answer (halt reason
            ``no_candidates``). ``candidate_index`` in the events counts the answers kept.
        scorer: an object with ``review(prompt, response, tenant_id=..., context=...,
            messages=...) -> (approved, CoherenceScore)`` (such as
            :class:`~director_fast.verify.scorer.CoherenceScorer`; ``review`` may be ``async def``).
            ``None``: ``CoherenceScorer()`` without knowledge, so the only evidence is the call's
            ``context`` (and tool messages): **without context every factual answer is
            ``not_found`` and the fallback fires**.
        candidates: how many candidates to ask for (1 .. :data:`MAX_CANDIDATES`, default 3).
        fallback: ``"abstain"`` (default), ``"extractive"``, or any other non-empty string (the
            message itself).
        stop_on_first: True (default): candidates are judged in generation order and the first
            approved one is delivered (``process`` scores no further candidate). False: every
            candidate is judged and the approved one with the highest score is delivered (ties:
            the earliest).
        tenant_id: default tenant of every call (a call's ``tenant_id=`` overrides it).
        abstain_message: the ``"abstain"`` message (and the ``"extractive"`` one when no evidence
            sentence fits the prompt).
        extractive_sentences: evidence sentences in an ``"extractive"`` answer (>= 1, default 3).
        stream_generator: for :meth:`stream` / :meth:`astream`: ``stream_generator(prompt) ->
            iterable of str tokens`` for one candidate (an async iterable for :meth:`astream`;
            ``context=`` / ``messages=`` passed on when accepted), called once per candidate
            tried. ``None``: the candidates of ``generator`` are streamed word by word.
        stream_config: :class:`~director_fast.stream.halt.HaltConfig` of the streaming guard
            (``None``: derived from the scorer, so a stream halts where ``review`` rejects).

    Raises:
        InputTypeError: ``generator`` is not callable, ``scorer`` has no ``review``, a flag of
            the wrong type. ConfigError: an out-of-range value (``.field`` names it).

    Thread safety: an agent holds no per-call state; :meth:`process` / :meth:`aprocess` /
    :meth:`stream` may run concurrently from many threads and tasks when the generator and the
    scorer allow it (``CoherenceScorer`` does). A stream object belongs to one consumer.
    """

    def __init__(
        self,
        generator: Callable[..., Any],
        scorer: Any | None = None,
        *,
        candidates: int = 3,
        fallback: str = "abstain",
        stop_on_first: bool = True,
        tenant_id: str = "",
        abstain_message: str = DEFAULT_ABSTAIN_MESSAGE,
        extractive_sentences: int = 3,
        stream_generator: Callable[..., Any] | None = None,
        stream_config: HaltConfig | None = None,
    ) -> None:
        if not callable(generator):
            raise InputTypeError(f"generator must be callable (prompt, n) -> list[str], got {type(generator).__name__}")
        if scorer is None:
            scorer = CoherenceScorer()
        if not callable(getattr(scorer, "review", None)):
            raise InputTypeError(f"scorer must have a review(prompt, response, ...) method, got {type(scorer).__name__}")
        if isinstance(candidates, bool) or not isinstance(candidates, int) or not 1 <= candidates <= MAX_CANDIDATES:
            raise ConfigError(f"candidates must be an int in [1, {MAX_CANDIDATES}], got {candidates!r}", "candidates")
        if not isinstance(fallback, str) or not fallback.strip():
            raise ConfigError("fallback must be 'abstain', 'extractive' or a non-empty message string", "fallback")
        if not isinstance(stop_on_first, bool):
            raise InputTypeError(f"stop_on_first must be a bool, got {type(stop_on_first).__name__}")
        if not isinstance(abstain_message, str) or not abstain_message.strip():
            raise ConfigError("abstain_message must be a non-empty str", "abstain_message")
        if isinstance(extractive_sentences, bool) or not isinstance(extractive_sentences, int) \
                or extractive_sentences < 1:
            raise ConfigError(f"extractive_sentences must be an int >= 1, got {extractive_sentences!r}",
                              "extractive_sentences")
        if stream_generator is not None and not callable(stream_generator):
            raise InputTypeError("stream_generator must be callable (prompt) -> iterable of str tokens")
        if stream_config is not None and not isinstance(stream_config, HaltConfig):
            raise InputTypeError(f"stream_config must be a HaltConfig, got {type(stream_config).__name__}")
        self.generator = generator
        self.scorer = scorer
        self.candidates = candidates
        self.fallback = fallback
        self.stop_on_first = stop_on_first
        self.tenant_id = _check_id(tenant_id, "tenant_id")
        self.abstain_message = abstain_message
        self.extractive_sentences = extractive_sentences
        self.stream_generator = stream_generator
        self.stream_config = stream_config
        self._gen_accepts = _accepts(generator, ("context", "messages"))
        self._stream_accepts = (_accepts(stream_generator, ("context", "messages"))
                                if stream_generator is not None else frozenset())
        self._review_accepts = _accepts(scorer.review, ("context", "messages", "tenant_id"))
        path = getattr(scorer, "scorer_path", None)
        self.scorer_path = path if isinstance(path, str) and path else \
            f"{type(scorer).__module__}.{type(scorer).__qualname__}.review"

    # ---- public API ------------------------------------------------------------------------

    def process(self, prompt: str = "", *, context: Any = None, messages: Any = None,
                tenant_id: str | None = None, request_id: str = "") -> ReviewResult:
        """Generate, verify and deliver (see the module docstring).

        Args:
            prompt: the user's message. With ``messages`` it is appended to them as the last
                ``user`` turn (give ``""`` when ``messages`` already ends with it).
            context: evidence for this call (a str or a list of str), for the scorer, the
                generator (when it accepts ``context=``) and the extractive fallback.
            messages: OpenAI-format chat messages (``tool`` messages are evidence too).
            tenant_id: the tenant (default: the agent's ``tenant_id``); scopes retrieval and is
                written into the safety events.
            request_id: correlation id written into the safety events.

        Returns:
            :class:`ReviewResult`: ``output`` (the delivered candidate or the fallback message),
            ``coherence`` (the delivered candidate's score; with the fallback, the score of the
            best rejected candidate, None when there was none), ``halted`` and ``fallback_used``
            (both True exactly when the fallback answered), ``candidates_evaluated`` (candidates
            whose verdict was taken: with ``stop_on_first`` up to the first approved one, else
            all generated), ``halt_evidence`` (with the fallback: why the best rejected
            candidate was rejected; None otherwise) and ``safety_events`` (one ``agent.candidate``
            event per candidate judged -- ``allow``, ``warn`` or ``block`` -- and, with the
            fallback, one ``agent.fallback`` ``halt`` event carrying the halt evidence).

        Raises:
            InputTypeError: a non-str prompt, a generator that does not return a list of str or
            returns an awaitable (use :meth:`aprocess`), a scorer result that is not
            ``(bool, CoherenceScore)``. ValidationError: more than ``candidates`` strings.
            ConfigError: a tenant / request id that cannot go into a SafetyEvent. The
            generator's and the scorer's own exceptions propagate.
        """
        call = _Call(self, prompt, context, messages, tenant_id, request_id)
        raw = self.generator(call.prompt, self.candidates, **call.gen_kwargs)
        if inspect.isawaitable(raw):
            _close_awaitable(raw)
            raise InputTypeError("the generator returned an awaitable: use aprocess() with an async generator")
        texts = self._check_candidates(raw)
        judged: list[_Judged] = []
        for i, text in enumerate(texts):
            j = self._judged(i, text, self._review_sync(call, text))
            judged.append(j)
            if self.stop_on_first and j.approved:
                break
        return self._result(call, judged)

    async def aprocess(self, prompt: str = "", *, context: Any = None, messages: Any = None,
                       tenant_id: str | None = None, request_id: str = "") -> ReviewResult:
        """:meth:`process` for async code; returns what :meth:`process` returns for the same
        inputs (apart from event ids, timestamps and latencies).

        The generator may be sync or ``async def`` (awaited). All candidates are scored
        concurrently: an async ``review`` is awaited, a sync one runs on worker threads
        (``asyncio.to_thread``; ``CoherenceScorer`` releases the GIL in its C++ parts). With
        ``stop_on_first`` the verdicts are taken in generation order and the candidates after
        the first approved one are cancelled (a sync scorer call already running finishes on its
        thread and is discarded). Same arguments, result and errors as :meth:`process`.
        """
        call = _Call(self, prompt, context, messages, tenant_id, request_id)
        raw = self.generator(call.prompt, self.candidates, **call.gen_kwargs)
        if inspect.isawaitable(raw):
            raw = await raw
        texts = self._check_candidates(raw)
        tasks = [asyncio.ensure_future(self._review_async(call, t)) for t in texts]
        judged: list[_Judged] = []
        try:
            for i, task in enumerate(tasks):
                j = self._judged(i, texts[i], await task)
                judged.append(j)
                if self.stop_on_first and j.approved:
                    break
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
            # collect the cancelled ones so that no "exception was never retrieved" is logged
            await asyncio.gather(*tasks, return_exceptions=True)
        return self._result(call, judged)

    def stream(self, prompt: str = "", *, context: Any = None, messages: Any = None,
               tenant_id: str | None = None, request_id: str = "") -> "AgentStream":
        """Deliver the answer as a guarded token stream.

        Candidates are tried one after another (at most ``candidates``): each one's tokens go
        through :func:`~director_fast.stream.stream_guard.stream_guard` with the agent's scorer
        (sentence release: a sentence's tokens are held until it is verified). A candidate that
        halts before any of its tokens was delivered is dropped and the next one is tried; a
        halt after tokens were delivered ends the stream there (the delivered text cannot be
        taken back, so there is no retry mid-stream). When every candidate halted before its
        first token, the fallback message is yielded as one token.

        The scorer must be incremental (``score_sentence``, as ``CoherenceScorer`` is). Same
        arguments as :meth:`process`.

        Returns:
            :class:`AgentStream`: iterate it for the tokens; afterwards ``.result`` is the
            :class:`ReviewResult` (``halted`` also for a halt after delivery, with
            ``fallback_used=False`` and the delivered text as ``output``; ``halt_evidence`` from
            the stream's halt; ``safety_events``: each tried candidate's ``streaming.kernel``
            events, one ``agent.candidate`` event per candidate and an ``agent.stream`` /
            ``agent.fallback`` ``halt`` event).

        Raises:
            InputTypeError: a scorer without ``score_sentence``; as :meth:`process`.
        """
        self._check_streaming()
        call = _Call(self, prompt, context, messages, tenant_id, request_id)
        return AgentStream(self, call)

    def astream(self, prompt: str = "", *, context: Any = None, messages: Any = None,
                tenant_id: str | None = None, request_id: str = "") -> "AsyncAgentStream":
        """:meth:`stream` for async code, over :func:`~director_fast.stream.stream_guard.astream_guard`
        (``stream_generator`` may return an async iterable; ``generator`` may be ``async def``).
        Returns an :class:`AsyncAgentStream` (``async for``); same decisions as :meth:`stream`."""
        self._check_streaming()
        call = _Call(self, prompt, context, messages, tenant_id, request_id)
        return AsyncAgentStream(self, call)

    # ---- candidates and verdicts ---------------------------------------------------------------

    def _check_candidates(self, raw: Any) -> list[str]:
        if isinstance(raw, (str, bytes)) or not isinstance(raw, (list, tuple)):
            raise InputTypeError(f"the generator must return a list of str, got {type(raw).__name__}")
        if len(raw) > self.candidates:
            raise ValidationError(f"the generator returned {len(raw)} candidates, more than the "
                                  f"{self.candidates} asked for")
        for i, t in enumerate(raw):
            if not isinstance(t, str):
                raise InputTypeError(f"generator result [{i}] must be a str, got {type(t).__name__}")
        return [t for t in raw if t.strip()]  # a blank answer is no answer

    def _review_args(self, call: _Call, text: str) -> tuple[tuple, dict]:
        acc = self._review_accepts
        prompt = call.score_prompt
        kwargs = {k: v for k, v in call.score_kwargs.items() if k in acc}
        if call.messages is not None and "messages" not in acc:
            # a scorer without messages=: the user's turn as the prompt, tool messages as context
            prompt = call.prompt
            if "context" in acc and call.evidence:
                kwargs["context"] = list(call.evidence)
        if "tenant_id" in acc:
            kwargs["tenant_id"] = call.tenant_id
        return (prompt, text), kwargs

    def _review_sync(self, call: _Call, text: str) -> Any:
        args, kwargs = self._review_args(call, text)
        out = self.scorer.review(*args, **kwargs)
        if inspect.isawaitable(out):
            _close_awaitable(out)
            raise InputTypeError("the scorer's review returned an awaitable: use aprocess()")
        return out

    async def _review_async(self, call: _Call, text: str) -> Any:
        args, kwargs = self._review_args(call, text)
        review = self.scorer.review
        if inspect.iscoroutinefunction(review):
            return await review(*args, **kwargs)
        areview = getattr(self.scorer, "areview", None)
        if inspect.iscoroutinefunction(areview):
            return await areview(*args, **kwargs)
        out = await asyncio.to_thread(review, *args, **kwargs)
        return await out if inspect.isawaitable(out) else out

    @staticmethod
    def _judged(index: int, text: str, out: Any) -> _Judged:
        if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], bool)
                and isinstance(out[1], CoherenceScore)):
            raise InputTypeError(f"scorer.review must return (bool, CoherenceScore), got {type(out).__name__} "
                                 f"for candidate {index}")
        return _Judged(index, text, out[0], out[1])

    def _pick(self, judged: Sequence[_Judged]) -> _Judged | None:
        ok = [j for j in judged if j.approved]
        if not ok:
            return None
        if self.stop_on_first:
            return ok[0]
        return max(ok, key=lambda j: (j.score.score, -j.index))

    def _result(self, call: _Call, judged: list[_Judged]) -> ReviewResult:
        chosen = self._pick(judged)
        events = [self._candidate_event(call, j, j is chosen) for j in judged]
        if chosen is not None:
            return ReviewResult(output=chosen.text, coherence=chosen.score, halted=False,
                                candidates_evaluated=len(judged), fallback_used=False, safety_events=tuple(events))
        best = max(judged, key=lambda j: (j.score.score, -j.index)) if judged else None
        evidence = self._rejection_evidence(call, best)
        output = self._fallback_text(call)
        events.append(self._fallback_event(call, evidence, len(judged)))
        return ReviewResult(output=output, coherence=best.score if best is not None else None, halted=True,
                            candidates_evaluated=len(judged), fallback_used=True, halt_evidence=evidence,
                            safety_events=tuple(events))

    # ---- halt evidence and events ----------------------------------------------------------------

    def _threshold(self) -> float | None:
        thr = getattr(self.scorer, "threshold", None)
        if isinstance(thr, bool) or not isinstance(thr, (int, float)) or not 0.0 <= thr <= 1.0:
            return None
        return float(thr)

    def _retrieval_path(self, call: _Call) -> str:
        """What the scorer consulted: ``knowledge_base`` / ``lexical_facts`` (its knowledge, for
        a tenant that holds some), else ``context`` (only the call's evidence), ``unknown_tenant``
        or ``none`` -- the names the scorer's streaming path reports; ``external`` for a scorer
        that is not a CoherenceScorer."""
        s = self.scorer
        if not isinstance(s, CoherenceScorer):
            return "external"
        kb = s.knowledge
        try:
            known = kb is not None and s.check_tenant(call.tenant_id)
        except UnknownTenantError:
            known = False
        if known:
            return "knowledge_base" if callable(getattr(kb, "retrieve", None)) else "lexical_facts"
        if any(t.strip() for t in call.evidence):
            return "context"
        return "unknown_tenant" if kb is not None else "none"

    @staticmethod
    def _deciding_chunks(score: CoherenceScore) -> tuple[list[EvidenceChunk], list[float], int, str, str]:
        """The chunks holding the evidence sentences of the claims that were not supported, the
        per-claim divergences, and the lowest-scoring claim (index, verdict, signal)."""
        ev = score.evidence
        atts = list(ev.attributions or []) if ev is not None else []
        chunks = list(ev.chunks) if ev is not None else []
        out: list[EvidenceChunk] = []
        for a in atts:
            if a.supported or not a.source_sentence:
                continue
            for c in chunks:
                if a.source_sentence in c.text and c not in out:
                    out.append(c)
        divs = [a.divergence for a in atts]
        if not atts:
            return out, divs, -1, "", ""
        worst = max(atts, key=lambda a: (a.divergence, -a.claim_index))
        return out, divs, worst.claim_index, worst.verdict, worst.signal

    def _rejection_evidence(self, call: _Call, best: _Judged | None) -> HaltEvidence:
        thr = self._threshold()
        if best is None:
            trace = HaltTraceAttribution(fact_source="", retrieval_path=self._retrieval_path(call),
                                         scorer_path=self.scorer_path, token_offset=0, threshold=thr,
                                         causal_contribution=thr if thr is not None else 0.0)
            return HaltEvidence(reason="no_candidates", last_score=0.0, evidence_chunks=[], nli_scores=None,
                                suggested_action="The generator returned no candidate; retry the request.",
                                trace_attribution=trace)
        sc = best.score
        chunks, divs, _ci, _v, _sig = self._deciding_chunks(sc)
        reason = "strict_mode_rejected" if sc.strict_mode_rejected else "hard_limit"
        fact_source = ",".join(dict.fromkeys(r for r in _refs(chunks)))
        if len(fact_source) > MAX_TRACE_TEXT_LEN:
            fact_source = ",".join(f"chunk:{i}" for i in range(len(chunks)))[:MAX_TRACE_TEXT_LEN]
        trace = HaltTraceAttribution(
            fact_source=fact_source, retrieval_path=self._retrieval_path(call),
            scorer_path=self.scorer_path[:MAX_TRACE_TEXT_LEN], token_offset=0, threshold=thr,
            causal_contribution=max(0.0, thr - sc.score) if thr is not None else 0.0)
        return HaltEvidence(reason=reason, last_score=sc.score, evidence_chunks=chunks,
                            nli_scores=divs or None,
                            suggested_action=("No candidate passed verification; answer withheld. "
                                              + (explain(sc, threshold=thr).suggestion or suggested_action(reason)))
                            if reason == "hard_limit" else "No NLI model is loaded in strict mode; answer withheld.",
                            trace_attribution=trace)

    @staticmethod
    def _safe_event(build: Callable[[tuple[str, ...] | None, HaltTraceAttribution | None], SafetyEvent],
                    refs: tuple[str, ...], trace: HaltTraceAttribution | None) -> SafetyEvent:
        """Build an event with the chunks' source labels as references; when a label breaks the
        tenant-safety rules (a document named like a credential), ``chunk:<i>`` instead."""
        try:
            return build(refs, trace)
        except TenantSafetyError:
            safe = tuple(f"chunk:{i}" for i in range(len(refs)))
            if trace is not None:
                trace = dataclasses.replace(trace, fact_source=",".join(safe))
            return build(safe, trace)

    def _candidate_event(self, call: _Call, j: _Judged, chosen: bool) -> SafetyEvent:
        sc = j.score
        if chosen:
            decision, reason = ("warn", "candidate_approved_warning") if sc.warning else ("allow", "candidate_approved")
            expl = "Candidate verified and delivered." if decision == "allow" else \
                "Candidate delivered; some claims are only weakly supported."
        elif j.approved:
            decision, reason, expl = "allow", "candidate_approved_not_chosen", \
                "Candidate verified; another candidate was delivered."
        else:
            decision, reason = "block", ("strict_mode_rejected" if sc.strict_mode_rejected else "candidate_rejected")
            expl = "Candidate withheld: it failed verification."
        chunks, _divs, ci, verdict, signal = self._deciding_chunks(sc)
        attrs = {"candidate_index": str(j.index), "claims": str(len(sc.claims)),
                 "supported_claims": str(sum(a.supported for a in sc.attributions))}
        if not j.approved and ci >= 0:
            attrs["claim_index"] = str(ci)
            attrs["verdict"] = verdict
            if signal and re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", signal):
                attrs["signal"] = signal
        if not j.approved:  # references only: the cause and digests of the deciding claim and evidence
            refs_of = explain(sc, threshold=self._threshold(), approved=False).references()
            attrs.update({k: v for k, v in refs_of.items() if k in ("cause", "claim_sha256", "evidence_sha256")})
        refs = _refs(chunks) if not j.approved else ()
        latency = (time.perf_counter() - call.t0) * 1000.0

        def build(r: tuple[str, ...] | None, _trace: Any) -> SafetyEvent:
            return SafetyEvent.from_policy_decision(
                hook_id="agent.candidate", hook_scope="agent", policy_decision=decision, halt_reason=reason,
                tenant_safe_explanation=expl, request_id=call.request_id, tenant_id=call.tenant_id,
                threshold=self._threshold(), observed_score=sc.score, latency_ms=latency,
                evidence_refs=r or (), attributes=attrs)

        return self._safe_event(build, refs, None)

    def _fallback_event(self, call: _Call, evidence: HaltEvidence, evaluated: int,
                        hook_id: str = "agent.fallback", extra: Mapping[str, str] | None = None) -> SafetyEvent:
        attrs = {"candidates_evaluated": str(evaluated)}
        if hook_id == "agent.fallback":
            attrs["fallback"] = self.fallback if self.fallback in FALLBACK_MODES else "message"
        attrs.update(extra or {})
        refs = _refs(evidence.evidence_chunks)
        latency = (time.perf_counter() - call.t0) * 1000.0

        def build(r: tuple[str, ...] | None, trace: HaltTraceAttribution | None) -> SafetyEvent:
            ev = evidence if trace is evidence.trace_attribution else dataclasses.replace(evidence, trace_attribution=trace)
            return SafetyEvent.from_halt_evidence(
                ev, hook_id=hook_id, hook_scope="agent", policy_decision="halt", request_id=call.request_id,
                tenant_id=call.tenant_id, latency_ms=latency, evidence_refs=r, attributes=attrs)

        return self._safe_event(build, refs, evidence.trace_attribution)

    # ---- fallback --------------------------------------------------------------------------------

    def _fallback_text(self, call: _Call) -> str:
        if self.fallback == "abstain":
            return self.abstain_message
        if self.fallback == "extractive":
            return self.extractive_answer(call.prompt, context=call.evidence, tenant_id=call.tenant_id) \
                or self.abstain_message
        return self.fallback

    def extractive_answer(self, prompt: str, *, context: Any = None, tenant_id: str | None = None) -> str:
        """The ``"extractive"`` fallback: up to ``extractive_sentences`` evidence sentences that
        share the most (IDF-weighted) words with ``prompt``, best first, verbatim, joined by one
        space. A sentence is kept only when its overlap is at least
        :data:`EXTRACTIVE_RELATIVE_FLOOR` of the best sentence's (a sentence that shares only the
        subject's name is not an answer); ``""`` when no sentence shares a word with the prompt.

        The sentences come from ``context`` (a str or a list of str) and, when the scorer has
        knowledge (``CoherenceScorer.retrieve``), from the chunks retrieved for ``prompt`` in
        ``tenant_id``. Duplicates are dropped.

        Raises:
            InputTypeError: a non-str prompt or malformed context.
        """
        if not isinstance(prompt, str):
            raise InputTypeError(f"prompt must be a str, got {type(prompt).__name__}")
        texts = list(resolve_roles("", context=context).evidence)
        tenant = self.tenant_id if tenant_id is None else tenant_id
        retrieve = getattr(self.scorer, "retrieve", None)
        if callable(retrieve) and getattr(self.scorer, "knowledge", None) is not None and prompt.strip():
            try:
                chunks, _path = retrieve(prompt, tenant_id=tenant)
            except ConfigError:  # a tenant without knowledge: only the call's own evidence
                chunks = []
            texts.extend(c.text for c in chunks)
        sentences = list(dict.fromkeys(
            s for t in texts for s in (t[a:b].strip() for a, b in split_sentences(t)) if s))
        if not sentences:
            return ""
        ranked = [(i, sim) for i, sim in LexicalIndex(sentences).top_k(prompt, self.extractive_sentences)
                  if sim > 0.0]
        if not ranked:
            return ""
        floor = ranked[0][1] * EXTRACTIVE_RELATIVE_FLOOR
        return " ".join(sentences[i] for i, sim in ranked if sim >= floor)

    # ---- streaming helpers -----------------------------------------------------------------------

    def _check_streaming(self) -> None:
        if not callable(getattr(self.scorer, "score_sentence", None)):
            raise InputTypeError("stream() needs an incremental scorer (with score_sentence), such as "
                                 "CoherenceScorer")

    def _guard_kwargs(self, call: _Call) -> dict[str, Any]:
        return dict(prompt=call.score_prompt, config=self.stream_config, tenant_id=call.tenant_id,
                    request_id=call.request_id, release="sentence", context=call.context,
                    messages=call.messages)

    def _stream_source(self, call: _Call) -> Any:
        kw = {k: v for k, v in (("context", call.context), ("messages", call.messages))
              if v is not None and k in self._stream_accepts}
        gen = self.stream_generator
        assert gen is not None
        return gen(call.prompt, **kw)

    def _stream_judged(self, call: _Call, index: int, text: str) -> _Judged | None:
        """The verdict on a streamed candidate's whole text (claim verdicts are cached by the
        scorer, so this mostly re-reads what the stream already judged)."""
        if not text.strip():
            return None
        out = self._review_sync(call, text)
        return self._judged(index, text, out)


class _StreamRun:
    """Bookkeeping of one agent stream, shared by the sync and async iterators."""

    def __init__(self, agent: CoherenceAgent, call: _Call) -> None:
        self.agent = agent
        self.call = call
        self.tried = 0
        self.events: list[SafetyEvent] = []
        self.halts: list[tuple[StreamSession, _Judged | None]] = []
        self.session: StreamSession | None = None
        self.result: ReviewResult | None = None
        self.texts: list[str] | None = None  # candidates of `generator` when there is no stream_generator

    def candidate_tokens(self, texts: list[str] | None) -> Any:
        return _tokens(texts[self.tried]) if texts is not None else None

    def finish_candidate(self, session: StreamSession, judged: _Judged | None) -> str:
        """Record one tried candidate; returns ``"done"``, ``"halted"`` (after delivery) or
        ``"retry"``."""
        a, call = self.agent, self.call
        self.session = session
        index = self.tried
        self.tried += 1
        self.events.extend(session.safety_events)
        if not session.halted:
            if judged is None:
                judged = _Judged(index, session.output, True, _empty_score())
            ev = a._candidate_event(call, dataclasses.replace(judged, approved=True), True)
            self.events.append(ev)
            self.result = ReviewResult(output=session.output, coherence=judged.score, halted=False,
                                       candidates_evaluated=self.tried, fallback_used=False,
                                       safety_events=tuple(self.events))
            return "done"
        if judged is not None:
            self.events.append(a._candidate_event(call, dataclasses.replace(judged, approved=False), False))
        evidence = session.halt_evidence_structured
        if session.delivered_count > 0:
            assert evidence is not None
            self.events.append(a._fallback_event(call, evidence, self.tried, hook_id="agent.stream",
                                                 extra={"delivered_tokens": str(session.delivered_count)}))
            self.result = ReviewResult(output=session.output, coherence=judged.score if judged else None,
                                       halted=True, candidates_evaluated=self.tried, fallback_used=False,
                                       halt_evidence=evidence, safety_events=tuple(self.events))
            return "halted"
        self.halts.append((session, judged))
        return "retry"

    def finish_failed(self, session: StreamSession) -> None:
        """The token source of the current candidate raised: the stream recorded an
        ``upstream_error`` halt; the agent records it too (an ``agent.stream`` halt event and a
        halted result) before the exception propagates. No other candidate is tried."""
        a, call = self.agent, self.call
        self.session = session
        self.tried += 1
        self.events.extend(session.safety_events)
        evidence = session.halt_evidence_structured or a._rejection_evidence(call, None)
        self.events.append(a._fallback_event(call, evidence, self.tried, hook_id="agent.stream",
                                             extra={"delivered_tokens": str(session.delivered_count),
                                                    "upstream": "error"}))
        self.result = ReviewResult(output=session.output, coherence=None, halted=True,
                                   candidates_evaluated=self.tried, fallback_used=False,
                                   halt_evidence=evidence, safety_events=tuple(self.events))

    def fallback(self) -> str:
        """Finish with the fallback; returns its message."""
        a, call = self.agent, self.call
        best = max(self.halts, key=lambda h: (h[0].halt_evidence_structured.last_score
                                              if h[0].halt_evidence_structured else 0.0), default=None)
        if best is not None and best[0].halt_evidence_structured is not None:
            evidence = best[0].halt_evidence_structured
            coherence = best[1].score if best[1] is not None else None
        else:
            evidence = a._rejection_evidence(call, None)
            coherence = None
        text = a._fallback_text(call)
        self.events.append(a._fallback_event(call, evidence, self.tried))
        self.result = ReviewResult(output=text, coherence=coherence, halted=True, candidates_evaluated=self.tried,
                                   fallback_used=True, halt_evidence=evidence, safety_events=tuple(self.events))
        return text


def _empty_score() -> CoherenceScore:
    return CoherenceScore(score=1.0, approved=True, h_logical=0.0, h_factual=0.0)


class _AgentStreamBase:
    """What :class:`AgentStream` and :class:`AsyncAgentStream` share: the run, the iterator made
    on first use and the current candidate's guard."""

    def __init__(self, agent: CoherenceAgent, call: _Call) -> None:
        self._run = _StreamRun(agent, call)
        self._it: Any = None
        self._guard: Any = None

    @property
    def result(self) -> ReviewResult | None:
        return self._run.result

    @property
    def session(self) -> StreamSession | None:
        return self._run.session


class AgentStream(_AgentStreamBase):
    """Iterator of the tokens of :meth:`CoherenceAgent.stream`.

    Attributes:
        result: the :class:`ReviewResult`, set when the stream is exhausted (None before).
        session: the :class:`StreamSession` of the candidate being (or last) streamed.

    Thread safety: one consumer; not shareable between threads.
    """

    def __iter__(self) -> Generator[str, None, None]:
        if self._it is None:
            self._it = self._gen()
        return self._it

    def __next__(self) -> str:
        return next(iter(self))

    def close(self) -> None:
        """Stop early: the current candidate's guard (and its upstream) is closed."""
        if self._guard is not None:
            self._guard.close()
        if self._it is not None:
            self._it.close()

    def __enter__(self) -> "AgentStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _gen(self) -> Generator[str, None, None]:
        run, agent, call = self._run, self._run.agent, self._run.call
        texts = None
        if agent.stream_generator is None:
            raw = agent.generator(call.prompt, agent.candidates, **call.gen_kwargs)
            if inspect.isawaitable(raw):
                _close_awaitable(raw)
                raise InputTypeError("the generator returned an awaitable: use astream() with an async generator")
            texts = agent._check_candidates(raw)
        limit = agent.candidates if texts is None else len(texts)
        while run.tried < limit:
            source = run.candidate_tokens(texts) if texts is not None else agent._stream_source(call)
            if inspect.isawaitable(source) or hasattr(source, "__aiter__") and not hasattr(source, "__iter__"):
                _close_awaitable(source)
                raise InputTypeError("stream_generator returned an async source: use astream()")
            guard = self._guard = stream_guard(source, agent.scorer, **agent._guard_kwargs(call))
            try:
                for tok in guard:
                    yield tok
            except Exception:
                if guard.session.halted:  # the source raised: recorded as upstream_error
                    run.finish_failed(guard.session)
                raise
            finally:
                self._guard = None
            s = guard.session
            judged = agent._stream_judged(call, run.tried, "".join(s.tokens))
            state = run.finish_candidate(s, judged)
            if state != "retry":
                return
        yield run.fallback()


class AsyncAgentStream(_AgentStreamBase):
    """Async iterator of the tokens of :meth:`CoherenceAgent.astream` (``async for``).

    Attributes:
        result: the :class:`ReviewResult`, set when the stream is exhausted (None before).
        session: the :class:`StreamSession` of the candidate being (or last) streamed.

    Thread safety: one consumer task.
    """

    def __aiter__(self) -> AsyncIterator[str]:
        if self._it is None:
            self._it = self._gen()
        return self._it

    async def __anext__(self) -> str:
        return await self.__aiter__().__anext__()

    async def aclose(self) -> None:
        """Stop early: the current candidate's guard (and its upstream) is closed."""
        if self._guard is not None:
            await self._guard.aclose()
        if self._it is not None:
            await self._it.aclose()

    async def __aenter__(self) -> "AsyncAgentStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _gen(self) -> AsyncIterator[str]:
        run, agent, call = self._run, self._run.agent, self._run.call
        texts = None
        if agent.stream_generator is None:
            raw = agent.generator(call.prompt, agent.candidates, **call.gen_kwargs)
            if inspect.isawaitable(raw):
                raw = await raw
            texts = agent._check_candidates(raw)
        limit = agent.candidates if texts is None else len(texts)
        while run.tried < limit:
            source = run.candidate_tokens(texts) if texts is not None else agent._stream_source(call)
            if inspect.isawaitable(source):
                source = await source
            guard = self._guard = astream_guard(source, agent.scorer, **agent._guard_kwargs(call))
            try:
                async for tok in guard:
                    yield tok
            except Exception:
                if guard.session.halted:  # the source raised: recorded as upstream_error
                    run.finish_failed(guard.session)
                raise
            finally:
                self._guard = None
            s = guard.session
            text = "".join(s.tokens)
            judged = None
            if text.strip():
                judged = agent._judged(run.tried, text, await agent._review_async(call, text))
            state = run.finish_candidate(s, judged)
            if state != "retry":
                return
        yield run.fallback()

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
``scorer_timeout_s`` deadline (a real deadline counted from the start of the call: sync scorers
then run on a bounded :class:`ScorerExecutor`), or finding that executor stalled (or saturated
with ``on_saturated="fail"``), halts with ``callback_timeout`` and a SafetyEvent. A merely busy
executor delays the stream instead (backpressure: the guard reads nothing more from the upstream
until the held-back sentence is scored). Any other exception, or a score that is not a finite
number in [0, 1] (``ScoreError`` naming the token), propagates to the caller after the session
records the halt as ``scorer_error``. A failed model stream (an adapter's ``UpstreamError``: an error event, a
``length`` finish, a stream without its final chunk) and an upstream that passes the guard's
``idle_timeout_s`` / ``deadline_s`` halt with ``upstream_error``; any other
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
import functools
import inspect
import logging
import time
import weakref
from typing import Any, AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Protocol

from director_fast.stream.halt import HaltConfig
from director_fast.stream.session import _F_HALTED, _F_SCORED, _F_WARNING, StreamSession
from director_fast.errors import InputTypeError, ScoreError, UpstreamError
from director_fast.stream.executor import DeadlineMissed, ExecutorStalled, ScorerExecutor
from director_fast.stream.deadlines import (
    DEFAULT_DEADLINE_S,
    DEFAULT_IDLE_TIMEOUT_S,
    atimed_source,
    timed_source,
)
from director_fast.stream.stream_state import (
    SentenceResult,
    _ACT_HALT,
    _ACT_WARN,
    _GuardState,
    _is_sentence_end,
    _normalise_result,
)

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


class IncrementalScorer(Protocol):
    """Protocol of a scorer told only what is new (one completed sentence at a time)."""

    def score_sentence(self, sentence: str, *, prompt: str = "", previous: str = "",
                       tenant_id: str = "") -> Any:  # float | SentenceScore-like
        ...


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


def _check_halt_text(text: Any) -> str | None:
    if text is not None and not isinstance(text, str):
        raise InputTypeError(f"on_halt_text must be a str or None, got {type(text).__name__}", "on_halt_text")
    return text or None


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

    def __init__(self, tokens: Iterable[str], scorer: Any, *, on_halt_text: str | None = None, **kw: Any) -> None:
        _check_token_source(tokens, asynchronous=False)
        self._on_halt_text = _check_halt_text(on_halt_text)
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
                # a real deadline, counted from when a worker starts the call (a busy executor
                # delays the stream, it does not halt it)
                fut = st.submit(arg)
                if fut is None:
                    return "callback_timeout", None  # refused: stalled, or on_saturated="fail"
                try:
                    raw = st.ex.result(fut, st.timeout)
                except (DeadlineMissed, ExecutorStalled) as exc:
                    st.executor_failed(exc)
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
        if not isinstance(self._source, (list, tuple)):  # an in-memory text has no upstream to wait for
            src = timed_source(src, st.idle_timeout, st.deadline, st.session.start_time)
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
        if st.session.halted and self._on_halt_text and not self._closing:
            yield self._on_halt_text  # the fallback message (not part of session.output)
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
        merge = st.fences.merge
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
            if spans:
                spans = merge(spans)
            if token_release:
                s.delivered_count += 1
                yield tok
            for (a, b) in spans:
                if (yield from self._score_span(a, b)):
                    return
        for (a, b) in merge(seg.flush(), True):
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
    on_halt_text: str | None = None,
    idle_timeout_s: float | None = DEFAULT_IDLE_TIMEOUT_S,
    deadline_s: float | None = DEFAULT_DEADLINE_S,
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
        scorer_timeout_s: per-call deadline in seconds (> 0), counted from when the call starts
            running (time waiting for a busy executor's worker is backpressure, not lateness); a
            missed deadline halts with ``callback_timeout`` at the deadline, not when the call
            returns. With it set, sync scorers run on the scorer's bounded
            :class:`ScorerExecutor` (a call that misses the
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
            after the call returns). A busy executor delays the stream (backpressure); it halts
            it with ``callback_timeout`` only when it is stalled (every worker held by a call
            past its deadline: SafetyEvent attribute ``executor_stalled="true"``) or saturated
            with ``on_saturated="fail"`` (``executor_saturated="true"``).
        structured: ``"json"`` when the stream produces a JSON document (default ``None``). On a
            halt, ``session.structured_recovery`` then holds a
            :class:`~director_fast.types.verification.StructuredRecoveryResult` whose
            ``last_valid_output`` is the delivered prefix made parser-safe: complete members
            kept, the member in progress dropped, open containers closed
            (:func:`director_fast.stream.structured.recover_json`); ``None`` when the stream did not
            halt.
        idle_timeout_s: the longest wait in seconds for the next token from ``tokens`` (> 0,
            default 60; None: no limit). Time spent scoring or in the consumer does not count.
        deadline_s: the longest run of the stream in seconds from the guard's creation (> 0,
            default 600; None: no limit), checked at every read. Either limit ends the stream
            with an ``upstream_error`` halt and its SafetyEvent (attribute ``upstream`` =
            ``idle_timeout`` / ``deadline``), independent of the client's own timeouts; the async
            guard cancels the pending read at the limit, the sync guard checks when the read
            returns (:mod:`director_fast.stream.deadlines`). Not applied to a ``list`` or
            ``tuple`` of tokens (nothing to wait for).

        on_halt_text: a fallback message yielded once, as a last token, after a halt (after the
            last safe token, before ``StreamHalted`` with ``raise_on_halt``); default None: a
            halted stream just ends. It is not model output: ``session.output`` does not hold it.
            Not sent when the guard is closed early or the scorer raised. Why the stream halted:
            :func:`director_fast.verify.explain.explain_halt` of ``guard.session``.

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
        structured=structured, on_halt_text=on_halt_text, idle_timeout_s=idle_timeout_s,
        deadline_s=deadline_s)


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

    def __init__(self, tokens: AsyncIterable[str] | Iterable[str], scorer: Any, *,
                 on_halt_text: str | None = None, **kw: Any) -> None:
        _check_token_source(tokens, asynchronous=True)
        self._on_halt_text = _check_halt_text(on_halt_text)
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
            inline = st.is_async or st.executor_opt == "inline"
            if inline:
                if st.incremental:
                    raw = st.fn(arg, previous=st.prev_sentence, **st.call_kwargs)
                else:
                    raw = st.fn(arg)
            else:
                # a sync scorer never runs on the event loop: bounded executor, real deadline
                # counted from when a worker starts the call (waiting for one is backpressure)
                fut = st.submit(arg)
                if fut is None:
                    return "callback_timeout", None  # refused: stalled, or on_saturated="fail"
                try:
                    raw = await st.ex.aresult(fut, timeout)
                except (DeadlineMissed, ExecutorStalled) as exc:
                    st.executor_failed(exc)
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
            elif inline and timeout is not None and time.monotonic() - t0 > timeout:
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
        if not isinstance(it, _SyncSource):  # a blocking sync read cannot be interrupted anyway
            it = atimed_source(it, st.idle_timeout, st.deadline, st.session.start_time)
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
        if st.session.halted and self._on_halt_text and not self._closing:
            yield self._on_halt_text  # the fallback message (not part of session.output)
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
        for (a, b) in st.fences.merge(st.seg.flush(), True):
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
    on_halt_text: str | None = None,
    idle_timeout_s: float | None = DEFAULT_IDLE_TIMEOUT_S,
    deadline_s: float | None = DEFAULT_DEADLINE_S,
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
        structured=structured, on_halt_text=on_halt_text, idle_timeout_s=idle_timeout_s,
        deadline_s=deadline_s)

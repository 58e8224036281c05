"""LangChain: a guard runnable that withholds unsupported text, and an observe-only callback.

* :class:`DirectorAIGuard` is a ``langchain_core`` ``Runnable``: put it after a model
  (``chain = prompt | model | DirectorAIGuard(facts=...)``).

  - **streaming** (``chain.stream`` / ``astream``): the model's chunks (``AIMessageChunk`` or
    ``str``) pass through :func:`~director_fast.stream.stream_guard` with ``release="sentence"``: each
    chunk is forwarded once the sentence it belongs to is judged, and the stream stops before the
    first sentence that fails; the model's stream is closed then. ``raise_on_fail=True`` raises
    :class:`~director_fast.errors.StreamHalted` (``.session``) after the last safe chunk.
  - **invoke** with a message or ``str``: the text is judged sentence by sentence the same way;
    an approved text comes back unchanged; a rejected one is cut before its first failing
    sentence (the message's ``response_metadata["director_fast_halt"]`` holds the halt's
    SafetyEvent as a dict), or ``raise_on_fail=True`` raises
    :class:`~director_fast.errors.HallucinationError`.
  - **invoke** with ``{"query": ..., "response": ...}``: director-ai's ``check`` result, a dict
    with ``approved``, ``score``, ``h_logical``, ``h_factual``, ``response`` and
    ``coherence_score`` (raises ``HallucinationError`` when rejected and ``raise_on_fail``).

* :class:`CoherenceCallbackHandler` is a ``BaseCallbackHandler`` that reviews every finished
  generation against its prompt and records the result (``last_score``, ``scores``); it never
  changes the output and logs a WARNING for a rejected generation.

Install with ``pip install director-fast[langchain]``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from typing import Any, AsyncIterator, Callable, Iterator

try:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.runnables import Runnable
    from langchain_core.runnables.config import (
        ensure_config,
        get_async_callback_manager_for_config,
        get_callback_manager_for_config,
    )
except ImportError as _exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("director_fast.integrations.langchain needs langchain-core: "
                      "pip install director-fast[langchain]") from _exc

from director_fast.stream.client_guard import make_scorer
from director_fast.errors import ConfigError, HallucinationError, InputTypeError, StreamHalted
from director_fast.verify.explain import explain_halt, rejection_error
from director_fast.stream.stream_guard import astream_guard, stream_guard
from director_fast.verify.text import split_sentences

logger = logging.getLogger("director_fast.integrations.langchain")

__all__ = ["DirectorAIGuard", "CoherenceCallbackHandler"]

_END = object()
_QUERY_KEYS = ("query", "question", "input", "prompt")
_RESPONSE_KEYS = ("response", "output", "answer", "text")


def _text_of(obj: Any) -> str | None:
    """Text of a str, a message or a message chunk (``content`` as str or as a list of parts);
    None for anything else."""
    if isinstance(obj, str):
        return obj
    content = getattr(obj, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str):
                parts.append(p["text"])
        return "".join(parts)
    return None


def _pick(d: dict, keys: tuple[str, ...], what: str) -> str:
    for k in keys:
        v = d.get(k)
        if v is not None:
            t = _text_of(v)
            if t is None:
                raise InputTypeError(f"input[{k!r}] must be a str or a message, got {type(v).__name__}")
            return t
    if what == "query":
        return ""
    raise InputTypeError(f"a dict input needs a response under one of {list(keys)}")


def _close(obj: Any) -> None:
    close = getattr(obj, "close", None)
    if callable(close):
        try:
            close()
        except Exception as exc:
            logger.debug("closing the upstream failed: %r", exc)


async def _aclose(obj: Any) -> None:
    close = getattr(obj, "aclose", None)
    if close is None:
        _close(obj)
        return
    try:
        await close()
    except Exception as exc:
        logger.debug("closing the upstream failed: %r", exc)


class DirectorAIGuard(Runnable[Any, Any]):
    """A LangChain runnable that judges a model's output and withholds what fails (module
    docstring).

    Args:
        facts: ``{key: value}`` ground truth (director-ai's argument).
        store: a :class:`~director_fast.verify.knowledge.KnowledgeBase` or a retriever, instead of facts.
        threshold: approval threshold in [0, 1] (default 0.3, as :func:`director_fast.guard`).
        use_nli, nli_model: NLI choice (as :func:`director_fast.score`).
        scorer: a prebuilt :class:`CoherenceScorer` (then no facts/store/use_nli/nli_model).
        raise_on_fail: raise instead of withholding (``HallucinationError`` from invoke,
            ``StreamHalted`` from a stream).
        tenant_id: the tenant whose knowledge in ``store`` is evidence.
        on_halt: optional callable ``(StreamSession) -> None`` called once per halted stream or
            rejected invoke (for audit logging; its exceptions are logged and ignored).

    Raises:
        ConfigError / InputTypeError: invalid arguments.

    Thread-safety: thread-safe (no per-call state is kept on the object; the scorer is shared
    and thread-safe). One stream belongs to one consumer.
    """

    def __init__(self, facts: dict[str, str] | None = None, store: Any = None, threshold: float = 0.3,
                 use_nli: bool | None = None, raise_on_fail: bool = False, *, nli_model: str | None = None,
                 scorer: Any = None, tenant_id: str = "",
                 on_halt: Callable[[Any], None] | None = None) -> None:
        if not isinstance(raise_on_fail, bool):
            raise InputTypeError(f"raise_on_fail must be a bool, got {type(raise_on_fail).__name__}")
        if not isinstance(tenant_id, str):
            raise InputTypeError(f"tenant_id must be a str, got {type(tenant_id).__name__}")
        if on_halt is not None and not callable(on_halt):
            raise InputTypeError("on_halt must be callable")
        self.scorer = make_scorer(facts, store, threshold, use_nli, nli_model, scorer)
        if not hasattr(self.scorer, "score_sentence"):
            raise ConfigError("scorer must also have score_sentence(...) to guard streams "
                              "(CoherenceScorer has)", field="scorer")
        self.raise_on_fail = raise_on_fail
        self.tenant_id = tenant_id
        self.on_halt = on_halt

    # ---- director-ai's check -------------------------------------------------------------------
    def _result(self, query: str, response: str, approved: bool, cs: Any) -> dict[str, Any]:
        if not approved and self.raise_on_fail:
            raise rejection_error(cs, threshold=getattr(self.scorer, "threshold", None), response=response)
        return {"approved": approved, "score": cs.score, "h_logical": cs.h_logical, "h_factual": cs.h_factual,
                "response": response, "coherence_score": cs}

    def check(self, query: str, response: str) -> dict[str, Any]:
        """Review ``response`` to ``query``: a dict with ``approved``, ``score``, ``h_logical``,
        ``h_factual``, ``response`` and ``coherence_score``.

        Raises:
            HallucinationError: rejected and ``raise_on_fail``. InputTypeError: non-str text.
        """
        approved, cs = self.scorer.review(query, response, tenant_id=self.tenant_id)
        return self._result(query, response, approved, cs)

    async def acheck(self, query: str, response: str) -> dict[str, Any]:
        """:meth:`check` off the event loop (a worker thread)."""
        approved, cs = await asyncio.to_thread(self.scorer.review, query, response, tenant_id=self.tenant_id)
        return self._result(query, response, approved, cs)

    # ---- shared halting -------------------------------------------------------------------------
    def _halted(self, session: Any, *, stream: bool) -> None:
        if self.on_halt is not None:
            try:
                self.on_halt(session)
            except Exception as exc:
                logger.warning("on_halt callback raised %s: %s", type(exc).__name__, exc)
        if self.raise_on_fail:
            reason = getattr(session.halt_reason, "value", session.halt_reason)
            if stream:
                raise StreamHalted(f"stream halted ({reason}) after {session.delivered_count} chunk(s)", session)
            exp = explain_halt(session)
            raise HallucinationError(f"response rejected: halted ({reason}) at sentence token "
                                     f"{session.halt_index}" + (f": {exp.message()}" if exp is not None else ""),
                                     response=session.output + session.held_back, explanation=exp)

    def _cut(self, value: Any, text: str, session: Any) -> Any:
        """``value`` with its text replaced by what the guard released."""
        if not session.halted:
            return value
        out = session.output
        if isinstance(value, str):
            return out
        meta = dict(getattr(value, "response_metadata", None) or {})
        if session.safety_events:
            meta["director_fast_halt"] = session.safety_events[-1].to_dict()
        try:
            return value.model_copy(update={"content": out, "response_metadata": meta})
        except AttributeError:
            return out

    # ---- invoke ---------------------------------------------------------------------------------
    def _invoke(self, value: Any) -> Any:
        if isinstance(value, dict):
            return self.check(_pick(value, _QUERY_KEYS, "query"), _pick(value, _RESPONSE_KEYS, "response"))
        text = _text_of(value)
        if text is None:
            raise InputTypeError(f"input must be a str, a message or a dict, got {type(value).__name__}")
        g = stream_guard(_sentence_tokens(text), self.scorer, tenant_id=self.tenant_id,
                         release="sentence")
        for _ in g:
            pass
        if g.session.halted:
            self._halted(g.session, stream=False)
        return self._cut(value, text, g.session)

    async def _ainvoke(self, value: Any) -> Any:
        if isinstance(value, dict):
            return await self.acheck(_pick(value, _QUERY_KEYS, "query"), _pick(value, _RESPONSE_KEYS, "response"))
        text = _text_of(value)
        if text is None:
            raise InputTypeError(f"input must be a str, a message or a dict, got {type(value).__name__}")
        g = astream_guard(_sentence_tokens(text), self.scorer, tenant_id=self.tenant_id,
                          release="sentence")
        async for _ in g:
            pass
        if g.session.halted:
            self._halted(g.session, stream=False)
        return self._cut(value, text, g.session)

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """Judge one output (module docstring for the input kinds and results)."""
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """Async :meth:`invoke`; the scorer runs off the event loop."""
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    # ---- streaming ------------------------------------------------------------------------------
    # LangChain's _transform_stream_with_config reads its input to the end after the transformer
    # stops (to trace the whole input), which would let the model generate the withheld answer in
    # full; the run is traced here without that.
    def _guard_sync(self, chunks: Iterator[Any]) -> Iterator[Any]:
        it = iter(chunks)
        first = next(it, _END)
        if first is _END:
            return
        if _text_of(first) is None:  # dicts and other values: judged whole
            rest = list(it)
            yield self._invoke(first if not rest else _merge([first] + rest))
            return
        held: deque[Any] = deque()

        def texts() -> Iterator[str]:
            try:
                held.append(first)
                yield _text_of(first) or ""
                for ch in it:
                    held.append(ch)
                    yield _text_of(ch) or ""
            finally:
                _close(it)
                if it is not chunks:
                    _close(chunks)

        g = stream_guard(texts(), self.scorer, tenant_id=self.tenant_id, release="sentence")
        with g:
            for _ in g:
                yield held.popleft()
        if g.session.halted:
            self._halted(g.session, stream=True)

    async def _guard_async(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        it = chunks.__aiter__()
        try:
            first = await it.__anext__()
        except StopAsyncIteration:
            return
        if _text_of(first) is None:
            rest = [c async for c in it]
            yield await self._ainvoke(first if not rest else _merge([first] + rest))
            return
        held: deque[Any] = deque()

        async def texts() -> AsyncIterator[str]:
            try:
                held.append(first)
                yield _text_of(first) or ""
                async for ch in it:
                    held.append(ch)
                    yield _text_of(ch) or ""
            finally:
                await _aclose(it)
                if it is not chunks:
                    await _aclose(chunks)

        g = astream_guard(texts(), self.scorer, tenant_id=self.tenant_id, release="sentence")
        async with g:
            async for _ in g:
                yield held.popleft()
        if g.session.halted:
            self._halted(g.session, stream=True)

    def transform(self, input: Iterator[Any], config: Any = None, **kwargs: Any) -> Iterator[Any]:
        """Forward the chunks of ``input`` whose sentences pass; stop before the first that fails
        and close ``input`` (the model's stream)."""
        config = ensure_config(config)
        run = get_callback_manager_for_config(config).on_chain_start(
            None, {"input": ""}, name=config.get("run_name") or self.get_name(), run_id=config.pop("run_id", None))
        n = 0
        try:
            for chunk in self._guard_sync(input):
                n += 1
                yield chunk
        except BaseException as exc:
            run.on_chain_error(exc)
            raise
        run.on_chain_end({"chunks": n})

    async def atransform(self, input: AsyncIterator[Any], config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        """Async :meth:`transform` (a sync scorer runs on its bounded executor)."""
        config = ensure_config(config)
        run = await get_async_callback_manager_for_config(config).on_chain_start(
            None, {"input": ""}, name=config.get("run_name") or self.get_name(), run_id=config.pop("run_id", None))
        n = 0
        try:
            async for chunk in self._guard_async(input):
                n += 1
                yield chunk
        except BaseException as exc:
            await run.on_chain_error(exc)
            raise
        await run.on_chain_end({"chunks": n})


def _sentence_tokens(text: str) -> list[str]:
    """``text`` cut at sentence starts (the pieces concatenate back to ``text``)."""
    cuts = [a for a, _ in split_sentences(text) if a > 0]
    bounds = [0] + cuts + [len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def _merge(values: list[Any]) -> Any:
    """Chunks that are not text (for example dict chunks of a parser) combined with ``+``."""
    out = values[0]
    for v in values[1:]:
        try:
            out = out + v
        except TypeError:
            raise InputTypeError(f"cannot combine stream chunks of type {type(out).__name__}") from None
    return out


class CoherenceCallbackHandler(BaseCallbackHandler):
    """Observe-only LangChain callback: reviews every finished generation against its prompt.

    Args:
        threshold, use_nli, facts, store, nli_model, scorer: as :class:`DirectorAIGuard`
            (``ground_truth_store`` is director-ai's name for ``store``).
        raise_on_failure: raise :class:`HallucinationError` from the callback for a rejected
            generation (``raise_error`` is set so LangChain propagates it); default False: only
            record and log.
        tenant_id: the tenant whose knowledge is evidence.

    Attributes:
        last_score: the latest :class:`CoherenceScore` (None before the first generation).
        scores: every score recorded, in completion order.

    Thread-safety: thread-safe (prompts are kept per run id under a lock), so one handler may
    observe a ``batch`` running on several threads.
    """

    def __init__(self, threshold: float = 0.3, use_nli: bool | None = None, raise_on_failure: bool = False,
                 ground_truth_store: Any = None, *, facts: dict[str, str] | None = None, store: Any = None,
                 nli_model: str | None = None, scorer: Any = None, tenant_id: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if ground_truth_store is not None and store is not None:
            raise ConfigError("give store or ground_truth_store, not both", field="store")
        self.scorer = make_scorer(facts, store if store is not None else ground_truth_store, threshold, use_nli,
                                  nli_model, scorer)
        if not isinstance(raise_on_failure, bool):
            raise InputTypeError("raise_on_failure must be a bool")
        self.raise_on_failure = raise_on_failure
        self.raise_error = raise_on_failure
        self.tenant_id = tenant_id
        self.last_score: Any = None
        self.scores: list[Any] = []
        self._prompts: dict[Any, str] = {}
        self._lock = threading.Lock()

    def on_llm_start(self, serialized: dict[str, Any], prompts: list[str], *, run_id: Any = None,
                     **kwargs: Any) -> None:
        """Remember the (last) prompt of the run."""
        with self._lock:
            self._prompts[run_id] = prompts[-1] if prompts else ""

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[Any]], *, run_id: Any = None,
                            **kwargs: Any) -> None:
        """Remember the text of the run's last human message."""
        prompt = ""
        for m in reversed(messages[-1] if messages else []):
            if getattr(m, "type", "") == "human":
                prompt = _text_of(m) or ""
                break
        with self._lock:
            self._prompts[run_id] = prompt

    def on_llm_end(self, response: Any, *, run_id: Any = None, **kwargs: Any) -> None:
        """Review each generation's text; record the score; log (or raise) on rejection."""
        with self._lock:
            prompt = self._prompts.pop(run_id, "")
        for gens in getattr(response, "generations", None) or []:
            for gen in gens:
                msg = getattr(gen, "message", None)
                text = _text_of(msg) if msg is not None else getattr(gen, "text", None)
                if not isinstance(text, str) or not text:
                    continue
                approved, cs = self.scorer.review(prompt, text, tenant_id=self.tenant_id)
                with self._lock:
                    self.last_score = cs
                    self.scores.append(cs)
                if not approved:
                    logger.warning("generation rejected: coherence %.3f below threshold %.3f (run %s)",
                                   cs.score, getattr(self.scorer, "threshold", float("nan")), run_id)
                    if self.raise_on_failure:
                        raise rejection_error(cs, threshold=getattr(self.scorer, "threshold", None),
                                              response=text, prefix="generation")

    def on_llm_error(self, error: BaseException, *, run_id: Any = None, **kwargs: Any) -> None:
        """Forget the failed run's prompt."""
        with self._lock:
            self._prompts.pop(run_id, None)

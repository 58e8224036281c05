"""director-ai's one-call entry points: :func:`score` and :func:`guard` (a wrapped SDK client).

* ``score(prompt, response, facts={...})`` judges one response and returns the
  :class:`~director_fast.types.results.CoherenceScore`, no client needed.
* ``client = guard(OpenAI(), facts={...})`` returns a proxy of an OpenAI or Anthropic client
  (sync or async) whose ``chat.completions.create`` / ``messages.create`` judge every answer:

  - ``stream=False``: the whole message is reviewed, and each tool call's arguments go through
    :func:`~director_fast.diagnostics.confidence.evaluate_tool_call` against the ``tools`` of the request.
    A rejection raises :class:`~director_fast.errors.HallucinationError` (``on_fail="raise"``),
    is logged (``"log"``), or is only attached to the response (``"metadata"``: the response gets
    ``director_score``, ``director_approved``, ``director_tool_reports`` and
    ``director_explanation`` attributes, approved or not; a plain ``dict`` response gets the
    same keys with JSON-safe values, see :func:`attach_metadata`). The error's message and its
    ``explanation`` name the failing claims, their evidence and a suggestion.
  - ``stream=True``: the SDK's own chunk / event objects are yielded, held back per sentence
    while the sentence is judged, up to the last safe one (:func:`~director_fast.stream.stream_guard`
    over the text deltas of :mod:`director_fast.stream.adapters`); on a halt the upstream HTTP stream is
    closed and ``on_fail`` applies: ``"raise"`` raises
    :class:`~director_fast.errors.StreamHalted` after the last safe object, ``"log"`` logs and
    ends the stream, ``"metadata"`` ends it and sets ``stream.director_halt`` (the halt's
    SafetyEvent) and ``stream.director_explanation`` (why it halted). ``stream.session`` is the
    :class:`StreamSession` in every mode. ``guard(..., on_halt_text="...")`` sends a fallback
    message after a halt. Streamed tool-call deltas pass through unchecked.

Evidence: ``facts`` (a ``{key: value}`` mapping, indexed as ``"key: value"`` facts in a fresh
:class:`~director_fast.verify.knowledge.KnowledgeBase`), or ``store`` (a ``KnowledgeBase`` or any object
with ``retrieve(query, k=..., tenant=...)``), plus ``context=`` and the conversation's ``tool``
messages / Anthropic ``tool_result`` blocks. System prompts are instructions, never evidence.
With no evidence at all every factual claim is ``not_found`` and the response is rejected.

Thread safety: :func:`score` is a pure function. A guarded client is as thread-safe as the SDK
client it wraps (the scorer it shares is thread-safe); one guarded stream object must be consumed
by one thread / task.
"""

from __future__ import annotations

import inspect
import logging
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from director_fast.stream.adapters import (
    aanthropic_text_deltas,
    anthropic_text_deltas,
    aopenai_text_deltas,
    openai_text_deltas,
)
from director_fast.diagnostics.confidence import evaluate_tool_call
from director_fast.verify.scorer import CoherenceScorer
from director_fast.types.results import CoherenceScore
from director_fast.errors import ConfigError, InputTypeError, StreamHalted
from director_fast.verify.explain import explain, explain_halt, rejection_error
from director_fast.verify.knowledge import KnowledgeBase
from director_fast.stream.stream_guard import astream_guard, stream_guard

__all__ = ["score", "guard", "ON_FAIL_MODES"]

_log = logging.getLogger("director_fast.client_guard")

ON_FAIL_MODES = ("raise", "log", "metadata")


# --------------------------------------------------------------------------------------------
# score()
# --------------------------------------------------------------------------------------------


def _knowledge(facts: Any, store: Any) -> Any:
    if facts is not None and store is not None:
        raise ConfigError("give facts or store, not both (add the facts to the store instead)", "facts")
    if facts is not None:
        if not isinstance(facts, Mapping):
            raise InputTypeError(f"facts must be a dict[str, str], got {type(facts).__name__}")
        if not facts:  # an empty ground truth would reject every claim as unknown, with advice that does not apply
            raise ConfigError("facts is empty: give at least one {key: value} fact, or leave facts out and pass "
                              "the evidence as context=", "facts")
        kb = KnowledgeBase()
        for key, value in facts.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise InputTypeError(f"facts must map str to str, got {type(key).__name__} -> "
                                     f"{type(value).__name__} for key {str(key)[:40]!r}")
            kb.add_facts([f"{key}: {value}"], source=key)
        return kb
    if store is not None and not hasattr(store, "retrieve"):
        raise InputTypeError(f"store must be a KnowledgeBase or have retrieve(query, k=..., tenant=...), "
                             f"got {type(store).__name__}")
    return store


def make_scorer(facts: Any, store: Any, threshold: float, use_nli: bool | None, nli_model: str | None,
                scorer: Any) -> Any:
    """The scorer that :func:`score`, :func:`guard` and the integrations build from their
    director-ai style arguments: ``scorer`` itself when given (it must have ``review``), else a
    :class:`CoherenceScorer` over ``facts`` (``{key: value}``, indexed as ``"key: value"`` facts)
    or ``store``.

    Raises:
        ConfigError: ``scorer`` together with facts/store/use_nli/nli_model; facts and store
            together; an empty ``facts``; an invalid threshold or NLI choice.
        InputTypeError: facts not a ``dict[str, str]``; a store without ``retrieve``; a scorer
            without ``review``.
    """
    if scorer is not None:
        if facts is not None or store is not None or nli_model is not None or use_nli is not None:
            raise ConfigError("a prebuilt scorer carries its own knowledge and NLI: do not also pass "
                              "facts, store, use_nli or nli_model", "scorer")
        if not hasattr(scorer, "review"):
            raise InputTypeError(f"scorer must have review(prompt, response, ...), got {type(scorer).__name__}")
        return scorer
    return CoherenceScorer(threshold=threshold, knowledge=_knowledge(facts, store), use_nli=use_nli,
                           nli_model=nli_model)


_make_scorer = make_scorer  # former private name


def score(prompt: str, response: str, *, facts: dict[str, str] | None = None, store: Any = None,
          threshold: float = 0.3, use_nli: bool | None = None, nli_model: str | None = None,
          context: Any = None, tenant_id: str = "", scorer: Any = None) -> CoherenceScore:
    """Judge one response (director-ai's ``score``); no SDK client needed.

    Args:
        prompt: the user's message.
        response: the model's answer.
        facts: ``{key: value}`` ground truth, indexed as ``"key: value"`` facts.
        store: a :class:`~director_fast.verify.knowledge.KnowledgeBase` or a retriever (instead of facts).
        threshold: approval threshold in [0, 1] (director-ai's default 0.3).
        use_nli: ``None``: an NLI model when ``nli_model`` is given, else the lexical backend;
            ``True`` requires ``nli_model`` (nothing is downloaded); ``False``: lexical.
        nli_model: directory of an exported ONNX NLI model (``director-fast export-nli``).
        context: extra evidence for this call (a str or list of str).
        tenant_id: the tenant whose knowledge in ``store`` is evidence.
        scorer: a prebuilt :class:`CoherenceScorer` to reuse (then no facts/store/use_nli/nli_model).

    Returns:
        :class:`CoherenceScore` (``score`` in [0, 1], ``approved``, ``warning``, ``evidence``...).

    Raises:
        ConfigError: facts and store together; empty ``facts``; bad threshold; ``use_nli=True`` without
            a model.
        InputTypeError: facts not a ``dict[str, str]``; a store without ``retrieve``; non-str text.
    """
    s = _make_scorer(facts, store, threshold, use_nli, nli_model, scorer)
    return s.score(prompt, response, context=context, tenant_id=tenant_id)


# --------------------------------------------------------------------------------------------
# helpers shared by the client proxies
# --------------------------------------------------------------------------------------------


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _text_of(content: Any) -> str:
    """Text of a message content: a str, or the text parts / blocks of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif _get(p, "type") in ("text", "input_text", "output_text") and isinstance(_get(p, "text"), str):
                parts.append(_get(p, "text"))
            elif _get(p, "type") == "tool_result":
                parts.append(_text_of(_get(p, "content")))
        return "\n".join(x for x in parts if x)
    return ""


def _openai_messages(messages: Any) -> list[dict[str, str]]:
    out = []
    for m in messages or ():
        role = _get(m, "role")
        if role not in ("system", "developer", "user", "assistant", "tool", "function"):
            continue
        text = _text_of(_get(m, "content"))
        if text:
            out.append({"role": role, "content": text})
    return out


def _anthropic_messages(messages: Any) -> list[dict[str, str]]:
    out = []
    for m in messages or ():
        role = _get(m, "role")
        content = _get(m, "content")
        if isinstance(content, (list, tuple)):
            results = [b for b in content if _get(b, "type") == "tool_result"]
            for b in results:  # tool results are evidence, like OpenAI "tool" messages
                text = _text_of(_get(b, "content"))
                if text:
                    out.append({"role": "tool", "content": text})
            content = [b for b in content if _get(b, "type") != "tool_result"]
        text = _text_of(content)
        if text and role in ("user", "assistant"):
            out.append({"role": role, "content": text})
    return out


def _attach(obj: Any, name: str, value: Any) -> bool:
    """Set attribute ``name`` on an SDK response; False (and a warning) when it cannot be set."""
    try:
        setattr(obj, name, value)
        return True
    except (AttributeError, TypeError, ValueError):
        try:
            object.__setattr__(obj, name, value)
            return True
        except (AttributeError, TypeError):  # slotted or frozen foreign objects
            _log.warning("guarded client: cannot attach %s to a %s response (on_fail='metadata' "
                         "records nothing on it)", name, type(obj).__name__)
            return False


def _jsonable(value: Any) -> Any:
    """A JSON-safe copy of a metadata value (records through ``to_dict()``)."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def attach_metadata(response: Any, values: Mapping[str, Any]) -> None:
    """Record ``values`` (``director_score``, ``director_approved``, ``director_tool_reports``,
    ``director_explanation``) on a response: as attributes of an SDK object (the records
    themselves), or, for a plain ``dict`` response (a mutable mapping), as keys holding JSON-safe
    copies (``to_dict()`` of each record; the explanation as ``Explanation.render()``). A response
    that takes neither (an immutable mapping, a frozen object) is logged as a warning: never a
    silent omission."""
    from collections.abc import MutableMapping

    if isinstance(response, MutableMapping):
        for name, value in values.items():
            response[name] = (value.render() if name == "director_explanation" and value is not None
                              else _jsonable(value))
        return
    if isinstance(response, Mapping):
        _log.warning("guarded client: the %s response is an immutable mapping; on_fail='metadata' "
                     "records nothing on it", type(response).__name__)
        return
    for name, value in values.items():
        if not _attach(response, name, value):
            return


class _Policy:
    """What a guarded client shares: the scorer, on_fail, extra evidence and tenant."""

    def __init__(self, scorer: Any, on_fail: str, context: Any, tenant_id: str, release: str,
                 on_halt_text: str | None = None) -> None:
        self.scorer = scorer
        self.on_fail = on_fail
        self.context = context
        self.tenant_id = tenant_id
        self.release = release
        self.on_halt_text = on_halt_text

    # ---- whole messages ----
    def _review(self, text: str, messages: list[dict[str, str]], system: str | None) -> CoherenceScore:
        if not any(m["role"] == "user" for m in messages):
            messages = [*messages, {"role": "user", "content": ""}]
        return self.scorer.score("", text, messages=messages, system=system, context=self.context,
                                 tenant_id=self.tenant_id)

    def check(self, response: Any, text: str, calls: list[tuple[str, Any]], tools: Any,
              messages: list[dict[str, str]], system: str | None) -> Any:
        cs = self._review(text, messages, system) if text.strip() else None
        defs = {}
        for t in tools or ():
            fn = _get(t, "function")
            name = _get(fn, "name") if fn is not None else _get(t, "name")
            if isinstance(name, str):
                defs[name] = t
        reports = {}
        for name, args in calls:
            if name in defs:
                reports[name] = evaluate_tool_call(defs[name], args)
        bad_tools = [n for n, r in reports.items() if r.should_abstain()]
        approved = (cs is None or cs.approved) and not bad_tools
        threshold = getattr(self.scorer, "threshold", None)
        # knowledge or context: a claim with nothing about it is a missing fact, not a call without evidence
        given = True if (getattr(self.scorer, "knowledge", None) is not None or self.context) else None
        exp = explain(cs, threshold=threshold, evidence_given=given) if cs is not None else None
        if self.on_fail == "metadata":
            attach_metadata(response, {
                "director_score": cs, "director_approved": approved, "director_tool_reports": reports,
                "director_explanation": exp})
        if approved:
            return response
        err = rejection_error(cs if cs is not None and not cs.approved else None, threshold=threshold,
                              response=response, tool_reports=reports, explanation=exp,
                              problems=tuple(f"tool call {n!r} held: {reports[n].reason}" for n in bad_tools))
        if self.on_fail == "raise":
            raise err
        if self.on_fail == "log":
            _log.warning("guarded client: %s", err)
        return response

    def halted(self, stream: Any, session: Any) -> None:
        events = getattr(session, "safety_events", None) or []
        stream.director_halt = events[-1] if events else None
        exp = explain_halt(session)
        stream.director_explanation = exp
        msg = f"stream halted ({session.halt_reason_text or session.halt_reason}) at token {session.halt_index}"
        if exp is not None:
            msg += f": {exp.message()}"
        if self.on_fail == "raise":
            raise StreamHalted(msg, session)
        if self.on_fail == "log":
            _log.warning("guarded client: %s", msg)


class _Tokens:
    """Text deltas of an SDK stream for the guard; records which SDK object ends where."""

    def __init__(self, owner: "_StreamBase", adapter: Any) -> None:
        self._owner = owner
        self._adapter = adapter

    def __iter__(self) -> "_Tokens":
        return self

    def __next__(self) -> str:
        t = next(self._adapter)
        self._owner._text_read(t)
        return t

    def __aiter__(self) -> "_Tokens":
        return self

    async def __anext__(self) -> str:
        t = await self._adapter.__anext__()
        self._owner._text_read(t)
        return t

    def close(self) -> None:
        self._adapter.close()

    async def aclose(self) -> None:
        await self._adapter.aclose()


def _set(obj: Any, name: str, value: Any) -> None:
    if isinstance(obj, Mapping):
        obj[name] = value  # type: ignore[index]
    else:
        setattr(obj, name, value)


def _with_text(template: Any, text: str, kind: str) -> Any:
    """A deep copy of a text-carrying SDK object (an OpenAI chunk: ``choices[0].delta.content``
    or legacy ``choices[0].text``; an Anthropic ``content_block_delta``: ``delta.text``) holding
    ``text`` instead."""
    import copy

    item = copy.deepcopy(template)
    if kind == "openai":
        choice = _get(item, "choices")[0]
        delta = _get(choice, "delta")
        if delta is None:
            _set(choice, "text", text)
        else:
            _set(delta, "content", text)
    else:
        _set(_get(item, "delta"), "text", text)
    return item


class _Recorder:
    """The SDK stream, remembering every object pulled (with the text offset it ends at)."""

    def __init__(self, owner: "_StreamBase", upstream: Any) -> None:
        self._owner = owner
        self._upstream = upstream
        self._it: Any = None

    def __iter__(self) -> "_Recorder":
        self._it = iter(self._upstream)
        return self

    def __next__(self) -> Any:
        item = next(self._it)
        self._owner._pulled(item)
        return item

    def __aiter__(self) -> "_Recorder":
        self._it = self._upstream.__aiter__()
        return self

    async def __anext__(self) -> Any:
        item = await self._it.__anext__()
        self._owner._pulled(item)
        return item

    def close(self) -> None:
        fn = getattr(self._upstream, "close", None)
        if fn is not None:
            fn()

    async def aclose(self) -> None:
        for name in ("aclose", "close"):
            fn = getattr(self._upstream, name, None)
            if fn is not None:
                res = fn()
                if inspect.isawaitable(res):
                    await res
                return


class _StreamBase:
    def __init__(self, upstream: Any, policy: _Policy, kind: str, messages: list[dict[str, str]],
                 system: str | None, asynchronous: bool) -> None:
        self._upstream = upstream
        self._policy = policy
        self._pending: deque[list[Any]] = deque()  # [sdk object, text offset it ends at]
        self._read = 0       # characters of text read from upstream
        self._delivered = 0  # characters released by the guard
        self._kind = kind
        self._template: Any = None  # the last SDK object that carried text (the fallback's shape)
        self.director_halt: Any = None
        self.director_explanation: Any = None
        rec = _Recorder(self, upstream)
        if asynchronous:
            adapter = aopenai_text_deltas(rec) if kind == "openai" else aanthropic_text_deltas(rec)
            make = astream_guard
        else:
            adapter = openai_text_deltas(rec) if kind == "openai" else anthropic_text_deltas(rec)
            make = stream_guard
        if not messages or not any(m["role"] == "user" for m in messages):
            messages = [*messages, {"role": "user", "content": ""}]
        self._guard = make(_Tokens(self, adapter), policy.scorer, messages=messages, system=system,
                           context=policy.context, tenant_id=policy.tenant_id, release=policy.release)

    @property
    def session(self) -> Any:
        """The :class:`~director_fast.stream.kernel.StreamSession` of this stream."""
        return self._guard.session

    @property
    def upstream(self) -> Any:
        """The SDK's own stream object."""
        return self._upstream

    def _pulled(self, item: Any) -> None:
        self._pending.append([item, self._read])

    def _text_read(self, text: str) -> None:
        self._read += len(text)
        self._pending[-1][1] = self._read
        self._template = self._pending[-1][0]

    def _fallback(self) -> list[Any]:
        """After a halt: the ``on_halt_text`` message as one SDK object shaped like the last one
        that carried text (a deep copy with its text replaced); ``[]`` when no message is set or
        no text object was seen (a warning: the message then cannot be shaped)."""
        text = self._policy.on_halt_text
        if not text:
            return []
        if self._template is None:
            _log.warning("guarded client: the stream halted before any text; on_halt_text not sent")
            return []
        try:
            return [_with_text(self._template, text, self._kind)]
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            _log.warning("guarded client: cannot shape on_halt_text like a %s (%s); not sent",
                         type(self._template).__name__, type(exc).__name__)
            return []

    def _release(self, token: str) -> list[Any]:
        self._delivered += len(token)
        out = []
        while self._pending and self._pending[0][1] <= self._delivered:
            out.append(self._pending.popleft()[0])
        return out

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._upstream, name)


class GuardedStream(_StreamBase):
    """A guarded ``stream=True`` response: iterate it for the SDK's own chunk / event objects.

    Attributes:
        session: the :class:`StreamSession` (halt record, tokens, events).
        director_halt: the halt's :class:`SafetyEvent` (``None`` unless it halted).
        director_explanation: why it halted (an
            :class:`~director_fast.types.explanation.Explanation`; ``None`` unless it halted).
        upstream: the SDK's stream object (other attributes are looked up there).

    Thread safety: consume from one thread.
    """

    def __init__(self, upstream: Any, policy: _Policy, kind: str, messages: list[dict[str, str]],
                 system: str | None) -> None:
        super().__init__(upstream, policy, kind, messages, system, asynchronous=False)
        self._gen: Any = None

    def __iter__(self) -> Any:
        if self._gen is None:
            self._gen = self._run()
        return self._gen

    def __next__(self) -> Any:
        return next(iter(self))

    def _run(self) -> Any:
        for tok in self._guard:
            yield from self._release(tok)
        s = self._guard.session
        if s.halted:
            self._pending.clear()
            yield from self._fallback()
            self._policy.halted(self, s)
            return
        while self._pending:  # the stream ended: role / finish / usage objects after the text
            yield self._pending.popleft()[0]

    def close(self) -> None:
        """Close the guard and the upstream HTTP stream (idempotent)."""
        self._guard.close()
        if self._gen is not None:
            self._gen.close()

    def __enter__(self) -> "GuardedStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class AsyncGuardedStream(_StreamBase):
    """Async twin of :class:`GuardedStream` (``async for``; ``aclose()``; ``async with``).

    Thread safety: consume from one task.
    """

    def __init__(self, upstream: Any, policy: _Policy, kind: str, messages: list[dict[str, str]],
                 system: str | None) -> None:
        super().__init__(upstream, policy, kind, messages, system, asynchronous=True)
        self._gen: Any = None

    def __aiter__(self) -> Any:
        if self._gen is None:
            self._gen = self._run()
        return self._gen

    async def __anext__(self) -> Any:
        return await self.__aiter__().__anext__()

    async def _run(self) -> Any:
        async for tok in self._guard:
            for item in self._release(tok):
                yield item
        s = self._guard.session
        if s.halted:
            self._pending.clear()
            for item in self._fallback():
                yield item
            self._policy.halted(self, s)
            return
        while self._pending:
            yield self._pending.popleft()[0]

    async def aclose(self) -> None:
        """Close the guard and the upstream HTTP stream (idempotent)."""
        await self._guard.aclose()
        if self._gen is not None:
            await self._gen.aclose()

    async def __aenter__(self) -> "AsyncGuardedStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


# --------------------------------------------------------------------------------------------
# OpenAI: client.chat.completions.create
# --------------------------------------------------------------------------------------------


class _Proxy:
    """Delegates every attribute it does not define to the wrapped object."""

    def __init__(self, inner: Any) -> None:
        object.__setattr__(self, "_inner", inner)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@dataclass(frozen=True)
class _Provider:
    """How one SDK's ``create`` is read: the stream format's name, the whole-response review,
    the request's messages and its system prompt."""

    kind: str
    review: Callable[[_Policy, dict[str, Any], Any], Any]
    messages: Callable[[Any], Any]
    system: Callable[[dict[str, Any]], str | None]


class _GuardedCreate(_Proxy):
    """An SDK endpoint (``chat.completions`` or ``messages``) whose ``create`` is guarded;
    everything else is the endpoint's own."""

    def __init__(self, inner: Any, policy: _Policy, asynchronous: bool, provider: _Provider) -> None:
        super().__init__(inner)
        object.__setattr__(self, "_policy", policy)
        object.__setattr__(self, "_async", asynchronous)
        object.__setattr__(self, "_provider", provider)

    def _stream_args(self, kw: dict[str, Any]) -> tuple[Any, ...]:
        p = self._provider
        return self._policy, p.kind, p.messages(kw.get("messages")), p.system(kw)

    def create(self, *args: Any, **kw: Any) -> Any:
        """The SDK's ``create``, guarded (see :func:`director_fast.guard`)."""
        if self._async:
            return self._acreate(*args, **kw)
        out = self._inner.create(*args, **kw)
        if kw.get("stream"):
            return GuardedStream(out, *self._stream_args(kw))
        return self._provider.review(self._policy, kw, out)

    async def _acreate(self, *args: Any, **kw: Any) -> Any:
        out = await self._inner.create(*args, **kw)
        if kw.get("stream"):
            return AsyncGuardedStream(out, *self._stream_args(kw))
        import asyncio

        return await asyncio.to_thread(self._provider.review, self._policy, kw, out)


def _openai_review(policy: _Policy, kw: dict[str, Any], response: Any) -> Any:
    choices = _get(response, "choices") or ()
    if len(choices) > 1:  # the others would reach the user unchecked
        raise InputTypeError(f"the response has {len(choices)} choices; the guard checks one: request n=1",
                             "choices")
    msg = _get(choices[0], "message") if choices else None
    text = _text_of(_get(msg, "content")) if msg is not None else ""
    calls = []
    for tc in (_get(msg, "tool_calls") or ()) if msg is not None else ():
        fn = _get(tc, "function")
        if fn is not None:
            calls.append((_get(fn, "name"), _get(fn, "arguments") or "{}"))
    return policy.check(response, text, calls, kw.get("tools"), _openai_messages(kw.get("messages")), None)


_OPENAI = _Provider("openai", _openai_review, _openai_messages, lambda kw: None)


class _OpenAIChat(_Proxy):
    def __init__(self, inner: Any, policy: _Policy, asynchronous: bool) -> None:
        super().__init__(inner)
        object.__setattr__(self, "completions", _GuardedCreate(inner.completions, policy, asynchronous, _OPENAI))


class GuardedOpenAI(_Proxy):
    """An OpenAI (or OpenAI-compatible) client whose ``chat.completions.create`` is guarded;
    everything else is the client's own. Thread safety: as the wrapped client."""

    def __init__(self, client: Any, policy: _Policy, asynchronous: bool) -> None:
        super().__init__(client)
        object.__setattr__(self, "chat", _OpenAIChat(client.chat, policy, asynchronous))


# --------------------------------------------------------------------------------------------
# Anthropic: client.messages.create
# --------------------------------------------------------------------------------------------


def _anthropic_system(kw: dict[str, Any]) -> str | None:
    return _text_of(kw.get("system")) or None


def _anthropic_review(policy: _Policy, kw: dict[str, Any], response: Any) -> Any:
    blocks = _get(response, "content") or ()
    text = "".join(_get(b, "text") or "" for b in blocks if _get(b, "type") == "text")
    calls = [(_get(b, "name"), _get(b, "input") or {}) for b in blocks if _get(b, "type") == "tool_use"]
    return policy.check(response, text, calls, kw.get("tools"), _anthropic_messages(kw.get("messages")),
                        _anthropic_system(kw))


_ANTHROPIC = _Provider("anthropic", _anthropic_review, _anthropic_messages, _anthropic_system)


class GuardedAnthropic(_Proxy):
    """An Anthropic client whose ``messages.create`` is guarded; everything else is the
    client's own. Thread safety: as the wrapped client."""

    def __init__(self, client: Any, policy: _Policy, asynchronous: bool) -> None:
        super().__init__(client)
        object.__setattr__(self, "messages", _GuardedCreate(client.messages, policy, asynchronous, _ANTHROPIC))


# --------------------------------------------------------------------------------------------
# guard()
# --------------------------------------------------------------------------------------------


def _is_async(client: Any, create: Any) -> bool:
    """True for an async client: its ``create`` is a coroutine function (looking through
    decorators), or the client's class is an SDK ``Async*`` client."""
    try:
        fn = inspect.unwrap(create)
    except ValueError:  # a wrapper cycle
        fn = create
    return (inspect.iscoroutinefunction(create) or inspect.iscoroutinefunction(fn)
            or type(client).__name__.startswith("Async"))


def guard(client: Any, *, facts: dict[str, str] | None = None, store: Any = None, threshold: float = 0.3,
          use_nli: bool | None = None, on_fail: str = "raise", nli_model: str | None = None,
          context: Any = None, tenant_id: str = "", scorer: Any = None, release: str = "sentence",
          on_halt_text: str | None = None) -> Any:
    """Wrap an OpenAI or Anthropic client (sync or async) so every answer is judged
    (director-ai's ``guard``). See the module docstring for what happens on each path.

    Args:
        client: ``openai.OpenAI`` / ``AsyncOpenAI`` (or a compatible client with
            ``chat.completions.create``) or ``anthropic.Anthropic`` / ``AsyncAnthropic``
            (``messages.create``).
        facts, store, threshold, use_nli, nli_model, context, tenant_id, scorer: as for
            :func:`score`; the scorer is built once and shared by every call.
        on_fail: ``"raise"`` (default), ``"log"`` or ``"metadata"``.
        release: ``"sentence"`` (default: text is held until its sentence is judged) or
            ``"token"`` for streams.
        on_halt_text: a message sent after a halted stream's last safe text (default None:
            nothing is added), as one more SDK chunk / event shaped like the stream's text
            objects (a copy of the last one with its text replaced), before ``on_fail`` applies.
            The stream's ``director_explanation`` says why it halted.

    Returns:
        A proxy of the client (use the return value: ``client = guard(client, ...)``); the
        client itself is not modified.

    Raises:
        ConfigError: an unknown ``on_fail`` or ``release``; see :func:`score`.
        InputTypeError: ``client`` has neither ``chat.completions.create`` nor ``messages.create``.
    """
    if on_fail not in ON_FAIL_MODES:
        raise ConfigError(f"on_fail must be one of {ON_FAIL_MODES}, got {on_fail!r}", "on_fail")
    if release not in ("sentence", "token"):
        raise ConfigError(f"release must be 'sentence' or 'token', got {release!r}", "release")
    if on_halt_text is not None and not isinstance(on_halt_text, str):
        raise InputTypeError(f"on_halt_text must be a str or None, got {type(on_halt_text).__name__}",
                             "on_halt_text")
    s = _make_scorer(facts, store, threshold, use_nli, nli_model, scorer)
    policy = _Policy(s, on_fail, context, tenant_id, release, on_halt_text)
    completions = getattr(getattr(client, "chat", None), "completions", None)
    if completions is not None and hasattr(completions, "create"):
        return GuardedOpenAI(client, policy, _is_async(client, completions.create))
    messages = getattr(client, "messages", None)
    if messages is not None and hasattr(messages, "create"):
        return GuardedAnthropic(client, policy, _is_async(client, messages.create))
    raise InputTypeError(f"client must be an OpenAI-style client (chat.completions.create) or an Anthropic "
                         f"client (messages.create), got {type(client).__name__}")

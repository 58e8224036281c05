"""Adapters from LLM client streams to token (text-delta) streams for ``stream_guard``.

* OpenAI-style chat-completion chunk streams (:func:`openai_text_deltas`): each chunk has
  ``choices[i].delta.content`` (objects from the ``openai`` client, or plain dicts of the same
  shape). Text of choice ``index`` (default 0) is yielded; chunks without text (role headers,
  tool-call deltas, ``finish_reason`` chunks, usage-only chunks with empty ``choices``) are skipped.
  Legacy completion chunks (``choices[i].text`` instead of ``delta``) are read too.
* Anthropic-style message event streams (:func:`anthropic_text_deltas`): events of type
  ``content_block_delta`` whose ``delta.type`` is ``text_delta`` yield ``delta.text``; the other
  events (``message_start``, ``content_block_start``/``stop``, ``input_json_delta``,
  ``thinking_delta``, ``message_delta``, ``message_stop``, ``ping``) are skipped.
* OpenAI Responses API event streams (:func:`openai_responses_text_deltas`):
  ``response.output_text.delta`` events yield ``delta``; the other ``response.*`` events are
  skipped.

**Upstream failures are not completions.** An adapter raises
:class:`~director_fast.errors.UpstreamError` (after the text that came before it) when the stream
reports a failure or stops early: an ``error`` event (Anthropic, Responses API), a finish / stop
reason configured to halt (OpenAI ``length`` and ``content_filter``; Anthropic ``max_tokens`` and
``refusal``; Responses ``response.incomplete`` for ``max_output_tokens`` and ``content_filter``),
``response.failed``, or a stream that ends without its final chunk / event (no ``finish_reason``
for the choice, no ``message_stop``, no ``response.completed``: a dropped connection). A guard
reading the adapter records the halt as ``upstream_error`` with a SafetyEvent and ends the stream
(``raise_on_halt=True``: ``StreamHalted``); text held back under ``release="sentence"`` is not
delivered. The halting reasons are configurable (``halt_on=``), and ``require_end=False`` accepts
a stream without its final event.

``close()``/``aclose()`` of the adapter closes the underlying iterator and stream object (so a
halting guard stops the model); the adapter closes them itself before raising ``UpstreamError``.
Pass ``on_event=callback`` to observe the skipped items.

An item of the wrong shape -- a plain ``str`` or ``bytes``, an OpenAI item without ``choices``
(missing, or ``None`` as in an SDK object built from a malformed chunk), a choice with neither
``delta``, ``text`` nor ``finish_reason``, a text-delta event without its ``delta``, an event
without ``type`` or with a type outside the stream's set (e.g. the other provider's stream, or raw
text) -- raises :class:`~director_fast.errors.InputTypeError` naming the adapter instead of being
skipped: a guard fed the wrong adapter would otherwise see an empty response and approve it. A
guard reading the adapter records it as an ``upstream_error`` halt (``error_type`` =
``InputTypeError``) and re-raises it; the SSE integration ends the stream with a ``halt`` event and
a verdict whose ``error`` names it. A usage-only chunk (``choices`` an empty list) is not
malformed.

Thread-safety: an adapter belongs to the one consumer of its stream.
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Mapping
from typing import Any, AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, cast

from director_fast.errors import InputTypeError, UpstreamError

logger = logging.getLogger("director_fast.adapters")

__all__ = [
    "openai_text_deltas",
    "aopenai_text_deltas",
    "anthropic_text_deltas",
    "aanthropic_text_deltas",
    "openai_responses_text_deltas",
    "aopenai_responses_text_deltas",
    "OPENAI_HALT_FINISH_REASONS",
    "ANTHROPIC_HALT_STOP_REASONS",
    "RESPONSES_HALT_INCOMPLETE_REASONS",
]

#: OpenAI chat ``finish_reason`` values that end the answer early (default ``halt_on``)
OPENAI_HALT_FINISH_REASONS = ("length", "content_filter")
#: Anthropic ``stop_reason`` values that end the answer early (default ``halt_on``)
ANTHROPIC_HALT_STOP_REASONS = ("max_tokens", "refusal")
#: Responses API ``incomplete_details.reason`` values that halt (default ``halt_on``)
RESPONSES_HALT_INCOMPLETE_REASONS = ("max_output_tokens", "content_filter")

def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


_MISSING = object()

#: the event types of an Anthropic Messages stream (a closed set); any other type -- e.g. an
#: OpenAI Responses-API event such as "response.output_text.delta" -- is the wrong stream
_ANTHROPIC_EVENT_TYPES = frozenset({
    "message_start", "message_delta", "message_stop", "content_block_start", "content_block_delta",
    "content_block_stop", "ping", "error",
})


def _shape_error(item: Any, what: str, adapter: str) -> InputTypeError:
    return InputTypeError(
        f"{adapter}: stream item of type {type(item).__name__} is not {what}; "
        "use the adapter that matches the client's stream"
    )


_CODE_RE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def _code(value: Any) -> str:
    """A provider's short code, safe for logs and SafetyEvent attributes (``"other"`` when it is
    not a short identifier)."""
    if value is None:
        return ""
    v = getattr(value, "value", value)  # str enums of SDK models
    return v if isinstance(v, str) and _CODE_RE.fullmatch(v) else "other"


def _halt_set(halt_on: Any, name: str) -> frozenset[str]:
    if isinstance(halt_on, str) or not hasattr(halt_on, "__iter__"):
        raise InputTypeError(f"{name} must be a tuple of str, got {type(halt_on).__name__}")
    out = frozenset(cast("Iterable[str]", halt_on))
    if not all(isinstance(x, str) for x in out):
        raise InputTypeError(f"{name} must be a tuple of str")
    return out


class _Reader:
    """Per-stream state of an adapter: ``extract(item)`` returns the item's text (or None) and
    may set :attr:`error`; ``at_end()`` is the error of a stream that ended here (or None)."""

    provider = ""
    adapter = ""

    def __init__(self, halt_on: frozenset[str], require_end: bool) -> None:
        self.halt_on = halt_on
        self.require_end = require_end
        self.finished = False
        self.error: UpstreamError | None = None

    def fail(self, kind: str, code: Any, what: str) -> None:
        c = _code(code)
        self.error = UpstreamError(f"{self.adapter}: {what}", kind=kind, code=c, provider=self.provider)

    def at_end(self) -> UpstreamError | None:
        if self.finished or not self.require_end:
            return None
        return UpstreamError(
            f"{self.adapter}: the stream ended without its {self.final_event} (connection dropped "
            "or stream cut); the answer is incomplete", kind="truncated", provider=self.provider)

    final_event = "final event"

    def extract(self, item: Any) -> str | None:  # pragma: no cover - abstract
        raise NotImplementedError


class _OpenAIChatReader(_Reader):
    provider = "openai"
    adapter = "openai_text_deltas"

    def __init__(self, index: int, halt_on: frozenset[str], require_end: bool) -> None:
        super().__init__(halt_on, require_end)
        self.index = index
        self.final_event = f"finish_reason for choice {index}"

    def extract(self, chunk: Any) -> str | None:
        choices: Any = _MISSING if isinstance(chunk, (str, bytes)) else _get(chunk, "choices", _MISSING)
        if choices is _MISSING or choices is None:
            # an SDK object built from a malformed chunk has choices=None: as malformed as a dict
            # without the key (a usage-only chunk has an empty list)
            raise _shape_error(chunk, "an OpenAI chat-completion chunk (no 'choices')", self.adapter)
        if isinstance(choices, (str, bytes, Mapping)) or not hasattr(choices, "__iter__"):
            raise _shape_error(chunk, "an OpenAI chat-completion chunk ('choices' is not a list)", self.adapter)
        mine = None
        for choice in choices:
            if choice is None:
                raise _shape_error(chunk, "an OpenAI chat-completion chunk (a choice is null)", self.adapter)
            delta = _get(choice, "delta", None)
            text = _get(choice, "text", None) if delta is None else _get(delta, "content", None)
            if text is not None and not isinstance(text, str):
                raise _shape_error(chunk, "an OpenAI chat-completion chunk (text that is not a string)",
                                   self.adapter)
            if (_get(choice, "index", 0) or 0) != self.index:
                if text:  # another choice's text would reach the user unchecked (n > 1)
                    raise InputTypeError(
                        f"{self.adapter}: choice {_get(choice, 'index', 0)!r} carries text, but the guard "
                        f"checks choice {self.index} only: request one choice (n=1)")
            elif mine is None:
                mine = (choice, delta, text)
        if mine is None:
            return None
        choice, delta, text = mine
        fr = _get(choice, "finish_reason", None)
        if delta is None and text is None and fr is None:
            raise _shape_error(chunk, "an OpenAI chat-completion chunk (a choice without 'delta', "
                               "'text' or 'finish_reason')", self.adapter)
        if fr is not None:
            self.finished = True
            fr = getattr(fr, "value", fr)
            if fr in self.halt_on:
                self.fail("finish_reason", fr, f"finish_reason {str(fr)[:40]!r}: the answer was cut off")
        return text or None


class _AnthropicReader(_Reader):
    provider = "anthropic"
    adapter = "anthropic_text_deltas"
    final_event = "message_stop event"

    def extract(self, event: Any) -> str | None:
        kind = _MISSING if isinstance(event, (str, bytes)) else _get(event, "type", _MISSING)
        if kind is _MISSING:
            raise _shape_error(event, "an Anthropic message stream event (no 'type')", self.adapter)
        if kind not in _ANTHROPIC_EVENT_TYPES:
            raise InputTypeError(
                f"{self.adapter}: unknown event type {str(kind)[:60]!r} (an Anthropic message stream "
                f"has {sorted(_ANTHROPIC_EVENT_TYPES)}); use the adapter that matches the client's stream")
        if kind in ("content_block_delta", "content_block_start"):
            part = _get(event, "delta" if kind == "content_block_delta" else "content_block", None)
            if part is None:
                if kind == "content_block_start":
                    return None
                raise _shape_error(event, "an Anthropic content_block_delta (no 'delta')", self.adapter)
            text = _get(part, "text", None)
            if _get(part, "type", None) not in ("text_delta", "text"):
                if isinstance(text, str) and text:  # text in a part the guard does not know
                    raise _shape_error(event, "an Anthropic event with text in an unknown part type",
                                       self.adapter)
                return None
            if not isinstance(text, str) and (text is not None or kind == "content_block_delta"):
                raise _shape_error(event, "an Anthropic text part whose text is not a string", self.adapter)
            return text or None
        if kind == "error":
            err = _get(event, "error", None)
            code = _get(err, "type", None) if err is not None else None
            self.fail("error_event", code, f"the stream reported an error ({_code(code) or 'no type'})")
        elif kind == "message_delta":
            sr = _get(_get(event, "delta", None) or {}, "stop_reason", None)
            if sr is not None and getattr(sr, "value", sr) in self.halt_on:
                self.fail("finish_reason", sr, f"stop_reason {str(getattr(sr, 'value', sr))[:40]!r}: "
                          "the answer was cut off")
        elif kind == "message_stop":
            self.finished = True
        return None


class _ResponsesReader(_Reader):
    provider = "openai.responses"
    adapter = "openai_responses_text_deltas"
    final_event = "response.completed event"

    def __init__(self, output_index: int | None, halt_on: frozenset[str], require_end: bool) -> None:
        super().__init__(halt_on, require_end)
        self.output_index = output_index

    def extract(self, event: Any) -> str | None:
        kind = _MISSING if isinstance(event, (str, bytes)) else _get(event, "type", _MISSING)
        if kind is _MISSING:
            raise _shape_error(event, "a Responses API stream event (no 'type')", self.adapter)
        if kind == "response.output_text.delta":
            if self.output_index is not None and _get(event, "output_index", 0) != self.output_index:
                return None
            text = _get(event, "delta", None)
            if text is None:
                raise _shape_error(event, "a response.output_text.delta event (no 'delta')", self.adapter)
            return text if isinstance(text, str) and text else None
        if kind == "error":
            self.fail("error_event", _get(event, "code", None),
                      f"the stream reported an error ({_code(_get(event, 'code', None)) or 'no code'})")
            return None
        if not isinstance(kind, str) or not kind.startswith("response."):
            raise InputTypeError(
                f"{self.adapter}: unknown event type {str(kind)[:60]!r} (Responses API events are "
                "'response.*' and 'error'); use the adapter that matches the client's stream")
        if kind == "response.completed":
            self.finished = True
        elif kind == "response.failed":
            self.finished = True
            err = _get(_get(event, "response", None) or {}, "error", None)
            code = _get(err, "code", None) if err is not None else None
            self.fail("failed", code, f"response.failed ({_code(code) or 'no code'})")
        elif kind == "response.incomplete":
            self.finished = True
            details = _get(_get(event, "response", None) or {}, "incomplete_details", None)
            reason = _get(details, "reason", None) if details is not None else None
            if getattr(reason, "value", reason) in self.halt_on:
                self.fail("incomplete", reason, f"response.incomplete ({_code(reason)}): the answer "
                          "was cut off")
        return None


def _close_sync(objs: tuple[Any, ...]) -> None:
    seen: list[Any] = []
    for obj in objs:
        if any(obj is o for o in seen):
            continue
        seen.append(obj)
        close = getattr(obj, "close", None)
        if close is not None:
            close()


class _SyncAdapter:
    def __init__(self, stream: Iterable[Any], reader: _Reader,
                 on_event: Callable[[Any], None] | None) -> None:
        if not hasattr(stream, "__iter__") or isinstance(stream, (str, bytes)):
            raise InputTypeError(f"stream must be an iterable of chunks / events, got {type(stream).__name__}")
        self._stream = stream
        self._it = iter(stream)
        self._reader = reader
        self._on_event = on_event
        self._pending: UpstreamError | None = None
        self._done = False
        self._closed = False

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        if self._pending is not None:
            self._raise(self._pending)
        if self._done:
            raise StopIteration
        reader = self._reader
        while True:
            try:
                item = next(self._it)
            except StopIteration:
                self._done = True
                err = reader.at_end()
                if err is not None:
                    self._raise(err)
                raise
            text = reader.extract(item)
            if reader.error is not None:
                err, reader.error = reader.error, None
                if text is not None:  # deliver the chunk's text, fail at the next call
                    self._pending = err
                    return text
                self._raise(err)
            if text is not None:
                return text
            if self._on_event is not None:
                self._on_event(item)

    def _raise(self, err: UpstreamError) -> None:
        self._pending = None
        self._done = True
        logger.info("%s (kind=%s code=%s)", err, err.kind, err.code)
        try:
            self.close()
        except Exception as exc:
            logger.debug("closing the stream after an upstream error failed: %r", exc)
        raise err

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _close_sync((self._it, self._stream))


class _AsyncAdapter:
    def __init__(self, stream: AsyncIterable[Any], reader: _Reader,
                 on_event: Callable[[Any], None] | None) -> None:
        if not hasattr(stream, "__aiter__"):
            raise InputTypeError(f"stream must be an async iterable of chunks / events, got {type(stream).__name__}")
        self._stream = stream
        self._it = stream.__aiter__()
        self._reader = reader
        self._on_event = on_event
        self._pending: UpstreamError | None = None
        self._done = False
        self._closed = False

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        if self._pending is not None:
            await self._raise(self._pending)
        if self._done:
            raise StopAsyncIteration
        reader = self._reader
        while True:
            try:
                item = await self._it.__anext__()
            except StopAsyncIteration:
                self._done = True
                err = reader.at_end()
                if err is not None:
                    await self._raise(err)
                raise
            text = reader.extract(item)
            if reader.error is not None:
                err, reader.error = reader.error, None
                if text is not None:
                    self._pending = err
                    return text
                await self._raise(err)
            if text is not None:
                return text
            if self._on_event is not None:
                self._on_event(item)

    async def _raise(self, err: UpstreamError) -> None:
        self._pending = None
        self._done = True
        logger.info("%s (kind=%s code=%s)", err, err.kind, err.code)
        try:
            await self.aclose()
        except Exception as exc:
            logger.debug("closing the stream after an upstream error failed: %r", exc)
        raise err

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        seen: list[Any] = []
        for obj in (self._it, self._stream):
            if any(obj is o for o in seen):
                continue
            seen.append(obj)
            fn = getattr(obj, "aclose", None) or getattr(obj, "close", None)
            if fn is not None:
                res = fn()
                if inspect.isawaitable(res):
                    await res


def _chat_reader(index: int, halt_on: Any, require_end: bool) -> _OpenAIChatReader:
    if isinstance(index, bool) or not isinstance(index, int):
        raise InputTypeError(f"index must be an int, got {type(index).__name__}")
    return _OpenAIChatReader(index, _halt_set(halt_on, "halt_on"), bool(require_end))


def openai_text_deltas(stream: Iterable[Any], *, index: int = 0,
                       on_event: Callable[[Any], None] | None = None,
                       halt_on: Iterable[str] = OPENAI_HALT_FINISH_REASONS,
                       require_end: bool = True) -> Iterator[str]:
    """Text deltas of choice ``index`` from an OpenAI-style chat-completion chunk stream.

    Args:
        stream: the client's stream (``client.chat.completions.create(..., stream=True)``) or any
            iterable of chunk objects / dicts.
        index: the choice to read.
        on_event: called with every chunk that carries no text for the choice.
        halt_on: ``finish_reason`` values that end the answer early (default ``("length",
            "content_filter")``): the adapter raises ``UpstreamError(kind="finish_reason")`` after
            the chunk's text. Other values (``stop``, ``tool_calls``) end the stream normally.
        require_end: a stream that ends without a ``finish_reason`` for the choice raises
            ``UpstreamError(kind="truncated")``.

    Raises (while iterating):
        UpstreamError: see above (a guard turns it into an ``upstream_error`` halt);
        InputTypeError: an item that is not a chat-completion chunk, text that is not a string,
            or text for another choice than ``index`` (it would reach the user unchecked:
            request ``n=1``).
    """
    return _SyncAdapter(stream, _chat_reader(index, halt_on, require_end), on_event)


def aopenai_text_deltas(stream: AsyncIterable[Any], *, index: int = 0,
                        on_event: Callable[[Any], None] | None = None,
                        halt_on: Iterable[str] = OPENAI_HALT_FINISH_REASONS,
                        require_end: bool = True) -> AsyncIterator[str]:
    """Async twin of :func:`openai_text_deltas` (``AsyncOpenAI`` streams)."""
    return _AsyncAdapter(stream, _chat_reader(index, halt_on, require_end), on_event)


def anthropic_text_deltas(stream: Iterable[Any], *,
                          on_event: Callable[[Any], None] | None = None,
                          halt_on: Iterable[str] = ANTHROPIC_HALT_STOP_REASONS,
                          require_end: bool = True) -> Iterator[str]:
    """Text deltas from an Anthropic-style message event stream.

    Args:
        stream: ``client.messages.create(..., stream=True)`` or any iterable of event objects /
            dicts.
        on_event: called with every event that carries no text.
        halt_on: ``message_delta`` ``stop_reason`` values that end the answer early (default
            ``("max_tokens", "refusal")``): ``UpstreamError(kind="finish_reason")``.
        require_end: a stream that ends without ``message_stop`` raises
            ``UpstreamError(kind="truncated")``.

    Raises (while iterating):
        UpstreamError: also for an ``error`` event (``kind="error_event"``, ``code`` = the
        error's type, e.g. ``overloaded_error``);
        InputTypeError: an item that is not an Anthropic message stream event.
    """
    return _SyncAdapter(stream, _AnthropicReader(_halt_set(halt_on, "halt_on"), bool(require_end)), on_event)


def aanthropic_text_deltas(stream: AsyncIterable[Any], *,
                           on_event: Callable[[Any], None] | None = None,
                           halt_on: Iterable[str] = ANTHROPIC_HALT_STOP_REASONS,
                           require_end: bool = True) -> AsyncIterator[str]:
    """Async twin of :func:`anthropic_text_deltas` (``AsyncAnthropic`` streams)."""
    return _AsyncAdapter(stream, _AnthropicReader(_halt_set(halt_on, "halt_on"), bool(require_end)), on_event)


def _responses_reader(output_index: int | None, halt_on: Any, require_end: bool) -> _ResponsesReader:
    if output_index is not None and (isinstance(output_index, bool) or not isinstance(output_index, int)):
        raise InputTypeError(f"output_index must be an int or None, got {type(output_index).__name__}")
    return _ResponsesReader(output_index, _halt_set(halt_on, "halt_on"), bool(require_end))


def openai_responses_text_deltas(stream: Iterable[Any], *, output_index: int | None = None,
                                 on_event: Callable[[Any], None] | None = None,
                                 halt_on: Iterable[str] = RESPONSES_HALT_INCOMPLETE_REASONS,
                                 require_end: bool = True) -> Iterator[str]:
    """Text deltas from an OpenAI Responses API event stream
    (``client.responses.create(..., stream=True)``).

    ``response.output_text.delta`` events yield their ``delta`` (only those of output item
    ``output_index`` when given); other ``response.*`` events (``response.created``,
    ``response.output_item.added``, ``response.output_text.done``, reasoning and tool-call
    events, ...) are skipped.

    Args:
        stream: the client's stream or any iterable of event objects / dicts.
        output_index: read only this output item (default: every output text).
        on_event: called with every event that carries no text.
        halt_on: ``response.incomplete`` reasons that halt (default ``("max_output_tokens",
            "content_filter")``); an incomplete response for another reason ends normally.
        require_end: a stream that ends without ``response.completed`` (or ``failed`` /
            ``incomplete``) raises ``UpstreamError(kind="truncated")``.

    Raises (while iterating):
        UpstreamError: ``kind="error_event"`` for an ``error`` event, ``"failed"`` for
        ``response.failed`` (``code`` = ``response.error.code``), ``"incomplete"``, ``"truncated"``;
        InputTypeError: an item that is not a Responses API event (no ``type``, or a type that
        is neither ``error`` nor ``response.*``).
    """
    return _SyncAdapter(stream, _responses_reader(output_index, halt_on, require_end), on_event)


def aopenai_responses_text_deltas(stream: AsyncIterable[Any], *, output_index: int | None = None,
                                  on_event: Callable[[Any], None] | None = None,
                                  halt_on: Iterable[str] = RESPONSES_HALT_INCOMPLETE_REASONS,
                                  require_end: bool = True) -> AsyncIterator[str]:
    """Async twin of :func:`openai_responses_text_deltas` (``AsyncOpenAI`` streams)."""
    return _AsyncAdapter(stream, _responses_reader(output_index, halt_on, require_end), on_event)

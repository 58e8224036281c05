"""Adapters from LLM client streams to token (text-delta) streams for ``stream_guard``.

* OpenAI-style chat-completion chunk streams: each chunk has ``choices[i].delta.content``
  (objects from the ``openai`` client, or plain dicts of the same shape). Text of choice ``index``
  (default 0) is yielded; chunks without text (role headers, tool-call deltas, ``finish_reason``
  chunks, usage-only chunks with empty ``choices``) are skipped.
* Anthropic-style message event streams: events of type ``content_block_delta`` whose
  ``delta.type`` is ``text_delta`` yield ``delta.text``; every other event (``message_start``,
  ``content_block_start``/``stop``, ``input_json_delta``, ``thinking_delta``, ``message_delta``,
  ``message_stop``, ``ping``) is skipped.

``close()``/``aclose()`` of the adapter closes the underlying stream (so a halting guard stops
the model). Pass ``on_event=callback`` to observe the skipped events.

An item of the wrong shape -- a plain ``str`` or ``bytes``, an OpenAI item without ``choices``,
an Anthropic event without ``type`` or with a type outside the Messages stream's closed set (e.g.
the other provider's stream, OpenAI's Responses-API events, or raw text) -- raises
:class:`~director_fast.errors.InputTypeError` naming the item's position instead of being skipped:
a guard fed the wrong adapter would otherwise see an empty response and approve it. Legacy
OpenAI completion chunks (``choices[i].text`` instead of ``delta``) are read too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, AsyncIterable, AsyncIterator, Callable, Iterable, Iterator

from director_fast.errors import InputTypeError

__all__ = [
    "openai_text_deltas",
    "aopenai_text_deltas",
    "anthropic_text_deltas",
    "aanthropic_text_deltas",
]


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


def _openai_text(chunk: Any, index: int) -> str | None:
    choices = _MISSING if isinstance(chunk, (str, bytes)) else _get(chunk, "choices", _MISSING)
    if choices is _MISSING:
        raise _shape_error(chunk, "an OpenAI chat-completion chunk (no 'choices')", "openai_text_deltas")
    for choice in choices or ():
        if (_get(choice, "index", 0) or 0) != index:
            continue
        delta = _get(choice, "delta", None)
        text = _get(choice, "text", None) if delta is None else _get(delta, "content", None)
        return text if isinstance(text, str) and text else None
    return None


def _anthropic_text(event: Any) -> str | None:
    kind = _MISSING if isinstance(event, (str, bytes)) else _get(event, "type", _MISSING)
    if kind is _MISSING:
        raise _shape_error(event, "an Anthropic message stream event (no 'type')", "anthropic_text_deltas")
    if kind not in _ANTHROPIC_EVENT_TYPES:
        raise InputTypeError(
            f"anthropic_text_deltas: unknown event type {str(kind)[:60]!r} (an Anthropic message stream "
            f"has {sorted(_ANTHROPIC_EVENT_TYPES)}); use the adapter that matches the client's stream")
    if kind != "content_block_delta":
        return None
    delta = _get(event, "delta", None)
    if delta is None or _get(delta, "type", None) != "text_delta":
        return None
    text = _get(delta, "text", None)
    return text if isinstance(text, str) and text else None


class _SyncAdapter:
    def __init__(self, stream: Iterable[Any], extract: Callable[[Any], str | None],
                 on_event: Callable[[Any], None] | None) -> None:
        if not hasattr(stream, "__iter__") or isinstance(stream, (str, bytes)):
            raise InputTypeError(f"stream must be an iterable of chunks / events, got {type(stream).__name__}")
        self._stream = stream
        self._it = iter(stream)
        self._extract = extract
        self._on_event = on_event

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        while True:
            item = next(self._it)
            text = self._extract(item)
            if text is not None:
                return text
            if self._on_event is not None:
                self._on_event(item)

    def close(self) -> None:
        for obj in (self._it, self._stream):
            close = getattr(obj, "close", None)
            if close is not None:
                close()
                return


class _AsyncAdapter:
    def __init__(self, stream: AsyncIterable[Any], extract: Callable[[Any], str | None],
                 on_event: Callable[[Any], None] | None) -> None:
        if not hasattr(stream, "__aiter__"):
            raise InputTypeError(f"stream must be an async iterable of chunks / events, got {type(stream).__name__}")
        self._stream = stream
        self._it = stream.__aiter__()
        self._extract = extract
        self._on_event = on_event

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        while True:
            item = await self._it.__anext__()
            text = self._extract(item)
            if text is not None:
                return text
            if self._on_event is not None:
                self._on_event(item)

    async def aclose(self) -> None:
        for obj in (self._it, self._stream):
            for name in ("aclose", "close"):
                fn = getattr(obj, name, None)
                if fn is not None:
                    res = fn()
                    if hasattr(res, "__await__"):
                        await res
                    return


def openai_text_deltas(stream: Iterable[Any], *, index: int = 0,
                       on_event: Callable[[Any], None] | None = None) -> Iterator[str]:
    """Text deltas of choice ``index`` from an OpenAI-style chat-completion chunk stream."""
    return _SyncAdapter(stream, lambda c: _openai_text(c, index), on_event)


def aopenai_text_deltas(stream: AsyncIterable[Any], *, index: int = 0,
                        on_event: Callable[[Any], None] | None = None) -> AsyncIterator[str]:
    """Async twin of :func:`openai_text_deltas`."""
    return _AsyncAdapter(stream, lambda c: _openai_text(c, index), on_event)


def anthropic_text_deltas(stream: Iterable[Any], *,
                          on_event: Callable[[Any], None] | None = None) -> Iterator[str]:
    """Text deltas from an Anthropic-style message event stream."""
    return _SyncAdapter(stream, _anthropic_text, on_event)


def aanthropic_text_deltas(stream: AsyncIterable[Any], *,
                           on_event: Callable[[Any], None] | None = None) -> AsyncIterator[str]:
    """Async twin of :func:`anthropic_text_deltas`."""
    return _AsyncAdapter(stream, _anthropic_text, on_event)

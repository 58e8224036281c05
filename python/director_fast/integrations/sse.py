"""Server-sent events from a guarded token stream (plain ``asyncio``, no framework needed).

:func:`sse_events` turns an :class:`~director_fast.stream.stream_guard.AsyncStreamGuard` into the text of
an ``text/event-stream`` response, one SSE frame per item:

``event: token``
    ``data: {"index": i, "text": "..."}`` for every token the guard releases, in order.
``: keep-alive``
    an SSE comment (browsers ignore it) whenever nothing was sent for ``keepalive_s`` seconds,
    for example while ``release="sentence"`` holds a sentence back until it is scored; it keeps
    proxies and load balancers from closing an idle connection.
``event: halt``
    sent once when the stream halts: ``{"reason", "halt_index", "delivered", "safety_event"}``
    where ``safety_event`` is the halt's :class:`~director_fast.safety.event.SafetyEvent`
    as ``to_dict()`` (the audit record; tenant-safe by construction).
``event: verdict``
    always the last frame: ``{"approved", "halted", "reason", "delivered", "held_back",
    "min_coherence", "scorer_calls", "request_id", "tenant_id", "duration_ms", "error"}``.
    ``approved`` is false after a halt; ``error`` names the exception type when the scorer or the
    upstream raised (the stream is then halted: ``scorer_error`` / ``upstream_error``), else null.

Every payload is one JSON line, so token text with newlines stays one ``data:`` line.

Closing: the guard, and through it the upstream model stream, is closed on every way out: the
normal end, a halt, an exception, ``aclose()`` of the generator and cancellation of the task
reading it (what a server does when the client disconnects). The close runs shielded from a
repeated cancellation (anyio's level-triggered cancel scopes), so it finishes even while the
reading task is being torn down.

Thread-safety: one generator belongs to one consumer task.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from typing import Any, AsyncGenerator

from director_fast._log import warn_limited
from director_fast.errors import ConfigError, InputTypeError, StreamHalted

logger = logging.getLogger("director_fast.integrations.sse")

__all__ = ["sse_events", "sse_frame", "KEEPALIVE", "halt_payload", "verdict_payload"]

#: The keep-alive frame (an SSE comment line).
KEEPALIVE = ": keep-alive\n\n"

# closing tasks kept alive until done (a shielded close must not be garbage collected)
_CLOSERS: set[asyncio.Task[Any]] = set()


def sse_frame(data: Any, event: str | None = None) -> str:
    """One SSE frame: ``event: <event>`` (when given) and ``data: <json>``, ended by a blank line.

    Args:
        data: any JSON-serialisable value (encoded compactly, non-ASCII kept as is).
        event: the event name (letters, digits, ``_``, ``-``, ``.``), or None for the default
            ``message`` event.

    Raises:
        ConfigError: an event name with other characters (a newline would inject a field).
        InputTypeError: ``data`` is not JSON-serialisable (NaN and infinities included).
    """
    try:
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"data must be JSON-serialisable: {exc}") from None
    if event is None:
        return f"data: {body}\n\n"
    if not event or not all(c.isalnum() or c in "_-." for c in event):
        raise ConfigError(f"event must be a non-empty name of letters, digits, '_', '-', '.', got {event!r}",
                          field="event")
    return f"event: {event}\ndata: {body}\n\n"


def halt_payload(session: Any) -> dict[str, Any]:
    """The ``halt`` event's payload for a halted :class:`StreamSession`."""
    ev = session.safety_events[-1] if session.safety_events else None
    reason = session.halt_reason
    return {
        "reason": getattr(reason, "value", reason) or "",
        "halt_index": session.halt_index,
        "delivered": session.delivered_count,
        "safety_event": ev.to_dict() if ev is not None else None,
    }


def verdict_payload(session: Any, *, request_id: str = "", tenant_id: str = "",
                    error: str | None = None) -> dict[str, Any]:
    """The ``verdict`` event's payload for a finished :class:`StreamSession`."""
    reason = session.halt_reason
    m = session.min_coherence if len(session.coherence_history) else None
    return {
        "approved": not session.halted and error is None,
        "halted": bool(session.halted),
        "reason": getattr(reason, "value", reason) or "",
        "delivered": session.delivered_count,
        "held_back": session.token_count - session.delivered_count,
        "min_coherence": m if m is None or math.isfinite(m) else None,
        "scorer_calls": session.scorer_calls,
        "request_id": request_id,
        "tenant_id": tenant_id,
        "duration_ms": round(max(0.0, session.duration_ms), 3),
        "error": error,
    }


async def _shutdown(guard: Any, pending: "asyncio.Future[Any] | None") -> None:
    if pending is not None and not pending.done():
        pending.cancel()
    if pending is not None:
        try:
            await pending
        except BaseException:  # its outcome was already handled or is moot now
            pass
    await guard.aclose()


def sse_events(guard: Any, *, keepalive_s: float | None = 10.0, request_id: str | None = None,
                     tenant_id: str | None = None) -> AsyncGenerator[str, None]:
    """Stream ``guard`` as SSE frames (module docstring for the events).

    Args:
        guard: an :class:`~director_fast.stream.stream_guard.AsyncStreamGuard` (``astream_guard(...)``),
            not yet iterated. It is closed when this generator ends, however it ends.
        keepalive_s: seconds without a frame after which a keep-alive comment is sent (> 0), or
            None for none.
        request_id, tenant_id: copied into the verdict (default: ``""``; pass the ids the guard
            was built with).

    Yields:
        ``str`` frames, each ending in a blank line.

    Raises:
        ConfigError: ``keepalive_s`` not a positive number. InputTypeError: ``guard`` is not an
        async iterable with ``aclose()`` and ``session``. Exceptions of the guard are not raised:
        they end the stream with a halt and a verdict whose ``error`` names them (logged at
        WARNING, rate-limited). ``asyncio.CancelledError`` propagates.
    """
    if keepalive_s is not None and (isinstance(keepalive_s, bool) or not isinstance(keepalive_s, (int, float))
                                    or not keepalive_s > 0 or not math.isfinite(keepalive_s)):
        raise ConfigError("keepalive_s must be a positive number of seconds or None", field="keepalive_s")
    if not (hasattr(guard, "__aiter__") and hasattr(guard, "aclose") and hasattr(guard, "session")):
        raise InputTypeError(f"guard must be an AsyncStreamGuard (astream_guard(...)), got {type(guard).__name__}")
    return _events(guard, None if keepalive_s is None else float(keepalive_s), request_id or "", tenant_id or "")


async def _events(guard: Any, keepalive_s: float | None, request_id: str,
                  tenant_id: str) -> AsyncGenerator[str, None]:
    it = guard.__aiter__()
    pending: asyncio.Future[Any] | None = None
    error: str | None = None
    index = 0
    try:
        try:
            while True:
                if keepalive_s is None:
                    try:
                        tok = await it.__anext__()
                    except StopAsyncIteration:
                        break
                else:
                    if pending is None:
                        pending = asyncio.ensure_future(it.__anext__())
                    done, _ = await asyncio.wait((pending,), timeout=keepalive_s)
                    if not done:
                        yield KEEPALIVE
                        continue
                    fut, pending = pending, None
                    try:
                        tok = fut.result()
                    except StopAsyncIteration:
                        break
                yield sse_frame({"index": index, "text": tok}, "token")
                index += 1
        except StreamHalted:
            pass  # raise_on_halt=True: the halt is in the session
        except Exception as exc:  # the scorer or the upstream failed: the session records a halt
            error = type(exc).__name__
            warn_limited(logger, "stream_error", "guarded SSE stream ended by %s: %s (request_id=%s)",
                         error, exc, request_id)
        session = guard.session
        if session.halted:
            yield sse_frame(halt_payload(session), "halt")
        await _shutdown(guard, None)  # closes the upstream and stamps the session's end time
        yield sse_frame(verdict_payload(session, request_id=request_id, tenant_id=tenant_id, error=error),
                        "verdict")
    finally:
        closer = asyncio.ensure_future(_shutdown(guard, pending))
        _CLOSERS.add(closer)
        closer.add_done_callback(_CLOSERS.discard)
        await asyncio.shield(closer)

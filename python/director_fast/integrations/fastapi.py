"""FastAPI / Starlette: stream a guarded model answer to a browser as server-sent events.

:class:`DirectorGuard` is both

* an **ASGI middleware** (``app.add_middleware(DirectorGuard, ...)`` or ``DirectorGuard(app, ...)``):
  for every HTTP request on its ``paths`` it reads the tenant and request ids from the configured
  request headers (a request without a request id gets a fresh one), answers 400 when an id is
  too long or holds a control character, stores them in ``request.state.director_fast`` and
  echoes the request id in the response header of the same name; and
* a **helper** for the route that streams: ``return guard.stream(request, tokens, prompt=...)``
  builds an :func:`~director_fast.stream.stream_guard.astream_guard` over ``tokens`` (an async iterable of
  text deltas, e.g. ``aopenai_text_deltas(await client.chat.completions.create(..., stream=True))``)
  and returns a ``text/event-stream`` response with the events of
  :mod:`director_fast.integrations.sse`: ``token`` events, keep-alive comments while
  ``release="sentence"`` holds a sentence back, a ``halt`` event with the SafetyEvent, and the
  final ``verdict`` event.

A client that disconnects mid-stream cancels the response; the guard then closes the upstream
model stream at once (``aclose()``), so the model stops generating. A synchronous scorer runs on
the scorer's bounded :class:`~director_fast.stream.stream_guard.ScorerExecutor`, never on the event loop;
under load a busy scorer delays the next sentence (backpressure) instead of halting the stream.

Errors before the first token never leave as a bare 500 with a traceback:

* ``tokens`` may be an awaitable that opens the model stream (``open_stream()`` below, not yet
  awaited): the guard awaits it inside the response, under its own ``idle_timeout_s``, so a model
  that fails (an HTTP 500, a refused connection) or stalls before its first token ends the SSE
  stream with a ``halt`` event (``upstream_error``, its SafetyEvent) and a ``verdict`` whose
  ``error`` names the exception;
* the middleware answers an exception that escapes a route on its ``paths`` before the response
  started with a JSON body: status 502 and ``{"error": "upstream_error", ...}`` when it comes from
  the model's client (an SDK or ``httpx`` error, a timeout, a refused connection), else 500 and
  ``{"error": "internal_error", ...}``; both carry ``exception`` (the class name),
  ``upstream_status`` (the provider's HTTP status, or null) and ``request_id``. The exception is
  logged (the traceback only for the 500s), never sent to the client.

Install with ``pip install director-fast[fastapi]`` (Starlette is what this module needs; FastAPI
and uvicorn are the tested server stack).

Thread-safety: a ``DirectorGuard`` is immutable after construction and may serve any number of
concurrent requests (its scorer must be thread-safe, as ``CoherenceScorer`` is).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import math
import uuid
from typing import Any, AsyncGenerator, Iterable

try:
    import anyio
    from starlette.exceptions import HTTPException
    from starlette.responses import StreamingResponse
except ImportError as _exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("director_fast.integrations.fastapi needs Starlette/FastAPI: "
                      "pip install director-fast[fastapi]") from _exc

from director_fast.stream.client_guard import make_scorer
from director_fast.stream.halt import HaltConfig
from director_fast.safety.event import MAX_ID_LEN
from director_fast.safety.tenant import _CTRL, tenant_safety_violation
from director_fast._log import warn_limited
from director_fast.errors import ConfigError, InputTypeError, UnknownTenantError, UpstreamError
from director_fast.integrations.sse import sse_events
from director_fast.stream.deadlines import DEFAULT_DEADLINE_S, DEFAULT_IDLE_TIMEOUT_S
from director_fast.stream.stream_guard import ScorerExecutor, astream_guard

logger = logging.getLogger("director_fast.integrations.fastapi")

__all__ = ["DirectorGuard", "SSEResponse", "error_payload"]

_STATE_KEY = "director_fast"


def _check_header_name(name: Any, field: str) -> str:
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_" for c in name):
        raise ConfigError(f"{field} must be an HTTP header name (letters, digits, '-', '_'), got {name!r}",
                          field=field)
    return name.lower()


class SSEResponse(StreamingResponse):
    """A ``text/event-stream`` response whose body iterator is closed (``aclose()``) when the
    response ends, also when the client disconnected or the request task was cancelled; the close
    runs shielded, so the guarded upstream is always released."""

    media_type = "text/event-stream"

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            close = getattr(self.body_iterator, "aclose", None)
            if close is not None:
                with anyio.CancelScope(shield=True):
                    await close()


class DirectorGuard:
    """ASGI middleware and SSE helper for guarded streaming (module docstring).

    Args:
        app: the ASGI app to wrap (middleware use); None for the helper alone.
        scorer: the stream scorer (an incremental scorer such as :class:`CoherenceScorer`, or a
            plain ``text -> float`` callable); default: a ``CoherenceScorer`` built from
            ``facts`` / ``store`` / ``threshold`` / ``use_nli`` / ``nli_model`` (as
            :func:`director_fast.guard`).
        facts, store, threshold, use_nli, nli_model: evidence and NLI for the default scorer.
        tenant_header: request header holding the tenant id (default ``x-tenant-id``); absent
            means ``default_tenant_id``.
        request_id_header: request header holding the request id (default ``x-request-id``);
            absent means a fresh ``uuid4().hex``. Echoed in the response.
        default_tenant_id: tenant of a request without the tenant header.
        paths: URL paths (exact) the middleware handles; None: every HTTP request.
        keepalive_s: seconds of silence before a keep-alive comment (> 0) or None.
        release, config, scorer_timeout_s, executor, idle_timeout_s, deadline_s: passed to
            :func:`astream_guard` (default release: ``"sentence"`` for an incremental scorer;
            default limits on the upstream: 60 s between tokens, 600 s per stream).

    Raises:
        ConfigError / InputTypeError: invalid arguments (the message names the field).

    Thread-safety: immutable after construction; safe for concurrent requests.
    """

    def __init__(self, app: Any = None, *, scorer: Any = None, facts: dict[str, str] | None = None,
                 store: Any = None, threshold: float = 0.3, use_nli: bool | None = None,
                 nli_model: str | None = None, tenant_header: str = "x-tenant-id",
                 request_id_header: str = "x-request-id", default_tenant_id: str = "",
                 paths: Iterable[str] | None = None, keepalive_s: float | None = 10.0,
                 release: str | None = None, config: HaltConfig | None = None,
                 scorer_timeout_s: float | None = None, executor: ScorerExecutor | str | None = None,
                 idle_timeout_s: float | None = DEFAULT_IDLE_TIMEOUT_S,
                 deadline_s: float | None = DEFAULT_DEADLINE_S) -> None:
        if scorer is not None:
            if facts is not None or store is not None or use_nli is not None or nli_model is not None:
                raise ConfigError("a prebuilt scorer carries its own knowledge and NLI: do not also pass "
                                  "facts, store, use_nli or nli_model", field="scorer")
            if not (hasattr(scorer, "score_sentence") or callable(scorer)):
                raise InputTypeError("scorer must be an incremental scorer (score_sentence) or a callable "
                                     f"text -> float, got {type(scorer).__name__}")
        else:
            scorer = make_scorer(facts, store, threshold, use_nli, nli_model, None)
        self.app = app
        self.scorer = scorer
        self.tenant_header = _check_header_name(tenant_header, "tenant_header")
        self.request_id_header = _check_header_name(request_id_header, "request_id_header")
        self.default_tenant_id = self._check_id(default_tenant_id, "default_tenant_id")
        if paths is not None:
            if isinstance(paths, str) or not all(isinstance(p, str) for p in paths):
                raise InputTypeError("paths must be an iterable of str (or None)")
            paths = frozenset(paths)
        self.paths = paths
        if keepalive_s is not None and (isinstance(keepalive_s, bool) or not isinstance(keepalive_s, (int, float))
                                        or not keepalive_s > 0 or not math.isfinite(keepalive_s)):
            raise ConfigError("keepalive_s must be a positive number of seconds or None", field="keepalive_s")
        self.keepalive_s = keepalive_s
        self._guard_kw = {"release": release, "config": config, "scorer_timeout_s": scorer_timeout_s,
                          "executor": executor, "idle_timeout_s": idle_timeout_s, "deadline_s": deadline_s}
        # validate the stream options now, not on the first request (tenants are per request)
        try:
            astream_guard((), scorer, **self._guard_kw)
        except UnknownTenantError:
            pass

    # ---- ids ------------------------------------------------------------------------------------
    @staticmethod
    def _check_id(value: Any, field: str) -> str:
        if not isinstance(value, str):
            raise InputTypeError(f"{field} must be a str, got {type(value).__name__}")
        if len(value) > MAX_ID_LEN:
            raise ConfigError(f"{field} is longer than {MAX_ID_LEN} characters", field=field)
        if value and _CTRL.search(value):
            raise ConfigError(f"{field} contains a control character", field=field)
        return value

    def ids_from_headers(self, headers: Iterable[tuple[bytes, bytes]]) -> tuple[str, str]:
        """``(tenant_id, request_id)`` from raw ASGI headers (``scope["headers"]``).

        A request id that a SafetyEvent could not carry (it looks like a secret to the
        tenant-safety rules, e.g. a long random base64 id) is replaced by a fresh one, with a
        warning in the log.

        Raises:
            ConfigError: an id longer than 128 characters, with a control character, or not
                UTF-8, or a tenant id that is not tenant-safe (``field`` names the header).
        """
        tenant = request_id = None
        th, rh = self.tenant_header.encode("latin-1"), self.request_id_header.encode("latin-1")
        for k, v in headers:
            k = k.lower()
            if k == th or k == rh:
                field = self.tenant_header if k == th else self.request_id_header
                try:
                    text = self._check_id(v.decode("utf-8").strip(), field)
                except UnicodeDecodeError:
                    raise ConfigError(f"{field} is not UTF-8", field=field) from None
                reason = tenant_safety_violation(text) if text else None
                if k == th:
                    if reason is not None:  # it would go into every SafetyEvent of the request
                        raise ConfigError(f"{field} is not tenant-safe: {reason}", field=field)
                    tenant = text
                elif reason is not None:  # a gateway's opaque id: the request goes on under a fresh one
                    warn_limited(logger, "unsafe_request_id", "%s is not tenant-safe (%s); a fresh request id "
                                 "is used (returned in the response header)", field, reason)
                else:
                    request_id = text
        return (tenant if tenant else self.default_tenant_id,
                request_id if request_id else uuid.uuid4().hex)

    def ids(self, request: Any) -> tuple[str, str]:
        """``(tenant_id, request_id)`` of a Starlette/FastAPI ``request``: the middleware's, or read
        from its headers now (a fresh request id each call when the header is absent).

        Raises:
            starlette.exceptions.HTTPException: 400 for an invalid id header.
        """
        state = request.scope.get("state") or {}
        found = state.get(_STATE_KEY) if isinstance(state, dict) else None
        if found is not None:
            return found["tenant_id"], found["request_id"]
        try:
            return self.ids_from_headers(request.scope.get("headers") or ())
        except ConfigError as exc:
            raise HTTPException(400, str(exc)) from None

    # ---- streaming -------------------------------------------------------------------------------
    def events(self, tokens: Any, *, prompt: str = "", tenant_id: str = "", request_id: str = "",
               context: Any = None, system: str | None = None,
               messages: Any = None) -> AsyncGenerator[str, None]:
        """SSE frames of ``tokens`` guarded by this guard's scorer (framework-free).

        Args:
            tokens: async (or sync) iterable of ``str`` text deltas, or an awaitable that returns
                one (it is awaited inside the stream, so its failure or stall is an
                ``upstream_error`` halt, not an exception); closed on every way out.
            prompt, context, system, messages: the call's prompt and evidence (see
                :func:`astream_guard`).
            tenant_id, request_id: copied into the SafetyEvent and the verdict.

        Raises:
            UnknownTenantError: the scorer holds nothing for ``tenant_id`` (``tokens`` closed).
            ConfigError / InputTypeError: invalid arguments (``tokens`` closed).
        """
        if inspect.isawaitable(tokens):
            tokens = _Deferred(tokens)
        try:
            guard = astream_guard(tokens, self.scorer, prompt=prompt, tenant_id=tenant_id,
                                  request_id=request_id, context=context, system=system,
                                  messages=messages, **self._guard_kw)
        except BaseException:
            _close_soon(tokens)
            raise
        return sse_events(guard, keepalive_s=self.keepalive_s, request_id=request_id, tenant_id=tenant_id)

    def stream(self, request: Any, tokens: Any, *, prompt: str = "", context: Any = None,
               system: str | None = None, messages: Any = None,
               headers: dict[str, str] | None = None) -> SSEResponse:
        """A ``text/event-stream`` response streaming ``tokens`` through the guard.

        Args:
            request: the Starlette/FastAPI request (its ids: :meth:`ids`).
            tokens: async iterable of ``str`` text deltas from the model, or an awaitable that
                opens it (see :meth:`events`); closed on halt, disconnect and every other way out.
            prompt, context, system, messages: as for :meth:`events`.
            headers: extra response headers.

        Returns:
            :class:`SSEResponse` with ``cache-control: no-cache``, ``x-accel-buffering: no`` and
            the request id header.

        Raises:
            starlette.exceptions.HTTPException: 400 for an invalid id header, 403 for a tenant
            the scorer holds no knowledge for (``tokens`` closed in both cases).
        """
        try:
            tenant_id, request_id = self.ids(request)
        except BaseException:
            _close_soon(tokens)
            raise
        try:
            body = self.events(tokens, prompt=prompt, tenant_id=tenant_id, request_id=request_id,
                               context=context, system=system, messages=messages)
        except UnknownTenantError:
            raise HTTPException(403, "unknown tenant") from None
        hdrs = {"cache-control": "no-cache", "x-accel-buffering": "no", self.request_id_header: request_id}
        if headers:
            hdrs.update(headers)
        return SSEResponse(body, headers=hdrs)

    # ---- ASGI middleware -------------------------------------------------------------------------
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        app = self.app
        if app is None:
            raise InputTypeError("DirectorGuard was built without an app: it is not an ASGI middleware "
                                 "(use DirectorGuard(app, ...) or app.add_middleware(DirectorGuard, ...))")
        if scope.get("type") != "http" or (self.paths is not None and scope.get("path") not in self.paths):
            await app(scope, receive, send)
            return
        try:
            tenant_id, request_id = self.ids_from_headers(scope.get("headers") or ())
        except ConfigError as exc:
            body = json.dumps({"detail": str(exc), "field": exc.field}).encode()
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        state = scope.setdefault("state", {})
        state[_STATE_KEY] = {"tenant_id": tenant_id, "request_id": request_id}
        rid_header = (self.request_id_header.encode("latin-1"), request_id.encode("utf-8"))

        started = False

        async def send_with_id(message: Any) -> None:
            nonlocal started
            if message.get("type") == "http.response.start":
                started = True
                hdrs = [h for h in message.get("headers", ()) if h[0].lower() != rid_header[0]]
                message = {**message, "headers": hdrs + [rid_header]}
            await send(message)

        try:
            await app(scope, receive, send_with_id)
        except Exception as exc:
            if started:
                raise  # part of a response is out: the server closes the connection
            await _send_error(send, exc, request_id, rid_header)


def _is_upstream_failure(exc: BaseException) -> bool:
    """An exception from the model's client: an SDK or HTTP-client error, a timeout, a refused
    connection, or a guard's UpstreamError."""
    if isinstance(exc, (UpstreamError, TimeoutError, ConnectionError)):
        return True
    root = (type(exc).__module__ or "").split(".", 1)[0]
    return root in _UPSTREAM_MODULES


#: top-level modules whose exceptions are the model client's (matched by name: none is imported)
_UPSTREAM_MODULES = frozenset({"openai", "anthropic", "httpx", "httpcore", "aiohttp", "litellm", "h11"})


def error_payload(exc: BaseException, request_id: str) -> tuple[int, dict[str, Any]]:
    """``(status, body)`` of the JSON answer to an exception raised before a response started:
    502 ``upstream_error`` for a failure of the model's client (its ``status_code`` as
    ``upstream_status``), else 500 ``internal_error``. Only the exception's class name and
    status leave the server, never its message."""
    status = getattr(exc, "status_code", None)
    upstream = _is_upstream_failure(exc)
    return (502 if upstream else 500), {
        "error": "upstream_error" if upstream else "internal_error",
        "exception": type(exc).__name__,
        "upstream_status": status if isinstance(status, int) and not isinstance(status, bool) else None,
        "request_id": request_id,
    }


async def _send_error(send: Any, exc: BaseException, request_id: str, rid_header: tuple[bytes, bytes]) -> None:
    status, payload = error_payload(exc, request_id)
    if status == 502:
        warn_limited(logger, "pre_stream_upstream", "the model failed before the first token (%s, status %s); "
                     "answered 502 (request_id=%s)", payload["exception"], payload["upstream_status"], request_id)
    else:
        logger.error("the route raised before its response started; answered 500 (request_id=%s)",
                     request_id, exc_info=exc)
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), rid_header]})
    await send({"type": "http.response.body", "body": body})


class _Deferred:
    """An async token source opened on its first read: ``awaitable`` returns the source (an
    async or sync iterable of text deltas). A failure or stall while opening happens inside the
    guard's read, so it is an upstream failure of the stream (and under its idle timeout)."""

    def __init__(self, awaitable: Any) -> None:
        self._awaitable = awaitable
        self._it: Any = None
        self._source: Any = None

    def __aiter__(self) -> "_Deferred":
        return self

    async def __anext__(self) -> str:
        if self._it is None:
            aw, self._awaitable = self._awaitable, None
            if aw is None:
                raise StopAsyncIteration  # closed before it was opened
            src = self._source = await aw
            if hasattr(src, "__aiter__"):
                self._it = src.__aiter__()
            elif hasattr(src, "__iter__") and not isinstance(src, (str, bytes)):
                self._it = _AsyncOverSync(iter(src))
            else:
                raise InputTypeError(f"the awaitable passed as tokens returned a {type(src).__name__}, "
                                     "not an (async) iterable of str text deltas")
        return await self._it.__anext__()

    async def aclose(self) -> None:
        aw, self._awaitable = self._awaitable, None
        close = getattr(aw, "close", None)
        if close is not None:  # a coroutine never awaited: no "never awaited" warning
            close()
        for obj in (self._it, self._source):
            fn = getattr(obj, "aclose", None) or getattr(obj, "close", None)
            if fn is not None:
                res = fn()
                if inspect.isawaitable(res):
                    await res


class _AsyncOverSync:
    def __init__(self, it: Any) -> None:
        self._it = it

    async def __anext__(self) -> Any:
        try:
            return next(self._it)
        except StopIteration:
            raise StopAsyncIteration from None


_PENDING: set[Any] = set()


def _close_soon(tokens: Any) -> None:
    """Close a token source that will never be iterated (``aclose()`` scheduled on the running
    loop, or ``close()``)."""
    aclose = getattr(tokens, "aclose", None)
    if aclose is not None:
        try:
            task = asyncio.get_running_loop().create_task(aclose())
        except RuntimeError:
            return
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)
        return
    close = getattr(tokens, "close", None)
    if callable(close):
        try:
            close()
        except Exception as exc:
            logger.debug("closing the token source failed: %r", exc)

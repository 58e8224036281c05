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
the scorer's bounded :class:`~director_fast.stream.stream_guard.ScorerExecutor`, never on the event loop.

Install with ``pip install director-fast[fastapi]`` (Starlette is what this module needs; FastAPI
and uvicorn are the tested server stack).

Thread-safety: a ``DirectorGuard`` is immutable after construction and may serve any number of
concurrent requests (its scorer must be thread-safe, as ``CoherenceScorer`` is).
"""

from __future__ import annotations

import asyncio
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
from director_fast.safety.tenant import _CTRL
from director_fast.errors import ConfigError, InputTypeError, UnknownTenantError
from director_fast.integrations.sse import sse_events
from director_fast.stream.stream_guard import ScorerExecutor, astream_guard

logger = logging.getLogger("director_fast.integrations.fastapi")

__all__ = ["DirectorGuard", "SSEResponse"]

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
        release, config, scorer_timeout_s, executor: passed to :func:`astream_guard` (default
            release: ``"sentence"`` for an incremental scorer).

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
                 scorer_timeout_s: float | None = None, executor: ScorerExecutor | str | None = None) -> None:
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
                          "executor": executor}
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

        Raises:
            ConfigError: an id longer than 128 characters, with a control character, or not
                UTF-8 (``field`` names the header).
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
                if k == th:
                    tenant = text
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
            tokens: async (or sync) iterable of ``str`` text deltas; closed on every way out.
            prompt, context, system, messages: the call's prompt and evidence (see
                :func:`astream_guard`).
            tenant_id, request_id: copied into the SafetyEvent and the verdict.

        Raises:
            UnknownTenantError: the scorer holds nothing for ``tenant_id`` (``tokens`` closed).
            ConfigError / InputTypeError: invalid arguments (``tokens`` closed).
        """
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
            tokens: async iterable of ``str`` text deltas from the model (closed on halt,
                disconnect and every other way out).
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

        async def send_with_id(message: Any) -> None:
            if message.get("type") == "http.response.start":
                hdrs = [h for h in message.get("headers", ()) if h[0].lower() != rid_header[0]]
                message = {**message, "headers": hdrs + [rid_header]}
            await send(message)

        await app(scope, receive, send_with_id)


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

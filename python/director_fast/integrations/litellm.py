"""LiteLLM proxy: ``DirectorGuardrail``, a ``CustomGuardrail`` that judges model answers.

* ``async_post_call_success_hook``: every choice's message text of a finished (non-streamed)
  response is reviewed against the request's last user message; a rejection raises
  :class:`~director_fast.errors.HallucinationError` (the proxy answers with an error instead of
  the response), or with ``raise_on_fail=False`` is logged and the response gets
  ``director_fast_approved`` / ``director_fast_score`` in its ``_hidden_params``.
* ``async_post_call_streaming_iterator_hook``: the streamed ``ModelResponseStream`` chunks pass
  through :func:`~director_fast.astream_guard` with ``release="sentence"``: each chunk is forwarded
  once its sentence is judged; on a halt the stream stops before the failing sentence, the
  model's stream is closed, and (``raise_on_fail=True``) :class:`~director_fast.errors.StreamHalted`
  is raised after the last safe chunk.

Register it in the proxy's ``config.yaml`` under ``guardrails`` with
``guardrail: director_fast.integrations.litellm.DirectorGuardrail`` (or instantiate it and add it
to ``litellm.callbacks``). Install with ``pip install director-fast[litellm]``; set
``LITELLM_LOCAL_MODEL_COST_MAP=True`` where the machine has no internet access.

Thread-safety: one guardrail object serves concurrent requests (no per-request state is kept on
it; the scorer is thread-safe).
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any, AsyncIterator

try:
    from litellm.integrations.custom_guardrail import CustomGuardrail
except ImportError as _exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("director_fast.integrations.litellm needs litellm: pip install director-fast[litellm]") from _exc

from director_fast.stream.client_guard import make_scorer
from director_fast.errors import InputTypeError, StreamHalted
from director_fast.verify.explain import rejection_error
from director_fast.stream.stream_guard import astream_guard

logger = logging.getLogger("director_fast.integrations.litellm")

__all__ = ["DirectorGuardrail"]


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content
                       if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
    return ""


def _last_user_text(data: Any) -> str:
    msgs = data.get("messages") if isinstance(data, dict) else None
    for m in reversed(msgs or []):
        if isinstance(m, dict) and m.get("role") == "user":
            return _content_text(m.get("content"))
    return ""


def _delta_text(chunk: Any) -> str:
    choices = getattr(chunk, "choices", None) or []
    if not choices:
        return ""
    delta = getattr(choices[0], "delta", None)
    text = getattr(delta, "content", None) if delta is not None else None
    return text if isinstance(text, str) else ""


class DirectorGuardrail(CustomGuardrail):
    """LiteLLM ``CustomGuardrail`` that reviews and stream-guards answers (module docstring).

    Args:
        facts, store, threshold, use_nli, nli_model, scorer: the evidence and scorer, as for
            :func:`director_fast.guard`.
        tenant_id: the tenant whose knowledge in ``store`` is evidence.
        raise_on_fail: raise on a rejected answer (default True) instead of logging it.
        guardrail_name, **kwargs: passed to ``CustomGuardrail``.

    Raises:
        ConfigError / InputTypeError: invalid arguments.

    Thread-safety: safe for concurrent requests.
    """

    def __init__(self, *, facts: dict[str, str] | None = None, store: Any = None, threshold: float = 0.3,
                 use_nli: bool | None = None, nli_model: str | None = None, scorer: Any = None,
                 tenant_id: str = "", raise_on_fail: bool = True, guardrail_name: str = "director_fast",
                 **kwargs: Any) -> None:
        if not isinstance(raise_on_fail, bool):
            raise InputTypeError(f"raise_on_fail must be a bool, got {type(raise_on_fail).__name__}")
        if not isinstance(tenant_id, str):
            raise InputTypeError(f"tenant_id must be a str, got {type(tenant_id).__name__}")
        self.scorer = make_scorer(facts, store, threshold, use_nli, nli_model, scorer)
        self.tenant_id = tenant_id
        self.raise_on_fail = raise_on_fail
        super().__init__(guardrail_name=guardrail_name, **kwargs)

    async def async_post_call_success_hook(self, data: dict, user_api_key_dict: Any, response: Any) -> Any:
        """Review every choice of a finished response (see the module docstring)."""
        prompt = _last_user_text(data)
        for choice in getattr(response, "choices", None) or []:
            msg = getattr(choice, "message", None)
            text = _content_text(getattr(msg, "content", None)) if msg is not None else ""
            if not text:
                continue
            approved, cs = await self.scorer.areview(prompt, text, tenant_id=self.tenant_id)
            hidden = getattr(response, "_hidden_params", None)
            if isinstance(hidden, dict):
                hidden["director_fast_approved"] = approved
                hidden["director_fast_score"] = cs.score
            if not approved:
                if self.raise_on_fail:
                    raise rejection_error(cs, threshold=getattr(self.scorer, "threshold", None), response=response)
                logger.warning("response rejected: coherence %.3f (not raised: raise_on_fail=False)", cs.score)
        return response

    async def async_post_call_streaming_iterator_hook(self, user_api_key_dict: Any, response: Any,
                                                      request_data: dict) -> AsyncIterator[Any]:
        """Forward the chunks whose sentences pass; stop before the first that fails."""
        held: deque[Any] = deque()

        async def texts() -> AsyncIterator[str]:
            try:
                async for chunk in response:
                    held.append(chunk)
                    yield _delta_text(chunk)
            finally:
                close = getattr(response, "aclose", None)
                if close is not None:
                    try:
                        await close()
                    except Exception as exc:
                        logger.debug("closing the model stream failed: %r", exc)

        g = astream_guard(texts(), self.scorer, prompt=_last_user_text(request_data), tenant_id=self.tenant_id,
                          release="sentence")
        async with g:
            async for _ in g:
                yield held.popleft()
        s = g.session
        if s.halted:
            reason = getattr(s.halt_reason, "value", s.halt_reason)
            if self.raise_on_fail:
                raise StreamHalted(f"stream halted ({reason}) after {s.delivered_count} chunk(s)", s)
            logger.warning("stream halted (%s) after %d chunk(s); the rest is withheld", reason, s.delivered_count)

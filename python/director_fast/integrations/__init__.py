"""Framework integrations, each behind its own optional extra.

* :mod:`director_fast.integrations.sse`: server-sent events from a guarded stream (no extra
  dependency; plain ``asyncio``).
* :mod:`director_fast.integrations.fastapi`: ``DirectorGuard``, an ASGI middleware and helper that
  streams a guarded model answer as server-sent events (``pip install director-fast[fastapi]``).
* :mod:`director_fast.integrations.langchain`: ``DirectorAIGuard`` (a runnable that reviews or
  withholds the output of a chain) and ``CoherenceCallbackHandler`` (observe-only)
  (``pip install director-fast[langchain]``).
* :mod:`director_fast.integrations.litellm`: ``DirectorGuardrail``, a LiteLLM proxy
  ``CustomGuardrail`` (``pip install director-fast[litellm]``).

Importing this package imports no framework; each submodule imports its own on import and raises
``ImportError`` naming the extra when the framework is missing.

Layering: may import the base modules, :mod:`director_fast.safety`, :mod:`director_fast.types`,
:mod:`director_fast.verify` and :mod:`director_fast.stream` (never :mod:`director_fast.jobs`).
"""

from __future__ import annotations

__all__ = ["sse", "fastapi", "langchain", "litellm"]

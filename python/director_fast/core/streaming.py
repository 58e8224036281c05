"""director-ai's import path ``director_ai.core.streaming``: the streaming kernel.

A re-export only; the implementation lives in :mod:`director_fast.stream.kernel`.
"""

from director_fast.stream.kernel import (  # noqa: F401
    TokenEvent,
    StreamSession,
    StreamingKernel,
)

__all__ = [
    "TokenEvent",
    "StreamSession",
    "StreamingKernel",
]

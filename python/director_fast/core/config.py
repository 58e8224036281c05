"""director-ai's import path ``director_ai.core.config``: DirectorConfig (configuration).

A re-export only; the implementation lives in :mod:`director_fast.types.config`.
"""

from director_fast.types.config import (  # noqa: F401
    DirectorConfig,
)

__all__ = [
    "DirectorConfig",
]

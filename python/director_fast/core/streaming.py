"""``director_ai.core.streaming``'s import path: the streaming kernel, re-exported from
:mod:`director_fast.stream.kernel` (the names of its ``__all__``).
"""

from director_fast.stream.kernel import *  # noqa: F401,F403
from director_fast.stream.kernel import __all__  # noqa: F401

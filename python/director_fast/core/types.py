"""``director_ai.core.types``'s import path: the result data types, re-exported from
:mod:`director_fast.types.results` (the names of its ``__all__``).
"""

from director_fast.types.results import *  # noqa: F401,F403
from director_fast.types.results import __all__  # noqa: F401

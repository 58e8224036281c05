"""``director_ai.core.scorer``'s import path: the claim-level scorer, re-exported from
:mod:`director_fast.verify.scorer` (the names of its ``__all__``).
"""

from director_fast.verify.scorer import *  # noqa: F401,F403
from director_fast.verify.scorer import __all__  # noqa: F401

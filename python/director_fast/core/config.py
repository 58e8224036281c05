"""``director_ai.core.config``'s import path: DirectorConfig (configuration), re-exported from
:mod:`director_fast.types.config` (the names of its ``__all__``).
"""

from director_fast.types.config import *  # noqa: F401,F403
from director_fast.types.config import __all__  # noqa: F401

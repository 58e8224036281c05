"""``director_ai.core.safety_protocol``'s import path: the safety protocol
(director.safety_protocol.v1), re-exported from :mod:`director_fast.safety.protocol` (the names
of its ``__all__``).
"""

from director_fast.safety.protocol import *  # noqa: F401,F403
from director_fast.safety.protocol import __all__  # noqa: F401

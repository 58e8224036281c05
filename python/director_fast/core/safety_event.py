"""``director_ai.core.safety_event``'s import path: safety events (director.safety_event.v1), re-
exported from :mod:`director_fast.safety.event` (the names of its ``__all__``).
"""

from director_fast.safety.event import *  # noqa: F401,F403
from director_fast.safety.event import __all__  # noqa: F401

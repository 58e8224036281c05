"""director-ai's import path ``director_ai.core.safety_protocol``: the safety protocol (director.safety_protocol.v1).

A re-export only; the implementation lives in :mod:`director_fast.safety.protocol`.
"""

from director_fast.safety.protocol import (  # noqa: F401
    DIRECTOR_SAFETY_PROTOCOL_VERSION,
    DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF,
    DIRECTOR_SAFETY_SIGNAL_JSON_SCHEMA,
    SEVERITY_BY_DECISION,
    REDACTION_REQUIRED,
    MAX_SIGNAL_JSON_BYTES,
    DirectorSafetySignal,
    director_safety_signal_from_event,
    new_director_safety_signal_id,
    validate_director_safety_signal,
)

__all__ = [
    "DIRECTOR_SAFETY_PROTOCOL_VERSION",
    "DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF",
    "DIRECTOR_SAFETY_SIGNAL_JSON_SCHEMA",
    "SEVERITY_BY_DECISION",
    "REDACTION_REQUIRED",
    "MAX_SIGNAL_JSON_BYTES",
    "DirectorSafetySignal",
    "director_safety_signal_from_event",
    "new_director_safety_signal_id",
    "validate_director_safety_signal",
]

"""director-ai's import path ``director_ai.core.safety_event``: safety events (director.safety_event.v1).

A re-export only; the implementation lives in :mod:`director_fast.safety.event`.
"""

from director_fast.safety.event import (  # noqa: F401
    SAFETY_EVENT_SCHEMA_VERSION,
    SAFETY_EVENT_JSON_SCHEMA,
    HOOK_SCOPES,
    POLICY_DECISIONS,
    SafetyEvent,
    TenantSafetyError,
    new_safety_event_id,
    utc_timestamp,
    validate_safety_event_payload,
)

__all__ = [
    "SAFETY_EVENT_SCHEMA_VERSION",
    "SAFETY_EVENT_JSON_SCHEMA",
    "HOOK_SCOPES",
    "POLICY_DECISIONS",
    "SafetyEvent",
    "TenantSafetyError",
    "new_safety_event_id",
    "utc_timestamp",
    "validate_safety_event_payload",
]

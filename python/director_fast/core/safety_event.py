"""SafetyEvent records (``director.safety_event.v1``, seed 000).

NOTE: minimal first cut; the full schema, validators and privacy rules arrive with issue 3.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

from director_fast.core.types import HaltEvidence, HaltTraceAttribution

__all__ = ["SAFETY_EVENT_SCHEMA_VERSION", "SafetyEvent", "new_safety_event_id", "utc_timestamp"]

SAFETY_EVENT_SCHEMA_VERSION = "director.safety_event.v1"


def new_safety_event_id() -> str:
    """Opaque, unguessable event id: ``sevt_`` + 32 random hex digits."""
    return "sevt_" + secrets.token_hex(16)


def utc_timestamp() -> str:
    """RFC-3339 UTC timestamp with microseconds and a trailing ``Z``."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class SafetyEvent:
    """Tenant-safe halt or policy decision emitted by a runtime hook (seed 000 fields)."""

    event_id: str
    timestamp: str
    request_id: str
    tenant_id: str
    hook_id: str
    hook_scope: str
    policy_decision: str
    halt_reason: str
    threshold: float | None = None
    observed_score: float | None = None
    latency_ms: float | None = None
    evidence_refs: tuple[str, ...] = ()
    tenant_safe_explanation: str = ""
    trace_attribution: HaltTraceAttribution | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)
    schema_version: str = SAFETY_EVENT_SCHEMA_VERSION

    @classmethod
    def from_halt_evidence(
        cls,
        evidence: HaltEvidence,
        *,
        hook_id: str,
        hook_scope: str = "streaming",
        policy_decision: str = "halt",
        request_id: str = "",
        tenant_id: str = "",
        threshold: float | None = None,
        observed_score: float | None = None,
        latency_ms: float | None = None,
        evidence_refs: Sequence[str] = (),
        attributes: Mapping[str, str] | None = None,
    ) -> "SafetyEvent":
        trace = evidence.trace_attribution
        return cls(
            event_id=new_safety_event_id(),
            timestamp=utc_timestamp(),
            request_id=request_id,
            tenant_id=tenant_id,
            hook_id=hook_id,
            hook_scope=hook_scope,
            policy_decision=policy_decision,
            halt_reason=evidence.reason,
            threshold=threshold if threshold is not None else (trace.threshold if trace else None),
            observed_score=observed_score if observed_score is not None else evidence.last_score,
            latency_ms=latency_ms,
            evidence_refs=tuple(evidence_refs),
            tenant_safe_explanation=evidence.suggested_action or "Review the safety decision.",
            trace_attribution=trace,
            attributes=dict(attributes or {}),
        )

    @classmethod
    def from_policy_decision(
        cls,
        *,
        hook_id: str,
        hook_scope: str,
        policy_decision: str,
        halt_reason: str,
        tenant_safe_explanation: str,
        request_id: str = "",
        tenant_id: str = "",
        threshold: float | None = None,
        observed_score: float | None = None,
        latency_ms: float | None = None,
        evidence_refs: Sequence[str] = (),
        trace_attribution: HaltTraceAttribution | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> "SafetyEvent":
        return cls(
            event_id=new_safety_event_id(),
            timestamp=utc_timestamp(),
            request_id=request_id,
            tenant_id=tenant_id,
            hook_id=hook_id,
            hook_scope=hook_scope,
            policy_decision=policy_decision,
            halt_reason=halt_reason,
            threshold=threshold,
            observed_score=observed_score,
            latency_ms=latency_ms,
            evidence_refs=tuple(evidence_refs),
            tenant_safe_explanation=tenant_safe_explanation,
            trace_attribution=trace_attribution,
            attributes=dict(attributes or {}),
        )

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        d = asdict(self)
        d["evidence_refs"] = list(self.evidence_refs)
        return d

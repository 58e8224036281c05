"""SafetyEvent records (schema ``director.safety_event.v1``): the tenant-safe audit record of a
halt or policy decision.

A :class:`SafetyEvent` is the tenant-safe record of one halt or policy decision taken by a runtime
hook (streaming kernel, agent tool-call confidence, citation checks, ...). Construction validates
everything -- types, closed sets, ranges, formats, size limits and the tenant-safety rules of
:mod:`director_fast.safety.tenant` -- so an invalid or unsafe event cannot exist.

Limits (code points; mirrored in :data:`SAFETY_EVENT_JSON_SCHEMA`):

=============================================  =============================================
``event_id``                                   ``sevt_`` + 1..123 of ``[A-Za-z0-9_-]``
``timestamp``                                  RFC 3339 UTC, ``YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z``
``request_id``, ``tenant_id``                  <= 128
``hook_id``                                    1..128 of ``[A-Za-z0-9_.:/-]`` (not starting
                                               with ``. : / -``)
``halt_reason``                                1..256, not blank
``tenant_safe_explanation``                    1..1024, not blank
``evidence_refs``                              <= 64 refs of 1..512
``attributes``                                 <= 64 entries; keys like ``hook_id`` but <= 64;
                                               values <= 512
trace strings                                  <= 512
``threshold``                                  number in [0, 1] or null
``observed_score``                             number in [0, 1.5] or null (a trend drop may exceed 1)
``latency_ms``                                 number in [0, 1e12] or null
=============================================  =============================================

No string may contain C0 control characters, DEL or lone surrogates (they break logs and make the
canonical bytes un-encodable as UTF-8).

Speed: the checks run in C++ (``director_fast._core``, ``cpp/bindings/bind_safety.cpp``):
``from_policy_decision``, the constructor, :func:`validate_safety_event_payload` and ``to_dict`` take
a single C++ pass; a call the C++ path declines (anything invalid or unusual) runs the Python code in
this module, which raises the error naming the field. The tests compare both paths (same results,
same errors); see docs/safety_events.md.

Thread-safety: events are immutable (do not mutate ``attributes`` after construction) and can be
shared between threads; all functions are stateless.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence
from typing import Any

from director_fast._fields import FieldTypeError, _short
from director_fast import _core
from director_fast.safety.tenant import _CTRL, TenantSafetyError, check_text  # noqa: F401 - _CTRL re-exported
from director_fast.safety.halt_evidence import HaltEvidence, HaltTraceAttribution
from director_fast.errors import ValidationError

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

SAFETY_EVENT_SCHEMA_VERSION = "director.safety_event.v1"

#: closed set of hook scopes (those of the SafetyEvent schema, plus ``inference_server``, which
#: director-ai 3.21.0 emits).
HOOK_SCOPES = frozenset(
    {"streaming", "containment", "attestation", "ontology", "trajectory", "cyber_physical",
     "swarm", "agent", "inference_server"}
)
#: closed set of policy decisions of the SafetyEvent schema.
POLICY_DECISIONS = frozenset({"allow", "warn", "halt", "block"})

MAX_ID_LEN = 128
MAX_REASON_LEN = 256
MAX_EXPLANATION_LEN = 1024
MAX_REFS = 64
MAX_REF_LEN = 512
MAX_ATTRIBUTES = 64
MAX_ATTRIBUTE_KEY_LEN = 64
MAX_ATTRIBUTE_VALUE_LEN = 512
MAX_TRACE_TEXT_LEN = 512
MAX_LATENCY_MS = 1e12

_CTRL_CLASS = "\\x00-\\x1f\\x7f\\ud800-\\udfff"
_NONBLANK = re.compile(r"\S")
_EVENT_ID_PAT = "sevt_[A-Za-z0-9_-]{1,123}"
_TIMESTAMP_PAT = (
    "[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:"
    "(?:[0-5][0-9]|60)(?:\\.[0-9]{1,9})?Z"
)
_HOOK_ID_PAT = "[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}"
_ATTR_KEY_PAT = "[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,63}"
_EVENT_ID = re.compile(_EVENT_ID_PAT)
_HEX_ID = re.compile("[0-9a-f]+")  # the tail of a generated id
_TIMESTAMP = re.compile(_TIMESTAMP_PAT)
_HOOK_ID = re.compile(_HOOK_ID_PAT)
_ATTR_KEY = re.compile(_ATTR_KEY_PAT)

_STR_FIELDS = (
    "event_id", "timestamp", "request_id", "tenant_id", "hook_id", "hook_scope",
    "policy_decision", "halt_reason", "tenant_safe_explanation",
)
_PAYLOAD_KEYS = frozenset(
    {"schema_version", "event_id", "timestamp", "request_id", "tenant_id", "hook_id", "hook_scope",
     "policy_decision", "halt_reason", "threshold", "observed_score", "latency_ms",
     "evidence_refs", "tenant_safe_explanation", "trace_attribution", "attributes"}
)
_TRACE_KEYS = frozenset(
    {"fact_source", "retrieval_path", "scorer_path", "token_offset", "threshold",
     "causal_contribution"}
)


def _safe_string(**extra: Any) -> dict[str, Any]:
    return {"type": "string", "not": {"pattern": f"[{_CTRL_CLASS}]"}, **extra}


def _unit_or_null(hi: float = 1.0) -> dict[str, Any]:
    return {"anyOf": [{"type": "number", "minimum": 0.0, "maximum": hi}, {"type": "null"}]}


#: Upper bound of ``observed_score``: a score or window mean lies in [0, 1]; a streaming trend halt
#: reports its projected drop (-slope x (n - 1) of a least-squares fit), which for scores in [0, 1]
#: is below 1.5 (the bound of sum(|x_i - mean x|) over half the window / sum((x_i - mean x)^2)).
MAX_OBSERVED = 1.5


#: JSON Schema (draft 2020-12) of ``SafetyEvent.to_dict()``. The hand-written validators accept
#: exactly the payloads this schema accepts, minus those the tenant-safety rules reject (which a
#: JSON Schema cannot express) and minus non-finite numbers (which JSON cannot carry).
SAFETY_EVENT_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://director-fast.invalid/schemas/safety-event.v1.schema.json",
    "title": "director_fast SafetyEvent (director.safety_event.v1)",
    "type": "object",
    "additionalProperties": False,
    "required": sorted(_PAYLOAD_KEYS),
    "properties": {
        "schema_version": {"const": SAFETY_EVENT_SCHEMA_VERSION},
        "event_id": _safe_string(pattern=f"^{_EVENT_ID_PAT}$"),
        "timestamp": _safe_string(pattern=f"^{_TIMESTAMP_PAT}$"),
        "request_id": _safe_string(maxLength=MAX_ID_LEN),
        "tenant_id": _safe_string(maxLength=MAX_ID_LEN),
        "hook_id": _safe_string(pattern=f"^{_HOOK_ID_PAT}$"),
        "hook_scope": {"type": "string", "enum": sorted(HOOK_SCOPES)},
        "policy_decision": {"type": "string", "enum": sorted(POLICY_DECISIONS)},
        "halt_reason": _safe_string(minLength=1, maxLength=MAX_REASON_LEN, pattern="\\S"),
        "threshold": _unit_or_null(),
        "observed_score": _unit_or_null(MAX_OBSERVED),
        "latency_ms": {
            "anyOf": [{"type": "number", "minimum": 0.0, "maximum": MAX_LATENCY_MS}, {"type": "null"}]
        },
        "evidence_refs": {
            "type": "array",
            "maxItems": MAX_REFS,
            "items": _safe_string(minLength=1, maxLength=MAX_REF_LEN),
        },
        "tenant_safe_explanation": _safe_string(
            minLength=1, maxLength=MAX_EXPLANATION_LEN, pattern="\\S"
        ),
        "trace_attribution": {
            "anyOf": [
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": sorted(_TRACE_KEYS),
                    "properties": {
                        "fact_source": _safe_string(maxLength=MAX_TRACE_TEXT_LEN),
                        "retrieval_path": _safe_string(maxLength=MAX_TRACE_TEXT_LEN),
                        "scorer_path": _safe_string(maxLength=MAX_TRACE_TEXT_LEN),
                        "token_offset": {
                            "anyOf": [{"type": "integer", "minimum": -1}, {"type": "null"}]
                        },
                        "threshold": _unit_or_null(),
                        "causal_contribution": {"type": "number", "minimum": 0.0},
                    },
                },
                {"type": "null"},
            ]
        },
        "attributes": {
            "type": "object",
            "maxProperties": MAX_ATTRIBUTES,
            # control characters excluded explicitly: Python regexes let "$" match before a final "\n"
            "propertyNames": _safe_string(pattern=f"^{_ATTR_KEY_PAT}$"),
            "additionalProperties": _safe_string(maxLength=MAX_ATTRIBUTE_VALUE_LEN),
        },
    },
}


def new_safety_event_id() -> str:
    """Opaque, unguessable event id: ``sevt_`` + 32 random hex digits (128 bits from the kernel
    CSPRNG: ``getrandom(2)`` on Linux, ``arc4random_buf(3)`` on macOS and the BSDs)."""
    return _core._safety_new_id("sevt_")


def utc_timestamp() -> str:
    """RFC-3339 UTC timestamp with microseconds and a trailing ``Z``
    (``YYYY-MM-DDTHH:MM:SS.ffffffZ``, always 27 characters; ``CLOCK_REALTIME``). Thread-safe."""
    return _core._safety_utc_timestamp()


def _err(where: str, msg: str) -> ValidationError:
    return ValidationError(f"SafetyEvent.{where}: {msg}")


def _foreign_errors_as_validation(kind: str, what: str = "payload"):
    """Decorator for the Python validation paths: an exception raised by the input's own code (a
    ``str`` subclass key whose ``__eq__`` raises while it is compared with a field name, a
    ``Mapping`` whose ``__getitem__`` or ``keys`` raises, a ``__repr__``, ``__str__``, ``__len__``
    or ``__class__`` that raises while a value is inspected) becomes a :class:`ValidationError`
    naming ``kind.what``. ``ValidationError`` and ``MemoryError`` pass through unchanged, and so do
    anything that is not an ``Exception`` (``KeyboardInterrupt``, ``SystemExit``) and the
    ``TypeError`` of a call with wrong arguments (raised before the function's body runs)."""

    def wrap(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (ValidationError, MemoryError):
                raise
            except Exception as exc:
                tb = exc.__traceback__
                if tb is not None and tb.tb_next is None:
                    raise  # the call itself failed (wrong arguments): fn's body never ran
                raise ValidationError(
                    f"{kind}.{what}: could not be read ({type(exc).__name__} raised by the input's own code)"
                ) from exc

        return checked

    return wrap


def _type_err(where: str, expected: str, value: Any) -> FieldTypeError:
    tp = type(value)
    # containers and strings are named by type only (their repr could carry payload text)
    shown = tp.__name__ if tp in (str, bytes, list, dict, tuple) else f"{tp.__name__} {_short(value)[:40]}"
    return FieldTypeError(f"SafetyEvent.{where}: expected {expected}, got {shown}")


def _opt_number(where: str, value: Any, hi: float) -> Any:
    """None, or an int/float in [0, hi]; numpy reals are converted to float."""
    if value is None:
        return None
    tp = type(value)
    if tp is not float and tp is not int:
        if tp is bool or isinstance(value, (str, bytes)) or not hasattr(value, "__float__"):
            raise _type_err(where, "a number or None", value)
        try:
            value = float(value)
        except Exception as exc:
            raise _type_err(where, "a number or None", value) from exc
    if not 0.0 <= value <= hi:  # also rejects NaN
        raise _err(where, f"must be a finite number in [0, {hi}], got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class SafetyEvent:
    """Tenant-safe halt or policy decision emitted by a runtime hook (the fields of
    ``director.safety_event.v1``).

    Attributes:
        event_id: opaque id, ``sevt_`` + random hex (:func:`new_safety_event_id`).
        timestamp: RFC-3339 UTC timestamp with trailing ``Z`` (:func:`utc_timestamp`).
        request_id, tenant_id: correlation ids (``""`` when unknown).
        hook_id: stable hook id such as ``streaming.kernel``.
        hook_scope: one of :data:`HOOK_SCOPES`.
        policy_decision: one of :data:`POLICY_DECISIONS`.
        halt_reason: machine-readable reason (e.g. ``window_avg``).
        threshold, observed_score: the limit and the statistic that drove the decision, or
            None; ``threshold`` in [0, 1], ``observed_score`` in [0, 1.5] (a streaming trend
            drop can exceed 1, see :data:`MAX_OBSERVED`).
        latency_ms: hook latency in milliseconds (>= 0), or None.
        evidence_refs: evidence identifiers only (never fact text); lists become tuples.
        tenant_safe_explanation: short operator-facing explanation safe for tenant logs.
        trace_attribution: trace coordinates for halt decisions, or None.
        attributes: additive ``str -> str`` metadata (e.g. ``{"token_offset": "5"}``), copied.
        schema_version: always :data:`SAFETY_EVENT_SCHEMA_VERSION`.

    Raises (construction):
        ValidationError: out-of-range, malformed, oversized or unknown values.
        FieldTypeError: wrong types (also ``ValueError`` and ``TypeError``).
        TenantSafetyError: text that the tenant-safety rules forbid.

    Thread-safety: immutable; share freely.
    """

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

    @_foreign_errors_as_validation("SafetyEvent", "fields")
    def __post_init__(self) -> None:  # noqa: C901 - one flat pass, run when the C++ check declines
        if _post_init_fast(self):
            return  # every check below passed in C++ (attributes already copied)
        setattr_ = object.__setattr__
        if type(self.schema_version) is not str or self.schema_version != SAFETY_EVENT_SCHEMA_VERSION:
            raise _err("schema_version", f"unsupported version {str(self.schema_version)[:40]!r}")
        for name in _STR_FIELDS:
            if type(getattr(self, name)) is not str:
                raise _type_err(name, "a str", getattr(self, name))
        if not _EVENT_ID.fullmatch(self.event_id):
            raise _err("event_id", "must be 'sevt_' + 1..123 of [A-Za-z0-9_-]")
        if not _HEX_ID.fullmatch(self.event_id, 5):  # hex (generated ids) carries no secret
            check_text(self.event_id[5:], "SafetyEvent.event_id")
        if not _TIMESTAMP.fullmatch(self.timestamp):
            raise _err("timestamp", "must be RFC-3339 UTC 'YYYY-MM-DDTHH:MM:SS[.fraction]Z'")
        if len(self.request_id) > MAX_ID_LEN:
            raise _err("request_id", f"longer than {MAX_ID_LEN} code points")
        if len(self.tenant_id) > MAX_ID_LEN:
            raise _err("tenant_id", f"longer than {MAX_ID_LEN} code points")
        if not _HOOK_ID.fullmatch(self.hook_id):
            raise _err("hook_id", "must be 1..128 of [A-Za-z0-9_.:/-] starting with [A-Za-z0-9_]")
        if self.hook_scope not in HOOK_SCOPES:
            raise _err("hook_scope", f"must be one of {sorted(HOOK_SCOPES)}, got {self.hook_scope[:40]!r}")
        if self.policy_decision not in POLICY_DECISIONS:
            raise _err(
                "policy_decision",
                f"must be one of {sorted(POLICY_DECISIONS)}, got {self.policy_decision[:40]!r}",
            )
        reason = self.halt_reason
        if not 0 < len(reason) <= MAX_REASON_LEN or not _NONBLANK.search(reason):
            raise _err("halt_reason", f"must be 1..{MAX_REASON_LEN} code points, not blank")
        expl = self.tenant_safe_explanation
        if not 0 < len(expl) <= MAX_EXPLANATION_LEN or not _NONBLANK.search(expl):
            raise _err(
                "tenant_safe_explanation", f"must be 1..{MAX_EXPLANATION_LEN} code points, not blank"
            )
        v = self.threshold
        if v is not None and (type(v) is not float or not 0.0 <= v <= 1.0):
            setattr_(self, "threshold", _opt_number("threshold", v, 1.0))
        v = self.observed_score
        if v is not None and (type(v) is not float or not 0.0 <= v <= MAX_OBSERVED):
            setattr_(self, "observed_score", _opt_number("observed_score", v, MAX_OBSERVED))
        v = self.latency_ms
        if v is not None and (type(v) is not float or not 0.0 <= v <= MAX_LATENCY_MS):
            setattr_(self, "latency_ms", _opt_number("latency_ms", v, MAX_LATENCY_MS))

        refs = self.evidence_refs
        if type(refs) is not tuple:
            if not isinstance(refs, (list, tuple)):
                raise _type_err("evidence_refs", "a tuple of str", refs)
            refs = tuple(refs)
            setattr_(self, "evidence_refs", refs)
        if len(refs) > MAX_REFS:
            raise _err("evidence_refs", f"more than {MAX_REFS} refs")
        for i, ref in enumerate(refs):
            if type(ref) is not str:
                raise _type_err(f"evidence_refs[{i}]", "a str", ref)
            if not 0 < len(ref) <= MAX_REF_LEN:
                raise _err(f"evidence_refs[{i}]", f"must be 1..{MAX_REF_LEN} code points")

        attrs = self.attributes
        if type(attrs) is not dict and not isinstance(attrs, Mapping):
            raise _type_err("attributes", "a dict str -> str", attrs)
        attrs = dict(attrs)
        setattr_(self, "attributes", attrs)
        if len(attrs) > MAX_ATTRIBUTES:
            raise _err("attributes", f"more than {MAX_ATTRIBUTES} entries")
        for k, val in attrs.items():
            if type(k) is not str:
                raise _type_err("attributes key", "a str", k)
            if not _ATTR_KEY.fullmatch(k):
                raise _err(f"attributes[{k[:40]!r}]", "key must be 1..64 of [A-Za-z0-9_.:/-]")
            if type(val) is not str:
                raise _type_err(f"attributes[{k!r}]", "a str", val)
            if len(val) > MAX_ATTRIBUTE_VALUE_LEN:
                raise _err(f"attributes[{k!r}]", f"value longer than {MAX_ATTRIBUTE_VALUE_LEN}")

        trace = self.trace_attribution
        if trace is not None and not isinstance(trace, HaltTraceAttribution):
            raise _type_err("trace_attribution", "HaltTraceAttribution or None", trace)

        # Control characters and tenant-safety rules, per string.
        check_text(reason, "SafetyEvent.halt_reason")
        check_text(expl, "SafetyEvent.tenant_safe_explanation")
        check_text(self.hook_id, "SafetyEvent.hook_id")
        if self.request_id:
            check_text(self.request_id, "SafetyEvent.request_id")
        if self.tenant_id:
            check_text(self.tenant_id, "SafetyEvent.tenant_id")
        for i, ref in enumerate(refs):
            check_text(ref, f"SafetyEvent.evidence_refs[{i}]")
        for k, val in attrs.items():
            check_text(k, f"SafetyEvent.attributes key {k!r}", role="key")
            check_text(val, f"SafetyEvent.attributes[{k!r}]")
        if trace is not None:
            for name in ("fact_source", "retrieval_path", "scorer_path"):
                check_text(getattr(trace, name), f"SafetyEvent.trace_attribution.{name}")

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
        evidence_refs: Sequence[str] | None = None,
        attributes: Mapping[str, str] | None = None,
        event_id: str | None = None,
        timestamp: str | None = None,
    ) -> "SafetyEvent":
        """Build an event from structured halt evidence.

        ``halt_reason`` = ``evidence.reason``; ``threshold`` defaults to the trace threshold and
        ``observed_score`` to ``evidence.last_score`` (the streaming guard passes the statistic
        that crossed explicitly); ``evidence_refs`` default to each chunk's ``source`` (or
        ``chunk:<i>`` when a chunk has none) -- references, never chunk text; the explanation is
        ``evidence.suggested_action`` or ``"Review the safety decision."``.
        """
        if not isinstance(evidence, HaltEvidence):
            raise FieldTypeError(
                f"SafetyEvent.from_halt_evidence: expected HaltEvidence, got {type(evidence).__name__}"
            )
        trace = evidence.trace_attribution
        if evidence_refs is None:
            evidence_refs = tuple(
                c.source or f"chunk:{i}" for i, c in enumerate(evidence.evidence_chunks)
            )
        return cls(
            event_id=event_id or new_safety_event_id(),
            timestamp=timestamp or utc_timestamp(),
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
            attributes=attributes if attributes is not None else {},
        )

    @classmethod
    @_foreign_errors_as_validation("SafetyEvent", "arguments")
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
        event_id: str | None = None,
        timestamp: str | None = None,
    ) -> "SafetyEvent":
        """Build an event from a hook's policy decision (as a hook reports it). Same errors as the
        constructor.

        After the class is created this classmethod is replaced by its C++ twin
        (``_core._safety_from_policy_decision``), which validates the inputs once and builds the
        event directly; every call it declines (a subclass, unusual or invalid values) is
        forwarded to this Python implementation (kept as ``_from_policy_decision_py``).
        """
        return cls(
            event_id=event_id or new_safety_event_id(),
            timestamp=timestamp or utc_timestamp(),
            request_id=request_id,
            tenant_id=tenant_id,
            hook_id=hook_id,
            hook_scope=hook_scope,
            policy_decision=policy_decision,
            halt_reason=halt_reason,
            threshold=threshold,
            observed_score=observed_score,
            latency_ms=latency_ms,
            evidence_refs=evidence_refs,
            tenant_safe_explanation=tenant_safe_explanation,
            trace_attribution=trace_attribution,
            attributes=attributes if attributes is not None else {},
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict with the 16 schema keys (the same keys and values as director-ai's
        ``SafetyEvent.to_dict()``); ``evidence_refs`` is a list, ``trace_attribution`` a dict or
        None, ``attributes`` a copy.

        Replaced by its C++ twin after the class is created (same result; this Python version is
        kept as ``_to_dict_py``)."""
        return self._to_dict_py()

    def _to_dict_py(self) -> dict[str, Any]:
        """Reference implementation of :meth:`to_dict` (tests compare the two)."""
        trace = self.trace_attribution
        return {
            "schema_version": self.schema_version,
            "event_id": self.event_id,
            "timestamp": self.timestamp,
            "request_id": self.request_id,
            "tenant_id": self.tenant_id,
            "hook_id": self.hook_id,
            "hook_scope": self.hook_scope,
            "policy_decision": self.policy_decision,
            "halt_reason": self.halt_reason,
            "threshold": self.threshold,
            "observed_score": self.observed_score,
            "latency_ms": self.latency_ms,
            "evidence_refs": list(self.evidence_refs),
            "tenant_safe_explanation": self.tenant_safe_explanation,
            "trace_attribution": None if trace is None else trace.to_dict(),
            "attributes": dict(self.attributes),
        }

    @classmethod
    def from_dict(cls, payload: Mapping[str, Any]) -> "SafetyEvent":
        """Alias of :func:`validate_safety_event_payload`."""
        return validate_safety_event_payload(payload)


def _trace_from_payload(value: Any) -> HaltTraceAttribution | None:
    if value is None:
        return None
    if type(value) is not dict and not isinstance(value, Mapping):
        raise _type_err("trace_attribution", "an object or null", value)
    if value.keys() != _TRACE_KEYS:
        keys = set(value.keys())
        unknown = sorted(map(repr, keys - _TRACE_KEYS))
        missing = sorted(_TRACE_KEYS - keys)
        raise _err("trace_attribution", f"unknown key(s) {unknown[:5]}, missing key(s) {missing}")
    offset = value["token_offset"]
    kwargs = dict(value)
    if offset is None:
        kwargs["token_offset"] = -1
    for name in ("fact_source", "retrieval_path", "scorer_path"):
        if type(kwargs[name]) is not str:
            raise _type_err(f"trace_attribution.{name}", "a str", kwargs[name])
    try:
        return HaltTraceAttribution(**kwargs)
    except ValidationError as exc:
        raise ValidationError(f"SafetyEvent.trace_attribution: {exc}") from None


def validate_safety_event_payload(payload: Mapping[str, Any]) -> SafetyEvent:
    """Validate a ``SafetyEvent.to_dict()`` payload (e.g. parsed JSON) and rebuild the event.

    Accepts exactly what :data:`SAFETY_EVENT_JSON_SCHEMA` accepts, then applies the tenant-safety
    rules (the schema cannot express them). All 16 keys are required, no other key is allowed;
    ``trace_attribution.token_offset = null`` is read as -1 (unknown), as director-ai does.

    A valid ``dict`` payload is checked and rebuilt in C++ (one pass, no intermediate objects);
    anything else -- an invalid payload, a non-dict mapping, numpy numbers -- runs the Python
    path, which names the first offending field.

    Raises:
        ValidationError: any violation (``FieldTypeError`` for wrong types, ``TenantSafetyError``
            for privacy violations; all are ``ValueError``). Nothing else, whatever the input.
    """
    ev = _from_payload_fast(payload)
    if ev is not None:
        return ev
    return _validate_payload_py(payload)


@_foreign_errors_as_validation("SafetyEvent")
def _validate_payload_py(payload: Mapping[str, Any]) -> SafetyEvent:
    """Python path of :func:`validate_safety_event_payload` (error reporting, unusual types)."""
    if type(payload) is not dict and not isinstance(payload, Mapping):
        raise _type_err("payload", "an object", payload)
    if payload.keys() != _PAYLOAD_KEYS:
        keys = set(payload.keys())
        unknown = sorted(repr(k)[:40] for k in keys - _PAYLOAD_KEYS)
        missing = sorted(_PAYLOAD_KEYS - keys)
        raise _err("payload", f"unknown key(s) {unknown[:5]}, missing key(s) {missing}")
    refs = payload["evidence_refs"]
    if type(refs) is not list and type(refs) is not tuple:
        raise _type_err("evidence_refs", "an array", refs)
    attrs = payload["attributes"]
    if type(attrs) is not dict and not isinstance(attrs, Mapping):
        raise _type_err("attributes", "an object", attrs)
    for name in ("threshold", "observed_score", "latency_ms"):
        v = payload[name]
        if v is not None and type(v) is not float and type(v) is not int:
            raise _type_err(name, "a number or null", v)
    if type(payload["schema_version"]) is not str:
        raise _type_err("schema_version", "a str", payload["schema_version"])
    return SafetyEvent(
        event_id=payload["event_id"],
        timestamp=payload["timestamp"],
        request_id=payload["request_id"],
        tenant_id=payload["tenant_id"],
        hook_id=payload["hook_id"],
        hook_scope=payload["hook_scope"],
        policy_decision=payload["policy_decision"],
        halt_reason=payload["halt_reason"],
        threshold=payload["threshold"],
        observed_score=payload["observed_score"],
        latency_ms=payload["latency_ms"],
        evidence_refs=tuple(refs),
        tenant_safe_explanation=payload["tenant_safe_explanation"],
        trace_attribution=_trace_from_payload(payload["trace_attribution"]),
        attributes=attrs,
        schema_version=payload["schema_version"],
    )


SafetyEvent._from_policy_decision_py = SafetyEvent.__dict__["from_policy_decision"]  # type: ignore[attr-defined]
_core._safety_setup(
    SafetyEvent, HaltTraceAttribution, _trace_from_payload, SafetyEvent.__dict__["from_policy_decision"].__func__
)
# C++ twins of from_policy_decision and to_dict (same results; tests compare them with the Python
# implementations kept as _from_policy_decision_py / _to_dict_py)
for _name, _method in _core._safety_event_methods().items():
    setattr(SafetyEvent, _name, _method)
#: the public validator is the C++ entry point; every payload it declines goes to the Python path
validate_safety_event_payload = _core._safety_entry(  # noqa: F811
    "validate_event", _validate_payload_py, sys.modules[__name__], validate_safety_event_payload.__doc__ or ""
)
_post_init_fast = _core._safety_event_post_init
_build_fast = _core._safety_event_build
_from_payload_fast = _core._safety_event_from_payload

"""Director Safety Protocol (``director.safety_protocol.v1``): a transport envelope around a
SafetyEvent.

:class:`DirectorSafetySignal` wraps one :class:`~director_fast.safety.event.SafetyEvent` in a
transport envelope: producer identity, an interoperability block (decision, severity, hook scope,
reason, evidence count), a privacy declaration (``payload_classification="tenant_safe"``,
``raw_payload_included=false``) and optional tenant-safe string extensions.

Canonical JSON (:meth:`DirectorSafetySignal.to_json`): ``json.dumps`` with sorted keys, separators
``(",", ":")``, non-ASCII escaped as ``\\uXXXX`` and NaN forbidden -- byte-identical to
director-ai 3.21.0's ``to_json()`` for the same payload, and pure ASCII, so the bytes can be hashed
or signed by either implementation (:meth:`DirectorSafetySignal.digest`). Keys are ASCII by
construction, so code-point and UTF-16 key orders agree.

Severity mapping (deterministic): allow -> informational, warn -> advisory, halt / block ->
terminal.

Limits: ``signal_id`` = ``dsp_`` + 1..124 of ``[A-Za-z0-9_-]``; ``producer_id`` and ``framework``
1..128 code points, not blank; ``schema_ref`` 1..256; ``extensions`` <= 64 entries with the
attribute key / value limits of SafetyEvent; :meth:`DirectorSafetySignal.from_json` reads at most
:data:`MAX_SIGNAL_JSON_BYTES`.

Thread-safety: signals are immutable and may be shared; all functions are stateless.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any

from director_fast import _core
from director_fast._fields import FieldTypeError
from director_fast.safety.event import (
    _ATTR_KEY,
    _ATTR_KEY_PAT,
    _CTRL,
    _NONBLANK,
    _TIMESTAMP,
    _TIMESTAMP_PAT,
    HOOK_SCOPES,
    MAX_ATTRIBUTE_VALUE_LEN,
    MAX_ATTRIBUTES,
    MAX_ID_LEN,
    POLICY_DECISIONS,
    SAFETY_EVENT_JSON_SCHEMA,
    SAFETY_EVENT_SCHEMA_VERSION,
    SafetyEvent,
    _foreign_errors_as_validation,
    _safe_string,
    utc_timestamp,
    validate_safety_event_payload,
)
from director_fast.safety.tenant import check_text
from director_fast.errors import ValidationError

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

DIRECTOR_SAFETY_PROTOCOL_VERSION = "director.safety_protocol.v1"
#: public documentation of the envelope (the protocol's own reference, shared with director-ai).
DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF = "https://anulum.github.io/director-ai/api/director-safety-protocol/"
SEVERITY_BY_DECISION: Mapping[str, str] = {
    "allow": "informational",
    "warn": "advisory",
    "halt": "terminal",
    "block": "terminal",
}
#: what a tenant-safe producer promises to have redacted (fixed list, in this order).
REDACTION_REQUIRED = ("raw_prompts", "raw_completions", "credentials", "private_media", "sensor_payloads")
MAX_SIGNAL_JSON_BYTES = 256 * 1024
MAX_SCHEMA_REF_LEN = 256

_SIGNAL_ID_PAT = "dsp_[A-Za-z0-9_-]{1,124}"
_SIGNAL_ID = re.compile(_SIGNAL_ID_PAT)
_HEX_ID = re.compile("[0-9a-f]+")  # the tail of a generated id
_TOP_KEYS = frozenset(
    {"protocol_version", "schema_ref", "signal_id", "emitted_at", "producer_id", "framework",
     "event_schema_version", "event", "interoperability", "privacy", "extensions"}
)
_INTEROP_KEYS = frozenset({"decision", "severity", "hook_scope", "halt_reason", "evidence_ref_count"})
_PRIVACY_KEYS = frozenset({"payload_classification", "raw_payload_included", "redaction_required"})
_REDACTION_LIST = list(REDACTION_REQUIRED)

_event_schema = {k: v for k, v in SAFETY_EVENT_JSON_SCHEMA.items() if k not in ("$schema", "$id")}

#: JSON Schema (draft 2020-12) of ``DirectorSafetySignal.to_transport_dict()``. Cross-field rules
#: (interoperability block == event, severity == mapping(decision)) and the tenant-safety rules are
#: enforced by :func:`validate_director_safety_signal` on top of this schema.
DIRECTOR_SAFETY_SIGNAL_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://director-fast.invalid/schemas/safety-protocol.v1.schema.json",
    "title": "director_fast DirectorSafetySignal (director.safety_protocol.v1)",
    "type": "object",
    "additionalProperties": False,
    "required": sorted(_TOP_KEYS),
    "properties": {
        "protocol_version": {"const": DIRECTOR_SAFETY_PROTOCOL_VERSION},
        "schema_ref": _safe_string(minLength=1, maxLength=MAX_SCHEMA_REF_LEN, pattern="\\S"),
        "signal_id": _safe_string(pattern=f"^{_SIGNAL_ID_PAT}$"),
        "emitted_at": _safe_string(pattern=f"^{_TIMESTAMP_PAT}$"),
        "producer_id": _safe_string(minLength=1, maxLength=MAX_ID_LEN, pattern="\\S"),
        "framework": _safe_string(minLength=1, maxLength=MAX_ID_LEN, pattern="\\S"),
        "event_schema_version": {"const": SAFETY_EVENT_SCHEMA_VERSION},
        "event": _event_schema,
        "interoperability": {
            "type": "object",
            "additionalProperties": False,
            "required": sorted(_INTEROP_KEYS),
            "properties": {
                "decision": {"type": "string", "enum": sorted(POLICY_DECISIONS)},
                "severity": {"type": "string", "enum": sorted(set(SEVERITY_BY_DECISION.values()))},
                "hook_scope": {"type": "string", "enum": sorted(HOOK_SCOPES)},
                "halt_reason": {"type": "string"},
                "evidence_ref_count": {"type": "integer", "minimum": 0},
            },
        },
        "privacy": {
            "type": "object",
            "additionalProperties": False,
            "required": sorted(_PRIVACY_KEYS),
            "properties": {
                "payload_classification": {"const": "tenant_safe"},
                "raw_payload_included": {"const": False},
                "redaction_required": {"const": _REDACTION_LIST},
            },
        },
        "extensions": {
            "type": "object",
            "maxProperties": MAX_ATTRIBUTES,
            # control characters excluded explicitly: Python regexes let "$" match before a final "\n"
            "propertyNames": _safe_string(pattern=f"^{_ATTR_KEY_PAT}$"),
            "additionalProperties": _safe_string(maxLength=MAX_ATTRIBUTE_VALUE_LEN),
        },
    },
}


def new_director_safety_signal_id() -> str:
    """Opaque, unguessable signal id: ``dsp_`` + 32 random hex digits (128 bits from the kernel
    CSPRNG: ``getrandom(2)`` on Linux, ``arc4random_buf(3)`` on macOS and the BSDs)."""
    return _core._safety_new_id("dsp_")


def _err(where: str, msg: str) -> ValidationError:
    return ValidationError(f"DirectorSafetySignal.{where}: {msg}")


def _type_err(where: str, expected: str, value: Any) -> FieldTypeError:
    return FieldTypeError(f"DirectorSafetySignal.{where}: expected {expected}, got {type(value).__name__}")  # no repr()


def _name_field(where: str, value: Any, max_len: int) -> None:
    if type(value) is not str:
        raise _type_err(where, "a str", value)
    if not 0 < len(value) <= max_len or not _NONBLANK.search(value) or _CTRL.search(value):
        raise _err(where, f"must be 1..{max_len} code points, not blank, without control characters")
    check_text(value, f"DirectorSafetySignal.{where}")


@dataclass(frozen=True, slots=True)
class DirectorSafetySignal:
    """Protocol envelope for exchanging one tenant-safe guard signal between runtimes, dashboards
    and audit pipelines.

    Attributes:
        signal_id: opaque ``dsp_...`` id (:func:`new_director_safety_signal_id`).
        emitted_at: RFC-3339 UTC emission timestamp with trailing ``Z``.
        producer_id: stable producer / runtime id; framework: runtime or orchestrator family.
        event: the embedded :class:`SafetyEvent` (validated at its own construction).
        protocol_version: always :data:`DIRECTOR_SAFETY_PROTOCOL_VERSION`.
        schema_ref: documentation URL of the envelope.
        extensions: optional tenant-safe ``str -> str`` metadata (copied; same rules and limits as
            ``SafetyEvent.attributes``).

    Raises (construction): ValidationError / FieldTypeError / TenantSafetyError naming the field.
    Thread-safety: immutable; share freely.
    """

    signal_id: str
    emitted_at: str
    producer_id: str
    framework: str
    event: SafetyEvent
    protocol_version: str = DIRECTOR_SAFETY_PROTOCOL_VERSION
    schema_ref: str = DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF
    extensions: Mapping[str, str] = field(default_factory=dict)

    @_foreign_errors_as_validation("DirectorSafetySignal", "fields")
    def __post_init__(self) -> None:
        if _signal_post_init_fast(self):
            return  # every check below passed in C++ (extensions already copied)
        if type(self.protocol_version) is not str or self.protocol_version != DIRECTOR_SAFETY_PROTOCOL_VERSION:
            raise _err("protocol_version", f"unsupported version {str(self.protocol_version)[:40]!r}")
        if type(self.signal_id) is not str:
            raise _type_err("signal_id", "a str", self.signal_id)
        if not _SIGNAL_ID.fullmatch(self.signal_id):
            raise _err("signal_id", "must be 'dsp_' + 1..124 of [A-Za-z0-9_-]")
        if not _HEX_ID.fullmatch(self.signal_id, 4):  # hex (generated ids) carries no secret
            check_text(self.signal_id[4:], "DirectorSafetySignal.signal_id")
        if type(self.emitted_at) is not str:
            raise _type_err("emitted_at", "a str", self.emitted_at)
        if not _TIMESTAMP.fullmatch(self.emitted_at):
            raise _err("emitted_at", "must be RFC-3339 UTC 'YYYY-MM-DDTHH:MM:SS[.fraction]Z'")
        _name_field("producer_id", self.producer_id, MAX_ID_LEN)
        _name_field("framework", self.framework, MAX_ID_LEN)
        _name_field("schema_ref", self.schema_ref, MAX_SCHEMA_REF_LEN)
        if not isinstance(self.event, SafetyEvent):
            raise _type_err("event", "a SafetyEvent", self.event)
        ext = self.extensions
        if not isinstance(ext, Mapping):
            raise _type_err("extensions", "a dict str -> str", ext)
        ext = dict(ext)
        object.__setattr__(self, "extensions", ext)
        if len(ext) > MAX_ATTRIBUTES:
            raise _err("extensions", f"more than {MAX_ATTRIBUTES} entries")
        for k, v in ext.items():
            if type(k) is not str:
                raise _type_err("extensions key", "a str", k)
            if not _ATTR_KEY.fullmatch(k):
                raise _err(f"extensions[{k[:40]!r}]", "key must be 1..64 of [A-Za-z0-9_.:/-]")
            if type(v) is not str:
                raise _type_err(f"extensions[{k!r}]", "a str", v)
            if len(v) > MAX_ATTRIBUTE_VALUE_LEN or _CTRL.search(v):
                raise _err(f"extensions[{k!r}]", f"value longer than {MAX_ATTRIBUTE_VALUE_LEN} or has control characters")
        for k, v in ext.items():
            check_text(k, f"DirectorSafetySignal.extensions key {k!r}", role="key")
            check_text(v, f"DirectorSafetySignal.extensions[{k!r}]")

    @property
    def severity(self) -> str:
        """Deterministic severity of the embedded decision (see :data:`SEVERITY_BY_DECISION`)."""
        return SEVERITY_BY_DECISION[self.event.policy_decision]

    def to_transport_dict(self) -> dict[str, Any]:
        """The JSON-safe transport payload (11 keys; ``privacy.redaction_required`` is a list).
        Replaced by its C++ twin after the class is created (same result)."""
        return self._to_transport_dict_py()

    def _to_transport_dict_py(self) -> dict[str, Any]:
        """Reference implementation of :meth:`to_transport_dict` (tests compare the two)."""
        ev = self.event
        return {
            "protocol_version": self.protocol_version,
            "schema_ref": self.schema_ref,
            "signal_id": self.signal_id,
            "emitted_at": self.emitted_at,
            "producer_id": self.producer_id,
            "framework": self.framework,
            "event_schema_version": SAFETY_EVENT_SCHEMA_VERSION,
            "event": ev.to_dict(),
            "interoperability": {
                "decision": ev.policy_decision,
                "severity": SEVERITY_BY_DECISION[ev.policy_decision],
                "hook_scope": ev.hook_scope,
                "halt_reason": ev.halt_reason,
                "evidence_ref_count": len(ev.evidence_refs),
            },
            "privacy": {
                "payload_classification": "tenant_safe",
                "raw_payload_included": False,
                "redaction_required": list(REDACTION_REQUIRED),
            },
            "extensions": dict(self.extensions),
        }

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, compact separators, ASCII only (``\\uXXXX`` escapes).
        Byte-identical to director-ai 3.21.0's ``to_json()`` for the same payload. Replaced by its
        C++ twin (written directly from the fields) after the class is created; the tests compare
        both byte for byte."""
        return json.dumps(self._to_transport_dict_py(), sort_keys=True, separators=(",", ":"),
                          ensure_ascii=True, allow_nan=False)

    def to_json_bytes(self) -> bytes:
        """:meth:`to_json` encoded as ASCII bytes (what to hash or sign)."""
        return self.to_json().encode("ascii")

    def digest(self) -> str:
        """SHA-256 (hex, 64 lower-case digits) of the canonical JSON bytes."""
        return hashlib.sha256(self.to_json_bytes()).hexdigest()

    @classmethod
    def from_transport_dict(cls, payload: Mapping[str, Any]) -> "DirectorSafetySignal":
        """Alias of :func:`validate_director_safety_signal`."""
        return validate_director_safety_signal(payload)

    @classmethod
    def from_json(cls, text: str | bytes) -> "DirectorSafetySignal":
        """Parse JSON text (at most :data:`MAX_SIGNAL_JSON_BYTES` bytes; a ``str`` is measured in UTF-8
        bytes) and validate it.

        Raises:
            ValidationError: oversized, malformed or non-standard JSON (NaN/Infinity, excessive
                nesting) or any validation failure.
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise _type_err("from_json", "str or bytes", text)
        size = len(text)
        if isinstance(text, str) and size * 4 > MAX_SIGNAL_JSON_BYTES and size <= MAX_SIGNAL_JSON_BYTES:
            # the limit is in UTF-8 bytes; a str of more than a quarter of it may exceed it
            size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_SIGNAL_JSON_BYTES:
            raise _err("from_json", f"input longer than {MAX_SIGNAL_JSON_BYTES} bytes (UTF-8)")
        try:
            payload = json.loads(text, parse_constant=_reject_constant)
        except RecursionError:
            raise _err("from_json", "JSON nested too deeply") from None
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            raise _err("from_json", f"invalid JSON: {str(exc)[:80]}") from None
        return validate_director_safety_signal(payload)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


@_foreign_errors_as_validation("DirectorSafetySignal", "arguments")
def director_safety_signal_from_event(
    event: SafetyEvent,
    *,
    producer_id: str,
    framework: str = "generic",
    signal_id: str | None = None,
    emitted_at: str | None = None,
    extensions: Mapping[str, str] | None = None,
) -> DirectorSafetySignal:
    """Wrap an existing tenant-safe event in a protocol envelope (fresh id and timestamp unless
    given). Same errors as the :class:`DirectorSafetySignal` constructor (checked once, in C++;
    anything the fast path declines goes through the constructor)."""
    sig = _signal_build_fast(
        signal_id, emitted_at, producer_id, framework, event, DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF,
        extensions,
    )
    if sig is not None:
        return sig
    return DirectorSafetySignal(
        signal_id=signal_id or new_director_safety_signal_id(),
        emitted_at=emitted_at or utc_timestamp(),
        producer_id=producer_id,
        framework=framework,
        event=event,
        extensions=extensions if extensions is not None else {},
    )


def validate_director_safety_signal(payload: Mapping[str, Any]) -> DirectorSafetySignal:
    """Validate a transport payload at a trust boundary and rebuild the signal.

    Checks the :data:`DIRECTOR_SAFETY_SIGNAL_JSON_SCHEMA` shape (exact key sets, constants, the
    privacy declaration), rebuilds the event through
    :func:`~director_fast.safety.event.validate_safety_event_payload`, checks that the
    interoperability block matches the event (decision, severity = mapping(decision), hook scope,
    reason, evidence count) and applies the tenant-safety rules to the event and the extensions.

    A valid ``dict`` payload is checked and rebuilt in C++; anything else runs the Python path,
    which names the first offending field.

    Raises:
        ValidationError: any violation (all subclasses are ``ValueError``); nothing else.
    """
    sig = _signal_from_payload_fast(payload)
    if sig is not None:
        return sig
    return _validate_signal_py(payload)


@_foreign_errors_as_validation("DirectorSafetySignal")
def _validate_signal_py(payload: Mapping[str, Any]) -> DirectorSafetySignal:
    """Python path of :func:`validate_director_safety_signal` (error reporting, unusual types)."""
    if type(payload) is not dict and not isinstance(payload, Mapping):
        raise _type_err("payload", "an object", payload)
    if payload.keys() != _TOP_KEYS:
        keys = set(payload.keys())
        unknown = sorted(repr(k)[:40] for k in keys - _TOP_KEYS)
        raise _err("payload", f"unknown key(s) {unknown[:5]}, missing key(s) {sorted(_TOP_KEYS - keys)}")
    if type(payload["protocol_version"]) is not str or payload["protocol_version"] != DIRECTOR_SAFETY_PROTOCOL_VERSION:
        raise _err("protocol_version", "unsupported protocol version")
    if type(payload["event_schema_version"]) is not str or payload["event_schema_version"] != SAFETY_EVENT_SCHEMA_VERSION:
        raise _err("event_schema_version", "unsupported event schema version")
    privacy = payload["privacy"]
    if type(privacy) is not dict and not isinstance(privacy, Mapping):
        raise _type_err("privacy", "an object", privacy)
    if privacy.keys() != _PRIVACY_KEYS:
        raise _err("privacy", f"must have exactly the keys {sorted(_PRIVACY_KEYS)}")
    if type(privacy["payload_classification"]) is not str or privacy["payload_classification"] != "tenant_safe":
        raise _err("privacy.payload_classification", "must be 'tenant_safe'")
    if privacy["raw_payload_included"] is not False:
        raise _err("privacy.raw_payload_included", "must be false")
    red = privacy["redaction_required"]
    if (type(red) is not list and type(red) is not tuple) or any(type(x) is not str for x in red) or list(
        red
    ) != _REDACTION_LIST:
        raise _err("privacy.redaction_required", f"must be {_REDACTION_LIST}")
    interop = payload["interoperability"]
    if type(interop) is not dict and not isinstance(interop, Mapping):
        raise _type_err("interoperability", "an object", interop)
    if interop.keys() != _INTEROP_KEYS:
        raise _err("interoperability", f"must have exactly the keys {sorted(_INTEROP_KEYS)}")
    event = validate_safety_event_payload(payload["event"])
    decision = interop["decision"]
    if type(decision) is not str or decision != event.policy_decision:
        raise _err("interoperability.decision", "does not match event.policy_decision")
    severity = interop["severity"]
    if type(severity) is not str or severity != SEVERITY_BY_DECISION[event.policy_decision]:
        raise _err("interoperability.severity", "does not match the severity of event.policy_decision")
    if type(interop["hook_scope"]) is not str or interop["hook_scope"] != event.hook_scope:
        raise _err("interoperability.hook_scope", "does not match event.hook_scope")
    if type(interop["halt_reason"]) is not str or interop["halt_reason"] != event.halt_reason:
        raise _err("interoperability.halt_reason", "does not match event.halt_reason")
    count = interop["evidence_ref_count"]
    if type(count) is float and count.is_integer():
        count = int(count)
    if type(count) is not int or count != len(event.evidence_refs):
        raise _err("interoperability.evidence_ref_count", "does not match len(event.evidence_refs)")
    ext = payload["extensions"]
    if type(ext) is not dict and not isinstance(ext, Mapping):
        raise _type_err("extensions", "an object", ext)
    return DirectorSafetySignal(
        signal_id=payload["signal_id"],
        emitted_at=payload["emitted_at"],
        producer_id=payload["producer_id"],
        framework=payload["framework"],
        event=event,
        protocol_version=DIRECTOR_SAFETY_PROTOCOL_VERSION,
        schema_ref=payload["schema_ref"],
        extensions=ext,
    )


#: the Python to_json, kept as the reference and for events of a SafetyEvent subclass (whose
#: to_dict() may be overridden; the C++ writers read the fields of the exact class only)
DirectorSafetySignal._to_json_py = DirectorSafetySignal.__dict__["to_json"]  # type: ignore[attr-defined]
_core._safety_setup_signal(DirectorSafetySignal, DIRECTOR_SAFETY_PROTOCOL_SCHEMA_REF)
_signal_post_init_fast = _core._safety_signal_post_init
_signal_build_fast = _core._safety_signal_build
_signal_from_payload_fast = _core._safety_signal_from_payload
for _name, _method in _core._safety_signal_methods().items():
    setattr(DirectorSafetySignal, _name, _method)

#: the public functions are C++ entry points; every call they decline goes to the Python functions
#: above (kept as _director_safety_signal_from_event_py / _validate_signal_py)
_director_safety_signal_from_event_py = director_safety_signal_from_event
director_safety_signal_from_event = _core._safety_entry(  # noqa: F811
    "signal_from_event", _director_safety_signal_from_event_py, sys.modules[__name__],
    _director_safety_signal_from_event_py.__doc__ or "",
)
validate_director_safety_signal = _core._safety_entry(  # noqa: F811
    "validate_signal", _validate_signal_py, sys.modules[__name__], validate_director_safety_signal.__doc__ or ""
)

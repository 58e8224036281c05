"""Pre-dispatch confidence for tool-call arguments (a required-key placeholder heuristic).

Before an agent dispatches a tool call, :func:`evaluate` scores the arguments against the keys the
tool requires: a required key that is missing, or present with a placeholder-like value (the
model guessed), subtracts ``1 / len(required)`` from a score that starts at 1.0. Optional keys are
not scored; with no required keys the score is 1.0. :meth:`Report.should_abstain` is true below
:data:`ABSTAIN_THRESHOLD` (0.5), so the dispatch layer can ask for clarification instead of acting.

This checks the *input* before dispatch; it is separate from verifying a tool's output.

Placeholder detection (:func:`is_placeholder`), applied to the value of each required key:

====================================  ===========================================================
weak                                  examples
====================================  ===========================================================
``None``, NaN, empty/whitespace str   ``None``, ``""``, ``"  "``, ``float("nan")``
marker words (whole value, or         ``"TODO"``, ``"fixme"``, ``"TBD"``, ``"XXX"``,
followed by ``:``/``-``/space text)   ``"TODO: fill in"``, ``"N/A"``, ``"null"``, ``"none"``,
                                      ``"undefined"``, ``"placeholder"``, ``"changeme"``
x-masks and ellipses                  ``"xxx-xxx-xxxx"``, ``"XXXX"``, ``"..."``, ``"…"``, ``"???"``
template leftovers                    ``"<email>"`` (whole value), ``"Dear <NAME>"``,
                                      ``"{{user}}"``, ``"${API_URL}"``, ``"[insert name]"``
``your_api_key``-style                ``"your_api_key"``, ``"YOUR-EMAIL"``, ``"insert name here"``
example values                        ``"user@example.com"``, ``"https://example.org/x"``,
                                      ``"foo"``, ``"bar"``, ``"baz"``, ``"foobar"``,
                                      ``"lorem ipsum dolor"``
literal type names                    ``"string"``, ``"str"``, ``"integer"``, ``"int"``,
                                      ``"number"``, ``"float"``, ``"boolean"``, ``"bool"``
containers whose leaves are all weak  ``[]``, ``{}``, ``{"a": "", "b": None}``, ``["TODO"]``
====================================  ===========================================================

Not weak: numbers (``0`` is a real count), booleans, and strings that merely contain those words
(``"todo-list-app"``, ``"an example of the problem"``, ``"foo fighters tour"``, ``"string theory"``).

Required keys may be dotted paths into nested mappings/lists (``"user.email"``, ``"items.0.sku"``);
a literal key containing the dot takes precedence.

:func:`evaluate_tool_call` also validates the arguments against the tool's JSON Schema
(``jsonschema``: types, enums, ``const``, formats such as ``email``, ``required``,
``additionalProperties``, ranges, patterns, ...). Each failure is a :class:`SchemaViolation` in
:attr:`Report.violations`. A required key whose value violates its schema counts as weak (it
subtracts its share like a placeholder); a violation on an optional or extra key leaves the score
unchanged but is named in :attr:`Report.reason` and turns an ``allow`` SafetyEvent into a ``warn``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from director_fast._lru import LRUCache
from director_fast.safety.event import SafetyEvent
from director_fast.errors import ConfigError, InputTypeError, ValidationError

__all__ = [
    "ABSTAIN_THRESHOLD",
    "Report",
    "SchemaViolation",
    "evaluate",
    "evaluate_tool_call",
    "is_placeholder",
]

ABSTAIN_THRESHOLD = 0.5
"""Score below which dispatch should abstain: ``should_abstain`` is ``score < 0.5``."""

_MARKER_WORDS = frozenset(
    {"todo", "fixme", "tbd", "tba", "xxx", "n/a", "null", "none", "nil", "undefined",
     "placeholder", "changeme", "change_me", "change-me", "fill_me", "fill-me", "replace_me"}
)  # fmt: skip
_MARKER_PREFIX = re.compile(r"^(?i:todo|fixme|tbd|xxx)\s*(?::|\s[-–—]\s)|^(?:TODO|FIXME|TBD|XXX)\s")
_MASK = re.compile(r"^(?=(?:[^xX]*[xX]){3})[-_. /()@+]*[xX]+(?:[-_. /()@]+[xX]+)*[-_. /()@]*$")
_ELLIPSIS = re.compile(r"^(?:\.{2,}|…+|\?+)$")
_WHOLE_ANGLE = re.compile(r"^<[^<>\n]{1,80}>$")
_UPPER_ANGLE = re.compile(r"<[A-Z][A-Z0-9_ \-]{1,60}>")
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}|\$\{[^{}]*\}")
# "[insert ...]"-style hints: the opening below followed later by a "]" (tested with str.find, not
# a "[^\]]*\]" regex, which rescans the rest of the text from every "[your" and is quadratic).
_BRACKET_OPEN = re.compile(r"\[(?:insert|your|enter|add)\b", re.IGNORECASE)
_YOUR = re.compile(
    r"^(?:your|insert|enter)(?:[-_ ](?:[a-z0-9]+)){0,3}[-_ ]"
    r"(?:key|token|id|name|email|address|password|secret|here|value|url|uri|number|phone|"
    r"username|user|domain|host|hostname|path|file|project|org|organization|company|account|"
    r"code|city|country|message|text|query)$",
    re.IGNORECASE,
)
_EXAMPLE_DOMAIN = re.compile(
    r"(?:^|[@/.\s])(?:example\.(?:com|org|net|edu)|[\w-]+\.(?:example|invalid))(?:$|[/:?#\s])",
    re.IGNORECASE,
)
_FOO = frozenset({"foo", "bar", "baz", "qux", "quux", "foobar", "foo bar", "foo_bar", "asdf"})
_LOREM = re.compile(r"^lorem ipsum\b", re.IGNORECASE)
_TYPE_NAMES = frozenset(
    {"string", "str", "integer", "int", "number", "float", "double", "boolean", "bool"}
)
_MAX_DEPTH = 64


def _bracket_hint(t: str) -> bool:
    """Whether ``t`` holds ``[insert ...]`` / ``[your ...]`` / ``[enter ...]`` / ``[add ...]``."""
    m = _BRACKET_OPEN.search(t)
    return m is not None and t.find("]", m.end()) >= 0


def _string_is_placeholder(s: str) -> bool:
    t = s.strip()
    if not t:
        return True
    low = t.casefold()
    if low in _MARKER_WORDS or low.strip("<>[]{}()*_:.!- ") in _MARKER_WORDS:
        return True
    if _MARKER_PREFIX.match(t):
        return True
    if _MASK.match(t) or _ELLIPSIS.match(t):
        return True
    if _WHOLE_ANGLE.match(t) or _UPPER_ANGLE.search(t):
        return True
    if _TEMPLATE.search(t) or _bracket_hint(t):
        return True
    if _YOUR.match(t):
        return True
    if _EXAMPLE_DOMAIN.search(t):
        return True
    if low in _FOO or _LOREM.match(t):
        return True
    if low in _TYPE_NAMES:
        return True
    return False


def is_placeholder(value: Any) -> bool:
    """True when ``value`` looks like a guessed or template value rather than a real one.

    See the module docstring for the table of rules. Containers (mappings, lists, tuples, sets)
    are weak when every leaf is weak (an empty container has no real leaf, so it is weak);
    self-referencing containers are handled (a cycle counts as weak, nesting deeper than 64
    levels is treated as a real value).

    Args:
        value: any Python value (typically decoded JSON).

    Returns:
        ``bool``. Never raises.
    """
    return _is_weak(value, 0, set())


def _is_weak(value: Any, depth: int, seen: set[int]) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return _string_is_placeholder(value)
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (int,)):
        return False
    if isinstance(value, (bytes, bytearray)):
        return len(value.strip()) == 0
    if isinstance(value, (Mapping, list, tuple, set, frozenset)):
        if depth >= _MAX_DEPTH:
            return False
        if id(value) in seen:
            return True
        seen.add(id(value))
        try:
            leaves = value.values() if isinstance(value, Mapping) else value
            return all(_is_weak(v, depth + 1, seen) for v in leaves)
        finally:
            seen.discard(id(value))
    return False


_MISSING = object()


def _lookup(params: Any, path: str) -> Any:
    """Value at ``path`` (literal key first, then dotted walk), or ``_MISSING``.

    Iterative (a self-referencing mapping and a long dotted path cannot exhaust the stack).
    """
    cur: Any = params
    rest = path
    while True:
        if isinstance(cur, Mapping) and rest in cur:
            return cur[rest]
        if "." not in rest:
            return _MISSING
        head, _, rest = rest.partition(".")
        if isinstance(cur, Mapping):
            if head not in cur:
                return _MISSING
            cur = cur[head]
        elif isinstance(cur, Sequence) and not isinstance(cur, (str, bytes)):
            if not head.isdigit() or int(head) >= len(cur):
                return _MISSING
            cur = cur[int(head)]
        else:
            return _MISSING
        if isinstance(cur, Sequence) and not isinstance(cur, (str, bytes, Mapping)):
            h2, _, r2 = rest.partition(".")
            if not h2.isdigit() or int(h2) >= len(cur):
                return _MISSING
            if not r2:
                return cur[int(h2)]
            cur, rest = cur[int(h2)], r2
        elif not isinstance(cur, Mapping):
            return _MISSING


@dataclass(frozen=True)
class SchemaViolation:
    """One way the arguments break the tool's JSON Schema. Immutable; safe to share between threads.

    Attributes:
        path: dotted path of the offending value in the arguments (``"to"``, ``"user.email"``,
            ``"items.0"``); ``""`` for the arguments object itself (a missing required key or an
            extra key under ``additionalProperties: false`` is reported on the object holding it).
        keyword: the JSON Schema keyword that failed (``"type"``, ``"enum"``, ``"format"``,
            ``"required"``, ``"additionalProperties"``, ...).
        message: jsonschema's message. It may quote the offending value; :attr:`Report.reason`
            and the SafetyEvent never do.
    """

    path: str
    keyword: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """``{"path", "keyword", "message"}``."""
        return {"path": self.path, "keyword": self.keyword, "message": self.message}


@dataclass(frozen=True)
class Report:
    """Outcome of a confidence evaluation (score and the keys that lowered it). Immutable; safe to
    share between threads.

    Attributes:
        score: confidence in [0.0, 1.0]; 1.0 = every required key carries a concrete value,
            0.0 = every required key is missing or placeholder-like.
        missing_keys: required keys (dotted paths) absent from the arguments, in required order.
        weak_keys: required keys present but placeholder-like, in required order.
        reason: one-line human-readable summary naming the keys (never their values).
        violations: JSON Schema violations (:func:`evaluate_tool_call` only), in the order
            jsonschema reports them; empty for :func:`evaluate`.
    """

    score: float
    missing_keys: tuple[str, ...] = ()
    weak_keys: tuple[str, ...] = ()
    reason: str = ""
    violations: tuple[SchemaViolation, ...] = ()

    def should_abstain(self, threshold: float = ABSTAIN_THRESHOLD) -> bool:
        """True when ``score < threshold`` (strictly below: a score equal to the threshold
        dispatches).

        Raises:
            ConfigError: ``threshold`` is not a finite number in [0, 1] (``field="threshold"``).
        """
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, (int, float))
            or not 0.0 <= threshold <= 1.0
        ):
            raise ConfigError(
                f"threshold must be a number in [0, 1], got {threshold!r}", field="threshold"
            )
        return self.score < threshold

    def to_dict(self) -> dict[str, Any]:
        """``{"score", "missing_keys", "weak_keys", "reason", "violations"}`` (lists for the
        tuples; each violation as :meth:`SchemaViolation.to_dict`)."""
        return {
            "score": self.score,
            "missing_keys": list(self.missing_keys),
            "weak_keys": list(self.weak_keys),
            "reason": self.reason,
            "violations": [v.to_dict() for v in self.violations],
        }

    def to_safety_event(
        self,
        *,
        hook_id: str = "tool_input_confidence",
        threshold: float = ABSTAIN_THRESHOLD,
        request_id: str = "",
        tenant_id: str = "",
        latency_ms: float | None = None,
    ) -> SafetyEvent:
        """An audit-trail :class:`SafetyEvent` (hook scope ``agent``) for this evaluation.

        Decision ``block`` / ``tool_input_low_confidence`` when :meth:`should_abstain`;
        ``warn`` / ``tool_input_weak`` when some required key is missing or weak but the score
        is at or above the threshold; ``warn`` / ``tool_input_schema_violation`` when only
        optional or extra keys break the schema; ``allow`` / ``tool_input_confident`` otherwise.
        The event carries the score, threshold and counts only -- never key names or argument
        values.

        Raises:
            ConfigError: invalid ``threshold``.
        """
        abstain = self.should_abstain(threshold)
        if abstain:
            decision, reason = "block", "tool_input_low_confidence"
            expl = "Tool call held: required arguments look missing or placeholder-like."
        elif self.missing_keys or self.weak_keys:
            decision, reason = "warn", "tool_input_weak"
            expl = "Tool call allowed with some required arguments missing or placeholder-like."
        elif self.violations:
            decision, reason = "warn", "tool_input_schema_violation"
            expl = "Tool call allowed; some optional or extra arguments do not match the tool's schema."
        else:
            decision, reason = "allow", "tool_input_confident"
            expl = "Tool call arguments look concrete."
        return SafetyEvent.from_policy_decision(
            hook_id=hook_id,
            hook_scope="agent",
            policy_decision=decision,
            halt_reason=reason,
            tenant_safe_explanation=expl,
            request_id=request_id,
            tenant_id=tenant_id,
            threshold=float(threshold),
            observed_score=self.score,
            latency_ms=latency_ms,
            attributes={
                "missing_count": str(len(self.missing_keys)),
                "weak_count": str(len(self.weak_keys)),
                "violation_count": str(len(self.violations)),
            },
        )


def _check_required(required: Any, name: str = "required") -> list[str]:
    if isinstance(required, (str, bytes)) or not isinstance(required, (Sequence, set, frozenset)):
        raise InputTypeError(f"{name} must be a sequence of str, got {type(required).__name__}")
    out: list[str] = []
    for i, k in enumerate(required):
        if not isinstance(k, str):
            raise InputTypeError(f"{name}[{i}] must be a str, got {type(k).__name__}")
        if k not in out:
            out.append(k)
    return out


def _score(params: Mapping[str, Any], required: list[str], weak_extra: Any = None,
           violations: tuple[SchemaViolation, ...] = (),
           violated: frozenset[str] = frozenset()) -> Report:
    missing: list[str] = []
    weak: list[str] = []
    for key in required:
        v = _lookup(params, key)
        if v is _MISSING:
            missing.append(key)
        elif key in violated:
            weak.append(key)
        elif weak_extra is not None:
            verdict = weak_extra(key, v)
            if verdict is None:
                verdict = is_placeholder(v)
            if verdict:
                weak.append(key)
        elif is_placeholder(v):
            weak.append(key)
    bad = len(missing) + len(weak)
    if not required:
        score, reason = 1.0, "no required keys"
    else:
        score = (len(required) - bad) / len(required)
        if bad == 0:
            reason = f"all {len(required)} required keys carry concrete values"
        else:
            parts = []
            if missing:
                parts.append("missing " + ", ".join(missing))
            schema_weak = [k for k in weak if k in violated]
            guessed = [k for k in weak if k not in violated]
            if guessed:
                parts.append("placeholder-like " + ", ".join(guessed))
            if schema_weak:
                parts.append("against the schema " + ", ".join(schema_weak))
            reason = f"{bad} of {len(required)} required keys unusable: " + "; ".join(parts)
    if violations:
        named = ", ".join(f"{v.path or '(arguments)'} ({v.keyword})" for v in violations[:8])
        more = f" and {len(violations) - 8} more" if len(violations) > 8 else ""
        reason += f"; {len(violations)} schema violation{'s' if len(violations) != 1 else ''}: {named}{more}"
    return Report(score=score, missing_keys=tuple(missing), weak_keys=tuple(weak), reason=reason,
                  violations=violations)


def evaluate(params: Mapping[str, Any], required: Sequence[str]) -> Report:
    """Score tool-input ``params`` against the ``required`` key list (rule: module docstring).

    Each required key that is missing or placeholder-like (:func:`is_placeholder`) subtracts
    ``1 / len(required)`` (duplicates in ``required`` count once); optional keys are not scored;
    with no required keys the score is 1.0. Keys may be dotted paths (``"user.email"``).

    Args:
        params: the decoded arguments (a mapping).
        required: required key names or dotted paths.

    Returns:
        :class:`Report` with ``score`` in [0, 1].

    Raises:
        InputTypeError: ``params`` is not a mapping or ``required`` not a sequence of str.

    Thread-safe: pure function.
    """
    if not isinstance(params, Mapping):
        raise InputTypeError(f"params must be a mapping, got {type(params).__name__}")
    return _score(params, _check_required(required))


# --------------------------------------------------------------------------------------------
# JSON-Schema tool definitions
# --------------------------------------------------------------------------------------------


def _input_schema(tool_schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The parameters' JSON Schema from an OpenAI / Anthropic tool definition or a bare schema."""
    fn = tool_schema.get("function")
    if isinstance(fn, Mapping):  # OpenAI chat-completions: {"type": "function", "function": {...}}
        tool_schema = fn
    for key in ("parameters", "input_schema", "inputSchema"):  # OpenAI, Anthropic, MCP
        if key in tool_schema:
            schema = tool_schema[key]
            if not isinstance(schema, Mapping):
                raise ValidationError(f"tool_schema.{key} must be a JSON object")
            return schema
    if "properties" in tool_schema or "required" in tool_schema or tool_schema.get(
        "type"
    ) == "object":
        return tool_schema
    if "name" in tool_schema:  # a tool without parameters
        return {}
    raise ValidationError(
        "tool_schema: expected a JSON Schema or a tool definition with 'parameters' "
        "(OpenAI) or 'input_schema' (Anthropic)"
    )


def _required_paths(
    schema: Mapping[str, Any], prefix: str, out: dict[str, Mapping[str, Any]], depth: int
) -> None:
    if depth > _MAX_DEPTH:
        return
    req = schema.get("required", [])
    where = f"{prefix}required" if prefix else "required"
    names = _check_required(req, f"tool_schema {where}")
    props = schema.get("properties", {})
    if not isinstance(props, Mapping):
        raise ValidationError(f"tool_schema {prefix}properties must be a JSON object")
    for name in names:
        sub = props.get(name, {})
        if not isinstance(sub, Mapping):
            raise ValidationError(f"tool_schema property {prefix}{name} must be a JSON object")
        path = prefix + name
        if sub.get("required"):
            # an object with required members is scored through its members (no double count)
            _required_paths(sub, path + ".", out, depth + 1)
        else:
            out[path] = sub


def _same_json(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - exotic __eq__; treat as different
        return False


_EMAIL_LOCAL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_EMAIL_DOMAIN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}"
_EMAIL = re.compile(rf"^{_EMAIL_LOCAL}@(?:{_EMAIL_DOMAIN}|\[[0-9A-Fa-f:.]+\])$")
_IDN_EMAIL = re.compile(r"^[^\s@.](?:[^\s@]*[^\s@.])?@(?:[^\s@.\-](?:[^\s@.]*[^\s@.\-])?\.)+[^\W\d_]{2,63}$")
_VALIDATORS: LRUCache[Any] = LRUCache(256)
# keywords that complain about extra keys: they never make a required key's value weak
_EXTRA_KEY_KEYWORDS = frozenset({"additionalProperties", "unevaluatedProperties", "propertyNames"})


def _format_checker() -> Any:
    """jsonschema's FormatChecker with a stricter ``email``/``idn-email`` (jsonschema's own only
    looks for an ``@``): a dot-atom local part, ``@``, a dotted domain with an alphabetic TLD (or
    an address literal)."""
    import jsonschema

    checker = jsonschema.FormatChecker()

    @checker.checks("email")
    def _email(value: object) -> bool:
        return not isinstance(value, str) or (len(value) <= 254 and bool(_EMAIL.match(value)))

    @checker.checks("idn-email")
    def _idn_email(value: object) -> bool:
        return not isinstance(value, str) or (len(value) <= 254 and bool(_IDN_EMAIL.match(value)))

    return checker


def _validator(schema: Mapping[str, Any]) -> Any:
    """A jsonschema validator for ``schema`` (the draft its ``$schema`` names, else 2020-12), with
    the format checker; cached by the schema's canonical JSON (256 schemas)."""
    try:
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise ValidationError("tool_schema: the parameters schema is not plain JSON") from None

    def build() -> Any:
        import jsonschema
        from jsonschema import validators

        cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        try:
            cls.check_schema(schema)
        except jsonschema.exceptions.SchemaError as exc:
            where = ".".join(str(p) for p in exc.absolute_path) or "(root)"
            raise ValidationError(
                f"tool_schema: not a valid JSON Schema at {where}: {exc.message[:200]}") from None
        return cls(schema, format_checker=_format_checker())

    return _VALIDATORS.get_or_compute(key, build)


def _violations(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> list[Any]:
    import jsonschema

    if not schema:
        return []
    v = _validator(schema)
    try:
        return sorted(v.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
    except RecursionError:
        raise ValidationError("arguments: nested too deeply to validate") from None
    except jsonschema.exceptions.SchemaError as exc:
        raise ValidationError(f"tool_schema: {exc.message[:200]}") from None
    except Exception as exc:  # noqa: BLE001 - an unresolvable $ref (referencing) and the like
        if type(exc).__module__.split(".")[0] in ("jsonschema", "referencing"):
            raise ValidationError(f"tool_schema: cannot validate against it: {type(exc).__name__}: "
                                  f"{str(exc)[:200]}") from None
        raise


def evaluate_tool_call(tool_schema: Mapping[str, Any], arguments: Any) -> Report:
    """Score a tool call's ``arguments`` against a JSON-Schema tool definition.

    ``tool_schema`` may be an OpenAI tool (``{"type": "function", "function": {"name",
    "parameters"}}`` or ``{"name", "parameters"}``), an Anthropic tool (``{"name",
    "input_schema"}``), an MCP tool (``inputSchema``) or a bare object schema. Required keys come
    from ``required`` lists: a required object property that has a non-empty ``required`` list of
    its own is replaced by its required members as dotted paths (``"user.email"``), so a weak
    nested value is counted once; a missing parent makes each of those members missing.

    A required value is weak when :func:`is_placeholder` says so (unless it is one of the
    property's ``enum`` values or its ``const``), when it equals the property's ``default`` or one
    of its ``examples``/``example``, when it equals (case-insensitively) the property's
    ``title`` or ``description`` or its own ``type`` name, or when it violates its schema.

    The arguments are validated with ``jsonschema`` against the parameters schema (the draft its
    ``$schema`` names, else 2020-12; formats checked, ``email`` strictly; remote ``$ref`` are never
    fetched). Every failure is listed in ``violations``; one on an optional or extra key (or an
    extra key inside a required object) does not change the score but is named in ``reason`` and
    makes :meth:`Report.to_safety_event` a ``warn``.

    Args:
        tool_schema: the tool definition (mapping).
        arguments: a mapping, or a JSON string encoding an object (OpenAI sends a string).

    Returns:
        :class:`Report` as for :func:`evaluate`.

    Raises:
        InputTypeError: ``tool_schema`` is not a mapping, or ``arguments`` is not a JSON object
            (e.g. a list, a number, or a string that decodes to one).
        ValidationError: ``arguments`` is a string that is not valid JSON, or the schema's
            ``required``/``properties`` are malformed, or the parameters schema is not a valid
            JSON Schema (or has a ``$ref`` that cannot be resolved locally).

    Thread-safe: validators are cached per schema behind a lock and are stateless.
    """
    if not isinstance(tool_schema, Mapping):
        raise InputTypeError(f"tool_schema must be a mapping, got {type(tool_schema).__name__}")
    if isinstance(arguments, (str, bytes, bytearray)):
        try:
            decoded = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"arguments: not valid JSON ({exc.msg})") from None
        except UnicodeDecodeError:
            raise ValidationError("arguments: bytes are not valid UTF-8 JSON") from None
        except RecursionError:
            raise ValidationError("arguments: JSON nested too deeply") from None
        if not isinstance(decoded, dict):
            raise InputTypeError(
                f"arguments must be a JSON object, got JSON {type(decoded).__name__}"
            )
        arguments = decoded
    if not isinstance(arguments, Mapping):
        raise InputTypeError(
            f"arguments must be a JSON object (mapping), got {type(arguments).__name__}"
        )
    schema = _input_schema(tool_schema)
    props: dict[str, Mapping[str, Any]] = {}
    _required_paths(schema, "", props, 0)

    def weak_by_schema(path: str, value: Any) -> bool | None:
        sub = props.get(path, {})
        if "default" in sub and _same_json(value, sub["default"]):
            return True
        examples = sub.get("examples", [])
        if not isinstance(examples, list):
            examples = [examples]
        if "example" in sub:
            examples = [*examples, sub["example"]]
        if any(_same_json(value, ex) for ex in examples):
            return True
        enum = sub.get("enum")
        if isinstance(enum, list) and any(_same_json(value, e) for e in enum):
            return False
        if "const" in sub and _same_json(value, sub["const"]):
            return False
        if isinstance(value, str):
            low = value.strip().casefold()
            for key in ("title", "description"):
                text = sub.get(key)
                if isinstance(text, str) and text.strip() and low == text.strip().casefold():
                    return True
            t = sub.get("type")
            if isinstance(t, str) and low == t.casefold():
                return True
        return None

    found = _violations(schema, arguments if isinstance(arguments, dict) else dict(arguments))
    violations = tuple(
        SchemaViolation(path=".".join(str(p) for p in e.absolute_path), keyword=str(e.validator),
                        message=e.message if len(e.message) <= 300 else e.message[:297] + "...")
        for e in found
    )
    violated = frozenset(
        r for r in props for v in violations
        if v.keyword not in _EXTRA_KEY_KEYWORDS and (v.path == r or v.path.startswith(r + "."))
    )
    return _score(arguments, list(props), weak_by_schema, violations, violated)

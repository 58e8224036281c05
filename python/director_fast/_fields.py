"""Declarative field specs shared by the seed-000 dataclasses (validation, to_dict, from_dict).

Private module. Each public dataclass lists its fields once as :class:`F` entries; the helpers
below derive ``__post_init__`` validation, ``to_dict()`` and ``from_dict()`` from that list, so
the three can never disagree about a field.

Kinds (``F.kind``):

========  ==========================================================================
``str``   a ``str`` (``max_len`` code points at most when given)
``bool``  a ``bool`` (``numpy.bool_`` is accepted and converted)
``int``   an ``int`` in the 64-bit range (not ``bool``; numpy integers and integral floats are converted)
``float`` a finite real (not ``bool``); numpy reals are converted to ``float``; an ``int`` is kept
          as given when within +-2**53 (exactly representable), refused beyond
``obj``   an instance of ``F.cls`` (a dict is accepted by ``from_dict`` only)
``lobj``  a ``list`` of ``F.cls`` instances
``lfloat`` a ``list`` of finite reals (each within ``lo``/``hi``)
``lstr``  a ``list`` of ``str``
``dfloat`` a ``dict`` ``str`` -> finite real
``json``  a JSON value (dict with ``str`` keys / list / str / finite number / bool / None),
          nested at most :data:`MAX_JSON_DEPTH` levels
========  ==========================================================================
"""

from __future__ import annotations

import math
import operator
from dataclasses import MISSING, fields
from collections.abc import Mapping
from typing import Any

from director_fast.errors import FieldTypeError, InputTypeError, ValidationError

__all__ = ["F", "FieldTypeError", "MAX_JSON_DEPTH", "validate_fields", "dump_fields", "load_fields"]

#: deepest nesting accepted in a free-form JSON field (``json`` kind).
MAX_JSON_DEPTH = 32

# FieldTypeError lives in director_fast.errors (public); re-exported here for the field helpers.


class F:
    """One field spec: ``F(name, kind, optional=False, lo=None, hi=None, cls=None, max_len=None,
    choices=None)``. ``lo``/``hi`` bound numbers (inclusive); ``choices`` closes a ``str`` field."""

    __slots__ = ("name", "kind", "optional", "lo", "hi", "cls", "max_len", "choices")

    def __init__(
        self,
        name: str,
        kind: str,
        optional: bool = False,
        lo: float | None = None,
        hi: float | None = None,
        cls: Any = None,
        max_len: int | None = None,
        choices: frozenset[str] | None = None,
    ) -> None:
        self.name = name
        self.kind = kind
        self.optional = optional
        self.lo = lo
        self.hi = hi
        self.cls = cls
        self.max_len = max_len
        self.choices = choices


_MAX_EXACT_INT = 2**53  # ints in float fields: beyond this they are not exact floats
_MIN_INT64, _MAX_INT64 = -(2**63), 2**63 - 1  # every int field is a 64-bit integer


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # pragma: no cover - hostile __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def _type_err(where: str, expected: str, value: Any) -> FieldTypeError:
    return FieldTypeError(f"{where}: expected {expected}, got {type(value).__name__} {_short(value)}")


def _number(where: str, value: Any, lo: float | None, hi: float | None) -> float:
    tp = type(value)
    if tp is not float:
        if tp is bool or isinstance(value, (str, bytes)) or not hasattr(value, "__float__"):
            raise _type_err(where, "a real number", value)
        if tp is not int:
            try:
                value = float(value)
            except Exception as exc:  # complex, hostile __float__
                raise _type_err(where, "a real number", value) from exc
        else:  # ints are exact and finite; compare bounds without converting (no overflow)
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise ValidationError(f"{where}: must be in [{lo}, {hi}], got {_short(value)}")
            if not -_MAX_EXACT_INT <= value <= _MAX_EXACT_INT:
                raise ValidationError(f"{where}: an integer beyond +-2**53 is not a usable real number, got {_short(value)}")
            return value
    if not math.isfinite(value):
        raise ValidationError(f"{where}: must be finite, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = f"[{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}]"
        raise ValidationError(f"{where}: must be in {rng}, got {value!r}")
    return value


def _integer(where: str, value: Any, lo: float | None, hi: float | None) -> int:
    tp = type(value)
    if tp is not int:
        if tp is bool:
            raise _type_err(where, "an integer", value)
        if tp is float:
            if not value.is_integer():
                raise _type_err(where, "an integer", value)
            value = int(value)
        else:
            try:
                value = operator.index(value)
            except TypeError as exc:
                raise _type_err(where, "an integer", value) from exc
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValidationError(f"{where}: must be in [{lo}, {hi if hi is not None else 'inf'}], got {_short(value)}")
    if not _MIN_INT64 <= value <= _MAX_INT64:
        raise ValidationError(f"{where}: outside the 64-bit integer range, got {_short(value)}")
    return value


def _boolean(where: str, value: Any) -> bool:
    if value is True or value is False:
        return value
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool"):
        return bool(value)
    raise _type_err(where, "a bool", value)


def _json_value(where: str, value: Any, depth: int) -> Any:
    if depth > MAX_JSON_DEPTH:
        raise ValidationError(f"{where}: nested deeper than {MAX_JSON_DEPTH} levels")
    if value is None or value is True or value is False or type(value) is str:
        return value
    if type(value) is int:
        return value
    if type(value) is float:
        if not math.isfinite(value):
            raise ValidationError(f"{where}: must be finite, got {value!r}")
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise _type_err(f"{where} key", "a str", k)
            out[k] = _json_value(f"{where}.{k}", v, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_json_value(f"{where}[{i}]", v, depth + 1) for i, v in enumerate(value)]
    raise _type_err(where, "a JSON value", value)


def _check(owner: str, spec: F, value: Any) -> Any:
    where = f"{owner}.{spec.name}"
    if value is None:
        if spec.optional:
            return None
        raise _type_err(where, f"a {spec.kind} value (not optional)", value)
    kind = spec.kind
    if kind == "float":
        return _number(where, value, spec.lo, spec.hi)
    if kind == "str":
        if type(value) is not str:
            raise _type_err(where, "a str", value)
        if spec.max_len is not None and len(value) > spec.max_len:
            raise ValidationError(f"{where}: longer than {spec.max_len} code points ({len(value)})")
        if spec.choices is not None and value not in spec.choices:
            raise ValidationError(f"{where}: must be one of {sorted(spec.choices)}, got {_short(value)}")
        return value
    if kind == "bool":
        return _boolean(where, value)
    if kind == "int":
        return _integer(where, value, spec.lo, spec.hi)
    if kind == "obj":
        if not isinstance(value, spec.cls):
            raise _type_err(where, spec.cls.__name__, value)
        return value
    if kind in ("lobj", "lfloat", "lstr"):
        if type(value) is not list:
            if isinstance(value, (tuple, list)):
                value = list(value)
            else:
                raise _type_err(where, "a list", value)
        if kind == "lobj":
            for i, item in enumerate(value):
                if not isinstance(item, spec.cls):
                    raise _type_err(f"{where}[{i}]", spec.cls.__name__, item)
            return value
        if kind == "lstr":
            for i, item in enumerate(value):
                if type(item) is not str:
                    raise _type_err(f"{where}[{i}]", "a str", item)
            return value
        out = value
        for i, item in enumerate(value):
            checked = _number(f"{where}[{i}]", item, spec.lo, spec.hi)
            if checked is not item:
                if out is value:
                    out = list(value)
                out[i] = checked
        return out
    if kind == "dfloat":
        if not isinstance(value, Mapping):
            raise _type_err(where, "a dict", value)
        out_d = {}
        for k, v in value.items():
            if type(k) is not str:
                raise _type_err(f"{where} key", "a str", k)
            out_d[k] = _number(f"{where}[{k!r}]", v, spec.lo, spec.hi)
        return out_d
    if kind == "json":
        return _json_value(where, value, 0)
    raise AssertionError(kind)  # pragma: no cover - spec bug


def validate_fields(obj: Any, specs: tuple[F, ...]) -> None:
    """Validate (and normalise in place) every field of the frozen dataclass ``obj``."""
    owner = type(obj).__name__
    for spec in specs:
        value = getattr(obj, spec.name)
        checked = _check(owner, spec, value)
        if checked is not value:
            object.__setattr__(obj, spec.name, checked)


def _dump(spec: F, value: Any) -> Any:
    if value is None:
        return None
    kind = spec.kind
    if kind == "obj":
        return value.to_dict()
    if kind == "lobj":
        return [v.to_dict() for v in value]
    if kind in ("lfloat", "lstr"):
        return list(value)
    if kind == "dfloat":
        return dict(value)
    if kind == "json":
        return _json_value(spec.name, value, 0)
    return value


def dump_fields(obj: Any, specs: tuple[F, ...]) -> dict[str, Any]:
    """JSON-safe dict of ``obj`` (nested members become dicts, lists are copied)."""
    return {spec.name: _dump(spec, getattr(obj, spec.name)) for spec in specs}


def load_fields(cls: Any, specs: tuple[F, ...], payload: Any) -> Any:
    """Rebuild ``cls`` from a ``to_dict()`` payload; unknown keys and wrong types are rejected."""
    name = cls.__name__
    if not isinstance(payload, Mapping):
        raise _type_err(f"{name}.from_dict", "a mapping", payload)
    known = {s.name for s in specs}
    for key in payload:
        if type(key) is not str:
            raise _type_err(f"{name}.from_dict key", "a str", key)
        if key not in known:
            raise ValidationError(f"{name}.from_dict: unknown key {_short(key)}")
    required = {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING}
    missing = sorted(required - set(payload))
    if missing:
        raise ValidationError(f"{name}.from_dict: missing required key(s) {missing}")
    kwargs: dict[str, Any] = {}
    for spec in specs:
        if spec.name not in payload:
            continue
        value = payload[spec.name]
        if value is not None and spec.kind == "obj":
            value = spec.cls.from_dict(value)
        elif value is not None and spec.kind == "lobj":
            if not isinstance(value, (list, tuple)):
                raise _type_err(f"{name}.{spec.name}", "a list", value)
            value = [spec.cls.from_dict(v) for v in value]
        kwargs[spec.name] = value
    return cls(**kwargs)


class _Base:
    """to_dict/from_dict/validation derived from the class's ``_SPEC`` tuple."""

    __slots__ = ()
    _SPEC: tuple[F, ...] = ()

    def __post_init__(self) -> None:
        validate_fields(self, self._SPEC)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (nested members as dicts, lists copied)."""
        return dump_fields(self, self._SPEC)

    @classmethod
    def from_dict(cls, payload: Mapping[str, Any]) -> Any:
        """Rebuild an instance from :meth:`to_dict` output.

        Raises:
            ValidationError: unknown or missing keys, out-of-range values.
            FieldTypeError: a member of the wrong type (also a ``ValueError``).
        """
        return load_fields(cls, cls._SPEC, payload)

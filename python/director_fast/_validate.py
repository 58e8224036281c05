"""Small shared argument checks (one place for the text rules every public entry point uses)."""

from __future__ import annotations

from typing import Any

from director_fast.errors import ConfigError, InputTypeError, ValidationError

__all__ = ["check_text", "check_unit_interval", "utf8_problem"]


def check_text(value: Any, name: str) -> str:
    """Return ``value`` as a plain ``str`` if it is a ``str`` encodable as UTF-8.

    A ``str`` subclass (``numpy.str_`` from a pandas / numpy column, ...) is accepted and returned
    as the equal plain ``str``; callers that keep the text use the return value.

    Raises:
        InputTypeError: not a ``str`` (``.field`` is ``name``).
        ValidationError: it holds a lone surrogate (U+D800..U+DFFF), which no UTF-8/UTF-16 consumer
            (the C++ core, tokenizers, JSON) can represent; the message names the field and index
            (``.field`` is ``name``).
    """
    if type(value) is not str:
        if not isinstance(value, str):
            raise InputTypeError(f"{name} must be a str, got {type(value).__name__}", name)
        value = str.__str__(value)
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError(
            f"{name} holds a lone surrogate at index {exc.start} (U+{ord(value[exc.start]):04X}); "
            "decode the producer's bytes with errors='replace'", name) from None
    return value


def check_unit_interval(value: Any, name: str) -> float:
    """Return ``value`` as a float if it is a number (not a bool) in [0, 1].

    Raises:
        ConfigError: not a number, or outside [0, 1] (the message names ``name``).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name} must be a number in [0, 1], got {type(value).__name__}", name)
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise ConfigError(f"{name} must be in [0, 1], got {value}", name)
    return v


def utf8_problem(raw: bytes, start: int) -> str:
    """One-line description of why ``raw`` (one line of a file) is not UTF-8 at byte ``start``
    (``UnicodeDecodeError.start``): the byte and its 1-based character column, for messages of
    the form ``FILE:LINE: ...``."""
    col = len(raw[:start].decode("utf-8", "replace")) + 1
    return (f"not valid UTF-8: byte 0x{raw[start]:02X} at column {col} (save the file as "
            "UTF-8, or decode the producer's bytes with errors='replace')")

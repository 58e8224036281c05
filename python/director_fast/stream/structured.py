"""Structured recovery: a parser-safe JSON document from the delivered prefix of a halted stream.

When a guarded stream that produces JSON halts (``stream_guard(..., structured="json")``), the
caller holds a prefix of a JSON document that no parser accepts. :func:`recover_json` turns it
into one that every JSON parser accepts, without inventing content:

* every *complete* member of the prefix is kept, byte for byte (an object key/value pair or an
  array element whose value ended inside the prefix);
* the member in progress at the cut is dropped: a half-written string, number or literal, or a
  key whose value has not started. A number that touches the end of the prefix counts as
  incomplete (``12`` may have been on its way to ``125``); ``true`` / ``false`` / ``null`` and a
  closed string are complete as soon as their last character arrived;
* every container that was opened is kept and closed (``{"a": [1, 2`` becomes
  ``{"a": [1]}``: ``2`` touches the end and is dropped, the array stays);
* a syntax error ends the prefix where it occurs (everything from there on is dropped and the
  error is reported); a leading Markdown code fence (```` ```json ````) is skipped.

So the recovered text always parses, and it is *maximal*: it holds every complete member of the
prefix with an equal value, the containers on the path to the cut, and nothing else. When no
container was opened and no complete top-level value arrived, there is nothing to keep: the text
is ``null`` and ``valid`` is False.

Thread-safety: pure functions; call from any thread.
"""

from __future__ import annotations

import json
import re
from typing import Any

from director_fast.types.verification import StructuredRecoveryResult
from director_fast.errors import ConfigError, InputTypeError

__all__ = ["STRUCTURED_KINDS", "recover_json", "recover_structured"]

#: values accepted by ``stream_guard(..., structured=...)``.
STRUCTURED_KINDS = ("json",)

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
# a string cut by the end of the text: no closing quote, at most a half-written escape at the end
_STRING_CUT = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*(?:\\(?:u[0-9a-fA-F]{0,3})?)?\Z')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# a number cut by the end of the text ("-", "1.", "1e", "1e+")
_NUMBER_CUT = re.compile(r"-?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?)?\Z")
_LITERALS = ("true", "false", "null")
_FENCE = re.compile(r"[ \t\r\n]*```[A-Za-z0-9_-]*[ \t]*\r?\n")
_DELIMS = frozenset(" \t\n\r,]}")
_STRING_BODY = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')


class _Path:
    """A JSON pointer kept as (parent, token) and spelled out only when reported, so a deeply
    nested prefix costs O(depth) memory, not O(depth^2) strings."""

    __slots__ = ("parent", "token")

    def __init__(self, parent: "_Path | None", token: str) -> None:
        self.parent = parent
        self.token = token

    def __str__(self) -> str:
        parts = []
        node: _Path | None = self
        while node is not None:
            parts.append(node.token)
            node = node.parent
        return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in reversed(parts[:-1]))


_ROOT = _Path(None, "")
#: the ``closed`` metadata lists at most this many pointers (the outermost); ``closed_count`` has all
MAX_CLOSED_LISTED = 64


class _Open:
    """One open container: its closer, where its kept text ends, its JSON pointer, members."""

    __slots__ = ("closer", "keep_end", "pointer", "members", "key", "key_start", "expect")

    def __init__(self, closer: str, keep_end: int, pointer: _Path) -> None:
        self.closer = closer
        self.keep_end = keep_end  # text[:keep_end] ends with '{' / '[' or a complete member
        self.pointer = pointer
        self.members = 0
        self.key = ""  # objects: the key of the member being read, and where it starts
        self.key_start = keep_end
        # objects: "key_or_close" / "key" -> ":" -> "value" -> "," ; arrays: "value_or_close" /
        # "value" -> ","
        self.expect = "key_or_close" if closer == "}" else "value_or_close"

    def child(self) -> _Path:
        return _Path(self.pointer, self.key if self.closer == "}" else str(self.members))


class _Recovery:
    """One pass over the text with a stack of open containers (no recursion, any depth)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.errors: list[str] = []
        self.dropped: list[dict[str, Any]] = []
        self.stack: list[_Open] = []
        self.kept_members = 0
        self.top_start = -1
        self.top_end = -1  # end of a complete top-level value
        self.cut = len(text)
        self.fence = False

    def fail(self, at: int, what: str) -> None:
        self.errors.append(f"offset {at}: {what}")
        self.cut = at

    def drop(self, path: "_Path | str", kind: str, start: int, end: int) -> None:
        self.dropped.append({"path": str(path), "kind": kind, "text": self.text[start:end]})

    def completed(self, end: int) -> None:
        """A value ended at ``end``: a member of the open container, or the whole document."""
        if not self.stack:
            self.top_end = end
            return
        parent = self.stack[-1]
        parent.members += 1
        parent.keep_end = end
        parent.expect = ","
        self.kept_members += 1

    def run(self) -> None:
        text, n = self.text, len(self.text)
        pos = 0
        m = _FENCE.match(text)
        if m is not None:
            pos, self.fence = m.end(), True
        stack = self.stack
        while True:
            pos = _WS.match(text, pos).end()
            if not stack and self.top_end >= 0:  # a whole document was read
                rest = text[pos:]
                if rest and not (self.fence and rest.startswith("```") and not rest[3:].strip()):
                    self.drop("", "trailing", pos, n)
                    self.fail(pos, "text after the end of the JSON document")
                self.cut = self.top_end
                return
            if pos >= n:
                top = stack[-1] if stack else None
                if top is not None and top.closer == "}" and top.expect in (":", "value"):
                    self.drop(top.child(), "value", top.key_start, n)  # a key without its value
                self.cut = n
                return
            ch = text[pos]
            top = stack[-1] if stack else None
            state = top.expect if top is not None else "value"
            if top is not None and state in ("key_or_close", "value_or_close", ",") and ch == top.closer:
                stack.pop()
                pos += 1
                self.completed(pos)
                continue
            if top is not None and state in ("key_or_close", "key"):
                ms = _STRING.match(text, pos) if ch == '"' else None
                if ms is None:
                    if ch == '"' and _STRING_CUT.match(text, pos):
                        self.drop(f"{top.pointer}/", "key", pos, n)
                    else:
                        self.fail(pos, "expected an object key")
                    return
                top.key, top.key_start, top.expect = json.loads(ms.group()), pos, ":"
                pos = ms.end()
                continue
            if state == ":":
                if ch != ":":
                    self.drop(top.child(), "value", top.key_start, pos)
                    self.fail(pos, "expected ':'")
                    return
                pos += 1
                top.expect = "value"
                continue
            if state == ",":
                if ch != ",":
                    self.fail(pos, f"expected ',' or '{top.closer}'")
                    return
                pos += 1
                top.expect = "key" if top.closer == "}" else "value"
                continue
            # a value
            path = top.child() if top is not None else _ROOT
            start = top.key_start if top is not None and top.closer == "}" else pos
            if top is None:
                self.top_start = pos
            if ch == "{" or ch == "[":
                if len(stack) < _FAST_DEPTH:  # a complete container: read it in C in one step
                    end, members = _complete_container(text, pos)
                    if end > 0:
                        self.kept_members += members
                        pos = end
                        self.completed(end)
                        continue
                stack.append(_Open("}" if ch == "{" else "]", pos + 1, path))
                pos += 1
                continue
            end, kind, complete = _scalar(text, pos)
            if end < 0:
                if top is not None and top.closer == "}":
                    self.drop(path, "value", start, pos)
                self.fail(pos, "expected a JSON value")
                return
            if not complete:
                self.drop(path, kind, start, end)
                if end < n:  # malformed, not cut by the end of the text
                    self.fail(end, f"malformed {kind}")
                return
            pos = end
            self.completed(end)

    def result(self) -> tuple[str, bool, list[str], dict[str, Any]]:
        text, stack = self.text, self.stack
        if stack:
            out = text[self.top_start:stack[-1].keep_end] + "".join(o.closer for o in reversed(stack))
        elif self.top_end >= 0:
            out = text[self.top_start:self.top_end]
        else:
            out = "null"
        valid = bool(stack) or self.top_end >= 0
        meta: dict[str, Any] = {
            "complete": not stack and self.top_end >= 0 and not self.errors,
            "cut_offset": self.cut,
            "kept_chars": len(out) if valid else 0,
            "kept_members": self.kept_members,
            "closed": [str(o.pointer) for o in stack[:MAX_CLOSED_LISTED]],
            "closed_count": len(stack),
            "dropped": self.dropped,
            "fence": self.fence,
        }
        return out, valid, self.errors, meta


def recover_json(text: str) -> tuple[str, bool, list[str], dict[str, Any]]:
    """Recover a parser-safe JSON text from a (possibly cut or malformed) JSON prefix.

    Args:
        text: the delivered prefix (code points, as the stream delivered it).

    Returns:
        ``(recovered, valid, errors, metadata)``. ``recovered`` always parses with
        ``json.loads``; ``valid`` is False when nothing could be kept (``recovered`` is then
        ``"null"``). ``errors`` lists syntax errors, each with its code-point offset.
        ``metadata`` (JSON-safe): ``complete`` (the prefix was already a whole document),
        ``cut_offset`` (code-point offset where the kept text ends or the error occurred),
        ``kept_chars``, ``kept_members`` (complete members kept, at every level), ``closed``
        (JSON pointers of the containers that were closed, outermost first, at most
        :data:`MAX_CLOSED_LISTED`; ``""`` is the document), ``closed_count`` (all of them), ``dropped`` (``[{"path", "kind", "text"}]``: the member in progress at the
        cut with its partial text, key included; ``kind`` is ``string``, ``number``,
        ``literal``, ``key`` (a half-written key), ``value`` (a key whose value had not
        started) or ``trailing`` (text after a complete document)), ``fence`` (a leading code
        fence was skipped).

    Raises:
        InputTypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise InputTypeError(f"text must be a str, got {type(text).__name__}")
    r = _Recovery(text)
    r.run()
    return r.result()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # strict: no NaN, no control chars
# containers opened deeper than this are read member by member: a cut container is tried once per
# open level, so the C fast path costs O(depth * n) on the cut spine and is capped
_FAST_DEPTH = 48


def _complete_container(text: str, pos: int) -> tuple[int, int]:
    """``(end, members)`` when the container at ``pos`` is complete and valid (members counted at
    every level), else ``(-1, 0)``."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except (ValueError, RecursionError):
        return -1, 0
    members = 0
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            members += len(v)
            todo.extend(x for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            members += len(v)
            todo.extend(x for x in v if isinstance(x, (dict, list)))
    return end, members


def _scalar(text: str, pos: int) -> tuple[int, str, bool]:
    """``(end, kind, complete)`` of the scalar at ``pos``; ``end < 0`` when none starts there."""
    n = len(text)
    ch = text[pos]
    if ch == '"':
        m = _STRING.match(text, pos)
        if m is not None:
            return m.end(), "string", True
        if _STRING_CUT.match(text, pos):
            return n, "string", False
        return _STRING_BODY.match(text, pos).end(), "string", False  # breaks where it is malformed
    if ch == "-" or "0" <= ch <= "9":
        if _NUMBER_CUT.match(text, pos):
            return n, "number", False  # touches the end: may go on ("12" -> "125", "0." -> "0.5")
        m = _NUMBER.match(text, pos)
        if m is not None:
            # "12," is complete; "12x" or "01" is malformed
            return m.end(), "number", text[m.end()] in _DELIMS
        return pos + 1, "number", False
    for lit in _LITERALS:
        if text.startswith(lit, pos):
            return pos + len(lit), "literal", True
        if pos + len(lit) > n and lit.startswith(text[pos:]):
            return n, "literal", False
    return -1, "value", False


def recover_structured(kind: str, text: str, *, halted_at: int,
                       policy: str = "last_valid") -> StructuredRecoveryResult:
    """Build the :class:`StructuredRecoveryResult` of a halted structured stream.

    Args:
        kind: ``"json"`` (the only kind so far; :data:`STRUCTURED_KINDS`).
        text: the text delivered before the halt (``StreamSession.output``).
        halted_at: the stream's halt token index (>= 0).
        policy: recorded in the result; ``"last_valid"``.

    Returns:
        ``StructuredRecoveryResult(kind, policy, halted_at, last_valid_output, raw_partial=text,
        valid, errors, metadata)`` as described in :func:`recover_json`.

    Raises:
        ConfigError: an unknown ``kind`` (field ``structured``).
        InputTypeError: ``text`` is not a ``str``.
    """
    if kind not in STRUCTURED_KINDS:
        raise ConfigError(f"structured must be one of {STRUCTURED_KINDS} or None, got {kind!r}", field="structured")
    out, valid, errors, meta = recover_json(text)
    return StructuredRecoveryResult(kind=kind, policy=policy, halted_at=max(0, int(halted_at)),
                                    last_valid_output=out, raw_partial=text, valid=valid,
                                    errors=errors, metadata=meta)

"""Roles of a call's inputs: which text is the user's prompt, which is evidence, which is
instructions.

``review(prompt, response, *, context=None, system=None, messages=None)`` takes the inputs either
director-ai's way (``prompt`` = the user's message) or as an OpenAI-format chat (``messages``, a
list of ``{"role": ..., "content": ...}``; then ``prompt`` must be ``""``):

========================  =====================================================================
role / argument           used as
========================  =====================================================================
``user`` (last one)       the prompt: the question answered; a claim that contradicts its
                          declarative statements is reported in ``h_logical`` and lowers the
                          score unless the knowledge supports the claim (a correction of the
                          user); never a premise the response must be entailed by
``tool``                  evidence, like ``context``
``system``, ``developer`` instructions: never evidence, never a premise (a document pasted into
                          a system prompt counts only when it is also passed as ``context``)
``assistant``             earlier turns: not used by the single-response verdict
``context=``              evidence for this call (a str or a list of str)
``system=``               instructions (the same as a ``system`` message)
========================  =====================================================================

``content`` may be a str or a list of parts (``{"type": "text", "text": ...}``; other part types,
such as images, are skipped).

Thread safety: pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from director_fast.errors import ConfigError, InputTypeError

__all__ = ["CallRoles", "resolve_roles", "ROLES"]

#: roles a message may have.
ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


@dataclass(frozen=True, slots=True)
class CallRoles:
    """The inputs of one call, by role.

    Attributes:
        prompt: the user's message (``""`` when none).
        evidence: evidence texts passed with the call (``context`` first, then tool messages).
        system: instructions (system / developer content, joined by newlines).
        earlier_assistant: the assistant's earlier turns, oldest first.
    """

    prompt: str
    evidence: tuple[str, ...] = ()
    system: str = ""
    earlier_assistant: tuple[str, ...] = ()


def _content_text(content: Any, where: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return str.__str__(content)  # a str subclass (numpy.str_) as the equal plain str
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        parts = []
        for j, part in enumerate(content):
            if isinstance(part, str):
                parts.append(str.__str__(part))
            elif isinstance(part, Mapping):
                if part.get("type", "text") == "text":
                    text = part.get("text", "")
                    if not isinstance(text, str):
                        raise InputTypeError(f"{where}.content[{j}].text must be a str", f"{where}.content[{j}].text")
                    parts.append(str.__str__(text))
            else:
                raise InputTypeError(f"{where}.content[{j}] must be a str or a content part mapping",
                                     f"{where}.content[{j}]")
        return "\n".join(parts)
    raise InputTypeError(f"{where}.content must be a str or a list of content parts, got {type(content).__name__}",
                         f"{where}.content")


def _texts(value: Any, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (str.__str__(value),)
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            if not isinstance(v, str):
                raise InputTypeError(f"{name}[{i}] must be a str, got {type(v).__name__}", f"{name}[{i}]")
        return tuple(str.__str__(v) for v in value)  # str subclasses (numpy.str_) as plain str
    raise InputTypeError(f"{name} must be a str or a list of str, got {type(value).__name__}", name)


def resolve_roles(prompt: str, *, context: Any = None, system: Any = None,
                  messages: Any = None) -> CallRoles:
    """Sort a call's inputs by role (see the module docstring).

    Args:
        prompt: the user's message (must be ``""`` when ``messages`` is given).
        context: evidence: a str or a list of str.
        system: instructions: a str (or None).
        messages: OpenAI-format chat messages (a list of mappings with ``role`` and ``content``).

    Every text may be a ``str`` subclass (``numpy.str_``); the result holds the equal plain ``str``.

    Raises:
        ConfigError: ``messages`` together with a non-empty ``prompt`` (field ``messages``), an
            unknown role.
        InputTypeError: a value of the wrong type (the message index is named; ``.field`` is the
            argument, e.g. ``"context[1]"`` or ``"messages[0].content"``).
    """
    if not isinstance(prompt, str):
        raise InputTypeError(f"prompt must be a str, got {type(prompt).__name__}", "prompt")
    if system is not None and not isinstance(system, str):
        raise InputTypeError(f"system must be a str, got {type(system).__name__}", "system")
    prompt = str.__str__(prompt)  # str subclasses (numpy.str_) as the equal plain str
    if system is not None:
        system = str.__str__(system)
    evidence = list(_texts(context, "context"))
    system_parts = [system] if system else []
    if messages is None:
        return CallRoles(prompt=prompt, evidence=tuple(evidence), system="\n".join(system_parts))
    if prompt:
        raise ConfigError("pass the user's message either as prompt or in messages, not both "
                          "(prompt must be \"\" with messages)", "messages")
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise InputTypeError(f"messages must be a list of {{'role', 'content'}} mappings, got {type(messages).__name__}",
                             "messages")
    user = ""
    assistant: list[str] = []
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, Mapping):
            raise InputTypeError(f"{where} must be a mapping with 'role' and 'content', got {type(m).__name__}", where)
        role = m.get("role")
        if role not in ROLES:
            raise ConfigError(f"{where}.role must be one of {sorted(ROLES)}, got {role!r}", "messages")
        text = _content_text(m.get("content"), where)
        if role in ("system", "developer"):
            system_parts.append(text)
        elif role == "user":
            user = text
        elif role in ("tool", "function"):
            evidence.append(text)
        else:
            assistant.append(text)
    return CallRoles(prompt=user, evidence=tuple(evidence), system="\n".join(p for p in system_parts if p),
                     earlier_assistant=tuple(assistant))

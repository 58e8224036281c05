"""Exception hierarchy of director_fast.

Every error raised on purpose by the library derives from :class:`DirectorFastError`. Where a
built-in exception fits, the class also inherits it, so ``except ValueError`` keeps working:

================================  ==============================  =====================================
class                             also a                          raised when
================================  ==============================  =====================================
``ConfigError``                   ``ValueError``                  a configuration parameter is invalid
                                                                  (``.field`` names it)
``UnknownTenantError``            ``ValueError`` (a ConfigError)  a tenant the knowledge holds nothing
                                                                  for (``.tenant`` names it)
``ScoreError``                    ``ValueError``                  a coherence score is non-finite or
                                                                  outside [0, 1] (``.index`` = token)
``ValidationError``               ``ValueError``                  a value or payload is malformed
                                                                  (``.field`` names it where known)
``FormatError``                   ``ValueError``                  a persisted file is corrupt/foreign
``InputTypeError``                ``TypeError``                   an argument has the wrong type,
                                                                  dtype, shape or layout (``.field``
                                                                  names it where known)
``RetrievalError``                --  (``RetrievalOSError``, an   a knowledge retriever raised
                                  ``OSError``, when the           (``__cause__`` is its exception)
                                  retriever raised one)
``DirectorIndexError``            ``IndexError``                  an index is out of range
``DirectorKeyError``              ``KeyError``                    an id or key is unknown
``StorageError``                  ``OSError``                     an I/O operation failed
``StreamHalted``                  --                              ``stream_guard(raise_on_halt=True)``
                                                                  halted; ``.session`` holds the record
``UpstreamError``                 --                              a model stream reported a failure or
                                                                  ended early (``.kind``, ``.code``)
``HallucinationError``            --                              ``guard(client, on_fail="raise")``
                                                                  rejected a response or tool call
``MissingDependencyError``        ``ImportError``                 an optional dependency is not
                                                                  installed (``.extra`` names the
                                                                  pip extra that brings it)
================================  ==============================  =====================================

The C++ core raises these through the extension's exception translator; bad input never surfaces
as a bare ``RuntimeError`` or a crash.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DirectorFastError",
    "ConfigError",
    "UnknownTenantError",
    "ScoreError",
    "ValidationError",
    "FormatError",
    "InputTypeError",
    "DirectorIndexError",
    "DirectorKeyError",
    "StorageError",
    "StreamHalted",
    "UpstreamError",
    "FieldTypeError",
    "RetrievalError",
    "RetrievalOSError",
    "HallucinationError",
    "MissingDependencyError",
]


class DirectorFastError(Exception):
    """Base class of every error director_fast raises on purpose."""


class ConfigError(DirectorFastError, ValueError):
    """An invalid configuration parameter. ``field`` names it (may be ``None``)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class UnknownTenantError(ConfigError):
    """The knowledge holds nothing for this tenant (ids are compared exactly: ``"Acme"`` is not
    ``"acme"``). ``tenant`` is the id; ``field`` is ``"tenant_id"``. Raised instead of judging
    without evidence; pass ``allow_unknown_tenant=True`` to the scorer to judge anyway (every
    claim is then ``not_found``)."""

    def __init__(self, tenant: str) -> None:
        super().__init__(
            f"unknown tenant {tenant!r}: the knowledge base holds no evidence for it (tenant ids "
            "are exact and case-sensitive; pass allow_unknown_tenant=True to judge without evidence)",
            "tenant_id")
        self.tenant = tenant


class ScoreError(DirectorFastError, ValueError):
    """A coherence score that is non-finite or outside [0, 1]. ``index`` is the token index."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class ValidationError(DirectorFastError, ValueError):
    """A malformed value or payload (also used by the safety-event validators). ``field`` names
    the value (``"response"``, ``"context[2]"``, ...) where the raising code knows it, else
    ``None``."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class FormatError(DirectorFastError, ValueError):
    """A persisted file is corrupt, truncated, foreign or of an unknown format version."""


class InputTypeError(DirectorFastError, TypeError):
    """An argument of the wrong type, dtype, shape or memory layout. ``field`` names the argument
    (``"prompt"``, ``"messages[1]"``, ...) where the raising code knows it, else ``None``."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class DirectorIndexError(DirectorFastError, IndexError):
    """An index out of range."""


class DirectorKeyError(DirectorFastError, KeyError):
    """An unknown id or key."""


class StorageError(DirectorFastError, OSError):
    """An I/O failure while reading or writing persisted state."""


class StreamHalted(DirectorFastError):
    """Raised by ``stream_guard(..., raise_on_halt=True)`` when the kernel halts the stream.

    Attributes:
        session: the :class:`~director_fast.stream.kernel.StreamSession` with the full record.
    """

    def __init__(self, message: str, session: Any = None) -> None:
        super().__init__(message)
        self.session = session


class UpstreamError(DirectorFastError):
    """The model's stream reported a failure or ended before its final event, so the text it
    delivered is not a complete answer. Raised by the stream adapters
    (:mod:`director_fast.stream.adapters`); a guard reading such an adapter records the halt as
    ``upstream_error`` instead of raising.

    Attributes:
        kind: ``"error_event"`` (an ``error`` event in the stream), ``"finish_reason"`` (a
            finish / stop reason configured to halt, e.g. ``length``), ``"failed"`` /
            ``"incomplete"`` (Responses API), ``"truncated"`` (the stream ended without its final
            chunk or event), ``"idle_timeout"`` / ``"deadline"`` (the guard's own limits on the
            upstream, ``provider="guard"``).
        code: the provider's short code (``"length"``, ``"overloaded_error"``,
            ``"max_output_tokens"``; ``""`` when none), restricted to ``[A-Za-z0-9_.:-]``.
        provider: ``"openai"``, ``"openai.responses"``, ``"anthropic"`` or ``"guard"``.
    """

    def __init__(self, message: str, *, kind: str, code: str = "", provider: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.provider = provider


class FieldTypeError(ValidationError, InputTypeError):
    """A field or payload member of the wrong type.

    Both a :class:`ValidationError` (hence ``ValueError``) and an :class:`InputTypeError` (hence
    ``TypeError``): validators promise to raise only ``ValueError`` subclasses, constructors
    conventionally raise ``TypeError``.
    """


class RetrievalError(DirectorFastError):
    """The scorer's knowledge retriever (an object with ``retrieve(query, k=..., tenant=...)``)
    raised an exception; it is ``__cause__``. ``retriever`` is the retriever's type name.

    When the retriever raised an ``OSError`` (``TimeoutError``, ``ConnectionError``, ...) the
    error is a :class:`RetrievalOSError`, a subclass that is also an ``OSError``, so ``except
    OSError`` and the streaming guard's ``callback_timeout`` halt keep treating it as an I/O
    failure; any other exception gives a plain ``RetrievalError`` (``scorer_error`` in the
    streaming guard).
    """

    def __init__(self, message: str, retriever: str = "") -> None:
        super().__init__(message)
        self.retriever = retriever

    @classmethod
    def wrap(cls, exc: BaseException, retriever: Any, call: str) -> "RetrievalError":
        """The error to raise ``from exc`` for ``exc`` raised by ``retriever.<call>(...)``."""
        name = type(retriever).__name__
        kind = RetrievalOSError if isinstance(exc, OSError) else cls
        return kind(f"the knowledge retriever {name}.{call}(...) failed: {type(exc).__name__}: {exc}", name)


class RetrievalOSError(RetrievalError, OSError):
    """A :class:`RetrievalError` whose cause is an ``OSError`` (see there); catch it as either."""


class HallucinationError(DirectorFastError):
    """A guarded client's response (or one of its tool calls) was rejected
    (``director_fast.guard(client, on_fail="raise")``, director-ai's name).

    Attributes:
        score: the :class:`~director_fast.types.results.CoherenceScore` of the response text, or
            ``None`` when only a tool call was rejected.
        response: the SDK's response object that was rejected.
        tool_reports: ``{tool name: ConfidenceReport}`` for the response's tool calls.
        explanation: the :class:`~director_fast.types.explanation.Explanation` of the verdict
            (failing claims with verdict, signal, deciding evidence sentence and source, cause and
            suggestion), or ``None`` when only a tool call was rejected. The message is built
            from it (``director_fast.verify.explain.rejection_error``).
    """

    def __init__(self, message: str, score: Any = None, response: Any = None,
                 tool_reports: dict[str, Any] | None = None, explanation: Any = None) -> None:
        super().__init__(message)
        self.score = score
        self.response = response
        self.tool_reports = dict(tool_reports or {})
        self.explanation = explanation


class MissingDependencyError(DirectorFastError, ImportError):
    """An optional dependency is not installed; ``.extra`` names the pip extra that installs it
    (``pip install "director-fast[EXTRA]"``)."""

    def __init__(self, message: str, *, extra: str = "") -> None:
        super().__init__(message)
        self.extra = extra

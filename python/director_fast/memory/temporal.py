"""Temporal consistency graph: catch a system contradicting itself across sessions and documents.

A claim is a structured assertion ``(subject, predicate, value, polarity)`` made at a point in time,
in a session, from a document, for a tenant. Two claims contradict each other when, within one
``(tenant_id, subject, predicate)`` group,

* ``polarity``: they have the same value and opposite polarities ("patient has diabetes" /
  "patient does not have diabetes"), or
* ``functional_value``: the predicate is declared single-valued (``functional_predicates``), both
  claims are assertions (``polarity=True``) with non-empty values, and the values differ.

API-compatible with ``director_ai.core.temporal_consistency``. The anchor compares each
new claim with its whole subject/predicate group (cost linear in the group size); here a C++ hash
index on ``(tenant, subject, predicate) -> value -> polarity`` finds the conflicting claims
directly, so :meth:`TemporalConsistencyGraph.record` costs O(1 + k log k) for k contradictions
found. See ``docs/temporal.md`` for semantics and the deliberate differences from the anchor.

Normalisation (applied to ``subject``, ``predicate`` and ``value`` when a claim is built):
Unicode NFC, then surrounding whitespace stripped (``str.strip()``). Comparison is
case-sensitive unless the graph is built with ``case_sensitive=False``, in which case the
comparison keys are additionally case-folded (``str.casefold()``, then NFC again); the claims keep
their spelling.
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from director_fast import _core
from director_fast._validate import check_text
from director_fast.errors import ConfigError, InputTypeError, ValidationError

__all__ = [
    "POLARITY",
    "FUNCTIONAL_VALUE",
    "TemporalClaim",
    "TemporalContradiction",
    "TemporalConsistencyGraph",
    "TemporalLogSalvage",
    "validate_tenant_id",
]

POLARITY = "polarity"
FUNCTIONAL_VALUE = "functional_value"
_KINDS = {1: POLARITY, 2: FUNCTIONAL_VALUE}

_TENANT_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
_TENANT_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"
_FIELDS = (
    "subject",
    "predicate",
    "timestamp",
    "value",
    "polarity",
    "tenant_id",
    "session_id",
    "document_id",
    "source_text",
    "claim_id",
)


def _normalize(text: str) -> str:
    """NFC, then strip surrounding whitespace (the display form of subject/predicate/value)."""
    return unicodedata.normalize("NFC", text).strip()


def _fold(text: str) -> str:
    """Comparison key of an already normalised string in case-insensitive mode."""
    return unicodedata.normalize("NFC", text.casefold())


def _check_tenant(tenant_id: Any, field: str = "tenant_id") -> str:
    if not isinstance(tenant_id, str):
        raise InputTypeError(f"{field} must be str, got {type(tenant_id).__name__}")
    if tenant_id and _TENANT_RE.fullmatch(tenant_id) is None:
        raise ValidationError(
            f"{field} {tenant_id!r} is invalid: it must match {_TENANT_PATTERN} "
            "(empty = default tenant)"
        )
    return tenant_id


def validate_tenant_id(tenant_id: Any) -> str:
    """``tenant_id`` when it is a valid tenant id of the graph: ``""`` (the default tenant) or a
    str matching ``^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$``.

    Raises:
        InputTypeError: not a str. ValidationError: a malformed id.
    """
    return _check_tenant(tenant_id)


def _check_path(path: Any, field: str) -> str:
    """A log path as a non-empty str without NUL (``open()`` refuses NUL too)."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise ConfigError(f"{field} must be a str or os.PathLike", field=field) from None
    if not isinstance(path, str) or not path:
        raise ConfigError(f"{field} must be a non-empty str path", field=field)
    if "\x00" in path:
        raise ConfigError(f"{field} must not contain a NUL character", field=field)
    return path


def _check_str(name: str, value: Any) -> str:
    return check_text(value, name)


@dataclass(frozen=True, slots=True)
class TemporalClaim:
    """One structured claim asserted at a point in time (immutable, hashable).

    Args:
        subject: what the claim is about (e.g. ``"patient:123"``); non-empty after normalisation.
        predicate: the relation (e.g. ``"has_condition"``); non-empty after normalisation.
        timestamp: when the claim was made, any finite number (seconds since the epoch by
            convention; only the order matters). Stored as ``float``.
        value: the object of the relation (e.g. ``"diabetes"``); may be empty.
        polarity: ``True`` for an assertion, ``False`` for a negation.
        tenant_id: ``""`` (default tenant) or a string matching
            ``^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$``; claims of different tenants never interact.
        session_id, document_id, claim_id: provenance, free text, not compared.
        source_text: the raw phrasing; left out of :meth:`to_dict` unless ``include_text``.

    ``subject``, ``predicate`` and ``value`` are stored normalised (Unicode NFC, surrounding
    whitespace removed). Field order and defaults follow director-ai (``timestamp`` is the third
    positional field).

    Raises:
        InputTypeError: a field has the wrong type (strings must be ``str``, ``polarity`` a
            ``bool``, ``timestamp`` an ``int`` or ``float``).
        ValidationError: empty subject/predicate, non-finite timestamp, malformed tenant id.

    Thread-safety: immutable, safe to share.
    """

    subject: str
    predicate: str
    timestamp: float
    value: str = ""
    polarity: bool = True
    tenant_id: str = ""
    session_id: str = ""
    document_id: str = ""
    source_text: str = ""
    claim_id: str = ""

    def __post_init__(self) -> None:
        setter = object.__setattr__
        for name in ("subject", "predicate"):
            text = _normalize(_check_str(name, getattr(self, name)))
            if not text:
                raise ValidationError(f"{name} must be a non-empty string (after stripping whitespace)")
            setter(self, name, text)
        setter(self, "value", _normalize(_check_str("value", self.value)))
        for name in ("session_id", "document_id", "source_text", "claim_id"):
            _check_str(name, getattr(self, name))
        _check_tenant(self.tenant_id)
        pol = self.polarity
        if type(pol) is not bool:
            if isinstance(pol, np.bool_):
                setter(self, "polarity", bool(pol))
            else:
                raise InputTypeError(f"polarity must be bool, got {type(pol).__name__}")
        ts = self.timestamp
        if isinstance(ts, bool) or not isinstance(ts, (int, float, np.integer, np.floating)):
            raise InputTypeError(f"timestamp must be a finite number, got {type(ts).__name__}")
        try:
            ts = float(ts)
        except OverflowError:
            raise ValidationError(f"timestamp must be finite, got {self.timestamp!r}") from None
        if not math.isfinite(ts):
            raise ValidationError(f"timestamp must be finite, got {ts!r}")
        setter(self, "timestamp", ts)

    @property
    def key(self) -> tuple[str, str, str]:
        """The ``(tenant_id, subject, predicate)`` grouping key (display form)."""
        return (self.tenant_id, self.subject, self.predicate)

    def to_dict(self, *, include_text: bool = False) -> dict[str, Any]:
        """Tenant-safe dict of the claim; ``source_text`` only when ``include_text=True``."""
        out: dict[str, Any] = {
            "subject": self.subject,
            "predicate": self.predicate,
            "value": self.value,
            "polarity": self.polarity,
            "timestamp": self.timestamp,
            "tenant_id": self.tenant_id,
            "session_id": self.session_id,
            "document_id": self.document_id,
            "claim_id": self.claim_id,
        }
        if include_text:
            out["source_text"] = self.source_text
        return out


def _claim_from_tuple(t: tuple) -> TemporalClaim:
    """Build a claim from the index's already-validated fields without re-validating."""
    obj = object.__new__(TemporalClaim)
    setter = object.__setattr__
    for name, value in zip(_FIELDS, t):
        setter(obj, name, value)
    return obj


@dataclass(frozen=True, slots=True)
class TemporalContradiction:
    """Two claims of one ``(tenant, subject, predicate)`` group that contradict each other.

    Attributes:
        subject, predicate: as spelled by the later-recorded claim (both claims share the
            comparison keys, so this matters only with ``case_sensitive=False``).
        kind: ``"polarity"`` or ``"functional_value"``.
        earlier: the claim with the smaller timestamp (ties: the one recorded first).
        later: the other claim.

    Thread-safety: immutable, safe to share.
    """

    subject: str
    predicate: str
    kind: str
    earlier: TemporalClaim
    later: TemporalClaim

    def to_dict(self, *, include_text: bool = False) -> dict[str, Any]:
        """Tenant-safe dict; the claims' ``source_text`` only when ``include_text=True``."""
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            "kind": self.kind,
            "earlier": self.earlier.to_dict(include_text=include_text),
            "later": self.later.to_dict(include_text=include_text),
        }


def _contradiction(
    kind: int, earlier: TemporalClaim, later: TemporalClaim, newest: TemporalClaim
) -> TemporalContradiction:
    """``newest`` is the later-recorded claim (the one whose record() found the conflict)."""
    obj = object.__new__(TemporalContradiction)
    setter = object.__setattr__
    setter(obj, "subject", newest.subject)
    setter(obj, "predicate", newest.predicate)
    setter(obj, "kind", _KINDS[kind])
    setter(obj, "earlier", earlier)
    setter(obj, "later", later)
    return obj


def _from_conflict(kind: int, e: tuple, l: tuple) -> TemporalContradiction:  # noqa: E741
    earlier, later = _claim_from_tuple(e), _claim_from_tuple(l)
    return _contradiction(kind, earlier, later, earlier if e[10] > l[10] else later)


def _functional_set(functional_predicates: Any) -> set[str]:
    """Normalised, non-empty functional predicates (ConfigError naming the field otherwise)."""
    if isinstance(functional_predicates, str):
        raise ConfigError(
            "functional_predicates must be an iterable of str, not a single str",
            field="functional_predicates",
        )
    funcs: set[str] = set()
    try:
        items = list(functional_predicates)
    except TypeError:
        raise ConfigError(
            "functional_predicates must be an iterable of str", field="functional_predicates"
        ) from None
    for p in items:
        if not isinstance(p, str):
            raise ConfigError(
                f"functional_predicates must contain str, got {type(p).__name__}",
                field="functional_predicates",
            )
        p = _normalize(p)
        if p:
            funcs.add(p)
    return funcs


def _str_column(name: str, value: Any, n: int, *, allow_scalar: bool = True) -> Any:
    """Pass lists/tuples through; convert other iterables (numpy str arrays) to lists."""
    if isinstance(value, (list, tuple)) or (allow_scalar and isinstance(value, str)):
        return value
    if isinstance(value, np.ndarray) and value.dtype.kind in "UO":
        return value.tolist()
    raise InputTypeError(
        f"{name} must be a list or tuple of str{' (or one str)' if allow_scalar else ''}, "
        f"got {type(value).__name__}"
    )


@dataclass(frozen=True, slots=True)
class TemporalLogSalvage:
    """What :meth:`TemporalConsistencyGraph.salvage` copied and skipped.

    Attributes:
        path, out_path: the damaged log (left unchanged) and the new log.
        header_intact: the source header was well-formed with a matching CRC (else the new header
            was built from the ``case_sensitive`` / ``functional_predicates`` passed in).
        records_copied: records written to ``out_path`` (duplicates included; an identical claim
            replays as one).
        source_bytes, bytes_written: sizes of the two files in bytes.
        skipped: ``((start, end, reason), ...)``: byte ranges ``[start, end)`` of the source that
            were not copied, with the reason the first frame of each range was rejected.

    Thread-safety: immutable, safe to share.
    """

    path: str
    out_path: str
    header_intact: bool
    records_copied: int
    source_bytes: int
    bytes_written: int
    skipped: tuple[tuple[int, int, str], ...]

    @property
    def bytes_skipped(self) -> int:
        """Total size of the skipped ranges."""
        return sum(end - start for start, end, _ in self.skipped)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``skipped`` as a list of ``{"start", "end", "reason"}``)."""
        return {
            "path": self.path,
            "out_path": self.out_path,
            "header_intact": self.header_intact,
            "records_copied": self.records_copied,
            "source_bytes": self.source_bytes,
            "bytes_written": self.bytes_written,
            "bytes_skipped": self.bytes_skipped,
            "skipped": [{"start": a, "end": b, "reason": r} for a, b, r in self.skipped],
        }


class TemporalConsistencyGraph:
    """Records structured claims over time and reports temporal contradictions.

    Args:
        functional_predicates: predicates that hold at most one value per subject (e.g.
            ``{"diagnosis"}``); normalised like predicates. Two assertions of such a predicate with
            different non-empty values contradict (``"functional_value"``). A negation never
            conflicts with a different value: "not healthy" is compatible with "diabetes".
        case_sensitive: compare subjects, predicates and values exactly after normalisation
            (default), or case-folded when ``False``.
        path: ``None`` (in memory, the default) or a file for an append-only log. An existing log
            is replayed on open (its ``functional_predicates`` and ``case_sensitive`` must match,
            else :class:`~director_fast.errors.ConfigError`). Only a torn tail -- an incomplete
            last record or header left by a crash mid-write, or a zero-filled end -- is dropped
            (the file is truncated and ``recovered_bytes`` in :meth:`stats` counts it). Any other
            damage (a bad CRC, a corrupt length or count, a malformed record) raises
            :class:`~director_fast.errors.FormatError` and leaves the file untouched; use
            :meth:`salvage` to copy its valid records into a new log. Every
            :meth:`record` is written (``write(2)``) before it returns, so it survives a crash of
            the process; with ``fsync=True`` also a power loss. One graph per file at a time
            (an advisory lock ``<path>.lock`` is held until :meth:`close`).
        fsync: ``fdatasync`` after every write (slower; default ``False``).

    Recording order matters only for ties: a contradiction's ``earlier`` claim is the one with the
    smaller timestamp, and of two equal timestamps the one recorded first. Re-recording an
    identical claim (every field equal) is a no-op that returns ``()``.

    Raises:
        ConfigError: bad option, or a log written with other options.
        FormatError: ``path`` is not a temporal log, or is corrupt beyond a torn tail.
        StorageError: the log cannot be opened, locked, read or written.

    Thread-safety: all methods may be called concurrently from several threads; the C++ index
    serialises them with a mutex, nothing is lost and every contradiction is reported exactly
    once (by the call that recorded its later-recorded claim). :meth:`record_batch`,
    :meth:`history` and :meth:`contradictions` release the GIL while they run in C++.
    """

    def __init__(
        self,
        functional_predicates: Iterable[str] = (),
        *,
        case_sensitive: bool = True,
        path: str | None = None,
        fsync: bool = False,
    ) -> None:
        if not isinstance(case_sensitive, bool):
            raise ConfigError("case_sensitive must be bool", field="case_sensitive")
        if not isinstance(fsync, bool):
            raise ConfigError("fsync must be bool", field="fsync")
        funcs = _functional_set(functional_predicates)
        self._functional = frozenset(funcs)
        self._case_sensitive = case_sensitive
        keys = sorted({_fold(p) for p in funcs} if not case_sensitive else funcs)
        if path is not None:
            path = _check_path(path, "path")
        self._path = path
        self._index = _core.TemporalIndex(keys, case_sensitive, path, fsync)
        self._record_claim = self._index.record_claim

    # ---- recovery -------------------------------------------------------------------------------
    @staticmethod
    def salvage(
        path: str | os.PathLike[str],
        out_path: str | os.PathLike[str],
        *,
        case_sensitive: bool | None = None,
        functional_predicates: Iterable[str] | None = None,
    ) -> TemporalLogSalvage:
        """Copy every valid record of a damaged log at ``path`` into a new log at ``out_path``.

        The source is only read (never changed); ``out_path`` must not exist. Records are copied
        in file order; damaged byte ranges are skipped, the scan resuming at the next frame whose
        length, CRC and fields are all valid. Open the result with the options the source was
        written with. Cost: O(file size) for sparse damage; a file that is mostly damage costs
        up to O(file size x record size).

        Args:
            path: the damaged log. Its lock (``<path>.lock``) is taken while it is read, so a log
                that a graph holds open is refused.
            out_path: the new log (created; never overwritten).
            case_sensitive, functional_predicates: the graph options; needed only when the
                source header itself is damaged (both then required), otherwise taken from the
                header and, if given, checked against it.

        Returns:
            A :class:`TemporalLogSalvage` report.

        Raises:
            ConfigError: a bad path (empty, NUL), only one of ``case_sensitive`` /
                ``functional_predicates`` given, or values that contradict an intact header.
            FormatError: the header is damaged and the options were not given.
            StorageError: ``out_path`` exists, the source is locked, or an I/O failure.
        """
        src = _check_path(path, "path")
        dst = _check_path(out_path, "out_path")
        if (case_sensitive is None) != (functional_predicates is None):
            raise ConfigError(
                "pass both case_sensitive and functional_predicates, or neither",
                field="case_sensitive" if case_sensitive is None else "functional_predicates",
            )
        keys: list[str] = []
        if case_sensitive is not None:
            if not isinstance(case_sensitive, bool):
                raise ConfigError("case_sensitive must be bool", field="case_sensitive")
            funcs = _functional_set(functional_predicates)
            keys = sorted({_fold(p) for p in funcs} if not case_sensitive else funcs)
        r = _core.salvage_temporal_log(src, dst, case_sensitive, keys)
        return TemporalLogSalvage(
            path=src,
            out_path=dst,
            header_intact=bool(r["header_intact"]),
            records_copied=int(r["records_copied"]),
            source_bytes=int(r["source_bytes"]),
            bytes_written=int(r["bytes_written"]),
            skipped=tuple((int(a), int(b), str(w)) for a, b, w in r["skipped"]),
        )

    # ---- properties -----------------------------------------------------------------------------
    @property
    def functional_predicates(self) -> frozenset[str]:
        """Predicates treated as single-valued (normalised)."""
        return self._functional

    @property
    def case_sensitive(self) -> bool:
        """Whether subjects, predicates and values are compared case-sensitively."""
        return self._case_sensitive

    @property
    def path(self) -> str | None:
        """The log file, or ``None`` for an in-memory graph."""
        return self._path

    # ---- recording ------------------------------------------------------------------------------
    def record(self, claim: TemporalClaim) -> tuple[TemporalContradiction, ...]:
        """Add ``claim`` and return every contradiction it introduces.

        One contradiction per conflicting earlier-recorded claim of the same
        ``(tenant_id, subject, predicate)`` group, in the order those claims were recorded; in
        each, ``earlier``/``later`` are ordered by timestamp (ties: recording order), so a claim
        that arrives late with an older timestamp is the ``earlier`` side. The contradictions are
        retained for :meth:`contradictions` and :meth:`report`.

        Cost: O(1 + k log k) for k contradictions (hash lookups), independent of the group size.

        Returns:
            A tuple of :class:`TemporalContradiction` (``()`` when none, or when an identical
            claim was already recorded).

        Raises:
            InputTypeError: ``claim`` is not a :class:`TemporalClaim`.
            StorageError: the log write failed (nothing was recorded).
        """
        if type(claim) is not TemporalClaim and not isinstance(claim, TemporalClaim):
            raise InputTypeError(f"claim must be a TemporalClaim, got {type(claim).__name__}")
        if self._case_sensitive:
            conflicts = self._record_claim(claim)
            if conflicts is None:
                return ()
        else:
            s, p, v = claim.subject, claim.predicate, claim.value
            _recorded, conflicts = self._index.record(
                claim.tenant_id, s, p, v, claim.polarity, claim.timestamp, claim.session_id,
                claim.document_id, claim.source_text, claim.claim_id, _fold(s), _fold(p), _fold(v),
            )  # fmt: skip
        if not conflicts:
            return ()
        out = []
        for kind, e, l in conflicts:
            # The new claim is the later-recorded one (larger seq); reuse the caller's object.
            if e[10] > l[10]:
                earlier, later = claim, _claim_from_tuple(l)
            else:
                earlier, later = _claim_from_tuple(e), claim
            out.append(_contradiction(kind, earlier, later, claim))
        return tuple(out)

    def record_batch(
        self,
        subjects: Sequence[str],
        predicates: Sequence[str],
        values: Sequence[str] | str,
        timestamps: np.ndarray,
        polarities: np.ndarray | None = None,
        *,
        tenant_ids: Sequence[str] | str = "",
        session_ids: Sequence[str] | str = "",
        document_ids: Sequence[str] | str = "",
        source_texts: Sequence[str] | str = "",
        claim_ids: Sequence[str] | str = "",
    ) -> tuple[TemporalContradiction, ...]:
        """Record n claims given column by column; same result as n :meth:`record` calls in order.

        Args:
            subjects, predicates: lists (or tuples) of n ``str``.
            values: n ``str``, or one ``str`` for every claim.
            timestamps: ``numpy.ndarray``, shape (n,), dtype float64, C-contiguous, finite.
            polarities: ``numpy.ndarray``, shape (n,), dtype bool; ``None`` = all assertions.
            tenant_ids, session_ids, document_ids, source_texts, claim_ids: n ``str`` each, or
                one ``str`` for every claim.

        Every row is validated before anything is recorded (an invalid row changes nothing).
        Strings are normalised as in :class:`TemporalClaim`. On a durable graph the batch is
        written with few large writes; a crash mid-batch keeps a prefix of it.

        Returns:
            The contradictions introduced, grouped by the row that introduced them, in row order.

        Raises:
            InputTypeError: wrong container type, dtype, shape or contiguity.
            ValidationError: length mismatch, empty subject/predicate, non-finite timestamp or
                malformed tenant id (the message names the row).
            StorageError: the log write failed; the graph then refuses further writes until it is
                reopened (part of the batch may be in memory but not on disk).
        """
        subjects = _str_column("subjects", subjects, 0, allow_scalar=False)
        n = len(subjects)
        predicates = _str_column("predicates", predicates, n, allow_scalar=False)
        values = _str_column("values", values, n)
        cols = [
            _str_column(name, col, n)
            for name, col in (
                ("tenant_ids", tenant_ids),
                ("session_ids", session_ids),
                ("document_ids", document_ids),
                ("source_texts", source_texts),
                ("claim_ids", claim_ids),
            )
        ]
        sk = pk = vk = None
        if not self._case_sensitive:
            try:
                sk = [_fold(_normalize(x)) for x in subjects]
                pk = [_fold(_normalize(x)) for x in predicates]
                vk = _fold(_normalize(values)) if isinstance(values, str) else [_fold(_normalize(x)) for x in values]
            except TypeError:
                raise InputTypeError("subjects, predicates and values must contain only str") from None
        _n, conflicts = self._index.record_batch(
            cols[0], subjects, predicates, values, polarities, timestamps, cols[1], cols[2],
            cols[3], cols[4], sk, pk, vk, _normalize,
        )  # fmt: skip
        return tuple(_from_conflict(kind, e, l) for kind, e, l in conflicts)

    # ---- queries --------------------------------------------------------------------------------
    def _keys(self, subject: Any, predicate: Any) -> tuple[str, str]:
        s = _normalize(_check_str("subject", subject))
        p = _normalize(_check_str("predicate", predicate))
        if not self._case_sensitive:
            s, p = _fold(s), _fold(p)
        return s, p

    def history(self, subject: str, predicate: str, *, tenant_id: str = "") -> tuple[TemporalClaim, ...]:
        """Claims of one ``(tenant_id, subject, predicate)`` group, oldest first.

        Ordered by timestamp, ties by recording order. ``subject``/``predicate`` are normalised
        like claims. Returns ``()`` for an unknown group.

        Raises:
            InputTypeError / ValidationError: wrong types or a malformed ``tenant_id``.
        """
        tid = _check_tenant(tenant_id)
        s, p = self._keys(subject, predicate)
        return tuple(_claim_from_tuple(t) for t in self._index.history(tid, s, p))

    def contradictions(self, *, tenant_id: str | None = None) -> tuple[TemporalContradiction, ...]:
        """Retained contradictions in recording order; ``tenant_id=None`` means every tenant."""
        if tenant_id is not None:
            _check_tenant(tenant_id)
        return tuple(_from_conflict(kind, e, l) for kind, e, l in self._index.contradictions(tenant_id))

    def subjects(self, *, tenant_id: str = "") -> tuple[str, ...]:
        """Distinct subjects of a tenant, sorted (first-recorded spelling per comparison key)."""
        return tuple(self._index.subjects(_check_tenant(tenant_id)))

    def claim_count(self, *, tenant_id: str | None = None) -> int:
        """Number of recorded claims, of one tenant or (``None``) of all."""
        if tenant_id is not None:
            _check_tenant(tenant_id)
        return int(self._index.claim_count(tenant_id))

    def contradiction_count(self, *, tenant_id: str | None = None) -> int:
        """Number of retained contradictions, of one tenant or (``None``) of all."""
        if tenant_id is not None:
            _check_tenant(tenant_id)
        return int(self._index.contradiction_count(tenant_id))

    def tenants(self) -> tuple[str, ...]:
        """Tenant ids that hold at least one claim, sorted (``""`` is the default tenant)."""
        return tuple(self._index.tenants())

    def report(self, *, tenant_id: str = "", include_text: bool = False) -> dict[str, Any]:
        """Tenant-safe summary of one tenant.

        Returns:
            ``{"tenant_id", "subjects" (sorted list), "claim_count", "contradiction_count",
            "contradictions" (list of dicts, see :meth:`TemporalContradiction.to_dict`),
            "consistent" (no contradictions)}``. No ``source_text`` unless ``include_text``.
        """
        tid = _check_tenant(tenant_id)
        conflicts = self.contradictions(tenant_id=tid)
        return {
            "tenant_id": tid,
            "subjects": list(self.subjects(tenant_id=tid)),
            "claim_count": self.claim_count(tenant_id=tid),
            "contradiction_count": len(conflicts),
            "contradictions": [c.to_dict(include_text=include_text) for c in conflicts],
            "consistent": not conflicts,
        }

    def delete_tenant(self, tenant_id: str) -> int:
        """Remove every claim and contradiction of ``tenant_id`` (right to delete).

        The tenant's strings are freed in memory; on a durable graph the log is rewritten without
        them (temporary file, fsync, atomic rename) before this returns. Returns the number of
        claims removed (0 for an unknown tenant).
        """
        return int(self._index.delete_tenant(_check_tenant(tenant_id)))

    def stats(self) -> dict[str, int]:
        """Counters: ``claims``, ``contradictions``, ``tenants``, ``groups``, ``memory_bytes``
        (estimate of the C++ index's heap bytes), ``log_bytes``, ``recovered_bytes`` (torn tail
        dropped at open), ``replayed_claims``."""
        return dict(self._index.stats())

    def close(self) -> None:
        """Close the log (flushing it) and release its lock; later writes raise StorageError."""
        self._index.close()

    def __enter__(self) -> TemporalConsistencyGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return self.claim_count()

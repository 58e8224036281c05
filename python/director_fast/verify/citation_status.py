"""Citation status feed: what an external status (a retraction, a newer edition) does to evidence.

A :class:`~director_fast.verify.knowledge.KnowledgeBase` keeps one :class:`SourceStatusFeed`; statuses are
set per source label and tenant with ``kb.set_source_status(source, status, as_of=..., tenant=...)``
and take effect at ``as_of`` (read from the feed's clock, injectable for tests). The scorer applies
the status in effect when it judges:

============  ====================  ========  ==============================================
status        supports a claim?     risk      effect on a claim it would support
============  ====================  ========  ==============================================
current       yes                   0.0       none
superseded    yes, with a warning   0.5       the claim scores in the warning band
                                              [threshold, soft_limit): approved, ``warning``
expired       yes, with a warning   0.5       same as superseded
retracted     never                 1.0       the source's sentences are not evidence at all
                                              (neither support nor contradict); a claim only
                                              they supported becomes ``not_found``
============  ====================  ========  ==============================================

Each source with a status in effect that was retrieved for a claim is reported in
``ScoringEvidence.citation_status`` as a :class:`CitationStatusVerdict` (``source_id``, ``status``,
``risk``, ``reason``, ``status_source``, ``as_of``). A source without a status record is current
and not reported.

Thread-safety: :class:`SourceStatusFeed` may be used from many threads (writes are serialised by a
lock, reads see each write completely or not at all); :class:`StatusView` is immutable.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from director_fast.types.verification import CitationStatusVerdict
from director_fast.errors import ConfigError, InputTypeError, ValidationError

__all__ = ["SOURCE_STATUSES", "STATUS_EFFECTS", "StatusEffect", "SourceStatusFeed", "StatusView",
           "parse_as_of", "format_as_of", "warned_score"]

#: the statuses a feed accepts.
SOURCE_STATUSES = ("current", "superseded", "expired", "retracted")


@dataclass(frozen=True, slots=True)
class StatusEffect:
    """What a status does: ``supports`` (may its sentences support a claim), ``warn`` (a claim it
    supports is approved with a warning), ``risk`` in [0, 1] (reported in the verdict)."""

    supports: bool
    warn: bool
    risk: float


#: the effect table (see the module docstring).
STATUS_EFFECTS: dict[str, StatusEffect] = {
    "current": StatusEffect(True, False, 0.0),
    "superseded": StatusEffect(True, True, 0.5),
    "expired": StatusEffect(True, True, 0.5),
    "retracted": StatusEffect(False, False, 1.0),
}

_REASONS = {
    "current": "the source is current",
    "superseded": "a newer source supersedes this one; claims it supports are approved with a warning",
    "expired": "the source has expired; claims it supports are approved with a warning",
    "retracted": "the source was retracted; it is not used as evidence",
}


def parse_as_of(value: Any, field: str = "as_of") -> datetime:
    """An aware UTC ``datetime`` from ``value``: an aware ``datetime`` or an ISO-8601 / RFC-3339
    string with an offset or ``Z`` (``"2025-03-01T00:00:00Z"``) or a bare date (``"2025-03-01"``,
    midnight UTC).

    Raises:
        InputTypeError: neither a ``datetime`` nor a ``str``.
        ValidationError: a naive datetime or time string (no offset), or an unparsable string;
            the message names ``field``.
    """
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        s = value.strip()
        try:
            if len(s) == 10:
                dt = datetime.fromisoformat(s).replace(tzinfo=timezone.utc)
            else:
                dt = datetime.fromisoformat(s[:-1] + "+00:00" if s[-1:] in ("Z", "z") else s)
        except ValueError as exc:
            raise ValidationError(f"{field}: not an ISO-8601 time: {value!r}") from exc
    else:
        raise InputTypeError(f"{field} must be a datetime or an ISO-8601 str, got {type(value).__name__}")
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise ValidationError(f"{field}: a time without a UTC offset is ambiguous ({value!r}); add 'Z' or +HH:MM")
    return dt.astimezone(timezone.utc)


def format_as_of(dt: datetime) -> str:
    """RFC-3339 UTC text of ``dt`` (``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``)."""
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def warned_score(strength: float, threshold: float, soft_limit: float) -> float:
    """Score of a claim supported only with a warning (superseded or expired evidence):
    ``t + 0.99 * (s - t) * x`` for strength ``x`` in [0, 1], in [threshold, soft_limit)
    (``threshold`` itself when they are equal): approved, with ``warning``."""
    x = min(1.0, max(0.0, float(strength)))
    return threshold + 0.99 * (soft_limit - threshold) * x


def _system_clock() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True, slots=True)
class _Record:
    as_of: datetime
    status: str
    status_source: str
    reason: str
    seq: int  # order of setting: a later set at the same as_of wins


class StatusView:
    """The statuses of one tenant in effect at one instant (``now``); ``key`` changes exactly
    when the statuses in effect can differ (a write, or ``now`` passing a pending ``as_of``)."""

    __slots__ = ("now", "key", "_records")

    def __init__(self, now: datetime, key: tuple, records: dict[str, list[_Record]]) -> None:
        self.now = now
        self.key = key
        self._records = records

    def record(self, source: str) -> _Record | None:
        hist = self._records.get(source)
        if not hist:
            return None
        i = bisect.bisect_right([r.as_of for r in hist], self.now)
        return hist[i - 1] if i else None

    def status(self, source: str) -> str:
        """The status of ``source`` in effect (``"current"`` when none is)."""
        rec = self.record(source)
        return rec.status if rec is not None else "current"

    def effect(self, source: str) -> StatusEffect:
        return STATUS_EFFECTS[self.status(source)]

    def verdict(self, source: str) -> CitationStatusVerdict | None:
        """The verdict of ``source`` (None when it has no status in effect)."""
        rec = self.record(source)
        if rec is None:
            return None
        return CitationStatusVerdict(source_id=source, status=rec.status, risk=STATUS_EFFECTS[rec.status].risk,
                                     reason=rec.reason or _REASONS[rec.status],
                                     status_source=rec.status_source, as_of=format_as_of(rec.as_of))

    def usable(self, units: Sequence[Any]) -> list[Any]:
        """``units`` (anything with ``.chunk.source``) without those of sources that may not
        support a claim (retracted)."""
        return [u for u in units if self.effect(u.chunk.source).supports]

    def verdicts(self, sources: Iterable[str]) -> list[CitationStatusVerdict]:
        """Verdicts of the distinct ``sources`` that have a status in effect, in first-seen order."""
        out = []
        for src in dict.fromkeys(sources):
            v = self.verdict(src)
            if v is not None:
                out.append(v)
        return out


class SourceStatusFeed:
    """Statuses of evidence sources over time, per tenant.

    Args:
        clock: a callable returning the current time as an aware ``datetime`` (default: the
            system clock in UTC); tests inject a fixed or stepping clock.

    A source's status history is kept sorted by ``as_of``; the status in effect at time ``t`` is
    the one with the latest ``as_of <= t`` (the last one set wins a tie); before the first, the
    source is current.

    Thread-safety: see the module docstring.
    """

    def __init__(self, clock: Callable[[], datetime] | None = None) -> None:
        if clock is not None and not callable(clock):
            raise ConfigError("clock must be a callable returning an aware datetime", field="clock")
        self._clock = clock or _system_clock
        self._lock = threading.Lock()
        self._records: dict[str, dict[str, list[_Record]]] = {}  # tenant -> source -> history
        self._times: dict[str, list[datetime]] = {}  # tenant -> every as_of, sorted
        self._seq = 0
        self._version = 0

    @property
    def version(self) -> int:
        """Number of writes so far."""
        return self._version

    def now(self) -> datetime:
        """The clock's current time (aware, UTC). Raises ConfigError when the clock returns
        something else."""
        t = self._clock()
        if not isinstance(t, datetime) or t.tzinfo is None or t.utcoffset() is None:
            raise ConfigError(f"clock must return an aware datetime, got {t!r}", field="clock")
        return t.astimezone(timezone.utc)

    def set(self, source: str, status: str, *, as_of: Any, tenant: str = "", status_source: str = "",
            reason: str = "") -> CitationStatusVerdict:
        """Record that ``source`` (a source label, as given to ``KnowledgeBase.add``) has
        ``status`` from ``as_of`` on, in ``tenant``.

        Args:
            source: the source label (non-empty ``str``).
            status: one of :data:`SOURCE_STATUSES`.
            as_of: when the status takes effect (see :func:`parse_as_of`); may lie in the future.
            tenant: the tenant whose documents carry the label (exact; default ``""``).
            status_source: who reported the status (e.g. ``"crossref"``), reported in verdicts.
            reason: operator text for the verdict (default: the effect table's reason).

        Returns:
            The :class:`CitationStatusVerdict` the record gives once in effect.

        Raises:
            InputTypeError: a non-``str`` source, status, tenant, status_source or reason.
            ValidationError: an unknown status, an empty source, a bad ``as_of``.
        """
        for name, val in (("source", source), ("status", status), ("tenant", tenant),
                          ("status_source", status_source), ("reason", reason)):
            if not isinstance(val, str):
                raise InputTypeError(f"{name} must be a str, got {type(val).__name__}")
        if not source:
            raise ValidationError("source: must be a non-empty source label")
        if status not in STATUS_EFFECTS:
            raise ValidationError(f"status: must be one of {list(SOURCE_STATUSES)}, got {status!r}")
        when = parse_as_of(as_of)
        with self._lock:
            self._seq += 1
            rec = _Record(when, status, status_source, reason, self._seq)
            # copy-on-write (the tenant's map and the source's history): a view shares them
            # without copying and keeps seeing the state it was taken at
            per = dict(self._records.get(tenant, {}))
            hist = list(per.get(source, ()))
            hist.insert(bisect.bisect_right([(r.as_of, r.seq) for r in hist], (when, rec.seq)), rec)
            per[source] = hist
            self._records[tenant] = per
            times = list(self._times.get(tenant, ()))
            bisect.insort(times, when)
            self._times[tenant] = times
            self._version += 1
        return CitationStatusVerdict(source_id=source, status=status, risk=STATUS_EFFECTS[status].risk,
                                     reason=reason or _REASONS[status], status_source=status_source,
                                     as_of=format_as_of(when))

    def view(self, tenant: str = "", *, now: datetime | None = None) -> StatusView | None:
        """The statuses of ``tenant`` in effect at ``now`` (default: the clock), or None when the
        tenant has no status record (the fast path: nothing to apply)."""
        with self._lock:
            per = self._records.get(tenant)
            if not per:
                return None
            t = self.now() if now is None else parse_as_of(now, "now")
            times = self._times[tenant]
            key = (self._version, tenant, bisect.bisect_right(times, t))
            return StatusView(t, key, per)

    def verdict(self, source: str, *, tenant: str = "") -> CitationStatusVerdict | None:
        """The verdict of ``source`` in effect now (None when it has no status in effect)."""
        v = self.view(tenant)
        return v.verdict(source) if v is not None else None

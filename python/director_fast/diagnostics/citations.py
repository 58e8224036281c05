"""Citation checks: ``[ref:…]`` markers in an answer checked against the rows a query returned.

A model that answers from the rows a query returned can mark what it used with inline markers:

* ``[ref:variable]`` -- the sentence uses the row variable ``variable`` (verdict ``cited``);
* ``[ref:variable="value"]`` -- it asserts that ``variable`` holds ``value`` (backslash escapes
  ``\\"`` and ``\\\\`` inside the quotes).

:func:`check_citations` removes every marker from the answer and checks each one against the rows,
returning a :class:`CitationReport` with one :class:`CitationCheck` per marker, in order of
appearance. The checks are deterministic (no model is called) and run in pure Python; the cost is
one pass over the rows (tokenising string values for scoping) plus, per marker, a scan of the
scoped values (see ``bench/RESULTS.md``: about 2 ms for 10 markers against 50 rows).

Verdicts (``CitationCheck.verdict``):

==================  ==============================================================================
``cited``           the marker names a variable and asserts no value
``confirmed``       a rung of the repair ladder reconciled the asserted value with the scoped rows
``refuted``         the scoped rows bind the variable and none of their values agrees; for a
                    number, only when both the asserted and every observed value were read
``unverifiable``    the marker cannot be checked: two fields merged into one marker, a malformed
                    marker (``problem`` says which), ``mis_pointed`` (another variable holds
                    the value), or a number that could not be read (``problem``:
                    ``"ambiguous_number_format"`` for a locale form such as ``"2.500,00 €"``,
                    ``"25,00"`` or ``"2.5 m"`` (metres or millions), ``"unreadable_number"``;
                    ``"observed_…"`` when it is a row value that was not read)
``unresolved``      no row binds the variable (in scope), and it cannot be re-aimed
==================  ==============================================================================

Only ``refuted`` may feed a contradicted claim (:attr:`CitationReport.contradicted`).

Repair ladder (``CitationCheck.repair``), tried in this order for each scoped value; the first rung
on which any scoped value agrees wins:

1. ``exact`` -- the asserted string equals the value's surface.
2. ``case_or_whitespace`` -- equal after Unicode NFC, case folding, collapsing whitespace and
   unifying curly quotes/apostrophes.
3. ``numeric`` -- both are read by :func:`director_fast.find_numbers` (the library's one number
   parser) as one number each, and the values agree (relative tolerance 1e-12): grouping
   separators in valid groups of three (``"2,500"`` = 2500, ``"2 500"``, ``"2'500"``), trailing
   zeros (``"2.5"`` = 2.50), magnitudes with or without a space (``"2.5k"``, ``"2.5 K"``,
   ``"2.5 thousand"``, ``"$2.5m"``, ``"2.5 million"``, ``"2.5bn"``), currency symbols or ISO codes
   (``€``, ``$``, ``USD``), a percent sign, a sign (``-``, ``+``, U+2212). Two different units
   never agree. Decimal-comma forms (``"25,00"``, ``"2.500,00 €"``) are not read (``unverifiable``).
4. ``token_coverage`` -- the asserted value's word tokens are the cited field's tokens followed or
   preceded by exactly another field's tokens of the same row (``"Cairo, Egypt"`` covered by
   ``city="Cairo"`` and ``country="Egypt"``); ``repair_variables`` names both.
5. ``model_re_aimed`` -- deterministic here (the seed's backend asked a model): the marker's
   variable is bound by no row, but it normalises (case, ``?``/``$`` prefix, ``_ - . :`` and
   camelCase separators, simple singular/plural) to exactly one row variable, and the value agrees
   there on rungs 1-3.

``mis_pointed`` is not an acceptance: the cited variable disagrees but another variable of the
same scoped record holds the asserted value (rungs 1-3); the verdict is ``unverifiable`` and
``repair_variables`` names the variables that hold it.

Scopes (``CitationCheck.scope``): the answer is split into sentences (after ``.``, ``!``, ``?`` or
``…`` followed by whitespace, and at line breaks). A sentence *names* a record when an identifying
value of exactly one row occurs in it as a whole word sequence (case-insensitive). Identifying
values are, by default, the string values (with at least one letter) that occur in exactly one row;
with ``id_fields=`` only the values of those columns. A surface that is part of a value asserted in
the same sentence, or that only occurs in a column asserted in the same sentence, does not name a
record (an assertion must not choose its own record).

* ``record`` -- the marker's sentence names one record; ``scope_label`` is its identifying value.
* ``inherited_record`` -- the sentence names none, and the immediately previous sentence named one.
* ``result_set`` -- otherwise; every row is compared and agreement with any row counts.
  ``observed_values`` then holds the values of each record in row order (one per record unless a
  row value is a list).

``observed_values`` is capped at ``max_observed``; ``observed_total`` counts before the cap.

Row values may be ``str``, ``int``, ``float``, ``Decimal``, ``bool`` (surface ``true``/``false``),
``None`` (binds nothing), lists/tuples (several values of one record) or SPARQL-JSON style bindings
``{"type": ..., "value": ...}`` (the ``value`` is used).
"""

from __future__ import annotations

import numbers
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from bisect import bisect_right
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any

from director_fast.safety.event import SafetyEvent
from director_fast.errors import ConfigError, InputTypeError, ValidationError
from director_fast.verify.numbers import find_numbers, long_digits_differ, same_value

__all__ = [
    "CITATION_VERDICTS",
    "CITATION_REPAIRS",
    "CITATION_SCOPES",
    "CitationCheck",
    "CitationReport",
    "check_citations",
    "strip_markers",
]

CITATION_VERDICTS = ("cited", "confirmed", "refuted", "unverifiable", "unresolved")
CITATION_REPAIRS = (
    "exact",
    "case_or_whitespace",
    "numeric",
    "token_coverage",
    "model_re_aimed",
    "mis_pointed",
)
CITATION_SCOPES = ("record", "inherited_record", "result_set")

_PREFIX = "[ref:"
_HWS = " \t\u00a0\u202f"
_CLOSERS = frozenset(".,;:!?)]}»”’…")
_WORD = re.compile(r"\w+")
_HAS_ALPHA = re.compile(r"[^\W\d_]")
# A run of end punctuation is matched only from its first character (the look-behind), so a long
# run that is not followed by whitespace is tried once, not once per character (quadratic).
_SENT_END = re.compile(r"(?<![.!?…])[.!?…]+[\"'”’»)\]]*(?:\s+|$)|\n\s*")


# --------------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CitationCheck:
    """One ``[ref:…]`` marker checked against the rows: what it names, asserts and how it fared.

    Immutable and therefore safe to share between threads.

    Attributes:
        marker: the marker body as written, e.g. ``head_quarters="Cairo"`` (no ``[ref:``/``]``).
        variable: the row variable the marker resolved to (``None`` when merged, malformed or
            unresolved).
        asserted_value: the value the marker asserts, escapes decoded (``None`` for ``cited``).
        verdict: one of :data:`CITATION_VERDICTS`.
        repair: the ladder rung that reconciled the value (:data:`CITATION_REPAIRS`), or ``None``.
        repair_variables: the variables a ``token_coverage``, ``model_re_aimed`` or ``mis_pointed``
            repair resolved to.
        observed_values: the value surfaces actually compared against, at most ``max_observed``.
        observed_total: how many surfaces were compared, before the cap.
        scope: one of :data:`CITATION_SCOPES`.
        scope_label: the identifying value that scoped the check; ``None`` under ``result_set``.
        problem: why a marker is ``unverifiable`` without a comparison (``"merged_fields"``,
            ``"malformed: …"``), else ``None``. Not part of the seed's DTO.
    """

    marker: str
    variable: str | None
    asserted_value: str | None
    verdict: str
    repair: str | None = None
    repair_variables: tuple[str, ...] = ()
    observed_values: tuple[str, ...] = ()
    observed_total: int = 0
    scope: str = "result_set"
    scope_label: str | None = None
    problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The seed's camelCase DTO (``assertedValue``, ``observedValues``, ``observedTotal``,
        ``repairVariables``, ``scopeLabel``); ``scopeLabel`` and ``problem`` only when set."""
        d: dict[str, Any] = {
            "marker": self.marker,
            "variable": self.variable,
            "assertedValue": self.asserted_value,
            "verdict": self.verdict,
            "repair": self.repair,
            "repairVariables": list(self.repair_variables),
            "observedValues": list(self.observed_values),
            "observedTotal": self.observed_total,
            "scope": self.scope,
        }
        if self.scope_label is not None:
            d["scopeLabel"] = self.scope_label
        if self.problem is not None:
            d["problem"] = self.problem
        return d

    @classmethod
    def from_dict(cls, payload: Mapping[str, Any]) -> "CitationCheck":
        """Rebuild a check from :meth:`to_dict` output (or a seed DTO; absent keys default).

        Raises:
            ValidationError: a required key (``marker``, ``verdict``) is missing or a value has
                the wrong type or an unknown verdict/scope/repair.
        """
        if not isinstance(payload, Mapping):
            raise InputTypeError(f"payload must be a mapping, got {type(payload).__name__}")
        for key in ("marker", "verdict"):
            if not isinstance(payload.get(key), str):
                raise ValidationError(f"{key}: required string")
        verdict = payload["verdict"]
        if verdict not in CITATION_VERDICTS:
            raise ValidationError(f"verdict: unknown value {verdict!r}")
        scope = payload.get("scope", "result_set")
        if scope not in CITATION_SCOPES:
            raise ValidationError(f"scope: unknown value {scope!r}")
        repair = payload.get("repair")
        if repair is not None and repair not in CITATION_REPAIRS:
            raise ValidationError(f"repair: unknown value {repair!r}")
        total = payload.get("observedTotal", 0)
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            raise ValidationError("observedTotal: must be a non-negative integer")

        def _strs(key: str) -> tuple[str, ...]:
            v = payload.get(key) or []
            if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
                raise ValidationError(f"{key}: must be a list of strings")
            return tuple(v)

        def _opt(key: str) -> str | None:
            v = payload.get(key)
            if v is not None and not isinstance(v, str):
                raise ValidationError(f"{key}: must be a string or null")
            return v

        return cls(
            marker=payload["marker"],
            variable=_opt("variable"),
            asserted_value=_opt("assertedValue"),
            verdict=verdict,
            repair=repair,
            repair_variables=_strs("repairVariables"),
            observed_values=_strs("observedValues"),
            observed_total=total,
            scope=scope,
            scope_label=_opt("scopeLabel"),
            problem=_opt("problem"),
        )


@dataclass(frozen=True)
class CitationReport:
    """Result of :func:`check_citations`. Immutable; safe to share between threads.

    Attributes:
        answer: the answer with every ``[ref:…]`` marker removed (whitespace before a marker is
            dropped when punctuation, whitespace or the end follows it, so ``"in Cairo [ref:x]."``
            becomes ``"in Cairo."``).
        checks: one :class:`CitationCheck` per marker, in order of appearance.
    """

    answer: str
    checks: tuple[CitationCheck, ...] = field(default_factory=tuple)

    @property
    def contradicted(self) -> tuple[CitationCheck, ...]:
        """The ``refuted`` checks only (the only verdict that may feed a contradicted claim)."""
        return tuple(c for c in self.checks if c.verdict == "refuted")

    def counts(self) -> dict[str, int]:
        """Number of checks per verdict (every verdict present, zero when absent)."""
        out = {v: 0 for v in CITATION_VERDICTS}
        for c in self.checks:
            out[c.verdict] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """``{"answer": str, "checks": [CitationCheck.to_dict(), ...]}``."""
        return {"answer": self.answer, "checks": [c.to_dict() for c in self.checks]}

    def to_safety_event(
        self,
        *,
        hook_id: str = "citation_check",
        request_id: str = "",
        tenant_id: str = "",
        refuted_decision: str = "block",
        latency_ms: float | None = None,
    ) -> SafetyEvent:
        """An audit-trail :class:`SafetyEvent` (hook scope ``agent``) for this report.

        Decision: ``refuted_decision`` (``"block"`` or ``"warn"``) with reason
        ``citation_refuted`` when any check is refuted; ``warn`` / ``citation_unverified`` when
        any is unverifiable or unresolved; otherwise ``allow`` / ``citations_consistent``.
        ``observed_score`` is the share of value assertions that were confirmed (``None`` when
        there are none). The event carries verdict counts and check indices only, never marker,
        row or asserted values.

        Raises:
            ConfigError: ``refuted_decision`` is not ``"block"``, ``"warn"`` or ``"halt"``.
        """
        if refuted_decision not in ("block", "warn", "halt"):
            raise ConfigError(
                f"refuted_decision must be 'block', 'warn' or 'halt', got {refuted_decision!r}",
                field="refuted_decision",
            )
        counts = self.counts()
        refuted = [i for i, c in enumerate(self.checks) if c.verdict == "refuted"]
        if refuted:
            decision, reason = refuted_decision, "citation_refuted"
            expl = f"{len(refuted)} cited value(s) disagree with the query results."
        elif counts["unverifiable"] or counts["unresolved"]:
            decision, reason = "warn", "citation_unverified"
            expl = "Some citations could not be checked against the query results."
        else:
            decision, reason = "allow", "citations_consistent"
            expl = "All citations agree with the query results."
        asserted = [c for c in self.checks if c.asserted_value is not None and c.problem is None]
        score = None
        if asserted:
            score = sum(c.verdict == "confirmed" for c in asserted) / len(asserted)
        attributes = {f"{k}_count": str(v) for k, v in counts.items()}
        attributes["check_count"] = str(len(self.checks))
        return SafetyEvent.from_policy_decision(
            hook_id=hook_id,
            hook_scope="agent",
            policy_decision=decision,
            halt_reason=reason,
            tenant_safe_explanation=expl,
            request_id=request_id,
            tenant_id=tenant_id,
            observed_score=score,
            latency_ms=latency_ms,
            evidence_refs=tuple(f"citation:{i}" for i in refuted),
            attributes=attributes,
        )


# --------------------------------------------------------------------------------------------
# Marker scanning and stripping
# --------------------------------------------------------------------------------------------


@dataclass
class _Marker:
    body: str
    pos: int  # offset in the final stripped answer where the marker was removed
    seq: int  # order of discovery (tie-breaker)
    kind: str  # cited | asserted | merged | malformed
    variable: str | None
    value: str | None
    problem: str | None


class _BodyScanner:
    """Finds where a marker body ends, in time linear in the text over all markers.

    A body starting at ``b`` ends at the first ``]`` outside a double-quoted value (inside quotes
    a backslash escapes the next character, and anything else, line breaks included, is part of
    the value). Outside quotes a line break or the next ``[ref:`` ends the scan: the marker is
    then unterminated and ends at the first ``]`` before the first line break or ``[ref:`` after
    ``b`` ("malformed: unbalanced quote"), else there ("malformed: no closing bracket"). A text
    with quotes gets two jump tables, built once right to left, so no region is rescanned
    however many markers start before it.
    """

    __slots__ = ("text", "n", "nl", "quotes", "_end_from")

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.nl = -1  # cached position of the next line break (n: none left)
        self.quotes = '"' in text
        self._end_from: list[int] | None = None

    def _tables(self) -> list[int]:
        # close_q[i]: the closing quote reached scanning inside quotes from i (-1: none);
        # end_from[i]: the closing "]" reached scanning outside quotes from i, or -1 when a line
        # break, a "[ref:" or the end of the text comes first.
        text, n = self.text, self.n
        stop = bytearray(n + 2)
        k = text.find(_PREFIX)
        while k >= 0:
            stop[k] = 1
            k = text.find(_PREFIX, k + 1)
        k = text.find("\n")
        while k >= 0:
            stop[k] = 1
            k = text.find("\n", k + 1)
        end_from = [-1] * (n + 2)
        close_q = [-1] * (n + 2)
        for i in range(n - 1, -1, -1):
            c = text[i]
            if c == '"':
                close_q[i] = i
            elif c == "\\":
                close_q[i] = close_q[i + 2] if i + 1 < n else -1
            else:
                close_q[i] = close_q[i + 1]
            if stop[i]:
                continue
            if c == "]":
                end_from[i] = i
            elif c == '"':
                q = close_q[i + 1]
                end_from[i] = -1 if q < 0 else end_from[q + 1]
            else:
                end_from[i] = end_from[i + 1]
        self._end_from = end_from
        return end_from

    def scan(self, b: int, next_prefix: int) -> tuple[int, str | None]:
        """(end, problem) of the body starting at ``b``; ``next_prefix``: first "[ref:" >= b or -1."""
        text, n = self.text, self.n
        if self.quotes:
            table = self._end_from if self._end_from is not None else self._tables()
            close = table[b]
            if close >= 0:
                return close + 1, None
        if self.nl < b:
            nl = text.find("\n", b)
            self.nl = n if nl < 0 else nl
        limit = min(self.nl, n if next_prefix < 0 else next_prefix)
        close = text.find("]", b, limit)
        if close >= 0:
            return close + 1, "malformed: unbalanced quote" if self.quotes else None
        return limit, "malformed: no closing bracket"


def _tokenize_body(body: str) -> list[tuple[str, str]] | str:
    toks: list[tuple[str, str]] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c.isspace():
            i += 1
        elif c in "=,":
            toks.append((c, c))
            i += 1
        elif c == '"':
            j, buf = i + 1, []
            while j < n and body[j] != '"':
                if body[j] == "\\" and j + 1 < n:
                    buf.append(body[j + 1])
                    j += 2
                else:
                    buf.append(body[j])
                    j += 1
            if j >= n:
                return "malformed: unterminated quoted value"
            toks.append(("str", "".join(buf)))
            i = j + 1
        else:
            j = i
            while j < n and not body[j].isspace() and body[j] not in '=,"':
                j += 1
            toks.append(("id", body[i:j]))
            i = j
    return toks


def _parse_body(body: str) -> tuple[str, str | None, str | None, str | None]:
    """(kind, variable, value, problem) for a marker body."""
    toks = _tokenize_body(body)
    if isinstance(toks, str):
        return "malformed", None, None, toks
    kinds = [k for k, _ in toks]
    if not toks:
        return "malformed", None, None, "malformed: empty marker"
    if kinds == ["id"]:
        return "cited", toks[0][1], None, None
    if kinds == ["id", "=", "str"]:
        if toks[2][1] == "":
            return "malformed", toks[0][1], None, "malformed: empty value"
        return "asserted", toks[0][1], toks[2][1], None
    # Merged fields: groups  id (',' id)* ('=' str)?  separated by ','.
    state, ids, values = "id", 0, []
    for k, v in toks:
        if state == "id":
            if k != "id":
                return "malformed", None, None, "malformed: expected a variable name"
            ids += 1
            state = "after_id"
        elif state == "after_id":
            if k == ",":
                state = "id"
            elif k == "=":
                state = "str"
            else:
                return "malformed", None, None, "malformed: unexpected token"
        elif state == "str":
            if k != "str":
                return "malformed", None, None, "malformed: value must be double-quoted"
            values.append(v)
            state = "after_str"
        else:  # after_str
            if k != ",":
                return "malformed", None, None, "malformed: unexpected token"
            state = "id"
    if state not in ("after_id", "after_str") or ids < 2:
        return "malformed", None, None, "malformed: unexpected token"
    return "merged", None, values[0] if len(values) == 1 else None, "merged_fields"


def _strip(text: str) -> tuple[str, list[_Marker]]:
    """The answer without markers, and the markers in answer order.

    One left-to-right pass, linear in ``len(text)``. Removing a marker can join the text around
    it into a new ``[ref:`` (``"[re[ref:x]f:y]"``); the join is checked whenever text is
    appended to the output, and such a marker is removed like any other, so the output never
    holds ``[ref:`` (and stripping is idempotent). Horizontal whitespace left doubled by a
    removal is trimmed. Markers are ordered by their offset in the output, then by the order in
    which they were found.
    """
    if _PREFIX not in text:
        return text, []
    n = len(text)
    scanner = _BodyScanner(text)
    pieces: list[str] = []
    olen = 0
    markers: list[_Marker] = []
    # Runs of markers at one output offset: [offset, index of the run's first marker]; offsets
    # strictly increase. Trimming the output moves the runs beyond the new end onto it.
    runs: list[list[int]] = []

    def settle() -> None:
        first = -1
        while runs and runs[-1][0] > olen:
            first = runs.pop()[1]
        if first >= 0:
            if runs and runs[-1][0] == olen:
                return
            runs.append([olen, first])

    def tail(m: int) -> str:
        out = ""
        for piece in reversed(pieces):
            out = piece[-(m - len(out)):] + out
            if len(out) >= m:
                break
        return out

    def drop(m: int) -> None:
        nonlocal olen
        olen -= m
        while m:
            piece = pieces[-1]
            if len(piece) <= m:
                pieces.pop()
                m -= len(piece)
            else:
                pieces[-1] = piece[: len(piece) - m]
                m = 0

    i = 0
    k = text.find(_PREFIX)
    skip_leading = False
    while True:
        seg_end = n if k < 0 else k
        seg_start = i
        if skip_leading:
            while seg_start < seg_end and text[seg_start] in _HWS:
                seg_start += 1
            skip_leading = False
        body = -1
        if seg_start < seg_end:
            t = tail(4)
            j = (t + text[seg_start : seg_start + 4]).find(_PREFIX) if t else -1
            if 0 <= j < len(t):  # the removal joined "[re" + "f:..." into a new marker
                drop(len(t) - j)
                settle()
                body = seg_start + len(_PREFIX) - (len(t) - j)
            else:
                pieces.append(text[seg_start:seg_end])
                olen += seg_end - seg_start
        if body < 0:
            if k < 0:
                break
            body = k + len(_PREFIX)
            k = text.find(_PREFIX, body)
        end, problem = scanner.scan(body, k)
        if 0 <= k < end:  # a quoted value ran past the next "[ref:"
            k = text.find(_PREFIX, end)
        nxt = text[end] if end < n else ""
        last = pieces[-1][-1] if pieces else "\n"
        if last in _HWS and (nxt == "" or nxt.isspace() or nxt in _CLOSERS):
            cut = 0
            for piece in reversed(pieces):
                stripped = len(piece) - len(piece.rstrip(_HWS))
                cut += stripped
                if stripped != len(piece):
                    break
            drop(cut)
            settle()
        elif last not in _HWS:
            skip_leading = last == "\n"
        raw = text[body : end - 1 if problem is None else end]
        if problem is None:
            kind, var, val, problem = _parse_body(raw)
        else:
            kind, var, val = "malformed", None, None
        if not runs or runs[-1][0] != olen:
            runs.append([olen, len(markers)])
        markers.append(_Marker(raw, olen, len(markers), kind, var, val, problem))
        i = end
    for r, (pos, first) in enumerate(runs):
        stop = runs[r + 1][1] if r + 1 < len(runs) else len(markers)
        for m in markers[first:stop]:
            m.pos = pos
    return "".join(pieces), markers


def strip_markers(answer: str) -> str:
    """``answer`` with every ``[ref:…]`` marker removed (idempotent; same text as
    :attr:`CitationReport.answer`).

    Raises:
        InputTypeError: ``answer`` is not a ``str``.
    """
    if not isinstance(answer, str):
        raise InputTypeError(f"answer must be a str, got {type(answer).__name__}")
    return _strip(answer)[0]


# --------------------------------------------------------------------------------------------
# Value normalisation
# --------------------------------------------------------------------------------------------

_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "\u00a0": " "})


def _cow(s: str) -> str:
    if s.isascii():
        return " ".join(s.lower().split())
    return " ".join(unicodedata.normalize("NFC", s).translate(_QUOTES).casefold().split())


def _tokens(s: str) -> list[str]:
    if s.isascii():
        return _WORD.findall(s.lower())
    return _WORD.findall(_cow(s))


_CURRENCY_SYMBOLS = "$€£¥₹₩₽₺₪₫฿₦₱"
_CURRENCY_CODES = frozenset({
    "usd", "eur", "gbp", "jpy", "inr", "chf", "cny", "cad", "aud", "krw", "rub", "sek", "nok", "dkk",
})  # fmt: skip
_MAGNITUDE_WORDS = frozenset({
    "k", "m", "mn", "b", "bn", "tn", "thousand", "thousands", "million", "millions", "billion",
    "billions", "trillion", "trillions",
})  # fmt: skip
# A grouping separator between digit groups of three ("2 500", "2'500", "2_500", "2’500"): removed
# before reading, "2,500" is read by find_numbers itself.
_GROUP_SEP = re.compile(r"(?<=\d)[' _’\u00a0\u202f](?=\d{3}(?!\d))")
# Decimal-comma forms that a reader in another locale takes for a different number: "2.500,00"
# (2500 in much of Europe), "25,00" / "2,5" (a decimal comma); never read, so never refuted.
_LOCALE_AMBIGUOUS = re.compile(r"\d{1,3}(?:\.\d{3})+,\d+|(?<![\d,.])\d+,(?:\d{1,2}|\d{4,})(?![\d,.])")
_BARE_DECIMAL = re.compile(r"(?<![\w.,])\.(?=\d)")
_SPACED_M = re.compile(r"\d\s+[mM]$")
_NUMERIC_CHARS = re.compile(r"[\d\s.,'’_+\-\u2212%" + _CURRENCY_SYMBOLS + r"]*\d[\d\s.,'’_+\-\u2212%"
                            + _CURRENCY_SYMBOLS + r"]*")
_ALPHA_WORD = re.compile(r"[^\W\d_]+")

# _read_number's answers besides a reading
_TEXT = "text"  # no number in it: compared as text
_UNREADABLE = "unreadable_number"  # shaped like a number, but not one number find_numbers reads
_AMBIGUOUS = "ambiguous_number_format"  # a decimal-comma / locale form


@dataclass(frozen=True)
class _Reading:
    value: float
    unit: str
    surface: str


@lru_cache(maxsize=1 << 16)
def _read_number(s: str) -> _Reading | str:
    """The number a cited value or row surface states, read by :func:`find_numbers` (the one
    number parser: magnitudes ``k`` / ``m`` / ``bn`` / ``thousand`` ..., with or without a space,
    currency symbols and codes, signs, percent), or why it is not read: :data:`_TEXT` (no number;
    compared as text), :data:`_AMBIGUOUS` (a locale form such as ``"2.500,00 €"``),
    :data:`_UNREADABLE` (number-shaped, yet not one whole mention)."""
    t = _GROUP_SEP.sub("", unicodedata.normalize("NFKC", s).strip())
    t = _BARE_DECIMAL.sub("0.", t)  # ".5" -> "0.5"
    if not t or len(t) > 64:
        return _UNREADABLE if t and any(c.isdigit() for c in t) else _TEXT
    if _LOCALE_AMBIGUOUS.search(t):
        return _AMBIGUOUS
    found = find_numbers(t)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(t):
        m = found[0]
        if m.unit == "m" and _SPACED_M.search(t):
            return _AMBIGUOUS  # "2.5 m": metres to find_numbers, millions to a bookkeeper
        return _Reading(m.value, m.unit, m.surface)
    # number-shaped: digits, separators, signs, currency, percent, magnitude words and currency codes
    rest = _ALPHA_WORD.sub(lambda w: "" if w.group(0).lower() in _MAGNITUDE_WORDS | _CURRENCY_CODES
                           else w.group(0), t)
    return _UNREADABLE if _NUMERIC_CHARS.fullmatch(rest) else _TEXT


def _same_number(a: _Reading, b: _Reading) -> bool:
    if not same_value(a.value, b.value) or long_digits_differ(a.surface, b.surface):
        return False
    return not a.unit or not b.unit or a.unit == b.unit


def _numeric_equal(a: str, b: str) -> bool:
    ra = _read_number(a)
    if not isinstance(ra, _Reading):
        return False
    rb = _read_number(b)
    return isinstance(rb, _Reading) and _same_number(ra, rb)


def _unreadable_comparison(asserted: str, observed: Iterable[str]) -> str | None:
    """Why a value that agrees with no surface is ``unverifiable`` rather than ``refuted``: the
    asserted value is a number it could not read (``"ambiguous_number_format"``,
    ``"unreadable_number"``), or a number read where some observed surface is not read as one
    (``"observed_" + reason``). ``None``: both sides were read (or both are text) and differ."""
    ra = _read_number(asserted)
    if isinstance(ra, str):
        return None if ra == _TEXT else ra
    for s in observed:
        rb = _read_number(s)
        if isinstance(rb, str):
            return "observed_" + (_UNREADABLE if rb == _TEXT else rb)
    return None


def _agrees(asserted: str, surface: str, rung: str) -> bool:
    if rung == "exact":
        return asserted == surface
    if rung == "case_or_whitespace":
        return _cow(asserted) == _cow(surface)
    return _numeric_equal(asserted, surface)


_SIMPLE_RUNGS = ("exact", "case_or_whitespace", "numeric")


def _simple_match(asserted: str, surfaces: Iterable[str]) -> str | None:
    surfaces = list(surfaces)
    for rung in _SIMPLE_RUNGS:
        for s in surfaces:
            if _agrees(asserted, s, rung):
                return rung
    return None


_MAX_VALUE_DEPTH = 64


def _surfaces(v: Any, where: str = "rows", _open: set[int] | None = None, _depth: int = 0) -> list[str]:
    """The string forms a row value can be cited as. ``where`` names the value in errors.

    Raises:
        ValidationError: the value contains itself (a self-referencing list, dict or set) or is
            nested more than 64 levels deep.
        InputTypeError: a value of a type that is not understood.
    """
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, bool):
        return ["true" if v else "false"]
    if isinstance(v, int):
        return [str(v)]
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return []  # NaN/inf is no value: nothing can be confirmed against it
        if abs(v) < 1e16 and v.is_integer():
            return [str(int(v))]
        return [repr(v)]
    if isinstance(v, Decimal):
        return [str(v)] if v.is_finite() else []
    if isinstance(v, (Mapping, list, tuple, set, frozenset)):
        if _open is None:
            _open = set()
        if id(v) in _open:
            raise ValidationError(f"{where}: the value contains itself (a self-referencing "
                                  f"{type(v).__name__})")
        if _depth >= _MAX_VALUE_DEPTH:
            raise ValidationError(f"{where}: the value is nested more than {_MAX_VALUE_DEPTH} levels deep")
        _open.add(id(v))
        try:
            if isinstance(v, Mapping):
                if "value" in v:
                    return _surfaces(v["value"], where, _open, _depth + 1)
                try:
                    return [str(dict(v))]
                except RecursionError:
                    raise ValidationError(f"{where}: the value is nested too deeply to print") from None
            if isinstance(v, (list, tuple)):
                return [s for x in v for s in _surfaces(x, where, _open, _depth + 1)]
            return sorted(s for x in v for s in _surfaces(x, where, _open, _depth + 1))
        finally:
            _open.discard(id(v))
    if isinstance(v, numbers.Number) and not isinstance(v, complex):  # numpy scalars, Fraction
        return _surfaces(float(v)) if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral) \
            else [str(int(v))]
    raise InputTypeError(
        f"{where}: a value of type {type(v).__name__} is not understood (str, int, float, Decimal, "
        "bool, None, list / tuple / set of them, or {'value': ...})")


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _singular(w: str) -> str:
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _var_key(name: str) -> str:
    s = unicodedata.normalize("NFC", name).strip().lstrip("?$")
    s = _CAMEL.sub("_", s)
    parts = [p for p in re.split(r"[\s_\-.:/]+", s.casefold()) if p]
    return "_".join(_singular(p) for p in parts)


# --------------------------------------------------------------------------------------------
# Rows, identifiers, scopes
# --------------------------------------------------------------------------------------------


class _Rows:
    def __init__(self, rows: Sequence[Mapping[str, Any]], id_fields: Sequence[str] | None):
        self.rows = rows
        self.variables: list[str] = []
        seen: set[str] = set()
        self.surf: list[dict[str, list[str]]] = []
        for row in rows:
            d: dict[str, list[str]] = {}
            for k, v in row.items():
                if k not in seen:
                    seen.add(k)
                    self.variables.append(k)
                d[k] = _surfaces(v, f"rows[{len(self.surf)}][{k!r}]")
            self.surf.append(d)
        self._keys: dict[str, list[str]] | None = None
        # identifying surfaces: token-key -> (row index, original surface, columns)
        occ: dict[str, dict[int, tuple[str, set[str]]]] = {}
        idf = set(id_fields) if id_fields is not None else None
        for ri, d in enumerate(self.surf):
            for col, ss in d.items():
                if idf is not None and col not in idf:
                    continue
                if idf is None:
                    raw = self.rows[ri][col]
                    if type(raw) is not str and not isinstance(raw, str) and not (
                        isinstance(raw, Mapping) and isinstance(raw.get("value"), str)
                    ):
                        continue
                for s in ss:
                    key = " ".join(_tokens(s))
                    if not key:
                        continue
                    slot = occ.setdefault(key, {})
                    if ri in slot:
                        slot[ri][1].add(col)
                    else:
                        slot[ri] = (s.strip(), {col})
        # ``ids``: surfaces unique to one row. ``blockers``: the other surfaces; a longest match on
        # one consumes its words without naming a record (so "York" inside a non-unique
        # "New York" does not name the York row).
        self.ids: dict[str, tuple[int, str, frozenset[str]] | None] = {}
        for key, slot in occ.items():
            if len(slot) == 1 and (idf is not None or _HAS_ALPHA.search(key)):
                ri, (label, cols) = next(iter(slot.items()))
                self.ids[key] = (ri, label, frozenset(cols))
            else:
                self.ids[key] = None
        self.max_id_len = max((k.count(" ") + 1 for k in self.ids), default=0)

    def reaim(self, variable: str) -> str | None:
        if self._keys is None:
            self._keys = {}
            for v in self.variables:
                self._keys.setdefault(_var_key(v), []).append(v)
        cands = self._keys.get(_var_key(variable), [])
        return cands[0] if len(cands) == 1 else None

    def named(
        self, sentence: str, asserted_values: list[str], asserted_cols: set[str]
    ) -> tuple[int, str] | None | bool:
        """(row, label) if the sentence names exactly one record, None if none, False if several."""
        if not self.ids:
            return None
        toks = _tokens(sentence)
        excl = [" " + " ".join(_tokens(a)) + " " for a in asserted_values]
        hits: dict[int, str] = {}
        i, n = 0, len(toks)
        while i < n:
            for length in range(min(self.max_id_len, n - i), 0, -1):
                key = " ".join(toks[i : i + length])
                if key not in self.ids:
                    continue
                hit = self.ids[key]
                i += length - 1
                if hit is not None:
                    ri, label, cols = hit
                    if not (any((" " + key + " ") in e for e in excl) or cols <= asserted_cols):
                        hits.setdefault(ri, label)
                break
            i += 1
        if not hits:
            return None
        if len(hits) > 1:
            return False
        return next(iter(hits.items()))


def _sentence_starts(text: str) -> list[int]:
    starts = [0]
    for m in _SENT_END.finditer(text):
        e = m.end()
        if starts[-1] < e < len(text):
            starts.append(e)
    return starts


# --------------------------------------------------------------------------------------------
# Main entry point
# --------------------------------------------------------------------------------------------


def _cap(values: list[str], max_observed: int) -> tuple[tuple[str, ...], int]:
    return tuple(values[:max_observed]), len(values)


def check_citations(
    answer: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    max_observed: int = 10,
    id_fields: Sequence[str] | None = None,
) -> CitationReport:
    """Strip the ``[ref:…]`` markers from ``answer`` and check each against ``rows``.

    Args:
        answer: model output with inline markers (any Unicode; offsets are code points).
        rows: the query's result rows, each a mapping ``variable -> value`` (see module docs for
            the value types understood). Any iterable of mappings is accepted.
        max_observed: cap on ``CitationCheck.observed_values`` (>= 0); ``observed_total`` counts
            before the cap.
        id_fields: columns whose values identify a record for scoping; default: every string
            value that occurs in exactly one row.

    Returns:
        :class:`CitationReport` with the stripped answer and one check per marker, in order.

    Raises:
        InputTypeError: ``answer`` is not a ``str``, ``rows`` is not an iterable of mappings
            with ``str`` keys (the message names the offending index), a row value is of a type
            not listed in the module docs, or ``id_fields`` is not a sequence of str.
        ConfigError: ``max_observed`` is not a non-negative integer (``field="max_observed"``).

    Never raises on malformed markers: they are reported as ``unverifiable`` with ``problem``.
    Thread-safe: pure function of its arguments.
    """
    if not isinstance(answer, str):
        raise InputTypeError(f"answer must be a str, got {type(answer).__name__}")
    if isinstance(max_observed, bool) or not isinstance(max_observed, int) or max_observed < 0:
        raise ConfigError(
            f"max_observed must be a non-negative int, got {max_observed!r}", field="max_observed"
        )
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable):
        raise InputTypeError(f"rows must be a sequence of mappings, got {type(rows).__name__}")
    rows = list(rows)
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            raise InputTypeError(f"rows[{i}] must be a mapping, got {type(r).__name__}")
        for k in r:
            if not isinstance(k, str):
                raise InputTypeError(f"rows[{i}]: variable names must be str, got {type(k).__name__} {k!r:.40}")
    if id_fields is not None:
        if isinstance(id_fields, (str, bytes)) or not all(isinstance(f, str) for f in id_fields):
            raise InputTypeError("id_fields must be a sequence of str")

    text, markers = _strip(answer)
    if not markers:
        return CitationReport(answer=text, checks=())

    table = _Rows(rows, id_fields)
    starts = _sentence_starts(text)
    sent_of = [bisect_right(starts, m.pos) - 1 for m in markers]
    by_sentence: dict[int, list[_Marker]] = {}
    for m, s in zip(markers, sent_of):
        by_sentence.setdefault(s, []).append(m)
    named_cache: dict[int, tuple[int, str] | None | bool] = {}

    def named(si: int) -> tuple[int, str] | None | bool:
        if si not in named_cache:
            sent = text[starts[si] : starts[si + 1] if si + 1 < len(starts) else len(text)]
            ms = by_sentence.get(si, [])
            vals = [m.value for m in ms if m.value is not None]
            cols: set[str] = set()
            for m in ms:
                if m.kind == "asserted" and m.variable is not None:
                    cols.add(m.variable)
                    alt = m.variable if m.variable in table.variables else table.reaim(m.variable)
                    if alt is not None:
                        cols.add(alt)
            named_cache[si] = table.named(sent, vals, cols)
        return named_cache[si]

    checks = []
    for m, si in zip(markers, sent_of):
        here = named(si)
        if isinstance(here, tuple):
            scope, label, scoped = "record", here[1], [here[0]]
        elif here is None and si > 0 and isinstance(named(si - 1), tuple):
            prev = named(si - 1)
            assert isinstance(prev, tuple)
            scope, label, scoped = "inherited_record", prev[1], [prev[0]]
        else:
            scope, label, scoped = "result_set", None, list(range(len(rows)))
        checks.append(_check(m, table, scope, label, scoped, max_observed))
    return CitationReport(answer=text, checks=tuple(checks))


def _check(
    m: _Marker, table: _Rows, scope: str, label: str | None, scoped: list[int], cap: int
) -> CitationCheck:
    base = dict(marker=m.body, scope=scope, scope_label=label)
    if m.kind in ("malformed", "merged"):
        return CitationCheck(
            variable=None, asserted_value=m.value, verdict="unverifiable", problem=m.problem,
            **base,  # type: ignore[arg-type]
        )  # fmt: skip
    assert m.variable is not None
    var: str | None = m.variable
    re_aimed = False
    if var not in table.variables:
        var = table.reaim(m.variable)
        re_aimed = var is not None
    if var is None:
        return CitationCheck(
            variable=None, asserted_value=m.value, verdict="unresolved", **base  # type: ignore[arg-type]
        )
    observed = [s for ri in scoped for s in table.surf[ri].get(var, [])]
    values, total = _cap(observed, cap)
    if not observed:
        return CitationCheck(
            variable=None if re_aimed else var, asserted_value=m.value, verdict="unresolved",
            **base,  # type: ignore[arg-type]
        )  # fmt: skip
    common = dict(observed_values=values, observed_total=total, **base)
    if m.value is None:
        return CitationCheck(
            variable=var, asserted_value=None, verdict="cited",
            repair="model_re_aimed" if re_aimed else None,
            repair_variables=(var,) if re_aimed else (),
            **common,  # type: ignore[arg-type]
        )  # fmt: skip
    asserted = m.value
    rung = _simple_match(asserted, observed)
    if re_aimed:
        if rung is None:
            return CitationCheck(
                variable=None, asserted_value=asserted, verdict="unresolved", **base  # type: ignore[arg-type]
            )
        return CitationCheck(
            variable=var, asserted_value=asserted, verdict="confirmed", repair="model_re_aimed",
            repair_variables=(var,), **common,  # type: ignore[arg-type]
        )  # fmt: skip
    if rung is not None:
        return CitationCheck(
            variable=var, asserted_value=asserted, verdict="confirmed", repair=rung,
            **common,  # type: ignore[arg-type]
        )  # fmt: skip
    cover = _token_coverage(asserted, var, scoped, table)
    if cover is not None:
        return CitationCheck(
            variable=var, asserted_value=asserted, verdict="confirmed", repair="token_coverage",
            repair_variables=(var, cover), **common,  # type: ignore[arg-type]
        )  # fmt: skip
    holders: list[str] = []
    for ri in scoped:
        for other, ss in table.surf[ri].items():
            if other != var and other not in holders and _simple_match(asserted, ss) is not None:
                holders.append(other)
    if holders:
        return CitationCheck(
            variable=var, asserted_value=asserted, verdict="unverifiable", repair="mis_pointed",
            repair_variables=tuple(holders), **common,  # type: ignore[arg-type]
        )  # fmt: skip
    problem = _unreadable_comparison(asserted, observed)
    if problem is not None:  # refuted only when both values were read and differ
        return CitationCheck(
            variable=var, asserted_value=asserted, verdict="unverifiable", problem=problem,
            **common,  # type: ignore[arg-type]
        )  # fmt: skip
    return CitationCheck(
        variable=var, asserted_value=asserted, verdict="refuted", **common  # type: ignore[arg-type]
    )


def _token_coverage(asserted: str, var: str, scoped: list[int], table: _Rows) -> str | None:
    a = _tokens(asserted)
    if len(a) < 2:
        return None
    for ri in scoped:
        d = table.surf[ri]
        for cs in d.get(var, []):
            c = _tokens(cs)
            if not c or len(c) >= len(a):
                continue
            for other, ss in d.items():
                if other == var:
                    continue
                for os_ in ss:
                    o = _tokens(os_)
                    if not o or len(c) + len(o) != len(a):
                        continue
                    for first, second in ((c, o), (o, c)):
                        if first + second == a and not (
                            first[-1].isdigit() and second[0].isdigit()
                        ):
                            return other
    return None

"""Numeric verification of a text: its internal consistency (:func:`verify_numeric`) and its
numbers against evidence (:func:`verify_numbers`).

:func:`verify_numeric` follows the semantics of director-ai's ``verify_numeric(text)``: it looks
for numbers that cannot all be right whatever the facts are, and reports each as a
:class:`~director_fast.types.verification.NumericIssue`:

============  =========  ================================================================================
issue_type    severity   when
============  =========  ================================================================================
arithmetic    error      a stated percentage change disagrees with its own endpoints by more than 1
                         percentage point ("grew 50% from $10M to $12M": the change is 20%), or points the
                         other way ("fell 10% from 200 to 220")
date_logic    warning    a year more than 5 years after the current year
date_logic    error      a death year before a birth year; a founding year after the current year
probability   error      a probability, chance, likelihood or confidence above 100% or below 0%
magnitude     warning    a well-known quantity far outside its range (world population outside 6-12
                         billion, the speed of light outside 200,000-400,000 km/s)
internal      error      two totals of one text that differ by more than 1%
============  =========  ================================================================================

``valid`` is False iff an issue is an error; ``claims_found`` counts the numbers of the text
(:func:`director_fast.verify.numbers.find_numbers`; director-ai adds its pattern matches to its own raw
count, so the two counts differ).

:func:`verify_numbers` also aligns every number of a response with the evidence number about the
same thing (:func:`director_fast.verify.number_alignment.align_number`, the aligner of the claim
pipeline) and sorts it into ``matches``, ``mismatches`` (each also an ``evidence_mismatch``
error) or ``unverifiable``.

Thread safety: pure functions; safe from any number of threads.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from typing import Any

from director_fast._validate import check_text
from director_fast.safety.halt_evidence import EvidenceChunk
from director_fast.types.verification import (
    NumericIssue,
    NumericMatch,
    NumericMismatch,
    NumericSpan,
    NumericVerificationResult,
)
from director_fast.errors import InputTypeError, ValidationError
from director_fast.verify.numbers import NumberMention, find_numbers

__all__ = ["verify_numeric", "verify_numbers", "FUTURE_YEAR_SLACK", "PERCENT_TOLERANCE", "GENERIC_QUANTITY_WORDS"]

#: a year more than this many years after the current one is a ``date_logic`` warning
FUTURE_YEAR_SLACK = 5
#: percentage points a stated change may differ from the change its endpoints give
PERCENT_TOLERANCE = 1.0
# two totals further apart than this share of the first disagree
_TOTAL_TOLERANCE = 0.01

_UP = r"grew|grow|grows|increased|increases|rose|rises|gained|gains|climbed|jumped|went\s+up"
_DOWN = r"decreased|decreases|dropped|drops|fell|falls|declined|declines|lost|loses|shrank|went\s+down"
_CHANGE = re.compile(rf"\b(?:(?P<up>{_UP})|(?P<down>{_DOWN})|changed|changes)\b(?:\s+by)?\s*", re.IGNORECASE)
_FROM = re.compile(r"\b(?:from|of)\s+$", re.IGNORECASE)
_TO = re.compile(r"\bto\s+$", re.IGNORECASE)
_PROBABILITY = re.compile(r"\s*(?:probability|chance|likelihood|confidence)\b", re.IGNORECASE)
_NEGATIVE = re.compile(r"(?:-|−|\bminus\s+)$", re.IGNORECASE)
_YEAR_EVENT = re.compile(r"\b(born|died|founded|established)\s+(?:in\s+)?(\d{4})\b", re.IGNORECASE)
_TOTAL = re.compile(r"\btotal(?:\s+(?:of|is|was|comes\s+to))?\s*:?\s*$", re.IGNORECASE)
_MAGNITUDES = (
    # (what, pattern before the number, unit key, lo, hi, how the range is printed)
    ("world population", re.compile(r"\b(?:world|earth|global|planet)(?:'s)?\b[^.]{0,40}\bpopulation\b[^.\d]{0,30}$",
                                    re.IGNORECASE), "", 6e9, 12e9, "6-12 billion"),
    ("speed of light", re.compile(r"\bspeed\s+of\s+light\b[^.\d]{0,30}$", re.IGNORECASE), "km/s", 2e5, 4e5,
     "200,000-400,000 km/s"),
)
_PER_SECOND = re.compile(r"\s*(?:km|kilometres|kilometers)\s*(?:/|per\s+)\s*(?:s|sec|second)\b", re.IGNORECASE)
_PER_SECOND_TAIL = re.compile(r"\s*(?:/|per\s+)\s*(?:s|sec|second)\b", re.IGNORECASE)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def _years(text: str, mentions: Sequence[NumberMention]) -> list[NumberMention]:
    return [m for m in mentions if not m.unit and len(m.surface) == 4 and m.surface.isdigit()
            and 1000 <= m.value <= 2999]


def _check_changes(text: str, mentions: Sequence[NumberMention], issues: list[NumericIssue]) -> None:
    """``arithmetic``: "<verb> [by] P% from A to B" with A, B of one kind."""
    for c in _CHANGE.finditer(text):
        pct = next((m for m in mentions if m.start == c.end() and m.unit == "%"), None)
        if pct is None:
            continue
        window_end = min(len(text), pct.end + 160)
        later = [m for m in mentions if pct.end <= m.start < window_end]
        a = next((m for m in later if _FROM.search(text, max(0, m.start - 8), m.start)), None)
        if a is None:
            continue
        b = next((m for m in later if m.start > a.end and _TO.search(text, max(0, m.start - 6), m.start)), None)
        if b is None or a.base_unit != b.base_unit or a.quantity <= 0:
            continue
        actual = abs(b.quantity - a.quantity) / a.quantity * 100.0
        context = text[c.start():b.end]
        if abs(actual - pct.value) > PERCENT_TOLERANCE:
            issues.append(NumericIssue(
                "arithmetic", f"a {_fmt(pct.value)}% change from {a.surface} to {b.surface}; the change is "
                f"{actual:.1f}%", "error", context))
        elif (c.group("up") and b.quantity < a.quantity) or (c.group("down") and b.quantity > a.quantity):
            issues.append(NumericIssue(
                "arithmetic", f"'{c.group(0).strip()}' but {a.surface} to {b.surface} goes the other way",
                "error", context))


def _check_dates(text: str, mentions: Sequence[NumberMention], current_year: int,
                 issues: list[NumericIssue]) -> None:
    for m in _years(text, mentions):
        if m.value > current_year + FUTURE_YEAR_SLACK:
            issues.append(NumericIssue("date_logic", f"year {m.surface} is far in the future (current year: "
                                       f"{current_year})", "warning", m.surface))
    events: dict[str, list[int]] = {}
    for e in _YEAR_EVENT.finditer(text):
        events.setdefault(e.group(1).lower(), []).append(int(e.group(2)))
    for born in events.get("born", []):
        for died in events.get("died", []):
            if died < born:
                issues.append(NumericIssue("date_logic", f"death year {died} is before birth year {born}",
                                           "error", f"born {born}, died {died}"))
    for what in ("founded", "established"):
        for year in events.get(what, []):
            if year > current_year:
                issues.append(NumericIssue("date_logic", f"{what} in {year}, after the current year "
                                           f"{current_year}", "error", f"{what} {year}"))


def _check_probabilities(text: str, mentions: Sequence[NumberMention], issues: list[NumericIssue]) -> None:
    for m in mentions:
        word = _PROBABILITY.match(text, m.end) if m.unit == "%" else None
        if word is None:
            continue
        value = -m.value if _NEGATIVE.search(text, max(0, m.start - 6), m.start) else m.value
        if value > 100.0 or value < 0.0:
            issues.append(NumericIssue("probability", f"a {word.group(0).strip()} of {_fmt(value)}% is outside "
                                       "0-100%", "error", text[m.start:word.end()]))


def _check_magnitudes(text: str, mentions: Sequence[NumberMention], issues: list[NumericIssue]) -> None:
    for what, before, unit, lo, hi, shown in _MAGNITUDES:
        for m in mentions:
            if not before.search(text, max(0, m.start - 90), m.start):
                continue
            if unit == "km/s" and not (m.unit == "km" and _PER_SECOND_TAIL.match(text, m.end)
                                       or not m.unit and _PER_SECOND.match(text, m.end)):
                continue
            if unit == "" and m.unit:
                continue
            if not lo <= m.value <= hi:
                issues.append(NumericIssue("magnitude", f"{what} of {m.surface} is outside the expected {shown}",
                                           "warning", text[max(0, m.start - 40):m.end].strip()))
            break


def _check_totals(text: str, mentions: Sequence[NumberMention], issues: list[NumericIssue]) -> None:
    totals = [m for m in mentions if _TOTAL.search(text, max(0, m.start - 24), m.start)]
    for t in totals[1:]:
        first = totals[0]
        if first.base_unit != t.base_unit:
            continue
        if abs(t.quantity - first.quantity) > _TOTAL_TOLERANCE * max(abs(first.quantity), 1.0):
            issues.append(NumericIssue("internal", f"inconsistent totals: {first.surface} and {t.surface}", "error",
                                       f"total {first.surface} ... total {t.surface}"))


def _current_year(current_year: Any) -> int:
    if current_year is None:
        return datetime.date.today().year
    if isinstance(current_year, bool) or not isinstance(current_year, int):
        raise InputTypeError(f"current_year must be an int or None, got {type(current_year).__name__}")
    if not 1 <= current_year <= 9999:
        raise ValidationError(f"current_year must be in [1, 9999], got {current_year}")
    return current_year


def _internal(text: str, mentions: Sequence[NumberMention], year: int) -> list[NumericIssue]:
    issues: list[NumericIssue] = []
    _check_changes(text, mentions, issues)
    _check_dates(text, mentions, year, issues)
    _check_probabilities(text, mentions, issues)
    _check_magnitudes(text, mentions, issues)
    _check_totals(text, mentions, issues)
    return issues


def verify_numeric(text: str, *, current_year: int | None = None) -> NumericVerificationResult:
    """Check the numbers of ``text`` for internal consistency (module docstring table).

    Args:
        text: any str.
        current_year: the year "now" for the date checks (default: today's year; pass one in
            tests for a result that does not change with the date).

    Returns:
        :class:`~director_fast.types.verification.NumericVerificationResult` with
        ``claims_found`` = numbers of ``text``, the ``issues`` and ``valid`` (no error issue);
        ``matches`` / ``mismatches`` / ``unverifiable`` empty.

    Raises:
        InputTypeError: ``text`` is not a str, or ``current_year`` is not an int.
        ValidationError: a lone surrogate in ``text``; ``current_year`` outside [1, 9999].

    Cost: linear in ``len(text)`` plus a few regex scans per number.

    Example:
        >>> r = verify_numeric("Revenue grew 50% from $10M to $12M.")
        >>> r.valid, r.issues[0].issue_type
        (False, 'arithmetic')
    """
    check_text(text, "text")
    year = _current_year(current_year)
    mentions = find_numbers(text)
    issues = _internal(text, mentions, year)
    return NumericVerificationResult(claims_found=len(mentions), issues=issues,
                                     valid=all(i.severity != "error" for i in issues))


def _evidence_items(evidence: Any) -> list[tuple[str, str]]:
    """``(label, text)`` per evidence item."""
    if isinstance(evidence, (str, EvidenceChunk)):
        evidence = [evidence]
    if not isinstance(evidence, Sequence):
        raise InputTypeError(f"evidence must be a str, an EvidenceChunk or a sequence of them, "
                             f"got {type(evidence).__name__}")
    out = []
    for i, item in enumerate(evidence):
        if isinstance(item, EvidenceChunk):
            out.append((item.source or f"evidence[{i}]", item.text))
        elif isinstance(item, str):
            check_text(item, f"evidence[{i}]")
            out.append((f"evidence[{i}]", item))
        else:
            raise InputTypeError(f"evidence[{i}] must be a str or an EvidenceChunk, got {type(item).__name__}")
    return out


#: words that say what is done with a quantity, not what it is about: sharing only these does not
#: make two numbers about the same subject ("a jacket costs" / "delivery costs")
GENERIC_QUANTITY_WORDS = frozenset(
    "cost price pay paid charge fee save saving get take have make open close run start end last "
    "include offer available per each every only just about around total amount".split())


def _subject_words(text: str, mention: NumberMention, mentions: Sequence[NumberMention]) -> set[str]:
    """What a number of a response is about: the words next to it and of its clause, and the noun it
    counts, less :data:`GENERIC_QUANTITY_WORDS`."""
    from director_fast.verify.number_alignment import clause_words, counted_noun, near_words

    words = set(near_words(text, mention, mentions)) | clause_words(text, mention.start, mention.end)
    noun = counted_noun(text, mention, mentions)
    if noun:
        words.add(noun)
    return words - GENERIC_QUANTITY_WORDS


def _same_subject(text: str, mention: NumberMention, mentions: Sequence[NumberMention], pool: Any,
                  al: Any) -> Any:
    """The aligner's answer for a number it found no equal for, by subject: a conflict stands
    when the evidence number is about the number's subject (:func:`_subject_words` meets the
    evidence number's words); otherwise (a conflict about another subject, or nothing settled
    among all the evidence numbers) the number is aligned again among the evidence numbers about
    its subject only (``"absent"`` when none is). A number with no subject words of its own
    ("It costs £5") keeps the aligner's answer."""
    from director_fast.verify.number_alignment import align_number

    subject = _subject_words(text, mention, mentions)
    if not subject:
        return al
    if al.evidence is not None and subject & (al.evidence.clause | al.evidence.before | al.evidence.near):
        return al
    about = [e for e in pool if subject & (e.clause | e.before | e.near)]
    if not about or len(about) == len(pool):
        return al if al.evidence is None else type(al)("absent")
    return align_number(text, mention, mentions, about, other_units=True)


def _rate_applied(result: NumberMention, earlier: Sequence[NumberMention]) -> bool:
    """True when ``result`` (an amount with a unit) is a stated rate applied to a stated amount
    of the same unit that comes before it ("save 10%, so a £80 jacket costs £72": 80 x (1 - 10%);
    also + p% and p% of): the formulas of :mod:`director_fast.verify.derived_numbers`, with one
    amount and the rates as operands, and no result cue needed."""
    from director_fast.verify.derived_numbers import _derivable

    if not result.base_unit or result.unit == "%":
        return False
    rates = [x for x in earlier if x.unit == "%"]
    if not rates:
        return False
    return any(_derivable(result, [a, *rates]) is not None for a in earlier
               if a.base_unit == result.base_unit and a is not result)


def verify_numbers(response: str, evidence: Any, *, current_year: int | None = None) -> NumericVerificationResult:
    """Verify every number of ``response`` against ``evidence``, plus :func:`verify_numeric`'s
    internal checks.

    Each number of each unit of the response (:func:`director_fast.split_claims`) is aligned
    with the evidence number about the same subject and quantity, sentence by sentence of the
    evidence (:func:`director_fast.verify.number_alignment.align_numbers`, the claim pipeline's
    aligner, other units allowed); a conflict stands only when the evidence number is about the
    response number's subject: the words next to it, of its clause and the noun it counts, less
    generic quantity words (:data:`GENERIC_QUANTITY_WORDS`: "costs", "open", ...), must meet the
    evidence number's words ("a £80 jacket" is not about "Standard delivery costs £4.95"; a
    phone line's "8am-8pm" is not about the store's opening time):

    * an equal quantity (same unit, or the same quantity in another unit of its dimension:
      "2 weeks" / "14 days") -> ``matches``;
    * only other quantities, or the same value in another unit ("32 lb" against "32 kg") ->
      ``mismatches`` and an ``evidence_mismatch`` error issue (``valid`` is False);
    * a number the response computes from its own numbers ("£3.20 and £3.50, so £6.70
      altogether", :func:`director_fast.verify.derived_numbers.derived_spans`), or a stated rate
      applied to a stated amount before it ("Members save 10%, so a £80 jacket costs £72") ->
      ``matches`` with ``evidence_ref="arithmetic"`` (a derived result is never a mismatch);
    * otherwise (no evidence number is about it) -> ``unverifiable``.

    Numbers beyond the float range (a digit run of 300+ digits) are counted in
    ``claims_found`` and not aligned.

    Args:
        response: the text to check.
        evidence: a str, an :class:`~director_fast.safety.halt_evidence.EvidenceChunk`, or a
            sequence of them (a chunk's ``source`` labels its references).
        current_year: as in :func:`verify_numeric`.

    Returns:
        :class:`~director_fast.types.verification.NumericVerificationResult`.

    Raises:
        InputTypeError: ``response`` is not a str; ``evidence`` (or an item, named by index) of
            another type.
        ValidationError: a lone surrogate in a text; a bad ``current_year``.

    Cost: linear in the texts' lengths plus, per response number, one pass over the evidence
    numbers (sets of a few words each).

    Example:
        >>> r = verify_numbers("A checked bag costs NOK 550.", "A checked bag costs NOK 450.")
        >>> [(m.claim_value, m.evidence_value, m.unit) for m in r.mismatches]
        [(550.0, 450.0, 'nok')]
    """
    from director_fast.verify.claims import split_claims
    from director_fast.verify.derived_numbers import derived_spans
    from director_fast.verify.number_alignment import align_numbers, evidence_numbers
    from director_fast.verify.text import split_sentences

    check_text(response, "response")
    items = _evidence_items(evidence)
    year = _current_year(current_year)
    sentences: list[str] = []
    where: list[tuple[str, int]] = []  # (label, offset of the sentence in its item)
    for label, text in items:
        for a, b in split_sentences(text):
            sentences.append(text[a:b])
            where.append((label, a))
    pool = evidence_numbers(sentences)

    def ref(e: Any) -> str:  # "<label>@<start>:<end>": the evidence number's span in its item
        label, off = where[e.unit]
        return f"{label}@{off + e.mention.start}:{off + e.mention.end}"

    mentions_all = find_numbers(response)
    issues = _internal(response, mentions_all, year)
    matches: list[NumericMatch] = []
    mismatches: list[NumericMismatch] = []
    unverifiable: list[NumericSpan] = []
    units = split_claims(response)
    for k, u in enumerate(units):
        mentions = find_numbers(u.text)
        if not mentions:
            continue
        context = (units[k - 1].text,) if k > 0 else ()
        derived = derived_spans(u.text, context)  # each span: a result with its cue
        before = [x for x in find_numbers(context[0])] if context else []
        # "one" is a pronoun as often as a number ("to be offered one"); the lexical NLI does not
        # count it either
        mentions = [m for m in mentions if m.surface.lower() != "one" and abs(m.value) < float("inf")]
        for i, (m, al) in enumerate(zip(mentions, align_numbers(u.text, mentions, pool, other_units=True))):
            start, end = u.start + m.start, u.start + m.end
            if al.kind != "equal":
                al = _same_subject(u.text, m, mentions, pool, al)
            computed = any(a <= m.start and m.end <= b for a, b in derived) \
                or (al.kind != "equal" and _rate_applied(m, before + mentions[:i]))
            if al.kind == "equal" or computed:
                if al.kind == "equal" and al.evidence is not None:
                    e = al.evidence
                    matches.append(NumericMatch(m.value, e.mention.value, m.unit, start, end, ref(e),
                                                e.mention.unit))
                else:
                    matches.append(NumericMatch(m.value, m.value, m.unit, start, end, "arithmetic", m.unit))
            elif al.kind == "conflict" and al.evidence is not None:
                e = al.evidence
                mismatches.append(NumericMismatch(m.value, e.mention.value, m.unit, start, end, ref(e),
                                                  e.mention.unit))
                what = "the same value in another unit" if al.unit_conflict else "another quantity"
                issues.append(NumericIssue(
                    "evidence_mismatch", f"'{m.surface}' in the response; the evidence about it states "
                    f"'{e.mention.surface}' ({what})", "error", u.text))
            else:
                unverifiable.append(NumericSpan(m.value, m.unit, start, end))
    return NumericVerificationResult(
        claims_found=len(mentions_all), issues=issues, valid=all(i.severity != "error" for i in issues),
        matches=matches, mismatches=mismatches, unverifiable=unverifiable)

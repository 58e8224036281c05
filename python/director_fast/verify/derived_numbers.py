"""Numbers an answer computes from numbers it states: "The swim is £3.20 and the sauna adds £3.50,
so that's £6.70 altogether." The £6.70 is in no knowledge-base sentence; it is right because
3.20 + 3.50 = 6.70. :func:`derived_spans` finds such results by arithmetic so that the claim
pipeline checks them that way (and checks the operands against the evidence as usual), instead
of reading them as numbers the evidence lacks.

A number counts as derived only when all of these hold:

* a result cue stands right before it ("so", "that's", "which makes", "bringing it down to",
  "comes to", "works out at", "adds up to", "saves you", "a total of", "would be", "will cost",
  "=", up to three words
  before the number and after the number before it; or "so ... is": "so the last entry is 9
  pm") or right after it ("in total", "altogether", "overall", "combined"); or it is
  set against an earlier result of the same claim that was derived ("that's £5.70 with the card
  versus £7.60 with the student discount": "versus", "vs", "compared with", "against", "whereas",
  "while", "instead of", "rather than"); "one" (as often a pronoun) and a number without a unit
  before "of" ("making it one of six", "3 of the rooms") are never results;
* it equals, within half a cent (0.005 plus 1e-9 relative), one of these over the operands: a + b,
  a - b, a + b + c, a * f, a * k, a * k + b, a * k + b * l, a * (1 - p/100), a * (1 + p/100), a * p/100,
  a * (1 - p/100) * k, a * k * l, a / k, each operand a different number of the text, where a, b, c are
  quantities of the result's kind (same base unit), f a fraction ("half": "£4.75 (half of the £9.50 single)"), k a count (a whole number from 1 to 1,000
  without a unit or with a period unit: "twelve months", "3 nights"; or 12, 52 or 7 when the
  texts name both periods: "£3 a month adds up to £36 over a year") and p a percentage; for a time
  of day, t + d or t - d with d a duration ("closes at 9:30 pm ... half an hour before that, so
  9 pm"); for a duration, t2 - t1 with two times ("from 18:30 to 21:00, so two and a half hours").

The operands are the other numbers of the claim's own sentence and of the sentence before it (not
the user's question: "I have 2 kids" must not turn "£4 an hour" into "£8 in total"; nor the
evidence: a result is excused only when the reply shows how it was computed, and each operand it
shows is checked against the evidence as any number is). Within a claim, results are read in text
order and a result is never an operand of an earlier one, so two wrong results never excuse each
other; a wrong result is never derived (a claim "so that's £7.70" keeps its number and is judged as
before; "£3 a month adds up to £38 over a year" keeps its £38). :func:`strip_derived` also drops
the counts a derived result was computed with ("so twelve months would come to £3,120": the
number of months is the asker's scenario, not a fact of the evidence). Costs: at most a few
thousand float operations per result cue (the operands of three sentences; at most the 16
operands nearest a result and the first 8 results of a claim are considered, so a long run of
numbers costs bounded time).

Thread safety: pure functions over immutable tables.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from typing import Any

from director_fast.verify.numbers import NumberMention, find_numbers
from director_fast.verify.text import content_words

__all__ = ["derived_spans", "strip_derived", "RESULT_CUE_WORDS"]

_CUE_BEFORE = re.compile(
    r"(?:\b(?:so|thus|therefore|that's|that\s+is|that\s+makes|which\s+makes|which\s+comes\s+to|which\s+is|"
    r"making|makes|(?:bringing|brings?)\s+(?:it|that|this|the\s+total|the\s+price|the\s+cost|the\s+fee)(?:\s+(?:down|up))?"
    r"\s+to|comes?\s+to|came\s+to|works?\s+out\s+(?:at|to)|a\s+total\s+of|total\s+of|total\s+is|totall?ing|"
    r"in\s+total|altogether|overall|giving|adds?\s+up\s+to|added\s+up\s+to|sav(?:es|ing)|you\s+save|"
    r"a\s+difference\s+of|would\s+(?:be|cost)|will\s+(?:be|cost))|=|\bso\b[^.;!?]{0,50}?\b(?:is|are|was|would\s+be|will\s+be|becomes?))"
    r"[\s*:,]*(?:[\w'’]+[\s*:,]+){0,3}$",
    re.IGNORECASE)
_CUE_AFTER = re.compile(r"[\s*]*(?:in\s+total|altogether|overall|combined|all\s+in)\b", re.IGNORECASE)
# a second result set against a first one ("that's £5.70 with the card versus £7.60 with the
# other"): a cue only after a result of the same claim that was derived
_CUE_CHAINED = re.compile(r"(?:\b(?:versus|vs\.?|compared\s+(?:with|to)|against|whereas|while|instead\s+of|"
                          r"rather\s+than))[\s*:,]*(?:[\w'’]+[\s*:,]+){0,3}$", re.IGNORECASE)
_LOOK_BEHIND = 60

#: words a claim may keep besides its derived numbers and still assert nothing else ("So that's
#: £6.70 altogether.", "That comes to £205 in total.")
RESULT_CUE_WORDS = frozenset(
    "so thus therefore that that's makes make making which comes come came works work out total totals "
    "totalling totaling altogether overall combined giving bringing brings down all price cost fee "
    "amount sum grand bill adds add added saves saving save difference versus".split())

_TOLERANCE = 0.005
_MAX_COUNT = 1000
# a bound on the work per claim (the formulas are cubic to quartic in the operands): the operands
# nearest the result, and the first results in text order; a real reply sentence stays far below
_MAX_OPERANDS = 16
_MAX_RESULTS = 8
# units whose whole amounts count things ("twelve months", "3 nights", "2 hours" of a rate)
_PERIOD_UNITS = frozenset({"s", "min", "h", "day", "night", "week", "fortnight", "month", "year"})
# periods named in the texts -> the count that converts a rate of the first into one of the second
_PERIOD_WORDS = {
    "day": re.compile(r"\b(?:days?|daily)\b", re.IGNORECASE),
    "week": re.compile(r"\b(?:weeks?|weekly)\b", re.IGNORECASE),
    "month": re.compile(r"\b(?:months?|monthly)\b", re.IGNORECASE),
    "year": re.compile(r"\b(?:years?|yearly|annual|annually|per\s+annum)\b", re.IGNORECASE),
}
_PERIOD_COUNTS = (("month", "year", 12.0), ("week", "year", 52.0), ("day", "week", 7.0))


def _implicit_counts(texts: Sequence[str]) -> list[float]:
    """The period conversions the texts name both ends of: 12 for "£3 a month ... over a year",
    52 for weeks and years, 7 for days and weeks."""
    named = {p for p, rx in _PERIOD_WORDS.items() if any(rx.search(t) for t in texts)}
    return [k for a, b, k in _PERIOD_COUNTS if a in named and b in named]


def _close(x: float, v: float) -> bool:
    return math.isfinite(x) and abs(x - v) <= _TOLERANCE + 1e-9 * abs(v)


def _is_count(m: NumberMention) -> bool:
    return (m.unit == "" or m.unit in _PERIOD_UNITS) and float(m.value).is_integer() and 1 <= m.value <= _MAX_COUNT


def _derivable(result: NumberMention, operands: Sequence[NumberMention],
               implicit: Sequence[float] = ()) -> list[NumberMention] | None:
    """The count operands of a formula of the module docstring over ``operands`` that equals
    ``result`` (``[]`` when one without a stated count does), or None when none does. Each
    mention is used once per formula ("one of three" is no 1 * 3 + 3). ``implicit``: period
    counts the texts name (:func:`_implicit_counts`)."""
    v = result.quantity
    if result.base_unit == "time":
        times = [m.quantity for m in operands if m.base_unit == "time"]
        spans = [m.quantity for m in operands if m.base_unit == "min"]
        ok = any(_close((t + d) % 1440, v) or _close((t - d) % 1440, v) for t in times for d in spans)
        return [] if ok else None
    if result.base_unit == "min" and v > 0:  # "from 18:30 to 21:00, so two and a half hours"
        times = [m.quantity for m in operands if m.base_unit == "time"]
        if any(_close((b - a) % 1440, v) for a, b in itertools.permutations(times, 2)):
            return []
    same = [(m.quantity, k) for k, m in enumerate(operands) if m.base_unit == result.base_unit]
    fractions = [(m.value, k) for k, m in enumerate(operands) if m.unit == "" and 0 < m.value < 1]
    rates = [(m.value, k) for k, m in enumerate(operands) if m.unit == "%"]
    for a, i in same:
        if any(_close(a * f, v) for f, j in fractions if j != i):  # "half of the £9.50"
            return []
        for p, j in rates:
            if j != i and (_close(a * (1 - p / 100), v) or _close(a * (1 + p / 100), v) or _close(a * p / 100, v)):
                return []
    for (a, _i), (b, _j) in itertools.permutations(same, 2):
        if _close(a + b, v) or _close(a - b, v):
            return []
    for (a, _i), (b, _j), (c, _k) in itertools.combinations(same, 3):
        if _close(a + b + c, v):
            return []
    counts: list[tuple[float, int]] = [(m.value, k) for k, m in enumerate(operands) if _is_count(m)]
    counts += [(k, -1) for k in implicit]
    for k, n in counts:
        used = [operands[n]] if n >= 0 else []
        for a, i in same:
            if i == n:
                continue
            if _close(a * k, v) or (k > 0 and _close(a / k, v)) \
                    or any(_close(a * (1 - p / 100) * k, v) for p, j in rates if j not in (i, n)):
                return used  # (a / k: "£105 for 10 sessions, so £10.50 per session")
        for (a, i), (b, j) in itertools.permutations(same, 2):
            if n not in (i, j) and _close(a * k + b, v):
                return used
    # two groups priced apiece: "2 adults at £12 each and two children at £6 each come to £36"
    stated = [(k, n) for k, n in counts if n >= 0]
    for (k, n), (l, m) in itertools.combinations(stated, 2):
        # a rate per person per day: "€65 per person per day, so 2 adults for 2 days comes to €260"
        if any(i not in (n, m) and _close(a * k * l, v) for a, i in same):
            return [operands[n], operands[m]]
        for (a, i), (b, j) in itertools.permutations(same, 2):
            if len({i, j, n, m}) == 4 and _close(a * k + b * l, v):
                return [operands[n], operands[m]]
    return None


_PARTITIVE = re.compile(r"\s+of\b", re.IGNORECASE)


def _result_span(text: str, mention: NumberMention, previous_end: int = 0) -> tuple[int, int] | None:
    """The span of the result cue and the number ("so that's £6.70 altogether"), or None when no
    cue stands right before or after the number. A cue is read after the previous number only
    (``previous_end``: "making it one of six" cues the "one", not the "six"); "one" (as often a
    pronoun) and a number without a unit before "of" ("one of six", "3 of the rooms") are never
    results."""
    if mention.surface.lower() == "one" or (mention.unit == "" and _PARTITIVE.match(text, mention.end)):
        return None
    lo = max(0, previous_end, mention.start - _LOOK_BEHIND)
    before = _CUE_BEFORE.search(text[lo:mention.start])
    after = _CUE_AFTER.match(text, mention.end)
    if before is None and after is None:
        return None
    return (lo + before.start() if before else mention.start), (after.end() if after else mention.end)


def derived_spans(claim: str, context: Sequence[str] = ()) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` (code points) of the results of ``claim`` that are arithmetic on
    its other numbers and on those of ``context`` (the rest of the claim's sentence and the
    sentence before it), each with its cue ("so that's £6.70 altogether"), in text order; see
    the module docstring for the cues and formulas.

    The operands of a result are every number of ``context``, the numbers of the claim before it
    and those after it that have no result cue: a result is never computed from a later result, so
    two wrong results never excuse each other, and a wrong first result stays in the claim to be
    checked ("adds up to £38 over a year, so the £30 option saves you £8": the £38 is not derived).

    Args:
        claim: one claim (str).
        context: other texts whose numbers may be operands.

    Returns:
        ``[]`` when the claim has no result cue or no derivable number.
    """
    return [span for span, _counts in _derivations(claim, context)]


def _derivations(claim: str, context: Sequence[str]) -> list[tuple[tuple[int, int], list[NumberMention]]]:
    """:func:`derived_spans` with, for each result, the count mentions of ``claim`` its formula
    multiplies by ("twelve months" of "twelve months would come to £3,120")."""
    mentions = find_numbers(claim)
    if not mentions:
        return []
    ends = [0] + [m.end for m in mentions]
    cued = {k: span for k, m in enumerate(mentions) if (span := _result_span(claim, m, ends[k])) is not None}
    if not cued:
        return []
    first = min(cued)
    for k in range(first + 1, len(mentions)):  # "... versus £7.60": set against an earlier result
        if k not in cued and (span := _chained_span(claim, mentions[k], ends[k])) is not None:
            cued[k] = span
    pool: list[Any] = [m for text in context for m in find_numbers(text)]
    implicit = _implicit_counts([claim, *context])
    out: list[tuple[tuple[int, int], list[NumberMention]]] = []
    for k in sorted(cued)[:_MAX_RESULTS]:
        m = mentions[k]
        if _result_span(claim, m, ends[k]) is None and not out:  # "versus" after no derived result
            continue
        operands = [x for j, x in enumerate(mentions) if j < k or (j > k and j not in cued)]
        operands = sorted(operands, key=lambda x: abs(x.start - m.start))[:_MAX_OPERANDS]
        used = _derivable(m, operands + pool[-_MAX_OPERANDS:], implicit)
        if used is not None:
            own = [x for x in used if any(x is y for y in mentions)]
            out.append((cued[k], own))
    return out


def _chained_span(text: str, mention: NumberMention, previous_end: int) -> tuple[int, int] | None:
    """The span of a "versus" cue and the number ("versus £7.60"), or None."""
    lo = max(0, previous_end, mention.start - _LOOK_BEHIND)
    before = _CUE_CHAINED.search(text[lo:mention.start])
    return None if before is None else (lo + before.start(), mention.end)


def strip_derived(claim: str, context: Sequence[str]) -> str | None:
    """``claim`` less the results it computes from its context, with their cues
    (:func:`derived_spans`: "..., so that's £6.70 altogether" goes), and less the counts of the
    claim a result was computed with ("twelve months" of "so twelve months would come to
    £3,120": the count of a computation is the asker's scenario, not a fact to look up); None
    when nothing else is left to check (only result cue words and no other number)."""
    found = _derivations(claim, context)
    if not found:
        return claim
    cuts = sorted({span for span, _ in found} | {(m.start, m.end) for _, counts in found for m in counts})
    parts, pos = [], 0
    for a, b in cuts:
        if a < pos:  # a count inside a result's span
            pos = max(pos, b)
            continue
        parts.append(claim[pos:a])
        pos = b
    parts.append(claim[pos:])
    rest = "".join(parts)
    if not find_numbers(rest) and not content_words(rest) - RESULT_CUE_WORDS:
        return None
    return rest

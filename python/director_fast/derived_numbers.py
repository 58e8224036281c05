"""Numbers an answer computes from numbers it states: "The swim is £3.20 and the sauna adds £3.50,
so that's £6.70 altogether." The £6.70 is in no knowledge-base sentence; it is right because
3.20 + 3.50 = 6.70. :func:`derived_spans` finds such results by arithmetic so that the claim
pipeline checks them that way (and checks the operands against the evidence as usual), instead
of reading them as numbers the evidence lacks.

A number counts as derived only when all of these hold:

* a result cue stands right before it ("so", "that's", "which makes", "bringing it down to",
  "comes to", "works out at", "a total of", "=", up to three words before the number) or right
  after it ("in total", "altogether", "overall", "combined");
* it equals, within half a cent (0.005 plus 1e-9 relative), one of these over the operands: a + b,
  a - b, a + b + c, a * k, a * k + b, a * (1 - p/100), a * (1 + p/100), a * p/100,
  a * (1 - p/100) * k, where a, b, c are quantities of the result's kind (same base unit), k a
  count (a bare whole number from 1 to 1,000) and p a percentage; for a time of day, t + d or
  t - d with d a duration ("closes at 9:30 pm ... half an hour before that, so 9 pm").

The operands are the other numbers of the claim's own sentence and of the sentence before it (not
the user's question: "I have 2 kids" must not turn "£4 an hour" into "£8 in total"). A wrong result is never derived (a claim "so that's £7.70" keeps its
number and is judged as before). Costs: at most a few thousand float operations per result cue
(the operands of three sentences).

Thread safety: pure functions over immutable tables.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from typing import Any

from director_fast.numbers import NumberMention, find_numbers
from director_fast.text import content_words

__all__ = ["derived_spans", "strip_derived", "RESULT_CUE_WORDS"]

_CUE_BEFORE = re.compile(
    r"(?:\b(?:so|thus|therefore|that's|that\s+is|that\s+makes|which\s+makes|which\s+comes\s+to|which\s+is|"
    r"making|makes|bringing\s+(?:it|that|this|the\s+total|the\s+price|the\s+cost|the\s+fee)(?:\s+(?:down|up))?"
    r"\s+to|comes?\s+to|came\s+to|works?\s+out\s+(?:at|to)|a\s+total\s+of|total\s+of|total\s+is|totall?ing|"
    r"in\s+total|altogether|overall|giving)|=)[\s*:,]*(?:[\w'’]+[\s*:,]+){0,3}$",
    re.IGNORECASE)
_CUE_AFTER = re.compile(r"[\s*]*(?:in\s+total|altogether|overall|combined|all\s+in)\b", re.IGNORECASE)
_LOOK_BEHIND = 60

#: words a claim may keep besides its derived numbers and still assert nothing else ("So that's
#: £6.70 altogether.", "That comes to £205 in total.")
RESULT_CUE_WORDS = frozenset(
    "so thus therefore that that's makes make making which comes come came works work out total totals "
    "totalling totaling altogether overall combined giving bringing brings down all price cost fee "
    "amount sum grand bill".split())

_TOLERANCE = 0.005
_MAX_COUNT = 1000


def _close(x: float, v: float) -> bool:
    return math.isfinite(x) and abs(x - v) <= _TOLERANCE + 1e-9 * abs(v)


def _is_count(m: NumberMention) -> bool:
    return m.unit == "" and float(m.value).is_integer() and 1 <= m.value <= _MAX_COUNT


def _derivable(result: NumberMention, operands: Sequence[NumberMention]) -> bool:
    """Whether ``result`` equals one of the formulas of the module docstring over ``operands``."""
    v = result.quantity
    if result.base_unit == "time":
        times = [m.quantity for m in operands if m.base_unit == "time"]
        spans = [m.quantity for m in operands if m.base_unit == "min"]
        return any(_close((t + d) % 1440, v) or _close((t - d) % 1440, v) for t in times for d in spans)
    same = [m.quantity for m in operands if m.base_unit == result.base_unit]
    counts = [m.value for m in operands if _is_count(m)]
    rates = [m.value for m in operands if m.unit == "%"]
    for a, b in itertools.permutations(same, 2):
        if _close(a + b, v) or _close(a - b, v):
            return True
        if any(_close(a * k + b, v) for k in counts):
            return True
    for a, b, c in itertools.combinations(same, 3):
        if _close(a + b + c, v):
            return True
    for a in same:
        if any(_close(a * k, v) for k in counts):
            return True
        for p in rates:
            if _close(a * (1 - p / 100), v) or _close(a * (1 + p / 100), v) or _close(a * p / 100, v):
                return True
            if any(_close(a * (1 - p / 100) * k, v) for k in counts):
                return True
    return False


def _result_span(text: str, mention: NumberMention) -> tuple[int, int] | None:
    """The span of the result cue and the number ("so that's £6.70 altogether"), or None when no
    cue stands right before or after the number."""
    lo = max(0, mention.start - _LOOK_BEHIND)
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

    Args:
        claim: one claim (str).
        context: other texts whose numbers may be operands.

    Returns:
        ``[]`` when the claim has no result cue or no derivable number.
    """
    mentions = find_numbers(claim)
    if not mentions:
        return []
    cued = [(m, span) for m in mentions if (span := _result_span(claim, m)) is not None]
    if not cued:
        return []
    pool: list[Any] = [m for text in context for m in find_numbers(text)]
    out = []
    for m, span in cued:
        operands = [x for x in mentions if x is not m] + pool
        if _derivable(m, operands):
            out.append(span)
    return out


def strip_derived(claim: str, context: Sequence[str]) -> str | None:
    """``claim`` less the results it computes from its context, with their cues
    (:func:`derived_spans`: "..., so that's £6.70 altogether" goes); None when nothing else is
    left to check (only result cue words and no other number)."""
    spans = derived_spans(claim, context)
    if not spans:
        return claim
    parts, pos = [], 0
    for a, b in spans:
        parts.append(claim[pos:a])
        pos = b
    parts.append(claim[pos:])
    rest = "".join(parts)
    if not find_numbers(rest) and not content_words(rest) - RESULT_CUE_WORDS:
        return None
    return rest

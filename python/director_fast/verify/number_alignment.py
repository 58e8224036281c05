"""Which evidence number a number of a claim is about: the one aligner of the package.

A number is aligned by its context, never by its value alone: "£75" in "the security deposit is
£75" is about the evidence number whose surrounding words best match "security deposit", not
about the "75 sq ft" of a unit size. The claim pipeline (:func:`director_fast.verify.claim_verdict.compose`)
and :func:`director_fast.verify_numbers` both align through :func:`align_numbers` /
:func:`align_number`.

Context of a number (``text[start:end]`` of a :class:`~director_fast.verify.numbers.NumberMention`):

* its **clause** (:func:`clause_span`): bounded by ``;``, ``(``, ``)``, a comma or colon before a
  space (never inside "1,000" or "08:00"), a spaced dash and the words "and", "but", "while",
  "whereas", "which", "who";
* its **near words** (:func:`near_words`): the content words of up to :data:`NEAR_WORDS` words each
  side inside the clause, stopping at another number;
* for an evidence number, also the words of the **clause before** its own
  ("except for contractors, who get 100 GB": clause {get}, clause before {contractor}).

Words are :func:`director_fast.verify.text.content_words` (3+ letters, function words dropped,
plural "s" folded).

Thread safety: pure functions over immutable values.
"""

from __future__ import annotations

import bisect
import functools
from collections import Counter
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from director_fast import _core
from director_fast.verify.numbers import NumberMention, find_numbers, long_digits_differ, same_value
from director_fast.verify.text import content_word_list, content_words

__all__ = ["EvidenceNumber", "Alignment", "NEAR_WORDS", "clause_span", "clauses", "clause_words", "near_words",
           "counted_noun", "lead_word", "number_kind", "evidence_numbers", "same_quantity", "align_number",
           "align_numbers"]

# clause edges: ";", "(", ")", a comma or colon before a space (never inside "1,000" or "08:00"),
# clause-joining words, a spaced dash
_CLAUSE_EDGE = re.compile(r"[;()]|[,:](?=\s)|\s(?:and|but|while|whereas|which|who)\s|\s[-–—]\s")

#: words each side of a number that say what it counts (:func:`near_words`)
NEAR_WORDS = 4


@functools.lru_cache(maxsize=4096)  # pure; a long evidence text is asked about many numbers
def _edges(text: str) -> tuple[list[int], list[int]]:
    """``(starts, ends)`` of the clause edges of ``text``, in text order."""
    spans = [(m.start(), m.end()) for m in _CLAUSE_EDGE.finditer(text)]
    return [a for a, _b in spans], [b for _a, b in spans]


def clause_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The clause ``(a, b)`` (code points) around ``text[start:end]``, bounded by punctuation and
    clause-joining words (module docstring); ``(0, len(text))`` when no edge stands around it.
    Cost: O(log edges) after one scan of ``text`` (cached)."""
    starts, ends = _edges(text)
    i = bisect.bisect_right(ends, start)  # edges that end at or before ``start``
    j = bisect.bisect_left(starts, end)   # the first edge that starts at or after ``end``
    return (ends[i - 1] if i else 0), (starts[j] if j < len(starts) else len(text))


def clauses(text: str) -> list[str]:
    """The clauses of ``text`` (split at the clause edges of :func:`clause_span`), stripped, empty
    ones dropped: "It opens at 8 from Monday to Saturday and is closed on Sundays." gives ["It
    opens at 8 from Monday to Saturday", "is closed on Sundays."]."""
    return [c.strip() for c in _CLAUSE_EDGE.split(text) if c.strip()]


def clause_words(text: str, start: int, end: int) -> set[str]:
    """Content words of the clause around ``text[start:end]``, the span's own words excluded:
    "Escape-of-water claims carry an excess of £500, and subsidence claims carry £1,000." gives
    {escape, water, claim, carry, excess} for the £500 and {subsidence, claim, carry} for the
    £1,000."""
    a, b = clause_span(text, start, end)
    return _words_outside(text[a:b], text[start:end])


def _number_bounds(text: str, mention: Any, mentions: Sequence[Any]) -> tuple[int, int]:
    """The clause around ``mention`` cut at the numbers next to it: the text a number owns."""
    a, b = clause_span(text, mention.start, mention.end)
    # the mentions are in text order and do not overlap: the neighbours by binary search
    k = bisect.bisect_left(mentions, mention.start, key=_start)
    if k > 0 and mentions[k - 1].end <= mention.start:
        a = max(a, mentions[k - 1].end)
    j = bisect.bisect_left(mentions, mention.end, key=_start)
    if j < len(mentions):
        b = min(b, mentions[j].start)
    return a, b


def _start(m: Any) -> int:
    return m.start


@functools.lru_cache(maxsize=1024)  # pure; asked once per number of a claim
def _word_counts(text: str) -> Counter:
    return Counter(content_word_list(text))


def _words_outside(claim: str, surface: str) -> set[str]:
    """The content words of ``claim`` outside ``surface``, a span of it (a number and its unit;
    the claim's words are counted once per claim, not once per number)."""
    return set(_word_counts(claim) - Counter(content_word_list(surface)))


def near_words(text: str, mention: Any, mentions: Sequence[Any], after_only: bool = False) -> set[str]:
    """Content words of the up to :data:`NEAR_WORDS` words each side of ``mention`` (only after
    it with ``after_only``) inside its clause, stopping at another number of ``mentions``
    ("serves 14 destinations with 9 ATR aircraft": {destination, atr, aircraft} for the 9; after
    it, {atr, aircraft})."""
    a, b = _number_bounds(text, mention, mentions)
    before = [] if after_only else text[a:mention.start].split()[-NEAR_WORDS:]
    after = text[mention.end:b].split()[:NEAR_WORDS]
    return content_words(" ".join(before + after)) - content_words(mention.surface)


def counted_noun(text: str, mention: Any, mentions: Sequence[Any]) -> str:
    """The first content word in the three words after ``mention`` (within its clause, before
    the next number): what the number counts ("64 trams" -> "tram"); "" when there is none, and
    for a time of day, which counts nothing ("at 18:00 on weekdays")."""
    if mention.unit == "time":
        return ""
    _a, b = _number_bounds(text, mention, mentions)
    for w in text[mention.end:b].split()[:3]:
        words = content_words(w)
        if words:
            return next(iter(words))
    return ""


def lead_word(text: str, mention: Any, mentions: Sequence[Any]) -> str:
    """The last content word in the :data:`NEAR_WORDS` words before ``mention`` (within its
    clause, after the number before it): the word the number is the value of ("closes at 21:00"
    -> "close", "a deposit of £75" -> "deposit"); "" when there is none. Of two numbers of one
    sentence ("opens 30 hours before departure and closes 1 hour before departure") it tells
    which one a claim's number stands in for."""
    a, _b = _number_bounds(text, mention, mentions)
    for w in reversed(text[a:mention.start].split()[-NEAR_WORDS:]):
        words = content_word_list(w)
        if words:
            return _core.lexical_stem(words[-1])
    return ""


def number_kind(mention: Any) -> str:
    """What a number measures, for alignment: its base unit, with a bare four-digit number from
    1800 to 2100 a year ("in 2017" is never aligned with "11 people")."""
    if not mention.base_unit and len(mention.surface) == 4 and mention.surface.isdigit() \
            and 1800 <= mention.value <= 2100:
        return "calendar-year"
    return mention.base_unit


@dataclass(frozen=True, slots=True)
class EvidenceNumber:
    """A number of an evidence unit with the words that say what it counts.

    Attributes:
        unit: index of the unit in the sequence given to :func:`evidence_numbers`.
        mention: the :class:`~director_fast.verify.numbers.NumberMention` (offsets within the unit's text).
        near: words next to it (:func:`near_words`).
        noun: the first content word after it (:func:`counted_noun`).
        clause: words of its clause (:func:`clause_words`).
        before: words of the clause before its own.
        lead: the word it is the value of (:func:`lead_word`, stemmed; "" when none).
    """

    unit: int
    mention: NumberMention
    near: frozenset[str]
    noun: str
    clause: frozenset[str]
    before: frozenset[str]
    lead: str = ""


def _text_of(u: Any) -> str:
    return u if isinstance(u, str) else u.text


def evidence_numbers(units: Sequence[Any]) -> list[EvidenceNumber]:
    """Every number of ``units`` (strs, or objects with a ``text`` str such as
    :class:`~director_fast.verify.claim_evidence.EvidenceUnit`; one sentence each gives the sharpest
    clauses) with its context, in unit order then text order.

    Cost: one :func:`~director_fast.verify.numbers.find_numbers` pass per unit plus a few regex scans
    per number.
    """
    return [EvidenceNumber(i, *row) for i, u in enumerate(units) for row in _numbers_in(_text_of(u))]


@functools.lru_cache(maxsize=8192)  # pure; evidence sentences recur from claim to claim
def _numbers_in(text: str) -> tuple[tuple[Any, frozenset[str], str, frozenset[str], frozenset[str], str], ...]:
    """``(mention, near, noun, clause, before, lead)`` for every number of one evidence text."""
    mentions = find_numbers(text)
    out = []
    for m in mentions:
        a, _b = clause_span(text, m.start, m.end)
        before = content_words(text[clause_span(text, a - 1, a - 1)[0]:a]) if a > 0 else set()
        out.append((m, frozenset(near_words(text, m, mentions)), counted_noun(text, m, mentions),
                    frozenset(clause_words(text, m.start, m.end)), frozenset(before), lead_word(text, m, mentions)))
    return tuple(out)


def checkable(mentions: Sequence[Any]) -> list[Any]:
    """The mentions worth aligning: all but a written "one" without a unit word of its own and a
    bare written "half", which are too often no quantity at all ("if one of you comes along",
    "comes along with one"), as in the lexical backend's number check ("once a day", "one week"
    and "one working day" count; "a one-day pass" and "a fortnight" do not)."""
    return [m for m in mentions if any(ch.isdigit() for ch in m.surface) or m.surface.lower() == "once"
            or (m.value == 1.0 and m.unit and m.surface.lower().startswith("one "))
            or not (m.value == 1.0 or (m.value == 0.5 and not m.unit))]


def _close(a: float, b: float) -> bool:
    return same_value(a, b)


def _same_reading(a: Any, b: Any) -> bool | None:
    """The clock and share rules of ``same_time_of_day`` / ``same_share`` in
    cpp/include/director_fast/numbers.hpp (the lexical NLI's): two times of day are the same when
    equal or, when either one's half-day is open (:attr:`~NumberMention.half_day_open`: "7:15"),
    720 minutes apart; two percentages when equal or one is a third or two thirds ("a third of")
    and the other within half a percentage point ("33%", "66.7%"). None when the two mentions are
    not both times or both percentages."""
    if a.unit == "time" and b.unit == "time":
        if _close(a.value, b.value):
            return True
        open_ = getattr(a, "half_day_open", False) or getattr(b, "half_day_open", False)
        return open_ and _close(abs(a.value - b.value), 720.0)
    if a.unit == "%" and b.unit == "%":
        if _close(a.value, b.value):
            return True
        third = any(_close(v, 100 / 3) or _close(v, 200 / 3) for v in (a.value, b.value))
        return third and abs(a.value - b.value) <= 0.5 + 1e-9
    return None


def same_quantity(a: Any, b: Any) -> bool:
    """Whether two mentions state the same quantity: equal :attr:`~NumberMention.quantity`
    (:func:`director_fast.verify.numbers.same_value`; digit by digit for more than 15 digits) and no two different base units ("2 weeks" == "14 days"; "£5" !=
    "5 kg"; a bare number takes any unit's value). Times of day and percentages follow the
    lexical NLI's rules: an unmarked "7:15" (:attr:`~NumberMention.half_day_open`) is 07:15 or
    19:15 ("7:15 am" is not 19:15), and a written third or two thirds ("a third of", "two-thirds
    of") matches a percentage within half a point of it ("33%", "33.3%", "67%", "66.7%")."""
    reading = _same_reading(a, b)
    if reading is not None:
        return reading
    if a.base_unit and b.base_unit and a.base_unit != b.base_unit:
        return False
    if long_digits_differ(a.surface, b.surface):
        return False  # "...428490" / "...428491": one float, two numbers
    return same_value(a.quantity, b.quantity)


@dataclass(frozen=True, slots=True)
class Alignment:
    """Where one number of a claim stands in the evidence (:func:`align_number`).

    Attributes:
        kind: ``"equal"`` (an evidence number about the same thing states the same quantity),
            ``"conflict"`` (the evidence numbers about it state only other quantities) or
            ``"absent"`` (no evidence number of that kind is about it).
        evidence: the aligned evidence number (the equal one, else the first of the best-matching
            ones); None when absent.
        unit_conflict: True when the aligned evidence number is the same value in another unit
            ("32 lb" against "32 kg"; only with ``other_units=True``).
    """

    kind: str
    evidence: EvidenceNumber | None = None
    unit_conflict: bool = False


def align_number(claim: str, mention: Any, mentions: Sequence[Any], evidence: Sequence[EvidenceNumber],
                 *, other_units: bool = False) -> Alignment:
    """Align a number of ``claim`` with the evidence number it is about.

    Args:
        claim: the claim (one sentence or clause) holding the number.
        mention: the number (a :class:`~director_fast.verify.numbers.NumberMention` of ``claim``).
        mentions: every number of ``claim`` (near words stop at them).
        evidence: every number of the evidence units (:func:`evidence_numbers`).
        other_units: when no evidence number of the same kind is about it, also look at evidence
            numbers in another unit that hold the same value ("1 GB" against "1 TB of storage"):
            aligned there, the result is ``"conflict"`` with ``unit_conflict=True``. Both numbers
            must carry a unit.

    Among the evidence numbers of the same kind (:func:`number_kind`: same base unit, or both
    bare; a year only with a year), the ones about the same thing are those whose context best
    matches, in this order: the counted noun (:func:`counted_noun`: "64 trams" is not about "two
    depots"); the words after the claim number (what it counts: "9 ATR aircraft"; not after a
    time of day, which they only qualify) against the words next to the evidence number; the words next to the claim number against the evidence
    number's clause; the words of the claim number's clause against it; then those plus the words
    of the whole claim against the evidence number's clause and the clause before, which must
    share at least three words (two for a claim of fewer than six content words; one when the
    counted noun is the same). Equally good matches in different units that disagree settle
    nothing (``"absent"``), nor does a best match stating another quantity while another unit
    about the claim's words (a weaker match) states this one. A bare number of three or more digits alone in its clause ("call 0800 412 7799") that
    no evidence number is about is aligned with the same digits written anywhere in the evidence.

    Returns:
        :class:`Alignment`.
    """
    # the words after a number say what it counts ("9 ATR aircraft"); after a time of day they
    # only qualify it ("opens at 09:00 on weekdays"): the words around it decide
    after = near_words(claim, mention, mentions, after_only=True) if mention.unit != "time" else set()
    noun = counted_noun(claim, mention, mentions)
    near = near_words(claim, mention, mentions)
    lead = lead_word(claim, mention, mentions)
    own = clause_words(claim, mention.start, mention.end)
    whole = _words_outside(claim, mention.surface)
    need = 3 if len(whole) >= 6 else 2  # a short claim has few words to share

    def scored_pool(pool: Sequence[EvidenceNumber]) -> list[tuple[tuple, EvidenceNumber]]:
        scored = []
        for e in pool:
            clause = len(own & e.clause)
            context = clause + len(whole & (e.clause | e.before))
            counted = bool(noun) and noun == e.noun
            if context >= need or (counted and context >= 1):
                scored.append(((counted, len(after & e.near), bool(lead) and lead == e.lead, len(near & e.clause), clause,
                                context), e))
        return scored

    def best(pool: Sequence[EvidenceNumber]) -> list[EvidenceNumber]:
        scored = scored_pool(pool)
        if not scored:
            return []
        top = max(key for key, _e in scored)
        return [e for key, e in scored if key == top]

    kind = number_kind(mention)
    same_kind = [e for e in evidence if number_kind(e.mention) == kind]
    about = best(same_kind)
    if about:
        equal = [e for e in about if same_quantity(mention, e.mention)]
        if equal and len(equal) < len(about) and len({e.unit for e in about}) > 1:
            # equally good matches in different units disagree ("Product 2 costs 84 euros" and
            # "Product 17 costs 184 euros" for "Product 2 costs 184 euros"): nothing is settled
            return Alignment("absent")
        if not equal and any(same_quantity(mention, e.mention) and e.unit not in {a.unit for a in about}
                             for _key, e in scored_pool(same_kind)):
            # the best match states another quantity, but another unit about the claim's words
            # states this one ("a single ticket (€2.40) ... the Zone C supplement of €1.10" against
            # the zone sentence with €1.10 and the fares sentence with €2.40): nothing is settled
            return Alignment("absent")
        return Alignment("equal", equal[0]) if equal else Alignment("conflict", about[0])
    if not own and not mention.unit and sum(ch.isdigit() for ch in mention.surface) >= 3:
        for e in evidence:
            if e.mention.surface == mention.surface:
                return Alignment("equal", e)
    if other_units and mention.unit:
        pool = [e for e in evidence if e.mention.unit and e.mention.base_unit != mention.base_unit
                and same_value(e.mention.value, mention.value)]
        about = best(pool)
        if about:
            return Alignment("conflict", about[0], unit_conflict=True)
    return Alignment("absent")


def _same_kind(a: Any, b: Any) -> bool:
    return a.base_unit == b.base_unit and same_quantity(a, b)


def align_numbers(claim: str, mentions: Sequence[Any], evidence: Sequence[EvidenceNumber],
                  *, other_units: bool = False, jointly: bool = True) -> list[Alignment]:
    """Align every number of ``claim`` (``mentions``, in text order): first jointly (unless
    ``jointly=False``), then one by one (:func:`align_number`).

    Jointly: the evidence unit that states equal quantities (same kind) for the most numbers of
    the claim, at least two, and shares at least two content words with the claim around those
    numbers (one when it states every number of the claim), vouches for them all ("open from 9 am until 5:30 pm" against "on Saturdays and Sundays
    from 09:00 to 17:30", although the weekday sentence "from 07:00 to 21:00" is about opening
    hours too). A wrong number in a reply rarely sits in one evidence sentence together with the
    reply's other numbers, so this keeps the context rule from pairing a right number with a
    number of a neighbouring fact. A quantity the claim states twice ("serves 9 destinations with
    9 aircraft") is left out of the joint step: each of its mentions is aligned by its own
    context. A quantity added again in a sum ("€75 + €20 + €20") is aligned as its equal twin
    before it is.

    Returns:
        one :class:`Alignment` per mention, in the order given.
    """
    out: list[Alignment | None] = [None] * len(mentions)
    if jointly and len(mentions) >= 2:
        words = content_words(claim)
        by_unit: dict[int, list[EvidenceNumber]] = {}
        for e in evidence:
            by_unit.setdefault(e.unit, []).append(e)
        best: tuple[int, int] = (1, 0)
        chosen: dict[int, EvidenceNumber] = {}
        # a quantity the claim states twice ("9 destinations with 9 aircraft") is about two things:
        # each of its mentions is aligned by its own context, never vouched for jointly
        twice = {i for i, m in enumerate(mentions) for k, n in enumerate(mentions) if k != i and _same_kind(m, n)}
        for es in by_unit.values():
            hits: dict[int, EvidenceNumber] = {}
            used: set[int] = set()
            for i, m in enumerate(mentions):  # each evidence number vouches for one claim number
                if i in twice:
                    continue
                e = next((e for e in es if id(e) not in used and _same_kind(m, e.mention)), None)
                if e is not None:
                    hits[i] = e
                    used.add(id(e))
            if len(hits) < 2:
                continue
            shared = len(words & frozenset().union(*(e.clause | e.near | e.before for e in es)))
            # every number of the claim stated there ("from 2 pm to 8 pm" against "opens at
            # 14:00 and closes at 20:00"): one shared word is enough
            if shared >= (1 if len(hits) == len(mentions) else 2) and (len(hits), shared) > best:
                best, chosen = (len(hits), shared), hits
        for i, e in chosen.items():
            out[i] = Alignment("equal", e)
    done = [a if a is not None else align_number(claim, m, mentions, _rivals_of(m, mentions, evidence),
                                                 other_units=other_units)
            for a, m in zip(out, mentions)]
    # a quantity added again in a sum ("€75 + €20 + €20") is one quantity: equal where its twin is
    # ("10 years for the frame and 10 years for components" are two facts, each checked)
    for i, (a, m) in enumerate(zip(done, mentions)):
        if a.kind != "equal" and i > 0 and done[i - 1].kind == "equal" and _same_kind(m, mentions[i - 1]) \
                and _SUM_JOIN.fullmatch(claim[mentions[i - 1].end:m.start]):
            done[i] = done[i - 1]
    return done


def _rivals_of(mention: Any, mentions: Sequence[Any], evidence: Sequence[EvidenceNumber]) -> list[EvidenceNumber]:
    """The evidence numbers ``mention`` may be aligned with: all but those stating another
    number of the claim, which vouch for that one ("The deposit is £250, or £500 for premium
    cars": the premium £500 is not the £250's rival; "10 years ... and 10 years" keeps the 2 years
    as the second 10's)."""
    others = [m for m in mentions if m is not mention and not same_quantity(m, mention)]
    if not others:
        return list(evidence)
    return [e for e in evidence if not any(same_quantity(m, e.mention) for m in others)]


# what joins the operands of a sum ("+", "plus"; also "×" and "x", as in "2 × €20 + 2 × €20")
_SUM_JOIN = re.compile(r"\s*(?:\+|plus|×|x|\*)\s*", re.IGNORECASE)

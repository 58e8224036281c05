"""Claims that apply a stated bound to the asker's own number.

"I'm 70 ..." -> "At 70 you'd pay the senior rate of £9 (for visitors aged 65 and over)."; "Can I
take my bike on the tram at 8am?" -> "Bikes aren't permitted between 07:00 and 09:00, so 8am won't
work." The 70 and the 8am are the asker's situation, in no evidence sentence; the reply restates a
rule with its bound (65 and over; between 07:00 and 09:00) and applies it. Read as facts, those
numbers would be "contradicted" by the bound. :func:`applied_rule` finds such applications, checks
them, and returns the claim without the asker's number, so that the rule it restates is judged
against the evidence as usual.

A number of the claim is an application when all of these hold:

* the question states the same quantity in a sentence that speaks of the asker ("I'm 70", "my
  son is 14", "we won't be back until 11pm", "I want to donate 6 bikes": a first-person word in
  the sentence);
* it is applied: a consequence or condition stands before it in its clause, or the clause speaks
  to the asker ("so 8am won't work", "at 70 you pay", "since you're 70"), and the clause
  concludes eligibility, permission, cost or cover ("won't work", "qualifies", "you'd pay",
  "isn't possible", "you're covered"; "so a group of 8 can book online" concludes something else
  and is left whole, its 8 then checked as any number);
* the claim states another bound of the same kind (same base unit, or both bare numbers; times
  with times) about the same thing (bare numbers: the same counted noun, "6 bikes" / "5 or more
  bikes", or an age in the question and ages in the bound's clause, "I'm 70" / "aged 65 and
  over"; never "my daughter is 14" / "groups of up to 15 people"): "65 and over", "or more", "at least",
  "minimum", "over", "under", "up to", "capped at", "limited to", "within", "until", "before",
  "after", "between A and B",
  "from A to B", "A-B";
* the application agrees with the rule: with ``sat`` whether the asker's number lies within the
  bound (a range of times may run past midnight: 22:30 to 07:00 holds 23:00), the clause of the
  asker's number is negated exactly when the clause of the bound is negated (a "closed",
  "prohibited" or "unavailable" state counts as a negation) XOR ``sat`` is false
  ("not permitted between 07:00 and 09:00, so 8am won't work": both negated, 8am within; "a
  6-month minimum term, so leaving after 3 months wouldn't be possible": 3 is outside, the
  application is negated).

An application that disagrees with its rule by this reading ("aged 65 and over, so at 60 you
qualify") is reported as such; the scorer then leaves the claim whole, so the asker's number is
checked like any other number (a reply may also describe what happens outside the bound: "£165
covers up to 15 children, plus £8 for each extra", which this reading cannot tell apart).

Thread safety: pure functions over immutable tables (and a thread-safe LRU cache of the asker's
numbers per question).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from director_fast.verify.number_alignment import clause_span, counted_noun, number_kind, same_quantity
from director_fast.verify.numbers import find_numbers
from director_fast.verify.text import NEGATION_RE, split_sentences

__all__ = ["Bound", "AppliedRule", "applied_rule", "asker_numbers", "bounds"]

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i’m|i've|i’ve|i'll|i’ll|i'd|i’d|me|my|we|we're|we’re|we've|we’ve|"
                           r"we'll|we’ll|our|us|mine|ours)\b", re.IGNORECASE)
# cues after a number: "65 and over", "5 or more", "16+", "a 6-month minimum"
_AT_LEAST_AFTER = re.compile(r"\s*(?:\+|(?:and|or)\s+(?:over|above|more|older|upwards|up)\b|"
                             r"(?:-?\s*\w+\s+)?minimum\b)", re.IGNORECASE)
_AT_LEAST_BEFORE = re.compile(r"\b(?:at\s+least|(?:a\s+)?minimum\s+(?:of\s+)?|no\s+less\s+than|no\s+fewer\s+than|"
                              r"from|starting(?:\s+at)?|no\s+earlier\s+than)\s*$",
                              re.IGNORECASE)
_ABOVE_BEFORE = re.compile(r"\b(?:over|above|more\s+than|older\s+than|after)\s*$", re.IGNORECASE)
_BELOW_BEFORE = re.compile(r"\b(?:under|below|less\s+than|fewer\s+than|younger\s+than|before)\s*$", re.IGNORECASE)
_AT_MOST_BEFORE = re.compile(r"\b(?:up\s+to|at\s+most|(?:a\s+)?maximum\s+(?:of\s+)?|no\s+more\s+than|within|"
                             r"until|till|capped\s+at|limited\s+to|not\s+exceeding)\s*$", re.IGNORECASE)
_AT_MOST_AFTER = re.compile(r"\s*(?:or\s+(?:less|fewer|under|younger)|(?:-?\s*\w+\s+)?maximum)\b", re.IGNORECASE)
_RANGE_OPEN = re.compile(r"\b(?:between|from)\s*$", re.IGNORECASE)
_RANGE_JOIN = re.compile(r"\s*(?:and|to|until|till|-|–|—)\s*", re.IGNORECASE)
_DAY = 1440.0


@dataclass(frozen=True, slots=True)
class Bound:
    """A bound a text states: ``lo <= x <= hi`` (an open end is None; ``strict`` for "over" /
    "under"), in the base unit of ``kind`` (:func:`director_fast.verify.number_alignment.number_kind`);
    ``start``/``end``: code-point span of its number(s)."""

    kind: str
    lo: float | None
    hi: float | None
    strict: bool
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class AppliedRule:
    """An application of a bound to the asker's number (:func:`applied_rule`).

    Attributes:
        text: the claim without the asker's number(s) (what is left to judge).
        consistent: whether every application agrees with its rule.
    """

    text: str
    consistent: bool


@functools.lru_cache(maxsize=1024)  # pure; asked once per claim of an answer
def _asker_numbers(question: str) -> tuple[Any, ...]:
    spans = split_sentences(question)
    out = []
    for m in find_numbers(question):
        a, b = next(((a, b) for a, b in spans if a <= m.start < b), (0, len(question)))
        if _FIRST_PERSON.search(question, a, b):
            out.append(m)
    return tuple(out)


def asker_numbers(question: str) -> list[Any]:
    """The numbers of ``question`` that stand in a sentence speaking of the asker (a first-person
    word in the sentence: "I'm 70", "my son is 14", "we won't be back until 11pm", "Can I take
    my bike on the tram at 8am?")."""
    return list(_asker_numbers(question))


def bounds(text: str, mentions: Sequence[Any]) -> list[Bound]:
    """The bounds ``text`` states with its numbers (``mentions``, in text order), each a
    :class:`Bound` (an age written "21 years old" is a bare age of 21): ranges first ("between A and B", "from A to B", "A-B"), then one-sided
    bounds from the cue before or after a number (module docstring)."""
    out: list[Bound] = []
    in_range: set[int] = set()
    for k in range(len(mentions) - 1):
        a, b = mentions[k], mentions[k + 1]
        gap = text[a.end:b.start]
        if _kind(text, a) != _kind(text, b) or not _RANGE_JOIN.fullmatch(gap):
            continue
        if gap.strip().lower() == "and" and not _RANGE_OPEN.search(text[max(0, a.start - 12):a.start]):
            continue  # "£5 and £8" is no range; "between £5 and £8" is
        out.append(Bound(_kind(text, a), _amount(text, a), _amount(text, b), False, a.start, b.end))
        in_range.update((k, k + 1))
    for k, m in enumerate(mentions):
        if k in in_range:
            continue
        before, after = text[max(0, m.start - 24):m.start], text[m.end:m.end + 24]
        kind, x = _kind(text, m), _amount(text, m)  # "at least 21 years old" is an age of 21
        if _age_in_years(text, m):
            after = _OLD_AFTER.sub("", after, count=1)  # the cue after "years old" ("21 years old or over")
        if _AT_LEAST_AFTER.match(after) or _AT_LEAST_BEFORE.search(before):
            out.append(Bound(kind, x, None, False, m.start, m.end))
        elif _ABOVE_BEFORE.search(before):
            out.append(Bound(kind, x, None, True, m.start, m.end))
        elif _BELOW_BEFORE.search(before):
            out.append(Bound(kind, None, x, True, m.start, m.end))
        elif _AT_MOST_BEFORE.search(before) or _AT_MOST_AFTER.match(after):
            out.append(Bound(kind, None, x, False, m.start, m.end))
    return out


# what marks the asker's number as an application of the rule: a consequence or condition
# before it in its clause, or a second-person reference ("so at 70 you pay", "since you're 70")
_APPLICATION_CUE = re.compile(r"\b(?:so|since|as|because|which\s+means|meaning|therefore|if|at)\b|"
                              r"\b(?:you|your|you['’]re|you['’]d|you['’]ll|he|she|they|he['’]s|she['’]s|they['’]re)\b",
                              re.IGNORECASE)
# what an application may conclude: eligibility, permission, cost, cover ("won't work", "you're
# still covered", "qualifies", "you'd pay the senior rate", "isn't possible", a bare "Not at 8am"); an application
# stating anything else ("so a group of 8 can book online" against "groups of 7 or more must
# call") is left whole to be judged
_VERDICT_WORDS = frozenset("""work works worked fine ok okay possible impossible allowed permitted welcome
eligible qualify qualifies qualified count counts covered cover covers free pay pays charged charge
apply applies valid accepted need needs needed able unable join joins attend attends enrol enroll
entitled get gets not""".split())
# a clause giving the reason ("since you're 63, you qualify ..."): its conclusion is the next clause
_REASON_CLAUSE = re.compile(r"^\W*(?:since|as|because|given\s+that|now\s+that)\b", re.IGNORECASE)


# an age in the question ("I'm 70", "my son is 14", "aged 9", "a 7-year-old") and in a bound
# ("aged 65 and over", "ages 11 to 16", "under-8s", "children under 12", "adults 18 and over")
_AGE_IN_QUESTION = re.compile(r"(?:\b(?:i['’]m|i\s+am|is|are|he['’]s|she['’]s|they['’]re|aged|age)\s+$)", re.IGNORECASE)
_AGE_AFTER = re.compile(r"^\s*(?:-?\s*years?(?:\s*-?\s*old)?|-?\s*y/?o)\b", re.IGNORECASE)
_AGE_WORDS = re.compile(r"\b(?:aged?|ages|years?|old|adults?|child(?:ren)?|kids?|under-\d+s?|seniors?|teens?|"
                        r"juniors?|infants?|babies|baby|toddlers?|students?|pensioners?)\b", re.IGNORECASE)


def _is_age(text: str, mention: Any) -> bool:
    """Whether a bare number of ``text`` states an age ("I'm 70", "my son is 14", "a 7-year-old")."""
    return bool(_AGE_IN_QUESTION.search(text[max(0, mention.start - 12):mention.start])
                or _AGE_AFTER.match(text[mention.end:mention.end + 12])) or _age_in_years(text, mention)


_OLD_AFTER = re.compile(r"\s*-?\s*old\b", re.IGNORECASE)


def _age_in_years(text: str, m: Any) -> bool:
    """Whether mention ``m`` of ``text`` is an age written with its unit ("a 12-year-old", "12
    years old"): a count of years, compared with the bare ages of a bound ("ages 4 to 11")."""
    return m.unit == "year" and _OLD_AFTER.match(text, m.end) is not None


def _kind(text: str, m: Any) -> str:
    """:func:`~director_fast.verify.number_alignment.number_kind`, an age in years read as a bare age."""
    return "" if _age_in_years(text, m) else number_kind(m)


def _amount(text: str, m: Any) -> float:
    return m.value if _age_in_years(text, m) else m.quantity


def _same_thing(claim: str, m: Any, question: str, q: Any, rule: Bound, mentions: Sequence[Any]) -> bool:
    """Whether the asker's number ``q`` and the bound ``rule`` count the same thing. Numbers with a
    unit (times, prices, durations) need only the kind; bare numbers need the same counted noun
    ("6 bikes" and "5 or more bikes") or both an age (the question states one and the bound's
    clause speaks of ages: "I'm 70" and "aged 65 and over"; not "groups of up to 15 people")."""
    if _kind(claim, m):
        return True
    noun = counted_noun(question, q, find_numbers(question))
    if noun and noun == counted_noun(claim, _at(mentions, rule.start), mentions):
        return True
    a, b = clause_span(claim, rule.start, rule.end)
    return _is_age(question, q) and bool(_AGE_WORDS.search(claim, a, b))


def _at(mentions: Sequence[Any], start: int) -> Any:
    return next(m for m in mentions if m.start == start)


def _is_application(text: str, mention: Any) -> bool:
    a, b = clause_span(text, mention.start, mention.end)
    before = text[a:mention.start]
    if _REASON_CLAUSE.search(before) and b < len(text):
        # "Since you're 63, you qualify ...": the reason's conclusion follows it
        b = clause_span(text, min(b + 1, len(text) - 1), min(b + 2, len(text)))[1]
    clause = text[a:b].lower()
    words = set(re.findall(r"[a-z]+", clause))
    return bool(_APPLICATION_CUE.search(before) or _APPLICATION_CUE.search(text, mention.end, b)) \
        and not _VERDICT_WORDS.isdisjoint(words | {w[:-1] for w in words if w.endswith("s")})


def _within(x: float, b: Bound) -> bool:
    if b.kind == "time" and b.lo is not None and b.hi is not None and b.lo > b.hi:
        return x >= b.lo or x <= b.hi  # past midnight: 22:30 to 07:00
    if b.lo is not None and (x < b.lo or (b.strict and x == b.lo)):
        return False
    if b.hi is not None and (x > b.hi or (b.strict and x == b.hi)):
        return False
    return True


# a closed or forbidden state reads as a negated rule ("closed between 22:30 and 07:00, so at
# 11pm you can't drive in")
_NEGATIVE_STATE = re.compile(r"\b(?:closed|shut|banned|prohibited|forbidden|barred|unavailable|waived|exempt(?:ed)?)\b",
                             re.IGNORECASE)  # ("waived": the charge does not apply)


_RELATIVE_BEFORE = re.compile(r"\b(?:who|which|that|whose|where)\W*$", re.IGNORECASE)


def _negated(text: str, start: int, end: int) -> bool:
    """Whether the clause of ``text[start:end]`` is negated (a negation word or a negative
    state); a relative clause ("... waived for clients who have been with us for more than 5
    years") is read with the clause it belongs to."""
    a, b = clause_span(text, start, end)
    if a > 0 and _RELATIVE_BEFORE.search(text, max(0, a - 12), a):
        a = clause_span(text, max(0, a - 2), max(0, a - 1))[0]
    return bool(NEGATION_RE.search(text, a, b) or _NEGATIVE_STATE.search(text, a, b))


def applied_rule(claim: str, question: str) -> AppliedRule | None:
    """The application of a bound of ``claim`` to a number of the asker (module docstring), or
    None when the claim applies none.

    Args:
        claim: one claim (str).
        question: the user's message (its first-person clauses give the asker's numbers).

    Returns:
        :class:`AppliedRule`: the claim without the asker's numbers and whether each application
        agrees with its rule.
    """
    if not question or not claim:
        return None
    asker = asker_numbers(question)
    if not asker:
        return None
    mentions = find_numbers(claim)
    if len(mentions) < 2:
        return None
    stated = bounds(claim, mentions)
    cuts: list[tuple[int, int]] = []
    consistent = True
    for m in mentions:
        kind = _kind(claim, m)
        q = next((q for q in asker if kind == _kind(question, q) and (
            _amount(claim, m) == _amount(question, q) if kind == "" else same_quantity(m, q))), None)
        if q is None:
            continue
        # the bounds of its kind other than its own ("after 3 months" read as the asker's 3), about
        # the same thing ("I'm 14" is no "group of up to 15 people")
        rules = [b for b in stated if b.kind == kind and not (b.start <= m.start and m.end <= b.end)
                 and _same_thing(claim, m, question, q, b, mentions)]
        if not rules:
            continue
        if not _is_application(claim, m):
            continue  # "..., and last orders are taken at 8pm": a fact, not the rule applied
        rule = rules[0]
        # an unmarked "4:30" is 04:30 or 16:30: within the bound if either reading is
        sat = _within(_amount(claim, m), rule) or (getattr(m, "half_day_open", False)
                                                    and _within((m.quantity + 720.0) % _DAY, rule))
        expected = _negated(claim, rule.start, rule.end) != (not sat)
        consistent = consistent and _negated(claim, m.start, m.end) == expected
        cuts.append((m.start, m.end))
    if not cuts:
        return None
    parts, pos = [], 0
    for a, b in cuts:
        parts.append(claim[pos:a])
        pos = b
    parts.append(claim[pos:])
    return AppliedRule(re.sub(r"\s{2,}", " ", "".join(parts)).strip(), consistent)

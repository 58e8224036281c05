"""Value rules of the lexical judge: a claim and an evidence sentence that say different values
of the same thing (a rate per unit, "free" against a price, one-sided bounds ("from £5"), a contrast
word of a closed class, every day against some days, "with" against "without", a telephone
number, an e-mail or web address, opening hours, a state bound to other days), the numbers a
question gives, and the negation checks against the rest of the evidence
(:func:`state_bound_elsewhere`, :func:`polarity_flipped`, :func:`negated_clause_aligned`,
:func:`negated_elsewhere`). Numbers themselves are aligned in
:mod:`director_fast.verify.number_alignment`. Pure functions; thread-safe.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from typing import Any

from director_fast import _core
from director_fast.verify.number_alignment import clauses
from director_fast.verify.numbers import same_value
from director_fast.verify.text import NEGATION_RE, content_words
from director_fast.verify.comparison import Comparison, _HAS_NUMBER
from director_fast.verify.rules_wording import (
    _NEGATORS,
    _fold_paraphrases,
    _has_word,
    _lower_words,
    _negated_clauses,
    _spelled_out,
    content_stems,
    negation_in_scope,
)


_RATE = re.compile(r"\s*(?:a|an|per|each|every|/)\s*(hour|day|night|week|fortnight|month|year)s?\b", re.IGNORECASE)
# an amount with up to two words saying what it counts, then a period ("100 pages a month")
_RATE_AFTER = re.compile(r"((?:\s+(?!a\b|an\b|per\b|each\b|every\b)[a-z][a-z-]*){0,2}?)" + _RATE.pattern,
                         re.IGNORECASE)
@functools.lru_cache(maxsize=8192)  # pure; a claim meets many units and a unit many claims
def _rates(text: str) -> tuple[tuple[tuple[str, float], str], ...]:
    """``((base unit, quantity, counted word), period)`` of the amounts stated per period ("£10
    a month": ``(("GBP", 10.0, ""), "month")``; "100 pages a week": ``(("", 100.0, "page"),
    "week")``)."""
    from director_fast.verify.numbers import find_numbers

    if not _RATE.search(text):
        return ()
    out = []
    for m in find_numbers(text):
        r = _RATE_AFTER.match(text, m.end)
        if r is not None:
            words = r.group(1).split()
            noun = _singular(words[-1].lower()) if words else ""
            out.append(((m.base_unit, round(m.quantity, 9), noun), r.group(2).lower()))
    return tuple(out)
def _rate_verdict(claim: str, premise: str) -> Comparison | None:
    """An amount the claim states per one period and the premise per another ("£10 a year"
    against "£10 a month"): contradicted (signal ``unit``); None otherwise."""
    wanted = dict(_rates(claim))
    if not wanted:
        return None
    held = dict(_rates(premise))
    for key, period in wanted.items():
        if key in held and held[key] != period:
            return Comparison("contradicted", 0.75, "unit")
    return None
# "free" said of the subject ("Parking is free.", "Entry stays free", "travel for free"), not of
# another noun ("includes free travel insurance") or a free-range / free-of-nuts kind
_FREE = re.compile(r"\b(?:is|are|be|was|were|stays?|remains?|comes?|goes|go|travel|travels|for)\s+"
                   r"(?:\w+\s+)?free\b(?!\s*-)|\bfree\s+of\s+charge\b", re.IGNORECASE)
_FREE_WORD = re.compile(r"\bfree\b", re.IGNORECASE)  # any "free" in the evidence ("any free desk")
@functools.lru_cache(maxsize=8192)  # pure; a claim meets many premises
def _says_free(text: str) -> bool:
    return _FREE.search(text) is not None
def _free_verdict(claim: str, premise: str) -> Comparison | None:
    """A claim that something is free against a sentence that prices it with no "free" of its own
    ("Parking is free." against "Parking costs £5 a day."): contradicted (signal ``number``) when
    the two share a content word besides "free"; None otherwise. (Both sides have their common
    paraphrases folded: "at no cost" and "costs nothing" are "free".)"""
    if not _says_free(claim) or _FREE_WORD.search(premise) or not _HAS_NUMBER.search(premise):
        return None
    if not _priced(premise):
        return None
    if _HAS_NUMBER.search(claim) and _priced(claim):
        return None  # "free over £50": the amounts decide
    shared = (content_stems(claim) - {"free"}) & content_stems(premise)
    return Comparison("contradicted", 0.75, "number") if shared else None
@functools.lru_cache(maxsize=8192)  # pure; a claim meets many premises and a premise many claims
def _one_sided_bounds(text: str) -> tuple[Any, ...]:
    from director_fast.verify.applied_rules import bounds
    from director_fast.verify.numbers import find_numbers

    return tuple(b for b in bounds(text, find_numbers(text)) if (b.lo is None) != (b.hi is None))
@functools.lru_cache(maxsize=8192)  # pure, as _one_sided_bounds
def _priced(text: str) -> bool:
    """Whether ``text`` states a positive amount of money."""
    from director_fast.verify.numbers import CURRENCY_UNITS, find_numbers

    return any(m.unit in CURRENCY_UNITS and m.value > 0 for m in find_numbers(text))
def _bound_verdict(claim: str, premise: str) -> Comparison | None:
    """A quantity the claim bounds from one side and the premise from the other ("a bag of at
    least 10 kg" against "bags of up to 10 kg"; "more than 12 dogs" against "capped at 12 dogs";
    "ready until 3 pm" against "check in from 3 pm"), the two sharing a content word besides the
    bound: contradicted (signal ``unit``: the number is the evidence's, what it is said of is not,
    as for an amount per another period; a rule's verdict that a composition of other units
    never overrides); None otherwise, also for a bound on the same side in other words ("no more
    than 12" for "at most 12"). Bounds as :func:`director_fast.verify.applied_rules.bounds` reads
    them; ranges are not compared."""
    if not _HAS_NUMBER.search(claim) or not _HAS_NUMBER.search(premise):
        return None
    mine = _one_sided_bounds(claim)
    if not mine:
        return None
    theirs = _one_sided_bounds(premise)
    if not theirs or not content_stems(claim) & content_stems(premise):
        return None
    for b in mine:
        v = b.lo if b.lo is not None else b.hi
        for p in theirs:
            w = p.lo if p.lo is not None else p.hi
            if b.kind == p.kind and same_value(v, w) and (b.lo is None) != (p.lo is None):
                return Comparison("contradicted", 0.75, "unit")
    return None
# closed classes of words where one member for another is a contradiction, not a paraphrase
_CONTRAST_CLASSES = tuple(frozenset(c.split()) for c in (
    "child children kid kids infant infants baby babies toddler toddlers teen teens teenager teenagers "
    "adult adults senior seniors pensioner pensioners student students",
    "first second third fourth fifth sixth seventh eighth ninth tenth last",
    "morning mornings afternoon afternoons evening evenings night nights",
    "weekday weekdays weekend weekends",
    "monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday "
    "saturdays sunday sundays",
    "january february march april may june july august september october november december",
    "spring summer autumn fall winter",
))
_NEGATING_PREFIXES = ("un", "non-", "non", "in", "im", "dis")
_IRREGULAR_PLURALS = {"children": "child", "babies": "baby"}
def _singular(word: str) -> str:
    """The singular of a class word ("Wednesdays" -> "wednesday", "children" -> "child")."""
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    return word[:-1] if word.endswith("s") and len(word) > 3 else word
def _contrast_verdict(claim: str, premise: str) -> Comparison | None:
    """One member of a closed class of the claim against another of the premise, the rest of the
    claim in the premise ("safe for children" against "safe for adults", "the third trimester"
    against "the first", "used items" against "unused items"): contradicted (signal
    ``antonym``); None otherwise."""
    cw, pw = _lower_words(claim), _lower_words(premise)
    only_c, only_p = cw - pw, pw - cw
    if not only_c or not only_p:
        return None
    swapped = ""
    for cls in _CONTRAST_CLASSES:
        a = {_singular(w) for w in only_c & cls} - {_singular(w) for w in pw & cls}
        b = {_singular(w) for w in only_p & cls} - {_singular(w) for w in cw & cls}
        if len(a) == 1 and len(b) == 1 and not {_singular(w) for w in cw & pw & cls}:
            swapped = next(w for w in only_c & cls if _singular(w) in a)
            break
    else:
        for w in only_c:  # "used" / "unused", "refundable" / "non-refundable"
            if any(p + w in only_p for p in _NEGATING_PREFIXES) or \
                    any(w.startswith(p) and w[len(p):] in only_p for p in _NEGATING_PREFIXES):
                swapped = w
                break
    if not swapped:
        return None
    rest = content_words(claim) - content_words(swapped)
    if not rest or len(rest & content_words(premise)) < 0.6 * len(rest):
        return None  # the premise is about something else
    return Comparison("contradicted", 0.8, "antonym")
_WORKDAYS = frozenset("monday tuesday wednesday thursday friday".split())
_WEEKEND_DAYS = frozenset("saturday sunday".split())
# "every day" (also in _ALL_WEEK, with "7 days a week"); days named one by one or as a group
_EVERY_DAY_WORDS = r"daily|nightly|(?:every|each)\s+(?:day|morning|afternoon|evening|night)|all\s+week"
_EVERY_DAY = re.compile(rf"\b(?:{_EVERY_DAY_WORDS})\b", re.IGNORECASE)
_DAY_GROUPS = rf"weekdays?|weekends?|(?:{'|'.join(sorted(_WORKDAYS | _WEEKEND_DAYS))})s?"
_SOME_DAYS = re.compile(rf"\b(?:{_DAY_GROUPS})\b", re.IGNORECASE)
# a claim that limits what it says to some days: "on weekdays only", "every day except Sundays"
_ONLY_SOME_DAYS = re.compile(rf"\b(?:only\s+(?:on\s+)?(?:{_DAY_GROUPS})|(?:{_DAY_GROUPS})\s+only"
                             rf"|(?:except|apart\s+from|but\s+not|other\s+than)\s+(?:on\s+)?(?:{_DAY_GROUPS}))\b",
                             re.IGNORECASE)
def _every_day_verdict(claim: str, premise: str) -> Comparison | None:
    """"every day" / "daily" in the claim against a premise that names only some days ("on
    weekdays", "Monday to Friday") and never says every day, the rest of the claim in the premise:
    contradicted (signal ``antonym``); and the reverse restriction, a claim that limits itself to
    some days ("on weekdays only", "every day except Sundays") against a premise that says every
    day. None otherwise. (A claim that names some days without limiting itself, "on Mondays"
    against "every day", is true and left alone.)"""
    if _ONLY_SOME_DAYS.search(claim) and _ALL_WEEK.search(premise) and not _SOME_DAYS.search(premise) \
            and _mostly_in(content_words(_ONLY_SOME_DAYS.sub(" ", _EVERY_DAY.sub(" ", claim))), premise):
        return Comparison("contradicted", 0.8, "antonym")
    if _EVERY_DAY.search(claim) is None or _SOME_DAYS.search(premise) is None or _EVERY_DAY.search(premise):
        return None
    if _SOME_DAYS.search(claim):
        return None  # the claim names days itself ("every day except Sunday")
    if not _mostly_in(content_words(_EVERY_DAY.sub(" ", claim)), premise):
        return None  # the premise is about something else
    return Comparison("contradicted", 0.8, "antonym")
def _mostly_in(words: set[str], premise: str) -> bool:
    """Whether ``words`` (the claim's words besides the ones a rule compares) is not empty and at
    least half of it stands in ``premise``: the premise is about what the claim is about."""
    return bool(words) and 2 * len(words & content_words(premise)) >= len(words)
_WITH = re.compile(r"\bwith(out)?\s+((?:[a-z][a-z-]*\s+){0,2}[a-z][a-z-]*)", re.IGNORECASE)
def _with_objects(text: str) -> set[tuple[str, bool]]:
    """(content word of what follows "with" / "without", negated) pairs: "without an original
    receipt" gives (original, True) and (receipt, True)."""
    return {(_singular(w), bool(m.group(1))) for m in _WITH.finditer(text) for w in content_words(m.group(2))}
def _with_without_verdict(claim: str, premise: str) -> Comparison | None:
    """"without X" in the claim where the premise only says "with X", or the reverse, the rest of
    the claim in the premise ("a refund without a receipt" against "refunds only with a receipt"):
    contradicted (signal ``negation``); None otherwise, and None when either side holds another
    negation ("Entry without a ticket is not permitted.") or the premise says both."""
    if _WITH.search(claim) is None or _WITH.search(premise) is None:
        return None  # ("within" is no "with")
    if NEGATION_RE.search(claim) or NEGATION_RE.search(premise):
        return None
    c, p = _with_objects(claim), _with_objects(premise)
    flipped = {w for w, neg in c if (w, not neg) in p and (w, neg) not in p}
    if not flipped:
        return None
    if not _mostly_in(content_words(claim) - {"without"} - flipped, premise):
        return None  # the premise is about something else
    return Comparison("contradicted", 0.8, "negation")
_FUSED_PHONE = re.compile(r"\btel\d{8,}\b")
def _phone_verdict(claim: str, premise: str) -> Comparison | None:
    """A telephone number of the (normalised) claim that the premise does not hold: contradicted
    (signal ``number``) when the premise gives another one, not_found when it gives none; None
    when the claim's numbers are all there (or it has none)."""
    wanted = set(_FUSED_PHONE.findall(claim))
    if not wanted:
        return None
    held = set(_FUSED_PHONE.findall(premise))
    if wanted <= held:
        return None
    return Comparison("contradicted", 0.75, "number") if held else Comparison("not_found", 0.0, "number")
# an email address or a web address (with a scheme or "www."; a trailing full stop is not part of it)
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:https?://|www\.)[^\s<>()\[\]\"']+", re.IGNORECASE)
def _addresses(text: str) -> set[str]:
    """The email and web addresses of ``text``, lower-cased, a web address without its scheme and
    trailing slash ("https://www.x.example/a/" is "www.x.example/a")."""
    if "@" not in text and "://" not in text and "www." not in text.lower():
        return set()  # (the common case, without a regex scan)
    out = set()
    for a in _ADDRESS.findall(text):
        a = re.sub(r"^https?://", "", a.rstrip(".,;:!?").lower())
        out.add(a.rstrip("/"))
    return out
def _without_identifiers(text: str) -> str:
    """``text`` (normalised) without its fused telephone numbers and its addresses."""
    return _ADDRESS.sub(" ", _FUSED_PHONE.sub(" ", text))
def _identifiers(text: str) -> set[str]:
    """The telephone numbers (fused by :func:`_normalise_idioms`: "tel08004127799") and the email
    and web addresses (:func:`_addresses`) of a normalised text."""
    return set(_FUSED_PHONE.findall(text)) | _addresses(text)
def _identifiers_held(claim: str, premises: Sequence[str]) -> bool:
    """Whether ``claim`` (normalised) holds telephone numbers or addresses and some premise
    (normalised) holds every one of them."""
    ids = _identifiers(claim)
    return bool(ids) and any(ids <= _identifiers(p) for p in premises)
def _shares_identifier(claim: str, premise: str) -> bool:
    """Whether ``claim`` holds a telephone number or an email / web address that ``premise``
    holds too: "Our number is 0113 496 0712." is about the sentence that gives that number,
    whatever else it shares."""
    return bool(_identifiers(claim) & _identifiers(premise))
def _address_verdict(claim: str, premise: str) -> Comparison | None:
    """An email or web address of the claim that the premise does not hold, letter for letter
    (case, a web address's scheme and a trailing slash aside): contradicted (signal ``entity``) when
    the premise gives another address, not_found when it gives none ("info@alpenglow.example" for "marta@alpenglow.example", a wrong path
    after the right domain); None when the claim's addresses are all there (or it has none)."""
    wanted = _addresses(claim)
    if not wanted:
        return None
    held = _addresses(premise)
    if wanted <= held:
        return None
    return Comparison("contradicted", 0.75, "entity") if held else Comparison("not_found", 0.0, "entity")
# a time of day written as a word (a digit also starts one)
_CLOCK_WORDS = "midnight|noon|midday"
_BEFORE_TIME = rf"(?=\s+(?:\d|{_CLOCK_WORDS}))"
_OPEN_UNTIL = re.compile(rf"\b(?:(?:is|are|stays?|remains?|will\s+be)\s+)?(?<!not\s)(?<!never\s)open\s+(?:until|till|til)"
                         rf"{_BEFORE_TIME}", re.IGNORECASE)
_CLOSED_UNTIL = re.compile(rf"\b(?:(?:is|are|stays?|remains?|will\s+be)\s+)?(?:(?<!not\s)closed|not\s+open)\s+"
                           rf"(?:until|till|til){_BEFORE_TIME}", re.IGNORECASE)
# "closes at 9 pm", "closing time", and "closes" right before a number ("closes 1 hour before
# departure"); "opens at", "opening time", "open from", "opens 30 hours before"
_CLOSES_AT = re.compile(r"\bclos(?:es|e|ing)\s+(?:at\b|time\b|(?=\d))", re.IGNORECASE)
_OPENS_AT = re.compile(r"\bopen(?:s|ing)\s+(?:at\b|time\b|(?=\d))|\bopen\s+from\b", re.IGNORECASE)
_CLOCK = rf"\d{{1,2}}(?:[:.]\d{{2}})?(?:\s*(?:[ap]m|[ap]\.m))?|{_CLOCK_WORDS}"
# "open (on weekdays) from 8 am to 9 pm" (the words before "from" kept)
_OPEN_RANGE = re.compile(rf"\b(?:(?:is|are)\s+)?(?<!not\s)(?<!never\s)open\s+((?:[A-Za-z]+\s+){{0,3}}?)from\s+({_CLOCK})"
                         rf"\s*(?:to|until|till|til|through|-|–|—)\s*({_CLOCK})", re.IGNORECASE)
_HOURS_WORD = re.compile(r"open|clos", re.IGNORECASE)
def hours_in_one_wording(claim: str, premise: str) -> tuple[str, str]:
    """Rewrite one side's opening hours in the other side's words: "is open until 9 pm" reads
    "closes at 9 pm" where the other side says "closes at" / "closing time", and "is closed until
    10 am" / "is not open until 10 am" reads "opens at 10 am" where the other side says "opens at"
    (only before a time of day: "open until further notice" is left alone); a premise's range
    "open (on weekdays) from 8 am to 9 pm" reads "opens (on weekdays) at 8 am and closes at 9 pm"
    against a claim giving an opening or closing time. Without such a word on the other side
    nothing changes: "open from 8 am to 9 pm" against "is open until 9 pm" agree as written,
    "closed on weekdays" against that range stays a contradiction, and "closed until 8 pm" against
    "open until 20:00" too."""
    if not _HOURS_WORD.search(claim) and not _HOURS_WORD.search(premise):
        return claim, premise  # every rewrite below needs an "open" or a "clos..." word
    if _CLOSES_AT.search(premise):
        claim = _OPEN_UNTIL.sub("closes at", claim)
    elif _CLOSES_AT.search(claim):
        premise = _OPEN_UNTIL.sub("closes at", premise)
    if _CLOSES_AT.search(claim) or (_OPENS_AT.search(claim) and not _OPEN_RANGE.search(claim)):
        # a claim giving one end of a range: "closes at 9 pm" against "open from 8 am to 9 pm"
        premise = _OPEN_RANGE.sub(r"opens \1at \2 and closes at \3", premise)
    if _OPENS_AT.search(premise):
        claim = _CLOSED_UNTIL.sub("opens at", claim)
    elif _OPENS_AT.search(claim):
        premise = _CLOSED_UNTIL.sub("opens at", premise)
    return claim, premise
def _has_unreadable_number(text: str) -> bool:
    """A number beyond the float range ("£" and 400 nines): nothing can confirm it."""
    if not _HAS_NUMBER.search(text):
        return False
    from director_fast.verify.numbers import find_numbers

    return any(not math.isfinite(m.value) for m in find_numbers(text))
_ALL_WEEK = re.compile(rf"\b(?:{_EVERY_DAY_WORDS}|7\s+days\s+a\s+week|seven\s+days\s+a\s+week)\b", re.IGNORECASE)
_ON_WEEKDAYS = re.compile(r"\b(?:weekdays?|monday\s+to\s+friday|mon(?:day)?\s*[-–]\s*fri(?:day)?)\b", re.IGNORECASE)
_ON_WEEKENDS = re.compile(r"\bweekends?\b", re.IGNORECASE)
def _days_covered(words: Sequence[str], premise: str) -> bool:
    """Whether every missing name is a day of the week the premise covers as a group ("Mondays"
    against "on weekdays" or "daily"; "Saturday" against "at weekends"): a day the evidence names
    as part of a group is no other day."""
    if not words:
        return False
    for w in words:
        day = w[:-1] if w.endswith("s") else w
        if _ALL_WEEK.search(premise):
            ok = day in _WORKDAYS or day in _WEEKEND_DAYS
        elif day in _WORKDAYS:
            ok = bool(_ON_WEEKDAYS.search(premise))
        elif day in _WEEKEND_DAYS:
            ok = bool(_ON_WEEKENDS.search(premise))
        else:
            ok = False
        if not ok:
            return False
    return True
def _given_names(words: Sequence[str], question: str, document: str, documents: Sequence[str] = ()) -> bool:
    """Whether every name (lower-cased word) a unit lacks is context rather than a claim of
    its own: either the user's question gave it and the unit's own document holds it ("Who runs
    Skerry Air?" -> "Mats Eklund is Skerry Air's chief executive." against "The chief executive
    is Mats Eklund." in a document about Skerry Air), or every one of the claim's retrieved
    documents (at least two) holds it (the organisation they are all about: "Brightwater's Head
    of Studies"). A name only the question holds (the user's false premise) or only some
    documents hold (another fact's name: "founded by Solveig Brandt", "at the Riverside
    Branch") is still a mismatch."""
    if not words:
        return False
    q, d = question.lower(), document.lower()
    docs = [x.lower() for x in documents]
    return all((q and _has_word(w, q) and _has_word(w, d)) or _spelled_out(w, d)
               or (len(docs) >= 2 and all(_has_word(w, x) for x in docs)) for w in words)
# the asker's party restated: "with 4 people", "for two adults and a child"
_PARTY_BEFORE = re.compile(r"\b(?:with|for)\s+$", re.IGNORECASE)
_PARTY_AFTER = re.compile(r"\s+(?:people|persons|adults?|children|kids|guests|pupils|students|riders|of\s+us)\b",
                          re.IGNORECASE)
# a number about the user's own situation: "your 7-year-old", "your group of 12", "you're 15"
_USERS_NUMBER = re.compile(r"\b(?:your|you['’]re|you\s+are|you['’]ll\s+be)\s+(?:[a-z]+\s+){0,2}?(?:of\s+)?$",
                           re.IGNORECASE)
# opposite states of a place or service; a sentence may state both ("opens at 8 from Monday to
# Saturday and is closed on Sundays"), so the clause about the claim's other words decides
_STATES = (({"open"}, {"clos", "closed", "shut"}),)
def _subject_words(sentence: str, states: set[str]) -> set[str]:
    """Content stems of ``sentence`` before its first word whose stem is in ``states``."""
    words = re.findall(r"[\w'’-]+", sentence)
    for k, w in enumerate(words):
        if _core.lexical_stem(w.lower()) in states:
            return content_stems(" ".join(words[:k]))
    return set()
_MONTH_NAMES = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
                r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b")
# an opening or closing verb followed by a time of day ("opens at 9 am", "closes from 18:00")
_TIMED_STATE = re.compile(r"\b(?:opens?|opening|closes?|closing|shuts?)\s+(?=(?:at|from|until|till|til|by|before|after)"
                          rf"\s+(?:\d{{1,2}}(?:[:.]\d{{2}})?(?!\d|\s*(?:st|nd|rd|th)\b|\s+{_MONTH_NAMES})|{_CLOCK_WORDS}))",
                          re.IGNORECASE)  # (a time of day, never a date: "close from 24 December")
_WEEKDAYS_NAMED = "weekdays " + " ".join(sorted(_WORKDAYS))
_WEEKENDS_NAMED = "weekends " + " ".join(sorted(_WEEKEND_DAYS))
def _with_days(text: str) -> str:
    """``text`` (paraphrases folded) with the days of its day groups named ("weekends" ->
    "weekends saturday sunday"), so that a day a claim names is found in the group the other side
    folded it into."""
    return _ON_WEEKENDS.sub(_WEEKENDS_NAMED, _ON_WEEKDAYS.sub(_WEEKDAYS_NAMED, text))
def state_bound_elsewhere(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` gives the opposite state (open / closed) to what the claim is about:
    the claim says one state, the sentence says both, and the words of the claim other than the
    state stand only in the clause of the opposite state ("We are open on Sundays." against "It
    opens at 8 from Monday to Saturday and is closed on Sundays."); or the sentence says only
    the opposite state, of the subject the claim names, about some other word of the claim
    ("Both sites stay open on public holidays." against "Both sites are closed on Sundays,
    Mondays and public holidays."; "The cafe is open on Sundays." is not about "The pool is
    closed on Sundays.")."""
    # "opens at 09:00" / "closes at 18:00 on weekdays" give a time on days when the place is open
    # (the numbers decide the times): the state they state is "open"
    claim, sentence = _TIMED_STATE.sub("open ", claim), _TIMED_STATE.sub("open ", sentence)
    c = content_stems(_with_days(_fold_paraphrases(claim)))
    parts = [content_stems(x) for x in clauses(_with_days(_fold_paraphrases(sentence)))]
    for a, b in _STATES:
        for said, other in ((a, b), (b, a)):
            if not (c & said) or (c & other):
                continue
            # the words that tell the two states apart: not the state, not the subject both
            # clauses share ("The help desk is open Monday to Friday and closed at weekends")
            subject = _subject_words(sentence, a | b)
            rest = c - said - subject
            with_said = set().union(*(p for p in parts if p & said))
            with_other = set().union(*(p for p in parts if p & other))
            if with_said and with_other and rest & with_other and not rest & with_said:
                return True
            # the sentence gives only the opposite state, to the claim's subject, for what the
            # claim is about ("Both sites stay open on public holidays." against "Both sites are
            # closed on Sundays, Mondays and public holidays.")
            if not with_said and with_other and rest & content_stems(_fold_paraphrases(sentence)) \
                    and subject & _subject_words(claim, a | b):
                return True
    return False
def polarity_flipped(proposition: str, evidence: str) -> bool:
    """Whether exactly one of ``proposition`` and ``evidence`` holds a negation and it is about
    what the proposition says (:func:`negation_in_scope`): used for the proposition of a yes / no
    question, whose polarity is the whole answer ("Could I get a filling on a Saturday?" against
    "No fillings are done on Saturdays.") even where the question's own words ("could", "get")
    keep the sentences from aligning closely."""
    a, b = _fold_paraphrases(proposition), _fold_paraphrases(evidence)
    if bool(_NEGATORS.search(a)) == bool(_NEGATORS.search(b)):
        return False
    return negation_in_scope(a, b)
def negated_clause_aligned(claim: str, premise: str) -> bool:
    """Whether the negated clause of the side that holds a negation (one side only) is stated,
    word for word up to stems, by the other side: at least two content words, all of them in the
    other text ("the workspace does not keep full access" against "During this period the
    workspace keeps full access."). A negation flip on such a clause contradicts even when the
    whole sentences align only loosely (the words around the clause differ)."""
    claim, premise = _fold_paraphrases(claim), _fold_paraphrases(premise)
    ours, theirs = _negated_clauses(claim), _negated_clauses(premise)
    if bool(ours) == bool(theirs):
        return False
    clauses, other = (ours, premise) if ours else (theirs, claim)
    words = content_stems(other)
    return any(len(c) >= 2 and c <= words for c in clauses)
def negated_elsewhere(claim: str, premise: str) -> bool:
    """Whether both sides hold a negation but about different things: every negated clause of
    ``premise`` is about words the claim does not use, while a negated clause of ``claim`` is
    about words of the premise ("Visitors must not leave their bags." against "Visitors must
    leave their bags, and access to the archive is not permitted."): the claim negates what the
    premise affirms. Clauses and their own words as in :func:`negation_in_scope`."""
    claim, premise = _fold_paraphrases(claim), _fold_paraphrases(premise)
    theirs, ours = _negated_clauses(premise), _negated_clauses(claim)
    if not theirs or not ours:
        return False
    claim_words, premise_words = content_stems(claim), content_stems(premise)
    return all(c and not c & claim_words for c in theirs) and any(c and c & premise_words for c in ours)
def _numbers_given(surfaces: Sequence[str], claim: str, question: str) -> bool:
    """Whether every number a unit lacks (``surfaces`` as the lexical backend reports them)
    restates the user's own situation from the question: the question states the value, and
    the claim puts it right after "your" / "you're" ("My kids are 7 and 3." -> "a single for
    your 7-year-old is half price") or restates the party ("We are 4." -> "with 4 people you
    pay ..."). Such a number describes the user, not a fact of the
    evidence; a number the question gives for anything else ("Is the deposit £50?" -> "The
    deposit is £50.") is still checked."""
    from director_fast.verify.numbers import find_numbers

    if not surfaces or not question or not claim:
        return False
    given = _question_values(question)
    if not given:
        return False
    users = {round(m.value, 9) for m in find_numbers(claim)
             if _USERS_NUMBER.search(claim[max(0, m.start - 40):m.start])
             or (_PARTY_BEFORE.search(claim[max(0, m.start - 12):m.start]) and _PARTY_AFTER.match(claim, m.end))}
    for surface in surfaces:
        values = [round(m.value, 9) for m in find_numbers(surface)]
        if not values or any(v not in given or v not in users for v in values):
            return False
    return True
@functools.lru_cache(maxsize=1024)  # pure; one question meets every claim of its answer
def _question_values(question: str) -> frozenset[float]:
    from director_fast.verify.numbers import find_numbers

    return frozenset(round(m.value, 9) for m in find_numbers(question))
def states_numbers(claim: str, evidence: str) -> bool:
    """Whether ``evidence`` states every checkable number of ``claim`` with the same quantity
    (:func:`director_fast.verify.number_alignment.same_quantity`; True when the claim has none)."""
    from director_fast.verify.number_alignment import checkable, same_quantity
    from director_fast.verify.numbers import find_numbers

    mentions = checkable(find_numbers(claim))
    if not mentions:
        return True
    given = find_numbers(evidence)
    return all(any(same_quantity(m, e) for e in given) for m in mentions)

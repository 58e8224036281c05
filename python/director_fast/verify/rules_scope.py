"""What a claim says, beyond its words: whether a sentence states what the claim states
(:func:`says_what_the_claim_says`), an exception the claim drops (:func:`dropped_exception`) or
restates (:func:`restates_exception`),
the conjuncts a claim joins (:func:`conjuncts`), bare yes / no answers to a question
(:func:`bare_answer`, :func:`bare_answers`) and turning a decision around (:func:`flip`). Used by
:func:`director_fast.verify.claim_verdict.decide` and by the scorer. Pure functions; thread-safe.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from director_fast.verify.numbers import same_value
from director_fast.verify.text import NEGATION_RE, content_words
from director_fast.verify.comparison import ClaimDecision, _HAS_NUMBER
from director_fast.verify.rules_wording import _NEGATORS, _fold_paraphrases, content_stems
from director_fast.verify.rules_roles import _names, _relations, _role_names


_EXCEPTION = re.compile(
    r"\b(?:except(?:\s+for)?|unless|apart\s+from|other\s+than|excluding|with\s+the\s+exception\s+of|"
    r"but\s+not|otherwise|(?:does|do|will|shall)\s+not\s+apply\s+to)\b([^.;]*)",
    re.IGNORECASE)
# words by which a claim states a rule for every case ("every adult swim", "all plans", "always")
_UNIVERSAL = re.compile(r"\b(?:every|all|always|never|everyone|everybody|regardless|no\s+matter|whichever|whatever|"
                        r"without\s+exception|under\s+any\s+circumstances)\b", re.IGNORECASE)
_CONTRAST = re.compile(r"\b(?:although|though|but|however|whereas|while|apart\s+from|other\s+than)\b", re.IGNORECASE)
# a negation's scope for :func:`_stated_plainly`: from the negation to the end of its phrase
_SCOPE_END = re.compile(r"[,;:.!?()]|\b(?:but|except|unless|and|or|while|whereas)\b", re.IGNORECASE)
_SCOPE_WORDS = 3
_WORD = re.compile(r"[\w'’-]+")
def _stated_plainly(sentence: str) -> frozenset[str]:
    """Content stems of ``sentence`` outside the scope of its negations (a negation's scope: the
    next :data:`_SCOPE_WORDS` words, up to the end of its phrase: "The hotel does not allow pets,
    except guide dogs." states {hotel, guide, dog} plainly; "Students who are not complete
    beginners must take a test" states {student, take, test})."""
    kept, pos = [], 0
    for m in NEGATION_RE.finditer(sentence):
        if m.start() < pos:
            continue
        end = _SCOPE_END.search(sentence, m.end())
        stop = end.start() if end else len(sentence)
        words = list(_WORD.finditer(sentence, m.end(), stop))
        if len(words) > _SCOPE_WORDS:
            stop = words[_SCOPE_WORDS - 1].end()
        kept.append(sentence[pos:m.start()])
        pos = stop
    kept.append(sentence[pos:])
    return content_stems(_fold_paraphrases(" ".join(kept)))
@functools.lru_cache(maxsize=8192)  # pure; a claim meets several sentences
def _claim_words(claim: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(words, said)``: the content stems of ``claim`` without its numbers' words ("fifty
    gigabytes" is checked as a number), and those of them that are not words of its names
    (what the claim says about whom it names)."""
    from director_fast.verify.numbers import without_numbers

    words = content_stems(without_numbers(_fold_paraphrases(claim)))
    named = content_stems(" ".join(name for name, a, _b in _names(claim) if " " in name or a > 0))
    return words, words - named
def says_what_the_claim_says(claim: str, sentence: str, support_coverage: float) -> bool:
    """Whether a sentence that covers ``claim`` states what the claim says, not only whom it is
    about or what it denies: some word of the claim besides its names stands in the sentence
    ("Harbour View Hotel allows dogs." is not supported by "Harbour View Hotel has 85 rooms.",
    whose only shared words are the name; checked for a claim of two or more such words without
    a number or a relation word between names, which other rules judge); and, for a claim without a negation, the
    words the sentence states outside its negations still cover ``support_coverage`` of what
    the claim says (its words besides its names; all its words when it is all names: "The hotel
    allows smoking." is not supported by "The hotel does not allow pets.", nor "Nordwind Bikes
    sells children's bikes." by "Nordwind Bikes does not sell electric scooters."); and an
    exception the claim makes that the sentence does not ("Delivery is free on all orders except
    furniture." against "Delivery is free on all orders.") leaves it unsupported."""
    words, said = _claim_words(claim)
    stated = content_stems(_fold_paraphrases(sentence))
    if len(said) >= 2 and not said & stated and not _HAS_NUMBER.search(claim) \
            and not (_relations(claim) and len(_role_names(claim)) >= 2):
        # (a number, or a relation between names, carries what such a claim says: the number
        # rules and the role rules judge it)
        return False
    if not _exceptions(sentence) and any(content_stems(_fold_paraphrases(m.group(1))) - stated
                                         for m in _EXCEPTION.finditer(claim)):
        return False  # an exception the sentence never makes ("free on all orders except furniture")
    if words and not NEGATION_RE.search(claim) and NEGATION_RE.search(sentence):
        asked = said or words  # what the claim says about its names (a name is never denied)
        return len(asked & _stated_plainly(sentence)) >= support_coverage * len(asked)
    return True
def dropped_exception(unit_text: str, claim: str, question: str) -> bool:
    """True when ``unit_text`` states an exception ("except for gift cards", "unless booked
    online", "does not apply to Lockers") and the ``claim`` either leaves it out while the
    ``question`` mentions it (most of the words that single the case out: "gift cards", not
    "card" alone; the claim answers the excepted case with the general rule) or
    while it states the rule for every case ("every", "all", "always", "never", "whichever",
    ...: "£1 off every adult swim" against "£1 off every adult swim, except during the Sunday fun
    session"), or
    names the excepted case and states the rule for it, with no negation or exception of its own
    ("Gift cards can be returned within 30 days." against "Items can be returned within 30 days,
    except for gift cards."). Paraphrases are folded first ("stolen" / "theft")."""
    if not _EXCEPTION.search(unit_text) and not _CARVE_OUT.search(unit_text):
        return False
    q = content_stems(_fold_paraphrases(question)) if question else set()
    c = content_stems(_fold_paraphrases(claim))
    universal = _UNIVERSAL.search(claim) is not None
    # a claim that names the excepted case itself and states the rule for it, without a negation
    # or an exception of its own ("Gift cards can be returned within 30 days.")
    negated = _negative(claim)
    plain = not _EXCEPTION.search(claim) and not _CONTRAST.search(claim)
    for m in _exceptions(unit_text):
        rule = content_stems(_fold_paraphrases(unit_text[:m.start()]))
        own = content_stems(_fold_paraphrases(m.group(1)))
        pairs = _excepted_cases(m, rule)
        cases = [case for _item, case in pairs]
        if not cases[0]:
            continue
        named = [case for case in cases if case & c]
        if named and _states_own_numbers(_own_clause(m), claim):
            continue  # the claim states what the exception itself says ("contractors get 100 GB")
        if named:
            # the claim restates the rule (words only the rule has, with the rule's polarity:
            # "Guide dogs are not allowed." against "Dogs are not allowed, except guide dogs.")
            # for an excepted case
            if plain and negated == _rule_negated(unit_text, m) and c & (rule - own) \
                    and any(_about_rule(c, case, rule, _consequence(m, rule)) for case in named):
                return True
            continue
        if any(_asks_about(item, case, q) for item, case in pairs) or universal:
            return True
    return False
def _rule_negated(text: str, m: re.Match[str]) -> bool:
    """Whether the rule an exception ``m`` of ``text`` makes an exception to is negated ("Dogs
    are not allowed, except guide dogs."): a negation in the sentence before the exception."""
    start = max(text.rfind(".", 0, m.start()), text.rfind(";", 0, m.start())) + 1
    return _negative(text[start:m.start()])


def _negative(text: str) -> bool:
    """Whether ``text`` holds a negation or a negative state ("closed", "exempt", "banned")."""
    from director_fast.verify.applied_rules import _NEGATIVE_STATE

    return _NEGATORS.search(_fold_paraphrases(text)) is not None or _NEGATIVE_STATE.search(text) is not None


def _excepted_text(m: re.Match[str]) -> str:
    """An exception ``m`` up to its own clause: the case it singles out ("puppies under 16
    weeks" of "except puppies under 16 weeks, who need a vet letter instead")."""
    return _CLAUSE_WORD.split(m.group(1), 1)[0]


def _own_clause(m: re.Match[str]) -> str:
    """What an exception ``m`` says of its case: its own clause ("who get 100 GB" of "except
    contractors, who get 100 GB"), or the whole exception when it has none."""
    head = _excepted_text(m)
    return m.group(1)[len(head):] if len(head) < len(m.group(1)) else m.group(1)


def _excepted_cases(m: re.Match[str], rule: frozenset[str]) -> list[tuple[str, frozenset[str]]]:
    """The cases an exception ``m`` singles out, each ``(its text, the stems of it that the rule
    (``rule``: the stems before the exception) does not use)``: the exception up to its own
    clause ("puppies under 16 weeks, who need a vet letter instead" excepts "puppies under 16
    weeks"), split into the items of a list ("except balance bikes and bikes with engines");
    the whole exception when no item has a stem of its own."""
    head = _excepted_text(m)
    items = _LIST_JOIN.split(head)
    pairs = [(item, w - rule) for item, w in ((item, content_stems(_fold_paraphrases(item))) for item in items)
             if w - rule]
    return pairs or [(m.group(1), content_stems(_fold_paraphrases(m.group(1))) - rule)]


def restates_exception(claim: str, sentence: str) -> bool:
    """Whether ``claim`` states an excepted case of ``sentence`` with the exception's
    consequence, not a negation of the sentence: it names the case (every stem that singles it
    out, :func:`_excepted_cases`), states the rule with the opposite polarity, and its other
    words are more the rule's than those of the exception's own clause. "Puppies under 16 weeks
    do not need the kennel cough vaccine." restates "All dogs must be vaccinated against kennel
    cough, except puppies under 16 weeks, who need a vet letter instead." ("Puppies under 16
    weeks do not need a vet letter." does not: it denies the exception's own clause); so does
    "Guide dogs are allowed." for "Dogs are not allowed, except guide dogs."."""
    c = content_stems(_fold_paraphrases(claim))
    negated = _negative(claim)
    for m in _exceptions(sentence):
        if _rule_negated(sentence, m) == negated:
            continue
        rule = content_stems(_fold_paraphrases(sentence[:m.start()]))
        consequence = _consequence(m, rule)
        if any(_about_rule(c, case, rule, consequence) for _item, case in _excepted_cases(m, rule)):
            return True
    return False


def _consequence(m: re.Match[str], rule: frozenset[str]) -> frozenset[str]:
    """The stems of an exception's own clause ("who need a vet letter instead") that the rule
    does not use; empty when the exception has no clause of its own."""
    own = _own_clause(m)
    return content_stems(_fold_paraphrases(own)) - rule if own != m.group(1) else frozenset()


def _about_rule(claim: frozenset[str], case: frozenset[str], rule: frozenset[str],
                consequence: frozenset[str]) -> bool:
    """Whether a claim (its stems) names an excepted ``case`` (all of its stems) and says more
    about the ``rule`` than about the exception's own clause (``consequence``)."""
    extra = claim - case
    return bool(case) and case <= claim and len(extra & rule) > len(extra & consequence)


def outside_negated_bound(claim: str, sentence: str) -> tuple[str, ...]:
    """The numbers of ``claim`` (their surfaces, e.g. ``("11 days",)``) that lie outside a bound
    ``sentence`` negates, when that explains the claim's disagreement with it: the sentence
    negates a rule only within a bound ("Dogs are not allowed to attend within 10 days after
    surgery."), the claim holds no negation and states every quantity of that bound's kind
    outside it ("Dogs are allowed to attend 11 days after surgery.", "... after 10 days"), so
    the negation is not about the claim's case, nor is the bound's number one the claim should
    repeat. ``()`` otherwise: a value inside the bound ("5 days after surgery") keeps the
    negation. Bounds as :func:`director_fast.verify.applied_rules.bounds` reads them (a bound
    clause is negated by a negation word or a closed / forbidden state)."""
    from director_fast.verify.applied_rules import _amount, _kind, _negated, _within, bounds
    from director_fast.verify.numbers import find_numbers

    if not _HAS_NUMBER.search(claim) or _negative(claim):
        return ()
    negated = [b for b in bounds(sentence, find_numbers(sentence)) if _negated(sentence, b.start, b.end)]
    if not negated:
        return ()
    mentions = find_numbers(claim)
    own = bounds(claim, mentions)
    out: list[str] = []
    for b in negated:
        same = [m for m in mentions if _kind(claim, m) == b.kind]
        if not same:
            continue
        for m in same:
            mine = next((x for x in own if x.start <= m.start and m.end <= x.end), None)
            if mine is not None and not _overlap(mine, b):
                continue  # "after 10 days" lies wholly outside "within 10 days"
            if mine is None and not _within(_amount(claim, m), b):
                continue
            return ()  # a value (or bound) of the claim inside the negated bound
        out.extend(m.surface for m in same)
    return tuple(dict.fromkeys(out))


def _overlap(a: Any, b: Any) -> bool:
    """Whether two bounds (:class:`director_fast.verify.applied_rules.Bound`, one kind) share a
    value; an open end is unbounded, a strict end excludes its value."""
    lo = max(((x.lo, x.strict) for x in (a, b) if x.lo is not None), default=None, key=lambda t: (t[0], t[1]))
    hi = min(((x.hi, not x.strict) for x in (a, b) if x.hi is not None), default=None, key=lambda t: (t[0], t[1]))
    if lo is None or hi is None:
        return True
    return lo[0] < hi[0] or (lo[0] == hi[0] and not lo[1] and hi[1])


_EXCEPTION_WORD = re.compile(r"[A-Za-z][\w'’-]*")
def _asks_about(exception: str, case: frozenset[str] | set[str], question: frozenset[str] | set[str]) -> bool:
    """Whether a question (its content stems) is about an excepted case: it names a word of the
    case (``case``: the stems that single it out) that stands in ``exception`` without a modifier
    the question lacks ("gift cards" needs "gift": "a card payment" is not about gift cards;
    "another member has placed a reservation" is asked about by "someone put a reservation")."""
    words = _EXCEPTION_WORD.findall(_fold_paraphrases(exception))
    for k, w in enumerate(words):
        stem = next(iter(content_stems(w)), None)
        if stem is None or stem not in case or stem not in question:
            continue
        modifier = content_stems(words[k - 1]) if k > 0 else frozenset()
        if modifier and not modifier & question:
            continue  # "gift cards" asked about as "card"
        return True
    return False
# the items of an exception's list ("balance bikes and bikes with engines"), and where an excepted
# case ends and the exception's own clause begins ("puppies under 16 weeks, who need a vet letter")
_LIST_JOIN = re.compile(r",?\s+(?:and|or)\s+")
_CLAUSE_WORD = re.compile(r"\b(?:where|which|who|whose|when|while|in\s+which)\b", re.IGNORECASE)
# "..., but claims under the add-on do not affect it": a carve-out stated as a negated clause
_CARVE_OUT = re.compile(r"\bbut\s+([^.;]*?)\s+(?:do|does|did|will|is|are|was|were)\s+not\b", re.IGNORECASE)
def _states_own_numbers(exception: str, claim: str) -> bool:
    """Whether ``exception`` states numbers of its own ("except for contractors, who get 100 GB")
    and ``claim`` holds every one of them (same quantity)."""
    from director_fast.verify.number_alignment import same_quantity
    from director_fast.verify.numbers import find_numbers

    own = find_numbers(exception)
    if not own:
        return False
    said = find_numbers(claim)
    return all(any(same_quantity(o, c) for c in said) for o in own)
def _exceptions(text: str) -> list[re.Match[str]]:
    """The exceptions of ``text``: :data:`_EXCEPTION` matches and "but <case> do(es) not ..."
    carve-outs (group 1: the excepted case), in text order."""
    return sorted([*_EXCEPTION.finditer(text), *_CARVE_OUT.finditer(text)], key=lambda m: m.start())
_CONJUNCT_BREAK = re.compile(r",\s+(?:and|but|while|plus)\s+|;\s+|,\s+(?=[A-Za-z])|\s+(?:and|but)\s+(?=\w)")
def conjuncts(claim: str) -> list[str]:
    """The parts of ``claim`` joined by commas, "and", "but", "while", "plus" or ";", each of at
    least 3 words (a shorter part is joined to the part before it, or the first to the next):
    "You get two bags of 23 kg, and your skis travel free of charge." gives "You get two bags of
    23 kg" and "your skis travel free of charge."."""
    spans: list[list[int]] = []  # [start, end) of each part, merged in the original text
    pos = 0
    for m in [*_CONJUNCT_BREAK.finditer(claim), None]:
        a, b = pos, (m.start() if m is not None else len(claim))
        if claim[a:b].strip():
            if spans and (len(claim[a:b].split()) < 3 or len(claim[spans[-1][0]:spans[-1][1]].split()) < 3):
                spans[-1][1] = b
            else:
                spans.append([a, b])
        if m is not None:
            pos = m.end()
    return [claim[a:b].strip() for a, b in spans]
#: content stems a conjunct needs for :func:`unstated_conjunct` to hold it against the evidence
_CONJUNCT_STEMS = 2


def unstated_conjunct(claim: str, premise: str) -> bool:
    """Whether ``claim`` coordinates a predicate that ``premise`` (all of the claim's evidence)
    never mentions: a conjunct of
    the claim (:func:`conjuncts`) after the first that opens with a finite verb (the subject is
    the claim's: the splitter's closed verb list) and has at least :data:`_CONJUNCT_STEMS`
    content stems (numbers aside), none of them in ``premise``. "A 10-visit pass costs £290, is
    valid for 6 months and includes a free bath." adds "includes a free bath", which "A 10-visit
    pass costs £290 and is valid for 6 months." never mentions, however well the rest is
    covered; the same predicate with a subject of its own ("..., and it includes a free bath.")
    is a claim of its own (the claim splitter's) and is not found either."""
    from director_fast.verify.claim_kinds import _FINITE
    from director_fast.verify.numbers import without_numbers

    parts = conjuncts(claim)
    if len(parts) < 2:
        return False
    stated = content_stems(_fold_paraphrases(premise))
    for part in parts[1:]:
        first = part.split(None, 1)[:1]
        if not first or first[0].lower() not in _FINITE:
            continue
        words = content_stems(without_numbers(_fold_paraphrases(part)))
        if len(words) >= _CONJUNCT_STEMS and not words & stated:
            return True
    return False


# words of a bare yes / no answer ("Yes, absolutely.", "Not quite.", "That's right!")
_ANSWER_WORDS = frozenset(
    "yes yeah yep yup nope correct incorrect right true false absolutely indeed exactly course sure "
    "certainly definitely quite really that's unfortunately sadly afraid yet exactly necessarily "
    "straight away immediately always moment now you she would could should might must shall aren isn "
    "generally usually normally typically mostly sort partly partially own alone necessarily entirely "
    "completely fully "
    "don doesn didn won couldn wouldn shouldn wasn weren haven hasn thing problem worries worry bother trouble "
    "why okay sounds sound good fine alright".split())
# affirmative idioms built on a negation word ("No problem!", "Not a problem.", "No worries", "Why not!")
_AFFIRMING_IDIOMS = re.compile(r"\b(?:no|not\s+a)\s+(?:problem|worries|bother|trouble)\b|\bwhy\s+not\b",
                               re.IGNORECASE)
# a tag that turns a statement into a yes / no question ("We're open on Sundays, right?")
_QUESTION_TAG = re.compile(r",\s*(?:right|correct|yes|no|true|ok|okay|is\s+that\s+(?:right|correct|so|ok|okay|alright|"
                           r"all\s+right|allowed|possible|fine)|"
                           r"(?:is|are|do|does|did|was|were|can|will|have|has)n['’]t\s+(?:it|you|we|they|he|she|there|that))\s*$",
                           re.IGNORECASE)
# where a yes / no question may follow a statement within one sentence ("I'm a member - do I ...")
_QUESTION_LEAD = re.compile(r"\s+[-–—]\s+|,\s+|;\s+")
# the first word of a yes / no question
_YES_NO_OPENERS = frozenset(
    "is isn't are aren't was wasn't were weren't do don't does doesn't did didn't can can't could "
    "couldn't will won't would wouldn't shall should shouldn't may might must have haven't has "
    "hasn't had am".split())
def bare_answer(unit: str, question: str) -> tuple[str, bool] | None:
    """For a unit that says no more than yes or no ("Yes.", "Correct!", "No.", "It is not.",
    "They do.") in reply to a yes / no question (one that opens with an auxiliary verb): ``(the question's last sentence, affirmed)``; the answer
    asserts that proposition (affirmed) or its negation. None when the unit has no letter, or a content word
    of its own or the prompt ends with no question. A bare answer to a question is judged through
    the question ("Yes." to "Does Acme employ 9,000 people?" is as wrong as the 9,000), never
    passed unjudged. A unit with a number the question does not state asserts the proposition with
    that number ("Yes, from 6:00 to 23:00." to "Is the museum open on Saturdays?" is judged as
    "the museum open on Saturdays from 6:00 to 23:00"), never as a bare yes."""
    if not re.search(r"[^\W\d_]", unit):
        return None  # no word at all ("📚" is no "yes")
    q = question.strip()
    asked = _last_question(q)
    if asked is None:
        return None
    last, verbless = asked
    own = content_words(_AFFIRMING_IDIOMS.sub("yes", unit)) - _ANSWER_WORDS
    if own - content_words(last):
        return None  # a word of its own (words of the question only restate it: "Not on her own.")
    numbers_of_its_own = False
    if _HAS_NUMBER.search(unit):
        from director_fast.verify.numbers import find_numbers

        asked = [m.value for m in find_numbers(q)]
        numbers_of_its_own = any(all(not same_value(m.value, v) for v in asked)
                                 for m in find_numbers(unit))
    if own and not (_NEGATORS.search(unit) or content_words(unit) & _ANSWER_WORDS):
        return None  # a full restatement ("We are open on Sundays.") is judged as itself
    tag = _QUESTION_TAG.search(last)
    if tag:  # "We're open on Sundays, right?": the statement before the tag is the proposition
        last = last[:tag.start()].strip()
    elif last and last.split(None, 1)[0].lower() not in _YES_NO_OPENERS:
        # "I'm a member - do I get money off?": the question after a dash, comma or semicolon
        parts = [p for p in _QUESTION_LEAD.split(last) if p.split(None, 1)[0].lower() in _YES_NO_OPENERS] \
            if _QUESTION_LEAD.search(last) else []
        last = parts[-1].strip() if parts else last
    first = last.split(None, 1)[0].lower() if last else ""
    if (first not in _YES_NO_OPENERS and not tag and not verbless) or not content_words(last):
        return None  # "When do you open?" is not answered by "Sure!"
    said = _AFFIRMING_IDIOMS.sub("yes", unit)  # "No problem!" says yes
    if numbers_of_its_own:  # "Yes, from 6:00 to 23:00.": the question's proposition with those numbers
        return f"{last} {unit.strip()}", not _NEGATORS.search(said)
    return last, not _NEGATORS.search(said)
# openers that only lead into a question ("So can I ...?", "Quick question: can I ...?")
_QUESTION_PREAMBLE = re.compile(r"^(?:(?:so|and|but|ok|okay|well|also|oh|hi|hey|hello|right)\b[,\s]*)+|^[^:?]{1,40}:\s*",
                                re.IGNORECASE)
_WH_WORDS = frozenset("what what's when where where's who who's whom whose which why how how's".split())
def _last_question(q: str) -> tuple[str, bool] | None:
    """The user's last question, as ``(its text without the "?" and any preamble, verbless)``:
    the last sentence ending with "?" ("Are dogs allowed? Thanks!" asks "Are dogs allowed"), or a
    last sentence that opens like a yes / no question without the "?" ("can i bring my dog");
    ``verbless`` when a "?" sentence opens with neither an auxiliary nor a wh-word ("Dogs
    allowed?", "Any chance I could bring my dog?": still a yes / no question). None when the
    message asks nothing, or its last question is a wh-question."""
    sentences = [x.strip() for x in re.split(r"(?<=[.!?])\s+|\n+", q) if x.strip()]
    asked = [x for x in sentences if x.endswith("?")]
    opening = _QUESTION_PREAMBLE.sub("", sentences[-1]).split(None, 1)[:1] if sentences and not asked else []
    if asked:
        text = asked[-1]
    elif opening and opening[0].lower() in _YES_NO_OPENERS:
        text = sentences[-1]
    else:
        return None
    body = _QUESTION_PREAMBLE.sub("", text.rstrip("?!. ").strip()).strip() or text.rstrip("?!. ").strip()
    first = body.split(None, 1)[0].lower() if body else ""
    if first in _WH_WORDS:
        return None
    return body, text.endswith("?") and first not in _YES_NO_OPENERS
def bare_answers(unit: str, question: str) -> list[tuple[str, bool]]:
    """:func:`bare_answer` for every yes / no question of the user's message, in order: a bare
    "Yes!" to "Can I bring my dog? Is parking free?" asserts both propositions. ``[]`` when the
    unit answers none of them."""
    q = question.strip()
    if "?" not in q:  # "can i bring my dog" (no "?"): the one question, if it opens like one
        one = bare_answer(unit, q)
        return [one] if one is not None else []
    asked = [x.strip() for x in re.split(r"(?<=\?)\s+", q) if x.strip().endswith("?")]
    out = [b for b in (bare_answer(unit, x) for x in asked[:-1]) if b is not None]
    last = bare_answer(unit, q)  # the last one with the whole message (a statement before it)
    return out + ([last] if last is not None else [])
def flip(decision: ClaimDecision) -> ClaimDecision:
    """The verdict on the negation of a judged proposition: supported <-> contradicted
    (not_found stays)."""
    swap = {"supported": "contradicted", "contradicted": "supported"}
    if decision.verdict not in swap:
        return decision
    return ClaimDecision(swap[decision.verdict], decision.strength, "yes_no", decision.unit_index,
                         decision.comparisons)

"""Role rules of the claim verdict: names in a text, who reports to whom
(:func:`manager_moved`), relations whose two sides are swapped (:func:`roles_swapped`: "A
acquired B" against "B acquired A", passives and object relatives included) and a relation or
job title given to the wrong person (:func:`holdings`, :func:`holder_replaced`: "Luis Carvalho
owns Pinecrest." against "Pinecrest is owned by Harriet Mbeki"; :func:`job_titles`). Pure
functions; thread-safe.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from director_fast.verify.text import content_words
from director_fast.verify.rules_wording import _fold_paraphrases, _has_word, content_stems


_NAME = re.compile(r"(?:[A-Z][\w&'’.-]*)(?:\s+(?:of\s+|de\s+|van\s+|von\s+)?[A-Z][\w&'’.-]*)*")
# relation words whose two sides are roles ("A reports to B", "A acquired B"); the plural "s" is
# folded as in _content_words
_RELATIONS = frozenset(
    w[:-1] if len(w) > 4 and w.endswith("s") else w for w in
    "report reports reported acquired acquire bought buy buys owns owned own founded found merged "
    "merge took take takes manage manages managed lead leads led run runs ran replaced replace "
    "replaces work works sold sell sells hired hire employ employs succeeded succeed chair chairs "
    "head heads supervise supervises oversee oversees joined join subsidiary parent owner founder "
    "boss manager deputy assistant answer answers answered operate operates operated lease leases leased "
    "rent rents rented".split())
_NOT_NAMES = frozenset(
    "the a an our your their its his her my this that these those yes no sure it they we you he "
    "she i there here and but or so if when what who which how why as at by in on for from with "
    "to of after before during since until also please note all every each both".split())
def _names(text: str) -> list[tuple[str, int, int]]:
    """Capitalised word runs of ``text`` (``(lower-cased name, start, end)``), a leading
    function word dropped ("The IT Help Desk" -> "it help desk"), possessive "'s" dropped."""
    out = []
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        start = m.start()
        while words and words[0].lower() in _NOT_NAMES:
            start = text.index(words[0], start) + len(words[0])
            words = words[1:]
        if not words:
            continue
        name = " ".join(words)
        name = re.sub(r"['’]s$", "", name).rstrip(".")
        out.append((name.lower(), start, m.end()))
    return out
def _role_names(text: str) -> list[tuple[str, int, int]]:
    """:func:`_names` plus things named by a number ("bus route 14", "platform 3"), in text
    order: the parties of a relation for :func:`roles_swapped`."""
    out = _names(text)
    taken = [(a, b) for _n, a, b in out]
    for m in _NUMBERED_NAME.finditer(text):
        if not any(a < m.end() and m.start() < b for a, b in taken):
            out.append((m.group(0).lower(), m.start(), m.end()))
    return sorted(out, key=lambda n: n[1])
# things named by a number ("route 14", "platform 3", "aisle 7")
_NUMBERED_NAME = re.compile(r"\b(?:route|line|platform|gate|bay|aisle|room|unit|terminal|track|stand|pier|"
                            r"berth|floor|level|zone|ward|building|block|door|exit|lane)\s+\d+[A-Za-z]?\b",
                            re.IGNORECASE)
def capitalised_names(text: str) -> list[tuple[str, int, int]]:
    """The names the lexical judge compares: capitalised word runs of ``text`` as ``(lower-cased
    name, start, end)`` (code points; ``end`` may include a possessive "'s"), a leading function
    word dropped ("The IT Help Desk" -> ``"it help desk"``). Pure; thread-safe."""
    return _names(text)
# relation words of one meaning, folded to one ("bought" and "acquired" are the same relation)
_RELATION_SYNONYMS = {w: "acquire" for w in "acquired acquire bought buy purchased purchase took take".split()}
_RELATION_SYNONYMS.update({w: "lead" for w in "lead led run ran head manage managed oversee supervise chair".split()})
_REPORTS_TO = re.compile(r"\b(?:report(?:s|ed|ing)?|answer(?:s|ed)?)\s+(?:directly\s+)?to\b", re.IGNORECASE)
def _reports_to(text: str) -> list[tuple[str, frozenset[str]]]:
    """``(person, managers)`` pairs of ``text`` ("Priya Raman reports to Miriam Okonjo", "The head
    of studies, Oliver Tanaka, reports to Dr Marsh": the last name before "reports to" / "answers
    to" in its sentence, and the names after it up to the sentence's end or a ";": "reports to A
    and B" gives both)."""
    names = _names(text)
    out = []
    for m in _REPORTS_TO.finditer(text):
        before = [n for n, _a, b in names if b <= m.start() and "." not in text[b:m.start()]]
        stop = re.search(r"[.;]", text[m.end():])
        end = m.end() + stop.start() if stop else len(text)
        after = frozenset(n for n, a, _b in names if m.end() <= a < end)
        if before and after:
            out.append((before[-1], after))
    return out
def manager_moved(claim: str, evidence: str) -> bool:
    """True when ``claim`` says a person reports to one manager and ``evidence`` has that person
    report to someone else ("Priya Raman reports to Daniel Pike." against "Priya Raman reports to
    Miriam Okonjo."; "answers to" reads as "reports to")."""
    claimed = _reports_to(claim)
    if not claimed:
        return False
    stated = dict(_reports_to(evidence))
    return any(person in stated and not any(b == s or b in s or s in b for b in bosses for s in stated[person])
               for person, bosses in claimed)
def _relations(text: str) -> set[str]:
    """The relation words of ``text`` (:data:`_RELATIONS`), synonyms folded."""
    return {_RELATION_SYNONYMS.get(w, w) for w in content_words(text) & _RELATIONS}
def roles_swapped(claim: str, evidence: str) -> bool:
    """True when two names of ``claim`` stand in ``evidence`` in the opposite order around the
    same relation in the same voice ("Walter bought the shop from Priya" against "Priya bought it
    from Walter", "A reports to B" against "B reports to A"), or in the same order in the other
    voice ("A was acquired by B" against "A acquired B"). A passive rewrite with the order
    swapped ("B was acquired by A" for "A acquired B") is the same statement; names joined
    without a relation word ("Tromvik and Bodo") are never a swap."""
    if not _relations(claim):  # a swap needs a relation word between two of the claim's names
        return False
    cn = _role_names(claim)
    if len(cn) < 2:
        return False
    evidence = _with_object_relatives(evidence)
    en = {}
    for name, a, b in _role_names(evidence):
        en.setdefault(name, (a, b))
    present = [(n, a, b) for n, a, b in cn if n in en]
    for i in range(len(present)):
        for j in range(i + 1, len(present)):
            (n1, _a1, b1), (n2, a2, _b2) = present[i], present[j]
            if n1 == n2:
                continue
            e1, e2 = en[n1], en[n2]
            reversed_order = e1[0] > e2[0]
            between_c = claim[b1:a2]
            between_e = evidence[e2[1]:e1[0]] if reversed_order else evidence[e1[1]:e2[0]]
            relation = _relations(between_c) & _relations(between_e)
            same_voice = _passive(between_c, relation) == _passive(between_e, relation)
            # "B acquired A" for "A acquired B", or "A was acquired by B" for "A acquired B"
            if relation and reversed_order == same_voice:
                return True
    return False
# "Strivex Payments, which Quillpoint acquired in 2022": the name before "which" is the object
_OBJECT_RELATIVE = re.compile(r"(" + _NAME.pattern + r"),?\s+(?:which|whom|who|that)\s+(?:the\s+)?("
                              + _NAME.pattern + r")\s+([a-z]+)")
def _with_object_relatives(evidence: str) -> str:
    """``evidence`` with "B <relation> A." put first for each object relative clause "A, which B
    <relation>" ("Strivex Payments, which Quillpoint acquired" -> "Quillpoint acquired Strivex
    Payments."), so that the first place of each name around the relation is the order of its
    roles."""
    extra = [f"{m.group(2)} {m.group(3)} {m.group(1)}." for m in _OBJECT_RELATIVE.finditer(evidence)
             if _relations(m.group(3))]
    return evidence if not extra else " ".join(extra) + " " + evidence
def _passive(between: str, relation: set[str]) -> bool:
    """Whether one of the ``relation`` words of ``between`` (the text between two names) is
    followed by "by" within three words ("is run by senior mechanic": passive; "runs the
    workshop and reports to": active, although another relation of the text may be passive)."""
    words = re.findall(r"[\w'’-]+", between.lower())
    for i, w in enumerate(words):
        if _RELATION_SYNONYMS.get(w, w) in relation or _RELATION_SYNONYMS.get(w[:-1], w[:-1]) in relation:
            if "by" in words[i + 1:i + 4]:
                return True
    return False
_TITLE_HEADS = frozenset(
    "officer director manager head ceo cfo coo cto cio md vp hr president chair chairman chairwoman chairperson "
    "founder owner coordinator supervisor lead principal dean secretary treasurer partner executive "
    "administrator registrar controller superintendent editor curator".split())
# word runs start at a word boundary, never give back letters (possessive) and are at most six
# words long: linear in the text, also on a 100,000-letter "word" or 50,000 capitalised words
_NAME_RUN = r"\b(?:Dr\.?\s+|Mr\.?\s+|Mrs\.?\s+|Ms\.?\s+|Prof\.?\s+)?[A-Z][\w'’-]++(?:\s+[A-Z][\w'’-]++){0,5}+"
_TITLE_RUN = r"\b[A-Za-z][A-Za-z'’-]*+(?:\s+(?:of\s+|for\s+|and\s+)?[A-Za-z][A-Za-z'’-]*+){0,5}"
_TITLE_PATTERNS = [re.compile(p) for p in (
    # "the chief operating officer, Hanne Moe" / "our head of studies, Dr Helena Marsh"
    r"\b(?:[Tt]he|[Oo]ur|[Ii]ts|[Tt]heir)\s+(?P<title>" + _TITLE_RUN + r"),\s+(?P<name>" + _NAME_RUN + r")",
    # "Hanne Moe, the chief operating officer"
    r"(?P<name>" + _NAME_RUN + r"),\s+(?:the|our|its|their)\s+(?P<title>" + _TITLE_RUN + r")",
    # "Hanne Moe is the chief operating officer", "Nadia Vesely is CFO", "Owen Brandt serves as CFO"
    r"(?P<name>" + _NAME_RUN + r")\s+(?:is|was|has\s+been|serves\s+as|served\s+as|works\s+as|acts\s+as)"
    r"\s+(?:(?:the|our|its|their|a|an)\s+)?(?P<title>" + _TITLE_RUN + r")",
    # "The chief operating officer is Hanne Moe"
    r"\b(?:[Tt]he|[Oo]ur|[Ii]ts|[Tt]heir)\s+(?P<title>" + _TITLE_RUN + r")\s+(?:is|was)\s+(?P<name>" + _NAME_RUN + r")",
    # "Pinecrest's owner is Harriet Mbeki" (the possessor stays in the title: what is held)
    r"\b(?P<title>[A-Z][\w-]*+['’]s\s+" + _TITLE_RUN + r")\s+(?:is|was)\s+(?P<name>" + _NAME_RUN + r")",
)]
# title heads that also stand before the noun of another job ("head handler", "lead guide")
_MODIFYING_HEADS = frozenset({"head", "lead", "executive"})


def _title_of(phrase: str) -> str:
    """The job title in a lower-case phrase, cut after its head word ("chief operating officer
    who reports" -> "chief operating officer"; "head handler at the kennel" -> "head handler");
    "" when it names no job."""
    words = phrase.split()
    for k in range(len(words), 0, -1):
        if words[k - 1] in _TITLE_HEADS:
            if k < len(words) and words[k] == "of" and k + 1 < len(words):  # "head of studies"
                end = k + 1
                while end < len(words) and words[end] not in ("who", "which", "and", "reports", "is"):
                    end += 1
                return " ".join(words[:end])
            if k < len(words) and words[k - 1] in _MODIFYING_HEADS and content_words(words[k]):
                k += 1  # the noun "head" modifies: "head handler"
            return " ".join(words[:k])
    return ""
def _titles(text: str) -> list[tuple[str, str]]:
    """``(title, name)`` for the people ``text`` gives a job title, in pattern order (both
    lower-cased; the title as :func:`_title_of` cuts it)."""
    out = []
    for pattern in _TITLE_PATTERNS:
        for m in pattern.finditer(text):
            title = _title_of(m.group("title").lower())
            name = re.sub(r"^(?:dr|mr|mrs|ms|prof)\.?\s+", "", m.group("name").lower())
            if title and name.split()[0] not in _NOT_NAMES:
                out.append((title, name))
    return out
def job_titles(text: str) -> dict[str, str]:
    """``title -> name`` for the people ``text`` gives a job title ("The head of billing
    operations, Nadia Vesely, reports to the CFO, Owen Brandt." -> {"head of billing operations":
    "nadia vesely", "cfo": "owen brandt"}); both lower-cased, the first holder of each title."""
    out: dict[str, str] = {}
    for title, name in _titles(text):
        out.setdefault(title, name)
    return out


# ---- who holds a relation: active, passive and copular forms ------------------------------------

@dataclass(frozen=True, slots=True)
class Holding:
    """A relation a text gives named holders (:func:`holdings`).

    Attributes:
        key: the relation: the root of its word (:func:`_relation_key`: "owns", "owned" and
            "owner" are ``("own",)``), after the other words of a job title ("head handler" is
            ``("head", "handl")``).
        holders: the holders' names, lower-cased, titles of address dropped ("harriet mbeki").
        obj: content stems of what is held ("pinecrest"; "studi" for "head of studies"); empty
            when the text does not say.
        title: the job title's words when the relation is stated as one ("The owner is ...",
            "..., the head handler"), else empty.
    """

    key: tuple[str, ...]
    holders: tuple[str, ...]
    obj: frozenset[str]
    title: frozenset[str] = frozenset()


# endings folded to the root of a relation word ("owner", "owns", "owned" -> "own"; "supervisor",
# "supervises" -> "supervis"), the longest first
_ENDINGS = ("ers", "ors", "ing", "er", "or", "es", "ed", "s", "e")


def _root(word: str) -> str:
    """``word`` (lower-case) with one ending dropped ("owner", "owns", "owned" -> "own";
    "transferred" -> "transfer")."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            w = word[:-len(ending)]
            if ending in ("ed", "ing", "er", "ers") and w[-1] == w[-2] and w[-1] not in "aeiouylsfz":
                w = w[:-1]  # "transferred", "running": the consonant doubled before the ending
            return w
    return word


# the synonyms of _RELATION_SYNONYMS by root ("manages", "managed", "manager" all "manag" -> "lead")
_ROOT_SYNONYMS = {_root(w): v for w, v in _RELATION_SYNONYMS.items()}


def _relation_key(word: str) -> str:
    """The root of a relation word (lower-cased, :func:`_root`), the synonyms of
    :data:`_RELATION_SYNONYMS` folded ("bought" and "acquired" are one relation; "manages" and
    "runs" another)."""
    w = word.lower()
    if w in _RELATION_SYNONYMS:
        return _RELATION_SYNONYMS[w]
    r = _root(w)
    return _ROOT_SYNONYMS.get(r, r)


_PERSON = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'’-]*+(?:\s+(?:de\s+|van\s+|von\s+)?[A-Z][\w'’-]*+){0,4}+"
_PEOPLE = _PERSON + r"(?:(?:\s*,\s*|\s+and\s+|\s*&\s*)" + _PERSON + r")*"
# "is owned by A", "was founded in 1998 by A and B", ", run by senior keeper A" (the holder
# after at most two words of a title)
_PASSIVE = re.compile(r"(?:\b(?:is|are|was|were|be|been|being)\s+(?:[a-z]+ly\s+|also\s+|now\s+|still\s+)?|,\s*"
                      r"|\b(?:and|but)\s+)(?P<verb>[a-z]{3,})(?:\s+(?:in\s+)?(?:[a-z]+ly|\d{4})){0,2}\s+by\s+"
                      r"(?P<lead>(?:[a-z]+\s+){0,2}?)(?P<people>" + _PEOPLE + r")")
# "A owns B", "A, who founded B", "A has owned B since 2010" (after a name)
_ACTIVE_AFTER_NAME = re.compile(r"(?:,?\s+(?:who|which|that))?\s+(?:(?:also|now|still|currently|jointly|personally|"
                                r"has|have|had|will)\s+){0,2}(?P<verb>[a-z]{3,})\s+(?P<object>[^,.;:!?]{1,80})")
# a name right after a preposition is no subject ("The café on MV Guillemot serves hot food")
_AFTER_PREPOSITION = re.compile(r"\b(?:on|at|in|of|for|from|with|to|by|near|into|onto|via|under|over|behind|beside|"
                                r"after|before|since|than|like|aboard)\s+$", re.IGNORECASE)
# where a clause ends, for the object before a passive or after an active verb
_CLAUSE_END = re.compile(r"[,.;:!?]|\b(?:and|but|while|whereas|who|which|since|because)\b")
_MONTHS_AND_DAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december".split())


# how far back (code points) a holding looks for the start of its clause
_LOOKBACK = 160


def _person(name: str) -> str:
    """A holder's name lower-cased, a title of address dropped ("Dr Helena Marsh" -> "helena marsh")."""
    return re.sub(r"^(?:dr|mr|mrs|ms|prof)\.?\s+", "", name.lower()).strip()


def _people(run: str) -> tuple[str, ...]:
    """The names of a run of holders ("Harriet Mbeki and Tom Reyes"), days and months left out
    ("by Friday" names no holder)."""
    names = (_person(n) for n in re.split(r"\s*,\s*|\s+and\s+|\s*&\s*", run))
    return tuple(n for n in names if n and n.split()[0] not in _NOT_NAMES and n not in _MONTHS_AND_DAYS)


def _object_before(text: str, end: int) -> frozenset[str]:
    """Content stems of the clause before ``end`` (the subject of a passive), its own "by A"
    phrases left out ("Pinecrest is owned by Harriet Mbeki and run" -> {"pinecrest", "own"})."""
    window = text[max(0, end - _LOOKBACK):end]  # (a bounded look back: linear in the text)
    ends = list(re.finditer(r"[.;:!?]|,\s*(?:and|but|while|whereas)\b", window))
    clause = window[ends[-1].end() if ends else 0:]
    return content_stems(re.sub(r"\bby\s+" + _PEOPLE, " ", clause))


def _object_after(phrase: str) -> frozenset[str]:
    """Content stems of an active verb's object: ``phrase`` up to the end of its clause."""
    stop = _CLAUSE_END.search(phrase)
    return content_stems(phrase[:stop.start()] if stop else phrase)


def _title_holding(title: str, name: str) -> Holding:
    """A job title as a :class:`Holding`: the words before its head noun kept ("head handler"),
    "of X" and a possessive before it the object ("head of studies", "Pinecrest's owner")."""
    role, _of, held = title.partition(" of ")
    words = role.split()
    obj = content_stems(held) | {w[:-2] for w in words if w.endswith(("'s", "’s"))}
    words = [w for w in words if not w.endswith(("'s", "’s"))] or words[-1:]
    return Holding((*words[:-1], _relation_key(words[-1])), (_person(name),), frozenset(obj), frozenset(title.split()))


@functools.lru_cache(maxsize=4096)  # pure; a claim meets many units and a unit many claims
def holdings(text: str) -> tuple[Holding, ...]:
    """The relations ``text`` gives named holders, in any of three forms: active ("Luis Carvalho
    owns Pinecrest", "A, who founded B"), passive ("Pinecrest is owned by Harriet Mbeki and Tom
    Reyes", "run by senior keeper Ana Ruiz") and a job title ("The owner is A", "A is the head of
    studies", "the CFO, A"; :func:`job_titles`). A verb followed by a preposition ("works at",
    "reports to") is no holding (several people work at one place; who reports to whom is
    :func:`manager_moved`'s). A holder is a capitalised name; a single capitalised word at the
    start of the text counts only in the passive ("Parking costs £5" names no holder)."""
    out = [_title_holding(title, name) for title, name in _titles(text)]
    for m in _PASSIVE.finditer(text):
        people = _people(m.group("people"))
        if people and content_words(m.group("verb")):
            out.append(Holding((_relation_key(m.group("verb")),), people, _object_before(text, m.start("verb"))))
            title = _title_of(m.group("lead").lower())
            if title and len(people) == 1:  # "led by chief executive Ingrid Sollberg": her title too
                out.append(_title_holding(title, people[0]))
    for name, a, b in _names(text):
        before = text[max(0, a - _LOOKBACK):a]
        if " " not in name and re.search(r"[.!?:][\s\"'“‘(]*$" if a > _LOOKBACK else r"(?:^|[.!?:])[\s\"'“‘(]*$", before):
            continue  # a capitalised first word alone ("Parking costs £5") is no name
        if _AFTER_PREPOSITION.search(before):
            continue  # "The café on MV Guillemot serves": the name is not the subject
        m = _ACTIVE_AFTER_NAME.match(text, b)
        if m is None or not content_words(m.group("verb")) or not m.group("verb").endswith(("s", "ed")) \
                and m.group("verb") not in _RELATION_SYNONYMS:
            continue
        obj = m.group("object")
        if not content_words(obj.split()[0]) and obj.split()[0] not in ("the", "a", "an", "its", "their", "our", "his", "her"):
            continue  # a verb taking a preposition ("works at", "reports to"), or no verb at all
        out.append(Holding((_relation_key(m.group("verb")),), (_person(name),), _object_after(obj)))
    return tuple(out)


def _same_person(a: str, b: str) -> bool:
    """Whether two lower-cased names may name one person ("harriet" and "harriet mbeki")."""
    x, y = set(a.split()), set(b.split())
    return x <= y or y <= x


def _related(a: Holding, b: Holding) -> bool:
    """Whether two holdings may be one role: the same relation root ("manager" and "general
    manager"), or one title's words within the other's ("head" and "head baker")."""
    return a.key[-1] == b.key[-1] or bool(a.title and b.title and (a.title <= b.title or b.title <= a.title))


def holder_replaced(claim: str, evidence: str) -> bool:
    """True when ``claim`` gives a relation to a person and ``evidence`` gives it to someone
    else, in any voice or form (:func:`holdings`: "Luis Carvalho owns Pinecrest.", "Pinecrest is
    owned by Luis Carvalho." or "The owner is Luis Carvalho." against "Pinecrest is owned by
    Harriet Mbeki, and the head handler is Luis Carvalho."): the same relation root, of the same
    thing (both say what is held and share a word of it, or one does not say), and the claim's
    person named in the evidence but not among its holders. Also true when the claim gives a
    person a job title, the evidence names nobody in that role and gives that person only another
    title ("The owner is Tom Reyes." against "The head baker is Tom Reyes."; a verb is not read as
    a title here: "Tom Reyes runs the bakery" may well be the head baker's job). A co-holder
    ("owned by A and B" for "A owns it") and the same holder in another voice agree."""
    claimed = holdings(claim)
    if not claimed:
        return False
    evidence = _fold_paraphrases(evidence)  # "chief executive" is "CEO", as the claim reads it
    stated = holdings(evidence)
    if not stated:
        return False
    lowered = evidence.lower()
    for h in claimed:
        same = [s for s in stated if s.key == h.key and (not h.obj or not s.obj or h.obj & s.obj)]
        for name in h.holders:
            if any(_same_person(name, x) for s in same for x in s.holders):
                continue
            if same and _has_word(name, lowered):
                return True  # someone else holds that relation ("owned by Harriet Mbeki")
            if h.title and not any(_related(h, s) for s in stated) \
                    and any(s.title and any(_same_person(name, x) for x in s.holders) for s in stated):
                return True  # the evidence gives that person only another job
    return False

"""Role rules of the claim verdict: names in a text, who reports to whom
(:func:`manager_moved`), relations whose two sides are swapped (:func:`roles_swapped`: "A
acquired B" against "B acquired A", passives and object relatives included) and job titles
given to the wrong person (:func:`job_titles`, :func:`titles_swapped`). Pure functions;
thread-safe.
"""

from __future__ import annotations

import re

from director_fast.verify.text import content_words
from director_fast.verify.rules_wording import _fold_paraphrases, _has_word


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
)]
def _title_of(phrase: str) -> str:
    """The job title in a lower-case phrase, cut after its head word ("chief operating officer
    who reports" -> "chief operating officer"); "" when it names no job."""
    words = phrase.split()
    for k in range(len(words), 0, -1):
        if words[k - 1] in _TITLE_HEADS:
            if k < len(words) and words[k] == "of" and k + 1 < len(words):  # "head of studies"
                end = k + 1
                while end < len(words) and words[end] not in ("who", "which", "and", "reports", "is"):
                    end += 1
                return " ".join(words[:end])
            return " ".join(words[:k])
    return ""
def job_titles(text: str) -> dict[str, str]:
    """``title -> name`` for the people ``text`` gives a job title ("The head of billing
    operations, Nadia Vesely, reports to the CFO, Owen Brandt." -> {"head of billing operations":
    "nadia vesely", "cfo": "owen brandt"}); both lower-cased."""
    out: dict[str, str] = {}
    for pattern in _TITLE_PATTERNS:
        for m in pattern.finditer(text):
            title = _title_of(m.group("title").lower())
            name = re.sub(r"^(?:dr|mr|mrs|ms|prof)\.?\s+", "", m.group("name").lower())
            if title and name.split()[0] not in _NOT_NAMES:
                out.setdefault(title, name)
    return out
def titles_swapped(claim: str, evidence: str) -> bool:
    """True when the claim gives a job title to one person and the evidence gives that title to
    someone else whom the claim also names or whose own title the claim gives ("Aksel Nyberg is
    the chief operating officer" against "Aksel Nyberg, who reports to the chief operating
    officer, Hanne Moe"), or gives that person only another title ("The owner is Tom Reyes."
    against "The head baker is Tom Reyes.")."""
    claimed = job_titles(claim)
    if not claimed:
        return False
    evidence = _fold_paraphrases(evidence)  # "chief executive" is "CEO", as the claim reads it
    stated = job_titles(evidence)
    lowered = evidence.lower()
    for title, name in claimed.items():
        holder = stated.get(title)
        if holder and holder != name and name not in holder and holder not in name and _has_word(name, lowered):
            return True
        # the evidence gives that person another title and nobody this one ("The owner is Tom
        # Reyes." against "The head baker is Tom Reyes.")
        if holder is None and any(n == name and t != title and title not in t and t not in title
                                  for t, n in stated.items()):
            return True
    return False

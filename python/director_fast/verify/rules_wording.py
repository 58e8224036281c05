"""Wording rules every judge shares: folding paraphrases and idioms of service English to one
wording (``_fold_paraphrases``, ``_normalise_idioms``), word stems (:func:`content_stems`) and
the scope of a negation (:func:`negation_in_scope`, negated clauses). Pure functions over
immutable tables; thread-safe. Part of the claim verdict: see :mod:`director_fast.verify.claim_verdict`.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from director_fast import _core
from director_fast.verify.number_alignment import clause_span
from director_fast.verify.text import NEGATION_RE, content_words


# comparative idioms whose "no" / "not" is not a negation of the statement
_IDIOMS = [(re.compile(p, re.IGNORECASE), r) for p, r in (
    (r"\bno\s+(?:more|greater|higher|longer|heavier|larger|bigger)\s+than\b", "at most"),
    (r"\bnot\s+(?:more|greater|higher|longer|heavier|larger|bigger)\s+than\b", "at most"),
    (r"\bno\s+(?:less|fewer|lower|shorter|smaller)\s+than\b", "at least"),
    (r"\bnot\s+(?:less|fewer|lower|shorter|smaller)\s+than\b", "at least"),
    (r"\b(?:no|not)\s+later\s+than\b", "by"),
    (r"\b(?:no|not)\s+earlier\s+than\b", "from"),
)]
# a telephone number written in groups ("+47 77 40 12 00", "0800 412 7799"): at least 9 digits,
# or 8 after "+", "(" or a leading 0 (never "2019 2020" or "12 05 2020")
_PHONE = re.compile(r"(?<![\w.,:+])(?:\+\d{1,3}[ .-]?)?\(?\d{2,5}\)?(?:[ .-]\d{2,5}){1,4}(?!\w|[.,:]\d)")
def _fuse_phone(m: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", m.group(0))
    lead = m.group(0)[:1]
    if len(digits) >= 9 or (len(digits) >= 8 and lead in "+(0"):
        return f"tel{digits}"
    return m.group(0)
def fuse_phones(text: str) -> str:
    """``text`` with each telephone number written in groups fused into one word ("call +47 77
    40 12 00" -> "call tel4777401200"): at least 9 digits, or 8 after "+", "(" or a leading 0;
    "2019 2020" and "12 05 2020" stay as they are. Offsets after a fused number shift."""
    return _PHONE.sub(_fuse_phone, text) if _PHONE.search(text) else text
# common paraphrases of service English, folded to one wording on both sides of a comparison (so
# the lexical coverage sees "call off" and "cancel", "money back" and "refund" as the same word).
# Longest phrases first; whole words, any case. "prohibited" becomes "not allowed", so "allowed"
# against it is still a negation flip; "acquired" becomes "bought", whose antonym is "sold".
_PARAPHRASES = (
    # (pattern, replacement, words of which one must be in the text for the pattern to apply)
    (r"free\s+of\s+charge|at\s+no\s+(?:extra\s+)?(?:cost|charge)|costs?\s+nothing|for\s+free|complimentary", "free",
     "free charge cost costs nothing complimentary"),
    (r"(?:your|their|the|his|her)\s+money\s+back", "a refund", "money"),
    (r"money\s+back", "refund", "money"),
    (r"reimburse(?:d|ment)?", "refund", "reimburse reimbursed reimbursement"),
    (r"call(?:ed|s|ing)?\s+off", "cancel", "off"),
    (r"ahead\s+of\s+time|beforehand", "in advance", "ahead beforehand"),
    # bounds in one wording: "a maximum of 8", "30 days or more", "never ... more than 8" ("a
    # minimum of" is left alone: "a minimum term of 12 months" would not follow it)
    (r"(?:a\s+)?maximum\s+of|(?:a\s+)?max\.?\s+of", "at most", "maximum max"),
    (r"(\d[\d,.]*\s+(?:[a-z]+\s+)?)or\s+(?:more|longer)", r"at least \1", "more longer"),
    (r"never\s+((?:[a-z']+\s+){0,6}?)(?:more|larger|bigger|longer)\s+than", r"\1at most", "never"),
    (r"(days?|weeks?|months?|hours?)\s+ahead", r"\1 in advance", "ahead"),  # "30 days ahead"
    (r"reserv(?:e|ed|es|ing)", "book", "reserve reserved reserves reserving"),
    (r"reservations?", "booking", "reservation reservations"),
    (r"purchas(?:es|ing)", "buys", "purchases purchasing"),
    # a negated prohibition first: "is not prohibited" is "is allowed", never "is not not allowed"
    (r"(?:not|never)\s+(?:\w+\s+)?(?:prohibited|forbidden|banned)", "allowed", "prohibited forbidden banned"),
    (r"prohibited|forbidden|banned|not\s+permitted", "not allowed", "prohibited forbidden banned permitted"),
    (r"permitted", "allowed", "permitted"),
    # ("takes over 8 people" is a count, not a purchase)
    (r"acquired|purchased|took\s+over(?!\s+\d)", "bought", "acquired purchased took"),
    (r"acquires|takes\s+over(?!\s+\d)", "buys", "acquires takes"),
    (r"acquire|take\s+over(?!\s+\d)", "buy", "acquire take"),
    (r"(?:have|has|need|needs)\s+to|(?:is|are)\s+required\s+to", "must", "have has need needs required"),
    (r"telephone", "phone", "telephone"),
    (r"mandatory|compulsory|obligatory", "required", "mandatory compulsory obligatory"),
    (r"additional", "extra", "additional"),
    # day groups in one wording: "Monday to Friday", "Mon–Fri" are "weekdays"; "Saturday and
    # Sunday", "Sat–Sun" are "weekends"
    (r"(?:from\s+)?mon(?:day)?s?\.?\s*(?:to|through|thru|until|till|[-–—])\s*fri(?:day)?s?\.?",
     "weekdays", "monday mondays mon mon-fri monday-friday"),
    (r"(?:on\s+)?sat(?:urday)?s?\.?\s*(?:and|&|to|[-–—])\s*sun(?:day)?s?\.?", "weekends", "saturday saturdays sat sat-sun saturday-sunday"),
    (r"closed\s+to", "not allowed for", "closed"),  # "The walk is closed to bikes"
    # job titles and their common acronyms, folded to the lower-case acronym ("The CEO is ..."
    # against "The chief executive is ..."; lower case, so that the job-title rules read it)
    (r"chief\s+executive(?:\s+officer)?", "ceo", "chief"),
    (r"chief\s+financial\s+officer|finance\s+director", "cfo", "chief finance"),
    (r"chief\s+operating\s+officer", "coo", "chief"),
    (r"chief\s+technology\s+officer|chief\s+technical\s+officer", "cto", "chief"),
    (r"chief\s+information\s+officer", "cio", "chief"),
    (r"human\s+resources", "hr", "human"),
    (r"managing\s+director", "md", "managing"),
    (r"vice\s+president", "vp", "vice"),
    # "looks after nervous patients" is care, not an order in time ("after" / "before")
    (r"look(?:s|ed|ing)?\s+after", "cares for", "after"),
    (r"e-mail", "email", "e-mail"),
    (r"shut(?:s)?", "closes", "shut shuts"),
    # "does not open on Mondays" / "is not open on Mondays" is "is closed on Mondays" (the state;
    # never "does not open before 10 am", which is an opening time)
    (r"(?:(?:does|do|did|is|are|will)\s+not\s+open|never\s+opens?)\b(?!\s+(?:until|till|til|before|after|from|"
     r"between|at|by)\b)", "is closed", "open opens"),
    (r"stolen|stole|steal(?:s|ing)?", "theft", "stolen stole steal steals stealing"),
    # "Dogs are (very) welcome" is a permission ("allowed"), so "not allowed" negates it
    (r"(is|are|be)(\s+not)?\s+(?:very\s+|most\s+|always\s+|also\s+)?welcome\b(?!\s+to\b)", r"\1\2 allowed",
     "welcome"),
    (r"will\s+set\s+(?:you|them|us|him|her)\s+back|(?:is|are)\s+priced\s+at|priced\s+at", "costs", "set priced"),
    (r"(?:or|and)\s+(?:older|above)", "and over", "older above"),
    (r"business\s+days?", "working days", "business"),
    (r"younger\s+than", "under", "younger"),
    (r"older\s+than", "over", "older"),
    (r"pick(?:s|ed|ing)?\s+(?:\w+\s+)?up\b", "collect", "pick picks picked picking"),
    (r"kids", "children", "kids"),
    (r"kid", "child", "kid"),
    (r"annually|yearly|each\s+year|every\s+year|per\s+year", "a year", "annually yearly year"),
    (r"monthly|each\s+month|every\s+month|per\s+month", "a month", "monthly month"),
)
_PARAPHRASE_RULES = tuple((re.compile(rf"\b(?:{p})\b", re.IGNORECASE), r, frozenset(t.split()))
                          for p, r, t in _PARAPHRASES)
_LOWER_WORD = re.compile(r"[a-z][a-z-]*")
@functools.lru_cache(maxsize=8192)  # pure; both sides of many comparisons ask for it
def _lower_words(text: str) -> frozenset[str]:
    """The lower-cased ASCII words of ``text`` (hyphens kept: "non-refundable")."""
    return frozenset(_LOWER_WORD.findall(text.lower()))
_CONTRACTION = re.compile(r"\b(\w+)n['’]t\b", re.IGNORECASE)
_CONTRACTED = {"wo": "will", "ca": "can", "sha": "shall"}  # "won't", "can't", "shan't"
def _expand_negation(m: re.Match[str]) -> str:
    stem = m.group(1)
    return f"{_CONTRACTED.get(stem.lower(), stem)} not"
@functools.lru_cache(maxsize=8192)  # pure; both sides of many comparisons and checks ask for it
def _fold_paraphrases(text: str) -> str:
    if "n't" in text or "n’t" in text:  # "isn't" -> "is not", "won't" -> "will not"
        text = _CONTRACTION.sub(_expand_negation, text)
    words = _lower_words(text)
    for pattern, repl, triggers in _PARAPHRASE_RULES:  # in order; only rules whose words occur
        if not triggers.isdisjoint(words):
            text = pattern.sub(repl, text)
    return text
@functools.lru_cache(maxsize=8192)  # pure; both sides of every comparison pass here
def _normalise_idioms(text: str) -> str:
    """Prepare a text for the lexical comparison (both sides): markdown emphasis marks (``**``,
    ``__``, backticks) dropped, a telephone number written in groups fused into one word
    ("0800 412 7799" -> "tel08004127799", so it is matched whole and never read as three
    numbers), compatibility forms folded and every decimal digit made ASCII ("９，０００" and
    "٩٠٠٠" are 9,000 and 9000), common paraphrases folded to one wording (:data:`_PARAPHRASES`:
    "call off" -> "cancel", "money back" -> "refund", "prohibited" -> "not allowed", ...), and
    comparative idioms rewritten ("no more than 8 kg" -> "at most 8 kg") so that their "no" /
    "not" is not read as a negation."""
    if "**" in text or "__" in text or "`" in text:  # markdown emphasis and code marks
        text = text.replace("**", "").replace("__", "").replace("`", "")
    text = fuse_phones(text)  # one word, never a run of numbers to compare one by one
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = "".join(str(unicodedata.decimal(ch)) if not ch.isascii() and unicodedata.decimal(ch, None) is not None
                       else ch for ch in text)
    text = _fold_paraphrases(text)
    if "no" not in text.lower():
        return text
    for pattern, repl in _IDIOMS:
        text = pattern.sub(repl, text)
    return text
def _spelled_out(word: str, text: str) -> bool:
    """Whether ``word`` (lower-cased) is an acronym of 2-6 letters whose letters are the
    initials of consecutive words of ``text`` (lower-cased): "agm" in "one vote at the annual
    general meeting"."""
    if not (2 <= len(word) <= 6 and word.isalpha()):
        return False
    initials = "".join(w[0] for w in re.findall(r"[a-z]+", text))
    return word in initials and re.search(
        r"\b" + r"[a-z]*\W+".join(word) + r"[a-z]*\b", text) is not None
def _has_word(word: str, text: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", text) is not None
@functools.lru_cache(maxsize=8192)  # pure; the clause checks ask for the same texts again and again
def content_stems(text: str) -> frozenset[str]:
    """:func:`content_words` reduced to the lexical NLI's stems ("returned" and "return" are one;
    "deliveries", folded to "deliverie", is stemmed as "delivery")."""
    return frozenset(_core.lexical_stem(w[:-2] + "y" if w.endswith("ie") and len(w) > 4 else w)
                     for w in content_words(text))
@functools.lru_cache(maxsize=8192)  # pure; a claim and a premise sentence are asked about in several checks
def _negated_clauses(text: str) -> tuple[frozenset[str], ...]:
    """Content stems of each clause of ``text`` that holds a negation (clauses as in
    :func:`director_fast.verify.number_alignment.clause_span`; the negation words themselves dropped):
    what the negation is about ("Dogs are welcome in the cafe but not in the garden." gives
    {garden}). (Dropping the words other clauses also use was tried: it excused too many
    negations in long summary sentences.)"""
    out = []
    for m in _NEGATORS.finditer(text):
        a, b = clause_span(text, m.start(), m.end())
        out.append(content_stems(text[a:m.start()] + " " + text[m.end():b]))
    return tuple(out)
def _negates_what_it_states(claim: str, sentence: str) -> bool:
    """Whether ``claim`` negates only words ``sentence`` states without a negation: every negation
    of the claim is followed, within its clause, by content words that all stand in the sentence
    ("Lost cards need not be reported." against "Lost cards should be reported by phone."). Used
    for a claim the sentence otherwise covers well."""
    if _NEGATORS.search(sentence):
        return False
    words = content_stems(_fold_paraphrases(sentence))
    scopes = []
    for m in _NEGATORS.finditer(claim):
        _a, b = clause_span(claim, m.start(), m.end())
        scopes.append(content_stems(claim[m.end():b]))
    return bool(scopes) and all(sc and sc <= words for sc in scopes)
def negation_in_scope(claim: str, premise: str) -> bool:
    """Whether a negation that only one of ``claim`` and ``premise`` (one sentence each) holds
    is about what the claim says: some negated clause of that side shares a content word with
    the other side, or has no content word of its own. "Assistance dogs are welcome in reception
    and the poolside viewing area but not in the water." does not negate "Assistance dogs are
    welcome in reception." (its negated clause is about the water); "Booking is not required."
    does negate "Booking is required.". True when neither side has a negation word that this
    module reads (the lexical backend's own negation cues decide then)."""
    claim, premise = _fold_paraphrases(claim), _fold_paraphrases(premise)
    for negated, other in ((claim, premise), (premise, claim)):
        clauses = _negated_clauses(negated)
        if not clauses:
            continue
        words = content_stems(other)
        if any(not c or c & words for c in clauses):
            return True
        if not _negated_clauses(other):
            return False
    return True
# ("no-claims discount" holds no negation)
_NEGATORS = NEGATION_RE

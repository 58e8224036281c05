"""Split an assistant answer into units and say which ones carry checkable claims.

:func:`split_claims` cuts an answer into :class:`ClaimUnit` s (code-point spans of the input) and
gives each one a ``kind`` from :data:`CLAIM_KINDS`. Only ``claim`` units assert something about the
world that evidence can support or contradict; the other kinds are chat furniture that a guardrail
should not judge. The rules are deterministic, English-only and **fail closed**: anything they do
not recognise is a ``claim``.

Units
-----
* Sentences come from the project's one segmenter, :func:`director_fast.verify.text.split_sentences`
  (a newline always ends a sentence; a leading ``-``/``*``/``•`` bullet is already excluded).
* Markdown, line by line: a list item (``- ``, ``* ``, ``+ ``, ``• ``, ``1. ``, ``1) ``, with an
  optional ``[ ]``/``[x]`` checkbox) loses its marker and is split into its sentences; so is a
  heading (``# ...``, its closing ``#`` run dropped) and a block quote (``> ``). A heading is
  classified like any other unit, so a short heading such as ``# Opening hours`` is a ``claim``
  (harmless: a verb-less heading is rarely contradicted, and it fails closed). A table row
  (a line starting with ``|``) is **one** unit spanning the row between its outer pipes
  (``| Mon | 9-17 |`` -> ``Mon | 9-17``); the separator row (``|---|:--:|``) is skipped, and the
  table's first row (no table line before it, in the text or in ``previous``) is its header:
  a ``pleasantry`` (column names state nothing). Lines
  inside a fenced code block (```` ``` ```` or ``~~~``, closed by a fence of the same character at
  least as long) are skipped with their fences. An *unclosed* fence is not a code block (only
  the fence line itself is skipped): hiding the rest of the answer would fail open. Thematic
  breaks (``---``, ``***``) and setext underlines (``===``) are skipped.
* Clauses: ``;`` followed by whitespace always splits. ``and`` / ``but`` (with or without a
  comma before) split only where that is safe: the left side (since the previous split) has a
  finite verb from the closed list below or a ``n't`` form, and no subordinator or relative word
  (``if unless whether provided because although though whenever which who whom whose that when
  where while``) unless the conjunction is ``, but`` (which ends a subordinate clause); the split
  is not inside brackets or quotes; and the right side begins with a
  subject -- a pronoun, ``there``, a determiner plus a noun, a bare noun phrase or a name, at
  most five words, adverbs such as ``also`` allowed -- followed by a finite verb from a closed
  list (``is are was were has have had can cannot will won't must may might should would could
  does do did takes costs opens closes offers includes requires allows accepts ...``) or is a
  contraction like ``it's`` / ``there's``. The conjunction itself belongs to neither unit::

      "The shop opens at 08:30 and closes at 18:00."         -> one unit (no subject on the right)
      "Refunds take 5 days, and gift cards are not refundable." -> "Refunds take 5 days" |
                                                                 "gift cards are not refundable."
      "The hotel and the spa are open."                      -> one unit (no verb on the left)

* Answer particles opening a unit are stripped (``start`` moves forward): ``Yes,`` ``No,``
  ``Sure,`` ``Certainly,`` ``Of course,`` ``Absolutely,`` ``Unfortunately,`` ``Actually,``
  ``Well,`` ``OK,`` ``Okay,`` ``Good news:`` ``Great question:`` ``Sorry,`` ``I'm sorry, but``,
  ``Hi Anna,`` ... (followed by ``,`` ``:`` or a dash), and a leading ``As an AI (assistant|
  language model), `` prefix::

      "No, the help desk is closed on public holidays." -> claim "the help desk is closed on
                                                           public holidays." (start = 4)

  A particle followed by ``!`` or ``.`` (``"Sure! the shop ..."``, ``"No. The desk ..."``) is
  split off as its own ``pleasantry`` unit, as if the segmenter had ended a sentence there. A unit
  that is *only* particles (``"Yes."``, ``"No."``, ``"Sure!"``) is a ``pleasantry``: it carries no
  checkable content by itself. (A bare ``"No."`` answering a yes/no question does assert
  something in context; a caller that needs it must pair it with the question itself.)
  Emphasis marks around a particle belong to it (``"**Yes**, the shop is open."``,
  ``"**Short answer:** the annual plan."``).

  Dropped the same way (``start`` moves forward, nothing is emitted for them):

  - reminder openers: ``Bear in mind (that)``, ``Just remember that``, ``Please note that``,
    ``It's worth noting that``, ``Don't forget that`` (not before "to ...": an instruction);
  - hedge and attribution openers that end at a comma and hold no digit: ``As far as I can
    see/tell (from ...),`` ``According to our/the ...,`` ``From what I can find,`` ``Based on
    the information I have,`` ``To my knowledge,`` (``"According to Dr Lowe, ..."`` keeps its
    opener: a named source is content);
  - a bold label (``**How it works:**``, ``__Note__:``) that is a framing phrase, or that has at
    most 6 words, no digit and no capitalised word after its first and is followed by a clause
    with its own subject and verb; a label that is the subject stays (``**Saturday:** 9-13``);
  - a chat part ending at a bare comma (``"Enjoy your stay, the pool is closed on Mondays."``
    -> ``the pool is closed on Mondays.``) when the unit as a whole is not chat.

* Source tags at either end of a unit are trimmed from its span (with the punctuation after a
  closing tag): ``[staff.md]``, ``(history.md)``, ``(source: hours.md)``, ``[Source: ...]``,
  ``[1]``, ``[1, 3]``, ``[^2]``, ``【2】``; a unit of only tags is dropped, and tags are not
  counted as words by the language check. A tag inside a unit stays in its text.

Kinds
-----
Tried in this order; the first that matches wins. A unit with a digit can only be a ``question``
or a ``claim`` (a phone number, price or date is checkable).

``pleasantry``
    the unit is, after lower-casing and dropping punctuation and emoji, a sequence of phrases
    from a closed list of chat phrases (``sure``, ``of course``, ``great question``, ``thanks
    for reaching out``, ``hi there``, ``happy to help``, ``i hope this helps``, ``you're
    welcome``, ``no problem``, ``have a great day``, ``enjoy your trip``, ``yes``, ``no`` ...),
    greetings, thanks and farewells optionally followed by a capitalised name (``"Hi Anna!"``).
    Whole-unit matching only: ``"Thanks to the new policy, refunds take 5 days."``, ``"Sure
    Foods was founded in 1990."`` and ``"We hope to open in May 2026."`` are claims. A unit with
    no letter and no digit at all (``"😊"``, ``"..."``) is also a pleasantry.
    Wishes (``"Enjoy the crossing!"``, ``"Hope we can get you back on the road soon!"``) are
    pleasantries, unless a comma or dash in them is followed by a clause with its own subject
    and finite verb that does not only commiserate (``"Oh no, the lift is broken."`` is not a
    wish; ``"Oh no — long queues can be exhausting!"`` is). A line that ends with ``:`` and only
    introduces what follows it, a list or not (``"Here's how they compare:"``,
    ``"Membership gets you:"``: at most 10 words, no digit, no name, no negation, opening with
    ``here`` / ``these`` / ``below`` / ``the following`` or ending with ``you`` / ``includes`` /
    ``gets`` / ``offers`` / ``covers`` / ``compare`` ...) is a ``pleasantry`` too.
``question``
    the unit ends with ``?`` (after closing quotes, brackets and emphasis marks).
``self_reference``
    a statement about the assistant, not the world: ``"I am an AI assistant."``, ``"As an AI
    language model, I cannot browse the internet."`` (the prefix is stripped; the rest is the
    self-reference), ``"As an AI assistant."``, ``"I was trained by ..."``, ``"My name is
    Ava."``, ``"I can't give medical advice."``. ``"I'm a virtual assistant for Example
    Corp."`` is treated as self-reference too, although it names a company.
``abstention``
    the unit says the assistant lacks the information, without asserting a fact: ``"I don't
    have information about that."``, ``"I'm sorry, I don't have any details on parking at the
    clinic."``, ``"I couldn't find anything about pets in the documents."``, ``"The information
    I have doesn't mention weekend opening."``, ``"There is no information about ..."``, ``"I'm
    not sure."``, ``"I don't know."``. A unit with a digit, or with ``but`` / ``however`` /
    ``although`` / ``which`` / ``, so`` ... followed by more words, is not an abstention (a
    ``but`` clause with its own subject and verb is split off first, see Clauses).
``offer``
    an offer of further help or a pointer to someone to contact, with no digit, ``@``, URL or
    domain name: ``"Let me know if you have other questions."``, ``"Feel free to ask if ..."``,
    ``"Don't hesitate to reach out."``, ``"If you have any other questions, just ask."``, ``"I'd
    be happy to help with anything else."``, ``"You may want to call reception to confirm."``,
    ``"Please contact our support team for details."``. A contact pointer is an offer only when
    what follows the contact is a short target plus nothing, or a deferral (``for details``,
    ``to confirm``, ``if ...``, ``about ...``): ``"Please contact reception to book a massage."``
    and ``"You can contact reception by email."`` stay claims.
    Also offers: a wish or pleasantry joined to an offer, even one that ends in ``?`` (``"Hope
    we can sort it soon — anything else I can help with?"``), ``"Just shout if ..."``, and an
    offer after a leading condition or purpose phrase (``if``, ``for``, ``to``, ``should``,
    ``unless``, ``in case``) ending at a comma: ``"If you're not sure, I'd suggest contacting
    customer services."``, ``"For parking details, it would be best to contact the venue."``
    (``since`` / ``because`` / ``when`` clauses assert, so they do not qualify). A suggestion
    with a digit, an e-mail address or a URL stays a claim (the address is checkable).
``claim``
    everything else.

Non-English text: a sentence (or table row) that does not look like English (mostly non-Latin
letters, or, from six words on, fewer than 12% of its words from a list of English function
words) gets no English rules -- no particle stripping, no clause splitting -- and is one
``claim``; one WARNING per call is logged on the ``director_fast.claims`` logger when any
sentence was judged so. The check is per sentence, so a sentence is classified the same whether
it is split alone (a stream) or inside the whole response.

Cost: linear in the length of the text (one segmenter call, one pass per line and per unit; no
regular expression with nested quantifiers). Thread-safety: pure functions over immutable
tables; call from any number of threads.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import filterfalse, islice

from director_fast._validate import check_text
from director_fast.verify.text import split_sentences
from director_fast.verify.claim_kinds import (
    _ADDRESSEES,
    _AI_PREFIXES,
    _DIGIT_RE,
    _ENGLISH,
    _FINITE,
    _HONORIFICS,
    _NAME_OK,
    _PARTICLES,
    _PARTICLE_PREFIXES,
    _Patterns,
    _SORRY,
    _SUBJ_VERB,
    _SUBORDINATORS,
    _Tok,
    _WORD_RE,
    _any,
    _chat_lead,
    _classify,
    _classify_content,
    _gap,
    _has_alnum,
    _is_clause_start,
    _is_pleasantry,
    _iter_norms,
    _norm,
    _norms,
    _phrases,
    _skip_ws,
    _tok,
    _tokens,
    _trim,
)

__all__ = ["CLAIM_KINDS", "ClaimUnit", "closes_fence", "code_fence", "split_claims"]

_log = logging.getLogger("director_fast.claims")

CLAIM_KINDS: tuple[str, ...] = ("claim", "pleasantry", "offer", "question", "self_reference",
                                "abstention")
"""Every value :attr:`ClaimUnit.kind` can take."""


@dataclass(frozen=True, slots=True)
class ClaimUnit:
    """One unit of an answer.

    Attributes:
        text: the unit's text (answer particles and surrounding whitespace stripped);
            always ``source[start:end]``.
        start, end: code-point offsets into the text given to :func:`split_claims`
            (``0 <= start < end <= len(source)``).
        kind: one of :data:`CLAIM_KINDS`.
        english: False when the unit's sentence does not look like English (the rules and the
            model read English: the scorer reports such a claim ``not_found`` with signal
            ``not_english`` instead of judging it).
    """

    text: str
    start: int
    end: int
    kind: str
    english: bool = True


# --------------------------------------------------------------------------------------------
# markdown lines

_LIST_MARKERS = "-*+•"


def code_fence(line: str) -> tuple[str, int] | None:
    """(character, run length) when ``line`` is a Markdown code fence (three or more backticks
    or tildes, after up to any indentation), else None."""
    s = line.lstrip(" \t")
    if len(s) < 3 or s[0] not in "`~":
        return None
    c = s[0]
    n = len(s) - len(s.lstrip(c))
    if n < 3 or (c == "`" and "`" in s[n:]):  # a backtick in the info string: inline code
        return None
    return c, n


def closes_fence(line: str, fence: tuple[str, int]) -> bool:
    """``line`` closes the block opened by ``fence`` (:func:`code_fence`'s value): a fence of the
    same character, at least as long, with nothing after it."""
    f = code_fence(line)
    return f is not None and f[0] == fence[0] and f[1] >= fence[1] and not line.strip().strip(f[0]).strip()


def _content(text: str, ls: int, le: int) -> tuple[str, int, int]:
    """Kind of one line (``text``, ``table`` or ``skip``) and its content span after markdown
    markers (indentation, block quotes, heading hashes, list markers, checkboxes, table pipes)."""
    i = ls
    while i < le and text[i] in " \t":
        i += 1
    while i < le and text[i] == ">":  # block quote(s)
        i = _skip_ws(text, i + 1, le)
    s, e = _trim(text, i, le)
    if s >= e:
        return "skip", s, s
    body = text[s:e]
    if body[0] == "|":  # table row
        inner_s, inner_e = s + 1, (e - 1 if len(body) > 1 and body[-1] == "|" else e)
        cells = text[inner_s:inner_e].split("|")
        if all("-" in c and not c.strip().strip(":").strip("-") for c in cells):
            return "skip", s, s  # separator row
        inner_s, inner_e = _trim(text, inner_s, inner_e)
        if not text[inner_s:inner_e].strip("| \t"):
            return "skip", s, s
        return "table", inner_s, inner_e
    compact = "".join(body.split())
    if len(compact) >= 3 and compact[0] in "-*_=" and compact == compact[0] * len(compact):
        return "skip", s, s  # thematic break or setext underline
    if body[0] == "#":
        n = len(body) - len(body.lstrip("#"))
        if n <= 6 and (n == len(body) or body[n] in " \t"):
            head = body[n:].rstrip()
            closing = head.rstrip("#")
            if closing != head and (not closing or closing[-1] in " \t"):
                head = closing.rstrip()
            hs, he = _trim(text, s + n, s + n + len(head))
            return ("text", hs, he) if hs < he else ("skip", s, s)
    if body[0] in _LIST_MARKERS and (len(body) == 1 or body[1] in " \t"):
        s += 1
    else:
        j = 0
        while j < len(body) and j < 9 and body[j].isdigit():
            j += 1
        if 0 < j < len(body) and body[j] in ".)" and (j + 1 == len(body) or body[j + 1] in " \t"):
            s += j + 1
    s = _skip_ws(text, s, e)
    if text.startswith(("[ ]", "[x]", "[X]"), s) and (s + 3 == e or text[s + 3] in " \t"):
        s = _skip_ws(text, s + 3, e)
    return ("text", s, e) if s < e else ("skip", s, s)


def _lines(text: str) -> list[tuple[int, str, int, int]]:
    """(line start, kind, content start, content end) per ``\\n``-separated line."""
    bounds: list[tuple[int, int]] = []
    pos = 0
    while True:
        nl = text.find("\n", pos)
        if nl == -1:
            bounds.append((pos, len(text)))
            break
        bounds.append((pos, nl))
        pos = nl + 1
    out = [(s, "skip", s, s) for s, _ in bounds]
    fence: tuple[str, int] | None = None
    inside: list[int] = []
    for k, (s, e) in enumerate(bounds):
        line = text[s:e]
        f = code_fence(line)
        if fence is not None:
            if closes_fence(line, fence):
                fence, inside = None, []
            else:
                inside.append(k)
            continue
        if f is not None:
            fence, inside = f, []
            continue
        out[k] = (s, *_content(text, s, e))
    if fence is not None:  # an unclosed fence is not a code block (fail closed)
        for k in inside:
            s, e = bounds[k]
            out[k] = (s, *_content(text, s, e))
    return out


# --------------------------------------------------------------------------------------------
# language check

# characters outside the Latin blocks (Basic Latin to Latin Extended-B, Latin Extended
# Additional, fullwidth A-z)
_NON_LATIN_RE = re.compile(r"[^\u0000-\u024f\u1e00-\u1eff\uff21-\uff5a]+")
# characters of scripts that write a morpheme or syllable per character (Han, kana, Hangul
# syllables): each counts as two letters, about what a Latin spelling of it takes, so that a
# Chinese sentence around one Latin name ("Pinecrest 周一至周五营业") is not taken for English
_SYLLABIC_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def _looks_english(text: str, spans: Sequence[tuple[int, int]]) -> bool:
    """At least half of the letters are Latin (a Han, kana or Hangul character counting as two
    letters) and, from six words on (digits-only words not counted), at least 12% of the words
    are in ``_ENGLISH``."""
    if not text.isascii():  # ASCII letters are all Latin
        runs = "".join(run for s, e in spans for run in _NON_LATIN_RE.findall(text, s, e))
        raw = sum(map(str.isalpha, runs))
        weighted = raw + len(_SYLLABIC_RE.findall(runs))
        # non-English when the weighted non-Latin letters outnumber the Latin ones (letters -
        # raw); the letters are counted only when the spans' length (their most) does not decide
        if raw and (weighted > sum(e - s for s, e in spans) - raw
                    or weighted > sum(sum(map(str.isalpha, text[s:e])) for s, e in spans) - raw):
            return False
    words = list(filterfalse(str.isdigit, (w for s, e in spans for w in _norms(text, s, e))))
    return len(words) < 6 or sum(map(_ENGLISH.__contains__, words)) >= 0.12 * len(words)


# --------------------------------------------------------------------------------------------
# particles

def _peek(text: str, i: int, end: int) -> Iterator[_Tok]:
    """The tokens from ``i`` separated by whitespace only (``.`` allowed after an honorific:
    "Hi Mr. Smith,"), one at a time."""
    prev: _Tok | None = None
    while i < end:
        j = _skip_ws(text, i, end)
        if prev is not None and prev.norm in _HONORIFICS and j == i and text[j] == ".":
            j = _skip_ws(text, j + 1, end)
        if prev is not None and j == i:
            return
        m = _WORD_RE.match(text, j, end)
        t = _tok(m) if m is not None else None
        if t is None:
            return
        yield t
        prev, i = t, t.end


def _particle(text: str, pos: int, end: int) -> tuple[int, int, bool, bool] | None:
    """One particle at ``pos``: (particle end, next content position, terminal, ai prefix)."""
    i = pos
    while i < end and (text[i] in "*_" or unicodedata.category(text[i]).startswith("S")):
        i += 1  # emphasis marks and emoji before the particle ("🎉 Great news: ...")
    i = _skip_ws(text, i, end)
    m = _WORD_RE.match(text, i, end)
    if m is None or (_norm(m.group()),) not in _PARTICLE_PREFIXES:
        return None  # cheap exit: no particle or AI prefix starts with this word
    words = _peek(text, i, end)  # starts with the word matched above
    toks: list[_Tok] = []  # the words that can begin a particle (6 at most), and the next one
    for t in words:
        toks.append(t)
        if len(toks) == 6 or tuple(x.norm for x in toks) not in _PARTICLE_PREFIXES:
            break
    norms = tuple(t.norm for t in toks)
    for n in range(min(len(norms), 6), 0, -1):
        key = norms[:n]
        ai = key in _AI_PREFIXES
        if not ai and key not in _PARTICLES:
            continue
        k = n
        if key in _NAME_OK:  # "Hi Anna," / "Dear valued customer,"
            toks += islice(words, max(0, min(n + 3, 8) - len(toks)))  # up to 3 addressee words
            while k < len(toks) and k - n < 3 and (toks[k].upper or toks[k].norm in _ADDRESSEES):
                k += 1
        for kk in range(k, n - 1, -1):
            r = _separator(text, toks[kk - 1].end, end, key in _SORRY, ai)
            if r is not None:
                return r[0], r[1], r[2], ai
    return None


def _skip_close_marks(text: str, i: int, end: int) -> int:
    """``i`` past a run of emphasis marks that closes a label ("**Short answer:** the ..."):
    only when whitespace follows the run (an opening mark of the next word stays)."""
    j = i
    while j < end and text[j] in "*_":
        j += 1
    return _skip_ws(text, j, end) if j > i and (j == end or text[j].isspace()) else i


# hedge and attribution openers, up to the comma that ends them: "As far as I can tell from our
# facilities info, ...", "According to our pricing page, ...", "From what I can find, ...",
# "Based on the information I have, ..."
_OPENERS = _Patterns([
    "as far as {i|we} {can|could} {see|tell|find|gather|make_out|determine|work_out} ~8 $",
    "as far as {i|we} {know|understand|am_aware|are_aware|recall|remember} ~6 $",
    "{according_to|going_by|judging_by|judging_from|per} {our|the|my|your|their|what} ~6 $",
    "from what {i|we} {can|could} {see|tell|find|gather} ~6 $",
    "from what {i|we} {see|found|know|understand|gather|have|read} ~6 $",
    "from {our|the|my} {records|notes|info|information|documents|documentation|docs|details|"
    "website|site|faq|policy|policies|terms|pricing|price_list|guide|handbook|page} ~5 $",
    "based on {the|what|our|my|your|this|these|that|those} ~8 $",
    "{looking_at|checking|reading} {our|the|my} ~6 $",
    "{to_my|to_our|to_the_best_of_my|to_the_best_of_our} knowledge $",
    "as {i|we} understand it $",
    "if {i'm|i_am} {reading|understanding} ~6 {right|correctly} $",
    "{if_i|if_we} {read|understand} ~6 {right|correctly} $",
    "{it_looks|it_seems|it_appears} like $",
    "{from|in} {what_i_have|what_i've_got|the_info_i_have|the_information_i_have} $",
])


# reminders that only introduce a statement: "Bear in mind (that) ...", "Just remember that ...",
# "Please note that ...", "It's worth noting that ...", "Don't forget that ..."
_REMINDER_RE = re.compile(
    r"(?:(?:just|please|do|but|and|also)\s+)?(?:(?:bear|keep)\s+in\s+mind(?:\s+that)?|remember\s+that|note\s+that|"
    r"(?:it['’]s\s+|it\s+is\s+)?worth\s+noting(?:\s+that)?|don['’]t\s+forget(?:\s+that)?|"
    r"just\s+so\s+you\s+know[,:]?)\s+(?=[A-Za-z])", re.IGNORECASE)


def _reminder(text: str, pos: int, end: int) -> int | None:
    """The content start after a reminder opener (:data:`_REMINDER_RE`) followed by a statement
    (not "to ...": "Remember to bring ID" is an instruction and stays whole); None when there is
    none."""
    m = _REMINDER_RE.match(text, pos, end)
    if m is None or text.startswith("to ", m.end()) or not _has_alnum(text, m.end(), end):
        return None
    return m.end()


def _opener(text: str, pos: int, end: int) -> int | None:
    """The content start after a hedge or attribution opener (:data:`_OPENERS`) that ends at a
    comma within its first 12 words and holds no digit; None when there is none."""
    k = text.find(",", pos, min(end, pos + 120))
    if k == -1 or _DIGIT_RE.search(text, pos, k):
        return None
    norms = _norms(text, pos, k)
    if not norms or len(norms) > 12 or not _any(_OPENERS, norms):
        return None
    nxt = _skip_ws(text, k + 1, end)
    return nxt if nxt < end and _has_alnum(text, nxt, end) else None


# a bold label that opens a unit: "**How it works:** ...", "__Note__: ..."
_LABEL_RE = re.compile(r"(\*\*|__)([^*_\n]{1,60}?)(?::\1|\1[ \t]*:)[ \t]*")
_FRAMING_LABELS = _phrases("""
answer|short answer|quick answer|the short answer|the quick answer|long answer|tl;dr|tldr|tl dr
|summary|in summary|in short|bottom line|the bottom line|note|please note|quick note|tip|top tip
|heads up|update|good news|bad news|the good news|the bad news|how it works|what it means
|what this means|why|how|details|the details|key point|key points|important|good to know
""")


def _label(text: str, pos: int, end: int) -> int | None:
    """The content start after a bold label that only frames what follows (:data:`_LABEL_RE`):
    a phrase of :data:`_FRAMING_LABELS`, or a label of at most 6 words with no digit and no
    capitalised word after its first, followed by a clause with its own subject and finite verb
    ("**How it works:** parties run on Saturdays." -> "parties run on Saturdays."). A label
    that is the subject of what follows ("**Saturday:** 7:00-18:00", "**Cost for 20
    children:** ...") stays in the unit."""
    m = _LABEL_RE.match(text, pos, end)
    if m is None:
        return None
    nxt = m.end()
    if nxt >= end or not _has_alnum(text, nxt, end):
        return None
    toks = _tokens(text, m.start(2), m.end(2))
    norms = tuple(t.norm for t in toks)
    if not norms:
        return None
    if norms in _FRAMING_LABELS:
        return nxt
    if len(norms) > 6 or _DIGIT_RE.search(text, m.start(2), m.end(2)) or any(
            t.upper and t.norm not in ("i", "i'm") for t in toks[1:]):
        return None
    return nxt if _is_clause_start(_iter_norms(text, nxt, end)) else None


def _word_at(text: str, i: int, end: int, word: str) -> bool:
    n = len(word)
    return text[i:i + n].lower() == word and (i + n == end or text[i + n].isspace())


def _separator(text: str, i: int, end: int, sorry: bool, ai: bool) -> tuple[int, int, bool] | None:
    """What follows a particle ending at ``i``: (particle end, next content, terminal)."""
    while i < end and text[i] in "*_":
        i += 1
    if i >= end:
        return i, i, not ai
    j = _skip_ws(text, i, end)
    c = text[j] if j < end else ""
    if c and (c in ",:" or (not ai and (c in "—–" or (c == "-" and j > i and j + 1 < end
                                                       and text[j + 1].isspace())))):
        k = _skip_close_marks(text, _skip_ws(text, j + 1, end), end)
        if sorry and _word_at(text, k, end, "but"):
            k = _skip_ws(text, k + 3, end)
        return j + 1, k, False
    if ai:
        return None
    if sorry and j > i and _word_at(text, j, end, "but"):
        return i, _skip_ws(text, j + 3, end), False
    if c and c in "!.…" and j == i:
        k = j
        while k < end and text[k] in "!.…":
            k += 1
        while k < end and text[k] in "*_)\"'”’":
            k += 1
        if k < end and not text[k].isspace():
            return None
        nxt = _skip_ws(text, k, end)
        if c == "." and nxt < end and text[nxt].isdigit():
            return None  # "No. 5 bus"
        return k, nxt, True
    return None


# --------------------------------------------------------------------------------------------
# clause splitting

# "and" / "but" between whitespace: the only words a clause split can happen at
_CONJ_RE = re.compile(r"\s[’'\-]*(?:and|but)[’'\-]*(?=\s)", re.IGNORECASE)


def _split_clauses(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """Split at safe ``and`` / ``but`` (see the module docstring)."""
    lowered = text[s:e].lower()
    if "and" not in lowered and "but" not in lowered:
        return [(s, e)]  # cheap exit: no "and" / "but" at all
    if not any(_is_clause_start(_iter_norms(text, m.end(), e))
               for m in _CONJ_RE.finditer(text, s, e)):
        return [(s, e)]  # cheap exit: none is followed by a subject and a verb
    toks = _tokens(text, s, e)
    out: list[tuple[int, int]] = []
    seg = s
    has_verb = subord = quote = False
    depth = 0
    for i, t in enumerate(toks):
        gap = _gap(text, toks, i, s)
        for ch in gap:
            if ch in "([{“‘«":
                depth += 1
            elif ch in ")]}”’»" and depth:
                depth -= 1
            elif ch == '"':
                quote = not quote
        if t.norm in ("and", "but") and i and depth == 0 and not quote and gap[-1:].isspace() \
                and not _inside_emphasis(text, s, t.start):
            left = gap.rstrip()
            comma = left.endswith(",")
            if comma:
                left = left[:-1]
            left = left.rstrip()
            # ", but" ends a subordinate clause too: "I don't know whether we deliver on Sundays,
            # but delivery costs £4.95." (an "and" after "if" / "whether" may join its conditions)
            closes = not subord or (comma and t.norm == "but")
            if (all(ch in "%)]}”’\"'*_" for ch in left) and has_verb and closes
                    and i + 1 < len(toks) and _gap(text, toks, i + 1, s).isspace()
                    and _is_clause_start(t.norm for t in toks[i + 1:i + 9])):
                out.append((seg, toks[i - 1].end + len(left)))
                seg = toks[i + 1].start
                has_verb = subord = False
                continue
        if t.start >= seg:
            w = t.norm
            if w in _FINITE or w in _SUBJ_VERB or w.endswith("n't"):
                has_verb = True
            if w in _SUBORDINATORS:
                subord = True
    out.append((seg, e))
    return out


def _inside_emphasis(text: str, s: int, i: int) -> bool:
    """Whether ``text[i]`` stands inside a markdown ``**bold**`` or ``__bold__`` span opened
    after ``s`` ("**30% off Growth and Scale**" is one phrase, never two clauses)."""
    return text.count("**", s, i) % 2 == 1 or text.count("__", s, i) % 2 == 1


def _semicolons(text: str, s: int, e: int) -> list[tuple[int, int]]:
    out = []
    seg = s
    k = text.find(";", s, e)
    while k != -1:
        if k + 1 < e and text[k + 1].isspace():
            out.append((seg, k))
            seg = k + 1
        k = text.find(";", k + 1, e)
    out.append((seg, e))
    return out


# --------------------------------------------------------------------------------------------
# driver

def _emit(text: str, s: int, e: int, kind: str, out: list[ClaimUnit], english: bool = True) -> None:
    s, e = _trim_tags(text, *_trim(text, s, e))
    if s < e:
        out.append(ClaimUnit(text[s:e], s, e, kind, english))


# source tags a RAG answer appends to what it says: "[staff.md]", "(history.md)", "(source:
# hours.md)", "[Source: price list]", "[1]", "[1, 3]", "[^2]", "【2】", "【4:0†source】"
_TAG = (r"(?:\[\^?\d{1,3}(?:\s*[,–-]\s*\^?\d{1,3})*\]"
        r"|【[^】\n]{0,40}】"
        r"|[\[(]\s*(?:sources?|refs?|cf\.?|see)\s*:\s*[^\[\]()\n]{1,60}[\])]"
        r"|[\[(][^\[\]()\s]{1,60}\.(?:md|markdown|txt|pdf|html?|docx?|csv|json|ya?ml|xlsx?|rst)[\])])")
_TAG_RE = re.compile(_TAG, re.IGNORECASE)
_TAG_END_RE = re.compile(r"(?:" + _TAG + r"[\s.,;:!]*)+$", re.IGNORECASE)
_TAG_START_RE = re.compile(r"(?:" + _TAG + r"\s*)+", re.IGNORECASE)


def _trim_tags(text: str, s: int, e: int) -> tuple[int, int]:
    """``(s, e)`` less source tags (:data:`_TAG_RE`) at either end, with the punctuation after
    a closing tag ("... bought it (history.md)." -> "... bought it"); empty when the span is only
    tags. A tag inside the span stays in its text (a unit is a span of the input)."""
    if s >= e or not ("[" in text[s:e] or "(" in text[s:e] or "【" in text[s:e]):
        return s, e
    s0, e0 = s, e
    m = _TAG_START_RE.match(text, s, e)
    if m is not None:
        s = m.end()
    m = _TAG_END_RE.search(text, max(s, e - 240), e)  # bounded: linear cost
    if m is not None:
        e = m.start()
    if (s, e) == (s0, e0):
        return s, e
    s, e = _trim(text, s, e)
    while e > s and text[e - 1] in ",;:":
        e -= 1
    s, e = _trim(text, s, e)
    return (s, e) if _has_alnum(text, s, e) else (s, s)


def _sentence_units(text: str, s: int, e: int, out: list[ClaimUnit]) -> None:
    """Units of one sentence, English rules."""
    for ps, pe in _semicolons(text, s, e):
        ps, pe = _trim_tags(text, *_trim(text, ps, pe))
        if ps < pe:
            _piece_units(text, ps, pe, out)


def _piece_units(text: str, s: int, e: int, out: list[ClaimUnit]) -> None:
    if not _has_alnum(text, s, e) or _is_pleasantry(text, s, e):
        _emit(text, s, e, "pleasantry", out)
        return
    unit_start = pos = s  # unit_start: where the current unit began, particles included
    ai_seen = False
    while pos < e:
        m = _particle(text, pos, e)
        if m is None:
            # "**How it works:** ..." and "As far as I can see, ..." are dropped like particles
            nxt = _label(text, pos, e)
            nxt = _opener(text, pos, e) if nxt is None else nxt
            nxt = _reminder(text, pos, e) if nxt is None else nxt
            if nxt is None:
                break
            unit_start = pos = nxt
            continue
        p_end, nxt, terminal, ai = m
        ai_seen = ai_seen or ai
        if not _has_alnum(text, nxt, e):  # nothing but particles: the whole unit is chat
            _emit(text, unit_start, e, "self_reference" if ai_seen else "pleasantry", out)
            return
        if terminal:  # "Sure! the shop ..." -> "Sure!" | "the shop ..."
            _emit(text, unit_start, p_end, "pleasantry", out)
            unit_start = nxt
        pos = nxt
    if pos > s and _is_pleasantry(text, pos, e):  # "Yes! Happy to help, Anna!"
        _emit(text, unit_start, e, "pleasantry", out)
        return
    for _ in range(3):  # a chat lead is dropped like a particle, unless the unit is chat anyway
        lead = _chat_lead(text, pos, e)
        if lead is None or _classify_content(text, *_trim(text, pos, e)) != "claim":
            break
        pos = lead[1]
    clauses = _split_clauses(text, pos, e)
    for cs, ce in clauses:
        cs, ce = _trim(text, cs, ce)
        while ce > cs and text[ce - 1] in ",;:":
            ce -= 1
        cs, ce = _trim_tags(text, *_trim(text, cs, ce))
        if cs < ce:
            if len(clauses) == 1:  # text[pos:e] less a trailing ",;:": known not to be chat
                _emit(text, cs, ce, _classify_content(text, cs, ce), out)
            else:
                _emit(text, cs, ce, _classify(text, cs, ce), out)


_LEAD_FIRST = frozenset("here here's here're these below following".split())
_LEAD_LAST = frozenset("""you include includes including get gets offer offers cover covers compare follows
compares following below""".split())
# words a lead-in may hold besides its lead word and up to two others
_LEAD_FILLER = frozenset("""a an the few some couple of to for how they it this that what your our my
and also as here's here're how's what's""".split())
_LEAD_COPULAS = frozenset("is are was were be been".split())
# nouns of an enumeration ("A few things to plan for:", "Some points to note:", "Your options:")
_LEAD_NOUNS = frozenset("things points options steps details tips notes ways".split())
_LEAD_NEG = frozenset("not no never without except only nor neither none nothing".split())


def _is_lead_in(text: str, s: int, e: int) -> bool:
    """A line such as "Here's how they compare:" or "Being a member gets you:" that only
    introduces what follows it (the line's ending ":" is checked by the caller): at most 10 words, no digit, no
    capitalised word but the first (and "I"), no negation, no "is" / "are" but one that presents
    the list (:func:`_presenting_copula`: "Our hours are:", "Here are the prices:"; "Membership is
    free and covers:" states something), at most two words besides its lead word, filler and
    copula ("Members park free and also get:" says more than it introduces), and it opens with
    ``here`` / ``these`` / ``below`` / ``the following``, or ends with a word whose object is the
    list (``you``, ``includes``, ``get``, ``offers``, ``covers``, ``compare`` ...), or names what
    follows as an enumeration (``things``, ``points``, ``options``, ``steps``, ``tips`` ...:
    "A few things to plan for:"), or presents it with its copula, or is a label of at most two
    words ("Prices:", "Opening hours:")."""
    if _DIGIT_RE.search(text, s, e):
        return False
    toks = _tokens(text, s, e)
    if not toks or len(toks) > 10:
        return False
    if any(t.upper and t.norm not in ("i", "i'm", "i've", "i'd", "i'll") for t in toks[1:]):
        return False
    norms = [t.norm for t in toks]
    if any(w in _LEAD_NEG or w.endswith("n't") for w in norms):
        return False
    if any(w in _LEAD_COPULAS and not _presenting_copula(norms, k) for k, w in enumerate(norms)):
        return False  # "Membership is free and covers:" states something
    rest = [w for w in norms if w not in _LEAD_FIRST and w not in _LEAD_LAST and w not in _LEAD_NOUNS
            and w not in _LEAD_FILLER and w not in _LEAD_COPULAS]
    if len(rest) > 2:
        return False  # "Members park free and also get:" says more than it introduces
    has_copula = not _LEAD_COPULAS.isdisjoint(norms)
    return norms[0] in _LEAD_FIRST or tuple(norms[:2]) == ("the", "following") \
        or norms[-1] in _LEAD_LAST or not _LEAD_NOUNS.isdisjoint(norms) or has_copula \
        or len(norms) <= 2  # a label: "Prices:", "Opening hours:", "Example:"


def _presenting_copula(norms: Sequence[str], k: int) -> bool:
    """Whether the copula ``norms[k]`` of a line ending in ":" only presents what follows: the
    line's last word ("Our opening hours are:"), or after a leading "here" ("Here are the
    prices:"), or before "as follows"."""
    return k == len(norms) - 1 or (k == 1 and norms[0] == "here") or tuple(norms[k + 1:]) == ("as", "follows")


def _lead_in_lines(text: str, lines: Sequence[tuple[int, str, int, int]]) -> set[int]:
    """Indices of text lines that end with ``:``. What follows such a line is not looked at: a
    stream classifies the line before the list below it has arrived, and must classify it as
    the whole response does."""
    return {k for k, (_, kind, cs, ce) in enumerate(lines)
            if kind == "text" and text[cs:ce].rstrip("*_ \t").endswith(":")}


def _is_table_line(line: str) -> bool:
    """Whether a raw line is a markdown table row or separator (starts with ``|``, after
    indentation and block-quote marks)."""
    return line.lstrip(" \t>").startswith("|")


def _is_header_row(text: str, lines: Sequence[tuple[int, str, int, int]], li: int, previous: str) -> bool:
    """Whether table line ``li`` is its table's header row: the first row of a table (the line
    before it, or the last line of ``previous`` for the first line, is no table line) with no
    digit in it. A markdown table opens with its header ("| Service | Price |"), which names
    columns and states nothing; a first row with a number ("| Adult day pass | £45 |", a table
    written without a header) is judged. Only the row and what precedes it are looked at, so a
    stream that has not yet seen the separator row classifies it as the whole response does."""
    a, b = lines[li][2], lines[li][3]
    if _DIGIT_RE.search(text, a, b):
        return False
    if li > 0:
        before = text[lines[li - 1][0]:lines[li][0]].rstrip("\n")
    else:
        before = previous.rstrip("\n").rsplit("\n", 1)[-1]
    return not _is_table_line(before)


def split_claims(text: str, *, previous: str = "") -> list[ClaimUnit]:
    """Split an assistant answer into units and classify each one.

    Args:
        text: the answer (any length; markdown allowed).
        previous: the text before ``text`` when ``text`` is a piece of a longer answer (a
            stream's previous sentence); only its last line is read, to tell a table's header
            row (the first row of a table: not a claim) from its other rows.

    Returns:
        The units in text order, non-overlapping, each with ``u.text == text[u.start:u.end]``
        and ``u.kind`` in :data:`CLAIM_KINDS`; offsets are code points (Python string indices),
        ``0 <= start < end <= len(text)``. ``[]`` for empty or blank text (and for text that is
        only code blocks and markdown rules). The rules, with examples, are in the module
        docstring; anything they do not recognise is a ``claim``.

    Raises:
        InputTypeError: ``text`` is not a str (the message names ``text``).
        ValidationError: ``text`` holds a lone surrogate (U+D800..U+DFFF).

    Cost: linear in ``len(text)``. Thread-safety: a pure function over immutable tables; safe
    to call from any number of threads.
    """
    check_text(text, "text")
    if not text.strip():
        return []
    lines = _lines(text)
    foreign = 0  # sentences / rows that do not look like English
    sentences = split_sentences(text) if any(k == "text" for _, k, _, _ in lines) else []
    line_starts = [ls for ls, _, _, _ in lines]
    lead_ins = _lead_in_lines(text, lines)
    out: list[ClaimUnit] = []
    previous = check_text(previous, "previous")
    for li, (ls, kind, cs, ce) in enumerate(lines):
        if kind == "table":
            english = _looks_english(text, [(cs, ce)])
            foreign += not english
            unit_kind = _classify(text, cs, ce) if english else "claim"
            if unit_kind == "claim" and _is_header_row(text, lines, li, previous):
                unit_kind = "pleasantry"  # "| Service | Price |": column names state nothing
            _emit(text, cs, ce, unit_kind, out, english)
    for ss, se in sentences:
        # the segmenter ends a sentence at every newline; cut at newlines anyway (defensive)
        while ss < se:
            nl = text.find("\n", ss, se)
            pe = se if nl == -1 else nl
            li = bisect_right(line_starts, ss) - 1
            _, kind, cs, ce = lines[li]
            if kind == "text":
                a, b = _trim(text, max(ss, cs), min(pe, ce))
                if a < b:
                    # judged per sentence, so a sentence is classified the same whether it
                    # arrives alone (a stream) or inside the whole response
                    ta, tb = _trim_tags(text, a, b)  # source tags are not words of the text
                    english = ta >= tb or _looks_english(text, [(ta, tb)])
                    foreign += not english
                    if english:
                        n = len(out)
                        _sentence_units(text, a, b, out)
                        if li in lead_ins and len(out) == n + 1 and out[-1].kind == "claim" \
                                and b == _trim(text, cs, ce)[1] \
                                and _is_lead_in(text, out[-1].start, out[-1].end):
                            u = out[-1]  # "Here's how they compare:"
                            out[-1] = ClaimUnit(u.text, u.start, u.end, "pleasantry")
                    else:
                        _emit(text, a, b, "claim", out, english=False)
            ss = pe + 1 if nl != -1 else se
    if foreign:
        _log.warning("split_claims: %d sentence(s) do not look like English; the claim rules are "
                     "English-only, so their units are classified 'claim' with english=False", foreign)
    out.sort(key=lambda u: u.start)
    return out

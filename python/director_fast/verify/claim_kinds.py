"""The claim-kind classifier of :func:`director_fast.verify.claims.split_claims`: which units
are chat furniture (``pleasantry``, ``offer``, ``question``, ``self_reference``,
``abstention``) and which are a ``claim``.

Holds the word tokenizer, the token-pattern language (``word``, ``{a|b_c}``, ``[a|b]``, ``~N``,
``~N/name``, ``$``), the closed word lists, the pleasantry / wish / abstention / self-reference /
contact / offer patterns and the kind rules (``_classify``). The rules, their order and their
fail-closed default are described in the module docstring of :mod:`director_fast.verify.claims`.
Pure functions over immutable tables; thread-safe.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any


# --------------------------------------------------------------------------------------------
# tokens

_WORD_RE = re.compile(r"[\w'’\-]+")
_DIGIT_RE = re.compile(r"\d")
_URLISH_RE = re.compile(r"@|https?:|www\.|[A-Za-z]\.(?:com|org|net|io|co|gov|edu|info|uk|de)\b")
_TRIM = "'’-"


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs 4x (built per word)
class _Tok:
    start: int    # raw match span in the source
    end: int
    norm: str     # lower case, curly apostrophe -> ', leading/trailing ' and - dropped
    upper: bool   # starts with an upper-case letter (a name)


def _norm(raw: str) -> str:
    """The normal form of a ``_WORD_RE`` match: leading/trailing ``'`` and ``-`` dropped, lower
    case, curly apostrophe -> ``'``; ``""`` when nothing is left (not a word)."""
    return raw.strip(_TRIM).lower().replace("’", "'")


def _tok(m: re.Match[str]) -> _Tok | None:
    raw = m.group()
    norm = _norm(raw)
    if not norm:
        return None
    s, e = m.span()
    return _Tok(s, e, norm, raw.lstrip(_TRIM)[0].isupper())


def _tokens(text: str, start: int, end: int) -> list[_Tok]:
    out: list[_Tok] = []
    for m in _WORD_RE.finditer(text, start, end):
        t = _tok(m)
        if t is not None:
            out.append(t)
    return out


def _norms(text: str, start: int, end: int) -> list[str]:
    """``[t.norm for t in _tokens(text, start, end)]``, without building the tokens."""
    return [n for n in map(_norm, _WORD_RE.findall(text, start, end)) if n]


def _iter_norms(text: str, start: int, end: int) -> Iterator[str]:
    """``_norms(text, start, end)`` one at a time, for callers that stop early."""
    for m in _WORD_RE.finditer(text, start, end):
        norm = _norm(m.group())
        if norm:
            yield norm


def _gap(text: str, toks: Sequence[_Tok], i: int, lo: int) -> str:
    """Source text between token ``i-1`` (or ``lo``) and token ``i``."""
    return text[(toks[i - 1].end if i else lo):toks[i].start]


def _skip_ws(text: str, i: int, end: int) -> int:
    while i < end and text[i].isspace():
        i += 1
    return i


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


# --------------------------------------------------------------------------------------------
# token patterns: a tiny anchored matcher over normalised tokens (no regex backtracking; every
# pattern looks at a bounded number of leading tokens)
#   word        one literal token
#   {a|b_c}     one of the alternatives (``_`` joins the words of a multi-word alternative)
#   [a|b_c]     optionally one of them
#   ~N          0..N arbitrary tokens
#   ~N/name     0..N tokens from the word set ``_GAP_SETS[name]``
#   $           end of the unit

_Slot = tuple[str, Any]

_GAP_SETS: dict[str, frozenset[str]] = {
    # between a documents noun and its verb: "The information (I have access to) doesn't ..."
    "doc": frozenset("""
i we you have had has provided available to me us here given supplied shared retrieved found
access at hand can see currently on this that these the topic subject about it in my your our
context i've you've we've right now so far which
""".split()),
}


@dataclass(frozen=True, slots=True)
class _Pattern:
    first: frozenset[str] | None  # the tokens a match can start with ("" = empty unit), None = any
    slots: tuple[_Slot, ...]


class _Patterns:
    """Compiled patterns, indexed by the token a match can start with."""

    __slots__ = ("_by_first", "_any_first")

    def __init__(self, specs: Iterable[str]) -> None:
        patterns = [_compile(spec) for spec in specs]
        self._any_first = tuple(p for p in patterns if p.first is None)
        heads = set().union(*(p.first for p in patterns if p.first is not None))
        self._by_first = {w: tuple(p for p in patterns if p.first is None or w in p.first)
                          for w in heads}

    def candidates(self, toks: Sequence[str]) -> tuple[_Pattern, ...]:
        """The patterns (in their order) whose first token allows a match of ``toks``."""
        return self._by_first.get(toks[0] if toks else "", self._any_first)


def _compile(spec: str) -> _Pattern:
    slots: list[_Slot] = []
    for item in spec.split():
        if item == "$":
            slots.append(("end", None))
        elif item.startswith("~"):
            n, _, name = item[1:].partition("/")
            slots.append(("gap", (int(n), _GAP_SETS[name] if name else None)))
        elif item[0] in "{[":
            if item[-1] != "}]"["{[".index(item[0])]:
                raise ValueError(f"bad pattern item {item!r}")
            alts = [tuple(a.split("_")) for a in item[1:-1].split("|")]
            slots.append(("alt" if item[0] == "{" else "opt", _by_length(alts)))
        else:
            slots.append(("alt", _by_length([(item,)])))
    first: set[str] = set()
    bounded = False  # the first token is known
    for kind, data in slots:
        if kind == "gap":
            break
        if kind == "end":
            first.add("")
            bounded = True
            break
        first.update(alt[0] for _, alts in data for alt in alts)
        if kind == "alt":
            bounded = True
            break
    return _Pattern(frozenset(first) if bounded else None, tuple(slots))


def _by_length(alts: list[tuple[str, ...]]) -> tuple[tuple[int, frozenset[tuple[str, ...]]], ...]:
    """The alternatives of an ``alt``/``opt`` slot as (number of words, alternatives) pairs, so
    that matching looks each length up once."""
    lengths = sorted({len(a) for a in alts})
    return tuple((n, frozenset(a for a in alts if len(a) == n)) for n in lengths)


def _ends(slots: tuple[_Slot, ...], toks: Sequence[str], k: int = 0, i: int = 0,
          first: bool = True) -> list[int]:
    """End positions of anchored matches of ``slots[k:]`` from token ``i`` (only the first one
    when ``first``)."""
    if k == len(slots):
        return [i]
    kind, data = slots[k]
    out: list[int] = []
    if kind == "end":
        return _ends(slots, toks, k + 1, i, first) if i == len(toks) else []
    if kind == "gap":
        n, allowed = data
        for j in range(i, min(i + n, len(toks)) + 1):
            if j > i and allowed is not None and toks[j - 1] not in allowed:
                break
            out += _ends(slots, toks, k + 1, j, first)
            if out and first:
                return out
        return out
    for n, alts in data:
        if tuple(toks[i:i + n]) in alts:
            out += _ends(slots, toks, k + 1, i + n, first)
            if out and first:
                return out
        elif n == 1 and i == len(toks) and ("$",) in alts:  # "{if|when|$}": or the end of the unit
            out += _ends(slots, toks, k + 1, i, first)
            if out and first:
                return out
    if kind == "opt":
        out += _ends(slots, toks, k + 1, i, first)
    return out


def _any(patterns: _Patterns, toks: Sequence[str]) -> bool:
    return any(_ends(p.slots, toks) for p in patterns.candidates(toks))


def _alts(words: Iterable[str]) -> str:
    return "{" + "|".join(w.replace(" ", "_") for w in words) + "}"


def _phrases(spec: str) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(p.split()) for p in " ".join(spec.split()).split("|") if p.strip())


# --------------------------------------------------------------------------------------------
# word lists

_AUX = frozenset("""
is are was were am has have had can cannot can't could couldn't will won't would wouldn't shall
should shouldn't must mustn't may might does do did doesn't don't didn't isn't aren't wasn't
weren't hasn't haven't hadn't ain't
""".split())

_FINITE = _AUX | frozenset("""
takes take took costs cost opens open opened closes close closed offers offer offered includes
include included requires require required needs need needed allows allow allowed accepts accept
accepted provides provide provided runs run ran starts start started ends end ended begins begin
began lasts last lasted sells sell sold serves serve served charges charge charged applies apply
applied covers cover covered remains remain remained becomes become became gets get got goes go
went comes come came makes make made contains contain contained operates operate operated
features supports support supported expires expire expired arrives arrive arrived leaves leave
left departs depart departed works work worked stays stay stayed seems seem seemed varies vary
varied depends depend depended means mean meant says said states stated lists listed shows show
showed holds hold held uses use used receives receive received pays pay paid gives give gave
sits sit sat stands stand stood ships ship shipped delivers deliver delivered returns return
returned lets let helps help helped keeps keep kept reaches reach reached belongs belong belonged
consists consist comprises exceeds equals knows know knew wants want wanted speaks speak spoke
enjoys enjoy enjoyed hosts host hosted
""".split())

# a subject and its verb in one token
_SUBJ_VERB = frozenset("""
i'm you're we're they're he's she's it's there's that's here's i've you've we've they've i'll
you'll he'll she'll it'll we'll they'll there'll i'd you'd he'd she'd we'd they'd there're
""".split())

# determiners that cannot be a subject on their own
_DET_ONLY = frozenset("the a an our your their its his her my no every such".split())

_ADVERBS = frozenset("""
also usually always never often sometimes still only just now currently typically generally
normally already even really certainly definitely probably actually rarely occasionally
frequently mostly
""".split())

_NOT_SUBJECT = frozenset("""
in on at by for with from to of about after before during until till between over under into
onto through via per within without near across around behind beside besides beyond against
among along toward towards upon than as since including except like
and or but nor so yet if unless whether because although though while whereas when whenever
where wherever which who whom whose what how why that then
not too however therefore thus hence instead otherwise again soon later very please yes
""".split()) | _ADVERBS

_SUBORDINATORS = frozenset("""
if unless whether provided because although though whenever which who whom whose that when where
while
""".split())

# English function words for the language check; words that are also common function words of
# other Latin-script languages (a, in, an, no, me, die, was, will, so, also, on, de) are left out
_ENGLISH = frozenset("""
the and of to you your for with that this it we our they their are is be been have has had not
can do does did at by from or if what which who when where how would should could may must about
after before all any some more only just but than then its his her he she i my us them these
those here were up out please yes into over each every other very because there i'm it's
you're don't we're there's can't
a an in on as so no was will also get gets got one two than too much many most really well
i'd i'll i've you'll you've you'd we'll we've they're they'll that's what's isn't aren't wasn't
won't doesn't didn't haven't hasn't couldn't wouldn't shouldn't let let's me him hers ours yours
now still even never always again once same such own both few off down while until since
""".split())

# --------------------------------------------------------------------------------------------
# particles and pleasantries

_PARTICLES = _phrases("""
yes|yeah|yep|yup|no|nope|sure|sure thing|certainly|of course|absolutely|definitely|indeed
|unfortunately|fortunately|luckily|sadly|regrettably|happily|actually|well|ok|okay|alright
|all right|right|correct|exactly|great|perfect|good news|great news|bad news|good question
|great question|excellent question|interesting question|short answer|in short|in summary
|to summarize|to summarise|to sum up|basically|honestly|to be honest|frankly|got it|understood
|that's right|that is right|that's correct|that is correct|not quite|no problem|no worries
|not yet|not really|not exactly|not necessarily|not at all|not straight away|not right away
|not immediately|not always|not for now|not at the moment|not right now
|sorry|i'm sorry|i am sorry|i apologize|i apologise|apologies|my apologies|i'm afraid
|i am afraid
|hi|hello|hey|hi there|hello there|hey there|greetings|dear|good morning|good afternoon
|good evening|welcome
|thanks|thank you|thanks so much|thank you so much|many thanks|thanks for asking
|thank you for asking|thanks for your question|thank you for your question
|thanks for reaching out|thank you for reaching out|thanks for contacting us
|thank you for contacting us|thanks for getting in touch|thank you for getting in touch
|happy to help|glad to help|happy to assist|glad you asked|good to hear from you
""")

_AI_PREFIXES = _phrases("""
as an ai|as an ai assistant|as an ai language model|as a language model|as an ai model
|as a large language model|as an ai chatbot|as a chatbot|as a virtual assistant|as an assistant
|as your assistant|as your ai assistant|as an ai-powered assistant|as a digital assistant
|as an ai system|as an ai-based assistant|as a text-based ai|as a text-based assistant
""")

# every start (first words) of a particle or AI prefix
_PARTICLE_PREFIXES = frozenset(p[:n] for p in _PARTICLES | _AI_PREFIXES
                               for n in range(1, len(p) + 1))

# particles that may be followed directly by "but" ("I'm sorry but ...")
_SORRY = _phrases("""
sorry|i'm sorry|i am sorry|i apologize|i apologise|apologies|my apologies|i'm afraid|i am afraid
|unfortunately|regrettably|sadly
""")

# greetings, thanks and farewells: a capitalised name may follow ("Hi Anna!")
_NAME_OK = _phrases("""
hi|hello|hey|hi there|hello there|hey there|greetings|dear|good morning|good afternoon
|good evening|welcome|welcome to|welcome back
|thanks|thank you|thanks so much|thank you so much|many thanks|thanks again|thank you again
|thanks for asking|thank you for asking|thanks for your question|thank you for your question
|thanks for reaching out|thank you for reaching out|thanks for contacting us
|thank you for contacting us|thanks for getting in touch|thank you for getting in touch
|thanks for your message|thank you for your message|thanks for your patience
|thank you for your patience|thank you for contacting|thanks for contacting
|you're welcome|you are welcome|no problem|my pleasure|anytime|any time
|have a great day|have a nice day|have a good day|have a wonderful day|have a lovely day
|have a great trip|have a nice trip|have a good trip|have a great stay|have a nice stay
|have a great weekend|have a nice weekend|have a good weekend|have a great evening
|enjoy your stay|enjoy your trip|enjoy your visit|enjoy your meal|enjoy your day|enjoy
|take care|best regards|kind regards|warm regards|regards|best wishes|best|cheers|goodbye|bye
|see you|see you soon|safe travels|all the best|good luck|best of luck|happy travels|stay safe
|i hope this helps|hope this helps|i hope that helps|hope that helps|happy to help|glad to help
""")

_PLEASANTRIES = _PARTICLES | _NAME_OK | _phrases("""
good to hear|glad to hear|happy to assist|glad to assist|glad i could help|happy i could help
|i'm happy to help|i am happy to help|i'm glad to help|i am glad to help|i'd be happy to help
|i would be happy to help|i'd be glad to help|i would be glad to help|i'm here to help
|i am here to help|happy to help further|always happy to help|i'm always happy to help
|i hope this helps you|i hope this information helps|i hope this information is helpful
|i hope this is helpful|hope this is helpful|i hope that answers your question
|hope that answers your question|i hope this answers your question
|hope this answers your question|i hope that clears things up|hope that clears things up
|it's my pleasure|it was my pleasure|it is my pleasure|not a problem
|sounds good|great choice|good choice|excellent choice|i understand|i see
|with pleasure|gladly|let's see|let me check|let me explain|let me help|let me help you
|here's what i found|here is what i found|here's the information|here is the information
|here's what you need to know|here is what you need to know|here you go|here are the details
|here's a summary|here is a summary|here's an overview|here is an overview
|here's a quick overview|here's a quick summary|here are some details
|i'm sorry to hear that|i am sorry to hear that|sorry to hear that|sorry for the inconvenience
|i'm sorry for the inconvenience|i apologize for the inconvenience|apologies for the inconvenience
|sorry for the confusion|i'm sorry for the confusion|i apologize for the confusion
|sorry for any confusion|i apologize for any confusion|i'm sorry for any confusion
|good|awesome|wonderful|fantastic|excellent|nice|cool|oh|ah|hmm|wow|oh no|oh dear
|you're very welcome|you are very welcome|you're most welcome|and thanks for reaching out
|and thank you for reaching out|and thanks for asking|and thank you for asking|and welcome
|sorry about that|so sorry about that|sorry about this|it's really frustrating|that's frustrating
|that's really frustrating|that must be frustrating|that sounds frustrating|how frustrating
|i know how frustrating that is|i understand how frustrating that is|that's annoying
|that's really annoying|no worries|great news|good news|of course
|no problem at all|not a problem at all|no trouble at all|no trouble|no bother|no bother at all
|any time at all|anytime at all
|i'm sorry|i am sorry|i'm so sorry|i am so sorry|i'm very sorry|i am very sorry|i'm really sorry
|so sorry|very sorry|really sorry|love the enthusiasm|love your enthusiasm|what a lovely idea
|let me check that|let me check that for you|let me check on that|let me check on that for you
|let me look into that|let me look into this|let me look into that for you|let me look into it
|let me find out|let me find out for you|let me see|one moment|one moment please|just a moment
|just a moment please|bear with me|bear with me a moment|please bear with me
|i understand your frustration|i understand your concern|i understand your concerns
|i completely understand|i totally understand|i understand completely|i fully understand
|i apologise|i apologise for the inconvenience|i apologise for any inconvenience
|i apologize for any inconvenience|sorry for any inconvenience|apologies for any inconvenience
|i apologise for the confusion|i apologise for any confusion|apologies for the confusion
|ride safe|ride safely|drive safe|drive safely|travel safe|travel safely
|what a great idea|what a lovely plan|sounds like a great plan|sounds like a lovely plan
""")

# wishes and exclamations addressed to the user, matched from the unit's start (a unit with a
# digit never gets here): "I hope you get your scarf back soon!", "Hope to see you soon!",
# "And what a lovely trip!", "Oh no, sorry to hear that!"
_WISHES = _Patterns([
    "[oh|and|but] {i|we} [really|truly|do|sincerely] hope {you|your|everything|it_all|you're|the_rest}",
    "[oh|and|but] [i|we] hope to {see|hear_from|welcome|help} you",
    "[oh|and|but] [i|we] {wish|wishing} you",
    "[oh|and|but] what a {lovely|great|wonderful|nice|fun|beautiful|fantastic|exciting|brilliant} ~3 $",
    "[and|but] {oh_no|oh_dear}",
    "{oh_no|oh_dear} [,] [i'm|i_am] sorry to hear",
    "{sounds|that_sounds} {lovely|great|wonderful|exciting|like_fun|like_a_great_plan|fun}",
    # wishes, sympathy and encouragement addressed to the user (no digit; at most
    # _WISH_MAX_WORDS words): "Hope he's back to his books in no time!", "Fingers crossed it
    # turns up!", "Happy reading, and have a lovely rest of your week!"
    "[oh|and|but|so] {hope|hoping} {you|your|you're|he|he's|she|she's|they|they're|it|it's|"
    "everything|the_rest|all}",
    "[and|so] {fingers_crossed|good_luck|best_of_luck|best_wishes|all_the_best|congratulations|"
    "congrats|well_done|welcome_aboard|welcome_back|hang_in_there|take_care|stay_safe|cheers|"
    "no_worries|don't_worry|do_not_worry}",
    "[and|so] {enjoy|have} {your|a_lovely|a_great|a_nice|a_good|a_wonderful|a_fantastic|a_safe|"
    "a_relaxing|the_rest|it|yourself|the_peace}",
    "[and|so] {happy|safe} {reading|travels|travelling|traveling|learning|studying|shopping|"
    "holidays|trip|journey|weekend|cooking|gardening|listening|watching|writing}",
    "[and|oh] [i'm|i_am] [so|really|very|truly] sorry {to_hear|about|for_the_trouble|"
    "for_the_inconvenience|you've|you're|that}",
    "[and|oh] {how|what} {exciting|lovely|wonderful|great|fun|nice|annoying|frustrating|stressful|"
    "a_pain|a_shame}",
    "[and] {that's|that_is|it's|it_is|that_must_be|that_sounds} [really|so|very|always|truly] "
    "{frustrating|annoying|stressful|exciting|wonderful|lovely|great|understandable|a_pain|"
    "a_shame|worrying|upsetting}",
    "[and] {that's|that_is} a {fair|good|great|excellent|reasonable|sensible|common|smart} question",
    "[and] {thanks|thank_you} [so|very] [much] for {getting_in_touch|reaching_out|asking|"
    "your_patience|your_message|contacting_us|checking|the_question|the_work|all_the_work|"
    "all_you_do|what_you_do|everything_you_do|your_work|your_interest|your_understanding|"
    "flagging|letting_me_know|letting_us_know|sharing|choosing|being|your_kind|the_kind|"
    "the_details|the_context|the_detail|raising|bringing|supporting|your_support|your_custom|"
    "your_business|being_a_member|being_a_customer|visiting|using|donating|your_donation|"
    "your_feedback|the_feedback|your_loyalty|shopping|dropping_by|stopping_by|coming_in|"
    "your_enquiry|your_inquiry|your_query|the_heads-up|the_heads_up}",
    "[and] {that's|that_is|what|such} [a|such_a] [really|very|truly] {fair|good|great|excellent|"
    "reasonable|sensible|common|smart|thoughtful|important|helpful|interesting|practical|valid|"
    "lovely|kind} {question|point|thing_to_ask|thing_to_check}",
    "[and] great that you're",
    # "Enjoy the crossing!": an event noun and nothing after it (a longer object may assert
    # something: "Enjoy the free breakfast in the lounge")
    "[and|so] {enjoy|have_fun_on|have_fun_at|have_fun_in} the {crossing|trip|ride|swim|journey|"
    "flight|visit|stay|show|party|class|lesson|session|course|tour|event|meal|food|breakfast|"
    "lunch|dinner|coffee|day|weekend|holiday|holidays|break|game|match|concert|film|movie|book|"
    "festival|sailing|walk|run|workout|workshop|ride_home|evening|night|weather|sunshine} "
    "[today|tomorrow|tonight|later|everyone|all] $",
    # "Hope we can get you rolling again soon!": a wish about helping the user
    "[oh|and|but|so] [i|we] {hope|hoping} {we_can|we_could|we'll|we_will|we_get_to|to} "
    "{get_you|see_you|help_you|help|sort_you|sort_it|sort_that|sort_this|fix_it|fix_that|"
    "welcome_you|have_you|get_it|get_that|get_this|get_your|hear_from_you}",
    "[oh|and|but|so] [i|we] [really|do] hope {that|this|it|the_above|all_this|all_of_this} "
    "{clears|helps|answers|explains|covers|sorts|makes|gives|was|is}",
    "[and|so] happy {invoicing|swimming|booking|planning|banking|riding|cycling|flying|baking|"
    "exploring|browsing|decorating|building|coding|training|running|skiing|sailing|camping|"
    "hiking|painting|organising|organizing|saving|spending|celebrating|studying|teaching}",
])
# a sentence ending in "?" is a question (asserting nothing) only when it opens like one; a
# statement with a tag ("..., doesn't it?", "..., is there anything else?") or a rhetorical
# "Did you know that ...?" is a claim (fail closed)
_QUESTION_OPENERS = frozenset(
    "what what's who who's whom whose when where where's why how how's which is isn't are aren't "
    "was wasn't were weren't do don't does doesn't did didn't can can't could couldn't would "
    "wouldn't will won't shall should shouldn't may might must have haven't has hasn't had am "
    "anything any anyone shall would've need want".split())
_ASSERTING_QUESTIONS = _Patterns([
    "{did|do} you know",
    # a question that carries a statement: "Would you like to know that the shop opens at 9?",
    # "Anything else, given that the shop opens at 9?"
    "~8 {know|aware|realise|realize|remember|noticed|note|heard|told} that",
    "~8 {given|given_that|now_that|seeing_that|considering_that|considering}",
    "{isn't|wasn't|aren't|weren't|doesn't|didn't} it {true|amazing|great|nice|good} that",
])

#: wishes longer than this are judged as claims (fail closed: a long sentence that opens
#: like a wish may carry facts).
_WISH_MAX_WORDS = 20

_HONORIFICS = frozenset("mr mrs ms dr prof sir madam miss".split())
# words a greeting or thanks may hold around a name ("Thank you for contacting Nordwind Bikes
# support.", "Hi team!")
_ADDRESSEES = frozenset("customer guest guests valued user friend friends all everyone team folks"
                        " there sir madam support service services care desk".split())

# the first words of the chat phrases, and every word a sequence of them can hold besides names
_PLEASANTRY_HEADS = frozenset(p[0] for p in _PLEASANTRIES)
_PLEASANTRY_WORDS = frozenset(w for p in _PLEASANTRIES for w in p) | _ADDRESSEES | _HONORIFICS

# --------------------------------------------------------------------------------------------
# classification patterns

_INFO = ("information info details detail data specifics knowledge mention answer documentation "
         "particulars idea indication reference clue").split()
_DOC = ("information info documents document docs sources source context documentation materials "
        "material text passages passage excerpts excerpt snippets notes knowledge_base knowledge "
        "search_results faq").split()
_NEG = ("doesn't does_not don't do_not didn't did_not can't cannot isn't is_not aren't are_not "
        "never").split()
_SAY = ("mention mentions include cover contain say specify state address list indicate describe "
        "discuss explain tell provide give have show refer talk go detail clarify seem appear "
        "touch").split()
_I_NEG_ABLE = ("couldn't could_not can't cannot can_not was_unable_to wasn't_able_to "
               "was_not_able_to am_unable_to am_not_able_to haven't_been_able_to "
               "have_not_been_able_to didn't did_not").split()
_FIND = ("find locate see determine confirm verify tell say answer figure_out identify know "
         "pinpoint check").split()
_GET = "provide give share access get retrieve offer obtain".split()
_DOC_SUBJ = ("[the|my|your|these|those|this|our|any] [provided|available|given|supplied|attached|"
             "retrieved|reference|source|relevant] " + _alts(_DOC) + " ~5/doc ")

_ABSTENTION = _Patterns([
    "i {don't|do_not|didn't|did_not|currently_don't|currently_do_not} have",
    "i {don't|do_not|didn't|did_not} {see|find} ~3 " + _alts(_INFO + ["any", "anything"]),
    "i {don't|do_not|didn't|did_not} know",
    "{i'm|i_am} not {sure|certain|entirely_sure|completely_sure|quite_sure|totally_sure}",
    "{i'm|i_am} {unsure|uncertain}",
    "not {sure|certain} $",
    "no idea",
    "i " + _alts(_I_NEG_ABLE) + " " + _alts(_FIND),
    "i " + _alts(_I_NEG_ABLE) + " " + _alts(_GET) + " ~4 " + _alts(_INFO),
    "{i'm|i_am} {unable|not_able} to " + _alts(_FIND),
    "{i'm|i_am} {unable|not_able} to " + _alts(_GET) + " ~4 " + _alts(_INFO),
    _DOC_SUBJ + _alts(_NEG) + " [seem_to|appear_to|explicitly|specifically|actually|really] "
    + _alts(_SAY),
    _DOC_SUBJ + "{say|says|said|mention|mentions|contain|contains|include|includes|have|has|"
    "give|gives|provide|provides} {nothing|no}",
    "{there|there's} [is|are|was|were] no ~2 " + _alts(_INFO),
    "{there|there's} [is|are|was|were] nothing ~2 {about|on|regarding|concerning|in}",
    "nothing in ~4 " + _alts(_DOC),
    "i {have|had|found|find|see|saw|could_find|can_find|could_see|can_see} no ~2 " + _alts(_INFO),
    "i {found|find|see|saw|could_find|can_find|could_see|can_see} nothing",
    "[that|this|such|the|the_requested|this_specific|that_specific|the_specific] [specific|exact]"
    " {information|info|detail|details|data} {is|are|was|were|isn't|aren't|wasn't|weren't}"
    " [not|currently|currently_not] {available|unavailable|provided|included|mentioned|covered|"
    "listed|given|specified|stated|something|beyond}",
    "{no|not_enough} ~2 {information|info|details|data|specifics} {is|are|was|were} {available|"
    "provided|given|found|included|mentioned}",
    "{that's|that_is|this_is|it's|it_is} not {something|information|a_detail|a_question} ~3 "
    "{i|that_i}",
    "{that's|that_is|this_is|it's|it_is} beyond {my|what}",
    "{it's|it_is|it_isn't|it_is_not} [not] {clear|unclear} {from|whether|if|what|how|when|where}",
    "i have no way {of|to}",
    # refusals: "I can't help with that.", "I'm not able to share that." (nothing asserted)
    "i {can't|cannot|can_not|won't|will_not} {help|assist} [you] with {that|this|it} [one|request|question] $",
    "i {can't|cannot|can_not|won't|will_not} {share|disclose|provide|discuss|give_out} {that|this|it} "
    "[information|info|detail|details] $",
    "{i'm|i_am} {not_able|unable} to {help|assist} [you] with {that|this|it} [one|request|question] $",
    "{i'm|i_am} {not_able|unable} to {share|disclose|provide|discuss|give_out} {that|this|it} "
    "[information|info|detail|details] $",
    "i {can't|cannot|can_not|couldn't|could_not} {say|be} for {sure|certain}",
    "i {can't|cannot|can_not|couldn't|could_not} be {sure|certain}",
    "{i'd|i_would} rather not {guess|speculate}",
    "i {can't|cannot|can_not|couldn't|could_not} give you a {reliable|definite|definitive|clear|"
    "precise|firm} answer",
    "{that|this|it|that_detail|this_detail} {isn't|is_not|wasn't|was_not|doesn't_seem_to_be|"
    "does_not_seem_to_be|isn't_something|is_not_something} [explicitly|specifically|actually] "
    "{covered|mentioned|included|listed|specified|stated|addressed|documented|given|described} "
    "{in|by} ~3 " + _alts(_DOC + ["what", "anything", "the_material", "my_notes"]),
])
_BUT = frozenset("but however although though yet except whereas which because".split())

_AI_NOUN = ("ai assistant chatbot bot model language llm program robot machine agent system "
            "helper").split()
_SELF_REFERENCE = _Patterns([
    "{i'm|i_am} [just|only|simply|merely|actually|basically|really] {a|an|your|the} ~3 "
    + _alts(_AI_NOUN),
    "{i'm|i_am} not {a|an} ~2 {human|person|doctor|lawyer|professional|physician|therapist|"
    "pharmacist|attorney|advisor|adviser|human_being|real_person|medical_professional|"
    "legal_professional|financial_advisor|nurse|accountant|expert}",
    "i [also|currently|personally] {cannot|can't|can_not|am_unable_to|am_not_able_to|"
    "don't_have_the_ability_to|do_not_have_the_ability_to|am_not_capable_of|lack_the_ability_to|"
    "have_no_ability_to} [currently|directly|actually] "
    "{browse|browsing|access_the_internet|access_the_web|access_real-time|access_external|"
    "access_live|access_current|access_personal|surf|search_the_internet|search_the_web|remember|"
    "remembering|recall|store|retain|learn|feel|experience|make_phone_calls|make_calls|"
    "place_calls|send_emails|click|open_links|visit_websites|see_images|view_images|hear|taste|"
    "smell|form_opinions|have_opinions|have_feelings}",
    "i [also] {cannot|can't|can_not|am_unable_to|am_not_able_to|am_not_allowed_to|"
    "am_not_permitted_to} {give|provide|offer|make} [you|any] {medical|legal|financial|"
    "professional|personal|investment|tax|health} [advice|opinions|opinion|diagnosis|diagnoses|"
    "recommendations]",
    "i {don't|do_not|currently_don't|currently_do_not} have {personal|feelings|emotions|opinions|"
    "a_body|a_physical|consciousness|beliefs|preferences|experiences|internet_access|"
    "access_to_the_internet|access_to_the_web|access_to_real-time|access_to_external|"
    "access_to_live|access_to_current|access_to_personal|real-time|browsing|web_access|"
    "the_ability|the_capability|memory|a_memory}",
    "{i'm|i_am} {designed|programmed|built|trained|meant|intended|created|made} {to|by|for}",
    "i {was|have_been|am} {created|trained|developed|built|made|designed|programmed|powered} "
    "{by|to|on|using|with|for}",
    "my name is",
    "my {knowledge|training|training_data|knowledge_cutoff|knowledge_cut-off} {is|was|comes|ends|"
    "only|cutoff|cut-off|goes|extends|doesn't|does_not|stops}",
    "my {purpose|role|job|function|task} is to",
    "i {can|can_only|only} {only_answer|answer_only|only_help|help_only|only_assist|"
    "only_provide|only_respond}",
    "this is an {automated|ai-generated|ai} {response|message|reply|answer|assistant}",
    "this {response|answer|message|reply} {was|is|has_been} {generated|written|produced|created}",
    "{i'm|i_am} {unable|not_able} to {browse|surf|remember|feel}",
    "as {an|a|your} ~3 " + _alts(_AI_NOUN) + " $",
])

_CONTACT = ("contact contacting call calling reach_out_to reaching_out_to reach_out reaching_out "
            "get_in_touch_with getting_in_touch_with get_in_touch check_with checking_with "
            "ask asking speak_to speak_with speaking_to speaking_with talk_to talking_to consult "
            "consulting email emailing e-mail message messaging visit visiting check checking "
            "confirm confirming verify verifying double-check double-checking double_check "
            "refer_to referring_to look_at inquire enquire inquiring enquiring inquire_with "
            "enquire_with ring phone phoning write_to writing_to reach let_me_know let_us_know "
            "get_back_to_me get_back_to_us get_back come_back check_back follow_up drop_me_a_line "
            "drop_us_a_line send_me send_us message_me message_us write reply return").split()
_CONTACT_LEADS = _Patterns(s + " [directly|also|simply|always|just|kindly|first|instead|then|"
                           "still|again] " + _alts(_CONTACT) for s in [
    "for ~4 {information|details|info|questions|assistance|help|inquiries|enquiries|specifics|"
    "clarification|confirmation|updates|support|advice|answers|guidance} [please|kindly|just|so|"
    "and]",
    "[please|kindly|just|so|and]",
    "{you|you_may|you_might} [may|might|also|always|still] {want_to|wish_to|consider|try}",
    "{you_can|you_could|you_may|you_might|you_should|you'll_want_to|you_will_want_to|"
    "you'd_want_to|you_would_want_to|you're_welcome_to|you_are_welcome_to}",
    "{i|we} [would|strongly|highly] {recommend|suggest|advise|encourage} [you|that_you] [to]",
    "{i'd|we'd} {recommend|suggest|advise|encourage} [you|that_you] [to]",
    "{it's|it_is|it_would_be|it'd_be|it_may_be|it_might_be} [always|probably] {best|"
    "a_good_idea|advisable|recommended|wise|worth|better|safest} [to]",
    "{consider|try}",
    "[please|kindly|just|also|and|so] {feel_free_to|don't_hesitate_to|do_not_hesitate_to|"
    "never_hesitate_to}",
])
_DEFERRALS = _Patterns([
    "{for|to_get|to_obtain|to_receive} [the|more|further|additional|any|up-to-date|current|"
    "latest|exact|specific|precise|accurate|complete|full|most_accurate|most_up-to-date|"
    "official|detailed|personalized|personalised|most_current|definitive] "
    "{details|detail|information|info|assistance|help|support|confirmation|specifics|"
    "clarification|guidance|questions|question|advice|answers|answer|updates|inquiries|"
    "enquiries|queries}",
    "to {confirm|verify|double-check|double_check|check|make_sure|be_sure|find_out|learn_more|ask|"
    "get_more|get_further|get_the_latest|get_up-to-date|clarify|see_if|see_whether|inquire|"
    "enquire|discuss|get_confirmation|get_accurate|get_exact|get_specific|get_details|"
    "get_an_answer|get_a_definitive}",
    "{if|whether|about|regarding|concerning|in_case|with_any|with_your|with_questions|for_any|"
    "for_your|for_this|for_that|on_this|on_that}",
])
# words that end the short target of a contact pointer ("Please contact the hotel, it ...")
# (a finite verb ends the target: "Visiting the gallery costs nothing." states a price, it offers nothing)
_TARGET_STOP = _AUX | _SUBJ_VERB | _NOT_SUBJECT | frozenset(
    "i it he she we they there costs cost takes means requires includes gives gets pays".split())
_OFFERS = _Patterns([
    "[please|just|so|and|also|do] {let_me|let_us} know",
    "{i'd|i_would|i'll|i_will|we'd|we_would|we'll|we_will} [also|always|certainly|gladly|"
    "definitely] be [more_than|very|really|so|always|also|most] {happy|glad|pleased|delighted|"
    "here|available} to [further|gladly] {help|assist|answer|support|clarify|explain|look|go|"
    "walk|check|find|dig|discuss|provide_more|provide_further|provide_additional}",
    "{i'm|i_am|we're|we_are} [also|always|more_than|very|really|so|still|just|more] {happy|glad|"
    "pleased|delighted|here|available|around|standing_by} to [further|gladly] {help|assist|answer|"
    "support|clarify|explain|look|go|walk|check|find|dig|discuss|provide_more|provide_further|"
    "provide_additional}",
    "{i'm|i_am|we're|we_are} [also|always|still|just] {here|available|around|standing_by} {if|"
    "whenever|should|in_case|for_you|for_any|for_anything|for_more|for_further|for_questions|$}",
    "{is_there|if_there_is|if_there's} {anything|something} else",
    "{anything|something} else i can",
    "{happy|glad} to help {further|more|with}",
    "i [can|could] [also|gladly|certainly] {help|assist} {further|with_anything_else|"
    "you_with_anything_else|with_that_too|more|you_further|with_more|with_other}",
    "i [can|could|would_be_glad_to|would_be_happy_to] [also|gladly|certainly] {look_into|"
    "check_on|find_out_more|dig_into|dig_deeper}",
    "ask away",
    # "I can help you with that.": an offer about the conversation itself
    "i [can|could] [certainly|definitely|gladly|absolutely] {help|assist} [you] with {that|this} $",
    # "Just shout if you have any other questions!", "Give us a call whenever you like."
    "[just|so|and|please|do] {shout|holler|give_us_a_shout|give_me_a_shout|give_us_a_call|"
    "give_us_a_ring|give_us_a_buzz|drop_us_a_line|drop_me_a_line|drop_us_a_message|"
    "drop_me_a_message|ping_me|ping_us} {if|whenever|any_time|anytime|when|should|$}",
    # referrals to someone who can answer (a unit with a digit never gets here)
    "~7 {should|would|will|could|might|may|can} be able to {tell|help|confirm|advise|answer|say|"
    "check|give|explain|clarify|put_you_in_touch|point_you|direct_you}",
    "~7 would be the best {people|person|place|team|ones|contact} to {ask|contact|check_with|"
    "speak_to|talk_to|call}",
    "{i'd|i_would|we'd|we_would|i} [strongly|really|definitely] {recommend|suggest|advise} "
    "{checking|asking|contacting|getting_in_touch|calling|speaking|reaching_out|confirming|"
    "double-checking|talking}",
    "[and] [do] {message|ping|contact|email|write_to} {me|us} {again|if|whenever|any_time|anytime}",
    "[so] [it] {might|may|would|could} be {best|worth|a_good_idea|wise|safest|easiest} to {ask|check|"
    "call|contact|confirm|double-check|speak|get_in_touch}",
    "[so] {it's|it_is|it'd_be|it_would_be} {worth|best|a_good_idea|wise} {asking|checking|calling|"
    "contacting|confirming|double-checking|to_ask|to_check|to_call|to_contact|to_confirm|telling|letting|"
    "to_tell|to_let|to_inform|to_warn}",
])
_IF_QUESTIONS = _Patterns([
    "{if|should|in_case|whenever|when} ~5 {questions|question|concerns|concern|queries|query|"
    "inquiries|enquiries|help|assistance|support|clarification|information|details|else|more|"
    "anything}",
    # "Any other questions, just shout!"
    "{any|more|other|further} [other|more|further] {questions|question|queries|query|concerns}",
    "for {any|more|further|other|additional} ~2 {questions|question|concerns|queries|inquiries|"
    "enquiries|help|assistance|support|clarification}",
])


def _is_clause_start(norms: Iterable[str]) -> bool:
    """The words ``norms`` begin with a subject followed by a finite verb (only the first 8 are
    looked at)."""
    subject: list[str] = []
    prev = ""
    for j, w in enumerate(islice(norms, 8)):
        if j == 0 and w in _SUBJ_VERB:
            return True
        if w == "am" and prev[:1].isdigit():  # "between 7 and 10 am": a time, not "I am"
            return False
        prev = w
        if w in _FINITE:
            if any(x not in _DET_ONLY for x in subject):
                return True
            if not subject and (w in _AUX or not w.endswith("s") or w.endswith("ss")):
                return False
            subject.append(w)  # "the cost is", "returns are": a noun that looks like a verb
        elif w in _ADVERBS and subject:
            continue
        elif w in _NOT_SUBJECT:
            return False
        else:
            subject.append(w)
        if len(subject) > 5:
            return False
    return False


# --------------------------------------------------------------------------------------------
# kinds

def _has_alnum(text: str, s: int, e: int) -> bool:
    return any(ch.isalnum() for ch in text[s:e])


def _is_wish(norms: Sequence[str]) -> bool:
    """A wish or sympathy (:data:`_WISHES`), possibly after a chat phrase: "You're very
    welcome, and great that you're checking before you buy!"."""
    if _any(_WISHES, norms):
        return True
    for n in range(min(len(norms) - 1, 6), 0, -1):
        if tuple(norms[:n]) in _PLEASANTRIES:
            rest = norms[n + 1:] if norms[n] in ("and", "but", "so") else norms[n:]
            return bool(rest) and (_any(_WISHES, rest) or tuple(rest) in _PLEASANTRIES)
    return False


def _is_pleasantry(text: str, s: int, e: int) -> bool:
    """The unit is a sequence of chat phrases (optionally addressed to a name)."""
    if _DIGIT_RE.search(text, s, e):
        return False
    toks: list[_Tok] = []
    for m in _WORD_RE.finditer(text, s, e):
        t = _tok(m)
        if t is not None:
            # cheap exits: the first phrase must start with the first word, and every word must
            # be a chat-phrase word or a name
            if not toks and t.norm not in _PLEASANTRY_HEADS:
                return False
            if not t.upper and t.norm not in _PLEASANTRY_WORDS:
                return False
            toks.append(t)
            if len(toks) > 24:
                return False
    if not toks:
        return False
    segments: list[list[_Tok]] = [[toks[0]]]  # runs of tokens separated by whitespace only
    for i in range(1, len(toks)):
        if _gap(text, toks, i, s).strip():
            segments.append([toks[i]])
        else:
            segments[-1].append(toks[i])
    named = False
    for seg in segments:
        if named and len(seg) <= 3 and all(t.upper or t.norm in _HONORIFICS for t in seg):
            continue  # "..., Mr. Smith!"
        norms = tuple(t.norm for t in seg)
        for n in range(len(norms), 0, -1):
            key = norms[:n]
            if key not in _PLEASANTRIES:
                continue
            rest = seg[n:]
            if rest and not (key in _NAME_OK and len(rest) <= 3 and all(
                    t.upper or t.norm in _ADDRESSEES or t.norm in _HONORIFICS for t in rest)):
                continue
            named = named or key in _NAME_OK
            break
        else:
            return False
    return True


def _is_question(text: str, s: int, e: int) -> bool:
    while e > s and (text[e - 1].isspace() or text[e - 1] in "\"'”’»)]}*_"):
        e -= 1
    while e > s and text[e - 1] in "!.…！":
        e -= 1
        if e > s and text[e - 1] in "?？":
            return True
    return e > s and text[e - 1] in "?？"


def _is_abstention(text: str, s: int, e: int, norms: list[str]) -> bool:
    """``norms``: the unit's ``_norms``."""
    off = 0  # tokens cut from the start
    for _ in range(3):  # apologies left in place ("I'm sorry I don't ...")
        cut = next((n for n in (3, 2, 1) if tuple(norms[:n]) in _SORRY), 0)
        if not cut:
            break
        if cut < len(norms) and norms[cut] == "but":
            cut += 1
        norms, off = norms[cut:], off + cut
    if not norms:
        return False
    toks: list[_Tok] | None = None  # the unit's tokens, built at the first "so"
    for i in range(1, len(norms) - 1):  # "..., but <more content>"
        comma_so = False
        if norms[i] == "so":
            toks = _tokens(text, s, e) if toks is None else toks
            comma_so = "," in _gap(text, toks, off + i, s)
        if comma_so and _any(_ABSTENTION, norms[i + 1:]):
            break  # "..., so I can't tell you whether ...": a second abstention, not content
        if norms[i] in _BUT or comma_so:
            return False
    return _any(_ABSTENTION, norms)


def _contact_offer(norms: Sequence[str]) -> bool:
    """A pointer to someone to contact: lead + contact verb + (short target) + (end or a
    deferral such as "for details", "to confirm", "if ...")."""
    for lead in _CONTACT_LEADS.candidates(norms):
        for k in _ends(lead.slots, norms, first=False):
            tail = norms[k:]
            for i in range(min(len(tail), 8) + 1):
                if i and tail[i - 1] in _TARGET_STOP:
                    break
                if i == len(tail) or _any(_DEFERRALS, tail[i:]):
                    return True
    return False


def _is_offer(norms: Sequence[str], nested: bool = False) -> bool:
    if _any(_OFFERS, norms) or _contact_offer(norms):
        return True
    if not nested and _any(_IF_QUESTIONS, norms):
        # "If you have any other questions, just ask.": the main clause must be an offer
        for k in range(1, min(len(norms), 16)):
            if _is_offer(norms[k:], True) or tuple(norms[k:]) in _PLEASANTRIES:
                return True
    return False


# a leading condition or purpose that asserts nothing ("If you're not sure, ...", "For access
# details, ..."); "since" / "because" / "as" / "when" open clauses that assert, so they are absent
_CONDITION_HEADS = frozenset("if for to should unless whether".split())


def _conditional_offer(text: str, s: int, e: int, norms: Sequence[str]) -> bool:
    """An offer or referral after a leading condition or purpose phrase that ends at the unit's
    first comma: "If you're not sure whether weather was the reason, I'd suggest contacting
    customer services."; "For accessibility details, it would be best to contact customer
    services directly before you travel." (The caller has ruled out digits and addresses.)"""
    if not norms or not (norms[0] in _CONDITION_HEADS or tuple(norms[:2]) == ("in", "case")):
        return False
    k = text.find(",", s, e)
    if k == -1:
        return False
    rest = _norms(text, k + 1, e)
    return bool(rest) and _is_offer(rest, True)


def _classify(text: str, s: int, e: int, nested: bool = False) -> str:
    if not _has_alnum(text, s, e) or _is_pleasantry(text, s, e):
        return "pleasantry"
    return _classify_content(text, s, e, nested)


def _classify_content(text: str, s: int, e: int, nested: bool = False) -> str:
    """``_classify`` for a unit already known to have a letter or digit and not to be a
    pleasantry. ``nested``: a part of a compound unit (:func:`_compound_chat`): only the chat
    kinds are looked for, and the part is not split again."""
    if _is_question(text, s, e):
        norms = _norms(text, s, e)
        if len(norms) <= 2 or (norms[0] in _QUESTION_OPENERS and not _any(_ASSERTING_QUESTIONS, norms)):
            return "question"  # also "Really?!", "Anything else?"
        # "Acme employs 9,000 people, doesn't it?", "Did you know that ...?"; a wish joined to
        # an offer ("Hope we can sort it soon — anything else I can help with?") is chat
        return "claim" if nested else _compound_chat(text, s, e)
    if _DIGIT_RE.search(text, s, e):
        return "claim"
    norms = _norms(text, s, e)
    # a wish or offer followed by a joined part ("Hope that helps, and ...") is chat only when
    # that part names nothing ("..., and we hope to open in May." is a claim)
    plain = nested or _plain_after_join(text, s, e)
    if plain and len(norms) <= _WISH_MAX_WORDS and _is_wish(norms) and not _joined_clause(text, s, e):
        return "pleasantry"
    if not nested and _any(_SELF_REFERENCE, norms):
        return "self_reference"
    if not nested and _is_abstention(text, s, e, norms):
        return "abstention"
    if plain and not _URLISH_RE.search(text, s, e) and (_is_offer(norms) or (
            not nested and _conditional_offer(text, s, e, norms))):
        return "offer"
    return "claim" if nested else _compound_chat(text, s, e)


_I_FORMS = frozenset("I I'm I'd I'll I've I’m I’d I’ll I’ve".split())


def _plain_after_join(text: str, s: int, e: int) -> bool:
    """True when the unit has no joint (:data:`_CHAT_JOIN`), or what follows its first joint
    holds no digit and no capitalised word other than "I" (so no name, day, month or
    product)."""
    m = _CHAT_JOIN.search(text, s, e)
    if m is None:
        return True
    tail = text[m.end():e]
    return not _DIGIT_RE.search(tail) and not any(
        w[:1].isupper() and w not in _I_FORMS for w in (t.group(0) for t in _WORD_RE.finditer(tail)))


_CLAUSE_JOIN = re.compile(r"(?:,|\s[—–-])\s+(?:(?:and|but|so)\s+)?", re.IGNORECASE)


# words of sympathy: a joined clause holding one only commiserates ("— cracked teeth can be
# miserable!", ", delays are always frustrating")
_FEELINGS = frozenset("""miserable frustrating annoying stressful painful upsetting worrying scary
awful horrible rotten tough rough unpleasant nerve-wracking daunting disappointing inconvenient
exhausting overwhelming sore sorry sad""".split())
_CLAUSE_END_RE = re.compile(r"[,;:—–]|\s-\s")


def _joined_clause(text: str, s: int, e: int) -> bool:
    """A comma or dash in the unit is followed by a clause with its own subject and finite
    verb: "Oh no, the pool is closed on Mondays." / "Enjoy your stay, and the spa is open
    late." carry content after the wish (fail closed). A clause that only commiserates (it
    holds a word of :data:`_FEELINGS`) does not count."""
    for m in _CLAUSE_JOIN.finditer(text, s, e):
        if _is_clause_start(_iter_norms(text, m.end(), e)):
            stop = _CLAUSE_END_RE.search(text, m.end(), e)
            if not any(w in _FEELINGS for w in _norms(text, m.end(), stop.start() if stop else e)):
                return True
    return False


_CHAT_JOIN = re.compile(r",\s+(?:and|but|so)\s+|\s+[—–]\s+|;\s+")


def _compound_chat(text: str, s: int, e: int) -> str:
    """A unit of two chat parts joined by ", and" / ", but" / ", so" / a dash / ";", each a
    pleasantry, wish or offer on its own ("I hope you both have a lovely swim, and don't hesitate
    to ask if there's anything else I can help with!"): ``offer`` when one part is an offer,
    else ``pleasantry``; ``claim`` otherwise (at most the first three joints are tried)."""
    if _CHAT_JOIN.search(text, s, e) is None:
        return "claim"
    for k, m in enumerate(_CHAT_JOIN.finditer(text, s, e)):
        if k == 3:
            break
        left = _trim(text, s, m.start())
        right = _trim(text, m.end(), e)
        if left[0] >= left[1] or right[0] >= right[1]:
            continue
        kinds = {_classify_part(text, *left), _classify_part(text, *right)}
        if kinds <= {"pleasantry", "offer"}:
            return "offer" if "offer" in kinds else "pleasantry"
    return "claim"


def _classify_part(text: str, s: int, e: int) -> str:
    """The kind of one part of a compound unit (:func:`_compound_chat`): ``pleasantry``,
    ``offer`` or ``claim`` (anything else, a question included)."""
    kind = _classify(text, s, e, nested=True)
    if kind == "question":  # "..., anything else I can help with?" offers, asserts nothing
        return "offer" if _is_offer(_norms(text, s, e), True) else "claim"
    return kind if kind in ("pleasantry", "offer") else "claim"


def _chat_lead(text: str, s: int, e: int) -> tuple[int, int, str] | None:
    """A unit opened by a chat part that ends at a bare comma ("Enjoy your stay, the pool is
    closed on Mondays."; "Feel free to call, the desk is staffed all day."): (end of the chat
    part, start of the rest, the chat part's kind). The caller drops the part from the unit as
    it drops an answer particle. Only the first three commas are tried; a
    comma followed by "and" / "but" / "so" is left to :func:`_compound_chat`."""
    k = text.find(",", s, e)
    for _ in range(3):
        if k == -1:
            return None
        nxt = _skip_ws(text, k + 1, e)
        if nxt > k + 1 and nxt < e and _has_alnum(text, nxt, e) and not _CHAT_JOIN.match(text, k):
            ls, le = _trim(text, s, k)
            if ls < le and _has_alnum(text, ls, le):
                kind = _classify(text, ls, le, nested=True)
                if kind in ("pleasantry", "offer"):
                    return k, nxt, kind
        k = text.find(",", k + 1, e)
    return None

"""Per-claim verdicts: compare one claim with evidence units, one unit at a time, and turn the
comparisons into ``supported`` / ``contradicted`` / ``not_found`` and a score.

The judges share one interface, ``compare(claim, units, question) -> list[Comparison]`` (and
``compare_texts(claim, premises)`` for bare texts):

* :class:`LexicalJudge` (the embedded default; English rules over the lexical backend's signals,
  see :class:`~director_fast.verify.nli.LexicalNLI`). For one (claim, evidence unit) pair:

  - **contradicted** when the unit is about the same thing (``alignment``, the share of the
    claim's content words found in the unit's best sentence, is at least
    :attr:`LexicalJudge.contradict_alignment`) and one of: a negation flip against that sentence
    (``negation``), an antonym (``antonym``; in a multi-sentence unit only on a close match), a
    number of the claim that the unit does not hold while the unit states numbers (``number``;
    equal quantities in other units, "2 weeks" / "14 days", match), a capitalised name of the
    claim missing from the unit (``entity``; see :func:`_given_names` for the names that do not
    count), two names in swapped roles around the same relation (``roles``,
    :func:`roles_swapped`), or a relation or job title the unit gives to someone else (``roles``,
    :func:`holder_replaced`);
  - **supported** when none of those signals fires and the unit covers at least
    :attr:`LexicalJudge.support_coverage` of the claim's content words (``coverage``; the unit
    word of a number the unit states, the "hours" of "30 hours", counts as a covered word);
  - **not_found** otherwise (low coverage, a number the unit lacks, or a mismatch against a unit
    about something else).

  Before the sentence signals, three whole-text checks run (both sides normalised by
  :func:`_normalise_idioms`): a telephone number the unit states differently (``number``), an
  amount per another period (``unit``, :func:`_rate_verdict`) and one member of a closed class for
  another (``antonym``, :func:`_contrast_verdict`).

* :class:`ModelJudge` (an :class:`~director_fast.verify.nli.NLIModel`): the largest class probability of
  each (unit, claim) pair, batched in one call per claim; :class:`HybridJudge` adds the lexical
  ``number`` / ``roles`` contradictions on top; :class:`DivergenceJudge` reads any backend's
  ``score(premise, hypothesis)`` divergence.

:func:`decide` combines a claim's comparisons. First, a number contradiction (``number`` /
``unit``) from a unit about something else yields to a unit that states the claim's number and
is at least as much about the claim (:func:`aboutness`: shared words, then shared phrases, the
claim's numbers left out): "Written complaints must be sent within 30 days of the flight." does
not refute "You can check in online starting 30 hours ahead of your flight." beside "Online
check-in opens 30 hours before departure.". Then a unit that supports it wins (the claim is
stated in the evidence), unless the support is partial and one sentence contradicts the claim more
strongly (negation, antonym, entity, roles; a number only when closely aligned), or the supporting
sentence states an exception the claim drops (``exception``, :func:`dropped_exception`: "Refunds
take 5 days, except for gift cards." does not support "Yes, refunds take 5 days." as an answer
to "Can I return a gift card?"); else a unit that contradicts it; else ``not_found``. A claim no
single unit supports may be composed from several (:func:`compose`, signal ``composed``). :func:`claim_score` maps a verdict to a score in [0, 1] so
that ``supported >= soft_limit > not_found > contradicted`` (see its docstring).

Thread safety: the judges are safe to share between threads (their premise cache is locked;
the backends are thread-safe); the functions keep no state.

Where the parts live (this module makes the verdict and re-exports the names above):
``comparison.py`` (``Comparison``, ``ClaimDecision``), ``judges.py`` (the lexical, model, hybrid
and divergence judges), ``rules_values.py`` (wrong prices, rates, days, hours, phone numbers and
addresses; negation against other evidence), ``rules_roles.py`` (names, roles, titles),
``rules_scope.py`` (exceptions dropped or restated, negated bounds, conjuncts, bare yes / no
answers), ``rules_wording.py``
(paraphrase folding, stems, negation scope); here: :func:`decide`, :func:`compose`,
:func:`number_conflict` and :func:`claim_score`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from director_fast.verify.claim_evidence import EvidenceUnit, member_about
from director_fast.verify.text import content_words
from director_fast.verify.comparison import PARTIAL_SUPPORT, VERDICT_ORDER, ClaimDecision, Comparison
from director_fast.verify.rules_wording import _has_word, _normalise_idioms, content_stems, fuse_phones, negation_in_scope
from director_fast.verify.rules_values import (
    _given_names,
    _identifiers,
    _mostly_in,
    _numbers_given,
    _rates,
    hours_in_one_wording,
    negated_clause_aligned,
    negated_elsewhere,
    polarity_flipped,
    state_bound_elsewhere,
)
from director_fast.verify.rules_roles import (
    _names,
    capitalised_names,
    holder_replaced,
    job_titles,
    manager_moved,
    roles_swapped,
)
from director_fast.verify.rules_scope import (
    bare_answer,
    bare_answers,
    conjuncts,
    dropped_exception,
    flip,
    outside_negated_bound,
    says_what_the_claim_says,
    unstated_conjunct,
)
from director_fast.verify.judges import DivergenceJudge, HybridJudge, LexicalJudge, ModelJudge, make_judge

__all__ = ["Comparison", "ClaimDecision", "LexicalJudge", "ModelJudge", "HybridJudge", "DivergenceJudge",
           "decide", "claim_score", "conjuncts", "roles_swapped", "manager_moved", "says_what_the_claim_says",
           "dropped_exception", "make_judge",
           "bare_answer", "flip", "content_words", "compose", "job_titles", "holder_replaced", "capitalised_names",
           "UNSUPPORTED_MODES", "PARTIAL_SUPPORT", "content_stems", "negation_in_scope", "negated_elsewhere",
           "negated_clause_aligned", "polarity_flipped", "state_bound_elsewhere", "number_conflict", "bare_answers", "VERDICT_ORDER",
           "aboutness"]

#: what a ``not_found`` claim does: ``"reject"`` (below the threshold) or ``"warn"`` (in the
#: warning band between the threshold and the soft limit).
UNSUPPORTED_MODES = ("reject", "warn")


# ---- decision ---------------------------------------------------------------------------------

# content_words lives in director_fast.verify.text (shared with director_fast.verify.number_alignment); it is
# imported above and re-exported here, with the judges and rules of the rules_*.py modules


# how much more closely a negating sentence must be aligned with a claim than its support is
# covered for the negation to win over a full support
_CLOSER_MARGIN = 0.1
# signals of a single-sentence contradiction that outweigh a weaker, partial support elsewhere,
# with the strength they need (a number mismatch only against a closely aligned sentence)
_OUTWEIGHS_PARTIAL = {"negation": 0.0, "antonym": 0.0, "entity": 0.0, "roles": 0.0, "number": 0.9}


def _bigrams(words: Sequence[str]) -> set[tuple[str, str]]:
    """Adjacent word pairs of ``words`` with at least one content word ("check in" from "check
    in" and from "check-in"; "of the" is no phrase)."""
    return {(a, b) for a, b in zip(words, words[1:]) if content_words(a) or content_words(b)}


def aboutness(claim: str, text: str) -> tuple[int, int]:
    """How closely an evidence text is about a claim, apart from the claim's numbers:
    ``(shared content stems, shared word pairs)`` (:func:`_bigrams`), both >= 0, compared
    lexicographically (a shared phrase breaks a tie of shared words). Both sides are normalised
    as the judges see them (:func:`_normalise_idioms`, hours in one wording) and the claim's
    numbers with their units are left out: "30 hours" shares nothing with "30 hours", since
    the number is what is being checked ("check in online starting 30 hours ahead of your
    flight" is (2, 1) about "Online check-in opens 30 hours before departure" and (2, 0) about
    "complaints must be sent within 30 days of the flight using the online form")."""
    from director_fast.verify.numbers import find_numbers

    c, p = hours_in_one_wording(_normalise_idioms(claim), _normalise_idioms(text))
    cut, at = [], 0
    for m in find_numbers(c):  # each number and its unit becomes a gap no word pair crosses
        cut.append(c[at:m.start])
        at = m.end
    c = " | ".join([*cut, c[at:]])

    def pairs(t: str) -> set[tuple[str, str]]:
        return set().union(*(_bigrams(_WORD.findall(part.lower())) for part in t.split("|")))

    return len(content_stems(c) & content_stems(p)), len(pairs(c) & pairs(p))


_WORD = re.compile(r"[^\W\d_]+")


def _number_about_elsewhere(claim: str, units: Sequence[EvidenceUnit], comparisons: Sequence[Comparison],
                            i: int) -> bool:
    """Whether a unit that gives the claim's quantity another value is more about the claim
    (:func:`aboutness`) than unit ``i``, which supports it only partly: "Standard delivery takes
    2 days." is covered by "Express delivery takes 2 days." (the 2 of another fact) but is about
    "Standard delivery takes 5 days." (a number of one fact never confirms a claim about
    another)."""
    mine = aboutness(claim, units[i].text)
    return any(c.verdict == "contradicted" and c.signal == "number" and aboutness(claim, units[j].text) > mine
               for j, c in enumerate(comparisons))


def _numbers_elsewhere(claim: str, units: Sequence[EvidenceUnit],
                       comparisons: Sequence[Comparison]) -> list[Comparison]:
    """``comparisons`` with each number contradiction (signal ``number`` or ``unit``) turned into
    ``not_found`` where the claim's numbers are about another unit: every number of the claim
    that the contradicting unit lacks (for ``unit``: every number, with its period) is stated
    by a unit that does not contradict the claim and is at least as much about it
    (:func:`aboutness`). "You can check in online starting 30 hours ahead of your flight." is
    not refuted by "Written complaints must be sent within 30 days of the flight." when
    "Online check-in opens 30 hours before departure." is there; "... starting 30 days ahead"
    stays refuted by the check-in sentence, which is more about it than the complaints one. (A
    support that a closer unit contradicts yields, the other way round:
    :func:`_number_about_elsewhere`.)"""
    if not any(c.verdict == "contradicted" and c.signal in ("number", "unit") for c in comparisons):
        return list(comparisons)
    from director_fast.verify.number_alignment import checkable, same_quantity
    from director_fast.verify.numbers import find_numbers

    mentions = checkable(find_numbers(fuse_phones(claim)))  # (a telephone number is no run of numbers)
    if not mentions:
        return list(comparisons)
    numbers = [find_numbers(fuse_phones(u.text)) for u in units]
    rates = set(_rates(claim))
    out = list(comparisons)
    for j, c in enumerate(comparisons):
        if c.verdict != "contradicted" or c.signal not in ("number", "unit"):
            continue
        at_issue = mentions if c.signal == "unit" else \
            [m for m in mentions if not any(same_quantity(m, e) for e in numbers[j])]
        if not at_issue:
            continue  # the unit holds the claim's numbers: another rule refutes it
        theirs = aboutness(claim, units[j].text)
        agreeing = [k for k, d in enumerate(comparisons) if k != j and d.verdict != "contradicted"
                    and aboutness(claim, units[k].text) >= theirs
                    and (c.signal != "unit" or rates <= set(_rates(units[k].text)))]
        if all(any(same_quantity(m, e) for k in agreeing for e in numbers[k]) for m in at_issue):
            out[j] = Comparison("not_found", 0.0, c.signal)
    return out


def _contains(a: EvidenceUnit, b: EvidenceUnit) -> bool:
    """Whether one of two units of one sentence is that whole sentence (the other then is one of
    its clauses): a sentence that supports a claim in one clause and negates something else in
    another ("Cards cost €3, except the first for children, which is free.") does not refute
    its own support; two different clauses of it do ("by card or cash; cheques are not
    accepted" for "cheques are accepted")."""
    return a.sentence == b.sentence and (a.text == a.sentence or b.text == b.sentence)


def _clause_support(units: Sequence[EvidenceUnit], comparisons: Sequence[Comparison], i: int) -> float:
    """How strongly the best clause of unit ``i``'s sentence supports the claim, when the units
    hold that sentence's clauses too (1.0 when they do not, or ``i`` is itself a clause): a
    sentence that covers a claim only by joining words of two clauses ("Annual plans can be
    refunded ...; after 30 days, refunds are prorated by unused full months" for "Monthly plans
    are refundable") supports it no more than its best clause does, against a sentence that
    negates it."""
    whole = units[i]
    if whole.sentence and whole.sentence != whole.text:
        return 1.0
    clauses = [c.strength if c.verdict == "supported" else 0.0 for u, c in zip(units, comparisons)
               if u.sentence == whole.text and u.text != whole.text]
    return max(clauses, default=1.0)


def _negating(units: Sequence[EvidenceUnit], comparisons: Sequence[Comparison]) -> list[int]:
    """The units that are single sentences (or clauses) contradicting the claim strongly enough
    to outweigh a partial support (:data:`_OUTWEIGHS_PARTIAL`)."""
    return [i for i, c in enumerate(comparisons) if c.verdict == "contradicted" and units[i].sentences == 1
            and _OUTWEIGHS_PARTIAL.get(c.signal, 2.0) <= c.strength]


def _negated_within(units: Sequence[EvidenceUnit], negating: Sequence[int], i: int) -> bool:
    """Whether unit ``i`` is a run of several sentences (a passage, :func:`window_units`) one of
    whose own sentences negates the claim: a passage's words may cover a claim that one of its
    sentences refutes ("The store manager is Priya Shah. Tom Avery runs customer service." for
    "The store manager is Tom Avery."), and its coverage must not outvote that sentence."""
    run = units[i]
    if run.sentences < 2:
        return False
    return any(units[j].chunk == run.chunk and (units[j].sentence or units[j].text) in run.text for j in negating)


def _sentence_about(claim: str, unit: EvidenceUnit) -> str:
    """The sentence of ``unit`` whose exceptions bind ``claim``: its whole sentence (a clause
    unit's too), or for a run of sentences the member the claim is about
    (:func:`~director_fast.verify.claim_evidence.member_about`)."""
    unit = member_about(claim, unit)
    return unit.sentence or unit.premise


def decide(claim: str, units: Sequence[EvidenceUnit], comparisons: Sequence[Comparison],
           question: str = "") -> ClaimDecision:
    """Combine one claim's comparisons (``comparisons[i]`` is against ``units[i]``).

    Supported by some unit -> ``supported`` (the strongest such unit decides; a passage of several
    sentences one of which negates the claim supports nothing; a partial support does not
    vouch for a coordinated predicate that no unit mentions, :func:`unstated_conjunct`), unless the support
    is partial (strength < :data:`PARTIAL_SUPPORT`) and a single sentence negates the claim more
    strongly (-> ``contradicted``), or that unit states an exception the question is about and the claim drops (-> ``contradicted``, signal
    ``exception``); else contradicted by some unit -> ``contradicted`` (strongest); else
    ``not_found`` (the unit of highest coverage, for reference; ``no_evidence`` when there was
    no unit at all).
    """
    n = len(comparisons)
    if n == 0:
        return ClaimDecision("not_found", 0.0, "no_evidence", -1, 0)
    comparisons = _numbers_elsewhere(claim, units, comparisons)
    negating = _negating(units, comparisons)
    best = {v: (-1.0, -1) for v in ("supported", "contradicted", "not_found")}
    for i, c in enumerate(comparisons):
        if c.verdict == "supported" and _negated_within(units, negating, i):
            continue
        if c.strength > best[c.verdict][0]:
            best[c.verdict] = (c.strength, i)
    strength, i = best["supported"]
    if i >= 0 and negating:
        # a one-clause claim that a sentence covers only across its clauses: as strong as its best clause
        partial = min(strength, _clause_support(units, comparisons, i)) if len(conjuncts(claim)) == 1 else strength
        against = max((comparisons[j].strength for j in negating if not _contains(units[i], units[j])), default=-1.0)
        closer = max((comparisons[j].strength for j in negating if comparisons[j].signal in ("negation", "antonym")
                      and not _contains(units[i], units[j])), default=-1.0)
        if (partial < PARTIAL_SUPPORT and against > partial) or closer > strength + _CLOSER_MARGIN:
            # one sentence negating the claim outweighs a weaker, partial support elsewhere, and a
            # negation more closely about the claim outweighs a support about something broader
            # ("Flash photography is not allowed." over "Photography is allowed in the galleries.")
            i = -1
    if i >= 0 and strength < PARTIAL_SUPPORT and _number_about_elsewhere(claim, units, comparisons, i):
        i = -1
    if i >= 0 and strength < 1.0 and unstated_conjunct(claim, " ".join(dict.fromkeys(u.premise for u in units))):
        # a coordinated predicate no unit mentions ("..., is valid for 6 months and includes a
        # free bath"): not found, with the unit that covers the rest for reference
        if best["contradicted"][1] < 0:
            return ClaimDecision("not_found", strength, "coverage", i, n)
        i = -1
    if i >= 0:
        if dropped_exception(_sentence_about(claim, units[i]), claim, question):
            return ClaimDecision("contradicted", 0.8, "exception", i, n)
        return ClaimDecision("supported", strength, comparisons[i].signal, i, n)
    strength, i = best["contradicted"]
    if i >= 0:
        return ClaimDecision("contradicted", strength, comparisons[i].signal, i, n)
    strength, i = best["not_found"]
    return ClaimDecision("not_found", strength, comparisons[i].signal, i, n)


# ---- composition across units ---------------------------------------------------------------

#: share of a claim's content words that the units of a composition must cover together
COMPOSE_COVERAGE = 0.8
#: units a composition may join
COMPOSE_UNITS = 3
# a comparison with one of these signals rules a composition out (the claim is refuted, not
# merely spread over several units)
_REFUTING = frozenset({"negation", "antonym", "roles", "exception"})
# words a number's clause (or a name's window) has to share with the evidence to be "about" it
_ANCHOR_WORDS = 2
_WINDOW_CHARS = 48
# numbers are anchored by director_fast.verify.number_alignment (imported in compose)


def _anchor_name(claim: str, name: str, start: int, end: int, units: Sequence[EvidenceUnit],
                 unit_words: Sequence[set[str]]) -> int:
    """The unit that vouches for a name of ``claim``, or -1.

    The units about the name are those sharing the most content words with the claim's words
    around it (at least :data:`_ANCHOR_WORDS`; with none that close, every unit). One of them
    holding the name vouches for it. Otherwise, when none of them names someone the claim does not
    ("led by Dana Okafor" against "led by Margaret Ennis" fails), one from a document that holds
    the name vouches for it ("you get 10% off" with a "Birchwood Card" against "Cardholders get
    10% off" in the card's document); the name standing anywhere else never does."""
    window = content_words(claim[max(0, start - _WINDOW_CHARS):start]) | content_words(claim[end:end + _WINDOW_CHARS])
    window -= content_words(name)
    overlaps = [len(window & w) for w in unit_words]
    top = max(overlaps, default=0)
    about = [i for i, o in enumerate(overlaps) if o == top] if top >= _ANCHOR_WORDS else list(range(len(units)))
    for i in about:
        if _has_word(name, units[i].text.lower()):
            return i
    if top < _ANCHOR_WORDS:
        return -1
    lowered = claim.lower()

    def rivals(i: int) -> bool:  # a capitalised first word alone ("Cardholders get ...") is no name
        return any(not _has_word(n, lowered) and (a > 0 or " " in n) for n, a, _b in _names(units[i].text))

    if any(rivals(i) for i in about):
        return -1  # someone else holds that place ("led by Margaret Ennis")
    for i in about:
        if _has_word(name, units[i].chunk.text.lower()):
            return i
    return -1


def compose(claim: str, units: Sequence[EvidenceUnit], comparisons: Sequence[Comparison],
            question: str = "") -> ClaimDecision | None:
    """Judge a claim that joins facts stated in different evidence units ("The fleet has 9
    aircraft and serves 14 destinations." against "The fleet consists of 9 aircraft." and "Skerry
    Air serves 14 destinations."), after no single unit supported it.

    * The numbers of the claim are aligned
      (:func:`director_fast.verify.number_alignment.align_numbers`, as :func:`number_conflict`
      aligns them): jointly with a unit stating several of them ("Tuesday to Friday 10:00–18:00
      or Saturday 09:00–16:00" with the workshop's hours, not the phone line's "10:00 to 17:00"),
      then each with the unit about the same thing. A different quantity of the same kind there
      -> ``contradicted`` (signal ``number``), also when the joint step found the claim's
      quantities elsewhere (the phone line's hours claimed for the shop: the shop's sentence,
      about the claim's words, gives other hours); no such unit, or one without a
      comparable number -> no composition (a number from an unrelated fact never confirms a
      claim).
    * A telephone number or an e-mail or web address of the claim must stand letter for letter
      in a unit (which joins the composition), and no unit about the claim may give another.
    * Every capitalised name of the claim must stand in one of the units (or be given by the
      question).
    * At most :data:`COMPOSE_UNITS` units, the anchoring ones first, then those adding the most
      words, must together cover :data:`COMPOSE_COVERAGE` of the claim's content words.
    * Any comparison refuting the claim (negation, antonym, swapped roles, dropped exception)
      rules the composition out, and so does a name pair in swapped roles in a chosen unit; a
      chosen unit stating an exception the claim drops (:func:`dropped_exception`) makes it
      ``contradicted`` (signal ``exception``).

    Returns ``supported`` (signal ``composed``; strength = joint coverage) or ``contradicted``,
    or None when the claim cannot be composed (its single-unit verdict stands).
    """
    from director_fast.verify.number_alignment import align_numbers, checkable, evidence_numbers
    from director_fast.verify.numbers import find_numbers

    words = content_words(claim)
    if len(words) < 4 or not units or any(c.signal in _REFUTING for c in comparisons):
        return None
    # telephone numbers written in groups are one word each ("+47 77 40 12 00"), as the judges read them
    said, texts = fuse_phones(claim), [fuse_phones(u.text) for u in units]
    ids = _identifiers(said)
    held = [_identifiers(t) for t in texts] if ids else []
    if ids:
        if not ids <= set().union(*held):
            return None  # a telephone number or address no unit holds letter for letter
        if any(h and not ids & h and _mostly_in(words, t) for h, t in zip(held, texts)):
            return None  # the unit about the claim gives another one ("email refunds@..." for "hello@...")
    n = len(comparisons)
    negating = _negating(units, comparisons)
    # a passage one of whose sentences negates the claim joins nothing (as in decide())
    unit_words = [set() if _negated_within(units, negating, i) else content_words(u.text)
                  for i, u in enumerate(units)]
    evidence = evidence_numbers(texts)
    chosen: list[int] = []
    # (the asker's own numbers restated are no facts to anchor: "your 17-year-old can ride ...")
    mentions = [m for m in checkable(find_numbers(said)) if not _numbers_given([m.surface], said, question)]
    # the words of the numbers ("three miles", "twelve pounds") are checked by anchoring, not coverage
    words -= set().union(*(content_words(m.surface) for m in mentions)) if mentions else set()
    # jointly first, as number_conflict() does; a number that its own context aligns with another
    # quantity stays a conflict (hours swapped between two facts, or between weekdays and weekends)
    alone = align_numbers(said, mentions, evidence, jointly=False)
    for a, b in zip(align_numbers(said, mentions, evidence), alone):
        if b.kind == "conflict":
            a = b
        if a.kind == "conflict":
            return ClaimDecision("contradicted", 0.75, "number", a.evidence.unit, n)
        if a.kind == "absent":
            return None
        if a.evidence.unit not in chosen:
            chosen.append(a.evidence.unit)
    for identifier in sorted(ids):  # the unit holding a telephone number or address vouches for it
        i = next(j for j, h in enumerate(held) if identifier in h)
        if i not in chosen:
            chosen.append(i)
    documents = list(dict.fromkeys(u.chunk.text for u in units))
    for name, start, end in _names(claim):
        i = next((j for j in chosen if _has_word(name, units[j].text.lower())), -1)
        if i < 0:
            i = _anchor_name(claim, name, start, end, units, unit_words)
        if i < 0:
            if not _given_names([name], question, " ".join(documents), documents):
                return None
        elif i not in chosen:
            chosen.append(i)
    covered: set[str] = set().union(*(unit_words[i] & words for i in chosen)) if chosen else set()
    while len(chosen) < COMPOSE_UNITS:
        gains = [(len((w & words) - covered), i) for i, w in enumerate(unit_words) if i not in chosen]
        gain, i = max(gains, default=(0, -1))
        if gain < 2:
            break
        chosen.append(i)
        covered |= unit_words[i] & words
    if len(chosen) > COMPOSE_UNITS or len(covered) < COMPOSE_COVERAGE * len(words):
        return None
    if any(units[i].sentences == 1 and roles_swapped(claim, units[i].text) for i in chosen):
        return None
    for i in chosen:  # a chosen unit states an exception the claim drops, as in decide()
        if dropped_exception(_sentence_about(claim, units[i]), claim, question):
            return ClaimDecision("contradicted", 0.8, "exception", i, n)
    return ClaimDecision("supported", len(covered) / len(words), "composed", chosen[0], n)


def number_conflict(claim: str, evidence: str, question: str = "") -> bool:
    """Whether some number of ``claim`` is about a number of ``evidence`` that states another
    quantity (:func:`director_fast.verify.number_alignment.align_number`: ``"conflict"``). A claim
    joining facts of several passages is "contradicted" by one passage that lacks one of its
    numbers ("1 TB for employees" against a sentence about mailbox quotas); such a contradiction
    holds only when the passage has a number about the same thing. The numbers are aligned
    jointly first (:func:`director_fast.verify.number_alignment.align_numbers`), with opening hours in one
    wording (:func:`hours_in_one_wording`: "is open until 10 pm" reads "closes at 10 pm"). A
    number that restates the asker's own situation (:func:`_numbers_given` with ``question``), or
    lies outside a bound the evidence negates (:func:`outside_negated_bound`), is not aligned."""
    from director_fast.verify.number_alignment import align_numbers, checkable, evidence_numbers
    from director_fast.verify.numbers import find_numbers

    claim, evidence = hours_in_one_wording(claim, evidence)  # "open until 10 pm" is "closes at 10 pm"
    outside = outside_negated_bound(claim, evidence)  # "11 days after" against "not within 10 days"
    mentions = [m for m in checkable(find_numbers(claim))
                if not _numbers_given([m.surface], claim, question) and m.surface not in outside]
    if not mentions:
        return False
    return any(a.kind == "conflict" for a in align_numbers(claim, mentions, evidence_numbers([evidence])))


def claim_score(decision: ClaimDecision, threshold: float, soft_limit: float,
                unsupported: str = "reject") -> float:
    """Score in [0, 1] of one claim (``t`` = threshold, ``s`` = soft_limit, ``x`` = strength):

    * supported: ``s + (1 - s) * x`` (>= s; a claim fully covered by one unit scores 1.0);
    * not_found, ``unsupported="reject"``: ``t * (0.5 + 0.49 * x)``, in [t/2, t): rejected;
    * not_found, ``unsupported="warn"``: ``t + 0.99 * (s - t) * x``, in [t, s): approved with a
      warning (``t`` itself when ``s == t``);
    * contradicted: ``0.49 * t * (1 - x)`` under "reject" (below t/2), ``0.99 * t * (1 - x)``
      under "warn" (below t): always rejected, always below a not_found claim.
    """
    x = min(1.0, max(0.0, float(decision.strength)))
    t, s = threshold, soft_limit
    if decision.verdict == "supported":
        return s + (1.0 - s) * x
    if decision.verdict == "not_found":
        if unsupported == "warn":
            return t + 0.99 * (s - t) * x
        return t * (0.5 + 0.49 * x)
    return (0.99 if unsupported == "warn" else 0.49) * t * (1.0 - x)

"""Conversation sessions: catch an assistant contradicting what it said in earlier turns.

A :class:`ConversationSession` remembers the factual claims of the assistant's earlier turns.
Each new response's claims are checked against them, **contradiction only**: a claim that adds
information the earlier turns did not mention is never divergence.

For each claim of the new response (the units :func:`director_fast.verify.claims.split_claims` marks as
``claim``), the session retrieves the ``top_k`` earlier claims that share the most content words
with it (similarity at least ``min_similarity``; see :meth:`ConversationSession.relevant`) and
asks the claim judge (the scorer's, so a loaded NLI model is used; else the lexical backend)
whether the new claim contradicts each of them. Every contradicted earlier claim ``i`` gets the
largest contradiction probability ``c_i`` any new claim gave it, and

* ``cross_turn_divergence`` = ``max(c_i)`` (0.0 when nothing is contradicted);
* ``contradiction_index`` = ``1 - prod(1 - c_i)`` (noisy-or: several independent contradictions
  make self-contradiction more certain than the strongest alone), in [0, 1].

Claims of the form "X is/are/was/were/has/have/had (not) Y" with a recognisable subject and value
(:func:`structured_claim`) also go to a
:class:`~director_fast.memory.temporal.TemporalConsistencyGraph` -- the session's own,
or ``ProductionGuard.temporal_consistency`` when a guard is given, so a claim that contradicts an
earlier *session* of the same tenant is caught too, and audited in the guard's graph. A
contradiction the timeline finds but retrieval did not (the earlier claim was not among the
``top_k``, or sits in another session) is reported with ``source="temporal"``; its probability
is the judge's contradiction strength on the two claims, or 0.5 when the judge does not see one
(the structure says the two claims cannot both hold; the text judge does not confirm it).

Cost per checked response: at most ``2 x n_claims x top_k`` judge comparisons (a pair whose
forward verdict is ``supported`` is judged the other way round too: the judge is not
symmetric) plus an inverted-index lookup,
independent of the number of earlier claims except through the posting lists of the claim's own
words. Retrieval weights a word by ``1 / (1 + df)`` (``df``: the earlier claims that contain it)
and normalises by the weight of all the claim's words, so a turn that shares no word with a
claim never changes that claim's retrieval, and therefore never changes
``cross_turn_divergence``.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from director_fast.verify.judges import make_judge
from director_fast.verify.text import content_words
from director_fast.verify.claims import split_claims
from director_fast.memory.temporal import (
    TemporalClaim,
    TemporalConsistencyGraph,
    validate_tenant_id,
)
from director_fast.types.results import CoherenceScore, CrossTurnContradiction
from director_fast.errors import ConfigError, InputTypeError, ValidationError
from director_fast.verify.nli import LexicalNLI, query_terms
from director_fast.verify.numbers import find_numbers
from director_fast.verify.number_alignment import checkable
from director_fast.verify.roles import resolve_roles

__all__ = [
    "ConversationSession",
    "CrossTurnReport",
    "number_words_as_digits",
    "StructuredClaim",
    "Turn",
    "comparable",
    "structured_claim",
]

#: ``to_dict`` format id.
FORMAT = "director_fast.conversation.v1"
_RECORD_POLICIES = ("approved", "all")
_FIELDS = frozenset({"format", "session_id", "tenant_id", "max_turns", "max_claims", "ttl_s", "top_k",
                     "min_similarity", "record", "turn_counter", "seen", "turns"})
_TURN_FIELDS = frozenset({"turn_index", "timestamp", "prompt", "response", "score", "claims"})


# ---- structured claims ("X is / has / was (not) Y") -------------------------------------------

@dataclass(frozen=True, slots=True)
class StructuredClaim:
    """``subject``, ``predicate`` (``"is"``, ``"was"``, ``"has"`` or ``"had"``), ``value`` and
    ``polarity`` (False for a negation) of a simple claim; subject and value lower-cased, a
    leading article dropped. Immutable."""

    subject: str
    predicate: str
    value: str
    polarity: bool


_CONTRACTIONS = re.compile(r"\b(is|are|was|were|has|have|had|does|do|did)n[’']t\b", re.IGNORECASE)
_PATTERNS = (
    re.compile(r"^(?P<s>.+?)\s+(?P<v>is|are|was|were)\s+(?P<n>not\s+)?(?P<o>.+)$", re.IGNORECASE),
    re.compile(r"^(?P<s>.+?)\s+(?P<v>does|do|did)\s+(?P<n>not\s+)have\s+(?P<o>.+)$", re.IGNORECASE),
    re.compile(r"^(?P<s>.+?)\s+(?P<v>has|have|had)\s+(?P<n>not\s+|no\s+)?(?P<o>.+)$", re.IGNORECASE),
)
_PREDICATE = {"is": "is", "are": "is", "was": "was", "were": "was", "has": "has", "have": "has",
              "had": "had", "does": "has", "do": "has", "did": "had"}
# a subject that names nothing by itself (a pronoun, a quantifier, a relative word)
_VAGUE = frozenset(
    "it its they them he she him her this that these those there here which who whom whose what "
    "i we you one some all many most each every any none no both either neither such another "
    "other others something someone anything everything nothing".split())
_ARTICLES = ("a ", "an ", "the ")
# words that make the value a change, a hedge or a compound, not one fact
_VALUE_STOP = frozenset(
    "and or but longer only if unless because although though while when whereas also".split())
_CLAUSE_MARK = re.compile(r"[,;:?()\[\]\"]")


def _strip_article(text: str) -> str:
    for a in _ARTICLES:
        if text.startswith(a):
            return text[len(a):]
    return text


def structured_claim(text: str) -> StructuredClaim | None:
    """Parse a simple claim "X is/are/was/were/has/have/had (not) Y" (also "X has no Y",
    "X does not have Y" and ``n't`` forms); None when the claim has another shape.

    Conservative on purpose: the subject must be 1-6 words and not a pronoun or quantifier
    ("it", "they", "some", ...), the value 1-8 words, neither may hold a comma, semicolon,
    colon, bracket or quote, and the value may not hold "and", "or", "but", "only", "longer"
    ("is no longer open" is a change, not a contradiction), "if", "because", ... Tense is kept
    in the predicate ("was" and "is" are different predicates: a past state does not contradict
    a present one).

    Args:
        text: one claim (a sentence or clause).

    Returns:
        :class:`StructuredClaim` or None.

    Raises:
        InputTypeError: ``text`` is not a str.
    """
    if not isinstance(text, str):
        raise InputTypeError(f"text must be a str, got {type(text).__name__}")
    t = " ".join(text.split()).rstrip(".! ")
    if not t or len(t) > 300 or _CLAUSE_MARK.search(t):
        return None
    t = _CONTRACTIONS.sub(lambda m: m.group(1) + " not", t)
    for pat in _PATTERNS:
        m = pat.match(t)
        if m is None:
            continue
        subject = _strip_article(m.group("s").strip().lower())
        value = _strip_article(m.group("o").strip().lower())
        s_words, v_words = subject.split(), value.split()
        if not 1 <= len(s_words) <= 6 or not 1 <= len(v_words) <= 8:
            return None
        if s_words[0] in _VAGUE or (len(s_words) == 1 and s_words[0] in _VALUE_STOP):
            return None
        if any(w in _VALUE_STOP for w in v_words) or any(w in _VALUE_STOP for w in s_words):
            return None
        # "X is not Y": a verb inside the subject ("The shop that opens ...") means the regex
        # split at the wrong verb; a second copula in the value ("is what is ...") likewise
        if any(w in _PREDICATE for w in s_words) or v_words[0] in _PREDICATE:
            return None
        negated = m.group("n") is not None
        return StructuredClaim(subject, _PREDICATE[m.group("v").lower()], value, not negated)
    return None


_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'-]*")


def comparable(claim: str, earlier: str, signal: str) -> bool:
    """Whether a contradiction the judge found between two claims is about one thing.

    Claim against claim (not claim against a passage), the lexical judge's mismatch signals
    fire on any two statements about one subject: "Cedar Clinic has 78 employees." against
    "Cedar Clinic was founded in 1957." is a ``number`` mismatch. So a contradiction counts only
    when the two claims state the same frame. With ``a`` and ``b`` their content words
    (:func:`~director_fast.verify.claim_verdict.content_words`; numbers are not content words) and
    "own" words those the other claim lacks:

    * they share a content word, their first content words (the subjects) are not each
      missing from the other ("Dune Dental is in Narvik." / "Garnet Gallery is in Narvik."),
      and no word of the capitalised name a claim opens with is missing from the other
      ("Alder Books sells bread." / "Alder Bakery sells bread.");
    * ``number`` / ``unit``: one side has no own word (the number is the value that changed),
      and when both claims hold two or more numbers (:func:`~director_fast.verify.numbers.find_numbers`)
      they share one (else a number names the thing: "Room 12 costs 90 euros." / "Room 14
      costs 80 euros.");
    * ``entity``: both sides have an own name (a capitalised word after the first), the value
      that changed ("in Narvik" / "in Bodo"), and one side has at most one own word besides;
    * other lexical signals (negation, antonym, roles, ...): one side has at most one own word
      ("open" / "closed").

    A model's ``contradiction`` verdict is taken as it is. Known miss: two names as subjects
    of one role ("Maria Lopez is the CEO." / "John Smith is the CEO.") read as two subjects;
    "The CEO is Maria Lopez." / "The CEO is John Smith." is caught.
    """
    if signal == "contradiction":
        return True
    a, b = content_words(claim), content_words(earlier)
    if not a & b:
        return False
    first_a, first_b = _first_content(claim), _first_content(earlier)
    if first_a and first_b and first_a not in b and first_b not in a:
        return False
    own_a, own_b = a - b, b - a
    if (_lead_name(claim) & own_a) or (_lead_name(earlier) & own_b):
        return False  # the subjects' names differ: "Alder Books ..." / "Alder Bakery ..."
    if signal in ("number", "unit"):
        if not (not own_a or not own_b):
            return False
        # several numbers on each side and none in common: a number names the thing ("Shop 1
        # opens at 2 am." / "Shop 4 opens at 4 am."), so these are two different things
        na = {(m.value, m.unit) for m in find_numbers(claim)}
        nb = {(m.value, m.unit) for m in find_numbers(earlier)}
        return not (len(na) >= 2 and len(nb) >= 2 and not na & nb)
    if signal == "entity":
        names_a = content_words(" ".join(_NAME.findall(claim.strip()))) & own_a
        names_b = content_words(" ".join(_NAME.findall(earlier.strip()))) & own_b
        if not names_a or not names_b:
            return False
        return min(len(own_a - names_a), len(own_b - names_b)) <= 1
    return min(len(own_a), len(own_b)) <= 1


def _lead_name(text: str) -> set[str]:
    """Content words of the capitalised run a claim opens with (its subject's name)."""
    run = []
    for tok in re.findall(r"[^\W_][\w'-]*", text):
        if not (tok[0].isupper() or tok.isdigit()):
            break
        run.append(tok)
    return content_words(" ".join(run))


def _first_content(text: str) -> str:
    for w in re.findall(r"[^\W\d_]{3,}", text):
        cw = content_words(w)
        if cw:
            return next(iter(cw))
    return ""


# ---- records -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Turn:
    """One assistant turn the session remembers.

    Attributes:
        prompt: the user's message it answered (``""`` for turns seeded from ``messages``).
        response: the assistant's text.
        score: its coherence score in [0, 1] (None when it was not scored, e.g. seeded or
            streamed).
        turn_index: its number in the caller's transcript: 0-based position among the assistant
            turns (seeded from ``messages``: the message's position among the assistant messages;
            otherwise every response the session checked or recorded took the next number,
            remembered or not, forgotten ones included).
        timestamp: ``clock()`` seconds when it was recorded (the TTL counts from it).
        claims: code-point spans ``(start, end)`` of its factual claims in ``response``.

    Thread-safety: immutable.
    """

    prompt: str
    response: str
    score: float | None
    turn_index: int
    timestamp: float = 0.0
    claims: tuple[tuple[int, int], ...] = ()

    @property
    def claim_texts(self) -> tuple[str, ...]:
        """The claims' texts."""
        return tuple(self.response[a:b] for a, b in self.claims)


@dataclass(frozen=True, slots=True)
class CrossTurnReport:
    """Result of checking one response against the earlier turns.

    Attributes:
        cross_turn_divergence: the strongest contradiction probability, in [0, 1] (0.0: none).
        contradiction_index: noisy-or ``1 - prod(1 - c_i)`` over the contradicted earlier
            claims, in [0, 1].
        contradictions: one :class:`~director_fast.types.results.CrossTurnContradiction` per
            contradicted earlier claim, strongest first.
        earlier_claims: earlier claims the session held when it checked.
        comparisons: judge comparisons made.

    Thread-safety: immutable.
    """

    cross_turn_divergence: float
    contradiction_index: float
    contradictions: tuple[CrossTurnContradiction, ...] = ()
    earlier_claims: int = 0
    comparisons: int = 0


@dataclass(slots=True)
class _Claim:
    text: str
    turn_index: int
    claim_index: int
    terms: tuple[str, ...]
    temporal: TemporalClaim | None


def number_words_as_digits(text: str) -> str:
    """``text`` with each number written in words turned into digits, its unit word kept ("Our
    tents sleep four people." -> "Our tents sleep 4 people."; "two weeks" -> "2 weeks"), so the
    claim judge, which compares digits, compares "four" with "six" as it compares "4" with "6".
    A written "one" and a bare "half" (too often no quantity: "one of you") and numbers that hold
    a digit are left as they are (:func:`director_fast.verify.number_alignment.checkable`)."""
    mentions = [m for m in checkable(find_numbers(text)) if not any(ch.isdigit() for ch in m.surface)]
    if not mentions:
        return text
    out, pos = [], 0
    for m in mentions:
        if m.unit == "%":
            continue  # "half the staff": a share, kept in words
        words = m.surface.split()
        unit = f" {words[-1]}" if m.unit and len(words) > 1 and words[-1].isalpha() else ""
        out += [text[pos:m.start], f"{m.value:g}{unit}"]  # m.value: in the unit word's own unit
        pos = m.end
    out.append(text[pos:])
    return "".join(out)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _check_int(name: str, value: Any, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise ConfigError(f"{name} must be an int >= {lo}, got {value!r}", name)
    return value


def _check_ttl(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"ttl_s must be None or a positive number of seconds, got {value!r}", "ttl_s")
    return float(value)


def _terms(text: str) -> tuple[str, ...]:
    """Retrieval terms of a claim: :func:`~director_fast.verify.nli.query_terms` less pure numbers
    (a number is the value that changes between two claims about one thing, not their topic)."""
    return tuple(dict.fromkeys(t for t in query_terms(text) if not t.isdigit()))


def _factual_spans(text: str) -> list[tuple[int, int]]:
    return [(u.start, u.end) for u in split_claims(text) if u.kind == "claim"]


class ConversationSession:
    """Remembers the assistant's claims across turns and reports when a new response contradicts
    them (module docstring).

    Pass it to ``CoherenceScorer.review(prompt, response, session)`` (director-ai's positional
    slot) or to ``stream_guard(..., conversation=session)``; with ``messages=``, the earlier
    ``assistant`` turns seed it (each distinct text once, so passing the whole chat on every
    call is safe).

    Args:
        max_turns: turns kept (>= 1; the oldest is forgotten first). Default 50.
        session_id: id (default: a random UUID); also the ``session_id`` of its temporal claims.
        tenant_id: the tenant the session belongs to (``""``: the default tenant); None (default)
            binds it to the tenant of the first call that uses it. Must match
            ``^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`` or be ``""``.
        max_claims: claims kept over all turns (>= 1; whole oldest turns are forgotten until
            the rest fit). Default 1000.
        ttl_s: seconds a turn is remembered (None: no expiry).
        top_k: earlier claims compared with each new claim (>= 1). Default 4.
        min_similarity: least retrieval similarity in [0, 1] for an earlier claim to be compared
            (the weight of the shared words over the weight of all the new claim's words).
            Default 0.3.
        record: which reviewed responses ``review`` remembers: ``"approved"`` (default: a
            rejected response is normally not delivered, so the user never saw its claims) or
            ``"all"``. Streams remember what was delivered.
        guard: a :class:`~director_fast.ProductionGuard`: its ``temporal_consistency`` graph
            receives the structured claims (contradictions across sessions of the tenant).
        temporal: a :class:`TemporalConsistencyGraph` to use instead (not with ``guard``).
            Without either the session keeps its own in-memory graph.
        nli: claim judge backend for checks made without a scorer (default: the lexical one).
        clock: ``() -> float`` seconds for timestamps and the TTL (default ``time.time``: wall
            time, so a serialised session expires correctly on another server).

    Raises:
        ConfigError: an invalid parameter (``.field`` names it). ValidationError: a malformed
            ``tenant_id``.

    Thread-safety: every method may be called from several threads; a lock serialises them
    (one conversation is one sequence of turns, so there is nothing to gain from parallelism
    within it). The temporal graph is itself thread-safe and may be shared.
    """

    def __init__(
        self,
        max_turns: int = 50,
        session_id: str | None = None,
        *,
        tenant_id: str | None = None,
        max_claims: int = 1000,
        ttl_s: float | None = None,
        top_k: int = 4,
        min_similarity: float = 0.3,
        record: str = "approved",
        guard: Any = None,
        temporal: TemporalConsistencyGraph | None = None,
        nli: Any = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_turns = _check_int("max_turns", max_turns, 1)
        self.max_claims = _check_int("max_claims", max_claims, 1)
        self.top_k = _check_int("top_k", top_k, 1)
        self.ttl_s = _check_ttl(ttl_s)
        if isinstance(min_similarity, bool) or not isinstance(min_similarity, (int, float)) \
                or not 0.0 <= min_similarity <= 1.0:
            raise ConfigError(f"min_similarity must be a number in [0, 1], got {min_similarity!r}", "min_similarity")
        self.min_similarity = float(min_similarity)
        if record not in _RECORD_POLICIES:
            raise ConfigError(f"record must be one of {_RECORD_POLICIES}, got {record!r}", "record")
        self.record_policy = record
        if session_id is None:
            session_id = str(uuid.uuid4())
        if not isinstance(session_id, str) or not session_id or len(session_id) > 256:
            raise ConfigError("session_id must be a non-empty str of at most 256 characters", "session_id")
        self.session_id = session_id
        self._tenant = None if tenant_id is None else validate_tenant_id(tenant_id)
        if not callable(clock):
            raise ConfigError("clock must be a callable returning seconds", "clock")
        self._clock = clock
        if guard is not None and temporal is not None:
            raise ConfigError("give either guard or temporal, not both", "temporal")
        if guard is not None:
            graph = getattr(guard, "temporal_consistency", None)
            if not isinstance(graph, TemporalConsistencyGraph):
                raise ConfigError("guard must be a ProductionGuard (with temporal_consistency)", "guard")
            temporal = graph
        elif temporal is not None and not isinstance(temporal, TemporalConsistencyGraph):
            raise ConfigError(f"temporal must be a TemporalConsistencyGraph, got {type(temporal).__name__}",
                              "temporal")
        self._shared_graph = temporal is not None
        self._graph = temporal if temporal is not None else TemporalConsistencyGraph()
        self._nli = nli
        self._judge: Any = None
        self._lock = threading.RLock()
        self._turns: deque[Turn] = deque()
        self._claims: dict[int, _Claim] = {}
        self._by_key: dict[tuple[int, int], int] = {}  # (turn_index, claim_index) -> claim id
        self._postings: dict[str, dict[int, None]] = {}
        self._next_id = 0
        self._turn_counter = 0
        self._seen: dict[str, None] = {}  # digests of recorded responses (insertion order)
        self._dead_temporal = 0  # own graph: claims of forgotten turns still in it

    # ---- properties ------------------------------------------------------------------------------
    @property
    def tenant_id(self) -> str | None:
        """The tenant the session belongs to (None until the first call binds it)."""
        return self._tenant

    @property
    def temporal_consistency(self) -> TemporalConsistencyGraph:
        """The temporal graph the session's structured claims go to."""
        return self._graph

    @property
    def turns(self) -> list[Turn]:
        """The remembered turns, oldest first."""
        with self._lock:
            self._expire()
            return list(self._turns)

    @property
    def context_text(self) -> str:
        """The remembered responses joined by spaces (director-ai's premise text)."""
        with self._lock:
            self._expire()
            return " ".join(t.response for t in self._turns)

    @property
    def claim_count(self) -> int:
        """Claims remembered over all turns."""
        with self._lock:
            self._expire()
            return len(self._claims)

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._turns)

    def _review_in_session(self, scorer: Any, prompt: str, action: str, result: CoherenceScore, *,
                           tenant_id: str, messages: Any) -> CoherenceScore:
        """``CoherenceScorer.review(prompt, action, session)`` calls this on the session it is
        handed (the scorer sits below this module and never imports it): :func:`review_in_session`."""
        return review_in_session(self, scorer, prompt, action, result, tenant_id=tenant_id, messages=messages)

    # ---- tenant ----------------------------------------------------------------------------------
    def bind_tenant(self, tenant_id: str) -> None:
        """Bind the session to ``tenant_id`` if it is not bound yet; else check it is the same.

        Raises:
            ConfigError: the session belongs to another tenant (field ``tenant_id``).
            ValidationError: a malformed tenant id. InputTypeError: not a str.
        """
        tenant_id = validate_tenant_id(tenant_id)
        with self._lock:
            if self._tenant is None:
                self._tenant = tenant_id
            elif self._tenant != tenant_id:
                raise ConfigError(f"this conversation session belongs to tenant {self._tenant!r}, "
                                  f"not {tenant_id!r}", "tenant_id")

    def delete_tenant(self, tenant_id: str) -> int:
        """Right to delete: when the session belongs to ``tenant_id``, forget every turn and
        claim, and delete the tenant from the temporal graph the session uses (with a guard:
        the guard's graph, i.e. the tenant's claims of every session). Returns the number of
        claims the session forgot (0 when it belongs to another tenant)."""
        tenant_id = validate_tenant_id(tenant_id)
        with self._lock:
            if self._tenant != tenant_id:
                return 0
            n = len(self._claims)
            self._clear()
            self._graph.delete_tenant(tenant_id)
            return n

    def clear(self) -> None:
        """Forget every turn (the tenant binding stays; a shared temporal graph is untouched)."""
        with self._lock:
            self._clear()

    def _clear(self) -> None:
        self._turns.clear()
        self._claims.clear()
        self._by_key.clear()
        self._postings.clear()
        self._seen.clear()
        if not self._shared_graph:
            self._graph = TemporalConsistencyGraph()
            self._dead_temporal = 0

    # ---- retrieval -------------------------------------------------------------------------------
    def relevant(self, claim: str, k: int | None = None) -> list[tuple[str, int, float]]:
        """The earlier claims most related to ``claim``: ``[(earlier claim, turn index,
        similarity)]``, best first (ties: the more recent first), at most ``k`` (default
        ``top_k``), each with similarity >= ``min_similarity`` and > 0.

        Similarity = the weight of the claim's words the earlier claim contains over the weight
        of the claim's words that some remembered claim contains (words:
        :func:`director_fast.verify.nli.query_terms` less numbers), a word weighing ``1 / (1 + df)``
        with ``df`` the number of remembered claims containing it. A remembered claim that
        shares no word with ``claim`` never changes the result.
        """
        if not isinstance(claim, str):
            raise InputTypeError(f"claim must be a str, got {type(claim).__name__}")
        k = self.top_k if k is None else _check_int("k", k, 1)
        with self._lock:
            self._expire()
            return [(self._claims[i].text, self._claims[i].turn_index, sim)
                    for i, sim in self._top(_terms(claim), k)]

    def _top(self, terms: tuple[str, ...], k: int) -> list[tuple[int, float]]:
        if not terms or not self._claims:
            return []
        postings = self._postings
        # words no remembered claim holds say nothing about which earlier claim is related (and
        # are often the changed value): the similarity is relative to the words the index knows
        weights = {t: 1.0 / (1 + len(postings[t])) for t in terms if t in postings}
        if not weights:
            return []
        total = sum(weights.values())
        acc: dict[int, float] = {}
        for t, w in weights.items():
            for i in postings[t]:
                acc[i] = acc.get(i, 0.0) + w
        floor = self.min_similarity * total
        hits = [(i, v / total) for i, v in acc.items() if v >= floor - 1e-12 and v > 0.0]
        hits.sort(key=lambda x: (-x[1], -x[0]))
        out: list[tuple[int, float]] = []
        texts: set[str] = set()
        for i, sim in hits:  # a claim restated in several turns is compared once (the latest)
            text = self._claims[i].text
            if text not in texts:
                texts.add(text)
                out.append((i, sim))
                if len(out) == k:
                    break
        return out

    # ---- checking --------------------------------------------------------------------------------
    def _judge_for(self, judge: Any) -> Any:
        if judge is not None:
            return judge
        if self._judge is None:
            self._judge = make_judge(self._nli if self._nli is not None else LexicalNLI())
        return self._judge

    def check(self, response: str, *, claims: Sequence[tuple[str, int, int]] | None = None,
              judge: Any = None) -> CrossTurnReport:
        """Check ``response`` against the remembered turns without remembering it.

        Args:
            response: the new assistant text.
            claims: its factual claims as ``(text, start, end)`` (default: the ``claim`` units
                of :func:`~director_fast.verify.claims.split_claims`); claims without a content word
                ("Yes.") are ignored.
            judge: a claim judge with ``compare_texts(claim, premises)`` (default: the
                session's, built from ``nli``).

        Returns:
            :class:`CrossTurnReport`.

        Raises:
            InputTypeError: ``response`` is not a str.
        """
        units, judge = self._prepare(response, claims, judge)
        with self._lock:
            self._expire()
            return self._check(units, judge)

    def _units(self, response: str, claims: Sequence[tuple[str, int, int]] | None) -> list[tuple[str, int, int]]:
        if claims is None:
            claims = [(response[a:b], a, b) for a, b in _factual_spans(response)]
        return [c for c in claims if query_terms(c[0])]

    def _check(self, units: list[tuple[str, int, int]], judge: Any) -> CrossTurnReport:
        best: dict[Any, tuple[float, int, str, str, int, str, str]] = {}
        comparisons = 0
        for ci, (text, _a, _b) in enumerate(units):
            top = self._top(_terms(text), self.top_k)
            if top:
                ids = [i for i, _s in top]
                said = number_words_as_digits(text)  # "four" / "six" compared as "4" / "6"
                comps = judge.compare_texts(said, [number_words_as_digits(self._claims[i].text) for i in ids])
                comparisons += len(ids)
                for i, c in zip(ids, comps):
                    earlier = number_words_as_digits(self._claims[i].text)
                    if c.verdict == "supported":
                        # the judge is not symmetric and contradiction is: "X has free parking"
                        # is covered by "X has no parking", which contradicts it read the other
                        # way round (on the bench chat every pair found only in reverse had a
                        # forward verdict of supported)
                        c = judge.compare_texts(earlier, [said])[0]
                        comparisons += 1
                    if c.verdict == "contradicted" and comparable(said, earlier, c.signal):
                        p = min(1.0, max(0.0, float(c.strength)))
                        old = best.get(i)
                        if old is None or p > old[0]:
                            e = self._claims[i]
                            best[i] = (p, ci, text, e.text, e.turn_index, c.signal, "nli", "")
            sc = structured_claim(text)
            if sc is not None:
                comparisons += self._temporal_check(sc, ci, text, judge, best)
        found = sorted(best.values(), key=lambda v: (-v[0], v[1], v[4]))
        items = tuple(CrossTurnContradiction(
            claim=v[2], claim_index=v[1], earlier_claim=v[3], earlier_turn=v[4], probability=v[0],
            signal=v[5], source=v[6], earlier_session_id=v[7]) for v in found)
        keep = 1.0
        for v in found:
            keep *= 1.0 - v[0]
        return CrossTurnReport(
            cross_turn_divergence=max((v[0] for v in found), default=0.0),
            contradiction_index=min(1.0, max(0.0, 1.0 - keep)),
            contradictions=items, earlier_claims=len(self._claims), comparisons=comparisons)

    def _temporal_check(self, sc: StructuredClaim, ci: int, text: str, judge: Any, best: dict) -> int:
        """Earlier claims in the temporal graph that ``sc`` contradicts (same rules as the graph:
        the same value with the other polarity, or a different value of a functional predicate),
        read with ``history`` so nothing is recorded before the response is accepted."""
        tenant = self._tenant or ""
        graph = self._graph
        functional = sc.predicate in graph.functional_predicates
        made = 0
        for e in graph.history(sc.subject, sc.predicate, tenant_id=tenant):
            if e.value == sc.value:
                if e.polarity == sc.polarity:
                    continue
                kind = "polarity"
            elif functional and e.polarity and sc.polarity and e.value and sc.value:
                kind = "functional_value"
            else:
                continue
            turn, claim_index = _parse_claim_id(e.claim_id)
            if e.session_id == self.session_id:
                cid = self._by_key.get((turn, claim_index))
                if cid is None:  # a forgotten turn still in the own graph
                    continue
                key: Any = cid
            else:
                key = ("temporal", e.session_id, e.claim_id, e.timestamp)
            if key in best:
                continue
            c = judge.compare_texts(number_words_as_digits(text), [number_words_as_digits(e.source_text)])[0] \
                if e.source_text else None
            made += 1 if e.source_text else 0
            p = float(c.strength) if c is not None and c.verdict == "contradicted" else 0.5
            best[key] = (min(1.0, max(0.0, p)), ci, text, e.source_text, turn, kind, "temporal",
                         "" if e.session_id == self.session_id else e.session_id)
        return made

    # ---- recording -------------------------------------------------------------------------------
    def record(self, prompt: str, response: str, score: float | None = None, *,
               claims: Sequence[tuple[str, int, int]] | None = None, turn_index: int | None = None) -> Turn:
        """Remember an assistant turn (without checking it).

        Args:
            prompt: the user's message it answered.
            response: the assistant's text.
            score: its coherence score in [0, 1], or None.
            claims: its factual claims as ``(text, start, end)`` (default: from
                :func:`~director_fast.verify.claims.split_claims`).
            turn_index: its number in your transcript (0-based position among the assistant
                turns; default: the next number, see :meth:`next_turn_index`); it must be above
                every turn the session holds.

        Returns:
            The :class:`Turn`. Its structured claims go to the temporal graph (session id
            ``session_id``, claim id ``"<turn>:<claim>"``); then the oldest turns are forgotten
            while the caps are exceeded.

        Raises:
            InputTypeError: a non-str text. ValidationError: a score outside [0, 1], a claim span
                outside the response, a ``turn_index`` below 0 or not above the last turn held.
        """
        for name, v in (("prompt", prompt), ("response", response)):
            if not isinstance(v, str):
                raise InputTypeError(f"{name} must be a str, got {type(v).__name__}")
        score = _check_score(score, "score")
        units = self._units(response, claims)
        for j, (text, a, b) in enumerate(units):
            if not (0 <= a <= b <= len(response)) or response[a:b] != text:
                raise ValidationError(f"claims[{j}] ({a}, {b}) is not a span of the response holding its text")
        with self._lock:
            self._expire()
            if turn_index is not None:
                turn_index = _check_int("turn_index", turn_index, 0)
                if self._turns and turn_index <= self._turns[-1].turn_index:
                    raise ValidationError(f"turn_index {turn_index} must be above the last turn held "
                                          f"({self._turns[-1].turn_index})")
            return self._add(prompt, response, score, [(a, b) for _t, a, b in units], self._clock(), turn_index)

    def next_turn_index(self) -> int:
        """The number the next response checked or recorded takes when none is given: one above
        every turn the session numbered, remembered or not (a rejected answer that was not
        remembered still had its turn in the conversation)."""
        with self._lock:
            return self._turn_counter

    def add_turn(self, prompt: str, response: str, score: float | None = None) -> Turn:
        """director-ai's name for :meth:`record`."""
        return self.record(prompt, response, score)

    def _prepare(self, response: str, claims: Sequence[tuple[str, int, int]] | None, judge: Any) -> tuple[Any, Any]:
        """The claim units of ``response`` and the judge to use (outside the lock: the slow part).

        Raises:
            InputTypeError: ``response`` is not a str.
        """
        if not isinstance(response, str):
            raise InputTypeError(f"response must be a str, got {type(response).__name__}")
        return self._units(response, claims), self._judge_for(judge)

    def observe(self, prompt: str, response: str, score: float | None = None, *,
                claims: Sequence[tuple[str, int, int]] | None = None, judge: Any = None,
                remember: bool = True, turn_index: int | None = None) -> CrossTurnReport:
        """:meth:`check` ``response``, then (with ``remember``) :meth:`record` it, atomically. The
        response takes turn number ``turn_index`` (default :meth:`next_turn_index`) whether it is
        remembered or not, so later turns keep the numbers of the caller's transcript."""
        units, judge = self._prepare(response, claims, judge)
        with self._lock:
            self._expire()
            report = self._check(units, judge)
            if turn_index is not None and self._turns and turn_index <= self._turns[-1].turn_index:
                turn_index = None  # the transcript restarted below what is held: number on
            if remember:
                self.record(prompt, response, score, claims=units, turn_index=turn_index)
            else:
                self._turn_counter = max(self._turn_counter,
                                         (self._turn_counter if turn_index is None else turn_index) + 1)
            return report

    def seed(self, messages: Any) -> int:
        """Remember the ``assistant`` turns of OpenAI-format ``messages`` that the session has
        not recorded yet (by exact text; the session keeps the digests of the last
        ``4 * max_turns`` responses), oldest first. Returns the number of turns added.

        Raises:
            InputTypeError / ConfigError: malformed messages (see :mod:`director_fast.verify.roles`).
        """
        roles = resolve_roles("", messages=messages)
        added = 0
        with self._lock:
            self._expire()
            for k, text in enumerate(roles.earlier_assistant):
                if _digest(text) in self._seen:
                    continue
                spans = [(a, b) for a, b in _factual_spans(text) if query_terms(text[a:b])]
                # numbered as in the caller's transcript: its position among the assistant messages
                # (when that is above every turn held; else the next number)
                index = k if not self._turns or k > self._turns[-1].turn_index else None
                self._add("", text, None, spans, self._clock(), index)
                added += 1
        return added

    def _add(self, prompt: str, response: str, score: float | None, spans: list[tuple[int, int]],
             timestamp: float, turn_index: int | None) -> Turn:
        if self._tenant is None:
            self._tenant = ""
        if turn_index is None:
            turn_index = self._turn_counter
        self._turn_counter = max(self._turn_counter, turn_index + 1)
        turn = Turn(prompt=prompt, response=response, score=score, turn_index=turn_index,
                    timestamp=float(timestamp), claims=tuple(spans))
        self._turns.append(turn)
        digest = _digest(response)
        self._seen.pop(digest, None)
        self._seen[digest] = None
        while len(self._seen) > 4 * self.max_turns:
            del self._seen[next(iter(self._seen))]
        tenant = self._tenant or ""
        for ci, (a, b) in enumerate(spans):
            text = response[a:b]
            sc = structured_claim(text)
            tc = None
            if sc is not None:
                tc = TemporalClaim(sc.subject, sc.predicate, float(timestamp), value=sc.value,
                                   polarity=sc.polarity, tenant_id=tenant, session_id=self.session_id,
                                   source_text=text, claim_id=f"{turn_index}:{ci}")
                self._graph.record(tc)
            cid = self._next_id
            self._next_id += 1
            terms = _terms(text)
            self._claims[cid] = _Claim(text, turn_index, ci, terms, tc)
            self._by_key[(turn_index, ci)] = cid
            for t in terms:
                self._postings.setdefault(t, {})[cid] = None
        while len(self._turns) > self.max_turns or (len(self._claims) > self.max_claims and len(self._turns) > 1):
            self._forget_oldest()
        if len(self._claims) > self.max_claims:  # one turn alone over the cap: keep its first claims
            for cid in list(self._claims)[self.max_claims:]:
                self._drop_claim(cid)
        return turn

    def _forget_oldest(self) -> None:
        turn = self._turns.popleft()
        for ci in range(len(turn.claims)):
            cid = self._by_key.get((turn.turn_index, ci))
            if cid is not None:
                self._drop_claim(cid)

    def _drop_claim(self, cid: int) -> None:
        c = self._claims.pop(cid)
        self._by_key.pop((c.turn_index, c.claim_index), None)
        for t in c.terms:
            p = self._postings.get(t)
            if p is not None:
                p.pop(cid, None)
                if not p:
                    del self._postings[t]
        if c.temporal is not None and not self._shared_graph:
            self._dead_temporal += 1
            if self._dead_temporal > 64 and self._dead_temporal > len(self._claims):
                self._rebuild_graph()

    def _rebuild_graph(self) -> None:
        """The own graph without the claims of forgotten turns (amortised O(1) per claim)."""
        graph = TemporalConsistencyGraph()
        for c in self._claims.values():
            if c.temporal is not None:
                graph.record(c.temporal)
        self._graph = graph
        self._dead_temporal = 0

    def _expire(self) -> None:
        if self.ttl_s is None or not self._turns:
            return
        limit = self._clock() - self.ttl_s
        while self._turns and self._turns[0].timestamp < limit:
            self._forget_oldest()

    # ---- serialisation ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe state for a stateless server (expired turns dropped first).

        Holds the remembered turns (prompt, response, score, timestamp, claim spans), the
        settings, the turn counter and the digests used by :meth:`seed`; not the temporal graph
        (a guard's graph persists on the guard; the own graph is rebuilt from the turns) nor the
        judge or clock. Size: about the text of the remembered turns plus ~40 bytes per claim,
        bounded by ``max_turns`` / ``max_claims``.
        """
        with self._lock:
            self._expire()
            return {
                "format": FORMAT,
                "session_id": self.session_id,
                "tenant_id": self._tenant,
                "max_turns": self.max_turns,
                "max_claims": self.max_claims,
                "ttl_s": self.ttl_s,
                "top_k": self.top_k,
                "min_similarity": self.min_similarity,
                "record": self.record_policy,
                "turn_counter": self._turn_counter,
                "seen": list(self._seen),
                "turns": [{"turn_index": t.turn_index, "timestamp": t.timestamp, "prompt": t.prompt,
                           "response": t.response, "score": t.score,
                           "claims": [[a, b] for a, b in t.claims]} for t in self._turns],
            }

    @classmethod
    def from_dict(cls, payload: Mapping[str, Any], *, guard: Any = None,
                  temporal: TemporalConsistencyGraph | None = None, nli: Any = None,
                  clock: Callable[[], float] = time.time, max_turns: int | None = None,
                  max_claims: int | None = None, ttl_s: float | None = None) -> ConversationSession:
        """Rebuild a session from :meth:`to_dict` output.

        ``guard`` / ``temporal`` / ``nli`` / ``clock`` as in the constructor; ``max_turns``,
        ``max_claims`` and ``ttl_s`` override the payload's (a server's own caps win over a
        client-held blob). Only the newest turns that fit the caps are replayed, so an oversized
        payload costs no more than a full session; expired turns are dropped. The structured
        claims are recorded again into the graph (an identical claim already in a guard's graph
        is a no-op there).

        Raises:
            ValidationError: a malformed payload (the message names the field, e.g.
                ``turns[2].claims[0]``); ConfigError: invalid settings in it.
        """
        if not isinstance(payload, Mapping):
            raise ValidationError(f"payload must be a mapping, got {type(payload).__name__}")
        unknown = set(payload) - _FIELDS
        if unknown:
            raise ValidationError(f"payload has unknown keys {sorted(map(str, unknown))}")
        missing = _FIELDS - set(payload)
        if missing:
            raise ValidationError(f"payload lacks keys {sorted(missing)}")
        if payload["format"] != FORMAT:
            raise ValidationError(f"payload.format must be {FORMAT!r}, got {payload['format']!r}")
        session = cls(
            max_turns=payload["max_turns"] if max_turns is None else max_turns,
            session_id=payload["session_id"],
            tenant_id=payload["tenant_id"],
            max_claims=payload["max_claims"] if max_claims is None else max_claims,
            ttl_s=payload["ttl_s"] if ttl_s is None else ttl_s,
            top_k=payload["top_k"], min_similarity=payload["min_similarity"], record=payload["record"],
            guard=guard, temporal=temporal, nli=nli, clock=clock)
        counter = payload["turn_counter"]
        if isinstance(counter, bool) or not isinstance(counter, int) or counter < 0:
            raise ValidationError(f"payload.turn_counter must be an int >= 0, got {counter!r}")
        seen = payload["seen"]
        if not isinstance(seen, list) or not all(isinstance(d, str) and re.fullmatch(r"[0-9a-f]{16}", d)
                                                 for d in seen):
            raise ValidationError("payload.seen must be a list of 16-hex-digit digests")
        turns = payload["turns"]
        if not isinstance(turns, list):
            raise ValidationError("payload.turns must be a list")
        parsed = [_parse_turn(t, f"turns[{i}]") for i, t in enumerate(turns)]
        last = -1
        for i, t in enumerate(parsed):
            if t.turn_index <= last or t.turn_index >= counter:
                raise ValidationError(f"turns[{i}].turn_index must increase and stay below turn_counter")
            last = t.turn_index
        with session._lock:
            # the newest turns that fit the caps (whole turns, as when they were recorded)
            keep, n_claims = [], 0
            for t in reversed(parsed):
                if len(keep) >= session.max_turns or (keep and n_claims + len(t.claims) > session.max_claims):
                    break
                keep.append(t)
                n_claims += len(t.claims)
            for t in reversed(keep):
                session._add(t.prompt, t.response, t.score, list(t.claims), t.timestamp, t.turn_index)
            session._turn_counter = counter
            for d in seen[-4 * session.max_turns:]:
                session._seen.pop(d, None)
                session._seen[d] = None
            while len(session._seen) > 4 * session.max_turns:
                del session._seen[next(iter(session._seen))]
            session._expire()
        return session


def _parse_claim_id(claim_id: str) -> tuple[int, int]:
    """``"<turn>:<claim>"`` -> (turn, claim); (-1, -1) for a claim recorded by something else."""
    a, sep, b = claim_id.partition(":")
    if sep and a.isdigit() and b.isdigit():
        return int(a), int(b)
    return -1, -1


def _check_score(score: Any, where: str) -> float | None:
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= float(score) <= 1.0:
        raise ValidationError(f"{where} must be None or a number in [0, 1], got {score!r}")
    return float(score)


def _parse_turn(t: Any, where: str) -> Turn:
    if not isinstance(t, Mapping) or set(t) != _TURN_FIELDS:
        raise ValidationError(f"{where} must be a mapping with keys {sorted(_TURN_FIELDS)}")
    idx, ts = t["turn_index"], t["timestamp"]
    if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
        raise ValidationError(f"{where}.turn_index must be an int >= 0")
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not math.isfinite(ts):
        raise ValidationError(f"{where}.timestamp must be a finite number")
    for name in ("prompt", "response"):
        if not isinstance(t[name], str):
            raise ValidationError(f"{where}.{name} must be a str")
    score = _check_score(t["score"], f"{where}.score")
    response = t["response"]
    spans = []
    claims = t["claims"]
    if not isinstance(claims, list):
        raise ValidationError(f"{where}.claims must be a list")
    for j, span in enumerate(claims):
        ok = isinstance(span, (list, tuple)) and len(span) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in span)
        if not ok or not 0 <= span[0] < span[1] <= len(response):
            raise ValidationError(f"{where}.claims[{j}] must be [start, end] with 0 <= start < end <= "
                                  "len(response)")
        spans.append((span[0], span[1]))
    return Turn(prompt=t["prompt"], response=response, score=score, turn_index=idx, timestamp=float(ts),
                claims=tuple(spans))


# ---- scorer integration --------------------------------------------------------------------------

def review_in_session(session: Any, scorer: Any, prompt: str, action: str, result: CoherenceScore, *,
                      tenant_id: str, messages: Any) -> CoherenceScore:
    """Used by ``CoherenceScorer.review(prompt, action, session)``: bind the session's tenant,
    seed it from ``messages``, check ``action``'s claims (those the scorer judged) against the
    earlier turns with the scorer's judge, remember the response when approved (or always, with
    ``record="all"``), and return ``result`` with ``cross_turn_divergence``,
    ``contradiction_index`` and ``evidence.cross_turn_contradictions`` filled.

    Raises:
        InputTypeError: ``session`` is not a :class:`ConversationSession`. ConfigError: the
            session belongs to another tenant.
    """
    if not isinstance(session, ConversationSession):
        raise InputTypeError(f"session must be a director_fast.ConversationSession, got {type(session).__name__}")
    session.bind_tenant(tenant_id)
    if messages is not None:
        session.seed(messages)
        prompt = resolve_roles("", messages=messages).prompt
    claims = [(a.claim, a.start, a.end) for a in result.attributions
              if 0 <= a.start <= a.end <= len(action) and action[a.start:a.end] == a.claim]
    remember = result.approved or session.record_policy == "all"
    # with messages, the response is the next assistant turn of that transcript
    turn = len(resolve_roles("", messages=messages).earlier_assistant) if messages is not None else None
    report = session.observe(prompt, action, result.score, claims=claims, judge=scorer.judge, remember=remember,
                             turn_index=turn)
    evidence = result.evidence
    if evidence is not None:
        evidence = replace(evidence, cross_turn_contradictions=list(report.contradictions))
    return replace(result, cross_turn_divergence=report.cross_turn_divergence,
                   contradiction_index=report.contradiction_index, evidence=evidence)

"""Evidence for single claims: tenant-scoped retrieval from the scorer's knowledge, the call's
own context, and the split of retrieved chunks into evidence units.

A claim is never compared with a concatenation of unrelated chunks. Each retrieved chunk is split
into its sentences (:func:`director_fast.verify.text.split_sentences`); each sentence is one
:class:`EvidenceUnit`. A sentence that opens with a pronoun or demonstrative ("It", "They",
"This", ...) carries its chunk's previous sentence along as context, so "It closes at 18:00."
after "The Oslo office opens at 08:00." can still be matched; nothing else is joined. A sentence
made of independent clauses joined by ";" or ", but" also gives one unit per clause (next to the
whole sentence; also at ", except" and ", unless"), so a negation in one clause ("Checked
baggage is not included; a checked bag costs NOK 350.") is not held against a claim that
restates the other. (Whether the claim drops an exception the user asked about is checked on
the whole sentence.) A context document passed with the call also gives runs of consecutive
sentences (:func:`window_units`); an exception is read in the run's member the claim is about
(:func:`member_about`), and an attribution names that member.

Knowledge kinds (:class:`KnowledgeAccess`):

* ``None``: no evidence (every claim is ``not_found``; the scorer logs a warning). A list of
  facts that are all blank (``[]``, ``[""]``) is the same;
* a list of fact strings: shared by every tenant, searched lexically (:class:`LexicalIndex`);
* a mapping ``tenant_id -> list of fact strings``: strictly tenant-scoped (a tenant whose facts
  are all blank holds no knowledge, like a tenant with ``[]``);
* an object with ``retrieve(query, k=..., tenant=...)`` (e.g. :class:`KnowledgeBase`): tenant-scoped
  through that call. A :class:`KnowledgeBase` also gives chunk ids and a mutation ``version``.
  ``retrieve`` returns a list (``None`` = nothing found) of: str, :class:`EvidenceChunk`,
  mappings with a str ``"text"`` (and an optional str ``"source"``), ``(text, score)`` tuples (the
  score is not used; the order is), or objects with a str ``page_content`` (LangChain
  ``Document``; ``metadata["source"]`` becomes the source label). Anything else raises
  :class:`~director_fast.errors.InputTypeError`; an exception raised by the retriever is
  re-raised as :class:`~director_fast.errors.RetrievalError` (``__cause__`` = the original).

Audit references (:attr:`EvidenceUnit.ref`) never contain a source label or any text of the
evidence: ``kb:<chunk id>`` for a :class:`KnowledgeBase`, ``kb:<16 hex digits>`` (a digest of the
chunk text) for other retrievers, ``fact:<i>`` for fact lists, ``ctx:<i>`` for the call's
context, so they can never trip the tenant-safety rules of a SafetyEvent.

Thread safety: :class:`KnowledgeAccess` may be used from many threads (its cache is guarded by a
lock; the knowledge object must itself be safe for concurrent reads). :class:`ContextEvidence`
is immutable after construction.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from director_fast._lru import LRUCache
from director_fast.safety.halt_evidence import EvidenceChunk
from director_fast.errors import ConfigError, DirectorFastError, InputTypeError, RetrievalError, UnknownTenantError
from director_fast.verify.nli import LexicalIndex
from director_fast.verify.text import content_words, split_sentences

__all__ = ["EvidenceUnit", "KnowledgeAccess", "ContextEvidence", "sentence_units", "chunk_digest",
           "opens_with_anaphor", "window_units", "most_about", "member_about", "member_unit"]

# a sentence opening with one of these needs the previous sentence to be understood
_ANAPHORS = frozenset(
    "it its they their them this these that those he she his her him such both either neither".split())

_RETRIEVAL_CACHE = 1024


@dataclass(frozen=True, slots=True)
class EvidenceUnit:
    """One sentence of evidence.

    Attributes:
        text: the sentence.
        premise: what a claim is compared with: ``text``, or the chunk's previous sentence
            followed by ``text`` when ``text`` opens with a pronoun or demonstrative.
        ref: audit reference (``kb:<id>``, ``kb:<digest>``, ``fact:<i>``, ``ctx:<i>``); never a
            source label.
        chunk: the chunk the sentence came from (text, retrieval distance, source label).
        sentence: the whole sentence a clause unit came from (``text`` itself for a sentence).
        sentences: sentences the unit spans (> 1 for the runs of :func:`window_units`).
        members: the sentences of a run of :func:`window_units`, in order (``()`` for a
            sentence or a clause).
    """

    text: str
    premise: str
    ref: str
    chunk: EvidenceChunk
    sentence: str = ""
    sentences: int = 1
    members: tuple[str, ...] = ()


def chunk_digest(text: str) -> str:
    """A 16-hex-digit BLAKE2b digest of ``text`` (UTF-8): the reference of a chunk whose
    retriever gives no id."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def opens_with_anaphor(sentence: str) -> bool:
    """Whether ``sentence`` opens with a pronoun or demonstrative ("It", "They", "This",
    "The latter", ...) that needs the sentence before it."""
    words = sentence.lstrip("\"'([ ").split(None, 2)
    if not words:
        return False
    first = words[0].strip(",.;:").lower()
    if first == "the" and len(words) > 1:
        return words[1].strip(",.;:").lower() in ("latter", "former", "same")
    return first in _ANAPHORS


_CLAUSE_BREAK = re.compile(r";\s+|,\s+(?=(?:but|except|unless)\s+\w)"
                           # ", and" before a new subject: "..., and a cleaning fee of £150 is charged"
                           # (not before a pronoun: "..., and it is closed on Sundays" keeps its subject)
                           r"|,\s+and\s+(?=(?:a|an|the|each|every|all|any|no|our|your|their)\s)", re.IGNORECASE)


def _clauses(sentence: str) -> list[str]:
    """The clauses of ``sentence`` split at ";", ", but", ", except", ", unless" and ", and"
    before a new subject ("..., and a cleaning fee of £150 is charged"; [] when it has one): "Refunds take 5 days, except for gift cards, which are not refundable." gives
    "Refunds take 5 days" and "except for gift cards, which are not refundable"."""
    parts = [p.strip(" ,;") for p in _CLAUSE_BREAK.split(sentence)]
    parts = [p for p in parts if len(p.split()) >= 3]
    return parts if len(parts) > 1 else []


def sentence_units(chunk: EvidenceChunk, ref: str) -> list[EvidenceUnit]:
    """The evidence units of one chunk, in order: each sentence, followed by its clauses when it
    has several (blank sentences skipped)."""
    text = chunk.text
    sentences = [text[a:b].strip() for a, b in split_sentences(text)]
    sentences = [s for s in sentences if s]
    out = []
    for i, s in enumerate(sentences):
        context = f"{sentences[i - 1]} " if i > 0 and opens_with_anaphor(s) else ""
        out.append(EvidenceUnit(text=s, premise=context + s, ref=ref, chunk=chunk, sentence=s))
        for c in _clauses(s):
            out.append(EvidenceUnit(text=c, premise=context + c, ref=ref, chunk=chunk, sentence=s))
    return out


def _validate_facts(facts: Any, name: str) -> list[str]:
    """``facts`` as a list of plain str (str subclasses such as ``numpy.str_`` converted)."""
    if isinstance(facts, str) or not isinstance(facts, (list, tuple)):
        raise ConfigError(f"{name} must be a list of fact strings", "knowledge")
    for i, f in enumerate(facts):
        if not isinstance(f, str):
            raise ConfigError(f"{name}[{i}] must be a str, got {type(f).__name__}", "knowledge")
    return [str.__str__(f) for f in facts]


_ITEM_FORMS = ("a str, an EvidenceChunk, a {'text': str} mapping, a (text, score) tuple or an object with a "
               "str page_content")


def _as_chunk(item: Any, where: str) -> EvidenceChunk:
    """One item of a retriever's result as an EvidenceChunk (the forms of the module docstring)."""
    if isinstance(item, EvidenceChunk):
        return item
    if isinstance(item, str):
        return EvidenceChunk(text=str.__str__(item), distance=0.0)
    source: Any = ""
    if isinstance(item, Mapping):
        text, source = item.get("text"), item.get("source", "")
    elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        text = item[0]
    elif isinstance(getattr(item, "page_content", None), str):  # LangChain Document
        text = item.page_content
        meta = getattr(item, "metadata", None)
        source = meta.get("source", "") if isinstance(meta, Mapping) else ""
        source = source if isinstance(source, str) else ""
    else:
        text = None
    if not isinstance(text, str) or not isinstance(source, str):
        what = f"a {type(item).__name__} without a str 'text'" if isinstance(item, Mapping) else type(item).__name__
        raise InputTypeError(f"{where} is {what}; expected {_ITEM_FORMS}", "knowledge")
    return EvidenceChunk(text=str.__str__(text), distance=0.0, source=str.__str__(source))


def _retriever_call(fn: Any, knowledge: Any, call: str, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with a non-director_fast exception re-raised as RetrievalError; a
    result that is a lazy iterable (a generator) is read here, so that an error raised while it
    is consumed is wrapped too."""
    try:
        got = fn(*args, **kwargs)
        if isinstance(got, Iterable) and not isinstance(got, (str, bytes, Mapping, list, tuple)):
            got = list(got)
        return got
    except DirectorFastError:
        raise
    except Exception as exc:
        raise RetrievalError.wrap(exc, knowledge, call) from exc


def _check_retriever_signature(knowledge: Any) -> None:
    """ConfigError when the method the scorer calls (``retrieve_with_ids`` if present, else
    ``retrieve``) cannot take the keywords ``k`` and ``tenant``; nothing when its signature cannot
    be read (builtins, some C extensions)."""
    import inspect

    name = "retrieve_with_ids" if callable(getattr(knowledge, "retrieve_with_ids", None)) else "retrieve"
    try:
        params = inspect.signature(getattr(knowledge, name)).parameters.values()
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    keywords = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    missing = [kw for kw in ("k", "tenant") if kw not in keywords]
    if missing:
        raise ConfigError(
            f"knowledge.{name} must accept the keyword arguments k and tenant "
            f"({name}(query, k=..., tenant=...)); {type(knowledge).__name__}.{name} lacks "
            + " and ".join(missing), "knowledge")


class KnowledgeAccess:
    """Tenant-scoped retrieval from a scorer's knowledge (see the module docstring for the kinds).

    Args:
        knowledge: ``None``, a list of facts, a mapping ``tenant -> facts``, or a retriever.
        allow_unknown_tenant: with a :class:`KnowledgeBase` or a mapping, a tenant that holds no
            knowledge raises :class:`UnknownTenantError` unless this is True.

    Fact lists are indexed once here (later mutation of the list is not seen). Retrieval results
    are cached per ``(version, tenant, query, k)`` when the knowledge has a ``version`` (fact
    lists are immutable here and always cached; a retriever without ``version`` is never cached).

    Raises:
        ConfigError: knowledge of an unsupported shape (field ``knowledge``).
    """

    def __init__(self, knowledge: Any, *, allow_unknown_tenant: bool = False) -> None:
        self.knowledge = knowledge
        self.allow_unknown_tenant = bool(allow_unknown_tenant)
        self._indexes: dict[str | None, LexicalIndex] = {}
        self.kind = "none"
        if knowledge is None:
            pass
        elif callable(getattr(knowledge, "retrieve", None)):
            _check_retriever_signature(knowledge)
            self.kind = "retriever"
        elif isinstance(knowledge, Mapping):
            tenant_facts = {}
            for t, facts in knowledge.items():
                if not isinstance(t, str):
                    raise ConfigError("knowledge mapping keys must be tenant id strings", "knowledge")
                tenant_facts[t] = _validate_facts(facts, f"knowledge[{t!r}]")
            # a tenant whose facts are all blank holds no knowledge (like one with [])
            self._indexes = {t: LexicalIndex(f) for t, f in tenant_facts.items() if any(x.strip() for x in f)}
            self.kind = "tenant_facts"
        else:
            facts = _validate_facts(knowledge, "knowledge")
            if any(f.strip() for f in facts):  # [] / all blank: no knowledge at all (kind "none")
                self._indexes = {None: LexicalIndex(facts)}
                self.kind = "facts"
        self._cache: LRUCache[tuple] = LRUCache(_RETRIEVAL_CACHE)

    @property
    def version(self) -> Any:
        """Cache key of the knowledge's state: its ``version`` attribute for a retriever (``None``
        when it has none: nothing is cached), ``0`` for fact lists and mappings."""
        if self.kind == "retriever":
            return getattr(self.knowledge, "version", None)
        return 0

    def tenant_known(self, tenant: str) -> bool:
        """Whether ``tenant`` holds knowledge. A fact list is shared by all tenants; a retriever
        without ``has_tenant`` cannot tell and counts as known."""
        if self.kind == "facts":
            return True
        if self.kind == "tenant_facts":
            idx = self._indexes.get(tenant)
            return idx is not None and bool(idx.docs)
        if self.kind == "retriever":
            has = getattr(self.knowledge, "has_tenant", None)
            return bool(_retriever_call(has, self.knowledge, "has_tenant", tenant)) if callable(has) else True
        return False

    def check_tenant(self, tenant: str) -> bool:
        """True when ``tenant`` holds knowledge; False when it does not and unknown tenants are
        allowed (or there is no knowledge at all: ``knowledge=None``).

        Raises:
            UnknownTenantError: the tenant holds no knowledge and ``allow_unknown_tenant`` is off.
        """
        if not isinstance(tenant, str):
            raise InputTypeError(f"tenant_id must be a str, got {type(tenant).__name__}")
        if self.kind == "none":
            return False
        if self.tenant_known(tenant):
            return True
        if self.allow_unknown_tenant:
            return False
        raise UnknownTenantError(tenant)

    def retrieve(self, query: str, tenant: str, k: int) -> list[tuple[str, EvidenceChunk]]:
        """Up to ``k`` ``(ref, chunk)`` pairs for ``query`` in ``tenant``, most relevant first."""
        version = self.version
        if version is None:
            return self._retrieve(query, tenant, k)
        return list(self._cache.get_or_compute((version, tenant, query, k),
                                               lambda: tuple(self._retrieve(query, tenant, k))))

    def _retrieve(self, query: str, tenant: str, k: int) -> list[tuple[str, EvidenceChunk]]:
        kb = self.knowledge
        if self.kind == "none":
            return []
        if self.kind == "retriever":
            with_ids = getattr(kb, "retrieve_with_ids", None)
            if callable(with_ids):
                return [(f"kb:{i}", c) for i, c in
                        _retriever_call(with_ids, kb, "retrieve_with_ids", query, k=k, tenant=tenant)]
            got = _retriever_call(kb.retrieve, kb, "retrieve", query, k=k, tenant=tenant)
            if got is None:  # nothing found
                return []
            where = f"{type(kb).__name__}.retrieve(...)"
            if isinstance(got, (str, bytes, Mapping)) or not isinstance(got, Iterable):
                raise InputTypeError(f"knowledge {where} returned {type(got).__name__}; expected a list (or None) "
                                     f"whose items are each {_ITEM_FORMS}", "knowledge")
            chunks = [_as_chunk(c, f"item [{i}] of the list that knowledge {where} returned")
                      for i, c in enumerate(got)]
            return [(f"kb:{chunk_digest(c.text)}", c) for c in chunks]
        index = self._indexes.get(tenant if self.kind == "tenant_facts" else None)
        if index is None:
            return []
        label = f"tenant:{tenant}:fact:" if self.kind == "tenant_facts" and tenant else "fact:"
        return [(f"fact:{i}", EvidenceChunk(text=index.docs[i], distance=round(1.0 - s, 12), source=f"{label}{i}"))
                for i, s in index.top_k(query, k) if s > 0.0]

    def clear(self) -> None:
        """Drop cached retrievals."""
        self._cache.clear()


#: longest run of consecutive sentences of a context document compared as one unit.
WINDOW = 3


def window_units(units: Sequence[EvidenceUnit], size: int = WINDOW) -> list[EvidenceUnit]:
    """Units made of one document's consecutive sentences: every run of 2 to ``size``
    sentences, then the whole document when it is longer than that. A summary or a claim often
    fuses adjacent sentences of its source. Only for a document passed with the call
    (``context=``): never across documents, never for knowledge-base chunks (whose facts are
    unrelated to each other). Chosen on design data only (SummEdits 'evaluation' split, WiCE
    dev): windows and the whole document together raised balanced accuracy from 0.56 / 0.54
    (sentences alone) to 0.66 / 0.76."""
    sentences = [u for u in units if u.text == u.sentence]
    out = []
    runs = [sentences[i:i + n] for n in range(2, size + 1) for i in range(len(sentences) - n + 1)]
    if len(sentences) > size:
        runs.append(sentences)
    for run in runs:
        text = " ".join(u.text for u in run)
        out.append(EvidenceUnit(text=text, premise=text, ref=run[0].ref, chunk=run[0].chunk, sentence=text,
                                sentences=len(run), members=tuple(u.text for u in run)))
    return out


def most_about(claim: str, sentences: Sequence[str]) -> int:
    """The index of the sentence of ``sentences`` (non-empty) that ``claim`` is about: the one
    sharing the most content words with it, the first of equals."""
    words = content_words(claim)
    return max(range(len(sentences)), key=lambda k: (len(words & content_words(sentences[k])), -k))


def member_about(claim: str, unit: EvidenceUnit) -> EvidenceUnit:
    """The unit that decides for ``claim`` within ``unit``: ``unit`` itself when it is a sentence
    or a clause; for a run of :func:`window_units`, its member sentence the claim is about
    (:func:`most_about`) as a one-sentence unit of the same chunk and reference. An exception
    the claim drops is read in that sentence, a run's number conflict must hold there too, and an
    attribution names it, never a whole passage: "Collecting a dog after 19:00 incurs a late
    fee." is not held to an exception in the vaccination sentence before it."""
    if not unit.members:
        return unit
    return member_unit(unit, unit.members[most_about(claim, unit.members)])


def member_unit(run: EvidenceUnit, sentence: str) -> EvidenceUnit:
    """One member ``sentence`` of the ``run`` as a one-sentence unit of the same chunk and
    reference."""
    return EvidenceUnit(text=sentence, premise=sentence, ref=run.ref, chunk=run.chunk, sentence=sentence)


class ContextEvidence:
    """Evidence passed with one call (``context=``, tool results): every sentence (and clause)
    of every text is a unit, and so are runs of consecutive sentences of one text
    (:func:`window_units`); :meth:`top_units` ranks them for a claim (IDF-weighted word overlap).

    Args:
        texts: the evidence texts, in order.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = tuple(texts)
        units: list[EvidenceUnit] = []
        for i, t in enumerate(self.texts):
            chunk = EvidenceChunk(text=t, distance=0.0, source=f"context:{i}")
            own = sentence_units(chunk, f"ctx:{i}")
            units.extend(own)
            units.extend(window_units(own))
        self.units = units
        self._index = LexicalIndex([u.premise for u in units])

    def leading_units(self, n: int) -> list[EvidenceUnit]:
        """The first ``n`` whole sentences of the texts, in order: the premise of a claim that
        shares no word with any unit (a reply such as "He started it." still has the passage it
        answers from)."""
        return [u for u in self.units if u.sentences == 1 and u.text == u.sentence][:n]

    def top_units(self, query: str, n: int) -> list[EvidenceUnit]:
        """The ``n`` units sharing the most (IDF-weighted) words with ``query``; units that
        share none are left out."""
        return [self.units[i] for i, s in self._index.top_k(query, n) if s > 0.0]

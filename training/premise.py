"""Premise-chunk selection shared by training, evaluation and (reimplemented) inference.

The learned factual-consistency model sees one (premise, hypothesis) pair capped at 256 tokens. A source
document is usually longer, so the premise is built from the document sentences that are most lexically
similar to the hypothesis:

1. ``split_sentences(context)``: split on newlines, then after ``.``, ``!`` or ``?`` followed by
   whitespace and an upper-case letter, digit or quote; pieces longer than ``MAX_SENT_WORDS`` word
   tokens are cut into consecutive pieces of that many word tokens.
2. Word tokens are ``re.findall(r"\\w+|[^\\w\\s]", text.lower())`` (Unicode ``\\w``); content tokens are the
   word tokens that are alphanumeric and not in ``STOPWORDS``.
3. Each sentence scores ``|content(sentence) ∩ content(hypothesis)|`` (distinct tokens) divided by
   ``sqrt(1 + |content(sentence)|)`` (a short sentence that carries the overlap wins over a long one).
4. Sentences are taken greedily by descending score (ties: earlier sentence first) while the sum of their
   word-token counts stays within ``budget_words`` (default 100 word tokens ≈ 120-140 WordPiece tokens; chosen so that
   CPU training fits the compute budget and batch-16 latency stays low);
   a sentence that does not fit is skipped and the next is tried. When no sentence fits, the best one is cut
   on whitespace to the budget (empty only when its first word alone exceeds the budget).
5. The chosen sentences are joined with a single space in document order.

The tokenizer then truncates the premise only (strategy ``only_first``) so that
``[CLS] premise [SEP] hypothesis [SEP]`` is at most 256 tokens. Pure standard library; deterministic.
"""

from __future__ import annotations

import math
import re

MAX_SENT_WORDS = 60
DEFAULT_BUDGET_WORDS = 100

_WORD = re.compile(r"\w+|[^\w\s]")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'“(A-Z0-9])")

STOPWORDS = frozenset("""
a an the and or but if then else of to in on at by for with from as is are was were be been being am
it its it's this that these those there here he she they we you i me him her them us our your their his
my mine not no nor so than too very can could will would shall should may might must do does did done
has have had having what which who whom whose when where why how all any both each few more most other
some such only own same just also into over under about after before between through during out up down
off again further once s t
""".split())


def word_tokens(text: str) -> list[str]:
    """Lower-cased word tokens (``\\w+`` runs and single punctuation marks) of ``text``."""
    return _WORD.findall(text.lower())


def content_tokens(text: str) -> set[str]:
    """Distinct alphanumeric, non-stopword word tokens of ``text``."""
    return {t for t in word_tokens(text) if t.isalnum() and t not in STOPWORDS}


def split_sentences(context: str) -> list[str]:
    """Split ``context`` into sentence-like pieces of at most ``MAX_SENT_WORDS`` word tokens.

    Returns the non-empty, stripped pieces in document order.
    """
    out: list[str] = []
    for line in context.split("\n"):
        line = line.strip()
        if not line:
            continue
        for sent in _SPLIT.split(line):
            sent = sent.strip()
            if not sent:
                continue
            words = sent.split()
            if len(word_tokens(sent)) <= MAX_SENT_WORDS:
                out.append(sent)
                continue
            # cut long pieces on whitespace into runs of <= MAX_SENT_WORDS word tokens
            cur: list[str] = []
            n = 0
            for w in words:
                k = len(word_tokens(w))
                if cur and n + k > MAX_SENT_WORDS:
                    out.append(" ".join(cur))
                    cur, n = [], 0
                cur.append(w)
                n += k
            if cur:
                out.append(" ".join(cur))
    return out


def select_premise(context: str, hypothesis: str, budget_words: int = DEFAULT_BUDGET_WORDS) -> str:
    """Return the premise chunk of ``context`` for ``hypothesis`` (see the module docstring).

    ``budget_words`` is in word tokens (``word_tokens``), >= 1. Returns ``""`` for an empty context.
    """
    sents = split_sentences(context)
    if not sents:
        return ""
    hyp = content_tokens(hypothesis)
    lens = [len(word_tokens(s)) for s in sents]
    scores = []
    for i, s in enumerate(sents):
        c = content_tokens(s)
        scores.append((-(len(c & hyp) / math.sqrt(1 + len(c))), i))
    scores.sort()
    chosen: list[int] = []
    used = 0
    for _, i in scores:
        if used + lens[i] <= budget_words:
            chosen.append(i)
            used += lens[i]
    if not chosen:  # every sentence is over budget: cut the best one on whitespace to fit
        words, n = [], 0
        for w in sents[scores[0][1]].split():
            k = len(word_tokens(w))
            if n + k > budget_words:
                break
            words.append(w)
            n += k
        return " ".join(words)
    chosen.sort()
    return " ".join(sents[i] for i in chosen)

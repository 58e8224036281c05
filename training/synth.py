"""FactCC-style synthetic (premise, hypothesis) pairs (Kryscinski et al., 2020, "Evaluating the Factual
Consistency of Abstractive Text Summarization"), generated from the contexts of the *training* rows only.

For each context, sentences of 8..45 word tokens are candidate "claims". With ``random.Random(seed)``
(default seed 20261130) the generator emits, per sampled claim sentence ``s``:

- positive (label 1): ``s`` copied verbatim, or ``s`` followed by a second sentence of the same context
  ("two-sentence summary"), or ``s`` with a leading clause/attribution dropped when it has a comma
  ("... , said X" style shortening);
- negative (label 0), one transformation of ``s`` that must change the text:
  ``number``  a number replaced by another number of the document or a nearby value (years +-1..9),
  ``date``    a month or weekday name replaced by another,
  ``entity``  a capitalised name (not the first word) replaced by another capitalised name of the document,
  ``negation`` "not" inserted after the first auxiliary verb, or an existing "not"/"n't" removed,
  ``pronoun`` he<->she, his<->her, him->her, her->him,
  ``mix``     ``s`` followed by a sentence from another document (partly unsupported),
  ``foreign`` a sentence of another document alone (unsupported).
The premise is ``select_premise(context, hypothesis)``, exactly as at inference. Output is deterministic
for a given seed and input order.
"""

from __future__ import annotations

import random
import re

from premise import select_premise, split_sentences, word_tokens

SEED = 20261130

_NUM = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])\d+(?:\.\d+)?(?![\w])")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_DATE = re.compile(r"\b(" + "|".join(_MONTHS + _DAYS) + r")\b")
_ENT = re.compile(r"\b[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*")
_AUX = re.compile(r"\b(is|are|was|were|has|have|had|will|can|could|should|would|does|did|do)\b(?!\s+not)")
_NEG = re.compile(r"\s+not\b|n't\b")
_PRON = {"he": "she", "she": "he", "his": "her", "him": "her", "her": "his",
         "He": "She", "She": "He", "His": "Her", "Her": "His"}
_PRON_RE = re.compile(r"\b(" + "|".join(_PRON) + r")\b")
_SKIP_ENT = set(_MONTHS + _DAYS) | {"The", "A", "An", "In", "On", "It", "This", "That", "He", "She", "They",
                                    "We", "I", "But", "And", "For", "As", "At", "By", "If", "His", "Her"}


def _numbers_of(text: str) -> list[str]:
    return _NUM.findall(text)


def swap_number(s: str, doc: str, rng: random.Random) -> str | None:
    nums = list(_NUM.finditer(s))
    if not nums:
        return None
    m = rng.choice(nums)
    old = m.group(0)
    cands = [n for n in set(_numbers_of(doc)) if n != old and n not in s]
    if cands and rng.random() < 0.5:
        new = rng.choice(sorted(cands))
    else:
        raw = old.replace(",", "")
        if "." in raw:
            v = float(raw)
            new = f"{v * rng.choice([0.5, 1.5, 2, 3]) + rng.choice([0.1, 1]):.{len(raw.split('.')[1])}f}"
        else:
            v = int(raw)
            if 1900 <= v <= 2099:
                new = str(v + rng.choice([-9, -5, -3, -2, -1, 1, 2, 3, 4, 7]))
            elif v < 10:
                new = str(rng.choice([x for x in range(1, 13) if x != v]))
            else:
                new = str(max(1, int(v * rng.choice([0.4, 0.6, 1.5, 2, 3]))))
            if "," in old:
                new = f"{int(new):,}"
    if new == old:
        return None
    return s[:m.start()] + new + s[m.end():]


def swap_date(s: str, doc: str, rng: random.Random) -> str | None:
    ms = list(_DATE.finditer(s))
    if not ms:
        return None
    m = rng.choice(ms)
    pool = _MONTHS if m.group(0) in _MONTHS else _DAYS
    new = rng.choice([x for x in pool if x != m.group(0)])
    return s[:m.start()] + new + s[m.end():]


def _entities(text: str) -> list[re.Match]:
    out = []
    for m in _ENT.finditer(text):
        if m.start() == 0 or m.group(0) in _SKIP_ENT:
            continue
        out.append(m)
    return out


def swap_entity(s: str, doc: str, rng: random.Random) -> str | None:
    ents = _entities(s)
    if not ents:
        return None
    m = rng.choice(ents)
    pool = sorted({e.group(0) for e in _entities(doc)} - {e.group(0) for e in ents})
    if not pool:
        return None
    return s[:m.start()] + rng.choice(pool) + s[m.end():]


def negate(s: str, doc: str, rng: random.Random) -> str | None:
    if _NEG.search(s):
        out = _NEG.sub("", s, count=1)
        return out if out != s else None
    m = _AUX.search(s)
    if not m:
        return None
    return s[:m.end()] + " not" + s[m.end():]


def swap_pronoun(s: str, doc: str, rng: random.Random) -> str | None:
    ms = list(_PRON_RE.finditer(s))
    if not ms:
        return None
    m = rng.choice(ms)
    return s[:m.start()] + _PRON[m.group(0)] + s[m.end():]


TRANSFORMS = {"number": swap_number, "date": swap_date, "entity": swap_entity, "negation": negate,
              "pronoun": swap_pronoun}


def _claim_sentences(context: str) -> list[str]:
    return [s for s in split_sentences(context) if 8 <= len(word_tokens(s)) <= 45]


def generate(contexts: list[str], n_pairs: int, seed: int = SEED) -> list[tuple[str, str, int, str]]:
    """Return ``n_pairs`` tuples ``(premise, hypothesis, label, kind)``, about half of each label.

    ``contexts``: distinct source documents of the training split. Deterministic for a fixed seed.
    """
    rng = random.Random(seed)
    docs = [(c, _claim_sentences(c)) for c in contexts]
    docs = [(c, ss) for c, ss in docs if ss]
    out: list[tuple[str, str, int, str]] = []
    guard = 0
    while len(out) < n_pairs and guard < n_pairs * 20:
        guard += 1
        di = rng.randrange(len(docs))
        ctx, sents = docs[di]
        s = rng.choice(sents)
        if rng.random() < 0.45:  # positive
            r = rng.random()
            if r < 0.5:
                hyp, kind = s, "copy"
            elif r < 0.8 and len(sents) > 1:
                s2 = rng.choice([x for x in sents if x != s])
                hyp, kind = s + " " + s2, "two"
            elif "," in s:
                parts = s.split(",")
                longest = max(parts, key=len).strip()
                if len(word_tokens(longest)) < 6:
                    continue
                hyp, kind = longest[0].upper() + longest[1:].rstrip(".") + ".", "shorten"
            else:
                continue
            label = 1
        else:
            r = rng.random()
            if r < 0.12 or r < 0.22:
                oc, osents = docs[rng.randrange(len(docs))]
                if oc == ctx:
                    continue
                o = rng.choice(osents)
                hyp, kind = ((s + " " + o), "mix") if r < 0.12 else (o, "foreign")
            else:
                order = list(TRANSFORMS)
                rng.shuffle(order)
                hyp = None
                for kind in order:
                    hyp = TRANSFORMS[kind](s, ctx, rng)
                    if hyp is not None and hyp != s:
                        break
                if hyp is None or hyp == s:
                    continue
            label = 0
        out.append((select_premise(ctx, hyp), hyp, label, kind))
    return out

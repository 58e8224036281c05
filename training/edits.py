"""Minimal edits of a supported sentence that its evidence no longer supports (build_mix.py's
synthetic errors): a changed number or time, an inserted or removed negation, a name swapped for
another name of the same kind from the same passage. Regex only; no model, no data.
"""

from __future__ import annotations

import random
import re


try:  # the library's sentence splitter where director_fast is installed (build_mix.py runs there)
    from director_fast.verify.text import split_sentences as _spans

    def split_sentences(text: str) -> list[str]:
        return [text[a:b].strip() for a, b in _spans(text) if text[a:b].strip()]
except ImportError:  # a venv without the package: a simple regex
    def split_sentences(text: str) -> list[str]:
        parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(£$€])|\n+", text)
        return [p.strip() for p in parts if p and p.strip()]


WORD = re.compile(r"[A-Za-z0-9£$€%:.']+")


STOP = set("a an the of to in on at for and or is are was were be been by with as it its this that these those "
           "from your you we our us can will may do does not no if so than then".split())


NEG_AUX = [(r"\bis\b", "is not"), (r"\bare\b", "are not"), (r"\bcan\b", "cannot"), (r"\bwill\b", "will not"),
           (r"\bmust\b", "must not"), (r"\bhas\b", "does not have"), (r"\bhave\b", "do not have"),
           (r"\bincludes?\b", "does not include"), (r"\bapplies\b", "does not apply"), (r"\bmay\b", "may not")]


UNNEG = [(r"\bis not\b", "is"), (r"\bare not\b", "are"), (r"\bcannot\b", "can"), (r"\bcan't\b", "can"),
         (r"\bdo not\b", "do"), (r"\bdoes not\b", "does"), (r"\bwill not\b", "will"), (r"\bnot\b ", ""),
         (r"\bno longer\b", "still"), (r"\bnever\b", "always")]


DAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Mondays", "Tuesdays",
        "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays"}


MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"}


def change_number(s: str, rng: random.Random) -> str | None:
    nums = list(re.finditer(r"(?<![\w.])(\d+)(?:([.:,])(\d+))?", s))
    if not nums:
        return None
    m = rng.choice(nums)
    a = int(m.group(1))
    if m.group(2) == ":":  # time: shift the hour
        new = f"{(a + rng.choice([1, 2, 3, -1, -2])) % 24:02d}:{m.group(3)}"
    else:
        cand = [a + d for d in (1, 2, 5, 10, -1, -2) if a + d > 0 and a + d != a] + [a * 2] + ([a // 2] if a > 3 else [])
        new_a = rng.choice(cand)
        new = str(new_a) + (m.group(2) + m.group(3) if m.group(2) else "")
    if new == m.group(0):
        return None
    return s[:m.start()] + new + s[m.end():]


def entities(text: str) -> list[str]:
    out = []
    for sent in split_sentences(text):
        for m in re.finditer(r"(?<!^)(?<![.!?] )\b([A-Z][a-zA-Z'-]+(?: [A-Z][a-zA-Z'-]+)*)", sent):
            if m.start() > 0 and m.group(1).lower() not in STOP:
                out.append(m.group(1))
    return out


def ent_type(e: str) -> str:
    if e in DAYS:
        return "day"
    if e in MONTHS:
        return "month"
    if e.isupper():
        return "acronym"  # NOK, VAT, VRT: never swapped with names
    return "name"


def swap_entity(s: str, ents: list[str], rng: random.Random) -> str | None:
    present = [e for e in set(ents) if re.search(r"\b" + re.escape(e) + r"\b", s) and s.find(e) > 0
               and ent_type(e) != "acronym"]
    if not present:
        return None
    e = rng.choice(sorted(present))
    others = sorted({x for x in ents if x != e and x not in s and len(x.split()) == len(e.split())
                     and ent_type(x) == ent_type(e) and x.rstrip("s") != e.rstrip("s")})
    if not others:
        return None
    return re.sub(r"\b" + re.escape(e) + r"\b", rng.choice(others), s, count=1)


def negate(s: str, rng: random.Random) -> str | None:
    for pat, rep in UNNEG:
        if re.search(pat, s):
            out = re.sub(pat, rep, s, count=1)
            return out if out != s else None
    opts = [(p, r) for p, r in NEG_AUX if re.search(p, s)]
    if not opts:
        return None
    p, r = rng.choice(opts)
    return re.sub(p, r, s, count=1)


_LOWER_FIRST = {"The", "A", "An", "It", "Its", "He", "She", "They", "Their", "His", "Her", "This", "That", "These",
                "Those", "There", "In", "On", "At", "For", "Some", "Many", "Most", "One", "Each", "Every"}


def join_clause(hyp: str, extra: str) -> str | None:
    """``hyp`` and ``extra`` joined into one sentence ("hyp, and extra."): with ``extra`` taken
    from another passage, the invented extra clause of a hallucinated answer (not entailed); with
    ``extra`` from the premise itself, the same shape entailed (so the join is not a shortcut).
    None when ``hyp`` is a question or either part is empty."""
    h = hyp.strip().rstrip(".!").rstrip()
    e = extra.strip().rstrip(".!?").rstrip()
    if not h or not e or h.endswith("?") or "?" in h[-3:]:
        return None
    first, _, rest = e.partition(" ")
    if first in _LOWER_FIRST:
        first = first.lower()
    return f"{h}, and {first} {rest}".rstrip() + "."

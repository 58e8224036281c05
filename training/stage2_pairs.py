"""Stage 2 data: in-domain (premise, hypothesis, label) pairs for fine-tuning the stage-1 SNLI model.

Labels: 0 entailment, 1 neutral, 2 contradiction. Rows with ``"binary": true`` only know entailment vs
not-entailment (label 0 = entailed, label 1 = not entailed); train_stage2.py trains them with a binary loss on
P(entailment). Output: one JSON object per line {premise, hypothesis, label, binary, source}.

Sources
  (a) chat/RAG DEV split only (bench/data/chat_rag/cases.jsonl, ``split == "dev"``; held-out rows are never
      read into the pair builder, asserted): KB sentences -> entailment (identity, clause, dropped leading
      clause, synonym rewrite), contradiction (number/time/price change, entity swap within the domain's KB,
      negation insert/remove, role swap in "A reports to B"-like sentences), neutral (sentence of another
      document of the same domain, sentence + invented detail); plus the response sentences of
      ``supported: true`` dev cases paired with their best-overlapping KB sentences (entailment); with
      ``--wrong-claims``, the one claim of an unsupported dev reply that the lexical backend does not
      support, paired the same way (binary, not entailed).
  (b) /work/shared/data/halluc/: summedits.jsonl rows with split == "evaluation" and wice_claim_dev.jsonl,
      binary (premise: <= 3 document sentences most overlapping the response; hypothesis: the response's
      first sentence).
  (c) --snli-n random SNLI train pairs (replay).

Run with the package venv (uses director_fast.verify.text.split_sentences; falls back to a regex):
    /work/venv/bin/python training/stage2_pairs.py --out /work/ckpt2/pairs.jsonl
``--exclude-domains a,b,c`` leaves those dev domains out of every pair, for a validation run whose
model has never seen them (judge the combination policy on them, then train on all dev domains).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CASES = os.path.join(REPO, "bench", "data", "chat_rag", "cases.jsonl")
HALLUC = "/work/shared/data/halluc"

try:
    from director_fast.verify.text import split_sentences as _split_spans

    def split_sentences(text: str) -> list[str]:
        return [text[a:b].strip() for a, b in _split_spans(text) if text[a:b].strip()]
except Exception:  # torch venv: simple regex
    def split_sentences(text: str) -> list[str]:
        parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(£$€])|\n+", text)
        return [p.strip() for p in parts if p and p.strip()]

WORD = re.compile(r"[A-Za-z0-9£$€%:.']+")
STOP = set("a an the of to in on at for and or is are was were be been by with as it its this that these those "
           "from your you we our us can will may do does not no if so than then".split())

SYNONYMS = {
    "offers": "provides", "provides": "offers", "customers": "clients", "purchase": "buy", "buy": "purchase",
    "receive": "get", "get": "receive", "must": "have to", "need": "require", "needs": "requires",
    "allowed": "permitted", "permitted": "allowed", 
    "help": "assist", "large": "big", "small": "little", "begin": "start",
    "begins": "starts", "starts": "begins", "end": "finish", "ends": "finishes", "every day": "daily",
    "daily": "every day", "available": "offered", "staff": "employees", "members": "subscribers",
    "cancel": "call off", "refund": "reimbursement", "within": "inside", "about": "roughly",
    "approximately": "about", "also": "additionally", "only": "solely", "contact": "reach",
    "passengers": "travellers", "travellers": "passengers", "tickets": "fares", "quickly": "fast",
    "closed": "shut", "before": "prior to",
    "after": "following", "returns": "sends back", "booking": "reservation", "bookings": "reservations",
}
NEG_AUX = [(r"\bis\b", "is not"), (r"\bare\b", "are not"), (r"\bcan\b", "cannot"), (r"\bwill\b", "will not"),
           (r"\bmust\b", "must not"), (r"\bhas\b", "does not have"), (r"\bhave\b", "do not have"),
           (r"\bincludes?\b", "does not include"), (r"\bapplies\b", "does not apply"), (r"\bmay\b", "may not")]
UNNEG = [(r"\bis not\b", "is"), (r"\bare not\b", "are"), (r"\bcannot\b", "can"), (r"\bcan't\b", "can"),
         (r"\bdo not\b", "do"), (r"\bdoes not\b", "does"), (r"\bwill not\b", "will"), (r"\bnot\b ", ""),
         (r"\bno longer\b", "still"), (r"\bnever\b", "always")]
ROLE = re.compile(r"^(.*?)\b([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)(,[^,]*,)? (reports to|acquired|replaced|manages|"
                  r"supervises|owns|succeeded) ([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)(.*)$")
DETAILS = [", and a discount applies to students", " on weekdays only", ", including on public holidays",
           " and includes a free welcome pack", ", which was introduced last year", " for members over 65",
           ", according to a 2023 review", " in all regions", ", and the fee is waived for children",
           " after an online registration", ", subject to manager approval", " at no extra cost on Sundays"]
GREETINGS = re.compile(r"^(hi|hello|hey|thanks|thank you|sure|of course|great question|happy to help|"
                       r"i hope|let me know|glad|you're welcome|no problem|good (morning|afternoon))\b", re.I)


def toks(s: str) -> set[str]:
    return {w.lower().strip(".':") for w in WORD.findall(s)} - STOP - {""}


def best_overlap(hyp: str, sents: list[str], k: int) -> list[str]:
    h = toks(hyp)
    scored = sorted(range(len(sents)), key=lambda i: -len(h & toks(sents[i])) / (1 + 0.02 * len(toks(sents[i]))))
    top = sorted(scored[:k])  # keep document order
    return [sents[i] for i in top]


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


DAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Mondays", "Tuesdays",
        "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays"}
MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"}


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


def swap_roles(s: str) -> str | None:
    m = ROLE.match(s)
    if not m or m.group(3) or m.group(1).rstrip().endswith(("of", "Head", "head")):
        # fallback: a sentence with a role verb and exactly two full names: swap the names
        if not re.search(r"\b(reports to|acquired|replaced|manages|supervises|succeeded|led by)\b", s):
            return None
        names = list(dict.fromkeys(re.findall(r"\b(?:Dr |Ms |Mr )?[A-Z][a-z]+ [A-Z][a-z]+\b", s)))
        if len(names) != 2:
            return None
        a, b = names
        return s.replace(a, "\0").replace(b, a).replace("\0", b)
    pre, a, appos, verb, b, post = m.groups()
    return f"{pre}{b} {verb} {a}{post}"


def synonym_rewrite(s: str, rng: random.Random) -> str | None:
    keys = [k for k in SYNONYMS if re.search(r"\b" + re.escape(k) + r"\b", s)]
    if not keys:
        return None
    out = s
    for k in rng.sample(keys, min(len(keys), 2)):
        out = re.sub(r"\b" + re.escape(k) + r"\b", SYNONYMS[k], out, count=1)
    return out if out != s else None


RESTRICT = re.compile(r"\b(except|unless|but|only|not|no|never|however|provided|as long as|if|when|other than|"
                      r"without|apart from|excluding|until|before|after)\b", re.I)
VERB = re.compile(r"\b(is|are|was|were|has|have|can|must|will|may|costs?|offers?|runs?|opens?|closes?|takes?|"
                  r"gets?|includes?|meets?|holds?|leads?|earns?|needs?|pays?|covers?|serves?|starts?|ends?)\b")


def clause(s: str, rng: random.Random) -> str | None:
    # a clause of a sentence is entailed only if the dropped part does not restrict it
    if RESTRICT.search(s):
        return None
    parts = [p.strip() for p in re.split(r";\s+|,\s+and\s+|,\s+(?=(?:the|it|they|which is|who)\b)", s.rstrip("."))
             if p and p.strip()]
    parts = [p for p in parts if len(p.split()) >= 5 and VERB.search(p) and not re.match(r"(which|who)\b", p)]
    if len(parts) < 2:
        return None
    if len(parts) < 2 and not (len(parts) == 1 and parts[0] != s.rstrip(".")):
        return None
    p = parts[0] if rng.random() < 0.6 else rng.choice(parts)
    if p == s.rstrip("."):
        return None
    return p[0].upper() + p[1:] + "."


def drop_exception(s: str) -> str | None:
    """Drop a stated exception/restriction: the broader claim contradicts the KB sentence."""
    out = re.sub(r",?\s*(except|but not|unless|other than|apart from|excluding)\b[^.;]*", "", s, count=1)
    if out == s or len(out.split()) < 5:
        return None
    return out.rstrip(" ,;") + ("" if out.rstrip().endswith(".") else ".")


def drop_leading(s: str) -> str | None:
    # only discourse markers: dropping a condition ("If ...,", "On Sundays ...") changes the claim
    m = re.match(r"^(However|Also|In addition|Additionally|Please note that|Note that|In general|Generally)\b,?\s+(.*)$", s)
    if not m:
        return None
    rest = m.group(2)
    return rest[0].upper() + rest[1:]


def swap_is(s: str) -> str | None:
    m = re.match(r"^(The [\w' -]{2,40}?) is ((?:the |an? )?[A-Z][\w' -]{2,40}|the [\w' -]{2,40})\.$", s)
    if not m or " and " in m.group(2) or " not" in m.group(2):
        return None
    return f"{m.group(2)[0].upper()}{m.group(2)[1:]} is {m.group(1)[0].lower()}{m.group(1)[1:]}."


def kb_pairs(domain: str, kb: dict[str, str], rng: random.Random) -> list[dict]:
    rows = []
    docs = {src: split_sentences(text) for src, text in kb.items()}
    ents = entities(" ".join(kb.values()))

    def add(p, h, lab, kind):
        if h and p and h.strip() != "" and len(h.split()) >= 3:
            rows.append({"premise": p, "hypothesis": h, "label": lab, "binary": False,
                         "source": f"kb:{kind}", "domain": domain})

    for src, sents in docs.items():
        for i, s in enumerate(sents):
            if len(s.split()) < 4:
                continue
            # premise: the sentence alone, or with a neighbour (the guardrail's premises are multi-sentence)
            prem = s
            if rng.random() < 0.5 and len(sents) > 1:
                j = i + 1 if i + 1 < len(sents) and (i == 0 or rng.random() < 0.5) else i - 1
                prem = " ".join([sents[min(i, j)], sents[max(i, j)]])
            # entailment
            if rng.random() < 0.5:
                add(prem, s, 0, "identity")
            for kind, fn in (("clause", lambda x: clause(x, rng)), ("drop_leading", drop_leading),
                             ("synonym", lambda x: synonym_rewrite(x, rng)), ("swap_is", swap_is)):
                h = fn(s)
                if h and h != s:
                    add(prem, h, 0, kind)
            # contradiction
            for kind, fn in (("number", lambda x: change_number(x, rng)),
                             ("entity", lambda x: swap_entity(x, ents, rng)),
                             ("negation", lambda x: negate(x, rng)), ("roles", swap_roles),
                             ("dropped_exception", drop_exception)):
                h = fn(s)
                if h and h != s:
                    add(prem, h, 2, kind)
                    if kind == "number" and rng.random() < 0.5:  # a second, different number change
                        h2 = change_number(s, rng)
                        if h2 and h2 not in (s, h):
                            add(prem, h2, 2, kind)
            # neutral
            other = [t for o, ss in docs.items() if o != src for t in ss if len(t.split()) >= 4]
            if other:
                add(prem, rng.choice(other), 1, "other_doc")
            base = s.rstrip(".")
            add(prem, base + rng.choice(DETAILS) + ".", 1, "invented_detail")
    return rows


def case_pairs(dev: list[dict]) -> list[dict]:
    rows = []
    for c in dev:
        if not c["supported"] or c.get("kind") == "abstention":
            continue  # per-sentence labels of unsupported responses are unknown; abstentions make no claim
        kb_sents = [t for text in c["kb"].values() for t in split_sentences(text)]
        for s in split_sentences(c["response"]):
            if len(s.split()) < 5 or GREETINGS.match(s) or len(toks(s)) < 3:
                continue
            if len(toks(s) & toks(" ".join(best_overlap(s, kb_sents, 2)))) < 2:
                continue  # no KB sentence to pair with (a non-claim)
            for k in (1, 2):
                rows.append({"premise": " ".join(best_overlap(s, kb_sents, k)), "hypothesis": s, "label": 0,
                             "binary": False, "source": f"dev_case:top{k}", "domain": c["domain"]})
    return rows


def wrong_case_pairs(dev: list[dict]) -> list[dict]:
    """Binary not-entailed rows from the dev split's unsupported replies: where the lexical
    backend (the package's ``CoherenceScorer``) supports every claim of the reply but one, that one
    is the reply's wrong claim (the reply is labelled unsupported); it is paired with its best 1
    and 2 overlapping knowledge sentences. These are the near misses a model must not accept (a
    wrong claim the lexical backend covers too thinly to judge)."""
    try:
        import director_fast as df
    except ImportError:  # the torch venv: run this script with the package's venv
        return []
    rows = []
    scorers: dict[str, object] = {}
    for c in dev:
        if c["supported"]:
            continue
        if c["domain"] not in scorers:
            kb = df.KnowledgeBase()
            for source, text in c["kb"].items():
                kb.add(text, source=source, tenant=c["domain"])
            scorers[c["domain"]] = df.CoherenceScorer(knowledge=kb)
        _ok, score = scorers[c["domain"]].review(c["question"], c["response"], tenant_id=c["domain"])
        bad = [a for a in score.attributions if a.verdict != "supported"]
        if len(bad) != 1 or len(score.attributions) < 1:
            continue
        claim = bad[0].claim
        if len(claim.split()) < 4:
            continue
        kb_sents = [t for text in c["kb"].values() for t in split_sentences(text)]
        for k in (1, 2):
            rows.append({"premise": " ".join(best_overlap(claim, kb_sents, k)), "hypothesis": claim, "label": 1,
                         "binary": True, "source": f"dev_wrong:top{k}", "domain": c["domain"]})
    return rows


def halluc_pairs() -> list[dict]:
    rows = []
    for fname, keep in (("summedits.jsonl", lambda r: r.get("split") == "evaluation"),
                        ("wice_claim_dev.jsonl", lambda r: True)):
        with open(os.path.join(HALLUC, fname), encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if not keep(r):
                    continue
                hs = split_sentences(r["response"])
                if not hs:
                    continue
                doc = [t for t in split_sentences(r["context"]) if len(t.split()) >= 3]
                if not doc:
                    continue
                prem = " ".join(best_overlap(hs[0], doc, 3))
                rows.append({"premise": prem, "hypothesis": hs[0], "label": 1 if r["hallucinated"] else 0,
                             "binary": True, "source": f"halluc:{fname.split('.')[0]}", "domain": None})
    return rows


def snli_pairs(n: int, seed: int) -> list[dict]:
    sys.path.insert(0, HERE)
    import fetch_data
    import snli

    rows = snli.train(fetch_data.fetch())
    idx = random.Random(seed).sample(range(len(rows)), min(n, len(rows)))
    return [{"premise": rows[i][0], "hypothesis": rows[i][1], "label": rows[i][2], "binary": False,
             "source": "snli", "domain": None} for i in idx]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/work/ckpt2/pairs.jsonl")
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("--snli-n", type=int, default=20000)
    ap.add_argument("--dev-repeat", type=int, default=2, help="copies of the in-domain (a) pairs")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--exclude-domains", default="",
                    help="comma-separated dev domains left out of every pair (a domain-held-out validation run)")
    ap.add_argument("--wrong-claims", action="store_true",
                    help="also binary not-entailed rows from unsupported dev replies (wrong_case_pairs)")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    with open(args.cases, encoding="utf-8") as f:
        allc = [json.loads(line) for line in f if line.strip()]
    dev = [c for c in allc if c.get("split") == "dev"]
    assert dev and all(c["split"] == "dev" for c in dev), "only dev rows may be used"
    held_domains = {c["domain"] for c in allc if c.get("split") == "heldout"}
    assert not held_domains & {c["domain"] for c in dev}, "dev and held-out domains overlap"
    del allc  # nothing below sees held-out rows
    excluded = {d for d in args.exclude_domains.split(",") if d}
    unknown = excluded - {c["domain"] for c in dev}
    if unknown:
        raise SystemExit(f"--exclude-domains: not dev domains: {sorted(unknown)}")
    dev = [c for c in dev if c["domain"] not in excluded]

    kbs: dict[str, dict[str, str]] = defaultdict(dict)
    for c in dev:
        kbs[c["domain"]].update(c["kb"])
    a_rows = []
    for d in sorted(kbs):
        a_rows += kb_pairs(d, kbs[d], rng)
    a_rows += case_pairs(dev)
    if args.wrong_claims:
        a_rows += wrong_case_pairs(dev)
    a_rows = [r for r in a_rows] * args.dev_repeat
    b_rows = halluc_pairs()
    c_rows = snli_pairs(args.snli_n, args.seed)
    rows = a_rows + b_rows + c_rows
    rng.shuffle(rows)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")

    cnt = Counter((r["source"], ("bin:" if r["binary"] else "") + str(r["label"])) for r in rows)
    summary = defaultdict(dict)
    for (s, lab), n in sorted(cnt.items()):
        summary[s][lab] = n
    print(json.dumps({"out": args.out, "n": len(rows), "dev_cases": len(dev), "dev_domains": sorted(kbs),
                      "excluded_domains": sorted(excluded),
                      "dev_repeat": args.dev_repeat, "by_source_label": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

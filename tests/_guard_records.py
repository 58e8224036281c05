"""Generated guard-job records (shared by tests/test_distributed.py and bench/bench_distributed.py).

Deterministic for a seed: short synthetic facts about invented countries as context, responses
that restate them faithfully or change a number or a name (labelled ``hallucinated``), some with
an empty context (judged against a knowledge directory when one is given), some unlabelled,
grouped by ``source``; plus a knowledge directory holding the same facts as documents.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

_CITIES = ["Arlen", "Brisk", "Corvo", "Dunmar", "Eskel", "Farrow", "Galen", "Hollin", "Istra", "Jorvik"]
_RIVERS = ["Amber", "Blue", "Crane", "Delta", "Elder", "Frost", "Gray", "Heron"]


def _facts(i: int) -> list[str]:
    r = random.Random(i)
    city, river = r.choice(_CITIES), r.choice(_RIVERS)
    pop, year, area = r.randint(2, 90), r.randint(1820, 1990), r.randint(10, 900)
    return [f"The capital of Country_{i} is {city}.",
            f"Country_{i} has a population of {pop} million people.",
            f"Country_{i} became independent in {year}.",
            f"The {river} River flows through Country_{i}.",
            f"Country_{i} covers {area} thousand square kilometres."]


def generate_records(n: int, seed: int = 0, countries: int = 200) -> list[dict]:
    """``n`` records about ``countries`` invented countries (seeded)."""
    r = random.Random(seed)
    out = []
    for k in range(n):
        i = r.randrange(countries)
        facts = _facts(i)
        picked = r.sample(facts, r.randint(1, 3))
        rec: dict = {"orig_id": f"g{seed}-{k}", "question": f"Tell me about Country_{i}."}
        hallucinated = r.random() < 0.5
        if hallucinated:
            j = r.randrange(len(picked))
            s = picked[j]
            for old in _CITIES:
                if old in s:
                    s = s.replace(old, r.choice([c for c in _CITIES if c != old]))
                    break
            else:
                words = s.split()
                for w, word in enumerate(words):
                    if word.strip(".").isdigit():
                        words[w] = str(int(word.strip(".")) + r.randint(3, 40)) + ("." if word.endswith(".") else "")
                        break
                s = " ".join(words)
            picked[j] = s
        rec["response"] = " ".join(picked)
        rec["context"] = "" if r.random() < 0.2 else " ".join(facts)
        if r.random() < 0.85:
            rec["hallucinated"] = hallucinated
        if r.random() < 0.9:
            rec["source"] = r.choice(["chat", "search", "summaries"])
        out.append(rec)
    return out


def write_jsonl(path: Path, records: list[dict], bad_lines: dict[int, str] | None = None) -> Path:
    """Write ``records`` one per line; ``bad_lines`` {0-based position: raw text} inserts
    malformed lines there."""
    bad_lines = bad_lines or {}
    with open(path, "w", encoding="utf-8") as f:
        for k, rec in enumerate(records):
            if k in bad_lines:
                f.write(bad_lines[k] + "\n")
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def write_knowledge_dir(path: Path, countries: int = 200, per_file: int = 25) -> Path:
    """The facts of every country as ``.txt`` documents (``per_file`` countries each) plus a
    ``README.md``; an ignored ``.json`` file too."""
    path.mkdir(parents=True, exist_ok=True)
    for start in range(0, countries, per_file):
        lines = [" ".join(_facts(i)) for i in range(start, min(countries, start + per_file))]
        sub = path / ("part-b" if start % (2 * per_file) else "part-a")
        sub.mkdir(exist_ok=True)
        (sub / f"countries_{start:04d}.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    (path / "README.md").write_text("Facts about invented countries, for tests.\n", encoding="utf-8")
    (path / "ignored.json").write_text("{}\n", encoding="utf-8")
    return path

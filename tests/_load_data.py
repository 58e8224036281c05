"""A realistic load for the backpressure tests: a real CoherenceScorer over 30 facts (cache off)
and answers of three sentences, correct or with a wrong price. Test helper."""

from __future__ import annotations

import re

import director_fast as df

CITIES = ["Oslo", "Bergen", "Lyon", "Turin", "Graz", "Ghent", "Porto", "Cork", "Basel", "Malmo"]
N_FACTS = 30


def scorer(threshold: float = 0.3) -> df.CoherenceScorer:
    kb = df.KnowledgeBase()
    for i in range(N_FACTS):
        kb.add_facts([f"Product P{i} costs {10 + 3 * i} euros and ships from {CITIES[i % 10]}."], source=f"p{i}")
    return df.CoherenceScorer(threshold=threshold, knowledge=kb, cache_size=0)


def prompt(i: int) -> str:
    return f"How much is P{i % N_FACTS} and where does it ship from?"


def answer(i: int, wrong: bool = False) -> str:
    """Three sentences; with ``wrong`` the first one states a wrong price."""
    k = i % N_FACTS
    price = 10 + 3 * k + (7 if wrong else 0)
    return f"Product P{k} costs {price} euros. It ships from {CITIES[k % 10]}. Thanks for asking about it."


def tokens(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text)

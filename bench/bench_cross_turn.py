"""Cross-turn contradiction cost (and a synthetic detection check) of ConversationSession.

A synthetic chat about 40 businesses: every turn states 5 facts (opening hour, staff count,
founding year, city, parking) about random businesses; a fact repeated later is restated with the
same value, except in a chosen share of turns where one fact is restated with a different value
(an injected self-contradiction; restating the old value later contradicts it too). Timed: ``ConversationSession.observe`` (check the new turn's
claims against the earlier ones, then remember it) with the lexical backend.

* conversation: 100 turns x 5 claims, p50 / p95 per turn over all turns;
* fixed sizes: a session prefilled to 10 / 100 / 500 / 1,000 earlier claims, then 50 new turns
  timed one by one (each new turn is remembered too, so the last one sees +245 claims);
* review overhead: ``CoherenceScorer.review`` with and without a session (100-turn chat).

Detection on the 100-turn chat: claims that restate a fact with a value an earlier turn gave
differently, found with a right earlier claim; reported pairs that are no contradiction (false
alarms). Wall and thread-CPU times are both printed (on a shared machine the wall tail is
scheduling).

Usage: python bench/bench_cross_turn.py [--turns 100] [--seed 7]
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import env_line, table  # noqa: E402

import director_fast as df  # noqa: E402
from director_fast.verify.nli import LexicalNLI  # noqa: E402
from director_fast.verify.judges import make_judge  # noqa: E402

NAMES = ("Alder Bakery", "Birch Books", "Cedar Clinic", "Dune Dental", "Elm Gym", "Fjord Ferries",
         "Granite Garage", "Harbor Hotel", "Iris Florist", "Juniper Joinery", "Kestrel Kitchen",
         "Lumen Labs", "Maple Market", "Nimbus Net", "Oak Opticians", "Pine Pharmacy", "Quarry Cafe",
         "Rowan Realty", "Spruce Studio", "Tern Travel", "Umber Upholstery", "Vale Vets",
         "Willow Wines", "Yarrow Yoga", "Zephyr Zoo", "Amber Arcade", "Basalt Bikes", "Coral Cinema",
         "Delta Deli", "Ember Electric", "Flint Foundry", "Garnet Gallery", "Hazel Hostel",
         "Indigo Ink", "Jasper Jewels", "Kelp Kayaks", "Linden Laundry", "Marble Museum",
         "Nettle Nursery", "Onyx Outfitters")
CITIES = ("Bergen", "Tromso", "Bodo", "Alta", "Molde", "Narvik", "Hamar", "Skien")


def fact(name: str, attr: int, value: int) -> str:
    if attr == 0:
        return f"{name} opens at {value} am."
    if attr == 1:
        return f"{name} has {value} employees."
    if attr == 2:
        return f"{name} was founded in {value}."
    if attr == 3:
        return f"{name} is located in {CITIES[value]}."
    return f"{name} has {'free' if value else 'no'} parking."


def other_value(attr: int, value: int, rng: random.Random) -> int:
    choices = {0: range(6, 12), 1: range(5, 400), 2: range(1950, 2024), 3: range(len(CITIES)), 4: range(2)}[attr]
    return rng.choice([v for v in choices if v != value])


def chat(turns: int, rng: random.Random, contradict_share: float = 0.15):
    """[(response, facts)], facts = [(claim text, (name, attr), value)]; in about
    ``contradict_share`` of the turns one fact stated before is restated with another value."""
    truth: dict[tuple[str, int], int] = {}
    out = []
    for t in range(turns):
        facts, changed = [], False
        for n, a in rng.sample([(n, a) for n in NAMES for a in range(5)], 5):
            if (n, a) not in truth:
                truth[(n, a)] = other_value(a, -1, rng)
            v = truth[(n, a)]
            if not changed and rng.random() < contradict_share * 2:
                v, changed = other_value(a, v, rng), True
            facts.append((fact(n, a, v), (n, a), v))
        out.append((" ".join(f[0] for f in facts), facts))
    return out


CPU: list[float] = []  # thread CPU ms of every timed call (the box is shared: wall has a scheduling tail)


def timed_observe(session: df.ConversationSession, text: str, judge) -> tuple[float, df.CrossTurnReport]:
    t0, c0 = time.perf_counter(), time.thread_time()
    rep = session.observe("", text, judge=judge)
    CPU.append((time.thread_time() - c0) * 1000.0)
    return (time.perf_counter() - t0) * 1000.0, rep


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    logging.getLogger("director_fast").setLevel(logging.ERROR)  # "no evidence" warnings of section 3
    judge = make_judge(LexicalNLI())
    print(env_line())

    # warm the judge's premise cache and the regexes on unrelated text
    warm = df.ConversationSession(max_turns=1000, max_claims=10_000)
    for text, _ in chat(20, random.Random(99)):
        warm.observe("", text, judge=judge)

    # 1) the 100-turn conversation
    turns = chat(args.turns, rng)
    session = df.ConversationSession(max_turns=1000, max_claims=10_000)
    said: dict[tuple[str, int], dict[int, set[int]]] = {}  # fact key -> value -> turns stating it
    meaning: dict[tuple[int, str], tuple[tuple[str, int], int]] = {}  # (turn, text) -> (key, value)
    times, should, found, false_alarms = [], 0, 0, 0
    for t, (text, facts) in enumerate(turns):
        ms, rep = timed_observe(session, text, judge)
        times.append(ms)
        correct = set()
        for c in rep.contradictions:
            key, value = meaning.get((t, c.claim)) or next((f[1], f[2]) for f in facts if f[0] == c.claim)
            ekey, evalue = meaning[(c.earlier_turn, c.earlier_claim)]
            if ekey == key and evalue != value:
                correct.add(c.claim)
            else:
                false_alarms += 1
        for claim, key, value in facts:
            if any(v != value for v in said.get(key, {})):
                should += 1
                found += claim in correct
        for claim, key, value in facts:
            said.setdefault(key, {}).setdefault(value, set()).add(t)
            meaning[(t, claim)] = (key, value)
    rows = [[f"{args.turns} turns x 5 claims", f"0-{5 * (args.turns - 1)}", f"{statistics.median(times):.2f}",
             f"{pct(times, 0.95):.2f}", f"{statistics.median(CPU):.2f}", f"{pct(CPU, 0.95):.2f}"]]

    # 2) fixed numbers of earlier claims
    for n_claims in (10, 100, 500, 1000):
        s = df.ConversationSession(max_turns=1000, max_claims=10_000)
        pre = chat(n_claims // 5 + 50, random.Random(args.seed + n_claims))
        for text, _ in pre[: n_claims // 5]:
            s.record("", text)
        CPU.clear()
        ts = [timed_observe(s, text, judge)[0] for text, _ in pre[n_claims // 5:]]
        rows.append(["prefilled, 50 new turns", f"{n_claims}-{n_claims + 245}", f"{statistics.median(ts):.2f}",
                     f"{pct(ts, 0.95):.2f}", f"{statistics.median(CPU):.2f}", f"{pct(CPU, 0.95):.2f}"])
    print(table(rows, ["setting", "earlier claims", "wall p50 ms/turn", "wall p95", "CPU p50 ms/turn", "CPU p95"]))
    print(f"\nclaims that contradict an earlier turn: {should}, found with a right earlier claim {found} "
          f"({found / max(should, 1):.0%}); false alarms (reported pairs that are not a contradiction): "
          f"{false_alarms} over {5 * args.turns} claims")

    # 3) review overhead of the session
    scorer = df.CoherenceScorer(unsupported="warn")
    s = df.ConversationSession(max_turns=1000, max_claims=10_000, record="all")
    with_s, without = [], []
    for text, _ in turns:
        t0 = time.perf_counter()
        scorer.review("", text)
        without.append((time.perf_counter() - t0) * 1000.0)
        t0 = time.perf_counter()
        scorer.review("", text, s)
        with_s.append((time.perf_counter() - t0) * 1000.0)
    print(f"\nreview p50: {statistics.median(without):.2f} ms without a session (verdicts cached after the "
          f"first call), {statistics.median(with_s):.2f} ms with one; overhead p50 "
          f"{statistics.median([a - b for a, b in zip(with_s, without)]):.2f} ms/turn")


if __name__ == "__main__":
    main()

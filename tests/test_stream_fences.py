"""A fenced code block reaches a stream's scorer whole, as review judges it."""

import asyncio
import re

import director_fast as df
from director_fast.stream.fences import FenceHold

KB = ["A full day costs £32.", "Bookings are made through the /v1/bookings endpoint."]
CODE = ("A full day costs £32. Here is an example:\n```python\nresp = client.post('/v1/bookings', json={'days': 1})\n"
        "print(resp.status_code)\n```\n")


def _tokens(text):
    return re.findall(r"\S+\s*|\s+", text)


def _stream(answer, scorer):
    g = df.stream_guard(iter(_tokens(answer)), scorer, prompt="How do I book?")
    return "".join(g), g.session.halted


def test_a_closed_code_block_is_released_whole_and_agrees_with_review():
    s = df.CoherenceScorer(use_nli=False, knowledge=KB)
    ok, _ = s.review("How do I book?", CODE)
    delivered, halted = _stream(CODE, s)
    assert ok and not halted and delivered == CODE  # it halted on the first code line before


def test_an_unclosed_fence_is_judged_line_by_line_in_both():
    s = df.CoherenceScorer(use_nli=False, knowledge=KB)
    answer = "A full day costs £32.\n```\nA full day costs £28.\n"
    ok, _ = s.review("How much?", answer)
    delivered, halted = _stream(answer, s)
    assert not ok and halted and "£28" not in delivered


def test_the_async_guard_holds_the_block_too():
    s = df.CoherenceScorer(use_nli=False, knowledge=KB)

    async def run():
        async def agen():
            for t in _tokens(CODE):
                yield t
        g = df.astream_guard(agen(), s, prompt="How do I book?")
        return "".join([t async for t in g]), g.session.halted

    delivered, halted = asyncio.run(run())
    assert not halted and delivered == CODE


def test_fence_hold_merges_a_block_and_reports_an_open_one_at_the_end():
    text = "Intro.\n```\nx = 1\ny = 2\n```\nAfter.\n~~~\nopen"
    toks = _tokens(text)
    ends, off = [], 0
    for t in toks:
        off += len(t)
        ends.append(off)
    hold = FenceHold(toks, ends)
    from director_fast.verify.text import SentenceSegmenter

    seg = SentenceSegmenter()
    spans = [sp for t in toks for sp in hold.merge(seg.feed(t))] + hold.merge(seg.flush(), True)
    got = [text[a:b] for a, b in spans]
    assert got == ["Intro.", "```\nx = 1\ny = 2\n```", "After.", "~~~\nopen"]
    assert not hold.holding

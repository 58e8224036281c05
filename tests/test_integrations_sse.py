"""director_fast.integrations.sse: SSE frames from a guarded stream (no framework needed)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

import director_fast as df
from director_fast.errors import ConfigError, InputTypeError
from director_fast.integrations.sse import KEEPALIVE, sse_events, sse_frame


def parse(frames: list[str]) -> list[tuple[str, object]]:
    """(event, data) per frame; keep-alive comments as ("keepalive", None)."""
    out = []
    for f in frames:
        assert f.endswith("\n\n")
        if f == KEEPALIVE:
            out.append(("keepalive", None))
            continue
        lines = f[:-2].split("\n")
        ev = "message"
        data = None
        for ln in lines:
            if ln.startswith("event: "):
                ev = ln[7:]
            elif ln.startswith("data: "):
                data = json.loads(ln[6:])
        out.append((ev, data))
    return out


class SlowScorer:
    """Incremental sync scorer: sleeps ``delay_s`` per sentence; a sentence with WRONG scores 0.1."""

    threshold = 0.5

    def __init__(self, delay_s: float = 0.0, fail_on: str | None = None) -> None:
        self.delay_s = delay_s
        self.fail_on = fail_on

    def score_sentence(self, sentence, *, prompt="", previous="", tenant_id=""):
        time.sleep(self.delay_s)
        if self.fail_on and self.fail_on in sentence:
            raise RuntimeError("scorer backend failed")
        return 0.1 if "WRONG" in sentence else 0.9


class Upstream:
    """An async-generator model stream that records whether its ``finally`` ran."""

    def __init__(self, deltas, delay_s: float = 0.0) -> None:
        self.deltas = deltas
        self.delay_s = delay_s
        self.closed_at: float | None = None
        self.sent = 0

    async def gen(self):
        try:
            for d in self.deltas:
                if self.delay_s:
                    await asyncio.sleep(self.delay_s)
                self.sent += 1
                yield d
        finally:
            self.closed_at = time.monotonic()


GOOD = ["The sky ", "is blue. ", "Grass ", "is green. ", "Snow ", "is white."]
BAD = ["The sky ", "is blue. ", "It is ", "WRONG here. ", "Never ", "seen."]


async def collect(agen) -> list[str]:
    return [f async for f in agen]


async def test_tokens_keepalives_and_verdict_in_order():
    up = Upstream(GOOD)
    g = df.astream_guard(up.gen(), SlowScorer(delay_s=0.08), request_id="r1", tenant_id="t1")
    events = parse(await collect(sse_events(g, keepalive_s=0.02, request_id="r1", tenant_id="t1")))
    kinds = [k for k, _ in events]
    assert kinds.count("keepalive") >= 3  # every sentence is held ~80 ms
    toks = [d for k, d in events if k == "token"]
    assert [t["index"] for t in toks] == list(range(len(GOOD)))
    assert "".join(t["text"] for t in toks) == "".join(GOOD)
    assert kinds[-1] == "verdict" and "halt" not in kinds
    v = events[-1][1]
    assert v["approved"] is True and v["halted"] is False and v["delivered"] == len(GOOD)
    assert v["request_id"] == "r1" and v["tenant_id"] == "t1" and v["error"] is None
    assert v["scorer_calls"] == 3 and v["min_coherence"] == pytest.approx(0.9)
    assert up.closed_at is not None


async def test_halt_event_carries_a_valid_safety_event():
    up = Upstream(BAD)
    g = df.astream_guard(up.gen(), SlowScorer(), request_id="req-7", tenant_id="acme")
    events = parse(await collect(sse_events(g, keepalive_s=None, request_id="req-7", tenant_id="acme")))
    kinds = [k for k, _ in events]
    assert kinds == ["token", "token", "halt", "verdict"]  # the WRONG sentence is never released
    halt = events[2][1]
    assert halt["reason"] == "hard_limit" and halt["delivered"] == 2
    se = halt["safety_event"]
    df.validate_safety_event_payload(se)
    assert se["request_id"] == "req-7" and se["tenant_id"] == "acme" and se["policy_decision"] == "halt"
    assert events[3][1]["approved"] is False and events[3][1]["reason"] == "hard_limit"
    assert up.closed_at is not None and up.sent < len(BAD)


async def test_scorer_error_ends_with_halt_and_an_error_verdict():
    up = Upstream(GOOD)
    g = df.astream_guard(up.gen(), SlowScorer(fail_on="Grass"))
    events = parse(await collect(sse_events(g, keepalive_s=1.0)))
    kinds = [k for k, _ in events]
    assert kinds[-2:] == ["halt", "verdict"]
    assert events[-2][1]["reason"] == "scorer_error"
    assert events[-1][1]["error"] == "RuntimeError" and events[-1][1]["approved"] is False
    assert up.closed_at is not None


async def test_raise_on_halt_guard_still_ends_with_a_verdict():
    g = df.astream_guard(Upstream(BAD).gen(), SlowScorer(), raise_on_halt=True)
    kinds = [k for k, _ in parse(await collect(sse_events(g, keepalive_s=None)))]
    assert kinds == ["token", "token", "halt", "verdict"]


@pytest.mark.parametrize("keepalive", [None, 0.01])
async def test_cancelled_reader_closes_the_upstream_within_100ms(keepalive):
    """The task reading the SSE generator is cancelled mid-stream (a server's disconnect): the
    upstream's finally runs within 100 ms, in every trial."""
    worst = 0.0
    for _ in range(20):
        up = Upstream(GOOD * 20, delay_s=0.002)
        g = df.astream_guard(up.gen(), SlowScorer(delay_s=0.001))
        got = []

        async def reader():
            async for f in sse_events(g, keepalive_s=keepalive):
                got.append(f)

        task = asyncio.ensure_future(reader())
        while sum(f.startswith("event: token") for f in got) < 3:
            await asyncio.sleep(0.001)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(100):
            if up.closed_at is not None:
                break
            await asyncio.sleep(0.001)
        assert up.closed_at is not None
        worst = max(worst, up.closed_at - t0)
    assert worst < 0.1, worst


async def test_aclose_of_the_generator_closes_the_upstream():
    up = Upstream(GOOD * 5, delay_s=0.001)
    agen = sse_events(df.astream_guard(up.gen(), SlowScorer()), keepalive_s=0.5)
    first = await agen.__anext__()
    assert first.startswith("event: token")
    await agen.aclose()
    assert up.closed_at is not None


async def test_anyio_level_cancellation_still_closes_the_upstream():
    anyio = pytest.importorskip("anyio")
    up = Upstream(GOOD * 20, delay_s=0.002)
    g = df.astream_guard(up.gen(), SlowScorer(delay_s=0.001))
    n = 0
    with anyio.move_on_after(0.05):
        async for f in sse_events(g, keepalive_s=0.01):
            n += 1
    assert n > 0
    for _ in range(100):
        if up.closed_at is not None:
            break
        await asyncio.sleep(0.001)
    assert up.closed_at is not None


def test_frame_and_argument_validation():
    assert sse_frame({"a": "x\ny"}, "token") == 'event: token\ndata: {"a":"x\\ny"}\n\n'
    assert sse_frame([1]) == "data: [1]\n\n"
    with pytest.raises(ConfigError):
        sse_frame({}, "tok\ndata: injected")
    with pytest.raises(InputTypeError):
        sse_frame({"x": float("nan")})
    with pytest.raises(InputTypeError):
        sse_frame({"x": object()})
    g = df.astream_guard(iter(()), SlowScorer())
    for bad in (0, -1.0, float("inf"), True, "1"):
        with pytest.raises(ConfigError) as e:
            sse_events(g, keepalive_s=bad)
        assert e.value.field == "keepalive_s"
    with pytest.raises(InputTypeError):
        sse_events(["not a guard"])

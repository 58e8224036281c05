"""Under load a guard slows delivery instead of stopping correct answers (issue: backpressure).

Without HTTP: many ``astream_guard`` streams started together on one event loop over one real
``CoherenceScorer`` and a deliberately small executor, so sentences queue for a worker. No correct
answer may be stopped, every wrong one must be, ``scorer_timeout_s`` counts from the start of a
call, and saturation is visible. The default run uses 64 streams over 2 workers; set
``DIRECTOR_FAST_LOAD_TESTS=1`` for 200 and 400 streams over the default executor.
Also: the guard's own idle timeout and total deadline, and malformed SDK chunks.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from types import SimpleNamespace

import pytest

import director_fast as df
from director_fast import telemetry
from director_fast.errors import ConfigError, InputTypeError
from director_fast.stream.adapters import aopenai_text_deltas, openai_text_deltas

import _load_data as data

LOAD = os.environ.get("DIRECTOR_FAST_LOAD_TESTS") == "1"


async def _token_stream(toks, delay_s: float):
    for t in toks:
        if delay_s:
            await asyncio.sleep(delay_s)
        yield t


async def _many_streams(n: int, scorer, executor, *, wrong_every: int = 0, timeout: float | None = 5.0,
                        delay_s: float = 0.0):
    """n streams started together; returns [(wrong, delivered text, session)]."""
    async def one(i: int):
        wrong = bool(wrong_every) and i % wrong_every == 0
        g = df.astream_guard(_token_stream(data.tokens(data.answer(i, wrong)), delay_s), scorer,
                             prompt=data.prompt(i), executor=executor, scorer_timeout_s=timeout)
        out = [t async for t in g]
        return wrong, "".join(out), g.session

    return await asyncio.gather(*(one(i) for i in range(n)))


def _check(results) -> None:
    stopped_correct = [s.halt_reason for wrong, _, s in results if not wrong and s.halted]
    assert not stopped_correct, f"{len(stopped_correct)} correct answers stopped: {stopped_correct[:5]}"
    for i, (wrong, text, s) in enumerate(results):
        if wrong:  # the wrong price is the first sentence: nothing of it reaches the client
            assert s.halted and s.halt_reason == "hard_limit" and text == "", (i, text, s.halt_reason)
        else:
            assert text == data.answer(i)


@pytest.mark.parametrize("n", [64])
async def test_simultaneous_streams_queue_instead_of_halting(n):
    scorer = data.scorer()
    ex = df.ScorerExecutor(2)  # 2 workers: ~n sentences wait at once
    hook = telemetry.RecordingMetrics()
    old = telemetry.set_metrics_hook(hook)
    try:
        results = await _many_streams(n, scorer, ex, wrong_every=8)
    finally:
        telemetry.set_metrics_hook(old)
    _check(results)
    assert ex.peak_queued > 30  # more than the old fixed bound admitted (6 running + 24 waiting)
    waits = hook.values(telemetry.SCORER_QUEUE_SECONDS)
    assert len(waits) == sum(s.scorer_calls for _, _, s in results) and max(waits) > 0
    assert hook.count(telemetry.EXECUTOR_SATURATED_TOTAL) == 0  # no fixed level: never saturated


@pytest.mark.skipif(not LOAD, reason="set DIRECTOR_FAST_LOAD_TESTS=1 for 200 / 400 streams")
@pytest.mark.parametrize("n", [200, 400])
async def test_200_and_400_streams_over_one_scorer_none_stopped(n):
    scorer = data.scorer()
    t0 = time.monotonic()
    results = await _many_streams(n, scorer, None, wrong_every=10, delay_s=0.002)
    print(f"{n} streams: {time.monotonic() - t0:.2f} s, peak queue "
          f"{df.ScorerExecutor.for_scorer(scorer).peak_queued}")
    _check(results)


class Sleepy:
    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.threshold = 0.5

    def score_sentence(self, sentence, **kw):
        time.sleep(self.delay)
        return 0.9


async def test_scorer_timeout_counts_from_the_start_of_the_call():
    # one worker, 0.08 s per call, deadline 0.2 s: the sixth stream waits ~0.4 s for the worker,
    # far past the deadline, and is still not late: its call itself takes 0.08 s
    ex = df.ScorerExecutor(1)
    scorer = Sleepy(0.08)

    async def one():
        g = df.astream_guard(["All is well here."], scorer, scorer_timeout_s=0.2, executor=ex)
        t0 = time.monotonic()
        out = [t async for t in g]
        return out, g.session, time.monotonic() - t0

    res = await asyncio.gather(*(one() for _ in range(6)))
    assert all(out == ["All is well here."] and not s.halted for out, s, _ in res)
    assert max(took for _, _, took in res) > 0.4

    # the sync guard, from 6 threads
    outs = []

    def sync_one():
        g = df.stream_guard(["All is well here."], scorer, scorer_timeout_s=0.2, executor=ex)
        outs.append((list(g), g.session.halted))

    threads = [threading.Thread(target=sync_one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert outs == [(["All is well here."], False)] * 6


@pytest.mark.parametrize("policy", ["wait", "fail"])
async def test_saturation_is_visible_and_configurable(policy, caplog):
    from director_fast import _log

    _log._reset()
    ex = df.ScorerExecutor(1, max_pending=1, on_saturated=policy)
    hook = telemetry.RecordingMetrics()
    old = telemetry.set_metrics_hook(hook)
    try:
        with caplog.at_level("WARNING", logger="director_fast.stream.executor"):
            res = await asyncio.gather(*(
                _collect(df.astream_guard(["All is well here."], Sleepy(0.05), executor=ex)) for _ in range(5)))
    finally:
        telemetry.set_metrics_hook(old)
    halted = [s for _, s in res if s.halted]
    assert hook.count(telemetry.EXECUTOR_SATURATED_TOTAL, outcome=policy) == 3 == ex.saturations
    assert any("saturated" in r.getMessage() for r in caplog.records)
    if policy == "wait":
        assert not halted
    else:
        assert len(halted) == 3 and all(s.halt_reason == "callback_timeout" for s in halted)
        assert all(s.safety_events[0].attributes["executor_saturated"] == "true" for s in halted)


async def _collect(g):
    out = [t async for t in g]
    return out, g.session


# ---- the guard's own deadlines ------------------------------------------------------------------
class Stalling:
    """An async upstream: ``first`` tokens, then silence (or one token every ``trickle_s``)."""

    def __init__(self, first, trickle_s: float | None = None) -> None:
        self.first = list(first)
        self.trickle_s = trickle_s
        self.closed = False

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.first:
            return self.first.pop(0)
        if self.trickle_s is None:
            await asyncio.sleep(3600)
        await asyncio.sleep(self.trickle_s)
        return "And on "

    async def aclose(self):
        self.closed = True


async def test_stalled_upstream_is_ended_by_the_idle_timeout():
    up = Stalling(["All is well here. ", "But then "])
    g = df.astream_guard(up, Sleepy(0.0), idle_timeout_s=0.2)
    t0 = time.monotonic()
    out = [t async for t in g]
    took = time.monotonic() - t0
    s = g.session
    assert out == ["All is well here. "] and 0.2 <= took < 1.5, (out, took)
    assert s.halted and s.halt_reason == "upstream_error" and up.closed
    assert s.safety_events[-1].attributes["upstream"] == "idle_timeout"


async def test_total_deadline_ends_a_trickling_upstream():
    up = Stalling(["All is well here. "], trickle_s=0.05)
    g = df.astream_guard(up, Sleepy(0.0), idle_timeout_s=1.0, deadline_s=0.4)
    t0 = time.monotonic()
    out = [t async for t in g]
    assert 0.4 <= time.monotonic() - t0 < 1.5
    assert out == ["All is well here. "] and up.closed
    assert g.session.halt_reason == "upstream_error"
    assert g.session.safety_events[-1].attributes["upstream"] == "deadline"


async def test_idle_timeout_does_not_count_scoring_time():
    # each sentence takes 0.3 s to score, longer than the idle timeout: not an upstream stall
    g = df.astream_guard(_token_stream(["One is here. ", "Two is here. ", "Three."], 0.01), Sleepy(0.3),
                         idle_timeout_s=0.2)
    out = [t async for t in g]
    assert "".join(out) == "One is here. Two is here. Three." and not g.session.halted


def test_sync_guard_refuses_a_token_that_came_after_the_idle_timeout():
    def slow():
        yield "All is well here. "
        yield "Then "
        time.sleep(0.25)
        yield "Late."

    g = df.stream_guard(slow(), Sleepy(0.0), idle_timeout_s=0.1)
    assert list(g) == ["All is well here. "]
    assert g.session.halt_reason == "upstream_error"
    assert g.session.safety_events[-1].attributes["upstream"] == "idle_timeout"


def test_sync_guard_halts_when_the_stream_stalls_before_its_end():
    # the held-back last sentence waits on the end of the stream: a stall there is a stall too
    def stalls_at_the_end():
        yield "All is well here. "
        yield "Last one."
        time.sleep(0.25)

    g = df.stream_guard(stalls_at_the_end(), Sleepy(0.0), idle_timeout_s=0.1)
    assert list(g) == ["All is well here. "]
    assert g.session.halt_reason == "upstream_error"
    assert g.session.safety_events[-1].attributes["upstream"] == "idle_timeout"


def test_deadline_arguments_are_validated():
    for bad in (0, -1, float("nan"), float("inf"), True, "5"):
        with pytest.raises(ConfigError, match="idle_timeout_s"):
            df.stream_guard(["a"], Sleepy(0.0), idle_timeout_s=bad)
        with pytest.raises(ConfigError, match="deadline_s"):
            df.astream_guard(["a"], Sleepy(0.0), deadline_s=bad)
    g = df.stream_guard(["All is well here."], Sleepy(0.0), idle_timeout_s=None, deadline_s=None)
    assert list(g) == ["All is well here."]


# ---- malformed upstream chunks ------------------------------------------------------------------
def _chunk(text):
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


_END = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


@pytest.mark.parametrize("bad", [
    SimpleNamespace(choices=None),                                # an SDK object built from junk
    {"choices": None},
    {"choices": [None]},
    {"choices": [{"index": 0}]},                                  # no delta, text or finish_reason
    {"choices": "abc"},
])
def test_malformed_openai_chunks_never_approve(bad):
    stream = [_chunk("All is well here. "), bad, _END]
    with pytest.raises(InputTypeError, match="openai_text_deltas"):
        list(openai_text_deltas(iter(stream)))
    g = df.stream_guard(openai_text_deltas(iter(stream)), Sleepy(0.0))
    with pytest.raises(InputTypeError):
        list(g)
    assert g.session.halted and g.session.halt_reason == "upstream_error"
    assert g.session.safety_events[-1].attributes["error_type"] == "InputTypeError"


def test_usage_only_chunk_is_not_malformed():
    stream = [_chunk("All is well here."), _END, {"choices": [], "usage": {"total_tokens": 3}}]
    assert list(openai_text_deltas(iter(stream))) == ["All is well here."]


async def test_openai_sdk_chunk_without_choices_never_approves():
    openai = pytest.importorskip("openai")
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    def sdk(value):
        return construct_type(type_=ChatCompletionChunk, value=value)

    good = sdk({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                "choices": [{"index": 0, "delta": {"content": "All is well here. "}, "finish_reason": None}]})
    junk = sdk({"unexpected": True})
    assert junk.choices is None and openai is not None

    async def stream():
        for c in (good, junk):
            yield c

    g = df.astream_guard(aopenai_text_deltas(stream()), Sleepy(0.0))
    with pytest.raises(InputTypeError):
        [t async for t in g]
    assert g.session.halted and g.session.halt_reason == "upstream_error"


# ---- the per-scorer executor registry and the garbage collector ------------------------------

class _Scorer:
    threshold = 0.5

    def score_sentence(self, sentence, **_kw):
        return 0.9


def test_a_scorer_collected_while_the_registry_is_locked_never_deadlocks():
    # a weakref callback runs wherever the collector does, possibly inside the registry's locked
    # section (a scorer freed while a guard is being set up): it must not take that lock
    from director_fast.stream.executor import ScorerExecutor

    scorer = _Scorer()
    ex = ScorerExecutor.for_scorer(scorer)
    done = threading.Event()

    def collect_under_the_lock():
        nonlocal scorer
        with ScorerExecutor._registry_lock:
            scorer = None  # the last reference: the callback runs here, inside the lock
        done.set()

    t = threading.Thread(target=collect_under_the_lock, daemon=True)
    t.start()
    if not done.wait(5.0):
        ScorerExecutor._registry_lock.release()  # a plain Lock: free the stuck thread, the suite goes on
        pytest.fail("the registry deadlocked on a weakref callback")
    # the next registry call drops the collected scorer's entry and shuts its executor down
    other = _Scorer()
    assert ScorerExecutor.for_scorer(other) is not ex
    assert ex._shutdown and all(entry[1] is not ex for entry in ScorerExecutor._registry.values())
    assert ScorerExecutor.for_scorer(other) is ScorerExecutor.for_scorer(other)

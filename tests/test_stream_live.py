"""The guard in a live server: the upstream is closed on cancellation, close and garbage
collection; sync scorers run off the event loop in a bounded executor with real deadlines;
upstream failures are halts."""

from __future__ import annotations

import asyncio
import gc
import time

import pytest

import director_fast as df


def good(text):
    return 0.9


# --------------------------------------------------------------------------------------------
# 1. cancellation-safe streaming
# --------------------------------------------------------------------------------------------

class AgenUpstream:
    """An async-generator upstream (a model stream) that produces `before` tokens, then waits
    for more like a slow model; records when its ``finally`` ran."""

    def __init__(self, before=3):
        self.before = before
        self.closed_at = None
        self.produced = 0

    async def gen(self):
        try:
            for i in range(10_000):
                if i >= self.before:
                    await asyncio.sleep(3600)
                self.produced += 1
                yield f"w{i} "
        finally:
            self.closed_at = time.monotonic()


class AcloseOnlyUpstream:
    """Like an HTTP stream object: ``__anext__`` and ``aclose()`` only (no ``__aiter__``, no
    generator ``finally``)."""

    def __init__(self, before=3):
        self.before = before
        self.i = 0
        self.closed_at = None

    async def __anext__(self):
        if self.closed_at is not None:
            raise StopAsyncIteration
        if self.i >= self.before:
            await asyncio.sleep(3600)
        self.i += 1
        return f"w{self.i} "

    async def aclose(self):
        if self.closed_at is None:
            self.closed_at = time.monotonic()


async def _consume(guard, got, slow_consumer=False):
    async for tok in guard:
        got.append(tok)
        if slow_consumer and len(got) >= 2:
            await asyncio.sleep(3600)  # e.g. a write to a client socket that never drains


async def _one_cancellation(kind, how, where, use_with):
    up = AgenUpstream() if kind == "agen" else AcloseOnlyUpstream()
    src = up.gen() if kind == "agen" else up
    guard = df.astream_guard(src, good)
    got: list[str] = []
    slow = where == "consumer"

    async def body():
        if use_with:
            async with guard:
                await _consume(guard, got, slow)
        else:
            await _consume(guard, got, slow)

    if how == "cancel":
        task = asyncio.ensure_future(body())
        while len(got) < 2:
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.002)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    else:
        t0 = time.monotonic() + 0.03
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(body(), 0.03)
    # where == "consumer" without `async with`: nobody awaits the guard when the task is
    # cancelled; the guard follows its reading task and closes itself when it ends
    for _ in range(3):
        await asyncio.sleep(0)
    return up.closed_at, t0


async def test_upstream_closed_within_100ms_of_cancellation_100_of_100():
    combos = [(kind, how, where, use_with)
              for kind in ("agen", "aclose_only")
              for how in ("cancel", "wait_for")
              for where in ("upstream", "consumer")
              for use_with in (False, True)]
    delays = []
    for trial in range(100):
        kind, how, where, use_with = combos[trial % len(combos)]
        closed_at, t0 = await _one_cancellation(kind, how, where, use_with)
        assert closed_at is not None, (trial, kind, how, where, use_with)
        delays.append(closed_at - t0)
    assert max(delays) < 0.100, max(delays)


async def test_aclose_after_cancellation_and_aclose_only_object_on_halt():
    up = AcloseOnlyUpstream(before=100)
    guard = df.astream_guard(up, lambda t: 0.2)  # halts at the first token
    assert [t async for t in guard] == [] and guard.session.halt_reason == "hard_limit"
    assert up.closed_at is not None
    await guard.aclose()  # idempotent

    up = AgenUpstream()
    guard = df.astream_guard(up.gen(), good)
    task = asyncio.ensure_future(_consume(guard, []))
    await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert up.closed_at is not None and not guard.session.halted
    await guard.aclose()
    assert guard.session.end_time > 0


async def test_aclose_from_another_task_closes_the_upstream():
    up = AcloseOnlyUpstream()
    guard = df.astream_guard(up, good)
    got: list[str] = []
    task = asyncio.ensure_future(_consume(guard, got))
    while len(got) < 3:
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.005)  # the reader now waits inside the upstream's __anext__
    await guard.aclose()  # e.g. a disconnect handler
    assert up.closed_at is not None
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_async_guard_closes_upstream_on_garbage_collection():
    up = AgenUpstream(before=100)
    guard = df.astream_guard(up.gen(), good)
    it = guard.__aiter__()
    assert await it.__anext__() == "w0 "
    del guard, it
    gc.collect()
    for _ in range(5):
        await asyncio.sleep(0)
    assert up.closed_at is not None


def test_sync_guard_closes_upstream_on_garbage_collection_and_sdk_stream_objects():
    closed = []

    def gen():
        try:
            for i in range(100):
                yield f"w{i} "
        finally:
            closed.append("gen")

    g = df.stream_guard(gen(), good)
    assert next(g) == "w0 "
    del g
    gc.collect()
    assert closed == ["gen"]

    class SdkStream:
        """An SDK stream: ``__iter__`` is a generator; only the object's close() releases the
        HTTP response."""

        def __init__(self):
            self.closed = False

        def __iter__(self):
            for i in range(100):
                yield f"w{i}. "

        def close(self):
            self.closed = True

    for scorer in (lambda t: 0.2, good):
        sdk = SdkStream()
        g = df.stream_guard(sdk, scorer)
        out = list(g) if scorer is not good else [next(g)]
        if scorer is good:
            g.close()
        assert sdk.closed, out


# --------------------------------------------------------------------------------------------
# 2. sync scorers off the event loop, bounded executor, real deadlines
# --------------------------------------------------------------------------------------------

import threading  # noqa: E402

from director_fast import ScorerExecutor  # noqa: E402
from director_fast.errors import ConfigError, InputTypeError  # noqa: E402


class Hung:
    """A sync incremental scorer that blocks (GIL released) until released or 5 s."""

    def __init__(self):
        self.release = threading.Event()
        self.calls = 0

    def score_sentence(self, sentence, **kw):
        self.calls += 1
        self.release.wait(5.0)
        return 0.9


def _wait_idle(ex, timeout=5.0):
    end = time.monotonic() + timeout
    while ex.in_flight and time.monotonic() < end:
        time.sleep(0.005)
    assert ex.in_flight == 0


def test_sync_scorer_timeout_never_adds_threads_beyond_the_executor_bound():
    scorer = Hung()
    ex = ScorerExecutor(3, max_pending=0)
    base = threading.active_count()
    peak = base
    attrs = []
    try:
        for i in range(20):
            t0 = time.monotonic()
            g = df.stream_guard(["One. ", "Two."], scorer, scorer_timeout_s=0.03, executor=ex)
            assert list(g) == []
            took = time.monotonic() - t0
            s = g.session
            assert s.halt_reason == "callback_timeout" and s.halt_index == 0
            a = dict(s.safety_events[0].attributes)
            attrs.append(a)
            if i >= 3:  # every worker is held by a call past its deadline: stalled, fail closed at once
                assert a.get("executor_stalled") == "true" and a["executor_max_workers"] == "3"
                assert took < 0.025, took
            else:
                assert a.get("deadline_ms") == "30" and "executor_saturated" not in a
            peak = max(peak, threading.active_count())
        assert peak <= base + 3, (base, peak)
        assert ex.threads_alive == 3 and ex.stalled
    finally:
        scorer.release.set()
    _wait_idle(ex)

    # the default: one executor shared by every guard of this scorer, still bounded
    scorer = Hung()
    shared = ScorerExecutor.for_scorer(scorer)
    assert ScorerExecutor.for_scorer(scorer) is shared
    assert ScorerExecutor.for_scorer(scorer.score_sentence) is shared  # bound method -> its object
    base = threading.active_count()
    peak = base
    try:
        for i in range(20):
            g = df.stream_guard(["One. "], scorer, scorer_timeout_s=0.01)
            assert list(g) == [] and g.session.halt_reason == "callback_timeout"
            peak = max(peak, threading.active_count())
        assert peak <= base + shared.max_workers, (base, peak, shared.max_workers)
    finally:
        scorer.release.set()
    _wait_idle(shared)


async def _lag_probe(stop, lags, period=0.005):
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        t = loop.time()
        await asyncio.sleep(period)
        lags.append(loop.time() - t - period)


@pytest.mark.parametrize("policy", ["wait", "fail"])
async def test_async_guard_sync_scorer_off_the_loop_saturation_and_thread_bound(policy):
    scorer = Hung()
    ex = ScorerExecutor(4, max_pending=0, on_saturated=policy)
    base = threading.active_count()
    stop = asyncio.Event()
    lags: list[float] = []
    probe = asyncio.ensure_future(_lag_probe(stop, lags))
    await asyncio.sleep(0)
    try:
        async def one(i):
            g = df.astream_guard(["One. ", "Two."], scorer, scorer_timeout_s=0.05, executor=ex)
            t0 = time.monotonic()
            out = [t async for t in g]
            return out, g.session, time.monotonic() - t0

        res = await asyncio.gather(*(one(i) for i in range(20)))
        peak = threading.active_count()
    finally:
        stop.set()
        await probe
        scorer.release.set()
    assert all(out == [] and s.halt_reason == "callback_timeout" for out, s, _ in res)
    timed = [took for _, s, took in res if s.safety_events[0].attributes.get("deadline_ms") == "50"]
    assert len(timed) == 4 and all(0.045 <= t < 0.2 for t in timed), timed
    if policy == "fail":  # refused at once, before any deadline passed
        sat = [took for _, s, took in res if s.safety_events[0].attributes.get("executor_saturated") == "true"]
        assert len(sat) == 16 and max(sat) < 0.04, sat
    else:  # queued (backpressure) until the 4 running calls missed their deadlines: stalled
        stalled = [took for _, s, took in res if s.safety_events[0].attributes.get("executor_stalled") == "true"]
        assert len(stalled) == 16 and all(0.045 <= t < 0.2 for t in stalled), stalled
    assert peak <= base + 4
    assert max(lags) < 0.05, max(lags)  # the loop never waited for the blocked scorer
    await asyncio.to_thread(_wait_idle, ex)


class Sleepy:
    """A 200 ms sync scorer that releases the GIL (like ONNX Runtime or the C++ lexical NLI)."""

    def __init__(self, delay=0.2):
        self.delay = delay

    def score_sentence(self, sentence, **kw):
        time.sleep(self.delay)
        return 0.9


async def test_event_loop_lag_under_a_200ms_sync_scorer():
    async def run(executor):
        stop = asyncio.Event()
        lags: list[float] = []
        probe = asyncio.ensure_future(_lag_probe(stop, lags))
        await asyncio.sleep(0)  # the probe is now waiting on its first timer
        kw = {} if executor is None else {"executor": executor}
        g = df.astream_guard(["One is here. ", "Two is here."], Sleepy(), **kw)
        out = [t async for t in g]
        stop.set()
        await probe
        assert "".join(out) == "One is here. Two is here."
        return max(lags)

    assert await run(None) < 0.05  # off the loop (the bench measures p99 < 5 ms)
    assert await run("inline") > 0.15  # the old behaviour: the loop waits for every call


async def test_deadline_is_real_for_sync_and_async_scorers_in_async_guard():
    class AsyncSlow:
        async def score_sentence(self, sentence, **kw):
            await asyncio.sleep(0.3)
            return 0.9

    for scorer in (Sleepy(0.3), AsyncSlow()):
        t0 = time.monotonic()
        g = df.astream_guard(["One. ", "Two."], scorer, scorer_timeout_s=0.05)
        assert [t async for t in g] == []
        took = time.monotonic() - t0
        assert g.session.halt_reason == "callback_timeout" and took < 0.2, (scorer, took)
        assert g.session.safety_events[0].attributes["deadline_ms"] == "50"


def test_scorer_executor_api():
    for bad, err in ((0, ConfigError), (True, InputTypeError), (1.5, InputTypeError), (5000, ConfigError)):
        with pytest.raises(err, match="max_workers"):
            ScorerExecutor(bad)
    with pytest.raises(ConfigError, match="max_pending"):
        ScorerExecutor(2, max_pending=-1)
    with pytest.raises(ConfigError, match="idle_timeout_s"):
        ScorerExecutor(2, idle_timeout_s=0)
    with pytest.raises(ConfigError, match="executor"):
        df.stream_guard(["a"], good, executor="threads")

    with pytest.raises(ConfigError, match="on_saturated"):
        ScorerExecutor(2, on_saturated="drop")

    gate = threading.Event()
    ex = ScorerExecutor(1, max_pending=1, on_saturated="fail", idle_timeout_s=0.05)
    f1 = ex.try_submit(gate.wait, 5.0)
    f2 = ex.try_submit(lambda x, *, y: x + y, 1, y=2)
    assert f1 is not None and f2 is not None and ex.saturated
    assert ex.try_submit(good, "x") is None and ex.saturations == 1
    assert f2.cancel() and ex.in_flight == 1 and not ex.saturated  # a queued call frees its slot
    f3 = ex.try_submit(lambda: 1 / 0)
    gate.set()
    assert f1.result(1.0) is True
    with pytest.raises(ZeroDivisionError):
        f3.result(1.0)
    _wait_idle(ex)
    end = time.monotonic() + 2.0
    while ex.threads_alive and time.monotonic() < end:  # idle workers exit
        time.sleep(0.01)
    assert ex.threads_alive == 0
    assert ex.try_submit(lambda: 7).result(1.0) == 7  # and come back on demand
    ex.shutdown()
    with pytest.raises(ConfigError, match="shut down"):
        ex.try_submit(good, "x")

    class Slots:
        __slots__ = ()

        def __call__(self, text):
            return 0.9

    a, b = Slots(), Slots()
    assert ScorerExecutor.for_scorer(a) is ScorerExecutor.for_scorer(b)  # process-wide fallback
    own = ScorerExecutor(1)
    sc = Hung()
    ScorerExecutor.set_for_scorer(sc, own)
    assert ScorerExecutor.for_scorer(sc) is own
    with pytest.raises(InputTypeError):
        ScorerExecutor.set_for_scorer(a, own)
    with pytest.raises(InputTypeError):
        ScorerExecutor.set_for_scorer(sc, "x")


def test_halts_are_logged_and_scorer_timeouts_warn_rate_limited(caplog):
    import logging

    from director_fast import _log

    _log._reset()
    scorer = Hung()
    scorer.release.set()

    def boom(text):
        raise OSError("backend down")

    with caplog.at_level(logging.INFO, logger="director_fast"):
        for _ in range(3):
            g = df.stream_guard(["a ", "b "], boom, request_id="req-7")
            assert list(g) == [] and g.session.halt_reason == "callback_timeout"
        g = df.stream_guard(["a ", "b "], lambda t: 0.1)
        list(g)
    recs = [r for r in caplog.records if r.name == "director_fast.stream_guard"]
    warns = [r for r in recs if r.levelno == logging.WARNING]
    infos = [r for r in recs if r.levelno == logging.INFO]
    assert len(warns) == 1 and "callback_timeout" in warns[0].getMessage()
    assert len(infos) == 4 and "req-7" in infos[0].getMessage() and "hard_limit" in infos[3].getMessage()


# --------------------------------------------------------------------------------------------
# 3. upstream failures are halts, not completions
# --------------------------------------------------------------------------------------------

from director_fast.stream.adapters import (  # noqa: E402
    aanthropic_text_deltas,
    anthropic_text_deltas,
    aopenai_text_deltas,
    openai_text_deltas,
)
from director_fast.safety.event import validate_safety_event_payload  # noqa: E402
from director_fast.errors import StreamHalted, UpstreamError  # noqa: E402


class Table:
    """Incremental scorer: 0.9 for every sentence."""

    def score_sentence(self, sentence, **kw):
        return 0.9


def _anthropic(texts, tail):
    ev = [{"type": "message_start", "message": {"id": "m1"}},
          {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}]
    ev += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}} for t in texts]
    return ev + tail


def _openai(texts, finish):
    ch = [{"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]} for t in texts]
    if finish is not None:
        ch.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return ch


TEXTS = ["Paris is the capital. ", "It has ", "two million"]
GOOD_END = [{"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"}]
ERROR_END = [{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]


def _check_upstream_halt(s, upstream, code=None, index=None):
    assert s.halted and s.halt_reason == "upstream_error" == df.HaltReason.UPSTREAM_ERROR
    (ev,) = s.safety_events
    validate_safety_event_payload(ev.to_dict())
    assert ev.halt_reason == "upstream_error" and ev.attributes["upstream"] == upstream
    assert ev.threshold is None and "model's stream failed" in ev.tenant_safe_explanation
    if code is not None:
        assert ev.attributes.get("upstream_code", ev.attributes.get("error_type")) == code
    if index is not None:
        assert s.halt_index == index and ev.attributes["token_offset"] == str(index)


@pytest.mark.parametrize("scorer", [good, Table()])
def test_in_band_upstream_failures_halt_and_hold_back_the_unfinished_sentence(scorer):
    incremental = isinstance(scorer, Table)
    cases = [
        (anthropic_text_deltas, _anthropic(TEXTS, ERROR_END), "error_event", "overloaded_error"),
        (anthropic_text_deltas, _anthropic(TEXTS, GOOD_END[:2] + [{"type": "message_delta", "delta": {
            "stop_reason": "max_tokens"}}]), "finish_reason", "max_tokens"),
        (anthropic_text_deltas, _anthropic(TEXTS, []), "truncated", None),
        (openai_text_deltas, _openai(TEXTS, "length"), "finish_reason", "length"),
        (openai_text_deltas, _openai(TEXTS, "content_filter"), "finish_reason", "content_filter"),
        (openai_text_deltas, _openai(TEXTS, None), "truncated", None),
    ]
    for adapter, items, kind, code in cases:
        closed = []

        def stream():
            try:
                yield from items
            finally:
                closed.append(True)

        g = df.stream_guard(adapter(stream()), scorer)
        out = "".join(g)
        s = g.session
        # the plain callable released every token it scored; the incremental scorer holds the
        # unfinished sentence ("It has two million") back: it is never delivered
        assert out == ("Paris is the capital. " if incremental else "".join(TEXTS)), (kind, out)
        _check_upstream_halt(s, kind, code, index=1 if incremental else 3)
        assert closed == [True]
        g = df.stream_guard(adapter(iter(items)), scorer, raise_on_halt=True)
        with pytest.raises(StreamHalted, match="upstream_error"):
            list(g)
    # the same streams ending properly are complete answers
    for adapter, items in ((anthropic_text_deltas, _anthropic(TEXTS, GOOD_END)),
                           (openai_text_deltas, _openai(TEXTS, "stop"))):
        g = df.stream_guard(adapter(items), scorer)
        assert "".join(g) == "".join(TEXTS) and not g.session.halted
    # configurable: length accepted, a stream without its end accepted
    g = df.stream_guard(openai_text_deltas(_openai(TEXTS, "length"), halt_on=()), scorer)
    assert "".join(g) == "".join(TEXTS) and not g.session.halted
    g = df.stream_guard(anthropic_text_deltas(_anthropic(TEXTS, []), require_end=False), scorer)
    assert "".join(g) == "".join(TEXTS) and not g.session.halted


@pytest.mark.parametrize("incremental", [False, True])
def test_a_token_source_that_raises_records_the_halt_then_reraises(incremental):
    closed = []

    def src():
        try:
            yield "One two. "
            yield "Three "
            raise ConnectionResetError("peer went away")
        finally:
            closed.append(True)

    g = df.stream_guard(src(), Table() if incremental else good)
    got = []
    with pytest.raises(ConnectionResetError):
        for t in g:
            got.append(t)
    assert got == ["One two. "] if incremental else got == ["One two. ", "Three "]
    _check_upstream_halt(g.session, "exception", "ConnectionResetError", index=1 if incremental else 2)
    assert closed == [True]


async def test_async_upstream_failures():
    async def agen(items, exc=None):
        for x in items:
            await asyncio.sleep(0)
            yield x
        if exc is not None:
            raise exc

    g = df.astream_guard(aanthropic_text_deltas(agen(_anthropic(TEXTS, ERROR_END))), Table())
    assert "".join([t async for t in g]) == "Paris is the capital. "
    _check_upstream_halt(g.session, "error_event", "overloaded_error", index=1)

    g = df.astream_guard(aopenai_text_deltas(agen(_openai(TEXTS, None))), good)
    assert "".join([t async for t in g]) == "".join(TEXTS)
    _check_upstream_halt(g.session, "truncated", index=3)

    g = df.astream_guard(agen(["a ", "b "], OSError("reset")), good)
    with pytest.raises(OSError):
        [t async for t in g]
    _check_upstream_halt(g.session, "exception", "OSError", index=2)

    g = df.astream_guard(aopenai_text_deltas(agen(_openai(TEXTS, "length"))), good, raise_on_halt=True)
    with pytest.raises(StreamHalted):
        [t async for t in g]
    assert g.session.halt_reason == "upstream_error"


def test_upstream_error_reason_everywhere():
    from director_fast.stream.halt import suggested_action

    assert df.HaltReason("upstream_error") is df.HaltReason.UPSTREAM_ERROR
    assert "ended early" in suggested_action("upstream_error")
    k = df.HaltConfig().new_kernel()
    k.step(0.9)
    d = k.halt_external("upstream_error")
    assert d.halted and d.reason == "upstream_error" and d.halt_index == 1
    assert issubclass(UpstreamError, df.DirectorFastError)


def test_upstream_failures_are_logged(caplog):
    import logging

    from director_fast import _log

    _log._reset()
    items = _anthropic(TEXTS, ERROR_END)
    with caplog.at_level(logging.INFO, logger="director_fast"):
        for _ in range(2):
            list(df.stream_guard(anthropic_text_deltas(items), good, request_id="req-9"))
    recs = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    warns = [m for n, lv, m in recs if n == "director_fast.stream_guard" and lv == logging.WARNING]
    assert len(warns) == 1 and "error_event: overloaded_error" in warns[0]
    halts = [m for n, lv, m in recs if n == "director_fast.stream_guard" and lv == logging.INFO]
    assert len(halts) == 2 and all("upstream_error" in m and "req-9" in m for m in halts)
    assert sum(n == "director_fast.adapters" for n, _, _ in recs) == 2


@pytest.mark.parametrize("field", ["tenant_id", "request_id"])
def test_an_id_a_safety_event_could_not_carry_is_refused_when_the_stream_starts(field):
    import director_fast as df
    from director_fast.errors import ConfigError

    with pytest.raises(ConfigError, match=field):
        df.stream_guard(["a ", "b."], lambda s: 0.1, **{field: "password=hunter2"})

"""DirectorGuard under a real uvicorn server on loopback, with real SSE clients (raw sockets).

The load test: N concurrent clients stream a guarded answer; half disconnect mid-stream. At the
end no upstream model stream is left open, each disconnected client's upstream was closed soon
after the disconnect, and the process never had more threads than before plus the executor's
bound. N = 10 in the default run; N = 50 with DIRECTOR_FAST_LOAD_TESTS=1.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")

from fastapi import FastAPI, Request  # noqa: E402

import director_fast as df  # noqa: E402
from director_fast.errors import ConfigError  # noqa: E402
from director_fast.integrations.fastapi import DirectorGuard  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
LOAD = os.environ.get("DIRECTOR_FAST_LOAD_TESTS") == "1"


# ---- a server in a thread ------------------------------------------------------------------------
class Server:
    def __init__(self, app) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        cfg = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
        self.server = uvicorn.Server(cfg)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> "Server":
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


async def sse_request(port: int, path: str, body: dict, headers: dict[str, str] | None = None,
                      stop_after_tokens: int | None = None) -> tuple[int, dict[str, str], list[tuple[str, object]]]:
    """POST ``body`` over HTTP/1.0 (the response body ends at EOF); returns (status, headers,
    [(event, data)]). With ``stop_after_tokens`` the socket is closed after that many token events
    (a browser tab closed mid-answer)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    hdrs = {"host": "127.0.0.1", "content-type": "application/json", "content-length": str(len(data)),
            **(headers or {})}
    writer.write(f"POST {path} HTTP/1.0\r\n".encode() + b"".join(f"{k}: {v}\r\n".encode() for k, v in hdrs.items())
                 + b"\r\n" + data)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    rh = {ln.split(":", 1)[0].lower(): ln.split(":", 1)[1].strip() for ln in lines[1:] if ":" in ln}
    events: list[tuple[str, object]] = []
    buf = b""
    tokens = 0
    try:
        while True:
            chunk = await reader.read(4096)
            if not chunk:
                break
            buf += chunk
            while b"\n\n" in buf:
                frame, buf = buf.split(b"\n\n", 1)
                text = frame.decode()
                if text.startswith(":"):
                    events.append(("keepalive", None))
                    continue
                ev, payload = "message", None
                for ln in text.split("\n"):
                    if ln.startswith("event: "):
                        ev = ln[7:]
                    elif ln.startswith("data: "):
                        payload = json.loads(ln[6:])
                if ev == "token":
                    tokens += 1
                if status != 200 and payload is None:
                    payload = text
                events.append((ev, payload))
            if stop_after_tokens is not None and tokens >= stop_after_tokens:
                break
        if status != 200 and buf:
            events.append(("body", json.loads(buf)))
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass
    return status, rh, events


# ---- the app under test --------------------------------------------------------------------------
class SentenceScorer:
    """Sync incremental scorer (runs on the executor): a short sleep per sentence, 0.1 for a
    sentence with WRONG."""

    threshold = 0.5

    def score_sentence(self, sentence, *, prompt="", previous="", tenant_id=""):
        time.sleep(0.01)
        return 0.1 if "WRONG" in sentence else 0.9


class Models:
    """The fake model streams; records when each one's finally ran, by request id."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started: dict[str, float] = {}
        self.closed: dict[str, float] = {}

    async def stream(self, request_id: str, words: list[str], delay_s: float):
        with self.lock:
            self.started[request_id] = time.monotonic()
        try:
            for w in words:
                await asyncio.sleep(delay_s)
                yield w
        finally:
            with self.lock:
                self.closed[request_id] = time.monotonic()

    def open(self) -> set[str]:
        with self.lock:
            return set(self.started) - set(self.closed)


def answer(n_sentences: int, wrong_at: int | None = None) -> list[str]:
    words = []
    for i in range(n_sentences):
        words += ["Sentence ", f"number {i} ", "is WRONG. " if i == wrong_at else "is fine. "]
    return words


def make_app(executor: df.ScorerExecutor, models: Models) -> tuple[FastAPI, DirectorGuard]:
    guard = DirectorGuard(scorer=SentenceScorer(), executor=executor, keepalive_s=0.05)
    app = FastAPI()
    app.add_middleware(DirectorGuard, scorer=guard.scorer, paths=["/chat"])

    @app.post("/chat")
    async def chat(request: Request):
        body = await request.json()
        _, request_id = guard.ids(request)
        words = answer(int(body["sentences"]), body.get("wrong_at"))
        return guard.stream(request, models.stream(request_id, words, float(body.get("delay_s", 0.005))),
                            prompt="Tell me.")

    @app.post("/ping")
    async def ping():
        return {"ok": True}

    return app, guard


@pytest.mark.parametrize("n_clients", [10, pytest.param(50, marks=pytest.mark.skipif(
    not LOAD, reason="set DIRECTOR_FAST_LOAD_TESTS=1 for the 50-client run"))])
def test_concurrent_sse_clients_half_disconnect(n_clients):
    executor = df.ScorerExecutor(max_workers=4, max_pending=4 * n_clients)
    models = Models()
    app, _ = make_app(executor, models)
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], threading.active_count())
            time.sleep(0.002)

    sampler = threading.Thread(target=sample, daemon=True)
    with Server(app) as srv:
        sampler.start()
        time.sleep(0.05)
        baseline = threading.active_count()  # main, uvicorn, sampler (+ any idle executor threads)

        async def run() -> list:
            disconnect_at: dict[str, float] = {}

            async def client(i: int):
                rid = f"req-{n_clients}-{i}"
                leave = i % 2 == 1
                res = await sse_request(srv.port, "/chat", {"sentences": 12, "wrong_at": 9 if i % 4 == 0 else None},
                                        headers={"x-request-id": rid, "x-tenant-id": "t"},
                                        stop_after_tokens=4 if leave else None)
                if leave:
                    disconnect_at[rid] = time.monotonic()
                return rid, leave, res

            results = await asyncio.gather(*(client(i) for i in range(n_clients)))
            return results, disconnect_at

        results, disconnect_at = asyncio.run(run())
        deadline = time.monotonic() + 5
        while models.open() and time.monotonic() < deadline:
            time.sleep(0.01)
        open_now = models.open()
        after = threading.active_count()
    stop.set()
    sampler.join()

    assert len(models.started) == n_clients
    assert not open_now, f"upstreams left open: {sorted(open_now)}"
    for rid, leave, (status, headers, events) in results:
        assert status == 200 and headers["x-request-id"] == rid
        if leave:
            continue
        kinds = [k for k, _ in events]
        assert kinds[-1] == "verdict"
        text = "".join(d["text"] for k, d in events if k == "token")
        verdict = events[-1][1]
        assert verdict["request_id"] == rid and verdict["tenant_id"] == "t"
        if int(rid.rsplit("-", 1)[1]) % 4 == 0:  # the 10th sentence is wrong: halt before it
            assert "halt" in kinds and verdict["approved"] is False
            assert text == "".join(answer(9)) and "WRONG" not in text
            halt = dict(events)["halt"]
            assert halt["safety_event"]["request_id"] == rid
        else:
            assert "halt" not in kinds and verdict["approved"] is True
            assert text == "".join(answer(12))
    # the disconnected clients' upstreams were closed soon after the disconnect
    lags = [models.closed[rid] - t for rid, t in disconnect_at.items()]
    print(f"disconnect->upstream closed: max {max(lags) * 1000:.1f} ms over {len(lags)} clients; "
          f"threads peak {peak[0]} (baseline {baseline}, bound +{executor.max_workers})")
    assert len(lags) == n_clients // 2 and max(lags) < 2.0, lags
    assert executor.threads_alive <= executor.max_workers
    assert peak[0] <= baseline + executor.max_workers, (peak[0], baseline)
    assert after <= baseline + executor.max_workers


def test_middleware_ids_and_errors():
    models = Models()
    app, guard = make_app(df.ScorerExecutor(max_workers=2), models)
    with Server(app) as srv:
        async def run():
            ok = await sse_request(srv.port, "/chat", {"sentences": 1},
                                   headers={"x-request-id": "abc", "x-tenant-id": "acme"})
            fresh = await sse_request(srv.port, "/chat", {"sentences": 1})
            too_long = await sse_request(srv.port, "/chat", {"sentences": 1}, headers={"x-tenant-id": "a" * 129})
            ping = await sse_request(srv.port, "/ping", {}, headers={"x-tenant-id": "a" * 129})
            # ids that look like secrets: a tenant is refused (400), a request id replaced
            secret_tenant = await sse_request(srv.port, "/chat", {"sentences": 1},
                                              headers={"x-tenant-id": "AKIAIOSFODNN7EXAMPLE"})
            secret_rid = await sse_request(srv.port, "/chat", {"sentences": 1},
                                           headers={"x-request-id": "AKIAIOSFODNN7EXAMPLE", "x-tenant-id": "acme"})
            return ok, fresh, too_long, ping, secret_tenant, secret_rid

        ok, fresh, too_long, ping, secret_tenant, secret_rid = asyncio.run(run())
    assert secret_tenant[0] == 400 and secret_tenant[2][-1][1]["field"] == "x-tenant-id"
    assert secret_rid[0] == 200 and secret_rid[1]["x-request-id"] != "AKIAIOSFODNN7EXAMPLE"
    assert secret_rid[2][-1][1]["request_id"] == secret_rid[1]["x-request-id"]
    assert ok[1]["x-request-id"] == "abc" and ok[2][-1][1]["tenant_id"] == "acme"
    rid = fresh[1]["x-request-id"]
    assert len(rid) == 32 and fresh[2][-1][1]["request_id"] == rid and fresh[2][-1][1]["tenant_id"] == ""
    assert too_long[0] == 400 and too_long[2][-1][1]["field"] == "x-tenant-id"
    assert ping[0] == 200  # outside the middleware's paths
    assert not models.open()


def test_example_app_streams_and_halts():
    import importlib.util

    spec = importlib.util.spec_from_file_location("fastapi_sse_app", REPO / "examples" / "fastapi_sse_app.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with Server(mod.app) as srv:
        status, headers, events = asyncio.run(sse_request(
            srv.port, "/chat", {"prompt": "Tell me about Acme."}, headers={"x-tenant-id": "acme"}))
        unknown = asyncio.run(sse_request(srv.port, "/chat", {"prompt": "x"}, headers={"x-tenant-id": "nobody"}))
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    kinds = [k for k, _ in events]
    assert kinds[-2:] == ["halt", "verdict"]
    assert "".join(d["text"] for k, d in events if k == "token") == "Acme was founded in 1998 in Oslo. "
    se = dict(events)["halt"]["safety_event"]
    assert se["tenant_id"] == "acme" and se["request_id"] == headers["x-request-id"]
    df.validate_safety_event_payload(se)
    assert unknown[0] == 403


def test_constructor_validation():
    with pytest.raises(ConfigError) as e:
        DirectorGuard(facts={"a": "b"}, scorer=SentenceScorer())
    assert e.value.field == "scorer"
    with pytest.raises(ConfigError) as e:
        DirectorGuard(scorer=SentenceScorer(), tenant_header="x tenant\r\n")
    assert e.value.field == "tenant_header"
    with pytest.raises(ConfigError) as e:
        DirectorGuard(scorer=SentenceScorer(), keepalive_s=0)
    assert e.value.field == "keepalive_s"
    with pytest.raises(ConfigError) as e:
        DirectorGuard(scorer=SentenceScorer(), release="paragraph")
    assert e.value.field == "release"
    g = DirectorGuard(facts={"capital": "Paris"})
    assert isinstance(g.scorer, df.CoherenceScorer)


# ---- backpressure over HTTP: many simultaneous correct answers, none stopped ------------------------
def make_load_app(executor) -> tuple[FastAPI, DirectorGuard]:
    import _load_data as data

    guard = DirectorGuard(scorer=data.scorer(), executor=executor, keepalive_s=1.0)
    app = FastAPI()
    app.add_middleware(DirectorGuard, scorer=guard.scorer, paths=["/chat"])

    @app.post("/chat")
    async def chat(request: Request):
        body = await request.json()
        i = int(body["i"])

        async def model():
            for t in data.tokens(data.answer(i, bool(body["wrong"]))):
                await asyncio.sleep(0.002)
                yield t

        return guard.stream(request, model(), prompt=data.prompt(i))

    return app, guard


@pytest.mark.parametrize("n", [40, pytest.param(200, marks=pytest.mark.skipif(not LOAD, reason="LOAD")),
                               pytest.param(400, marks=pytest.mark.skipif(not LOAD, reason="LOAD"))])
def test_simultaneous_sse_streams_none_correct_stopped(n):
    import _load_data as data

    # the default run squeezes 40 streams through 2 workers; the load run uses the default executor
    app, guard = make_load_app(df.ScorerExecutor(2) if n == 40 else None)
    with Server(app) as srv:
        async def run():
            return await asyncio.gather(*(sse_request(srv.port, "/chat", {"i": i, "wrong": i % 10 == 0})
                                          for i in range(n)))

        t0 = time.monotonic()
        results = asyncio.run(run())
        took = time.monotonic() - t0
    stopped = []
    for i, (status, _, events) in enumerate(results):
        assert status == 200
        verdict = events[-1][1]
        text = "".join(d["text"] for k, d in events if k == "token")
        if i % 10 == 0:  # wrong price in the first sentence: halted, nothing of it delivered
            assert verdict["halted"] and verdict["reason"] == "hard_limit" and text == "", (i, verdict)
        elif verdict["halted"] or not verdict["approved"]:
            stopped.append(verdict["reason"])
        else:
            assert text == data.answer(i)
    ex = df.ScorerExecutor.for_scorer(guard.scorer) if n != 40 else guard._guard_kw["executor"]
    print(f"{n} SSE streams: {took:.2f} s, peak queue {ex.peak_queued}, stopped correct {len(stopped)}")
    assert not stopped, stopped[:5]


# ---- errors before the first token ----------------------------------------------------------------
def _upstream_500():
    openai = pytest.importorskip("openai")
    import httpx

    req = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    return openai.InternalServerError("boom: secret detail", response=httpx.Response(500, request=req), body=None)


def test_pre_stream_errors_are_structured():
    upstream_error = _upstream_500()
    guard = DirectorGuard(scorer=SentenceScorer(), keepalive_s=None, idle_timeout_s=0.3)
    app = FastAPI()
    app.add_middleware(DirectorGuard, scorer=guard.scorer, paths=["/chat", "/bug", "/deferred", "/stall"])

    @app.post("/chat")
    async def chat(request: Request):
        raise upstream_error  # as `await client.chat.completions.create(...)` raises on an HTTP 500

    @app.post("/bug")
    async def bug(request: Request):
        raise ValueError("a bug in the route")

    async def failing_open():
        raise upstream_error

    async def stalling_open():
        await asyncio.sleep(3600)

    @app.post("/deferred")
    async def deferred(request: Request):
        return guard.stream(request, failing_open())

    @app.post("/stall")
    async def stall(request: Request):
        return guard.stream(request, stalling_open())

    with Server(app) as srv:
        async def run():
            h = {"x-request-id": "r1"}
            return [await sse_request(srv.port, p, {}, headers=h) for p in ("/chat", "/bug", "/deferred", "/stall")]

        (s1, h1, e1), (s2, _, e2), (s3, _, e3), (s4, _, e4) = asyncio.run(run())
    assert s1 == 502 and h1["content-type"] == "application/json" and h1["x-request-id"] == "r1"
    assert e1[-1][1] == {"error": "upstream_error", "exception": "InternalServerError", "upstream_status": 500,
                         "request_id": "r1"}
    assert s2 == 500 and e2[-1][1]["error"] == "internal_error" and "bug" not in json.dumps(e2)
    # an awaitable source: the failure / stall happens inside the guarded stream
    for status, events, kind in ((s3, e3, "exception"), (s4, e4, "idle_timeout")):
        assert status == 200
        kinds = [k for k, _ in events]
        assert kinds == ["halt", "verdict"], kinds
        halt, verdict = events[0][1], events[1][1]
        assert halt["reason"] == "upstream_error" and halt["safety_event"]["attributes"]["upstream"] == kind
        assert verdict["approved"] is False and verdict["delivered"] == 0
    assert e3[1][1]["error"] == "InternalServerError"

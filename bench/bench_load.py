"""Load bench of the FastAPI integration: a guarded SSE server under many simultaneous streams.

Usage:
  python bench/bench_load.py [--levels 10,50,100,200,400] [--storm 100] [--tokens-delay 0.02]
                             [--soak] [--soak-minutes 12] [--soak-streams 20] [--json out.json]

Everything runs on loopback (127.0.0.1) in three processes, and every phase is bounded in count
and time (a level that does not finish in ``--level-timeout`` seconds is cut and its open streams
counted as errors); the bench stops by itself and stops the two servers it started.

* **fake model** (``upstream`` subcommand): an asyncio HTTP server that answers the OpenAI
  chat-completions API with server-sent events: about 112 text chunks, one every
  ``--tokens-delay`` seconds (20 ms), then the finish chunk. It records, per request, when each
  chunk was sent and when it saw the connection closed.
* **guarded server** (``server`` subcommand): uvicorn with one worker, a FastAPI app with
  ``DirectorGuard`` (middleware + ``guard.stream``) over a real ``CoherenceScorer`` of 30 facts with
  its cache off; the route opens the model stream with the ``openai`` SDK
  (``AsyncOpenAI(base_url=<fake model>)``) through ``aopenai_text_deltas``, the documented
  pattern. ``/plain`` streams the same model answer without the guard (the baseline). It reports
  its CPU time, RSS, threads, event-loop lag (a 10 ms probe), the scorer executor's queue and,
  per request, how many chunks the guard read and when it closed the upstream.
* **clients** (this process): raw-socket SSE clients.

Phases:
  ramp     ``--levels`` simultaneous streams (one answer in ten states a wrong price in its 13th
           sentence), through the guard and then through ``/plain``: completed, errors,
           first-token and total time p50 / p99 next to the fake model's own times, halts on
           wrong and on correct answers, wrong text delivered, chunks the model sent between the
           guard's halt and the closed connection, server CPU (cores), RSS, threads, loop lag.
  storm    ``--storm`` streams of which every one disconnects after 5-40 tokens: time from the
           client's disconnect to the model seeing its connection closed, streams left open,
           threads after.
  soak     (``--soak`` only) ``--soak-streams`` streams kept running for ``--soak-minutes``;
           server RSS and threads every 30 s; RSS growth after the first two minutes.

Needs the ``bench`` extra (fastapi, uvicorn, openai, httpx). Linux (reads /proc/self/status).
"""


import argparse
import asyncio
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CITIES = ["Oslo", "Bergen", "Lyon", "Turin", "Graz", "Ghent", "Porto", "Cork", "Basel", "Malmo"]
FILLER = ["Thanks for asking about it.", "I hope this helps you decide.", "Let me know if you have other questions."]
WRONG_ROUND = 2  # the price sentence of this round is wrong in a wrong answer (13th sentence)


def answer(i: int, wrong: bool) -> str:
    """About 112 tokens: four rounds of price, origin and three chat sentences."""
    k = i % 30
    price = 10 + 3 * k
    out = []
    for r in range(4):
        out.append(f"Product P{k} costs {price + 7 if wrong and r == WRONG_ROUND else price} euros.")
        out.append(f"It ships from {CITIES[k % 10]}.")
        out.extend(FILLER)
    return " ".join(out)


def chunks_of(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text)


N_TOKENS = len(chunks_of(answer(0, False)))  # text chunks per answer (112)


def wrong_sentence_end(i: int) -> int:
    """Index of the last chunk of the wrong sentence."""
    toks = chunks_of(answer(i, True))
    text = ""
    marker = f"costs {10 + 3 * (i % 30) + 7} euros."
    for j, t in enumerate(toks):
        text += t
        if marker in text:
            return j
    raise AssertionError


# ================================================================================================
# fake model (OpenAI chat-completions SSE)
# ================================================================================================
class Upstream:
    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.records: dict[str, dict] = {}

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        lines = head.decode("latin-1").split("\r\n")
        method, path = lines[0].split()[:2]
        hdrs = {ln.split(":", 1)[0].lower(): ln.split(":", 1)[1].strip() for ln in lines[1:] if ":" in ln}
        body = await reader.readexactly(int(hdrs.get("content-length", "0") or 0))
        if path.startswith("/stats"):
            data = json.dumps(self.records).encode()
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n"
                         + f"content-length: {len(data)}\r\n\r\n".encode() + data)
            await writer.drain()
            writer.close()
            return
        if path.startswith("/reset"):
            self.records.clear()
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            await writer.drain()
            writer.close()
            return
        req = json.loads(body or b"{}")
        meta = json.loads(req["messages"][-1]["content"].split("\n", 1)[0])
        rid, i, wrong = meta["rid"], int(meta["i"]), bool(meta["wrong"])
        rec = self.records[rid] = {"t_req": time.monotonic(), "sent": [], "closed_at": None, "complete": False}
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
                     b"connection: close\r\n\r\n")

        async def watch_eof() -> None:
            try:
                while await reader.read(1024):
                    pass
            except ConnectionError:
                pass
            if rec["closed_at"] is None:
                rec["closed_at"] = time.monotonic()

        watcher = asyncio.ensure_future(watch_eof())

        def frame(delta: dict, finish: str | None = None) -> bytes:
            return ("data: " + json.dumps({
                "id": "chatcmpl-" + rid, "object": "chat.completion.chunk", "created": 0, "model": "fake",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})
                + "\n\n").encode()

        try:
            writer.write(frame({"role": "assistant", "content": ""}))
            for tok in chunks_of(answer(i, wrong)):
                await asyncio.sleep(self.delay)
                if rec["closed_at"] is not None:
                    break
                writer.write(frame({"content": tok}))
                await writer.drain()
                rec["sent"].append(time.monotonic())
            else:
                writer.write(frame({}, "stop") + b"data: [DONE]\n\n")
                await writer.drain()
                rec["complete"] = True
        except ConnectionError:
            pass
        finally:
            writer.close()
            if rec["closed_at"] is None and not rec["complete"]:
                rec["closed_at"] = time.monotonic()
            watcher.cancel()


def run_upstream(args: argparse.Namespace) -> None:
    up = Upstream(args.tokens_delay)

    async def main() -> None:
        server = await asyncio.start_server(up.handle, "127.0.0.1", 0, backlog=2048)
        Path(args.port_file).write_text(str(server.sockets[0].getsockname()[1]))
        async with server:
            await server.serve_forever()

    asyncio.run(main())


# ================================================================================================
# guarded server (uvicorn + FastAPI + DirectorGuard + openai SDK)
# ================================================================================================
def _proc_status() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as f:
        for ln in f:
            if ln.startswith(("VmRSS:", "Threads:")):
                k, v = ln.split(":", 1)
                out[k] = int(v.split()[0])
    return {"rss_kb": out.get("VmRSS", 0), "threads": out.get("Threads", 0)}


def build_app(upstream_port: int):
    import httpx
    from fastapi import FastAPI, Request
    from fastapi.responses import StreamingResponse
    from openai import AsyncOpenAI

    import director_fast as df
    from director_fast.integrations.fastapi import DirectorGuard
    from director_fast.integrations.sse import sse_frame
    from director_fast.stream.adapters import aopenai_text_deltas

    kb = df.KnowledgeBase()
    for i in range(30):
        kb.add_facts([f"Product P{i} costs {10 + 3 * i} euros and ships from {CITIES[i % 10]}."], source=f"p{i}")
    scorer = df.CoherenceScorer(threshold=0.3, knowledge=kb, cache_size=0)
    guard = DirectorGuard(scorer=scorer, keepalive_s=10.0)
    client = AsyncOpenAI(base_url=f"http://127.0.0.1:{upstream_port}/v1", api_key="bench", max_retries=0,
                         http_client=httpx.AsyncClient(limits=httpx.Limits(max_connections=2000,
                                                                           max_keepalive_connections=0),
                                                       timeout=httpx.Timeout(120.0)))
    app = FastAPI()
    app.add_middleware(DirectorGuard, scorer=scorer, paths=["/chat"])
    state: dict = {"lags": [], "guard_records": {}, "probe": None, "peak_queued": 0}

    async def probe() -> None:
        loop = asyncio.get_running_loop()
        ex = df.ScorerExecutor.for_scorer(scorer)
        while True:
            t = loop.time()
            await asyncio.sleep(0.01)
            state["lags"].append(loop.time() - t - 0.01)
            state["peak_queued"] = max(state["peak_queued"], ex.queued)

    class Recorded:
        """The guard's token source, recording reads and when the guard closed it."""

        def __init__(self, inner, rid: str) -> None:
            self.inner = inner
            self.rec = state["guard_records"][rid] = {"reads": 0, "t_close": None}

        def __aiter__(self):
            return self

        async def __anext__(self):
            t = await self.inner.__anext__()
            self.rec["reads"] += 1
            return t

        async def aclose(self):
            if self.rec["t_close"] is None:
                self.rec["t_close"] = time.monotonic()
            await self.inner.aclose()

    def messages(body: dict) -> list[dict]:
        meta = json.dumps({"rid": body["rid"], "i": body["i"], "wrong": body["wrong"]})
        return [{"role": "user", "content": meta + "\nHow much is the product and where does it ship from?"}]

    @app.post("/chat")
    async def chat(request: Request):
        if state["probe"] is None:
            state["probe"] = asyncio.ensure_future(probe())
        body = await request.json()

        async def open_stream():
            stream = await client.chat.completions.create(model="fake", messages=messages(body), stream=True)
            return Recorded(aopenai_text_deltas(stream), body["rid"])

        return guard.stream(request, open_stream(), prompt="How much is the product and where does it ship from?")

    @app.post("/plain")
    async def plain(request: Request):
        body = await request.json()

        async def frames():
            stream = await client.chat.completions.create(model="fake", messages=messages(body), stream=True)
            i = 0
            try:
                async for tok in aopenai_text_deltas(stream):
                    yield sse_frame({"index": i, "text": tok}, "token")
                    i += 1
                yield sse_frame({"approved": True, "halted": False}, "verdict")
            finally:
                await stream.close()

        return StreamingResponse(frames(), media_type="text/event-stream")

    @app.get("/stats")
    async def stats():
        t = os.times()
        lags = sorted(state["lags"])
        ex = df.ScorerExecutor.for_scorer(scorer)
        return {**_proc_status(), "cpu_s": t.user + t.system, "py_threads": threading.active_count(),
                "lag_ms": [_pct(lags, 50, 0.0) * 1e3, _pct(lags, 99, 0.0) * 1e3, (lags[-1] if lags else 0.0) * 1e3],
                "peak_queued": state["peak_queued"], "saturations": ex.saturations, "exec_threads": ex.threads_alive,
                "records": state["guard_records"]}

    @app.post("/reset")
    async def reset():
        state["lags"].clear()
        state["guard_records"].clear()
        state["peak_queued"] = 0
        return {}

    return app


def run_server(args: argparse.Namespace) -> None:
    import socket

    import uvicorn

    app = build_app(int(args.upstream_port))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    Path(args.port_file).write_text(str(sock.getsockname()[1]))
    cfg = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", backlog=2048,
                         timeout_keep_alive=5)
    uvicorn.Server(cfg).run(sockets=[sock])


# ================================================================================================
# clients and phases
# ================================================================================================
def _pct(xs: list[float], p: float, empty: float = float("nan")) -> float:
    if not xs:
        return empty
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


async def http_json(port: int, method: str, path: str) -> dict:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"{method} {path} HTTP/1.0\r\nhost: x\r\ncontent-length: 0\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    body = data.split(b"\r\n\r\n", 1)[1]
    return json.loads(body) if body else {}


async def sse_client(port: int, path: str, body: dict, leave_after: int | None = None,
                     timeout: float = 120.0) -> dict:
    """One streamed request; returns timings (monotonic) and what arrived."""
    res = {"t0": time.monotonic(), "t_first": None, "t_end": None, "status": 0, "tokens": 0, "text": "",
           "halt": None, "verdict": None, "error": None, "t_leave": None}
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        res["error"] = type(exc).__name__
        return res
    data = json.dumps(body).encode()
    writer.write(f"POST {path} HTTP/1.0\r\nhost: x\r\ncontent-type: application/json\r\n"
                 f"content-length: {len(data)}\r\n\r\n".encode() + data)
    try:
        async with asyncio.timeout(timeout):
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            res["status"] = int(head.split(b" ", 2)[1])
            buf = b""
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                buf += chunk
                while b"\n\n" in buf:
                    fr, buf = buf.split(b"\n\n", 1)
                    text = fr.decode()
                    if text.startswith(":"):
                        continue
                    ev = text.split("\n", 1)[0][7:] if text.startswith("event: ") else "message"
                    payload = json.loads(text.split("data: ", 1)[1]) if "data: " in text else None
                    if ev == "token":
                        if res["t_first"] is None:
                            res["t_first"] = time.monotonic()
                        res["tokens"] += 1
                        res["text"] += payload["text"]
                    elif ev == "halt":
                        res["halt"] = payload
                    elif ev == "verdict":
                        res["verdict"] = payload
                if leave_after is not None and res["tokens"] >= leave_after:
                    res["t_leave"] = time.monotonic()
                    break
    except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
        res["error"] = type(exc).__name__
    finally:
        writer.close()
    res["t_end"] = time.monotonic()
    return res


class Procs:
    """The two servers, started as child processes of this one and stopped at the end."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.tmp = tempfile.mkdtemp(prefix="bench_load_")
        self.procs: list[subprocess.Popen] = []
        up_file, srv_file = Path(self.tmp, "up"), Path(self.tmp, "srv")
        me = [sys.executable, str(Path(__file__).resolve())]
        self.procs.append(subprocess.Popen(me + ["upstream", "--port-file", str(up_file),
                                                 "--tokens-delay", str(args.tokens_delay)]))
        self.up_port = self._port(up_file)
        self.procs.append(subprocess.Popen(me + ["server", "--port-file", str(srv_file),
                                                 "--upstream-port", str(self.up_port)]))
        self.srv_port = self._port(srv_file)
        self.server_pid = self.procs[1].pid
        self.upstream_pid = self.procs[0].pid

    def _port(self, path: Path) -> int:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if path.exists() and path.read_text().strip():
                time.sleep(0.3)
                return int(path.read_text())
            for p in self.procs:
                if p.poll() is not None:
                    raise SystemExit(f"a bench server exited with {p.returncode}")
            time.sleep(0.05)
        raise SystemExit("a bench server did not start in 60 s")

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run_level(procs: Procs, n: int, path: str, timeout: float) -> dict:
    await http_json(procs.srv_port, "POST", "/reset")
    await http_json(procs.up_port, "POST", "/reset")
    cpu0, up0 = proc_cpu(procs.server_pid), proc_cpu(procs.upstream_pid)
    t0 = time.monotonic()
    bodies = [{"rid": f"{path[1:]}-{n}-{i}", "i": i, "wrong": i % 10 == 5} for i in range(n)]
    results = await asyncio.gather(*(sse_client(procs.srv_port, path, b, timeout=timeout) for b in bodies))
    wall = time.monotonic() - t0
    cpu, up_cpu = proc_cpu(procs.server_pid) - cpu0, proc_cpu(procs.upstream_pid) - up0
    await asyncio.sleep(0.5)
    stats = await http_json(procs.srv_port, "GET", "/stats")
    ups = await http_json(procs.up_port, "GET", "/stats")
    row = {"path": path, "streams": n, "wall_s": wall, "server_cores": cpu / wall, "upstream_cores": up_cpu / wall,
           "rss_mb": stats["rss_kb"] / 1024, "threads": stats["threads"], "lag_ms": stats["lag_ms"],
           "peak_queued": stats["peak_queued"], "saturations": stats["saturations"]}
    ok = [r for r in results if r["error"] is None and r["status"] == 200 and r["verdict"] is not None]
    row["completed"] = len(ok)
    row["errors"] = n - len(ok)
    first = [r["t_first"] - r["t0"] for r in ok if r["t_first"]]
    total = [r["t_end"] - r["t0"] for r in ok]
    u_first = [u["sent"][0] - u["t_req"] for u in ups.values() if u["sent"]]
    u_total = [u["sent"][-1] - u["t_req"] for u in ups.values() if u["complete"] and u["sent"]]
    row.update(first_p50=_pct(first, 50), first_p99=_pct(first, 99), total_p50=_pct(total, 50),
               total_p99=_pct(total, 99), up_first_p50=_pct(u_first, 50), up_total_p50=_pct(u_total, 50))
    wrong = [(b, r) for b, r in zip(bodies, results) if b["wrong"]]
    right = [(b, r) for b, r in zip(bodies, results) if not b["wrong"]]
    row["halt_wrong"] = sum(1 for _, r in wrong if r["verdict"] and r["verdict"].get("halted"))
    row["n_wrong"] = len(wrong)
    row["halt_correct"] = sum(1 for _, r in right if r["verdict"] and r["verdict"].get("halted"))
    row["correct_reasons"] = sorted({r["verdict"]["reason"] for _, r in right if r["verdict"] and r["verdict"].get("halted")})
    row["wrong_text_delivered"] = sum(
        1 for b, r in wrong if f"costs {10 + 3 * (b['i'] % 30) + 7} euros" in r["text"])
    # chunks the model sent between the guard closing its stream and the model seeing it closed,
    # and after the end of the wrong sentence (includes the time the sentence waited to be scored)
    after_close, after_wrong, read_ahead = [], [], []
    for b, r in wrong:
        g = stats["records"].get(b["rid"])
        u = ups.get(b["rid"])
        if not g or not u or g["t_close"] is None:
            continue
        closed = u["closed_at"] or time.monotonic()
        after_close.append(sum(1 for t in u["sent"] if g["t_close"] < t <= closed))
        w = wrong_sentence_end(b["i"])
        if len(u["sent"]) > w:
            after_wrong.append(sum(1 for t in u["sent"][w + 1:] if t <= closed))
        read_ahead.append(g["reads"] - (w + 1))
    row.update(after_close_max=max(after_close, default=0), after_wrong_p50=_pct(after_wrong, 50),
               after_wrong_max=max(after_wrong, default=0), read_ahead_max=max(read_ahead, default=0))
    return row


async def run_storm(procs: Procs, n: int, timeout: float) -> dict:
    await http_json(procs.srv_port, "POST", "/reset")
    await http_json(procs.up_port, "POST", "/reset")
    before = await http_json(procs.srv_port, "GET", "/stats")
    rng = random.Random(7)
    bodies = [{"rid": f"storm-{i}", "i": i, "wrong": False} for i in range(n)]
    results = await asyncio.gather(*(sse_client(procs.srv_port, "/chat", b, leave_after=rng.randint(5, 40),
                                                timeout=timeout) for b in bodies))
    await asyncio.sleep(3.0)
    ups = await http_json(procs.up_port, "GET", "/stats")
    after = await http_json(procs.srv_port, "GET", "/stats")
    lags, still_open = [], 0
    for b, r in zip(bodies, results):
        u = ups.get(b["rid"])
        if u is None or r["t_leave"] is None:
            continue
        if u["closed_at"] is None and not u["complete"]:
            still_open += 1
        elif u["closed_at"] is not None:
            lags.append(max(0.0, u["closed_at"] - r["t_leave"]))
    return {"streams": n, "left": sum(1 for r in results if r["t_leave"] is not None),
            "close_p50_ms": _pct(lags, 50) * 1e3, "close_p99_ms": _pct(lags, 99) * 1e3,
            "close_max_ms": max(lags, default=float("nan")) * 1e3, "still_open": still_open,
            "threads_before": before["threads"], "threads_after": after["threads"],
            "rss_before_mb": before["rss_kb"] / 1024, "rss_after_mb": after["rss_kb"] / 1024}


async def run_soak(procs: Procs, minutes: float, streams: int) -> list[dict]:
    end = time.monotonic() + minutes * 60
    counts = {"done": 0, "errors": 0, "halted_correct": 0}

    async def worker(w: int) -> None:
        k = 0
        while time.monotonic() < end:
            i = w * 1000 + k
            k += 1
            r = await sse_client(procs.srv_port, "/chat", {"rid": f"soak-{i}", "i": i, "wrong": False}, timeout=120)
            counts["done"] += 1
            if r["error"] or not r["verdict"]:
                counts["errors"] += 1
            elif r["verdict"].get("halted"):
                counts["halted_correct"] += 1

    async def sampler(samples: list[dict]) -> None:
        t0 = time.monotonic()
        while time.monotonic() < end + 1:
            s = await http_json(procs.srv_port, "GET", "/stats")
            await http_json(procs.srv_port, "POST", "/reset")  # keeps the per-request records small
            samples.append({"t_s": round(time.monotonic() - t0), "rss_mb": s["rss_kb"] / 1024,
                            "threads": s["threads"], **counts})
            print(f"  soak t={samples[-1]['t_s']:4d}s rss={samples[-1]['rss_mb']:.2f} MB "
                  f"threads={s['threads']} done={counts['done']} errors={counts['errors']}", flush=True)
            await asyncio.sleep(max(0.0, 30.0 - (time.monotonic() - t0) % 30.0))

    samples: list[dict] = []
    await asyncio.gather(sampler(samples), *(worker(w) for w in range(streams)))
    return samples


def fmt_level(r: dict) -> list[str]:
    return [r["path"], str(r["streams"]), f"{r['completed']}", f"{r['errors']}",
            f"{r['first_p50'] * 1e3:.0f} / {r['first_p99'] * 1e3:.0f}",
            f"{r['total_p50']:.2f} / {r['total_p99']:.2f}",
            f"{r['up_first_p50'] * 1e3:.0f} / {r['up_total_p50']:.2f}",
            f"{r['total_p50'] / r['up_total_p50']:.2f}x" if r["up_total_p50"] == r["up_total_p50"] else "-",
            f"{r['halt_wrong']}/{r['n_wrong']}", str(r["halt_correct"]), str(r["wrong_text_delivered"]),
            f"{r['after_close_max']}", f"{r['after_wrong_p50']:.0f} / {r['after_wrong_max']}",
            f"{r['server_cores']:.2f}", f"{r['server_cores'] * r['wall_s'] / r['streams'] / N_TOKENS * 1e3:.3f}",
            f"{r['rss_mb']:.1f}", str(r["threads"]),
            "/".join(f"{x:.1f}" for x in r["lag_ms"]), str(r["peak_queued"])]


HEADER = ["route", "streams", "done", "err", "first ms p50/p99", "total s p50/p99", "model first ms / total s",
          "slowdown", "halt wrong", "halt correct", "wrong text out", "chunks after close (max)",
          "chunks after wrong p50/max", "server cores", "server CPU ms/token", "RSS MB", "threads", "loop lag ms p50/p99/max",
          "peak queue (10 ms samples)"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    u = sub.add_parser("upstream")
    u.add_argument("--port-file", required=True)
    u.add_argument("--tokens-delay", type=float, default=0.02)
    s = sub.add_parser("server")
    s.add_argument("--port-file", required=True)
    s.add_argument("--upstream-port", required=True)
    ap.add_argument("--levels", default="10,50,100,200,400")
    ap.add_argument("--no-plain", action="store_true", help="skip the unguarded baseline route")
    ap.add_argument("--storm", type=int, default=100)
    ap.add_argument("--tokens-delay", type=float, default=0.02)
    ap.add_argument("--level-timeout", type=float, default=180.0)
    ap.add_argument("--soak", action="store_true")
    ap.add_argument("--soak-minutes", type=float, default=12.0)
    ap.add_argument("--soak-streams", type=int, default=20)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.cmd == "upstream":
        return run_upstream(args)
    if args.cmd == "server":
        return run_server(args)

    from _util import env_line, table

    levels = [int(x) for x in args.levels.split(",") if x]
    if max(levels + [args.storm, args.soak_streams]) > 1000:
        raise SystemExit("at most 1000 streams per phase")
    procs = Procs(args)
    out: dict = {"env": env_line(), "loadavg_start": os.getloadavg(), "command": " ".join(sys.argv)}
    try:
        async def go() -> None:
            # warm-up (imports, first scorer calls, connection set-up)
            await run_level(procs, 5, "/chat", args.level_timeout)
            rows = []
            for n in levels:
                for path in ("/chat",) + (() if args.no_plain else ("/plain",)):
                    r = await run_level(procs, n, path, args.level_timeout)
                    print(" ".join(fmt_level(r)), flush=True)
                    rows.append(r)
            out["ramp"] = rows
            if args.storm:
                out["storm"] = await run_storm(procs, args.storm, args.level_timeout)
                print(out["storm"], flush=True)
            if args.soak:
                out["soak"] = await run_soak(procs, args.soak_minutes, args.soak_streams)

        asyncio.run(go())
    finally:
        procs.stop()
    out["loadavg_end"] = os.getloadavg()
    print(out["env"])
    print(f"load average at start {out['loadavg_start']}, at end {out['loadavg_end']}")
    print(table([fmt_level(r) for r in out["ramp"]], HEADER))
    if "storm" in out:
        st = out["storm"]
        print(f"\ndisconnect storm: {st['left']} of {st['streams']} clients left after 5-40 tokens; model "
              f"connection closed after the disconnect p50 {st['close_p50_ms']:.0f} ms, p99 {st['close_p99_ms']:.0f} ms, "
              f"max {st['close_max_ms']:.0f} ms; still open after 3 s: {st['still_open']}; server threads "
              f"{st['threads_before']} -> {st['threads_after']}, RSS {st['rss_before_mb']:.1f} -> {st['rss_after_mb']:.1f} MB")
    if "soak" in out:
        sk = out["soak"]
        warm = [x for x in sk if x["t_s"] >= 120]
        print("\nsoak: t_s, RSS MB, threads, requests done, errors, correct halted")
        for x in sk:
            print(f"  {x['t_s']:5d}  {x['rss_mb']:8.2f}  {x['threads']:4d}  {x['done']:6d}  {x['errors']:4d}  "
                  f"{x['halted_correct']}")
        if len(warm) >= 2:
            mins = (warm[-1]["t_s"] - warm[0]["t_s"]) / 60
            growth = warm[-1]["rss_mb"] - warm[0]["rss_mb"]
            print(f"RSS growth after warm-up (from {warm[0]['t_s']} s): {growth:+.2f} MB over {mins:.1f} min "
                  f"= {growth / mins * 10:+.2f} MB per 10 min; threads {min(x['threads'] for x in warm)}-"
                  f"{max(x['threads'] for x in warm)}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()

"""A tiny loopback HTTP server that answers like the OpenAI chat-completions and Anthropic
messages APIs (JSON, or server-sent events replayed chunk by chunk), so tests can drive the real
``openai`` / ``anthropic`` client objects. Test helper, not part of the package."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_WORD = re.compile(r"\S+\s*")


class Script:
    """What the server answers next: ``text`` (streamed word by word), optional OpenAI
    ``tool_calls`` / Anthropic ``tool_use`` blocks, and a delay between SSE events."""

    def __init__(self) -> None:
        self.text = ""
        self.tools: list[tuple[str, dict[str, Any]]] = []  # (name, arguments)
        self.delay_s = 0.0
        self.requests: list[dict[str, Any]] = []
        self.events_sent = 0
        self.events_total = 0
        self.client_gone = threading.Event()
        self.done = threading.Event()


def _openai_body(s: Script) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": s.text or None}
    if s.tools:
        msg["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                              "function": {"name": n, "arguments": json.dumps(a)}}
                             for i, (n, a) in enumerate(s.tools)]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": msg, "logprobs": None,
                         "finish_reason": "tool_calls" if s.tools else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _openai_events(s: Script) -> list[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return "data: " + json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
                                      "model": "m", "choices": [{"index": 0, "delta": delta,
                                                                 "logprobs": None, "finish_reason": finish}]}) + "\n\n"
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": w}) for w in _WORD.findall(s.text)]
    out.append(chunk({}, "stop"))
    out.append("data: [DONE]\n\n")
    return out


def _anthropic_body(s: Script) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if s.text:
        content.append({"type": "text", "text": s.text})
    content += [{"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": a} for i, (n, a) in enumerate(s.tools)]
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": content,
            "stop_reason": "tool_use" if s.tools else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}}


def _anthropic_events(s: Script) -> list[str]:
    def ev(kind: str, data: dict[str, Any]) -> str:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"
    out = [ev("message_start", {"message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                                            "content": [], "stop_reason": None, "stop_sequence": None,
                                            "usage": {"input_tokens": 1, "output_tokens": 0}}}),
           ev("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})]
    out += [ev("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": w}})
            for w in _WORD.findall(s.text)]
    out += [ev("content_block_stop", {"index": 0}),
            ev("message_delta", {"delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                 "usage": {"output_tokens": 5}}),
            ev("message_stop", {})]
    return out


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    script: Script

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802
        s = self.server.script  # type: ignore[attr-defined]
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        s.requests.append({"path": self.path, "body": body})
        anthropic = self.path.rstrip("/").endswith("/messages")
        if not body.get("stream"):
            data = json.dumps(_anthropic_body(s) if anthropic else _openai_body(s)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        events = _anthropic_events(s) if anthropic else _openai_events(s)
        s.events_total = len(events)
        s.events_sent = 0
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        try:
            for e in events:
                self.wfile.write(e.encode())
                self.wfile.flush()
                s.events_sent += 1
                if s.delay_s:
                    time.sleep(s.delay_s)
        except (BrokenPipeError, ConnectionResetError):
            s.client_gone.set()
        finally:
            s.done.set()


class LLMServer:
    """``with LLMServer() as srv:`` -- ``srv.url`` (``http://127.0.0.1:PORT``), ``srv.script``."""

    def __init__(self) -> None:
        self.script = Script()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.script = self.script  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> "LLMServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def reset(self, text: str = "", tools: list[tuple[str, dict[str, Any]]] | None = None,
              delay_s: float = 0.0) -> Script:
        s = self.script
        s.text, s.tools, s.delay_s = text, list(tools or []), delay_s
        s.requests.clear()
        s.client_gone.clear()
        s.done.clear()
        return s

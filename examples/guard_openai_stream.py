"""Guard an OpenAI-style chat-completion stream (a fake client replaying recorded chunks; no network).

Run: python examples/guard_openai_stream.py

The same code works with the real `openai` client: pass `client.chat.completions.create(...,
stream=True)` to `openai_text_deltas` (or `aopenai_text_deltas` with the async client and
`astream_guard`). When the guard halts, the upstream stream is closed so the model stops.
"""

from __future__ import annotations

import director_fast as df
from director_fast.stream.adapters import openai_text_deltas

RECORDED_CHUNKS = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
    {"choices": [{"index": 0, "delta": {"content": "Acme was founded "}}]},
    {"choices": [{"index": 0, "delta": {"content": "in 1998 in Oslo. "}}]},
    {"choices": [{"index": 0, "delta": {"content": "It employs "}}]},
    {"choices": [{"index": 0, "delta": {"content": "9,000 people "}}]},
    {"choices": [{"index": 0, "delta": {"content": "worldwide. "}}]},
    {"choices": [{"index": 0, "delta": {"content": "Its CEO is Kari Nordmann."}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
]


class FakeStream:
    """Stands in for the client's stream object: iterable of chunks, with close()."""

    def __init__(self, chunks):
        self._it = iter(chunks)
        self.closed = False

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def close(self):
        self.closed = True


def main() -> None:
    kb = df.KnowledgeBase()
    kb.add("Acme was founded in 1998 in Oslo. It employs 2,500 people. Its CEO is Kari Nordmann.",
           source="acme-profile", tenant="acme")
    scorer = df.CoherenceScorer(knowledge=kb)
    upstream = FakeStream(RECORDED_CHUNKS)
    guard = df.stream_guard(openai_text_deltas(upstream), scorer,
                            prompt="Tell me about Acme.", tenant_id="acme", request_id="req-42")
    print("delivered: ", end="")
    for token in guard:
        print(token, end="", flush=True)
    print()
    s = guard.session
    if s.halted:
        ev = s.halt_evidence_structured
        print(f"halted: {s.halt_reason} at token {s.halt_index}; upstream closed: {upstream.closed}")
        print(f"evidence: {[c.text for c in ev.evidence_chunks]}")
        print("safety event:", s.safety_events[0].to_dict()["halt_reason"],
              s.safety_events[0].to_dict()["attributes"])


if __name__ == "__main__":
    main()

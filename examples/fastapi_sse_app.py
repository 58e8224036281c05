"""A FastAPI app that streams a guarded answer to the browser as server-sent events.

Run:   pip install director-fast[fastapi]
       python examples/fastapi_sse_app.py            # serves http://127.0.0.1:8000
Try:   curl -N -X POST http://127.0.0.1:8000/chat -H 'x-tenant-id: acme' \\
            -H 'content-type: application/json' -d '{"prompt": "Tell me about Acme."}'

The "model" here replays recorded text deltas with a small delay (no network, no API key). With a
real model, pass an awaitable that opens the stream, e.g. ``open_stream()`` for
``async def open_stream(): return aopenai_text_deltas(await client.chat.completions.create(...,
stream=True))`` (or ``aanthropic_text_deltas(...)``), as ``tokens``: a model that fails or stalls
before its first token then ends the SSE stream with an ``upstream_error`` halt event instead of an
HTTP 500; when the guard halts, or the browser goes away, the upstream HTTP stream is closed and
the model stops generating.

What the browser receives: ``token`` events (each sentence released once it is checked),
``: keep-alive`` comments while a sentence is being held back, a ``halt`` event carrying the
SafetyEvent when a sentence contradicts the knowledge base, then the ``verdict`` event.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

from fastapi import FastAPI, Request

import director_fast as df
from director_fast.integrations.fastapi import DirectorGuard

KB = df.KnowledgeBase()
KB.add("Acme was founded in 1998 in Oslo. It employs 2,500 people. Its CEO is Kari Nordmann.",
       source="acme-profile", tenant="acme")

# the recorded answer: its second sentence contradicts the knowledge base (9,000 vs 2,500)
RECORDED_DELTAS = ["Acme was ", "founded in ", "1998 in Oslo. ", "It employs ", "9,000 people ",
                   "worldwide. ", "Its CEO is ", "Kari Nordmann."]


async def fake_model(prompt: str, delay_s: float = 0.02) -> AsyncIterator[str]:
    """Stands in for a model's streamed text deltas."""
    for delta in RECORDED_DELTAS:
        await asyncio.sleep(delay_s)
        yield delta


app = FastAPI()
guard = DirectorGuard(scorer=df.CoherenceScorer(knowledge=KB), keepalive_s=5.0)
# the middleware reads x-tenant-id / x-request-id and echoes x-request-id in every response
app.add_middleware(DirectorGuard, scorer=guard.scorer, paths=["/chat"])


@app.post("/chat")
async def chat(request: Request):
    body = await request.json()
    prompt = str(body.get("prompt", ""))
    return guard.stream(request, fake_model(prompt), prompt=prompt)


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=8000)

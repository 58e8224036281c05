"""director_fast.stream: guarding text while it is generated.

Owns the halt kernel (``halt.py``), ``stream_guard`` / ``astream_guard`` (``stream_guard.py``)
and their per-stream state machine with the held-back tokens (``stream_state.py``), the
bounded scorer executor (``executor.py``), stream sessions and the director-ai
``StreamingKernel`` (``session.py``, ``kernel.py``), structured (JSON) recovery
(``structured.py``), the counterfactual halt diagnostic (``counterfactual.py``), client adapters
and ``guard(client)`` (``adapters.py``, ``client_guard.py``) and ``CoherenceAgent``
(``agent.py``). May import every layer below: base, safety, types, verify, memory, diagnostics.
"""

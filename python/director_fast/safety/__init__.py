"""director_fast.safety: the audit records and their rules.

Owns :class:`SafetyEvent` (``director.safety_event.v1``) and its payload validator
(``event.py``), the safety protocol signal (``protocol.py``), the tenant-safety rules every
audit string obeys (``tenant.py``) and the halt evidence a halt event carries
(``halt_evidence.py``: ``HaltEvidence``, ``EvidenceChunk``, ``HaltTraceAttribution``,
counterfactual records). May import only the base modules (``errors``, ``_fields``,
``_validate``, ``_core``). Prompt-injection detection judges claims, so it lives in
:mod:`director_fast.verify` (``injection.py``, ``injection_core.py``).
"""

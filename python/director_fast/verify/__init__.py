"""director_fast.verify: the claim pipeline, from a response to its verdict.

Owns, in pipeline order: text and numbers (``text.py``, ``numbers.py``, ``roles.py``), claim
units (``claims.py``, with the kind classifier in ``claim_kinds.py``), per-claim evidence and
retrieval (``claim_evidence.py``, ``knowledge.py``, ``evidence.py``), the judges (rules in
``rules_*.py`` and ``claim_verdict.py``, the model in ``nli.py``, lexical / model / hybrid judges
in ``judges.py``), the number, date, role and negation checks (``number_alignment.py``,
``derived_numbers.py``, ``applied_rules.py``), the source status of evidence
(``citation_status.py``), prompt-injection detection (``injection*.py``) and aggregation into a
verdict and a score (``scorer.py``: ``CoherenceScorer``), and the explanation of a verdict
(``explain.py``: failing claims, causes, suggestions). May import the base modules,
:mod:`director_fast.safety` and :mod:`director_fast.types`; never a stream, memory or job module
(a conversation session is handed in by the caller and reviews itself).
"""

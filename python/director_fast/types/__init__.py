"""director_fast.types: the frozen result records every layer returns.

Owns director-ai's data types (``results.py``: ``CoherenceScore``, ``ClaimAttribution``,
``ScoringEvidence``, ``ReviewResult``, ``InjectionResult``, ...), the verification records
(``verification.py``: numeric, citation-status, structured-recovery, calibration and fine-tune
results), the explanation of a verdict (``explanation.py``: ``Explanation``, its causes and
suggestions) and ``DirectorConfig`` (``config.py``). Records only: validation of their fields, no
algorithms. May import the base modules and :mod:`director_fast.safety`.
"""

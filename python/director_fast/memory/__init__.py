"""director_fast.memory: what the guard remembers across turns and sessions.

Owns the temporal consistency graph (``temporal.py``: claims over time and their
contradictions, the crash-safe log), conversation sessions (``conversation.py``: cross-turn
contradictions) and ``ProductionGuard`` (``production.py``), which holds that state for a
deployment. May import the base modules, :mod:`director_fast.safety`,
:mod:`director_fast.types` and :mod:`director_fast.verify`.
"""

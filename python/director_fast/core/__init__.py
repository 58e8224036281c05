"""director_fast.core: the import paths of director-ai's ``director_ai.core`` (same names).

Re-exports only: ``config``, ``safety_event``, ``safety_protocol``, ``scorer``, ``streaming`` and
``types`` each re-export the ``__all__`` of the module that implements them (in ``types/``,
``safety/``, ``verify/`` and ``stream/``). Nothing in the package imports this subpackage; it may
import every layer below it (docs/architecture.md).
"""

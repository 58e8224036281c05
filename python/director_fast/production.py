"""ProductionGuard: the batteries-included guard object (minimal first cut).

(It lived in ``director_fast/guard.py`` before; ``from director_fast.guard import ProductionGuard``
still works: ``director_fast.guard`` is now the client-wrapping function, see
:mod:`director_fast.client_guard`.)

So far it only owns the temporal consistency graph (seed 003); other subsystems attach here as
their issues land.
"""

from __future__ import annotations

import threading

from director_fast.core.config import DirectorConfig
from director_fast.core.temporal_consistency import TemporalConsistencyGraph
from director_fast.errors import InputTypeError

__all__ = ["ProductionGuard"]


class ProductionGuard:
    """Guard object holding per-deployment state across sessions.

    Args:
        config: a :class:`DirectorConfig` (default: ``DirectorConfig()``).

    Raises:
        InputTypeError: ``config`` is not a DirectorConfig.

    Thread-safety: safe to share between threads; the temporal graph is created once (under a
    lock) and is itself thread-safe.
    """

    def __init__(self, config: DirectorConfig | None = None) -> None:
        if config is None:
            config = DirectorConfig()
        if not isinstance(config, DirectorConfig):
            raise InputTypeError(f"config must be a DirectorConfig, got {type(config).__name__}")
        self._config = config
        self._lock = threading.Lock()
        self._temporal_consistency: TemporalConsistencyGraph | None = None

    @property
    def config(self) -> DirectorConfig:
        """The configuration this guard was built with."""
        return self._config

    @property
    def temporal_consistency(self) -> TemporalConsistencyGraph:
        """The guard's cross-session claim timeline (created on first use, then kept).

        Claims recorded through it in one session are checked against every earlier session of
        this guard. Built from ``config.temporal_*``; construct a
        :class:`TemporalConsistencyGraph` directly for other settings.
        """
        graph = self._temporal_consistency
        if graph is None:
            with self._lock:
                if self._temporal_consistency is None:
                    cfg = self._config
                    self._temporal_consistency = TemporalConsistencyGraph(
                        functional_predicates=cfg.temporal_functional_predicates,
                        case_sensitive=cfg.temporal_case_sensitive,
                        path=cfg.temporal_path,
                    )
                graph = self._temporal_consistency
        return graph

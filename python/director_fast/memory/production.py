"""ProductionGuard: the batteries-included guard object (minimal first cut).

(It lived in ``director_fast/guard.py`` before; ``from director_fast.guard import ProductionGuard``
still works: ``director_fast.guard`` is now the client-wrapping function, see
:mod:`director_fast.stream.client_guard`.)

So far it owns the temporal consistency graph (claims over time, contradictions across
sessions) and injection detection (:meth:`ProductionGuard.check_injection`).
"""

from __future__ import annotations

import threading

from director_fast.types.config import DirectorConfig
from director_fast.memory.temporal import TemporalConsistencyGraph
from director_fast.types.results import InjectionResult
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
        self._injection_detector = None

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

    @property
    def injection_detector(self):
        """The guard's :class:`~director_fast.verify.injection.InjectionDetector` (default settings;
        created on first use, then kept). Construct one directly for other settings."""
        det = self._injection_detector
        if det is None:
            with self._lock:
                if self._injection_detector is None:
                    from director_fast.verify.injection import InjectionDetector

                    self._injection_detector = InjectionDetector()
                det = self._injection_detector
        return det

    def check_injection(self, intent: str, response: str, user_query: str = "", system_prompt: str = "", *,
                        context=None) -> InjectionResult:
        """Whether ``response`` follows an instruction injected into its inputs: see
        :meth:`director_fast.verify.injection.InjectionDetector.detect` (same arguments and result).

        Raises:
            InputTypeError: a non-str argument. ValidationError: a lone surrogate.
        """
        return self.injection_detector.detect(intent, response, user_query, system_prompt, context=context)

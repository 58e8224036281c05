"""Configuration of director_fast (minimal first cut: the fields the guard needs so far).

Field names follow ``director_ai.core.config.DirectorConfig``; more fields are added by the issues
that need them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from director_fast.errors import ConfigError

__all__ = ["DirectorConfig"]


@dataclass
class DirectorConfig:
    """Central configuration (subset of director-ai's ``DirectorConfig``).

    Args:
        coherence_threshold: minimum coherence to approve, in [0, 1].
        hard_limit: safety-kernel emergency stop threshold, in [0, 1].
        use_nli: enable the NLI scorer.
        temporal_functional_predicates: single-valued predicates of the guard's temporal
            consistency graph (director_fast extension; director-ai's guard has none).
        temporal_case_sensitive: comparison mode of the guard's temporal graph.
        temporal_path: optional append-only log of the guard's temporal graph (``None`` = memory).

    Raises:
        ConfigError: a field is out of range (``.field`` names it).

    Thread-safety: a plain mutable dataclass; do not mutate it while a guard uses it.
    """

    coherence_threshold: float = 0.6
    hard_limit: float = 0.5
    use_nli: bool = False
    temporal_functional_predicates: frozenset[str] = field(default_factory=frozenset)
    temporal_case_sensitive: bool = True
    temporal_path: str | None = None

    def __post_init__(self) -> None:
        for name in ("coherence_threshold", "hard_limit"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
                raise ConfigError(f"{name} must be a number in [0, 1], got {v!r}", field=name)
        if isinstance(self.temporal_functional_predicates, str):
            raise ConfigError(
                "temporal_functional_predicates must be a collection of str",
                field="temporal_functional_predicates",
            )
        self.temporal_functional_predicates = frozenset(self.temporal_functional_predicates)

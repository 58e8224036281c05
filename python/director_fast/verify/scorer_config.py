"""Scorer config files: reading the JSON written by ``TuneResult.write_config`` (and
``director-fast tune``) into CoherenceScorer keyword arguments.

Below both :mod:`director_fast.verify.scorer` (``CoherenceScorer.from_config``) and
:mod:`director_fast.diagnostics.calibration` (which writes them), so neither imports the other.

Thread-safety: pure functions; call from any thread.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from director_fast.types.verification import SCORER_CONFIG_FORMAT as CONFIG_FORMAT
from director_fast.errors import ConfigError, FormatError, InputTypeError, StorageError

__all__ = ["DEFAULT_SCORE_SCALE", "load_scorer_config"]

#: (threshold, soft_limit) of the default CoherenceScorer: the scale its scores are on.
DEFAULT_SCORE_SCALE = (0.5, 0.6)


def _check_scale(scale: Any) -> tuple[float, float]:
    try:
        t0, s0 = (float(v) for v in scale)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"score_scale must be (threshold, soft_limit), got {scale!r}", field="score_scale") from exc
    if not (0.0 <= t0 <= s0 <= 1.0):
        raise ConfigError(f"score_scale must satisfy 0 <= threshold <= soft_limit <= 1, got {scale!r}",
                          field="score_scale")
    return t0, s0


def load_scorer_config(path: str | Path, *, tenant_id: str | None = None) -> dict[str, Any]:
    """Read a scorer config (see :func:`write_scorer_config`) and return the CoherenceScorer
    keyword arguments it sets: ``threshold``, ``soft_limit``, ``score_scale`` (the tenant's own
    threshold when ``tenant_id`` has one, its soft limit then threshold + 0.1).

    Raises:
        StorageError: the file cannot be read.
        FormatError: not JSON, another ``format``, or a member of the wrong type / range (the
            message names it).
    """
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise StorageError(f"cannot read the scorer config {path}: {exc}") from exc
    try:
        cfg = json.loads(raw)
    except ValueError as exc:
        raise FormatError(f"{path}: not a JSON scorer config ({exc})") from None
    if not isinstance(cfg, dict) or cfg.get("format") != CONFIG_FORMAT:
        raise FormatError(f"{path}: format must be {CONFIG_FORMAT!r}")

    def unit(name: str, v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0.0 <= v <= 1.0:
            raise FormatError(f"{path}: {name} must be a number in [0, 1], got {v!r}")
        return float(v)

    t = unit("threshold", cfg.get("threshold"))
    soft = unit("soft_limit", cfg.get("soft_limit", min(t + 0.1, 1.0)))
    scale = cfg.get("score_scale", list(DEFAULT_SCORE_SCALE))
    if not isinstance(scale, list) or len(scale) != 2:
        raise FormatError(f"{path}: score_scale must be [threshold, soft_limit]")
    scale_t = (unit("score_scale[0]", scale[0]), unit("score_scale[1]", scale[1]))
    if scale_t[0] > scale_t[1]:
        raise FormatError(f"{path}: score_scale must have threshold <= soft_limit")
    tenants = cfg.get("tenant_thresholds", {})
    if not isinstance(tenants, dict):
        raise FormatError(f"{path}: tenant_thresholds must be an object tenant -> threshold")
    for k, v in tenants.items():
        unit(f"tenant_thresholds[{k!r}]", v)
    if tenant_id is not None:
        if not isinstance(tenant_id, str):
            raise InputTypeError(f"tenant_id must be a str, got {type(tenant_id).__name__}")
        if tenant_id in tenants:
            t = float(tenants[tenant_id])
            soft = min(t + 0.1, 1.0)
    if soft < t:
        raise FormatError(f"{path}: soft_limit ({soft}) is below threshold ({t})")
    return {"threshold": t, "soft_limit": soft, "score_scale": scale_t}

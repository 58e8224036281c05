"""Rate-limited logging for hot paths (scorer errors and timeouts in a busy server).

A warning that can fire once per request would flood a server's log when a backend goes down;
:func:`warn_limited` emits at most one record per ``key`` per ``interval_s`` seconds and reports
how many it suppressed in between (``"... (37 similar warnings suppressed)"``).

Thread-safety: safe to call from any thread (one lock around a small dict).
"""

from __future__ import annotations

import logging
import threading
import time

__all__ = ["warn_limited", "WARN_INTERVAL_S"]

#: Seconds between two warnings of the same key.
WARN_INTERVAL_S = 10.0

_lock = threading.Lock()
_last: dict[tuple[str, str], tuple[float, int]] = {}  # (logger, key) -> (time of last emit, suppressed)
_MAX_KEYS = 1024


def warn_limited(logger: logging.Logger, key: str, msg: str, *args: object,
                 interval_s: float = WARN_INTERVAL_S) -> bool:
    """Log ``msg % args`` at WARNING unless ``key`` was logged in the last ``interval_s`` seconds.

    Returns True when the record was emitted. Keys are short constant strings (for example
    ``"scorer_timeout"``), never request data; at most 1024 distinct keys are tracked.
    """
    if not logger.isEnabledFor(logging.WARNING):
        return False
    now = time.monotonic()
    k = (logger.name, key)
    with _lock:
        last, suppressed = _last.get(k, (-1e18, 0))
        if now - last < interval_s:
            _last[k] = (last, suppressed + 1)
            return False
        if len(_last) >= _MAX_KEYS and k not in _last:
            _last.clear()
        _last[k] = (now, 0)
    if suppressed:
        logger.warning(msg + " (%d similar warnings suppressed)", *args, suppressed)
    else:
        logger.warning(msg, *args)
    return True


def _reset() -> None:
    """Forget every key (tests)."""
    with _lock:
        _last.clear()

"""Shared helper of the thread-safety tests."""

from __future__ import annotations

import threading
from typing import Callable


def run_threads(work: Callable[[], None], n: int = 4) -> list[BaseException]:
    """Run ``work()`` in ``n`` threads at once and return what they raised (empty: none raised)."""
    errors: list[BaseException] = []

    def guarded() -> None:
        try:
            work()
        except BaseException as exc:  # pragma: no cover - reported to the caller
            errors.append(exc)

    threads = [threading.Thread(target=guarded) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors

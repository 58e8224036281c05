"""Where the training pipeline reads shared data and writes its work (never inside the repository).

* ``shared_data()``: the licensed data folders (``nli/``, ``grounded/``, ``halluc/``). Default
  ``<checkout>/../shared/data``; override with ``DIRECTOR_FAST_SHARED_DATA``.
* ``work_dir()``: pair files, checkpoints, exports. Default ``<checkout>/../verifier-work``;
  override with ``DIRECTOR_FAST_WORK``. Rows of the shared data only ever land here, never in the
  repository.
"""

from __future__ import annotations

import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shared_data() -> str:
    return os.environ.get("DIRECTOR_FAST_SHARED_DATA") or os.path.join(REPO, os.pardir, "shared", "data")


def work_dir(*parts: str) -> str:
    root = os.environ.get("DIRECTOR_FAST_WORK") or os.path.join(REPO, os.pardir, "verifier-work")
    path = os.path.normpath(os.path.join(root, *parts))
    os.makedirs(os.path.dirname(path) if parts and "." in parts[-1] else path, exist_ok=True)
    return path

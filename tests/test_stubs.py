"""The committed _core.pyi stub matches the compiled extension (mypy stubtest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_core_stub_matches_extension():
    try:
        import mypy  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("mypy (test extra) is required in CI")
        pytest.skip("mypy not installed")
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "director_fast._core", "--allowlist",
         str(HERE / "stubtest_allowlist.txt")],
        capture_output=True, text=True, cwd=str(HERE.parent.parent), timeout=300,
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]

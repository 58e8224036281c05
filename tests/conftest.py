import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# CI runs are reproducible (the same examples every run, no deadline flakes on a shared 2-core
# machine); local runs explore new examples each time.
settings.register_profile("ci", derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
if os.environ.get("CI") == "true":
    settings.load_profile("ci")

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def shared_dir() -> Path:
    """The shared/ folder beside the checkout (DIRECTOR_FAST_SHARED overrides)."""
    env = os.environ.get("DIRECTOR_FAST_SHARED")
    if env:
        return Path(env)
    for cand in (REPO.parent / "shared", REPO / "shared"):
        if cand.is_dir():
            return cand
    return REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared() -> Path:
    p = shared_dir()
    if not p.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared/ data folder missing at {p}")
        pytest.skip(f"shared/ data folder missing at {p}")
    return p


def load_halt_cases():
    """Reference cases recorded from director-ai 3.21.0 (a copy of shared/reference/halt_cases.json
    ships in tests/fixtures so the suite runs without shared/)."""
    p = shared_dir() / "reference" / "halt_cases.json"
    if not p.is_file():
        p = HERE / "fixtures" / "halt_cases.json"
    return json.loads(p.read_text())

"""Package-level checks: one version source, error hierarchy, public names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import director_fast
from director_fast import _core, errors

ROOT = Path(__file__).resolve().parent.parent


def test_version_single_source():
    text = (ROOT / "pyproject.toml").read_text()
    m = re.search(r'^version = "([^"]+)"', text, re.M)
    assert m is not None
    assert _core.__version__ == m.group(1) == director_fast.__version__
    from importlib.metadata import version

    assert version("director-fast") == m.group(1)


@pytest.mark.parametrize(
    "cls, builtin",
    [
        (errors.ConfigError, ValueError),
        (errors.ScoreError, ValueError),
        (errors.ValidationError, ValueError),
        (errors.FormatError, ValueError),
        (errors.InputTypeError, TypeError),
        (errors.DirectorIndexError, IndexError),
        (errors.DirectorKeyError, KeyError),
        (errors.StorageError, OSError),
    ],
)
def test_error_hierarchy(cls, builtin):
    assert issubclass(cls, errors.DirectorFastError) and issubclass(cls, builtin)


def test_core_errors_are_translated():
    with pytest.raises(errors.ConfigError) as ei:
        _core.HaltKernel(trend_window=1)
    assert ei.value.field == "trend_window"
    with pytest.raises(errors.ConfigError):
        _core.HaltKernel(halt_mode="medium")
    k = _core.HaltKernel()
    with pytest.raises(errors.ScoreError) as ei:
        k.step(float("inf"))
    assert ei.value.index == 0 and k.tokens_seen == 0  # state unchanged
    k.step(0.1)
    with pytest.raises(errors.ValidationError):  # already halted
        k.step(0.9)
    import numpy as np

    with pytest.raises(errors.InputTypeError, match="float64"):
        director_fast.replay(np.zeros(3, dtype=np.float32))
    with pytest.raises(errors.InputTypeError, match="contiguous"):
        director_fast.replay(np.zeros(6)[::2])
    with pytest.raises(errors.InputTypeError, match="same length"):
        director_fast.replay(np.zeros(3), np.zeros(2, dtype=bool))


def test_public_names_exist():
    for name in director_fast.__all__:
        assert hasattr(director_fast, name), name

"""director_fast.runtime_check: ONNX Runtime builds installed side by side, told from fake installs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import director_fast
from director_fast.runtime_check import OnnxRuntimeConflictWarning, onnxruntime_install

NATIVE = "onnxruntime/capi/onnxruntime_pybind11_state.cpython-311-x86_64-linux-gnu.so"


def _dist(site: Path, name: str, version: str, native_size: int) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "RECORD").write_text(
        f"onnxruntime/__init__.py,sha256=x,10\n{NATIVE},sha256=y,{native_size}\n{info.name}/RECORD,,\n")


def _site(tmp_path: Path, dists: list[tuple[str, str, int]], on_disk: int) -> Path:
    site = tmp_path / "site"
    (site / "onnxruntime" / "capi").mkdir(parents=True)
    (site / "onnxruntime" / "__init__.py").write_text("raise ImportError('never imported')\n")
    (site / NATIVE).write_bytes(b"\0" * on_disk)
    for d in dists:
        _dist(site, *d)
    return site


def test_one_cpu_build(tmp_path):
    site = _site(tmp_path, [("onnxruntime", "1.20.0", 300)], on_disk=300)
    info = onnxruntime_install([site])
    assert info.location == str(site.resolve())
    assert info.distributions == {"onnxruntime": "1.20.0"}
    assert (info.native_from, info.cuda_build, info.conflict) == ("onnxruntime", False, False)
    assert "CPUExecutionProvider only" in info.message()


def test_cpu_and_gpu_native_from_gpu(tmp_path):
    site = _site(tmp_path, [("onnxruntime", "1.20.0", 300), ("onnxruntime-gpu", "1.20.1", 700)],
                 on_disk=700)
    info = onnxruntime_install([site])
    assert info.distributions == {"onnxruntime": "1.20.0", "onnxruntime-gpu": "1.20.1"}
    assert (info.native_from, info.cuda_build, info.conflict) == ("onnxruntime-gpu", True, True)
    msg = info.message()
    assert "onnxruntime-gpu's" in msg and "CUDAExecutionProvider" in msg
    assert "pip uninstall -y onnxruntime onnxruntime-gpu && pip install 'onnxruntime-gpu[cuda,cudnn]'" in msg


def test_cpu_and_gpu_native_from_cpu_and_unknown(tmp_path):
    site = _site(tmp_path, [("onnxruntime", "1.20.0", 300), ("onnxruntime-gpu", "1.20.1", 700)],
                 on_disk=300)
    info = onnxruntime_install([site])
    assert (info.native_from, info.cuda_build) == ("onnxruntime", False)
    (site / NATIVE).write_bytes(b"\0" * 5)  # neither record matches: a broken mix
    info = onnxruntime_install([site])
    assert (info.native_from, info.cuda_build, info.conflict) == (None, None, True)
    assert "cannot be told" in info.message()


def test_not_installed(tmp_path):
    info = onnxruntime_install([tmp_path])
    assert (info.location, info.distributions, info.conflict) == (None, {}, False)
    assert "not installed" in info.message()


def test_package_without_records(tmp_path):
    site = _site(tmp_path, [], on_disk=10)  # a source build: no dist-info
    info = onnxruntime_install([site])
    assert (info.distributions, info.native_from, info.cuda_build, info.conflict) == ({}, None, None, False)


_PROBE = """
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import director_fast
print([(x.category.__name__, str(x.message)) for x in w if 'onnxruntime' in str(x.message)])
"""


@pytest.mark.parametrize("disable", [False, True])
def test_import_warns_on_a_mix(tmp_path, disable):
    site = _site(tmp_path, [("onnxruntime", "1.20.0", 300), ("onnxruntime-gpu", "1.20.1", 700)],
                 on_disk=700)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site)] + [p for p in sys.path if p])
    env.pop("DIRECTOR_FAST_NO_ORT_CHECK", None)
    if disable:
        env["DIRECTOR_FAST_NO_ORT_CHECK"] = "1"
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    got = eval(out.stdout.strip().splitlines()[-1])  # a list literal printed by the probe
    if disable:
        assert got == []
    else:
        assert len(got) == 1 and got[0][0] == "OnnxRuntimeConflictWarning"
        assert "onnxruntime 1.20.0, onnxruntime-gpu 1.20.1 are installed together" in got[0][1]


def test_public_names():
    assert director_fast.OnnxRuntimeConflictWarning is OnnxRuntimeConflictWarning
    assert issubclass(OnnxRuntimeConflictWarning, UserWarning)
    assert director_fast.onnxruntime_install is onnxruntime_install

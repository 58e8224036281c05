"""Which ONNX Runtime build is installed, read from the installed files (onnxruntime is never imported).

``onnxruntime`` (CPU), ``onnxruntime-gpu`` (CUDA) and the other ONNX Runtime builds on PyPI are
separate distributions that install the same ``onnxruntime`` package. When two of them are
installed, the files on disk are a mix: the native library is the one of the build installed
last, and uninstalling either one deletes files the other needs. :func:`onnxruntime_install`
reports what is there; ``import director_fast`` warns with :class:`OnnxRuntimeConflictWarning`
when two builds are installed side by side and says which execution provider will run.

Thread safety: the functions only read the file system and return new immutable objects; they are
safe to call from any thread.
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Sequence

__all__ = ["ONNXRUNTIME_DISTRIBUTIONS", "OnnxRuntimeConflictWarning", "OnnxRuntimeInstall",
           "onnxruntime_install"]

#: PyPI distributions that install the ``onnxruntime`` package (normalised names), and whether
#: their native library carries the CUDA execution provider.
ONNXRUNTIME_DISTRIBUTIONS: dict[str, bool] = {
    "onnxruntime": False,
    "onnxruntime-gpu": True,
    "onnxruntime-directml": False,
    "onnxruntime-openvino": False,
    "onnxruntime-qnn": False,
    "onnxruntime-training": False,
}

_NATIVE = "onnxruntime/capi/onnxruntime_pybind11_state"
_GPU_SWAP = ("pip uninstall -y onnxruntime onnxruntime-gpu && "
             "pip install 'onnxruntime-gpu[cuda,cudnn]'")
_CPU_SWAP = "pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime"


class OnnxRuntimeConflictWarning(UserWarning):
    """Two ONNX Runtime builds (e.g. ``onnxruntime`` and ``onnxruntime-gpu``) are installed together."""


@dataclass(frozen=True)
class OnnxRuntimeInstall:
    """What :func:`onnxruntime_install` found.

    Attributes:
        location: the folder that holds the ``onnxruntime`` package (``None``: not installed).
        distributions: ``{distribution name: version}`` of the ONNX Runtime builds installed in
            ``location`` (normalised names such as ``"onnxruntime-gpu"``); empty when the package
            was installed some other way (a source build, a system package).
        native_from: the distribution whose native library (``onnxruntime_pybind11_state``) is
            the one on disk, told by the file size recorded in each distribution's ``RECORD``;
            ``None`` when it cannot be told (no record, or the sizes are ambiguous).
        cuda_build: True when that native library is a CUDA build (``onnxruntime-gpu``): then
            ``NLIModel(providers="auto")`` runs on ``CUDAExecutionProvider`` if the CUDA and cuDNN
            libraries load, else on the CPU. False: CPU only. ``None``: unknown.
    """

    location: str | None
    distributions: dict[str, str]
    native_from: str | None
    cuda_build: bool | None

    @property
    def conflict(self) -> bool:
        """True when two or more ONNX Runtime builds share the one ``onnxruntime`` package."""
        return len(self.distributions) > 1

    def message(self) -> str:
        """A one-paragraph description: what is installed, which provider runs, how to fix a mix."""
        if self.location is None:
            return "onnxruntime is not installed (pip install onnxruntime, or onnxruntime-gpu for CUDA)"
        names = ", ".join(f"{n} {v}" for n, v in sorted(self.distributions.items())) or "an unrecorded build"
        if self.cuda_build is True:
            runs = ("NLIModel(providers='auto') uses CUDAExecutionProvider when the CUDA and cuDNN "
                    "libraries load, else CPUExecutionProvider")
        elif self.cuda_build is False:
            runs = "NLIModel runs on CPUExecutionProvider only (no CUDA provider in this build)"
        else:
            runs = "which provider runs cannot be told from the installed files"
        if not self.conflict:
            return f"{names} in {self.location}: {runs}"
        native = (f"the native library on disk is {self.native_from}'s" if self.native_from
                  else "which build's native library is on disk cannot be told (the mix may not import)")
        return (f"{names} are installed together in {self.location}; they share the 'onnxruntime' "
                f"package and {native}, so {runs}. Uninstalling only one of them deletes files the "
                f"other needs. For the GPU: {_GPU_SWAP}; for the CPU only: {_CPU_SWAP}")


def _normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _native_size(dist: metadata.Distribution) -> tuple[str, int] | None:
    for f in dist.files or ():
        if str(f).replace(os.sep, "/").startswith(_NATIVE) and f.size is not None:
            return str(f), int(f.size)
    return None


def _package_location() -> Path | None:
    """The folder from which ``import onnxruntime`` would load the package (nothing is imported)."""
    try:
        spec = importlib.util.find_spec("onnxruntime")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.origin not in (None, "namespace"):
        return Path(spec.origin).resolve().parent.parent
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0]).resolve().parent
    return None


def _distributions(location: Path) -> dict[str, metadata.Distribution]:
    """The ONNX Runtime builds whose ``*.dist-info`` folder is in ``location`` (names only scanned)."""
    found: dict[str, metadata.Distribution] = {}
    try:
        entries = [e.name for e in os.scandir(location)]
    except OSError:
        return found
    for entry in entries:
        if not entry.endswith(".dist-info") or not entry.lower().startswith("onnxruntime"):
            continue
        name = _normalise(entry[: -len(".dist-info")].split("-", 1)[0])
        if name in ONNXRUNTIME_DISTRIBUTIONS and name not in found:
            found[name] = metadata.Distribution.at(location / entry)
    return found


def onnxruntime_install(path: Sequence[str | os.PathLike[str]] | None = None) -> OnnxRuntimeInstall:
    """Report the ONNX Runtime builds installed, without importing ``onnxruntime``.

    Args:
        path: folders to look in (like ``sys.path`` entries). ``None`` (default): the folder from
            which ``import onnxruntime`` would load the package.

    Returns:
        an :class:`OnnxRuntimeInstall`; ``location`` is ``None`` when no ``onnxruntime`` package is
        found. Cost: one directory scan of the package's folder, and a read of each found
        distribution's ``RECORD`` (a few milliseconds in all).

    Raises:
        nothing for a missing or broken installation: an unreadable record gives ``native_from``
        ``None``.
    """
    location: Path | None = None
    if path is None:
        location = _package_location()
    else:
        for entry in path:
            if (Path(entry) / "onnxruntime").is_dir():
                location = Path(entry).resolve()
                break
    if location is None:
        return OnnxRuntimeInstall(None, {}, None, None)

    found = _distributions(location)
    versions = {n: (d.version or "?") for n, d in found.items()}

    native_from: str | None = None
    matches = []
    for name, dist in found.items():
        rec = _native_size(dist)
        if rec is None:
            continue
        try:
            size = os.stat(dist.locate_file(rec[0])).st_size
        except OSError:
            continue
        if size == rec[1]:
            matches.append(name)
    if len(matches) == 1:
        native_from = matches[0]
    cuda: bool | None
    if native_from is not None:
        cuda = ONNXRUNTIME_DISTRIBUTIONS[native_from]
    elif len(found) == 1:
        cuda = ONNXRUNTIME_DISTRIBUTIONS[next(iter(found))]  # one build: its files, record or not
    else:
        cuda = None
    return OnnxRuntimeInstall(str(location), versions, native_from, cuda)


def _warn_on_conflict() -> None:
    """Called once by ``import director_fast``: warn when two ONNX Runtime builds are installed."""
    if os.environ.get("DIRECTOR_FAST_NO_ORT_CHECK"):
        return
    try:
        location = _package_location()
        if location is None or len(_distributions(location)) < 2:  # the common case: no records read
            return
        info = onnxruntime_install()
    except Exception:  # pragma: no cover - never let a diagnostic break the import
        return
    if info.conflict:
        warnings.warn(info.message(), OnnxRuntimeConflictWarning, stacklevel=2)

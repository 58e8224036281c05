"""Release packaging: license files, metadata, notices, extras, installed contents.

These read the metadata of the installed distribution (what a user of the wheel gets) and the
source checkout the tests run from.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import director_fast

ROOT = Path(__file__).resolve().parent.parent
# the package as imported: the installed copy (a wheel), or python/director_fast (editable)
PKG = Path(director_fast.__file__).resolve().parent
DIST = "director-fast"
LICENSE_EXPRESSION = "Apache-2.0 AND BSD-3-Clause AND MIT AND Unicode-3.0 AND CC-BY-SA-4.0"
SUPPORTED_PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_license_file_is_the_apache_2_text():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    # the whole text, not a summary: all nine sections and the appendix
    for n, title in enumerate(
        ["Definitions", "Grant of Copyright License", "Grant of Patent License", "Redistribution",
         "Submission of Contributions", "Trademarks", "Disclaimer of Warranty",
         "Limitation of Liability", "Accepting Warranty or Additional Liability"], start=1):
        assert f"{n}. {title}." in text, title
    assert "END OF TERMS AND CONDITIONS" in text
    assert "APPENDIX: How to apply the Apache License to your work." in text


def test_metadata_license_and_license_files():
    md = metadata.metadata(DIST)
    assert md["License-Expression"] == LICENSE_EXPRESSION
    assert sorted(md.get_all("License-File") or []) == [
        "LICENSE", "THIRD_PARTY_NOTICES.md", "python/director_fast/models/claim-verifier-minilm-l6/LICENSE"]
    # PEP 639: no license classifiers next to a license expression
    assert not [c for c in md.get_all("Classifier") or [] if c.startswith("License ::")]
    assert _pyproject()["project"]["license"] == LICENSE_EXPRESSION


def test_metadata_classifiers_keywords_python():
    md = metadata.metadata(DIST)
    assert md["Requires-Python"] == ">=3.10"
    classifiers = set(md.get_all("Classifier") or [])
    for v in SUPPORTED_PYTHONS:
        assert f"Programming Language :: Python :: {v}" in classifiers
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert f"Programming Language :: Python :: {here}" in classifiers, "running on an unlisted Python"
    assert "Typing :: Typed" in classifiers and "Programming Language :: C++" in classifiers
    assert "guardrails" in (md["Keywords"] or "").split(",")
    urls = md.get_all("Project-URL") or []
    for entry in urls:  # when project URLs are given, each is "Label, https://..."
        label, _, url = entry.partition(", ")
        assert label and url.startswith("https://"), entry


def test_notices_cover_what_is_compiled_in():
    notices = (ROOT / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    cmake = (ROOT / "cmake" / "hnswlib.cmake").read_text(encoding="utf-8")
    m = re.search(r'DIRECTOR_FAST_HNSWLIB_VERSION "([0-9.]+)"', cmake)
    assert m is not None
    assert f"hnswlib {m.group(1)}" in notices  # the version the build fetches
    assert "pybind11" in notices and "Redistributions in binary form" in notices  # BSD-3 text
    fold = (ROOT / "cpp" / "src" / "safety_fold_table.inc").read_text(encoding="utf-8")[:400]
    assert "Unicode" in fold and "UNICODE LICENSE V3" in notices
    assert "sample.jsonl" in notices
    # every SPDX id of the license expression is explained in the notices or is ours
    for spdx in LICENSE_EXPRESSION.split(" AND "):
        assert spdx in notices, spdx


def test_version_single_source_cli():
    """``director-fast --version`` reports the version from pyproject.toml (through the metadata)."""
    m = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert m is not None and director_fast.__version__ == m.group(1)
    out = subprocess.run([sys.executable, "-m", "director_fast.jobs.cli", "--version"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["director-fast", m.group(1)]


# distribution name -> the module it provides, where the two differ
_MODULE_OF = {"langchain-core": "langchain_core", "opentelemetry-api": "opentelemetry",
              "prometheus-client": "prometheus_client", "onnxruntime-gpu": "onnxruntime"}
# extras that install tools for a source checkout or for the user's own code, not for an import
# of the package: test/bench run the suite, integrations are the client SDKs guard() wraps
_NOT_IMPORTED = {"test", "bench", "integrations"}
# needed at run time by something the package imports, not imported by name: the fastapi
# integration imports Starlette, which FastAPI brings; uvicorn serves the fastapi example app;
# onnx is what torch.onnx.export writes through
_INDIRECT = {("fastapi", "fastapi"), ("fastapi", "uvicorn"), ("export", "onnx")}


def _requirement_name(req: str) -> str:
    return re.split(r"[\s\[<>=!~;]", req, maxsplit=1)[0].lower().replace("_", "-")


def _imported_modules() -> set[str]:
    import ast

    mods: set[str] = set()
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                mods.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                mods.add(node.module.split(".")[0])
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module"
                  and node.args and isinstance(node.args[0], ast.Constant)):
                mods.add(str(node.args[0].value).split(".")[0])
    return mods


def test_every_extra_installs_only_what_is_imported():
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    assert "progress" not in extras and "gpu" not in extras
    imported = _imported_modules()
    deps = [("<base>", r) for r in project["dependencies"]]
    deps += [(extra, r) for extra, reqs in extras.items() if extra not in _NOT_IMPORTED for r in reqs]
    for extra, req in deps:
        dist = _requirement_name(req)
        if (extra, dist) in _INDIRECT:
            continue
        module = _MODULE_OF.get(dist, dist.replace("-", "_"))
        assert module in imported, f"extra {extra!r} installs {dist}, which the package never imports"
    # the runtime conflict the missing gpu extra avoids: no extra pulls both ONNX Runtime builds
    for extra, reqs in extras.items():
        names = {_requirement_name(r) for r in reqs}
        assert not {"onnxruntime", "onnxruntime-gpu"} <= names, extra


def test_install_doc_lists_every_extra():
    text = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    for extra in _pyproject()["project"]["optional-dependencies"]:
        assert f"`{extra}`" in text, extra


def test_install_doc_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "install.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "install.md", "exec"), {"__name__": "docs_install"})
    out = capsys.readouterr().out.splitlines()
    info = director_fast.onnxruntime_install()
    assert out[0] == f"{sorted(info.distributions)} {info.native_from} {info.cuda_build} {info.conflict}"
    assert out[1] == info.message()


# Internal planning references that a user of the package never has: design-document sections,
# seed files, the development tree's shared/ folder, issue numbers.
_INTERNAL_REFS = re.compile(
    r"DESIGN(\.md)?\s*§|§\s*\d|\bDESIGN\.md\b|\bseeds?\s+0\d\d\b|\bseeds/|(?<![\w.-])(\.\./)?shared/"
    r"|\bissue\s*#?\d+\b|\bissues show\b", re.I)


def _user_docs() -> list[Path]:
    return sorted((ROOT / "docs").glob("*.md")) + [
        ROOT / "README.md", ROOT / "CHANGELOG.md", PKG / "data" / "SAMPLE_PROVENANCE.md"]


def test_user_docs_have_no_internal_references():
    hits = []
    for path in _user_docs():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if _INTERNAL_REFS.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "internal references in user docs:\n" + "\n".join(hits)


def _package_texts():
    """(where, text) for every docstring, string constant and ``#`` comment of the imported
    package's modules and stub, and every docstring of the compiled extension."""
    import ast

    import director_fast._core as core

    for path in sorted([*PKG.rglob("*.py"), *PKG.rglob("*.pyi")]):
        src = path.read_text(encoding="utf-8")
        rel = path.relative_to(PKG).as_posix()
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield f"{rel}:{node.lineno}", node.value
        for n, line in enumerate(src.splitlines(), start=1):
            if line.lstrip().startswith("#"):
                yield f"{rel}:{n}", line
    seen = set()
    stack = [("_core", core)]
    while stack:
        name, obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield f"{name}.__doc__", getattr(obj, "__doc__", None) or ""
        if isinstance(obj, type) or obj is core:
            for attr, value in vars(obj).items():
                if callable(value) or isinstance(value, (type, property)):
                    stack.append((f"{name}.{attr}", value))


def test_package_docstrings_and_messages_have_no_internal_references():
    """What a user of the installed package can read -- docstrings (``help()``), error messages,
    the stub file, the extension's docstrings -- explains itself instead of citing planning files."""
    hits = [f"{where}: {_INTERNAL_REFS.search(text).group(0)!r}"
            for where, text in _package_texts() if _INTERNAL_REFS.search(text)]
    assert not hits, "internal references in the package:\n" + "\n".join(hits)


def test_package_text_scan_sees_docstrings_and_extension():
    texts = dict(_package_texts())
    assert any(w.startswith("__init__.py:") for w in texts)
    assert any(w.startswith("stream/halt.py:") and "StreamingKernel" in t for w, t in texts.items())
    assert any(w.startswith("_core.") and "kernel CSPRNG" in t for w, t in texts.items())


@pytest.mark.parametrize("line", [
    "(DESIGN §4, §5)", "the DESIGN §12 AUC target", "seed 000 types", "(seeds 002 and 004)",
    "as in `shared/data/halluc/*.jsonl`", "see ../shared/DESIGN.md", "fixed in issue 20",
])
def test_internal_reference_pattern_catches(line):
    assert _INTERNAL_REFS.search(line)


@pytest.mark.parametrize("line", [
    "[--seed 0] [--holdout 0.3]", "negation then applies to shared content", "`issue_type` | severity",
    "every issue is an error", "(seed 20261130, uniform", "a shared knowledge base",
])
def test_internal_reference_pattern_spares(line):
    assert not _INTERNAL_REFS.search(line)


# What an installed (non-editable) director-fast may contain, as paths relative to site-packages.
_ALLOWED = [
    r"director_fast/(.+/)?[A-Za-z_][A-Za-z0-9_]*\.py",                      # the Python package
    r"director_fast/(.+/)?__pycache__/[A-Za-z0-9_]+\.[a-z0-9_-]+(\.opt-[12])?\.pyc",  # pip compileall
    r"director_fast/_core\.[A-Za-z0-9_.-]+\.(so|pyd)|director_fast/_core\.(so|pyd)",  # the extension
    r"director_fast/_core\.pyi",
    r"director_fast/py\.typed",
    r"director_fast/data/(sample\.jsonl|SAMPLE_PROVENANCE\.md)",
    r"director_fast/models/[A-Za-z0-9_.-]+/([A-Za-z0-9_.-]+\.(onnx|json|txt|md)|LICENSE)",  # bundled model files
    r"director_fast-[0-9][^/]*\.dist-info/(METADATA|WHEEL|RECORD|INSTALLER|REQUESTED|"
    r"direct_url\.json|entry_points\.txt|licenses/(LICENSE|THIRD_PARTY_NOTICES\.md|"
    r"python/director_fast/models/claim-verifier-minilm-l6/LICENSE))",
    r"(\.\./)+bin/director-fast|(\.\./)+Scripts/director-fast(\.exe)?",        # the console script
]
_REQUIRED = ["director_fast/_core.pyi", "director_fast/py.typed", "director_fast/__init__.py",
             "director_fast/data/sample.jsonl", "director_fast/data/SAMPLE_PROVENANCE.md"]


def _installed_files() -> list[str]:
    dist = metadata.distribution(DIST)
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    if direct.get("dir_info", {}).get("editable"):
        pytest.skip("director-fast is installed in editable mode: its files are the source tree")
    files = dist.files
    if files is None:
        pytest.skip("the installer recorded no file list (no RECORD)")
    return [str(f).replace("\\", "/") for f in files]


def test_installed_files_match_the_allowlist():
    files = _installed_files()
    allowed = re.compile("|".join(f"(?:{p})" for p in _ALLOWED))
    stray = [f for f in files if not allowed.fullmatch(f)]
    assert not stray, f"unexpected files in the installed package: {stray}"
    for need in _REQUIRED:
        assert need in files, need
    licenses = {f.split(".dist-info/licenses/", 1)[1] for f in files if ".dist-info/licenses/" in f}
    assert licenses == {"LICENSE", "THIRD_PARTY_NOTICES.md", "python/director_fast/models/claim-verifier-minilm-l6/LICENSE"}
    shipped = {f.rsplit("/", 1)[-1] for f in files if f.startswith("director_fast/models/claim-verifier-minilm-l6/")}
    assert {"model_quantized.onnx", "tokenizer.json", "config.json", "LICENSE", "MODEL_CARD.md"} <= shipped
    ext = [f for f in files if re.fullmatch(r"director_fast/_core[^/]*\.(so|pyd)", f)]
    assert len(ext) == 1, ext
    # every module of the source tree is installed (nothing left behind by wheel.packages)
    src = ROOT / "python" / "director_fast"
    if src.is_dir():
        want = {f"director_fast/{p.relative_to(src).as_posix()}" for p in src.rglob("*.py")}
        assert not want - set(files), sorted(want - set(files))


def test_installed_file_allowlist_rejects_debris():
    allowed = re.compile("|".join(f"(?:{p})" for p in _ALLOWED))
    for bad in ["director_fast/CMakeFiles/x.o", "director_fast/libdirector_fast_core.a",
                "director_fast/_core.cpython-311-x86_64-linux-gnu.so.orig", "build/dev/build.ninja",
                "director_fast.egg-info/PKG-INFO", "tests/test_package.py", "director_fast/data/x.tmp"]:
        assert not allowed.fullmatch(bad), bad
    for good in ["director_fast/_core.cpython-311-x86_64-linux-gnu.so", "director_fast/stream/halt.py",
                 "director_fast/core/__pycache__/halt.cpython-311.pyc", "../../../bin/director-fast",
                 "director_fast-0.1.0.dist-info/licenses/LICENSE"]:
        assert allowed.fullmatch(good), good


def test_offline_build_uses_hnswlib_include_dir(tmp_path):
    """The documented offline route: HNSWLIB_INCLUDE_DIR makes the build use those headers and
    fetch nothing (CMake configure only, ~2 s)."""
    import shutil

    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake on PATH")
    pybind11 = pytest.importorskip("pybind11")
    sources = sorted(ROOT.glob("build/*/_deps/hnswlib/hnswlib-*/hnswlib/hnswlib.h"))
    sources += [p for p in [Path("/usr/include/hnswlib/hnswlib.h")] if p.is_file()]
    sources = [p for p in sources if "BaseFilterFunctor" in p.read_text(errors="replace")]
    if not sources:
        pytest.skip("no hnswlib >= 0.7 headers on this machine to point the build at")
    headers = tmp_path / "headers"
    shutil.copytree(sources[0].parent, headers / "hnswlib")
    env = {k: v for k, v in os.environ.items() if k not in ("CMAKE_ARGS", "PIP_FIND_LINKS")}
    env["HNSWLIB_INCLUDE_DIR"] = str(headers)
    # no network: pip (the only thing the build would fetch with) gets an unreachable index and no
    # local links, and CMake's FetchContent is disconnected
    env.update(PIP_NO_INDEX="1", PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_CONFIG_FILE=os.devnull,
               HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")
    out = subprocess.run(
        [cmake, "-S", str(ROOT), "-B", str(tmp_path / "b"), f"-DPython_EXECUTABLE={sys.executable}",
         f"-Dpybind11_DIR={pybind11.get_cmake_dir()}", "-DFETCHCONTENT_FULLY_DISCONNECTED=ON"],
        env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert f"hnswlib headers: {headers}" in out.stdout
    assert "Could not fetch" not in out.stderr and ".tar.gz" not in out.stdout + out.stderr
    assert not (tmp_path / "b" / "_deps").exists()  # nothing fetched
    configure_log = (tmp_path / "b" / "CMakeFiles" / "CMakeConfigureLog.yaml")
    if configure_log.is_file():
        assert "pip download" not in configure_log.read_text(errors="replace")


def test_offline_configure_without_headers_fails_cleanly(tmp_path):
    """The control for the test above: with no headers given and pip cut off, the configure step
    does try PyPI and fails with a message naming HNSWLIB_INCLUDE_DIR (so the test above would
    notice a fetch)."""
    import shutil

    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake on PATH")
    pybind11 = pytest.importorskip("pybind11")
    if Path("/usr/include/hnswlib/hnswlib.h").is_file():
        pytest.skip("a system hnswlib would be used instead of PyPI")
    env = {k: v for k, v in os.environ.items()
           if k not in ("CMAKE_ARGS", "PIP_FIND_LINKS", "HNSWLIB_INCLUDE_DIR")}
    env.update(PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_FIND_LINKS=str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    out = subprocess.run(
        [cmake, "-S", str(ROOT), "-B", str(tmp_path / "b"), f"-DPython_EXECUTABLE={sys.executable}",
         f"-Dpybind11_DIR={pybind11.get_cmake_dir()}"],
        env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "Could not fetch hnswlib==" in out.stderr and "HNSWLIB_INCLUDE_DIR" in out.stderr

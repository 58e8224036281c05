"""Release files: changelog, project URLs, cibuildwheel table, sdist contents, docs index,
the thresholds page's example and the architecture page's file map."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path

import pytest

import director_fast

ROOT = Path(__file__).resolve().parent.parent
PKG = Path(director_fast.__file__).resolve().parent


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_changelog_keeps_a_changelog_and_the_version_policy():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    version = _pyproject()["project"]["version"]
    headings = re.findall(r"^## \[([^\]]+)\]", text, re.M)
    assert headings[0] == "Unreleased" and version in headings, headings
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        if section.startswith("["):  # a release: only Keep a Changelog's change types
            kinds = re.findall(r"^### (.+)$", section, re.M)
            assert kinds and set(kinds) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed",
                                             "Security"}, kinds
    policy = text[text.index("## Version policy"):]
    for topic in ("Public API names", "Result fields", "Score semantics and thresholds",
                  "On-disk formats", "Semantic Versioning"):
        assert topic in policy or topic in text, topic
    # every release heading has a link reference at the bottom
    for h in headings:
        assert re.search(rf"^\[{re.escape(h)}\]: https://", text, re.M), h


def test_project_urls_in_pyproject_and_metadata():
    urls = _pyproject()["project"]["urls"]
    assert set(urls) == {"Homepage", "Documentation", "Changelog", "Issues"}
    assert all(u.startswith("https://github.com/director-fast/director-fast") for u in urls.values())
    assert urls["Changelog"].endswith("/CHANGELOG.md")
    md = metadata.metadata("director-fast")
    got = dict(e.split(", ", 1) for e in md.get_all("Project-URL") or [])
    if not got:
        pytest.skip("the installed metadata predates the project URLs (reinstall)")
    assert got == urls


def test_cibuildwheel_table():
    cfg = _pyproject()["tool"]["cibuildwheel"]
    assert cfg["build"].split() == ["cp310-*", "cp311-*", "cp312-*", "cp313-*"]
    for pattern in ("*-musllinux_*", "pp*", "*_i686"):
        assert pattern in cfg["skip"].split()
    assert cfg["linux"]["archs"] == ["x86_64", "aarch64"]
    assert cfg["linux"]["manylinux-x86_64-image"] == "manylinux_2_28"
    assert cfg["linux"]["manylinux-aarch64-image"] == "manylinux_2_28"
    assert cfg["macos"]["archs"] == ["x86_64", "arm64"]
    target = cfg["macos"]["environment"]["MACOSX_DEPLOYMENT_TARGET"]
    assert tuple(int(x) for x in target.split(".")) >= (10, 15)  # <filesystem>, aligned_alloc
    assert "pytest" in cfg["test-command"] and cfg["test-extras"] == ["test"]
    # the tests run from a copy without python/, so they import the installed wheel
    assert "tests" in cfg["test-sources"] and not any(s.startswith("python") for s in cfg["test-sources"])
    for src in cfg["test-sources"]:
        assert (ROOT / src).exists(), src


def test_sdist_carries_license_notices_and_changelog(tmp_path):
    pytest.importorskip("scikit_build_core")
    if not (ROOT / "CMakeLists.txt").is_file():
        pytest.skip("not a source checkout")
    code = ("import sys, scikit_build_core.build as b; "
            "print(b.build_sdist(sys.argv[1]))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    name = out.stdout.split()[-1]
    with tarfile.open(tmp_path / name) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for need in ("LICENSE", "THIRD_PARTY_NOTICES.md", "CHANGELOG.md", "pyproject.toml",
                 "cmake/hnswlib.cmake", "cpp/include/director_fast/portable.hpp"):
        assert need in names, need
    assert not [n for n in names if n.startswith(("build/", "dist/", "wheelhouse/"))]


def test_every_docs_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert "thresholds.md" in pages and "architecture.md" in pages
    missing = [p for p in pages if f"](docs/{p})" not in readme]
    assert not missing, f"docs pages not in the README's documentation list: {missing}"
    for target in re.findall(r"\]\((docs/[^)#]+)\)", readme):
        assert (ROOT / target).is_file(), target


def test_thresholds_page_example_prints_what_it_says(capsys):
    text = (ROOT / "docs" / "thresholds.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(code) == 1
    expected = re.search(r"prints\n\n```\n(.*?)```", text, re.S).group(1).splitlines()
    exec(compile(code[0], "thresholds.md", "exec"), {"__name__": "docs_thresholds"})
    assert capsys.readouterr().out.splitlines() == expected


def test_thresholds_page_defaults_match_the_code():
    from director_fast.diagnostics.confidence import ABSTAIN_THRESHOLD

    text = (ROOT / "docs" / "thresholds.md").read_text(encoding="utf-8")
    cfg = director_fast.HaltConfig()
    for name in ("hard_limit", "window_threshold", "trend_threshold", "soft_limit"):
        assert re.search(rf"`{name}`[^|]*\(({getattr(cfg, name)})\)|\({getattr(cfg, name)}\)", text), name
    assert f"`window_size` ({cfg.window_size})" in text and f"`trend_window` ({cfg.trend_window})" in text
    assert director_fast.CoherenceScorer().threshold == 0.5 and "approve at `score ≥ 0.5`" in text
    assert director_fast.DirectorConfig().coherence_threshold == 0.6
    assert ABSTAIN_THRESHOLD == 0.5 and "abstain when `< 0.5`" in text


def test_architecture_page_names_files_that_exist():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:cpp|python/director_fast|scripts|tests)/[\w./-]+\.(?:cpp|hpp|py|sh))`", text))
    # table cells name later files of the same row relative to python/director_fast/
    sub = r"(?:(?:core|safety|types|verify|memory|diagnostics|stream|jobs|integrations)/)?"
    paths |= {f"python/director_fast/{p}" for p in re.findall(r"`(" + sub + r"[a-z_]+\.py)`", text)}
    assert len(paths) > 25
    for p in sorted(paths):
        where = PKG / p[len("python/director_fast/"):] if p.startswith("python/director_fast/") else ROOT / p
        assert where.is_file(), p

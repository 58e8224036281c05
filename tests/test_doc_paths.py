"""Every dotted ``director_fast.…`` path the documentation names can be imported: a module
path imports, and a name below it is an attribute of what the module path gave (README.md,
docs/*.md and the examples). Paths that are names of another kind (logger names, tracing span
and attribute names, file-format ids) are listed in NOT_IMPORT_PATHS and must not import as
something else by accident."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*.py"))]
PATH_RE = re.compile(r"(?<![\w.])director_fast(?:\.[A-Za-z_]\w*)+")

# logger names (docs/observability.md, streaming.md, migration.md), OpenTelemetry span and
# attribute names (observability.md) and the conversation file format id (conversation.md)
NOT_IMPORT_PATHS = {
    "director_fast.claims", "director_fast.stream_guard", "director_fast.client_guard",
    "director_fast.scorer", "director_fast.adapters", "director_fast.counterfactual",
    "director_fast.nli", "director_fast.review", "director_fast.halt", "director_fast.approved",
    "director_fast.conversation.v1", "director_fast.conversation", "director_fast.scorer_config.v1",
    "director_fast.calibration",
}


def _named_paths() -> dict[str, str]:
    out: dict[str, str] = {}
    for doc in DOCS:
        for m in PATH_RE.finditer(doc.read_text(encoding="utf-8")):
            out.setdefault(m.group(0).rstrip("."), doc.name)
    return out


def _is_module(path: str) -> bool:
    try:
        return importlib.util.find_spec(path) is not None
    except ModuleNotFoundError:  # the parent is not a package
        return False


def _resolve(path: str) -> object:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            if not _is_module(module):
                continue
            obj = importlib.import_module(module)
        except ImportError as exc:
            if "pip install director-fast[" in str(exc):  # an integration whose framework is absent
                pytest.skip(f"{module}: {exc}")
            raise
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(path)


PATHS = _named_paths()


def test_docs_name_paths():
    assert len(PATHS) > 50
    assert "director_fast.verify.claims" in PATHS or "director_fast.verify.claims.split_claims" in PATHS


@pytest.mark.parametrize("path", sorted(p for p in PATHS if p not in NOT_IMPORT_PATHS))
def test_doc_path_imports(path):
    try:
        _resolve(path)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"{path} (named in {PATHS[path]}) does not import: {exc}")


@pytest.mark.parametrize("path", sorted(NOT_IMPORT_PATHS))
def test_names_that_are_not_modules_stay_so(path):
    """A logger, span or format name is not also a module path (moving a module back to the
    top level would make a documented logger name ambiguous)."""
    assert not _is_module(path)

"""The package's modules form no import cycle, and every import points down the layer table
(lazy, function-level imports included; imports under ``if TYPE_CHECKING:`` never run and are
left out).

A cycle makes import order matter and hides layering mistakes; shared types live in a module
below both users instead (``safety/halt_evidence.py``, ``types/results.py``). The layer table
below is the one of docs/architecture.md: a module may import its own subpackage and any layer
with a lower rank, never one with a higher rank; where a lower layer needs something from a
higher one, the caller passes it in (a ``ConversationSession`` reviews itself when
``CoherenceScorer.review`` is handed one).
"""

from __future__ import annotations

import ast
from pathlib import Path

import director_fast

ROOT = Path(director_fast.__file__).resolve().parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    return ".".join(rel.parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []  # annotations only: never executed
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        out.update(n for n in names if n in modules)
    return out


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ROOT.rglob("*.py") if p.name != "__init__.py"}
    modules = set(files)
    return {m: _imports(p, modules) - {m} for m, p in files.items()}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_no_import_cycles():
    cycle = _find_cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


# layer -> rank; "base" is the modules directly under director_fast/ (and the extension _core),
# "director_fast" the package's __init__ (the public API)
LAYERS = {
    "base": 0,
    "safety": 1,
    "types": 2,
    "verify": 3,
    "memory": 4,
    "diagnostics": 5,
    "stream": 6,
    "integrations": 7,
    "jobs": 8,
    "core": 9,
    "director_fast": 10,
}
MAX_TOP_LEVEL_MODULES = 12
MAX_MODULE_LINES = 1200


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts == ["director_fast"]:
        return "director_fast"
    if len(parts) == 2 and (ROOT / parts[1]).is_dir():
        return parts[1]  # a subpackage's __init__
    if len(parts) == 2:
        return "base"
    return parts[1]


def _all_modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        rel = p.relative_to(ROOT.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts
        out[".".join(parts)] = p
    return out


def _edges(path: Path, modules: set[str]) -> set[str]:
    """Every module of the package that ``path`` imports when it runs (module level or inside
    a function), resolved to the module: ``from director_fast.verify import text`` is
    ``director_fast.verify.text``; ``from director_fast import X`` for a name that is not a
    module is the package's ``__init__``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "director_fast":
                    out.add(a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "director_fast":
                continue
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in modules or sub == "director_fast._core" else node.module)
    return out


def _wrong_way(modules: dict[str, Path]) -> list[str]:
    names = set(modules)
    bad = []
    for m, path in sorted(modules.items()):
        lm = _layer(m)
        for n in sorted(_edges(path, names) - {m}):
            ln = "base" if n == "director_fast._core" else _layer(n)
            if ln == lm and lm != "director_fast":
                continue
            if LAYERS[ln] >= LAYERS[lm]:
                bad.append(f"{m} ({lm}) imports {n} ({ln})")
    return bad


def test_every_module_has_a_layer():
    unknown = sorted(m for m in _all_modules() if _layer(m) not in LAYERS)
    assert not unknown, f"modules outside the layer table: {unknown}"


def test_imports_point_down_the_layers():
    bad = _wrong_way(_all_modules())
    assert not bad, "imports against the layer table:\n" + "\n".join(bad)


def test_layer_check_sees_a_wrong_way_edge(tmp_path):
    pkg = tmp_path / "director_fast"
    (pkg / "verify").mkdir(parents=True)
    (pkg / "memory").mkdir()
    (pkg / "verify" / "low.py").write_text("def f():\n    from director_fast.memory.high import g\n")
    (pkg / "memory" / "high.py").write_text("from director_fast.verify import low\n")
    mods = {"director_fast.verify.low": pkg / "verify" / "low.py",
            "director_fast.memory.high": pkg / "memory" / "high.py"}
    assert _wrong_way(mods) == ["director_fast.verify.low (verify) imports director_fast.memory.high (memory)"]


def test_sizes_a_reader_can_hold():
    top = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, f"{len(top)} modules directly under director_fast/: {top}"
    long = {str(p.relative_to(ROOT)): n for p in ROOT.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_cycle_finder_sees_a_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None

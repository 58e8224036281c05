"""The examples of docs/scoring.md, streaming.md, temporal.md, verifiers.md and cli.md run, and
the values they show are the values they produce.

How a page is run (all blocks in page order, one namespace per page, in a fresh ``tmp_path``):

* A ```python block runs statement by statement. An expression statement whose line ends in a
  comment that starts with a Python literal -- ``ok   # True: the claim is supported`` or
  ``report.answer   # 'Acme sits in Cairo.'`` -- is checked: its value must equal
  ``ast.literal_eval`` of that literal. The literal may be followed by an explanation after
  ``:``, ``—``, ``--`` or ``(``; a comment that does not start with a literal is just a comment,
  but one that looks like a value (a quote, digit, bracket, ``True``/``False``/``None``) and does
  not parse fails the page (``(0.333.., ...)`` would otherwise silently check nothing).
  Tuples must be tuples and lists lists; a float written with 3 or more decimals matches a value
  within half a unit of its last digit (``0.333`` matches 1/3), a shorter one (``0.5``, ``0.0``)
  matches to 1e-9.
* A block whose first line is ``# fragment (not run)`` is skipped.
* A block right after a line ending in "as `NAME`:" is written to the file NAME.
* A ```console block: ``$ director-fast ...`` runs ``python -m director_fast.jobs.cli ...``; the lines
  shown after it are its output (stdout and stderr together, whitespace runs collapsed), with
  a line ``...`` standing for any lines and ``...`` inside a line for any text; ``$ echo $?`` shows the previous exit status, which is otherwise
  0. A ```bash block runs its ``director-fast`` lines and checks their exit status is 0.
"""

from __future__ import annotations

import ast
import io
import math
import numbers
import os
import re
import shlex
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
FRAGMENT = "# fragment (not run)"
_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_SAVE_AS = re.compile(r"as `([^`/\\]+)`:\s*$")
_LOOKS_LITERAL = re.compile(r"""^(?:['"(\[{\d]|-\d|(?:True|False|None)\b)""")


class DocExampleError(AssertionError):
    """An example of a page failed: its code raised, or a value differs from the one shown."""


@dataclass
class Block:
    lang: str
    code: str
    line: int  # page line of the block's first code line
    save_as: str | None = None


@dataclass
class PageRun:
    checks: list[str] = field(default_factory=list)  # "page:line expr" of every checked value
    commands: list[str] = field(default_factory=list)
    skipped_blocks: int = 0


def parse_blocks(text: str) -> list[Block]:
    blocks = []
    for m in _FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        save = _SAVE_AS.search(before)
        blocks.append(Block(m.group(1).lower(), m.group(2), text.count("\n", 0, m.start(2)) + 1,
                            save.group(1) if save else None))
    return blocks


# -- expected values ----------------------------------------------------------------------------

_SEPARATORS = (":", "—", "--", "(")


def expected_value(comment: str) -> tuple[bool, object, str]:
    """``(found, value, literal text)`` of a trailing comment's leading literal (without ``#``)."""
    text = comment.strip()
    for end in range(len(text), 0, -1):
        head, rest = text[:end].rstrip(), text[end:].lstrip()
        if not head or (rest and not rest.startswith(_SEPARATORS)):
            continue
        try:
            return True, ast.literal_eval(head), head
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    if _LOOKS_LITERAL.match(text):
        raise DocExampleError(f"the comment {comment!r} looks like a value but does not start with a "
                              "Python literal followed by ':', '—', '--' or '(' (or nothing)")
    return False, None, ""


def _tolerance(expected: float) -> float:
    """Half a unit of the last decimal shown when 3 or more are shown (a rounded value), else 0."""
    mantissa = repr(expected).lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** -decimals if decimals >= 3 else 0.0


def matches(actual: object, expected: object) -> bool:
    """``actual == expected`` with the harness's rules: tuples and lists kept apart, floats within
    their tolerance, bools equal only bools, ints not matched by floats."""
    e = expected
    if isinstance(e, bool):
        return type(actual).__name__ in ("bool", "bool_") and bool(actual) == e  # numpy.bool_ too
    if e is None:
        return actual is None
    if isinstance(e, float):
        if isinstance(actual, bool) or not isinstance(actual, numbers.Real):
            return False
        return math.isclose(float(actual), e, rel_tol=1e-9, abs_tol=max(_tolerance(e), 1e-12))
    if isinstance(e, int):
        return isinstance(actual, numbers.Integral) and not isinstance(actual, bool) and actual == e
    if isinstance(e, (tuple, list)):
        return (isinstance(actual, type(e)) and len(actual) == len(e)
                and all(matches(x, y) for x, y in zip(actual, e)))
    if isinstance(e, dict):
        return (isinstance(actual, dict) and set(actual) == set(e)
                and all(matches(actual[k], e[k]) for k in e))
    return isinstance(actual, type(e)) and actual == e


# -- python blocks ------------------------------------------------------------------------------

def _comments(code: str) -> dict[int, str]:
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:]
    return out


def run_python(block: Block, ns: dict, where: str, run: PageRun) -> None:
    try:
        tree = ast.parse(block.code, filename=where)
    except SyntaxError as exc:
        raise DocExampleError(f"{where}:{block.line + (exc.lineno or 1) - 1}: does not parse: {exc.msg}") from exc
    comments = _comments(block.code)
    lines = block.code.splitlines()
    for stmt in tree.body:
        page_line = block.line + stmt.lineno - 1
        found = False
        if isinstance(stmt, ast.Expr) and stmt.end_lineno in comments:
            comment = comments[stmt.end_lineno]
            try:
                found, expected, literal = expected_value(comment)
            except DocExampleError as exc:
                raise DocExampleError(f"{where}:{block.line + stmt.end_lineno - 1}: {exc}") from None
        src = "\n".join(lines[stmt.lineno - 1: stmt.end_lineno])
        shown = ast.get_source_segment(block.code, stmt) or src
        ast.increment_lineno(stmt, block.line - 1)
        try:
            if found:
                value = eval(compile(ast.Expression(stmt.value), where, "eval"), ns)
            else:
                exec(compile(ast.Module([stmt], type_ignores=[]), where, "exec"), ns)
        except Exception as exc:
            raise DocExampleError(f"{where}:{page_line}: {shown!r} raised {type(exc).__name__}: {exc}") from exc
        if found:
            if not matches(value, expected):
                raise DocExampleError(f"{where}:{page_line}: {shown} gave {value!r}, "
                                      f"the page shows {literal}")
            run.checks.append(f"{where}:{page_line} {shown}")


# -- shell blocks -------------------------------------------------------------------------------

def _norm(line: str) -> str:
    return " ".join(line.split())


def output_matches(actual: str, shown: list[str]) -> bool:
    """Line-level match (whitespace runs collapsed): a line ``...`` stands for any run of lines,
    ``...`` inside a line for any text."""
    got = [_norm(x) for x in actual.splitlines() if x.strip()]
    want = [_norm(x) for x in shown if x.strip()]
    pattern = "".join(r"(?:.*\n)*?" if w == "..." else ".*".join(map(re.escape, w.split("..."))) + r"\n"
                      for w in want)
    return re.fullmatch(pattern, "".join(g + "\n" for g in got)) is not None


def _run_cli(argv: list[str], cwd: Path) -> tuple[int, str]:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="120")
    proc = subprocess.run([sys.executable, "-m", "director_fast.jobs.cli", *argv], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    return proc.returncode, proc.stdout


def _commands(block: Block) -> list[tuple[int, str, list[str]]]:
    """``(page line, command, shown output lines)`` of a console or bash block."""
    out: list[tuple[int, str, list[str]]] = []
    lines = block.code.splitlines()
    i = 0
    while i < len(lines):
        line, at = lines[i], block.line + i
        if block.lang == "console" and not line.startswith("$ "):
            if out:
                out[-1][2].append(line)
            elif line.strip():
                raise DocExampleError(f"line {at}: console output before any command")
            i += 1
            continue
        cmd = line[2:] if block.lang == "console" else line
        while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
        if cmd.strip():
            out.append((at, cmd.strip(), []))
        i += 1
    return out


def run_shell(block: Block, cwd: Path, where: str, run: PageRun) -> None:
    last_rc: int | None = None
    for at, cmd, shown in _commands(block):
        words = shlex.split(cmd, comments=True)
        if not words:
            continue
        if words == ["echo", "$?"]:
            if last_rc is None:
                raise DocExampleError(f"{where}:{at}: `echo $?` before any command")
            if not output_matches(str(last_rc), shown):
                raise DocExampleError(f"{where}:{at}: exit status was {last_rc}, the page shows {shown}")
            last_rc = None
            continue
        if last_rc not in (None, 0):
            raise DocExampleError(f"{where}: the command before line {at} exited with {last_rc} "
                                  "and the page does not show it (`$ echo $?`)")
        if words[0] != "director-fast":
            if block.lang == "console":
                raise DocExampleError(f"{where}:{at}: the harness runs only director-fast commands: {cmd!r}")
            continue
        rc, output = _run_cli(words[1:], cwd)
        run.commands.append(f"{where}:{at} {cmd}")
        if block.lang == "console" and not output_matches(output, shown):
            raise DocExampleError(f"{where}:{at}: `{cmd}` printed:\n{output}\nthe page shows:\n"
                                  + "\n".join(shown))
        last_rc = rc
    if last_rc not in (None, 0):
        raise DocExampleError(f"{where}: the last command exited with {last_rc} and the page does not "
                              "show it (`$ echo $?`)")


# -- pages --------------------------------------------------------------------------------------

def run_page(text: str, where: str, cwd: Path) -> PageRun:
    """Run every example of a page (the markdown ``text``) in ``cwd``; raise DocExampleError."""
    run = PageRun()
    ns: dict = {"__name__": "__doc_example__"}
    old = Path.cwd()
    os.chdir(cwd)
    try:
        for block in parse_blocks(text):
            if block.code.lstrip().startswith(FRAGMENT):
                run.skipped_blocks += 1
                continue
            if block.save_as:
                (cwd / block.save_as).write_text(block.code, encoding="utf-8")
            elif block.lang == "python":
                run_python(block, ns, where, run)
            elif block.lang in ("console", "bash", "sh", "shell"):
                run_shell(block, cwd, where, run)
    finally:
        os.chdir(old)
    return run


# At least this many checked values (and commands) per page: a page whose comments stopped being
# read as values (a changed separator, say) fails here instead of passing without checks.
MIN_CHECKS = {"scoring.md": 8, "streaming.md": 6, "temporal.md": 6, "verifiers.md": 10, "cli.md": 3,
              "explanations.md": 6}


@pytest.mark.parametrize("name", sorted(MIN_CHECKS))
def test_page_examples(name, tmp_path):
    run = run_page((DOCS / name).read_text(encoding="utf-8"), f"docs/{name}", tmp_path)
    assert len(run.checks) >= MIN_CHECKS[name], run.checks
    assert run.skipped_blocks <= 1, f"{name}: keep fragments few"
    if name == "cli.md":
        assert len(run.commands) >= 3, run.commands


# -- the harness itself can fail ----------------------------------------------------------------

def _page(body: str) -> str:
    return f"Text.\n\n```python\n{body}\n```\n"


@pytest.mark.parametrize("body", [
    "1 + 1   # 3",
    "1 + 1   # 3: two and one",
    "x = [1, 2]\nx   # (1, 2)",                        # a list is not a tuple
    "1 / 3   # 0.334",
    "0.5 + 1e-6   # 0.5",                             # short decimals are exact
    "1   # True",                                      # bools only equal bools
    "'a'   # 'b' — an explanation",
    "1 / 3   # 0.333..: not a literal",                # looks like a value, does not parse
    "undefined_name",                                  # an example that raises
])
def test_harness_rejects_wrong_values(body, tmp_path):
    with pytest.raises(DocExampleError):
        run_page(_page(body), "case.md", tmp_path)


@pytest.mark.parametrize("body", [
    "1 + 1   # 2",
    "1 / 3   # 0.333: a third",
    "(1 / 3, ('a',))   # (0.333, ('a',))",
    "{'k': [1.0]}   # {'k': [1.0]}",
    "'data: \"x\"\\n'   # 'data: \"x\"\\n': a string holding ':'",
    "1 + 1   # the sum, not a value",
    "None   # None",
])
def test_harness_accepts_right_values(body, tmp_path):
    run = run_page(_page(body), "case.md", tmp_path)
    assert len(run.checks) == (0 if "not a value" in body else 1)


def test_harness_namespace_files_and_fragments(tmp_path):
    page = ("```python\nx = 41\n```\n\n```python\n# fragment (not run)\nundefined\n```\n\n"
            "Save it as `n.txt`:\n\n```text\n42\n```\n\n"
            "```python\nx + 1   # 42\nint(open('n.txt').read())   # 42\n```\n")
    run = run_page(page, "case.md", tmp_path)
    assert run.skipped_blocks == 1 and len(run.checks) == 2


def test_harness_checks_commands(tmp_path):
    demo = "```console\n$ director-fast guard --data missing.jsonl\n...\n$ echo $?\n{}\n```\n"
    run_page(demo.format(2), "case.md", tmp_path)
    with pytest.raises(DocExampleError, match="exit status"):
        run_page(demo.format(0), "case.md", tmp_path)
    unshown = "```console\n$ director-fast guard --data missing.jsonl\n...\n```\n"
    with pytest.raises(DocExampleError, match="exited with 2"):
        run_page(unshown, "case.md", tmp_path)
    wrong_output = "```console\n$ director-fast guard --data missing.jsonl\nall fine\n$ echo $?\n2\n```\n"
    with pytest.raises(DocExampleError, match="printed"):
        run_page(wrong_output, "case.md", tmp_path)


def test_output_matches():
    assert output_matches("a\n  b   c\nd\n", ["a", "b c", "d"])
    assert output_matches("a\nb\nc\nd\n", ["a", "...", "d"])
    assert output_matches("a\nb\nc\nd\n", ["...", "c", "..."])
    assert not output_matches("a\nb\n", ["a"])
    assert not output_matches("a\nb\n", ["b", "..."])
    assert output_matches('{"records": 3, "x": 1}\n', ['{"records": 3, ...}'])
    assert not output_matches('{"records": 4, "x": 1}\n', ['{"records": 3, ...}'])

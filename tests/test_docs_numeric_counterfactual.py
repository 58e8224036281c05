"""The runnable examples of docs/numeric.md and docs/counterfactual.md run and their asserts hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _blocks(name: str) -> list[str]:
    text = (DOCS / name).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


@pytest.mark.parametrize("name", ["numeric.md", "counterfactual.md"])
def test_doc_examples_run(name, capsys):
    blocks = _blocks(name)
    assert blocks, name
    for code in blocks:
        exec(compile(code, f"{name}:example", "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out  # the examples print what they show

"""The examples of the docs pages on structured recovery, citation status, calibration and
fine-tuning data run as written (each ```python block, in order, in one namespace per page)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["structured.md", "citation_status.md", "calibration.md", "finetune.md"]


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page, tmp_path, monkeypatch):
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, f"{page} has no python example"
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": "__docs__"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{page}[{i}]", "exec"), ns)

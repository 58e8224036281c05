"""export-nli: int8 quantised copy loads and agrees; missing extra gives a clear error."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
sys.path.insert(0, str(Path(__file__).parent))
from _tiny_onnx import build_tiny_nli  # noqa: E402

from director_fast.errors import ConfigError  # noqa: E402
from director_fast.jobs.export import export_nli, main, quantize_onnx  # noqa: E402
from director_fast.verify.nli import NLIModel  # noqa: E402


def test_quantized_copy_is_preferred_and_close(tmp_path):
    build_tiny_nli(tmp_path)
    quantize_onnx(tmp_path / "model.onnx", tmp_path / "model_quantized.onnx")
    full = NLIModel.from_pretrained(tmp_path, providers="cpu", quantized=False)
    q = NLIModel.from_pretrained(tmp_path, providers="cpu")
    assert q._session._model_path.endswith("model_quantized.onnx")
    pairs = [("the cat sits in the park", "the cat is not in the park"), ("a dog runs", "a dog runs")]
    np.testing.assert_allclose(q.predict_proba(pairs), full.predict_proba(pairs), atol=0.1)


@pytest.mark.skipif(importlib.util.find_spec("transformers") is not None, reason="export extra installed")
def test_missing_extra_is_explained(tmp_path, capsys):
    with pytest.raises(ConfigError, match="export"):
        export_nli("some/model", tmp_path / "out")
    assert main(["some/model", str(tmp_path / "out")]) == 2
    assert "director-fast[export]" in capsys.readouterr().out

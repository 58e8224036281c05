"""``director-fast export-nli SOURCE OUT_DIR``: turn a Hugging Face sequence-classification NLI
checkpoint into the directory :meth:`director_fast.verify.nli.NLIModel.from_pretrained` loads.

Needs the optional ``export`` extra (``transformers``, ``torch``, ``onnx``). ``SOURCE`` is a local
checkpoint directory or, where the hub is reachable, a model id. Output:

* ``model.onnx`` -- dynamic batch and sequence axes; inputs ``input_ids``, ``attention_mask`` and
  (when the model takes it) ``token_type_ids``; output ``logits``;
* ``model_quantized.onnx`` -- int8 dynamic quantisation of the above, for CPU (``--no-quantize``
  skips it); ``NLIModel`` prefers it on CPU;
* ``tokenizer.json`` (a fast tokenizer is required) and ``config.json`` (with ``id2label``).

The label names are checked with :func:`director_fast.verify.nli.label_roles` before anything is written,
so a checkpoint whose head cannot be interpreted fails early with a message naming its labels.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Sequence

from director_fast.errors import ConfigError, StorageError
from director_fast.verify.nli import label_roles

__all__ = ["export_nli", "quantize_onnx", "main"]


def quantize_onnx(src: str | Path, dst: str | Path) -> Path:
    """Write an int8 dynamically quantised copy of ``src`` (ONNX Runtime quantisation) to ``dst``."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # pragma: no cover - optional extra
        raise ConfigError(f"quantisation needs onnxruntime: {exc}", "quantize") from None
    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8)
    return Path(dst)


def export_nli(source: str, out_dir: str | Path, *, quantize: bool = True, opset: int = 17) -> Path:
    """Export ``source`` to ``out_dir`` (see the module docstring). Returns ``out_dir``.

    Raises:
        ConfigError: the ``export`` extra is missing, or the head's labels are not NLI labels.
        StorageError: ``out_dir`` exists and is not an empty directory.
    """
    try:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
    except ImportError as exc:
        raise ConfigError(
            f"export-nli needs the 'export' extra: pip install 'director-fast[export]' ({exc})", "export"
        ) from None
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise StorageError(f"out_dir {str(out)!r} exists and is not an empty directory")
    model = AutoModelForSequenceClassification.from_pretrained(source)
    model.eval()
    label_roles(model.config.id2label)  # fail early on a head we cannot interpret
    tok = AutoTokenizer.from_pretrained(source, use_fast=True)
    if not getattr(tok, "is_fast", False):
        raise ConfigError(f"{source!r} has no fast tokenizer (tokenizer.json is required)", "tokenizer")
    out.mkdir(parents=True, exist_ok=True)
    enc = tok("A premise.", "A hypothesis.", return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in enc]
    dyn = {n: {0: "batch", 1: "seq"} for n in names}
    dyn["logits"] = {0: "batch"}

    class _Wrap(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, *args):
            return self.m(**dict(zip(names, args))).logits

    with torch.no_grad():
        torch.onnx.export(_Wrap(model), tuple(enc[n] for n in names), str(out / "model.onnx"),
                          input_names=names, output_names=["logits"], dynamic_axes=dyn,
                          opset_version=opset)
    tok.backend_tokenizer.save(str(out / "tokenizer.json"))
    cfg = model.config.to_dict()
    cfg["id2label"] = {str(k): v for k, v in model.config.id2label.items()}
    (out / "config.json").write_text(json.dumps(cfg, indent=2, default=str), encoding="utf-8")
    if quantize:
        quantize_onnx(out / "model.onnx", out / "model_quantized.onnx")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``director-fast export-nli SOURCE OUT_DIR [--no-quantize] [--opset N]``."""
    ap = argparse.ArgumentParser(prog="director-fast export-nli", description=__doc__.split("\n\n")[0])
    ap.add_argument("source", help="local checkpoint directory or hub model id")
    ap.add_argument("out_dir")
    ap.add_argument("--no-quantize", action="store_true", help="skip the int8 CPU copy")
    ap.add_argument("--opset", type=int, default=17)
    args = ap.parse_args(argv)
    try:
        path = export_nli(args.source, args.out_dir, quantize=not args.no_quantize, opset=args.opset)
    except (ConfigError, StorageError) as exc:
        print(f"error: {exc}")
        return 2
    print(f"wrote {path}")
    return 0

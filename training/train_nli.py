"""Stage 1: fine-tune all-MiniLM-L6-v2 as a 3-way NLI cross-encoder on SNLI, on CPU, resumably.

Labels: 0 entailment, 1 neutral, 2 contradiction (snli.py). Input: ``[CLS] premise [SEP] hypothesis [SEP]``
(token types 0 / 1), truncated to --max-len tokens (longest first), padded per batch (dynamic padding).
Batches: the training pairs are shuffled (seed), cut into buckets of --bucket-batches batches, sorted by
length inside each bucket, split into batches, and the batch order is shuffled again. The whole batch plan
is a function of the seed and the data, so the data position saved in a checkpoint is just the step.

Every --ckpt-minutes of wall time (and at the end, and on SIGTERM/SIGINT) ``<ckpt-dir>/last.pt`` is
written atomically (model, AdamW, LR scheduler, step, RNG states, args), the model alone goes to
``<ckpt-dir>/model_step<N>.safetensors`` (the latest --keep kept), and the accuracy on --eval-n fixed
held-out SNLI test pairs is logged. ``--resume`` continues from ``last.pt``. At the end of the epoch the
full SNLI test set (9,824 pairs) is evaluated and ``<ckpt-dir>/final.safetensors`` + ``final.json`` written.

Log (``<ckpt-dir>/train.log``, every --log-every steps): step, running-mean loss over the last
--log-every steps, EMA loss, lr, examples/s over the interval, elapsed training seconds.

Example (see training/README.md, "Stage 1: SNLI"):
    nice -n 19 /path/to/venv-train/bin/python training/train_nli.py --resume     (checkpoints: ../verifier-work/ckpt-snli)
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import signal
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fetch_data  # noqa: E402
import nli_model  # noqa: E402
import paths  # noqa: E402
import snli  # noqa: E402


def make_tokenizer(max_len: int):
    from tokenizers import Tokenizer

    tk = Tokenizer.from_file(os.path.join(nli_model.base_model_dir(), "tokenizer.json"))
    tk.no_padding()  # the shipped tokenizer.json pads to a fixed 128: off (dynamic padding per batch)
    tk.enable_truncation(max_len, strategy="longest_first")
    return tk


def encode_all(tk, rows) -> list[tuple[list[int], list[int]]]:
    encs = tk.encode_batch([(p, h) for p, h, _ in rows])
    return [(e.ids, e.type_ids) for e in encs]


def collate(encoded, idx) -> dict[str, torch.Tensor]:
    n = max(len(encoded[i][0]) for i in idx)
    ids = torch.zeros((len(idx), n), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for r, i in enumerate(idx):
        e_ids, e_types = encoded[i]
        k = len(e_ids)
        ids[r, :k] = torch.tensor(e_ids)
        types[r, :k] = torch.tensor(e_types)
        mask[r, :k] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def batch_plan(lengths: list[int], batch: int, bucket_batches: int, seed: int, epochs: int) -> list[list[int]]:
    rng = random.Random(seed)
    plan = []
    for _ in range(epochs):
        idx = list(range(len(lengths)))
        rng.shuffle(idx)
        win = batch * bucket_batches
        ep = []
        for w in range(0, len(idx), win):
            chunk = sorted(idx[w:w + win], key=lambda i: lengths[i])
            ep += [chunk[k:k + batch] for k in range(0, len(chunk), batch)]
        rng.shuffle(ep)
        plan += ep
    return plan


@torch.no_grad()
def evaluate(model, encoded, labels, batch: int = 64) -> dict:
    was_training = model.training
    model.eval()
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    pred = np.zeros(len(encoded), dtype=np.int64)
    loss_sum = 0.0
    for s in range(0, len(order), batch):
        idx = order[s:s + batch]
        logits = model(**collate(encoded, idx))
        y = torch.tensor([labels[i] for i in idx])
        loss_sum += torch.nn.functional.cross_entropy(logits, y, reduction="sum").item()
        pred[idx] = logits.argmax(-1).numpy()
    model.train(was_training)
    y = np.asarray(labels)
    per_class = {snli.LABELS[c]: float(np.mean(pred[y == c] == c)) for c in range(3)}
    return {"acc": float(np.mean(pred == y)), "loss": loss_sum / len(y), "n": int(len(y)), "recall": per_class}


def make_logger(log_path: str):
    """``log(msg)``: prints a time-stamped line and appends it to ``log_path``."""
    def log(msg: str) -> None:
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {msg}"
        print(line, flush=True)
        with open(log_path, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    return log


def make_optimizer(model: torch.nn.Module, lr: float, weight_decay: float, warm: int, total: int):
    """AdamW (no weight decay on biases and LayerNorm weights) and a linear warm-up / linear
    decay schedule over ``total`` steps: ``(optimizer, scheduler)``."""
    decay = [p for _n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for _n, p in model.named_parameters() if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=lr)

    def lr_lambda(s: int) -> float:
        if s < warm:
            return (s + 1) / warm
        return max(0.0, (total - s) / max(1, total - warm))

    return opt, torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)


def optimizer_step(model: torch.nn.Module, opt, sched, loss: torch.Tensor) -> float:
    """One update: backward, gradient-norm clipping at 1.0, optimiser and schedule step; the
    loss as a float (the caller stops on a non-finite one)."""
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    return loss.item()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="SNLI dir (default: fetch_data.py's, fetched if absent)")
    ap.add_argument("--ckpt-dir", default=None, help="default: <work dir>/ckpt-snli (training/paths.py)")
    ap.add_argument("--resume", action="store_true", help="continue from <ckpt-dir>/last.pt if it exists")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--bucket-batches", type=int, default=50, help="batches per length-sorted bucket")
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--warmup", type=float, default=0.06, help="warm-up fraction of all steps")
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--pooling", choices=("mean", "cls"), default="mean")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-minutes", type=float, default=5.0)
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--eval-n", type=int, default=2000, help="held-out test pairs evaluated at each checkpoint")
    ap.add_argument("--keep", type=int, default=3, help="model_step*.safetensors files kept")
    ap.add_argument("--max-steps", type=int, default=0,
                    help="stop after this step (smoke tests); the LR schedule still spans the whole run")
    ap.add_argument("--limit-train", type=int, default=0, help="use only the first N training pairs (debug)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    args.ckpt_dir = args.ckpt_dir or paths.work_dir("ckpt-snli")
    os.makedirs(args.ckpt_dir, exist_ok=True)
    last_path = os.path.join(args.ckpt_dir, "last.pt")
    log = make_logger(os.path.join(args.ckpt_dir, "train.log"))

    resume = args.resume and os.path.isfile(last_path)
    state = torch.load(last_path, map_location="cpu", weights_only=False) if resume else None
    if state is not None:
        # the batch plan and schedule must be those of the saved run
        for k in ("seed", "batch", "bucket_batches", "epochs", "max_len", "lr", "warmup", "pooling", "limit_train"):
            if state["args"][k] != getattr(args, k):
                log(f"resume: --{k.replace('_', '-')} {getattr(args, k)} -> {state['args'][k]} (from checkpoint)")
                setattr(args, k, state["args"][k])

    t0 = time.time()
    data_dir = args.data_dir or fetch_data.fetch()
    train_rows = snli.train(data_dir)
    if args.limit_train:
        train_rows = train_rows[:args.limit_train]
    held_rows = snli.heldout(data_dir, args.eval_n)
    tk = make_tokenizer(args.max_len)
    train_enc = encode_all(tk, train_rows)
    train_y = [r[2] for r in train_rows]
    held_enc = encode_all(tk, held_rows)
    held_y = [r[2] for r in held_rows]
    lengths = [len(e[0]) for e in train_enc]
    plan = batch_plan(lengths, args.batch, args.bucket_batches, args.seed, args.epochs)
    total = len(plan)
    warm = max(1, int(round(args.warmup * total)))
    counts = np.bincount(train_y, minlength=3).tolist()
    log(f"data {data_dir}: train {len(train_rows)} pairs {dict(zip(snli.LABELS, counts))}, held-out {len(held_rows)}; "
        f"tokens/pair mean {np.mean(lengths):.1f} max {max(lengths)}; {total} steps of {args.batch}; "
        f"warm-up {warm}; prep {time.time() - t0:.1f}s")

    torch.manual_seed(args.seed)
    model = nli_model.load_base(pooling=args.pooling)
    model.train()
    opt, sched = make_optimizer(model, args.lr, args.weight_decay, warm, total)
    step = 0
    train_elapsed = 0.0  # seconds spent in training steps, summed over resumes
    ema = None
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step = state["step"]
        train_elapsed = state["train_elapsed"]
        ema = state.get("ema")
        torch.set_rng_state(state["torch_rng"])
        if state.get("plan_head") != plan[0][:8]:
            raise RuntimeError("batch plan differs from the checkpoint's (data or seed changed)")
        log(f"resumed from {last_path} at step {step}/{total} (train time so far {train_elapsed:.0f}s)")
    else:
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        log(f"start: {nli_model.n_params(model)} params ({trainable} trainable), pooling {args.pooling}, "
            f"lr {args.lr}, args {json.dumps(vars(args))}")

    def save(tag: str) -> None:
        ts = time.time()
        blob = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                "step": step, "total": total, "train_elapsed": train_elapsed, "ema": ema,
                "torch_rng": torch.get_rng_state(), "args": vars(args), "plan_head": plan[0][:8],
                "config": model.config, "labels": list(snli.LABELS)}
        tmp = last_path + ".tmp"
        torch.save(blob, tmp)
        os.replace(tmp, last_path)
        from safetensors.torch import save_file

        mpath = os.path.join(args.ckpt_dir, f"model_step{step:05d}.safetensors")
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, mpath + ".tmp",
                  metadata={"step": str(step), "pooling": args.pooling, "labels": ",".join(snli.LABELS)})
        os.replace(mpath + ".tmp", mpath)
        old = sorted(glob.glob(os.path.join(args.ckpt_dir, "model_step*.safetensors")))
        for p in old[:-args.keep]:
            os.remove(p)
        log(f"checkpoint ({tag}) step {step}/{total} -> {last_path}, {os.path.basename(mpath)} "
            f"({time.time() - ts:.1f}s)")
        ev = evaluate(model, held_enc, held_y)
        log(f"eval step {step} held-out {ev['n']}: acc {ev['acc']:.4f} loss {ev['loss']:.4f} "
            f"recall {json.dumps({k: round(v, 3) for k, v in ev['recall'].items()})}")
        with open(os.path.join(args.ckpt_dir, "evals.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps({"step": step, "train_elapsed": round(train_elapsed), **ev}) + "\n")

    stop = {"sig": None}

    def on_signal(signum, _frame):
        stop["sig"] = signum

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    end = min(total, args.max_steps) if args.max_steps else total
    loss_fn = torch.nn.CrossEntropyLoss()
    win_loss, win_n, win_t, win_ex = 0.0, 0, time.time(), 0
    last_ckpt = time.time()
    while step < end:
        ts = time.time()
        idx = plan[step]
        enc = collate(train_enc, idx)
        y = torch.tensor([train_y[i] for i in idx])
        lv = optimizer_step(model, opt, sched, loss_fn(model(**enc), y))
        step += 1
        if not math.isfinite(lv):
            log(f"non-finite loss at step {step}; stopping without saving")
            sys.exit(2)
        ema = lv if ema is None else 0.98 * ema + 0.02 * lv
        win_loss += lv
        win_n += 1
        win_ex += len(idx)
        train_elapsed += time.time() - ts
        if step % args.log_every == 0 or step == end:
            dt = time.time() - win_t
            log(f"step {step}/{total} loss {win_loss / win_n:.4f} ema {ema:.4f} lr {sched.get_last_lr()[0]:.2e} "
                f"ex/s {win_ex / dt:.1f} elapsed {train_elapsed:.0f}s")
            win_loss, win_n, win_t, win_ex = 0.0, 0, time.time(), 0
        if stop["sig"] is not None:
            save(f"signal {stop['sig']}")
            log("stopped by signal; resume with --resume")
            return
        if time.time() - last_ckpt >= args.ckpt_minutes * 60 and step < end:
            save("periodic")
            last_ckpt = time.time()
            win_t = time.time()  # the checkpoint + eval time is not counted in examples/s

    save("end" if step == total else f"max-steps {step}")
    if step == total:
        test_rows = snli.test(data_dir)
        ev = evaluate(model, encode_all(tk, test_rows), [r[2] for r in test_rows])
        log(f"FINAL full SNLI test ({ev['n']} pairs): acc {ev['acc']:.4f} loss {ev['loss']:.4f} "
            f"recall {json.dumps({k: round(v, 3) for k, v in ev['recall'].items()})}")
        from safetensors.torch import save_file

        save_file({k: v.contiguous() for k, v in model.state_dict().items()},
                  os.path.join(args.ckpt_dir, "final.safetensors"),
                  metadata={"step": str(step), "pooling": args.pooling, "labels": ",".join(snli.LABELS)})
        with open(os.path.join(args.ckpt_dir, "final.json"), "w", encoding="utf-8") as f:
            json.dump({"args": vars(args), "steps": step, "train_elapsed_s": round(train_elapsed),
                       "test": ev, "labels": list(snli.LABELS), "config": model.config}, f, indent=1)
        log("done")


if __name__ == "__main__":
    main()

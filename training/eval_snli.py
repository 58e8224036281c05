"""SNLI 1.0 test accuracy (3-way) of an exported NLI model directory, through ``NLIModel.predict_proba``.

Usage (package venv: onnxruntime, tokenizers, director_fast):
    nice -n 10 /work/venv/bin/python training/eval_snli.py MODEL_DIR [--fp32] [--batch-size 32]
        [--threads N] [--data-dir DIR] [--limit N]

Reads the 9,824 pairs of ``snli_1.0_test.jsonl`` that have a gold label (training/snli.py; default data
directory: training/fetch_data.py's), loads MODEL_DIR with ``NLIModel.from_pretrained`` (CPU; the int8
``model_quantized.onnx`` when present, ``--fp32`` forces ``model.onnx``), maps the head's labels with
``label_roles`` (so any 3-way label order works), predicts all pairs in one length-bucketed
``predict_proba`` call, and prints JSON: accuracy, per-class recall, confusion matrix (rows gold, columns
predicted, order entailment/neutral/contradiction), mean negative log-likelihood, pairs/s (wall time of
the predict call, tokenisation included, after a short warm-up), load time, the model file used and its
sha256, the sha256 of ``model.onnx``, threads, batch size and the 1-minute load average at the start.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import snli  # noqa: E402

# NLIModel's CPU file preference (director_fast.verify.nli._MODEL_FILES_CPU), to name the file it loaded
CPU_FILES = ("model_quantized.onnx", "model.int8.onnx", "model_int8.onnx", "model.onnx")


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def evaluate(model_dir: str, *, quantized: bool | None = None, batch_size: int = 32, threads: int | None = None,
             data_dir: str | None = None, limit: int = 0, return_probs: bool = False) -> dict:
    from director_fast import NLIModel

    if data_dir is None:
        from fetch_data import data_dir as default_dir

        data_dir = default_dir()
    rows = snli.test(data_dir)
    if limit:
        rows = rows[:limit]
    pairs = [(p, h) for p, h, _ in rows]
    gold = np.array([y for _, _, y in rows], dtype=np.int64)  # 0 entailment, 1 neutral, 2 contradiction

    if threads is None:
        try:
            from director_fast.verify.nli import _physical_cores  # NLIModel's default

            threads = _physical_cores()
        except ImportError:  # pragma: no cover - other package versions
            pass
    load1 = os.getloadavg()[0]
    t0 = time.perf_counter()
    model = NLIModel.from_pretrained(model_dir, providers="cpu", quantized=quantized, batch_size=batch_size,
                                     intra_op_threads=threads)
    load_s = time.perf_counter() - t0
    if model.head != "three_way":
        raise SystemExit(f"{model_dir}: a {model.head} head; SNLI accuracy needs a three-way head")
    names = CPU_FILES if quantized is not False else ("model.onnx",)
    used = next(f for f in names if os.path.isfile(os.path.join(model_dir, f)))

    model.predict_proba(pairs[:64])  # warm-up (session allocations), not timed
    t0 = time.perf_counter()
    probs = model.predict_proba(pairs).astype(np.float64)
    wall = time.perf_counter() - t0
    # columns in SNLI order, whatever the head's id order
    cols = [model.roles[name] for name in snli.LABELS]
    p = probs[:, cols]
    pred = p.argmax(1)
    conf = np.zeros((3, 3), dtype=np.int64)
    np.add.at(conf, (gold, pred), 1)
    nll = float(-np.mean(np.log(np.clip(p[np.arange(len(gold)), gold], 1e-12, 1.0))))
    onnx_path = os.path.join(model_dir, "model.onnx")
    out = {
        "model_dir": os.path.abspath(model_dir),
        "model_file": used,
        "model_file_sha256": sha256(os.path.join(model_dir, used)),
        "model_file_bytes": os.path.getsize(os.path.join(model_dir, used)),
        "model_onnx_sha256": sha256(onnx_path) if os.path.isfile(onnx_path) else None,
        "n": int(len(gold)),
        "accuracy": float(np.mean(pred == gold)),
        "recall": {name: float(np.mean(pred[gold == c] == c)) for c, name in enumerate(snli.LABELS)},
        "precision": {name: float(np.mean(gold[pred == c] == c)) if np.any(pred == c) else None
                      for c, name in enumerate(snli.LABELS)},
        "confusion": conf.tolist(),
        "nll": nll,
        "pairs_per_s": float(len(pairs) / wall),
        "predict_s": round(wall, 2),
        "load_s": round(load_s, 3),
        "batch_size": batch_size,
        "threads": threads or "default (physical cores)",
        "max_length": model.max_length,
        "loadavg_1m": round(load1, 2),
        "data": os.path.join(data_dir, snli.TEST_FILE),
    }
    if return_probs:
        out["probs"] = p  # float64 [n, 3], SNLI label order (not JSON-serialisable)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("--fp32", action="store_true", help="load model.onnx even when an int8 file is present")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=None, help="ONNX Runtime intra-op threads (default: cores)")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--limit", type=int, default=0, help="first N test pairs only (smoke test)")
    a = ap.parse_args()
    r = evaluate(a.model_dir, quantized=False if a.fp32 else None, batch_size=a.batch_size, threads=a.threads,
                 data_dir=a.data_dir, limit=a.limit)
    print(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

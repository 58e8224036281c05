"""The data folder a teacher run takes to the accelerator (``teacher_device.py --data``).

    python training/teacher_data.py OUT_DIR [--mix-dir DIR]     # the package venv (premise_for)

Writes ``pairs.jsonl.gz`` (build_mix.py's pairs, gzip: ~4x smaller, so it travels in one call),
``nli_heldout.jsonl`` (its held-out MultiNLI pairs) and ``calib_pairs.jsonl``: each calibration row
as ``premise`` (the context's sentences the library would select for the response, as
train_verifier.py's check does), ``hypothesis`` (the response) and ``y`` (1 faithful, 0
hallucinated).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paths  # noqa: E402
from build_mix import read_jsonl, select_premise  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--mix-dir", default=None, help="build_mix.py's output (default: the work dir)")
    args = ap.parse_args()
    mix = args.mix_dir or paths.work_dir()
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(mix, "pairs.jsonl"), "rb") as src, \
            gzip.open(os.path.join(args.out_dir, "pairs.jsonl.gz"), "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    shutil.copy(os.path.join(mix, "nli_heldout.jsonl"), args.out_dir)
    with open(os.path.join(args.out_dir, "calib_pairs.jsonl"), "w", encoding="utf-8") as f:
        for r in read_jsonl(os.path.join(mix, "calib.jsonl")):
            f.write(json.dumps({"premise": select_premise(r["context"], r["response"], 110),
                                "hypothesis": r["response"], "y": 0 if r["hallucinated"] else 1}) + "\n")
    for name in sorted(os.listdir(args.out_dir)):
        print(name, os.path.getsize(os.path.join(args.out_dir, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

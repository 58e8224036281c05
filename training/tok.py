"""Tokenizer set-up shared by training, export and evaluation (``tokenizers`` only, no transformers).

The shipped ``tokenizer.json`` is the base model's WordPiece tokenizer (lower-casing BertNormalizer,
``[CLS] A [SEP] B [SEP]`` pair template, token_type_ids 0 for the premise part and 1 for the hypothesis
part) with truncation set to ``max_length=256, strategy=only_first`` (the premise is cut, never the
hypothesis) and padding disabled (callers pad per batch with id 0, mask 0, type 0).
"""

from __future__ import annotations

import numpy as np
from tokenizers import Tokenizer

MAX_LEN = 256
MAX_HYP_TOKENS = 192  # a longer hypothesis is cut to this many tokens before pairing


def make_tokenizer(path: str) -> Tokenizer:
    tok = Tokenizer.from_file(path)
    tok.no_padding()
    tok.enable_truncation(MAX_LEN, strategy="only_first")
    return tok


def encode_pairs(tok: Tokenizer, premises: list[str], hypotheses: list[str]) -> dict[str, np.ndarray]:
    """Encode pairs and pad to the longest in the batch. Returns int64 arrays of shape [batch, seq]."""
    encs = []
    for p, h in zip(premises, hypotheses):
        hyp_ids = tok.encode(h, add_special_tokens=False)
        if len(hyp_ids.ids) > MAX_HYP_TOKENS:
            h = tok.decode(hyp_ids.ids[:MAX_HYP_TOKENS])
        encs.append(tok.encode(p, h))
    n = max(len(e.ids) for e in encs)
    ids = np.zeros((len(encs), n), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for i, e in enumerate(encs):
        k = len(e.ids)
        ids[i, :k] = e.ids
        mask[i, :k] = e.attention_mask
        types[i, :k] = e.type_ids
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}

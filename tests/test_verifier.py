"""The claim verifier: the shipped model as the default judge, its calibration, its premises, its
fallback, and the rules that stay in charge of precise checks."""

from __future__ import annotations

import json
import math
import logging
import threading

import numpy as np
import pytest

import director_fast as df
from director_fast.verify.claim_model import (
    ClaimVerifier,
    ModelCheck,
    VerifierCalibration,
    file_sha256,
    premise_for,
    response_probability,
)
from director_fast.errors import ConfigError
from director_fast.verify.nli import shipped_model_dir


class FakeModel:
    """A three-way model stand-in: P(entailment) = share of the hypothesis' words in the premise;
    counts tokens as words; records every batch it is asked."""

    head = "three_way"
    roles = {"entailment": 0, "neutral": 1, "contradiction": 2}
    model_backed = True

    def __init__(self, max_length: int = 64) -> None:
        self.max_length = max_length
        self.calls: list[list[tuple[str, str]]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def predict_proba(self, pairs):
        self.calls.append(list(pairs))
        out = []
        for p, h in pairs:
            hw = set(h.lower().split())
            e = len(hw & set(p.lower().split())) / max(1, len(hw))
            out.append([0.98 * e + 0.01, 0.98 * (1 - e) + 0.01, 0.0])
        return np.asarray(out, dtype=np.float32)


IDENTITY = VerifierCalibration(1.0, 0.0, 0.0, 0.0, 0.0, "test")


def test_premise_for_keeps_the_best_sentences_in_evidence_order():
    texts = ["Parking is free.", "The store manager is Priya Shah.", "Tom Avery runs customer service.",
             "We sell bikes."]
    assert premise_for("The store manager is Tom Avery.", texts) == [0, 1, 2, 3]  # all fit: all, in order
    assert premise_for("The store manager is Tom Avery.", texts, max_words=11) == [1, 2]
    assert premise_for("The store manager is Tom Avery.", texts, max_words=3) == [1]  # the best always
    assert premise_for("anything", []) == []


def test_calibration_formula_and_load(tmp_path):
    cal = VerifierCalibration(2.0, 1.0, 0.5, 0.75, -1.0, "x")
    # sigmoid(2 * logit(0.8) + 1 * 0.5 + 0.5 - 1) = sigmoid(2 * ln 4)
    assert cal.claim_probability(0.8, 0.5, True) == pytest.approx(16 / 17)
    # + 0.75 when no evidence unit shares a word with the claim
    assert cal.claim_probability(0.8, 0.5, True, unrelated=True) == pytest.approx(1 / (1 + math.exp(-(4 * math.log(2) + 0.75))))
    assert IDENTITY.claim_probability(0.3, 1.0, True) == pytest.approx(0.3)
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"entailment_weight": 2.0, "coverage_weight": 1.0, "support_weight": 0.5,
                                "unrelated_weight": 0.75, "bias": -1.0, "split": "x"}))
    assert VerifierCalibration.load(path) == cal
    path.write_text("{}")
    with pytest.raises(ConfigError) as e:
        VerifierCalibration.load(path)
    assert e.value.field == "calibration"


def test_response_probability_is_the_weakest_claim():
    assert response_probability([0.9, 0.4, 0.7]) == 0.4
    assert response_probability([]) == 1.0


def test_check_batches_caches_and_flags_cut_evidence():
    model = FakeModel(max_length=24)
    v = ClaimVerifier(model, IDENTITY, model_id="fake", model_sha256="0" * 64)
    items = [("the shop opens at nine", ["the shop opens at nine on weekdays", "parking is free"], 0.0, False, False),
             ("parking is free", ["the shop opens at nine on weekdays", "parking is free"], 0.0, False, False)]
    first = v.check(items)
    assert [len(c) for c in model.calls] == [1, 1]  # one call per pair: never batched with others
    assert [c.verdict for c in first] == ["supported", "supported"]
    assert not any(c.truncated for c in first)
    assert v.check(items) == first and len(model.calls) == 2  # served from the cache
    long = " ".join(f"word{i}" for i in range(40)) + " the shop opens at nine"
    (cut,) = v.check([("the shop opens at nine", [long], 0.0, False, False)])
    assert cut.truncated and cut.units == (0,)
    assert all(len(p.split()) + len(h.split()) + 3 <= 24 for p, h in model.calls[-1])
    claim = " ".join(f"claim{i}" for i in range(30))  # longer than the model: cut, never an error
    (cut,) = v.check([(claim, ["claim0 claim1 claim2"], 0.0, False, False)])
    assert cut.truncated and len(model.calls[-1][0][1].split()) == 12


def test_a_verdict_does_not_depend_on_what_else_is_judged():
    """The int8 model quantises activations per tensor: batched with other pairs a pair's
    probabilities move, so the verifier sends each pair alone."""
    s = df.CoherenceScorer(use_nli=True)
    ctx = ["The store opens at 9:00 and closes at 18:00, Monday to Saturday.", "Parking is free for customers.",
           "Our phone line is open 8am-8pm every day, and the café serves breakfast until 11:00."]
    alone = s.review("", "The store opens at 9:00.", context=ctx)[1].score
    s.clear_cache()
    with_others = s.review("", "Parking is free for customers. The store opens at 9:00. The café serves lunch.",
                           context=ctx)[1].evidence.attributions
    assert [a.probability for a in with_others if a.claim == "The store opens at 9:00."] == [alone]


def test_model_check_verdicts():
    assert ModelCheck(0.6, 0.3, 0.1, 0.6, (0,), False).verdict == "supported"
    assert ModelCheck(0.1, 0.2, 0.7, 0.1, (0,), False).signal == "contradiction"
    assert ModelCheck(0.2, 0.7, 0.1, 0.2, (0,), False).verdict == "not_found"


def test_verifier_needs_a_three_way_model():
    class TwoWay(FakeModel):
        head = "two_way"

    with pytest.raises(ConfigError):
        ClaimVerifier(TwoWay(), IDENTITY, model_id="x", model_sha256="")


def test_use_nli_judges_with_the_shipped_model():
    s = df.CoherenceScorer(use_nli=True)
    assert s.model_backed
    ok, score = s.review("When does the store open?", "The store opens at 9:00 on weekdays.",
                         context=["The store opens at 9:00 Monday to Friday."])
    ev = score.evidence
    assert ev.model_id == shipped_model_dir().name
    assert ev.model_sha256 == file_sha256(shipped_model_dir() / "model_quantized.onnx")
    assert ev.evidence_truncated is False
    (a,) = ev.attributions
    assert a.entailment is not None and 0.0 <= a.probability <= 1.0
    assert score.score == pytest.approx(a.probability)  # one claim: the response score is its probability
    assert ok == (score.score >= s.threshold)
    assert ev.model_sha256[:16] in s.scorer_path


def test_shipped_model_reproduces_its_golden_outputs():
    """The int8 model gives the probabilities recorded at export on this installation too (the
    export quantises with 7-bit weights so that CPUs with and without VNNI compute the same)."""
    golden = json.loads((shipped_model_dir() / "golden.json").read_text(encoding="utf-8"))
    model = df.NLIModel.shipped()
    got = model.predict_proba([(g["premise"], g["hypothesis"]) for g in golden["pairs"]])
    want = np.array([g["probabilities"] for g in golden["pairs"]])
    assert np.abs(got - want).max() <= golden["tolerance"]


def test_rules_decide_precise_contradictions_without_the_model():
    s = df.CoherenceScorer(use_nli=True)
    ok, score = s.review("How much is a day pass?", "A day pass costs £60.",
                         context=["An adult day pass costs £45."])
    (a,) = score.evidence.attributions
    assert not ok and a.verdict == "contradicted" and a.signal == "number"
    assert a.entailment is None  # the model was not asked


def test_a_missing_model_is_an_error_never_a_silent_lexical_verdict(monkeypatch):
    def broken(**_kw):
        raise ConfigError("the shipped model is missing from this installation", "model")

    monkeypatch.setattr(df.NLIModel, "shipped", staticmethod(broken))
    with pytest.raises(ConfigError, match="missing"):
        df.CoherenceScorer(use_nli=True)
    with pytest.raises(ConfigError, match="missing"):
        df.CoherenceScorer(require_model_backed_nli=True)


def test_the_lexical_backend_is_the_default():
    s = df.CoherenceScorer()
    assert not s.model_backed and s.scorer_path.endswith("[lexical]")
    _ok, score = s.review("", "The store opens at 9:00.", context=["The store opens at 9:00."])
    assert score.evidence.model_id is None and score.evidence.evidence_truncated is None
    assert score.evidence.attributions[0].entailment is None


def test_claim_features_name_what_the_calibration_combines():
    s = df.CoherenceScorer(use_nli=True)
    feats = s.claim_features("", "The store opens at 9:00. A day pass costs £60.",
                             context=["The store opens at 9:00.", "An adult day pass costs £45."])
    assert [f["kind"] for f in feats] == ["model", "rule"]
    assert 0.0 <= feats[0]["entailment"] <= 1.0 and 0.0 <= feats[0]["coverage"] <= 1.0
    assert feats[0]["unrelated"] is False and 0.0 <= feats[1]["score"] < 0.5
    assert all(0.0 <= f["prompt_contradiction"] <= 1.0 for f in feats)


def test_a_claim_sharing_no_word_with_the_context_is_judged_against_its_first_sentences():
    s = df.CoherenceScorer(use_nli=True)
    (feat,) = s.claim_features("", "He started it.", context=["Kim founded the bakery in 1998. It sells bread."])
    assert feat["kind"] == "model" and feat["unrelated"] is True
    # without a context there is nothing to show the model: the rules' verdict stands
    (fixed,) = df.CoherenceScorer(use_nli=True, knowledge=["Kim founded the bakery in 1998."]).claim_features(
        "", "He started it.")
    assert fixed["kind"] == "fixed" and fixed["supported"] is False
    with pytest.raises(ConfigError):
        df.CoherenceScorer().claim_features("", "x", context=["x"])


def test_support_from_evidence_sharing_no_word_is_never_silent():
    # the model may find a reply supported by the context's first sentences although no evidence
    # unit shares a word with it; such an approval says so: signal "unrelated", a warning, a
    # score in the warning band (below every claim supported by evidence it shares words with)
    s = df.CoherenceScorer(use_nli=True)
    context = ["Cycling also offers a reduced consumption of fossil fuels, less air or noise pollution, "
               "and much reduced traffic congestion."]
    ok, score = s.review("", "It helps to save carbon emissions.", context=context)
    (att,) = score.attributions  # the shipped model supports it (P(supported) 0.83)
    assert ok and score.warning and (att.verdict, att.signal) == ("supported", "unrelated")
    assert s.threshold <= score.score < s.soft_limit
    ok, shared = s.review("", "Cycling reduces traffic congestion.", context=context)
    assert ok and shared.attributions[0].signal == "entailment" and not shared.warning
    # the warning is about support only: an unrelated claim the model does not support is rejected
    assert all(a.signal != "unrelated" for a in s.review("", "We rent kayaks by the hour.", context=context)[1].attributions)


def test_concurrent_reviews_agree_with_sequential_ones():
    s = df.CoherenceScorer(use_nli=True)
    cases = [("", f"The store opens at {h}:00 on weekdays.", ["The store opens at 9:00 Monday to Friday."])
             for h in range(6, 12)]
    want = [s.review(q, r, context=c)[1].score for q, r, c in cases]
    s.clear_cache()
    got: dict[int, float] = {}

    def run(i: int) -> None:
        q, r, c = cases[i]
        got[i] = s.review(q, r, context=c)[1].score

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [got[i] for i in range(len(cases))] == want


def test_import_stays_lazy_and_the_model_loads_with_the_scorer():
    """``import director_fast`` loads neither onnxruntime nor tokenizers; the verifier's scorer does."""
    import subprocess
    import sys

    code = ("import sys, director_fast as df; a = {'onnxruntime', 'tokenizers'} & set(sys.modules); "
            "df.CoherenceScorer(use_nli=True); b = {'onnxruntime', 'tokenizers'} <= set(sys.modules); print(sorted(a), b)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")[0]
    assert out == "[] True"


def test_the_default_model_runs_on_the_gpu_build_after_the_documented_swap(monkeypatch, caplog):
    """After ``pip uninstall onnxruntime && pip install onnxruntime-gpu`` the same ``onnxruntime``
    module offers CUDAExecutionProvider: the default scorer's model (an int8 file only) asks for
    it first (``"auto"``), with the CPU provider behind it, and says so in the log when CUDA did
    not start; without it, the CPU alone."""
    import onnxruntime as ort

    import director_fast.verify.nli as nli

    asked: list = []
    real = ort.InferenceSession

    def session(path, sess_options=None, providers=None):
        asked.append(list(providers))
        return real(path, sess_options=sess_options, providers=["CPUExecutionProvider"])

    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setattr(ort, "InferenceSession", session)
    monkeypatch.setattr(nli, "_SHIPPED", {})  # a fresh shared instance for this test
    with caplog.at_level(logging.WARNING, logger="director_fast"):
        s = df.CoherenceScorer(use_nli=True)  # the fake session runs on the CPU: CUDA did not start -> logged
    assert s.model_backed
    assert asked[-1] == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert any("did not start" in r.getMessage() for r in caplog.records)
    monkeypatch.setattr(nli, "_SHIPPED", {})
    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CPUExecutionProvider"])
    assert df.CoherenceScorer(use_nli=True).model_backed and asked[-1] == ["CPUExecutionProvider"]


def test_a_fact_stated_word_for_word_among_near_identical_facts_is_supported():
    # a catalogue: a premise of several near-identical facts reads to a small model as
    # contradicting the one the claim copies; the model reads the fact the rules found
    facts = [f"Product {i} costs {10 + (i * 37) % 490} euros and ships from warehouse {'ABCDEFG'[i % 7]} "
             f"within {1 + i % 9} days." for i in range(1000)]
    kb = df.KnowledgeBase()
    for f in facts:
        kb.add(f, tenant="t")
    s = df.CoherenceScorer(use_nli=True, knowledge=kb)
    for fact in (facts[919], facts[7], facts[501]):
        ok, score = s.review("Tell me about these products.", fact, tenant_id="t")
        a = score.attributions[0]
        assert ok and a.source_sentence == fact, (fact, a)
        assert a.entailment > 0.25, a  # read against its own fact (0.30-0.56); against the near-duplicates 0.04-0.13
    ok, _ = s.review("Tell me about these products.", facts[919].replace(" costs ", " costs 1"), tenant_id="t")
    assert not ok


def test_a_long_context_document_is_read_by_its_best_sentences_not_its_opening(monkeypatch):
    # a claim whose words lie far apart in a long context document is supported by the whole
    # document as one unit; the model reads that document's best sentences (those sharing the
    # claim's words), never the document cut to its opening lines (a web page's menu) to fit
    menu = "\n".join(["Home", "About us", "Visit", "Collections", "Shop", "Contact", "Careers", "Press"])
    filler = [f"Gallery {i} shows {w} from the {c}th century." for i, (w, c) in
              enumerate([("maps", 17), ("ship models", 18), ("paintings", 19), ("tools", 16), ("photographs", 20)] * 6)]
    opened = "The Harbour Museum opened in 1911."
    paid = "Ada Morrow, a shipbuilder, paid for the building."
    page = menu + "\n" + " ".join(filler[:5] + [opened] + filler[5:25] + [paid] + filler[25:])
    s = df.CoherenceScorer(use_nli=True)
    sent: list[tuple[str, str]] = []
    real = s._verifier.model.predict_proba
    monkeypatch.setattr(s._verifier.model, "predict_proba", lambda pairs: (sent.extend(pairs), real(pairs))[1])
    _ok, score = s.review("Who paid for the museum?", "Ada Morrow paid for the Harbour Museum, which opened in 1911.",
                          context=[page])
    assert sent and all(opened in premise and paid in premise for premise, _claim in sent)
    assert all(a.source_sentence in (opened, paid) for a in score.attributions)  # one sentence, not the page

"""Hardening of the text helpers, citations and tool-call checks: integer overflows and
self-referencing rows raise director_fast errors naming the argument; every parser is linear
(per-character time at the largest size <= 3x that at a size 100x smaller); a fuzzer over the
text helpers and citations (budget share "text_and_citations"); explicit CUDA requests to
NLIModel never fall back to CPU silently."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _citation_strip_v1 import _strip_pass, strip_v1
from _fuzz import Deadline, fuzz_seconds
from director_fast import _core
from director_fast.diagnostics.citations import _sentence_starts, _strip, check_citations, strip_markers
from director_fast.diagnostics.confidence import evaluate_tool_call, is_placeholder
from director_fast.errors import DirectorFastError, InputTypeError, ValidationError

# ------------------------------------------------------------------ overflows and recursion


def test_token_spans_append_length_overflow_names_the_argument():
    t = _core.TokenSpans()
    t.append_length(2**62)
    with pytest.raises(ValidationError, match="length"):
        t.append_length(2**62)  # start + length overflows int64
    for bad in (2**63, 2**80, -1):
        with pytest.raises(ValidationError, match="length"):
            t.append_length(bad)
    for bad in (1.5, True, "3"):
        with pytest.raises(InputTypeError, match="length"):
            t.append_length(bad)
    assert len(t) == 1 and t.text_length == 2**62


def test_halt_kernel_feed_same_huge_n_names_the_argument():
    k = _core.HaltKernel()
    for bad in (2**62, 2**64, -1, 2**30 + 1):
        with pytest.raises(ValidationError, match=r"\bn\b"):
            k.feed_same(0.9, b"", bad)
    with pytest.raises(InputTypeError, match=r"\bn\b"):
        k.feed_same(0.9, b"", 2.0)
    assert k.tokens_seen == 0
    assert k.feed_same(0.9, b"", 3) == b"\0\0\0"


def test_self_referencing_and_deep_rows_raise_validation_error():
    loop: list = [1]
    loop.append(loop)
    selfmap: dict = {}
    selfmap["value"] = selfmap
    deep: dict = {"value": 1}
    for _ in range(200):
        deep = {"value": deep}
    deep_repr: dict = {}
    cur = deep_repr
    for _ in range(5000):
        cur["x"] = {}
        cur = cur["x"]
    for value, what in ((loop, "contains itself"), (selfmap, "contains itself"),
                        (deep, "nested more than"), (deep_repr, "nested too deeply")):
        with pytest.raises(ValidationError, match=what) as e:
            check_citations("Acme [ref:v].", [{"name": "Acme", "v": 1}, {"name": "B", "v": value}])
        assert "rows[1]['v']" in str(e.value)


def test_evaluate_tool_call_with_a_self_referencing_argument():
    args: dict = {"q": "x"}
    args["self"] = args
    schema = {"type": "object", "required": ["q", "self.self.self.q"]}
    r = evaluate_tool_call(schema, args)
    assert r.score == 1.0
    deep = "self." * 3000 + "q"
    assert evaluate_tool_call({"type": "object", "required": [deep]}, args).score == 1.0


# ------------------------------------------------------------------ linear parsers


def _per_char(fn, text: str) -> float:
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        fn(text)
        best = min(best, time.process_time() - t0)
    return best / len(text)


ROWS = [{"name": "Acme", "x": "1", "y": "2"}]
CASES = {
    "nested unclosed markers": (lambda k: "[re" * k + "[ref:x]" + "f:y]" * k, lambda s: check_citations(s, ROWS)),
    "unterminated markers": (lambda k: "[ref:" * k, lambda s: check_citations(s, ROWS)),
    "escaped quotes": (lambda k: '[ref:"]' + '[ref:\\"]' * k, lambda s: check_citations(s, ROWS)),
    "nested escaped quotes": (lambda k: "[re" * k + '[ref:x]' + 'f:\\"]' * k, strip_markers),
    "punctuation run": (lambda k: "." * (5 * k) + "x", _sentence_starts),
    "[your": (lambda k: "[your" * k, is_placeholder),
    "[insert ": (lambda k: "[insert " * k, is_placeholder),
    "tool call [your": (lambda k: "[your" * k, lambda s: evaluate_tool_call(
        {"type": "object", "required": ["a"]}, {"a": s})),
    "tool call [insert ": (lambda k: "[insert " * k, lambda s: evaluate_tool_call(
        {"type": "object", "required": ["a"]}, {"a": s})),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_parser_is_linear(name):
    gen, fn = CASES[name]
    small, large = gen(160), gen(16000)
    assert len(large) >= 50_000
    fn(small)  # warm up (imports, regex compilation)
    ratio = _per_char(fn, large) / _per_char(fn, small)
    assert ratio <= 3.0, f"{name}: per-character time grows {ratio:.1f}x over a 100x larger input"


def test_nested_markers_are_all_removed():
    k = 500
    report = check_citations("[re" * k + "[ref:x]" + "f:y]" * k, ROWS)
    assert report.answer == "" and len(report.checks) == k + 1
    assert [c.variable for c in report.checks] == ["x"] + ["y"] * k


# ------------------------------------------------------------------ fuzzer

_ALPHABET = list('ab [ref:]="\\,.\n Zü€\t)') + ["[ref:", "[ref:x]", '"]', "[ref:name]", "[re", "f:",
                                                 "[your", "[insert ", "...", "{{", "}}", "<X>"]
_text = st.lists(st.sampled_from(_ALPHABET), max_size=40).map("".join)
_KEY = lambda ms: [(m.body, m.pos, m.kind, m.variable, m.value, m.problem) for m in ms]  # noqa: E731


def test_fuzz_text_helpers_and_citations():
    """Never anything but a result or a DirectorFastError; stripping is idempotent, leaves no
    marker and, on texts that need one pass of the former multi-pass stripper, agrees with it
    exactly (answer, marker offsets, bodies, problems)."""
    deadline = Deadline(fuzz_seconds("text_and_citations"))
    rows = [{"name": "Acme", "x": "1", "v": "a b"}, {"name": "Zü", "x": 2.5, "v": None}]

    @settings(max_examples=100, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(_text, st.integers(0, 40))
    def one(text, cut):
        out, markers = _strip(text)
        assert "[ref:" not in out and _strip(out) == (out, [])
        assert strip_markers(text) == out
        if "[ref:" not in _strip_pass(text)[0]:
            ref_out, ref_markers = strip_v1(text)
            assert (out, _KEY(markers)) == (ref_out, _KEY(ref_markers))
        report = check_citations(text, rows)
        assert report.answer == out and len(report.checks) == len(markers)
        assert isinstance(is_placeholder(text), bool)
        evaluate_tool_call({"type": "object", "required": ["a", "b.c"]}, {"a": text, "b": {"c": text[:cut]}})
        starts = _sentence_starts(text)
        assert starts[0] == 0 and starts == sorted(set(starts))
        for fn in (_core.split_sentences, _core.declarative_part, _core.normalize_terms, _core.find_numbers):
            try:
                fn(text)
            except DirectorFastError:
                pass
        spans = _core.TokenSpans()
        spans.extend([text, text[:cut]])
        assert spans.text_length == len(text) + len(text[:cut])

    while True:
        one()
        if deadline.expired():
            break


# ------------------------------------------------------------------ NLI providers


@pytest.mark.parametrize("providers", [
    "cuda", "CUDA", "cuda:0", "gpu", "CUDAExecutionProvider", ["CUDAExecutionProvider"],
    ["cuda", "cpu"], [("CUDAExecutionProvider", {"device_id": 0})], ("CUDAExecutionProvider", {}),
    ["CUDAExecutionProvider", "CPUExecutionProvider"],
])
def test_explicit_cuda_request_raises_without_cuda(tmp_path, providers):
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" in ort.get_available_providers():
        pytest.skip("this onnxruntime has CUDA")
    pytest.importorskip("onnx")
    pytest.importorskip("tokenizers")
    from _tiny_onnx import build_tiny_nli  # noqa: PLC0415

    from director_fast.errors import ConfigError
    from director_fast.verify.nli import NLIModel

    build_tiny_nli(tmp_path)
    with pytest.raises(ConfigError, match="CUDA") as e:
        NLIModel.from_pretrained(tmp_path, providers=providers)
    assert e.value.field == "providers"


@pytest.mark.filterwarnings("ignore:Specified provider")
def test_cuda_that_fails_to_load_is_not_a_silent_cpu_fallback(tmp_path, monkeypatch):
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" in ort.get_available_providers():
        pytest.skip("this onnxruntime has CUDA")
    pytest.importorskip("onnx")
    pytest.importorskip("tokenizers")
    from _tiny_onnx import build_tiny_nli  # noqa: PLC0415

    from director_fast.errors import ConfigError
    from director_fast.verify.nli import NLIModel

    build_tiny_nli(tmp_path)
    real = ort.get_available_providers()
    # onnxruntime claims CUDA but the session cannot use it: it falls back to CPU on its own
    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", *real])
    with pytest.raises(ConfigError, match="could not be loaded"):
        NLIModel.from_pretrained(tmp_path, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    m = NLIModel.from_pretrained(tmp_path, providers="cpu")
    assert m.provider == "CPUExecutionProvider"

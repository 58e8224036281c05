"""Tests of director_fast.verify.text: offsets, token spans, sentence segmentation, chunking."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.verify import text as T
from director_fast.errors import (
    ConfigError,
    DirectorIndexError,
    InputTypeError,
    ValidationError,
)

# ---- pure-Python oracles ---------------------------------------------------------------------

def oracle_utf8(text: str, cp: int) -> int:
    return len(text[:cp].encode("utf-8"))


def oracle_utf16(text: str, cp: int) -> int:
    return len(text[:cp].encode("utf-16-le")) // 2


scalar_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
mixed = st.lists(st.sampled_from(["a", "é", "中", "😀", "e\u0301", "👩‍👩‍👧", " ", ".", "\n", "Z"]),
                 max_size=40).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.one_of(scalar_text, mixed))
def test_offset_roundtrips(text: str) -> None:
    n = len(text)
    cps = np.arange(n + 1, dtype=np.int64)
    b = T.cp_to_utf8(text, cps)
    u = T.cp_to_utf16(text, cps)
    assert list(b) == [oracle_utf8(text, i) for i in range(n + 1)]
    assert list(u) == [oracle_utf16(text, i) for i in range(n + 1)]
    assert list(T.utf8_to_cp(text, b)) == list(cps)
    assert list(T.utf16_to_cp(text, u)) == list(cps)
    raw8 = text.encode("utf-8")
    raw16 = text.encode("utf-16-le")
    for i in range(n + 1):
        for j in range(i, min(n, i + 3) + 1):
            assert raw8[b[i]:b[j]].decode("utf-8") == text[i:j]
            assert raw16[2 * u[i]:2 * u[j]].decode("utf-16-le") == text[i:j]


def test_known_offsets() -> None:
    s = "a😀é中"
    assert list(T.cp_to_utf8(s, [0, 1, 2, 3, 4])) == [0, 1, 5, 7, 10]
    assert list(T.cp_to_utf16(s, [0, 1, 2, 3, 4])) == [0, 1, 3, 4, 5]
    assert T.cp_to_utf8(s, 2) == 5 and isinstance(T.cp_to_utf8(s, 2), int)
    om = T.OffsetMap(s)
    assert (om.length_cp, om.length_utf8, om.length_utf16) == (4, 10, 5)


def test_offsets_inside_a_character_are_rejected() -> None:
    with pytest.raises(ValidationError, match="not a character boundary"):
        T.utf8_to_cp("é", 1)
    with pytest.raises(ValidationError):
        T.utf16_to_cp("😀", 1)
    with pytest.raises(DirectorIndexError):
        T.cp_to_utf8("abc", 4)
    with pytest.raises(DirectorIndexError):
        T.utf8_to_cp("abc", -1)


def test_lone_surrogate_rejected() -> None:
    with pytest.raises(ValidationError, match="surrogate"):
        T.OffsetMap("ab\ud800c")
    with pytest.raises(ValidationError, match="surrogate"):
        T.split_sentences("x\udfff.")
    with pytest.raises(InputTypeError):
        T.split_sentences(b"bytes")  # type: ignore[arg-type]


# ---- token spans -----------------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.just(""), mixed, scalar_text), max_size=30))
def test_token_spans_slice_back(tokens: list[str]) -> None:
    ts = T.TokenSpans()
    acc = ""
    for tok in tokens:
        s, e = ts.append(tok)
        acc += tok
        assert acc[s:e] == tok
    assert len(ts) == len(tokens) and ts.text_length == len(acc)
    for i, tok in enumerate(tokens):
        s, e = ts.span(i)
        assert acc[s:e] == tok
    for off in range(len(acc)):
        i = ts.token_at(off)
        s, e = ts.span(i)
        assert s <= off < e
        assert ts.tokens_before(off) == sum(1 for j in range(len(tokens)) if ts.span(j)[1] <= off)


def test_token_spans_errors() -> None:
    ts = T.TokenSpans()
    ts.extend(["ab", "", "c"])
    assert ts.span(-1) == (2, 3) and ts.token_at(2) == 2
    with pytest.raises(DirectorIndexError):
        ts.token_at(3)
    with pytest.raises(DirectorIndexError):
        ts.span(3)


# ---- sentence segmentation -------------------------------------------------------------------

def sents(text: str) -> list[str]:
    return [text[s:e] for s, e in T.split_sentences(text)]


@pytest.mark.parametrize("text,expected", [
    ("Dr. Smith arrived. He left.", ["Dr. Smith arrived.", "He left."]),
    ("Use e.g. this one. Then stop.", ["Use e.g. this one.", "Then stop."]),
    ("The U.S. economy grew. It slowed.", ["The U.S. economy grew.", "It slowed."]),
    ("See No. 5 for details. Fine.", ["See No. 5 for details.", "Fine."]),
    ("Pi is 3.14 exactly. Version v2.0.1 shipped.", ["Pi is 3.14 exactly.", "Version v2.0.1 shipped."]),
    ("Wait... what? Really!", ["Wait... what?", "Really!"]),
    ("Wait... and then nothing.", ["Wait... and then nothing."]),
    ('He said "Stop." Then ran.', ['He said "Stop."', "Then ran."]),
    ("It ended (finally.) Next one.", ["It ended (finally.)", "Next one."]),
    ("Line one\nLine two", ["Line one", "Line two"]),
    ("- first item\n- second item\n* third", ["first item", "second item", "third"]),
    ("1. Intro text. 2. More", ["1. Intro text.", "2. More"]),
    ("你好。世界！好吗？", ["你好。", "世界！", "好吗？"]),
    ("J. K. Rowling wrote it. Yes.", ["J. K. Rowling wrote it.", "Yes."]),
    ("What?! No way.", ["What?!", "No way."]),
    ("", []),
    ("   \n\n  ", []),
    ("no terminal at all", ["no terminal at all"]),
])
def test_split_sentences_rules(text: str, expected: list[str]) -> None:
    assert sents(text) == expected


def test_streaming_never_reports_early() -> None:
    seg = T.SentenceSegmenter()
    assert seg.feed("It lasted 9") == []
    assert seg.feed("0 days.") == []            # the '.' may still be a decimal point
    out = seg.feed(" Then")
    assert [seg.text[s:e] for s, e in out] == ["It lasted 90 days."]
    assert seg.feed(" it costs 3.") == []
    assert seg.feed("5 dollars") == []          # "3.5": not a boundary
    assert [seg.text[s:e] for s, e in seg.flush()] == ["Then it costs 3.5 dollars"]
    assert seg.text == "It lasted 90 days. Then it costs 3.5 dollars"


def _stream(text: str, cuts: list[int]) -> list[tuple[int, int]]:
    seg = T.SentenceSegmenter()
    out: list[tuple[int, int]] = []
    prev = 0
    for c in sorted(set(cuts)) + [len(text)]:
        out.extend(seg.feed(text[prev:c]))
        prev = c
        # every reported sentence is final: it equals a sentence of the whole text
    out.extend(seg.flush())
    return out


sentence_alphabet = st.sampled_from(
    ["Dr.", " ", "e.g.", "3.14", "The", "end", ".", "!", "?", '"', ")", "\n", "- ", "U.S.", "a", "Z",
     "。", "...", "1.", ",", "v2.0", "…", "x"])


@settings(max_examples=200, deadline=None)
@given(st.lists(sentence_alphabet, max_size=30).map("".join), st.lists(st.integers(0, 200), max_size=8))
def test_streaming_equals_whole_text(text: str, cuts: list[int]) -> None:
    cuts = [c for c in cuts if c <= len(text)]
    whole = T.split_sentences(text)
    assert _stream(text, cuts) == whole
    # spans are ordered, disjoint, trimmed and non-empty
    prev_end = 0
    for s, e in whole:
        assert prev_end <= s < e <= len(text)
        assert not text[s].isspace() and not text[e - 1].isspace()
        prev_end = e


def test_streaming_reports_each_sentence_once_and_final() -> None:
    text = "First one. Second one! Third? 我来了。Fourth...\nFifth"
    seg = T.SentenceSegmenter()
    seen: list[tuple[int, int]] = []
    whole = T.split_sentences(text)
    for ch in text:
        for span in seg.feed(ch):
            assert span in whole
            seen.append(span)
    seen.extend(seg.flush())
    assert seen == whole
    assert len(whole) == 6


def test_segmenter_tail_work_is_bounded() -> None:
    """Feeding a long text token by token gives the same spans as the whole text, and the
    pending start always advances (no re-scan of settled text)."""
    text = "Sentence number %d is here. " * 2000
    seg = T.SentenceSegmenter()
    out = []
    for i in range(0, len(text), 7):
        out.extend(seg.feed(text[i:i + 7]))
        assert len(seg.text) - seg.pending_start < 40
    out.extend(seg.flush())
    assert out == T.split_sentences(text) and len(out) == 2000


# ---- chunking --------------------------------------------------------------------------------

def test_chunk_by_tokens_packs_sentences() -> None:
    text = "One two three. Four five six. Seven eight nine. Ten."
    offs = T.word_offsets(text)
    chunks = T.chunk_by_tokens(text, offs, 8)
    assert [c.text for c in chunks] == ["One two three. Four five six.", "Seven eight nine. Ten."]
    assert all(c.n_tokens <= 8 and not c.oversized for c in chunks)
    assert chunks[0].token_start == 0 and chunks[1].token_start == chunks[0].token_end


def test_chunk_oversized_sentence_is_split_not_dropped() -> None:
    text = "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10. Short."
    offs = T.word_offsets(text)
    chunks = T.chunk_by_tokens(text, offs, 4)
    assert [c.oversized for c in chunks] == [True, True, True, False]
    assert sum(c.n_tokens for c in chunks) == len(offs)
    assert chunks[-1].text == "Short."


def test_chunk_overlap_repeats_whole_sentences() -> None:
    text = "Aa bb. Cc dd. Ee ff. Gg hh."
    offs = T.word_offsets(text)
    chunks = T.chunk_by_tokens(text, offs, 6, overlap=3)
    assert [c.text for c in chunks] == ["Aa bb. Cc dd.", "Cc dd. Ee ff.", "Ee ff. Gg hh."]


def test_chunk_special_tokens_and_units() -> None:
    text = "héllo wörld. Bye."
    offs = [(0, 0)] + T.word_offsets(text) + [(0, 0)]  # [CLS] ... [SEP]
    cp = T.chunk_by_tokens(text, offs, 3)
    b = np.asarray([(T.cp_to_utf8(text, s), T.cp_to_utf8(text, e)) for s, e in offs], dtype=np.int64)
    by = T.chunk_by_tokens(text, b, 3, unit="utf8")
    assert [(c.start, c.end) for c in cp] == [(c.start, c.end) for c in by]
    assert [c.text for c in cp] == ["héllo wörld.", "Bye."]
    hyps = T.sentence_hypotheses(text, offs, 10)
    assert [h.text for h in hyps] == ["héllo wörld.", "Bye."]


@settings(max_examples=100, deadline=None)
@given(st.lists(sentence_alphabet, max_size=40).map("".join), st.integers(1, 6), st.integers(0, 5))
def test_chunking_covers_every_token(text: str, max_tokens: int, overlap: int) -> None:
    offs = T.word_offsets(text)
    overlap = min(overlap, max_tokens - 1)
    chunks = T.chunk_by_tokens(text, offs, max_tokens, overlap=overlap)
    covered = set()
    for c in chunks:
        assert c.n_tokens <= max_tokens
        assert text[c.start:c.end] == c.text
        covered.update(range(c.token_start, c.token_end))
    assert covered == set(range(len(offs)))


def test_chunk_errors() -> None:
    with pytest.raises(ConfigError):
        T.chunk_by_tokens("a b", [(0, 1), (2, 3)], 0)
    with pytest.raises(ConfigError):
        T.chunk_by_tokens("a b", [(0, 1), (2, 3)], 2, overlap=2)
    with pytest.raises(ValidationError):
        T.chunk_by_tokens("a b", [(2, 3), (0, 1)], 2)
    with pytest.raises(ValidationError):
        T.chunk_by_tokens("a b", [(0, 9)], 2)


def test_normalize_terms() -> None:
    assert T.normalize_terms("Capital of Country_42's?") == ["capital", "of", "country_42"]
    assert T.normalize_terms("ÉCOLE’s café") == ["école", "café"]


@pytest.mark.parametrize("bad", [3.5, [1.5], [True], None, "x", [10**30], np.array([1.5]),
                                 np.array([2**64 - 1], dtype=np.uint64), [[1, 2]]])
def test_offset_converters_refuse_non_integers(bad):
    # numpy would truncate 3.5 to 3 and pybind would raise its own TypeError/OverflowError
    with pytest.raises(InputTypeError, match="offsets"):
        T.utf8_to_cp("abc", bad)


def test_offset_converters_out_of_range_ints_are_index_errors():
    for v in (10**30, -(10**30), 4, -1):
        with pytest.raises(DirectorIndexError):
            T.cp_to_utf8("abc", v)
    assert T.cp_to_utf8("aé", np.array([0, 1, 2], dtype=np.uint8)).tolist() == [0, 1, 3]


@pytest.mark.parametrize("kw", [dict(max_tokens=10**30), dict(max_tokens=4, overlap=2.0),
                                dict(max_tokens=4, overlap=10**30)])
def test_chunk_budgets_must_be_int64(kw):
    with pytest.raises(ConfigError):
        T.chunk_by_tokens("abc def", [(0, 3), (4, 7)], **kw)


@pytest.mark.parametrize("sentences", [[(0.5, 3)], [(0, 10**30)], ["ab"], [(0, 3, 5)]])
def test_chunk_sentences_must_be_int_pairs(sentences):
    with pytest.raises(InputTypeError, match="sentences"):
        T.chunk_by_tokens("abc def", [(0, 3), (4, 7)], 4, sentences=sentences)


def test_integer_inputs_in_every_form_are_accepted():
    s = "abc def. ghi jk"
    ref = T.chunk_by_tokens(s, [(0, 3), (4, 8)], 3, overlap=1)
    assert T.chunk_by_tokens(s, [(0, 3), (4, 8)], np.int64(3), overlap=np.int32(1)) == ref
    assert T.chunk_by_tokens(s, [(np.uint64(0), 3), (4, np.int8(8))], 3, overlap=1) == ref
    assert T.chunk_by_tokens(s, ((a, b) for a, b in [(0, 3), (4, 8)]), 3, overlap=1) == ref
    assert T.chunk_by_tokens(s, [(0, 3), (4, 8)], 3, sentences=zip([0, 9], [8, 15])) == \
        T.chunk_by_tokens(s, [(0, 3), (4, 8)], 3, sentences=[(0, 8), (9, 15)])
    assert T.cp_to_utf8(s, [np.uint64(1), 2]).tolist() == [1, 2]
    with pytest.raises(InputTypeError):
        T.chunk_by_tokens(s, np.zeros((3, 0), dtype=np.int64), 3)

"""Every text entry point is safe on all of Unicode (issue 30, item 1).

Mixed scripts (CJK, Bengali, Tamil, Arabic, Hebrew, Cyrillic, Greek), combining marks, emoji and
ZWJ sequences, bidirectional controls and compatibility forms go through each entry point: the
only exceptions allowed are the library's own (``DirectorFastError`` subclasses); spans stay
exact (``text[start:end]`` is the unit's text) and NFC / NFD spellings of the same text match.

Each property runs for its share of ``DIRECTOR_FAST_FUZZ_SECONDS`` (``tests/_fuzz.py``:
``entry_point_seconds``); a failure prints the seed (``DIRECTOR_FAST_FUZZ_SEED=<seed>`` replays it).
"""
from __future__ import annotations

import logging
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _fuzz import entry_point_seconds, run_until

import director_fast as df
from director_fast import _core
from director_fast.diagnostics.citations import CITATION_VERDICTS
from director_fast.errors import DirectorFastError

# Pieces that broke or could break byte-level code: words whose last two UTF-8 bytes are equal
# (山 = E5 B1 B1, ー = E3 83 BC is not, ゞ = E3 82 9E ...), combining marks, ZWJ emoji, flags,
# skin tones, bidi controls, full-width and other compatibility forms, non-ASCII digits.
PIECES = [
    "五箇山", "山", "東京", "日本語", "は", "です", "。", "、", "বাংলা", "তামিল", "தமிழ்", "नमस्ते", "१२",
    "العربية", "٣٤", "עברית", "Ελληνικά", "ΣΣ", "русский", "ффф", "ааа", "é", "e\u0301", "n\u0303",
    "ß", "ẞ", "İ", "ǅ", "ﬁ", "Ａ", "Ｉｎｃ", "ｱｱ", "𝕏", "Ⅻ", "½", "²", "x\u0327\u0301",
    "👨\u200d👩\u200d👧", "👍🏽", "🇫🇷", "👩\u200d💻", "\U0001F600\U0001F600", "\u200b", "\u200d", "\u2060",
    "\u202e", "\u2067", "\u200f", "\ufeff", "—", "–", "…",
    "the", "price", "is", "not", "was", "in", "increased", "studies", "cancelled", "Paris", "Monday",
    "2.5k", "$3", "10%", "1990", "€5", "£5", "¥1000", "1,000", "twenty", "Dr.", "U.S.",
    ".", "?", "!", ",", ":", " ", " ", " ", "\n", "[ref:x]", '[ref:amount="2.5k"]',
]

_piece = st.one_of(
    st.sampled_from(PIECES),
    st.characters(exclude_categories=("Cs",)),  # any code point but a lone surrogate
)
mixed_text = st.lists(_piece, max_size=30).map("".join)
_SETTINGS = settings(max_examples=40, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))


@pytest.fixture(autouse=True)
def _quiet_english_warning():
    logging.disable(logging.WARNING)  # split_claims logs each non-English sentence
    yield
    logging.disable(logging.NOTSET)


@pytest.fixture(scope="module")
def scorer():
    return df.CoherenceScorer(use_nli=False)


def _own_errors_only(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except DirectorFastError:
        return None


def _valid_utf8(s: str) -> None:
    assert isinstance(s, str)
    s.encode("utf-8")  # raises on a lone surrogate


# ------------------------------------------------------------------ C++ text functions


@pytest.mark.parametrize("word", ["五箇山", "山", "山山", "ﾟﾟ", "ɐɐ", "ȳȳ", "ꜳꜳ", "ааа", "ззз", "ΣΣΣ",
                                  "ﬀﬀ", "\U0001F600\U0001F600", "cafés", "naïvely", "ööö"])
def test_lexical_stem_returns_whole_code_points(word):
    """The stemmer used to drop the last byte of a word whose last two bytes were equal."""
    stem = _core.lexical_stem(word)
    _valid_utf8(stem)
    assert word.startswith(stem)  # only ASCII suffixes are stripped; other text is kept whole


def test_lexical_stem_keeps_its_ascii_rules():
    assert _core.lexical_stem("cancelled") == "cancel"
    assert _core.lexical_stem("increases") == _core.lexical_stem("increasing") == "increas"
    assert _core.lexical_stem("studies") == "study"


def test_gokayama_context_reviews():
    """The context of factcheckgpt_stance_test that took every review down (issue 30)."""
    s = df.CoherenceScorer(use_nli=False)
    approved, score = s.review("Where is Gokayama?", "Gokayama is in Toyama.",
                               context=["Gokayama (五箇山) is a historic village area in Toyama."])
    assert isinstance(approved, bool) and 0.0 <= score.score <= 1.0


@given(mixed_text, mixed_text)
@_SETTINGS
def _core_text_functions(a, b):
    _valid_utf8(_core.lexical_stem(a))
    _valid_utf8(_core.declarative_part(a))
    for t in _core.normalize_terms(a):
        _valid_utf8(t)
    for start, end in _core.split_sentences(a):
        assert 0 <= start <= end <= len(a)
    for start, end, _value, unit, surface, _half in _core.find_numbers(a):
        assert a[start:end] == surface
        _valid_utf8(unit)
    r = _core.LexicalNLI().score(a, b)
    for sent in r.sentences:
        _valid_utf8(sent.text)
        for w in (*sent.signals.missing_entities, *sent.signals.missing_numbers,
                  *sent.signals.polarity_words, *sent.signals.antonym_pairs):
            _valid_utf8(w)
    p = _core.LexicalPremise(a)
    for i in range(p.sentence_count):
        _valid_utf8(p.sentence(i))
    seg = _core.SentenceSegmenter()
    for ch in a:
        seg.feed(ch)
    seg.flush()
    assert seg.text == a


def test_fuzz_unicode_core_text_functions():
    run_until(entry_point_seconds(), _core_text_functions, "core text functions")


# ------------------------------------------------------------------ entry points


def test_fuzz_unicode_review(scorer):
    @given(mixed_text, mixed_text, mixed_text)
    @_SETTINGS
    def prop(question, response, context):
        out = _own_errors_only(scorer.review, question, response, context=[context])
        if out is None:
            return
        _approved, score = out
        for a in score.evidence.attributions or []:
            if a.start >= 0:
                assert response[a.start:a.end] == a.claim
        _own_errors_only(scorer.score, question, response, context=[context])

    run_until(entry_point_seconds(), prop, "CoherenceScorer.review")


def test_fuzz_unicode_split_claims():
    @given(mixed_text)
    @_SETTINGS
    def prop(text):
        for u in df.split_claims(text):
            assert text[u.start:u.end] == u.text

    run_until(entry_point_seconds(), prop, "split_claims")


def test_fuzz_unicode_stream_guard(scorer):
    @given(mixed_text, mixed_text, st.integers(1, 7))
    @_SETTINGS
    def prop(text, context, step):
        tokens = [text[i:i + step] for i in range(0, len(text), step)]
        try:
            out = "".join(df.stream_guard(tokens, scorer, prompt="Tell me.", context=[context],
                                          release="sentence"))
        except DirectorFastError:
            return
        assert text.startswith(out)

    run_until(entry_point_seconds(), prop, "stream_guard")


def test_fuzz_unicode_knowledge_base():
    kb = df.KnowledgeBase()

    @given(mixed_text, mixed_text)
    @_SETTINGS
    def prop(doc, query):
        _own_errors_only(kb.add, doc, source="fuzz")
        for chunk in _own_errors_only(kb.retrieve, query, k=2) or []:
            _valid_utf8(chunk.text)

    run_until(entry_point_seconds(), prop, "KnowledgeBase.add/retrieve")


def test_knowledge_base_nfc_and_nfd_match():
    text = "Café crème in Zürich costs five francs; Ångström coined the unit."
    kb = df.KnowledgeBase()
    kb.add(unicodedata.normalize("NFD", text), source="nfd")
    kb.add("Tea in Bern costs three francs.", source="other")
    hits = kb.retrieve(unicodedata.normalize("NFC", "Café crème Zürich Ångström"), k=1)
    assert hits and hits[0].source == "nfd"


def test_fuzz_unicode_evidence_index():
    idx = df.EvidenceIndex(dim=64)
    emb = df.HashingEmbedder(dim=64)
    counter = iter(range(10**9))

    @given(mixed_text)
    @_SETTINGS
    def prop(text):
        vec = emb.embed(text).reshape(1, -1)
        _own_errors_only(idx.add, vec, [f"doc-{next(counter)}"], texts=[text], sources=[text[:8]])
        for hits in _own_errors_only(idx.search, vec, k=1) or []:
            for hit in hits:
                _valid_utf8(hit.text)

    run_until(entry_point_seconds(), prop, "EvidenceIndex")


def test_fuzz_unicode_citations():
    @given(mixed_text, mixed_text)
    @_SETTINGS
    def prop(answer, value):
        rows = [{"name": value, "amount": 2500, "note": answer[:20]}]
        report = _own_errors_only(df.check_citations, answer + f' [ref:name="{value}"]', rows)
        if report is not None:
            for c in report.checks:
                assert c.verdict in CITATION_VERDICTS

    run_until(entry_point_seconds(), prop, "check_citations")


def test_fuzz_unicode_numeric_verification():
    @given(mixed_text, mixed_text)
    @_SETTINGS
    def prop(response, evidence):
        _own_errors_only(df.verify_numbers, response, evidence, current_year=2025)
        _own_errors_only(df.verify_numeric, response, current_year=2025)
        for m in df.find_numbers(response):
            assert response[m.start:m.end] == m.surface

    run_until(entry_point_seconds(), prop, "verify_numbers")


def test_fuzz_unicode_injection_detection(scorer):
    det = df.InjectionDetector()
    san = df.InputSanitizer()

    @given(mixed_text, mixed_text, mixed_text)
    @_SETTINGS
    def prop(intent, response, context):
        _own_errors_only(det.detect, intent, response, user_query=context, context=[context])
        _own_errors_only(san.score, context)
        _own_errors_only(san.scan, {"doc": context, "user": intent})

    run_until(entry_point_seconds(), prop, "InjectionDetector")


def test_fuzz_unicode_temporal_graph():
    g = df.TemporalConsistencyGraph(functional_predicates=["lives_in"])
    clock = iter(range(10**9))

    @given(mixed_text, st.sampled_from(["lives_in", "likes"]), mixed_text, st.booleans())
    @_SETTINGS
    def prop(subject, predicate, value, polarity):
        try:
            claim = df.TemporalClaim(subject=subject, predicate=predicate, timestamp=float(next(clock)),
                                     value=value, polarity=polarity, source_text=subject + value)
        except DirectorFastError:
            return
        _own_errors_only(g.record, claim)
        # NFD spelling of the same subject and value is the same claim key
        nfd = df.TemporalClaim(subject=unicodedata.normalize("NFD", subject), predicate=predicate,
                               timestamp=claim.timestamp, value=unicodedata.normalize("NFD", value),
                               polarity=polarity)
        assert (nfd.subject, nfd.value) == (claim.subject, claim.value)

    run_until(entry_point_seconds(), prop, "TemporalConsistencyGraph")


def test_cli_guards_mixed_script_rows(tmp_path):
    """``director-fast guard --stream`` over a file whose rows hold every piece of PIECES."""
    import json
    import subprocess
    import sys

    data = tmp_path / "rows.jsonl"
    with data.open("w", encoding="utf-8") as fh:
        for i in range(0, len(PIECES), 6):
            text = " ".join(PIECES[i:i + 6])
            fh.write(json.dumps({"question": "Q?", "response": text, "context": text[::-1]}) + "\n")
    proc = subprocess.run([sys.executable, "-m", "director_fast.jobs.cli", "guard", "--data", str(data),
                           "--backend", "lexical", "--stream", "--no-progress", "--json"],
                          capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]


def test_cpp_error_messages_cut_whole_code_points():
    """A C++ message quoting the first 80 bytes of a bad tenant id used to cut 山 (3 bytes) in two,
    and the library's ValidationError surfaced as a UnicodeDecodeError."""
    from director_fast.errors import ValidationError

    idx = _core.TemporalIndex([], True, None, False)
    for bad in ("é" * 39 + "山" * 3, "a" + "山" * 30, "👩\u200d💻" * 20):
        with pytest.raises(ValidationError) as info:
            idx.delete_tenant(bad)
        _valid_utf8(str(info.value))
        assert "\ufffd" not in str(info.value)

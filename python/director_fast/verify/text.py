"""Text spans and tokenization offsets (code-point spans over UTF-8, tokenizer offset mapping).

Every offset in this module's public API is a Python string index (a *code point* offset) unless
a function name says otherwise (``utf8`` = UTF-8 bytes, ``utf16`` = UTF-16 code units). All
conversions are exact for any text, including emoji (4 UTF-8 bytes, 2 UTF-16 units), CJK (3
bytes, 1 unit) and combining marks (each mark is its own code point). A lone surrogate
(U+D800..U+DFFF) cannot be encoded and raises :class:`~director_fast.errors.ValidationError`.

The work is done by the C++ core (``director_fast._core``); this module owns the public names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from director_fast import _core
from director_fast.errors import ConfigError, DirectorIndexError, InputTypeError

__all__ = [
    "NEGATION_RE",
    "OffsetMap",
    "content_words",
    "content_word_list",
    "cp_to_utf8",
    "utf8_to_cp",
    "cp_to_utf16",
    "utf16_to_cp",
    "TokenSpans",
    "SentenceSegmenter",
    "split_sentences",
    "TextChunk",
    "chunk_by_tokens",
    "sentence_hypotheses",
    "word_offsets",
    "normalize_terms",
]

Offsets = Union[int, Sequence[int], np.ndarray]

OffsetMap = _core.OffsetMap
OffsetMap.__doc__ = """Position tables of one text for exact offset conversion.

    ``OffsetMap(text)`` costs O(len(text)) once (nothing is stored for pure-ASCII text); then
    ``cp_to_utf8(i)`` / ``cp_to_utf16(i)`` are O(1) and ``utf8_to_cp(b)`` / ``utf16_to_cp(u)``
    O(log n). The ``*_array`` variants take and return 1-D ``int64`` numpy arrays (GIL released).
    Properties ``length_cp``, ``length_utf8``, ``length_utf16``.

    Raises:
        ValidationError: the text holds a lone surrogate; an offset falls inside a character
            (e.g. UTF-8 byte 1 of "é").
        DirectorIndexError: an offset is outside [0, length].
        InputTypeError: an array is not 1-D C-contiguous int64.

    Thread-safety: immutable after construction; share freely between threads.
    """


_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _int_array(values: Any, what: str, ndim: int) -> np.ndarray:
    """``values`` as a C-contiguous int64 array with ``ndim`` dimensions (``(n, 2)`` when ``ndim``
    is 2). Integers only (Python or numpy, any width): floats, bools, None, strings and values
    beyond the int64 range raise InputTypeError naming ``what`` (numpy would otherwise truncate 3.5
    to 3 silently). Any iterable is accepted (lists, tuples, generators, ``zip``, arrays)."""
    shape = "a 1-D sequence of ints" if ndim == 1 else "a sequence of (start, end) int pairs or an (n, 2) int array"
    if isinstance(values, (str, bytes)):
        raise InputTypeError(f"{what} must be {shape}")
    if not isinstance(values, np.ndarray):
        if not hasattr(values, "__iter__"):
            raise InputTypeError(f"{what} must be {shape}, got {type(values).__name__}")
        items = list(values)
        if ndim == 2:
            pairs = []
            for p in items:
                if isinstance(p, (str, bytes)) or not hasattr(p, "__iter__"):
                    raise InputTypeError(f"{what} must be {shape}")
                pairs.append(tuple(p))
            items = pairs
        try:
            arr = np.asarray(items)
        except (ValueError, TypeError, OverflowError) as exc:
            raise InputTypeError(f"{what} must be {shape}") from exc
        if arr.size and arr.dtype.kind not in "iu":
            # numpy widens an int / uint64 mix to float64 and huge ints to object: check the
            # elements themselves and build the int64 array exactly
            leaves = [x for p in items for x in p] if ndim == 2 else items
            if not all(_is_int(x) for x in leaves):
                raise InputTypeError(f"{what} must be {shape} (integers only), got dtype {arr.dtype}")
            if any(not _I64_MIN <= int(x) <= _I64_MAX for x in leaves):
                raise InputTypeError(f"{what}: a value exceeds the int64 range")
            arr = np.array([int(x) for x in leaves], dtype=np.int64)
            if ndim == 2:
                if any(len(p) != 2 for p in items):
                    raise InputTypeError(f"{what} must be {shape}")
                arr = arr.reshape(-1, 2)
    else:
        arr = values
    if arr.size == 0 and arr.shape[:1] == (0,):
        return np.zeros((0,) if ndim == 1 else (0, 2), dtype=np.int64)
    if arr.dtype.kind == "u":
        if arr.size and int(arr.max()) > _I64_MAX:
            raise InputTypeError(f"{what}: a value exceeds the int64 range")
    elif arr.dtype.kind != "i":
        raise InputTypeError(f"{what} must be {shape} (integers only), got dtype {arr.dtype}")
    if arr.ndim != ndim or (ndim == 2 and arr.shape[1] != 2):
        raise InputTypeError(f"{what} must be {shape}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _convert(text: str, offsets: Offsets, method: str) -> Any:
    om = OffsetMap(text)
    if isinstance(offsets, (int, np.integer)) and not isinstance(offsets, (bool, np.bool_)):
        v = int(offsets)
        if not _I64_MIN <= v <= _I64_MAX:
            raise DirectorIndexError(f"offset {v} is outside the text")
        return getattr(om, method)(v)
    if isinstance(offsets, (str, bytes)):
        raise InputTypeError("offsets must be an int or a 1-D sequence of ints")
    return getattr(om, method + "_array")(_int_array(offsets, "offsets", 1))


def cp_to_utf8(text: str, offsets: Offsets) -> Any:
    """Code-point offset(s) in ``text`` -> UTF-8 byte offset(s).

    Args:
        text: the text the offsets refer to.
        offsets: an int, or a sequence / 1-D array of ints, each in [0, len(text)].
    Returns:
        an int for an int input, else a 1-D ``int64`` array of the same length.
    Raises:
        DirectorIndexError: an offset outside [0, len(text)]. ValidationError: lone surrogate.
    """
    return _convert(text, offsets, "cp_to_utf8")


def utf8_to_cp(text: str, offsets: Offsets) -> Any:
    """UTF-8 byte offset(s) -> code-point offset(s). A byte offset inside a multi-byte character
    raises ValidationError (it is not a character boundary)."""
    return _convert(text, offsets, "utf8_to_cp")


def cp_to_utf16(text: str, offsets: Offsets) -> Any:
    """Code-point offset(s) -> UTF-16 code-unit offset(s) (characters above U+FFFF count 2)."""
    return _convert(text, offsets, "cp_to_utf16")


def utf16_to_cp(text: str, offsets: Offsets) -> Any:
    """UTF-16 code-unit offset(s) -> code-point offset(s). An offset between the two halves of a
    surrogate pair raises ValidationError."""
    return _convert(text, offsets, "utf16_to_cp")


TokenSpans = _core.TokenSpans
TokenSpans.__doc__ = """Streamed-token index <-> code-point span in the accumulated text.

    ``append(token) -> (start, end)`` records the next streamed token (O(1) amortised);
    ``span(i) -> (start, end)`` (negative i counts from the end); ``token_at(offset) -> i`` is the
    token covering code point ``offset`` (the first non-empty one; O(log n)); ``tokens_before(offset)``
    counts the tokens that end at or before ``offset`` (use it to halt at an exact character);
    ``len(spans)`` tokens; ``text_length`` code points; ``ends()`` the int64 end offsets.

    Raises:
        DirectorIndexError: an index or offset out of range. InputTypeError: a non-str token.

    Thread-safety: not thread-safe for writers; guard it with a lock if several threads append.
    Concurrent readers without a writer are safe.
    """


SentenceSegmenter = _core.SentenceSegmenter
SentenceSegmenter.__doc__ = """Incremental sentence segmentation over a growing text.

    ``feed(token) -> list[(start, end)]`` appends ``token`` and returns the code-point spans of the
    sentences completed so far that had not been reported (a sentence is reported only once the
    text after it proves it ended: the whitespace and next character after a terminal mark, a
    newline, or a CJK terminal followed by anything). ``flush() -> list[(start, end)]`` reports the
    rest at end of stream. ``text`` is the accumulated text, ``pending_start`` the start of the
    unsettled sentence, ``reset()`` starts over. Spans exclude surrounding whitespace and a leading
    list bullet ("- ", "* ", "• "). Cost per feed: proportional to the token plus the unsettled tail
    (a pending terminal mark and the whitespace after it), never to the whole text.

    Rules (same as :func:`split_sentences`): ``. ! ? …`` (and runs like ``?!``, ``...``) plus
    closing quotes/brackets end a sentence when followed by whitespace and then a character that
    is not a lowercase letter or ``,;:``. A ``.`` directly followed by a non-space (``3.14``,
    ``v2.0.1``, ``e.g.,``) never ends a sentence; nor does one after a known abbreviation
    (``Dr.``, ``No.``, ``Inc.``, months, ...), a dotted abbreviation (``e.g.``, ``U.S.``, ``a.m.``),
    a single letter (initials) or a list number opening the sentence (``1.``). ``。！？`` end a
    sentence without whitespace. A newline always ends a non-empty sentence.

    Raises:
        InputTypeError: a non-str token. ValidationError: a lone surrogate.

    Thread-safety: not thread-safe; use one segmenter per stream.
    """


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``[(start, end), ...]`` (code points) of a whole text, by the rules of
    :class:`SentenceSegmenter` (identical to feeding ``text`` in any pieces and flushing).

    Raises:
        InputTypeError: ``text`` is not a str. ValidationError: a lone surrogate.
    """
    return _core.split_sentences(text)


_CONTENT_WORD = re.compile(r"[^\W\d_]{3,}")
_FUNCTION_WORDS = frozenset(
    "the and for are was were with that this these those which who whom from have has had not "
    "any all can may will does did into onto than then them they their there also only "
    "you your yours its our ours she her hers his him what when where how why but been being "
    "would could should shall might must".split())


#: a negation word ("no", "not", "never", "cannot", "none", "nothing", "n't", ...; "no-claims" is
#: no negation): the claim rules' one reading of a negation
NEGATION_RE = re.compile(r"\b(?:no|not|never|nope|incorrect|false|cannot|none|nothing)\b(?!-)|n't\b", re.IGNORECASE)


def content_words(text: str) -> set[str]:
    """Lower-cased words of 3+ letters, function words dropped, a plural "s" folded (a word of
    5+ letters ending in "s" loses it): the words the claim pipeline and the number aligner
    compare. ``content_words("Checked suitcases weigh 23 kg")`` -> ``{"checked", "suitcase", "weigh"}``.
    Returns a new set on every call (the caller may change it)."""
    return set(_content_word_set(text))


@functools.lru_cache(maxsize=8192)  # pure; both sides of many comparisons ask for it
def _content_word_set(text: str) -> frozenset[str]:
    return frozenset(content_word_list(text))


def content_word_list(text: str) -> list[str]:
    """The words of :func:`content_words` in text order, repeats kept."""
    return [w[:-1] if len(w) > 4 and w.endswith("s") else w
            for w in _CONTENT_WORD.findall(text.lower()) if w not in _FUNCTION_WORDS]


def normalize_terms(text: str) -> list[str]:
    """Lower-cased word terms of ``text`` as the hashing embedder and BM25 see them: split on
    anything but letters, digits and ``_``; possessive ``'s`` / ``’s`` dropped."""
    return _core.normalize_terms(text)


@dataclass(frozen=True)
class TextChunk:
    """One chunk of a token-budget split.

    Attributes:
        text: ``source[start:end]``.
        start, end: code-point span in the source text.
        token_start, token_end: range into the tokenizer's token list (end exclusive; special
            tokens with empty offsets inside the range are not counted in ``n_tokens``).
        n_tokens: number of (non-empty) tokens in the chunk, <= max_tokens.
        oversized: the chunk is a piece of a single sentence longer than ``max_tokens`` that
            had to be split at token boundaries (reported, never silently truncated).
    """

    text: str
    start: int
    end: int
    token_start: int
    token_end: int
    n_tokens: int
    oversized: bool = False


def _offsets_arrays(text: str, offsets: Any, unit: str) -> tuple[np.ndarray, np.ndarray]:
    if hasattr(offsets, "offsets") and not isinstance(offsets, np.ndarray):
        offsets = offsets.offsets  # a tokenizers.Encoding
    arr = _int_array(offsets, "offsets", 2)
    starts = np.ascontiguousarray(arr[:, 0])
    ends = np.ascontiguousarray(arr[:, 1])
    if unit == "cp":
        return starts, ends
    if unit not in ("utf8", "utf16"):
        raise ConfigError("unit must be 'cp', 'utf8' or 'utf16', got %r" % (unit,), field="unit")
    om = OffsetMap(text)
    fn = om.utf8_to_cp_array if unit == "utf8" else om.utf16_to_cp_array
    return fn(starts), fn(ends)


def _chunks(text: str, offsets: Any, max_tokens: int, overlap: int,
            sentences: Sequence[tuple[int, int]] | None, unit: str, one: bool) -> list[TextChunk]:
    if not isinstance(text, str):
        raise InputTypeError("text must be a str")
    for name, v in (("max_tokens", max_tokens), ("overlap", overlap)):
        if not _is_int(v):
            raise ConfigError(f"{name} must be an int", field=name)
        if not _I64_MIN <= int(v) <= _I64_MAX:
            raise ConfigError(f"{name}: outside the int64 range", field=name)
    max_tokens, overlap = int(max_tokens), int(overlap)
    starts, ends = _offsets_arrays(text, offsets, unit)
    if sentences is None:
        sents = split_sentences(text)
    else:
        sents = [tuple(p) for p in _int_array(sentences, "sentences", 2).tolist()]
    raw = _core.chunk_tokens(starts, ends, sents, len(text), max_tokens, overlap, one)
    nonempty = np.cumsum(np.concatenate([[0], (ends > starts).astype(np.int64)]))
    return [
        TextChunk(text[s:e], s, e, ts, te, int(nonempty[te] - nonempty[ts]), bool(ov))
        for (s, e, ts, te, ov) in raw
    ]


def chunk_by_tokens(text: str, offsets: Any, max_tokens: int, *, overlap: int = 0,
                    sentences: Sequence[tuple[int, int]] | None = None,
                    unit: str = "cp") -> list[TextChunk]:
    """Split a premise into chunks of at most ``max_tokens`` tokens, sentence-aligned.

    Args:
        text: the premise.
        offsets: the tokenizer's per-token ``(start, end)`` offsets into ``text``, sorted by
            start, as the ``tokenizers`` library returns them (``encoding.offsets``; an
            ``Encoding`` itself is accepted). Special tokens with empty spans (e.g. ``(0, 0)``)
            are ignored. Shape (n, 2), ints.
        max_tokens: token budget per chunk, >= 1 (leave room for the hypothesis and special
            tokens yourself).
        overlap: repeat whole trailing sentences of the previous chunk, at most this many
            tokens, at the start of the next chunk; in [0, max_tokens).
        sentences: sentence spans to align to (default :func:`split_sentences`).
        unit: what ``offsets`` count: ``"cp"`` (code points; what the Python ``tokenizers``
            bindings return), ``"utf8"`` bytes or ``"utf16"`` units.

    Returns:
        chunks in text order. Every token belongs to exactly one chunk (ignoring overlap): each
        token goes with the sentence in which it starts, so no text is dropped. A sentence longer
        than ``max_tokens`` is split at token boundaries into chunks flagged ``oversized``.

    Raises:
        ConfigError: ``max_tokens`` < 1 or ``overlap`` outside [0, max_tokens).
        ValidationError: offsets outside the text or not sorted by start; a byte/unit offset
            inside a character. InputTypeError: malformed offsets.
    """
    return _chunks(text, offsets, max_tokens, overlap, sentences, unit, False)


def sentence_hypotheses(text: str, offsets: Any, max_tokens: int, *,
                        sentences: Sequence[tuple[int, int]] | None = None,
                        unit: str = "cp") -> list[TextChunk]:
    """Split a response into one chunk per sentence (NLI hypotheses), each within
    ``max_tokens``; a longer sentence is split at token boundaries and flagged ``oversized``.
    Arguments as for :func:`chunk_by_tokens`."""
    return _chunks(text, offsets, max_tokens, 0, sentences, unit, True)


def word_offsets(text: str) -> list[tuple[int, int]]:
    """Code-point spans of word-like tokens (runs of word characters, or single other
    non-space characters): a tokenizer-free stand-in for :func:`chunk_by_tokens`."""
    if not isinstance(text, str):
        raise InputTypeError("text must be a str")
    return [(m.start(), m.end()) for m in _WORD_RE.finditer(text)]


_WORD_RE = re.compile(r"\w+|[^\w\s]")

"""
director_fast C++ core (private; use the director_fast package).
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
class StepResult:
    """
    Outcome of one token (see HaltKernel.step).
    """
    def __repr__(self) -> str:
        ...
    @property
    def action(self) -> str:
        """
        'continue', 'warn', 'soft_pending' or 'halt'
        """
    @property
    def margin(self) -> typing.Any:
        ...
    @property
    def reason(self) -> str:
        ...
    @property
    def score(self) -> float:
        ...
    @property
    def scored(self) -> bool:
        ...
    @property
    def soft(self) -> bool:
        ...
    @property
    def statistic(self) -> typing.Any:
        ...
    @property
    def threshold(self) -> typing.Any:
        ...
    @property
    def trend_drop(self) -> typing.Any:
        ...
    @property
    def trigger_index(self) -> int:
        ...
    @property
    def window_mean(self) -> typing.Any:
        ...
class HaltDecision:
    """
    Decision of a whole stream (see HaltKernel.run).
    """
    def __repr__(self) -> str:
        ...
    @property
    def final_index(self) -> int:
        ...
    @property
    def halt_index(self) -> int:
        ...
    @property
    def halted(self) -> bool:
        ...
    @property
    def last_score(self) -> typing.Any:
        ...
    @property
    def margin(self) -> typing.Any:
        ...
    @property
    def output_tokens(self) -> int:
        ...
    @property
    def pending_soft(self) -> bool:
        ...
    @property
    def reason(self) -> str:
        ...
    @property
    def scored_count(self) -> int:
        ...
    @property
    def soft_halted(self) -> bool:
        ...
    @property
    def statistic(self) -> typing.Any:
        ...
    @property
    def threshold(self) -> typing.Any:
        ...
    @property
    def tokens_seen(self) -> int:
        ...
    @property
    def warning_count(self) -> int:
        ...
class HaltKernel:
    """
    Per-stream halt state machine (not thread-safe; one per stream).
    """
    def __init__(self, *, hard_limit: typing.SupportsFloat | typing.SupportsIndex = 0.5, window_size: typing.SupportsInt | typing.SupportsIndex = 10, window_threshold: typing.SupportsFloat | typing.SupportsIndex = 0.55, trend_window: typing.SupportsInt | typing.SupportsIndex = 5, trend_threshold: typing.SupportsFloat | typing.SupportsIndex = 0.15, soft_limit: typing.SupportsFloat | typing.SupportsIndex = 0.6, halt_mode: str = 'hard', score_every_n: typing.SupportsInt | typing.SupportsIndex = 1, adaptive: bool = False, max_cadence: typing.SupportsInt | typing.SupportsIndex = 8, soft_halt_cap: typing.SupportsInt | typing.SupportsIndex = 50) -> None:
        ...
    def feed(self, score: typing.SupportsFloat | typing.SupportsIndex, scored: bool = True, sentence_end: bool = False) -> int:
        """
        Fast path of step(): returns the action in bits 0-1 (0 continue, 1 warn, 2 soft_pending, 3 halt) and bit 2 set when the next token wants a fresh score under the cadence; details are in .decision.
        """
    def feed_same(self, score: typing.SupportsFloat | typing.SupportsIndex, sentence_end: bytes, n: int) -> bytes:
        """
        Feed n tokens sharing one fresh score (a scored sentence); sentence_end is b'' or one byte per token. Returns one action byte per consumed token (stops after a halt).
        """
    def finish(self) -> HaltDecision:
        ...
    def halt_external(self, reason: str) -> HaltDecision:
        ...
    def reset(self) -> None:
        ...
    def run(self, scores: typing.Any, sentence_end: typing.Any = None, flags_out: typing.Any = None, finalize: bool = True) -> HaltDecision:
        """
        Batch replay over float64 scores (and optional bool/uint8 sentence_end) with the GIL released; see director_fast.stream.kernel.replay for the documented wrapper.
        """
    def step(self, score: typing.SupportsFloat | typing.SupportsIndex, scored: bool = True, sentence_end: bool = False) -> StepResult:
        """
        Feed one token. Raises ScoreError (ValueError) for a fresh score outside [0, 1] or non-finite, leaving the state unchanged; ValidationError after the stream ended.
        """
    @property
    def cadence(self) -> int:
        ...
    @property
    def current_window_mean(self) -> typing.Any:
        ...
    @property
    def decision(self) -> HaltDecision:
        ...
    @property
    def finished(self) -> bool:
        ...
    @property
    def last_score(self) -> float:
        ...
    @property
    def tokens_seen(self) -> int:
        ...
    @property
    def wants_score(self) -> bool:
        """
        Whether the next token must get a fresh score under the cadence.
        """
class OffsetMap:
    """
    Position tables of one text for exact offset conversion.
    
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
    def __init__(self, text: typing.Any) -> None:
        ...
    def cp_to_utf16(self, offset: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def cp_to_utf16_array(self, offsets: typing.Any) -> numpy.typing.NDArray[numpy.int64]:
        ...
    def cp_to_utf8(self, offset: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def cp_to_utf8_array(self, offsets: typing.Any) -> numpy.typing.NDArray[numpy.int64]:
        ...
    def utf16_to_cp(self, offset: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def utf16_to_cp_array(self, offsets: typing.Any) -> numpy.typing.NDArray[numpy.int64]:
        ...
    def utf8_to_cp(self, offset: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def utf8_to_cp_array(self, offsets: typing.Any) -> numpy.typing.NDArray[numpy.int64]:
        ...
    @property
    def length_cp(self) -> int:
        ...
    @property
    def length_utf16(self) -> int:
        ...
    @property
    def length_utf8(self) -> int:
        ...
class TokenSpans:
    """
    Streamed-token index <-> code-point span in the accumulated text.
    
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
    def __init__(self) -> None:
        ...
    def __len__(self) -> int:
        ...
    def append(self, token: typing.Any) -> tuple[int, int]:
        ...
    def append_length(self, length: int) -> tuple[int, int]:
        ...
    def clear(self) -> None:
        ...
    def ends(self) -> numpy.typing.NDArray[numpy.int64]:
        ...
    def extend(self, tokens: collections.abc.Iterable) -> None:
        ...
    def span(self, index: typing.SupportsInt | typing.SupportsIndex) -> tuple[int, int]:
        ...
    def token_at(self, offset: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def tokens_before(self, offset: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    @property
    def text_length(self) -> int:
        ...
class SentenceSegmenter:
    """
    Incremental sentence segmentation over a growing text.
    
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
    def __init__(self) -> None:
        ...
    def __len__(self) -> int:
        ...
    def feed(self, token: typing.Any) -> list:
        ...
    def flush(self) -> list:
        ...
    def reset(self) -> None:
        ...
    @property
    def pending_start(self) -> int:
        ...
    @property
    def text(self) -> str:
        ...
class HashingEmbedder:
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex, char_ngram_min: typing.SupportsInt | typing.SupportsIndex, char_ngram_max: typing.SupportsInt | typing.SupportsIndex, word_bigrams: bool, seed: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def embed(self, text: typing.Any) -> numpy.typing.NDArray[numpy.float32]:
        ...
    def embed_batch(self, texts: collections.abc.Iterable) -> numpy.typing.NDArray[numpy.float32]:
        ...
    @property
    def dim(self) -> int:
        ...
class EvidenceIndex:
    FORMAT_VERSION: typing.ClassVar[int] = 2
    @staticmethod
    def _sweep_stale_temps(path: str) -> int:
        ...
    @staticmethod
    def _temp_tag() -> str:
        ...
    @staticmethod
    def load(path: str) -> EvidenceIndex:
        ...
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex, space: str, M: typing.SupportsInt | typing.SupportsIndex, ef_construction: typing.SupportsInt | typing.SupportsIndex, ef_search: typing.SupportsInt | typing.SupportsIndex, initial_capacity: typing.SupportsInt | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, exact_threshold: typing.SupportsInt | typing.SupportsIndex, storage: str = 'float32') -> None:
        ...
    def add(self, vectors: typing.Any, ids: typing.Any, texts: typing.Any, sources: typing.Any, tenants: typing.Any, upsert: bool, num_threads: typing.SupportsInt | typing.SupportsIndex) -> list:
        ...
    def capacity(self) -> int:
        ...
    def contains(self, arg0: typing.Any) -> bool:
        ...
    def deleted_count(self) -> int:
        ...
    def get_vector(self, arg0: typing.Any) -> numpy.typing.NDArray[numpy.float32]:
        ...
    def ids(self, tenant: typing.Any) -> list:
        ...
    def records(self, labels: typing.Any) -> list:
        ...
    def remove(self, ids: collections.abc.Iterable, missing_ok: bool) -> int:
        ...
    def save(self, path: str) -> None:
        ...
    def search_hits(self, queries: typing.Any, k: typing.SupportsInt | typing.SupportsIndex, tenant: typing.Any, exact: bool, num_threads: typing.SupportsInt | typing.SupportsIndex) -> tuple[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.float32], list]:
        ...
    def search_ids(self, queries: typing.Any, k: typing.SupportsInt | typing.SupportsIndex, tenant: typing.Any, exact: bool, num_threads: typing.SupportsInt | typing.SupportsIndex) -> tuple[list, numpy.typing.NDArray[numpy.float32]]:
        ...
    def search_raw(self, queries: typing.Any, k: typing.SupportsInt | typing.SupportsIndex, tenant: typing.Any, exact: bool, num_threads: typing.SupportsInt | typing.SupportsIndex, reference_search: bool = False) -> tuple[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.float32]]:
        ...
    def size(self) -> int:
        ...
    def tenant_size(self, tenant: typing.Any) -> int:
        ...
    @property
    def M(self) -> int:
        ...
    @property
    def dim(self) -> int:
        ...
    @property
    def distance_kernel(self) -> str:
        ...
    @property
    def ef_construction(self) -> int:
        ...
    @property
    def ef_search(self) -> int:
        ...
    @ef_search.setter
    def ef_search(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def exact_threshold(self) -> int:
        ...
    @property
    def space(self) -> str:
        ...
    @property
    def storage(self) -> str:
        ...
class TemporalIndex:
    """
    Private C++ index behind TemporalConsistencyGraph. Thread-safe: an internal mutex serialises every call.
    """
    def __init__(self, functional_predicate_keys: collections.abc.Sequence[str], case_sensitive: bool, path: str | None, fsync: bool) -> None:
        ...
    def claim_count(self, arg0: typing.Any) -> int:
        ...
    def close(self) -> None:
        ...
    def contradiction_count(self, arg0: typing.Any) -> int:
        ...
    def contradictions(self, arg0: typing.Any) -> list:
        ...
    def delete_tenant(self, arg0: str) -> int:
        ...
    def history(self, arg0: str, arg1: str, arg2: str) -> list:
        ...
    def record(self, arg0: str, arg1: str, arg2: str, arg3: str, arg4: bool, arg5: typing.SupportsFloat | typing.SupportsIndex, arg6: str, arg7: str, arg8: str, arg9: str, arg10: str, arg11: str, arg12: str) -> tuple[bool, list]:
        ...
    def record_batch(self, arg0: typing.Any, arg1: typing.Any, arg2: typing.Any, arg3: typing.Any, arg4: typing.Any, arg5: typing.Any, arg6: typing.Any, arg7: typing.Any, arg8: typing.Any, arg9: typing.Any, arg10: typing.Any, arg11: typing.Any, arg12: typing.Any, arg13: typing.Any) -> tuple[int, list]:
        ...
    def record_claim(self, arg0: typing.Any) -> typing.Any:
        ...
    def stats(self) -> dict:
        ...
    def subjects(self, arg0: str) -> list[str]:
        ...
    def tenants(self) -> list[str]:
        ...
class LexicalSignals:
    """
    Signals of one hypothesis sentence (read-only; see LexicalNLI).
    """
    @property
    def antonym_hits(self) -> int:
        ...
    @property
    def antonym_pairs(self) -> list[str]:
        ...
    @property
    def bigrams(self) -> int:
        ...
    @property
    def content_words(self) -> int:
        ...
    @property
    def coverage(self) -> float:
        ...
    @property
    def covered_words(self) -> int:
        ...
    @property
    def entities(self) -> int:
        ...
    @property
    def entity_mismatches(self) -> int:
        ...
    @property
    def missing_entities(self) -> list[str]:
        ...
    @property
    def missing_numbers(self) -> list[str]:
        ...
    @property
    def negation_close(self) -> int:
        ...
    @property
    def negation_flips(self) -> int:
        ...
    @property
    def novel_bigrams(self) -> int:
        ...
    @property
    def novel_polarity(self) -> int:
        ...
    @property
    def numbers(self) -> int:
        ...
    @property
    def numeric_mismatches(self) -> int:
        ...
    @property
    def polarity_words(self) -> list[str]:
        ...
class LexicalSentence:
    """
    One scored hypothesis sentence (read-only).
    """
    @property
    def alignment(self) -> float:
        ...
    @property
    def divergence(self) -> float:
        ...
    @property
    def premise_sentence(self) -> int:
        ...
    @property
    def signals(self) -> LexicalSignals:
        ...
    @property
    def text(self) -> str:
        ...
class LexicalResult:
    """
    Result of LexicalNLI.score (read-only).
    """
    @property
    def divergence(self) -> float:
        ...
    @property
    def hypothesis_tokens(self) -> int:
        ...
    @property
    def premise_sentences(self) -> int:
        ...
    @property
    def premise_tokens(self) -> int:
        ...
    @property
    def sentences(self) -> list[LexicalSentence]:
        ...
class LexicalPremise:
    """
    A premise analysed once for many hypotheses. Immutable; thread-safe.
    """
    def __init__(self, text: str) -> None:
        ...
    def sentence(self, index: typing.SupportsInt | typing.SupportsIndex) -> str:
        ...
    def sentences(self) -> tuple:
        """
        All premise sentences as a tuple of str (one call instead of sentence(i) per index).
        """
    @property
    def sentence_count(self) -> int:
        ...
    @property
    def token_count(self) -> int:
        ...
class LexicalNLI:
    """
    C++ lexical NLI heuristic. Immutable; thread-safe.
    """
    def __init__(self, *, w_uncovered: typing.SupportsFloat | typing.SupportsIndex = 0.85, w_numeric: typing.SupportsFloat | typing.SupportsIndex = 0.7, w_entity: typing.SupportsFloat | typing.SupportsIndex = 0.7, w_negation: typing.SupportsFloat | typing.SupportsIndex = 0.9, w_antonym: typing.SupportsFloat | typing.SupportsIndex = 0.5, w_novel: typing.SupportsFloat | typing.SupportsIndex = 0.0, q_entity: typing.SupportsFloat | typing.SupportsIndex = 0.85, w_negation_weak: typing.SupportsFloat | typing.SupportsIndex = 0.35, negation_alignment: typing.SupportsFloat | typing.SupportsIndex = 0.8, w_polarity: typing.SupportsFloat | typing.SupportsIndex = 0.7, q_polarity: typing.SupportsFloat | typing.SupportsIndex = 0.7, aggregation: str = 'max') -> None:
        ...
    def score(self, premise: str, hypothesis: str) -> LexicalResult:
        ...
    def score_batch(self, premises: collections.abc.Sequence[str], hypotheses: collections.abc.Sequence[str]) -> numpy.typing.NDArray[numpy.float64]:
        ...
    def score_prepared(self, premise: LexicalPremise, hypothesis: str) -> LexicalResult:
        ...
    @property
    def aggregation(self) -> str:
        ...
    @property
    def weights(self) -> dict:
        ...
class Bm25Index:
    """
    Okapi BM25 inverted index (private; use director_fast.verify.knowledge.BM25). Thread-safe: add is exclusive, top runs concurrently.
    """
    def __init__(self, k1: typing.SupportsFloat | typing.SupportsIndex = 1.2, b: typing.SupportsFloat | typing.SupportsIndex = 0.75) -> None:
        ...
    def __len__(self) -> int:
        ...
    def add(self, doc_id: int, terms: typing.Any) -> None:
        ...
    def fuse_top_text(self, dense_ids: typing.Any, dense_weight: typing.SupportsFloat | typing.SupportsIndex, rrf_k: typing.SupportsFloat | typing.SupportsIndex, query: typing.Any, depth: int, k: int) -> list:
        ...
    def top(self, terms: typing.Any, k: int) -> list:
        ...
    def top_text(self, query: typing.Any, k: int) -> list:
        ...
    @property
    def b(self) -> float:
        ...
    @property
    def k1(self) -> float:
        ...
    @property
    def postings_size(self) -> int:
        ...
    @property
    def total_length(self) -> int:
        ...
    @property
    def vocabulary_size(self) -> int:
        ...
def _safety_entry(kind, fallback, module, doc, /):
    """
    The C++ entry point of kind 'validate_event', 'validate_signal' or 'signal_from_event' as a builtin that passes every call it declines to `fallback` (private; used at import).
    """
def _safety_event_build(event_id, timestamp, request_id, tenant_id, hook_id, hook_scope, policy_decision, halt_reason, threshold, observed_score, latency_ms, evidence_refs, tenant_safe_explanation, trace_attribution, attributes, /):
    """
    Validated SafetyEvent, or None when the values need the Python path (invalid or unusual types). event_id/timestamp None or '' are generated.
    """
def _safety_event_from_payload(payload, /):
    """
    SafetyEvent from a valid to_dict() payload, or None (use the Python path).
    """
def _safety_event_methods():
    """
    {name: descriptor} of the C++ SafetyEvent methods (from_policy_decision, to_dict); private, installed on the class at import.
    """
def _safety_event_post_init(event, /):
    """
    True when a constructed SafetyEvent is valid (attributes are then copied); False: run the Python checks.
    """
def _safety_format_timestamp(unix_ns, /):
    """
    'YYYY-MM-DDTHH:MM:SS.ffffffZ' for integer nanoseconds since the Unix epoch.
    """
def _safety_fold(text, /):
    """
    The detection fold of text: ASCII, with U+0080 for code points that map to no ASCII.
    """
def _safety_new_id(prefix, /):
    """
    prefix + 32 hex digits of 128 bits from the kernel CSPRNG (getrandom, arc4random_buf or /dev/urandom).
    """
def _safety_setup(event_cls, trace_cls, trace_from_payload, from_policy_decision_py, /):
    """
    Register the SafetyEvent and HaltTraceAttribution classes (private; called once at import).
    """
def _safety_setup_signal(signal_cls, default_schema_ref, /):
    """
    Register the DirectorSafetySignal class and validate the default schema_ref (private; called once at import).
    """
def _safety_signal_build(signal_id, emitted_at, producer_id, framework, event, schema_ref, extensions, /):
    """
    Validated DirectorSafetySignal, or None (use the Python path).
    """
def _safety_signal_from_payload(payload, /):
    """
    DirectorSafetySignal from a valid transport dict, or None (use the Python path).
    """
def _safety_signal_methods():
    """
    {name: descriptor} of the C++ DirectorSafetySignal methods (to_json, to_transport_dict); private, installed on the class at import.
    """
def _safety_signal_post_init(signal, /):
    """
    True when a constructed DirectorSafetySignal is valid (extensions copied).
    """
def _safety_tenant_violation(text, key, /):
    """
    Reason why text breaks a tenant-safety rule (V1..V6, S1, S2, K1..K5), or None.
    """
def _safety_utc_timestamp():
    """
    Current UTC time as 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (27 characters).
    """
def canonical_json(obj, /):
    """
    json.dumps(obj, sort_keys=True, separators=(',', ':'), ensure_ascii=True, allow_nan=False) for dict (str keys) / list / tuple / str / int / float / bool / None, byte for byte. Raises ValidationError (NaN/inf, > 256 levels) or InputTypeError (other types, non-str keys).
    """
def chunk_tokens(token_starts: typing.Any, token_ends: typing.Any, sentences: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]], text_length: typing.SupportsInt | typing.SupportsIndex, max_tokens: typing.SupportsInt | typing.SupportsIndex, overlap: typing.SupportsInt | typing.SupportsIndex, one_per_sentence: bool) -> list:
    ...
def declarative_part(text: typing.Any) -> str:
    """
    The sentences of `text` that assert something (questions and requests dropped), joined with one space; see director_fast.verify.scorer.declarative_part.
    """
def find_numbers(text: str) -> list[tuple[int, int, float, str, str, bool]]:
    """
    Number mentions of `text` as (start, end, value, unit, surface, half_day_open) tuples; start/end in code points, text[start:end] == surface. See director_fast.verify.numbers.find_numbers.
    """

def same_value(a: float, b: float) -> bool:
    """
    Whether two parsed values are the same number (relative tolerance 1e-12). See director_fast.verify.numbers.same_value.
    """

def long_digits_differ(a: str, b: str) -> bool:
    """
    Whether two surfaces, one of more than 15 digits, hold different digits. See director_fast.verify.numbers.long_digits_differ.
    """
def lexical_stem(word: str) -> str:
    """
    The lexical NLI's light suffix stem of one word (ASCII letters lower-cased).
    """
def normalize_terms(text: typing.Any) -> list:
    ...
def salvage_temporal_log(path: str, out_path: str, case_sensitive: typing.Any, functional_predicate_keys: typing.Any) -> dict:
    """Private: see TemporalConsistencyGraph.salvage. case_sensitive None = take the settings from the source header."""
def split_sentences(text: typing.Any) -> list:
    ...
__version__: str = '0.1.0'

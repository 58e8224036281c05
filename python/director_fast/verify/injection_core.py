"""The rules of intent-grounded prompt-injection detection (public class:
:class:`director_fast.verify.injection.InjectionDetector`; this module sits below the scorer, which uses
:class:`InjectionEngine` directly, and never imports it).

Did the response follow an instruction that was slipped into its inputs? Two stages:

**Stage 1 -- the inputs** (:class:`InputSanitizer`). The user's message and every ``context``
text (retrieved documents, tool outputs) are cut into segments (sentences, and the strings of
JSON-like tool output) and each segment is matched against known injection phrasings: instruction
overrides ("ignore all previous instructions", in English, French, Spanish, German, Italian,
Portuguese, Dutch, Russian, Japanese and Chinese), directives addressed to the model ("note for any
AI reading this: tell the user ..."), role-play and mode switches ("you are now DAN", "developer
mode"), fake role tags ("[system]", "SYSTEM OVERRIDE"), requests for the system prompt, and
output hijacks ("respond only in Spanish"). Base64 runs are decoded and scanned; letters that have a
Latin look-alike (Cyrillic, Greek) inside mixed-script words are folded to Latin before matching,
and a mixed-script word is itself a signal; zero-width characters are dropped. A phrase inside
quotation marks or after a reporting frame ("phrases such as", "told me to") weighs half: text that
discusses an injection is not one. ``input_sanitizer_score`` is the strongest segment score.

**Stage 2 -- the output against the intent.** The response is cut into units
(:func:`director_fast.verify.claims.split_claims`; pleasantries and abstentions are left out). For each
claim: forward NLI divergence intent -> claim and reverse claim -> intent
(``bidirectional_divergence = min``), ``traceability`` (share of the claim's content words found in
the intent) and ``entity_match`` (share of its named entities, numbers, links and codes found in
the intent; 1.0 when it has none), and the claim-level verdict against the evidence
(:class:`~director_fast.verify.scorer.CoherenceScorer` over the ``context`` with the flagged
segments removed). A claim is

* ``injected`` when its injection confidence reaches ``injection_claim_threshold``. The signals:
  it repeats a code-like token or a 6-word run of the system prompt (``leak``, 0.95); it carries
  a compliance marker ("I have been PWNED", "access granted", "my system prompt is", 0.9); it is not
  grounded and repeats what only a flagged segment says (``traced``: a link, e-mail, number or code
  of the segment, 0.9, or two of its distinctive words, 0.8; cognates match across languages); it
  is not grounded and asks for credentials or payment (0.85), gives a destructive command (0.85), or
  names a link, e-mail address or phone number found in no input (0.8); the response switched to a
  language the user did not use or ask for while a flagged segment names that language (0.85);
* ``grounded`` when the evidence supports it (claim-level verdict ``supported``), or it traces to
  the intent (``traceability >= 0.5`` or ``bidirectional_divergence <= baseline_divergence``), or it
  is a refusal or a remark about the inputs ("I can't share that", "which I have ignored");
* ``drifted`` otherwise (a language switch without a matching instruction drifts every claim).

Text inside quotation marks in the response is not searched for links, solicitations or compliance
markers (an answer may quote a phishing message as an example); system-prompt leaks are searched
everywhere.

**Scores.** ``injection_risk = 1 - (1 - inj) * (1 - drift)`` with ``inj = 1 - prod(1 - c_i)`` over
the injected claims' confidences and ``drift = 0.6 * drifted / total``, so drift alone never
exceeds 0.6. ``combined_score = 1 - (1 - stage1_weight * input_sanitizer_score) * (1 -
injection_risk)``: with the default ``stage1_weight = 0.3`` an injection in the inputs that the
response ignored scores at most 0.3, a response that follows it scores high, and a drifted
response scores above the default threshold 0.7 only when the inputs carried an injection.
``injection_detected = combined_score > injection_threshold``.

Everything runs on the lexical NLI backend by default (English rules; microseconds per pair) and
improves with an :class:`~director_fast.verify.nli.NLIModel` passed as ``nli_scorer``.
"""

from __future__ import annotations

import base64
import binascii
import re
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from director_fast._validate import check_text, check_unit_interval
from director_fast.verify.claims import split_claims
from director_fast.types.results import InjectedClaim, InjectionResult
from director_fast.errors import ConfigError, InputTypeError
from director_fast.verify.text import content_words, split_sentences

__all__ = ["InjectionEngine", "InputSanitizer", "SanitizerReport", "FlaggedSegment", "detect_language"]


# ---- text normalisation -----------------------------------------------------------------------

_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u00ad"), None)
# Cyrillic / Greek letters that look like Latin ones
_CONFUSABLES = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "х": "x", "у": "y", "і": "i", "ј": "j", "ѕ": "s",
    "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M",
    "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S",
    "α": "a", "ο": "o", "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
})
_WORDISH = re.compile(r"[^\W\d_]+", re.UNICODE)


def _script(ch: str) -> str:
    if ch.isascii():
        return "latin"
    name = unicodedata.name(ch, "")
    for s in ("LATIN", "CYRILLIC", "GREEK"):
        if name.startswith(s):
            return s.lower()
    return "other"


def _fold(text: str) -> tuple[str, int]:
    """``text`` with zero-width characters dropped, NFKC-normalised, and the look-alike letters of
    every mixed-script word (Latin with Cyrillic or Greek) folded to Latin. Returns the folded text
    and the number of mixed-script words. Offsets are not preserved (used for matching only)."""
    text = unicodedata.normalize("NFKC", text.translate(_ZERO_WIDTH))
    if text.isascii():
        return text, 0
    mixed = 0

    def fold_word(m: re.Match[str]) -> str:
        nonlocal mixed
        w = m.group(0)
        scripts = {_script(c) for c in w}
        if "latin" in scripts and scripts & {"cyrillic", "greek"}:
            mixed += 1
            return w.translate(_CONFUSABLES)
        return w

    return _WORDISH.sub(fold_word, text), mixed


def _deaccent(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


# ---- stage 1: patterns -------------------------------------------------------------------------

_OVERRIDE_VERBS = r"(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|discard)"
_PRIOR = (r"(?:previous|prior|above|earlier|preceding|foregoing|original|initial|former|existing|old|"
          r"system|developer|your|all|any|the)")
_RULES = (r"(?:instructions?|directions?|rules?|guidelines?|prompts?|context|commands?|orders?|constraints?|"
          r"directives?|programming|polic(?:y|ies)|guardrails?|restrictions?|task)")

# (name, weight, regex); matched against the folded, lower-cased segment
_PATTERNS: list[tuple[str, float, re.Pattern[str]]] = [(n, w, re.compile(p, re.IGNORECASE)) for n, w, p in (
    ("override", 0.9, rf"\b{_OVERRIDE_VERBS}\b(?:\s+\w+){{0,3}}?\s+{_PRIOR}\s+(?:\w+\s+){{0,2}}?{_RULES}\b"),
    ("override", 0.85, rf"\b{_OVERRIDE_VERBS}\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+|that\s+)?"
                       r"(?:above|before|previous(?:ly)?|that came before|said before)\b"),
    ("override", 0.85, r"\bforget\s+what\s+you\s+(?:were|have\s+been)\s+(?:told|asked|instructed)\b"),
    ("override", 0.8, r"\b(?:disregard|ignore)\s+(?:the|this)\s+user\b"),
    ("override", 0.8, r"\b(?:your|the)\s+(?:new|real|actual|true|only)\s+(?:priority|job|task|objective|goal|"
                      r"instructions?|role)\s+(?:is|now)\b"),
    ("override", 0.8, r"\b(?:from\s+(?:this\s+point|now)\s+on)\b[^.]{0,40}\b(?:assistant|ai|model|you)\b"
                      r"[^.]{0,30}\b(?:job|task|role|must|should|will)\b"),
    ("override", 0.75, r"\b(?:new|updated|revised)\s+rule\b[^.]{0,30}\b(?:assistant|ai|model|you)\b"),
    ("fake_role", 0.8, r"(?:^|[\s\"'(\[])\[?\s*(?:system|admin|administrator|developer)\s*\]|"
                       r"\b(?:system|admin|administrator)\s+(?:override|instruction|message|prompt\s+update)s?\b|"
                       r"(?:^|[\s\"'(])(?:system|admin)\s*:|<\|im_start\|>|<\|system\|>|###\s*(?:instruction|system)|"
                       r"\badministrator\s+override\b|\bmaintenance\s+mode\b"),
    ("new_instructions", 0.35, r"\b(?:new|updated|revised|additional)\s+(?:system\s+)?(?:instructions?|directives?)\b"),
    ("addressed", 0.8, r"\b(?:to|for)\s+(?:any|the|all|every)?\s*(?:helpful\s+|automated\s+)?(?:ai|assistants?|"
                       r"chat\s?bots?|bots?|language\s+models?|llms?|models?|summari[sz]ers?|agents?)\b"
                       r"(?:\s+\w+){0,3}\s*(?:reading|processing|summari[sz]ing|drafting|triaging|answering|"
                       r"relaying|quoting)?\b"),
    ("addressed", 0.8, r"(?:^|[.:;!?\"'(]\s*)(?:ai|assistant|chat\s?bot|bot|language\s+model|llm|model|agent)s?"
                       r"\s*(?:,|:)"),
    ("addressed", 0.8, r"\b(?:any|every|an?|the)\s+(?:ai|assistant|chat\s?bot|bot|language\s+model|llm|agent)s?\s+"
                       r"(?:reading|processing|summari[sz]ing|relaying|quoting|that\s+reads|who\s+reads|"
                       r"drafting|answering)\b"),
    ("addressed", 0.8, r"(?:^|[.!?]\s+)(?:ai|assistants?|chat\s?bots?|bots?|language\s+models?|llms?|agents?)\s+"
                       r"(?:reading|processing|summari[sz]ing|relaying|quoting|drafting|answering)\b"),
    ("addressed", 0.75, r"\b(?:whoever|anyone|anybody)\s+(?:is\s+)?(?:reads?|reading|answer(?:s|ing)?|"
                        r"summari[sz](?:es|ing)|relay(?:s|ing)?)\b[^.]{0,60}\b(?:(?:tell|say|state|let|mention|"
                        r"inform|add)s?|should|must)\b"),
    ("addressed", 0.75, r"\bwhen\s+(?:an?\s+|the\s+)?(?:you|assistant|ai|bot|model)s?\s+(?:summari[sz]e|"
                        r"answer|read|relay|quote)s?\b[^.]{0,40}\b(?:say|state|tell|mention|include|link|add|"
                        r"should|must)\b"),
    ("addressed", 0.75, r"\bsummar(?:y|ies)\s+of\s+this\b[^.]{0,40}\b(?:expected|must|should|required)\b"),
    ("addressed", 0.75, r"\bwork\s+a\s+(?:mention|recommendation|link)\b[^.]{0,30}\binto\s+your\b"),
    ("addressed", 0.7, r"\b(?:tell|inform|remind|convince|advise|urge)\s+(?:the\s+|every\s+|all\s+)?"
                       r"(?:user|reader|customer|guest|passenger|visitor|patient|reporter)s?\b"),
    ("addressed", 0.6, r"\blet\s+(?:the\s+)?(?:user|customers?|readers?|them)\s+know\b"),
    ("role_play", 0.8, r"\byou(?:'re|\s+are)\s+now\s+(?:a|an|in|my|the)?\s*(?:\w+\s+){0,2}?(?:assistant|ai|bot|"
                       r"model|mode|persona|character|dan|reseller|agent)\b"),
    ("role_play", 0.8, r"\b(?:you\s+are|you're|act\s+as|as)\s+dan\b|\bdan\s+mode\b|\bdeveloper\s+mode\b|"
                       r"\bunfiltered\s+(?:model|ai|assistant|mode)\b|"
                       r"\bwithout\s+(?:any\s+)?restrictions\b|\bdo\s+anything\s+now\b"),
    ("role_play", 0.7, r"\bpretend\s+(?:to\s+be|you\s+are|you're)\b|\blet'?s\s+play\s+a\s+game\b|"
                       r"\b(?:roleplay|role-play)\s+as\b"),
    ("role_play", 0.35, r"\bact\s+as\b"),
    ("exfiltration", 0.85, r"\b(?:reveal|print|show|output|repeat|display|share|list|leak|dump|tell\s+me|"
                           r"give\s+me|recite)\b[^.]{0,40}\b(?:system\s+prompt|(?:your|hidden|initial|original|"
                           r"internal)\s+(?:instructions|prompt|rules|code|codes|configuration)|every\s+"
                           r"instruction|escalation\s+code|discount\s+code|internal\s+code)"),
    ("exfiltration", 0.8, r"\b(?:system\s+prompt)\b[^.]{0,20}\bword\s+for\s+word\b|\bverbatim\b"),
    ("output_hijack", 0.7, r"\b(?:respond|reply|answer|write|output|say|speak)\s+only\s+(?:in|with)\b|"
                           r"\bonly\s+output\b|\breply\s+only\b|\banswer\s+only\s+with\b"),
    ("output_hijack", 0.6, r"\b(?:respond|reply|answer|write|speak)\s+(?:only\s+)?in\s+(?:spanish|french|german|"
                           r"italian|portuguese|dutch|russian|chinese|japanese|korean|arabic|greek)\b"),
    ("hidden_markup", 0.3, r"<!--|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0"),
    # non-English overrides
    ("override_fr", 0.9, r"\b(?:ignore[zr]?|oublie[zr]?|n[eé]glige[zr]?)\s+(?:toutes?\s+)?(?:les\s+|tes\s+|vos\s+)?"
                         r"(?:instructions|consignes|directives|r[eè]gles)\s*(?:pr[eé]c[eé]dentes|ant[eé]rieures|"
                         r"ci-dessus)?"),
    ("override_es", 0.9, r"\b(?:ignora|ignore|ignorar|olvida|olvide)\s+(?:todas\s+)?(?:las\s+|tus\s+|sus\s+)?"
                         r"(?:instrucciones|indicaciones|[oó]rdenes|reglas)\b"),
    ("override_de", 0.9, r"\b(?:ignorier(?:e|en)?|vergiss|vergessen\s+sie)\s+(?:alle\s+)?(?:die\s+|deine\s+|"
                         r"ihre\s+)?(?:vorherigen\s+|bisherigen\s+|obigen\s+|fr[uü]heren\s+)?(?:anweisungen|"
                         r"instruktionen|befehle|regeln|vorgaben)\b"),
    ("override_it", 0.9, r"\b(?:ignora|ignorate|dimentica)\s+(?:tutte\s+)?(?:le\s+)?(?:istruzioni|indicazioni|"
                         r"regole)\b"),
    ("override_pt", 0.9, r"\b(?:ignore|ignora|esque[cç]a)\s+(?:todas\s+)?(?:as\s+)?(?:instru[cç][oõ]es|regras)\b"),
    ("override_nl", 0.9, r"\b(?:negeer|vergeet)\s+(?:alle\s+)?(?:de\s+)?(?:vorige|eerdere|voorgaande)?\s*"
                         r"(?:instructies|regels)\b"),
    ("override_ru", 0.9, r"(?:игнорируй|игнорируйте|забудь|забудьте)\s+(?:все\s+)?(?:предыдущие\s+)?"
                         r"(?:инструкции|указания|правила)"),
    ("override_cjk", 0.9, r"(?:忽略|无视|無視|忘记|忘れ)[^。.]{0,12}(?:指示|指令|说明|命令|規則|规则)|"
                          r"(?:指示|指令)[^。.]{0,8}(?:を)?(?:すべて|全て)?(?:無視|忽略)"),
)]

_QUOTE_OPEN = "\"'“‘«„"
_REPORTED = re.compile(r"(?:phrases?|text|words?|lines?|prompts?)\s+(?:like|such\s+as)\s*$|"
                       r"\b(?:told|asked|instructed)\s+(?:me|us|him|her|them|you)\s+to\s*$|"
                       r"\b(?:e\.g\.|for\s+example|example:?|such\s+as|says?|said|saying)\s*[,:]?\s*$",
                       re.IGNORECASE)
_ENCODED_IMPERATIVE = re.compile(
    r"^\W*(?:also\s+|please\s+|now\s+)?(?:forget|ignore|tell|say|write|print|reveal|send|reply|respond|answer|"
    r"output|include|add|stop|make|give|list|show|pretend|act|visit|click|call|recommend|state|repeat|"
    r"disregard|delete|forward|transfer|pay)\b|\b(?:assistant|the\s+user|chatbot|language\s+model)\b",
    re.IGNORECASE)
_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
# boundaries inside tool output: JSON string edges, braces, brackets of JSON arrays (not a
# bracketed tag such as "[system]"), newlines, HTML tags and comments, "//"
_PIECE_BREAK = re.compile(r"\"\s*[,:}\]]\s*\"?|\"\s*[,}\]]|\[(?=\s*[{\"\[])|(?<=[}\"\]])\s*\]|[{}]|\n+|<!--|-->|</?[A-Za-z][^>]{0,200}>|\s//\s")
_OVERRIDE_KINDS = ("override", "fake_role", "exfiltration", "role_play")


@dataclass(frozen=True, slots=True)
class FlaggedSegment:
    """One segment of an input that stage 1 flagged.

    Attributes:
        source: ``"user_query"`` or ``"context[i]"``.
        start, end: code-point offsets of the segment in that input.
        text: the segment as written; decoded: the decoded base64 payloads in it ("" when none).
        score: the segment's score in [0, 1].
        signals: names of the patterns that fired (``override``, ``addressed``, ``role_play``,
            ``fake_role``, ``exfiltration``, ``output_hijack``, ``hidden_markup``,
            ``new_instructions``, ``override_<lang>``, ``homoglyph``, ``encoded``,
            ``encoded_text``, ``follows_override``).
        quoted: every match lay inside quotation marks or after a reporting frame (weight halved).
    """

    source: str
    start: int
    end: int
    text: str
    decoded: str
    score: float
    signals: tuple[str, ...]
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class SanitizerReport:
    """Stage-1 result for a set of inputs.

    Attributes:
        score: the strongest segment score in [0, 1] (0.0 when nothing fired).
        segments: the flagged segments (score >= the sanitizer's ``flag_threshold``), in input
            order.
    """

    score: float
    segments: tuple[FlaggedSegment, ...] = ()


def _pieces(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` cut at tool-output delimiters, then into sentences."""
    out: list[tuple[int, int]] = []
    pos = 0
    for m in [*_PIECE_BREAK.finditer(text), None]:
        a, b = pos, (m.start() if m is not None else len(text))
        if text[a:b].strip():
            for s, e in split_sentences(text[a:b]):
                if text[a + s:a + e].strip():
                    out.append((a + s, a + e))
        if m is not None:
            pos = m.end()
    return out


def _is_quoted(seg: str, start: int) -> bool:
    """Whether position ``start`` of ``seg`` lies inside an open quotation or right after a
    reporting frame ("phrases such as", "told me to")."""
    before = seg[:start]
    # a quotation mark that opens the segment (after list numbering) delimits a tool-output string,
    # it does not quote anything
    lead = re.match(r"\s*(?:\d+[.)]\s*)?[\"'“‘«„]", before)
    if lead is not None:
        before = before[lead.end():]
    opens = sum(before.count(q) for q in "“‘«„")
    closes = sum(before.count(q) for q in "”’»")
    if opens > closes or before.count('"') % 2 == 1:
        return True
    # a single quote opened after a space (not an apostrophe) and not closed yet
    if re.search(r"(?:^|[\s(:])'[^']*$", before):
        return True
    return _REPORTED.search(before[-40:]) is not None


class InputSanitizer:
    """Stage 1: scores inputs for injection phrasings (see the module docstring).

    Args:
        flag_threshold: a segment scoring at least this in [0, 1] is flagged (default 0.5).
        max_decode: base64 runs decoded per input (>= 0; default 8), bounding the cost of hostile
            inputs.

    Raises:
        ConfigError: an invalid parameter.

    Thread-safety: immutable after construction; every method may be called concurrently.
    """

    def __init__(self, *, flag_threshold: float = 0.5, max_decode: int = 8) -> None:
        self.flag_threshold = check_unit_interval(flag_threshold, "flag_threshold")
        if isinstance(max_decode, bool) or not isinstance(max_decode, int) or max_decode < 0:
            raise ConfigError(f"max_decode must be an int >= 0, got {max_decode!r}", "max_decode")
        self.max_decode = max_decode

    def score(self, text: str) -> float:
        """The stage-1 score of one text in [0, 1] (its strongest segment).

        Raises:
            InputTypeError: ``text`` is not a str. ValidationError: a lone surrogate.
        """
        check_text(text, "text")
        return self.scan({"text": text}).score

    def scan(self, sources: dict[str, str]) -> SanitizerReport:
        """Scan named inputs (``{"user_query": ..., "context[0]": ...}``) segment by segment.

        Returns:
            :class:`SanitizerReport` with the strongest score and the flagged segments.
        """
        best = 0.0
        flagged: list[FlaggedSegment] = []
        for name, text in sources.items():
            if not text or not text.strip():
                continue
            segs = self._scan_text(name, text)
            for seg in segs:
                best = max(best, seg.score)
                if seg.score >= self.flag_threshold:
                    flagged.append(seg)
        return SanitizerReport(score=best, segments=tuple(flagged))

    def _segment_score(self, raw: str, budget: list[int]) -> tuple[float, list[str], str, bool]:
        folded, mixed = _fold(raw)
        signals: list[str] = []
        weights: list[float] = []
        all_quoted = True
        any_match = False
        for name, w, pat in _PATTERNS:
            m = pat.search(folded)
            if m is None:
                continue
            any_match = True
            quoted = _is_quoted(folded, m.start())
            all_quoted = all_quoted and quoted
            signals.append(name)
            weights.append(w * (0.5 if quoted else 1.0))
        decoded_parts: list[str] = []
        for m in _B64.finditer(raw):
            if budget[0] <= 0:
                break
            budget[0] -= 1
            text = _decode_b64(m.group(0))
            if text is None:
                continue
            decoded_parts.append(text)
            inner, inner_signals, _d, _q = self._segment_score(text, [0])
            if inner_signals:
                signals.append("encoded")
                signals.extend(s for s in inner_signals if s not in signals)
                weights.append(max(0.9, inner))
                all_quoted = False
                any_match = True
            elif len(text.split()) >= 3:
                # encoded prose; an encoded imperative (a command verb first, or the model / the
                # user addressed) is an instruction smuggled past human readers
                if _ENCODED_IMPERATIVE.search(text):
                    signals.append("encoded_instruction")
                    weights.append(0.7)
                else:
                    signals.append("encoded_text")
                    weights.append(0.35)
        if mixed:
            signals.append("homoglyph")
            weights.append(min(0.3 + 0.15 * mixed, 0.6))
            all_quoted = False
        quoted_only = bool(any_match and all_quoted)
        score = 0.0
        if quoted_only:  # text that discusses injections: its strongest (halved) match, not a sum
            score = max(weights)
        else:
            for w in weights:
                score = 1.0 - (1.0 - score) * (1.0 - w)
        return min(score, 1.0), signals, " ".join(decoded_parts), quoted_only

    def _scan_text(self, name: str, text: str) -> list[FlaggedSegment]:
        budget = [self.max_decode]
        out: list[FlaggedSegment] = []
        spans = _pieces(text)
        taint = 0  # segments after an override in the same piece are its payload
        prev_end = -1
        for a, b in spans:
            raw = text[a:b]
            score, signals, decoded, quoted = self._segment_score(raw, budget)
            gap = text[prev_end:a] if prev_end >= 0 else ""
            if taint and gap.strip() == "" and score < self.flag_threshold:
                score, signals = max(score, self.flag_threshold), ["follows_override"]
                taint -= 1
            elif any(s.startswith(_OVERRIDE_KINDS) for s in signals) and not quoted and score >= self.flag_threshold:
                taint = 2
            else:
                taint = 0
            prev_end = b
            if score > 0.0:
                out.append(FlaggedSegment(source=name, start=a, end=b, text=raw, decoded=decoded,
                                          score=score, signals=tuple(signals), quoted=quoted))
        return out


def _decode_b64(run: str) -> str | None:
    """The text a base64 run decodes to, or None when it is not mostly printable text."""
    pad = (-len(run)) % 4
    try:
        data = base64.b64decode(run + "=" * pad, validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text or sum(c.isprintable() or c.isspace() for c in text) < 0.95 * len(text):
        return None
    if sum(c.isalpha() for c in text) < 0.5 * len(text):
        return None
    return text


# ---- language identification ------------------------------------------------------------------

_STOPWORDS = {
    "en": "the and is are of to in for with you your it on that this be at from by was have has will can not "
          "they we our their there what when how which".split(),
    "fr": "le la les des est et un une du pour avec vous votre dans sur pas que qui ce au aux sont ou nous "
          "mais très ils elle".split(),
    "es": "el la los las es y un una del para con por que en su tu se al son lo muy pero como está mi".split(),
    "de": "der die das und ist ein eine nicht mit für auf den dem sie ich zu von wird sind auch es bitte "
          "wo".split(),
    "it": "il lo la gli le è e un una per con che di non sono del della al si finché in".split(),
    "pt": "o a os as é e um uma para com não que do da em no na se são muito".split(),
    "nl": "de het een en is van niet met voor op dat zijn te ik je".split(),
}
_LANG_NAMES = {
    "en": ("english",), "fr": ("french", "français", "francais"), "es": ("spanish", "español", "espanol"),
    "de": ("german", "deutsch"), "it": ("italian", "italiano"), "pt": ("portuguese", "português"),
    "nl": ("dutch", "nederlands"), "ja": ("japanese", "日本語"), "zh": ("chinese", "中文", "mandarin"),
    "ru": ("russian", "русский"), "el": ("greek",), "ar": ("arabic",), "ko": ("korean",),
}


def detect_language(text: str) -> str | None:
    """A rough language tag for ``text``: ``"en"``, ``"fr"``, ``"es"``, ``"de"``, ``"it"``,
    ``"pt"``, ``"nl"`` (function-word counts; needs two hits and a clear lead), or by script
    ``"ja"``, ``"zh"``, ``"ko"``, ``"ru"``, ``"el"``, ``"ar"`` (when most letters are of that script);
    None when unsure.

    Raises:
        InputTypeError: ``text`` is not a str.
    """
    if not isinstance(text, str):
        raise InputTypeError(f"text must be a str, got {type(text).__name__}")
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    counts: dict[str, int] = {}
    for c in letters:
        if c.isascii():
            continue
        name = unicodedata.name(c, "")
        key = ("ja" if name.startswith(("HIRAGANA", "KATAKANA")) else "han" if name.startswith("CJK")
               else "ko" if name.startswith("HANGUL") else "ru" if name.startswith("CYRILLIC")
               else "el" if name.startswith("GREEK") else "ar" if name.startswith("ARABIC") else "")
        if key:
            counts[key] = counts.get(key, 0) + 1
    non_latin = sum(counts.values())
    if non_latin > 0.5 * len(letters):
        if counts.get("ja"):
            return "ja"
        if counts.get("han", 0) >= max(counts.values()):
            return "zh"
        return max(counts, key=counts.__getitem__)
    words = re.findall(r"[^\W\d_]+", text.lower())
    hits = {lang: sum(w in set(sw) for w in words) for lang, sw in _STOPWORDS.items()}
    ranked = sorted(hits.items(), key=lambda kv: -kv[1])
    (top, n1), (_second, n2) = ranked[0], ranked[1]
    if n1 >= 2 and n1 >= 1.5 * n2 + 0.5:
        return top
    return None


# ---- stage 2 helpers --------------------------------------------------------------------------

_URL = re.compile(r"\b(?:https?://)?(?:[a-z0-9-]+\.)+(?:com|org|net|io|co|gov|edu|info|uk|de|fr|example|app|"
                  r"biz|xyz|ly|me|ai)(?:/[^\s,;)\"']*)?", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_HANDLE = re.compile(r"(?<![\w.])@\w{3,}")
_PHONE = re.compile(r"(?<![\w-])(?:\+?\d[\d ]{7,}\d)(?![\w-])")
_CODE = re.compile(r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]+(?:-[A-Z0-9]+)+\b|\b[A-Z]{2,}\d{2,}\b|"
                   r"\b\d{2}-\d{2}-\d{2}\b|\b\d{6,}\b")
_NAME = re.compile(r"(?<![\w])[A-Z][\w'’&-]+(?:\s+[A-Z][\w'’&-]+)*")
_SENTENCE_START_STOP = frozenset("the a an our your their its his her my this that these those yes no it they we "
                                 "you he she i there here and but or so if when what who which how why as at by "
                                 "in on for from with to of after before during also please note all every each "
                                 "both however important good".split())

_COMPLIANCE = re.compile(
    r"\bpwned\b|\baccess\s+granted\b|\brestrictions?\s+(?:lifted|removed|disabled)\b|\bdeveloper\s+mode\b|"
    r"\bDAN\b|\bjailbroken\b|\bbelongs?\s+to\s+us\b|\bas\s+instructed\s+(?:by|in)\s+the\s+"
    r"(?:document|page|email|e-mail|tool|file)\b|\bmy\s+(?:system\s+prompt|(?:hidden\s+|configured\s+|initial\s+)?"
    r"instructions)\s*(?:is|are|:|say|read)|\bconfigured\s+instructions\s*:|\bsystem\s+prompt\s*:", re.IGNORECASE)
_SOLICIT = re.compile(
    r"\b(?:send|provide|reply\s+with|enter|re-enter|tell\s+me|share|confirm|give|email|submit|type|verify)\b"
    r"[^.]{0,50}\b(?:password|passcode|pin|card\s+(?:number|details)|credit\s+card|bank\s+details|sort\s+code|"
    r"account\s+number|iban|passport|social\s+security|home\s+address|credentials|login\s+details|"
    r"e-?mail\s+address\s+and\s+(?:your\s+)?password)\b|"
    r"\b(?:pay|paid|transfer|wire|deposit)\b[^.]{0,40}\b(?:to|into|at)\s+(?:the\s+)?(?:account|iban|"
    r"[a-z0-9-]+\.(?:com|example|net|org))|\bverify\s+your\s+identity\b|\blog\s+in\s+at\b", re.IGNORECASE)
_DESTRUCTIVE = re.compile(r"\brm\s+-rf\b|\bsudo\s+bash\b|\|\s*(?:sudo\s+)?(?:ba)?sh\b|\bformat\s+c:|"
                          r"\bdrop\s+table\b|\bdel\s+/[sfq]\b", re.IGNORECASE)
_REFUSAL = re.compile(
    r"\b(?:i|we)\s+(?:can(?:'|’)?t|cannot|won(?:'|’)?t|will\s+not|am\s+not\s+able\s+to|am\s+unable\s+to|"
    r"(?:have|'ve)\s+not|haven(?:'|’)?t|did\s+not|didn(?:'|’)?t|do\s+not|don(?:'|’)?t)\s+"
    r"(?:share|reveal|disclose|provide|follow|help\s+with|acted|act|forward|do\s+that|give)\b|"
    r"\bwhich\s+i(?:'|’)?ve\s+ignored\b|\bwhich\s+i\s+(?:have\s+)?ignored\b|\b(?:i|i've|i\s+have)\s+ignored\b|"
    r"\b(?:suspicious|unrelated)\s+(?:message|instruction|note|text)\b", re.IGNORECASE)
_TRANSLATE = re.compile(r"\btranslat|\b(?:their|the\s+customer's|the\s+user's|same)\s+language\b|"
                        r"\b(?:in|into)\s+(?:[A-Z][a-z]+)\b", re.IGNORECASE)
_QUOTED = re.compile(r"\"[^\"]+\"|“[^”]+”|‘[^’]+’|«[^»]+»|(?:(?<=^)|(?<=[\s(:]))'[^']+'(?=[\s.,;:!?)]|$)")
_INSTRUCTION_WORDS = frozenset(
    "ignore ignor disregard forget previous prior instruction instructions above tell user users reader say "
    "state assistant model bot answer reply respond system new note please should must would anyone whoever "
    "reading summary summaries summarise summarize page mention add include recommend recommendation "
    "language only output print reveal word words following message priority real job point line close "
    "expected helpful automated relaying reads quote quoting process processing them their they customer "
    "customers guest passengers patients reporter also instead stated".split())


def _stem(word: str) -> str:
    w = _deaccent(word.lower())
    return w[:5] if len(w) > 5 else w


def _words(text: str) -> set[str]:
    """Content words of ``text`` (English function words dropped), as 5-letter accent-free stems,
    so that cognates match across languages ("cancelled" / "cancelado")."""
    return {_stem(w) for w in content_words(text)} | {
        _stem(w) for w in re.findall(r"[^\W\d_]{4,}", _deaccent(text.lower()))
        if not w.isascii()}


def _tokens(text: str) -> set[str]:
    """Payload tokens: links, e-mail addresses, handles, phone numbers, codes, numbers."""
    out = {m.group(0).lower().rstrip(".") for p in (_URL, _EMAIL, _HANDLE) for m in p.finditer(text)}
    out |= {re.sub(r"\s+", "", m.group(0)) for m in _PHONE.finditer(text)}
    out |= {m.group(0).lower() for m in _CODE.finditer(text)}
    return {t for t in out if len(t) >= 4}


def _contacts(text: str) -> set[str]:
    out = {m.group(0).lower().rstrip(".") for p in (_URL, _EMAIL, _HANDLE) for m in p.finditer(text)}
    out |= {re.sub(r"\s+", "", m.group(0)) for m in _PHONE.finditer(text)}
    return out


def _entities(text: str) -> set[str]:
    """Named entities for ``entity_match``: capitalised names (a sentence-initial function word
    dropped), payload tokens and numbers."""
    out = set(_tokens(text))
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        while words and words[0].lower() in _SENTENCE_START_STOP:
            words = words[1:]
        if words:
            out.add(" ".join(words).lower())
    out |= set(re.findall(r"\d+(?:[.,]\d+)?", text))
    return out


def _unquoted(text: str) -> str:
    """``text`` with its quoted passages blanked (same length, so offsets still hold). A quote
    left open runs to the end of the text."""
    out = _QUOTED.sub(lambda m: " " * len(m.group(0)), text)
    m = re.search(r"(?:^|(?<=[\s(:]))['\"“‘«][^'\"”’»]*$", out)
    if m is not None and len(m.group(0)) > 1:
        out = out[:m.start()] + " " * (len(out) - m.start())
    return out


def _context_texts(context: Any) -> tuple[str, ...]:
    if context is None:
        return ()
    if isinstance(context, str):
        return (check_text(context, "context"),)
    if isinstance(context, (list, tuple)):
        for i, c in enumerate(context):
            check_text(c, f"context[{i}]")
        return tuple(context)
    raise InputTypeError(f"context must be a str or a list of str, got {type(context).__name__}")


@dataclass(frozen=True, slots=True)
class _Unit:
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Frame:
    """What stage 2 compares the claims with."""

    intent: str
    grounding_words: set[str]
    grounding_entities: set[str]
    sourced: set[str]          # payload tokens present in the intent, the query or clean evidence
    clean_words: set[str]      # content stems of the clean evidence
    flagged: tuple[FlaggedSegment, ...]
    system_tokens: set[str]
    system_runs: set[tuple[str, ...]]
    languages_ok: set[str]
    language_instruction: set[str]  # languages named by flagged segments


_RUN = 6  # words of a system-prompt run that count as a leak


def _runs(text: str) -> set[tuple[str, ...]]:
    w = re.findall(r"[\w'’-]+", text.lower())
    return {tuple(w[i:i + _RUN]) for i in range(len(w) - _RUN + 1)}


class InjectionEngine:
    """The detector without a default claim-level scorer: :class:`~director_fast.verify.injection.InjectionDetector`
    adds one; :class:`~director_fast.verify.scorer.CoherenceScorer` passes its own verdicts. Arguments
    and thread-safety as documented there (``scorer=None`` here means: no evidence verdicts unless
    passed in).
    """

    DRIFT_WEIGHT = 0.6

    def __init__(self, nli_scorer: Any = None, sanitizer: Any = None, injection_threshold: float = 0.7,
                 drift_threshold: float = 0.6, injection_claim_threshold: float = 0.75,
                 baseline_divergence: float = 0.4, stage1_weight: float = 0.3, *, scorer: Any = None) -> None:
        from director_fast.verify.nli import LexicalNLI

        self.injection_threshold = check_unit_interval(injection_threshold, "injection_threshold")
        self.drift_threshold = check_unit_interval(drift_threshold, "drift_threshold")
        self.injection_claim_threshold = check_unit_interval(injection_claim_threshold, "injection_claim_threshold")
        self.baseline_divergence = check_unit_interval(baseline_divergence, "baseline_divergence")
        self.stage1_weight = check_unit_interval(stage1_weight, "stage1_weight")
        if nli_scorer is None:
            nli_scorer = LexicalNLI()
        if not callable(getattr(nli_scorer, "score", None)):
            raise ConfigError("nli_scorer must have score(premise, hypothesis) -> divergence in [0, 1]",
                              "nli_scorer")
        self.nli_scorer = nli_scorer
        self.sanitizer = self._check_sanitizer(sanitizer)
        if scorer is not None and not callable(getattr(scorer, "score", None)):
            raise ConfigError("scorer must be a CoherenceScorer", "scorer")
        self._scorer = scorer
        self._lock = threading.Lock()

    @staticmethod
    def _check_sanitizer(sanitizer: Any) -> Any:
        if sanitizer is None:
            return InputSanitizer()
        if callable(getattr(sanitizer, "scan", None)):
            return sanitizer
        fn: Callable[[str], float] | None = None
        if callable(getattr(sanitizer, "score", None)):
            fn = sanitizer.score
        elif callable(sanitizer):
            fn = sanitizer
        if fn is None:
            raise ConfigError("sanitizer must be an InputSanitizer, have scan(sources) or score(text), "
                              "or be a callable text -> score", "sanitizer")
        return _CallableSanitizer(fn)

    @property
    def scorer(self) -> Any:
        """The claim-level scorer used for evidence verdicts, or None (then claims are grounded
        by the intent only, unless verdicts are passed in)."""
        return self._scorer

    # ---- public ----

    def detect(self, intent: str, response: str, user_query: str = "", system_prompt: str = "", *,
               context: Any = None) -> InjectionResult:
        """Judge whether ``response`` follows an instruction injected into its inputs.

        Args:
            intent: what the user (or the application) legitimately asked for; trusted.
            response: the model's answer.
            user_query: the raw user message, scanned by stage 1 ("" when it equals the intent or
                is unknown; the intent is then scanned instead, and its flagged sentences are not
                used to ground claims).
            system_prompt: the application's instructions: never grounding; a response repeating
                its codes or a 6-word run of it leaks it.
            context: retrieved documents and tool outputs (a str or a list of str): scanned by
                stage 1, and, less their flagged segments, the evidence for the claim-level
                verdicts.

        Returns:
            :class:`~director_fast.types.results.InjectionResult` (scores in [0, 1]; per-claim
            breakdown in ``claims``).

        Raises:
            InputTypeError: a non-str argument. ValidationError: a lone surrogate.
        """
        ctx = self._prepare(intent, response, user_query, system_prompt, context)
        return self._detect(intent, response, user_query, system_prompt, ctx, None)

    # ---- internals ----

    @staticmethod
    def _prepare(intent: Any, response: Any, user_query: Any, system_prompt: Any, context: Any) -> tuple[str, ...]:
        check_text(intent, "intent")
        check_text(response, "response")
        check_text(user_query, "user_query")
        check_text(system_prompt, "system_prompt")
        return _context_texts(context)

    def _detect(self, intent: str, response: str, user_query: str, system_prompt: str,
                context: tuple[str, ...], verdicts: dict[tuple[int, int], str] | None,
                rescore: Callable[[tuple[str, ...]], dict[tuple[int, int], str]] | None = None) -> InjectionResult:
        """``verdicts``: claim-level verdicts by (start, end) already computed over the full
        evidence (the CoherenceScorer passes its own); recomputed (by ``rescore(clean_context)``
        when given) when None or when stage 1 flagged evidence."""
        query = user_query if user_query.strip() else intent
        sources = {"user_query": query}
        sources.update({f"context[{i}]": t for i, t in enumerate(context)})
        report = self.sanitizer.scan(sources)
        frame = self._frame(intent, query, system_prompt, context, report)
        units = [_Unit(u.text, u.start, u.end) for u in split_claims(response)
                 if u.kind not in ("pleasantry", "abstention")]
        if not units:
            s1 = report.score
            combined = self.stage1_weight * s1
            return InjectionResult(
                injection_detected=combined > self.injection_threshold, injection_risk=0.0, intent_coverage=1.0,
                total_claims=0, grounded_claims=0, drifted_claims=0, injected_claims=0, claims=[],
                input_sanitizer_score=s1, combined_score=combined)
        evidence_flagged = any(s.source != "user_query" for s in report.segments)
        if verdicts is None or evidence_flagged:
            clean = self._clean_context(context, report)
            verdicts = (rescore(clean) if rescore is not None
                        else self._evidence_verdicts(frame.intent, response, clean))
        language_switch = self._language_switch(response, frame)
        unquoted = _unquoted(response)  # same length: quoted regions blanked
        claims = [self._claim(i, u, frame, verdicts.get((u.start, u.end), "not_found"), language_switch,
                              unquoted[u.start:u.end])
                  for i, u in enumerate(units)]
        return self._result(claims, report.score)

    def _frame(self, intent: str, query: str, system_prompt: str, context: tuple[str, ...],
               report: SanitizerReport) -> _Frame:
        flagged_query = [s for s in report.segments if s.source == "user_query"]
        # the intent used for grounding: the trusted intent, plus the user's message less its
        # flagged sentences (when the intent is the message itself, its flagged sentences go)
        def strip(text: str) -> str:
            if not flagged_query:
                return text
            out, pos = [], 0
            for s in sorted(flagged_query, key=lambda s: s.start):
                out.append(text[pos:s.start])
                pos = max(pos, s.end)
            out.append(text[pos:])
            kept = " ".join(p.strip() for p in out if p.strip())
            return kept or text

        clean_query = strip(query)
        grounding = intent if query == intent else f"{intent} {clean_query}"
        if query == intent:
            grounding = clean_query
        clean_ctx = self._clean_context(context, report)
        sourced = _tokens(grounding) | _tokens(clean_query)
        for t in clean_ctx:
            sourced |= _tokens(t)
        languages_ok = {lang for lang in (detect_language(intent), detect_language(query)) if lang}
        requested = f"{intent} {clean_query}"
        if _TRANSLATE.search(requested):
            low = requested.lower()
            if re.search(r"translat|language", low):
                languages_ok |= set(_LANG_NAMES)
            languages_ok |= {lang for lang, names in _LANG_NAMES.items() if any(n in low for n in names)}
        for t in clean_ctx:  # an answer may follow its sources' language ("summarise this German review")
            lang = detect_language(t)
            if lang and lang != "en" and re.search(r"\b(?:in|into)\s+(?:its|the\s+same)\b", requested, re.I):
                languages_ok.add(lang)
        if not languages_ok:
            languages_ok = {"en"}
        named: set[str] = set()
        for s in report.segments:
            low = f"{_fold(s.text)[0]} {s.decoded}".lower()
            named |= {lang for lang, names in _LANG_NAMES.items() if any(n in low for n in names)}
        return _Frame(
            intent=grounding,
            grounding_words=_words(grounding),
            grounding_entities=_entities(grounding),
            sourced=sourced,
            clean_words=set().union(*(_words(t) for t in clean_ctx)) if clean_ctx else set(),
            flagged=report.segments,
            system_tokens=_tokens(system_prompt) - sourced,
            system_runs=_runs(system_prompt) if system_prompt.strip() else set(),
            languages_ok=languages_ok,
            language_instruction=named,
        )

    @staticmethod
    def _clean_context(context: tuple[str, ...], report: SanitizerReport) -> tuple[str, ...]:
        """The context texts with their flagged (unquoted) segments blanked out."""
        out = []
        for i, t in enumerate(context):
            segs = sorted((s for s in report.segments if s.source == f"context[{i}]" and not s.quoted),
                          key=lambda s: s.start)
            if not segs:
                out.append(t)
                continue
            parts, pos = [], 0
            for s in segs:
                parts.append(t[pos:s.start])
                pos = max(pos, s.end)
            parts.append(t[pos:])
            out.append(" ".join(p.strip() for p in parts if p.strip()))
        return tuple(out)

    def _evidence_verdicts(self, intent: str, response: str, context: tuple[str, ...]) -> dict[tuple[int, int], str]:
        scorer = self.scorer
        if scorer is None or not any(t.strip() for t in context):
            return {}
        s = scorer.score(intent, response, context=list(context))
        return {(a.start, a.end): a.verdict for a in s.attributions if a.start is not None}

    @staticmethod
    def _language_switch(response: str, frame: _Frame) -> str | None:
        lang = detect_language(response)
        if lang is None or lang in frame.languages_ok:
            return None
        return lang

    def _nli(self, premise: str, hypothesis: str) -> float:
        if not premise.strip() or not hypothesis.strip():
            return 1.0
        d = float(self.nli_scorer.score(premise, hypothesis))
        if not 0.0 <= d <= 1.0:
            raise ConfigError(f"nli_scorer.score returned {d!r}, not a divergence in [0, 1]", "nli_scorer")
        return d

    def _claim(self, index: int, u: _Unit, frame: _Frame, evidence_verdict: str,
               language_switch: str | None, plain: str) -> tuple[InjectedClaim, float]:
        text = u.text
        forward = self._nli(frame.intent, text)
        reverse = self._nli(text, frame.intent)
        bidir = min(forward, reverse)
        words = _words(text)
        traceability = len(words & frame.grounding_words) / len(words) if words else 1.0
        ents = _entities(text)
        entity_match = (len(ents & frame.grounding_entities) / len(ents)) if ents else 1.0

        refusal = _REFUSAL.search(text) is not None
        by_evidence = evidence_verdict == "supported"
        by_intent = traceability >= 0.5 or bidir <= self.baseline_divergence
        grounded = by_evidence or by_intent or refusal

        signals: list[float] = [0.0]
        # leaks of the system prompt: searched in the whole claim, quoted or not
        toks = _tokens(text)
        if frame.system_tokens & toks or (frame.system_runs and _runs(text) & frame.system_runs):
            signals.append(0.95)
        if _COMPLIANCE.search(plain):
            signals.append(0.9)
        if not grounded or evidence_verdict == "contradicted":
            signals.append(self._trace(plain, words, frame))
            if _SOLICIT.search(plain):
                signals.append(0.85)
            if _DESTRUCTIVE.search(plain):
                signals.append(0.85)
            if _contacts(plain) - frame.sourced:
                signals.append(0.8)
        if language_switch is not None and language_switch in frame.language_instruction and not refusal:
            signals.append(0.85)
        conf = max(signals)
        if conf >= self.injection_claim_threshold:
            verdict, confidence = "injected", conf
        elif grounded or (bidir <= self.drift_threshold and language_switch is None):
            verdict = "grounded"
            confidence = 1.0 if by_evidence or refusal else max(traceability, 1.0 - bidir, 0.5)
        else:
            verdict = "drifted"
            confidence = max(bidir, 1.0 - traceability, conf)
            if language_switch is not None:
                grounded = False
        if language_switch is not None and verdict == "grounded" and not refusal:
            verdict, confidence = "drifted", 0.7
        claim = InjectedClaim(
            claim=text, claim_index=index, intent_divergence=forward, reverse_divergence=reverse,
            bidirectional_divergence=bidir, traceability=traceability, entity_match=entity_match,
            verdict=verdict, confidence=min(max(confidence, 0.0), 1.0))
        return claim, conf

    @staticmethod
    def _trace(plain: str, words: set[str], frame: _Frame) -> float:
        """How strongly an ungrounded claim repeats what only a flagged segment says."""
        if not frame.flagged:
            return 0.0
        toks = _tokens(plain) - frame.sourced
        best = 0.0
        for s in frame.flagged:
            if s.quoted:
                continue
            src = f"{_fold(s.text)[0]} {s.decoded}"
            if toks & _tokens(src):
                return 0.9
            distinct = _words(src) - frame.grounding_words - frame.clean_words - {_stem(w) for w in _INSTRUCTION_WORDS}
            shared = words & distinct
            if len(shared) >= 2:
                best = max(best, 0.8)
            elif len(shared) == 1 and len(words - frame.grounding_words - frame.clean_words) <= 2:
                best = max(best, 0.6)
        return best

    def _result(self, claims: list[tuple[InjectedClaim, float]], s1: float) -> InjectionResult:
        items = [c for c, _ in claims]
        n = len(items)
        grounded = sum(c.verdict == "grounded" for c in items)
        drifted = sum(c.verdict == "drifted" for c in items)
        injected = sum(c.verdict == "injected" for c in items)
        keep = 1.0
        for c in items:
            if c.verdict == "injected":
                keep *= 1.0 - c.confidence
        inj = 1.0 - keep
        drift = self.DRIFT_WEIGHT * drifted / n
        risk = 1.0 - (1.0 - inj) * (1.0 - drift)
        combined = 1.0 - (1.0 - self.stage1_weight * s1) * (1.0 - risk)
        return InjectionResult(
            injection_detected=combined > self.injection_threshold,
            injection_risk=min(max(risk, 0.0), 1.0),
            intent_coverage=grounded / n,
            total_claims=n, grounded_claims=grounded, drifted_claims=drifted, injected_claims=injected,
            claims=items, input_sanitizer_score=min(max(s1, 0.0), 1.0),
            combined_score=min(max(combined, 0.0), 1.0))


class _CallableSanitizer:
    """Adapter: a ``text -> score`` function as a stage-1 sanitizer (per sentence)."""

    def __init__(self, fn: Callable[[str], float]) -> None:
        self.fn = fn

    def scan(self, sources: dict[str, str]) -> SanitizerReport:
        best = 0.0
        segs = []
        for name, text in sources.items():
            for a, b in _pieces(text or ""):
                v = float(self.fn(text[a:b]))
                if not 0.0 <= v <= 1.0:
                    raise ConfigError(f"sanitizer returned {v!r}, not a score in [0, 1]", "sanitizer")
                best = max(best, v)
                if v >= 0.5:
                    segs.append(FlaggedSegment(source=name, start=a, end=b, text=text[a:b], decoded="",
                                               score=v, signals=("custom",)))
        return SanitizerReport(score=best, segments=tuple(segs))

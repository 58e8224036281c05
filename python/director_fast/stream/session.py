"""Records of a guarded stream: :class:`StreamSession` (the per-stream record) and
:class:`TokenEvent` (one token of it).

They sit below both :mod:`director_fast.stream.stream_guard` (which fills them) and
:mod:`director_fast.stream.kernel` (the director-ai compatible kernel that returns them), so
neither module needs the other's internals.

Thread-safety: a session is written by the one guard that owns it; read it from other threads
only after the stream has ended.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

from director_fast.safety.halt_evidence import HaltEvidence
from director_fast.safety.event import SafetyEvent
from director_fast.types.results import ClaimAttribution
from director_fast.types.verification import StructuredRecoveryResult

__all__ = ["TokenEvent", "StreamSession"]

# per-token flag bits kept by a session
_F_SCORED = 1
_F_WARNING = 2
_F_HALTED = 4


@dataclass
class TokenEvent:
    """One token of a guarded stream.

    Attributes:
        token: token text.
        index: token index in the stream (0-based).
        coherence: the effective coherence score the kernel used for it, in [0, 1].
        timestamp: ``time.monotonic()`` seconds when the kernel processed it.
        halted: the stream halted at this token.
        warning: score below ``soft_limit`` without a halt.
        scored: the score was fresh (not reused under a cadence).
        evidence: optional evidence text (compatibility ``evidence_callback``).
        halt_evidence / safety_event: set on the halting token.
    """

    token: str
    index: int
    coherence: float
    timestamp: float
    halted: bool = False
    warning: bool = False
    scored: bool = False
    evidence: str | None = None
    halt_evidence: HaltEvidence | None = None
    safety_event: SafetyEvent | None = None


@dataclass
class StreamSession:
    """The record of one guarded stream.

    Per-token data is stored compactly (token strings plus 8-byte score, 8-byte timestamp and
    1-byte flags per token); :attr:`events` materialises ``TokenEvent`` objects on demand. With
    ``keep_events=False`` only the token texts (the output), counters and the halt record are
    kept.

    Attributes:
        tokens: every token the kernel consumed (in order).
        halted / soft_halted: the stream was halted; the halt was a (finalised) soft halt.
        halt_index: token where the halt condition held (-1: none).
        final_index: token where the halt took effect (soft halts: the sentence end / cap).
        halt_reason: machine reason (a :class:`HaltReason`, ``""`` when none).
        halt_reason_text: director-ai's human-readable reason string.
        halt_evidence: evidence text from an ``evidence_callback`` (compatibility).
        halt_evidence_structured: :class:`HaltEvidence` with trace attribution.
        safety_events: :class:`SafetyEvent` records (one per halt).
        halt_claim: the claim that halted the stream (verdict, signal, deciding evidence sentence,
            index among the response's claims), when the scorer judges claims; else None.
        warning_count: tokens below ``soft_limit`` that did not halt.
        delivered_count: tokens forwarded to the caller; :attr:`output` is their text.
        start_time / end_time: ``time.monotonic()`` seconds.
        scorer_calls: number of scorer invocations (plain calls or sentences scored).
        structured_recovery: with ``stream_guard(..., structured="json")``, the parser-safe
            recovery of :attr:`output` after a halt
            (:class:`~director_fast.types.verification.StructuredRecoveryResult`); else None.
    """

    tokens: list[str] = field(default_factory=list)
    halted: bool = False
    soft_halted: bool = False
    halt_index: int = -1
    final_index: int = -1
    halt_reason: str = ""
    halt_reason_text: str = ""
    halt_evidence: str | None = None
    halt_evidence_structured: HaltEvidence | None = None
    safety_events: list[SafetyEvent] = field(default_factory=list)
    halt_claim: ClaimAttribution | None = None
    start_time: float = 0.0
    end_time: float = 0.0
    warning_count: int = 0
    delivered_count: int = 0
    scorer_calls: int = 0
    keep_events: bool = True
    structured_recovery: StructuredRecoveryResult | None = None
    _scores: array = field(default_factory=lambda: array("d"), repr=False)
    _times: array = field(default_factory=lambda: array("d"), repr=False)
    _flags: bytearray = field(default_factory=bytearray, repr=False)
    _halt_event: TokenEvent | None = field(default=None, repr=False)

    # --- derived views -------------------------------------------------------------------
    @property
    def explanation(self) -> Any:
        """Why the stream halted: an :class:`~director_fast.types.explanation.Explanation` (the
        halting claim with its verdict, signal, evidence sentence and source, the cause and a
        suggestion), or None when it did not halt."""
        from director_fast.verify.explain import explain_halt

        return explain_halt(self)

    @property
    def output(self) -> str:
        """The text actually delivered to the caller."""
        return "".join(self.tokens[: self.delivered_count])

    @property
    def held_back(self) -> str:
        """Text the kernel consumed but did not deliver (the halted part)."""
        return "".join(self.tokens[self.delivered_count:])

    @property
    def token_count(self) -> int:
        """Number of tokens the kernel consumed."""
        return len(self.tokens)

    @property
    def coherence_history(self) -> array:
        """Effective score per consumed token (``array('d')``; empty with keep_events=False)."""
        return self._scores

    @property
    def scored_indices(self) -> list[int]:
        """Indices of tokens that received a fresh score."""
        return [i for i, f in enumerate(self._flags) if f & _F_SCORED]

    @property
    def avg_coherence(self) -> float:
        """Mean effective score over consumed tokens (0.0 when none)."""
        s = self._scores
        return sum(s) / len(s) if len(s) else 0.0

    @property
    def min_coherence(self) -> float:
        """Minimum effective score (0.0 when none)."""
        return min(self._scores) if len(self._scores) else 0.0

    @property
    def duration_ms(self) -> float:
        """Session duration in milliseconds."""
        return (self.end_time - self.start_time) * 1000.0

    @property
    def events(self) -> list[TokenEvent]:
        """One :class:`TokenEvent` per consumed token (built on demand; ``[]`` with
        keep_events=False)."""
        if not self.keep_events:
            return []
        out: list[TokenEvent] = []
        for i, (tok, sc, ts, fl) in enumerate(zip(self.tokens, self._scores, self._times, self._flags)):
            out.append(
                TokenEvent(
                    token=tok,
                    index=i,
                    coherence=sc,
                    timestamp=ts,
                    halted=bool(fl & _F_HALTED),
                    warning=bool(fl & _F_WARNING),
                    scored=bool(fl & _F_SCORED),
                )
            )
        he = self._halt_event
        if he is not None and 0 <= he.index < len(out):
            out[he.index] = he
        return out

    @property
    def events_count(self) -> int:
        return len(self._flags) if self.keep_events else 0

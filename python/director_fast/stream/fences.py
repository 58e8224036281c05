"""Fenced code blocks in a stream: held back and judged whole, as ``review`` judges them.

``review`` splits a whole answer into units and skips the lines of a closed fenced code block
(```` ``` ```` or ``~~~``, closed by a fence of the same character at least as long); a stream's
sentence segmenter ends a sentence at every newline, so a code block would reach the scorer line
by line while its fence is still open, and an open fence is judged (fail closed): a stream
halted on code that ``review`` of the same answer approves. :class:`FenceHold` sits between the
segmenter and the scorer: from a fence line to its closing fence the completed sentences are
held, and the block is reported as one span when it closes (so the scorer sees a closed block,
as ``review`` does) or, when the stream ends with the fence still open, at the end (the scorer
then sees an unclosed fence and judges its lines: fail closed). With ``release="sentence"`` the
block's tokens are delivered when it has been judged, like any sentence's.

Thread safety: one instance per stream, used by that stream's consumer only (not shared).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from director_fast.verify.claims import closes_fence, code_fence

__all__ = ["FenceHold"]


class FenceHold:
    """Merges the sentence spans of a fenced code block into one span.

    Args:
        tokens: the stream's tokens so far (grows; read only).
        ends: ``ends[i]`` = code-point offset just after ``tokens[i]`` (grows with ``tokens``).
    """

    def __init__(self, tokens: Sequence[str], ends: Sequence[int]) -> None:
        self._tokens = tokens
        self._ends = ends
        self._open: tuple[str, int, int] | None = None  # fence character, run length, block start
        self._last = 0  # end of the last span held inside the open block

    def _text(self, a: int, b: int) -> str:
        """Code points [a, b) of the stream (joins only the tokens that overlap them)."""
        i = bisect_right(self._ends, a)
        j = bisect_right(self._ends, b - 1) + 1
        start = self._ends[i - 1] if i > 0 else 0
        return "".join(self._tokens[i:j])[a - start:b - start]

    def merge(self, spans: Sequence[tuple[int, int]], final: bool = False) -> list[tuple[int, int]]:
        """The spans to judge now, in order: ``spans`` (the segmenter's, in order) with a fenced
        block's spans held until its closing fence, then reported as one span from the opening
        fence to the closing one. ``final``: the stream ended; an open block is reported as it
        stands."""
        out: list[tuple[int, int]] = []
        for a, b in spans:
            line = self._text(a, b)
            if self._open is None:
                fence = code_fence(line)
                if fence is not None:
                    self._open, self._last = (fence[0], fence[1], a), b
                else:
                    out.append((a, b))
                continue
            self._last = b
            if closes_fence(line, self._open[:2]):
                out.append((self._open[2], b))
                self._open = None
        if final and self._open is not None:
            out.append((self._open[2], self._last))
            self._open = None
        return out

    @property
    def holding(self) -> bool:
        """A fenced block is open (its sentences are held)."""
        return self._open is not None


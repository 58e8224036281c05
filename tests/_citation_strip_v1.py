"""The marker stripper of director_fast.diagnostics.citations before it was made linear (multi-pass, one
full pass per level of markers joined by removals). Kept only as a test oracle: on texts that
need a single pass, the linear stripper must give exactly the same answer and markers."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from director_fast.diagnostics.citations import _CLOSERS, _HWS, _PREFIX, _Marker, _parse_body


def _scan(text: str, start: int) -> tuple[int, str | None]:
    """End (exclusive) of the marker starting at ``start`` and a problem, if any."""
    n = len(text)
    i = start + len(_PREFIX)
    in_q = False
    while i < n:
        c = text[i]
        if in_q:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_q = False
        elif c == '"':
            in_q = True
        elif c == "]":
            return i + 1, None
        elif c == "\n" or text.startswith(_PREFIX, i):
            break
        i += 1
    # Unterminated: end at the first ']' before the next marker or line break, else at that limit.
    limit = n
    for stop in (text.find(_PREFIX, start + len(_PREFIX)), text.find("\n", start)):
        if stop >= 0:
            limit = min(limit, stop)
    close = text.find("]", start + len(_PREFIX), limit)
    if close >= 0:
        return close + 1, "malformed: unbalanced quote"
    return limit, "malformed: no closing bracket"


def _strip_pass(text: str) -> tuple[str, list[tuple[int, int, str | None]], list[tuple[int, int]]]:
    """One stripping pass: (output, [(pos_in_output, ..., body/problem)], removed input spans)."""
    pieces: list[list[Any]] = []  # [input_start, string]
    olen = 0
    found: list[Any] = []  # (out_pos, body_start, body_end, problem)
    removed: list[tuple[int, int]] = []
    n = len(text)
    i = 0
    skip_leading = False
    while True:
        k = text.find(_PREFIX, i)
        seg_end = n if k < 0 else k
        seg = text[i:seg_end]
        seg_start = i
        if skip_leading and seg:
            st = seg.lstrip(_HWS)
            if len(st) != len(seg):
                removed.append((seg_start, seg_start + len(seg) - len(st)))
                seg_start += len(seg) - len(st)
                seg = st
        skip_leading = False
        if seg:
            pieces.append([seg_start, seg])
            olen += len(seg)
        if k < 0:
            break
        end, problem = _scan(text, k)
        removed.append((k, end))
        # trailing horizontal whitespace currently in the output
        trail = 0
        for p in reversed(pieces):
            s = p[1]
            t = len(s) - len(s.rstrip(_HWS))
            trail += t
            if t != len(s):
                break
        nxt = text[end] if end < n else ""
        if trail and (nxt == "" or nxt.isspace() or nxt in _CLOSERS):
            left = trail
            while left:
                p = pieces[-1]
                s = p[1]
                t = min(left, len(s) - len(s.rstrip(_HWS)))
                removed.append((p[0] + len(s) - t, p[0] + len(s)))
                p[1] = s[: len(s) - t]
                left -= t
                olen -= t
                if not p[1]:
                    pieces.pop()
            # markers removed just before the trimmed whitespace now sit at the trim point
            j = len(found) - 1
            while j >= 0 and found[j][0] > olen:
                f = found[j]
                found[j] = (olen, f[1], f[2], f[3])  # type: ignore[assignment]
                j -= 1
        elif not trail:
            last = pieces[-1][1][-1] if pieces else "\n"
            skip_leading = last == "\n"
        body_end = end - 1 if problem is None else end
        found.append((olen, k + len(_PREFIX), body_end, problem))  # type: ignore[arg-type]
        i = end
    removed.sort()
    return "".join(p[1] for p in pieces), found, removed  # type: ignore[return-value]


def _map_pos(pos: int, removed: list[tuple[int, int]], starts: list[int], cum: list[int]) -> int:
    """Map an offset of a pass's input onto its output."""
    j = bisect_right(starts, pos) - 1
    if j < 0:
        return pos
    s, e = removed[j]
    before = cum[j]  # removed length of spans strictly before span j
    if pos >= e:
        return pos - before - (e - s)
    return s - before


def strip_v1(text: str) -> tuple[str, list[_Marker]]:
    markers: list[_Marker] = []
    seq = 0
    current = text
    while True:
        out, found, removed = _strip_pass(current)
        if removed and markers:
            starts = [s for s, _ in removed]
            cum, acc = [], 0
            for s, e in removed:
                cum.append(acc)
                acc += e - s
            for m in markers:
                m.pos = _map_pos(m.pos, removed, starts, cum)
        for out_pos, b0, b1, problem in found:  # type: ignore[misc]
            body = current[b0:b1]
            if problem is None:
                kind, var, val, problem = _parse_body(body)
            else:
                kind, var, val = "malformed", None, None
            markers.append(_Marker(body, out_pos, seq, kind, var, val, problem))
            seq += 1
        current = out
        if _PREFIX not in current or not found:
            break
    markers.sort(key=lambda m: (m.pos, m.seq))
    return current, markers



"""The main job: guard a file of (context, question, response) records end to end.

For each record: score the response claim by claim with
:class:`~director_fast.core.scorer.CoherenceScorer`, the record's context passed as the call's
evidence (``context=``; a record with an empty context is judged without evidence and counted as
``no_evidence`` in the summary), and optionally replay the
response token by token through :func:`~director_fast.stream_guard` with the same scorer. Results
are written (and flushed) one JSON line per record as they are produced, so an interrupted run
can be resumed without re-scoring finished records.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator, TextIO

from director_fast.errors import ValidationError
from director_fast.metrics import binary_metrics, percentile

__all__ = ["GuardOptions", "GuardSummary", "read_records", "run_guard", "sample_path", "tokenize_for_stream"]

_TOKEN_RE = re.compile(r"\S+\s*|\s+")


def sample_path() -> Path:
    """Path of the sample shipped with the package (40 labelled records)."""
    return Path(str(resources.files("director_fast") / "data" / "sample.jsonl"))


def tokenize_for_stream(text: str) -> list[str]:
    """Split a response into stream tokens (word plus its trailing whitespace); joins back exactly."""
    return _TOKEN_RE.findall(text)


@dataclass
class GuardOptions:
    backend: str = "lexical"            # "lexical" or "onnx:DIR"
    threshold: float | None = None      # None: the backend's default
    stream: bool = False
    tenant_id: str = ""
    skip_bad: bool = False
    top_k: int = 3


@dataclass
class GuardSummary:
    records: int = 0
    skipped_bad: int = 0
    resumed: int = 0  # records taken from an earlier run's --out (included in every count)
    approved: int = 0
    warnings: int = 0
    halts: int = 0
    no_evidence: int = 0  # records whose context was empty (claims judged without evidence)
    halt_reasons: dict[str, int] = field(default_factory=dict)
    halt_positions: list[float] = field(default_factory=list)  # halt index / response tokens
    latencies_ms: list[float] = field(default_factory=list)
    labels: list[bool] = field(default_factory=list)
    flagged: list[bool] = field(default_factory=list)   # review rejected the record
    halted: list[bool] = field(default_factory=list)    # the stream replay halted (--stream)
    risk: list[float] = field(default_factory=list)
    elapsed_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "records": self.records,
            "skipped_bad": self.skipped_bad,
            "resumed": self.resumed,
            "approved": self.approved,
            "rejected": self.records - self.approved,
            "warnings": self.warnings,
            "halts": self.halts,
            "no_evidence": self.no_evidence,
            "halt_reasons": dict(sorted(self.halt_reasons.items())),
            "halt_position_p50": round(percentile(self.halt_positions, 50), 4) if self.halt_positions else None,
            "latency_ms_p50": round(percentile(self.latencies_ms, 50), 3) if self.latencies_ms else None,
            "latency_ms_p95": round(percentile(self.latencies_ms, 95), 3) if self.latencies_ms else None,
            "latency_ms_p99": round(percentile(self.latencies_ms, 99), 3) if self.latencies_ms else None,
            # records scored in this run (resumed ones cost nothing and would inflate the rate)
            "records_per_s": (round((self.records - self.resumed) / self.elapsed_s, 2)
                              if self.elapsed_s > 0 and self.records > self.resumed else None),
        }
        if self.labels:
            m = binary_metrics(self.labels, self.flagged, self.risk)
            out.update(
                labelled=m.n, hallucinated=m.positives, faithful=m.negatives,
                catch_rate=_r(m.catch_rate), false_positive_rate=_r(m.false_positive_rate),
                balanced_accuracy=_r(m.balanced_accuracy), roc_auc=_r(m.roc_auc),
            )
            if len(self.halted) == len(self.labels):
                h = binary_metrics(self.labels, self.halted)
                out.update(
                    stream_catch_rate=_r(h.catch_rate),
                    stream_false_positive_rate=_r(h.false_positive_rate),
                    stream_balanced_accuracy=_r(h.balanced_accuracy),
                )
        return out


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def read_records(path: str | Path, *, skip_bad: bool = False,
                 on_bad: Callable[[int, str], None] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` from a JSONL file.

    Each record needs a non-empty string ``response``, string ``context`` (may be empty) and
    optional string ``question`` and bool ``hallucinated``. A malformed line raises
    :class:`ValidationError` naming the line (or is reported to ``on_bad`` and skipped when
    ``skip_bad``).
    """
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                if not isinstance(rec, dict):
                    raise ValueError("a record must be a JSON object")
                for key in ("context", "response"):
                    if key not in rec:
                        raise ValueError(f"field {key!r} is missing")
                    if not isinstance(rec[key], str):
                        raise ValueError(f"field {key!r} must be a string, got {type(rec[key]).__name__}")
                if not rec["response"].strip():
                    raise ValueError("field 'response' is empty")
                if not isinstance(rec.get("question", ""), str):
                    raise ValueError("field 'question' must be a string")
                if "hallucinated" in rec and not isinstance(rec["hallucinated"], bool):
                    raise ValueError("field 'hallucinated' must be a boolean")
            except ValueError as e:  # JSONDecodeError is a ValueError
                msg = f"{path}:{lineno}: {e}"
                if skip_bad:
                    if on_bad is not None:
                        on_bad(lineno, msg)
                    continue
                raise ValidationError(msg) from None
            yield lineno, rec


def record_fingerprint(rec: dict[str, Any], options: GuardOptions | None = None) -> str:
    """SHA-256 (first 16 hex digits) of the record's context, question and response and of the
    options that change a result (backend, threshold, stream, tenant, top_k): a result line is
    reused on --resume only when both its line number and this fingerprint match, so resuming
    with other options scores again instead of reporting the earlier run's results."""
    h = hashlib.sha256()
    for key in ("context", "question", "response"):
        h.update(str(rec.get(key, "")).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    if options is not None:
        o = options
        h.update(repr((o.backend, o.threshold, o.stream, o.tenant_id, o.top_k)).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:16]


def _done_lines(out_path: Path, records: list[tuple[int, dict[str, Any]]],
                options: GuardOptions) -> dict[int, dict[str, Any]]:
    """Finished results in ``out_path`` that belong to ``records`` (same line and fingerprint),
    keyed by line. Every other line -- torn or unparseable (an interrupted write), or from a
    different input or other options -- is dropped by rewriting the file atomically, so those records are scored
    again and appends start on a clean line."""
    done: dict[int, dict[str, Any]] = {}
    if not out_path.exists():
        return done
    want = {lineno: record_fingerprint(rec, options) for lineno, rec in records}
    kept: list[str] = []
    dropped = 0
    with open(out_path, encoding="utf-8") as f:
        for line in f:
            try:
                if not line.endswith("\n"):
                    raise ValueError("torn line")
                res = json.loads(line)
                lineno = int(res["line"])
                if want.get(lineno) != res.get("fingerprint") or lineno in done:
                    raise ValueError("result of another input")
                done[lineno] = res
                kept.append(line)
            except (ValueError, KeyError, TypeError):
                dropped += 1
    if dropped:
        tmp = out_path.with_name(out_path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.writelines(kept)
            f.flush()
        tmp.replace(out_path)
    return done


def run_guard(data: str | Path, *, out: str | Path | None = None, options: GuardOptions | None = None,
              resume: bool = False, progress: bool | None = None, log: TextIO = sys.stderr,
              make_scorer: Callable[..., Any] | None = None) -> GuardSummary:
    """Run the main job over a JSONL file; return the :class:`GuardSummary`.

    ``make_scorer(context, options)`` returns the scorer for one record (default: one shared
    :class:`CoherenceScorer` with the chosen backend; the record's context is passed to its
    ``review`` as ``context=`` when the scorer accepts that argument).
    """
    from director_fast.stream_guard import stream_guard

    opts = options or GuardOptions()
    make = make_scorer or _default_scorer_factory(opts)
    summary = GuardSummary()
    out_path = Path(out) if out else None
    if resume and out_path is None:
        raise ValidationError("--resume needs --out (the results file to resume)")

    def bad(lineno: int, msg: str) -> None:
        summary.skipped_bad += 1
        print(f"skipping bad record: {msg}", file=log)

    records = list(read_records(data, skip_bad=opts.skip_bad, on_bad=bad))
    done = _done_lines(out_path, records, opts) if (out_path is not None and resume) else {}
    if out_path is not None and not resume and out_path.exists():
        out_path.unlink()
    fout = open(out_path, "a", encoding="utf-8") if out_path is not None else None
    bar = None
    if progress is None:
        progress = hasattr(log, "isatty") and log.isatty()
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(records), file=log, unit="rec", desc="guard")
        except ImportError:  # pragma: no cover - tqdm is a dependency
            bar = None
    t_start = time.perf_counter()
    try:
        for lineno, rec in records:
            if lineno in done:
                # counted in the summary like a fresh result (the summary covers the whole file)
                summary.resumed += 1
                _account(summary, done[lineno], rec)
                if bar is not None:
                    bar.update(1)
                continue
            result = _guard_one(lineno, rec, make, opts, stream_guard)
            _account(summary, result, rec)
            if fout is not None:
                fout.write(json.dumps(result, ensure_ascii=False) + "\n")
                fout.flush()
            if bar is not None:
                bar.update(1)
    finally:
        summary.elapsed_s = time.perf_counter() - t_start
        if bar is not None:
            bar.close()
        if fout is not None:
            fout.close()
    return summary


def _account(summary: GuardSummary, result: dict[str, Any], rec: dict[str, Any]) -> None:
    summary.records += 1
    summary.approved += bool(result["approved"])
    summary.warnings += bool(result["warning"])
    summary.latencies_ms.append(result["latency_ms"])
    summary.no_evidence += bool(result.get("no_evidence"))
    if result.get("halted"):
        summary.halts += 1
        summary.halt_reasons[result["halt_reason"]] = summary.halt_reasons.get(result["halt_reason"], 0) + 1
        if result.get("response_tokens"):
            summary.halt_positions.append(result["halt_index"] / result["response_tokens"])
    if "hallucinated" in rec:
        summary.labels.append(rec["hallucinated"])
        summary.flagged.append(not result["approved"])
        summary.risk.append(1.0 - result["score"])
        if "halted" in result:
            summary.halted.append(bool(result["halted"]))


def _guard_one(lineno: int, rec: dict[str, Any], make: Callable[..., Any], opts: GuardOptions,
               stream_guard: Any) -> dict[str, Any]:
    t0 = time.perf_counter()
    scorer = make(rec["context"], opts)
    question = rec.get("question", "") or ""
    kw: dict[str, Any] = {}
    if _accepts(scorer.review, "tenant_id"):
        kw["tenant_id"] = opts.tenant_id
    if _accepts(scorer.review, "context"):
        kw["context"] = rec["context"]
    approved, cs = scorer.review(question, rec["response"], **kw)
    result: dict[str, Any] = {
        "line": lineno,
        "id": rec.get("orig_id", ""),
        "fingerprint": record_fingerprint(rec, opts),
        "score": round(float(cs.score), 6),
        "approved": bool(approved),
        "warning": bool(cs.warning),
        "h_logical": round(float(cs.h_logical), 6),
        "h_factual": round(float(cs.h_factual), 6),
        "backend": getattr(scorer, "backend_name", opts.backend),
        "no_evidence": not rec["context"].strip(),
    }
    top = None
    if cs.evidence is not None and cs.evidence.chunks:
        c = min(cs.evidence.chunks, key=lambda ch: ch.distance)
        top = {"text": c.text, "distance": round(float(c.distance), 6), "source": c.source}
    result["top_evidence"] = top
    if opts.stream:
        toks = tokenize_for_stream(rec["response"])
        g = stream_guard(toks, scorer, prompt=question, tenant_id=opts.tenant_id,
                         context=kw.get("context"))
        for _ in g:
            pass
        s = g.session
        result.update(halted=s.halted, halt_index=s.halt_index, halt_reason=str(s.halt_reason),
                      halt_char=len("".join(s.tokens[: s.halt_index])) if s.halted else -1,
                      response_tokens=len(toks))
    if "hallucinated" in rec:
        result["hallucinated"] = rec["hallucinated"]
    result["latency_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
    return result


def _accepts(fn: Any, name: str) -> bool:
    import inspect

    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _default_scorer_factory(opts: GuardOptions) -> Callable[..., Any]:
    from director_fast.core.scorer import CoherenceScorer

    nli = None
    if opts.backend.startswith("onnx:"):
        from director_fast.nli import NLIModel

        model_dir = opts.backend[5:]
        if not model_dir.strip():
            raise ValidationError("backend 'onnx:' needs a model directory: onnx:DIR")
        nli = NLIModel.from_pretrained(model_dir)
    elif opts.backend != "lexical":
        raise ValidationError(f"backend must be 'lexical' or 'onnx:DIR', got {opts.backend!r}")

    kw: dict[str, Any] = {}
    if nli is not None:
        kw["nli"] = nli
    if opts.threshold is not None:
        kw["threshold"] = opts.threshold
    shared = CoherenceScorer(**kw)  # the record's context is passed per call (context=)

    def make(context: str, o: GuardOptions) -> Any:
        return shared

    return make

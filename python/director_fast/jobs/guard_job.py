"""The main job: guard a file of (context, question, response) records end to end.

For each record: score the response claim by claim with
:class:`~director_fast.verify.scorer.CoherenceScorer`, the record's context passed as the call's
evidence (``context=``; a record with an empty context is judged without evidence and counted as
``no_evidence`` in the summary), and optionally replay the
response token by token through :func:`~director_fast.stream.stream_guard` with the same scorer. Results
are written (and flushed) one JSON line per record as they are produced, so an interrupted run
can be resumed without re-scoring finished records.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TextIO

from director_fast._validate import check_text, utf8_problem
from director_fast.errors import ConfigError, InputTypeError, ValidationError
from director_fast.diagnostics.metrics import binary_metrics, percentile

__all__ = ["GuardOptions", "GuardSummary", "KnowledgeDir", "ResultWriter", "decode_text_file", "guard_record", "is_parquet",
           "make_scorer_factory", "read_parquet_records", "read_records", "record_fingerprint",
           "run_guard", "sample_path", "tokenize_for_stream", "utf8_problem", "validate_record"]

_TOKEN_RE = re.compile(r"\S+\s*|\s+")


def sample_path() -> Path:
    """Path of the sample shipped with the package (40 labelled records)."""
    return Path(str(resources.files("director_fast") / "data" / "sample.jsonl"))


def tokenize_for_stream(text: str) -> list[str]:
    """Split a response into stream tokens (word plus its trailing whitespace); joins back exactly."""
    return _TOKEN_RE.findall(text)


@dataclass
class GuardOptions:
    """Options of the guard job (local or :mod:`director_fast.jobs.distributed`).

    ``knowledge`` is a directory of documents (see :class:`KnowledgeDir`) shared by every record
    as evidence, in addition to each record's own context; ``knowledge_digest`` is filled in by
    the job from the directory's contents (it enters :func:`record_fingerprint`) and need not be
    set by hand. Thread-safety: a plain value object; do not mutate one while a job uses it.
    """

    backend: str = "lexical"            # "lexical", "model" (the shipped verifier) or "onnx:DIR"
    threshold: float | None = None      # None: the backend's default
    stream: bool = False
    tenant_id: str = ""
    skip_bad: bool = False
    top_k: int = 3
    knowledge: str | None = None        # directory of .txt/.md documents (shared knowledge base)
    knowledge_digest: str = ""          # set by the job: SHA-256 prefix of the directory's documents
    explain: str = "failing"            # explanation in each result: "none", "failing" or "all"


@dataclass
class GuardSummary:
    """Counts and metric inputs of a guard run; :meth:`add` takes one result, :meth:`to_dict`
    computes the summary metrics. The local job and :func:`director_fast.jobs.distributed.guard_dataset`
    both feed results through :meth:`add`, so their summaries are computed by the same code.

    Thread-safety: not thread-safe (one writer).
    """

    records: int = 0
    skipped_bad: int = 0
    resumed: int = 0  # records taken from an earlier run's --out (included in every count)
    approved: int = 0
    warnings: int = 0
    halts: int = 0
    no_evidence: int = 0  # records judged without evidence (empty context and no --knowledge)
    halt_reasons: dict[str, int] = field(default_factory=dict)
    causes: dict[str, int] = field(default_factory=dict)  # rejected records per cause
    halt_positions: list[float] = field(default_factory=list)  # halt index / response tokens
    latencies_ms: list[float] = field(default_factory=list)
    labels: list[bool] = field(default_factory=list)
    flagged: list[bool] = field(default_factory=list)   # review rejected the record
    halted: list[bool] = field(default_factory=list)    # the stream replay halted (--stream)
    risk: list[float] = field(default_factory=list)
    # per group ("source" field of the record; label hallucinated / faithful / unlabelled):
    # [records, approved, halts, labelled, hallucinated, caught, faithful, false_positives]
    by_source: dict[str, list[int]] = field(default_factory=dict)
    by_label: dict[str, list[int]] = field(default_factory=dict)
    elapsed_s: float = 0.0

    def add(self, result: dict[str, Any], record: dict[str, Any]) -> None:
        """Count one per-record result (a dict as written by the job: ``approved``, ``warning``,
        ``score``, ``latency_ms``, optional ``no_evidence``, ``halted``, ``halt_reason``,
        ``halt_index``, ``response_tokens``) of ``record`` (only its ``hallucinated`` label and
        ``source`` group are read; a missing key means unlabelled / no source)."""
        _account(self, result, record)

    def to_dict(self) -> dict[str, Any]:
        """The summary: counts, halt reasons, latency percentiles (ms), records per second,
        ``by_source`` / ``by_label`` groups and, with labels, the review and stream metrics."""
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
            "rejection_causes": dict(sorted(self.causes.items())),
            "halt_position_p50": round(percentile(self.halt_positions, 50), 4) if self.halt_positions else None,
            "latency_ms_p50": round(percentile(self.latencies_ms, 50), 3) if self.latencies_ms else None,
            "latency_ms_p95": round(percentile(self.latencies_ms, 95), 3) if self.latencies_ms else None,
            "latency_ms_p99": round(percentile(self.latencies_ms, 99), 3) if self.latencies_ms else None,
            # records scored in this run (resumed ones cost nothing and would inflate the rate)
            "records_per_s": (round((self.records - self.resumed) / self.elapsed_s, 2)
                              if self.elapsed_s > 0 and self.records > self.resumed else None),
        }
        out["by_source"] = {k: _group_dict(v) for k, v in sorted(self.by_source.items())}
        out["by_label"] = {k: _group_dict(v) for k, v in sorted(self.by_label.items())}
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


def _group_dict(c: list[int]) -> dict[str, Any]:
    records, approved, halts, labelled, pos, caught, neg, fp = c
    d: dict[str, Any] = {"records": records, "approved": approved, "rejected": records - approved,
                         "halts": halts}
    if labelled:
        d["catch_rate"] = _r(caught / pos) if pos else None
        d["false_positive_rate"] = _r(fp / neg) if neg else None
    return d


_BOM = b"\xef\xbb\xbf"


def decode_text_file(path: str | Path) -> str:
    """The whole text of a UTF-8 file (a leading BOM dropped).

    Raises:
        ValidationError: the file is not valid UTF-8; the message is ``PATH:LINE: not valid
            UTF-8: byte 0x.. at column N ...``.
        OSError: the file cannot be read.
    """
    raw = Path(path).read_bytes()
    if raw.startswith(_BOM):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        lineno = raw.count(b"\n", 0, exc.start) + 1
        problem = utf8_problem(raw[line_start:exc.start + 1], exc.start - line_start)
        raise ValidationError(f"{path}:{lineno}: {problem}") from None


def _check_strings(value: Any, name: str) -> None:
    """Raise ValidationError (via ``check_text``) for the first string in ``value`` (a decoded
    JSON value, keys included; walked without recursion) that holds a lone surrogate; ``name``
    names the field."""
    stack = [(value, name)]
    while stack:
        v, where = stack.pop()
        if isinstance(v, str):
            check_text(v, where)
        elif isinstance(v, dict):
            for k, item in v.items():
                check_text(k, f"a key inside {name}")
                stack.append((item, f"a string inside {name}"))
        elif isinstance(v, list):
            stack.extend((item, f"a string inside {name}") for item in v)


def validate_record(rec: Any, *, check_surrogates: bool = True) -> None:
    """Check one decoded record: a dict with string ``context`` (may be empty), non-empty string
    ``response``, optional string ``question`` and bool ``hallucinated``, and (when
    ``check_surrogates``) no string anywhere in it holding a lone surrogate.

    Raises:
        ValueError: naming the field (a :class:`ValidationError` for a lone surrogate); the
            callers prefix ``PATH:LINE:``.
    """
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
    if check_surrogates:
        for k, v in rec.items():
            check_text(k, "a field name")
            _check_strings(v, f"field {k!r}")


def read_records(path: str | Path, *, skip_bad: bool = False,
                 on_bad: Callable[[int, str], None] | None = None, start: int = 0,
                 end: int | None = None, first_line: int = 1) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` from a JSONL file (UTF-8; a BOM on the first line is
    dropped; lines end at ``\\n``).

    Each record needs a non-empty string ``response``, string ``context`` (may be empty) and
    optional string ``question`` and bool ``hallucinated``. A malformed line (not UTF-8, not a
    JSON object, a missing or mistyped field, a string anywhere in it holding a lone surrogate
    such as ``"\\ud800"``) raises :class:`ValidationError` whose message starts with
    ``PATH:LINE:`` (or, when ``skip_bad``, that message goes to ``on_bad`` and the line is skipped).

    ``start`` / ``end`` (byte offsets at line starts; ``end`` None: the end of the file) read one
    slice of the file whose first line is line ``first_line``; the distributed job reads a file
    as such slices, in parallel, with the same checks and line numbers.
    """
    with open(path, "rb") as f:
        if start:
            f.seek(start)
        pos = start
        for lineno, raw in enumerate(f, first_line):
            if end is not None and pos >= end:
                break
            pos += len(raw)
            if pos == len(raw) and raw.startswith(_BOM):  # the file's first line
                raw = raw[3:]
            if not raw.strip():
                continue
            try:
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValueError(utf8_problem(raw, exc.start)) from None
                rec = json.loads(line)
                validate_record(rec, check_surrogates="\\u" in line)  # a lone surrogate needs a \\uD8xx escape
            except (ValueError, RecursionError) as e:  # JSONDecodeError, ValidationError: ValueErrors
                _bad_record(path, lineno, ValueError("JSON nested too deeply") if isinstance(e, RecursionError) else e,
                            skip_bad, on_bad)
                continue
            yield lineno, rec


def _bad_record(path: str | Path, lineno: int, error: Exception, skip_bad: bool,
                on_bad: Callable[[int, str], None] | None) -> None:
    """Report a bad record ``PATH:LINE: error``: to ``on_bad`` when ``skip_bad`` (the caller then
    skips it), else raise :class:`ValidationError`."""
    msg = f"{path}:{lineno}: {error}"
    if not skip_bad:
        raise ValidationError(msg) from None
    if on_bad is not None:
        on_bad(lineno, msg)


def read_parquet_records(path: str | Path, *, skip_bad: bool = False,
                         on_bad: Callable[[int, str], None] | None = None,
                         row_groups: Sequence[int] | None = None,
                         first_line: int = 1) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(row_number, record)`` from a Parquet file (needs ``pyarrow``), one row group at a
    time; rows are numbered from 1 and play the part of JSONL line numbers.

    A null column value counts as absent (so a file whose ``hallucinated`` column is null for some
    rows mixes labelled and unlabelled records); each record is then checked as
    :func:`validate_record` checks a JSONL line (bad rows: :class:`ValidationError` ``PATH:ROW:
    ...``, or ``on_bad`` and skipped when ``skip_bad``). ``row_groups`` reads only those row
    groups, the first of them numbered ``first_line`` (the distributed job's slices).

    Raises:
        MissingDependencyError: pyarrow is not installed.
        ValidationError: a bad row (see above).
        OSError: the file cannot be read.
    """
    pq = _pyarrow_parquet()
    pf = pq.ParquetFile(str(path))
    lineno = first_line - 1
    groups = range(pf.num_row_groups) if row_groups is None else row_groups
    for g in groups:
        for row in pf.read_row_group(g).to_pylist():
            lineno += 1
            rec = {k: v for k, v in row.items() if v is not None}
            try:
                validate_record(rec)
            except ValueError as e:
                _bad_record(path, lineno, e, skip_bad, on_bad)
                continue
            yield lineno, rec


def _pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        from director_fast.errors import MissingDependencyError

        raise MissingDependencyError('Parquet input and output need pyarrow: pip install pyarrow '
                                     '(or "director-fast[ray]", which brings it)', extra="ray") from None
    return pq


def is_parquet(path: str | Path) -> bool:
    """True when ``path`` names a Parquet file by its suffix (``.parquet`` or ``.pq``)."""
    return Path(path).suffix.lower() in (".parquet", ".pq")


class KnowledgeDir:
    """The documents of a knowledge directory, read once: every ``*.txt`` and ``*.md`` file under
    ``path`` (recursively, UTF-8), in sorted order of their relative paths, each added to a
    :class:`~director_fast.verify.knowledge.KnowledgeBase` as one document whose ``source`` is that
    relative path (POSIX form).

    Attributes:
        documents: ``[(source, text), ...]`` (plain strings: picklable, so a distributed job ships
            them to its workers, which need not see the directory).
        digest: SHA-256 prefix (16 hex digits) of the sources and texts; it enters
            :func:`record_fingerprint`, so a changed directory re-scores on ``--resume``.

    Raises:
        ConfigError: ``path`` is not a directory or holds no such document (``field="knowledge"``).
        ValidationError: a document is not valid UTF-8.

    Thread-safety: immutable after construction; :meth:`build` makes a new knowledge base per call.
    """

    SUFFIXES = (".txt", ".md")

    def __init__(self, path: str | Path) -> None:
        root = Path(path)
        if not root.is_dir():
            raise ConfigError(f"--knowledge {path}: not a directory", field="knowledge")
        files = sorted((p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in self.SUFFIXES),
                       key=lambda p: p.relative_to(root).as_posix())
        self.documents: list[tuple[str, str]] = [(p.relative_to(root).as_posix(), decode_text_file(p))
                                                 for p in files]
        if not self.documents:
            raise ConfigError(f"--knowledge {path}: no .txt or .md document in it", field="knowledge")
        h = hashlib.sha256()
        for src, text in self.documents:
            h.update(src.encode("utf-8", "surrogatepass") + b"\x00" + text.encode("utf-8", "surrogatepass") + b"\x00")
        self.digest = h.hexdigest()[:16]

    @staticmethod
    def build(documents: Sequence[tuple[str, str]], tenant_id: str = "") -> Any:
        """A new :class:`~director_fast.verify.knowledge.KnowledgeBase` holding ``documents`` (as in
        :attr:`documents`) under ``tenant_id``, added in order (so every build is the same)."""
        from director_fast.verify.knowledge import KnowledgeBase

        kb = KnowledgeBase()
        for src, text in documents:
            kb.add(text, source=src, tenant=tenant_id)
        return kb


def record_fingerprint(rec: dict[str, Any], options: GuardOptions | None = None) -> str:
    """SHA-256 (first 16 hex digits) of the record's context, question and response and of the
    options that change a result (backend, threshold, stream, tenant, top_k and, with a knowledge
    directory, its ``knowledge_digest``): a result line is
    reused on --resume only when both its line number and this fingerprint match, so resuming
    with other options scores again instead of reporting the earlier run's results."""
    h = hashlib.sha256()
    for key in ("context", "question", "response"):
        h.update(str(rec.get(key, "")).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    if options is not None:
        o = options
        key: tuple[Any, ...] = (o.backend, o.threshold, o.stream, o.tenant_id, o.top_k)
        if o.knowledge:  # only then: fingerprints of runs without a knowledge directory are unchanged
            key += (o.knowledge_digest,)
        if o.explain != "failing":  # likewise: the default level keeps earlier fingerprints
            key += (f"explain={o.explain}",)
        h.update(repr(key).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:16]


def _slim(res: dict[str, Any]) -> dict[str, Any]:
    """The fields of a result line that the summary needs (resume keeps only these in memory)."""
    keep = ("line", "fingerprint", "approved", "warning", "latency_ms", "no_evidence", "halted",
            "halt_reason", "halt_index", "response_tokens", "score", "cause")
    return {k: res[k] for k in keep if k in res}


def _done_lines(out_path: Path) -> tuple[dict[int, dict[str, Any]], int, int]:
    """Finished results in ``out_path``, keyed by input line (the last line for a line number
    wins: a later run appended it), trimmed to the fields the summary needs plus ``_offset`` (the
    line's byte offset); the number of lines kept; and the byte size of the file once read. Torn
    or unparseable lines (an interrupted write) are dropped by rewriting the file atomically, so
    appends start on a clean line. Whether a result belongs to the input (same fingerprint) is
    decided while the input is read, see :func:`run_guard`."""
    done: dict[int, dict[str, Any]] = {}
    if not out_path.exists():
        return done, 0, 0

    def parse(line: bytes) -> dict[str, Any] | None:
        try:
            if not line.endswith(b"\n"):
                raise ValueError("torn line")
            res = json.loads(line)
            int(res["line"])
            return res
        except (ValueError, KeyError, TypeError):
            return None

    with open(out_path, "rb") as f:  # streamed: the file is never held in memory
        dropped = sum(parse(line) is None for line in f)
    if dropped:
        tmp = out_path.with_name(out_path.name + ".tmp")
        with open(out_path, "rb") as src, open(tmp, "wb") as dst:
            for line in src:
                if parse(line) is not None:
                    dst.write(line)
            dst.flush()
        tmp.replace(out_path)
    offset = kept = 0
    with open(out_path, "rb") as f:
        for line in f:
            res = parse(line)
            if res is not None:
                slim = _slim(res)
                slim["_offset"] = offset
                done[int(res["line"])] = slim
                kept += 1
            offset += len(line)
    return done, kept, offset


def _drop_stale(out_path: Path, old_size: int, keep_offsets: set[int]) -> None:
    """Rewrite ``out_path`` (streaming, atomically) keeping, from its first ``old_size`` bytes,
    only the lines starting at ``keep_offsets``, and every line appended after them."""
    tmp = out_path.with_name(out_path.name + ".tmp")
    with open(out_path, "rb") as src, open(tmp, "wb") as dst:
        pos = 0
        while pos < old_size:
            line = src.readline()
            if not line:
                break
            if pos in keep_offsets:
                dst.write(line)
            pos += len(line)
        while chunk := src.read(1 << 20):
            dst.write(chunk)
        dst.flush()
    tmp.replace(out_path)


def _count_lines(path: str | Path) -> int | None:
    """Number of lines of a file, read in 1 MiB blocks (for the progress bar's total)."""
    try:
        n, last = 0, b"\n"
        with open(path, "rb") as f:
            while block := f.read(1 << 20):
                n += block.count(b"\n")
                last = block[-1:]
        return n + (last != b"\n")
    except OSError:
        return None


def check_paths(data: str | Path, out: str | Path | None) -> None:
    """Raise :class:`ValidationError` naming the option when ``data`` (``--data``) or ``out``
    (``--out``) is a directory, or ``out``'s folder does not exist: clearer than the operating
    system's "Is a directory"."""
    if Path(data).is_dir():
        raise ValidationError(f"--data {data} is a directory: pass a JSONL or Parquet file")
    if out is not None:
        if Path(out).is_dir():
            raise ValidationError(f"--out {out} is a directory: pass a file name for the results")
        parent = Path(out).parent
        if not parent.is_dir():
            raise ValidationError(f"--out {out}: the folder {parent} does not exist")


def check_output_is_not_input(data: str | Path, out: str | Path | None) -> None:
    """Raise :class:`ConfigError` (``field="out"``) when ``out`` is the input file ``data`` itself
    (the same path, a link to it, or a hard link): writing the results would erase the records
    before they are read. Nothing happens when ``out`` is None or does not exist yet."""
    if out is None:
        return
    out_path = Path(out)
    try:
        same = out_path.exists() and os.path.samefile(data, out_path)
    except OSError:
        same = False
    if same or Path(os.path.abspath(data)) == Path(os.path.abspath(out_path)):
        raise ConfigError(f"--out {out_path} is the input file --data {data}: the results would "
                          "overwrite the records; write them to another file", field="out")


def run_guard(data: str | Path, *, out: str | Path | None = None, options: GuardOptions | None = None,
              resume: bool = False, force: bool = False, progress: bool | None = None,
              log: TextIO | None = None, make_scorer: Callable[..., Any] | None = None) -> GuardSummary:
    """Run the main job over a JSONL file; return the :class:`GuardSummary`.

    The input is read lazily, one line at a time (memory does not grow with the file), and each
    result is appended to ``out`` and flushed as soon as it is produced.

    Args:
        data: JSONL input (see :func:`read_records` for the record fields).
        out: results file, one JSON line per record. An existing file is an error unless
            ``resume`` (keep its finished results, score the rest) or ``force`` (start it over).
        options: :class:`GuardOptions` (backend, threshold, stream replay, tenant, ...).
        resume: reuse results in ``out`` whose line number and :func:`record_fingerprint` match
            the input; results of another input or other options are scored again and the stale
            lines removed. Keeps about 200 bytes per finished record in memory.
        force: overwrite an existing ``out``.
        progress: show a progress bar on ``log`` (default: when ``log`` is a terminal).
        log: where skipped records and the progress bar go (default: ``sys.stderr`` at call time).
        make_scorer: ``make_scorer(context, options)`` returns the scorer for one record
            (default: one shared :class:`CoherenceScorer` with the chosen backend; the record's
            context is passed to its ``review`` as ``context=`` when the scorer accepts it).

    Raises:
        ConfigError: ``out`` exists without ``resume``/``force`` (``field="out"``), or both
            ``resume`` and ``force``.
        ValidationError: ``resume`` without ``out``; a malformed record, or one the scorer
            rejects (a lone surrogate, say), unless ``options.skip_bad`` (then it is skipped,
            counted in ``skipped_bad`` and named on ``log``); the message starts with
            ``DATA:LINE:``; a bad backend.
        OSError: ``data`` cannot be read or ``out`` written.

    A ``KeyboardInterrupt`` leaves every finished result in ``out`` (run again with ``resume``).
    """

    opts = options or GuardOptions()
    log = sys.stderr if log is None else log
    out_path = Path(out) if out else None
    if resume and out_path is None:
        raise ValidationError("--resume needs --out (the results file to resume)")
    if resume and force:
        raise ConfigError("--resume and --force exclude each other: --resume keeps the results "
                          "in --out, --force deletes them", field="force")
    check_output_is_not_input(data, out_path)
    check_paths(data, out_path)
    if out_path is not None and not resume and not force and out_path.exists():
        raise ConfigError(f"--out {out_path} exists: pass --resume to continue it or --force to "
                          "overwrite it", field="out")
    open(data, "rb").close()  # a missing input raises here (OSError naming it), before --out is touched
    kdocs = None
    if opts.knowledge:
        kdir = KnowledgeDir(opts.knowledge)
        opts, kdocs = replace(opts, knowledge_digest=kdir.digest), kdir.documents
    make = make_scorer or make_scorer_factory(opts, knowledge=kdocs)
    if out_path is not None and resume and is_parquet(out_path):
        raise ConfigError("--resume needs JSONL --out (a Parquet file is written whole)", field="resume")
    summary = GuardSummary()

    def bad(lineno: int, msg: str) -> None:
        summary.skipped_bad += 1
        print(f"skipping bad record: {msg}", file=log)
        if bar is not None:
            bar.update(1)

    done, old_lines, old_size = _done_lines(out_path) if (out_path is not None and resume) else ({}, 0, 0)
    reused: set[int] = set()  # byte offsets of the result lines reused from the earlier run
    created = out_path is not None and not out_path.exists()  # this run makes the file
    fout = ResultWriter(out_path, append=resume) if out_path is not None else None
    bar = None
    if progress is None:
        progress = hasattr(log, "isatty") and log.isatty()
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=_count_lines(data), file=log, unit="line", desc="guard")
        except ImportError:  # pragma: no cover - tqdm is a dependency
            bar = None
    t_start = time.perf_counter()
    finished = False
    try:
        reader = read_parquet_records if is_parquet(data) else read_records
        for lineno, rec in reader(data, skip_bad=opts.skip_bad, on_bad=bad):
            prev = done.pop(lineno, None)
            if prev is not None and prev.get("fingerprint") == record_fingerprint(rec, opts):
                # counted in the summary like a fresh result (the summary covers the whole file)
                summary.resumed += 1
                reused.add(prev["_offset"])
                summary.add(prev, rec)
                if bar is not None:
                    bar.update(1)
                continue
            try:
                result = guard_record(lineno, rec, make, opts)
            except (ValidationError, InputTypeError) as e:  # the record's content, as the scorer judged it
                msg = f"{data}:{lineno}: {e}"
                if not opts.skip_bad:
                    raise ValidationError(msg) from e
                bad(lineno, msg)
                continue
            summary.add(result, rec)
            if fout is not None:
                fout.write(result)
            if bar is not None:
                bar.update(1)
        finished = True
    finally:
        summary.elapsed_s = time.perf_counter() - t_start
        if bar is not None:
            bar.close()
        if fout is not None:
            fout.close()
        if not finished and created and summary.records == 0 and out_path.exists() \
                and out_path.stat().st_size == 0:
            out_path.unlink()  # a run that failed before any result leaves no empty --out behind
    # Only after a complete pass: lines of the earlier run that were not reused belong to another
    # input or other options (or were superseded). An interrupted run removes nothing: the last
    # line for a line number wins when resuming, so stale lines are harmless until then.
    if out_path is not None and old_lines > len(reused):
        _drop_stale(out_path, old_size, reused)
    return summary


def _account(summary: GuardSummary, result: dict[str, Any], rec: dict[str, Any]) -> None:
    summary.records += 1
    summary.approved += bool(result["approved"])
    summary.warnings += bool(result["warning"])
    summary.latencies_ms.append(result["latency_ms"])
    summary.no_evidence += bool(result.get("no_evidence"))
    if not result["approved"] and result.get("cause"):
        summary.causes[result["cause"]] = summary.causes.get(result["cause"], 0) + 1
    if result.get("halted"):
        summary.halts += 1
        summary.halt_reasons[result["halt_reason"]] = summary.halt_reasons.get(result["halt_reason"], 0) + 1
        if result.get("response_tokens"):
            summary.halt_positions.append(result["halt_index"] / result["response_tokens"])
    label = rec.get("hallucinated")
    src = rec.get("source")
    for groups, key in ((summary.by_source, src if isinstance(src, str) and src else "(none)"),
                        (summary.by_label, {True: "hallucinated", False: "faithful"}.get(label, "unlabelled"))):
        c = groups.setdefault(key, [0] * 8)
        c[0] += 1
        c[1] += bool(result["approved"])
        c[2] += bool(result.get("halted"))
        if label is not None:
            c[3] += 1
            if label:
                c[4] += 1
                c[5] += not result["approved"]
            else:
                c[6] += 1
                c[7] += not result["approved"]
    if "hallucinated" in rec:
        summary.labels.append(rec["hallucinated"])
        summary.flagged.append(not result["approved"])
        summary.risk.append(1.0 - result["score"])
        if "halted" in result:
            summary.halted.append(bool(result["halted"]))


def guard_record(lineno: int | None, rec: dict[str, Any], make: Callable[..., Any],
                 opts: GuardOptions) -> dict[str, Any]:
    """Score one record as the guard job does and return its result line (a dict; the fields are
    listed in the CLI documentation): ``review`` of the response with the record's context as
    evidence, plus the token-by-token stream replay when ``opts.stream``.

    Args:
        lineno: the record's input line (row) number, copied to ``line``.
        rec: a record that passed :func:`validate_record`.
        make: ``make(context, opts)`` returns the scorer (see :func:`make_scorer_factory`).
        opts: the job's options (``opts.knowledge_digest`` set when ``opts.knowledge`` is).

    Raises:
        ValidationError, InputTypeError: the scorer rejected the record's text (the job prefixes
            ``PATH:LINE:``).

    Thread-safety: as safe as the scorer ``make`` returns (the default one is thread-safe).
    """
    from director_fast.stream.stream_guard import stream_guard
    from director_fast.verify.explain import explain, explain_halt

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
        # no evidence at all: an empty context and no --knowledge base to judge against
        "no_evidence": not rec["context"].strip() and not opts.knowledge,
    }
    top = None
    if cs.evidence is not None and cs.evidence.chunks:
        c = min(cs.evidence.chunks, key=lambda ch: ch.distance)
        top = {"text": c.text, "distance": round(float(c.distance), 6), "source": c.source}
    result["top_evidence"] = top
    threshold = getattr(scorer, "threshold", None)
    exp = explain(cs, threshold=threshold, approved=bool(approved), evidence_given=not result["no_evidence"])
    result["cause"] = exp.cause
    if opts.explain != "none":
        result["explanation"] = exp.render(opts.explain)
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
        if opts.explain != "none":
            hx = explain_halt(s, threshold=threshold)
            result["halt_explanation"] = hx.render(opts.explain) if hx is not None else None
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


def make_scorer_factory(opts: GuardOptions, knowledge: Sequence[tuple[str, str]] | None = None) -> Callable[..., Any]:
    """The job's default scorer factory: one shared :class:`CoherenceScorer` with ``opts.backend``
    (``"model"``, ``"lexical"`` or ``"onnx:DIR"``: :func:`~director_fast.verify.scorer.backend_kwargs`,
    a model loaded here, once) and ``opts.threshold``, and, when
    ``knowledge`` (:attr:`KnowledgeDir.documents`) is given, a knowledge base built from it here,
    once, under ``opts.tenant_id``. Returns ``make(context, opts) -> scorer`` (the context is passed
    per call, so the same scorer serves every record).

    Raises:
        ValidationError: a bad backend string.
    """
    from director_fast.errors import ConfigError
    from director_fast.verify.scorer import CoherenceScorer, backend_kwargs

    try:
        kw: dict[str, Any] = backend_kwargs(opts.backend)
    except ConfigError as exc:
        if exc.field != "backend":
            raise
        raise ValidationError(str(exc)) from None
    if opts.threshold is not None:
        kw["threshold"] = opts.threshold
    if knowledge is not None:
        kw["knowledge"] = KnowledgeDir.build(knowledge, opts.tenant_id)
    shared = CoherenceScorer(**kw)  # the record's context is passed per call (context=)

    def make(context: str, o: GuardOptions) -> Any:
        return shared

    return make


_PARQUET_ROWS = 4096  # rows per Parquet row group written


def _result_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        ("line", pa.int64()), ("id", pa.string()), ("fingerprint", pa.string()), ("score", pa.float64()),
        ("approved", pa.bool_()), ("warning", pa.bool_()), ("h_logical", pa.float64()),
        ("h_factual", pa.float64()), ("backend", pa.string()), ("no_evidence", pa.bool_()),
        ("top_evidence", pa.struct([("text", pa.string()), ("distance", pa.float64()), ("source", pa.string())])),
        ("cause", pa.string()), ("explanation", pa.string()), ("halt_explanation", pa.string()),
        ("halted", pa.bool_()), ("halt_index", pa.int64()), ("halt_reason", pa.string()),
        ("halt_char", pa.int64()), ("response_tokens", pa.int64()), ("hallucinated", pa.bool_()),
        ("latency_ms", pa.float64()),
    ])


class ResultWriter:
    """Writes result lines to ``path``: JSON Lines (one ``json.dumps(result, ensure_ascii=False)``
    per line, flushed per line) or, for a ``.parquet`` / ``.pq`` path, Parquet (needs pyarrow; a
    fixed schema with the result fields, the stream fields null without ``--stream``, ``id`` as
    text (a non-string ``orig_id`` JSON-encoded), ``explanation`` / ``halt_explanation`` as JSON
    text; written a row group at a time, so an interrupted
    run leaves no readable file).

    Thread-safety: not thread-safe (one writer).
    """

    def __init__(self, path: str | Path, *, append: bool = False) -> None:
        self.path = Path(path)
        self._parquet = is_parquet(self.path)
        self._rows: list[dict[str, Any]] = []
        if self._parquet:
            pq = _pyarrow_parquet()
            self._schema = _result_schema()
            self._pq = pq.ParquetWriter(str(self.path), self._schema)
        else:
            self._f: TextIO = open(self.path, "a" if append else "w", encoding="utf-8")

    def write(self, result: dict[str, Any], text: str | None = None) -> None:
        """Append one result; ``text`` is its JSON line when already encoded (a JSONL output
        writes it as is)."""
        if not self._parquet:
            self._f.write((text if text is not None else json.dumps(result, ensure_ascii=False)) + "\n")
            self._f.flush()
            return
        row = dict(result)
        if not isinstance(row.get("id"), str):
            row["id"] = json.dumps(row.get("id"))
        for key in ("explanation", "halt_explanation"):  # nested records: JSON text columns
            if row.get(key) is not None:
                row[key] = json.dumps(row[key], ensure_ascii=False)
        self._rows.append(row)
        if len(self._rows) >= _PARQUET_ROWS:
            self._flush_rows()

    def _flush_rows(self) -> None:
        import pyarrow as pa

        if self._rows:
            cols = {name: [r.get(name) for r in self._rows] for name in self._schema.names}
            self._pq.write_table(pa.table(cols, schema=self._schema))
            self._rows = []

    def close(self) -> None:
        """Write what is buffered and close the file."""
        if self._parquet:
            self._flush_rows()
            self._pq.close()
        else:
            self._f.close()

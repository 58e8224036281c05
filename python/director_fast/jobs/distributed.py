"""The guard job on Ray Data: the same per-record results and summary as the local job
(:func:`director_fast.jobs.guard_job.run_guard`), computed by a pool of Ray actors on one machine or a
cluster.

Pipeline:

* :func:`read_dataset` turns JSONL or Parquet files into a ``ray.data.Dataset`` of records: the
  driver only cuts each file into slices (line-aligned byte ranges of a JSONL file, row groups of a
  Parquet file, with the number of their first line/row); the slices are parsed and checked in Ray
  tasks by the local job's own readers (:func:`~director_fast.jobs.guard_job.read_records`,
  :func:`~director_fast.jobs.guard_job.read_parquet_records`), so line numbers and error messages are the
  same. Every node must see the files at the same path (a shared file system).
* :func:`score_dataset` scores the records with ``map_batches`` and a callable class: each actor
  builds one scorer (:func:`~director_fast.jobs.guard_job.make_scorer_factory`: the ONNX model loaded and the
  shared knowledge base built once per actor) and scores each record with
  :func:`~director_fast.jobs.guard_job.guard_record`, the local job's per-record function.
* :func:`guard_dataset` runs that, streams the results back in input order, writes them (JSONL or
  Parquet, as the local job) and reduces the summary through
  :meth:`~director_fast.jobs.guard_job.GuardSummary.add`, the local job's summary code.

Identical to the local job on the same input and options: every result field except
``latency_ms``, and every summary field except ``latency_ms_*`` and ``records_per_s``.

Ray is imported lazily; without it, the functions raise
:class:`~director_fast.errors.MissingDependencyError` naming the ``ray`` extra
(``pip install "director-fast[ray]"``).

Thread- and process-safety: the functions are driven from one thread of the Ray driver process (a
``guard_dataset`` call at a time per output file); the actors share nothing (each holds its own
scorer and knowledge base), so any number of them may run on any number of nodes.
"""

from __future__ import annotations

import json
import os
import sys
import time
import weakref
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Sequence, TextIO

from director_fast.errors import ConfigError, InputTypeError, MissingDependencyError, ValidationError
from director_fast.jobs.guard_job import (GuardOptions, GuardSummary, KnowledgeDir, ResultWriter, guard_record, is_parquet,
                                make_scorer_factory, read_parquet_records, read_records, validate_record)

__all__ = ["guard_dataset", "read_dataset", "score_dataset"]

# Columns of a dataset made by read_dataset: the input line (row) number, the file, the record as
# JSON text (exact: no Arrow type inference over heterogeneous records), or the reader's error.
_READ_COLUMNS = ("line", "path", "record_json", "error")
# Columns of a dataset made by score_dataset.
_RESULT_COLUMNS = ("line", "result_json", "error", "source")

_from_reader: "weakref.WeakSet[Any]" = weakref.WeakSet()  # datasets whose reading needs no CPU slot


def _ray() -> Any:
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise MissingDependencyError('director_fast.jobs.distributed needs Ray Data: pip install '
                                     '"director-fast[ray]" (ray[data] and pyarrow)', extra="ray") from None
    return ray


def _jsonl_slices(path: str, block_bytes: int) -> list[dict[str, Any]]:
    """Line-aligned byte ranges of ``path`` of about ``block_bytes`` each, with their first line
    number (lines counted as the local reader counts them: every ``\\n``)."""
    size = os.path.getsize(path)
    slices: list[dict[str, Any]] = []
    start, line = 0, 1
    with open(path, "rb") as f:
        while start < size:
            end = start + block_bytes
            if end >= size:
                end = size
            else:
                f.seek(end - 1)
                f.readline()  # to the end of the line holding byte end-1
                end = f.tell()
            f.seek(start)
            left, newlines = end - start, 0
            while left:
                chunk = f.read(min(left, 1 << 20))
                newlines += chunk.count(b"\n")
                left -= len(chunk)
            slices.append({"path": path, "kind": "jsonl", "start": start, "end": end, "group": -1,
                           "first_line": line})
            start, line = end, line + newlines
    return slices


def _parquet_slices(path: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    slices, line = [], 1
    for g in range(meta.num_row_groups):
        slices.append({"path": path, "kind": "parquet", "start": 0, "end": 0, "group": g, "first_line": line})
        line += meta.row_group(g).num_rows
    return slices


def _read_slices(batch: Any) -> Any:
    """map_batches function: parse the slices of a batch into record rows (bad lines become rows
    with ``error`` set, in their place)."""
    import pyarrow as pa

    cols: dict[str, list[Any]] = {c: [] for c in _READ_COLUMNS}

    def emit(line: int, path: str, rec: str | None, err: str | None) -> None:
        cols["line"].append(line)
        cols["path"].append(path)
        cols["record_json"].append(rec)
        cols["error"].append(err)

    for s in batch.to_pylist():
        path = s["path"]
        bad: list[tuple[int, str]] = []

        def on_bad(lineno: int, msg: str) -> None:
            bad.append((lineno, msg))

        if s["kind"] == "jsonl":
            it = read_records(path, skip_bad=True, on_bad=on_bad, start=s["start"], end=s["end"],
                              first_line=s["first_line"])
        else:
            it = read_parquet_records(path, skip_bad=True, on_bad=on_bad, row_groups=[s["group"]],
                                      first_line=s["first_line"])
        for lineno, rec in it:
            for bl, msg in bad:
                emit(bl, path, None, msg)
            bad.clear()
            emit(lineno, path, json.dumps(rec, ensure_ascii=False, default=str), None)
        for bl, msg in bad:
            emit(bl, path, None, msg)
    schema = pa.schema([("line", pa.int64()), ("path", pa.string()), ("record_json", pa.string()),
                        ("error", pa.string())])
    return pa.table(cols, schema=schema)


def read_dataset(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *,
                 block_bytes: int = 4 << 20) -> Any:
    """A ``ray.data.Dataset`` of the records of JSONL and/or Parquet files (``.parquet`` /
    ``.pq``; needs pyarrow), for :func:`guard_dataset` / :func:`score_dataset`.

    The files are cut into slices here (JSONL: line-aligned byte ranges of about ``block_bytes``;
    Parquet: row groups) and parsed in parallel Ray tasks by the local job's readers, so each row
    has the record's 1-based ``line`` (row) number in its file, the ``path`` (as given), the
    record as JSON text (``record_json``) or, for a malformed line, the reader's ``error``
    message ``PATH:LINE: ...`` (raised or skipped by :func:`guard_dataset` in input order, as the
    local job does). The reading tasks request no CPU slot (parsing is light next to scoring),
    so a pool of scoring actors on every CPU cannot starve them.

    Raises:
        MissingDependencyError: Ray Data (or, for Parquet, pyarrow) is not installed.
        ConfigError: ``block_bytes`` < 1 or no path given.
        OSError: a file cannot be read.
    """
    ray = _ray()
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ConfigError("read_dataset needs at least one path", field="paths")
    if not isinstance(block_bytes, int) or block_bytes < 1:
        raise ConfigError(f"block_bytes must be an int >= 1, got {block_bytes!r}", field="block_bytes")
    slices: list[dict[str, Any]] = []
    for p in paths:
        open(p, "rb").close()  # a missing file raises here (OSError naming it)
        slices += _parquet_slices(p) if is_parquet(p) else _jsonl_slices(p, block_bytes)
    if not slices:  # only empty files: one empty slice keeps the schema
        slices = [{"path": paths[0], "kind": "jsonl", "start": 0, "end": 0, "group": -1, "first_line": 1}]
    ds = ray.data.from_items(slices, override_num_blocks=len(slices)).map_batches(
        _read_slices, batch_size=1, batch_format="pyarrow", num_cpus=0,
        **_task_pool(ray, max(1, min(len(slices), _cluster_cpus(ray)))))
    _from_reader.add(ds)
    return ds


def _task_pool(ray: Any, size: int) -> dict[str, Any]:
    strategy = getattr(ray.data, "TaskPoolStrategy", None)
    if strategy is not None:
        try:
            return {"compute": strategy(size=size)}
        except TypeError:  # pragma: no cover - older Ray: TaskPoolStrategy without size
            pass
    return {"concurrency": size}  # pragma: no cover - older Ray


def _cluster_cpus(ray: Any) -> int:
    if not ray.is_initialized():
        ray.init()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


class _GuardActor:
    """One per actor: the scorer (and knowledge base) made once, then every batch scored with the
    local job's :func:`~director_fast.jobs.guard_job.guard_record`."""

    def __init__(self, options: GuardOptions, knowledge: Sequence[tuple[str, str]] | None) -> None:
        self.options = options
        self.make = make_scorer_factory(options, knowledge=knowledge)

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        cols: dict[str, list[Any]] = {c: [] for c in _RESULT_COLUMNS}
        for row in batch.to_pylist():
            line, path, err, result = row.get("line"), row.get("path"), row.get("error"), None
            where = f"{path}:{line}: " if path is not None and line is not None else (
                f"row {line}: " if line is not None else "")
            rec: dict[str, Any] = {}
            if err is None:
                try:
                    if row.get("record_json") is not None:
                        rec = json.loads(row["record_json"])
                    else:  # a dataset of record columns: a null value is an absent field
                        rec = {k: v for k, v in row.items() if v is not None and k not in _READ_COLUMNS}
                        validate_record(rec)
                    result = guard_record(line, rec, self.make, self.options)
                except (ValueError, InputTypeError) as e:  # ValidationError is a ValueError
                    err = where + str(e)
            src = rec.get("source")
            cols["line"].append(line)
            cols["result_json"].append(None if result is None else json.dumps(result, ensure_ascii=False))
            cols["error"].append(err)
            cols["source"].append(src if isinstance(src, str) and src else None)
        schema = pa.schema([("line", pa.int64()), ("result_json", pa.string()), ("error", pa.string()),
                            ("source", pa.string())])
        return pa.table(cols, schema=schema)


def _resolve(options: GuardOptions | None, knowledge_dir: str | os.PathLike[str] | None
             ) -> tuple[GuardOptions, list[tuple[str, str]] | None]:
    opts = options or GuardOptions()
    if knowledge_dir is not None:
        opts = replace(opts, knowledge=os.fspath(knowledge_dir))
    if not opts.knowledge:
        return opts, None
    kdir = KnowledgeDir(opts.knowledge)
    return replace(opts, knowledge_digest=kdir.digest), kdir.documents


def _check_positive(name: str, value: Any, *, allow_zero: bool = False, number: bool = False) -> None:
    kinds = (int, float) if number else (int,)
    ok = isinstance(value, kinds) and not isinstance(value, bool) and (value >= 0 if allow_zero else value >= 1)
    if not ok:
        want = "a number >= 0" if allow_zero else "an int >= 1"
        raise ConfigError(f"{name} must be {want}, got {value!r}", field=name)


def score_dataset(ds: Any, *, options: GuardOptions | None = None,
                  knowledge_dir: str | os.PathLike[str] | None = None, batch_size: int = 64,
                  concurrency: int | None = None, num_gpus: float = 0, num_cpus: float = 1) -> Any:
    """The lazy ``ray.data.Dataset`` of per-record results of ``ds`` (one output row per input
    row, in input order when the Ray Data context preserves order).

    Args:
        ds: a dataset from :func:`read_dataset`, or any ``ray.data.Dataset`` whose rows have the
            record fields as columns (``context``, ``response``, optional ``question``,
            ``hallucinated``, ``source``, ``orig_id``; a null value counts as absent; an optional
            ``line`` column is copied to the results, else ``line`` is null).
        options: the job's :class:`~director_fast.jobs.guard_job.GuardOptions` (backend, threshold,
            stream, tenant, knowledge).
        knowledge_dir: a directory of documents shared by every record as evidence (overrides
            ``options.knowledge``); read here, on the driver, and shipped to the actors, each of
            which builds its knowledge base from it once.
        batch_size: records per ``map_batches`` call (>= 1).
        concurrency: actors (>= 1); default: the cluster's CPUs (``num_gpus`` > 0: GPUs /
            ``num_gpus``); with a dataset not made by :func:`read_dataset`, one CPU is left to
            its reading (a pool holding every CPU would starve Ray's read tasks).
        num_gpus: GPUs per actor (for an ``onnx:DIR`` backend whose ONNX Runtime has the CUDA
            provider); the cluster must have them.
        num_cpus: CPUs per actor.

    Returns:
        A dataset with columns ``line``, ``result_json`` (the result line, exactly as the local
        job writes it; null for a bad record), ``error`` (``PATH:LINE: ...`` for a bad record)
        and ``source`` (the record's ``source`` group).

    Raises:
        MissingDependencyError: Ray Data is not installed.
        ConfigError: a bad ``batch_size``/``concurrency``/``num_gpus``/``num_cpus``, more GPUs
            asked than the cluster has (``field="num_gpus"``), or a bad knowledge directory.
        ValidationError: a bad backend (raised when the actors start).
    """
    ray = _ray()
    if not hasattr(ds, "map_batches"):
        raise InputTypeError(f"ds must be a ray.data.Dataset, got {type(ds).__name__}")
    _check_positive("batch_size", batch_size)
    _check_positive("num_gpus", num_gpus, allow_zero=True, number=True)
    _check_positive("num_cpus", num_cpus, allow_zero=True, number=True)
    if concurrency is not None:
        _check_positive("concurrency", concurrency)
    opts, docs = _resolve(options, knowledge_dir)
    if opts.backend not in ("model", "lexical") and not opts.backend.startswith("onnx:"):
        raise ValidationError(f"backend must be 'model', 'lexical' or 'onnx:DIR', got {opts.backend!r}")
    cpus = _cluster_cpus(ray)
    if num_gpus:
        gpus = float(ray.cluster_resources().get("GPU", 0))
        if gpus < num_gpus:
            raise ConfigError(f"num_gpus={num_gpus} per actor, but the Ray cluster has {gpus:g} GPU(s)",
                              field="num_gpus")
        default = max(1, int(gpus // num_gpus))
    else:
        default = cpus if ds in _from_reader else max(1, cpus - 1)
        if num_cpus:
            default = max(1, min(default, int(cpus // num_cpus)))
    size = concurrency if concurrency is not None else default
    return ds.map_batches(_GuardActor, batch_size=batch_size, batch_format="pyarrow",
                          fn_constructor_args=(opts, docs), compute=ray.data.ActorPoolStrategy(size=size),
                          num_cpus=num_cpus, num_gpus=num_gpus)


def guard_dataset(ds: Any, *, out: str | os.PathLike[str] | None = None, force: bool = False,
                  knowledge_dir: str | os.PathLike[str] | None = None, backend: str = "lexical",
                  threshold: float | None = None, stream: bool = False, tenant_id: str = "",
                  skip_bad: bool = False, options: GuardOptions | None = None, batch_size: int = 64,
                  concurrency: int | None = None, num_gpus: float = 0, num_cpus: float = 1,
                  log: TextIO | None = None) -> GuardSummary:
    """Run the guard job on Ray Data; return the :class:`~director_fast.jobs.guard_job.GuardSummary`.

    The records of ``ds`` are scored by a pool of actors (:func:`score_dataset`); the results
    come back to this process in input order, are written to ``out`` as they arrive and are
    counted into the summary by the local job's code, so results and summary equal those of
    :func:`director_fast.jobs.guard_job.run_guard` on the same input and options (``latency_ms``,
    ``latency_ms_*`` and ``records_per_s`` aside; ``records_per_s`` here includes starting the
    actors and building their scorers).

    Args:
        ds: a dataset from :func:`read_dataset` or of record columns (see :func:`score_dataset`).
        out: results file: JSONL (one line per record, as the local job writes it) or
            ``.parquet`` / ``.pq``. An existing file is an error unless ``force``.
        force: overwrite an existing ``out``.
        knowledge_dir: a directory of ``.txt`` / ``.md`` documents used as evidence for every
            record (see :class:`~director_fast.jobs.guard_job.KnowledgeDir`), built once per actor.
        backend, threshold, stream, tenant_id, skip_bad: as the local job's options (used when
            ``options`` is None).
        options: a complete :class:`~director_fast.jobs.guard_job.GuardOptions` instead.
        batch_size, concurrency, num_gpus, num_cpus: see :func:`score_dataset`.
        log: where skipped records are named (default ``sys.stderr``).

    Raises:
        MissingDependencyError: Ray Data is not installed.
        ConfigError: ``out`` exists without ``force``; a bad pool setting (see
            :func:`score_dataset`).
        ValidationError: a malformed record or one the scorer rejects, unless ``skip_bad``
            (then counted in ``skipped_bad`` and named on ``log``); the message starts with
            ``PATH:LINE:``. As with the local job, the results before it are in ``out``.
        OSError: ``out`` cannot be written.

    Not resumable: ``--resume`` is the local job's (it accepts a results file written here, the
    fingerprints being the same).
    """
    _ray()
    opts = options or GuardOptions(backend=backend, threshold=threshold, stream=stream,
                                   tenant_id=tenant_id, skip_bad=skip_bad)
    log = sys.stderr if log is None else log
    out_path = Path(out) if out is not None else None
    if out_path is not None and not force and out_path.exists():
        raise ConfigError(f"--out {out_path} exists: pass --force to overwrite it (or resume it "
                          "with --engine local --resume)", field="out")
    scored = score_dataset(ds, options=opts, knowledge_dir=knowledge_dir, batch_size=batch_size,
                           concurrency=concurrency, num_gpus=num_gpus, num_cpus=num_cpus)
    summary = GuardSummary()
    writer = ResultWriter(out_path) if out_path is not None else None
    t_start = time.perf_counter()
    try:
        for text, parsed, err in _ordered_rows(scored):
            if err is not None:
                if not opts.skip_bad:
                    raise ValidationError(err)
                summary.skipped_bad += 1
                print(f"skipping bad record: {err}", file=log)
                continue
            result, source = parsed
            rec: dict[str, Any] = {"source": source}
            if "hallucinated" in result:
                rec["hallucinated"] = result["hallucinated"]
            summary.add(result, rec)
            if writer is not None:
                writer.write(result, text)
    finally:
        summary.elapsed_s = time.perf_counter() - t_start
        if writer is not None:
            writer.close()
    return summary


def _ordered_rows(scored: Any) -> Iterable[tuple[Any, Any, Any]]:
    """(result JSON text, (result, source), error) per row, in input order."""
    ctx = scored.context if hasattr(scored, "context") else None
    if ctx is not None:
        ctx.execution_options.preserve_order = True
    else:  # pragma: no cover - older Ray: the global context
        import ray.data

        ray.data.DataContext.get_current().execution_options.preserve_order = True
    for batch in scored.iter_batches(batch_format="pyarrow", batch_size=None):
        for text, err, src in zip(batch.column("result_json").to_pylist(), batch.column("error").to_pylist(),
                                  batch.column("source").to_pylist()):
            if err is not None:
                yield None, None, err
            else:
                yield text, (json.loads(text), src), None

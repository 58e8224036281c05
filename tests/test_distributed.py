"""guard on Ray Data (director_fast.jobs.distributed) against the local job, on a local Ray cluster
this module starts itself (127.0.0.1, 2 CPUs); and the local job's --knowledge / Parquet paths.

Identical means: every result field but latency_ms, every summary field but latency_ms_* and
records_per_s. The Ray tests are skipped when ray is not installed.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from director_fast.jobs import cli
from director_fast.errors import ConfigError, InputTypeError, MissingDependencyError, ValidationError
from director_fast.jobs.guard_job import GuardOptions, KnowledgeDir, read_records, record_fingerprint, run_guard, sample_path

sys.path.insert(0, str(Path(__file__).parent))
from _guard_records import generate_records, write_jsonl, write_knowledge_dir  # noqa: E402

_VOLATILE = {"latency_ms_p50", "latency_ms_p95", "latency_ms_p99", "records_per_s"}
#: records of the generated job compared between the local and the Ray engine (800: the default
#: suite's time; the comparison is per record, so more records add time, not kinds)
GENERATED = 800
_BAD = {5: "not json", 300: '{"context": 1, "response": "x"}', 600: '{"context": "", "response": "  "}'}


@pytest.fixture(scope="module")
def cluster():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=200 * 1024 * 1024,
                 _node_ip_address="127.0.0.1", log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """GENERATED records (several Ray blocks each) and a knowledge directory."""
    d = tmp_path_factory.mktemp("gen")
    data = write_jsonl(d / "gen.jsonl", generate_records(GENERATED, seed=7), _BAD)
    return data, write_knowledge_dir(d / "kb")


def _results(path: Path) -> list[dict]:
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    for r in rows:
        assert r.pop("latency_ms") >= 0
    return rows


def _same(local, ray_summary) -> dict:
    a, b = local.to_dict(), ray_summary.to_dict()
    assert a.keys() == b.keys()
    assert {k: v for k, v in a.items() if k not in _VOLATILE} == {k: v for k, v in b.items() if k not in _VOLATILE}
    return a


def _both(tmp_path, data, *, block_bytes=1 << 16, batch_size=64, **kw):
    from director_fast.jobs.distributed import guard_dataset, read_dataset

    opts = GuardOptions(**kw)
    llog, rlog = io.StringIO(), io.StringIO()
    local = run_guard(data, out=tmp_path / "local.jsonl", options=opts, log=llog, progress=False)
    dist = guard_dataset(read_dataset(data, block_bytes=block_bytes), out=tmp_path / "ray.jsonl", options=opts,
                         batch_size=batch_size, log=rlog)
    assert llog.getvalue() == rlog.getvalue()  # the same records skipped, named the same way, in order
    lres, rres = _results(tmp_path / "local.jsonl"), _results(tmp_path / "ray.jsonl")
    assert lres == rres
    return _same(local, dist), lres


def test_generated_per_record_context_identical(cluster, tmp_path, generated):
    data, _ = generated
    summary, res = _both(tmp_path, data, block_bytes=20_000, skip_bad=True)
    assert summary["records"] == GENERATED and summary["skipped_bad"] == 3
    # the generator makes every kind of record the summary distinguishes
    assert 0 < summary["approved"] < GENERATED and summary["no_evidence"] > GENERATED // 10
    assert set(summary["by_label"]) == {"hallucinated", "faithful", "unlabelled"}
    assert "(none)" in summary["by_source"]
    assert [r["line"] for r in res][:6] == [1, 2, 3, 4, 5, 7]  # line 6 is the bad one


def test_generated_shared_knowledge_identical(cluster, tmp_path, generated):
    data, kb = generated
    summary, res = _both(tmp_path, data, block_bytes=50_000, batch_size=100, skip_bad=True, knowledge=str(kb))
    assert summary["records"] == GENERATED
    # records without context find their evidence in the knowledge base
    by_line = {r["line"]: r for r in res}
    recs = dict(read_records(data, skip_bad=True))
    empty = [n for n, rec in recs.items() if not rec["context"]]
    found = [by_line[n]["top_evidence"] for n in empty if by_line[n]["top_evidence"]]
    assert len(found) == len(empty)
    assert all(e["source"].startswith(("part-a/", "part-b/")) for e in found)


def test_bad_record_stops_like_the_local_job(cluster, tmp_path):
    from director_fast.jobs.distributed import guard_dataset, read_dataset

    recs = [json.loads(x) for x in sample_path().read_text(encoding="utf-8").splitlines()][:12]
    data = write_jsonl(tmp_path / "d.jsonl", recs, {9: '{"context": "c", "response": ""}'})
    with pytest.raises(ValidationError) as le:
        run_guard(data, out=tmp_path / "l.jsonl", progress=False)
    with pytest.raises(ValidationError) as re_:
        guard_dataset(read_dataset(data, block_bytes=500), out=tmp_path / "r.jsonl", batch_size=3)
    assert str(le.value) == str(re_.value) == f"{data}:10: field 'response' is empty"
    assert _results(tmp_path / "l.jsonl") == _results(tmp_path / "r.jsonl")
    assert len(_results(tmp_path / "r.jsonl")) == 9


def test_reader_slices_keep_line_numbers(cluster, tmp_path):
    from director_fast.jobs.distributed import read_dataset

    lines = ['{"context": "a", "response": "b%d"}' % i for i in range(30)]
    raw = "\ufeff" + "\n".join(lines[:10]) + "\n\n\n" + "\n".join(lines[10:])  # BOM, blanks, no final \n
    p = tmp_path / "x.jsonl"
    p.write_text(raw, encoding="utf-8")
    want = [n for n, _ in read_records(p)]
    for block in (1, 37, 100, 10_000):
        # Ray Data does not promise block order (it came back reordered under load): each row
        # carries its line, which is what must be right
        rows = sorted(read_dataset(p, block_bytes=block).take_all(), key=lambda r: r["line"])
        assert [r["line"] for r in rows] == want
        assert [json.loads(r["record_json"])["response"] for r in rows] == [f"b{i}" for i in range(30)]


def test_cli_bundled_sample_stream_parquet_in_and_out(cluster, tmp_path, capsys):
    """The bundled sample through the CLI, both engines, Parquet in and out, with --stream."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    recs = [json.loads(x) for x in sample_path().read_text(encoding="utf-8").splitlines()]
    for k, r in enumerate(recs):
        r["orig_id"] = 1000 + k  # a non-string id: JSON-encoded in the Parquet id column
    data = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(recs), data, row_group_size=9)
    outs = {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.parquet"
        assert cli.main(["guard", "--data", str(data), "--out", str(out), "--engine", engine, "--json",
                         "--no-progress", "--stream"]) == 0
        outs[engine] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        t = pq.read_table(out).drop_columns(["latency_ms"]).to_pylist()
        outs[engine + "_rows"] = t
    assert outs["local_rows"] == outs["ray_rows"] and len(outs["ray_rows"]) == 40
    assert [r["line"] for r in outs["ray_rows"]] == list(range(1, 41))
    assert outs["ray_rows"][0]["id"] == "1000" and outs["ray_rows"][0]["halted"] is not None
    assert outs["ray"]["records"] == outs["ray"]["labelled"] == 40
    assert {k: v for k, v in outs["local"].items() if k not in _VOLATILE} == \
        {k: v for k, v in outs["ray"].items() if k not in _VOLATILE}


def test_dataset_of_columns(cluster, tmp_path):
    import ray

    from director_fast.jobs.distributed import guard_dataset

    recs = generate_records(60, seed=11)
    data = write_jsonl(tmp_path / "d.jsonl", recs)
    local = run_guard(data, progress=False)
    rows = [dict(r, line=k + 1) for k, r in enumerate(recs)]  # heterogeneous: nulls where a key is absent
    dist = guard_dataset(ray.data.from_items(rows), concurrency=1)
    _same(local, dist)


def test_error_paths(cluster, tmp_path, generated):
    from director_fast.jobs.distributed import guard_dataset, read_dataset, score_dataset

    data, _ = generated
    ds = read_dataset(sample_path())
    out = tmp_path / "exists.jsonl"
    out.write_text("keep\n")
    with pytest.raises(ConfigError) as e:
        guard_dataset(ds, out=out)
    assert e.value.field == "out" and out.read_text() == "keep\n"
    with pytest.raises(ConfigError) as e:
        guard_dataset(ds, num_gpus=1)
    assert e.value.field == "num_gpus" and "GPU" in str(e.value)
    for kw, field in (({"batch_size": 0}, "batch_size"), ({"concurrency": 0}, "concurrency"),
                      ({"num_gpus": -1}, "num_gpus"), ({"batch_size": True}, "batch_size")):
        with pytest.raises(ConfigError) as e:
            score_dataset(ds, **kw)
        assert e.value.field == field
    with pytest.raises(ValidationError, match="backend"):
        guard_dataset(ds, backend="bogus")
    with pytest.raises(ConfigError) as e:
        guard_dataset(ds, knowledge_dir=tmp_path / "nope")
    assert e.value.field == "knowledge"
    with pytest.raises(InputTypeError, match="ray.data.Dataset"):
        score_dataset([{"context": "", "response": "x"}])
    with pytest.raises(ConfigError, match="block_bytes"):
        read_dataset(data, block_bytes=0)
    with pytest.raises(OSError):
        read_dataset(tmp_path / "missing.jsonl")
    assert cli.main(["guard", "--data", str(data), "--engine", "ray", "--resume", "--out",
                     str(tmp_path / "o.jsonl")]) == 2


def test_missing_ray_names_the_extra(monkeypatch):
    import director_fast.jobs.distributed as dist

    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.setitem(sys.modules, "ray.data", None)
    with pytest.raises(MissingDependencyError) as e:
        dist.read_dataset(sample_path())
    assert isinstance(e.value, ImportError) and e.value.extra == "ray" and "director-fast[ray]" in str(e.value)
    assert cli.main(["guard", "--data", str(sample_path()), "--engine", "ray"]) == 2


# --- the local job's knowledge directory and Parquet (no Ray needed) -----------------------------


def test_knowledge_dir_reads_documents_in_order_and_keys_the_fingerprint(tmp_path):
    kb = write_knowledge_dir(tmp_path / "kb", countries=60, per_file=20)
    k = KnowledgeDir(kb)
    assert [s for s, _ in k.documents] == ["README.md", "part-a/countries_0000.txt", "part-a/countries_0040.txt",
                                           "part-b/countries_0020.txt"]
    rec = {"context": "", "response": "x"}
    plain = record_fingerprint(rec, GuardOptions())
    with_kb = record_fingerprint(rec, GuardOptions(knowledge=str(kb), knowledge_digest=k.digest))
    assert plain != with_kb
    (kb / "README.md").write_text("changed\n")
    assert KnowledgeDir(kb).digest != k.digest
    with pytest.raises(ConfigError) as e:
        KnowledgeDir(tmp_path / "missing")
    assert e.value.field == "knowledge"
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no .txt or .md"):
        KnowledgeDir(tmp_path / "empty")
    (kb / "bad.txt").write_bytes(b"ok\n\xff\n")
    with pytest.raises(ValidationError, match=r"bad.txt:2: not valid UTF-8"):
        KnowledgeDir(kb)


def test_local_parquet_reader_checks_rows(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from director_fast.jobs.guard_job import read_parquet_records

    p = tmp_path / "r.parquet"
    pq.write_table(pa.Table.from_pylist([{"context": "c", "response": "r", "hallucinated": None},
                                         {"context": "c", "response": " ", "hallucinated": True},
                                         {"context": "c", "response": "r2", "hallucinated": False}]), p)
    bad = []
    got = list(read_parquet_records(p, skip_bad=True, on_bad=lambda n, m: bad.append(m)))
    assert [n for n, _ in got] == [1, 3] and "hallucinated" not in got[0][1]
    assert bad == [f"{p}:2: field 'response' is empty"]
    with pytest.raises(ValidationError, match=":2: field 'response' is empty"):
        list(read_parquet_records(p))


def test_docs_page_example_runs(cluster, tmp_path, monkeypatch, capsys):
    import re

    page = Path(__file__).resolve().parents[1] / "docs" / "distributed.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": "__docs__"}
    exec(compile(blocks[0], "distributed.md[0]", "exec"), ns)  # its asserts compare the engines
    records, approved, bal = capsys.readouterr().out.split()
    assert records == "40" and 0 < int(approved) < 40 and 0.0 <= float(bal) <= 1.0

"""The main job from the command line, on the bundled sample (small and fast)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from director_fast.jobs import cli
from director_fast.errors import ValidationError
from director_fast.jobs.guard_job import GuardOptions, run_guard, sample_path, tokenize_for_stream

SUMMARY_KEYS = {
    "records", "approved", "rejected", "halts", "halt_reasons", "latency_ms_p50", "latency_ms_p95",
    "latency_ms_p99", "records_per_s", "catch_rate", "false_positive_rate", "balanced_accuracy",
    "roc_auc", "stream_catch_rate", "stream_false_positive_rate", "stream_balanced_accuracy",
}


def test_sample_is_balanced_and_labelled():
    rows = [json.loads(line) for line in open(sample_path(), encoding="utf-8")]
    assert len(rows) == 40
    assert sum(r["hallucinated"] for r in rows) == 20


def test_demo_prints_summary_and_writes_results(tmp_path, capsys):
    out = tmp_path / "res.jsonl"
    assert cli.main(["demo", "--out", str(out), "--json", "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert SUMMARY_KEYS <= set(summary)
    assert summary["records"] == 40 and summary["labelled"] == 40
    assert 0.0 <= summary["balanced_accuracy"] <= 1.0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 40
    for r in lines:
        assert 0.0 <= r["score"] <= 1.0 and isinstance(r["approved"], bool)
        assert r["halted"] in (True, False) and r["latency_ms"] >= 0
        if r["halted"]:
            assert r["halt_reason"] in ("hard_limit", "window_avg", "downward_trend")
            assert 0 <= r["halt_index"] < r["response_tokens"]
    # the summary agrees with the per-record lines
    assert summary["approved"] == sum(r["approved"] for r in lines)
    assert summary["halts"] == sum(r["halted"] for r in lines)


def test_resume_does_not_rescore(tmp_path):
    out = tmp_path / "res.jsonl"
    data = tmp_path / "d.jsonl"
    rows = open(sample_path(), encoding="utf-8").read().splitlines()[:6]
    data.write_text("\n".join(rows) + "\n")
    s1 = run_guard(data, out=out, options=GuardOptions(), progress=False)
    assert s1.records == 6
    # simulate an interruption: keep 3 finished lines and a torn fourth
    kept = out.read_text().splitlines()[:3]
    out.write_text("\n".join(kept) + "\n" + kept[0][:10])
    s2 = run_guard(data, out=out, options=GuardOptions(), resume=True, progress=False)
    assert s2.resumed == 3 and s2.records == 6  # the summary covers the whole file
    got = [json.loads(x) for x in out.read_text().splitlines() if x.strip().endswith("}")]
    assert sorted(r["line"] for r in got) == [1, 2, 3, 4, 5, 6]
    assert s2.to_dict()["approved"] == s1.to_dict()["approved"]
    # resuming with a different input never reuses results of the first one
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(open(sample_path(), encoding="utf-8").read().splitlines()[10:12]) + "\n")
    s3 = run_guard(other, out=out, options=GuardOptions(), resume=True, progress=False)
    assert s3.resumed == 0 and s3.records == 2
    assert len(out.read_text().splitlines()) == 2
    with pytest.raises(ValidationError, match="--out"):
        run_guard(other, resume=True, progress=False)


def test_resume_with_other_options_rescores(tmp_path):
    out = tmp_path / "res.jsonl"
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(open(sample_path(), encoding="utf-8").read().splitlines()[:4]) + "\n")
    run_guard(data, out=out, options=GuardOptions(threshold=0.5), progress=False)
    for opts in (GuardOptions(threshold=0.3), GuardOptions(threshold=0.5, stream=True),
                 GuardOptions(threshold=0.5, tenant_id="t"), GuardOptions(threshold=0.5, top_k=1)):
        s = run_guard(data, out=out, options=opts, resume=True, progress=False)
        fresh = run_guard(data, options=opts, progress=False)
        assert s.resumed == 0 and s.to_dict()["approved"] == fresh.to_dict()["approved"], opts
    again = run_guard(data, out=out, options=GuardOptions(threshold=0.5, top_k=1), resume=True, progress=False)
    assert again.resumed == 4


def test_bad_input_names_the_line_and_skip_bad(tmp_path, capsys):
    data = tmp_path / "bad.jsonl"
    good = open(sample_path(), encoding="utf-8").readline().strip()
    data.write_text(good + "\n{not json\n" + json.dumps({"context": "c", "response": 3}) + "\n" + good + "\n")
    with pytest.raises(ValidationError, match=r"bad.jsonl:2"):
        run_guard(data, progress=False)
    s = run_guard(data, options=GuardOptions(skip_bad=True), progress=False)
    assert s.records == 2 and s.skipped_bad == 2
    assert cli.main(["guard", "--data", str(data), "--no-progress"]) == 2
    assert "bad.jsonl:2" in capsys.readouterr().err


def test_stream_command_shows_halt(capsys, tmp_path):
    ctx = tmp_path / "ctx.txt"
    resp = tmp_path / "resp.txt"
    ctx.write_text("The company was founded in 1998 in Oslo. It employs 2,500 people.")
    resp.write_text("The company was founded in 1998 in Oslo. It employs 9,000 people. It is profitable.")
    assert cli.main(["stream", "--context", str(ctx), "--response", str(resp)]) == cli.VERDICT_FAILED
    out = capsys.readouterr().out
    assert "coherence per sentence" in out
    assert "The company was founded in 1998 in Oslo." in out


def test_tokenize_for_stream_roundtrip():
    text = "  Hello,  world.\nNext line\t here. "
    assert "".join(tokenize_for_stream(text)) == text


def test_console_script_entry_point():
    r = subprocess.run([sys.executable, "-m", "director_fast.jobs.cli", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "guard" in r.stdout


def test_stream_needs_response_with_context(tmp_path, capsys):
    ctx = tmp_path / "ctx.txt"
    ctx.write_text("Acme was founded in 1998.")
    assert cli.main(["stream", "--context", str(ctx)]) == 2
    assert "--response" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0 and "director-fast" in capsys.readouterr().out


def test_onnx_backend_needs_a_directory(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text(open(sample_path(), encoding="utf-8").readline())
    assert cli.main(["guard", "--data", str(data), "--backend", "onnx:", "--no-progress"]) == 2
    assert "model directory" in capsys.readouterr().err

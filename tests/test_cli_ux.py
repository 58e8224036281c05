"""The command line as a user meets it: --out protection, Ctrl-C, lazy input, help text, the
summary tables and the bench harness surviving a failing section."""

from __future__ import annotations

import argparse
import io
import json
import os
import runpy
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from types import SimpleNamespace

import pytest

from director_fast.jobs import cli
from director_fast.jobs import guard_job as jobs
from director_fast.errors import ConfigError
from director_fast.jobs.guard_job import GuardOptions, run_guard, sample_path

ROOT = Path(__file__).resolve().parents[1]


def _sample_lines(n: int) -> list[str]:
    return open(sample_path(), encoding="utf-8").read().splitlines()[:n]


class _CheapScorer:
    """A scorer with the review() shape run_guard needs; costs nothing, keeps nothing."""

    backend_name = "cheap"

    def review(self, prompt, response, *, context=None, tenant_id=""):
        cs = SimpleNamespace(score=0.9, warning=False, h_logical=0.1, h_factual=0.1, evidence=None)
        return True, cs


def _cheap(context, opts):
    return _CheapScorer()


# --- --out protection ----------------------------------------------------------------------


def test_existing_out_is_refused_without_resume_or_force(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(_sample_lines(3)) + "\n")
    out = tmp_path / "res.jsonl"
    out.write_text("precious\n")
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "--force" in err and str(out) in err
    assert out.read_text() == "precious\n"  # untouched
    with pytest.raises(ConfigError) as exc:
        run_guard(data, out=out, progress=False, make_scorer=_cheap)
    assert exc.value.field == "out"
    with pytest.raises(ConfigError, match="exclude"):
        run_guard(data, out=out, resume=True, force=True, progress=False, make_scorer=_cheap)
    # a missing input fails before --force truncates anything
    with pytest.raises(OSError):
        run_guard(tmp_path / "nope.jsonl", out=out, force=True, progress=False, make_scorer=_cheap)
    assert out.read_text() == "precious\n"
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--force", "--no-progress",
                     "--json"]) == 0
    assert [json.loads(x)["line"] for x in out.read_text().splitlines()] == [1, 2, 3]


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "relative"])
def test_out_that_is_the_input_is_refused_and_the_input_kept(tmp_path, capsys, monkeypatch, how):
    data = tmp_path / "d.jsonl"
    text = "\n".join(_sample_lines(3)) + "\n"
    data.write_text(text)
    out = {"same": data, "symlink": tmp_path / "l.jsonl", "hardlink": tmp_path / "h.jsonl",
           "relative": Path("d.jsonl")}[how]
    if how == "symlink":
        out.symlink_to(data)
    elif how == "hardlink":
        os.link(data, out)
    monkeypatch.chdir(tmp_path)
    for extra in ([], ["--force"], ["--resume"], ["--engine", "ray", "--force"]):
        assert cli.main(["guard", "--data", str(data), "--out", str(out), "--no-progress", *extra]) == 2
        assert "is the input file" in capsys.readouterr().err
    assert data.read_text() == text


def test_a_run_that_fails_before_any_result_leaves_no_out(tmp_path, capsys):
    data = tmp_path / "bad.jsonl"
    data.write_text("{bad json\n")
    out = tmp_path / "o.jsonl"
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--no-progress"]) == 2
    assert not out.exists()  # a rerun after fixing the input needs no --force
    data.write_text("\n".join(_sample_lines(2)) + "\n")
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--no-progress", "--json"]) == 0
    assert len(out.read_text().splitlines()) == 2


# --- Ctrl-C -------------------------------------------------------------------------------


def test_ctrl_c_ends_with_one_line_and_resume_continues(tmp_path, capsys, monkeypatch):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(_sample_lines(5)) + "\n")
    out = tmp_path / "res.jsonl"
    real = jobs.guard_record
    calls = []

    def interrupted(*args, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(jobs, "guard_record", interrupted)
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--no-progress"]) == 130
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert len(err) == 1 and "--resume" in err[0] and str(out) in err[0]
    assert len(out.read_text().splitlines()) == 2
    monkeypatch.setattr(jobs, "guard_record", real)
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--resume", "--no-progress",
                     "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["resumed"] == 2 and summary["records"] == 5
    assert sorted(json.loads(x)["line"] for x in out.read_text().splitlines()) == [1, 2, 3, 4, 5]


@pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery to a child process")
def test_real_sigint_prints_one_line(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(_sample_lines(40) * 20) + "\n")
    out = tmp_path / "res.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "director_fast.jobs.cli", "guard", "--data", str(data),
                             "--out", str(out), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a job started in the background inherits SIGINT ignored: restore the
                            # default so the child's Python installs its KeyboardInterrupt handler
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (out.exists() and out.stat().st_size > 0):
            time.sleep(0.05)
        assert out.exists() and out.stat().st_size > 0, "no result written within 60 s"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = [x for x in err.splitlines() if x.strip()]
    assert proc.returncode == 130, err
    assert len(lines) == 1 and "--resume" in lines[0], err
    assert all(x.endswith("}") for x in out.read_text().splitlines())


# --- lazy input ----------------------------------------------------------------------------


def _write_records(path: Path, n: int, pad: int) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"context": f"record {i} " + "x" * pad, "response": f"Answer {i}.",
                                "hallucinated": bool(i % 2), "source": f"s{i % 3}"}) + "\n")


def test_input_is_streamed_memory_flat_in_file_size(tmp_path):
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    _write_records(small, 200, 2000)
    _write_records(big, 2000, 2000)  # ~4 MB
    peaks = []
    for path in (small, big):
        tracemalloc.start()
        s = run_guard(path, options=GuardOptions(), progress=False, make_scorer=_cheap)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert s.records == (200 if path is small else 2000)
    size = big.stat().st_size
    assert size > 4_000_000
    # the whole file never sits in memory, and 10x the records costs far less than 10x the memory
    # (what grows is the summary's per-record floats: ~100 bytes a record)
    assert peaks[1] < size / 8, peaks
    assert peaks[1] - peaks[0] < 1800 * 400, peaks


def test_reader_is_lazy(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(_sample_lines(1)[0] + "\n{broken\n")
    it = jobs.read_records(data)
    lineno, rec = next(it)  # the broken line 2 is not read yet
    assert lineno == 1 and rec["response"]


# --- help text -----------------------------------------------------------------------------


def test_every_option_has_help_and_no_markup():
    p = cli.build_parser()
    top = p.format_help()
    for mark in ("``", ":mod:", ":func:", ".. ", ":class:"):
        assert mark not in top, mark
    subs = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subs.choices) == {"guard", "demo", "stream", "review", "tune", "bench", "export-nli"}
    for name, sp in subs.choices.items():
        assert "``" not in sp.format_help()
        assert "%%" not in sp.format_help(), name  # argparse prints "%%" from a description verbatim
        for act in sp._actions:
            if isinstance(act, argparse._HelpAction):
                continue
            assert act.help, f"{name} {act.option_strings or act.dest} has no help text"


# --- summary tables ------------------------------------------------------------------------


def test_summary_prints_tables_and_breakdowns(tmp_path, capsys):
    assert cli.main(["demo", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "halt_reasons" not in out and "{" not in out  # no Python dict
    assert "halt reasons" in out and "by source" in out and "by label" in out
    block = out[out.index("halt reasons"):].splitlines()
    assert block[1].split()[:3] == ["reason", "halts", "share"]
    assert any(line.split()[0] in ("hard_limit", "window_avg", "downward_trend") for line in block[2:4])
    assert "director_fast chat/RAG set (project-written)" in out  # the sample's one source
    assert cli.main(["demo", "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert sum(g["records"] for g in d["by_source"].values()) == d["records"] == 40
    assert d["by_label"]["hallucinated"]["records"] == 20
    assert d["by_label"]["hallucinated"]["catch_rate"] == d["catch_rate"]
    assert d["by_label"]["faithful"]["false_positive_rate"] == d["false_positive_rate"]
    assert sum(g["halts"] for g in d["by_label"].values()) == d["halts"]
    assert sum(d["halt_reasons"].values()) == d["halts"]


def test_resume_drops_stale_lines_but_an_interrupt_keeps_them(tmp_path):
    data = tmp_path / "d.jsonl"
    _write_records(data, 6, 10)
    out = tmp_path / "res.jsonl"
    run_guard(data, out=out, progress=False, make_scorer=_cheap)
    lines = out.read_text().splitlines()
    # an earlier result for line 4 with another fingerprint, appended after the real one: last wins
    stale = json.loads(lines[3])
    stale["fingerprint"] = "0" * 16
    out.write_text("\n".join(lines) + "\n" + json.dumps(stale) + "\n")
    s = run_guard(data, out=out, resume=True, progress=False, make_scorer=_cheap)
    assert s.resumed == 5 and s.records == 6
    got = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(r["line"] for r in got) == [1, 2, 3, 4, 5, 6]
    assert all(r["fingerprint"] != "0" * 16 for r in got)


# --- bench harness -------------------------------------------------------------------------


def test_bench_sections_print_as_they_complete_and_survive_a_failure():
    ns = runpy.run_path(str(ROOT / "bench" / "compare_director_ai.py"), run_name="bench_test")
    buf = io.StringIO()
    seen_before_second = []

    def first():
        return [["a", "1", "2", "3x"]]

    def boom():
        seen_before_second.append(buf.getvalue())
        raise RuntimeError("section exploded")

    rows, failed = ns["run_sections"]([("first", first), ("boom", boom),
                                       ("third", lambda: [["b", "4", "5", "6x"]])], out=buf)
    text = buf.getvalue()
    assert failed == ["boom"] and [r[0] for r in rows] == ["a", "b"]
    assert "| a " in seen_before_second[0]  # the first table was out before the second started
    assert "FAILED" in text and "RuntimeError: section exploded" in text and "| b " in text


def test_bench_safety_section_runs():
    pytest.importorskip("director_ai")
    ns = runpy.run_path(str(ROOT / "bench" / "compare_director_ai.py"), run_name="bench_test")
    rows = ns["safety_rows"](True)
    assert [r[0] for r in rows] == ["safety event build+to_dict+validate",
                                    "safety signal build+to_json+validate"]
    assert all(r[3].endswith("x") and float(r[3][:-1]) > 0 for r in rows)


def test_directories_and_missing_folders_name_the_option(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(_sample_lines(1)) + "\n")
    for args, expected in ((["--data", str(tmp_path)], "--data"),
                           (["--data", str(data), "--out", str(tmp_path)], "--out"),
                           (["--data", str(data), "--out", str(tmp_path / "no" / "r.jsonl")], "does not exist")):
        assert cli.main(["guard", *args, "--no-progress"]) == 2
        assert expected in capsys.readouterr().err

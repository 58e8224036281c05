"""The CLI explains its verdicts: guard / demo records, stream and review output, tune warnings."""

from __future__ import annotations

import json

import numpy as np
import pytest

from director_fast.diagnostics.calibration import read_tune_data, tune_threshold
from director_fast.jobs import cli
from director_fast.types.explanation import SUGGESTIONS

SHOP = ("Our hire tents sleep four people. Standard delivery costs £4.95. Club members save 10% on "
        "full-price items. The shop is open on Sundays from 10:00 to 16:00.")
RECORDS = [
    # (response, wrong claim, the evidence sentence that contradicts it, cause)
    ("Club members save 15% on full-price items.", "Club members save 15% on full-price items.",
     "Club members save 10% on full-price items.", "contradicted_number"),
    ("Standard delivery costs £6.95.", "Standard delivery costs £6.95.", "Standard delivery costs £4.95.",
     "contradicted_number"),
    ("The shop is closed on Sundays.", "The shop is closed on Sundays.",
     "The shop is open on Sundays from 10:00 to 16:00.", "contradicted_fact"),
    ("Our hire tents sleep four people. We also rent kayaks by the hour.", "We also rent kayaks by the hour.", "",
     "missing_fact"),
]


def _data(tmp_path, extra=()):
    data = tmp_path / "d.jsonl"
    rows = [{"context": SHOP, "question": "?", "response": r, "hallucinated": True} for r, *_ in RECORDS]
    rows.append({"context": SHOP, "question": "?", "response": "Standard delivery costs £4.95.",
                 "hallucinated": False})
    rows += list(extra)
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return data


def _results(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_guard_records_name_the_failing_claim_and_its_evidence(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert cli.main(["guard", "--data", str(_data(tmp_path)), "--out", str(out), "--stream", "--json",
                     "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    res = _results(out)
    for r, (_resp, claim, evidence, cause) in zip(res, RECORDS):
        assert not r["approved"] and r["cause"] == cause
        d = r["explanation"]["failing"][0]
        assert (d["claim"], d["evidence"], d["cause"]) == (claim, evidence, cause)
        assert d["suggestion"] == SUGGESTIONS[cause] and claim in r["explanation"]["summary"]
        assert evidence in r["explanation"]["summary"] and "supported" not in r["explanation"]
        assert r["halted"] and r["halt_explanation"]["failing"][0]["claim"] == claim
        assert r["halt_explanation"]["failing"][0]["evidence"] == evidence
    ok = res[len(RECORDS)]
    assert ok["approved"] and ok["cause"] == "" and ok["explanation"]["failing"] == []
    assert ok["halt_explanation"] is None
    assert summary["rejection_causes"] == {"contradicted_fact": 1, "contradicted_number": 2, "missing_fact": 1}


def test_guard_explain_levels_and_no_evidence(tmp_path, capsys):
    extra = [{"context": "", "response": "Standard delivery costs £4.95."}]
    data = _data(tmp_path, extra)
    for level in ("none", "all"):
        out = tmp_path / f"{level}.jsonl"
        assert cli.main(["guard", "--data", str(data), "--out", str(out), "--explain", level, "--no-progress"]) == 0
        res = _results(out)
        if level == "none":
            assert all("explanation" not in r and "cause" in r for r in res)
        else:
            assert res[len(RECORDS)]["explanation"]["supported"][0]["claim"] == "Standard delivery costs £4.95."
            assert res[-1]["no_evidence"] and res[-1]["cause"] == "no_evidence"
    capsys.readouterr()
    with pytest.raises(SystemExit):
        cli.main(["guard", "--data", str(data), "--explain", "loud"])


def test_guard_text_summary_has_a_causes_table(tmp_path, capsys):
    assert cli.main(["guard", "--data", str(_data(tmp_path)), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "rejection causes" in out and "contradicted_number" in out


def test_guard_parquet_keeps_the_explanation_as_json_text(tmp_path):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    out = tmp_path / "r.parquet"
    assert cli.main(["guard", "--data", str(_data(tmp_path)), "--out", str(out), "--no-progress"]) == 0
    rows = pq.read_table(out).to_pylist()
    assert json.loads(rows[0]["explanation"])["failing"][0]["claim"] == RECORDS[0][1]
    assert rows[0]["cause"] == "contradicted_number"


def test_stream_prints_the_deciding_sentence_not_the_start_of_the_context(tmp_path, capsys):
    ctx, resp = tmp_path / "ctx.txt", tmp_path / "resp.txt"
    ctx.write_text(SHOP, encoding="utf-8")
    resp.write_text("The shop is open on Sundays from 10:00 to 16:00. Club members save 15% on full-price items.",
                    encoding="utf-8")
    fallback = "Sorry, please check with our staff."
    assert cli.main(["stream", "--context", str(ctx), "--response", str(resp), "--on-halt-text", fallback]) == 1
    out = capsys.readouterr().out
    assert "HALTED" in out and "claim 1: 'Club members save 15% on full-price items.'" in out
    assert "evidence [context:0]: 'Club members save 10% on full-price items.'" in out
    assert "Our hire tents" not in out  # the context's first characters are not shown as evidence
    assert SUGGESTIONS["contradicted_number"] in out and fallback in out
    assert "Reduce generation temperature" not in out
    assert cli.main(["stream", "--context", str(ctx), "--response", str(resp), "--json"]) == 1
    rec = json.loads(capsys.readouterr().out)
    assert rec["halted"] and rec["delivered"] == "The shop is open on Sundays from 10:00 to 16:00. "
    assert rec["halt_explanation"]["failing"][0]["evidence"] == "Club members save 10% on full-price items."


def test_review_command_text_json_and_knowledge(tmp_path, capsys):
    kdir = tmp_path / "kb"
    kdir.mkdir()
    (kdir / "shop.md").write_text(SHOP, encoding="utf-8")
    resp = tmp_path / "resp.txt"
    resp.write_text("Our hire tents sleep six people.", encoding="utf-8")
    assert cli.main(["review", "--response", str(resp), "--knowledge", str(kdir)]) == 1  # rejected: status 1
    out = capsys.readouterr().out
    assert out.startswith("rejected") and "Our hire tents sleep four people." in out and "[shop.md]" in out
    assert cli.main(["review", "--response", str(resp), "--knowledge", str(kdir), "--json"]) == 1
    rec = json.loads(capsys.readouterr().out)
    assert rec["cause"] == "contradicted_number" and rec["explanation"]["failing"][0]["source"] == "shop.md"
    resp.write_text("Our hire tents sleep four people.", encoding="utf-8")
    assert cli.main(["review", "--response", str(resp), "--knowledge", str(kdir), "--explain", "all"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("approved") and "supported: claim 0" in out
    resp.write_text(" \n", encoding="utf-8")  # an empty answer is a broken pipeline (as guard says), never a pass
    for command in ("review", "stream"):
        assert cli.main([command, "--response", str(resp), "--knowledge", str(kdir)]) == 2
        assert "is empty" in capsys.readouterr().err


# --- tune -----------------------------------------------------------------------------------


def _labelled(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    s = np.clip(np.where(y, rng.normal(0.35, 0.25, n), rng.normal(0.6, 0.25, n)), 0.0, 1.0)
    return s, y


@pytest.mark.parametrize("n,width,minimum,unreliable", [
    (50, 0.2, 100, True),     # the case: a small set, a wide interval
    (50, 1.0, 0, False),      # nothing asked for: no warning
    (50, 1.0, 100, True),     # only the size
    (4000, 0.2, 100, False),  # enough records, a narrow interval
])
def test_tune_warns_on_a_wide_interval_or_a_small_set(n, width, minimum, unreliable, caplog):
    s, y = _labelled(n, 3)
    r = tune_threshold(s, y, max_width=width, min_records=minimum, resamples=200)
    assert r.unreliable is unreliable and bool(r.warnings) is unreliable
    lo, hi = r.interval
    if hi - lo > width:
        assert any(f"[{lo:.2f}, {hi:.2f}]" in w and f"{hi - lo:.2f} wide" in w for w in r.warnings)
    if r.samples < minimum:
        assert any(f"only {r.samples} of {n} records" in w and str(minimum) in w for w in r.warnings)
    assert len([rec for rec in caplog.records if "tune_threshold" in rec.getMessage()]) == len(r.warnings)


def test_tune_limits_are_checked():
    from director_fast.errors import ConfigError

    s, y = _labelled(40, 1)
    for kw in ({"max_width": 1.5}, {"max_width": "wide"}, {"min_records": -1}, {"min_records": 2.5}):
        with pytest.raises(ConfigError):
            tune_threshold(s, y, **kw)


def test_cli_tune_prints_the_warning_and_takes_knowledge(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    s, y = _labelled(50, 5)
    data.write_text("".join(json.dumps({"score": float(a), "hallucinated": bool(b)}) + "\n" for a, b in zip(s, y)))
    assert cli.main(["tune", "--data", str(data), "--resamples", "200"]) == 0
    cap = capsys.readouterr()
    assert "warning" in cap.err and "wide" in cap.err and "records tuned" in cap.err
    assert "NO (see the warnings)" in cap.out
    assert cli.main(["tune", "--data", str(data), "--resamples", "200", "--json", "--max-width", "1",
                     "--min-records", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["unreliable"] is False
    # --knowledge: records without a context are judged against the directory, as guard does
    kdir = tmp_path / "kb"
    kdir.mkdir()
    (kdir / "shop.md").write_text(SHOP, encoding="utf-8")
    rec = tmp_path / "r.jsonl"
    rec.write_text(json.dumps({"context": "", "response": "Standard delivery costs £4.95.", "hallucinated": False})
                   + "\n", encoding="utf-8")
    from director_fast.jobs.guard_job import KnowledgeDir

    without = read_tune_data(rec)[0][0]
    with_kb = read_tune_data(rec, knowledge=KnowledgeDir.build(KnowledgeDir(kdir).documents))[0][0]
    assert without < 0.5 <= with_kb
    with data.open("a", encoding="utf-8") as f:
        f.write(rec.read_text(encoding="utf-8"))
    assert cli.main(["tune", "--data", str(data), "--knowledge", str(kdir), "--json", "--resamples", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["samples"] > 0

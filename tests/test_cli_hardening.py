"""The guard job on hostile files: an --out torn inside a multi-byte UTF-8 character resumes,
records holding lone surrogates are skipped (--skip-bad) or named as FILE:LINE, and a file that
is not UTF-8 never gives a traceback: each bad line is skipped and counted, or named."""

from __future__ import annotations

import io
import json
import random
from types import SimpleNamespace

import pytest

from director_fast.jobs import cli
from director_fast.diagnostics.calibration import read_tune_data
from director_fast.errors import ValidationError
from director_fast.jobs.guard_job import GuardOptions, decode_text_file, read_records, run_guard


class _CheapScorer:
    """review() with the shape run_guard needs; rejects a response holding "REJECT" the way the
    library's scorer rejects bad text (ValidationError)."""

    backend_name = "cheap"

    def review(self, prompt, response, *, context=None, tenant_id=""):
        if "REJECT" in response:
            raise ValidationError("response is not acceptable to this scorer")
        cs = SimpleNamespace(score=0.9, warning=False, h_logical=0.1, h_factual=0.1, evidence=None)
        return True, cs


def _cheap(context, opts):
    return _CheapScorer()


def _rec(i: int, **kw) -> dict:
    r = {"context": f"Le café numéro {i} ouvre à 8 h.", "response": f"Le café {i} ouvre à 8 h ☕.",
         "orig_id": f"café-{i}-😀"}
    r.update(kw)
    return r


def _write_jsonl(path, recs) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")


def _guard(data, out=None, *, skip_bad=False, resume=False, force=False, log=None):
    return run_guard(data, out=out, options=GuardOptions(skip_bad=skip_bad), resume=resume,
                     force=force, progress=False, log=log or io.StringIO(), make_scorer=_cheap)


def _out_lines(out) -> list[dict]:
    return [json.loads(line) for line in out.read_bytes().decode("utf-8").splitlines()]


# --- a torn --out -------------------------------------------------------------------------------


def test_resume_after_out_torn_inside_every_multibyte_character(tmp_path):
    data = tmp_path / "d.jsonl"
    _write_jsonl(data, [_rec(i) for i in range(4)])
    out = tmp_path / "out.jsonl"
    _guard(data, out)
    full = out.read_bytes()
    last_start = full.rstrip(b"\n").rfind(b"\n") + 1
    # every cut that splits a multi-byte character of the last line (2-byte é, 4-byte emoji)
    cuts = [i for i in range(last_start, len(full)) if 0x80 <= full[i] < 0xC0]
    assert len(cuts) >= 4
    for cut in cuts:
        out.write_bytes(full[:cut])
        with pytest.raises(UnicodeDecodeError):
            out.read_bytes().decode("utf-8")  # the test really tears a character
        s = _guard(data, out, resume=True)
        assert (s.records, s.resumed, s.skipped_bad) == (4, 3, 0), cut
        lines = _out_lines(out)  # valid UTF-8 again, one result per record
        assert sorted(r["line"] for r in lines) == [1, 2, 3, 4]
        assert lines[-1]["line"] == 4 and lines[-1]["id"] == "café-3-😀"  # re-scored
        assert out.read_bytes()[:last_start] == full[:last_start]  # finished lines untouched


def test_cli_resume_of_torn_out_exits_zero(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    _write_jsonl(data, [_rec(i) for i in range(3)])
    out = tmp_path / "out.jsonl"
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--no-progress", "--json"]) == 0
    capsys.readouterr()
    full = out.read_bytes()
    out.write_bytes(full[: full.rindex("é".encode()) + 1])  # torn after the lead byte of é
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--resume", "--no-progress",
                     "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["records"] == 3 and summary["resumed"] == 2
    assert [r["line"] for r in _out_lines(out)] == [1, 2, 3]


# --- lone surrogates ----------------------------------------------------------------------------

_SURROGATE_LINES = {
    "response": '{"context": "c", "response": "bad \\ud800 here"}',
    "context": '{"context": "trail \\udfff", "response": "fine"}',
    "question": '{"context": "c", "question": "\\udc80?", "response": "fine"}',
    "orig_id": '{"context": "c", "response": "fine", "orig_id": "id-\\ud83d"}',
    "source": '{"context": "c", "response": "fine", "source": "\\ude00src"}',
    "nested": '{"context": "c", "response": "fine", "meta": {"tags": ["ok", "\\ud800"]}}',
    "key": '{"context": "c", "response": "fine", "k\\ud800": 1}',
    "reversed pair": '{"context": "c", "response": "\\ude00\\ud83d"}',
}


@pytest.mark.parametrize("where", sorted(_SURROGATE_LINES))
def test_lone_surrogate_record_is_skipped_and_counted(tmp_path, where):
    data = tmp_path / "d.jsonl"
    good = json.dumps(_rec(0), ensure_ascii=False)
    data.write_text(f"{good}\n{_SURROGATE_LINES[where]}\n{good}\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    log = io.StringIO()
    s = _guard(data, out, skip_bad=True, log=log)
    assert (s.records, s.skipped_bad) == (2, 1)
    assert f"{data}:2:" in log.getvalue() and "lone surrogate" in log.getvalue()
    assert [r["line"] for r in _out_lines(out)] == [1, 3]  # the output stays valid UTF-8
    with pytest.raises(ValidationError, match=f"^{data}:2: .*lone surrogate"):
        _guard(data, force=True)


def test_paired_surrogate_escape_is_a_valid_character(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"context": "c", "response": "smile \\ud83d\\ude00", "orig_id": "\\ud83d\\ude00"}\n')
    out = tmp_path / "out.jsonl"
    s = _guard(data, out)
    assert (s.records, s.skipped_bad) == (1, 0)
    assert _out_lines(out)[0]["id"] == "😀"


def test_lone_surrogate_with_the_default_scorer_through_the_cli(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    good = json.dumps(_rec(0), ensure_ascii=False)
    data.write_text(f"{good}\n{_SURROGATE_LINES['response']}\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert cli.main(["guard", "--data", str(data), "--out", str(out), "--skip-bad", "--no-progress",
                     "--json"]) == 0
    io_ = capsys.readouterr()
    summary = json.loads(io_.out)
    assert (summary["records"], summary["skipped_bad"]) == (1, 1)
    assert f"{data}:2:" in io_.err
    assert cli.main(["guard", "--data", str(data), "--no-progress", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{data}:2:" in err and "Traceback" not in err


def test_record_the_scorer_rejects_is_skipped_or_named(tmp_path):
    data = tmp_path / "d.jsonl"
    _write_jsonl(data, [_rec(0), _rec(1, response="please REJECT me"), _rec(2)])
    log = io.StringIO()
    s = _guard(data, skip_bad=True, log=log)
    assert (s.records, s.skipped_bad) == (2, 1)
    assert f"{data}:2: response is not acceptable" in log.getvalue()
    with pytest.raises(ValidationError, match=f"^{data}:2: response is not acceptable"):
        _guard(data)


# --- input that is not UTF-8 --------------------------------------------------------------------

_BAD_BYTES = {
    "latin-1": '{"context": "caf\xe9", "response": "ok caf\xe9"}'.encode("latin-1"),
    "encoded surrogate": b'{"context": "c", "response": "x \xed\xa0\x80 y"}',
    "overlong": b'{"context": "c", "response": "x \xc0\xaf y"}',
    "stray continuation": b'{"context": "c", "response": "x \x80 y"}',
    "torn at end": b'{"context": "c", "response": "x \xe2\x98',
}


@pytest.mark.parametrize("kind", sorted(_BAD_BYTES))
def test_non_utf8_line_is_skipped_or_named(tmp_path, capsys, kind):
    data = tmp_path / "d.jsonl"
    good = json.dumps(_rec(0), ensure_ascii=False).encode("utf-8")
    data.write_bytes(good + b"\n" + _BAD_BYTES[kind] + b"\n" + good + b"\n")
    log = io.StringIO()
    s = _guard(data, skip_bad=True, log=log)
    assert (s.records, s.skipped_bad) == (2, 1)
    assert f"{data}:2: not valid UTF-8: byte 0x" in log.getvalue()
    with pytest.raises(ValidationError, match=f"^{data}:2: not valid UTF-8"):
        list(read_records(data))
    # the CLI: one line, no traceback, exit status 2
    assert cli.main(["guard", "--data", str(data), "--no-progress", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("director-fast: error: ")
    assert f"{data}:2: not valid UTF-8" in err


def test_non_utf8_message_names_byte_and_column(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_bytes(b'{"context": "\xc3\xa9t\xc3\xa9 \xff"}\n')  # 13 ASCII, é, t, é, space: 0xFF is column 18
    with pytest.raises(ValidationError, match=rf"^{data}:1: not valid UTF-8: byte 0xFF at column 18 "):
        list(read_records(data))


def test_utf8_bom_on_the_first_line_is_accepted(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + json.dumps(_rec(0)).encode() + b"\r\n" + json.dumps(_rec(1)).encode())
    assert [n for n, _ in read_records(data)] == [1, 2]


def test_stream_and_tune_name_file_and_line_of_non_utf8(tmp_path, capsys):
    resp = tmp_path / "resp.txt"
    resp.write_bytes(b"First line is fine.\nSecond has caf\xe9.\n")
    with pytest.raises(ValidationError, match=rf"^{resp}:2: not valid UTF-8: byte 0xE9 at column 15 "):
        decode_text_file(resp)
    assert cli.main(["stream", "--response", str(resp)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{resp}:2: not valid UTF-8" in err
    tune = tmp_path / "t.jsonl"
    tune.write_bytes(b'{"hallucinated": true, "score": 0.2}\n{"hallucinated": false, "score": 0.9, "tenant": "\xe9"}\n')
    with pytest.raises(ValidationError, match=f"^{tune}:2: not valid UTF-8"):
        read_tune_data(tune)
    tune.write_bytes(b'{"hallucinated": true, "context": "c", "response": "r \\ud800"}\n')
    with pytest.raises(ValidationError, match=f"^{tune}:1: .*lone surrogate"):
        read_tune_data(tune)


# --- mutated files: never anything but a skipped line or a FILE:LINE ValidationError ------------


def test_byte_mutated_inputs_are_skipped_or_named(tmp_path):
    rng = random.Random(16)
    good = b"".join(json.dumps(_rec(i), ensure_ascii=bool(i % 2)).encode("utf-8") + b"\n"
                    for i in range(6))
    data = tmp_path / "d.jsonl"
    specials = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\\ud800", b"\\udfff", b"\x00", b'"', b"\n", b"\\"]
    for _ in range(300):
        buf = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(buf))
            if rng.random() < 0.5:
                buf[pos:pos + rng.randint(0, 2)] = rng.choice(specials)
            else:
                buf[pos] = rng.randrange(256)
        data.write_bytes(bytes(buf))
        n_lines = bytes(buf).count(b"\n") + (not bytes(buf).endswith(b"\n"))
        s = _guard(data, skip_bad=True)
        assert s.records + s.skipped_bad <= n_lines
        try:
            _guard(data)
        except ValidationError as exc:
            assert str(exc).startswith(f"{data}:"), str(exc)


def test_deeply_nested_record_is_skipped_or_named(tmp_path):
    data = tmp_path / "d.jsonl"
    good = json.dumps(_rec(0))
    deep = '{"context": "c", "response": "r", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    nested_surrogate = '{"context": "c", "response": "r", "x": ' + "[" * 800 + '"\\ud800"' + "]" * 800 + "}"
    data.write_text(f"{good}\n{deep}\n{nested_surrogate}\n{good}\n")
    log = io.StringIO()
    s = _guard(data, skip_bad=True, log=log)
    assert (s.records, s.skipped_bad) == (2, 2)
    assert f"{data}:2: JSON nested too deeply" in log.getvalue()
    assert f"{data}:3: a string inside field 'x' holds a lone surrogate" in log.getvalue()
    with pytest.raises(ValidationError, match=f"^{data}:2: JSON nested too deeply"):
        _guard(data)
    tune = tmp_path / "t.jsonl"
    tune.write_text('{"hallucinated": true, "score": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(ValidationError, match=f"^{tune}:1: not a JSON object"):
        read_tune_data(tune)

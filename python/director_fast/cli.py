"""Command line: ``director-fast {guard,demo,stream,bench,export-nli}``.

* ``guard --data FILE.jsonl [--out results.jsonl] [--backend lexical|onnx:DIR] [--threshold T]
  [--stream] [--skip-bad] [--resume]``: the main job (see :mod:`director_fast.jobs`).
* ``demo``: ``guard --stream`` on the sample shipped with the package.
* ``stream [--context FILE --response FILE]``: replay one response token by token and show its
  coherence per sentence and exactly where (character) and why it halts; without files, the first
  hallucinated record of the bundled sample.
* ``bench``: run the side-by-side benchmarks in ``bench/`` (needs a source checkout).
* ``export-nli SOURCE OUT_DIR``: export a Hugging Face NLI checkpoint to the ONNX directory format
  (optional ``export`` extra).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

__all__ = ["main"]


def _print_summary(summary: dict, out: str | None) -> None:
    print("director-fast guard summary")
    width = max(len(k) for k in [*summary, "per-record results"])
    for k, v in summary.items():
        print(f"  {k:{width}s} {v}")
    if out:
        print(f"  {'per-record results':{width}s} {out}")


def _cmd_guard(a: argparse.Namespace) -> int:
    from director_fast.jobs import GuardOptions, run_guard

    opts = GuardOptions(backend=a.backend, threshold=a.threshold, stream=a.stream,
                        tenant_id=a.tenant, skip_bad=a.skip_bad)
    summary = run_guard(a.data, out=a.out, options=opts, resume=a.resume,
                        progress=None if not a.no_progress else False)
    d = summary.to_dict()
    if a.json:
        print(json.dumps(d))
    else:
        _print_summary(d, a.out)
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("director_fast")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def _cmd_demo(a: argparse.Namespace) -> int:
    from director_fast.jobs import sample_path

    ns = argparse.Namespace(data=str(sample_path()), out=a.out, backend=a.backend, threshold=None,
                            stream=True, tenant="", skip_bad=False, resume=False, json=a.json,
                            no_progress=a.no_progress)
    print(f"guarding the bundled sample: {sample_path()}", file=sys.stderr)
    return _cmd_guard(ns)


def _cmd_stream(a: argparse.Namespace) -> int:
    from director_fast.jobs import GuardOptions, _default_scorer_factory, sample_path, tokenize_for_stream
    from director_fast.errors import ValidationError
    from director_fast.stream_guard import stream_guard

    if not a.response and (a.context or a.question):
        raise ValidationError("stream: --context / --question need --response (the text to stream); "
                              "without any of them the bundled sample is used")
    if a.response:
        response = Path(a.response).read_text(encoding="utf-8")
        context = Path(a.context).read_text(encoding="utf-8") if a.context else ""
        question = a.question or ""
    else:
        rec = next(json.loads(line) for line in open(sample_path(), encoding="utf-8")
                   if json.loads(line)["hallucinated"])
        context, response, question = rec["context"], rec["response"], rec.get("question", "")
        print(f"(bundled sample record {rec.get('orig_id', '')}, labelled hallucinated)")
    opts = GuardOptions(backend=a.backend, threshold=a.threshold)
    scorer = _default_scorer_factory(opts)(context, opts)
    sentences: list[tuple[str, float]] = []
    inner = scorer

    class Recording:
        scorer_path = getattr(inner, "scorer_path", type(inner).__name__)

        def score_sentence(self, sentence, **kw):
            res = inner.score_sentence(sentence, **kw)
            sentences.append((sentence, float(getattr(res, "score", res))))
            return res

    toks = tokenize_for_stream(response)
    g = stream_guard(toks, Recording(), prompt=question)
    delivered = "".join(g)
    s = g.session
    print("coherence per sentence:")
    for sent, sc in sentences:
        short = sent if len(sent) <= 100 else sent[:97] + "..."
        print(f"  {sc:.3f}  {short}")
    if s.halted:
        char = len("".join(s.tokens[: s.halt_index]))
        print(f"HALTED: {s.halt_reason_text or s.halt_reason} at token {s.halt_index}, character {char}")
        ev = s.halt_evidence_structured
        if ev is not None:
            print(f"  suggested action: {ev.suggested_action}")
            for ch in ev.evidence_chunks[:3]:
                print(f"  evidence ({ch.source}, distance {ch.distance:.3f}): {ch.text[:100]}")
        print(f"delivered ({len(delivered)} chars): {delivered[:300]!r}")
    else:
        print(f"not halted; {len(toks)} tokens delivered")
    return 0


def _cmd_bench(a: argparse.Namespace) -> int:
    import runpy

    here = Path(__file__).resolve()
    for cand in (Path.cwd() / "bench", here.parents[2] / "bench"):
        script = cand / "compare_director_ai.py"
        if script.is_file():
            sys.argv = [str(script)] + (["--quick"] if a.quick else [])
            runpy.run_path(str(script), run_name="__main__")
            return 0
    print("bench/compare_director_ai.py not found: run from a source checkout", file=sys.stderr)
    return 2


def _cmd_export(a: argparse.Namespace) -> int:
    from director_fast.export import export_nli

    path = export_nli(a.source, a.out_dir, quantize=not a.no_quantize, opset=a.opset)
    print(f"wrote {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="director-fast", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="cmd", required=True)

    g = sub.add_parser("guard", help="score every record of a JSONL file")
    g.add_argument("--data", required=True, help="JSONL with context, question, response[, hallucinated]")
    g.add_argument("--out", help="write one JSON line per record here (flushed as produced)")
    g.add_argument("--backend", default="lexical", help="lexical (default) or onnx:DIR")
    g.add_argument("--threshold", type=float, default=None, help="approval threshold (default: backend's)")
    g.add_argument("--stream", action="store_true", help="also replay each response through stream_guard")
    g.add_argument("--tenant", default="", help="tenant id for retrieval and events")
    g.add_argument("--skip-bad", action="store_true", help="skip malformed records (counted)")
    g.add_argument("--resume", action="store_true", help="keep finished records already in --out")
    g.add_argument("--json", action="store_true", help="print the summary as JSON")
    g.add_argument("--no-progress", action="store_true")
    g.set_defaults(fn=_cmd_guard)

    d = sub.add_parser("demo", help="guard --stream on the bundled sample")
    d.add_argument("--out", help="JSONL results, one line per record")
    d.add_argument("--backend", default="lexical", help="lexical (default) or onnx:DIR")
    d.add_argument("--json", action="store_true", help="print the summary as JSON")
    d.add_argument("--no-progress", action="store_true", help="no progress bar")
    d.set_defaults(fn=_cmd_demo)

    s = sub.add_parser("stream", help="replay one response and show where and why it halts")
    s.add_argument("--context", help="file with the source text (evidence); needs --response")
    s.add_argument("--response", help="file with the response to stream (default: a bundled sample record)")
    s.add_argument("--question", help="the prompt / question (text); needs --response")
    s.add_argument("--backend", default="lexical", help="lexical (default) or onnx:DIR")
    s.add_argument("--threshold", type=float, default=None, help="approval threshold in [0, 1]")
    s.set_defaults(fn=_cmd_stream)

    b = sub.add_parser("bench", help="side-by-side benchmarks against director-ai")
    b.add_argument("--quick", action="store_true")
    b.set_defaults(fn=_cmd_bench)

    e = sub.add_parser("export-nli", help="export a HF NLI checkpoint to ONNX (export extra)")
    e.add_argument("source")
    e.add_argument("out_dir")
    e.add_argument("--no-quantize", action="store_true", help="skip the int8 CPU copy")
    e.add_argument("--opset", type=int, default=17)
    e.set_defaults(fn=_cmd_export)

    a = p.parse_args(argv)
    from director_fast.errors import DirectorFastError

    try:
        return a.fn(a)
    except DirectorFastError as exc:
        print(f"director-fast: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # missing file, a directory given as --data, permissions
        print(f"director-fast: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

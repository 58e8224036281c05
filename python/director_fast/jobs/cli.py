"""Command line: ``director-fast {guard,demo,stream,bench,export-nli}``.

* ``guard --data FILE.jsonl [--out results.jsonl] [--backend lexical|model|onnx:DIR] [--threshold T]
  [--stream] [--knowledge DIR] [--skip-bad] [--resume | --force] [--engine local|ray
  [--ray-address ADDR] [--concurrency N] [--num-gpus G]]``: the main job (see
  :mod:`director_fast.jobs.guard_job`; ``--engine ray``: :mod:`director_fast.jobs.distributed`).
* ``demo``: ``guard --stream`` on the sample shipped with the package.
* ``stream [--context FILE --response FILE] [--knowledge DIR] [--on-halt-text TEXT] [--json]``:
  replay one response token by token and show its coherence per sentence and exactly where
  (character) and why it halts (the halting claim, its verdict and signal, the evidence sentence
  that decided it, the cause and a suggestion); without files, the first hallucinated record of
  the bundled sample.
* ``review [--context FILE --response FILE] [--knowledge DIR] [--json]``: judge one response and
  show every failing claim with its evidence (``--explain all``: the supported ones too).
* ``guard``, ``demo``, ``stream`` and ``review`` take ``--explain none|failing|all``: how much of
  the :class:`~director_fast.types.explanation.Explanation` each record carries.
* ``tune --data FILE.jsonl [--out CONFIG.json] [--objective balanced_accuracy|max_fpr]
  [--max-fpr X] [--seed N] [--holdout F] [--backend lexical|model|onnx:DIR] [--knowledge DIR]
  [--max-width W] [--min-records N]``: calibrate the scorer threshold on labelled records
  (:func:`director_fast.tune_threshold`) and write the config that ``CoherenceScorer.from_config``
  loads; a wide interval or a small tuning set is a warning (stderr) and ``unreliable`` in the
  result.
* ``bench``: run the side-by-side benchmarks in ``bench/`` (needs a source checkout).
* ``export-nli SOURCE OUT_DIR``: export a Hugging Face NLI checkpoint to the ONNX directory format
  (optional ``export`` extra).

Exit status: 0 success, 1 ``review`` rejected the response / ``stream`` halted it / a bench
section failed, 2 bad input or a file error, 130 interrupted (Ctrl-C; ``guard`` then says how to
resume). ``guard`` and ``demo`` exit 0 whatever their records' verdicts (they are in the output).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from director_fast.jobs.guard_job import GuardOptions, GuardSummary

__all__ = ["VERDICT_FAILED", "build_parser", "main"]

#: exit status of ``review`` when the response is rejected and of ``stream`` when it halted, so a
#: shell script or CI step can gate on the verdict (``director-fast review ... || handle``)
VERDICT_FAILED = 1


_DESCRIPTION = """\
Guard LLM output from the command line.

commands:
  guard       score every record of a JSONL file (context, question, response)
  demo        guard --stream on the sample bundled with the package
  stream      replay one response token by token; show where and why it halts
  review      judge one response; show which claims fail, on what evidence, and why
  tune        calibrate the scorer threshold on labelled records; write a scorer config
  bench       side-by-side benchmarks against director-ai (source checkout)
  export-nli  export a Hugging Face NLI checkpoint to ONNX (export extra)

Run "director-fast COMMAND --help" for the options of a command."""

_GROUP_COLS = ("records", "approved", "rejected", "halts", "catch_rate", "false_positive_rate")


def _fmt(v: object) -> str:
    return "-" if v is None else str(v)


def _print_table(title: str, rows: list[list[str]], header: list[str]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print(f"  {title}")
    for r in [header, *rows]:
        print("    " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip())


def _print_summary(summary: dict, out: str | None) -> None:
    print("director-fast guard summary")
    groups = {k: summary[k] for k in ("halt_reasons", "rejection_causes", "by_source", "by_label") if k in summary}
    flat = {k: v for k, v in summary.items() if k not in groups}
    width = max(len(k) for k in [*flat, "per-record results"])
    for k, v in flat.items():
        print(f"  {k:{width}s} {_fmt(v)}")
    if out:
        print(f"  {'per-record results':{width}s} {out}")
    for key, title, col in (("halt_reasons", "halt reasons", "halts"),
                            ("rejection_causes", "rejection causes", "rejected")):
        counts = groups.get(key) or {}
        if counts:
            total = sum(counts.values())
            rows = [[r, str(n), f"{100.0 * n / total:.1f}%"]
                    for r, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
            _print_table(title, rows, ["reason" if key == "halt_reasons" else "cause", col, "share"])
    for key, title in (("by_source", "by source"), ("by_label", "by label")):
        table = groups.get(key) or {}
        if not table:
            continue
        cols = [c for c in _GROUP_COLS if any(c in g for g in table.values())]
        rows = [[name, *(_fmt(g.get(c)) for c in cols)] for name, g in table.items()]
        _print_table(title, rows, [key[3:], *cols])


def _guard_ray(a: argparse.Namespace, opts: "GuardOptions") -> "GuardSummary":
    """``guard --engine ray``: connect to (or start) a Ray cluster and run guard_dataset."""
    from director_fast.jobs.distributed import _ray, guard_dataset, read_dataset
    from director_fast.errors import ConfigError
    from director_fast.jobs.guard_job import check_output_is_not_input, check_paths

    check_output_is_not_input(a.data, a.out)
    check_paths(a.data, a.out)
    if a.resume:
        raise ConfigError("--resume runs with --engine local (it resumes a results file written by "
                          "either engine)", field="resume")
    ray = _ray()
    started = False
    if not ray.is_initialized():
        import logging

        kw: dict = {"address": a.ray_address} if a.ray_address else {"include_dashboard": False}
        ray.init(logging_level=logging.WARNING, log_to_driver=False, **kw)
        started = True
    try:
        ray.data.DataContext.get_current().enable_progress_bars = not a.no_progress
        return guard_dataset(read_dataset(a.data), out=a.out, force=getattr(a, "force", False),
                             options=opts, concurrency=a.concurrency, num_gpus=a.num_gpus)
    finally:
        if started:
            ray.shutdown()


def _cmd_guard(a: argparse.Namespace) -> int:
    from director_fast.errors import ConfigError
    from director_fast.jobs.guard_job import GuardOptions, run_guard

    opts = GuardOptions(backend=a.backend, threshold=a.threshold, stream=a.stream,
                        tenant_id=a.tenant, skip_bad=a.skip_bad, knowledge=getattr(a, "knowledge", None),
                        explain=getattr(a, "explain", "failing"))
    engine = getattr(a, "engine", "local")
    if engine == "local":
        for flag, val in (("--ray-address", getattr(a, "ray_address", None)),
                          ("--concurrency", getattr(a, "concurrency", None)),
                          ("--num-gpus", getattr(a, "num_gpus", 0) or None)):
            if val is not None:
                raise ConfigError(f"{flag} needs --engine ray", field=flag[2:].replace("-", "_"))
    try:
        if engine == "ray":
            summary = _guard_ray(a, opts)
        else:
            summary = run_guard(a.data, out=a.out, options=opts, resume=a.resume,
                                force=getattr(a, "force", False),
                                progress=None if not a.no_progress else False)
    except KeyboardInterrupt:
        if a.out:
            hint = f"finished results are in {a.out}; to continue, run the same command with --resume"
            if getattr(a, "force", False):
                hint += " instead of --force"
        else:
            hint = "nothing was kept (no --out); pass --out FILE to be able to resume"
        print(f"\ndirector-fast: interrupted; {hint}", file=sys.stderr)
        return 130
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
    from director_fast.jobs.guard_job import sample_path

    ns = argparse.Namespace(data=str(sample_path()), out=a.out, backend=a.backend, threshold=None,
                            stream=True, tenant="", skip_bad=False, resume=a.resume, force=a.force,
                            json=a.json, no_progress=a.no_progress, explain=a.explain)
    print(f"guarding the bundled sample: {sample_path()}", file=sys.stderr)
    return _cmd_guard(ns)


def _one_input(a: argparse.Namespace, what: str) -> tuple[str, str, str]:
    """``(context, response, question)`` of ``stream`` / ``review``: the files given, or the first
    hallucinated record of the bundled sample."""
    from director_fast.errors import ValidationError
    from director_fast.jobs.guard_job import decode_text_file, sample_path

    if not a.response and (a.context or a.question):
        raise ValidationError(f"{what}: --context / --question need --response (the text to {what}); "
                              "without any of them the bundled sample is used")
    if a.response:
        context = decode_text_file(a.context) if a.context else ""
        response = decode_text_file(a.response)
        if not response.strip():  # as guard rejects such a record: an empty file is a broken pipeline, not a pass
            raise ValidationError(f"{what}: the --response file {a.response!r} is empty", "response")
        return context, response, a.question or ""
    rec = next(json.loads(line) for line in open(sample_path(), encoding="utf-8")
               if json.loads(line)["hallucinated"])
    if not a.json:
        print(f"(bundled sample record {rec.get('orig_id', '')}, labelled hallucinated)")
    return rec["context"], rec["response"], rec.get("question", "")


def _scorer_for(a: argparse.Namespace) -> Any:
    """The scorer of ``stream`` / ``review`` (``--backend``, ``--threshold``, ``--knowledge``)."""
    from director_fast.jobs.guard_job import GuardOptions, KnowledgeDir, make_scorer_factory

    opts = GuardOptions(backend=a.backend, threshold=a.threshold, knowledge=a.knowledge)
    docs = KnowledgeDir(a.knowledge).documents if a.knowledge else None
    return make_scorer_factory(opts, knowledge=docs)("", opts)


def _print_explanation(exp: object, indent: str = "  ") -> None:
    """The failing claims of an explanation, one block each, then the suggestion."""
    for c in exp.failing:  # type: ignore[attr-defined]
        print(f"{indent}claim {c.claim_index}: {c.claim!r}")
        model = f", model p(supported)={c.probability:.2f}" if c.probability is not None else ""
        print(f"{indent}  verdict: {c.verdict} (signal: {c.signal}{model}; cause: {c.cause})")
        if c.evidence:
            print(f"{indent}  evidence{' [' + c.source + ']' if c.source else ''}: {c.evidence!r}")
            if c.passage:
                print(f"{indent}  (judged on the passage: {c.passage!r})")
        else:
            print(f"{indent}  evidence: none found about it")
    if exp.suggestion:  # type: ignore[attr-defined]
        print(f"{indent}suggestion: {exp.suggestion}")  # type: ignore[attr-defined]


def _cmd_stream(a: argparse.Namespace) -> int:
    from director_fast.jobs.guard_job import tokenize_for_stream
    from director_fast.stream.stream_guard import stream_guard
    from director_fast.verify.explain import explain_halt

    context, response, question = _one_input(a, "stream")
    scorer = _scorer_for(a)
    sentences: list[tuple[str, float]] = []
    inner = scorer

    class Recording:
        scorer_path = getattr(inner, "scorer_path", type(inner).__name__)
        threshold = getattr(inner, "threshold", None)
        soft_limit = getattr(inner, "soft_limit", None)

        def score_sentence(self, sentence, **kw):
            res = inner.score_sentence(sentence, **kw)
            sentences.append((sentence, float(getattr(res, "score", res))))
            return res

    toks = tokenize_for_stream(response)
    g = stream_guard(toks, Recording(), prompt=question, context=context or None,
                     on_halt_text=a.on_halt_text)
    shown = "".join(g)
    s = g.session
    exp = explain_halt(s, threshold=getattr(inner, "threshold", None))
    if a.json:
        print(json.dumps({
            "halted": s.halted, "halt_reason": str(s.halt_reason), "halt_index": s.halt_index,
            "halt_char": len("".join(s.tokens[: s.halt_index])) if s.halted else -1,
            "delivered": s.output, "shown": shown, "response_tokens": len(toks),
            "sentences": [{"sentence": t, "score": round(v, 6)} for t, v in sentences],
            "halt_explanation": exp.render(a.explain) if exp is not None else None,
        }, ensure_ascii=False))
        return VERDICT_FAILED if s.halted else 0
    print("coherence per sentence:")
    for sent, sc in sentences:
        short = sent if len(sent) <= 100 else sent[:97] + "..."
        print(f"  {sc:.3f}  {short}")
    if s.halted:
        char = len("".join(s.tokens[: s.halt_index]))
        print(f"HALTED: {s.halt_reason_text or s.halt_reason} at token {s.halt_index}, character {char}")
        if exp is not None:
            _print_explanation(exp)
        print(f"delivered ({len(s.output)} chars): {s.output[:300]!r}")
        if a.on_halt_text:
            print(f"shown to the user: {shown[:300]!r}")
    else:
        print(f"not halted; {len(toks)} tokens delivered")
    return VERDICT_FAILED if s.halted else 0


def _cmd_review(a: argparse.Namespace) -> int:
    from director_fast.verify.explain import explain

    context, response, question = _one_input(a, "review")
    scorer = _scorer_for(a)
    approved, cs = scorer.review(question, response, context=context or None)
    exp = explain(cs, threshold=getattr(scorer, "threshold", None), approved=approved,
                  evidence_given=bool(context.strip() or a.knowledge))
    if a.json:
        print(json.dumps({"approved": bool(approved), "score": round(float(cs.score), 6),
                          "threshold": getattr(scorer, "threshold", None), "cause": exp.cause,
                          "explanation": exp.render(a.explain)}, ensure_ascii=False))
        return 0 if approved else VERDICT_FAILED
    print(exp.summary)
    if exp.failing:
        _print_explanation(exp)
    elif exp.suggestion:
        print(f"  suggestion: {exp.suggestion}")
    if a.explain == "all":
        for c in exp.supported:
            print(f"  supported: claim {c.claim_index}: {c.claim!r} (evidence: {c.evidence!r})")
    return 0 if approved else VERDICT_FAILED


def _cmd_bench(a: argparse.Namespace) -> int:
    import runpy

    here = Path(__file__).resolve()
    for cand in (Path.cwd() / "bench", here.parents[2] / "bench"):
        script = cand / "compare_director_ai.py"
        if script.is_file():
            ns = runpy.run_path(str(script), run_name="director_fast_bench")
            args = ["--quick"] if a.quick else []
            if a.repeats is not None:
                args += ["--repeats", str(a.repeats)]
            return int(ns["main"](args) or 0)
    print("bench/compare_director_ai.py not found: run from a source checkout", file=sys.stderr)
    return 2


def _cmd_export(a: argparse.Namespace) -> int:
    from director_fast.jobs.export import export_nli

    path = export_nli(a.source, a.out_dir, quantize=not a.no_quantize, opset=a.opset)
    print(f"wrote {path}")
    return 0


def _cmd_tune(a: argparse.Namespace) -> int:
    from director_fast.diagnostics.calibration import read_tune_data, tune_threshold
    from director_fast.errors import ConfigError

    if a.out and not a.force and os.path.exists(a.out):
        raise ConfigError(f"--out {a.out} exists: pass --force to overwrite it", field="out")
    kb = None
    if a.knowledge:
        from director_fast.jobs.guard_job import KnowledgeDir

        kb = KnowledgeDir.build(KnowledgeDir(a.knowledge).documents)
    scores, labels, tenants = read_tune_data(a.data, backend=a.backend, knowledge=kb)
    limits = {k: v for k, v in (("max_width", a.max_width), ("min_records", a.min_records)) if v is not None}
    res = tune_threshold(scores, labels, objective=a.objective, max_fpr=a.max_fpr, seed=a.seed,
                         holdout=a.holdout, resamples=a.resamples,
                         tenants=tenants if any(tenants) else None, **limits)
    for w in res.warnings:
        print(f"director-fast tune: warning: {w}", file=sys.stderr)
    if a.out:
        res.write_config(a.out)
    if a.json:
        print(json.dumps(res.to_dict()))
        return 0
    h = res.heldout
    lo, hi = (res.interval + [None, None])[:2]
    print("director-fast tune")
    rows = [
        ("records", str(len(scores))),
        ("objective", res.objective + (f" (max_fpr={res.max_fpr})" if res.max_fpr is not None else "")),
        ("threshold", f"{res.threshold:.4f}"),
        ("95% interval", f"[{lo:.4f}, {hi:.4f}]" if lo is not None else "-"),
        (f"{res.metric} (tuning, n={res.samples})", f"{res.score:.4f}"),
        (f"balanced_accuracy ({h.get('split')}, n={h.get('samples')})", _fmt(h.get("balanced_accuracy"))),
        ("  95% interval", _fmt(h.get("balanced_accuracy_interval"))),
        ("catch_rate", _fmt(h.get("catch_rate"))),
        ("false_positive_rate", _fmt(h.get("false_positive_rate"))),
        ("confusion tp/fp/tn/fn", f"{res.true_positives}/{res.false_positives}/{res.true_negatives}/"
                                  f"{res.false_negatives}"),
        ("reliability ECE", _fmt(res.reliability.get("ece"))),
        ("reliable", "NO (see the warnings)" if res.unreliable else "yes"),
    ]
    rows += [(f"tenant {k}", f"{v:.4f}") for k, v in sorted(res.per_tenant.items())]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"  {k.ljust(width)}  {v}")
    print(f"  config: {a.out}" if a.out else "  (no --out: config not written)")
    return 0


def _explain_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--explain", choices=["none", "failing", "all"], default="failing",
                   help="explanation in each result: failing (default: the failing claims with verdict, "
                        "signal, evidence sentence, source, cause and suggestion), all (also the "
                        "supported claims) or none")


def _one_input_args(p: argparse.ArgumentParser, verb: str) -> None:
    """Options shared by ``stream`` and ``review``: one response (``verb``: what is done with it),
    its question and evidence."""
    p.add_argument("--context", metavar="FILE", help="file with the source text (evidence); needs --response")
    p.add_argument("--response", metavar="FILE",
                   help=f"file with the response to {verb} (default: a bundled sample record)")
    p.add_argument("--question", help="the prompt / question (text); needs --response")
    p.add_argument("--knowledge", metavar="DIR",
                   help="directory of .txt/.md documents used as evidence, in addition to --context")
    p.add_argument("--backend", default="lexical", help="lexical (default), model (the shipped claim verifier) or onnx:DIR")
    p.add_argument("--threshold", type=float, default=None, help="approval threshold in [0, 1]")
    p.add_argument("--json", action="store_true", help="print one JSON record instead of text")
    _explain_arg(p)


def build_parser() -> argparse.ArgumentParser:
    """The ``director-fast`` argument parser (every command and option, with its help)."""
    p = argparse.ArgumentParser(prog="director-fast", description=_DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    g = sub.add_parser("guard", help="score every record of a JSONL file",
                       description="Score every record of a JSONL file; print a summary.")
    g.add_argument("--data", required=True, metavar="FILE",
                   help="JSONL input, one object per line: context, response, optional question, "
                        "hallucinated (bool label) and source (grouped in the summary); or a .parquet "
                        "file with those columns (needs pyarrow)")
    g.add_argument("--out", metavar="FILE",
                   help="write one JSON line per record here, flushed as produced (a .parquet name: "
                        "Parquet); an existing file needs --resume or --force")
    g.add_argument("--knowledge", metavar="DIR",
                   help="directory of .txt/.md documents used as evidence for every record, in "
                        "addition to its context (built once per process or Ray actor)")
    g.add_argument("--engine", choices=["local", "ray"], default="local",
                   help="local (default): this process; ray: a pool of Ray actors (ray extra), "
                        "same results and summary")
    g.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="with --engine ray: the cluster to join (default: start a local one)")
    g.add_argument("--concurrency", type=int, default=None, metavar="N",
                   help="with --engine ray: scoring actors (default: the cluster's CPUs)")
    g.add_argument("--num-gpus", type=float, default=0, metavar="G",
                   help="with --engine ray: GPUs per actor (onnx backend with CUDA; default 0)")
    g.add_argument("--backend", default="lexical", help="lexical (default), model (the shipped claim verifier) or onnx:DIR")
    g.add_argument("--threshold", type=float, default=None,
                   help="approval threshold in [0, 1] (default: the backend's)")
    g.add_argument("--stream", action="store_true",
                   help="also replay each response token by token through stream_guard")
    g.add_argument("--tenant", default="", help="tenant id for retrieval and events (default: none)")
    g.add_argument("--skip-bad", action="store_true",
                   help="skip malformed records (counted in the summary) instead of stopping")
    g.add_argument("--resume", action="store_true",
                   help="keep the finished results already in --out and score only the rest")
    g.add_argument("--force", action="store_true", help="overwrite an existing --out")
    g.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    g.add_argument("--no-progress", action="store_true",
                   help="no progress bar (default: shown when stderr is a terminal)")
    _explain_arg(g)
    g.set_defaults(fn=_cmd_guard)

    d = sub.add_parser("demo", help="guard --stream on the bundled sample",
                       description="Run guard --stream on the 40 labelled records bundled with the package.")
    d.add_argument("--out", metavar="FILE",
                   help="write one JSON line per record here; an existing file needs --resume or --force")
    d.add_argument("--backend", default="lexical", help="lexical (default), model (the shipped claim verifier) or onnx:DIR")
    d.add_argument("--resume", action="store_true", help="keep the finished results already in --out")
    d.add_argument("--force", action="store_true", help="overwrite an existing --out")
    d.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    d.add_argument("--no-progress", action="store_true",
                   help="no progress bar (default: shown when stderr is a terminal)")
    _explain_arg(d)
    d.set_defaults(fn=_cmd_demo)

    s = sub.add_parser("stream", help="replay one response and show where and why it halts",
                       description="Replay one response token by token; print the coherence of each "
                                   "sentence and where (character) and why the stream halts.")
    _one_input_args(s, "stream")
    s.add_argument("--on-halt-text", metavar="TEXT", default=None,
                   help="a fallback message shown after a halt, after the last safe text (default: none)")
    s.set_defaults(fn=_cmd_stream)

    r = sub.add_parser("review", help="judge one response; show which claims fail and why",
                       description="Judge one response claim by claim; print the verdict, each failing "
                                   "claim with its verdict, signal and deciding evidence sentence, and "
                                   "a suggestion.")
    _one_input_args(r, "judge")
    r.set_defaults(fn=_cmd_review)

    t = sub.add_parser("tune", help="calibrate the scorer threshold on labelled records",
                       description="Sweep the scorer threshold on a seeded held-out split of labelled "
                                   "records, pick it by an objective, report the curve, confusion counts, "
                                   "a bootstrap 95 percent interval and a reliability curve, and write "
                                   "the config that CoherenceScorer.from_config loads. Warns when the "
                                   "interval is wider than --max-width or the tuning set smaller than "
                                   "--min-records.")
    t.add_argument("--data", required=True, metavar="FILE",
                   help="JSONL, one object per line: hallucinated (bool label), optional tenant, and either "
                        "score (in [0, 1]) or context/response/optional question (scored here)")
    t.add_argument("--out", metavar="FILE", help="write the scorer config (JSON) here")
    t.add_argument("--force", action="store_true", help="overwrite an existing --out")
    t.add_argument("--objective", default="balanced_accuracy", choices=["balanced_accuracy", "max_fpr"],
                   help="what the threshold maximises (default balanced_accuracy)")
    t.add_argument("--max-fpr", type=float, default=None,
                   help="with --objective max_fpr: the largest false-positive rate allowed")
    t.add_argument("--seed", type=int, default=0, help="seed of the split and the bootstrap (default 0)")
    t.add_argument("--holdout", type=float, default=0.3, help="held-out share (default 0.3; 0: none)")
    t.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    t.add_argument("--backend", default="lexical", help="lexical (default), model or onnx:DIR, for unscored records")
    t.add_argument("--knowledge", metavar="DIR",
                   help="directory of .txt/.md documents used as evidence for every unscored record, in "
                        "addition to its context (as guard --knowledge)")
    t.add_argument("--max-width", type=float, default=None, metavar="W",
                   help="warn when the threshold's 95 percent interval is wider than W "
                        "(default: tune_threshold's, 0.2)")
    t.add_argument("--min-records", type=int, default=None, metavar="N",
                   help="warn when fewer than N records tune the threshold (default: tune_threshold's, 100)")
    t.add_argument("--json", action="store_true", help="print the whole TuneResult as one JSON object")
    t.set_defaults(fn=_cmd_tune)

    b = sub.add_parser("bench", help="side-by-side benchmarks against director-ai",
                       description="Side-by-side benchmarks against director-ai 3.21.0 (needs a source "
                                   "checkout and the bench extra). Prints each section as it completes; "
                                   "exit status 1 when a section failed.")
    b.add_argument("--quick", action="store_true",
                   help="smaller inputs: a smoke run of a few minutes")
    b.add_argument("--repeats", type=int, default=None, metavar="N",
                   help="timed runs per figure, median reported (default and minimum 5)")
    b.set_defaults(fn=_cmd_bench)

    e = sub.add_parser("export-nli", help="export a HF NLI checkpoint to ONNX (export extra)",
                       description="Export a Hugging Face NLI checkpoint to the ONNX model directory "
                                   "that --backend onnx:DIR loads (needs the export extra).")
    e.add_argument("source", help="Hugging Face model id or local checkpoint directory")
    e.add_argument("out_dir", help="directory to write the ONNX model, tokenizer and config to")
    e.add_argument("--no-quantize", action="store_true", help="skip the int8 CPU copy")
    e.add_argument("--opset", type=int, default=17, help="ONNX opset version (default 17)")
    e.set_defaults(fn=_cmd_export)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``director-fast`` console script.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 success, 1 ``review`` rejected the response, ``stream`` halted it or
        a bench section failed (:data:`VERDICT_FAILED`), 2 bad input or a file error, 130
        interrupted (Ctrl-C). ``--help``/``--version``/bad usage exit through ``SystemExit``.
    """
    a = build_parser().parse_args(argv)
    from director_fast.errors import DirectorFastError

    try:
        return a.fn(a)
    except KeyboardInterrupt:
        print(f"\ndirector-fast: {a.cmd} interrupted", file=sys.stderr)
        return 130
    except DirectorFastError as exc:
        print(f"director-fast: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # missing file, a directory given as --data, permissions
        print(f"director-fast: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

"""What an explanation costs: time per review with and without ``explain()``, and the size of a
guard result line at each ``--explain`` level.

Pairs: the 40 records of the bundled sample (context, question, response). Timed per pass over all
records, median of ``--repeats`` passes (after one warm-up pass, so the scorer's caches hold the
same entries in every column):

* ``director-ai review``: director-ai 3.21.0's ``CoherenceScorer(threshold=0.5).review(context,
  response)`` (its heuristic backend), for scale;
* ``review``: director_fast's ``CoherenceScorer().review(question, response, context=context)``
  (the plain baseline);
* ``review + explain``: the same plus ``explain(result)``;
* ``explain`` alone: on the stored results.

Size: the mean bytes of a ``director-fast guard`` JSON line (``guard_record``) at ``--explain
none`` / ``failing`` / ``all``.

Usage: python bench/bench_explain.py [--repeats N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _util import env_line, median_time, table  # noqa: E402

from director_fast import CoherenceScorer  # noqa: E402
from director_fast.jobs.guard_job import GuardOptions, guard_record, make_scorer_factory, sample_path  # noqa: E402
from director_fast.verify.explain import explain  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    a = ap.parse_args(argv)
    recs = [json.loads(line) for line in open(sample_path(), encoding="utf-8")]
    scorer = CoherenceScorer()

    def review():
        return [scorer.review(r.get("question", ""), r["response"], context=r["context"] or None) for r in recs]

    results = review()

    def review_explain():
        return [explain(cs, threshold=scorer.threshold, approved=ok) for ok, cs in review()]

    def explain_only():
        return [explain(cs, threshold=scorer.threshold, approved=ok) for ok, cs in results]

    rows = []
    try:
        from director_ai.core import CoherenceScorer as DAScorer

        da = DAScorer(threshold=0.5)
        logging.disable(logging.WARNING)  # director-ai reports every rejection
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                t_da = median_time(lambda: [da.review(r["context"], r["response"]) for r in recs], a.repeats)
        finally:
            logging.disable(logging.NOTSET)
        rows.append(["director-ai review", f"{t_da / len(recs) * 1e3:.3f}", "-"])
    except Exception as exc:  # director-ai missing or changed: the other rows still stand
        print(f"director-ai not measured: {type(exc).__name__}: {exc}", file=sys.stderr)
    t_rev = median_time(review, a.repeats)
    t_both = median_time(review_explain, a.repeats)
    t_exp = median_time(explain_only, a.repeats)
    rows += [["review (baseline)", f"{t_rev / len(recs) * 1e3:.3f}", "1.00"],
             ["review + explain", f"{t_both / len(recs) * 1e3:.3f}", f"{t_both / t_rev:.2f}"],
             ["explain alone", f"{t_exp / len(recs) * 1e3:.3f}", f"{t_exp / t_rev:.2f}"]]
    print(env_line())
    print(f"command: python bench/bench_explain.py --repeats {a.repeats}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{len(recs)} records of the bundled sample, median of {a.repeats} passes")
    print()
    print(table(rows, ["", "ms per record", "x review"]))
    print()
    sizes = []
    for level in ("none", "failing", "all"):
        opts = GuardOptions(explain=level)
        make = make_scorer_factory(opts)
        lines = [json.dumps(guard_record(i, r, make, opts), ensure_ascii=False) for i, r in enumerate(recs, 1)]
        sizes.append([level, f"{sum(len(x.encode()) for x in lines) / len(lines):.0f}"])
    print(table(sizes, ["--explain", "bytes per result line (mean)"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

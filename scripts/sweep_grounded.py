"""Review every row of every grounded data file and report any exception (issue 30).

Usage: ``python scripts/sweep_grounded.py [DATA_DIR] [--limit N]`` (DATA_DIR defaults to
``../shared/data/grounded``). Each row's ``question``, ``response`` and ``context`` go through
``CoherenceScorer(use_nli=False).review(question, response, context=[context])``. Prints one line
per file (rows, exceptions, seconds) and the first few failures; exits 1 when any row raised.
The data files are read in place, never copied into the repository.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
import traceback


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", default=os.path.join("..", "shared", "data", "grounded"))
    ap.add_argument("--limit", type=int, default=0, help="rows per file (0: all)")
    args = ap.parse_args(argv)
    from director_fast import CoherenceScorer

    scorer = CoherenceScorer(use_nli=False)
    files = sorted(glob.glob(os.path.join(args.data_dir, "*.jsonl")))
    if not files:
        print(f"no *.jsonl under {args.data_dir}", file=sys.stderr)
        return 2
    total = failed = 0
    for path in files:
        rows = errors = 0
        t0 = time.perf_counter()
        with open(path, encoding="utf-8") as fh:
            for line_no, line in enumerate(fh, 1):
                if args.limit and rows >= args.limit:
                    break
                if not line.strip():
                    continue
                r = json.loads(line)
                rows += 1
                try:
                    scorer.review(r.get("question") or "", r.get("response") or "",
                                  context=[r.get("context") or ""])
                except Exception:  # noqa: BLE001 - the sweep reports every exception
                    errors += 1
                    if errors <= 3:
                        print(f"{os.path.basename(path)}:{line_no}: {traceback.format_exc(limit=3)}")
        total += rows
        failed += errors
        print(f"{os.path.basename(path)}: rows={rows} exceptions={errors} "
              f"seconds={time.perf_counter() - t0:.1f}", flush=True)
    print(f"total rows={total} exceptions={failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

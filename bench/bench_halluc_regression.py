"""Regression check of the claim-level verdict against the pre-change build (commit d8bde3c).

Run:  python bench/bench_halluc_regression.py --old-python /work/venv-old/bin/python [--quick]

``--old-python`` is a Python whose ``director_fast`` is a (non-editable) build of d8bde3c, e.g.

    git -C <repo> archive d8bde3c | tar -x -C /work/old
    python3 -m venv /work/venv-old
    /work/venv-old/bin/pip install scikit-build-core pybind11 numpy tqdm
    /work/venv-old/bin/pip install --no-build-isolation /work/old

The same records are reviewed, in the same run, by three systems:

* new: this checkout's ``director_fast.CoherenceScorer()`` (lexical default, threshold 0.5),
  ``review(question, response, context=document)`` with ``question = r.get("question") or ""``;
* old: the d8bde3c build, in a subprocess under ``--old-python`` (this script re-invoked with
  ``--worker``), reviewing with the document as the prompt, ``review(document, response)``, as
  bench/bench_scoring.py at d8bde3c did;
* director-ai (installed version) heuristic: ``CoherenceScorer(use_nli=False).review(document,
  response)``, when importable.

Files: the summary-consistency test files only (summac_factcc, summac_polytope, summac_summeval,
summac_xsumfaith, summedits rows with split == "test", wice_claim_test). The default run uses
every record of these files (the old bench_scoring.py had no cap outside --quick); --quick takes a
seeded sample of at most 200 records per file (numpy default_rng(0), as the old bench's --quick).
Label: ``hallucinated`` (True = positive); predicted hallucinated = not approved at each system's
default threshold; ROC-AUC of 1 - score. Metrics from director_fast.diagnostics.metrics for all three systems.
ms/rec: this process's (or the worker's) CPU time of the scoring pass divided by the record count,
one pass, a fresh scorer per file (so it is robust to other load on the machine, but includes
whatever caching each library does within a file).
Gate: per file, BA(new) - BA(old) >= -0.03.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

logging.disable(logging.CRITICAL)
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("DIRECTOR_DATA", ROOT.parent / "shared" / "data")) / "halluc"
OLD_COMMIT = "d8bde3c"
MAX_DROP = 0.03
QUICK_CAP = 200
FILES = ["summac_factcc", "summac_polytope", "summac_summeval", "summac_xsumfaith",
         "summedits", "wice_claim_test"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def load(path):
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def datasets(quick):
    """{name: records}: the test rows of each file (summedits: split == "test")."""
    out = {}
    for stem in FILES:
        recs = load(DATA / f"{stem}.jsonl")
        if stem == "summedits":
            out["summedits[test]"] = [r for r in recs if r["split"] == "test"]
        else:
            out[stem] = recs
    if quick:
        import numpy as np

        rng = np.random.default_rng(0)
        out = {k: [v[i] for i in sorted(rng.choice(len(v), min(len(v), QUICK_CAP), replace=False))]
               for k, v in out.items()}
    return out


def score_all(review, recs, label):
    """Review every record; returns (scores, approved, CPU seconds per record)."""
    scores, approved = [], []
    t0 = time.process_time()
    for i, r in enumerate(recs):
        ok, c = review(r)
        scores.append(float(c.score))
        approved.append(bool(ok))
        if (i + 1) % 500 == 0:
            log(f"    {label}: {i + 1}/{len(recs)}")
    cpu = time.process_time() - t0
    return scores, approved, cpu / max(1, len(recs))


# --------------------------------------------------------------------------- old build (worker)

def worker(path):
    """Runs under --old-python: review(document, response) with the d8bde3c build; JSON to stdout."""
    import inspect

    import director_fast
    from director_fast import CoherenceScorer

    where = Path(director_fast.__file__).resolve()
    if ROOT in where.parents:
        raise SystemExit(f"worker imported director_fast from this checkout ({where}), not the old build")
    meta = {"director_fast_file": str(where),
            "review_takes_context": "context" in inspect.signature(CoherenceScorer.review).parameters,
            "threshold": CoherenceScorer().threshold}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    res = {}
    for name, recs in data.items():
        scorer = CoherenceScorer()
        s, a, t = score_all(lambda r: scorer.review(r["context"], r["response"]), recs, f"old {name}")
        res[name] = {"scores": s, "approved": a, "cpu_per_rec": t}
        log(f"  old scored {name} ({len(recs)})")
    json.dump({"meta": meta, "results": res}, sys.stdout)


def run_old(old_python, data):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as fh:
        json.dump({k: [{"context": r["context"], "response": r["response"]} for r in v]
                   for k, v in data.items()}, fh)
        path = fh.name
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        proc = subprocess.run([old_python, str(Path(__file__).resolve()), "--worker", path],
                              stdout=subprocess.PIPE, stderr=None, env=env, cwd=tempfile.gettempdir(),
                              check=True)
    finally:
        os.unlink(path)
    return json.loads(proc.stdout)


# --------------------------------------------------------------------------- report

def fmt(x, nd=3):
    return "n/a" if x is None else f"{x:.{nd}f}"


def summarise(y, scores, approved):
    from director_fast.diagnostics.metrics import binary_metrics, roc_auc

    m = binary_metrics(y, [not a for a in approved])
    return m.balanced_accuracy, m.catch_rate, m.false_positive_rate, roc_auc(y, [1.0 - s for s in scores])


def git_state():
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no",
                                "--", "python", "cpp"], capture_output=True, text=True, check=True).stdout
        n = len([x for x in dirty.splitlines() if x.strip()])
        return head, n
    except Exception:
        return "unknown", -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old-python", help=f"python with a build of {OLD_COMMIT} installed")
    ap.add_argument("--quick", action="store_true", help=f"at most {QUICK_CAP} records per file (seeded)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    if not args.old_python:
        ap.error("--old-python is required")

    load_start = os.getloadavg()
    t_start = time.perf_counter()
    data = datasets(args.quick)
    log("records: " + ", ".join(f"{k} {len(v)}" for k, v in data.items()))

    log(f"old ({OLD_COMMIT}) via {args.old_python} ...")
    old = run_old(args.old_python, data)

    import director_fast
    from director_fast import CoherenceScorer

    new_res = {}
    for name, recs in data.items():
        scorer = CoherenceScorer()
        new_res[name] = score_all(
            lambda r: scorer.review(r.get("question") or "", r["response"], context=r["context"]),
            recs, f"new {name}")
        log(f"  new scored {name} ({len(recs)})")
    new_threshold = CoherenceScorer().threshold

    da_res, da_version = {}, None
    try:
        from importlib.metadata import version

        from director_ai import CoherenceScorer as DAScorer

        da_version = version("director-ai")
    except Exception as exc:  # noqa: BLE001
        log(f"director-ai not importable ({exc!r}); its columns are n/a")
        DAScorer = None
    if DAScorer is not None:
        for name, recs in data.items():
            scorer = DAScorer(use_nli=False)
            da_res[name] = score_all(lambda r: scorer.review(r["context"], r["response"]), recs,
                                     f"director-ai {name}")
            log(f"  director-ai scored {name} ({len(recs)})")

    head, dirty = git_state()
    cmd = "python bench/bench_halluc_regression.py --old-python " + args.old_python + \
          (" --quick" if args.quick else "")
    print(f"command: {cmd}")
    print(f"machine: {os.cpu_count()} cores; load average (1/5/15 min) at start "
          f"{load_start[0]:.2f}/{load_start[1]:.2f}/{load_start[2]:.2f}, at end "
          + "/".join(f"{x:.2f}" for x in os.getloadavg())
          + f"; wall {time.perf_counter() - t_start:.0f} s")
    print(f"new: director_fast {director_fast.__version__} from {Path(director_fast.__file__).parent} "
          f"(checkout HEAD {head}" + (f", {dirty} modified tracked file(s) under python/ cpp/" if dirty > 0 else "")
          + f"), threshold {new_threshold}, review(question, response, context=document)")
    print(f"old: {OLD_COMMIT} build from {Path(old['meta']['director_fast_file']).parent}, "
          f"threshold {old['meta']['threshold']}, review(document, response)")
    print("director-ai: " + (f"{da_version} heuristic, CoherenceScorer(use_nli=False).review(document, response)"
                             if da_version else "not importable"))
    print(f"records: {'seeded sample of at most %d per file' % QUICK_CAP if args.quick else 'all test rows'}; "
          f"predicted hallucinated = not approved; AUC of 1 - score; ms/rec = CPU ms per record, one pass; "
          f"gate: BA(new) - BA(old) >= -{MAX_DROP}")
    print()
    hdr = ["file", "n", "halluc",
           "new BA", "catch", "FPR", "AUC", "ms/rec",
           "old BA", "catch", "FPR", "AUC", "ms/rec",
           "ΔBA new-old", f"≥ -{MAX_DROP}",
           "director-ai BA", "catch", "FPR", "AUC", "ms/rec"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    failed = []
    for name, recs in data.items():
        y = [bool(r["hallucinated"]) for r in recs]
        s_n, a_n, t_n = new_res[name]
        o = old["results"][name]
        s_o, a_o, t_o = o["scores"], o["approved"], o["cpu_per_rec"]
        mn = summarise(y, s_n, a_n)
        mo = summarise(y, s_o, a_o)
        delta = None if mn[0] is None or mo[0] is None else mn[0] - mo[0]
        ok = delta is not None and delta >= -MAX_DROP
        if not ok:
            failed.append(name)
        row = [name, str(len(y)), str(sum(y))]
        row += [fmt(v) for v in mn] + [f"{t_n * 1e3:.2f}"]
        row += [fmt(v) for v in mo] + [f"{t_o * 1e3:.2f}"]
        row += ["n/a" if delta is None else f"{delta:+.4f}", "PASS" if ok else "FAIL"]
        if name in da_res:
            s_d, a_d, t_d = da_res[name]
            row += [fmt(v) for v in summarise(y, s_d, a_d)] + [f"{t_d * 1e3:.2f}"]
        else:
            row += ["n/a"] * 5
        print("| " + " | ".join(row) + " |")
    print()
    if failed:
        print(f"RESULT: FAIL — BA(new) fell by more than {MAX_DROP} against {OLD_COMMIT} on: {', '.join(failed)}")
    else:
        print(f"RESULT: PASS — no file lost more than {MAX_DROP} balanced accuracy against {OLD_COMMIT}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

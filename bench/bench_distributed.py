"""The guard job, local vs Ray Data, on generated records (tests/_guard_records.py).

Run:  python bench/bench_distributed.py [--records 100000] [--repeats 3] [--cpus 2] [--knowledge]

Each repeat runs the local job (run_guard, one process) and the Ray job (guard_dataset on a local
Ray instance started here with --cpus CPUs, read_dataset over the same JSONL file), alternating,
and checks that the two produce identical per-record results and summaries (latencies aside).
records/s = records / wall time of the whole run (the Ray time includes starting the actors and
building their scorers; the cluster start itself, once, is reported apart). Medians of the
repeats; the load average (1 min) is read before and after each run, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _guard_records import generate_records, write_jsonl, write_knowledge_dir  # noqa: E402

from director_fast.jobs.guard_job import GuardOptions, run_guard  # noqa: E402

VOLATILE = {"latency_ms_p50", "latency_ms_p95", "latency_ms_p99", "records_per_s"}


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _lines(path: Path) -> list[str]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            d.pop("latency_ms")
            out.append(json.dumps(d, sort_keys=True))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--knowledge", action="store_true", help="shared knowledge base mode")
    ap.add_argument("--batch-size", type=int, default=256)
    a = ap.parse_args(argv)

    import ray

    from director_fast.jobs.distributed import guard_dataset, read_dataset

    work = Path(tempfile.mkdtemp(prefix="bench_distributed_"))
    data = write_jsonl(work / "in.jsonl", generate_records(a.records, seed=42))
    kdir = str(write_knowledge_dir(work / "kb")) if a.knowledge else None
    opts = GuardOptions(knowledge=kdir)
    t0 = time.perf_counter()
    ray.init(num_cpus=a.cpus, include_dashboard=False, log_to_driver=False, configure_logging=False,
             _node_ip_address="127.0.0.1")
    ray.data.DataContext.get_current().enable_progress_bars = False
    init_s = time.perf_counter() - t0
    rows: dict[str, list[float]] = {"local": [], "ray": []}
    loads: list[tuple[str, float, float]] = []
    for rep in range(a.repeats):
        for engine in ("local", "ray"):
            out = work / f"{engine}.jsonl"
            before = _load()
            t = time.perf_counter()
            if engine == "local":
                s = run_guard(data, out=out, options=opts, force=True, progress=False)
            else:
                s = guard_dataset(read_dataset(data), out=out, force=True, options=opts, batch_size=a.batch_size)
            wall = time.perf_counter() - t
            loads.append((engine, before, _load()))
            rows[engine].append(s.records / wall)
            d = {k: v for k, v in s.to_dict().items() if k not in VOLATILE}
            if engine == "local":
                ref = d
            else:
                same = d == ref and _lines(out) == _lines(work / "local.jsonl")
                print(f"repeat {rep + 1}: identical results and summary: {same}", flush=True)
                if not same:
                    return 1
            print(f"repeat {rep + 1} {engine}: {s.records} records, {wall:.1f} s, {s.records / wall:.0f} rec/s, "
                  f"load {loads[-1][1]} -> {loads[-1][2]}", flush=True)
    ray.shutdown()
    print(f"\nrecords {a.records}, knowledge {'shared dir' if kdir else 'per-record context'}, "
          f"ray cpus {a.cpus}, batch {a.batch_size}, ray.init {init_s:.1f} s, repeats {a.repeats}")
    print("| engine | records/s (median) | runs | load avg 1 min (min-max over runs) |")
    print("|---|---|---|---|")
    for engine in ("local", "ray"):
        ls = [x for e, b, af in loads if e == engine for x in (b, af)]
        print(f"| {engine} | {statistics.median(rows[engine]):.0f} | "
              f"{', '.join(f'{v:.0f}' for v in rows[engine])} | {min(ls)}-{max(ls)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Persistent worker that loads evidence index files and exercises them, for the file fuzzer.

Protocol: one JSON request per line on stdin (``{"path": ..., "scratch": ...}``), one JSON reply
per line on stdout: ``{"result": "rejected", "error": <class>}`` when ``load`` refused the file,
``{"result": "ok"}`` when it loaded and every operation either worked or raised a
``DirectorFastError``, ``{"result": "bad", "error": ...}`` for any other exception. A crash ends
the process (the client sees EOF and starts a new worker), so one crashing input costs one
interpreter start, not one per example.

:class:`IndexWorker` is the client.
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

_HERE = os.path.abspath(__file__)


def exercise(path: str, scratch: str) -> dict:
    import numpy as np

    from director_fast.errors import DirectorFastError
    from director_fast.verify.evidence import EvidenceIndex

    try:
        idx = EvidenceIndex.load(path)
    except DirectorFastError as e:
        return {"result": "rejected", "error": type(e).__name__, "message": str(e)[:300]}
    rng = np.random.default_rng(0)
    dim = idx.dim
    q = rng.standard_normal((3, dim)).astype(np.float32)
    tenants = {"", "a", "b"}
    steps = []

    def step(fn):
        steps.append(fn)

    def searches():
        for exact in (False, True):
            for hits in idx.search(q, 5, exact=exact):
                tenants.update(h.tenant for h in hits)
        for t in sorted(tenants):
            idx.search(q, 7, tenant=t)
        labels, _ = idx.search_arrays(q, 4)
        idx.records(labels)

    step(searches)
    step(lambda: [idx.get_vector(i) for i in idx.ids()[:25]])
    step(lambda: [idx.tenant_size(t) for t in sorted(tenants)] + [idx.ids(t) for t in sorted(tenants)])
    step(lambda: idx.remove(idx.ids()[:2], missing_ok=True))  # deletions: hnswlib's filtered search
    step(searches)
    step(lambda: idx.add(rng.standard_normal((3, dim)).astype(np.float32), tenant="a"))
    step(lambda: idx.upsert(rng.standard_normal((1, dim)).astype(np.float32), idx.ids()[-1:], texts=["u"]))
    step(searches)

    def ef_sweep():
        for ef in (1, 50):
            idx.ef_search = ef
            searches()

    step(ef_sweep)

    def roundtrip():
        idx.save(scratch)
        back = EvidenceIndex.load(scratch)
        back.search(q, 5)

    step(roundtrip)
    for fn in steps:
        try:
            fn()
        except DirectorFastError:
            pass
        except Exception as e:  # noqa: BLE001 - reported to the test as a failure
            return {"result": "bad", "error": f"{type(e).__name__}: {e}"[:500]}
    return {"result": "ok"}


def main() -> None:
    for line in sys.stdin:
        req = json.loads(line)
        reply = exercise(req["path"], req["scratch"])
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


class IndexWorker:
    """Client of a worker process; restarts it after a crash or a hang.

    Thread-safety: one caller at a time."""

    def __init__(self, python: str | None = None, timeout: float = 30.0) -> None:
        self.python = python or os.environ.get("DIRECTOR_FAST_INDEX_WORKER_PYTHON") or sys.executable
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def _start(self) -> None:
        self.proc = subprocess.Popen([self.python, "-u", _HERE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, cwd=os.path.dirname(_HERE))
        self.starts += 1

    def run(self, path: str, scratch: str) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps({"path": path, "scratch": scratch}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._dead()
        end = time.monotonic() + self.timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                self.proc.kill()
                self.proc.wait()
                self.proc = None
                return {"result": "hang"}
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                line = self.proc.stdout.readline()
                if not line:
                    return self._dead()
                return json.loads(line)

    def _dead(self) -> dict:
        assert self.proc is not None
        rc = self.proc.wait()
        self.proc = None
        return {"result": "crash", "returncode": rc}

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


if __name__ == "__main__":
    main()

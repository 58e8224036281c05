"""Durable temporal graph: restart, real crashes (SIGKILL mid-write), random truncation, corruption."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from director_fast.memory.temporal import TemporalClaim, TemporalConsistencyGraph
from director_fast.errors import ConfigError, FormatError, StorageError

FUNC = {"diagnosis"}


def make_claims(n: int, seed: int = 0) -> list[TemporalClaim]:
    rng = np.random.default_rng(seed)
    return [
        TemporalClaim(
            f"patient:{rng.integers(0, 40)}",
            ["diagnosis", "has_condition"][int(rng.integers(0, 2))],
            float(rng.integers(0, 1000)),
            f"v{rng.integers(0, 5)}",
            polarity=bool(rng.random() < 0.75),
            tenant_id=["", "acme"][int(rng.integers(0, 2))],
            session_id=f"s{i}",
            source_text="text " * int(rng.integers(0, 4)),
        )
        for i in range(n)
    ]


def in_memory(claims) -> TemporalConsistencyGraph:
    g = TemporalConsistencyGraph(functional_predicates=FUNC)
    for c in claims:
        g.record(c)
    return g


def assert_same(a: TemporalConsistencyGraph, b: TemporalConsistencyGraph) -> None:
    assert a.claim_count() == b.claim_count()
    assert a.contradictions() == b.contradictions()
    for t in ("", "acme"):
        assert a.report(tenant_id=t, include_text=True) == b.report(tenant_id=t, include_text=True)
        for s in a.subjects(tenant_id=t):
            for p in ("diagnosis", "has_condition"):
                assert a.history(s, p, tenant_id=t) == b.history(s, p, tenant_id=t)


def test_restart_round_trip_and_append_after_reopen(tmp_path):
    path = str(tmp_path / "g.log")
    claims = make_claims(300)
    with TemporalConsistencyGraph(functional_predicates=FUNC, path=path) as g:
        for c in claims[:200]:
            g.record(c)
    with TemporalConsistencyGraph(functional_predicates=FUNC, path=path) as g:
        assert g.stats()["replayed_claims"] == 200
        for c in claims[200:]:
            g.record(c)
        g.record(claims[0])  # duplicate: not logged twice
    with TemporalConsistencyGraph(functional_predicates=FUNC, path=path) as g:
        assert g.stats()["replayed_claims"] == 300
        assert_same(g, in_memory(claims))


def test_second_open_of_the_same_log_is_refused(tmp_path):
    path = str(tmp_path / "g.log")
    g = TemporalConsistencyGraph(path=path)
    with pytest.raises(StorageError, match="already open"):
        TemporalConsistencyGraph(path=path)
    g.close()
    with pytest.raises(StorageError, match="closed"):
        g.record(TemporalClaim("s", "p", 1.0))
    TemporalConsistencyGraph(path=path).close()  # lock released by close()


def test_options_must_match_the_log(tmp_path):
    path = str(tmp_path / "g.log")
    TemporalConsistencyGraph(functional_predicates=FUNC, path=path).close()
    with pytest.raises(ConfigError) as e:
        TemporalConsistencyGraph(functional_predicates={"other"}, path=path)
    assert e.value.field == "functional_predicates"
    with pytest.raises(ConfigError) as e:
        TemporalConsistencyGraph(functional_predicates=FUNC, case_sensitive=False, path=path)
    assert e.value.field == "case_sensitive"


def test_foreign_and_corrupt_files_raise_format_error(tmp_path):
    foreign = tmp_path / "foreign.log"
    foreign.write_bytes(b"hello world, not a log at all")
    with pytest.raises(FormatError, match="magic"):
        TemporalConsistencyGraph(path=str(foreign))
    path = tmp_path / "g.log"
    with TemporalConsistencyGraph(path=str(path)) as g:
        for c in make_claims(50):
            g.record(c)
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF  # a flipped bit in the middle is corruption, not a torn tail
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="corrupt"):
        TemporalConsistencyGraph(path=str(path))


def test_random_truncation_keeps_exactly_the_complete_records(tmp_path):
    claims = make_claims(120, seed=1)
    path = tmp_path / "g.log"
    sizes = []
    with TemporalConsistencyGraph(functional_predicates=FUNC, path=str(path)) as g:
        sizes.append(g.stats()["log_bytes"])
        for c in claims:
            g.record(c)
            sizes.append(g.stats()["log_bytes"])  # every claim here is distinct: one record each
    full = path.read_bytes()
    assert len(full) == sizes[-1]
    rng = np.random.default_rng(11)
    offsets = sorted(set(rng.integers(0, len(full) + 1, size=40).tolist()) | {0, 5, sizes[0], len(full) - 1})
    for k, cut in enumerate(offsets):
        p = tmp_path / f"cut{k}.log"
        p.write_bytes(full[:cut])
        complete = max(i for i, s in enumerate(sizes) if s <= cut) if cut >= sizes[0] else 0
        with TemporalConsistencyGraph(functional_predicates=FUNC, path=str(p)) as g:
            st = g.stats()
            assert st["replayed_claims"] == complete
            good = sizes[complete] if cut >= sizes[0] else 0
            assert st["recovered_bytes"] == cut - good
            assert_same(g, in_memory(claims[:complete]))
            g.record(claims[-1])  # the repaired log accepts appends
        with TemporalConsistencyGraph(functional_predicates=FUNC, path=str(p)) as g:
            assert g.stats()["recovered_bytes"] == 0
            expected = claims[:complete] + ([claims[-1]] if claims[-1] not in claims[:complete] else [])
            assert_same(g, in_memory(expected))


def test_zero_filled_tail_is_a_torn_tail(tmp_path):
    path = tmp_path / "g.log"
    claims = make_claims(10)
    with TemporalConsistencyGraph(path=str(path)) as g:
        for c in claims:
            g.record(c)
    with open(path, "ab") as f:
        f.write(b"\0" * 4096)  # e.g. a file system that extended the file before the data landed
    with TemporalConsistencyGraph(path=str(path)) as g:
        assert g.claim_count() == 10 and g.stats()["recovered_bytes"] == 4096


def test_delete_tenant_is_durable_and_erases_the_text(tmp_path):
    path = tmp_path / "g.log"
    with TemporalConsistencyGraph(path=str(path)) as g:
        g.record(TemporalClaim("p", "q", 1.0, "v", tenant_id="acme", source_text="ACME-SECRET-PHRASE"))
        g.record(TemporalClaim("p", "q", 2.0, "v", polarity=False, tenant_id="acme"))
        g.record(TemporalClaim("p", "q", 1.0, "v", tenant_id="globex", source_text="kept"))
        assert b"ACME-SECRET-PHRASE" in path.read_bytes()
        assert g.delete_tenant("acme") == 2
        assert b"ACME-SECRET-PHRASE" not in path.read_bytes()
        g.record(TemporalClaim("p", "q", 3.0, "v", polarity=False, tenant_id="globex"))
    with TemporalConsistencyGraph(path=str(path)) as g:
        assert g.tenants() == ("globex",)
        assert g.claim_count() == 2 and g.contradiction_count() == 1
    assert not os.path.exists(str(path) + ".compact.tmp")


CHILD = textwrap.dedent(
    """
    import sys, numpy as np
    from director_fast.memory.temporal import TemporalConsistencyGraph
    sys.path.insert(0, {tests!r})
    from test_temporal_durable import make_claims, FUNC
    claims = make_claims({n}, seed=5)
    g = TemporalConsistencyGraph(functional_predicates=FUNC, path={path!r})
    i = 0
    while i < len(claims):
        if {batch} and i % 3 == 0:
            chunk = claims[i:i + 7]
            g.record_batch([c.subject for c in chunk], [c.predicate for c in chunk],
                           [c.value for c in chunk], np.array([c.timestamp for c in chunk]),
                           np.array([c.polarity for c in chunk]),
                           tenant_ids=[c.tenant_id for c in chunk],
                           session_ids=[c.session_id for c in chunk],
                           source_texts=[c.source_text for c in chunk])
            i += len(chunk)
        else:
            g.record(claims[i]); i += 1
        sys.stdout.write(f"{{i}}\\n"); sys.stdout.flush()
    sys.stdout.write("done\\n"); sys.stdout.flush()
    import time; time.sleep(60)
    """
)


@pytest.mark.parametrize("batch", [False, True])
def test_sigkill_mid_write_loses_nothing_acknowledged(tmp_path, batch):
    n = 4000
    claims = make_claims(n, seed=5)
    rng = np.random.default_rng(21 + batch)
    for trial in range(3):
        path = str(tmp_path / f"crash{trial}.log")
        code = CHILD.format(tests=os.path.dirname(__file__), n=n, path=path, batch=batch)
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        target = int(rng.integers(50, n // 2))
        acked = 0
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip() == "done":
                break
            acked = int(line)
            if acked >= target:
                break
        time.sleep(float(rng.random()) * 0.01)  # let it get into the middle of further writes
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        with TemporalConsistencyGraph(functional_predicates=FUNC, path=path) as g:
            m = g.stats()["replayed_claims"]
            assert acked <= m <= n
            assert_same(g, in_memory(claims[:m]))

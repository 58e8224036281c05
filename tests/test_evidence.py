"""Tests of director_fast.verify.evidence: EvidenceIndex, HashingEmbedder, OnnxEmbedder."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from director_fast.errors import (
    ConfigError,
    DirectorKeyError,
    FormatError,
    InputTypeError,
    StorageError,
    ValidationError,
)
from director_fast.verify.evidence import EvidenceIndex, HashingEmbedder, OnnxEmbedder

from _index_file import checksum64


def rand(n: int, dim: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def clustered(n: int, dim: int, seed: int = 0, clusters: int = 50) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((clusters, dim)).astype(np.float32)
    x = centers[rng.integers(0, clusters, n)] + 0.3 * rng.standard_normal((n, dim)).astype(np.float32)
    return np.ascontiguousarray(x, dtype=np.float32)


def brute(x: np.ndarray, q: np.ndarray, k: int, space: str) -> np.ndarray:
    if space == "cosine":
        xn = x / np.linalg.norm(x, axis=1, keepdims=True)
        qn = q / np.linalg.norm(q, axis=1, keepdims=True)
        d = 1.0 - qn @ xn.T
    elif space == "ip":
        d = 1.0 - q @ x.T
    else:
        d = ((q[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    return np.argsort(d, axis=1, kind="stable")[:, :k], np.sort(d, axis=1)[:, :k]


@pytest.mark.parametrize("space", ["cosine", "ip", "l2"])
def test_exact_search_matches_numpy(space: str) -> None:
    x, q = rand(300, 16, 1), rand(20, 16, 2)
    idx = EvidenceIndex(16, space=space)
    idx.add(x)
    labels, dists = idx.search_arrays(q, 5, exact=True)
    ref_ids, ref_d = brute(x, q, 5, space)
    assert np.array_equal(labels, ref_ids)
    assert np.allclose(dists, ref_d, atol=1e-4)


_KERNEL_CHECK = """
import sys, numpy as np
from director_fast.verify.evidence import EvidenceIndex
rng = np.random.default_rng(5)
for dim in (1, 2, 3, 8, 14, 15, 16, 17, 18, 30, 31, 32, 33, 34, 46, 47, 384, 385, 386):
    x = rng.standard_normal((40, dim)).astype(np.float32) * 3
    q = rng.standard_normal((6, dim)).astype(np.float32) * 3
    for space in ("ip", "l2"):
        idx = EvidenceIndex(dim, space=space)
        idx.add(x)
        labels, d = idx.search_arrays(q, 40, exact=True)
        x64, q64 = x.astype(np.float64), q.astype(np.float64)
        ref = 1.0 - q64 @ x64.T if space == "ip" else ((q64[:, None] - x64[None]) ** 2).sum(-1)
        got = np.take_along_axis(ref, labels, axis=1)
        assert np.allclose(d, got, rtol=1e-5, atol=1e-4 * dim), (dim, space)
        assert np.all(np.diff(got, axis=1) >= -1e-4 * dim), (dim, space)
    for space in ("ip", "l2") if dim % 2 == 0 else ():  # binary16 storage (even dims only): the
        # same distances over the rounded vectors
        idx = EvidenceIndex(dim, space=space, storage="float16")
        idx.add(x)
        labels, d = idx.search_arrays(q, 40, exact=True)
        xh, qh = x.astype(np.float16).astype(np.float64), q.astype(np.float16).astype(np.float64)
        ref = 1.0 - qh @ xh.T if space == "ip" else ((qh[:, None] - xh[None]) ** 2).sum(-1)
        got = np.take_along_axis(ref, labels, axis=1)
        assert np.allclose(d, got, rtol=1e-5, atol=1e-4 * dim), (dim, space, "f16")
print(idx.distance_kernel)
"""


@pytest.mark.parametrize("cap", ["", "avx2", "baseline"])
def test_distance_kernels_match_float64_for_every_dispatch_level(cap: str) -> None:
    # Each run-time dispatched kernel (AVX-512, AVX2+FMA, hnswlib's baseline), capped through
    # DIRECTOR_FAST_SIMD in a fresh process, on dimensions that exercise every tail length.
    import subprocess
    import sys

    env = dict(os.environ, DIRECTOR_FAST_SIMD=cap)
    out = subprocess.run([sys.executable, "-c", _KERNEL_CHECK], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    kernel = out.stdout.strip()
    assert kernel in ("avx512", "avx2", "baseline")
    if cap == "baseline":
        assert kernel == "baseline"
    elif cap == "avx2":
        assert kernel in ("avx2", "baseline")


@pytest.mark.parametrize("storage", ["float32", "float16"])
@pytest.mark.parametrize("space", ["cosine", "l2"])
def test_prefetching_graph_search_equals_hnswlib_search(storage: str, space: str) -> None:
    # The library's own base-layer search (neighbour vectors prefetched together) must make the
    # same decisions as hnswlib's searchKnn: identical labels and distances, at every ef.
    x, q = clustered(6000, 48, 31), clustered(80, 48, 32)
    idx = EvidenceIndex(48, space=space, storage=storage, exact_threshold=0, M=8, ef_construction=64)
    idx.add(x)
    for ef in (1, 10, 37, 200):
        idx.ef_search = ef
        for k in (1, 10, 50):
            a = idx._idx.search_raw(q, k, None, False, 1)
            b = idx._idx.search_raw(q, k, None, False, 1, reference_search=True)
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), (ef, k)


def test_hnsw_recall_against_exact() -> None:
    # ef_search 96: the graph's random levels come from the C++ standard library's distribution,
    # which differs between libstdc++ and libc++ builds (the zig-built wheel): recall at 64 was
    # 0.952 / 0.943 on the two, at 96 0.991 / 0.983
    x, q = clustered(5000, 32, 3), clustered(100, 32, 4)
    idx = EvidenceIndex(32, exact_threshold=0, ef_search=96)
    idx.add(x)
    approx, _ = idx.search_arrays(q, 10)
    exact, _ = idx.search_arrays(q, 10, exact=True)
    recall = np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact)])
    assert recall >= 0.95


def test_metadata_ids_and_hits() -> None:
    idx = EvidenceIndex(4)
    v = np.eye(4, dtype=np.float32)
    ids = idx.add(v[:2], ["a", 7], texts=["ta", "t7"], sources=["sa", "s7"], tenants=["x", "y"])
    assert ids == ["a", 7]
    assert "a" in idx and 7 in idx and "7" not in idx
    hits = idx.search(v[0], 2)[0]
    assert hits[0].id == "a" and hits[0].text == "ta" and hits[0].source == "sa" and hits[0].tenant == "x"
    assert hits[0].distance == pytest.approx(0.0, abs=1e-6)
    assert hits[1].id == 7 and hits[1].distance == pytest.approx(1.0, abs=1e-6)
    auto = idx.add(v[2:])
    assert auto == [8, 9]  # auto ids never collide with existing integer ids


def test_k_larger_than_size_empty_and_deletions() -> None:
    idx = EvidenceIndex(8)
    assert idx.search(rand(1, 8), 5) == [[]]
    ids = idx.add(rand(10, 8))
    assert len(idx.search(rand(1, 8), 50)[0]) == 10
    idx.remove(ids[:4])
    res = idx.search(rand(3, 8, 5), 50)
    assert all(len(r) == 6 and all(h.id not in ids[:4] for h in r) for r in res)
    with pytest.raises(DirectorKeyError):
        idx.remove([ids[0]])
    assert idx.remove([ids[0], "nope"], missing_ok=True) == 0
    assert len(idx) == 6
    assert idx.search(rand(1, 8), 0) == [[]]


@pytest.mark.parametrize("exact_threshold", [0, 10_000])
def test_tenant_filter_never_leaks(exact_threshold: int) -> None:
    x = clustered(3000, 16, 7)
    tenants = ["a" if i % 50 == 0 else "b" for i in range(3000)]  # tenant a: 60 items
    idx = EvidenceIndex(16, exact_threshold=exact_threshold, ef_search=16)
    ids = idx.add(x, tenants=tenants)
    a_ids = {i for i, t in zip(ids, tenants) if t == "a"}
    res = idx.search(clustered(20, 16, 8), 100, tenant="a")
    for r in res:
        assert {h.id for h in r} == a_ids  # all 60, nothing else
        assert all(h.tenant == "a" for h in r)
    assert idx.search(x[:1], 5, tenant="nobody") == [[]]
    assert idx.tenant_size("a") == 60


def test_upsert_replaces_and_second_batch_keeps_first() -> None:
    idx = EvidenceIndex(4, initial_capacity=2)
    v = np.eye(4, dtype=np.float32)
    idx.add(v[:2], ["p", "q"], texts=["P", "Q"])
    with pytest.raises(DirectorKeyError):
        idx.add(v[2:3], ["p"])
    with pytest.raises(DirectorKeyError):
        idx.add(v[2:4], ["r", "r"])
    assert len(idx) == 2
    idx.add(v[2:4], ["r", "s"])  # grows past initial capacity
    assert idx.capacity >= 4 and set(idx.ids()) == {"p", "q", "r", "s"}
    idx.upsert(v[3:4], ["p"], texts=["P2"])
    hits = idx.search(v[3], 4)[0]
    assert [h.text for h in hits if h.id == "p"] == ["P2"]
    assert len(idx) == 4 and len(hits) == 4


def test_input_checks() -> None:
    idx = EvidenceIndex(4)
    with pytest.raises(InputTypeError, match="float32"):
        idx.add(np.zeros((2, 4), dtype=np.float64))
    with pytest.raises(InputTypeError, match="columns"):
        idx.add(np.zeros((2, 5), dtype=np.float32))
    with pytest.raises(InputTypeError, match="C-contiguous"):
        idx.add(np.zeros((4, 8), dtype=np.float32)[:, ::2])
    with pytest.raises(InputTypeError):
        idx.add([[0.0] * 4])  # type: ignore[arg-type]
    bad = np.ones((2, 4), dtype=np.float32)
    bad[1, 2] = np.nan
    with pytest.raises(ValidationError, match=r"vectors\[1\]"):
        idx.add(bad)
    with pytest.raises(ValidationError):
        idx.add(np.ones((2, 4), dtype=np.float32), texts=["only one"])
    with pytest.raises(InputTypeError):
        idx.add(np.ones((1, 4), dtype=np.float32), [True])
    with pytest.raises(ConfigError):
        EvidenceIndex(4, space="hamming")
    with pytest.raises(ConfigError):
        EvidenceIndex(4, M=1)
    assert len(idx) == 0


def test_save_load_roundtrip(tmp_path) -> None:
    x = clustered(2000, 16, 9)
    idx = EvidenceIndex(16, exact_threshold=0)
    ids = idx.add(x, texts=[f"t{i}" for i in range(2000)], tenants=["a", "b"] * 1000)
    idx.remove(ids[:10])
    idx.add(x[:3], ["s1", "s2", "s3"], sources=["x", "y", "z"])
    p = tmp_path / "ev.idx"
    idx.save(p)
    back = EvidenceIndex.load(p)
    assert len(back) == len(idx) and back.ids() == idx.ids()
    q = clustered(10, 16, 10)
    for t in (None, "a"):
        l1, d1 = idx.search_arrays(q, 10, tenant=t)
        l2, d2 = back.search_arrays(q, 10, tenant=t)
        assert np.array_equal(l1, l2) and np.allclose(d1, d2)
    assert back.search(x[0], 1)[0][0].source == "x"
    new = back.add(x[:1])
    assert new[0] not in ids  # auto ids continue after a reload


def test_float16_storage_rounds_like_numpy_and_rejects_out_of_range() -> None:
    # get_vector returns the stored binary16 values: they must equal numpy's float32 -> float16
    # conversion (round to nearest even) bit for bit, including subnormals, ties and the maximum.
    special = np.array([0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, 65519.0, 6.1e-5, 6.0e-8, 5.96e-8,
                        2.98e-8, 2.99e-8, 1e-9, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 0.1, 1 / 3, 3.14159],
                       dtype=np.float32)
    rng = np.random.default_rng(12)
    rows = [np.resize(special, 24).astype(np.float32)]
    rows += [(rng.standard_normal(24) * 10.0 ** rng.integers(-8, 4)).astype(np.float32) for _ in range(200)]
    x = np.clip(np.stack(rows), -65504, 65504).astype(np.float32)
    idx = EvidenceIndex(24, space="l2", storage="float16")
    ids = idx.add(x)
    for i in range(len(x)):
        want = x[i].astype(np.float16).astype(np.float32)
        got = np.asarray(idx.get_vector(ids[i]), dtype=np.float32)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), i
    bad = np.ones((1, 24), dtype=np.float32)
    bad[0, 3] = 70000.0
    with pytest.raises(ValidationError, match="float16"):
        idx.add(bad)
    assert len(idx) == len(x)  # nothing half-added
    with pytest.raises(ConfigError):
        EvidenceIndex(8, storage="int8")


@pytest.mark.parametrize("space", ["cosine", "ip", "l2"])
def test_float16_storage_search_matches_float64_on_rounded_vectors(space: str) -> None:
    x, q = clustered(3000, 40, 21), clustered(30, 40, 22)
    idx = EvidenceIndex(40, space=space, storage="float16", exact_threshold=0, ef_search=128)
    idx.add(x)
    if space == "cosine":
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
        q = q / np.linalg.norm(q, axis=1, keepdims=True)
    xh = x.astype(np.float16).astype(np.float64)
    qh = q.astype(np.float16).astype(np.float64)
    ref = ((qh[:, None] - xh[None]) ** 2).sum(-1) if space == "l2" else 1.0 - qh @ xh.T
    labels, d = idx.search_arrays(q, 10, exact=True)
    assert np.allclose(d, np.take_along_axis(ref, labels, axis=1), rtol=1e-5, atol=1e-4)
    assert np.array_equal(np.sort(ref, axis=1)[:, :10] <= d[:, -1:] + 1e-4, np.ones((30, 10), bool))
    approx, _ = idx.search_arrays(q, 10)
    assert np.mean([len(set(a) & set(b)) / 10 for a, b in zip(approx, labels)]) >= 0.95


def test_float16_storage_survives_save_and_load(tmp_path) -> None:
    x = clustered(1500, 16, 23)
    idx = EvidenceIndex(16, storage="float16", exact_threshold=0)
    idx.add(x, texts=[f"t{i}" for i in range(1500)])
    idx.save(tmp_path / "h.idx")
    back = EvidenceIndex.load(tmp_path / "h.idx")
    assert back.storage == "float16"
    q = clustered(10, 16, 24)
    l1, d1 = idx.search_arrays(q, 5)
    l2, d2 = back.search_arrays(q, 5)
    assert np.array_equal(l1, l2) and np.array_equal(d1, d2)
    assert np.array_equal(idx.get_vector(7), back.get_vector(7))


def test_format_version_1_files_still_load(tmp_path) -> None:
    # A version-1 file is a version-2 file without the storage field (float32 implied).
    x = clustered(800, 16, 25)
    idx = EvidenceIndex(16, space="l2", exact_threshold=0)
    idx.add(x, texts=[f"t{i}" for i in range(800)])
    idx.save(tmp_path / "v2.idx")
    v2 = (tmp_path / "v2.idx").read_bytes()
    assert int.from_bytes(v2[-8:], "little") == checksum64(v2[:-8])  # the re-implementation is right
    assert v2[8:12] == (2).to_bytes(4, "little")
    body = v2[:8] + (1).to_bytes(4, "little") + v2[12:24] + v2[28:-8]  # drop u32 storage after dim, metric
    (tmp_path / "v1.idx").write_bytes(body + checksum64(body).to_bytes(8, "little"))
    back = EvidenceIndex.load(tmp_path / "v1.idx")
    assert back.storage == "float32" and back.space == "l2" and len(back) == 800
    q = clustered(10, 16, 26)
    assert np.array_equal(idx.search_arrays(q, 5)[0], back.search_arrays(q, 5)[0])


def test_tiny_and_huge_vectors_never_store_nan() -> None:
    # cosine: a subnormal vector is normalised in double (its float32 inverse norm overflows)
    for storage in ("float32", "float16"):
        idx = EvidenceIndex(4, "cosine", storage=storage)
        idx.add(np.ones((2, 4), np.float32))
        i = idx.add(np.array([[1e-45, 0, 0, 0]], np.float32))[0]
        assert np.allclose(idx.get_vector(i), [1, 0, 0, 0], atol=1e-3)
        _, d = idx.search_arrays(np.array([[1e-44, 1e-45, 0, 0]], np.float32), 3)
        assert np.all(np.isfinite(d))
    # ip / l2: squared norms that would overflow float32 distances are refused, naming the row
    for space in ("ip", "l2"):
        idx = EvidenceIndex(2, space)
        with pytest.raises(ValidationError, match=r"vectors\[1\].*overflow"):
            idx.add(np.array([[1, 1], [3e38, 0]], np.float32))
        idx.add(np.ones((2, 2), np.float32))
        with pytest.raises(ValidationError, match=r"queries\[0\].*overflow"):
            idx.search_arrays(np.array([[1e19, 1e19]], np.float32), 1)
    with pytest.raises(ValidationError, match=r"queries\[1\].*non-finite"):
        idx.search_arrays(np.array([[1, 1], [np.nan, 1]], np.float32), 1)


def test_huge_k_is_clamped_to_the_live_items() -> None:
    idx = EvidenceIndex(4)
    idx.add(rand(2, 4))
    labels, dists = idx.search_arrays(rand(3, 4), 2**40)
    assert labels.shape == (3, 2) and np.all(labels >= 0)
    assert [len(r) for r in idx.search(rand(3, 4), 10**9)] == [2, 2, 2]


def test_header_that_disagrees_with_the_graph_is_rejected(tmp_path) -> None:
    # A file with a valid checksum whose header describes other vectors than the graph holds
    # (float16 graph, float32 header) must not load: searches would read outside the records.
    idx = EvidenceIndex(16, space="l2", storage="float16")
    idx.add(rand(20, 16))
    idx.save(tmp_path / "a.idx")
    raw = bytearray((tmp_path / "a.idx").read_bytes())
    assert raw[24:28] == (1).to_bytes(4, "little")  # storage field: float16
    raw[24:28] = (0).to_bytes(4, "little")
    body = bytes(raw[:-8])
    (tmp_path / "b.idx").write_bytes(body + checksum64(body).to_bytes(8, "little"))
    with pytest.raises(FormatError, match="layout"):
        EvidenceIndex.load(tmp_path / "b.idx")


def test_unknown_simd_cap_warns() -> None:
    import subprocess
    import sys

    env = dict(os.environ, DIRECTOR_FAST_SIMD="AVX2")
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", "import director_fast.verify.evidence"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "DIRECTOR_FAST_SIMD" in out.stderr


def test_save_is_atomic_and_corruption_detected(tmp_path) -> None:
    idx = EvidenceIndex(8)
    idx.add(rand(50, 8), texts=["x"] * 50)
    p = tmp_path / "ev.idx"
    idx.save(p)
    good = p.read_bytes()
    assert [f.name for f in tmp_path.iterdir()] == ["ev.idx"]  # no temp files left behind
    # a failed save (target directory missing) leaves nothing and raises StorageError
    with pytest.raises(StorageError):
        idx.save(tmp_path / "missing" / "x.idx")
    for mutate in (lambda b: b[:-20], lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:],
                   lambda b: b"NOTANIDX" + b[8:], lambda b: b[:8] + b"\x09\x00\x00\x00" + b[12:], lambda b: b""):
        p.write_bytes(mutate(good))
        with pytest.raises(FormatError):
            EvidenceIndex.load(p)
    with pytest.raises(StorageError):
        EvidenceIndex.load(tmp_path / "absent.idx")


def test_concurrent_searches_match_serial() -> None:
    x = clustered(3000, 16, 11)
    idx = EvidenceIndex(16, exact_threshold=0)
    idx.add(x, tenants=["a", "b", "c"] * 1000)
    qs = [clustered(50, 16, 20 + i) for i in range(4)]
    serial = [idx.search_arrays(q, 10, tenant="b")[0] for q in qs]
    results: list = [None] * 4
    errors: list = []

    def work(i: int) -> None:
        try:
            for _ in range(5):
                results[i] = idx.search_arrays(qs[i], 10, tenant="b")[0]
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for a, b in zip(results, serial):
        assert np.array_equal(a, b)


def test_concurrent_writer_and_readers_are_consistent() -> None:
    idx = EvidenceIndex(8, exact_threshold=0)
    idx.add(rand(500, 8, 1))
    stop = threading.Event()
    errors: list = []

    def reader() -> None:
        q = rand(5, 8, 2)
        try:
            while not stop.is_set():
                for row in idx.search(q, 20):
                    assert len(row) == 20
        except Exception as e:  # pragma: no cover
            errors.append(e)

    rs = [threading.Thread(target=reader) for _ in range(2)]
    for t in rs:
        t.start()
    for i in range(20):
        ids = idx.add(rand(50, 8, 100 + i))
        idx.remove(ids[:25])
    stop.set()
    for t in rs:
        t.join()
    assert not errors and len(idx) == 500 + 20 * 25


def test_concurrent_upsert_never_pairs_a_hit_with_another_version() -> None:
    # Item i's version v has vector e_i * (v + 1) (l2 space, so the distance tells the version)
    # and text "i:v". A search that read metadata after releasing its lock could return a label
    # whose item an upsert has since deleted (text "") or replaced.
    dim, n = 16, 16
    idx = EvidenceIndex(dim, space="l2")
    version = [0] * n

    def vec(i: int, v: int) -> np.ndarray:
        x = np.zeros((1, dim), np.float32)
        x[0, i] = v + 1
        return x

    for i in range(n):
        idx.add(vec(i, 0), [i], texts=[f"{i}:0"])
    stop = threading.Event()
    errors: list = []
    checked = [0]

    def reader(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            while not stop.is_set():
                i = int(rng.integers(n))
                for hit in idx.search(vec(i, 0), 3)[0]:
                    item, _, v = hit.text.partition(":")
                    assert item == str(hit.id), hit
                    expect = float(((vec(i, 0) - vec(hit.id, int(v))) ** 2).sum())
                    assert abs(hit.distance - expect) < 1e-3, hit
                    checked[0] += 1
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    rs = [threading.Thread(target=reader, args=(s,)) for s in range(2)]
    for t in rs:
        t.start()
    rng = np.random.default_rng(0)
    for _ in range(3000):
        i = int(rng.integers(n))
        version[i] = (version[i] + 1) % 7
        idx.upsert(vec(i, version[i]), [i], texts=[f"{i}:{version[i]}"])
    stop.set()
    for t in rs:
        t.join()
    assert not errors, errors[:3]
    assert checked[0] > 100 and len(idx) == n


def test_bad_text_in_ids_and_tenants_raises_a_director_fast_error() -> None:
    idx = EvidenceIndex(4)
    v = rand(1, 4)
    for bad in (["\ud800"], ["ok", "x\udfffy"]):
        with pytest.raises(ValidationError, match=rf"ids\[{len(bad) - 1}\].*surrogate"):
            idx.add(rand(len(bad), 4), bad)
    assert len(idx) == 0
    with pytest.raises(ValidationError, match="tenant.*surrogate"):
        idx.search(v, 1, tenant="\ud800")
    with pytest.raises(ValidationError, match="tenant.*surrogate"):
        idx.search_arrays(v, 1, tenant="\ud800")
    with pytest.raises(ValidationError, match="tenant"):
        idx.ids(tenant="\ud800")
    with pytest.raises(ValidationError, match="tenant"):
        idx.tenant_size("\ud800")
    with pytest.raises(ValidationError, match="id.*surrogate"):
        "\ud800" in idx  # noqa: B015
    with pytest.raises(ValidationError, match=r"ids\[0\]"):
        idx.remove(["\ud800"])
    with pytest.raises(InputTypeError, match="tenant"):
        idx.tenant_size(3)  # type: ignore[arg-type]
    big = 10 ** 5000
    with pytest.raises(ValidationError, match=r"ids\[0\].*too large"):
        idx.add(v, [big])


def test_nul_ids_and_extreme_int_ids_round_trip(tmp_path) -> None:
    idx = EvidenceIndex(4)
    idx.add(rand(3, 4), ["a\x00b", 2**63 - 1, -(2**70)], texts=["n\x00ul", "max", "neg"], tenant="t\x00")
    idx.save(tmp_path / "n.idx")
    back = EvidenceIndex.load(tmp_path / "n.idx")
    assert back.ids() == ["a\x00b", 2**63 - 1, -(2**70)]
    hits = back.search(idx.get_vector("a\x00b"), 1, tenant="t\x00")[0]
    assert hits[0].id == "a\x00b" and hits[0].text == "n\x00ul" and hits[0].tenant == "t\x00"
    # automatic ids stay above every int id: with 2**63 - 1 in use there is none left (a clear
    # error instead of a signed overflow); explicit ids still work
    with pytest.raises(ValidationError, match="automatic ids"):
        back.add(rand(1, 4))
    back.add(rand(1, 4), [5])
    assert len(back) == 4


def test_format_error_is_exported() -> None:
    import director_fast

    assert director_fast.FormatError is FormatError and "FormatError" in director_fast.__all__
    assert issubclass(FormatError, ValueError) and issubclass(FormatError, director_fast.DirectorFastError)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "remove", "upsert"]), st.integers(0, 30),
                          st.sampled_from(["a", "b"])), max_size=40), st.integers(1, 12))
def test_random_ops_match_oracle(ops, k) -> None:
    """Random add/remove/upsert sequences: search returns exactly the oracle's eligible items."""
    dim = 6
    idx = EvidenceIndex(dim, exact_threshold=4)
    live: dict[int, tuple[np.ndarray, str]] = {}
    for n, (op, key, tenant) in enumerate(ops):
        v = rand(1, dim, n)
        if op == "add" and key not in live:
            idx.add(v, [key], tenant=tenant)
            live[key] = (v[0], tenant)
        elif op == "upsert":
            idx.upsert(v, [key], tenant=tenant)
            live[key] = (v[0], tenant)
        elif op == "remove":
            assert idx.remove([key], missing_ok=True) == (1 if live.pop(key, None) is not None else 0)
    q = rand(1, dim, 999)
    for tenant in (None, "a", "b"):
        elig = [kk for kk, (_, t) in live.items() if tenant is None or t == tenant]
        hits = idx.search(q, k, tenant=tenant, exact=True)[0]
        assert len(hits) == min(k, len(elig))
        assert {h.id for h in hits} <= set(elig)
        approx = idx.search(q, k, tenant=tenant)[0]
        assert len(approx) == min(k, len(elig)) and {h.id for h in approx} <= set(elig)


# ---- embedders -------------------------------------------------------------------------------

def test_hashing_embedder_properties() -> None:
    e = HashingEmbedder(256)
    a = e.embed("The capital of France is Paris.")
    assert a.shape == (256,) and a.dtype == np.float32
    assert np.linalg.norm(a) == pytest.approx(1.0, rel=1e-5)
    assert np.array_equal(a, HashingEmbedder(256).embed("The capital of France is Paris."))
    assert np.array_equal(e.embed("capital of france?"), e.embed("Capital of FRANCE"))
    assert np.array_equal(e.embed("France's capital"), e.embed("France capital"))
    assert not np.any(e.embed("!!! ..."))
    batch = e.embed_batch(["x y", "The capital of France is Paris."])
    assert batch.shape == (2, 256) and np.array_equal(batch[1], a)
    sim_close = float(a @ e.embed("Paris is the capital of France"))
    sim_far = float(a @ e.embed("Bananas are rich in potassium"))
    assert sim_close > 0.5 > sim_far
    with pytest.raises(ConfigError):
        HashingEmbedder(0)
    with pytest.raises(ValidationError):
        e.embed("bad \ud800")


def _tiny_onnx_model(path: str) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    vocab, hidden = 16, 4
    table = np.arange(vocab * hidden, dtype=np.float32).reshape(vocab, hidden) % 7 - 3
    emb = helper.make_tensor("emb", TensorProto.FLOAT, table.shape, table.flatten().tolist())
    nodes = [helper.make_node("Gather", ["emb", "input_ids"], ["last_hidden_state"], axis=0)]
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "t"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "t"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "t", hidden])],
        [emb])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)
    np.save(path + ".table.npy", table)


def test_onnx_embedder_mean_pooling(tmp_path) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    pytest.importorskip("onnxruntime")
    from tokenizers import models, pre_tokenizers

    vocab = {w: i for i, w in enumerate(["[UNK]", "the", "cat", "sat", "on", "mat", "a", "dog"])}
    tok = tokenizers.Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(tmp_path / "tokenizer.json"))
    _tiny_onnx_model(str(tmp_path / "model.onnx"))
    table = np.load(str(tmp_path / "model.onnx") + ".table.npy")
    emb = OnnxEmbedder(tmp_path, batch_size=2)
    texts = ["the cat sat on the mat", "a dog", "cat"]
    out = emb.embed_batch(texts)
    for t, row in zip(texts, out):
        ids = [vocab[w] for w in t.split()]
        ref = table[ids].mean(axis=0)
        ref = ref / np.linalg.norm(ref)
        assert np.allclose(row, ref, atol=1e-6)  # padding ignored by the mask
    assert emb.dim == 4
    assert np.allclose(emb.embed("a dog"), out[1])
    with pytest.raises(StorageError):
        OnnxEmbedder(tmp_path / "nothing")


def test_float16_storage_needs_an_even_dim() -> None:
    # an odd dim would leave hnswlib's per-record link count misaligned (UB found by the sanitizers)
    from director_fast.errors import ConfigError

    with pytest.raises(ConfigError, match="even dim"):
        EvidenceIndex(385, storage="float16")
    EvidenceIndex(384, storage="float16")

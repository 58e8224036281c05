"""Regression inputs for findings of the sanitizer run (scripts/sanitize.sh, ASan + UBSan).

Each test passes in a normal build; under scripts/sanitize.sh it fails (the sanitizer aborts the
process) if the undefined behaviour comes back. Keep them small: they run in the default suite.
"""

from __future__ import annotations

from director_fast.memory.temporal import TemporalClaim, TemporalConsistencyGraph


def test_first_claim_of_a_tenant_and_empty_values():
    # UBSan, cpp/src/contradiction_index.cpp hash_bytes: every new tenant's string pool interns ""
    # first, and an empty std::string_view has a null data(); memcpy(dst, nullptr, 0) is
    # undefined ("null pointer passed as argument 2"). Empty values are compared with
    # bytes_equal(.., 0) on the same path.
    g = TemporalConsistencyGraph()
    for tenant in ("", "t1", "t2"):
        assert g.record(TemporalClaim(subject="s", predicate="p", value="", polarity=True,
                                      timestamp=1.0, tenant_id=tenant)) == ()
        found = g.record(TemporalClaim(subject="s", predicate="p", value="", polarity=False,
                                       timestamp=2.0, tenant_id=tenant))
        assert len(found) == 1  # the negation of the same (empty) value contradicts it
        assert [c.value for c in g.history("s", "p", tenant_id=tenant)] == ["", ""]

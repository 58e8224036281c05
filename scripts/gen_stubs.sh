#!/usr/bin/env bash
# Regenerate python/director_fast/_core.pyi from the built extension (pybind11-stubgen), then
# check it against the module with mypy's stubtest (tests/test_stubs.py runs the same check).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
python -m pybind11_stubgen director_fast._core -o "$out"
# pybind11-stubgen drops the "/" of positional-only builtins (the raw METH_FASTCALL functions of
# bind_safety.cpp declare it in their __text_signature__); put it back.
sed -E -e '/^__all__: list\[str\]/d' \
    -e '/^def (_safety_[a-z_]+|canonical_json)\(.+\):$/ s/\):$/, \/):/' \
    "$out/director_fast/_core.pyi" > python/director_fast/_core.pyi
python -m mypy.stubtest director_fast._core --allowlist tests/stubtest_allowlist.txt

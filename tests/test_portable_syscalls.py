"""cpp/include/director_fast/portable.hpp: kernel random bytes and file sync on every platform.

Compiles a small driver with the system C++ compiler twice -- once with the calls this platform
has, once with DIRECTOR_FAST_FORCE_FALLBACKS=1 (the /dev/urandom and plain fsync branches that a
libc without getrandom/fdatasync/arc4random_buf gets) -- and runs both. About 2 s.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEADER_DIR = ROOT / "cpp" / "include"

DRIVER = r"""
#include "director_fast/portable.hpp"

#include <cstdio>
#include <cstring>

using namespace director_fast::portable;

int main(int argc, char** argv) {
  unsigned char a[64], b[64], zero[64] = {};
  if (!fill_random(a, sizeof a) || !fill_random(b, sizeof b)) { std::perror("fill_random"); return 2; }
  if (std::memcmp(a, b, sizeof a) == 0 || std::memcmp(a, zero, sizeof a) == 0) return 3;
  // 65536 bytes: more than one getrandom/read call may return
  static unsigned char big[65536];
  if (!fill_random(big, sizeof big)) return 4;
  unsigned long ones = 0;
  for (unsigned char c : big) ones += static_cast<unsigned long>(__builtin_popcount(c));
  // 524288 fair bits: mean 262144, sd 362; 10 sd either way
  if (ones < 262144 - 3620 || ones > 262144 + 3620) return 5;
  int fd = ::open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ::write(fd, "x", 1) != 1) return 6;
  if (sync_data(fd) != 0 || sync_file(fd) != 0) { std::perror("sync"); return 7; }
  ::close(fd);
  errno = 0;
  if (sync_data(fd) != -1 || errno != EBADF) return 8;  // a closed descriptor is reported
  errno = 0;
  if (sync_file(fd) != -1 || errno != EBADF) return 9;
  std::printf("%s %s\n", random_source(), sync_method());
  return argc == 2 ? 0 : 10;
}
"""


def _compiler() -> str:
    for name in ("c++", "g++", "clang++"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no C++ compiler on PATH")


@pytest.mark.parametrize("forced", [False, True], ids=["native", "fallbacks"])
def test_portable_random_and_sync(tmp_path, forced):
    src = tmp_path / "driver.cpp"
    src.write_text(DRIVER, encoding="utf-8")
    exe = tmp_path / "driver"
    cmd = [_compiler(), "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{HEADER_DIR}",
           str(src), "-o", str(exe)]
    if forced:
        cmd.insert(1, "-DDIRECTOR_FAST_FORCE_FALLBACKS=1")
    built = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(exe), str(tmp_path / "synced.bin")], capture_output=True, text=True,
                         timeout=60)
    assert ran.returncode == 0, (ran.returncode, ran.stderr)
    source, sync = ran.stdout.split()
    assert (tmp_path / "synced.bin").read_bytes() == b"x"
    if forced:
        assert (source, sync) == ("/dev/urandom", "fsync")
    elif sys.platform.startswith("linux"):
        assert (source, sync) == ("getrandom", "fdatasync")
    elif sys.platform == "darwin":
        assert (source, sync) == ("arc4random_buf", "F_FULLFSYNC")


PARSE_DRIVER = r"""
#include "director_fast/portable.hpp"

#include <cstdio>
#include <cstring>
#include <locale>
#include <string>

int main(int argc, char** argv) {
  // a process locale with a decimal comma must not change the parse
  std::setlocale(LC_ALL, argc > 1 ? argv[1] : "C");
  const std::string cases[] = {"0", "42", "3.25", "0.1", "1234567.891", "9007199254740993",
                               "17976931348623157" + std::string(292, '0'),  // DBL_MAX, written out
                               "1" + std::string(400, '0')};
  for (const auto& c : cases) {
    double v = -1.0;
    const bool ok = director_fast::portable::decimal_to_double(c, &v);
    std::printf("%d %.17g\n", ok ? 1 : 0, v);
  }
  return 0;
}
"""


def test_decimal_parse_fallback_matches_from_chars(tmp_path):
    """The istream fallback (Apple's libc++ has no from_chars for double) parses exactly as
    std::from_chars: correctly rounded, overflow reported, independent of the C locale."""
    src = tmp_path / "parse.cpp"
    src.write_text(PARSE_DRIVER, encoding="utf-8")
    outs = []
    for forced in (False, True):
        exe = tmp_path / f"parse{int(forced)}"
        cmd = [_compiler(), "-std=c++17", "-O1", f"-I{HEADER_DIR}", str(src), "-o", str(exe)]
        if forced:
            cmd.insert(1, "-DDIRECTOR_FAST_FORCE_FALLBACKS=1")
        built = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert built.returncode == 0, built.stderr[-3000:]
        ran = subprocess.run([str(exe), "de_DE.UTF-8"], capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0, ran.stderr
        outs.append(ran.stdout.splitlines())
    assert outs[0] == outs[1]
    assert outs[0][:6] == ["1 0", "1 42", "1 3.25", "1 0.10000000000000001", "1 1234567.8910000001",
                           "1 9007199254740992"]
    assert outs[0][6] == "1 1.7976931348623157e+308"
    assert outs[0][7] == "0 -1"  # 1e400: out of range, value left alone

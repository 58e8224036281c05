// Portable wrappers for what differs between Linux, macOS and the BSDs: kernel random bytes,
// flushing a file to stable storage, and std::from_chars for double (missing in Apple's libc++).
//
// The implementation is chosen at compile time. CMake probes the platform (check_cxx_symbol_exists,
// check_cxx_source_compiles) and defines DIRECTOR_FAST_HAVE_GETRANDOM, _ARC4RANDOM_BUF, _FDATASYNC
// and _FROM_CHARS_DOUBLE to 0 or 1; a build that does not come through CMake derives them from
// __has_include, library feature macros and platform macros below. DIRECTOR_FAST_FORCE_FALLBACKS=1
// (the CMake option of that name) turns every probe off, so the last-resort branches -- reading
// /dev/urandom, plain fsync, istream parsing -- can be compiled and tested on Linux too.
//
//   random bytes:  getrandom(2) (Linux, glibc >= 2.25; FreeBSD >= 12)
//                  else arc4random_buf(3) (macOS, the BSDs; never fails)
//                  else read(2) from /dev/urandom
//   data sync:     fdatasync(2) (Linux, the BSDs)
//                  else fcntl(F_FULLFSYNC) on macOS (fsync there leaves data in the drive's cache),
//                       falling back to fsync(2) where the file system does not support it
//                  else fsync(2)
//   decimal parse: std::from_chars(double) where the C++ library has it (not Apple's libc++),
//                  else std::istream >> double in the classic locale
//   file sync:     fcntl(F_FULLFSYNC) on macOS (then fsync(2) where unsupported), else fsync(2)
//
// Thread-safety: all functions are safe to call from any thread (no shared state).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>

#if defined(DIRECTOR_FAST_FORCE_FALLBACKS) && DIRECTOR_FAST_FORCE_FALLBACKS
#undef DIRECTOR_FAST_HAVE_GETRANDOM
#undef DIRECTOR_FAST_HAVE_ARC4RANDOM_BUF
#undef DIRECTOR_FAST_HAVE_FDATASYNC
#define DIRECTOR_FAST_HAVE_GETRANDOM 0
#define DIRECTOR_FAST_HAVE_ARC4RANDOM_BUF 0
#define DIRECTOR_FAST_HAVE_FDATASYNC 0
#define DIRECTOR_FAST_HAVE_FULLFSYNC 0
#undef DIRECTOR_FAST_HAVE_FROM_CHARS_DOUBLE
#define DIRECTOR_FAST_HAVE_FROM_CHARS_DOUBLE 0
#endif

// Defaults for builds outside CMake.
#ifndef DIRECTOR_FAST_HAVE_GETRANDOM
#if defined(__linux__) && defined(__has_include)
#if __has_include(<sys/random.h>)
#define DIRECTOR_FAST_HAVE_GETRANDOM 1
#endif
#endif
#ifndef DIRECTOR_FAST_HAVE_GETRANDOM
#define DIRECTOR_FAST_HAVE_GETRANDOM 0
#endif
#endif

#ifndef DIRECTOR_FAST_HAVE_ARC4RANDOM_BUF
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__) || \
    defined(__DragonFly__)
#define DIRECTOR_FAST_HAVE_ARC4RANDOM_BUF 1
#else
#define DIRECTOR_FAST_HAVE_ARC4RANDOM_BUF 0
#endif
#endif

#ifndef DIRECTOR_FAST_HAVE_FDATASYNC
#if defined(__linux__) || defined(__FreeBSD__) || defined(__NetBSD__)
#define DIRECTOR_FAST_HAVE_FDATASYNC 1
#else
#define DIRECTOR_FAST_HAVE_FDATASYNC 0
#endif
#endif

#ifndef DIRECTOR_FAST_HAVE_FULLFSYNC
#if defined(F_FULLFSYNC)
#define DIRECTOR_FAST_HAVE_FULLFSYNC 1
#else
#define DIRECTOR_FAST_HAVE_FULLFSYNC 0
#endif
#endif

#include <charconv>
#include <limits>
#include <string_view>

// std::from_chars for double: libstdc++ >= 11 and LLVM libc++ >= 20 have it; Apple's libc++
// (Xcode 16) does not. Without it, an istringstream in the classic "C" locale parses instead.
#ifndef DIRECTOR_FAST_HAVE_FROM_CHARS_DOUBLE
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
#define DIRECTOR_FAST_HAVE_FROM_CHARS_DOUBLE 1
#else
#define DIRECTOR_FAST_HAVE_FROM_CHARS_DOUBLE 0
#endif
#endif

#if DIRECTOR_FAST_HAVE_GETRANDOM
#include <sys/random.h>
#endif
#if !DIRECTOR_FAST_HAVE_FROM_CHARS_DOUBLE
#include <locale>
#include <sstream>
#include <string>
#endif

namespace director_fast::portable {

// Name of the random-byte source compiled in ("getrandom", "arc4random_buf" or "/dev/urandom").
constexpr const char* random_source() {
#if DIRECTOR_FAST_HAVE_GETRANDOM
  return "getrandom";
#elif DIRECTOR_FAST_HAVE_ARC4RANDOM_BUF
  return "arc4random_buf";
#else
  return "/dev/urandom";
#endif
}

// Name of the data-sync call compiled in ("fdatasync", "F_FULLFSYNC" or "fsync").
constexpr const char* sync_method() {
#if DIRECTOR_FAST_HAVE_FDATASYNC
  return "fdatasync";
#elif DIRECTOR_FAST_HAVE_FULLFSYNC
  return "F_FULLFSYNC";
#else
  return "fsync";
#endif
}

// Fills out[0..n) with bytes from the operating system's CSPRNG. Returns false with errno set when
// the source fails (getrandom refused, /dev/urandom missing or unreadable).
inline bool fill_random(unsigned char* out, std::size_t n) {
#if DIRECTOR_FAST_HAVE_GETRANDOM
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::getrandom(out + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    got += static_cast<std::size_t>(r);
  }
  return true;
#elif DIRECTOR_FAST_HAVE_ARC4RANDOM_BUF
  ::arc4random_buf(out, n);
  return true;
#else
  int flags = O_RDONLY;
#ifdef O_CLOEXEC
  flags |= O_CLOEXEC;
#endif
  int fd;
  do {
    fd = ::open("/dev/urandom", flags);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return false;
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, out + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int e = r == 0 ? EIO : errno;  // end of file from a character device: not random
      ::close(fd);
      errno = e;
      return false;
    }
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  return true;
#endif
}

// Flushes fd's data (and the metadata needed to read it back) to stable storage. Returns 0, or
// -1 with errno set, like fdatasync(2).
inline int sync_data(int fd) {
#if DIRECTOR_FAST_HAVE_FDATASYNC
  return ::fdatasync(fd);
#elif DIRECTOR_FAST_HAVE_FULLFSYNC
  if (::fcntl(fd, F_FULLFSYNC) == 0) return 0;
  return ::fsync(fd);  // file systems without F_FULLFSYNC (network mounts, FAT)
#else
  return ::fsync(fd);
#endif
}

// Parses an ASCII decimal number ("42", "3.25"; no sign, exponent or locale) into *out, correctly
// rounded. Returns false when the value lies outside the range of double (overflow or underflow),
// leaving *out unchanged, as std::from_chars reports std::errc::result_out_of_range; the parse
// itself never fails for such input.
inline bool decimal_to_double(std::string_view digits, double* out) {
#if DIRECTOR_FAST_HAVE_FROM_CHARS_DOUBLE
  double v = 0.0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (r.ec == std::errc::result_out_of_range) return false;
  *out = v;
  return true;
#else
  std::istringstream in{std::string(digits)};
  in.imbue(std::locale::classic());
  double v = 0.0;
  in >> v;
  if (in.fail()) return false;  // num_get sets failbit on ERANGE from strtod
  *out = v;
  return true;
#endif
}

// Flushes fd's data and metadata to stable storage: fsync(2), or fcntl(F_FULLFSYNC) on macOS
// (falling back to fsync where the file system lacks it). Returns 0, or -1 with errno set.
inline int sync_file(int fd) {
#if DIRECTOR_FAST_HAVE_FULLFSYNC
  if (::fcntl(fd, F_FULLFSYNC) == 0) return 0;
#endif
  return ::fsync(fd);
}

}  // namespace director_fast::portable

// Ids and timestamps (see safety_ids.hpp): the random byte pool (fork-safe), new_id, utc_now (the
// date-time part cached per thread and second) and their module functions.
#include "safety_ids.hpp"

#include <pthread.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>
#include <new>
#include <string_view>

#include "director_fast/portable.hpp"

namespace director_fast::bindings::safety_impl {

// ---- ids and timestamps -----------------------------------------------------------------------
namespace {

// Random bytes for ids: the kernel CSPRNG (getrandom(2), arc4random_buf(3) or /dev/urandom: see
// portable.hpp) read 512 bytes at a time; each byte is
// handed out once and wiped. A forked child discards the parent's unused bytes (pthread_atfork),
// so parent and child never share an id.
class RandomPool {
 public:
  RandomPool() { pthread_atfork(nullptr, nullptr, [] { pool().reset_after_fork(); }); }
  static RandomPool& pool() {
    static RandomPool p;
    return p;
  }
  // Fills out[0..16); false with errno set when the kernel refuses.
  bool take16(unsigned char* out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (pos_ + 16 > sizeof buf_) {
      if (!director_fast::portable::fill_random(buf_, sizeof buf_)) return false;
      pos_ = 0;
    }
    std::memcpy(out, buf_ + pos_, 16);
    std::memset(buf_ + pos_, 0, 16);
    pos_ += 16;
    return true;
  }

 private:
  void reset_after_fork() {
    // the child is single-threaded here; the mutex may have been held by another parent thread
    new (&mu_) std::mutex();
    std::memset(buf_, 0, sizeof buf_);
    pos_ = sizeof buf_;
  }
  std::mutex mu_;
  unsigned char buf_[512] = {};
  std::size_t pos_ = sizeof buf_;
};
}  // namespace

PyObject* new_id(std::string_view prefix) {
  unsigned char raw[16];
  if (!RandomPool::pool().take16(raw)) return PyErr_SetFromErrno(PyExc_OSError);
  static const char hex[] = "0123456789abcdef";
  char buf[8 + 32];
  std::memcpy(buf, prefix.data(), prefix.size());
  char* p = buf + prefix.size();
  for (unsigned char b : raw) {
    *p++ = hex[b >> 4];
    *p++ = hex[b & 15];
  }
  return ascii_str(buf, static_cast<std::size_t>(p - buf));
}

// Current UTC time "YYYY-MM-DDTHH:MM:SS.ffffffZ". The date-time part is formatted once per second
// per thread (thread_local cache); only the microseconds are written on every call.
PyObject* utc_now() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  thread_local std::int64_t cached_sec = -1;
  thread_local char buf[27];
  const std::int64_t sec = static_cast<std::int64_t>(ts.tv_sec);
  if (sec != cached_sec) {
    sr::format_utc_timestamp(sec * 1000000000, buf);
    cached_sec = sec;
  }
  std::uint32_t us = static_cast<std::uint32_t>(ts.tv_nsec / 1000);
  for (int i = 25; i >= 20; --i) {
    buf[i] = static_cast<char>('0' + us % 10);
    us /= 10;
  }
  return ascii_str(buf, 27);
}

PyObject* py_new_id(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1 || !PyUnicode_Check(args[0])) return PyErr_Format(PyExc_TypeError, "_safety_new_id(prefix: str)");
  Py_ssize_t n;
  const char* p = PyUnicode_AsUTF8AndSize(args[0], &n);
  if (p == nullptr) return nullptr;
  if (n > 8) return PyErr_Format(PyExc_ValueError, "prefix longer than 8 bytes");
  return new_id(std::string_view(p, static_cast<std::size_t>(n)));
}

PyObject* py_utc_timestamp(PyObject*, PyObject* const*, Py_ssize_t nargs) {
  if (nargs != 0) return PyErr_Format(PyExc_TypeError, "_safety_utc_timestamp() takes no arguments");
  return utc_now();
}

PyObject* py_format_timestamp(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) return PyErr_Format(PyExc_TypeError, "_safety_format_timestamp(unix_ns: int)");
  const long long ns = PyLong_AsLongLong(args[0]);
  if (ns == -1 && PyErr_Occurred()) return nullptr;
  char buf[27];
  sr::format_utc_timestamp(ns, buf);
  return PyUnicode_FromStringAndSize(buf, 27);
}

}  // namespace director_fast::bindings::safety_impl

// The canonical JSON encoder (json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True,
// allow_nan=False), byte for byte): the output buffer `Out`, encode() and canonical_json. Used by
// DirectorSafetySignal.to_json (safety_signal.cpp). Defined in safety_json.cpp.
#pragma once

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "safety_common.hpp"

namespace director_fast::bindings::safety_impl {

// Growable output buffer of the JSON encoder: callers reserve room and write through a raw
// pointer (no per-character capacity checks).
class Out {
 public:
  Out() : buf_(static_cast<char*>(std::malloc(2048))), cap_(buf_ != nullptr ? 2048 : 0) {}
  ~Out() { std::free(buf_); }
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;
  // Room for `extra` more bytes; returns the write position (commit() the new end).
  char* reserve(std::size_t extra) {
    if (len_ + extra > cap_) grow(len_ + extra);
    return buf_ + len_;
  }
  void commit(char* end) { len_ = static_cast<std::size_t>(end - buf_); }
  Out& operator+=(char c) {
    *reserve(1) = c;
    ++len_;
    return *this;
  }
  Out& append(const char* p, std::size_t n) {
    std::memcpy(reserve(n), p, n);
    len_ += n;
    return *this;
  }
  Out& append(std::size_t n, char c) {
    std::memset(reserve(n), c, n);
    len_ += n;
    return *this;
  }
  Out& operator+=(std::string_view sv) { return append(sv.data(), sv.size()); }
  Out& operator+=(const char* z) { return append(z, std::strlen(z)); }
  Out& operator+=(const std::string& str) { return append(str.data(), str.size()); }
  const char* data() const { return buf_; }
  std::size_t size() const { return len_; }

 private:
  void grow(std::size_t need) {
    std::size_t c = cap_ > 0 ? cap_ * 2 : 2048;
    while (c < need) c *= 2;
    char* p = static_cast<char*>(std::realloc(buf_, c));
    if (p == nullptr) throw std::bad_alloc();
    buf_ = p;
    cap_ = c;
  }
  char* buf_;
  std::size_t len_ = 0;
  std::size_t cap_;
};

inline PyObject* ascii_str(const Out& out) { return ascii_str(out.data(), out.size()); }

// `depth`: the number of containers around `o` (see safety_json.cpp).
bool encode(PyObject* o, Out& out, int depth);
PyObject* py_canonical_json(PyObject*, PyObject* const* args, Py_ssize_t nargs);

}  // namespace director_fast::bindings::safety_impl

// Lenient UTF-8 decoding shared by the text scanners (the number parser, the lexical NLI).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string_view>

namespace director_fast {

// The code point at s[i] (i < s.size()) and its length in bytes (*len). An invalid or truncated
// sequence counts as one byte of U+FFFD, so any bytes can be scanned; text from Python is always
// valid UTF-8. Overlong forms and surrogates are invalid (the ranges of RFC 3629, section 4).
inline char32_t decode_utf8_lenient(std::string_view s, std::size_t i, std::size_t* len) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    if (i + k >= s.size()) return false;
    const auto b = static_cast<unsigned char>(s[i + k]);
    return b >= lo && b <= hi;
  };
  auto low6 = [&](std::size_t k) { return char32_t(static_cast<unsigned char>(s[i + k]) & 0x3F); };
  *len = 1;
  if (b0 < 0x80) return b0;
  if (b0 >= 0xC2 && b0 <= 0xDF && cont(1)) {
    *len = 2;
    return (char32_t(b0 & 0x1F) << 6) | low6(1);
  }
  if (b0 >= 0xE0 && b0 <= 0xEF && cont(1, b0 == 0xE0 ? 0xA0 : 0x80, b0 == 0xED ? 0x9F : 0xBF) && cont(2)) {
    *len = 3;
    return (char32_t(b0 & 0x0F) << 12) | (low6(1) << 6) | low6(2);
  }
  if (b0 >= 0xF0 && b0 <= 0xF4 && cont(1, b0 == 0xF0 ? 0x90 : 0x80, b0 == 0xF4 ? 0x8F : 0xBF) && cont(2) &&
      cont(3)) {
    *len = 4;
    return (char32_t(b0 & 0x07) << 18) | (low6(1) << 12) | (low6(2) << 6) | low6(3);
  }
  return 0xFFFD;
}

// The longest prefix of s of at most `max_bytes` bytes that ends on a code-point boundary (never
// cuts a UTF-8 sequence: a continuation byte 10xxxxxx does not start one). For messages and
// previews that shorten text taken from Python.
inline std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

}  // namespace director_fast

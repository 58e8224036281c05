#include "director_fast/offsets.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "director_fast/errors.hpp"

namespace director_fast {

namespace {

inline bool is_surrogate(char32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

std::string hex(uint32_t v) {
  static const char* digits = "0123456789ABCDEF";
  std::string s;
  for (int i = 12; i >= 0; i -= 4) {
    if (i > 4 && ((v >> i) == 0)) continue;
    s.push_back(digits[(v >> i) & 0xF]);
  }
  while (s.size() < 4) s.insert(s.begin(), '0');
  return "U+" + s;
}

}  // namespace

void check_scalar_values(std::u32string_view s, const char* what) {
  for (size_t i = 0; i < s.size(); ++i) {
    char32_t c = s[i];
    if (is_surrogate(c)) {
      throw ValueError(std::string(what) + ": lone surrogate " + hex(c) + " at code point " +
                       std::to_string(i) + " cannot be encoded as UTF-8 or UTF-16 "
                       "(decode the source with errors='replace' or fix the producer)");
    }
    if (c > 0x10FFFF) {
      throw ValueError(std::string(what) + ": invalid code point at index " + std::to_string(i));
    }
  }
}

std::u32string utf8_decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  const size_t n = s.size();
  auto fail = [&](size_t at) {
    throw ValueError("invalid UTF-8 at byte offset " + std::to_string(at));
  };
  while (i < n) {
    unsigned char b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      out.push_back(b0);
      ++i;
      continue;
    }
    int len;
    char32_t cp;
    if ((b0 & 0xE0) == 0xC0) {
      len = 2;
      cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
      len = 3;
      cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
      len = 4;
      cp = b0 & 0x07;
    } else {
      fail(i);
    }
    if (i + len > n) fail(i);
    for (int k = 1; k < len; ++k) {
      unsigned char b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) fail(i);
      cp = (cp << 6) | (b & 0x3F);
    }
    static const char32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10FFFF || is_surrogate(cp)) fail(i);
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string utf8_encode(std::u32string_view s) {
  check_scalar_values(s, "text");
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

OffsetMap::OffsetMap(std::u32string_view text) : n_(text.size()) {
  check_scalar_values(text, "text");
  for (char32_t c : text) {
    if (c >= 0x80) ascii_ = false;
    if (c >= 0x10000) {
      bmp_ = false;
      break;
    }
  }
  if (!ascii_) {
    byte_of_cp_.resize(n_ + 1);
    int64_t b = 0;
    for (size_t i = 0; i < n_; ++i) {
      byte_of_cp_[i] = b;
      char32_t c = text[i];
      b += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }
    byte_of_cp_[n_] = b;
  }
  if (!bmp_) {
    u16_of_cp_.resize(n_ + 1);
    int64_t u = 0;
    for (size_t i = 0; i < n_; ++i) {
      u16_of_cp_[i] = u;
      u += text[i] < 0x10000 ? 1 : 2;
    }
    u16_of_cp_[n_] = u;
  }
}

void OffsetMap::check_cp(int64_t cp) const {
  if (cp < 0 || cp > static_cast<int64_t>(n_)) {
    throw IndexError("code-point offset " + std::to_string(cp) + " is outside [0, " +
                     std::to_string(n_) + "]");
  }
}

int64_t OffsetMap::cp_to_utf8(int64_t cp) const {
  check_cp(cp);
  return ascii_ ? cp : byte_of_cp_[static_cast<size_t>(cp)];
}

int64_t OffsetMap::cp_to_utf16(int64_t cp) const {
  check_cp(cp);
  return bmp_ascii_u16() ? cp : u16_of_cp_[static_cast<size_t>(cp)];
}

namespace {
int64_t back_to_cp(const std::vector<int64_t>& table, int64_t off, const char* unit) {
  if (off < 0 || off > table.back()) {
    throw IndexError(std::string(unit) + " offset " + std::to_string(off) + " is outside [0, " +
                     std::to_string(table.back()) + "]");
  }
  auto it = std::lower_bound(table.begin(), table.end(), off);
  if (*it != off) {
    int64_t cp = static_cast<int64_t>(it - table.begin()) - 1;
    throw ValueError(std::string(unit) + " offset " + std::to_string(off) +
                     " falls inside the character at code point " + std::to_string(cp) +
                     " (not a character boundary)");
  }
  return static_cast<int64_t>(it - table.begin());
}
}  // namespace

int64_t OffsetMap::utf8_to_cp(int64_t byte) const {
  if (ascii_) {
    check_cp(byte);
    return byte;
  }
  return back_to_cp(byte_of_cp_, byte, "UTF-8 byte");
}

int64_t OffsetMap::utf16_to_cp(int64_t unit) const {
  if (bmp_ascii_u16()) {
    check_cp(unit);
    return unit;
  }
  return back_to_cp(u16_of_cp_, unit, "UTF-16 unit");
}

// ---- TokenSpans --------------------------------------------------------------------------------

Span TokenSpans::append(int64_t cp_length) {
  if (cp_length < 0) throw ValueError("length: token length must be >= 0");
  int64_t start = text_length();
  if (cp_length > INT64_MAX - start) {
    throw ValueError("length: token length " + std::to_string(cp_length) + " after " +
                     std::to_string(start) + " code points overflows the text length (max 2**63 - 1)");
  }
  ends_.push_back(start + cp_length);
  return Span{start, start + cp_length};
}

Span TokenSpans::span(int64_t index) const {
  int64_t n = size();
  if (index < 0) index += n;
  if (index < 0 || index >= n) {
    throw IndexError("token index out of range: " + std::to_string(index) + " (have " +
                     std::to_string(n) + " tokens)");
  }
  auto i = static_cast<size_t>(index);
  return Span{i == 0 ? 0 : ends_[i - 1], ends_[i]};
}

int64_t TokenSpans::token_at(int64_t offset) const {
  if (offset < 0 || offset >= text_length()) {
    throw IndexError("code-point offset " + std::to_string(offset) + " is outside [0, " +
                     std::to_string(text_length()) + ")");
  }
  // first token whose end > offset: it starts at or before offset and is non-empty.
  auto it = std::upper_bound(ends_.begin(), ends_.end(), offset);
  return static_cast<int64_t>(it - ends_.begin());
}

int64_t TokenSpans::tokens_before(int64_t offset) const {
  auto it = std::upper_bound(ends_.begin(), ends_.end(), offset);
  return static_cast<int64_t>(it - ends_.begin());
}

// ---- token-budget chunking ---------------------------------------------------------------------

std::vector<TokenChunk> chunk_tokens(const int64_t* token_starts, const int64_t* token_ends,
                                     size_t n_tokens, const std::vector<Span>& sentences,
                                     int64_t text_length, int64_t max_tokens,
                                     int64_t overlap_tokens, bool one_per_sentence) {
  if (max_tokens < 1) throw ConfigError("max_tokens", "must be >= 1, got " + std::to_string(max_tokens));
  if (overlap_tokens < 0 || overlap_tokens >= max_tokens) {
    throw ConfigError("overlap", "must be in [0, max_tokens), got " + std::to_string(overlap_tokens));
  }
  // Non-empty tokens, validated.
  std::vector<size_t> tok;
  tok.reserve(n_tokens);
  int64_t prev_start = 0;
  for (size_t i = 0; i < n_tokens; ++i) {
    int64_t s = token_starts[i], e = token_ends[i];
    if (s < 0 || e < s || e > text_length) {
      throw ValueError("offsets[" + std::to_string(i) + "] = (" + std::to_string(s) + ", " +
                       std::to_string(e) + ") is not a span inside the text of length " +
                       std::to_string(text_length));
    }
    if (s == e) continue;  // special token
    if (s < prev_start) {
      throw ValueError("offsets must be sorted by start; offsets[" + std::to_string(i) +
                       "] starts before the previous token");
    }
    prev_start = s;
    tok.push_back(i);
  }
  std::vector<TokenChunk> out;
  if (tok.empty()) return out;
  const int64_t nt = static_cast<int64_t>(tok.size());
  // Segment boundaries in (filtered) token space: sentence k owns tokens starting in
  // [sent_k.start, sent_{k+1}.start); tokens before the first sentence join it.
  std::vector<int64_t> bounds;
  bounds.push_back(0);
  for (size_t k = 1; k < sentences.size(); ++k) {
    int64_t s = sentences[k].start;
    int64_t lo = bounds.back(), hi = nt;
    while (lo < hi) {  // first filtered token with start >= s
      int64_t mid = (lo + hi) / 2;
      if (token_starts[tok[static_cast<size_t>(mid)]] < s) lo = mid + 1; else hi = mid;
    }
    if (lo > bounds.back() && lo < nt) bounds.push_back(lo);
  }
  bounds.push_back(nt);
  auto make = [&](int64_t a, int64_t b, bool oversized) {
    TokenChunk c;
    c.token_start = static_cast<int64_t>(tok[static_cast<size_t>(a)]);
    c.token_end = static_cast<int64_t>(tok[static_cast<size_t>(b - 1)]) + 1;
    c.start = token_starts[tok[static_cast<size_t>(a)]];
    int64_t end = 0;
    for (int64_t t = a; t < b; ++t) end = std::max(end, token_ends[tok[static_cast<size_t>(t)]]);
    c.end = end;
    c.oversized = oversized;
    out.push_back(c);
  };
  const size_t nseg = bounds.size() - 1;
  size_t seg = 0;
  int64_t prev_chunk_end_seg = -1;  // index of the first segment not in the previous chunk
  int64_t prev_chunk_begin_seg = 0;
  while (seg < nseg) {
    int64_t a = bounds[seg], b = bounds[seg + 1];
    if (b - a > max_tokens) {  // oversized sentence: split at token boundaries
      for (int64_t x = a; x < b; x += max_tokens) make(x, std::min(b, x + max_tokens), true);
      ++seg;
      prev_chunk_end_seg = -1;
      continue;
    }
    if (one_per_sentence) {
      make(a, b, false);
      ++seg;
      continue;
    }
    // Overlap: whole trailing sentences of the previous chunk, within overlap and budget.
    size_t first = seg;
    if (overlap_tokens > 0 && prev_chunk_end_seg == static_cast<int64_t>(seg)) {
      size_t f = seg;
      while (f > static_cast<size_t>(prev_chunk_begin_seg) + 1 &&
             bounds[seg] - bounds[f - 1] <= overlap_tokens &&
             b - bounds[f - 1] <= max_tokens) {
        --f;
      }
      first = f;
    }
    size_t last = seg + 1;  // exclusive
    while (last < nseg && bounds[last + 1] - bounds[first] <= max_tokens) ++last;
    make(bounds[first], bounds[last], false);
    prev_chunk_begin_seg = static_cast<int64_t>(first);
    prev_chunk_end_seg = static_cast<int64_t>(last);
    seg = last;
  }
  return out;
}

}  // namespace director_fast

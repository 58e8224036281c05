// Text offsets: exact conversion between code points, UTF-8 bytes and UTF-16 units, streamed
// token spans, and token-budget chunking. Code points (Python string indices) are the public unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace director_fast {

// A half-open [start, end) range in code points.
struct Span {
  int64_t start = 0;
  int64_t end = 0;
  bool operator==(const Span& o) const { return start == o.start && end == o.end; }
};

// Decodes strict UTF-8 (no overlongs, no surrogates, <= U+10FFFF). Throws ValueError naming the
// byte offset of the first invalid sequence.
std::u32string utf8_decode(std::string_view s);
// Encodes code points as UTF-8. Throws ValueError on a surrogate or a value > U+10FFFF.
std::string utf8_encode(std::u32string_view s);
// Throws ValueError if `s` holds a surrogate code point (U+D800..U+DFFF) or a value > U+10FFFF;
// `what` names the argument in the message.
void check_scalar_values(std::u32string_view s, const char* what);

// Position tables of one text: for every code point index i in [0, n], the UTF-8 byte offset and
// the UTF-16 unit offset where code point i starts. Conversions are O(1) from code points and
// O(log n) towards code points; an offset that falls inside a character is rejected.
class OffsetMap {
 public:
  explicit OffsetMap(std::u32string_view text);

  int64_t length_cp() const { return static_cast<int64_t>(n_); }
  int64_t length_utf8() const { return ascii_ ? n_ : byte_of_cp_.back(); }
  int64_t length_utf16() const { return bmp_ascii_u16() ? n_ : u16_of_cp_.back(); }

  int64_t cp_to_utf8(int64_t cp) const;
  int64_t utf8_to_cp(int64_t byte) const;
  int64_t cp_to_utf16(int64_t cp) const;
  int64_t utf16_to_cp(int64_t unit) const;

 private:
  bool bmp_ascii_u16() const { return ascii_ || bmp_; }
  void check_cp(int64_t cp) const;
  size_t n_ = 0;
  bool ascii_ = true;  // every code point < 0x80: all three units coincide
  bool bmp_ = true;    // every code point < 0x10000: UTF-16 units == code points
  std::vector<int64_t> byte_of_cp_;  // n+1 entries unless ascii_
  std::vector<int64_t> u16_of_cp_;   // n+1 entries unless bmp_
};

// Streamed token index <-> code-point span in the accumulated text. Tokens are appended in order;
// token i covers [start(i), end(i)). Empty tokens are allowed (zero-width spans).
class TokenSpans {
 public:
  // Appends a token of `cp_length` code points; returns its span.
  Span append(int64_t cp_length);
  Span span(int64_t index) const;  // throws IndexError
  // Index of the token that covers code point `offset` (the first non-empty one when several
  // tokens start there). Throws IndexError if offset is outside [0, text_length).
  int64_t token_at(int64_t offset) const;
  // Number of tokens whose text lies entirely before `offset` (tokens fully in [0, offset)).
  int64_t tokens_before(int64_t offset) const;
  int64_t size() const { return static_cast<int64_t>(ends_.size()); }
  int64_t text_length() const { return ends_.empty() ? 0 : ends_.back(); }
  const std::vector<int64_t>& ends() const { return ends_; }
  void clear() { ends_.clear(); }

 private:
  std::vector<int64_t> ends_;
};

// One chunk of a token-budget split. Token indices refer to the (non-empty) input tokens.
struct TokenChunk {
  int64_t start = 0;        // code points
  int64_t end = 0;          // code points
  int64_t token_start = 0;  // index into the token arrays
  int64_t token_end = 0;    // exclusive
  bool oversized = false;   // a single sentence longer than max_tokens, split at token boundaries
};

// Packs whole sentences into chunks of at most `max_tokens` tokens (greedy, in order). Tokens are
// given by their code-point offsets (sorted by start); zero-width tokens (special tokens) are
// ignored. Each token belongs to the sentence in which it starts (tokens before the first sentence
// join it), so no token is dropped. A sentence longer than max_tokens is split at token boundaries
// into max_tokens pieces flagged `oversized`. `overlap_tokens` > 0 repeats whole trailing sentences
// of the previous chunk (at most that many tokens) at the start of the next chunk.
// With `one_per_sentence`, every sentence becomes its own chunk(s) (sentence hypotheses).
std::vector<TokenChunk> chunk_tokens(const int64_t* token_starts, const int64_t* token_ends,
                                     size_t n_tokens, const std::vector<Span>& sentences,
                                     int64_t text_length, int64_t max_tokens,
                                     int64_t overlap_tokens, bool one_per_sentence);

}  // namespace director_fast

// Incremental sentence segmentation over a growing text (code-point spans, see segmenter.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "director_fast/offsets.hpp"

namespace director_fast {

// Feeds text piece by piece (streamed tokens) and reports each sentence as a code-point span once
// the text that follows proves it ended (or on flush). Spans are trimmed of surrounding whitespace
// and of a leading list bullet ("- ", "* ", "• "). Work per feed is proportional to the fed text
// plus the unsettled tail (a pending terminal mark and the whitespace after it), never to the
// whole text.
//
// Rules: '.', '!', '?', '…' (and runs of them, e.g. "?!", "...") followed by optional closing
// quotes/brackets end a sentence when followed by whitespace and then a character that is not a
// lowercase letter or ',;:'. A '.' directly followed by a non-space ("3.14", "v2.0.1", "e.g.,")
// never ends one; nor does a '.' after a known abbreviation ("Dr.", "No.", "e.g.", dotted acronyms
// such as "U.S."), after a single letter (initials), or after a list number at the start of a
// sentence ("1. "). CJK terminals ('。', '！', '？') end a sentence without whitespace. A newline
// always ends a non-empty sentence.
class SentenceSegmenter {
 public:
  std::vector<Span> feed(std::u32string_view piece);
  std::vector<Span> flush();
  void reset();
  const std::u32string& text() const { return text_; }
  // Start of the sentence that is not settled yet (code points).
  int64_t pending_start() const { return static_cast<int64_t>(sent_start_); }

 private:
  void run(bool final, std::vector<Span>& out);
  void emit(size_t start, size_t end, std::vector<Span>& out) const;
  bool period_may_end(size_t p) const;

  std::u32string text_;
  size_t sent_start_ = 0;  // start of the current (unsettled) sentence
  size_t scan_ = 0;        // next position to examine
  size_t ws_resume_ = 0;   // whitespace already scanned after a pending terminal (0 = none)
};

// Splits a whole text with the same rules (feed + flush).
std::vector<Span> split_sentences(std::u32string_view text);

}  // namespace director_fast

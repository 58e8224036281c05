#include "director_fast/segmenter.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace director_fast {

namespace {

bool is_newline(char32_t c) {
  return c == U'\n' || c == U'\r' || c == 0x85 || c == 0x2028 || c == 0x2029;
}

bool is_space(char32_t c) {
  return c == U' ' || c == U'\t' || c == 0x0B || c == 0x0C || is_newline(c) || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F ||
         c == 0x3000 || c == 0xFEFF;
}

bool is_latin_terminal(char32_t c) {
  return c == U'.' || c == U'!' || c == U'?' || c == 0x2026 /* … */ || c == 0x203C ||
         c == 0x2047 || c == 0x2048 || c == 0x2049;
}

bool is_cjk_terminal(char32_t c) {
  return c == 0x3002 /* 。 */ || c == 0xFF01 /* ！ */ || c == 0xFF1F /* ？ */ || c == 0xFF61;
}

bool is_closer(char32_t c) {
  switch (c) {
    case U'"': case U'\'': case U')': case U']': case U'}': case U'*':
    case 0xBB: case 0x2019: case 0x201D: case 0x203A: case 0x3009: case 0x300B:
    case 0x300D: case 0x300F: case 0x3011: case 0x3015: case 0xFF09: case 0xFF3D:
    case 0xFF63:
      return true;
    default:
      return false;
  }
}

bool is_opener(char32_t c) {
  switch (c) {
    case U'"': case U'\'': case U'(': case U'[': case U'{': case 0xAB: case 0x2018:
    case 0x201C:
      return true;
    default:
      return false;
  }
}

bool is_bullet(char32_t c) {
  return c == U'-' || c == U'*' || c == U'+' || c == 0x2022 || c == 0x2023 || c == 0x25E6 ||
         c == 0x2043 || c == 0x2219 || c == 0x00B7 || c == 0x2013 || c == 0x2014;
}

bool is_lower(char32_t c) {
  return (c >= U'a' && c <= U'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
         (c >= 0x3B1 && c <= 0x3C9) || (c >= 0x430 && c <= 0x44F);
}
bool is_alpha(char32_t c) {
  return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7);
}
bool is_digit(char32_t c) { return c >= U'0' && c <= U'9'; }

// Words after which '.' never ends a sentence (compared case-sensitively, as written).
const char* const kAbbrev[] = {
    "Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Mt", "Gen", "Col", "Lt", "Sgt", "Capt", "Cmdr",
    "Adm", "Gov", "Sen", "Rep", "Rev", "Hon", "Pres", "Supt", "Messrs", "Mme", "Mlle", "No",
    "Nos", "Fig", "Figs", "Eq", "Eqs", "Vol", "Vols", "Ch", "Sec", "Art", "pp", "vs", "cf",
    "approx", "ca", "Ave", "Blvd", "Rd", "Dept", "Univ", "Jan", "Feb", "Mar", "Apr", "Jun",
    "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec", "al", "viz", "resp", "Ref", "Refs",
    "Inc", "Ltd", "Co", "Corp", "Jr", "Sr", "etc", "VS", "Vs", "Op", "Ph", "v"};

bool equals_ascii(std::u32string_view w, const char* s) {
  size_t n = std::strlen(s);
  if (w.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (w[i] != static_cast<char32_t>(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

}  // namespace

void SentenceSegmenter::reset() {
  text_.clear();
  sent_start_ = scan_ = ws_resume_ = 0;
}

void SentenceSegmenter::emit(size_t start, size_t end, std::vector<Span>& out) const {
  while (start < end && is_space(text_[start])) ++start;
  // a leading list bullet: "- ", "* ", "• "
  if (start + 1 < end && is_bullet(text_[start]) && is_space(text_[start + 1])) {
    start += 1;
    while (start < end && is_space(text_[start])) ++start;
  }
  while (end > start && is_space(text_[end - 1])) --end;
  if (end > start) out.push_back(Span{static_cast<int64_t>(start), static_cast<int64_t>(end)});
}

// May the '.' at position p end a sentence, judged by the word before it?
bool SentenceSegmenter::period_may_end(size_t p) const {
  // word = maximal run of non-space characters before p within the current sentence (capped)
  size_t lo = p;
  const size_t cap = 48;
  while (lo > sent_start_ && !is_space(text_[lo - 1]) && p - lo < cap) --lo;
  while (lo < p && is_opener(text_[lo])) ++lo;
  std::u32string_view w(text_.data() + lo, p - lo);
  if (w.empty()) return true;
  // the whole sentence so far is a list number or letter ("1.", "a.", "iv.")
  size_t first = sent_start_;
  while (first < p && is_space(text_[first])) ++first;
  if (first == lo && w.size() <= 3) {
    bool digits = std::all_of(w.begin(), w.end(), is_digit);
    if (digits) return false;
  }
  // a single letter: an initial ("J. K. Rowling")
  if (w.size() == 1 && is_alpha(w[0])) return false;
  // dotted abbreviation / acronym: "e.g", "i.e", "U.S", "a.m", "Ph.D"
  bool has_dot = false, dotted = true;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == U'.') {
      has_dot = true;
      if (i == 0 || w[i - 1] == U'.') dotted = false;
    } else if (!is_alpha(w[i])) {
      dotted = false;
    }
  }
  if (has_dot && dotted) {
    // every dot-separated part is 1-2 letters
    size_t run = 0;
    bool short_parts = true;
    for (char32_t c : w) {
      if (c == U'.') { run = 0; continue; }
      if (++run > 2) short_parts = false;
    }
    if (short_parts) return false;
  }
  for (const char* a : kAbbrev) {
    if (equals_ascii(w, a)) return false;
  }
  return true;
}

void SentenceSegmenter::run(bool final, std::vector<Span>& out) {
  const size_t n = text_.size();
  size_t p = scan_;
  while (p < n) {
    char32_t c = text_[p];
    if (is_newline(c)) {
      emit(sent_start_, p, out);
      sent_start_ = p + 1;
      p = p + 1;
      ws_resume_ = 0;
      continue;
    }
    bool latin = is_latin_terminal(c), cjk = is_cjk_terminal(c);
    if (!latin && !cjk) {
      ++p;
      continue;
    }
    // terminal run and closers
    size_t j = p;
    bool only_periods = true;
    bool any_cjk = false;
    while (j < n && (is_latin_terminal(text_[j]) || is_cjk_terminal(text_[j]))) {
      if (text_[j] != U'.') only_periods = false;
      if (is_cjk_terminal(text_[j])) any_cjk = true;
      ++j;
    }
    while (j < n && is_closer(text_[j])) ++j;
    if (j == n) {
      if (final) {
        emit(sent_start_, j, out);
        sent_start_ = j;
        p = j;
        continue;
      }
      scan_ = p;  // undecided: the next piece may extend the run or the closers
      ws_resume_ = 0;
      return;
    }
    if (any_cjk) {
      emit(sent_start_, j, out);
      sent_start_ = j;
      p = j;
      ws_resume_ = 0;
      continue;
    }
    if (!is_space(text_[j])) {  // "3.14", "v2.0", "e.g.,", "Yahoo!Inc"
      p = j;
      continue;
    }
    // whitespace already scanned on an earlier feed held no newline (else it was decided)
    size_t k = std::max(j, ws_resume_);
    bool newline = false;
    while (k < n && is_space(text_[k]) && !newline) {
      if (is_newline(text_[k])) newline = true;
      ++k;
    }
    bool boundary;
    if (newline) {
      boundary = true;
    } else if (k == n) {
      if (!final) {
        scan_ = p;
        ws_resume_ = k;
        return;
      }
      boundary = true;
    } else {
      char32_t d = text_[k];
      if (is_lower(d) || d == U',' || d == U';' || d == U':') {
        boundary = false;
      } else if (only_periods && j - p >= 1 && text_[p] == U'.' &&
                 (p + 1 == j || !is_latin_terminal(text_[p + 1]))) {
        boundary = period_may_end(p);
      } else {
        boundary = true;
      }
    }
    ws_resume_ = 0;
    if (boundary) {
      emit(sent_start_, j, out);
      sent_start_ = j;
    }
    p = j;
  }
  scan_ = p;
}

std::vector<Span> SentenceSegmenter::feed(std::u32string_view piece) {
  std::vector<Span> out;
  if (piece.empty()) return out;
  text_.append(piece.data(), piece.size());
  run(false, out);
  return out;
}

std::vector<Span> SentenceSegmenter::flush() {
  std::vector<Span> out;
  run(true, out);
  emit(sent_start_, text_.size(), out);
  sent_start_ = scan_ = text_.size();
  ws_resume_ = 0;
  return out;
}

std::vector<Span> split_sentences(std::u32string_view text) {
  SentenceSegmenter s;
  std::vector<Span> out = s.feed(text);
  std::vector<Span> rest = s.flush();
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace director_fast

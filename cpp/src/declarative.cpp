// Declarative part of a prompt (see declarative.hpp).
#include "director_fast/declarative.hpp"

#include <string>

#include "director_fast/safety_rules.hpp"  // is_py_space: Python's str.isspace
#include "director_fast/segmenter.hpp"

namespace director_fast {
namespace {

// Request and question words (lower case, ASCII). Must match _REQUEST_WORDS in
// python/director_fast/core/scorer.py (a test compares the two implementations).
constexpr std::string_view kRequestWords[] = {
    "tell", "describe", "explain", "summarize", "summarise", "list", "give", "write", "show",
    "compare", "name", "provide", "please", "can", "could", "would", "will", "do", "does", "did",
    "is", "are", "was", "were", "what", "who", "whom", "whose", "when", "where", "why", "how",
    "which", "find", "answer", "translate", "define", "continue", "elaborate", "expand", "rewrite",
    "rephrase", "paraphrase", "complete", "generate", "create", "draft", "respond", "reply", "say",
    "help", "check", "verify", "classify", "extract", "analyze", "analyse", "discuss", "outline",
    "suggest", "recommend", "calculate", "solve", "go", "let"};

bool is_request_word(const std::string& w) {
  for (std::string_view r : kRequestWords)
    if (r == w) return true;
  return false;
}

inline bool strip_quote(char32_t c) {
  return c == U'"' || c == U'\'' || c == U'(' || c == U'[' || c == U'{';
}

}  // namespace

std::u32string declarative_part(std::u32string_view text) {
  using safety::is_py_space;
  std::u32string out;
  std::string word;
  for (const Span& sp : split_sentences(text)) {
    std::size_t a = static_cast<std::size_t>(sp.start), b = static_cast<std::size_t>(sp.end);
    while (a < b && is_py_space(text[a])) ++a;
    while (b > a && is_py_space(text[b - 1])) --b;
    if (a == b || text[b - 1] == U'?') continue;
    std::size_t e = a;
    while (e < b && !is_py_space(text[e])) ++e;
    std::size_t fa = a, fb = e;
    while (fa < fb && strip_quote(text[fa])) ++fa;
    while (fb > fa && strip_quote(text[fb - 1])) --fb;
    // Python lower-cases the word before comparing; a non-ASCII character never lower-cases into
    // one of the ASCII request words (the only non-ASCII character whose lower case is ASCII is
    // U+212A KELVIN SIGN -> 'k', and no request word has a 'k'), so such a word is no request.
    word.clear();
    bool ascii = true;
    for (std::size_t i = fa; i < fb; ++i) {
      const char32_t c = text[i];
      if (c >= 0x80) {
        ascii = false;
        break;
      }
      word += static_cast<char>(c >= U'A' && c <= U'Z' ? c + 32 : c);
    }
    const bool colon = !word.empty() && word.back() == ':';
    while (!word.empty() && (word.back() == ',' || word.back() == ':' || word.back() == ';' ||
                             word.back() == '.' || word.back() == '!'))
      word.pop_back();
    if (ascii && is_request_word(word)) {
      // "Summarize: <material>": the request is dropped, the material after it is kept
      if (!colon) continue;
      a = e;
      while (a < b && is_py_space(text[a])) ++a;
      if (a == b) continue;
    }
    if (!out.empty()) out += U' ';
    out.append(text.substr(a, b - a));
  }
  return out;
}

}  // namespace director_fast

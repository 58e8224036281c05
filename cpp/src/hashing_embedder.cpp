#include "director_fast/hashing_embedder.hpp"

#include <cmath>
#include <cstring>
#include <unordered_set>

#include "director_fast/errors.hpp"

namespace director_fast {

namespace {

char32_t lower(char32_t c) {
  if (c >= U'A' && c <= U'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  return c;
}

bool is_word_char(char32_t c) {
  if ((c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || (c >= U'0' && c <= U'9') || c == U'_')
    return true;
  if (c < 0xC0) return false;
  if (c == 0xD7 || c == 0xF7) return false;
  // general punctuation, symbols, spaces, CJK punctuation, full-width punctuation, emoji
  if ((c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xFE30 && c <= 0xFE6F) ||
      (c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
      (c >= 0xFF5B && c <= 0xFF65) || (c >= 0x1F000 && c <= 0x1FAFF) || c == 0xFEFF)
    return false;
  return true;
}

inline uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

inline uint64_t hash_cps(const char32_t* p, size_t n, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ULL ^ seed;  // FNV-1a over code points, then mixed
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<uint64_t>(p[i]);
    h *= 0x100000001b3ULL;
  }
  return mix(h);
}

const char* const kStop[] = {
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "and", "or",
    "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these",
    "those", "as", "what", "which", "who", "whom", "whose", "do", "does", "did", "has", "have",
    "had", "but", "if", "than", "then", "so", "not", "no", "there", "their", "they", "he", "she",
    "his", "her", "we", "our", "you", "your", "i", "me", "my", "how", "when", "where", "why",
    "about", "into", "over", "also", "can", "will", "would", "should", "could", "may", "might"};

struct StopSet {
  std::unordered_set<std::u32string> s;
  StopSet() {
    for (const char* w : kStop) {
      std::u32string u;
      for (const char* c = w; *c; ++c) u.push_back(static_cast<char32_t>(*c));
      s.insert(u);
    }
  }
};
const StopSet& stopset() {
  static const StopSet st;
  return st;
}

}  // namespace

std::vector<std::u32string> normalize_terms(std::u32string_view text) {
  std::vector<std::u32string> out;
  std::u32string cur;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    char32_t c = text[i];
    if (is_word_char(c)) {
      cur.push_back(lower(c));
      continue;
    }
    if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
    // possessive: apostrophe + s + non-word -> skip the "s"
    if ((c == U'\'' || c == 0x2019) && i + 1 < n && (text[i + 1] == U's' || text[i + 1] == U'S') &&
        (i + 2 == n || !is_word_char(text[i + 2])) && i > 0 && is_word_char(text[i - 1])) {
      ++i;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

HashingEmbedder::HashingEmbedder(HashingConfig cfg) : cfg_(cfg) {
  if (cfg_.dim < 1 || cfg_.dim > (1u << 20)) throw ConfigError("dim", "must be in [1, 1048576]");
  if (cfg_.char_ngram_min < 0 || cfg_.char_ngram_max < cfg_.char_ngram_min || cfg_.char_ngram_max > 16)
    throw ConfigError("char_ngrams", "need 0 <= min <= max <= 16");
  if (cfg_.char_ngram_min == 0) cfg_.char_ngram_max = 0;
}

void HashingEmbedder::add(uint64_t h, float w, float* out) const {
  size_t idx = static_cast<size_t>(h % cfg_.dim);
  out[idx] += (h >> 63) ? -w : w;
}

void HashingEmbedder::embed(std::u32string_view text, float* out) const {
  std::memset(out, 0, sizeof(float) * cfg_.dim);
  std::vector<std::u32string> terms = normalize_terms(text);
  const auto& stop = stopset().s;
  const uint64_t s_word = cfg_.seed ^ 0x1111, s_bi = cfg_.seed ^ 0x2222, s_ch = cfg_.seed ^ 0x3333;
  std::u32string buf;
  const std::u32string* prev = nullptr;
  for (const auto& t : terms) {
    bool is_stop = stop.count(t) != 0;
    add(hash_cps(t.data(), t.size(), s_word), is_stop ? cfg_.stopword_weight : cfg_.word_weight, out);
    if (cfg_.word_bigrams && prev != nullptr) {
      buf = *prev;
      buf.push_back(U' ');
      buf += t;
      add(hash_cps(buf.data(), buf.size(), s_bi), cfg_.bigram_weight, out);
    }
    prev = &t;
    if (cfg_.char_ngram_max > 0 && !is_stop) {
      buf.assign(1, U'<');
      buf += t;
      buf.push_back(U'>');
      size_t count = 0;
      for (int g = cfg_.char_ngram_min; g <= cfg_.char_ngram_max; ++g) {
        if (buf.size() >= static_cast<size_t>(g)) count += buf.size() - static_cast<size_t>(g) + 1;
      }
      if (count == 0) continue;
      float w = cfg_.char_weight / std::sqrt(static_cast<float>(count));
      for (int g = cfg_.char_ngram_min; g <= cfg_.char_ngram_max; ++g) {
        for (size_t i = 0; i + static_cast<size_t>(g) <= buf.size(); ++i) {
          add(hash_cps(buf.data() + i, static_cast<size_t>(g), s_ch + static_cast<uint64_t>(g)), w, out);
        }
      }
    }
  }
  double norm = 0.0;
  for (size_t i = 0; i < cfg_.dim; ++i) norm += static_cast<double>(out[i]) * out[i];
  if (norm > 0.0) {
    float inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (size_t i = 0; i < cfg_.dim; ++i) out[i] *= inv;
  }
}

}  // namespace director_fast

// Deterministic hashing embedder: word unigrams, word bigrams and character n-grams, signed
// feature hashing (Weinberger et al. 2009, "Feature Hashing for Large Scale Multitask Learning"),
// L2-normalised. No model, no vocabulary, identical output on every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace director_fast {

// Normalised terms of a text: lowercase (ASCII and Latin-1), split on anything that is not a
// letter, digit or '_' (other non-ASCII code points count as letters), possessive "'s"/"’s"
// dropped. Used by the embedder and by lexical (BM25) matching so both see the same words.
std::vector<std::u32string> normalize_terms(std::u32string_view text);

struct HashingConfig {
  size_t dim = 384;
  int char_ngram_min = 3;  // 0 disables character n-grams
  int char_ngram_max = 5;
  bool word_bigrams = true;
  float word_weight = 1.0f;
  float bigram_weight = 0.7f;
  float char_weight = 0.35f;   // per n-gram, spread over the n-grams of a word
  float stopword_weight = 0.15f;  // unigram weight of a common English function word
  uint64_t seed = 0;
};

class HashingEmbedder {
 public:
  explicit HashingEmbedder(HashingConfig cfg);
  size_t dim() const { return cfg_.dim; }
  const HashingConfig& config() const { return cfg_; }
  // Writes dim floats; an input without terms gives the zero vector.
  void embed(std::u32string_view text, float* out) const;

 private:
  void add(uint64_t h, float w, float* out) const;
  HashingConfig cfg_;
};

}  // namespace director_fast

// Lexical NLI: a model-free, English-only heuristic divergence for (premise, hypothesis) pairs.
//
// It is a heuristic, not a learned model. Signals (each reported per hypothesis sentence):
//   - content coverage: share of the hypothesis' content-word stems found anywhere in the premise;
//   - numeric mismatch: numbers of the hypothesis (find_numbers of numbers.hpp: thousands
//     separators, decimals, percentages, currency, units, multipliers such as "3 billion", written
//     numbers "two".."ninety", times of day, ranges and dates split into their numbers) that the
//     premise does not contain with a compatible unit ("2,500" == 2500, "€12" == "12 euros",
//     "17:30" == "5:30 pm", "30 days" != "90 days"); a missing number is reported by its whole
//     mention ("90 days", "$3 billion");
//   - entity mismatch: capitalised words of the hypothesis absent from the premise (each one
//     counts: 1 - (1 - q_entity)^missing);
//   - negation flip: the hypothesis sentence and its best-aligned premise sentence disagree in
//     negation parity ("not", "no", "never", "n't", ...); weighted w_negation when the sentence is
//     closely aligned (alignment >= negation_alignment: the negation then applies to the shared
//     content), w_negation_weak when it is only loosely aligned (alignment in [0.5, that));
//   - novel polarity: polarity cues of the sentence -- negations and failure / error / exclusion
//     words ("not", "never", "without", "fails", "incorrectly", "refused", "except", "instead",
//     "only", ...) -- that occur nowhere in the premise (each one counts:
//     1 - (1 - q_polarity)^novel_polarity);
//   - antonym: the hypothesis uses a word whose antonym appears in the aligned premise sentence
//     while the word itself does not;
//   - novel bigrams: share of the sentence's word bigrams (stems, stopwords included) that never
//     occur in the premise (the "novel n-gram" measure of abstractiveness).
// Premise and hypothesis are split into sentences by split_sentences (segmenter.hpp), the rules of
// director_fast.text.split_sentences.
// The sentence divergence is a noisy-OR of the weighted signals; the response divergence
// aggregates the sentence divergences (mean, max or their average).
//
// Thread safety: LexicalNLI and LexicalPremise are immutable after construction; every const
// method may be called concurrently from any number of threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace director_fast {

enum class LexicalAggregation { Mean = 0, Max = 1, MeanMax = 2 };

struct LexicalConfig {
  // Defaults chosen on the design data only (WiCE claim dev, SummEdits 'evaluation' split, SICK
  // trial; see docs/scoring.md): the 2026-11-30 revision raised w_numeric / w_entity 0.6 -> 0.7,
  // split w_negation 0.6 into 0.9 (close alignment) / 0.35 (loose) and added w_polarity 0.7.
  double w_uncovered = 0.85;  // weight of (1 - coverage)
  double w_numeric = 0.7;     // weight of "some number of the sentence is unsupported"
  double w_entity = 0.7;      // weight of the entity signal 1 - (1 - q_entity)^missing_entities
  double q_entity = 0.85;     // strength of one unsupported entity
  double w_negation = 0.9;    // weight of a negation-parity flip on a closely aligned sentence
  double w_negation_weak = 0.35;     // weight of a flip on a loosely aligned sentence
  double negation_alignment = 0.8;   // alignment from which a flip counts as close
  double w_polarity = 0.7;    // weight of 1 - (1 - q_polarity)^novel_polarity
  double q_polarity = 0.7;    // strength of one polarity cue absent from the premise
  double w_antonym = 0.5;     // weight of an antonym hit
  double w_novel = 0.0;       // weight of the share of word bigrams absent from the premise
  LexicalAggregation aggregation = LexicalAggregation::Max;
  // Validates ranges (weights in [0, 1]); throws ConfigError naming the field.
  void validate() const;
};

struct LexicalSignals {
  double coverage = 1.0;            // [0, 1]; 1 when the sentence has no content words
  int content_words = 0;            // distinct content stems in the hypothesis sentence
  int covered_words = 0;
  int numbers = 0;                  // numbers in the hypothesis sentence
  int numeric_mismatches = 0;
  int entities = 0;                 // capitalised (entity-like) words in the hypothesis sentence
  int entity_mismatches = 0;
  int negation_flips = 0;           // 0 or 1
  int negation_close = 0;           // 1 when the flip is on a closely aligned sentence
  int novel_polarity = 0;           // distinct polarity cues of the sentence absent from the premise
  int antonym_hits = 0;
  int bigrams = 0;                  // word bigrams of the hypothesis sentence
  int novel_bigrams = 0;            // of which absent from the premise
  std::vector<std::string> missing_numbers;   // surface forms (UTF-8) of unsupported numbers
  std::vector<std::string> missing_entities;  // lower-cased unsupported entity words
  std::vector<std::string> antonym_pairs;     // "hyp_word/premise_word"
  std::vector<std::string> polarity_words;    // canonical novel polarity cues ("not", "fail", ...)
};

struct LexicalSentence {
  std::string text;              // the hypothesis sentence (UTF-8)
  double divergence = 0.0;       // [0, 1]
  int premise_sentence = -1;     // index of the best-aligned premise sentence (-1: none)
  double alignment = 0.0;        // share of the sentence's content stems in that premise sentence
  LexicalSignals signals;
};

struct LexicalResult {
  double divergence = 0.5;       // [0, 1]; 0.5 (neutral) for an empty hypothesis
  std::vector<LexicalSentence> sentences;
  int premise_sentences = 0;
  int hypothesis_tokens = 0;     // word/number tokens of the hypothesis
  int premise_tokens = 0;
};

// A premise analysed once (tokens, stems, numbers, sentences) and reused for many hypotheses.
class LexicalPremise {
 public:
  explicit LexicalPremise(std::string_view text);
  ~LexicalPremise();
  LexicalPremise(LexicalPremise&&) noexcept;
  LexicalPremise& operator=(LexicalPremise&&) noexcept;
  LexicalPremise(const LexicalPremise&) = delete;
  LexicalPremise& operator=(const LexicalPremise&) = delete;

  int sentence_count() const;
  int token_count() const;
  const std::string& sentence(int i) const;  // throws IndexError
  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  Impl* impl_;
};

class LexicalNLI {
 public:
  explicit LexicalNLI(LexicalConfig config = {});
  const LexicalConfig& config() const { return config_; }

  LexicalResult score(std::string_view premise, std::string_view hypothesis) const;
  LexicalResult score(const LexicalPremise& premise, std::string_view hypothesis) const;
  // Divergences only, one per pair.
  std::vector<double> score_batch(const std::vector<std::string>& premises,
                                  const std::vector<std::string>& hypotheses) const;

 private:
  LexicalConfig config_;
};

// The light suffix stemmer the lexical NLI compares words by (lower-cased ASCII input; not
// Porter: "increase", "increased", "increases", "increasing" -> "increas").
std::string lexical_stem(const std::string& word);

}  // namespace director_fast

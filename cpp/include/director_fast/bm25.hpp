// Incremental Okapi BM25 inverted index over pre-tokenised documents (Robertson & Zaragoza
// 2009): idf = ln(1 + (N - df + 0.5) / (df + 0.5)), term weight
// qtf * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)).
//
// Terms are interned to 32-bit ids; each term's postings are one compact vector of
// (local document index, term frequency) in insertion order, and document lengths are one
// vector by local index, so memory is ~8 bytes per posting plus the vocabulary. A query touches
// only its terms' postings (a per-thread scratch accumulator, reset through the list of touched
// documents), so its cost is O(postings of the query terms + touched * log k) and independent
// of the corpus size otherwise.
//
// Thread-safety: add() takes an exclusive lock and top() a shared one; several top() calls may
// run at once from different threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace director_fast {

class Bm25Index {
 public:
  // k1 >= 0 and 0 <= b <= 1, both finite (ConfigError naming "k1" / "b" otherwise).
  Bm25Index(double k1 = 1.2, double b = 0.75);

  double k1() const noexcept { return k1_; }
  double b() const noexcept { return b_; }

  // Number of documents added (the same doc_id added twice counts twice, as two documents).
  size_t size() const;
  // Sum of the documents' lengths (in terms).
  uint64_t total_length() const;
  // Distinct terms seen.
  size_t vocabulary_size() const;
  // Total number of (term, document) postings.
  size_t postings_size() const;

  // Append one document with id `doc_id` and its terms (in any order, repeats counted).
  void add(int64_t doc_id, const std::vector<std::string>& terms);

  // The k best (doc_id, score) for the query terms: score > 0 only, best first, ties by doc id
  // ascending, then by insertion order. Query terms are taken once each with their count (qtf),
  // in order of first occurrence; contributions are summed in that order. Empty when k == 0, the
  // index is empty or no query term is known.
  std::vector<std::pair<int64_t, double>> top(const std::vector<std::string>& terms, size_t k) const;

  // Weighted reciprocal rank fusion (Cormack et al. 2009) of a dense ranking and this index's
  // ranking of `terms` (its top `depth`): fused(d) = dense_weight / (rrf_k + rank_dense(d)) +
  // 1 / (rrf_k + rank_bm25(d)), ranks from 1, the dense term added first. Returns the k best
  // (doc_id, fused) by fused descending, ties by doc id. A doc id repeated in `dense` gets each
  // of its ranks' terms.
  std::vector<std::pair<int64_t, double>> fuse_top(const std::vector<int64_t>& dense, double dense_weight,
                                                   double rrf_k, const std::vector<std::string>& terms,
                                                   size_t depth, size_t k) const;

 private:
  struct Posting {
    uint32_t doc;  // local index
    uint32_t tf;
  };

  double k1_;
  double b_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, uint32_t> term_ids_;
  std::vector<std::vector<Posting>> postings_;  // by term id
  std::vector<uint32_t> lengths_;               // by local index
  std::vector<int64_t> doc_ids_;                // by local index
  uint64_t total_len_ = 0;
  size_t n_postings_ = 0;

  // k1 * (1 - b + b * dl / avgdl) by local index, for the current document count (rebuilt
  // lazily by the first query after an add; under norm_mu_, then read-only until the next add,
  // which needs the exclusive lock).
  mutable std::mutex norm_mu_;
  mutable std::vector<double> norm_;
  const std::vector<double>& norms() const;
};

}  // namespace director_fast

// Okapi BM25 inverted index; see bm25.hpp.
#include "director_fast/bm25.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "director_fast/errors.hpp"

namespace director_fast {

Bm25Index::Bm25Index(double k1, double b) : k1_(k1), b_(b) {
  if (!std::isfinite(k1) || k1 < 0.0) throw ConfigError("k1", "must be a finite number >= 0");
  if (!std::isfinite(b) || b < 0.0 || b > 1.0) throw ConfigError("b", "must be a finite number in [0, 1]");
}

size_t Bm25Index::size() const {
  std::shared_lock lock(mu_);
  return lengths_.size();
}

uint64_t Bm25Index::total_length() const {
  std::shared_lock lock(mu_);
  return total_len_;
}

size_t Bm25Index::vocabulary_size() const {
  std::shared_lock lock(mu_);
  return postings_.size();
}

size_t Bm25Index::postings_size() const {
  std::shared_lock lock(mu_);
  return n_postings_;
}

void Bm25Index::add(int64_t doc_id, const std::vector<std::string>& terms) {
  if (terms.size() > std::numeric_limits<uint32_t>::max()) throw ValueError("terms: too many terms in one document");
  // Count the document's terms before touching the index (strong guarantee on bad_alloc in
  // the counting step).
  std::vector<std::pair<const std::string*, uint32_t>> counts;
  {
    std::unordered_map<std::string_view, size_t> seen;
    seen.reserve(terms.size());
    for (const auto& t : terms) {
      auto [it, fresh] = seen.emplace(t, counts.size());
      if (fresh) counts.emplace_back(&t, 1u);
      else ++counts[it->second].second;
    }
  }
  std::unique_lock lock(mu_);
  if (lengths_.size() >= std::numeric_limits<uint32_t>::max())
    throw ValueError("doc_id: the index is full (2**32 - 1 documents)");
  const auto local = static_cast<uint32_t>(lengths_.size());
  doc_ids_.push_back(doc_id);
  lengths_.push_back(static_cast<uint32_t>(terms.size()));
  total_len_ += terms.size();
  for (const auto& [term, tf] : counts) {
    auto [it, fresh] = term_ids_.emplace(*term, static_cast<uint32_t>(postings_.size()));
    if (fresh) postings_.emplace_back();
    postings_[it->second].push_back(Posting{local, tf});
    ++n_postings_;
  }
}

const std::vector<double>& Bm25Index::norms() const {
  // Caller holds mu_ shared: the document count cannot change, and the first reader to get here
  // brings the cache up to date; later readers of this generation only read it.
  std::lock_guard<std::mutex> g(norm_mu_);
  const size_t n = lengths_.size();
  if (norm_.size() != n) {
    const double avgdl = total_len_ ? static_cast<double>(total_len_) / static_cast<double>(n) : 1.0;
    norm_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const double dl = static_cast<double>(lengths_[i]);
      norm_[i] = k1_ * (1.0 - b_ + b_ * dl / avgdl);
    }
  }
  return norm_;
}

namespace {

struct Scratch {
  std::vector<double> score;      // by local index; 0 outside `touched`
  std::vector<uint32_t> touched;  // local indices with a contribution this query
};

}  // namespace

std::vector<std::pair<int64_t, double>> Bm25Index::top(const std::vector<std::string>& terms, size_t k) const {
  std::vector<std::pair<int64_t, double>> out;
  if (k == 0 || terms.empty()) return out;
  std::shared_lock lock(mu_);
  const size_t n = lengths_.size();
  if (n == 0) return out;

  // Distinct known terms with their query counts, in order of first occurrence.
  std::vector<std::pair<uint32_t, double>> query;  // (term id, qtf)
  query.reserve(terms.size());
  for (const auto& t : terms) {
    auto it = term_ids_.find(t);
    if (it == term_ids_.end()) continue;
    const uint32_t id = it->second;
    auto q = std::find_if(query.begin(), query.end(), [id](const auto& p) { return p.first == id; });
    if (q == query.end()) query.emplace_back(id, 1.0);
    else q->second += 1.0;
  }
  if (query.empty()) return out;

  const double nd = static_cast<double>(n);
  const double k1 = k1_;
  const std::vector<double>& norm = norms();

  // Every contribution is > 0 (k1 >= 0, 0 <= b <= 1, tf >= 1, idf > 0), so an accumulator that
  // is exactly 0.0 has not been touched by this query. The scratch keeps its size between
  // queries (8 bytes per document of the largest index this thread queried).
  thread_local Scratch s;
  if (s.score.size() < n) s.score.resize(n, 0.0);
  s.touched.clear();
  s.touched.reserve(n);  // no allocation inside the accumulation loop: the scratch stays clean
  for (const auto& [id, qtf] : query) {
    const auto& post = postings_[id];
    const double df = static_cast<double>(post.size());
    const double idf = std::log(1.0 + (nd - df + 0.5) / (df + 0.5));
    const double w = qtf * idf;
    for (const Posting& p : post) {
      const double tf = static_cast<double>(p.tf);
      // Same operations in the same order as w * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)),
      // the last factor taken from the per-document cache (bit-identical).
      const double c = w * tf * (k1 + 1.0) / (tf + norm[p.doc]);
      double& acc = s.score[p.doc];
      if (acc == 0.0) s.touched.push_back(p.doc);
      acc += c;
    }
  }

  // Candidates with score > 0, ordered by (score desc, doc id asc, local index asc).
  struct Cand {
    double score;
    int64_t id;
    uint32_t local;
  };
  std::vector<Cand> cands;
  cands.reserve(s.touched.size());
  for (uint32_t d : s.touched) {
    const double v = s.score[d];
    s.score[d] = 0.0;
    if (v > 0.0) cands.push_back(Cand{v, doc_ids_[d], d});
  }
  auto better = [](const Cand& a, const Cand& c) {
    if (a.score != c.score) return a.score > c.score;
    if (a.id != c.id) return a.id < c.id;
    return a.local < c.local;
  };
  const size_t take = std::min(k, cands.size());
  std::partial_sort(cands.begin(), cands.begin() + static_cast<std::ptrdiff_t>(take), cands.end(), better);
  out.reserve(take);
  for (size_t i = 0; i < take; ++i) out.emplace_back(cands[i].id, cands[i].score);
  return out;
}

}  // namespace director_fast

namespace director_fast {

std::vector<std::pair<int64_t, double>> Bm25Index::fuse_top(const std::vector<int64_t>& dense, double dense_weight,
                                                            double rrf_k, const std::vector<std::string>& terms,
                                                            size_t depth, size_t k) const {
  std::vector<std::pair<int64_t, double>> lex = top(terms, depth);
  // (id, fused) in first-seen order: dense ranks first, then BM25 ranks, as the Python fusion did.
  std::vector<std::pair<int64_t, double>> fused;
  fused.reserve(dense.size() + lex.size());
  std::unordered_map<int64_t, size_t> where;
  where.reserve(2 * (dense.size() + lex.size()));
  auto bump = [&](int64_t id, double v) {
    auto [it, fresh] = where.emplace(id, fused.size());
    if (fresh) fused.emplace_back(id, 0.0 + v);
    else fused[it->second].second += v;
  };
  for (size_t r = 0; r < dense.size(); ++r) bump(dense[r], dense_weight / (rrf_k + static_cast<double>(r + 1)));
  for (size_t r = 0; r < lex.size(); ++r) bump(lex[r].first, 1.0 / (rrf_k + static_cast<double>(r + 1)));
  const size_t take = std::min(k, fused.size());
  std::partial_sort(fused.begin(), fused.begin() + static_cast<std::ptrdiff_t>(take), fused.end(),
                    [](const auto& a, const auto& c) {
                      if (a.second != c.second) return a.second > c.second;
                      return a.first < c.first;
                    });
  fused.resize(take);
  return fused;
}

}  // namespace director_fast

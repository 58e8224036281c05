// Evidence index: hnswlib's HNSW graph (Malkov & Yashunin 2018) with per-item metadata
// (id, text, source, tenant), mark-delete/upsert, tenant-filtered batched k-NN, exact search,
// automatic growth and versioned, checksummed, atomically written persistence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace hnswlib {
template <typename T> class HierarchicalNSW;
template <typename T> class SpaceInterface;
}  // namespace hnswlib

namespace director_fast {

enum class Metric : uint32_t { Cosine = 0, IP = 1, L2 = 2 };
Metric metric_from_string(const std::string& s);
const char* metric_name(Metric m);

// Element type of the vectors stored in the graph. Float16 halves the bytes a search reads (the
// cost of a large index is memory traffic) at a relative rounding error of <= 2^-11 per component;
// distances are accumulated in float32 either way.
enum class Storage : uint32_t { Float32 = 0, Float16 = 1 };
Storage storage_from_string(const std::string& s);
const char* storage_name(Storage s);

struct IndexConfig {
  size_t dim = 384;
  Metric metric = Metric::Cosine;
  size_t M = 16;
  size_t ef_construction = 200;
  size_t ef_search = 64;
  size_t initial_capacity = 1024;
  uint64_t seed = 100;
  // Searches run exactly (brute force) while the index, or the tenant being searched, holds at
  // most this many live items: exact results, and no HNSW miss under a selective filter.
  size_t exact_threshold = 1024;
  Storage storage = Storage::Float32;
};

// An item id: a string or an integer (kept apart: "7" and 7 are different ids).
struct ItemKey {
  std::string value;  // the string, or the decimal integer
  bool is_int = false;
  std::string encoded() const { return (is_int ? "i" : "s") + value; }
};

struct ItemMeta {
  ItemKey key;
  std::string text;
  std::string source;
  uint32_t tenant = 0;
  bool alive = false;
};

// One search result with its metadata, copied under the same lock as the search (a concurrent
// upsert or remove can never pair a label with another version's text).
struct SearchHit {
  ItemKey key;
  std::string text;
  std::string source;
  std::string tenant;
};

class EvidenceIndex {
 public:
  explicit EvidenceIndex(IndexConfig cfg);
  ~EvidenceIndex();
  EvidenceIndex(const EvidenceIndex&) = delete;
  EvidenceIndex& operator=(const EvidenceIndex&) = delete;

  // ---- writers (exclusive) ----
  // Adds n rows of `vectors` (n x dim, row-major). Without `keys`, integer ids are assigned
  // (never reusing a live id). If `upsert` is false, an id that already exists (or repeats in
  // the batch) raises KeyError before anything is added. Returns the labels of the new items.
  // texts/sources/tenants may be empty (defaults "") or hold n entries.
  std::vector<ItemKey> add(const float* vectors, size_t n, const std::vector<ItemKey>* keys,
                           const std::vector<std::string>& texts,
                           const std::vector<std::string>& sources,
                           const std::vector<std::string>& tenants, bool upsert,
                           int num_threads);
  // Marks the items deleted; returns how many existed. Unknown ids raise KeyError unless
  // missing_ok (then they are skipped).
  size_t remove(const std::vector<ItemKey>& keys, bool missing_ok);
  void set_ef_search(size_t ef);

  // ---- readers (shared; safe from several threads while no writer runs) ----
  // For each of nq queries, writes k labels (-1 = none) and k distances (+inf = none), nearest
  // first. `tenant` null = all tenants. Returns nothing; counts are where labels turn -1.
  // `reference_search` (tests only): use hnswlib's searchKnn even where the prefetching search
  // applies (no deleted items, no tenant filter); both return identical results.
  void search(const float* queries, size_t nq, size_t k, const std::string* tenant, bool exact,
              int num_threads, int64_t* labels_out, float* distances_out,
              bool reference_search = false) const;
  // search() plus the metadata of every hit, read under the same shared lock: hits_out gets nq*k
  // entries (row-major, matching labels_out; entries whose label is -1 stay empty).
  void search_with_hits(const float* queries, size_t nq, size_t k, const std::string* tenant,
                        bool exact, int num_threads, int64_t* labels_out, float* distances_out,
                        std::vector<SearchHit>* hits_out) const;
  // search() plus each hit's id only (no metadata copies), under one lock; keys_out gets
  // nq * k entries (empty keys where labels_out is -1).
  void search_with_keys(const float* queries, size_t nq, size_t k, const std::string* tenant,
                        bool exact, int num_threads, int64_t* labels_out, float* distances_out,
                        std::vector<ItemKey>* keys_out) const;
  // By label from search: a copy taken under the index's lock (a reference could dangle when a
  // concurrent add grows the metadata vector).
  ItemMeta meta(int64_t label) const;
  const std::string& tenant_name(uint32_t id) const;
  bool contains(const ItemKey& key) const;
  std::vector<float> get_vector(const ItemKey& key) const;  // stored (normalised for cosine)
  size_t size() const;        // live items
  size_t capacity() const;
  size_t deleted_count() const;
  size_t tenant_size(const std::string& tenant) const;
  const IndexConfig& config() const { return cfg_; }
  // Instruction set of the distance kernel in use: "avx512", "avx2" or "baseline" (hnswlib's
  // compile-time kernels, SSE on x86-64 portable builds).
  const char* distance_kernel() const;
  size_t ef_search() const;
  std::vector<ItemKey> ids(const std::string* tenant) const;

  // ---- persistence ----
  // Atomic: writes <path>.tmp-<host>-<pid>-<process start time>, fsyncs it, renames it over
  // `path` and fsyncs the directory. Saves of one process are serialised (one temp name per
  // process). Before writing, stale temporaries of `path` are swept (see sweep_stale_temps).
  // A path holding a NUL character raises ConfigError("path").
  void save(const std::string& path) const;
  // Reads a file written by save() without writing anything (works on a read-only mount).
  // Every header field, link, label and string is checked against the file's own sizes before
  // use; anything inconsistent raises FormatError. Also sweeps stale temporaries of `path`.
  static std::unique_ptr<EvidenceIndex> load(const std::string& path);
  // Removes the temporaries of interrupted saves of `path` (best effort, never throws):
  // <path>.tmp-<host>-<pid>-<start> of this host whose process is gone (or whose pid now belongs
  // to a process with another start time), and any temporary of `path` (this naming or the
  // older <path>.tmp-/.hnsw-/.hnsw-load-<n>-<n>-<n>) last modified more than 24 h ago.
  // Returns how many files were removed.
  static size_t sweep_stale_temps(const std::string& path) noexcept;
  // "<host>-<pid>-<start time>" of this process, the tag of its temporaries.
  static std::string temp_tag();
  static constexpr uint32_t kFormatVersion = 2;  // 2: adds the storage type (1 = float32)

 private:
  void prepare(const float* in, float* out) const;  // copy + normalise for cosine; finite check
  // prepare() and conversion to the stored element type (out: element_bytes() bytes, float
  // aligned; scratch: dim floats, used only for float16 storage).
  void to_stored(const float* in, unsigned char* out, float* scratch) const;
  size_t element_bytes() const;
  void exact_one(const void* q, size_t k, int64_t tenant_id, int64_t* labels, float* dists) const;
  void ensure_capacity(size_t extra);
  // search() body; the caller holds mu_ (shared).
  void search_locked(const float* queries, size_t nq, size_t k, const std::string* tenant,
                     bool exact, int num_threads, int64_t* labels_out, float* distances_out,
                     bool reference_search) const;
  // Mark the live item `it` points at deleted (hnswlib markDelete, metadata freed, counters and
  // the key map updated). Caller holds the write lock.
  void erase_live(std::unordered_map<std::string, uint64_t>::iterator it);
  int64_t tenant_id(const std::string& t) const;  // -1 if unknown
  uint32_t intern_tenant(const std::string& t);

  IndexConfig cfg_;
  int isa_ = 0;  // simd::Isa of the kernel in space_
  std::unique_ptr<hnswlib::SpaceInterface<float>> space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> hnsw_;
  std::vector<ItemMeta> meta_;                        // by label
  std::unordered_map<std::string, uint64_t> by_key_;  // encoded key -> label (live only)
  std::vector<std::string> tenants_;                  // tenant id -> name; 0 = ""
  std::unordered_map<std::string, uint32_t> tenant_ids_;
  std::vector<size_t> tenant_live_;
  int64_t next_auto_id_ = 0;
  size_t live_ = 0;
  mutable std::shared_mutex mu_;
};

// 64-bit checksum over a byte stream (chunking-independent); used by the save format.
class Checksum64 {
 public:
  void update(const void* data, size_t n);
  uint64_t digest() const;

 private:
  uint64_t h_ = 0x9E3779B97F4A7C15ULL;
  uint64_t total_ = 0;
  unsigned char buf_[8] = {0};
  size_t nbuf_ = 0;
  void word(uint64_t w);
};

}  // namespace director_fast

// Temporal contradiction index: the C++ core of director_fast.core.temporal_consistency.
//
// Claims are tuples (tenant, subject, predicate, value, polarity) recorded at a timestamp. The index
// hashes (tenant, subject, predicate) -> value -> polarity -> chain of claims, so recording a claim
// costs O(1 + k log k) where k is the number of contradictions it introduces (the anchor scans the
// whole subject/predicate group instead). Optional durable storage: an append-only log with one
// CRC-32 checked record per claim, replayed on open; a torn last record is detected and dropped.
//
// Thread-safety: every public method takes an internal mutex; concurrent callers are serialised
// and each contradiction is reported exactly once (to the caller whose claim introduced it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace director_fast {

enum class ContradictionKind : std::uint8_t { Polarity = 1, FunctionalValue = 2 };

// One claim as handed to the index. Every string is already normalised by the caller (Unicode
// NFC, surrounding whitespace removed); the *_key fields are the comparison keys (equal to the
// display strings in case-sensitive mode, case-folded otherwise). Views must stay valid for the
// duration of the call only.
struct ClaimInput {
  std::string_view tenant;
  std::string_view subject, predicate, value;
  std::string_view subject_key, predicate_key, value_key;
  std::string_view session, document, source, claim_id;
  double timestamp = 0.0;
  bool polarity = true;
};

// A claim copied out of the index. `seq` is the global recording order (0-based, never reused).
struct ClaimData {
  std::string tenant, subject, predicate, value, session, document, source, claim_id;
  double timestamp = 0.0;
  bool polarity = true;
  std::uint64_t seq = 0;
};

// A contradiction copied out of the index: `earlier` has the smaller timestamp (ties: the one
// recorded first).
struct ContradictionData {
  ContradictionKind kind = ContradictionKind::Polarity;
  ClaimData earlier, later;
};

struct ContradictionIndexOptions {
  // Comparison keys of single-valued predicates (already normalised / case-folded).
  std::vector<std::string> functional_predicate_keys;
  bool case_sensitive = true;
  // Empty: in memory only. Otherwise the append-only log file (created if missing).
  std::string path;
  // fsync after every append (survives power loss, not only a process crash).
  bool fsync = false;
};

struct ContradictionIndexStats {
  std::size_t claims = 0;           // live claims
  std::size_t contradictions = 0;   // live contradictions
  std::size_t tenants = 0;
  std::size_t groups = 0;           // live (tenant, subject, predicate) groups
  std::size_t memory_bytes = 0;     // estimate of heap bytes held by the index
  std::size_t log_bytes = 0;        // size of the log file (0 when in memory)
  std::size_t recovered_bytes = 0;  // bytes of a torn tail dropped when the log was opened
  std::size_t replayed_claims = 0;  // claims read back from the log when it was opened
};

// Settings for salvage_log() to write into the new header when the source header is damaged.
struct LogSalvageOptions {
  bool have_settings = false;  // false: the source header must be intact
  bool case_sensitive = true;
  std::vector<std::string> functional_predicate_keys;  // any order; empty strings ignored
};

// One byte range of the source that salvage_log() did not copy.
struct LogSalvageSkip {
  std::size_t start = 0, end = 0;  // [start, end) in bytes
  std::string reason;              // why the first frame of the range was rejected
};

struct LogSalvageReport {
  bool header_intact = false;     // the source header was well-formed with a matching CRC
  std::size_t records_copied = 0;
  std::size_t source_bytes = 0;
  std::size_t bytes_written = 0;  // size of out_path
  std::vector<LogSalvageSkip> skipped;
};

// Copies every valid record of the temporal log at `path` into a new log at `out_path` (which
// must not exist), in file order, skipping damaged byte ranges (the scan resynchronises on the
// next frame whose length, CRC and fields are valid). The source is read only (its lock is held
// meanwhile). Throws FormatError when the header is damaged and `options` carries no settings,
// ConfigError when given settings contradict an intact header, IOError on I/O failure or when
// out_path exists. Worst case O(n * record size) for a file that is mostly damage.
LogSalvageReport salvage_log(const std::string& path, const std::string& out_path,
                             const LogSalvageOptions& options);

class ContradictionIndex {
 public:
  // Throws ConfigError (options / log header mismatch), FormatError (corrupt log), IOError.
  explicit ContradictionIndex(ContradictionIndexOptions options);
  ~ContradictionIndex();
  ContradictionIndex(const ContradictionIndex&) = delete;
  ContradictionIndex& operator=(const ContradictionIndex&) = delete;

  // Records one claim. Returns false (and changes nothing) when an identical claim (every field
  // equal) is already recorded. Appends the contradictions it introduces to *out, ordered by the
  // recording order of the conflicting earlier-recorded claim. Throws IOError when the log write
  // fails (nothing is recorded then).
  bool record(const ClaimInput& claim, std::vector<ContradictionData>* out);

  // Records claims in order, exactly as repeated record() calls would; one log write for the
  // batch. Returns the number of claims recorded (duplicates excluded).
  std::size_t record_batch(const std::vector<ClaimInput>& claims,
                           std::vector<ContradictionData>* out);
  // Same, with rows produced on demand by `row(ctx, i, claim)` (i < n; may be called several
  // times per row and from the calling thread only), so no array of rows is materialised.
  using RowFn = void (*)(void* ctx, std::size_t i, ClaimInput& claim);
  std::size_t record_batch(std::size_t n, RowFn row, void* ctx,
                           std::vector<ContradictionData>* out);

  // Claims of one group ordered by (timestamp, recording order).
  std::vector<ClaimData> history(std::string_view tenant, std::string_view subject_key,
                                 std::string_view predicate_key) const;
  // Contradictions in recording order; tenant == nullptr means every tenant.
  std::vector<ContradictionData> contradictions(const std::string* tenant) const;
  // Distinct subjects of a tenant (display form of the first claim of each subject), sorted.
  std::vector<std::string> subjects(std::string_view tenant) const;
  std::size_t claim_count(const std::string* tenant) const;
  std::size_t contradiction_count(const std::string* tenant) const;
  std::vector<std::string> tenants() const;

  // Removes every claim and contradiction of the tenant, from memory and (by rewriting the log
  // atomically) from disk. Returns the number of claims removed.
  std::size_t delete_tenant(std::string_view tenant);

  ContradictionIndexStats stats() const;
  const ContradictionIndexOptions& options() const noexcept { return options_; }
  // Flushes and closes the log; later mutations raise IOError. Idempotent.
  void close();

 private:
  struct Impl;
  ContradictionIndexOptions options_;
  std::unique_ptr<Impl> impl_;
  mutable std::mutex mu_;
};

// CRC-32 (IEEE 802.3 polynomial 0xEDB88320, as zlib's crc32) of `data`, continuing from `crc`.
std::uint32_t crc32_ieee(const void* data, std::size_t size, std::uint32_t crc = 0);

}  // namespace director_fast

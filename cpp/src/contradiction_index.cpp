// Temporal contradiction index (see contradiction_index.hpp for the contract).
//
// Layout. Each tenant owns its strings (interned in a per-tenant pool), its groups and its chains,
// so delete_tenant drops all of a tenant's text at once. A group is one (subject_key,
// predicate_key); a chain is the list of claims with one (group, value_key, polarity), linked
// through ClaimRec::chain_next in recording order. Recording a claim reads one chain for polarity
// conflicts and, for a functional predicate, the positive chains of the group's other values; each
// chain visited holds at least one conflicting claim, so the work is O(1 + contradictions).
//
// Log format (little-endian, version 1):
//   header  "DFTCGLOG" u32 version u32 flags(bit0: case-insensitive) u32 n_functional
//           n_functional x (u32 len, bytes)  u32 crc32(all preceding header bytes)
//   record  u32 body_len  u32 crc32(body)  body = u8 type(1 = claim) u8 flags(bit0 polarity,
//           bit1 keys present) f64 timestamp, then (u32 len, bytes) for tenant subject predicate
//           value session document source claim_id [subject_key predicate_key value_key]
// A record whose frame runs past the end of the file, or whose CRC fails with nothing but zero
// bytes after it, is a torn tail: it is dropped and the file truncated to the last good record.
// A CRC failure followed by further data is corruption and raises FormatError.
#include "director_fast/contradiction_index.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <new>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "director_fast/errors.hpp"
#include "director_fast/utf8.hpp"
#include "director_fast/huge_pages.hpp"
#include "director_fast/portable.hpp"

namespace director_fast {

// ------------------------------------------------------------------------------------------------
// CRC-32

namespace {
std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
    t[i] = c;
  }
  return t;
}
const std::array<std::uint32_t, 256> kCrcTable = make_crc_table();
}  // namespace

std::uint32_t crc32_ieee(const void* data, std::size_t size, std::uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = kCrcTable[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr std::uint64_t kNoKey = ~std::uint64_t{0};  // not a group key (string ids are < kNone)
constexpr char kMagic[8] = {'D', 'F', 'T', 'C', 'G', 'L', 'O', 'G'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint8_t kRecClaim = 1;
constexpr std::size_t kFlushBytes = 1u << 20;

// Allocator for the large tables: blocks of 4 MiB and more are 2 MiB aligned and marked for
// transparent huge pages (madvise; a no-op where THP is off), so random probes into tables of
// hundreds of MB do not each miss the TLB. Smaller blocks come from operator new.
template <class T>
struct HugeAlloc {
  using value_type = T;
  HugeAlloc() = default;
  template <class U>
  HugeAlloc(const HugeAlloc<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < 2 * kHugePageBytes) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
    if (p == nullptr) throw std::bad_alloc();
    advise_huge_pages(p, rounded);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < 2 * kHugePageBytes) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const HugeAlloc<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const HugeAlloc<U>&) const noexcept { return false; }
};
template <class T>
using BigVec = std::vector<T, HugeAlloc<T>>;

inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

inline std::uint64_t hash_bytes(std::string_view s) {
  // 64-bit FNV-1a over 8-byte words, finished with mix64 (not cryptographic; collisions are
  // resolved by comparing the strings).
  std::uint64_t h = 0xcbf29ce484222325ULL ^ s.size();
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
  }
  std::uint64_t tail = 0;
  // An empty view may have a null data(): memcpy's pointers must be valid even for 0 bytes.
  if (i < s.size()) std::memcpy(&tail, s.data() + i, s.size() - i);
  return mix64(h ^ tail);
}

// Equality of two byte ranges of length n; short strings (the common case for subjects,
// predicates and values) are compared with two overlapping word loads instead of a libc call.
inline bool bytes_equal(const char* a, const char* b, std::size_t n) {
  if (n >= 8 && n <= 16) {
    std::uint64_t a0, b0, a1, b1;
    std::memcpy(&a0, a, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&a1, a + n - 8, 8);
    std::memcpy(&b1, b + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  return n == 0 || std::memcmp(a, b, n) == 0;  // n == 0: a or b may be null (empty view)
}

// Open-addressing (linear probing) map from a 64-bit key to a 32-bit value; no erase (a tenant's
// tables are dropped whole). Value kNone marks an empty slot.
class FlatMap64 {
 public:
  std::uint32_t find(std::uint64_t key) const {
    if (slots_.empty()) return kNone;
    for (std::size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kNone) return kNone;
      if (s.key == key) return s.value;
    }
  }
  // Inserts key -> value if absent; returns the value stored for key.
  std::uint32_t insert(std::uint64_t key, std::uint32_t value) {
    if ((size_ + 1) * 10 > slots_.size() * 7) grow();
    for (std::size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.value == kNone) {
        s.key = key;
        s.value = value;
        ++size_;
        return value;
      }
      if (s.key == key) return s.value;
    }
  }
  std::size_t size() const { return size_; }
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }
  // Grows the table once so that `total` keys fit without further rehashing.
  void reserve(std::size_t total) {
    std::size_t cap = slots_.empty() ? 16 : slots_.size();
    while ((total + 1) * 10 > cap * 7) cap *= 2;
    if (cap > slots_.size()) grow_to(cap);
  }
  // Hint: the slot `key` hashes to will be probed soon (batch pipelining).
  void prefetch(std::uint64_t key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[mix64(key) & mask_]);
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = kNone;
  };
  void grow() { grow_to(slots_.empty() ? 16 : slots_.size() * 2); }
  void grow_to(std::size_t cap) {
    BigVec<Slot> old;
    old.swap(slots_);
    slots_.assign(cap, Slot{});
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (const Slot& s : old)
      if (s.value != kNone) insert(s.key, s.value);
  }
  BigVec<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
};

// Interned strings of one tenant, stored end to end in one arena (views are re-derived from
// offsets, so they stay valid only until the next intern()).
class StringPool {
 public:
  StringPool() { intern_slow(std::string_view()); }  // id 0 is always ""
  std::uint32_t intern(std::string_view s) { return s.empty() ? 0 : intern_slow(s); }
  std::uint32_t intern_slow(std::string_view s) {
    if ((offsets_.size() + 1) * 10 > table_.size() * 7) grow();
    const std::uint64_t h = hash_bytes(s);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Entry& e = table_[i];
      if (e.id == kNone) {
        const auto id = static_cast<std::uint32_t>(offsets_.size());
        e.hash = h;
        e.offset = arena_.size();
        e.len = static_cast<std::uint32_t>(s.size());
        e.id = id;
        offsets_.push_back(arena_.size());
        lengths_.push_back(static_cast<std::uint32_t>(s.size()));
        arena_.insert(arena_.end(), s.data(), s.data() + s.size());
        return id;
      }
      if (e.hash == h && e.len == s.size() &&
          bytes_equal(arena_.data() + e.offset, s.data(), s.size()))
        return e.id;
    }
  }
  std::uint32_t find(std::string_view s) const {
    if (s.empty()) return 0;
    const std::uint64_t h = hash_bytes(s);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Entry& e = table_[i];
      if (e.id == kNone) return kNone;
      if (e.hash == h && e.len == s.size() &&
          bytes_equal(arena_.data() + e.offset, s.data(), s.size()))
        return e.id;
    }
  }
  // Grows the hash table once so that `total` strings fit without further rehashing.
  void reserve(std::size_t total) {
    std::size_t cap = table_.empty() ? 16 : table_.size();
    while ((total + 1) * 10 > cap * 7) cap *= 2;
    if (cap > table_.size()) grow_to(cap);
    offsets_.reserve(total);
    lengths_.reserve(total);
  }
  // Batch pipelining hints (no effect on results). Stage 1: the home slot of a string with
  // hash `h` (from hash_bytes) will be probed soon. Stage 2 (the slot is cached by now): the
  // arena bytes of the first entry with that hash and length will be compared soon.
  void prefetch_slot(std::uint64_t h) const {
    if (!table_.empty()) __builtin_prefetch(&table_[h & mask_]);
  }
  void prefetch_bytes(std::uint64_t h, std::size_t len) const {
    if (table_.empty()) return;
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Entry& e = table_[i];
      if (e.id == kNone) return;
      if (e.hash == h && e.len == len) {
        __builtin_prefetch(arena_.data() + e.offset);
        return;
      }
    }
  }
  std::string_view get(std::uint32_t id) const {
    return {arena_.data() + offsets_[id], lengths_[id]};
  }
  std::size_t size() const { return offsets_.size(); }
  std::size_t memory_bytes() const {
    return arena_.capacity() + offsets_.capacity() * 8 + lengths_.capacity() * 4 +
           table_.capacity() * sizeof(Entry);
  }

 private:
  struct Entry {  // 24 bytes: a hit needs no access to offsets_/lengths_
    std::uint64_t hash = 0;
    std::uint64_t offset = 0;
    std::uint32_t len = 0;
    std::uint32_t id = kNone;
  };
  void grow() { grow_to(table_.empty() ? 16 : table_.size() * 2); }
  void grow_to(std::size_t cap) {
    BigVec<Entry> old;
    old.swap(table_);
    table_.assign(cap, Entry{});
    mask_ = table_.size() - 1;
    for (const Entry& e : old) {
      if (e.id == kNone) continue;
      std::size_t i = e.hash & mask_;
      while (table_[i].id != kNone) i = (i + 1) & mask_;
      table_[i] = e;
    }
  }
  BigVec<char> arena_;
  BigVec<std::uint64_t> offsets_;
  BigVec<std::uint32_t> lengths_;
  BigVec<Entry> table_;
  std::size_t mask_ = 0;
};

struct ClaimRec {
  std::uint32_t tenant;  // tenant slot
  std::uint32_t group;   // group index inside the tenant
  std::uint32_t subject, predicate, value, value_key;
  std::uint32_t session, document, source, claim_id;
  std::uint32_t chain_next;  // next claim of the same (group, value_key, polarity)
  std::uint32_t group_next;  // next claim of the same group
  double ts;
  bool polarity;
  bool alive;
};

struct ContraRec {
  std::uint32_t earlier, later;
  ContradictionKind kind;
  bool alive;
};

constexpr int kInlineChains = 4;     // chain directory kept inside small groups
constexpr std::uint32_t kScanDedup = 8;  // chains up to this length are scanned for duplicates

struct Group {
  std::uint32_t subject_key, predicate_key;
  std::uint32_t head = kNone, tail = kNone, count = 0;
  bool functional = false;
  bool spilled = false;  // chain directory moved to Tenant::chain_of
  std::uint8_t n_inline = 0;
  std::uint32_t inline_vkp[kInlineChains];    // value_key << 1 | polarity
  std::uint32_t inline_chain[kInlineChains];  // index into Tenant::chains
  std::vector<std::uint32_t> pos_values;  // functional only: value keys with a positive claim
};

struct Chain {
  std::uint32_t head = kNone, tail = kNone, count = 0;
  bool indexed = false;  // its claims are in Tenant::dedup (long chains only)
};

// Fingerprint of every compared field of a claim (string ids of one tenant pool): the duplicate
// check. Equal fingerprints are confirmed field by field.
inline std::uint64_t claim_fingerprint(const ClaimRec& c) {
  std::uint64_t bits;
  std::memcpy(&bits, &c.ts, sizeof bits);
  std::uint64_t h = mix64((static_cast<std::uint64_t>(c.group) << 32) ^ c.value);
  h = mix64(h ^ bits ^ (static_cast<std::uint64_t>(c.polarity) << 63));
  h = mix64(h ^ (static_cast<std::uint64_t>(c.subject) << 32) ^ c.predicate);
  h = mix64(h ^ (static_cast<std::uint64_t>(c.session) << 32) ^ c.document);
  return mix64(h ^ (static_cast<std::uint64_t>(c.source) << 32) ^ c.claim_id);
}

inline bool same_claim(const ClaimRec& x, const ClaimRec& y) {
  // Timestamps are finite and canonicalised (+0.0), so == is exact identity.
  return x.group == y.group && x.subject == y.subject && x.predicate == y.predicate &&
         x.value == y.value && x.polarity == y.polarity && x.ts == y.ts &&
         x.session == y.session && x.document == y.document && x.source == y.source &&
         x.claim_id == y.claim_id;
}

struct Tenant {
  explicit Tenant(std::string n) : name(std::move(n)) {}
  std::string name;
  StringPool pool;
  FlatMap64 group_of;  // subject_key << 32 | predicate_key -> group index
  BigVec<Group> groups;
  FlatMap64 chain_of;  // group << 32 | value_key << 1 | polarity -> chain index
  BigVec<Chain> chains;
  FlatMap64 dedup;     // fingerprint -> first claim with it (claims of indexed chains only)
  std::unordered_multimap<std::uint64_t, std::uint32_t> dedup_overflow;  // fingerprint collisions
  std::vector<std::uint32_t> claim_ids;
  std::vector<std::uint32_t> contra_ids;
  std::size_t functional_values = 0;
};

inline std::uint64_t chain_key(std::uint32_t group, std::uint32_t value_key, bool polarity) {
  return (static_cast<std::uint64_t>(group) << 32) |
         (static_cast<std::uint64_t>(value_key) << 1) | (polarity ? 1u : 0u);
}

std::uint32_t find_chain(const Tenant& t, const Group& g, std::uint32_t gid,
                         std::uint32_t value_key, bool polarity) {
  if (!g.spilled) {
    const std::uint32_t vkp = (value_key << 1) | (polarity ? 1u : 0u);
    for (int k = 0; k < g.n_inline; ++k)
      if (g.inline_vkp[k] == vkp) return g.inline_chain[k];
    return kNone;
  }
  return t.chain_of.find(chain_key(gid, value_key, polarity));
}

void add_chain(Tenant& t, Group& g, std::uint32_t gid, std::uint32_t value_key, bool polarity,
               std::uint32_t ci) {
  if (!g.spilled && g.n_inline < kInlineChains) {
    g.inline_vkp[g.n_inline] = (value_key << 1) | (polarity ? 1u : 0u);
    g.inline_chain[g.n_inline] = ci;
    ++g.n_inline;
    return;
  }
  if (!g.spilled) {
    for (int k = 0; k < g.n_inline; ++k)
      t.chain_of.insert(chain_key(gid, g.inline_vkp[k] >> 1, (g.inline_vkp[k] & 1u) != 0),
                        g.inline_chain[k]);
    g.spilled = true;
  }
  t.chain_of.insert(chain_key(gid, value_key, polarity), ci);
}

bool valid_tenant(std::string_view t) {
  if (t.empty()) return true;
  if (t.size() > 128) return false;
  auto alnum = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  if (!alnum(t[0])) return false;
  for (std::size_t i = 1; i < t.size(); ++i) {
    const char c = t[i];
    if (!(alnum(c) || c == '_' || c == '.' || c == ':' || c == '-')) return false;
  }
  return true;
}

std::string quoted(std::string_view s) {
  std::string out = "'";
  out += utf8_prefix(s, 80);  // whole code points only: the message becomes a Python str
  if (s.size() > 80) out += "...";
  out += "'";
  return out;
}

// True when validate() would accept the claim (no allocation: the batch pre-pass calls it per row).
inline bool claim_ok(const ClaimInput& c) {
  return valid_tenant(c.tenant) && !c.subject.empty() && !c.subject_key.empty() &&
         !c.predicate.empty() && !c.predicate_key.empty() && std::isfinite(c.timestamp);
}

void validate(const ClaimInput& c, const std::string& where) {
  if (!valid_tenant(c.tenant)) {
    throw ValueError(where + "tenant_id " + quoted(c.tenant) +
                     " is invalid: it must match ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$ (empty = "
                     "default tenant)");
  }
  if (c.subject.empty() || c.subject_key.empty())
    throw ValueError(where + "subject must be a non-empty string (after stripping whitespace)");
  if (c.predicate.empty() || c.predicate_key.empty())
    throw ValueError(where + "predicate must be a non-empty string (after stripping whitespace)");
  if (!std::isfinite(c.timestamp))
    throw ValueError(where + "timestamp must be finite, got " + std::to_string(c.timestamp));
}

// --- little-endian serialisation helpers ---
void put_u32(std::string& b, std::uint32_t v) {
  char x[4];
  for (int i = 0; i < 4; ++i) x[i] = static_cast<char>((v >> (8 * i)) & 0xFFu);
  b.append(x, 4);
}
void put_f64(std::string& b, double d) {
  std::uint64_t v;
  std::memcpy(&v, &d, 8);
  char x[8];
  for (int i = 0; i < 8; ++i) x[i] = static_cast<char>((v >> (8 * i)) & 0xFFu);
  b.append(x, 8);
}
void put_str(std::string& b, std::string_view s) {
  put_u32(b, static_cast<std::uint32_t>(s.size()));
  b.append(s.data(), s.size());
}
std::uint32_t get_u32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
double get_f64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}

std::string errno_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

void write_all(int fd, const char* data, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw IOError(errno_text("cannot write temporal log", path));
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

std::string make_header(bool case_sensitive, const std::vector<std::string>& functional_sorted) {
  std::string h(kMagic, 8);
  put_u32(h, kVersion);
  put_u32(h, case_sensitive ? 0u : 1u);
  put_u32(h, static_cast<std::uint32_t>(functional_sorted.size()));
  for (const auto& f : functional_sorted) put_str(h, f);
  put_u32(h, crc32_ieee(h.data(), h.size()));
  return h;
}

// A header read from a file. `size` counts the bytes up to and including the CRC. `error` is
// empty for a well-formed header with a matching CRC; else it says what is wrong, and the other
// fields are meaningful only when `structured` (the field layout fits the file).
struct FileHeader {
  std::size_t size = 0;
  bool structured = false;
  bool case_sensitive = true;
  std::vector<std::string> functional;
  std::string error;
};

// Reads the header of n bytes at p without trusting any field: counts and lengths are checked
// against the file size before they are used.
FileHeader read_header(const unsigned char* p, std::size_t n) {
  FileHeader h;
  if (n < 8 || std::memcmp(p, kMagic, 8) != 0) {
    const std::size_t m = std::min<std::size_t>(n, 8);
    h.error = std::memcmp(p, kMagic, m) != 0 ? "is not a director_fast temporal log (bad magic)"
                                             : "has a truncated header";
    return h;
  }
  if (n < 20) {
    h.error = "has a truncated header";
    return h;
  }
  const std::uint32_t version = get_u32(p + 8);
  const std::uint32_t nf = get_u32(p + 16);
  std::size_t q = 20;
  std::vector<std::string> func;
  for (std::uint32_t i = 0; i < nf; ++i) {
    if (n - q < 4) break;
    const std::uint32_t len = get_u32(p + q);
    if (len > n - q - 4) break;
    func.emplace_back(reinterpret_cast<const char*>(p + q + 4), len);
    q += 4 + len;
  }
  if (func.size() != nf || n - q < 4) {
    h.error = "has a corrupt or truncated header (its functional-predicate count " +
              std::to_string(nf) + " does not fit the file)";
    if (version != kVersion) h.error = "has format version " + std::to_string(version) +
                                       "; this build reads version " + std::to_string(kVersion);
    return h;
  }
  h.size = q + 4;
  h.structured = true;
  h.case_sensitive = (get_u32(p + 12) & 1u) == 0;
  h.functional = std::move(func);
  if (get_u32(p + q) != crc32_ieee(p, q)) {
    h.error = "has a corrupt header (CRC mismatch)";
  } else if (version != kVersion) {
    h.error = "has format version " + std::to_string(version) + "; this build reads version " +
              std::to_string(kVersion);
  } else if ((get_u32(p + 12) & ~1u) != 0) {
    h.error = "has unknown header flags";
  }
  return h;
}

constexpr std::size_t kMinBody = 2 + 8 + 8 * 4;  // type, flags, timestamp, 8 empty strings

// Decodes one record body whose CRC has been checked. Throws FormatError naming `where`.
ClaimInput decode_record(const unsigned char* b, std::size_t len, bool case_sensitive,
                         const std::string& where) {
  auto bad = [&](const std::string& why) {
    return FormatError(where + " is malformed (" + why + ")");
  };
  if (len < 2) throw bad("too short");
  if (b[0] != kRecClaim) throw bad("unknown record type");
  const std::uint8_t flags = b[1];
  if ((flags & ~3u) != 0) throw bad("unknown record flags");
  std::size_t q = 2;
  if (q + 8 > len) throw bad("too short");
  ClaimInput c;
  c.polarity = (flags & 1u) != 0;
  c.timestamp = get_f64(b + q);
  q += 8;
  std::string_view* fields[] = {&c.tenant, &c.subject, &c.predicate, &c.value, &c.session,
                                &c.document, &c.source, &c.claim_id, &c.subject_key,
                                &c.predicate_key, &c.value_key};
  const std::size_t nfields = (flags & 2u) ? 11 : 8;
  for (std::size_t i = 0; i < nfields; ++i) {
    if (len - q < 4) throw bad("truncated string");
    const std::uint32_t sl = get_u32(b + q);
    q += 4;
    if (sl > len - q) throw bad("truncated string");
    *fields[i] = std::string_view(reinterpret_cast<const char*>(b + q), sl);
    q += sl;
  }
  if (q != len) throw bad("trailing bytes");
  if (nfields == 8) {
    c.subject_key = c.subject;
    c.predicate_key = c.predicate;
    c.value_key = c.value;
  } else if (case_sensitive) {
    throw bad("case-folded keys in a case-sensitive log");
  }
  try {
    validate(c, "");
  } catch (const ValueError& e) {
    throw bad(e.what());
  }
  return c;
}

// A frame at the end of the file claims `len` body bytes but only `avail` (< len) are there.
// True when those bytes can be the beginning of that record, cut short by a crash: each field
// present is well-formed and inside the claimed length, and the record is not complete yet (a
// record that ends before its claimed length has a corrupt length field, not a torn write).
bool torn_prefix(const unsigned char* b, std::size_t avail, std::size_t len) {
  if (len < kMinBody) return false;
  if (avail < 1) return true;
  if (b[0] != kRecClaim) return false;
  if (avail < 2) return true;
  const std::uint8_t flags = b[1];
  if ((flags & ~3u) != 0) return false;
  std::size_t q = 10;
  if (avail < q) return true;
  const std::size_t nfields = (flags & 2u) ? 11 : 8;
  for (std::size_t i = 0; i < nfields; ++i) {
    if (avail - q < 4) return len - q >= 4;
    const std::uint32_t sl = get_u32(b + q);
    q += 4;
    if (sl > len - q) return false;  // the field would run past the record's own end
    if (sl > avail - q) return true;  // cut inside this string
    q += sl;
  }
  return false;  // every field is present: complete before its claimed end
}

// Length of the valid record frame at p[pos..n) (8 + body length), or 0 with *why set.
std::size_t valid_frame(const unsigned char* p, std::size_t n, std::size_t pos, bool case_sensitive,
                        std::string* why) {
  if (n - pos < 8) {
    *why = "torn tail (incomplete record frame)";
    return 0;
  }
  const std::uint32_t len = get_u32(p + pos);
  if (len > n - pos - 8) {
    *why = "record runs past the end of the file";
    return 0;
  }
  if (len < kMinBody || p[pos + 8] != kRecClaim || (p[pos + 9] & ~3u) != 0) {
    *why = "not a record";
    return 0;
  }
  if (crc32_ieee(p + pos + 8, len) != get_u32(p + pos + 4)) {
    *why = "record CRC mismatch";
    return 0;
  }
  try {
    (void)decode_record(p + pos + 8, len, case_sensitive, "record");
  } catch (const FormatError& e) {
    *why = e.what();
    return 0;
  }
  return 8 + static_cast<std::size_t>(len);
}

// Takes `<path>.lock` (non-blocking); returns its fd. Throws IOError when held elsewhere.
int lock_log(const std::string& path) {
  const std::string lock_path = path + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw IOError(errno_text("cannot open lock file", lock_path));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      throw IOError("temporal log " + path +
                    " is already open (in this or another process); close that graph first");
    errno = e;
    throw IOError(errno_text("cannot lock", lock_path));
  }
  return fd;
}

std::string read_fd(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw IOError(errno_text("cannot stat temporal log", path));
  std::string data(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    const ssize_t r = ::pread(fd, &data[got], data.size() - got, static_cast<off_t>(got));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw IOError(errno_text("cannot read temporal log", path));
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  data.resize(got);
  return data;
}

void check_path(const std::string& path, const char* field) {
  if (path.find('\0') != std::string::npos)
    throw ConfigError(field, "must not contain a NUL character (the operating system would cut "
                             "the path there)");
}

}  // namespace

// ------------------------------------------------------------------------------------------------

struct ContradictionIndex::Impl {
  BigVec<ClaimRec> claims;
  BigVec<ContraRec> contras;
  std::vector<std::unique_ptr<Tenant>> tenant_slots;
  std::unordered_map<std::string, std::uint32_t> slot_of;
  std::unordered_set<std::string> functional;
  std::vector<std::string> functional_sorted;
  bool case_sensitive = true;
  std::size_t live_claims = 0, live_contras = 0;

  // log
  std::string path;
  bool fsync = false;
  int fd = -1, lock_fd = -1;
  std::size_t log_size = 0;
  std::size_t recovered_bytes = 0, replayed = 0;
  bool poisoned = false, closed = false;

  ~Impl() { close_files(); }

  void close_files() {
    if (fd >= 0) ::close(fd);
    if (lock_fd >= 0) ::close(lock_fd);  // releases the flock
    fd = lock_fd = -1;
  }

  Tenant* tenant(std::string_view name) const {
    auto it = slot_of.find(std::string(name));
    return it == slot_of.end() ? nullptr : tenant_slots[it->second].get();
  }

  std::uint32_t last_slot = kNone;  // cache: consecutive claims usually share a tenant

  std::uint32_t tenant_slot(std::string_view name) {
    if (last_slot != kNone && tenant_slots[last_slot] && tenant_slots[last_slot]->name == name)
      return last_slot;
    auto it = slot_of.find(std::string(name));
    if (it != slot_of.end()) return last_slot = it->second;
    const auto slot = static_cast<std::uint32_t>(tenant_slots.size());
    tenant_slots.push_back(std::make_unique<Tenant>(std::string(name)));
    slot_of.emplace(std::string(name), slot);
    return last_slot = slot;
  }

  ClaimData to_data(std::uint32_t id) const {
    const ClaimRec& c = claims[id];
    const Tenant& t = *tenant_slots[c.tenant];
    ClaimData d;
    d.tenant = t.name;
    d.subject = t.pool.get(c.subject);
    d.predicate = t.pool.get(c.predicate);
    d.value = t.pool.get(c.value);
    d.session = t.pool.get(c.session);
    d.document = t.pool.get(c.document);
    d.source = t.pool.get(c.source);
    d.claim_id = t.pool.get(c.claim_id);
    d.timestamp = c.ts;
    d.polarity = c.polarity;
    d.seq = id;
    return d;
  }

  ContradictionData contra_data(const ContraRec& r) const {
    ContradictionData d;
    d.kind = r.kind;
    d.earlier = to_data(r.earlier);
    d.later = to_data(r.later);
    return d;
  }

  void serialise(std::string& buf, const ClaimInput& c) const {
    const bool keys = !case_sensitive;
    const std::size_t start = buf.size();
    put_u32(buf, 0);  // body length, patched below
    put_u32(buf, 0);  // crc, patched below
    buf.push_back(static_cast<char>(kRecClaim));
    buf.push_back(static_cast<char>((c.polarity ? 1 : 0) | (keys ? 2 : 0)));
    put_f64(buf, c.timestamp);
    for (std::string_view s : {c.tenant, c.subject, c.predicate, c.value, c.session, c.document,
                               c.source, c.claim_id})
      put_str(buf, s);
    if (keys) {
      put_str(buf, c.subject_key);
      put_str(buf, c.predicate_key);
      put_str(buf, c.value_key);
    }
    const std::size_t body = buf.size() - start - 8;
    const std::uint32_t crc = crc32_ieee(buf.data() + start + 8, body);
    for (int i = 0; i < 4; ++i) {
      buf[start + i] = static_cast<char>((body >> (8 * i)) & 0xFFu);
      buf[start + 4 + i] = static_cast<char>((crc >> (8 * i)) & 0xFFu);
    }
  }

  void append_log(const std::string& buf) {
    if (fd < 0 || buf.empty()) return;
    try {
      write_all(fd, buf.data(), buf.size(), path);
      if (fsync && portable::sync_data(fd) != 0) throw IOError(errno_text("cannot fsync temporal log", path));
    } catch (...) {
      // Undo a partial append so the file still ends on a record boundary.
      if (::ftruncate(fd, static_cast<off_t>(log_size)) != 0) poisoned = true;
      throw;
    }
    log_size += buf.size();
  }

  std::string header_bytes() const { return make_header(case_sensitive, functional_sorted); }

  // Records one claim. `log_buf` null: no logging (replay). `direct_write`: write the record
  // before touching the index (per-claim path), else append it to *log_buf.
  // Batch-local memo of the last string id per field (predicate, value, predicate_key,
  // value_key): rows of a batch usually repeat a few predicates and values, handed over as the
  // same buffers. Only valid while every input buffer of the batch is alive and unchanged (two
  // live buffers at one address with one length hold the same bytes); cleared on tenant change.
  struct InternMemo {
    const char* ptr[4] = {nullptr, nullptr, nullptr, nullptr};
    std::size_t len[4] = {0, 0, 0, 0};
    std::uint32_t id[4] = {0, 0, 0, 0};
    std::uint32_t slot = kNone;
  };

  bool record_one(const ClaimInput& in, std::string* log_buf, bool direct_write,
                  std::vector<ContradictionData>* out, InternMemo* memo = nullptr) {
    if (claims.size() >= static_cast<std::size_t>(kNone) - 1)
      throw ValueError("temporal index is full (2^32 - 2 claims)");
    const std::uint32_t slot = tenant_slot(in.tenant);
    Tenant& t = *tenant_slots[slot];
    StringPool& pool = t.pool;
    if (memo != nullptr && memo->slot != slot) *memo = InternMemo{{}, {}, {}, slot};
    auto intern = [&](int field, std::string_view v) {
      if (memo == nullptr) return pool.intern(v);
      if (memo->ptr[field] == v.data() && memo->len[field] == v.size()) return memo->id[field];
      const std::uint32_t id = pool.intern(v);
      memo->ptr[field] = v.data();
      memo->len[field] = v.size();
      memo->id[field] = id;
      return id;
    };
    ClaimRec rec{};
    rec.tenant = slot;
    rec.subject = pool.intern(in.subject);
    rec.predicate = intern(0, in.predicate);
    rec.value = intern(1, in.value);
    const std::uint32_t skey = case_sensitive ? rec.subject : pool.intern(in.subject_key);
    const std::uint32_t pkey = case_sensitive ? rec.predicate : intern(2, in.predicate_key);
    rec.value_key = case_sensitive ? rec.value : intern(3, in.value_key);
    if (rec.value_key >= (1u << 31)) throw ValueError("too many distinct strings in one tenant");
    rec.session = pool.intern(in.session);
    rec.document = pool.intern(in.document);
    rec.source = pool.intern(in.source);
    rec.claim_id = pool.intern(in.claim_id);
    rec.ts = in.timestamp == 0.0 ? 0.0 : in.timestamp;  // canonical +0.0
    rec.polarity = in.polarity;
    rec.alive = true;
    rec.chain_next = rec.group_next = kNone;

    const std::uint64_t gk = (static_cast<std::uint64_t>(skey) << 32) | pkey;
    std::uint32_t gid = t.group_of.find(gk);
    if (gid == kNone) {
      gid = static_cast<std::uint32_t>(t.groups.size());
      Group g;
      g.subject_key = skey;
      g.predicate_key = pkey;
      g.functional = !functional.empty() && functional.count(std::string(pool.get(pkey))) != 0;
      t.groups.push_back(std::move(g));
      t.group_of.insert(gk, gid);
    }
    rec.group = gid;

    // Duplicate check (every field equal): an identical claim sits in the same chain.
    Group& g = t.groups[gid];
    const std::uint32_t own = find_chain(t, g, gid, rec.value_key, rec.polarity);
    std::uint64_t fp = 0;
    std::uint32_t first = kNone;
    if (own != kNone) {
      const Chain& oc = t.chains[own];
      if (!oc.indexed) {
        for (std::uint32_t p = oc.head; p != kNone; p = claims[p].chain_next)
          if (same_claim(claims[p], rec)) return false;
      } else {
        fp = claim_fingerprint(rec);
        first = t.dedup.find(fp);
        if (first != kNone) {
          if (same_claim(claims[first], rec)) return false;
          auto range = t.dedup_overflow.equal_range(fp);
          for (auto it = range.first; it != range.second; ++it)
            if (same_claim(claims[it->second], rec)) return false;
        }
      }
    }
    const auto id = static_cast<std::uint32_t>(claims.size());
    const bool nonempty_value = !pool.get(rec.value).empty();

    // Conflicting earlier-recorded claims.
    std::vector<std::pair<std::uint32_t, ContradictionKind>> found;
    if (g.count > 0) {
      const std::uint32_t opp = find_chain(t, g, gid, rec.value_key, !rec.polarity);
      if (opp != kNone)
        for (std::uint32_t p = t.chains[opp].head; p != kNone; p = claims[p].chain_next)
          found.emplace_back(p, ContradictionKind::Polarity);
      if (g.functional && rec.polarity && nonempty_value) {
        for (std::uint32_t v : g.pos_values) {
          if (v == rec.value_key) continue;
          const std::uint32_t ci = find_chain(t, g, gid, v, true);
          if (ci == kNone) continue;
          for (std::uint32_t p = t.chains[ci].head; p != kNone; p = claims[p].chain_next)
            found.emplace_back(p, ContradictionKind::FunctionalValue);
        }
        std::sort(found.begin(), found.end());
      }
    }

    if (log_buf != nullptr) {
      if (direct_write) {
        log_buf->clear();
        serialise(*log_buf, in);
        append_log(*log_buf);  // throws before anything is inserted
      } else {
        serialise(*log_buf, in);
      }
    }

    // Insert.
    claims.push_back(rec);
    if (own == kNone) {
      const auto ci = static_cast<std::uint32_t>(t.chains.size());
      t.chains.push_back(Chain{id, id, 1, false});
      add_chain(t, g, gid, rec.value_key, rec.polarity, ci);
      if (g.functional && rec.polarity && nonempty_value) {
        g.pos_values.push_back(rec.value_key);
        ++t.functional_values;
      }
    } else {
      Chain& oc = t.chains[own];
      claims[oc.tail].chain_next = id;
      oc.tail = id;
      ++oc.count;
      auto index_claim = [&](std::uint32_t cid, std::uint64_t f) {
        if (t.dedup.find(f) == kNone) {
          t.dedup.insert(f, cid);
        } else {
          t.dedup_overflow.emplace(f, cid);
        }
      };
      if (oc.indexed) {
        index_claim(id, fp);
      } else if (oc.count > kScanDedup) {
        for (std::uint32_t p = oc.head; p != kNone; p = claims[p].chain_next)
          index_claim(p, claim_fingerprint(claims[p]));
        oc.indexed = true;
      }
    }
    if (g.head == kNone) {
      g.head = g.tail = id;
    } else {
      claims[g.tail].group_next = id;
      g.tail = id;
    }
    ++g.count;
    t.claim_ids.push_back(id);
    ++live_claims;

    for (const auto& [prior, kind] : found) {
      const bool prior_first = claims[prior].ts <= rec.ts;
      ContraRec cr{prior_first ? prior : id, prior_first ? id : prior, kind, true};
      t.contra_ids.push_back(static_cast<std::uint32_t>(contras.size()));
      contras.push_back(cr);
      ++live_contras;
      if (out != nullptr) out->push_back(contra_data(cr));
    }
    return true;
  }

  // ---- log open / replay ----
  void open_log() {
    lock_fd = lock_log(path);
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int e = errno;
      close_files();
      errno = e;
      throw IOError(errno_text("cannot open temporal log", path));
    }
    try {
      replay();
    } catch (...) {
      close_files();
      throw;
    }
  }

  std::string read_file() const { return read_fd(fd, path); }

  void truncate_to(std::size_t size) {
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0)
      throw IOError(errno_text("cannot truncate torn tail of temporal log", path));
    if (portable::sync_data(fd) != 0) throw IOError(errno_text("cannot fsync temporal log", path));
  }

  // Replays the log. Only a torn tail -- an incomplete last record, a header cut short, or a
  // zero-filled end -- is dropped (and the file truncated after the whole file was read). Any
  // other damage raises FormatError before the file is touched; salvage() copies what is valid.
  void replay() {
    const std::string data = read_file();
    const auto* p = reinterpret_cast<const unsigned char*>(data.data());
    const std::size_t n = data.size();
    const std::string header = header_bytes();
    if (n < header.size() && (n == 0 || std::memcmp(p, header.data(), n) == 0)) {
      // Empty, or a crash while the header was being written: nothing was ever recorded.
      if (n > 0) {
        recovered_bytes = n;
        truncate_to(0);
      }
      write_all(fd, header.data(), header.size(), path);
      if (portable::sync_data(fd) != 0) throw IOError(errno_text("cannot fsync temporal log", path));
      log_size = header.size();
      return;
    }
    const FileHeader h = read_header(p, n);
    if (!h.error.empty()) throw FormatError("temporal log " + path + " " + h.error);
    if (h.case_sensitive != case_sensitive)
      throw ConfigError("case_sensitive", "temporal log " + path + " was written with case_sensitive=" +
                                              (h.case_sensitive ? "True" : "False") +
                                              "; open it with the same setting");
    if (h.functional != functional_sorted) {
      std::string names;
      for (const auto& f : h.functional) names += (names.empty() ? "" : ", ") + quoted(f);
      throw ConfigError("functional_predicates", "temporal log " + path +
                                                     " was written with functional_predicates {" +
                                                     names + "}; open it with the same set");
    }
    std::size_t pos = h.size;
    auto zeros_from = [&](std::size_t from) {
      for (std::size_t i = from; i < n; ++i)
        if (p[i] != 0) return false;
      return true;
    };
    auto corrupt = [&](const std::string& why) {
      return FormatError("temporal log " + path + " is corrupt at byte " + std::to_string(pos) +
                         " (" + why + "); the file was left as it is: use "
                         "TemporalConsistencyGraph.salvage() to copy its valid records");
    };
    while (pos < n) {
      if (n - pos < 8) break;  // torn: the frame header itself is incomplete
      const std::uint32_t len = get_u32(p + pos);
      const std::uint32_t crc = get_u32(p + pos + 4);
      const std::size_t avail = n - pos - 8;
      if (len > avail) {
        if (zeros_from(pos) || torn_prefix(p + pos + 8, avail, len)) break;
        throw corrupt("the record length " + std::to_string(len) +
                      " runs past the end of the file but the bytes there are no cut-short record");
      }
      if (len == 0 || crc32_ieee(p + pos + 8, len) != crc) {
        if (zeros_from(pos)) break;  // a zero-filled end (file extended before the data landed)
        throw corrupt("record CRC mismatch");
      }
      const ClaimInput c = decode_record(p + pos + 8, len, case_sensitive,
                                         "temporal log " + path + ": the record at byte " +
                                             std::to_string(pos));
      if (record_one(c, nullptr, false, nullptr)) ++replayed;
      pos += 8 + len;
    }
    if (pos < n) {
      recovered_bytes = n - pos;
      truncate_to(pos);
    }
    log_size = pos;
  }

  ClaimInput input_of(std::uint32_t id) const {
    const ClaimRec& c = claims[id];
    const Tenant& t = *tenant_slots[c.tenant];
    const Group& g = t.groups[c.group];
    ClaimInput in;
    in.tenant = t.name;
    in.subject = t.pool.get(c.subject);
    in.predicate = t.pool.get(c.predicate);
    in.value = t.pool.get(c.value);
    in.subject_key = t.pool.get(g.subject_key);
    in.predicate_key = t.pool.get(g.predicate_key);
    in.value_key = t.pool.get(c.value_key);
    in.session = t.pool.get(c.session);
    in.document = t.pool.get(c.document);
    in.source = t.pool.get(c.source);
    in.claim_id = t.pool.get(c.claim_id);
    in.timestamp = c.ts;
    in.polarity = c.polarity;
    return in;
  }

  // Rewrites the log without `skip_slot`'s claims: tmp file, fsync, rename, fsync directory.
  void compact_without(std::uint32_t skip_slot) {
    const std::string tmp = path + ".compact.tmp";
    int tfd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (tfd < 0) throw IOError(errno_text("cannot create", tmp));
    std::size_t size = 0;
    try {
      std::string buf = header_bytes();
      for (std::uint32_t id = 0; id < claims.size(); ++id) {
        const ClaimRec& c = claims[id];
        if (!c.alive || c.tenant == skip_slot) continue;
        serialise(buf, input_of(id));
        if (buf.size() >= kFlushBytes) {
          write_all(tfd, buf.data(), buf.size(), tmp);
          size += buf.size();
          buf.clear();
        }
      }
      write_all(tfd, buf.data(), buf.size(), tmp);
      size += buf.size();
      if (portable::sync_file(tfd) != 0) throw IOError(errno_text("cannot fsync", tmp));
    } catch (...) {
      ::close(tfd);
      ::unlink(tmp.c_str());
      throw;
    }
    ::close(tfd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      const int e = errno;
      ::unlink(tmp.c_str());
      errno = e;
      throw IOError(errno_text("cannot replace temporal log", path));
    }
    const std::size_t slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      (void)::fsync(dfd);
      ::close(dfd);
    }
    const int nfd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (nfd < 0) {
      poisoned = true;
      throw IOError(errno_text("cannot reopen compacted temporal log", path));
    }
    ::close(fd);
    fd = nfd;
    log_size = size;
  }

  void check_writable() const {
    if (closed) throw IOError("temporal graph is closed");
    if (poisoned)
      throw IOError("temporal log " + path +
                    " is out of sync with memory after a failed write; reopen the graph");
  }

  std::size_t memory_bytes() const {
    std::size_t m = claims.capacity() * sizeof(ClaimRec) + contras.capacity() * sizeof(ContraRec);
    for (const auto& tp : tenant_slots) {
      if (!tp) continue;
      const Tenant& t = *tp;
      m += sizeof(Tenant) + t.pool.memory_bytes();
      m += t.group_of.memory_bytes() + t.chain_of.memory_bytes() + t.dedup.memory_bytes();
      m += t.groups.capacity() * sizeof(Group) + t.functional_values * 4;
      m += t.chains.capacity() * sizeof(Chain);
      m += t.dedup_overflow.size() * (16 + 2 * sizeof(void*));
      m += (t.claim_ids.capacity() + t.contra_ids.capacity()) * 4;
    }
    return m;
  }
};

// ------------------------------------------------------------------------------------------------

ContradictionIndex::ContradictionIndex(ContradictionIndexOptions options)
    : options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  impl_->case_sensitive = options_.case_sensitive;
  for (const auto& f : options_.functional_predicate_keys) {
    if (f.empty()) continue;
    impl_->functional.insert(f);
  }
  impl_->functional_sorted.assign(impl_->functional.begin(), impl_->functional.end());
  std::sort(impl_->functional_sorted.begin(), impl_->functional_sorted.end());
  check_path(options_.path, "path");
  impl_->path = options_.path;
  impl_->fsync = options_.fsync;
  if (!impl_->path.empty()) impl_->open_log();
}

ContradictionIndex::~ContradictionIndex() = default;

bool ContradictionIndex::record(const ClaimInput& claim, std::vector<ContradictionData>* out) {
  validate(claim, "");
  std::lock_guard<std::mutex> lock(mu_);
  impl_->check_writable();
  if (impl_->fd >= 0) {
    std::string buf;
    return impl_->record_one(claim, &buf, true, out);
  }
  return impl_->record_one(claim, nullptr, false, out);
}

std::size_t ContradictionIndex::record_batch(const std::vector<ClaimInput>& claims,
                                             std::vector<ContradictionData>* out) {
  return record_batch(
      claims.size(),
      [](void* ctx, std::size_t i, ClaimInput& c) {
        c = (*static_cast<const std::vector<ClaimInput>*>(ctx))[i];
      },
      const_cast<std::vector<ClaimInput>*>(&claims), out);
}

std::size_t ContradictionIndex::record_batch(std::size_t n, RowFn row, void* ctx,
                                             std::vector<ContradictionData>* out) {
  ClaimInput c;
  for (std::size_t i = 0; i < n; ++i) {
    row(ctx, i, c);
    if (!claim_ok(c)) validate(c, "row " + std::to_string(i) + ": ");
  }
  std::lock_guard<std::mutex> lock(mu_);
  impl_->check_writable();
  impl_->claims.reserve(impl_->claims.size() + n);
  std::size_t recorded = 0;
  // Software pipeline over a ring of rows: with many subjects a record is a chain of dependent
  // cache misses (string-table slot -> string bytes -> group-table slot -> group -> chain and
  // last claims). Each stage runs a fixed number of rows ahead of the row being recorded and
  // prefetches the next link of that chain. Prefetches are hints only: every store is made by
  // record_one exactly as without them, so results never depend on the pipeline.
  constexpr std::size_t kRing = 32;
  constexpr std::size_t kD1 = 24, kD2 = 18, kD3 = 12, kD4 = 8, kD5 = 4, kD6 = 2;
  struct Ahead {
    ClaimInput c;
    std::uint64_t hash = 0;      // hash_bytes(subject_key)
    std::uint64_t gkey = kNoKey;  // group key (possibly predicted), or none
    std::uint32_t gid = kNone;    // existing group, or none
    std::uint32_t chain = kNone;  // the row's own chain, or none
    bool new_subject = false;     // subject not interned yet when stage 3 ran
  };
  Ahead ring[kRing];
  Impl& im = *impl_;
  auto tenant_of = [&](const ClaimInput& c) -> const Tenant* {
    const std::uint32_t slot = im.last_slot;
    if (slot == kNone || !im.tenant_slots[slot]) return nullptr;
    const Tenant* t = im.tenant_slots[slot].get();
    return t->name == c.tenant ? t : nullptr;
  };
  std::size_t cur = 0;  // the row record_one handles next
  auto stage1 = [&](std::size_t j) {  // load row j; prefetch its subject's string-table slot
    Ahead& a = ring[j % kRing];
    row(ctx, j, a.c);
    a.hash = hash_bytes(a.c.subject_key);
    a.gkey = kNoKey;
    a.gid = a.chain = kNone;
    a.new_subject = false;
    if (const Tenant* t = tenant_of(a.c)) t->pool.prefetch_slot(a.hash);
  };
  auto stage2 = [&](std::size_t j) {  // the subject's bytes (for the comparison on a hit)
    const Ahead& a = ring[j % kRing];
    if (const Tenant* t = tenant_of(a.c)) t->pool.prefetch_bytes(a.hash, a.c.subject_key.size());
  };
  auto stage3 = [&](std::size_t j) {  // the group-table slot
    Ahead& a = ring[j % kRing];
    const Tenant* t = tenant_of(a.c);
    if (t == nullptr) return;
    std::uint32_t s = t->pool.find(a.c.subject_key);
    if (s == kNone) {
      // A new subject gets the next free string id: predict it from the new subjects of the
      // rows still to be recorded before this one (a wrong guess only wastes a prefetch).
      a.new_subject = true;
      std::size_t pending = 0;
      for (std::size_t k = cur; k < j; ++k) pending += ring[k % kRing].new_subject ? 1 : 0;
      s = static_cast<std::uint32_t>(t->pool.size() + pending);
    }
    const std::uint32_t p = t->pool.find(a.c.predicate_key);
    if (p == kNone) return;
    a.gkey = (static_cast<std::uint64_t>(s) << 32) | p;
    t->group_of.prefetch(a.gkey);
  };
  auto stage4 = [&](std::size_t j) {  // the group
    Ahead& a = ring[j % kRing];
    if (a.gkey == kNoKey || a.new_subject) return;
    const Tenant* t = tenant_of(a.c);
    if (t == nullptr) return;
    a.gid = t->group_of.find(a.gkey);
    if (a.gid != kNone) __builtin_prefetch(&t->groups[a.gid]);
  };
  auto stage5 = [&](std::size_t j) {  // the group's last claim and the row's own chain
    Ahead& a = ring[j % kRing];
    if (a.gid == kNone) return;
    const Tenant* t = tenant_of(a.c);
    if (t == nullptr || a.gid >= t->groups.size()) return;
    const Group& g = t->groups[a.gid];
    if (g.tail != kNone) __builtin_prefetch(&im.claims[g.tail]);
    if (g.spilled) return;
    const std::uint32_t vk = t->pool.find(a.c.value_key);
    if (vk == kNone) return;
    a.chain = find_chain(*t, g, a.gid, vk, a.c.polarity);
    if (a.chain != kNone) __builtin_prefetch(&t->chains[a.chain]);
  };
  auto stage6 = [&](std::size_t j) {  // the first claim of the own chain (duplicate check)
    const Ahead& a = ring[j % kRing];
    if (a.chain == kNone) return;
    const Tenant* t = tenant_of(a.c);
    if (t == nullptr || a.chain >= t->chains.size()) return;
    const std::uint32_t h = t->chains[a.chain].head;
    if (h != kNone) __builtin_prefetch(&im.claims[h]);
  };
  // Capacity hint for large batches: when the first 4,096 rows all belong to one tenant, estimate
  // the new subjects and groups from their distinct keys (scaled to n; an over-estimate when keys
  // repeat later) and grow that tenant's tables once, instead of rehashing them again and again
  // as they fill. Affects memory and speed only.
  if (n >= 16384) {
    constexpr std::size_t m = 4096;
    std::vector<std::uint64_t> subj(m), grp(m);
    row(ctx, 0, c);
    const std::string first_tenant(c.tenant);
    bool one_tenant = true;  // the estimate is applied only when the sample is one tenant's
    for (std::size_t i = 0; i < m && one_tenant; ++i) {
      row(ctx, i, c);
      one_tenant = c.tenant == first_tenant;
      subj[i] = hash_bytes(c.subject_key);
      grp[i] = mix64(subj[i] ^ (hash_bytes(c.predicate_key) * 0x9E3779B97F4A7C15ULL));
    }
    auto distinct = [](std::vector<std::uint64_t>& v) {
      std::sort(v.begin(), v.end());
      return static_cast<std::size_t>(std::unique(v.begin(), v.end()) - v.begin());
    };
    if (one_tenant) {
      const std::size_t est_subjects = distinct(subj) * (n / m + 1);
      const std::size_t est_groups = distinct(grp) * (n / m + 1);
      Tenant& t = *im.tenant_slots[im.tenant_slot(first_tenant)];
      t.pool.reserve(t.pool.size() + std::min(est_subjects, n) + 64);
      t.group_of.reserve(t.groups.size() + std::min(est_groups, n));
      t.groups.reserve(t.groups.size() + std::min(est_groups, n));
    }
  }
  // Prime the pipeline: row j has passed the stages whose distance exceeds j.
  for (std::size_t j = 0; j < std::min(n, kD1); ++j) stage1(j);
  for (std::size_t j = 0; j < std::min(n, kD2); ++j) stage2(j);
  for (std::size_t j = 0; j < std::min(n, kD3); ++j) stage3(j);
  for (std::size_t j = 0; j < std::min(n, kD4); ++j) stage4(j);
  for (std::size_t j = 0; j < std::min(n, kD5); ++j) stage5(j);
  for (std::size_t j = 0; j < std::min(n, kD6); ++j) stage6(j);
  const bool durable = impl_->fd >= 0;
  std::string buf;
  Impl::InternMemo memo;
  try {
    for (std::size_t i = 0; i < n; ++i) {
      cur = i;
      if (i + kD1 < n) stage1(i + kD1);
      if (i + kD2 < n) stage2(i + kD2);
      if (i + kD3 < n) stage3(i + kD3);
      if (i + kD4 < n) stage4(i + kD4);
      if (i + kD5 < n) stage5(i + kD5);
      if (i + kD6 < n) stage6(i + kD6);
      recorded += impl_->record_one(ring[i % kRing].c, durable ? &buf : nullptr, false, out, &memo) ? 1 : 0;
      if (durable && buf.size() >= kFlushBytes) {
        impl_->append_log(buf);
        buf.clear();
      }
    }
    if (durable) impl_->append_log(buf);
  } catch (const IOError&) {
    // Part of the batch is in memory but not in the log.
    impl_->poisoned = true;
    throw;
  }
  return recorded;
}

std::vector<ClaimData> ContradictionIndex::history(std::string_view tenant,
                                                   std::string_view subject_key,
                                                   std::string_view predicate_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ClaimData> out;
  const Tenant* t = impl_->tenant(tenant);
  if (t == nullptr) return out;
  const std::uint32_t s = t->pool.find(subject_key), p = t->pool.find(predicate_key);
  if (s == kNone || p == kNone) return out;
  const std::uint32_t gid = t->group_of.find((static_cast<std::uint64_t>(s) << 32) | p);
  if (gid == kNone) return out;
  std::vector<std::uint32_t> ids;
  ids.reserve(t->groups[gid].count);
  for (std::uint32_t id = t->groups[gid].head; id != kNone; id = impl_->claims[id].group_next)
    ids.push_back(id);
  const auto& claims = impl_->claims;
  std::stable_sort(ids.begin(), ids.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return claims[a].ts < claims[b].ts; });
  out.reserve(ids.size());
  for (std::uint32_t id : ids) out.push_back(impl_->to_data(id));
  return out;
}

std::vector<ContradictionData> ContradictionIndex::contradictions(const std::string* tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ContradictionData> out;
  if (tenant == nullptr) {
    out.reserve(impl_->live_contras);
    for (const auto& r : impl_->contras)
      if (r.alive) out.push_back(impl_->contra_data(r));
    return out;
  }
  const Tenant* t = impl_->tenant(*tenant);
  if (t == nullptr) return out;
  out.reserve(t->contra_ids.size());
  for (std::uint32_t c : t->contra_ids) out.push_back(impl_->contra_data(impl_->contras[c]));
  return out;
}

std::vector<std::string> ContradictionIndex::subjects(std::string_view tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  const Tenant* t = impl_->tenant(tenant);
  if (t == nullptr) return out;
  std::unordered_map<std::uint32_t, std::uint32_t> first;  // subject key -> first claim id
  for (const Group& g : t->groups) {
    if (g.count == 0) continue;
    auto [it, inserted] = first.emplace(g.subject_key, g.head);
    if (!inserted && g.head < it->second) it->second = g.head;
  }
  out.reserve(first.size());
  for (const auto& kv : first) out.emplace_back(t->pool.get(impl_->claims[kv.second].subject));
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t ContradictionIndex::claim_count(const std::string* tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (tenant == nullptr) return impl_->live_claims;
  const Tenant* t = impl_->tenant(*tenant);
  return t == nullptr ? 0 : t->claim_ids.size();
}

std::size_t ContradictionIndex::contradiction_count(const std::string* tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (tenant == nullptr) return impl_->live_contras;
  const Tenant* t = impl_->tenant(*tenant);
  return t == nullptr ? 0 : t->contra_ids.size();
}

std::vector<std::string> ContradictionIndex::tenants() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& tp : impl_->tenant_slots)
    if (tp && !tp->claim_ids.empty()) out.push_back(tp->name);
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t ContradictionIndex::delete_tenant(std::string_view tenant) {
  if (!valid_tenant(tenant))
    throw ValueError("tenant_id " + quoted(tenant) +
                     " is invalid: it must match ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$");
  std::lock_guard<std::mutex> lock(mu_);
  impl_->check_writable();
  auto it = impl_->slot_of.find(std::string(tenant));
  if (it == impl_->slot_of.end()) return 0;
  const std::uint32_t slot = it->second;
  Tenant& t = *impl_->tenant_slots[slot];
  const std::size_t removed = t.claim_ids.size();
  if (impl_->fd >= 0 && removed > 0) impl_->compact_without(slot);
  for (std::uint32_t id : t.claim_ids) impl_->claims[id].alive = false;
  for (std::uint32_t c : t.contra_ids) impl_->contras[c].alive = false;
  impl_->live_claims -= removed;
  impl_->live_contras -= t.contra_ids.size();
  impl_->tenant_slots[slot].reset();  // frees every string of the tenant
  impl_->slot_of.erase(it);
  return removed;
}

ContradictionIndexStats ContradictionIndex::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  ContradictionIndexStats s;
  s.claims = impl_->live_claims;
  s.contradictions = impl_->live_contras;
  for (const auto& tp : impl_->tenant_slots) {
    if (!tp) continue;
    ++s.tenants;
    for (const Group& g : tp->groups) s.groups += g.count > 0 ? 1 : 0;
  }
  s.memory_bytes = impl_->memory_bytes();
  s.log_bytes = impl_->log_size;
  s.recovered_bytes = impl_->recovered_bytes;
  s.replayed_claims = impl_->replayed;
  return s;
}

void ContradictionIndex::close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (impl_->fd >= 0 && impl_->fsync) (void)portable::sync_data(impl_->fd);
  impl_->close_files();
  impl_->closed = true;
}

LogSalvageReport salvage_log(const std::string& path, const std::string& out_path,
                             const LogSalvageOptions& options) {
  check_path(path, "path");
  check_path(out_path, "out_path");
  if (path.empty()) throw ConfigError("path", "must be a non-empty path");
  if (out_path.empty()) throw ConfigError("out_path", "must be a non-empty path");
  std::vector<std::string> given;
  if (options.have_settings) {
    for (const auto& f : options.functional_predicate_keys)
      if (!f.empty()) given.push_back(f);
    std::sort(given.begin(), given.end());
    given.erase(std::unique(given.begin(), given.end()), given.end());
  }
  const int lock_fd = lock_log(path);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } lock_closer{lock_fd};
  const int in_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in_fd < 0) throw IOError(errno_text("cannot open temporal log", path));
  std::string data;
  {
    Closer c{in_fd};
    data = read_fd(in_fd, path);
  }
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const std::size_t n = data.size();
  LogSalvageReport rep;
  rep.source_bytes = n;
  const FileHeader h = read_header(p, n);
  rep.header_intact = h.error.empty();
  std::string out;
  bool cs;
  if (rep.header_intact) {
    if (options.have_settings) {
      if (options.case_sensitive != h.case_sensitive)
        throw ConfigError("case_sensitive", "temporal log " + path + " was written with case_sensitive=" +
                                                (h.case_sensitive ? "True" : "False"));
      if (given != h.functional)
        throw ConfigError("functional_predicates",
                          "temporal log " + path + " was written with other functional_predicates");
    }
    cs = h.case_sensitive;
    out.assign(data, 0, h.size);
  } else {
    if (!options.have_settings)
      throw FormatError("temporal log " + path + " " + h.error +
                        "; pass case_sensitive and functional_predicates to salvage it");
    cs = options.case_sensitive;
    out = make_header(cs, given);
  }
  std::size_t pos = h.structured ? h.size : 0;
  bool skipping = false;
  LogSalvageSkip cur;
  if (!rep.header_intact) {
    // A structured header is skipped as a whole; otherwise the scan starts at byte 0 and the
    // first skipped range holds the header.
    cur.start = 0;
    cur.reason = "the header: the file " + h.error;
    if (h.structured) {
      cur.end = pos;
      rep.skipped.push_back(cur);
    } else {
      skipping = true;
    }
  }
  std::string why;
  while (pos < n) {
    const std::size_t f = valid_frame(p, n, pos, cs, &why);
    if (f > 0) {
      if (skipping) {
        cur.end = pos;
        rep.skipped.push_back(cur);
        skipping = false;
      }
      out.append(data, pos, f);
      ++rep.records_copied;
      pos += f;
    } else {
      if (!skipping) {
        skipping = true;
        cur.start = pos;
        cur.reason = why;
      }
      ++pos;
    }
  }
  if (skipping) {
    cur.end = n;
    rep.skipped.push_back(cur);
  }
  const int ofd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (ofd < 0) {
    if (errno == EEXIST)
      throw IOError("salvage target " + out_path + " already exists; salvage never overwrites a file");
    throw IOError(errno_text("cannot create salvage target", out_path));
  }
  try {
    write_all(ofd, out.data(), out.size(), out_path);
    if (portable::sync_file(ofd) != 0) throw IOError(errno_text("cannot fsync", out_path));
  } catch (...) {
    ::close(ofd);
    ::unlink(out_path.c_str());
    throw;
  }
  ::close(ofd);
  rep.bytes_written = out.size();
  return rep;
}

}  // namespace director_fast

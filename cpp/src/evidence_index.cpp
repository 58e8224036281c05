#include "director_fast/evidence_index.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <queue>
#include <random>
#include <thread>

#include <hnswlib/hnswlib.h>

#include "director_fast/errors.hpp"
#include "director_fast/huge_pages.hpp"
#include "director_fast/simd_distance.hpp"
#include "director_fast/portable.hpp"

namespace director_fast {

namespace {

constexpr char kMagic[8] = {'D', 'F', 'E', 'V', 'I', 'D', 'X', '\0'};

// hnswlib's base-layer block (vectors + links; ~1.6 KiB per item at dim 384) on huge pages: a
// search touches a new vector per visited node, so with 4 KiB pages nearly every distance costs a
// TLB miss once the index outgrows the TLB reach.
void advise_hnsw(const hnswlib::HierarchicalNSW<float>& h) {
  advise_huge_pages(h.data_level0_memory_, h.max_elements_ * h.size_data_per_element_);
}

// k-NN search over hnswlib's graph (the HNSW search of Malkov & Yashunin 2018: greedy descent
// through the upper layers, then a best-first beam of width ef on the base layer) for the case
// without deleted items or filters. It makes exactly the heap updates of hnswlib's own search, in
// the same order, so results are identical; the difference is memory access: when a node is
// expanded, all of its not-yet-visited neighbours are collected first and every cache line of
// their vectors is prefetched before the first distance is computed, so the vectors stream in
// together instead of one neighbour at a time. At 10^6 vectors the search is bound by these
// misses. Reads the graph without locks, like hnswlib's searchKnn: the caller excludes writers.
std::priority_queue<std::pair<float, hnswlib::labeltype>> knn_prefetched(
    const hnswlib::HierarchicalNSW<float>& h, const void* query, size_t k, size_t data_bytes) {
  using hnswlib::tableint;
  std::priority_queue<std::pair<float, hnswlib::labeltype>> result;
  if (h.cur_element_count == 0 || k == 0) return result;
  const hnswlib::DISTFUNC<float> dist = h.fstdistfunc_;
  const void* param = h.dist_func_param_;
  auto prefetch_vector = [&](tableint id) {
    const char* p = h.getDataByInternalId(id);
    for (size_t off = 0; off < data_bytes; off += 64) __builtin_prefetch(p + off);
  };

  const size_t count = h.cur_element_count;
  auto check = [&](tableint id) {
    if (id >= count) throw FormatError("the HNSW graph links to item " + std::to_string(id) +
                                       " of " + std::to_string(count) + " (corrupt index)");
  };
  tableint cur = h.enterpoint_node_;
  check(cur);
  float cur_d = dist(query, h.getDataByInternalId(cur), param);
  for (int level = h.maxlevel_; level > 0; --level) {
    for (bool changed = true; changed;) {
      changed = false;
      const auto* ll = reinterpret_cast<const unsigned int*>(h.get_linklist(cur, level));
      const size_t n = h.getListCount(const_cast<unsigned int*>(ll));
      const auto* nb = reinterpret_cast<const tableint*>(ll + 1);
      for (size_t i = 0; i < n; ++i) {
        check(nb[i]);
        prefetch_vector(nb[i]);
      }
      for (size_t i = 0; i < n; ++i) {
        const float d = dist(query, h.getDataByInternalId(nb[i]), param);
        if (d < cur_d) {
          cur_d = d;
          cur = nb[i];
          changed = true;
        }
      }
    }
  }

  using Pair = std::pair<float, tableint>;
  struct ByFirst {
    bool operator()(const Pair& a, const Pair& b) const { return a.first < b.first; }
  };
  const size_t ef = std::max(h.ef_, k);
  std::priority_queue<Pair, std::vector<Pair>, ByFirst> top;         // worst of the best ef on top
  std::priority_queue<Pair, std::vector<Pair>, ByFirst> candidates;  // -distance: nearest on top
  hnswlib::VisitedList* vl = h.visited_list_pool_->getFreeVisitedList();
  hnswlib::vl_type* visited = vl->mass;
  const hnswlib::vl_type tag = vl->curV;
  top.emplace(cur_d, cur);
  candidates.emplace(-cur_d, cur);
  visited[cur] = tag;
  float bound = cur_d;
  std::vector<tableint> fresh;
  while (!candidates.empty()) {
    const Pair c = candidates.top();
    if (-c.first > bound) break;
    candidates.pop();
    const auto* ll = reinterpret_cast<const unsigned int*>(h.get_linklist0(c.second));
    const size_t n = h.getListCount(const_cast<unsigned int*>(ll));
    const auto* nb = reinterpret_cast<const tableint*>(ll + 1);
    fresh.clear();
    for (size_t j = 0; j < n; ++j) {
      const tableint id = nb[j];
      if (id >= count) {
        h.visited_list_pool_->releaseVisitedList(vl);
        check(id);
      }
      if (visited[id] == tag) continue;
      visited[id] = tag;
      fresh.push_back(id);
      prefetch_vector(id);
    }
    for (const tableint id : fresh) {
      const float d = dist(query, h.getDataByInternalId(id), param);
      if (top.size() < ef || bound > d) {
        candidates.emplace(-d, id);
        top.emplace(d, id);
        if (top.size() > ef) top.pop();
        bound = top.top().first;
      }
    }
  }
  h.visited_list_pool_->releaseVisitedList(vl);
  while (top.size() > k) top.pop();
  while (!top.empty()) {
    result.emplace(top.top().first, h.getExternalLabel(top.top().second));
    top.pop();
  }
  return result;
}

// An hnswlib space whose distance is one of the run-time dispatched kernels of simd_distance.hpp:
// float32 elements (same layout and distance as hnswlib's L2Space/InnerProductSpace, so saved
// indexes load with either) or binary16 elements.
class KernelSpace : public hnswlib::SpaceInterface<float> {
 public:
  KernelSpace(size_t dim, size_t element_size, simd::DistFn fn)
      : dim_(dim), element_size_(element_size), fn_(fn) {}
  size_t get_data_size() override { return dim_ * element_size_; }
  hnswlib::DISTFUNC<float> get_dist_func() override { return fn_; }
  void* get_dist_func_param() override { return &dim_; }

 private:
  size_t dim_;
  size_t element_size_;
  simd::DistFn fn_;
};

// Runs fn(i) for i in [0, n) on up to num_threads threads; rethrows the first worker exception.
template <typename Fn>
void parallel_for(size_t n, int num_threads, Fn fn) {
  size_t nt = num_threads <= 0 ? std::max(1u, std::thread::hardware_concurrency())
                               : static_cast<size_t>(num_threads);
  nt = std::min(nt, n);
  if (nt <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr err;
  std::mutex err_mu;
  auto worker = [&]() {
    while (true) {
      size_t i = next.fetch_add(1);
      if (i >= n) break;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> g(err_mu);
        if (!err) err = std::current_exception();
        next.store(n);
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t + 1 < nt; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (err) std::rethrow_exception(err);
}

class TenantFilter : public hnswlib::BaseFilterFunctor {
 public:
  TenantFilter(const std::vector<ItemMeta>& meta, uint32_t tenant) : meta_(meta), tenant_(tenant) {}
  bool operator()(hnswlib::labeltype label) override {
    return label < meta_.size() && meta_[label].tenant == tenant_;
  }

 private:
  const std::vector<ItemMeta>& meta_;
  uint32_t tenant_;
};

// ---- binary I/O helpers ----
struct Writer {
  FILE* f;
  Checksum64 sum;
  void bytes(const void* p, size_t n) {
    if (n && std::fwrite(p, 1, n, f) != n) throw IOError("write failed (disk full?)");
    sum.update(p, n);
  }
  void u32(uint32_t v) { bytes(&v, 4); }
  void u64(uint64_t v) { bytes(&v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
};

struct Reader {
  std::ifstream& in;
  uint64_t remaining;
  void bytes(void* p, size_t n) {
    if (n > remaining) throw FormatError("evidence index file is truncated");
    in.read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    if (!in) throw FormatError("evidence index file is truncated");
    remaining -= n;
  }
  uint32_t u32() { uint32_t v; bytes(&v, 4); return v; }
  uint64_t u64() { uint64_t v; bytes(&v, 8); return v; }
  std::string str() {
    uint64_t n = u64();
    if (n > remaining) throw FormatError("evidence index file is corrupt (string length)");
    std::string s(n, '\0');
    bytes(s.data(), n);
    return s;
  }
};

// ---- temporaries of save(): <path>.tmp-<host>-<pid>-<start time> ----

// Start time of process `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or 0
// where it cannot be read (no procfs, process gone). With the pid it names one process: a pid
// can be reused, the pair cannot.
unsigned long long process_start_ticks(long pid) {
  const std::string p = "/proc/" + std::to_string(pid) + "/stat";
  std::ifstream in(p);
  if (!in) return 0;
  std::string line;
  std::getline(in, line);
  const size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return 0;
  // Fields after the name start with field 3 (state); the start time is field 22.
  const char* c = line.c_str() + close + 1;
  for (int field = 3; field < 22; ++field) {
    while (*c == ' ') ++c;
    while (*c != ' ' && *c != '\0') ++c;
    if (*c == '\0') return 0;
  }
  char* end = nullptr;
  const unsigned long long v = std::strtoull(c, &end, 10);
  return end == c ? 0 : v;
}

// gethostname(), with characters other than [A-Za-z0-9._-] replaced by '_' (file-name safe).
std::string this_host() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  std::string h(buf);
  for (char& ch : h) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                    ch == '.' || ch == '_' || ch == '-';
    if (!ok) ch = '_';
  }
  return h;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 20 &&
         std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// "a-b-c" (all decimal) as written by earlier versions (pid-counter-random).
bool legacy_suffix(const std::string& s) {
  const size_t a = s.find('-');
  if (a == std::string::npos) return false;
  const size_t b = s.find('-', a + 1);
  if (b == std::string::npos) return false;
  return all_digits(s.substr(0, a)) && all_digits(s.substr(a + 1, b - a - 1)) && all_digits(s.substr(b + 1));
}

bool valid_utf8(const std::string& s);

// Saves of one process share one temporary name per path; they take turns.
std::mutex& save_mutex() {
  static std::mutex mu;
  return mu;
}

// `path` for messages: bytes that are not UTF-8 (a Python path with surrogate escapes) are shown
// as \xNN, so the message stays text.
std::string display_path(const std::string& path) {
  std::string out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = i + 1;
    const auto c = static_cast<unsigned char>(path[i]);
    if (c >= 0x80) {  // the length of a well-formed UTF-8 sequence starting here, else 1
      const size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      if (len > 1 && i + len <= path.size() && valid_utf8(path.substr(i, len))) j = i + len;
    }
    if (j == i + 1 && c >= 0x80) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out.append(path, i, j - i);
    }
    i = j;
  }
  return out;
}

void check_path(const std::string& path) {
  if (path.find('\0') != std::string::npos) {
    throw ConfigError("path", "must not contain a NUL character (got " + std::to_string(path.size()) +
                                  " bytes with a NUL at byte " + std::to_string(path.find('\0')) + ")");
  }
  if (path.empty()) throw ConfigError("path", "must not be empty");
}

// ---- graph section: hnswlib's own saveIndex layout, written and read in memory ----
// size_t offsetLevel0, max_elements, cur_element_count, size_data_per_element, label_offset,
// offsetData | int maxlevel | u32 enterpoint | size_t maxM, maxM0, M | double mult |
// size_t ef_construction | level-0 records (cur_element_count x size_data_per_element) |
// per element: u32 bytes of its upper-level link lists, then those bytes.
struct GraphHeader {
  uint64_t offset_level0 = 0, max_elements = 0, count = 0, size_data_per_element = 0,
           label_offset = 0, offset_data = 0;
  int32_t maxlevel = -1;
  uint32_t enterpoint = 0;
  uint64_t maxM = 0, maxM0 = 0, M = 0;
  double mult = 0.0;
  uint64_t ef_construction = 0;
};
constexpr uint64_t kGraphHeaderBytes = 6 * 8 + 4 + 4 + 3 * 8 + 8 + 8;

uint64_t graph_section_bytes(const hnswlib::HierarchicalNSW<float>& h) {
  uint64_t n = kGraphHeaderBytes;
  const size_t count = h.cur_element_count;
  n += static_cast<uint64_t>(count) * h.size_data_per_element_;
  for (size_t i = 0; i < count; ++i) {
    n += 4;
    if (h.element_levels_[i] > 0) n += static_cast<uint64_t>(h.size_links_per_element_) * h.element_levels_[i];
  }
  return n;
}

void write_graph(Writer& w, const hnswlib::HierarchicalNSW<float>& h) {
  const size_t count = h.cur_element_count;
  w.u64(h.offsetLevel0_);
  w.u64(h.max_elements_);
  w.u64(count);
  w.u64(h.size_data_per_element_);
  w.u64(h.label_offset_);
  w.u64(h.offsetData_);
  const int32_t maxlevel = h.maxlevel_;
  w.bytes(&maxlevel, 4);
  const uint32_t ep = h.enterpoint_node_;
  w.u32(ep);
  w.u64(h.maxM_);
  w.u64(h.maxM0_);
  w.u64(h.M_);
  w.bytes(&h.mult_, 8);
  w.u64(h.ef_construction_);
  w.bytes(h.data_level0_memory_, count * h.size_data_per_element_);
  for (size_t i = 0; i < count; ++i) {
    const int level = h.element_levels_[i];
    const uint32_t n = level > 0 ? static_cast<uint32_t>(h.size_links_per_element_ * level) : 0;
    w.u32(n);
    if (n) w.bytes(h.linkLists_[i], n);
  }
}

// Strict UTF-8 (no overlong forms, no surrogates, at most U+10FFFF): what Python's decoder takes.
bool valid_utf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t j = 1; j < len; ++j) {
      if ((p[i + j] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + j] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    i += len;
  }
  return true;
}

// An integer id as saved: canonical decimal ("0", "-12", no leading zeros, no "-0"), at most
// 4300 digits (Python's default limit on int <-> str conversion).
bool canonical_int(const std::string& s) {
  const size_t start = (!s.empty() && s[0] == '-') ? 1 : 0;
  const size_t digits = s.size() - start;
  if (digits == 0 || digits > 4300) return false;
  for (size_t i = start; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  if (s[start] == '0' && (digits > 1 || start == 1)) return false;
  return true;
}

GraphHeader read_graph_header(Reader& r) {
  GraphHeader g;
  g.offset_level0 = r.u64();
  g.max_elements = r.u64();
  g.count = r.u64();
  g.size_data_per_element = r.u64();
  g.label_offset = r.u64();
  g.offset_data = r.u64();
  r.bytes(&g.maxlevel, 4);
  g.enterpoint = r.u32();
  g.maxM = r.u64();
  g.maxM0 = r.u64();
  g.M = r.u64();
  r.bytes(&g.mult, 8);
  g.ef_construction = r.u64();
  return g;
}

// Checks the graph header against the index configuration (M, element size) and the bytes left
// in the section; returns the capacity to allocate. Throws FormatError.
size_t check_graph_header(const GraphHeader& g, size_t M, size_t data_size, uint64_t section_left,
                          const std::string& path) {
  auto bad = [&](const std::string& what) { return FormatError(path + ": corrupt HNSW section: " + what); };
  const uint64_t links0 = 2 * static_cast<uint64_t>(M) * sizeof(hnswlib::tableint) + sizeof(hnswlib::linklistsizeint);
  const uint64_t per_element = links0 + data_size + sizeof(hnswlib::labeltype);
  if (g.M != M || g.maxM != M || g.maxM0 != 2 * static_cast<uint64_t>(M) || g.offset_data != links0 ||
      g.label_offset != links0 + data_size || g.size_data_per_element != per_element) {
    throw FormatError(path + ": the HNSW section's record layout does not match the header (M " + std::to_string(M) +
                      ", " + std::to_string(data_size) + " bytes per vector)");
  }
  if (g.offset_level0 != 0) throw bad("level-0 offset " + std::to_string(g.offset_level0) + " (must be 0)");
  if (g.count > g.max_elements) {
    throw bad("element count " + std::to_string(g.count) + " above max_elements " + std::to_string(g.max_elements));
  }
  // Internal ids are 32-bit and 0xFFFFFFFF means "no entry point".
  if (g.count >= 0xFFFFFFFFULL) throw bad("element count " + std::to_string(g.count) + " too large");
  if (g.count * per_element > section_left) {
    throw bad(std::to_string(g.count) + " elements of " + std::to_string(per_element) + " bytes exceed the " +
              std::to_string(section_left) + " bytes of the section");
  }
  // Every element also has a 4-byte link-list size after the level-0 records.
  if (g.count * (per_element + 4) > section_left) throw bad("the section is shorter than its element count needs");
  if (g.count == 0) {
    if (g.maxlevel != -1 || g.enterpoint != 0xFFFFFFFFu) {
      throw bad("an empty graph with an entry point (" + std::to_string(g.enterpoint) + ", level " +
                std::to_string(g.maxlevel) + ")");
    }
  } else {
    if (g.enterpoint >= g.count) {
      throw bad("entry point " + std::to_string(g.enterpoint) + " of " + std::to_string(g.count) + " elements");
    }
    if (g.maxlevel < 0) throw bad("top level " + std::to_string(g.maxlevel));
  }
  // Room for the stored elements plus growth; a larger reservation in the file is not honoured
  // (the index grows on demand), so a crafted max_elements cannot allocate more than the file.
  const uint64_t reserve = std::max<uint64_t>({g.count, 1, std::min<uint64_t>(g.max_elements, std::max<uint64_t>(2 * g.count, 1024))});
  return static_cast<size_t>(reserve);
}

// Reads the rest of the graph section (level-0 records and upper link lists) into `h`, freshly
// constructed with the right M, element size and capacity, and checks every link: list sizes
// within the degree bound, every neighbour an existing element that reaches that level, upper
// list sizes whole multiples of a level, no level above the top level, the entry point on the top
// level. Labels are checked by the caller (they refer to the metadata). Throws FormatError.
void read_graph_body(Reader& r, const GraphHeader& g, hnswlib::HierarchicalNSW<float>& h, const std::string& path) {
  auto bad = [&](const std::string& what) { return FormatError(path + ": corrupt HNSW section: " + what); };
  const size_t count = static_cast<size_t>(g.count);
  r.bytes(h.data_level0_memory_, count * h.size_data_per_element_);
  // From here on h's destructor frees linkLists_[i] for i < count with element_levels_[i] > 0;
  // the levels are all 0 until a list is allocated.
  h.cur_element_count = count;
  h.maxlevel_ = g.maxlevel;
  h.enterpoint_node_ = g.enterpoint;
  const size_t per_level = h.size_links_per_element_;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t n = r.u32();
    if (n == 0) continue;
    if (n % per_level != 0) {
      throw bad("element " + std::to_string(i) + " has " + std::to_string(n) + " bytes of upper links, not a multiple of " +
                std::to_string(per_level));
    }
    const uint64_t level = n / per_level;
    if (level > static_cast<uint64_t>(g.maxlevel)) {
      throw bad("element " + std::to_string(i) + " has level " + std::to_string(level) + " above the top level " +
                std::to_string(g.maxlevel));
    }
    if (n > r.remaining) throw FormatError(path + ": evidence index file is truncated");
    std::unique_ptr<char, void (*)(void*)> buf(static_cast<char*>(std::malloc(n)), std::free);
    if (!buf) throw std::bad_alloc();
    r.bytes(buf.get(), n);
    h.linkLists_[i] = buf.release();
    h.element_levels_[i] = static_cast<int>(level);
  }
  if (count > 0 && h.element_levels_[g.enterpoint] != g.maxlevel) {
    throw bad("the entry point " + std::to_string(g.enterpoint) + " is on level " +
              std::to_string(h.element_levels_[g.enterpoint]) + ", not on the top level " + std::to_string(g.maxlevel));
  }
  const auto check_list = [&](size_t i, int level, size_t max_links) {
    const auto* ll = reinterpret_cast<const unsigned int*>(level == 0 ? h.get_linklist0(static_cast<hnswlib::tableint>(i))
                                                                     : h.get_linklist(static_cast<hnswlib::tableint>(i), level));
    const size_t n = h.getListCount(const_cast<unsigned int*>(ll));
    if (n > max_links) {
      throw bad("element " + std::to_string(i) + " has " + std::to_string(n) + " links on level " + std::to_string(level) +
                " (at most " + std::to_string(max_links) + ")");
    }
    const auto* nb = reinterpret_cast<const hnswlib::tableint*>(ll + 1);
    for (size_t j = 0; j < n; ++j) {
      if (nb[j] >= count) {
        throw bad("element " + std::to_string(i) + " links to element " + std::to_string(nb[j]) + " of " +
                  std::to_string(count) + " on level " + std::to_string(level));
      }
      if (h.element_levels_[nb[j]] < level) {
        throw bad("element " + std::to_string(i) + " links to element " + std::to_string(nb[j]) + " on level " +
                  std::to_string(level) + ", which that element does not reach");
      }
    }
  };
  for (size_t i = 0; i < count; ++i) {
    check_list(i, 0, h.maxM0_);
    for (int level = 1; level <= h.element_levels_[i]; ++level) check_list(i, level, h.maxM_);
  }
}

}  // namespace

// ---- Checksum64 --------------------------------------------------------------------------------

void Checksum64::word(uint64_t w) {
  w *= 0x87C37B91114253D5ULL;
  w = (w << 31) | (w >> 33);
  w *= 0x4CF5AD432745937FULL;
  h_ ^= w;
  h_ = ((h_ << 27) | (h_ >> 37)) * 5 + 0x52DCE729;
}

void Checksum64::update(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += n;
  while (n > 0 && nbuf_ > 0 && nbuf_ < 8) {
    buf_[nbuf_++] = *p++;
    --n;
    if (nbuf_ == 8) {
      uint64_t w;
      std::memcpy(&w, buf_, 8);
      word(w);
      nbuf_ = 0;
    }
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    word(w);
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    buf_[nbuf_++] = *p++;
    --n;
  }
}

uint64_t Checksum64::digest() const {
  Checksum64 c = *this;
  uint64_t w = 0;
  std::memcpy(&w, c.buf_, c.nbuf_);
  c.word(w ^ (static_cast<uint64_t>(c.nbuf_) << 56));
  uint64_t h = c.h_ ^ c.total_;
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}

// ---- Metric ------------------------------------------------------------------------------------

Metric metric_from_string(const std::string& s) {
  if (s == "cosine") return Metric::Cosine;
  if (s == "ip") return Metric::IP;
  if (s == "l2") return Metric::L2;
  throw ConfigError("space", "must be 'cosine', 'ip' or 'l2', got '" + s + "'");
}

const char* metric_name(Metric m) {
  switch (m) {
    case Metric::Cosine: return "cosine";
    case Metric::IP: return "ip";
    case Metric::L2: return "l2";
  }
  return "cosine";
}

Storage storage_from_string(const std::string& s) {
  if (s == "float32") return Storage::Float32;
  if (s == "float16") return Storage::Float16;
  throw ConfigError("storage", "must be 'float32' or 'float16', got '" + s + "'");
}

const char* storage_name(Storage s) {
  return s == Storage::Float16 ? "float16" : "float32";
}

// ---- EvidenceIndex -----------------------------------------------------------------------------

EvidenceIndex::EvidenceIndex(IndexConfig cfg) : cfg_(cfg) {
  if (cfg_.dim < 1 || cfg_.dim > 65536) throw ConfigError("dim", "must be in [1, 65536], got " + std::to_string(cfg_.dim));
  if (cfg_.storage == Storage::Float16 && cfg_.dim % 2 != 0)
    // hnswlib stores each record's link count right after the vector: 2 * odd bytes would leave it
    // misaligned (undefined behaviour on every read, found by scripts/sanitize.sh)
    throw ConfigError("dim", "storage='float16' needs an even dim (or use storage='float32'), got " +
                                 std::to_string(cfg_.dim));
  if (cfg_.M < 2 || cfg_.M > 2048) throw ConfigError("M", "must be in [2, 2048], got " + std::to_string(cfg_.M));
  if (cfg_.ef_construction < 1) throw ConfigError("ef_construction", "must be >= 1");
  if (cfg_.ef_search < 1) throw ConfigError("ef_search", "must be >= 1");
  if (cfg_.initial_capacity < 1) cfg_.initial_capacity = 1;
  const simd::Isa isa = simd::detected_isa();
  isa_ = static_cast<int>(isa);
  const bool l2 = cfg_.metric == Metric::L2;
  if (cfg_.storage == Storage::Float16) {
    space_ = std::make_unique<KernelSpace>(
        cfg_.dim, 2, l2 ? simd::l2_squared_distance_f16(isa) : simd::inner_product_distance_f16(isa));
  } else if (simd::DistFn kernel = l2 ? simd::l2_squared_distance(isa) : simd::inner_product_distance(isa)) {
    space_ = std::make_unique<KernelSpace>(cfg_.dim, 4, kernel);
  } else if (cfg_.metric == Metric::L2) {
    space_ = std::make_unique<hnswlib::L2Space>(cfg_.dim);
  } else {
    space_ = std::make_unique<hnswlib::InnerProductSpace>(cfg_.dim);
  }
  hnsw_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(
      space_.get(), cfg_.initial_capacity, cfg_.M, cfg_.ef_construction, cfg_.seed,
      /*allow_replace_deleted=*/true);
  hnsw_->setEf(cfg_.ef_search);
  advise_hnsw(*hnsw_);
  tenants_.push_back("");
  tenant_ids_[""] = 0;
  tenant_live_.push_back(0);
}

EvidenceIndex::~EvidenceIndex() = default;

int64_t EvidenceIndex::tenant_id(const std::string& t) const {
  auto it = tenant_ids_.find(t);
  return it == tenant_ids_.end() ? -1 : static_cast<int64_t>(it->second);
}

uint32_t EvidenceIndex::intern_tenant(const std::string& t) {
  auto it = tenant_ids_.find(t);
  if (it != tenant_ids_.end()) return it->second;
  auto id = static_cast<uint32_t>(tenants_.size());
  tenants_.push_back(t);
  tenant_ids_[t] = id;
  tenant_live_.push_back(0);
  return id;
}

void EvidenceIndex::prepare(const float* in, float* out) const {
  double norm = 0.0;
  for (size_t i = 0; i < cfg_.dim; ++i) {
    float v = in[i];
    if (!std::isfinite(v)) throw ValueError("holds a non-finite value (NaN or inf)");
    out[i] = v;
    norm += static_cast<double>(v) * v;
  }
  if (cfg_.metric == Metric::Cosine) {
    // Scaled in double: the inverse norm of a tiny (subnormal) vector overflows float32.
    if (norm > 0.0) {
      const double inv = 1.0 / std::sqrt(norm);
      for (size_t i = 0; i < cfg_.dim; ++i) out[i] = static_cast<float>(in[i] * inv);
    }
  } else if (norm > static_cast<double>(std::numeric_limits<float>::max()) / 4) {
    // ip / l2 distances are accumulated in float32: |<a,b>| and |a-b|^2 stay finite only while
    // every squared norm is at most FLT_MAX / 4.
    throw ValueError("has a squared norm above 8.5e37: its ip/l2 distances would overflow float32");
  }
}

size_t EvidenceIndex::element_bytes() const {
  return cfg_.dim * (cfg_.storage == Storage::Float16 ? 2 : 4);
}

void EvidenceIndex::to_stored(const float* in, unsigned char* out, float* scratch) const {
  if (cfg_.storage == Storage::Float32) {  // the stored form is the prepared vector itself
    prepare(in, reinterpret_cast<float*>(out));
    return;
  }
  prepare(in, scratch);
  for (size_t i = 0; i < cfg_.dim; ++i) {
    if (std::fabs(scratch[i]) > 65504.0f)
      throw ValueError("holds a value beyond the float16 range of this index (|x| > 65504; "
                       "storage='float32' stores it)");
    const uint16_t h = simd::float_to_half(scratch[i]);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

void EvidenceIndex::erase_live(std::unordered_map<std::string, uint64_t>::iterator it) {
  const uint64_t label = it->second;
  hnsw_->markDelete(label);
  ItemMeta& m = meta_[label];
  m.alive = false;
  tenant_live_[m.tenant]--;
  m.text.clear();
  m.text.shrink_to_fit();
  m.source.clear();
  --live_;
  by_key_.erase(it);
}

void EvidenceIndex::ensure_capacity(size_t extra) {
  size_t need = hnsw_->getCurrentElementCount() + extra;
  size_t cap = hnsw_->getMaxElements();
  if (need <= cap) return;
  size_t target = std::max(need, cap * 2);
  try {
    hnsw_->resizeIndex(target);
    advise_hnsw(*hnsw_);
  } catch (const std::exception& e) {
    throw IOError(std::string("could not grow the index: ") + e.what());
  }
}

std::vector<ItemKey> EvidenceIndex::add(const float* vectors, size_t n, const std::vector<ItemKey>* keys,
                                        const std::vector<std::string>& texts,
                                        const std::vector<std::string>& sources,
                                        const std::vector<std::string>& tenants, bool upsert,
                                        int num_threads) {
  auto check_len = [n](size_t got, const char* what) {
    if (got != 0 && got != n) {
      throw ValueError(std::string(what) + " has " + std::to_string(got) + " entries for " +
                       std::to_string(n) + " vectors");
    }
  };
  if (keys != nullptr && keys->size() != n) {
    throw ValueError("ids has " + std::to_string(keys->size()) + " entries for " + std::to_string(n) + " vectors");
  }
  check_len(texts.size(), "texts");
  check_len(sources.size(), "sources");
  check_len(tenants.size(), "tenants");
  // Prepare (and validate) all vectors before touching the index.
  const size_t eb = element_bytes();
  std::vector<unsigned char> buf(n * eb);
  {
    std::vector<float> tmp(cfg_.storage == Storage::Float32 ? 0 : cfg_.dim);
    for (size_t i = 0; i < n; ++i) {
      try {
        to_stored(vectors + i * cfg_.dim, buf.data() + i * eb, tmp.data());
      } catch (const ValueError& e) {
        throw ValueError("vectors[" + std::to_string(i) + "] " + e.what());
      }
    }
  }
  std::unique_lock<std::shared_mutex> lock(mu_);
  std::vector<ItemKey> final_keys;
  final_keys.reserve(n);
  if (keys != nullptr) {
    std::unordered_map<std::string, size_t> seen;
    for (size_t i = 0; i < n; ++i) {
      const ItemKey& k = (*keys)[i];
      std::string enc = k.encoded();
      if (!seen.emplace(enc, i).second) {
        throw KeyError("id " + (k.is_int ? k.value : "'" + k.value + "'") + " appears twice in the batch");
      }
      if (!upsert && by_key_.count(enc)) {
        throw KeyError("id " + (k.is_int ? k.value : "'" + k.value + "'") +
                       " already exists (use upsert to replace it)");
      }
      final_keys.push_back(k);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      ItemKey k;
      k.is_int = true;
      do {
        if (next_auto_id_ == std::numeric_limits<int64_t>::max()) {
          throw ValueError("ids: automatic ids are exhausted (an integer id of 2**63 - 1 is in use); pass ids");
        }
        k.value = std::to_string(next_auto_id_++);
      } while (by_key_.count(k.encoded()));
      final_keys.push_back(k);
    }
  }
  for (const ItemKey& k : final_keys) {  // keep auto ids above every integer id in use
    if (k.is_int) {
      try {
        const long long v = std::stoll(k.value);
        if (v >= next_auto_id_) next_auto_id_ = v == std::numeric_limits<int64_t>::max() ? v : v + 1;
      } catch (...) {
      }
    }
  }
  // Upsert: delete the old items first (their slots are reused by hnswlib).
  for (const ItemKey& k : final_keys) {
    auto it = by_key_.find(k.encoded());
    if (it != by_key_.end()) erase_live(it);
  }
  ensure_capacity(n);
  const uint64_t base = meta_.size();
  meta_.resize(base + n);
  for (size_t i = 0; i < n; ++i) {
    ItemMeta& m = meta_[base + i];
    m.key = final_keys[i];
    if (!texts.empty()) m.text = texts[i];
    if (!sources.empty()) m.source = sources[i];
    m.tenant = tenants.empty() ? 0 : intern_tenant(tenants[i]);
    m.alive = true;
  }
  try {
    parallel_for(n, num_threads, [&](size_t i) {
      hnsw_->addPoint(buf.data() + i * eb, base + i, /*replace_deleted=*/true);
    });
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw IOError(std::string("hnswlib add failed: ") + e.what());
  }
  for (size_t i = 0; i < n; ++i) {
    by_key_[final_keys[i].encoded()] = base + i;
    tenant_live_[meta_[base + i].tenant]++;
  }
  live_ += n;
  return final_keys;
}

size_t EvidenceIndex::remove(const std::vector<ItemKey>& keys, bool missing_ok) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (!missing_ok) {
    for (const ItemKey& k : keys) {
      if (!by_key_.count(k.encoded())) {
        throw KeyError("unknown id " + (k.is_int ? k.value : "'" + k.value + "'"));
      }
    }
  }
  size_t removed = 0;
  for (const ItemKey& k : keys) {
    auto it = by_key_.find(k.encoded());
    if (it == by_key_.end()) continue;
    erase_live(it);
    ++removed;
  }
  return removed;
}

void EvidenceIndex::set_ef_search(size_t ef) {
  if (ef < 1) throw ConfigError("ef_search", "must be >= 1");
  std::unique_lock<std::shared_mutex> lock(mu_);
  cfg_.ef_search = ef;
  hnsw_->setEf(ef);
}

const char* EvidenceIndex::distance_kernel() const {
  return simd::isa_name(static_cast<simd::Isa>(isa_));
}

size_t EvidenceIndex::ef_search() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return cfg_.ef_search;
}

void EvidenceIndex::exact_one(const void* q, size_t k, int64_t tenant, int64_t* labels, float* dists) const {
  auto dist = space_->get_dist_func();
  void* param = space_->get_dist_func_param();
  std::priority_queue<std::pair<float, int64_t>> heap;  // max-heap of the best k
  const size_t count = hnsw_->getCurrentElementCount();
  for (size_t i = 0; i < count; ++i) {
    auto internal = static_cast<hnswlib::tableint>(i);
    if (hnsw_->isMarkedDeleted(internal)) continue;
    hnswlib::labeltype label = hnsw_->getExternalLabel(internal);
    if (label >= meta_.size() || !meta_[label].alive) continue;
    if (tenant >= 0 && meta_[label].tenant != static_cast<uint32_t>(tenant)) continue;
    float d = dist(q, hnsw_->getDataByInternalId(internal), param);
    auto lab = static_cast<int64_t>(label);
    if (heap.size() < k) {
      heap.emplace(d, lab);
    } else if (std::make_pair(d, lab) < heap.top()) {
      heap.pop();
      heap.emplace(d, lab);
    }
  }
  size_t got = heap.size();
  for (size_t j = got; j < k; ++j) {
    labels[j] = -1;
    dists[j] = std::numeric_limits<float>::infinity();
  }
  for (size_t j = got; j-- > 0;) {
    labels[j] = heap.top().second;
    dists[j] = heap.top().first;
    heap.pop();
  }
}

void EvidenceIndex::search(const float* queries, size_t nq, size_t k, const std::string* tenant,
                           bool exact, int num_threads, int64_t* labels_out, float* distances_out,
                           bool reference_search) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  search_locked(queries, nq, k, tenant, exact, num_threads, labels_out, distances_out, reference_search);
}

void EvidenceIndex::search_with_hits(const float* queries, size_t nq, size_t k, const std::string* tenant,
                                     bool exact, int num_threads, int64_t* labels_out, float* distances_out,
                                     std::vector<SearchHit>* hits_out) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  search_locked(queries, nq, k, tenant, exact, num_threads, labels_out, distances_out, false);
  hits_out->assign(nq * k, SearchHit{});
  for (size_t i = 0; i < nq * k; ++i) {
    const int64_t l = labels_out[i];
    if (l < 0 || static_cast<size_t>(l) >= meta_.size()) continue;
    const ItemMeta& m = meta_[static_cast<size_t>(l)];
    SearchHit& h = (*hits_out)[i];
    h.key = m.key;
    h.text = m.text;
    h.source = m.source;
    h.tenant = tenants_[m.tenant];
  }
}

void EvidenceIndex::search_with_keys(const float* queries, size_t nq, size_t k, const std::string* tenant,
                                     bool exact, int num_threads, int64_t* labels_out, float* distances_out,
                                     std::vector<ItemKey>* keys_out) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  search_locked(queries, nq, k, tenant, exact, num_threads, labels_out, distances_out, false);
  keys_out->assign(nq * k, ItemKey{});
  for (size_t i = 0; i < nq * k; ++i) {
    const int64_t l = labels_out[i];
    if (l < 0 || static_cast<size_t>(l) >= meta_.size()) continue;
    (*keys_out)[i] = meta_[static_cast<size_t>(l)].key;
  }
}

void EvidenceIndex::search_locked(const float* queries, size_t nq, size_t k, const std::string* tenant,
                                  bool exact, int num_threads, int64_t* labels_out, float* distances_out,
                                  bool reference_search) const {
  if (k == 0) return;
  int64_t tid = -1;
  size_t eligible = live_;
  if (tenant != nullptr) {
    tid = tenant_id(*tenant);
    eligible = tid < 0 ? 0 : tenant_live_[static_cast<size_t>(tid)];
  }
  const bool use_exact = exact || eligible <= cfg_.exact_threshold;
  const size_t want = std::min(k, eligible);
  try {
  parallel_for(nq, num_threads, [&](size_t qi) {
    int64_t* labels = labels_out + qi * k;
    float* dists = distances_out + qi * k;
    std::vector<float> scratch(cfg_.storage == Storage::Float32 ? 0 : cfg_.dim);
    std::vector<unsigned char> q(element_bytes());
    try {
      to_stored(queries + qi * cfg_.dim, q.data(), scratch.data());
    } catch (const ValueError& e) {
      throw ValueError("queries[" + std::to_string(qi) + "] " + e.what());
    }
    if (eligible == 0) {
      for (size_t j = 0; j < k; ++j) {
        labels[j] = -1;
        dists[j] = std::numeric_limits<float>::infinity();
      }
      return;
    }
    if (use_exact) {
      exact_one(q.data(), k, tid, labels, dists);
      return;
    }
    std::priority_queue<std::pair<float, hnswlib::labeltype>> res;
    if (tid >= 0) {
      TenantFilter filter(meta_, static_cast<uint32_t>(tid));
      res = hnsw_->searchKnn(q.data(), want, &filter);
    } else if (hnsw_->getDeletedCount() == 0 && !reference_search) {
      res = knn_prefetched(*hnsw_, q.data(), want, element_bytes());
    } else {
      res = hnsw_->searchKnn(q.data(), want);
    }
    if (res.size() < want) {  // the graph walk missed eligible items: fall back to exact
      exact_one(q.data(), k, tid, labels, dists);
      return;
    }
    size_t got = res.size();
    for (size_t j = got; j < k; ++j) {
      labels[j] = -1;
      dists[j] = std::numeric_limits<float>::infinity();
    }
    for (size_t j = got; j-- > 0;) {
      labels[j] = static_cast<int64_t>(res.top().second);
      dists[j] = res.top().first;
      res.pop();
    }
  });
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(std::string("search failed: ") + e.what());
  }
}

const std::string& EvidenceIndex::tenant_name(uint32_t id) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  if (id >= tenants_.size()) throw IndexError("tenant id out of range");
  return tenants_[id];
}

ItemMeta EvidenceIndex::meta(int64_t label) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  if (label < 0 || static_cast<size_t>(label) >= meta_.size()) {
    throw IndexError("label " + std::to_string(label) + " out of range");
  }
  return meta_[static_cast<size_t>(label)];
}

bool EvidenceIndex::contains(const ItemKey& key) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return by_key_.count(key.encoded()) != 0;
}

std::vector<float> EvidenceIndex::get_vector(const ItemKey& key) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = by_key_.find(key.encoded());
  if (it == by_key_.end()) throw KeyError("unknown id " + (key.is_int ? key.value : "'" + key.value + "'"));
  if (cfg_.storage == Storage::Float32) return hnsw_->getDataByLabel<float>(it->second);
  const std::vector<uint16_t> h = hnsw_->getDataByLabel<uint16_t>(it->second);
  std::vector<float> out(h.size());
  for (size_t i = 0; i < h.size(); ++i) out[i] = simd::half_to_float(h[i]);
  return out;
}

size_t EvidenceIndex::size() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return live_;
}

size_t EvidenceIndex::capacity() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return hnsw_->getMaxElements();
}

size_t EvidenceIndex::deleted_count() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return hnsw_->getDeletedCount();
}

size_t EvidenceIndex::tenant_size(const std::string& tenant) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  int64_t tid = tenant_id(tenant);
  return tid < 0 ? 0 : tenant_live_[static_cast<size_t>(tid)];
}

std::vector<ItemKey> EvidenceIndex::ids(const std::string* tenant) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  int64_t tid = tenant == nullptr ? -1 : tenant_id(*tenant);
  std::vector<ItemKey> out;
  if (tenant != nullptr && tid < 0) return out;
  for (const ItemMeta& m : meta_) {
    if (m.alive && (tid < 0 || m.tenant == static_cast<uint32_t>(tid))) out.push_back(m.key);
  }
  return out;
}

// ---- persistence -------------------------------------------------------------------------------
// Layout (little-endian as written by the host; the checksum covers every byte before it):
//   magic "DFEVIDX\0" | u32 version | u64 dim | u32 metric | u64 M, ef_construction, ef_search,
//   exact_threshold, seed | i64 next_auto_id | u64 n_tenants, (str)* | u64 n_meta,
//   (u8 flags, u32 tenant, str key, str text, str source)* | u64 blob_len, hnswlib blob | u64 checksum

std::string EvidenceIndex::temp_tag() {
  static const std::string tag = this_host() + "-" + std::to_string(::getpid()) + "-" +
                                 std::to_string(process_start_ticks(::getpid()));
  return tag;
}

size_t EvidenceIndex::sweep_stale_temps(const std::string& path) noexcept {
  namespace fs = std::filesystem;
  size_t removed = 0;
  try {
    if (path.empty() || path.find('\0') != std::string::npos) return 0;
    const fs::path p(path);
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    const std::string base = p.filename().string();
    if (base.empty()) return 0;
    const std::string host = this_host();
    const std::string own = temp_tag();
    const time_t now = std::time(nullptr);
    constexpr time_t kMaxAge = 24 * 3600;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() <= base.size() || name.compare(0, base.size(), base) != 0 || name[base.size()] != '.') continue;
      const std::string rest = name.substr(base.size() + 1);
      bool legacy = false;
      std::string tag;
      for (const char* prefix : {"hnsw-load-", "hnsw-"}) {
        const size_t n = std::strlen(prefix);
        if (!legacy && rest.compare(0, n, prefix) == 0 && legacy_suffix(rest.substr(n))) legacy = true;
      }
      if (rest.compare(0, 4, "tmp-") == 0) {
        tag = rest.substr(4);
        if (legacy_suffix(tag)) legacy = true;
      }
      if (!legacy && tag.empty()) continue;
      long pid = 0;
      unsigned long long start = 0;
      std::string tag_host;
      if (!legacy) {  // <host>-<pid>-<start>; the host may itself hold '-'
        const size_t b = tag.rfind('-');
        if (b == std::string::npos || b == 0) continue;
        const size_t a = tag.rfind('-', b - 1);
        if (a == std::string::npos || a == 0) continue;
        const std::string pid_s = tag.substr(a + 1, b - a - 1), start_s = tag.substr(b + 1);
        if (!all_digits(pid_s) || !all_digits(start_s) || pid_s.size() > 9) continue;
        pid = std::stol(pid_s);
        start = std::stoull(start_s);
        tag_host = tag.substr(0, a);
      }
      struct stat st;
      const std::string full = it->path().string();
      if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      bool stale = now - st.st_mtime > kMaxAge;
      if (!stale && !legacy && tag_host == host && tag != own) {
        const bool exists = pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
        // A live pid with another start time is a reused pid: the writer is gone.
        const unsigned long long now_start = exists ? process_start_ticks(pid) : 0;
        stale = !exists || (now_start != 0 && start != 0 && now_start != start);
      }
      if (stale && ::unlink(full.c_str()) == 0) ++removed;
    }
  } catch (...) {
  }
  return removed;
}

void EvidenceIndex::save(const std::string& path) const {
  check_path(path);
  const std::string where = display_path(path);
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::lock_guard<std::mutex> one_save(save_mutex());
  sweep_stale_temps(path);
  const std::string tmp = path + ".tmp-" + temp_tag();
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) throw IOError("could not open " + display_path(tmp) + " for writing: " + std::strerror(errno));
  struct Cleanup {
    const std::string* path;
    ~Cleanup() {
      if (path != nullptr) ::unlink(path->c_str());
    }
  } cleanup{&tmp};
  try {
    Writer w{f, {}};
    w.bytes(kMagic, 8);
    w.u32(kFormatVersion);
    w.u64(cfg_.dim);
    w.u32(static_cast<uint32_t>(cfg_.metric));
    w.u32(static_cast<uint32_t>(cfg_.storage));
    w.u64(cfg_.M);
    w.u64(cfg_.ef_construction);
    w.u64(cfg_.ef_search);
    w.u64(cfg_.exact_threshold);
    w.u64(cfg_.seed);
    w.u64(static_cast<uint64_t>(next_auto_id_));
    w.u64(tenants_.size());
    for (const auto& t : tenants_) w.str(t);
    w.u64(meta_.size());
    for (const ItemMeta& m : meta_) {
      unsigned char flags = static_cast<unsigned char>((m.alive ? 1 : 0) | (m.key.is_int ? 2 : 0));
      w.bytes(&flags, 1);
      w.u32(m.tenant);
      w.str(m.key.value);
      w.str(m.text);
      w.str(m.source);
    }
    w.u64(graph_section_bytes(*hnsw_));
    write_graph(w, *hnsw_);
    uint64_t digest = w.sum.digest();
    if (std::fwrite(&digest, 1, 8, f) != 8) throw IOError("write failed (disk full?)");
    if (std::fflush(f) != 0 || portable::sync_file(::fileno(f)) != 0) throw IOError("could not flush " + display_path(tmp));
  } catch (...) {
    std::fclose(f);
    throw;
  }
  if (std::fclose(f) != 0) throw IOError("could not close " + display_path(tmp));
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw IOError("could not rename " + display_path(tmp) + " to " + where + ": " + std::strerror(errno));
  }
  cleanup.path = nullptr;
  // Make the rename itself durable: fsync the directory entry.
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  const int dfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    const int rc = ::fsync(dfd);
    const int e = errno;
    ::close(dfd);
    // EINVAL: the file system does not support fsync on directories (nothing to do).
    if (rc != 0 && e != EINVAL) throw IOError("could not fsync the directory of " + where + ": " + std::strerror(e));
  }
}

std::unique_ptr<EvidenceIndex> EvidenceIndex::load(const std::string& path) {
  check_path(path);
  const std::string where = display_path(path);
  namespace fs = std::filesystem;
  sweep_stale_temps(path);
  std::error_code ec;
  uint64_t size = fs::file_size(path, ec);
  if (ec) throw IOError("could not open " + where + ": " + ec.message());
  if (size < 8 + 4 + 8) throw FormatError(where + " is not a director_fast evidence index (too short)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("could not open " + where);
  uint32_t version = 0;
  {
    char magic[8];
    in.read(magic, 8);
    if (!in || std::memcmp(magic, kMagic, 8) != 0) {
      throw FormatError(where + " is not a director_fast evidence index (bad magic)");
    }
    in.read(reinterpret_cast<char*>(&version), 4);
    if (version == 0 || version > kFormatVersion) {
      throw FormatError(where + ": unsupported format version " + std::to_string(version) +
                        " (this build reads 1.." + std::to_string(kFormatVersion) + ")");
    }
  }
  // Pass 1: checksum (detects accidents; an edited and re-summed file is caught by the checks of
  // pass 2, which trust nothing in the file).
  in.seekg(0);
  Checksum64 sum;
  {
    std::vector<char> chunk(1 << 20);
    uint64_t left = size - 8;
    while (left > 0) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
      in.read(chunk.data(), static_cast<std::streamsize>(want));
      if (!in) throw IOError("could not read " + where);
      sum.update(chunk.data(), want);
      left -= want;
    }
    uint64_t stored = 0;
    in.read(reinterpret_cast<char*>(&stored), 8);
    if (!in || stored != sum.digest()) {
      throw FormatError(where + ": checksum mismatch (the file is corrupt or truncated)");
    }
  }
  // Pass 2: parse and check.
  in.clear();
  in.seekg(12);
  Reader r{in, size - 8 - 12};
  IndexConfig cfg;
  cfg.dim = r.u64();
  uint32_t metric = r.u32();
  if (metric > 2) throw FormatError(where + ": unknown metric " + std::to_string(metric));
  cfg.metric = static_cast<Metric>(metric);
  if (version >= 2) {
    const uint32_t storage = r.u32();
    if (storage > 1) throw FormatError(where + ": unknown storage type " + std::to_string(storage));
    cfg.storage = static_cast<Storage>(storage);
  }
  cfg.M = r.u64();
  cfg.ef_construction = r.u64();
  cfg.ef_search = r.u64();
  cfg.exact_threshold = r.u64();
  cfg.seed = r.u64();
  cfg.initial_capacity = 1;  // replaced by the stored graph below
  std::unique_ptr<EvidenceIndex> idx;
  try {
    idx = std::make_unique<EvidenceIndex>(cfg);
  } catch (const ConfigError& e) {
    throw FormatError(where + ": invalid configuration in the header: " + e.what());
  }
  const int64_t next_auto = static_cast<int64_t>(r.u64());
  if (next_auto < 0) throw FormatError(where + ": corrupt next automatic id " + std::to_string(next_auto));
  idx->next_auto_id_ = next_auto;
  uint64_t nt = r.u64();
  // Each tenant name takes at least its 8-byte length.
  if (nt == 0 || nt > r.remaining / 8 || nt > 0xFFFFFFFFULL) throw FormatError(where + ": corrupt tenant table");
  idx->tenants_.clear();
  idx->tenant_ids_.clear();
  idx->tenant_live_.assign(nt, 0);
  for (uint64_t i = 0; i < nt; ++i) {
    std::string t = r.str();
    if (!valid_utf8(t)) throw FormatError(where + ": tenant " + std::to_string(i) + " is not valid UTF-8");
    if (i == 0 && !t.empty()) throw FormatError(where + ": corrupt tenant table (tenant 0 must be the empty name)");
    if (!idx->tenant_ids_.emplace(t, static_cast<uint32_t>(i)).second) {
      throw FormatError(where + ": corrupt tenant table (tenant " + std::to_string(i) + " repeats a name)");
    }
    idx->tenants_.push_back(std::move(t));
  }
  uint64_t nm = r.u64();
  // Each record takes at least 1 + 4 + 3 * 8 bytes.
  if (nm > r.remaining / 29) throw FormatError(where + ": corrupt metadata table");
  idx->meta_.resize(nm);
  for (uint64_t i = 0; i < nm; ++i) {
    ItemMeta& m = idx->meta_[i];
    unsigned char flags;
    r.bytes(&flags, 1);
    if (flags > 3) throw FormatError(where + ": corrupt flags of item " + std::to_string(i));
    m.alive = flags & 1;
    m.key.is_int = (flags & 2) != 0;
    m.tenant = r.u32();
    if (m.tenant >= nt) throw FormatError(where + ": corrupt tenant reference");
    m.key.value = r.str();
    m.text = r.str();
    m.source = r.str();
    if (m.key.is_int ? !canonical_int(m.key.value) : !valid_utf8(m.key.value)) {
      throw FormatError(where + ": corrupt id of item " + std::to_string(i));
    }
    if (!valid_utf8(m.text) || !valid_utf8(m.source)) {
      throw FormatError(where + ": text or source of item " + std::to_string(i) + " is not valid UTF-8");
    }
    if (m.alive) {
      if (!idx->by_key_.emplace(m.key.encoded(), i).second) {
        throw FormatError(where + ": two live items share the id of item " + std::to_string(i));
      }
      idx->tenant_live_[m.tenant]++;
      idx->live_++;
    }
  }
  uint64_t blob_len = r.u64();
  if (blob_len != r.remaining || blob_len < kGraphHeaderBytes) throw FormatError(where + ": corrupt index section length");
  // The graph section is read straight into the graph's memory (no temporary file), after its
  // header has been checked against the configuration and the section's size.
  const GraphHeader g = read_graph_header(r);
  const size_t reserve = check_graph_header(g, cfg.M, idx->space_->get_data_size(), r.remaining, where);
  try {
    idx->hnsw_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(idx->space_.get(), reserve, cfg.M, cfg.ef_construction,
                                                                  cfg.seed, /*allow_replace_deleted=*/true);
  } catch (const std::runtime_error&) {  // hnswlib's "Not enough memory"
    throw std::bad_alloc();
  }
  auto& h = *idx->hnsw_;
  read_graph_body(r, g, h, where);
  if (r.remaining != 0) throw FormatError(where + ": corrupt index section length");
  // Labels: each element's label is a metadata record, no two elements share one, and an element
  // is deleted exactly when its record is.
  const size_t count = h.cur_element_count;
  for (size_t i = 0; i < count; ++i) {
    const auto internal = static_cast<hnswlib::tableint>(i);
    const hnswlib::labeltype label = h.getExternalLabel(internal);
    if (label >= nm) {
      throw FormatError(where + ": corrupt HNSW section: element " + std::to_string(i) + " has label " +
                        std::to_string(label) + " of " + std::to_string(nm) + " items");
    }
    if (!h.label_lookup_.emplace(label, internal).second) {
      throw FormatError(where + ": corrupt HNSW section: label " + std::to_string(label) + " appears twice");
    }
    const bool deleted = h.isMarkedDeleted(internal);
    if (deleted == idx->meta_[label].alive) {
      throw FormatError(where + ": item " + std::to_string(label) + " is " + (deleted ? "deleted" : "live") +
                        " in the graph but " + (deleted ? "live" : "deleted") + " in the metadata");
    }
    if (deleted) {
      h.num_deleted_ += 1;
      h.deleted_elements.insert(internal);
    }
  }
  if (count - h.num_deleted_ != idx->live_) {
    throw FormatError(where + ": metadata and HNSW section disagree on the number of live items");
  }
  // Stored vectors: finite, and for ip/l2 within the norm bound add() enforces (distances stay
  // finite in float32).
  for (size_t i = 0; i < count; ++i) {
    const char* v = h.getDataByInternalId(static_cast<hnswlib::tableint>(i));
    double norm = 0.0;
    bool finite = true;
    for (size_t d = 0; d < cfg.dim; ++d) {
      float x;
      if (cfg.storage == Storage::Float16) {
        uint16_t half;
        std::memcpy(&half, v + 2 * d, 2);
        x = simd::half_to_float(half);
      } else {
        std::memcpy(&x, v + 4 * d, 4);
      }
      finite = finite && std::isfinite(x);
      norm += static_cast<double>(x) * x;
    }
    if (!finite || (cfg.metric != Metric::Cosine && norm > static_cast<double>(std::numeric_limits<float>::max()) / 4)) {
      throw FormatError(where + ": corrupt HNSW section: vector of element " + std::to_string(i) +
                        (finite ? " has a squared norm above 8.5e37" : " holds a non-finite value"));
    }
  }
  h.setEf(cfg.ef_search);
  advise_hnsw(h);
  return idx;
}

}  // namespace director_fast

// Transparent huge pages for the large random-access tables of the C++ core.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace director_fast {

constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Asks the kernel to back the 2 MiB-aligned interior of [p, p + bytes) with transparent huge pages
// (madvise MADV_HUGEPAGE; a no-op where THP is off or the range holds no whole huge page). Random
// probes into tables of hundreds of MB then stop missing the TLB on nearly every access. A pure
// performance hint: contents and results are unaffected.
inline void advise_huge_pages(const void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  const auto a = (reinterpret_cast<std::uintptr_t>(p) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const auto e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHugePageBytes - 1);
  if (p != nullptr && e > a) (void)::madvise(reinterpret_cast<void*>(a), e - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace director_fast

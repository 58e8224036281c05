// Run-time dispatched distance kernels (see simd_distance.hpp).
#include "director_fast/simd_distance.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#define DF_X86 1
#include <immintrin.h>
#endif

namespace director_fast::simd {

#if defined(DF_X86) && defined(__GNUC__)

namespace {

// Two accumulators of 16 lanes (32 floats per iteration) hide the FMA latency; the tail of a
// dimension that is not a multiple of 16 is handled with a masked load (no read past the end).
__attribute__((target("avx512f"))) float dot_avx512(const float* x, const float* y, std::size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(y + i + 16), s1);
  }
  for (; i + 16 <= n; i += 16) s0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), s0);
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i), s1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

__attribute__((target("avx512f"))) float l2_avx512(const float* x, const float* y, std::size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i));
    const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(y + i + 16));
    s0 = _mm512_fmadd_ps(d0, d0, s0);
    s1 = _mm512_fmadd_ps(d1, d1, s1);
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i));
    s0 = _mm512_fmadd_ps(d, d, s0);
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i));
    s1 = _mm512_fmadd_ps(d, d, s1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

__attribute__((target("avx2,fma"))) float hsum256(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 h = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 0x55)));
}

__attribute__((target("avx2,fma"))) float dot_avx2(const float* x, const float* y, std::size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
  float r = hsum256(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) r += x[i] * y[i];
  return r;
}

__attribute__((target("avx2,fma"))) float l2_avx2(const float* x, const float* y, std::size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i));
    const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i));
    s0 = _mm256_fmadd_ps(d, d, s0);
  }
  float r = hsum256(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) {
    const float d = x[i] - y[i];
    r += d * d;
  }
  return r;
}

float ip_dist_avx512(const void* a, const void* b, const void* p) {
  return 1.0f - dot_avx512(static_cast<const float*>(a), static_cast<const float*>(b),
                           *static_cast<const std::size_t*>(p));
}
float l2_dist_avx512(const void* a, const void* b, const void* p) {
  return l2_avx512(static_cast<const float*>(a), static_cast<const float*>(b),
                   *static_cast<const std::size_t*>(p));
}
float ip_dist_avx2(const void* a, const void* b, const void* p) {
  return 1.0f - dot_avx2(static_cast<const float*>(a), static_cast<const float*>(b),
                         *static_cast<const std::size_t*>(p));
}
float l2_dist_avx2(const void* a, const void* b, const void* p) {
  return l2_avx2(static_cast<const float*>(a), static_cast<const float*>(b),
                 *static_cast<const std::size_t*>(p));
}

Isa detect() {
  __builtin_cpu_init();
  Isa best = Isa::Baseline;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = Isa::Avx2;
  if (__builtin_cpu_supports("avx512f")) best = Isa::Avx512;
  if (const char* env = std::getenv("DIRECTOR_FAST_SIMD")) {
    Isa cap = best;
    if (std::strcmp(env, "baseline") == 0) cap = Isa::Baseline;
    if (std::strcmp(env, "avx2") == 0) cap = Isa::Avx2;
    if (static_cast<int>(cap) < static_cast<int>(best)) best = cap;
  }
  return best;
}

}  // namespace

Isa detected_isa() {
  static const Isa isa = detect();
  return isa;
}

DistFn inner_product_distance(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return &ip_dist_avx512;
    case Isa::Avx2: return &ip_dist_avx2;
    default: return nullptr;
  }
}

DistFn l2_squared_distance(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return &l2_dist_avx512;
    case Isa::Avx2: return &l2_dist_avx2;
    default: return nullptr;
  }
}

#else  // not x86 / not GCC-compatible: hnswlib's kernels only

Isa detected_isa() { return Isa::Baseline; }
DistFn inner_product_distance(Isa) { return nullptr; }
DistFn l2_squared_distance(Isa) { return nullptr; }

#endif

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "baseline";
  }
}

}  // namespace director_fast::simd

// Run-time dispatched distance kernels (see simd_distance.hpp).
#include "director_fast/simd_distance.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#define DF_X86 1
#include <immintrin.h>
#endif

namespace director_fast::simd {

std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u : 0u));
  if (abs >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds past 65504
  if (abs < 0x38800000u) {  // subnormal half (or zero)
    if (abs < 0x33000000u) return static_cast<std::uint16_t>(sign);  // below half of the smallest subnormal
    // value / 2^-24, rounded: the 24-bit significand shifted right by 126 - exponent (14..24)
    const std::uint32_t mant = (abs & 0x007FFFFFu) | 0x00800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);
    std::uint32_t r = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return static_cast<std::uint16_t>(sign | r);
  }
  std::uint32_t r = ((abs - 0x38000000u) >> 13);  // rebias exponent 127 -> 15
  const std::uint32_t rem = abs & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return static_cast<std::uint16_t>(sign | r);
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  std::uint32_t mant = h & 0x3FFu;
  std::uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<std::uint32_t>(112 - e) << 23) | ((mant & 0x3FFu) << 13);
    }
  } else if (exp == 0x1Fu) {
    x = sign | 0x7F800000u | (mant << 13);
  } else {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

namespace {

float ip_dist_f16_scalar(const void* a, const void* b, const void* p) {
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  const std::size_t n = *static_cast<const std::size_t*>(p);
  float r = 0.0f;
  for (std::size_t i = 0; i < n; ++i) r += half_to_float(x[i]) * half_to_float(y[i]);
  return 1.0f - r;
}

float l2_dist_f16_scalar(const void* a, const void* b, const void* p) {
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  const std::size_t n = *static_cast<const std::size_t*>(p);
  float r = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    const float d = half_to_float(x[i]) - half_to_float(y[i]);
    r += d * d;
  }
  return r;
}

}  // namespace

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

// binary16 kernels: 16 (AVX-512) or 8 (AVX2/F16C) halves widened per load.
__attribute__((target("avx512f"))) inline __m512 load_h16(const std::uint16_t* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
__attribute__((target("avx512f"))) inline __m512 load_h16_tail(const std::uint16_t* p, std::size_t r) {
  alignas(32) std::uint16_t tmp[16] = {0};
  std::memcpy(tmp, p, r * 2);
  return _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(tmp)));
}

__attribute__((target("avx512f"))) float ip_dist_f16_avx512(const void* a, const void* b, const void* p) {
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  const std::size_t n = *static_cast<const std::size_t*>(p);
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_ps(load_h16(x + i), load_h16(y + i), s0);
    s1 = _mm512_fmadd_ps(load_h16(x + i + 16), load_h16(y + i + 16), s1);
  }
  for (; i + 16 <= n; i += 16) s0 = _mm512_fmadd_ps(load_h16(x + i), load_h16(y + i), s0);
  if (i < n) s1 = _mm512_fmadd_ps(load_h16_tail(x + i, n - i), load_h16_tail(y + i, n - i), s1);
  return 1.0f - _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

__attribute__((target("avx512f"))) float l2_dist_f16_avx512(const void* a, const void* b, const void* p) {
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  const std::size_t n = *static_cast<const std::size_t*>(p);
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 d0 = _mm512_sub_ps(load_h16(x + i), load_h16(y + i));
    const __m512 d1 = _mm512_sub_ps(load_h16(x + i + 16), load_h16(y + i + 16));
    s0 = _mm512_fmadd_ps(d0, d0, s0);
    s1 = _mm512_fmadd_ps(d1, d1, s1);
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 d = _mm512_sub_ps(load_h16(x + i), load_h16(y + i));
    s0 = _mm512_fmadd_ps(d, d, s0);
  }
  if (i < n) {
    const __m512 d = _mm512_sub_ps(load_h16_tail(x + i, n - i), load_h16_tail(y + i, n - i));
    s1 = _mm512_fmadd_ps(d, d, s1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

__attribute__((target("avx2,fma,f16c"))) inline __m256 load_h8(const std::uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

__attribute__((target("avx2,fma,f16c"))) float ip_dist_f16_avx2(const void* a, const void* b, const void* p) {
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  const std::size_t n = *static_cast<const std::size_t*>(p);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(load_h8(x + i), load_h8(y + i), s0);
    s1 = _mm256_fmadd_ps(load_h8(x + i + 8), load_h8(y + i + 8), s1);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(load_h8(x + i), load_h8(y + i), s0);
  float r = hsum256(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) r += half_to_float(x[i]) * half_to_float(y[i]);
  return 1.0f - r;
}

__attribute__((target("avx2,fma,f16c"))) float l2_dist_f16_avx2(const void* a, const void* b, const void* p) {
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  const std::size_t n = *static_cast<const std::size_t*>(p);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 d0 = _mm256_sub_ps(load_h8(x + i), load_h8(y + i));
    const __m256 d1 = _mm256_sub_ps(load_h8(x + i + 8), load_h8(y + i + 8));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(load_h8(x + i), load_h8(y + i));
    s0 = _mm256_fmadd_ps(d, d, s0);
  }
  float r = hsum256(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) {
    const float d = half_to_float(x[i]) - half_to_float(y[i]);
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
  // F16C is part of every AVX2 CPU, but GCC's __builtin_cpu_supports cannot query it on older
  // compilers; AVX2 + FMA without F16C does not exist in practice.
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

DistFn inner_product_distance_f16(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return &ip_dist_f16_avx512;
    case Isa::Avx2: return &ip_dist_f16_avx2;
    default: return &ip_dist_f16_scalar;
  }
}

DistFn l2_squared_distance_f16(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return &l2_dist_f16_avx512;
    case Isa::Avx2: return &l2_dist_f16_avx2;
    default: return &l2_dist_f16_scalar;
  }
}

#else  // not x86 / not GCC-compatible: hnswlib's kernels only

Isa detected_isa() { return Isa::Baseline; }
DistFn inner_product_distance(Isa) { return nullptr; }
DistFn l2_squared_distance(Isa) { return nullptr; }
DistFn inner_product_distance_f16(Isa) { return &ip_dist_f16_scalar; }
DistFn l2_squared_distance_f16(Isa) { return &l2_dist_f16_scalar; }

#endif

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "baseline";
  }
}

}  // namespace director_fast::simd

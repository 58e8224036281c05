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

// Portable binary16 kernel: 1 - <a, b>, or the squared Euclidean distance when L2.
template <bool L2>
float dist_f16_scalar(const void* a, const void* b, const void* p) {
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  const std::size_t n = *static_cast<const std::size_t*>(p);
  float r = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (L2) {
      const float d = half_to_float(x[i]) - half_to_float(y[i]);
      r += d * d;
    } else {
      r += half_to_float(x[i]) * half_to_float(y[i]);
    }
  }
  return L2 ? r : 1.0f - r;
}

}  // namespace

#if defined(DF_X86) && defined(__GNUC__)

namespace {

// One kernel per instruction set, for float32 or binary16 (`Half`) elements and for 1 - <a, b> or
// the squared Euclidean distance (`L2`); the signature is hnswlib's DISTFUNC. Two accumulators hide
// the FMA latency.

// AVX-512F: 16 lanes, 32 elements per iteration; the tail of a dimension that is not a multiple of
// 16 is one masked (float32) or zero-padded (binary16) load, so nothing is read past the end.
template <bool Half>
__attribute__((target("avx512f"))) inline __m512 load16(const void* base, std::size_t i) {
  if constexpr (Half) {
    const auto* p = static_cast<const std::uint16_t*>(base) + i;
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  } else {
    return _mm512_loadu_ps(static_cast<const float*>(base) + i);
  }
}

template <bool Half>
__attribute__((target("avx512f"))) inline __m512 load16_tail(const void* base, std::size_t i, std::size_t r) {
  if constexpr (Half) {
    alignas(32) std::uint16_t tmp[16] = {0};
    std::memcpy(tmp, static_cast<const std::uint16_t*>(base) + i, r * 2);
    return _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(tmp)));
  } else {
    const __mmask16 m = static_cast<__mmask16>((1u << r) - 1u);
    return _mm512_maskz_loadu_ps(m, static_cast<const float*>(base) + i);
  }
}

template <bool L2>
__attribute__((target("avx512f"))) inline __m512 accumulate16(__m512 s, __m512 x, __m512 y) {
  if constexpr (L2) {
    const __m512 d = _mm512_sub_ps(x, y);
    return _mm512_fmadd_ps(d, d, s);
  } else {
    return _mm512_fmadd_ps(x, y, s);
  }
}

template <bool Half, bool L2>
__attribute__((target("avx512f"))) float dist_avx512(const void* a, const void* b, const void* p) {
  const std::size_t n = *static_cast<const std::size_t*>(p);
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = accumulate16<L2>(s0, load16<Half>(a, i), load16<Half>(b, i));
    s1 = accumulate16<L2>(s1, load16<Half>(a, i + 16), load16<Half>(b, i + 16));
  }
  for (; i + 16 <= n; i += 16) s0 = accumulate16<L2>(s0, load16<Half>(a, i), load16<Half>(b, i));
  if (i < n) s1 = accumulate16<L2>(s1, load16_tail<Half>(a, i, n - i), load16_tail<Half>(b, i, n - i));
  const float r = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
  return L2 ? r : 1.0f - r;
}

// AVX2 + FMA (+ F16C for binary16): 8 lanes, 16 elements per iteration, scalar tail.
__attribute__((target("avx2,fma"))) float hsum256(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 h = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 0x55)));
}

template <bool Half>
__attribute__((target("avx2,fma,f16c"))) inline __m256 load8(const void* base, std::size_t i) {
  if constexpr (Half) {
    const auto* p = static_cast<const std::uint16_t*>(base) + i;
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  } else {
    return _mm256_loadu_ps(static_cast<const float*>(base) + i);
  }
}

template <bool Half>
inline float element(const void* base, std::size_t i) {
  if constexpr (Half) {
    return half_to_float(static_cast<const std::uint16_t*>(base)[i]);
  } else {
    return static_cast<const float*>(base)[i];
  }
}

template <bool L2>
__attribute__((target("avx2,fma,f16c"))) inline __m256 accumulate8(__m256 s, __m256 x, __m256 y) {
  if constexpr (L2) {
    const __m256 d = _mm256_sub_ps(x, y);
    return _mm256_fmadd_ps(d, d, s);
  } else {
    return _mm256_fmadd_ps(x, y, s);
  }
}

template <bool Half, bool L2>
__attribute__((target("avx2,fma,f16c"))) float dist_avx2(const void* a, const void* b, const void* p) {
  const std::size_t n = *static_cast<const std::size_t*>(p);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = accumulate8<L2>(s0, load8<Half>(a, i), load8<Half>(b, i));
    s1 = accumulate8<L2>(s1, load8<Half>(a, i + 8), load8<Half>(b, i + 8));
  }
  for (; i + 8 <= n; i += 8) s0 = accumulate8<L2>(s0, load8<Half>(a, i), load8<Half>(b, i));
  float r = hsum256(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) {
    const float x = element<Half>(a, i), y = element<Half>(b, i);
    if constexpr (L2) {
      const float d = x - y;
      r += d * d;
    } else {
      r += x * y;
    }
  }
  return L2 ? r : 1.0f - r;
}

// CPUID leaf / subleaf -> eax, ebx, ecx, edx (zeros when the leaf is beyond the maximum).
void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
  r[0] = r[1] = r[2] = r[3] = 0;
  unsigned max_leaf = 0, b, c, d;
  __asm__ volatile("cpuid" : "=a"(max_leaf), "=b"(b), "=c"(c), "=d"(d) : "a"(0u), "c"(0u));
  if (leaf > max_leaf) return;
  __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

// Reads CPUID and XCR0 directly instead of __builtin_cpu_supports: that builtin needs the
// compiler runtime's __cpu_model, which some toolchains (zig's compiler-rt, used for the portable
// manylinux wheel) provide only as non-PIC code that a shared library cannot link. The OS must
// also save the vector registers (XCR0: SSE+AVX state for AVX2, plus opmask/ZMM for AVX-512).
Isa detect() {
  Isa best = Isa::Baseline;
  unsigned l1[4], l7[4];
  cpuid(1, 0, l1);
  cpuid(7, 0, l7);
  const bool osxsave = (l1[2] >> 27) & 1u;
  unsigned long long xcr0 = 0;
  if (osxsave) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
    xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
  }
  const bool avx_state = (xcr0 & 0x6u) == 0x6u;
  const bool avx512_state = (xcr0 & 0xE6u) == 0xE6u;
  const bool fma = (l1[2] >> 12) & 1u, avx = (l1[2] >> 28) & 1u, f16c = (l1[2] >> 29) & 1u;
  const bool avx2 = (l7[1] >> 5) & 1u, avx512f = (l7[1] >> 16) & 1u;
  if (avx_state && avx && avx2 && fma && f16c) best = Isa::Avx2;
  if (best == Isa::Avx2 && avx512_state && avx512f) best = Isa::Avx512;
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
    case Isa::Avx512: return &dist_avx512<false, false>;
    case Isa::Avx2: return &dist_avx2<false, false>;
    default: return nullptr;
  }
}

DistFn l2_squared_distance(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return &dist_avx512<false, true>;
    case Isa::Avx2: return &dist_avx2<false, true>;
    default: return nullptr;
  }
}

DistFn inner_product_distance_f16(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return &dist_avx512<true, false>;
    case Isa::Avx2: return &dist_avx2<true, false>;
    default: return &dist_f16_scalar<false>;
  }
}

DistFn l2_squared_distance_f16(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return &dist_avx512<true, true>;
    case Isa::Avx2: return &dist_avx2<true, true>;
    default: return &dist_f16_scalar<true>;
  }
}

#else  // not x86 / not GCC-compatible: hnswlib's kernels only

Isa detected_isa() { return Isa::Baseline; }
DistFn inner_product_distance(Isa) { return nullptr; }
DistFn l2_squared_distance(Isa) { return nullptr; }
DistFn inner_product_distance_f16(Isa) { return &dist_f16_scalar<false>; }
DistFn l2_squared_distance_f16(Isa) { return &dist_f16_scalar<true>; }

#endif

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "baseline";
  }
}

}  // namespace director_fast::simd

// Distance kernels for the evidence index, chosen at run time from the CPU's instruction sets.
//
// Portable builds are compiled without -march=native, so hnswlib's own kernels use SSE only. The
// kernels here are compiled per target with function attributes (AVX-512F, AVX2+FMA) and selected
// once per process with __builtin_cpu_supports; on other CPUs (or non-x86 builds) the caller keeps
// hnswlib's kernels. Signatures follow hnswlib's DISTFUNC: (a, b, const size_t* dim) -> float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace director_fast::simd {

using DistFn = float (*)(const void*, const void*, const void*);

enum class Isa { Baseline = 0, Avx2 = 1, Avx512 = 2 };

// The best instruction set this CPU supports among the compiled kernels, capped by the
// DIRECTOR_FAST_SIMD environment variable ("baseline", "avx2", "avx512"; read once per process).
Isa detected_isa();
const char* isa_name(Isa isa);

// 1 - <a, b> (hnswlib's inner-product distance) and the squared Euclidean distance, for `isa`;
// nullptr for Isa::Baseline (use hnswlib's kernels).
DistFn inner_product_distance(Isa isa);
DistFn l2_squared_distance(Isa isa);

// The same distances over IEEE 754 binary16 vectors (both operands half precision, accumulated in
// float32). Never nullptr: Isa::Baseline gets a portable scalar kernel. AVX-512F converts with
// vcvtph2ps; the AVX2 level also needs F16C (every AVX2 CPU has it; checked anyway).
DistFn inner_product_distance_f16(Isa isa);
DistFn l2_squared_distance_f16(Isa isa);

// binary16 <-> float32 conversion (round to nearest even; overflow to +-inf, NaN kept).
std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);

}  // namespace director_fast::simd

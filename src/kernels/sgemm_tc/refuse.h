// The rule that decides from the split's statistics whether the 3xTF32 split is exact enough
// for a product of depth k (kernels/sgemm_tc.h, tf32x3_refuse), host and device: the host reads it
// to choose between the mode and the FP32 path, and the product kernel evaluates the same rule on
// the statistics in device memory when it is launched before the host has read them, so that a
// refused call leaves C untouched for the FP32 path.
#pragma once

#include <cstdint>

#include "kernels/sgemm_tc.h"

#if defined(__CUDACC__)
#define TF32X3_REFUSE_HD __host__ __device__ __forceinline__
#else
#define TF32X3_REFUSE_HD inline
#endif

namespace myblas {

// Why the split cannot give FP32's answer (nullptr: it can); see tf32x3_refuse.
TF32X3_REFUSE_HD const char* tf32x3_refuse_rule(const Tf32x3Stats& st, int k) {
  // Binary exponents: |x| < 2^(hi + 1) for the largest, |x| >= 2^lo for the smallest nonzero
  // (subnormals count as 2^-127).
  int hi[2], lo[2];
  for (int w = 0; w < 2; ++w) {
    if (st.max_abs_bits[w] >= 0x7f800000u) return w == 0 ? "Inf or NaN in A" : "Inf or NaN in B";
    hi[w] = int(st.max_abs_bits[w] >> 23) - 127;
    if (hi[w] >= 126) return "a value of magnitude >= 2^126 (its TF32 rounding could overflow)";
    const unsigned min_bits = ~st.not_min_abs_bits[w];
    lo[w] = st.not_min_abs_bits[w] == 0 ? 0 : int(min_bits >> 23) - 127;
    if (lo[w] < -103) return "a nonzero value below 2^-103 (its TF32 remainder would be subnormal)";
  }
  if (st.max_abs_bits[0] == 0 || st.max_abs_bits[1] == 0) return nullptr;  // an all-zero operand
  int log2_3k = 0;
  while ((int64_t(1) << log2_3k) < 3 * int64_t(k)) ++log2_3k;
  // |sum of 3k products| < 2^(hi_a + hi_b + 2 + log2(3k)); FP32 overflows at 2^128.
  if (hi[0] + hi[1] + 2 + log2_3k >= 127) return "max|A| max|B| k near FP32's overflow threshold";
  // The smallest correction product small(a) big(b) is at least 2^(lo_a + lo_b - 24).
  if (lo[0] + lo[1] < -103) return "min|A| min|B| below 2^-103 (a correction product would be subnormal)";
  return nullptr;
}

}  // namespace myblas

// One element of the 3xTF32 split (kernels/sgemm_tc.h), shared by the split pass (split.cu) and
// the fused product's in-shared-memory split (wgmma_promoted.cu), so that both write the same
// parts and gather the same statistics.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace myblas {

// Round to the nearest TF32 value (10 explicit mantissa bits), ties away from zero; the result
// is an FP32 pattern with its low 13 bits zero.
__device__ __forceinline__ float tf32_rn(float x) {
  uint32_t u;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(x));
  return __uint_as_float(u & 0xffffe000u);
}

// x = big + small + d: big = rn_tf32(x), small = rn_tf32(x - big) (x - big is exact in FP32). The
// statistics (Tf32x3Stats) of the values seen: the largest |x| bits, the complement of the
// smallest nonzero |x| bits.
__device__ __forceinline__ void split_element(float x, float* big, float* small, unsigned* max_bits,
                                              unsigned* not_min_bits) {
  const unsigned ax = __float_as_uint(x) & 0x7fffffffu;
  *max_bits = max(*max_bits, ax);
  if (ax) *not_min_bits = max(*not_min_bits, ~ax);
  *big = tf32_rn(x);
  *small = tf32_rn(x - *big);
}

}  // namespace myblas

// Warpgroup MMA (wgmma.mma_async, sm_90a) on 16-bit inputs with FP32 accumulators, as the
// TMA-fed HGEMM kernels use it: m64nNk16 for N = 64, 128, 256 (the operand lists are generated:
// scripts/gen_wgmma_inc.py); descriptors, fences and waits come from kernels/wgmma.cuh.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/wgmma.cuh"  // smem_desc, wgmma_fence/commit/wait, fence_acc

namespace myblas {
namespace hgemm_detail {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MYBLAS_WGMMA_NAME wgmma_m64n256k16_f16
#define MYBLAS_WGMMA_AB "f16"
#include "kernels/hgemm/wgmma_m64n256k16.inc"
#undef MYBLAS_WGMMA_NAME
#define MYBLAS_WGMMA_NAME wgmma_m64n128k16_f16
#include "kernels/hgemm/wgmma_m64n128k16.inc"
#undef MYBLAS_WGMMA_NAME
#define MYBLAS_WGMMA_NAME wgmma_m64n64k16_f16
#include "kernels/hgemm/wgmma_m64n64k16.inc"
#undef MYBLAS_WGMMA_NAME
#undef MYBLAS_WGMMA_AB
#define MYBLAS_WGMMA_AB "bf16"
#define MYBLAS_WGMMA_NAME wgmma_m64n256k16_bf16
#include "kernels/hgemm/wgmma_m64n256k16.inc"
#undef MYBLAS_WGMMA_NAME
#define MYBLAS_WGMMA_NAME wgmma_m64n128k16_bf16
#include "kernels/hgemm/wgmma_m64n128k16.inc"
#undef MYBLAS_WGMMA_NAME
#define MYBLAS_WGMMA_NAME wgmma_m64n64k16_bf16
#include "kernels/hgemm/wgmma_m64n64k16.inc"
#undef MYBLAS_WGMMA_NAME
#undef MYBLAS_WGMMA_AB

// D (64 x N, FP32, N/2 a thread) += A (64 x 16, descriptor) * B (16 x N, descriptor); TIn
// __half or __nv_bfloat16; TransA / TransB 1 for an MN-major operand; scale_d == 0 overwrites D.
template <int N, class TIn, int TransA, int TransB>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  static_assert(N == 64 || N == 128 || N == 256, "wgmma N must be 64, 128 or 256 here");
  constexpr bool bf = std::is_same<TIn, __nv_bfloat16>::value;
  if constexpr (N == 256) {
    if constexpr (bf) wgmma_m64n256k16_bf16<TransA, TransB>(d, desc_a, desc_b, scale_d);
    else wgmma_m64n256k16_f16<TransA, TransB>(d, desc_a, desc_b, scale_d);
  } else if constexpr (N == 128) {
    if constexpr (bf) wgmma_m64n128k16_bf16<TransA, TransB>(d, desc_a, desc_b, scale_d);
    else wgmma_m64n128k16_f16<TransA, TransB>(d, desc_a, desc_b, scale_d);
  } else {
    if constexpr (bf) wgmma_m64n64k16_bf16<TransA, TransB>(d, desc_a, desc_b, scale_d);
    else wgmma_m64n64k16_f16<TransA, TransB>(d, desc_a, desc_b, scale_d);
  }
}
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace hgemm_detail
}  // namespace myblas

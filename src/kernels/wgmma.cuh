// Warpgroup MMA (wgmma.mma_async, sm_90a), the parts every wgmma kernel shares whatever its
// input type: the shared-memory matrix descriptor of a 128-byte-swizzled tile, the fence / commit
// / wait that bracket an asynchronous wgmma, and the register fence on its accumulators. The
// instructions themselves are per type and shape (kernels/hgemm/wgmma.cuh for 16-bit inputs,
// kernels/sgemm_tc/wgmma_*_tf32.inc for TF32).
#pragma once
#include <cstdint>

namespace myblas {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Shared-memory matrix descriptor, 128-byte swizzle. K-major: rows of 128 bytes along k, 8-row
// core groups `sbo` apart (lbo unused). MN-major: rows of 128 bytes (64 elements) along m/n, one
// per k; `lbo` between 64-wide blocks along m/n, `sbo` between groups of 8 k.
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t((lbo & 0x3FFFF) >> 4) << 16) |
         (uint64_t((sbo & 0x3FFFF) >> 4) << 32) | (uint64_t(1) << 62);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most N committed groups are still in flight.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from touching accumulators while an asynchronous wgmma owns them.
template <int R>
__device__ __forceinline__ void fence_acc(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace myblas

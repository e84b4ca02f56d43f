// The read ceiling for bench_sgemv: one launch that only reads n floats (an SGEMV's A) and writes
// one float per block, timed like the SGEMV calls beside it. Any SGEMV kernel must read A at least
// once in at least one launch, so this kernel's time is an estimate of the best an SGEMV of that
// size can do on the machine. It is an estimate, not a bound: another read pattern could be a
// little faster. The pattern is the fastest of those measured on the H100 in
// bench/results/h100-sgemv-2026-11-22-v5.md ("readsol"): blocks of 256 threads, each thread
// issuing its 8 16-byte loads before adding any, so that a block reads one contiguous 32 KB.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "read_ceiling.h"

namespace bench {
namespace {

constexpr int kThreads = 256, kLoads = 8;
constexpr size_t kBlockFloats = size_t(kThreads) * kLoads * 4;

__global__ __launch_bounds__(kThreads) void read_only(const float4* __restrict__ a, size_t n4,
                                                      const float* __restrict__ tail, int tail_n,
                                                      float* __restrict__ out) {
  const size_t base = size_t(blockIdx.x) * kThreads * kLoads + threadIdx.x;
  float4 v[kLoads];
#pragma unroll
  for (int j = 0; j < kLoads; ++j) {
    const size_t i = base + size_t(j) * kThreads;
    v[j] = i < n4 ? __ldcs(a + i) : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < kLoads; ++j) s += (v[j].x + v[j].y) + (v[j].z + v[j].w);
  if (blockIdx.x == 0 && int(threadIdx.x) < tail_n) s += tail[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  __shared__ float warp_sums[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int w = 0; w < kThreads / 32; ++w) t += warp_sums[w];
    out[blockIdx.x] = t;
  }
}

}  // namespace

size_t read_ceiling_blocks(size_t n) {
  const size_t per = kBlockFloats / 4, n4 = n / 4;
  return n4 == 0 ? 1 : (n4 + per - 1) / per;
}

cudaError_t read_ceiling(const float* a, size_t n, float* out, cudaStream_t s) {
  if (reinterpret_cast<uintptr_t>(a) % 16 != 0) return cudaErrorMisalignedAddress;
  const size_t n4 = n / 4;
  const int tail_n = int(n % 4);
  read_only<<<unsigned(read_ceiling_blocks(n)), kThreads, 0, s>>>(reinterpret_cast<const float4*>(a), n4,
                                                                   a + n4 * 4, tail_n, out);
  return cudaGetLastError();
}

}  // namespace bench

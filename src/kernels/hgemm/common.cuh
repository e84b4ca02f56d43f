// Shared by the HGEMM kernel files: the device-side view of a problem, the once-rounding
// alpha/beta store, alignment tests, cp.async wrappers (the L2 block swizzle: gemm_args.h), and each file's
// launch entry point.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.h"
#include "kernels/gemm_args.h"

namespace myblas {
namespace hgemm_detail {

// The device-side view of a problem (kernels/gemm_args.h): C(i, j) = c[i + j*ldc], 64-bit
// leading dimensions.
using Args = GemmArgs<__half>;
inline Args make_args(const GemmProblem& p) { return make_gemm_args<__half>(p); }
using myblas::aligned16;

// 16-byte (8-half) vector loads of an operand are possible when every column start is 16-byte
// aligned: an aligned base and a leading dimension that is a multiple of 8.
inline bool vec8_ok(const void* p, int64_t ld) { return aligned16(p) && ld % 8 == 0; }

// The epilogue of every kernel: alpha and beta in FP32, one rounding to binary16 (nearest even).
// beta == 0 stores without reading C, so NaN/Inf already in C never propagates.
__device__ __forceinline__ float epilogue(float acc, float alpha, float beta, const __half* cp) {
  return beta == 0.f ? alpha * acc : fmaf(alpha, acc, beta * __half2float(*cp));
}
__device__ __forceinline__ void store_c(__half* cp, float acc, float alpha, float beta) {
  *cp = __float2half_rn(epilogue(acc, alpha, beta, cp));
}
// The same for an FP32 C (sbgemm, shgemm): no rounding.
__device__ __forceinline__ void store_c(float* cp, float acc, float alpha, float beta) {
  *cp = beta == 0.f ? alpha * acc : fmaf(alpha, acc, beta * *cp);
}
// Two rows i, i+1 of one column: one 4-byte access when `pair` (C's base and ldc allow it and
// both rows are inside C), else element by element with bounds checks on each row.
__device__ __forceinline__ void store_c2(__half* cp, float v0, float v1, float alpha, float beta,
                                         bool pair, bool ok0, bool ok1) {
  if (pair) {
    __half2* p2 = reinterpret_cast<__half2*>(cp);
    float r0 = alpha * v0, r1 = alpha * v1;
    if (beta != 0.f) {
      const float2 old = __half22float2(*p2);
      r0 = fmaf(alpha, v0, beta * old.x);
      r1 = fmaf(alpha, v1, beta * old.y);
    }
    *p2 = __floats2half2_rn(r0, r1);
  } else {
    if (ok0) store_c(cp, v0, alpha, beta);
    if (ok1) store_c(cp + 1, v1, alpha, beta);
  }
}

// cp.async of 16 bytes: copies `bytes_valid` bytes (0 .. 16) and zero-fills the rest of the
// destination. With bytes_valid == 0 nothing is read from `src`.
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int bytes_valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes_valid)
               : "memory");
}
// cp.async of 4 bytes (two halves), zero-filled when !valid (then nothing is read from `src`).
__device__ __forceinline__ void cp_async4(void* dst, const void* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// One launcher per file; each returns cudaGetLastError() after its launch.
cudaError_t launch_wmma(const GemmProblem& p, cudaStream_t s);
// mma.sync kernel with a tm x tn block tile and bk k per stage (the configurations
// rung2_mma_sync.cu builds: 128x256 and 128x128, bk 32 with 4 stages or 64 with 3).
cudaError_t launch_mma_sync(const GemmProblem& p, int tm, int tn, int bk, cudaStream_t s);
// splitk_cluster.cu: split-k over a thread-block cluster with a tm x tn block tile (64x128 or
// 128x64); nullptr if it can run p (device and alignment rules), else why. ranks > 0 asks for that
// many blocks per cluster (at most 8; bench/probes/probe_splitk), 0 for the launch's own choice.
const char* splitk_can_implement(const GemmProblem& p);
cudaError_t launch_splitk(const GemmProblem& p, int tm, int tn, cudaStream_t s, int ranks = 0);
// skinny_stream.cu: the large operand streamed into mma fragments (m <= 64 with B 'N', n <= 64 with
// A 'T'); nullptr if it can run p, else why.
const char* stream_can_implement(const GemmProblem& p);
// groups: 8-column groups a warp (2, up to 16 rows, or 4; 0: the kernel's choice).
cudaError_t launch_stream(const GemmProblem& p, cudaStream_t s, int groups = 0);
// wgmma_tma.cu: nullptr if the Hopper kernel can run p (device, build and TMA rules), else why.
const char* wgmma_tma_can_implement(const GemmProblem& p);
cudaError_t launch_wgmma_tma(const GemmProblem& p, cudaStream_t s);
// wgmma_splitk.cu: one rows x N tile a cluster, k split over its ranks (ranks > 0 asks for that
// many, at most 8; 0 for the launch's own choice; rows 64 or 128, 0 for the launch's choice).
const char* wgmma_splitk_can_implement(const GemmProblem& p);
cudaError_t launch_wgmma_splitk(const GemmProblem& p, cudaStream_t s, int ranks = 0, int rows = 0);

}  // namespace hgemm_detail
}  // namespace myblas

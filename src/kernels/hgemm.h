// Hand-written HGEMM kernels on tensor cores: C := alpha*op(A)*op(B) + beta*C, column-major, BLAS
// semantics, binary16 A, B and C (uint16_t storage, __half in device code), FP32 accumulation,
// alpha and beta applied in FP32 in the epilogue and the result rounded once to binary16
// (round to nearest even), on device pointers.
//
// The wgmma and split-k kernels also run sbgemm and shgemm problems (bfloat16 or binary16 A and B,
// FP32 C, no rounding of the result); the other rungs take HGEMM only.
//
// A ladder of rungs, one file each under src/kernels/hgemm/. Every kernel that hgemm_choose may
// return handles all four transposes, any m, n, k >= 1 (edge tiles), any lda/ldb/ldc >= the
// minimum, misaligned pointers and leading dimensions (a scalar-load variant is picked at launch),
// beta == 0 without reading C, and 64-bit offsets. Results are deterministic (no atomics; the
// split-k kernel adds its shares in a fixed order): each element's k sum runs in one fixed order.
#pragma once
#include <cuda_runtime_api.h>

#include "core/problem.h"

namespace myblas {

enum class HgemmKernel {
  // The ladder, slowest first; every rung takes every transpose and alignment.
  wmma,              // nvcuda::wmma 16x16x16, 128x128x32 block, 64x32 warp tiles, shared-memory staging
  mma_sync,          // mma.sync m16n8k16 + ldmatrix, 128x256x32 block, 4-stage cp.async pipeline,
                     // swizzled shared memory, register double-buffered fragments, L2 block swizzle
  mma_sync_128x256x64,  // 128x256 block, 64 k per stage, 3 stages (production fallback, large)
  mma_sync_128x128x64,  // 128x128 block, 64 k per stage, 3 stages, 2 blocks per SM (fallback, small)
  wgmma_tma,         // Hopper (sm_90a): wgmma m64n256k16 fed by TMA into 128-byte-swizzled shared
                     // memory, 128x256x64 block, 4-stage mbarrier ring, producer/consumer warpgroups
                     // with setmaxnreg, persistent grid in L2 groups (src/kernels/hgemm/wgmma_tma.cu).
                     // Needs A and B 16-byte aligned with lda, ldb multiples of 8 (TMA's rules).
  splitk_64x128,     // split-k over a thread-block cluster (sm_90): rung 2's mma.sync block on 1/c of k,
  splitk_128x64,     // the c shares added in distributed shared memory in rank order, once-rounded
                     // epilogue; 64x128 tile (m small) or 128x64 (n small) (src/kernels/hgemm/splitk_cluster.cu).
                     // Also runs sbgemm/shgemm with A and B 16-byte aligned, lda, ldb multiples of 8.
  skinny_stream,     // m <= 64 with B 'N', or n <= 64 with A 'T' (k <= 12288; the large operand 16-byte
                     // aligned, its leading dimension a multiple of 8): the large operand streamed from
                     // memory straight into mma.sync fragments, k split over a cluster
                     // (src/kernels/hgemm/skinny_stream.cu). Also sbgemm/shgemm.
  wgmma_splitk,      // Hopper (sm_90a): one 64 x N tile a cluster (N = 64, 128, 256: the short side
                     // rounded up), wgmma fed by TMA with up to 12 stages, k split over the cluster's
                     // ranks and the shares added in distributed shared memory, once-rounded epilogue
                     // (src/kernels/hgemm/wgmma_splitk.cu). TMA's rules as wgmma_tma. Also sbgemm/shgemm.
};
constexpr int kHgemmKernelCount = 9;

const char* hgemm_kernel_name(HgemmKernel k);
bool hgemm_kernel_from_name(const char* name, HgemmKernel* out);
// Production kernels (those hgemm_choose may return).
bool hgemm_kernel_is_production(HgemmKernel k);

// nullptr if the kernel can run this problem, else the reason it cannot.
const char* hgemm_can_implement(HgemmKernel k, const GemmProblem& p);

// The production kernel measured best for the shape on the H100 among those that can run it
// (bench/results/h100-hgemm-kernels-*.md); for sbgemm and shgemm the wgmma kernel, which may
// refuse the problem (then cuBLAS runs it).
HgemmKernel hgemm_choose(const GemmProblem& p);

// Launches on `stream`. p is validated: routine hgemm (or sbgemm/shgemm for wgmma_tma), m, n, k >= 1, alpha != 0,
// lda/ldb/ldc >= minimum, device pointers (the caller handles quick returns, alpha == 0 and
// k == 0). Returns the launch error (cudaErrorInvalidValue if the kernel cannot run p).
cudaError_t hgemm_run(HgemmKernel k, const GemmProblem& p, cudaStream_t stream);

}  // namespace myblas

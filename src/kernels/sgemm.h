// Hand-written SGEMM kernels: C := alpha*op(A)*op(B) + beta*C, column-major, BLAS semantics,
// true FP32 (FFMA only: no TF32, no tensor cores), on device pointers.
//
// A ladder of teaching rungs (src/kernels/sgemm/rung*.cu, kept for the benchmark), a production
// kernel for large problems and shape-specialised kernels for skinny products. Every kernel that
// sgemm_choose may return handles all four transposes, any m, n, k >= 1 (edge tiles), any
// lda/ldb/ldc >= the minimum, misaligned pointers and leading dimensions (a scalar-load variant is
// picked at launch), beta == 0 without reading C, and 64-bit offsets. Results are deterministic:
// the split-k kernels add their partial sums in a fixed order in a second stage, no atomics.
#pragma once
#include <cuda_runtime_api.h>

#include "core/problem.h"

namespace myblas {

enum class SgemmKernel {
  // The ladder, slowest first. Rung 1 takes every transpose; rungs 2-7 take NN only.
  naive,          // one thread per element of C, threads of a warp along n (uncoalesced)
  coalesced,      // as naive, threads of a warp along m (C and A reads coalesced)
  smem_tiles,     // 32x32 tiles of A and B staged in shared memory
  blocktile_1d,   // 64x64x8 block tile, 8 outputs per thread down a column
  blocktile_2d,   // 128x128x8 block tile, 8x8 outputs per thread
  vectorized,     // rung 5 with float4 global loads and float4 shared reads (16-byte aligned only)
  warptile,       // 128x128x16, warp tiles of 64x32, register-staged double buffering
  // Production (src/kernels/sgemm/pipelined_128x128x16.cu; the pipelined_regdb_* below).
  pipelined_s4,   // 128x128x16, cp.async 4-stage pipeline, all transposes, block swizzle
  // Shape-specialised (src/kernels/sgemm/skinny_*.cu), memory-bound.
  skinny_r16,     // min(m, n) <= 16: stream the large operand once with float4 loads along its
                  // contiguous side, the <= 16-row operand in shared memory, ordered split-k
  // Production (src/kernels/sgemm/pipelined_regdb_8x16.cu): 64x64 warp tiles, 8x16 outputs per
  // lane, shared -> register fragments double-buffered, multi-stage cp.async, all transposes.
  regdb_256x128,  // 256x128x8 block tile, 6 stages, 8 warps, one block per SM (up to 255 registers)
  regdb_128x128,  // 128x128x8 block tile, 6 stages, 4 warps, two blocks per SM
  // Shape-specialised (src/kernels/sgemm/smallk_128x128x16.cu): small k (<= 128) with large m and
  // n and beta != 0, where C's traffic matters: pipelined_s4's tiles with C read in two batches
  // of 8 float4 a lane in the epilogue.
  smallk,             // one block per tile, batched C reads
  // Shape-specialised (src/kernels/sgemm/smallk_panel_128x128x32.cu): smallk's tiles and epilogue
  // with 16-byte copies for every transpose (k-contiguous operands kept k-contiguous in shared
  // memory, swizzled), 32 k per stage, two stages; smallk's scalar copies for misaligned operands.
  smallk_panel,
  smallk_panel_pre,  // as smallk_panel, k-contiguous operands transposed into scratch first (runs as NT)
  // Shape-specialised (src/kernels/sgemm/smallk_ws_128x256x64.cu), k <= 64 on sm_90a: persistent,
  // one producer warp group feeding two consumer groups (8x16 lane patches) by tensor-map copies,
  // C read through shared memory; k-contiguous operands transposed into scratch first. k <= 64;
  // problems it cannot take (no sm_90a code, operands TMA cannot read) run smallk_panel_pre.
  smallk_ws,
};
constexpr int kSgemmKernelCount = 15;

const char* sgemm_kernel_name(SgemmKernel k);
bool sgemm_kernel_from_name(const char* name, SgemmKernel* out);
// Production and specialised kernels (those sgemm_choose may return).
bool sgemm_kernel_is_production(SgemmKernel k);

// nullptr if the kernel can run this problem, else the reason it cannot.
const char* sgemm_can_implement(SgemmKernel k, const GemmProblem& p);

// The production/specialised kernel measured best for the shape on the H100
// (bench/results/h100-sgemm-*.md).
SgemmKernel sgemm_choose(const GemmProblem& p);

// Launches on `stream`. p is validated: m, n, k >= 1, alpha != 0, lda/ldb/ldc >= minimum, device
// pointers (the caller handles quick returns, alpha == 0 and k == 0). Split kernels take scratch
// from a per-device stream-ordered pool. Returns the launch (or allocation) error.
cudaError_t sgemm_run(SgemmKernel k, const GemmProblem& p, cudaStream_t stream);

// For tests and the benchmark: why sgemm_run(SgemmKernel::smallk_ws, p) would not run the
// warp-specialised kernel itself but smallk_panel_pre (nullptr when it runs its own kernel, short
// of a failed scratch allocation for a k-contiguous operand).
const char* sgemm_smallk_ws_fallback(const GemmProblem& p);

}  // namespace myblas

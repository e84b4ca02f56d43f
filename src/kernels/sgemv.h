// Hand-written SGEMV kernels: y := alpha*op(A)*x + beta*y, column-major, BLAS semantics,
// on device pointers. A ladder of teaching rungs (kept for the benchmark) and the production
// kernels that dispatch may pick. Every kernel handles any m, n >= 1, lda >= m, negative and
// non-unit increments, beta == 0 without reading y, and misaligned operands (a scalar-load
// variant is chosen at launch); results are deterministic: split kernels reduce their partial
// sums in a fixed split order, in a second launch (*_split), in the last block of each group
// to finish (*_lastblock, whose only atomic is the arrival counter that elects that block), or
// across the blocks of a thread-block cluster through distributed shared memory (*_cluster).
#pragma once
#include <cuda_runtime_api.h>

#include "core/problem.h"

namespace myblas {

enum class SgemvKernel {
  // The ladder (src/kernels/sgemv/rung*.cu), slowest first.
  thread_per_row,        // one thread per element of y, scalar loads
  warp_per_column,       // T: a warp per column, lanes read consecutive rows (N: as rung 1)
  x_constant,            // rung 2 with x in __constant__ memory (len(x) <= 16384)
  x_shared,              // rung 2 with x staged through shared-memory tiles
  // Production (src/kernels/sgemv/{n_rowblock,t_lanegroup,n_colsweep,n_lanes,n_sweep}_float4.cu).
  n_rowblock,            // N: 128-row blocks, 8 warps split the columns, float4, one launch
  n_rowblock_split,      // N: as n_rowblock, columns also split over blocks + ordered 2nd stage
  t_lanegroup,           // T: a group of 4..32 lanes per column, float4, shuffle reduce
  t_lanegroup_split,     // T: as t_lanegroup, rows also split over blocks + ordered 2nd stage
  n_rowblock_lastblock,  // N: as n_rowblock_split in one launch, last block reduces in order
  t_lanegroup_lastblock, // T: a warp per column, float4, row split in one launch (last block)
  n_rowblock_cluster,    // N: as n_rowblock, columns split over a cluster, reduced through DSMEM
  t_lanegroup_cluster,   // T: as t_lanegroup_lastblock, rows split over a cluster, DSMEM reduce
  n_colsweep,            // N, small shapes: 16-row blocks sweeping every column, one launch
  t_lanegroup_blocksplit,  // T: as t_lanegroup_lastblock, rows split over a block's warps, one launch
  n_lanes,               // N, large shapes: 32-128-row blocks owning their rows, 8-32 lanes a column
  n_sweep,               // N, m <= 4096: blocks take whole-column chunks round-robin + ordered 2nd stage
};
constexpr int kSgemvKernelCount = 16;

const char* sgemv_kernel_name(SgemvKernel k);
bool sgemv_kernel_from_name(const char* name, SgemvKernel* out);
// Production kernels only (those sgemv_choose may return).
bool sgemv_kernel_is_production(SgemvKernel k);

// nullptr if the kernel can run this problem, else the reason it cannot.
const char* sgemv_can_implement(SgemvKernel k, const GemvProblem& p);

// The production kernel measured best for the shape on the H100 (see sgemv_choose's comment
// in src/kernels/sgemv/registry.cu and bench/results/h100-sgemv-*.md).
SgemvKernel sgemv_choose(const GemvProblem& p);

// Launches on `stream`. p is validated (m, n > 0, lda >= max(1, m), incx, incy != 0, x and y
// point at their lowest-addressed element). alpha == 0 scales y by beta without reading A or x.
// The *_split and *_lastblock kernels take their scratch from a per-device stream-ordered pool
// (cudaMallocFromPoolAsync, freed with cudaFreeAsync on the same stream; the pool keeps up to
// 64 MiB cached; *_lastblock zeroes its counters with a cudaMemsetAsync), so concurrent calls on
// any streams are safe; the *_cluster kernels use no scratch (one launch).
// Returns the launch error (cudaGetLastError), or the allocation error.
cudaError_t sgemv_run(SgemvKernel k, const GemvProblem& p, cudaStream_t stream);

// For the benchmark's sweep: a *_cluster kernel with `cluster` blocks per cluster (a power of
// two up to the device's limit; 1: no cluster, one block per row or column block) instead of
// the launcher's choice; for n_rowblock_cluster, row_warps = 2 takes blocks of 256 rows (two
// warps along the rows) when A allows float4 loads, else 128-row blocks. Other kernels run as
// sgemv_run. (On devices without thread-block clusters, compute capability < 9.0, the
// *_cluster kernels run the *_lastblock split.)
cudaError_t sgemv_run_cluster(SgemvKernel k, const GemvProblem& p, int cluster, cudaStream_t stream,
                              int row_warps = 1);

// For the benchmark's sweep and the tests: n_lanes with `lanes` = 8, 16 or 32 lanes per column
// (blocks of 32, 64 or 128 rows) instead of the launcher's choice.
cudaError_t sgemv_run_lanes(const GemvProblem& p, int lanes, cudaStream_t stream);

}  // namespace myblas

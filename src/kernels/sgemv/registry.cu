// The SGEMV kernel table: names, what each kernel can run, the shape rule that picks a
// production kernel, and the launch switch. Kernels live one per file beside this one.

#include "kernels/sgemv.h"
#include "kernels/kernel_table.h"
#include "kernels/sgemv/common.cuh"

namespace myblas {

namespace {

constexpr KernelEntry<SgemvKernel> kTable[kSgemvKernelCount] = {
    {SgemvKernel::thread_per_row, "thread_per_row", false},
    {SgemvKernel::warp_per_column, "warp_per_column", false},
    {SgemvKernel::x_constant, "x_constant", false},
    {SgemvKernel::x_shared, "x_shared", false},
    {SgemvKernel::n_rowblock, "n_rowblock", true},
    {SgemvKernel::n_rowblock_split, "n_rowblock_split", true},
    {SgemvKernel::t_lanegroup, "t_lanegroup", true},
    {SgemvKernel::t_lanegroup_split, "t_lanegroup_split", true},
    {SgemvKernel::n_rowblock_lastblock, "n_rowblock_lastblock", true},
    {SgemvKernel::t_lanegroup_lastblock, "t_lanegroup_lastblock", true},
    {SgemvKernel::n_rowblock_cluster, "n_rowblock_cluster", true},
    {SgemvKernel::t_lanegroup_cluster, "t_lanegroup_cluster", true},
    {SgemvKernel::n_colsweep, "n_colsweep", true},
    {SgemvKernel::t_lanegroup_blocksplit, "t_lanegroup_blocksplit", true},
    {SgemvKernel::n_lanes, "n_lanes", true},
    {SgemvKernel::n_sweep, "n_sweep", true},
};

constexpr int kConstantX = 16384;  // rung 3's __constant__ array, floats

// alpha == 0: y := beta*y (beta == 0 stores zeros without reading y). Kept here rather than
// calling kernels/scale so that this kernel library stands alone.
__global__ void sgemv_scale_y(float* y0, int64_t incy, int len, float beta) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < len;
       i += int64_t(gridDim.x) * blockDim.x) {
    float* p = y0 + i * incy;
    *p = beta == 0.f ? 0.f : beta * *p;
  }
}

}  // namespace

const char* sgemv_kernel_name(SgemvKernel k) { return kernel_table_name(kTable, k); }

bool sgemv_kernel_from_name(const char* name, SgemvKernel* out) { return kernel_table_from_name(kTable, name, out); }

bool sgemv_kernel_is_production(SgemvKernel k) { return kernel_table_production(kTable, k); }

const char* sgemv_can_implement(SgemvKernel k, const GemvProblem& p) {
  if (p.m < 1 || p.n < 1) return "m and n must be >= 1 (empty problems are quick returns)";
  if (p.lda < p.m) return "lda < m";
  if (p.incx == 0 || p.incy == 0) return "zero increment";
  if (!p.a || !p.x || !p.y) return "null operand";
  switch (k) {
    case SgemvKernel::x_constant:
      if (p.len_x() > kConstantX) return "x longer than 16384 floats does not fit __constant__ memory";
      return nullptr;
    case SgemvKernel::n_rowblock:
    case SgemvKernel::n_rowblock_split:
    case SgemvKernel::n_rowblock_lastblock:
      if (p.ta != Op::N) return "an op(A) = A kernel; the problem is transposed";
      return nullptr;
    case SgemvKernel::t_lanegroup:
    case SgemvKernel::t_lanegroup_split:
    case SgemvKernel::t_lanegroup_lastblock:
      if (p.ta != Op::T) return "an op(A) = A^T kernel; the problem is not transposed";
      return nullptr;
    case SgemvKernel::n_sweep:
      if (p.m > sgemv_detail::kSweepMaxRows) return "more than 4096 rows (a thread holds at most 4 row quads)";
      [[fallthrough]];
    case SgemvKernel::n_rowblock_cluster:
    case SgemvKernel::n_colsweep:
    case SgemvKernel::n_lanes:
      if (p.ta != Op::N) return "an op(A) = A kernel; the problem is transposed";
      return nullptr;
    case SgemvKernel::t_lanegroup_cluster:
    case SgemvKernel::t_lanegroup_blocksplit:
      if (p.ta != Op::T) return "an op(A) = A^T kernel; the problem is not transposed";
      return nullptr;
    default:
      return nullptr;
  }
}

// Measured on the H100 (bench/results/h100-sgemv-2026-11-22-v3.md), event-timed calls beside
// cuBLAS. The dispatch uses the measured table (data/dispatch-sm_90.csv, src/dispatch/table.cpp);
// this rule is the fallback between production kernels and the benchmark's "chosen" column:
//   N: small near-square problems (m >= 256, n <= 2048, m*n <= 2^22) want n_colsweep's plain
//      launch of 16-row blocks that each sweep every column (256^2-1024^2: 14-32% faster than
//      n_rowblock_cluster, 2048^2 6-10%, 4096^2 even: h100-sgemv-colsweep-2026-11-26.md);
//      from 4096 rows and 2048 columns n_lanes' plain launch of blocks that own their rows
//      (4096^2 1.07-1.17x, 4-6% ahead of n_rowblock_cluster; 8192^2 1.047-1.074x, 2-3%
//      ahead; 16384^2 and 32768^2 even: h100-sgemv-2026-11-26-nlanes.md, four runs);
//      short and very wide (769..1024 rows, >= 65536 columns) n_sweep, whose blocks take
//      whole-column chunks round-robin so that the grid reads one moving window of A
//      (1000 x 100000 1.042-1.062x, 2-5% ahead of n_rowblock_split; at 512 rows, where half its
//      threads have no rows, and at 1024 x 16384 and 2048 x 16384 it is not ahead:
//      h100-sgemv-2026-11-26-sweep.md);
//      other tiny problems (m*n < 2^18) n_rowblock's single cheap launch; one row block (m <= 128)
//      with hundreds of column splits wants the two-pass split, whose 32x32-thread reduction
//      blocks beat one last block adding 500 splits per row (64 x 1048576); up to 8192 columns
//      n_rowblock_cluster (one launch, at most 8 column splits reduced in a cluster: 1024^2
//      1.5-1.8x, 4096^2 1.03-1.08x); wider than that the column splits of n_rowblock_split.
//   T: small m (< 1024) wants t_lanegroup's narrow lane groups (64 x 1048576: 1.58x); from 1024
//      rows with at least 256 columns and at most 32 rows per column t_lanegroup_blocksplit
//      (the rows split over 2-8 warps of a block, up to 8 float4 a lane in flight: 1024^2 ..
//      32768^2 and 4096 x 256 1-19% faster than the others, 4096^2 1.24-1.30x cuBLAS:
//      h100-sgemv-2026-11-26-blocksplit.md; its one block per 1-8 columns leaves SMs idle on
//      tall narrow shapes, 1048576 x 64 0.44x, and 100000 x 1000 measured no gain); other shapes
//      up to 8192 rows t_lanegroup_cluster (at those sizes mostly no cluster: one warp per
//      column in one plain launch, no scratch); taller, t_lanegroup_lastblock's row split.
// (Where the device has no clusters the *_cluster launchers run the *_lastblock split.)
SgemvKernel sgemv_choose(const GemvProblem& p) {
  const int64_t size = int64_t(p.m) * p.n;
  if (p.ta == Op::N) {
    if (p.m >= 256 && p.n <= 2048 && size <= (1 << 22)) return SgemvKernel::n_colsweep;
    if (p.m >= 4096 && p.n >= 2048) return SgemvKernel::n_lanes;
    if (p.m > 768 && p.m <= 1024 && p.n >= 65536) return SgemvKernel::n_sweep;
    if (size < (1 << 18)) return SgemvKernel::n_rowblock;
    if (p.m <= 128 || p.n > 8192) return SgemvKernel::n_rowblock_split;
    return SgemvKernel::n_rowblock_cluster;
  }
  if (p.m < 1024 || size < (1 << 18)) return SgemvKernel::t_lanegroup;
  if (p.n >= 256 && p.m <= int64_t(32) * p.n) return SgemvKernel::t_lanegroup_blocksplit;
  return p.m <= 8192 ? SgemvKernel::t_lanegroup_cluster : SgemvKernel::t_lanegroup_lastblock;
}

cudaError_t sgemv_run(SgemvKernel k, const GemvProblem& p, cudaStream_t s) {
  using namespace sgemv_detail;
  if (p.alpha == 0.f) {  // BLAS: y := beta*y, A and x are never read
    const int len = p.len_y();
    const int blocks = len / 256 + 1 < 4096 ? len / 256 + 1 : 4096;
    sgemv_scale_y<<<blocks, 256, 0, s>>>(p.y + vec_start(len, p.incy), p.incy, len, p.beta);
    return cudaGetLastError();
  }
  if (sgemv_can_implement(k, p)) return cudaErrorInvalidValue;
  switch (k) {
    case SgemvKernel::thread_per_row: return launch_thread_per_row(p, s);
    case SgemvKernel::warp_per_column: return launch_warp_per_column(p, s);
    case SgemvKernel::x_constant: return launch_x_constant(p, s);
    case SgemvKernel::x_shared: return launch_x_shared(p, s);
    case SgemvKernel::n_rowblock: return launch_n_rowblock(p, Split::none, s);
    case SgemvKernel::n_rowblock_split: return launch_n_rowblock(p, Split::two_pass, s);
    case SgemvKernel::n_rowblock_lastblock: return launch_n_rowblock(p, Split::lastblock, s);
    case SgemvKernel::t_lanegroup: return launch_t_lanegroup(p, Split::none, s);
    case SgemvKernel::t_lanegroup_split: return launch_t_lanegroup(p, Split::two_pass, s);
    case SgemvKernel::t_lanegroup_lastblock: return launch_t_lanegroup(p, Split::lastblock, s);
    case SgemvKernel::n_rowblock_cluster: return launch_n_rowblock(p, Split::cluster, s);
    case SgemvKernel::t_lanegroup_cluster: return launch_t_lanegroup(p, Split::cluster, s);
    case SgemvKernel::n_colsweep: return launch_n_colsweep(p, s);
    case SgemvKernel::t_lanegroup_blocksplit: return launch_t_lanegroup(p, Split::block, s);
    case SgemvKernel::n_lanes: return launch_n_lanes(p, s);
    case SgemvKernel::n_sweep: return launch_n_sweep(p, s);
  }
  return cudaErrorInvalidValue;
}

cudaError_t sgemv_run_cluster(SgemvKernel k, const GemvProblem& p, int cluster, cudaStream_t s, int row_warps) {
  using namespace sgemv_detail;
  if (p.alpha == 0.f || sgemv_can_implement(k, p)) return sgemv_run(k, p, s);
  if (k == SgemvKernel::n_rowblock_cluster) return launch_n_rowblock(p, Split::cluster, s, cluster, row_warps);
  if (k == SgemvKernel::t_lanegroup_cluster) return launch_t_lanegroup(p, Split::cluster, s, cluster);
  return sgemv_run(k, p, s);
}

cudaError_t sgemv_run_lanes(const GemvProblem& p, int lanes, cudaStream_t s) {
  using namespace sgemv_detail;
  if (p.alpha == 0.f || sgemv_can_implement(SgemvKernel::n_lanes, p)) return sgemv_run(SgemvKernel::n_lanes, p, s);
  return launch_n_lanes(p, s, lanes);
}

}  // namespace myblas

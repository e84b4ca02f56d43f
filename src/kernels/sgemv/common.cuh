// Shared by the SGEMV kernel files: the device-side view of a problem, strided-vector
// addressing, the alpha/beta store, and each file's launch entry point.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.h"
#include "kernels/cluster.cuh"
#include "kernels/gemm_args.h"

namespace myblas {
namespace sgemv_detail {

constexpr int kWarp = 32;

// x0/y0 point at LOGICAL element 0 (for a negative increment that is the highest address),
// so logical element i is always at x0 + i*incx.
struct Args {
  const float* a;
  int64_t lda;
  const float* x0;
  int64_t incx;
  float* y0;
  int64_t incy;
  int m, n;
  float alpha, beta;
};

inline Args make_args(const GemvProblem& p) {
  Args g;
  g.a = p.a;
  g.lda = p.lda;
  g.x0 = p.x + vec_start(p.len_x(), p.incx);
  g.incx = p.incx;
  g.y0 = p.y + vec_start(p.len_y(), p.incy);
  g.incy = p.incy;
  g.m = p.m;
  g.n = p.n;
  g.alpha = p.alpha;
  g.beta = p.beta;
  return g;
}

using myblas::aligned16;  // kernels/gemm_args.h
// float4 loads down the columns of A are legal when every column starts 16-byte aligned.
inline bool a_vectorizable(const GemvProblem& p) { return aligned16(p.a) && p.lda % 4 == 0; }
// float4 loads of x: unit stride and 16-byte aligned.
inline bool x_vectorizable(const GemvProblem& p) { return p.incx == 1 && aligned16(p.x); }

// beta == 0 stores without reading y, so NaN/Inf already in y never propagates.
__device__ __forceinline__ void store_y(float* yp, float acc, float alpha, float beta) {
  *yp = beta == 0.f ? alpha * acc : fmaf(alpha, acc, beta * *yp);
}

// acc[i] += a.i * x for the 4 rows of a (N kernels: one column's 4 rows times x[column]).
__device__ __forceinline__ void axpy4(float4 a, float x, float (&acc)[4]) {
  acc[0] = fmaf(a.x, x, acc[0]);
  acc[1] = fmaf(a.y, x, acc[1]);
  acc[2] = fmaf(a.z, x, acc[2]);
  acc[3] = fmaf(a.w, x, acc[3]);
}

// Rows r .. r+3 of a column, p pointing at row r; those at or past `rows` read as 0 (and are not
// read). VA: one 16-byte load when all four are in range (p then 16-byte aligned).
template <bool VA>
__device__ __forceinline__ float4 load_rows4(const float* p, int r, int rows) {
  if (VA && r + 3 < rows) return __ldcs(reinterpret_cast<const float4*>(p));
  return make_float4(r < rows ? __ldcs(p) : 0.f, r + 1 < rows ? __ldcs(p + 1) : 0.f,
                     r + 2 < rows ? __ldcs(p + 2) : 0.f, r + 3 < rows ? __ldcs(p + 3) : 0.f);
}

__device__ __forceinline__ float dot4(float4 a, float4 b, float acc) {
  acc = fmaf(a.x, b.x, acc);
  acc = fmaf(a.y, b.y, acc);
  acc = fmaf(a.z, b.z, acc);
  return fmaf(a.w, b.w, acc);
}

// Single-pass split (the *_lastblock kernels): the gridDim.y blocks that share blockIdx.x each
// write their partial sums to scratch, then count themselves on counter[blockIdx.x] (zeroed by
// the launcher's memset); the block that arrives last (whichever it is) adds all the partials
// of its group in split order and stores y, so the result is the same bitwise whatever the
// scheduling. Call with every thread of the block after its partial stores; true in every
// thread of the last block.
__device__ __forceinline__ bool arrive_last(unsigned* counter) {
  __shared__ bool last;
  __threadfence();  // this thread's partial stores are visible device-wide before the count
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == gridDim.y - 1;
  __syncthreads();
  if (last) __threadfence();
  return last;
}

// Resident 256-thread blocks of `kernel` on the whole device (for grid sizing).
int device_slots(const void* kernel, int threads, size_t smem);

// Largest power of two <= v (1 for v < 2).
inline int pow2_floor(int v) {
  int c = 1;
  while (2 * c <= v) c *= 2;
  return c;
}

// The largest cluster (a power of two <= kMaxCluster) that `kernel` with `threads` threads per
// block can be launched with on the current device, 1 if none. The first call per kernel and
// device allows non-portable sizes (> 8) and asks the occupancy calculator; then cached.
int cluster_limit(const void* kernel, int threads);

// One launcher per file. Each returns cudaGetLastError() after its launches.
cudaError_t launch_thread_per_row(const GemvProblem& p, cudaStream_t s);
cudaError_t launch_warp_per_column(const GemvProblem& p, cudaStream_t s);
cudaError_t launch_x_constant(const GemvProblem& p, cudaStream_t s);
cudaError_t launch_x_shared(const GemvProblem& p, cudaStream_t s);
// How the production kernels split the reduction dimension over blocks: not at all, with a
// second reduction launch (reduce_partials), in one launch by the last block of each group, or
// in one launch by the blocks of a thread-block cluster through distributed shared memory.
// cluster: the blocks per cluster for Split::cluster (0: the launcher's choice); row_warps: with
// a forced cluster, 2 for N blocks of 256 rows (two warps along the rows; float4 loads only).
enum class Split { none, two_pass, lastblock, cluster, block };
cudaError_t launch_n_rowblock(const GemvProblem& p, Split split, cudaStream_t s, int cluster = 0, int row_warps = 1);
cudaError_t launch_t_lanegroup(const GemvProblem& p, Split split, cudaStream_t s, int cluster = 0);
cudaError_t launch_n_colsweep(const GemvProblem& p, cudaStream_t s);
// lanes: 8, 16 or 32 lanes per column (32-, 64- or 128-row blocks); anything else: the launcher's choice.
cudaError_t launch_n_lanes(const GemvProblem& p, cudaStream_t s, int lanes = 0);
// m <= kSweepMaxRows: a thread of n_sweep's 256 holds at most 4 float4 row quads of a column.
constexpr int kSweepMaxRows = 4096;
cudaError_t launch_n_sweep(const GemvProblem& p, cudaStream_t s);

// Scratch for split kernels, from a per-device pool, stream-ordered.
cudaError_t scratch_alloc(float** ptr, size_t count, cudaStream_t s);
void scratch_free(float* ptr, cudaStream_t s);
// Scratch for the single-pass split kernels: `groups` counters, zeroed by a cudaMemsetAsync
// on `s` (so every byte a kernel reads was written in stream order: compute-sanitizer initcheck
// sees it), then `count` floats for partial sums (each written before it is read), in one
// stream-ordered allocation from the scratch pool. Concurrent calls on different streams get
// different allocations; stream capture records the memset as a graph node.
cudaError_t lastblock_scratch_alloc(unsigned** counters, int groups, float** partial, size_t count, cudaStream_t s);
void lastblock_scratch_free(unsigned* counters, cudaStream_t s);

// Second stage: y[i] = alpha * sum_{s < splits} partial[s*len + i] (+ beta*y[i]), summed in
// split order, so the result does not depend on scheduling.
cudaError_t reduce_partials(const float* partial, int splits, int len, float alpha, float beta,
                            float* y0, int64_t incy, cudaStream_t s);

}  // namespace sgemv_detail
}  // namespace myblas

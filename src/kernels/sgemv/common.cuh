// Shared by the SGEMV kernel files: the device-side view of a problem, strided-vector
// addressing, the alpha/beta store, and each file's launch entry point.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.h"
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

constexpr int kMaxCluster = 16;  // blocks per cluster: the H100's non-portable limit

// Cluster split (the *_cluster kernels, launched by launch_clusters): each block of the cluster
// has written its split's kLen sums to `mine` (shared memory, same offset in every block).
// Output q is the sum over ranks 0, 1, ..., C-1 of rank k's mine[q], added in rank order
// (bitwise reproducible); rank r adds outputs [r*per, r*per + per) with its first threads and
// hands each to store(q, sum). Every thread of every block of the cluster must call this: the
// first cluster.sync() publishes the sums, the second keeps each block's shared memory alive
// until the others have read it.
template <int kLen, class Store>
__device__ __forceinline__ void cluster_reduce_ordered(const float* mine, Store store) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  const int c = int(cluster.num_blocks()), rank = int(cluster.block_rank());
  const int per = (kLen + c - 1) / c;
  const int q = rank * per + int(threadIdx.x);
  if (int(threadIdx.x) < per && q < kLen) {
    float v[kMaxCluster];  // (kMaxCluster) rank k's sum for output q
#pragma unroll
    for (int k = 0; k < kMaxCluster; ++k)
      if (k < c) v[k] = *cluster.map_shared_rank(mine + q, unsigned(k));
    float sum = v[0];
#pragma unroll
    for (int k = 1; k < kMaxCluster; ++k)
      if (k < c) sum += v[k];
    store(q, sum);
  }
  cluster.sync();
#else
  __trap();  // launchers never start a cluster kernel below compute capability 9.0
#endif
}

// Resident 256-thread blocks of `kernel` on the whole device (for grid sizing).
int device_slots(const void* kernel, int threads, size_t smem);

// Largest power of two <= v (1 for v < 2).
inline int pow2_floor(int v) {
  int c = 1;
  while (2 * c <= v) c *= 2;
  return c;
}

// Whether the current device runs thread-block clusters (compute capability >= 9.0); cached.
bool device_has_clusters();
// The largest cluster (a power of two <= kMaxCluster) that `kernel` with `threads` threads per
// block can be launched with on the current device, 1 if none. The first call per kernel and
// device allows non-portable sizes (> 8) and asks the occupancy calculator; then cached.
int cluster_limit(const void* kernel, int threads);

// A launch of `grid` blocks of `threads` threads on `s` as clusters of (1, c, 1) blocks; *attr
// holds the cluster attribute that the returned configuration points to.
inline cudaLaunchConfig_t cluster_config(dim3 grid, int threads, int c, cudaStream_t s, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(unsigned(threads));
  cfg.dynamicSmemBytes = 0;
  cfg.stream = s;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = 1;
  attr->val.clusterDim.y = unsigned(c);
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// Launches kern<<<grid, threads, 0, s>>>(args...) as clusters of (1, c, 1) blocks
// (gridDim.y == c). Returns the launch error.
template <class... P, class... A>
cudaError_t launch_clusters(void (*kern)(P...), dim3 grid, int threads, int c, cudaStream_t s, A... args) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = cluster_config(grid, threads, c, s, &attr);
  const cudaError_t e = cudaLaunchKernelEx(&cfg, kern, args...);
  return e != cudaSuccess ? e : cudaGetLastError();
}

// One launcher per file. Each returns cudaGetLastError() after its launches.
cudaError_t launch_thread_per_row(const GemvProblem& p, cudaStream_t s);
cudaError_t launch_warp_per_column(const GemvProblem& p, cudaStream_t s);
cudaError_t launch_x_constant(const GemvProblem& p, cudaStream_t s);
cudaError_t launch_x_shared(const GemvProblem& p, cudaStream_t s);
// How the production kernels split the reduction dimension over blocks: not at all, with a
// second reduction launch (reduce_partials), in one launch by the last block of each group, or
// in one launch by the blocks of a thread-block cluster through distributed shared memory.
// cluster: the blocks per cluster for Split::cluster (0: the launcher's choice).
enum class Split { none, two_pass, lastblock, cluster };
cudaError_t launch_n_rowblock(const GemvProblem& p, Split split, cudaStream_t s, int cluster = 0);
cudaError_t launch_t_lanegroup(const GemvProblem& p, Split split, cudaStream_t s, int cluster = 0);

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

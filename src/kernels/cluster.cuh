// Thread-block clusters (Hopper, compute capability >= 9.0), shared by the SGEMV and SGEMM
// kernels that split a reduction over the blocks of a cluster and add the splits through
// distributed shared memory: whether the device has them (and its SM count, for sizing the
// split), the launch configuration and the ordered reduction over the cluster.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace myblas {

constexpr int kMaxCluster = 16;  // blocks per cluster: the H100's non-portable limit

// Whether the current device runs thread-block clusters (compute capability >= 9.0); cached
// per device. A failing cudaGetDevice is cleared and answers false.
bool device_has_clusters();

// The current device's SM count (for grid sizing), cached per device; 132 if it cannot be asked.
int device_sm_count();

// How many clusters of (1, c, 1) blocks of `kernel` (threads per block, dynamic shared memory
// smem) the current device holds at once (cudaOccupancyMaxActiveClusters), 0 if none or c == 1
// (then ask resident_blocks); cached per kernel, device, size and smem.
int max_active_clusters(const void* kernel, int threads, size_t smem, int c);
// How many blocks of `kernel` the current device holds at once (SMs x blocks per SM); cached.
int resident_blocks(const void* kernel, int threads, size_t smem);

// A launch of `grid` blocks of `threads` threads with `smem` bytes of dynamic shared memory on
// `s` as clusters of (1, c, 1) blocks; *attr holds the cluster attribute that the returned
// configuration points to.
inline cudaLaunchConfig_t cluster_config(dim3 grid, int threads, size_t smem, int c, cudaStream_t s,
                                         cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(unsigned(threads));
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = 1;
  attr->val.clusterDim.y = unsigned(c);
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// Launches kern<<<grid, threads, smem, s>>>(args...) as clusters of (1, c, 1) blocks
// (gridDim.y a multiple of c). Returns the launch error.
template <class... P, class... A>
cudaError_t launch_clusters(void (*kern)(P...), dim3 grid, int threads, size_t smem, int c, cudaStream_t s,
                            A... args) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = cluster_config(grid, threads, smem, c, s, &attr);
  const cudaError_t e = cudaLaunchKernelEx(&cfg, kern, args...);
  return e != cudaSuccess ? e : cudaGetLastError();
}

// Cluster split: each block of the cluster has written its split's `len` sums to `mine` (shared
// memory, same offset in every block), output q at mine[pos(q)]. Output q is the sum over ranks
// 0, 1, ..., C-1 of rank k's value, added in rank order (bitwise reproducible); rank r adds
// outputs [r*per, r*per + per) and hands each to store(q, sum). Every thread of every block of
// the cluster must call this: the first cluster.sync() publishes the sums, the second keeps each
// block's shared memory alive until the others have read it.
template <class Pos, class Store>
__device__ __forceinline__ void cluster_reduce_ordered(const float* mine, int len, Pos pos, Store store) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  const int c = int(cluster.num_blocks()), rank = int(cluster.block_rank());
  const int per = (len + c - 1) / c;
  const int end = min(len, rank * per + per);
  for (int q = rank * per + int(threadIdx.x); q < end; q += int(blockDim.x)) {
    const int o = pos(q);
    float v[kMaxCluster];  // (kMaxCluster) rank k's sum for output q
#pragma unroll
    for (int k = 0; k < kMaxCluster; ++k)
      if (k < c) v[k] = *cluster.map_shared_rank(mine + o, unsigned(k));
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

}  // namespace myblas

// Second stage of the two-pass split kernels, scratch memory for the split kernels, grid sizing
// and the cluster limits.
//
// Split kernels (n_rowblock_split, t_lanegroup_split) write one partial result per split to
// scratch; this kernel adds the splits for each output in split order, so the sum never depends
// on which block finished first (no atomics, bitwise reproducible), then applies alpha and beta.
// A block is 32 outputs x 32 split-lanes: thread (i, s) adds splits s, s+32, ... of output i,
// and the 32 split-lanes are added in order through shared memory. Short outputs with many
// splits (m = 64 with a thousand splits) therefore still take 32-way parallel loads per output.
//
// Scratch comes from one CUDA memory pool per device, created on first use, kept for the life
// of the process, with a release threshold of 64 MiB: cudaMallocFromPoolAsync and cudaFreeAsync
// are stream-ordered (concurrent calls on different streams get different memory) and, below the
// threshold, reuse cached memory instead of asking the driver, so small calls need no
// synchronisation. The single-pass *_lastblock kernels take their counters and partials from the
// same pool and zero the counters with a cudaMemsetAsync per call (see common.cuh). The
// *_cluster kernels need no scratch.
#include <cstdint>
#include <mutex>
#include <vector>

#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kOut = 32;     // outputs per block
constexpr int kSplitL = 32;  // split-lanes per output
constexpr int kMaxDevices = 64;

__global__ __launch_bounds__(kOut* kSplitL) void sgemv_reduce_splits_ordered(
    const float* partial, int splits, int len, float alpha, float beta, float* y0, int64_t incy) {
  __shared__ float part[kSplitL][kOut + 1];  // (split-lanes) x (outputs), padded
  const int i = blockIdx.x * kOut + threadIdx.x;
  float s = 0.f;
  if (i < len)
    for (int k = threadIdx.y; k < splits; k += kSplitL) s += partial[int64_t(k) * len + i];
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && i < len) {
    float t = 0.f;
#pragma unroll 8
    for (int k = 0; k < kSplitL; ++k) t += part[k][threadIdx.x];
    store_y(y0 + int64_t(i) * incy, t, alpha, beta);
  }
}

std::mutex g_mu;
cudaMemPool_t g_pools[kMaxDevices] = {};
struct ClusterLimit {
  const void* kernel;
  int device, threads, blocks;
};
std::vector<ClusterLimit> g_cluster_limits;

// keep: bytes the pool holds on to at synchronisation points (cudaMemPoolAttrReleaseThreshold).
cudaError_t device_pool(cudaMemPool_t (&pools)[kMaxDevices], uint64_t keep, cudaMemPool_t* out) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!pools[dev]) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t pool;
    e = cudaMemPoolCreate(&pool, &props);
    if (e != cudaSuccess) return e;
    e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    if (e != cudaSuccess) {
      cudaMemPoolDestroy(pool);
      return e;
    }
    pools[dev] = pool;
  }
  *out = pools[dev];
  return cudaSuccess;
}

}  // namespace

int device_slots(const void* kernel, int threads, size_t smem) {
  const int slots = resident_blocks(kernel, threads, smem);  // (cached per kernel and device)
  return slots > 0 ? slots : device_sm_count();              // a refused question: one block per SM
}

cudaError_t scratch_alloc(float** ptr, size_t count, cudaStream_t s) {
  cudaMemPool_t pool;
  cudaError_t e = device_pool(g_pools, 64ull << 20, &pool);
  if (e != cudaSuccess) return e;
  return cudaMallocFromPoolAsync(reinterpret_cast<void**>(ptr), count * sizeof(float), pool, s);
}

void scratch_free(float* ptr, cudaStream_t s) {
  if (ptr) cudaFreeAsync(ptr, s);
}

cudaError_t lastblock_scratch_alloc(unsigned** counters, int groups, float** partial, size_t count, cudaStream_t s) {
  // Counters first, padded to 16 bytes so the partial sums keep the pool's alignment.
  const size_t counter_floats = (size_t(groups) + 3) / 4 * 4;
  float* p = nullptr;
  cudaError_t e = scratch_alloc(&p, counter_floats + count, s);
  if (e != cudaSuccess) return e;
  e = cudaMemsetAsync(p, 0, size_t(groups) * sizeof(unsigned), s);
  if (e != cudaSuccess) {
    scratch_free(p, s);
    return e;
  }
  *counters = reinterpret_cast<unsigned*>(p);
  *partial = p + counter_floats;
  return cudaSuccess;
}

void lastblock_scratch_free(unsigned* counters, cudaStream_t s) { scratch_free(reinterpret_cast<float*>(counters), s); }

int cluster_limit(const void* kernel, int threads) {
  if (!device_has_clusters()) return 1;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 1;
  std::lock_guard<std::mutex> lock(g_mu);
  for (const ClusterLimit& c : g_cluster_limits)
    if (c.kernel == kernel && c.device == dev && c.threads == threads) return c.blocks;
  // Sizes above 8 need the kernel's permission; a refusal only leaves the portable sizes.
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
    cudaGetLastError();
  int blocks = 1;
  for (int c = kMaxCluster; c >= 2 && blocks == 1; c /= 2) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cluster_config(dim3(1u, unsigned(c)), threads, 0, c, nullptr, &attr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess && clusters > 0)
      blocks = c;
    else
      cudaGetLastError();  // a refused size is not this call's error
  }
  g_cluster_limits.push_back({kernel, dev, threads, blocks});
  return blocks;
}

cudaError_t reduce_partials(const float* partial, int splits, int len, float alpha, float beta,
                            float* y0, int64_t incy, cudaStream_t s) {
  const unsigned blocks = unsigned((len + kOut - 1) / kOut);
  sgemv_reduce_splits_ordered<<<blocks, dim3(kOut, kSplitL), 0, s>>>(partial, splits, len, alpha,
                                                                     beta, y0, incy);
  return cudaGetLastError();
}

}  // namespace sgemv_detail
}  // namespace myblas

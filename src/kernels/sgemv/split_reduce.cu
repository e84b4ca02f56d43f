// Second stage of the two-pass split kernels, scratch memory for all split kernels, and grid sizing.
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
// threshold, reuse cached memory instead of asking the driver, so small calls need no memset
// and no synchronisation. The single-pass *_lastblock kernels take counters and partials from a
// second pool that never returns memory and is zero wherever free (see common.cuh).
#include <cstdint>
#include <mutex>
#include <unordered_set>
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
cudaMemPool_t g_lastblock_pools[kMaxDevices] = {};
std::unordered_set<const void*> g_lastblock_seen;  // allocation starts already zeroed once
int g_sms[kMaxDevices] = {};
struct Occ {
  const void* kernel;
  int device, threads;
  size_t smem;
  int blocks;
};
std::vector<Occ> g_occ;

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
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) return 132 * 4;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_sms[dev] && cudaDeviceGetAttribute(&g_sms[dev], cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    g_sms[dev] = 132;
  for (const Occ& o : g_occ)
    if (o.kernel == kernel && o.device == dev && o.threads == threads && o.smem == smem)
      return o.blocks * g_sms[dev];
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem) != cudaSuccess ||
      blocks < 1)
    blocks = 1;
  g_occ.push_back({kernel, dev, threads, smem, blocks});
  return blocks * g_sms[dev];
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

cudaError_t lastblock_scratch_alloc(unsigned** counters, float** partial, size_t count, cudaStream_t s) {
  // The zero-when-free invariant needs the pool never to return memory to the driver (the same
  // address could come back unzeroed): release threshold = everything.
  cudaMemPool_t pool;
  cudaError_t e = device_pool(g_lastblock_pools, UINT64_MAX, &pool);
  if (e != cudaSuccess) return e;
  const size_t counter_bytes = size_t(kLastBlockCounters) * sizeof(unsigned);
  void* p = nullptr;
  e = cudaMallocFromPoolAsync(&p, counter_bytes + count * sizeof(float), pool, s);
  if (e != cudaSuccess) return e;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  bool zero = cudaStreamIsCapturing(s, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone;
  if (zero) {
    cudaGetLastError();  // a refused capture query is not this call's error
  } else {
    std::lock_guard<std::mutex> lock(g_mu);
    zero = g_lastblock_seen.insert(p).second;
  }
  if (zero && (e = cudaMemsetAsync(p, 0, counter_bytes, s)) != cudaSuccess) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_lastblock_seen.erase(p);
    cudaFreeAsync(p, s);
    return e;
  }
  *counters = static_cast<unsigned*>(p);
  *partial = reinterpret_cast<float*>(static_cast<char*>(p) + counter_bytes);
  return cudaSuccess;
}

void lastblock_scratch_free(unsigned* counters, cudaStream_t s) {
  if (counters) cudaFreeAsync(counters, s);
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

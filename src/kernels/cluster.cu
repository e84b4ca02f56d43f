#include "kernels/cluster.cuh"

#include <atomic>
#include <mutex>
#include <vector>

namespace myblas {

namespace {
constexpr int kMaxDevices = 64;
std::atomic<int> g_clusters[kMaxDevices] = {};  // 0 not asked yet, 1 compute capability >= 9.0, 2 not
std::atomic<int> g_sms[kMaxDevices] = {};       // 0 not asked yet

struct Occupancy {
  const void* kernel;
  int device, threads;
  size_t smem;
  int cluster;  // 1: resident blocks; else active clusters of this size
  int answer;
};
std::mutex g_occ_mu;
std::vector<Occupancy> g_occ;

int occupancy(const void* kernel, int threads, size_t smem, int c) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  std::lock_guard<std::mutex> lock(g_occ_mu);
  for (const Occupancy& o : g_occ)
    if (o.kernel == kernel && o.device == dev && o.threads == threads && o.smem == smem && o.cluster == c)
      return o.answer;
  int answer = 0;
  if (c == 1) {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem) == cudaSuccess)
      answer = per_sm * device_sm_count();
  } else if (device_has_clusters()) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cluster_config(dim3(1u, unsigned(c)), threads, smem, c, nullptr, &attr);
    if (cudaOccupancyMaxActiveClusters(&answer, kernel, &cfg) != cudaSuccess) answer = 0;
  }
  cudaGetLastError();  // a refused question is not the caller's error
  g_occ.push_back({kernel, dev, threads, smem, c, answer});
  return answer;
}
}  // namespace

bool device_has_clusters() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
    cudaGetLastError();  // not this call's error: the launch that follows reports its own
    return false;
  }
  int known = g_clusters[dev].load(std::memory_order_relaxed);
  if (!known) {
    int major = 0;
    known = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major >= 9 ? 1 : 2;
    g_clusters[dev].store(known, std::memory_order_relaxed);
  }
  return known == 1;
}

int device_sm_count() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
    cudaGetLastError();
    return 132;
  }
  int sms = g_sms[dev].load(std::memory_order_relaxed);
  if (!sms) {
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms < 1) {
      cudaGetLastError();
      return 132;
    }
    g_sms[dev].store(sms, std::memory_order_relaxed);
  }
  return sms;
}

int max_active_clusters(const void* kernel, int threads, size_t smem, int c) {
  return c > 1 ? occupancy(kernel, threads, smem, c) : 0;
}

int resident_blocks(const void* kernel, int threads, size_t smem) { return occupancy(kernel, threads, smem, 1); }

}  // namespace myblas

#include "kernels/sm90.cuh"

#include <cudaTypedefs.h>

#include <atomic>
#include <mutex>

namespace myblas {

namespace {

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

EncodeTiled encode_fn() {
  static const EncodeTiled fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return EncodeTiled(nullptr);
    }
    return reinterpret_cast<EncodeTiled>(f);
  }();
  return fn;
}

__global__ void sm90a_probe(int* out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  *out = 1;
#else
  *out = 0;
#endif
}

constexpr int kMaxDevices = 64;
std::atomic<int> g_ready[kMaxDevices];  // 0 not probed, 1 ready, 2 not
int g_sms[kMaxDevices];                 // written before g_ready[dev] is stored
std::mutex g_mu;

}  // namespace

bool sm90a_ready(int* sms) {
  int dev = -1;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
    cudaGetLastError();
    return false;
  }
  int known = g_ready[dev].load(std::memory_order_acquire);
  if (!known) {
    std::lock_guard<std::mutex> lock(g_mu);
    known = g_ready[dev].load(std::memory_order_relaxed);
    if (!known) {
      int major = 0, count = 0;
      if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
          cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        cudaGetLastError();
        return false;  // not cached: a transient failure may clear
      }
      int ok = 0;
      if (major == 9 && encode_fn()) {
        int* d = nullptr;
        int h = 0;
        cudaStream_t s = nullptr;
        if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
          cudaGetLastError();
          return false;
        }
        bool good = cudaMallocAsync(&d, sizeof(int), s) == cudaSuccess;
        if (good) {
          sm90a_probe<<<1, 1, 0, s>>>(d);
          good = cudaGetLastError() == cudaSuccess &&
                 cudaMemcpyAsync(&h, d, sizeof(int), cudaMemcpyDeviceToHost, s) == cudaSuccess;
          cudaFreeAsync(d, s);
        }
        good = cudaStreamSynchronize(s) == cudaSuccess && good;
        cudaStreamDestroy(s);
        if (!good) {
          cudaGetLastError();
          return false;
        }
        ok = h;
      }
      g_sms[dev] = count;
      known = ok ? 1 : 2;
      g_ready[dev].store(known, std::memory_order_release);
    }
  }
  if (sms) *sms = g_sms[dev];
  return known == 1;
}

bool make_tensor_map_2d(CUtensorMap* map, CUtensorMapDataType type, int elem_bytes, const void* base, uint64_t inner,
                        uint64_t outer, int64_t ld, uint32_t box_inner, uint32_t box_outer,
                        CUtensorMapSwizzle swizzle) {
  const EncodeTiled encode = encode_fn();
  if (!encode) return false;
  const cuuint64_t dims[2] = {cuuint64_t(inner), cuuint64_t(outer)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * cuuint64_t(elem_bytes)};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t estride[2] = {1, 1};
  return encode(map, type, 2, const_cast<void*>(base), dims, strides, box, estride, CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace myblas

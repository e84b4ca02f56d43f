#include "backends/cuda/cublas_api.h"

#include <dlfcn.h>

#include <vector>

#include "core/log.h"

namespace myblas {

namespace {

struct Loaded {
  CublasApi api{};
  bool ok = false;
  std::string why;
};

template <typename F>
bool bind(void* h, const char* name, F* slot, std::string* why) {
  *slot = reinterpret_cast<F>(dlsym(h, name));
  if (!*slot) *why = std::string("libcublas lacks ") + name;
  return *slot != nullptr;
}

Loaded load() {
  Loaded l;
  // The soname first (LD_LIBRARY_PATH, ldconfig), then the toolkit this was built with.
  const char* candidates[] = {"libcublas.so.13", MYBLAS_CUDA_LIBDIR "/libcublas.so.13"};
  void* h = nullptr;
  for (const char* c : candidates)
    if ((h = dlopen(c, RTLD_NOW | RTLD_LOCAL))) break;
  if (!h) {
    l.why = std::string("cannot load libcublas.so.13: ") + dlerror();
    return l;
  }
  CublasApi& a = l.api;
  l.ok = bind(h, "cublasCreate_v2", &a.create, &l.why) &&
         bind(h, "cublasDestroy_v2", &a.destroy, &l.why) &&
         bind(h, "cublasSetStream_v2", &a.set_stream, &l.why) &&
         bind(h, "cublasSetMathMode", &a.set_math_mode, &l.why) &&
         bind(h, "cublasSgemm_v2", &a.sgemm, &l.why) &&
         bind(h, "cublasSgemv_v2", &a.sgemv, &l.why) &&
         bind(h, "cublasGemmEx", &a.gemm_ex, &l.why) &&
         bind(h, "cublasGetStatusString", &a.status_string, &l.why);
  for (int r = 0; r < kRoutineCount; ++r) {
    a.routines[r] = nullptr;
    if (Routine(r) == Routine::hgemm) continue;  // (the generic paths' sgemm/sgemv sub-calls use the others)
    std::string name = std::string("cublas") + routine_name(Routine(r)) + "_v2";
    name[6] = char(name[6] - 'a' + 'A');  // cublasDgemm_v2
    a.routines[r] = dlsym(h, name.c_str());
  }
  for (int t = 0; t < 4; ++t) {
    const std::string T(1, "SDCZ"[t]);
    a.gemm_strided_batched[t] = dlsym(h, ("cublas" + T + "gemmStridedBatched").c_str());
    a.gemm_batched[t] = dlsym(h, ("cublas" + T + "gemmBatched").c_str());
    a.gemv_strided_batched[t] = dlsym(h, ("cublas" + T + "gemvStridedBatched").c_str());
    a.gemv_batched[t] = dlsym(h, ("cublas" + T + "gemvBatched").c_str());
  }
  a.gemm_strided_batched_ex =
      reinterpret_cast<decltype(a.gemm_strided_batched_ex)>(dlsym(h, "cublasGemmStridedBatchedEx"));
  a.gemm_batched_ex = reinterpret_cast<decltype(a.gemm_batched_ex)>(dlsym(h, "cublasGemmBatchedEx"));
  return l;
}

// Handles live per thread and per device; a thread that exits destroys its own. Each remembers
// the stream and math mode it was last given: setting them costs host time on every call
// (bench/probes/probe_call_overhead.cpp), and they rarely change between a thread's calls.
struct BoundHandle {
  cublasHandle_t h = nullptr;
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  bool bound = false;  // stream and math were set at least once
};
struct ThreadHandles {
  std::vector<BoundHandle> by_device;
  ~ThreadHandles() {
    std::string ignored;
    const CublasApi* api = cublas_api(&ignored);
    if (!api) return;
    for (const BoundHandle& b : by_device)
      if (b.h) api->destroy(b.h);
  }
};
thread_local ThreadHandles t_handles;

}  // namespace

const CublasApi* cublas_api(std::string* why) {
  static const Loaded l = load();
  if (!l.ok) {
    *why = l.why;
    return nullptr;
  }
  return &l.api;
}

cublasHandle_t cublas_handle(int device, cudaStream_t stream, cublasMath_t math, std::string* why) {
  const CublasApi* api = cublas_api(why);
  if (!api) return nullptr;
  if (device < 0) return nullptr;
  if (size_t(device) >= t_handles.by_device.size()) t_handles.by_device.resize(size_t(device) + 1);
  BoundHandle& b = t_handles.by_device[size_t(device)];
  if (!b.h) {
    cublasStatus_t s = api->create(&b.h);
    if (s != CUBLAS_STATUS_SUCCESS) {
      b.h = nullptr;
      *why = std::string("cublasCreate failed: ") + api->status_string(s);
      return nullptr;
    }
  }
  if (!b.bound || b.math != math) {
    cublasStatus_t m = api->set_math_mode(b.h, math);
    if (m != CUBLAS_STATUS_SUCCESS) {
      b.bound = false;
      *why = std::string("cublasSetMathMode failed: ") + api->status_string(m);
      return nullptr;
    }
  }
  if (!b.bound || b.stream != stream) {
    cublasStatus_t s = api->set_stream(b.h, stream);
    if (s != CUBLAS_STATUS_SUCCESS) {
      b.bound = false;
      *why = std::string("cublasSetStream failed: ") + api->status_string(s);
      return nullptr;
    }
  }
  b.math = math;
  b.stream = stream;
  b.bound = true;
  return b.h;
}

}  // namespace myblas

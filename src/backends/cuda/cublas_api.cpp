#include "backends/cuda/cublas_api.h"

#include <dlfcn.h>

#include <vector>

#include "backends/cuda/cuda_runtime.h"
#include "backends/cuda/handle_plan.h"
#include "core/config.h"
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
  // (optional: without it the handles keep cuBLAS's pooled workspace)
  a.set_workspace = reinterpret_cast<decltype(a.set_workspace)>(dlsym(h, "cublasSetWorkspace_v2"));
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
// Each also has a workspace of its own for the default stream (backends/cuda/handle_plan.h).
struct BoundHandle {
  cublasHandle_t h = nullptr;
  HandleState state;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  bool workspace_failed = false;  // (allocation refused once: the pool serves from then on)
};
struct ThreadHandles {
  std::vector<BoundHandle> by_device;
  ~ThreadHandles() {
    std::string ignored;
    const CublasApi* api = cublas_api(&ignored);
    if (!api) return;
    for (const BoundHandle& b : by_device) {
      if (b.h) api->destroy(b.h);
      if (b.workspace) cudaFree(b.workspace);  // (errors ignored: the process may be tearing CUDA down)
    }
  }
};
thread_local ThreadHandles t_handles;
thread_local long t_setter_calls = 0;

// cuBLAS's recommended workspace: 32 MiB on Hopper (sm_90), 4 MiB on earlier GPUs.
size_t workspace_bytes_for(int device) {
  return device_sm(device) >= 90 ? size_t(32) << 20 : size_t(4) << 20;
}

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
  const HandleUpdate u = plan_handle_update(b.state, stream, int(math), api->set_workspace && !b.workspace_failed && config().cublas_own_workspace);
  if (u.calls() == 0) return b.h;  // (the common case: nothing to set)
  t_setter_calls += u.calls();
  if (u.math) {
    cublasStatus_t m = api->set_math_mode(b.h, math);
    if (m != CUBLAS_STATUS_SUCCESS) {
      b.state.bound = false;
      *why = std::string("cublasSetMathMode failed: ") + api->status_string(m);
      return nullptr;
    }
  }
  if (u.stream) {
    cublasStatus_t s = api->set_stream(b.h, stream);
    if (s != CUBLAS_STATUS_SUCCESS) {
      b.state.bound = false;
      *why = std::string("cublasSetStream failed: ") + api->status_string(s);
      return nullptr;
    }
  }
  bool workspace_ok = false;
  if (u.workspace) {
    // Allocated on the call's device (current here) the first time; cudaMalloc synchronises,
    // once per thread and device.
    if (!b.workspace) {
      const size_t bytes = workspace_bytes_for(device);
      if (cudaMalloc(&b.workspace, bytes) == cudaSuccess) {
        b.workspace_bytes = bytes;
      } else {
        cudaGetLastError();  // (not sticky: the pool keeps serving)
        b.workspace = nullptr;
        b.workspace_failed = true;
      }
    }
    workspace_ok = b.workspace && api->set_workspace(b.h, b.workspace, b.workspace_bytes) == CUBLAS_STATUS_SUCCESS;
  }
  b.state = after_handle_update(b.state, u, stream, int(math), workspace_ok);
  return b.h;
}

long cublas_handle_setter_calls() { return t_setter_calls; }

}  // namespace myblas

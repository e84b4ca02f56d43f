// probe_dispatch_overhead: what one host-array call costs in libmyblas's dispatch when the
// process does and does not have a CUDA context, and what a pointer query costs on its own.
// Decides whether pointer classification needs to be cheaper (bench/results/...-overhead.md).
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "bench_util.h"
#include "myblas.h"

namespace {
using clk = std::chrono::steady_clock;

template <typename F>
double per_call_ns(F f, int reps) {
  for (int i = 0; i < 100; ++i) f();
  const auto t0 = clk::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double, std::nano>(clk::now() - t0).count() / reps;
}
}  // namespace

int main() {
  typedef void (*sgemv_t)(const char*, const int*, const int*, const float*, const float*, const int*,
                          const float*, const int*, const float*, float*, const int*);
  void* ob = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  sgemv_t ref = ob ? reinterpret_cast<sgemv_t>(dlsym(ob, "sgemv_")) : nullptr;
  std::printf("what,n,ns_per_call\n");
  for (int n : {16, 64, 256}) {
    std::vector<float> a(size_t(n) * n, 0.5f), x(size_t(n), 0.25f), y(size_t(n), 1.f);
    const float one = 1.f, zero = 0.f;
    const int inc = 1;
    auto mine = [&] { sgemv_("N", &n, &n, &one, a.data(), &n, x.data(), &inc, &zero, y.data(), &inc); };
    auto theirs = [&] { ref("N", &n, &n, &one, a.data(), &n, x.data(), &inc, &zero, y.data(), &inc); };
    if (ref) std::printf("openblas sgemv,%d,%.0f\n", n, per_call_ns(theirs, 20000));
    std::printf("myblas sgemv (no context yet),%d,%.0f\n", n, per_call_ns(mine, 20000));
  }
  cudaFree(nullptr);  // the process now has a context, as a program that used the GPU would
  float* d = nullptr;
  cudaMalloc(&d, 1024);
  std::vector<float> h(1024);
  cudaPointerAttributes at;
  std::printf("cudaPointerGetAttributes(host),0,%.0f\n",
              per_call_ns([&] { cudaPointerGetAttributes(&at, h.data()); }, 100000));
  std::printf("cudaPointerGetAttributes(device),0,%.0f\n",
              per_call_ns([&] { cudaPointerGetAttributes(&at, d); }, 100000));
  void* cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto getattr = cu ? reinterpret_cast<CUresult (*)(void*, CUpointer_attribute, CUdeviceptr)>(
                          dlsym(cu, "cuPointerGetAttribute"))
                    : nullptr;
  if (getattr) {
    unsigned type = 0;
    std::printf("cuPointerGetAttribute(MEMORY_TYPE) host,0,%.0f\n",
                per_call_ns([&] { getattr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CUdeviceptr(h.data())); }, 100000));
  }
  // The plural driver query with only what classification needs (a cheaper candidate than the
  // runtime's cudaPointerGetAttributes, which asks for more).
  bench::PointerQuery query;
  if (query) {
    std::printf("cuPointerGetAttributes(3 attributes) host,0,%.0f\n", per_call_ns([&] { query(h.data()); }, 100000));
    std::printf("cuPointerGetAttributes(3 attributes) device,0,%.0f\n", per_call_ns([&] { query(d); }, 100000));
  }
  for (int n : {16, 64, 256}) {
    std::vector<float> a(size_t(n) * n, 0.5f), x(size_t(n), 0.25f), y(size_t(n), 1.f);
    const float one = 1.f, zero = 0.f;
    const int inc = 1;
    std::printf("myblas sgemv (context),%d,%.0f\n", n, per_call_ns([&] {
      sgemv_("N", &n, &n, &one, a.data(), &n, x.data(), &inc, &zero, y.data(), &inc); }, 20000));
  }
  cudaFree(d);
  return 0;
}

// probe_pointer_query: what the CUDA driver's answers that locate a host-array call's operands
// cost, on a GPU host: the questions the library asks while no CUDA context exists (any context
// current? each device's primary context active?) and, with one, per operand outside the
// program-break heap (cuPointerGetAttributes for memory type, managed, device ordinal), against
// cheaper forms of the same question (two attributes, one; cuPointerGetAttribute), on a 4 MB mmap'd
// host block, a heap block and a device allocation. libcuda.so.1 is loaded with dlopen; nothing
// else is linked. Per question: the mean of the fastest 90% of 20001 timed calls (steady_clock
// around blocks of 16 calls). Output: '#' lines, then CSV context,question,pointer,ns_per_call.
// Exit 77 without a usable driver or device.
#include <cuda.h>
#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

namespace {
using clk = std::chrono::steady_clock;

struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*device_get)(CUdevice*, int);
  CUresult (*ctx_get_current)(CUcontext*);
  CUresult (*ctx_set_current)(CUcontext);
  CUresult (*primary_state)(CUdevice, unsigned*, int*);
  CUresult (*primary_retain)(CUcontext*, CUdevice);
  CUresult (*pointer_attributes)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
  CUresult (*pointer_attribute)(void*, CUpointer_attribute, CUdeviceptr);
  CUresult (*mem_alloc)(CUdeviceptr*, size_t);
} d;

template <class F>
double ns_per_call(F f) {
  constexpr int kSamples = 20001, kInner = 16;
  std::vector<double> t(kSamples);
  for (int s = 0; s < kSamples; ++s) {
    const auto t0 = clk::now();
    for (int i = 0; i < kInner; ++i) f();
    t[s] = std::chrono::duration<double, std::nano>(clk::now() - t0).count() / kInner;
  }
  std::sort(t.begin(), t.end());
  double sum = 0;
  const int n = kSamples * 9 / 10;
  for (int i = 0; i < n; ++i) sum += t[i];
  return sum / n;
}

volatile unsigned g_sink;
}  // namespace

int main() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::printf("# probe_pointer_query: no libcuda.so.1: skipped\n");
    return 77;
  }
  auto bind = [h](auto* slot, const char* name) {
    *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(h, name));
    return *slot != nullptr;
  };
  bool ok = bind(&d.init, "cuInit") && bind(&d.device_get, "cuDeviceGet") &&
            bind(&d.ctx_get_current, "cuCtxGetCurrent") && bind(&d.ctx_set_current, "cuCtxSetCurrent") &&
            bind(&d.primary_state, "cuDevicePrimaryCtxGetState") &&
            bind(&d.primary_retain, "cuDevicePrimaryCtxRetain") &&
            bind(&d.pointer_attributes, "cuPointerGetAttributes") &&
            bind(&d.pointer_attribute, "cuPointerGetAttribute") && bind(&d.mem_alloc, "cuMemAlloc_v2");
  CUdevice dev = 0;
  if (!ok || d.init(0) != CUDA_SUCCESS || d.device_get(&dev, 0) != CUDA_SUCCESS) {
    std::printf("# probe_pointer_query: no usable CUDA device: skipped\n");
    return 77;
  }
  const size_t bytes = 4u << 20;
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* heap = std::malloc(16384);
  static_cast<char*>(mapped)[0] = 1;
  static_cast<char*>(heap)[0] = 1;
  std::printf("# probe_pointer_query: the driver's answers that locate operands, ns per call\n");
  std::printf("context,question,pointer,ns_per_call\n");

  // No context: what any_context() asks on every call with an operand outside the heap.
  std::printf("none,cuCtxGetCurrent,-,%.1f\n", ns_per_call([] {
                CUcontext c;
                g_sink = d.ctx_get_current(&c);
              }));
  std::printf("none,cuDevicePrimaryCtxGetState,-,%.1f\n", ns_per_call([dev] {
                unsigned flags;
                int on;
                g_sink = d.primary_state(dev, &flags, &on);
              }));

  CUcontext ctx = nullptr;
  if (d.primary_retain(&ctx, dev) != CUDA_SUCCESS || d.ctx_set_current(ctx) != CUDA_SUCCESS) {
    std::printf("# no primary context: the rest skipped\n");
    return 0;
  }
  CUdeviceptr dptr = 0;
  if (d.mem_alloc(&dptr, bytes) != CUDA_SUCCESS) dptr = 0;
  struct Target {
    const char* name;
    CUdeviceptr p;
  };
  const Target targets[] = {{"mmap", CUdeviceptr(mapped)}, {"heap", CUdeviceptr(heap)}, {"device", dptr}};
  for (const Target& t : targets) {
    if (!t.p) continue;
    const CUdeviceptr p = t.p + 4096;
    std::printf("made,attributes(type+managed+ordinal),%s,%.1f\n", t.name, ns_per_call([p] {
                  CUpointer_attribute which[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                                  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
                  unsigned type = 0, managed = 0;
                  int ordinal = -1;
                  void* out[3] = {&type, &managed, &ordinal};
                  g_sink = d.pointer_attributes(3, which, out, p) + type;
                }));
    std::printf("made,attributes(type+managed),%s,%.1f\n", t.name, ns_per_call([p] {
                  CUpointer_attribute which[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
                  unsigned type = 0, managed = 0;
                  void* out[2] = {&type, &managed};
                  g_sink = d.pointer_attributes(2, which, out, p) + type + managed;
                }));
    std::printf("made,attributes(type),%s,%.1f\n", t.name, ns_per_call([p] {
                  CUpointer_attribute which[1] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE};
                  unsigned type = 0;
                  void* out[1] = {&type};
                  g_sink = d.pointer_attributes(1, which, out, p) + type;
                }));
    std::printf("made,attribute(type),%s,%.1f\n", t.name, ns_per_call([p] {
                  unsigned type = 0;
                  g_sink = d.pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) + type;
                }));
  }
  std::printf("made,cuCtxGetCurrent,-,%.1f\n", ns_per_call([] {
                CUcontext c;
                g_sink = d.ctx_get_current(&c);
              }));
  return 0;
}

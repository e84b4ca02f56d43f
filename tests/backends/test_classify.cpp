// Where dispatch says an operand lives (the verbose log's mem(a,x,y) field), for every kind of
// memory a program can pass, asked from a thread that has made no CUDA call of its own (no
// current context there): device and managed memory must never be taken for host memory.
// Runs with MYBLAS_BACKEND=cpu, so device operands are staged and every result is checked.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "myblas.h"

namespace {

constexpr int kN = 24;

enum class Kind { heap_small, heap_large, pinned, registered, device, device_offset, device_async, managed };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::heap_small: return "heap_small";
    case Kind::heap_large: return "heap_large";
    case Kind::pinned: return "pinned";
    case Kind::registered: return "registered";
    case Kind::device: return "device";
    case Kind::device_offset: return "device_offset";
    case Kind::device_async: return "device_async";
    case Kind::managed: return "managed";
  }
  return "?";
}

char expected_mem(Kind k) {
  return k == Kind::managed ? 'm' : (k == Kind::device || k == Kind::device_offset || k == Kind::device_async) ? 'd' : 'h';
}

// One buffer of `count` floats of the given kind; `at()` is the pointer handed to sgemv.
struct Buffer {
  Kind kind;
  size_t count;
  void* base = nullptr;
  float* ptr = nullptr;
  Buffer(Kind k, size_t n) : kind(k), count(n) {
    const size_t pad = k == Kind::device_offset ? 17 : 0;
    const size_t bytes = (n + pad) * sizeof(float);
    switch (k) {
      case Kind::heap_small: base = std::malloc(bytes); break;
      case Kind::heap_large: base = std::malloc(bytes + (8u << 20)); break;  // above the mmap threshold
      case Kind::pinned: EXPECT_EQ(cudaMallocHost(&base, bytes), cudaSuccess); break;
      case Kind::registered:
        base = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
        EXPECT_EQ(cudaHostRegister(base, (bytes + 4095) / 4096 * 4096, cudaHostRegisterDefault), cudaSuccess);
        break;
      case Kind::device:
      case Kind::device_offset: EXPECT_EQ(cudaMalloc(&base, bytes), cudaSuccess); break;
      case Kind::device_async:
        EXPECT_EQ(cudaMallocAsync(&base, bytes, nullptr), cudaSuccess);
        EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        break;
      case Kind::managed: EXPECT_EQ(cudaMallocManaged(&base, bytes), cudaSuccess); break;
    }
    ptr = static_cast<float*>(base) + pad;
  }
  ~Buffer() {
    switch (kind) {
      case Kind::heap_small:
      case Kind::heap_large: std::free(base); break;
      case Kind::pinned: cudaFreeHost(base); break;
      case Kind::registered: cudaHostUnregister(base); std::free(base); break;
      default: cudaFree(base); break;
    }
  }
  void put(const std::vector<float>& h) { ASSERT_EQ(cudaMemcpy(ptr, h.data(), count * 4, cudaMemcpyDefault), cudaSuccess); }
  std::vector<float> get() const {
    std::vector<float> h(count);
    EXPECT_EQ(cudaMemcpy(h.data(), ptr, count * 4, cudaMemcpyDefault), cudaSuccess);
    return h;
  }
};

std::string last_mem_field(const std::string& log) {
  std::ifstream in(log);
  std::string line, mem;
  while (std::getline(in, line)) {
    const size_t at = line.find("mem(a,x,y)=");
    if (line.rfind("myblas: sgemv ", 0) == 0 && at != std::string::npos) mem = line.substr(at + 11, 3);
  }
  return mem;
}

TEST(ClassifyDevice, EveryKindOfMemoryFromAThreadWithoutContext) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: there is nothing to classify";
  const char* log = std::getenv("MYBLAS_LOG");
  ASSERT_TRUE(log && *log) << "run through ctest (MYBLAS_LOG, MYBLAS_VERBOSE, MYBLAS_BACKEND=cpu)";
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the process has a context, this thread's current
  std::vector<float> a(size_t(kN) * kN), x(kN), want(kN, 0.f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i % 13) - 6) / 8.f;
  for (int i = 0; i < kN; ++i) x[size_t(i)] = float(i % 5 + 1) / 4.f;
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) want[size_t(i)] += a[size_t(i) + size_t(j) * kN] * x[size_t(j)];
  for (Kind k : {Kind::heap_small, Kind::heap_large, Kind::pinned, Kind::registered, Kind::device,
                 Kind::device_offset, Kind::device_async, Kind::managed}) {
    SCOPED_TRACE(kind_name(k));
    Buffer da(k, a.size()), dx(k, x.size()), dy(k, kN);
    da.put(a);
    dx.put(x);
    dy.put(std::vector<float>(kN, NAN));  // beta == 0: never read
    std::string path;
    // A fresh thread: no CUDA runtime call has made a context current on it.
    std::thread([&] {
      const int n = kN, inc = 1;
      const float one = 1.f, zero = 0.f;
      sgemv_("N", &n, &n, &one, da.ptr, &n, dx.ptr, &inc, &zero, dy.ptr, &inc);
      path = myblas_last_path();
    }).join();
    EXPECT_EQ(path, "cpu");
    const std::string expect(3, expected_mem(k));
    EXPECT_EQ(last_mem_field(log), expect) << "operands of kind " << kind_name(k) << " located wrongly";
    const std::vector<float> got = dy.get();
    for (int i = 0; i < kN; ++i) EXPECT_NEAR(got[size_t(i)], want[size_t(i)], 1e-4f) << "i=" << i;
  }
}

}  // namespace

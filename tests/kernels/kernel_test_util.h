// Helpers shared by the kernel tests: is there a GPU (and if not, why), and a host buffer
// mirrored in device memory.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kernel_test {

inline bool have_gpu(std::string* why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    *why = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(e);
    return false;
  }
  if (count == 0) {
    *why = "no CUDA device";
    return false;
  }
  return true;
}

// A host buffer mirrored on the device, optionally one float past an aligned address.
struct DevBuf {
  float* base = nullptr;  // allocation
  float* ptr = nullptr;   // where the host buffer's first element lives
  size_t count = 0;
  DevBuf(const std::vector<float>& host, int offset) : count(host.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&base), (count + 4) * sizeof(float)), cudaSuccess);
    ptr = base + offset;
    upload(host);
  }
  ~DevBuf() { cudaFree(base); }
  void upload(const std::vector<float>& host) {
    EXPECT_EQ(cudaMemcpy(ptr, host.data(), count * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  }
  void download(std::vector<float>* host) const {
    EXPECT_EQ(cudaMemcpy(host->data(), ptr, count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  }
};

}  // namespace kernel_test

// Skips the test, with the reason, when there is no GPU. `what` names the kernels under test.
#define KERNEL_TEST_REQUIRE_GPU(what)                                                 \
  do {                                                                                \
    std::string why_;                                                                 \
    if (!kernel_test::have_gpu(&why_)) GTEST_SKIP() << what " need a GPU: " << why_;  \
  } while (0)

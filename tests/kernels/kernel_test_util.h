// Helpers shared by the kernel tests: is there a GPU (and if not, why), and a host buffer
// mirrored in device memory.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
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
    host->resize(count);  // (the whole buffer comes back: a shorter vector would be overrun)
    EXPECT_EQ(cudaMemcpy(host->data(), ptr, count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  }
};

// MYBLAS_TEST_EVERY_DEVICE=1 with --gtest_repeat=N --gtest_recreate_environments_when_repeating=1
// (without it gtest sets environments up once): repeat i runs every test on device i, all in
// one process, so that what a launcher keeps per device (its raised shared-memory limit, the SM
// count, the tensor-map probe, the scratch pool) is set up on each device in turn; a launcher
// that kept it per process would fail on the second. With fewer than two devices every repeat
// is skipped, and repeats past the last device are too, saying why ("needs two CUDA devices").
class EveryDevice : public ::testing::Environment {
 public:
  void SetUp() override {
    const int i = repeat_++;
    if (!std::getenv("MYBLAS_TEST_EVERY_DEVICE")) return;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (count < 2 || i >= count) {
      std::printf("MYBLAS_TEST_EVERY_DEVICE: repeat %d skipped: needs two CUDA devices, found %d\n", i, count);
      GTEST_SKIP() << "needs two CUDA devices, found " << count;
    }
    ASSERT_EQ(cudaSetDevice(i), cudaSuccess);
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, i) == cudaSuccess)
      std::printf("MYBLAS_TEST_EVERY_DEVICE: repeat %d runs on device %d (%s)\n", i, i, prop.name);
  }

 private:
  int repeat_ = 0;
};
inline ::testing::Environment* const kEveryDevice = ::testing::AddGlobalTestEnvironment(new EveryDevice);

}  // namespace kernel_test

// Skips the test, with the reason, when there is no GPU. `what` names the kernels under test.
#define KERNEL_TEST_REQUIRE_GPU(what)                                                 \
  do {                                                                                \
    std::string why_;                                                                 \
    if (!kernel_test::have_gpu(&why_)) GTEST_SKIP() << what " need a GPU: " << why_;  \
  } while (0)

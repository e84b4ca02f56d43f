// A program that only passes host arrays in auto mode must not pay for CUDA: no context
// is created (it would cost ~100 ms and GPU memory) and cuBLAS is never loaded. Its own
// process, because any earlier GPU use in the same process would hide the answer.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <random>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

// The driver is opened at run time: a test binary linked to libcuda would not even start on
// a machine without a driver, where it must skip instead.
bool primary_context_active() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr);
  if (!h) return true;
  auto device_get = reinterpret_cast<CUresult (*)(CUdevice*, int)>(dlsym(h, "cuDeviceGet"));
  auto state = reinterpret_cast<CUresult (*)(CUdevice, unsigned*, int*)>(
      dlsym(h, "cuDevicePrimaryCtxGetState"));
  CUdevice dev;
  unsigned flags = 0;
  int active = 0;
  EXPECT_EQ(device_get(&dev, 0), CUDA_SUCCESS);
  EXPECT_EQ(state(dev, &flags, &active), CUDA_SUCCESS);
  return active != 0;
}

TEST(LazyContextDevice, HostCallsCreateNoContextAndLoadNoCublas) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: nothing to be lazy about";
  std::mt19937_64 rng(mbtest::test_seed());
  const int m = 33, n = 17, k = 29;
  mbtest::Matrix a(m, k, m, rng), b(k, n, k, rng), c(m, n, m, rng);
  mbtest::Vector x(k, 1, rng), y(m, 1, rng);
  const float alpha = 0.5f, beta = -1.f;
  const int one = 1;
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m);
  EXPECT_STREQ(myblas_last_path(), "cpu");
  sgemv_("N", &m, &k, &alpha, a.data(), &m, x.data(), &one, &beta, y.data(), &one);
  EXPECT_STREQ(myblas_last_path(), "cpu");
  EXPECT_FALSE(primary_context_active()) << "host-only calls created a CUDA context";
  EXPECT_EQ(dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD), nullptr)
      << "host-only calls loaded cuBLAS";

  // The first device operand is what starts CUDA, and it goes to the GPU.
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(float) * m * n), cudaSuccess);
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, d, &m);
  EXPECT_STREQ(myblas_last_path(), "cublas");
  EXPECT_TRUE(primary_context_active());
  cudaFree(d);
}

}  // namespace

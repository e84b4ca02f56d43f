// NVTX ranges around every call (src/dispatch/call_range.h), recorded by a minimal NVTX tool
// (nvtx_recorder.cpp, loaded through NVTX_INJECTION64_PATH as Nsight's is): one range per call
// named by routine, options and shape, one inside it per path tried, every push popped, the
// nesting right. Runs on whatever path the machine has (the CPU in CI; with a GPU the device
// calls show their GPU path).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/data.h"
#include "myblas.h"

namespace {

std::vector<std::string> record() {
  const char* path = std::getenv("NVTX_INJECTION64_PATH");
  if (!path) return {};
  void* h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);  // the copy NVTX loaded
  if (!h) return {};
  auto log = reinterpret_cast<std::string* (*)()>(dlsym(h, "nvtx_recorder_log"));
  std::vector<std::string> lines;
  std::istringstream in(*log());
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  dlclose(h);
  return lines;
}

std::vector<float> random_floats(size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

TEST(CallRanges, EveryCallIsARangeNamedByRoutineShapeAndPath) {
  ASSERT_NE(std::getenv("NVTX_INJECTION64_PATH"), nullptr) << "run through ctest (sets NVTX_INJECTION64_PATH)";
  std::mt19937_64 rng(mbtest::test_seed());
  const int m = 17, n = 19, k = 23, inc = 1;
  const float alpha = 1.f, half = 0.5f;
  std::vector<float> a = random_floats(size_t(m) * k, rng), b = random_floats(size_t(k) * n, rng),
                     c = random_floats(size_t(m) * n, rng), x = random_floats(k, rng), y = random_floats(m, rng);
  sgemm_("N", "T", &m, &n, &k, &alpha, a.data(), &m, b.data(), &n, &half, c.data(), &m);
  sgemv_("N", &m, &k, &alpha, a.data(), &m, x.data(), &inc, &half, y.data(), &inc);
  std::vector<double> da(size_t(m) * k, 0.25), dc(size_t(m) * m, 0.5);
  const double dalpha = 1.0, dbeta = 0.5;
  dsyrk_("U", "N", &m, &k, &dalpha, da.data(), &m, &dbeta, dc.data(), &m);
  const std::vector<std::string> log = record();
  ASSERT_FALSE(log.empty()) << "the recorder saw nothing: NVTX did not load it";
  std::string text;
  for (const std::string& l : log) text += l + "\n";
  // Exactly one domain, ours; calls at depth 0, their path at depth 1, then pops back to 0.
  ASSERT_EQ(log[0], "domain myblas") << text;
  int pushes = 0, pops = 0;
  for (const std::string& l : log) {
    if (l.rfind("pop ", 0) == 0) ++pops;
    else if (l.rfind("domain ", 0) != 0) ++pushes;
  }
  EXPECT_EQ(pushes, 6) << text;
  EXPECT_EQ(pops, pushes) << text;
  const std::string path = myblas_gpu_available() ? "" : "cpu";  // (on a GPU: whatever dispatch chose)
  auto expect_call = [&](size_t at, const std::string& name) {
    ASSERT_LT(at + 3, log.size()) << text;
    EXPECT_EQ(log[at], "0 " + name) << text;
    EXPECT_EQ(log[at + 1].rfind("1 " + path, 0), 0u) << text;
    EXPECT_EQ(log[at + 2], "pop 1") << text;
    EXPECT_EQ(log[at + 3], "pop 0") << text;
  };
  expect_call(1, "sgemm NT 17x19x23 beta=0.5");
  expect_call(5, "sgemv N 17x23 beta=0.5");
  expect_call(9, "dsyrk LUNNN 17x17x23");
}

// Device operands on a GPU: the path range names the kernel or cuBLAS (the measured table's
// rows: SGEMM 16 x 4096 x 4096 on skinny_r16, 1024^3 on cuBLAS).
TEST(CallRanges, DeviceCallsNameTheirGpuPath) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: device-operand calls need one";
  std::mt19937_64 rng(mbtest::test_seed() + 1);
  const size_t before = record().size();
  struct Case {
    int m, n, k;
    const char* path_prefix;
  };
  const Case cases[] = {{16, 4096, 4096, "1 kernels:"}, {1024, 1024, 1024, "1 cublas"}};
  for (const Case& c : cases) {
    float *a, *b, *d;
    ASSERT_EQ(cudaMalloc(&a, size_t(c.m) * c.k * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b, size_t(c.k) * c.n * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, size_t(c.m) * c.n * 4), cudaSuccess);
    std::vector<float> h = random_floats(size_t(c.k) * std::max(c.m, c.n), rng);
    cudaMemcpy(a, h.data(), size_t(c.m) * c.k * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(b, h.data(), size_t(c.k) * c.n * 4, cudaMemcpyHostToDevice);
    const float alpha = 1.f, beta = 0.f;
    sgemm_("N", "N", &c.m, &c.n, &c.k, &alpha, a, &c.m, b, &c.k, &beta, d, &c.m);
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
  }
  const std::vector<std::string> log = record();
  std::string text;
  for (size_t i = before; i < log.size(); ++i) text += log[i] + "\n";
  ASSERT_EQ(log.size(), before + 8) << text;
  for (size_t c = 0; c < 2; ++c) {
    const size_t at = before + 4 * c;
    EXPECT_EQ(log[at], "0 sgemm NN " + std::to_string(cases[c].m) + "x" + std::to_string(cases[c].n) + "x" +
                           std::to_string(cases[c].k) + " beta=0")
        << text;
    EXPECT_EQ(log[at + 1].rfind(cases[c].path_prefix, 0), 0u) << text;
    EXPECT_EQ(log[at + 2], "pop 1") << text;
    EXPECT_EQ(log[at + 3], "pop 0") << text;
  }
}

}  // namespace

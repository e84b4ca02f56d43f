// A GPU-path failure completes the call on the CPU: correct result, path "cpu", and one
// warning however many calls fail the same way. Failures are injected with the test-only
// MYBLAS_TEST_FAULT (set per ctest entry, with MYBLAS_LOG, and MYBLAS_BACKEND=cublas, or
// MYBLAS_BACKEND=kernels for the point `launch`, which only our kernels' launches reach).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

int count_lines_with(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
  return n;
}

// Runs `calls` SGEMMs and checks each against OpenBLAS. With `device` the operands live on
// the GPU; with beta != 0, C must still be right, so a failed GPU attempt left it intact.
void run(int calls, bool device, const char* expect_path, float beta = -0.75f) {
  std::mt19937_64 rng(mbtest::test_seed());
  for (int t = 0; t < calls; ++t) {
    const int m = 40 + t, n = 23, k = 31, lda = m + 1, ldb = k, ldc = m + 2;
    mbtest::Matrix a(m, k, lda, rng), b(k, n, ldb, rng), c(m, n, ldc, rng);
    const float alpha = 0.5f;
    if (beta == 0.f) c.fill_nan();  // must not be read
    mbtest::Matrix want = c;
    mbtest::ref_sgemm('N', 'N', m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc);
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    const float *pa = a.data(), *pb = b.data();
    float* pc = c.data();
    if (device) {
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), a.buf.size() * 4), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), b.buf.size() * 4), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), c.buf.size() * 4), cudaSuccess);
      cudaMemcpy(da, a.buf.data(), a.buf.size() * 4, cudaMemcpyHostToDevice);
      cudaMemcpy(db, b.buf.data(), b.buf.size() * 4, cudaMemcpyHostToDevice);
      cudaMemcpy(dc, c.buf.data(), c.buf.size() * 4, cudaMemcpyHostToDevice);
      pa = da + mbtest::Matrix::kPad;
      pb = db + mbtest::Matrix::kPad;
      pc = dc + mbtest::Matrix::kPad;
    }
    sgemm_("N", "N", &m, &n, &k, &alpha, pa, &lda, pb, &ldb, &beta, pc, &ldc);
    EXPECT_STREQ(myblas_last_path(), expect_path) << "call " << t;
    if (device) {
      cudaMemcpy(c.buf.data(), dc, c.buf.size() * 4, cudaMemcpyDeviceToHost);
      cudaFree(da);
      cudaFree(db);
      cudaFree(dc);
    }
    EXPECT_EQ(c.damaged_guards(), 0);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i)
        ASSERT_NEAR(c.at(i, j), want.at(i, j), (k + 2) * 4 * FLT_EPSILON * (0.5 * k + 1))
            << "fault=" << env("MYBLAS_TEST_FAULT") << " call " << t << " (" << i << "," << j
            << ") seed " << mbtest::test_seed();
  }
}

TEST(FallbackDevice, InjectedFaultCompletesOnCpuWithOneWarning) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: there is no GPU path to fail";
  const std::string fault = env("MYBLAS_TEST_FAULT"), log = env("MYBLAS_LOG");
  ASSERT_FALSE(fault.empty()) << "run through ctest: MYBLAS_TEST_FAULT selects the fault";
  ASSERT_FALSE(log.empty());
  std::ofstream(log, std::ios::trunc).close();  // before the library opens it (append mode)

  run(12, false, "cpu");  // host operands: every step can fail, so every call falls back
  if (fault == "launch") {
    // Our kernel on device operands in place: the injected launch failure runs nothing (as a
    // real one), so the CPU redoes the call from the caller's C, with beta == 0 and != 0.
    run(6, true, "cpu", 0.f);
    run(6, true, "cpu");
  } else {
    // Device operands in place need no allocation or copy: only cudaSetDevice and cuBLAS
    // failures hit them.
    run(12, true, fault == "cublas" || fault == "device" ? "cpu" : "cublas");
  }
  EXPECT_EQ(count_lines_with(log, "warning"), 1) << "expected exactly one warning in " << log;
  EXPECT_EQ(count_lines_with(log, "completing on the CPU"), 1);
}

}  // namespace

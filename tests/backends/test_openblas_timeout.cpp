// OpenBLAS's idle-thread timeout (backends/cpu/cpu_blas.h): where a GPU path may run, myblas loads
// OpenBLAS with OPENBLAS_THREAD_TIMEOUT=20; MYBLAS_OPENBLAS_THREAD_TIMEOUT=N sets another value,
// =keep leaves OpenBLAS's default, and a user's OPENBLAS_THREAD_TIMEOUT stands. The decision is a
// pure function, checked here case by case; each ctest entry (tests/backends/CMakeLists.txt)
// names in TEST_EXPECT_TIMEOUT what the loaded OpenBLAS must have read ("none": its default;
// "auto": 20 where the NVIDIA driver's device is present and the backend is not cpu, else none),
// as OpenBLAS itself reports it (openblas_thread_timeout, shown by myblas_cpu_blas()), and in
// TEST_EXPECT_LOG a line the log must hold (an unknown setting warns). After the
// load, SGEMM through the library still agrees with a float64 loop.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <cstdlib>
#include <random>
#include <string>

#include "backends/cpu/cpu_blas.h"
#include "common/data.h"
#include "myblas.h"

namespace {

TEST(OpenblasTimeout, Decision) {
  using myblas::openblas_timeout_to_set;
  const int k = myblas::kOpenblasThreadTimeout;
  // auto (0): only where a GPU path may run, and never over the user's variable or a copy the
  // program loaded (it has read its environment already).
  EXPECT_EQ(openblas_timeout_to_set(0, false, false, true), k);
  EXPECT_EQ(openblas_timeout_to_set(0, false, false, false), 0);
  EXPECT_EQ(openblas_timeout_to_set(0, true, false, true), 0);
  EXPECT_EQ(openblas_timeout_to_set(0, false, true, true), 0);
  // an explicit value: also without a GPU, but not over the user's variable or a loaded copy
  EXPECT_EQ(openblas_timeout_to_set(12, false, false, false), 12);
  EXPECT_EQ(openblas_timeout_to_set(12, false, false, true), 12);
  EXPECT_EQ(openblas_timeout_to_set(12, true, false, true), 0);
  EXPECT_EQ(openblas_timeout_to_set(12, false, true, false), 0);
  // keep (-1): never
  EXPECT_EQ(openblas_timeout_to_set(-1, false, false, true), 0);
  EXPECT_EQ(openblas_timeout_to_set(-1, false, false, false), 0);
  EXPECT_GE(k, 4);
  EXPECT_LE(k, 30);
}

TEST(OpenblasTimeout, LoadedAsExpected) {
  const char* expect = std::getenv("TEST_EXPECT_TIMEOUT");
  if (!expect) GTEST_SKIP() << "run through ctest (TEST_EXPECT_TIMEOUT)";
  const char* expect_log = std::getenv("TEST_EXPECT_LOG");
  if (expect_log && std::getenv("MYBLAS_LOG")) std::remove(std::getenv("MYBLAS_LOG"));  // (appended to across runs)
  const std::string got = myblas_cpu_blas();  // loads the CPU BLAS: the first thing this process does
  if (got.find("OpenBLAS") == std::string::npos) GTEST_SKIP() << "the CPU BLAS is not OpenBLAS: " << got;
  std::string want = expect;
  if (want == "auto") {
    const char* b = std::getenv("MYBLAS_BACKEND");
    const bool gpu_may_run = access("/dev/nvidiactl", F_OK) == 0 && !(b && std::string(b) == "cpu");
    want = gpu_may_run ? std::to_string(myblas::kOpenblasThreadTimeout) : "none";
  }
  if (want == "none")
    EXPECT_EQ(got.find("idle threads sleep"), std::string::npos) << "myblas_cpu_blas(): " << got;
  else
    EXPECT_NE(got.find("idle threads sleep after 2^" + want + " cycles"), std::string::npos)
        << "myblas_cpu_blas(): " << got;
  // TEST_EXPECT_LOG: text the library's log (MYBLAS_LOG) must hold, e.g. a warning.
  if (expect_log) {
    std::ifstream in(std::getenv("MYBLAS_LOG"));
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(all.find(expect_log), std::string::npos) << "the log lacks: " << expect_log;
  }
  // The variable myblas set for OpenBLAS's initialisation is gone again (the user's stays).
  if (!std::getenv("TEST_USER_TIMEOUT")) EXPECT_EQ(std::getenv("OPENBLAS_THREAD_TIMEOUT"), nullptr);

  // SGEMM on the loaded library, beta 0 with NaN in C, against float64 with a k-scaled bound.
  std::mt19937_64 rng(mbtest::test_seed());
  const int m = 97, n = 83, kk = 211;
  mbtest::Matrix a(m, kk, m + 3, rng), bm(kk, n, kk + 1, rng), c(m, n, m + 2, rng);
  c.fill_nan();
  const float alpha = 0.75f, beta = 0.f;
  sgemm_("N", "N", &m, &n, &kk, &alpha, a.data(), &a.ld, bm.data(), &bm.ld, &beta, c.data(), &c.ld);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0, sa = 0;
      for (int l = 0; l < kk; ++l) {
        s += double(a.at(i, l)) * bm.at(l, j);
        sa += std::fabs(double(a.at(i, l)) * bm.at(l, j));
      }
      ASSERT_LE(std::fabs(c.at(i, j) - alpha * s), (kk + 2) * 1.2e-7 * alpha * sa + 1e-30) << i << "," << j;
    }
  EXPECT_EQ(c.damaged_guards(), 0);
}

}  // namespace

// myblas_set_backend / myblas_get_backend: the process-wide override of MYBLAS_BACKEND. The
// override decides the path of the next call (myblas_last_path), unknown names change nothing,
// NULL returns to the environment's setting, and the results stay the reference's on every path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "myblas.h"

namespace {

// The environment's setting as the library reads it (unset or unknown: auto).
std::string env_backend() {
  const char* v = std::getenv("MYBLAS_BACKEND");
  std::string s = v ? v : "";
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s == "cpu" || s == "cublas" || s == "kernels" ? s : "auto";
}

// One host-array DGEMM (n x n, k = n, beta 0.5) through dgemm_, checked against a plain loop
// with a bound that scales with k; returns the path that ran it.
std::string dgemm_path(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(size_t(n) * n), b(a.size()), c(a.size());
  for (auto* v : {&a, &b, &c})
    for (double& x : *v) x = u(rng);
  std::vector<double> want(c);
  const double alpha = 0.75, beta = 0.5;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int l = 0; l < n; ++l) s += a[i + size_t(l) * n] * b[l + size_t(j) * n];
      want[i + size_t(j) * n] = alpha * s + beta * c[i + size_t(j) * n];
    }
  const char N = 'N';
  dgemm_(&N, &N, &n, &n, &n, &alpha, a.data(), &n, b.data(), &n, &beta, c.data(), &n);
  const std::string path = myblas_last_path();
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], want[i], 2.2e-16 * double(n) * n) << "element " << i << " on path " << path;
  return path;
}

class BackendSetting : public ::testing::Test {
 protected:
  void TearDown() override { myblas_set_backend(nullptr); }
};

TEST_F(BackendSetting, StartsAtTheEnvironmentsSetting) {
  EXPECT_STREQ(myblas_get_backend(), env_backend().c_str());
}

TEST_F(BackendSetting, NamesInAnyCaseAndBackToTheEnvironment) {
  for (const char* name : {"cpu", "CUBLAS", "Kernels", "auto"}) {
    ASSERT_EQ(myblas_set_backend(name), 0) << name;
    std::string lower(name);
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(std::string(myblas_get_backend()), lower);
  }
  ASSERT_EQ(myblas_set_backend(nullptr), 0);
  EXPECT_STREQ(myblas_get_backend(), env_backend().c_str());
}

TEST_F(BackendSetting, UnknownNameChangesNothing) {
  ASSERT_EQ(myblas_set_backend("cpu"), 0);
  EXPECT_EQ(myblas_set_backend("gpu"), -1);
  EXPECT_EQ(myblas_set_backend(""), -1);
  EXPECT_STREQ(myblas_get_backend(), "cpu");
}

TEST_F(BackendSetting, DecidesTheNextCallsPath) {
  ASSERT_EQ(myblas_set_backend("cpu"), 0);
  EXPECT_EQ(dgemm_path(67, 1), "cpu");
  ASSERT_EQ(myblas_set_backend("cublas"), 0);
  // Without a GPU every backend runs on the CPU.
  EXPECT_EQ(dgemm_path(67, 2), myblas_gpu_available() ? "cublas" : "cpu");
  ASSERT_EQ(myblas_set_backend("cpu"), 0);
  EXPECT_EQ(dgemm_path(67, 3), "cpu");
}

}  // namespace

// An unknown MYBLAS_BACKEND is reported once and runs as auto, also where host-array calls go
// straight to the CPU BLAS (a process without a GPU). Run by the ctest entry
// test_interface_backend_setting.unknown, which sets MYBLAS_BACKEND=no-such-backend; skipped elsewhere.
TEST(BackendSettingEnvironment, UnknownNameWarnsOnce) {
  const char* v = std::getenv("MYBLAS_BACKEND");
  if (!v || std::strcmp(v, "no-such-backend") != 0)
    GTEST_SKIP() << "MYBLAS_BACKEND is not no-such-backend (the .unknown ctest entry sets it)";
  const int n = 17, one = 1;
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(size_t(n) * n), x(n), y(n);
  for (auto* vec : {&a, &x, &y})
    for (float& e : *vec) e = u(rng);
  std::vector<float> want(y);
  const float alpha = 0.5f, beta = -1.f;
  for (int i = 0; i < n; ++i) {
    float s = 0;
    for (int j = 0; j < n; ++j) s += a[i + size_t(j) * n] * x[j];
    want[i] = alpha * s + beta * y[i];
  }
  testing::internal::CaptureStderr();
  sgemv_("N", &n, &n, &alpha, a.data(), &n, x.data(), &one, &beta, y.data(), &one);
  const std::string err = testing::internal::GetCapturedStderr();
  for (int i = 0; i < n; ++i) EXPECT_NEAR(y[i], want[i], 1e-5f * n) << "i=" << i;
  const std::string text = "unknown MYBLAS_BACKEND 'no-such-backend'";
  const size_t first = err.find(text);
  EXPECT_NE(first, std::string::npos) << "stderr: " << err;
  if (first != std::string::npos) EXPECT_EQ(err.find(text, first + 1), std::string::npos) << "stderr: " << err;
  testing::internal::CaptureStderr();
  sgemv_("T", &n, &n, &alpha, a.data(), &n, x.data(), &one, &beta, y.data(), &one);
  EXPECT_EQ(testing::internal::GetCapturedStderr().find(text), std::string::npos) << "warned twice";
  EXPECT_STREQ(myblas_get_backend(), "auto");
}

// Where operands live versus where the call runs: device operands go to cuBLAS in auto mode,
// are staged through the host when the CPU path is forced, and a caller's stream is honoured.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

std::string backend() {
  const char* b = std::getenv("MYBLAS_BACKEND");
  return b ? b : "auto";
}

// A padded host matrix mirrored in device memory (the whole buffer, guards included).
struct DeviceCopy {
  float* base = nullptr;
  size_t count = 0;
  explicit DeviceCopy(const std::vector<float>& host) : count(host.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&base), count * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(base, host.data(), count * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceCopy() { cudaFree(base); }
  void to_host(std::vector<float>* host) const {
    EXPECT_EQ(cudaMemcpy(host->data(), base, count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  }
};

// |got - want| within (k+2)*4*eps*(|alpha| |A||B| + |beta||C0|) elementwise.
void expect_gemm_close(const mbtest::Matrix& got, const mbtest::Matrix& want, const mbtest::Matrix& a,
                       const mbtest::Matrix& b, const mbtest::Matrix& c0, float alpha, float beta, int k) {
  const int m = got.rows, n = got.cols;
  std::vector<double> scale(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l) s += std::fabs(a.at(i, l)) * std::fabs(b.at(l, j));
      scale[size_t(i) + size_t(j) * m] = std::fabs(alpha) * s + (beta == 0.f ? 0 : std::fabs(beta * c0.at(i, j)));
    }
  mbtest::Worst w = mbtest::compare(got.data(), got.ld, want.data(), want.ld, scale, m, n,
                                    (k + 2) * 4.0 * FLT_EPSILON);
  EXPECT_LE(w.ratio, 1.0) << "m=" << m << " n=" << n << " k=" << k << " worst at (" << w.i << ","
                          << w.j << ") got " << w.got << " want " << w.want << " seed "
                          << mbtest::test_seed();
  EXPECT_EQ(got.damaged_guards(), 0);
}

void run_device_sgemm(const char* expect_path, void* stream) {
  std::mt19937_64 rng(mbtest::test_seed() + 1);
  const int m = 131, n = 67, k = 95, lda = m + 3, ldb = k + 2, ldc = m + 5;
  mbtest::Matrix a(m, k, lda, rng), b(k, n, ldb, rng), c(m, n, ldc, rng);
  const mbtest::Matrix c0 = c;
  const float alpha = 0.75f, beta = -0.5f;
  mbtest::Matrix want = c;
  mbtest::ref_sgemm('N', 'N', m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc);
  DeviceCopy da(a.buf), db(b.buf), dc(c.buf);
  const int off = mbtest::Matrix::kPad;
  ASSERT_EQ(myblas_set_stream(stream), 0);
  EXPECT_EQ(myblas_get_stream(), stream);
  sgemm_("N", "N", &m, &n, &k, &alpha, da.base + off, &lda, db.base + off, &ldb, &beta,
         dc.base + off, &ldc);
  EXPECT_STREQ(myblas_last_path(), expect_path);
  if (stream) ASSERT_EQ(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), cudaSuccess);
  myblas_set_stream(nullptr);
  dc.to_host(&c.buf);
  expect_gemm_close(c, want, a, b, c0, alpha, beta, k);
}

#define REQUIRE_GPU() \
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: device-pointer paths cannot run"

TEST(CudaPathsDevice, AutoSendsDeviceOperandsToCublas) {
  REQUIRE_GPU();
  if (backend() != "auto") GTEST_SKIP() << "this case is for MYBLAS_BACKEND=auto";
  run_device_sgemm("cublas", nullptr);
}

TEST(CudaPathsDevice, CallerStreamIsUsed) {
  REQUIRE_GPU();
  if (backend() != "auto") GTEST_SKIP() << "this case is for MYBLAS_BACKEND=auto";
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  run_device_sgemm("cublas", s);
  cudaStreamDestroy(s);
}

// MYBLAS_BACKEND=cpu with device pointers: staged through the host, never misread.
TEST(CudaPathsDevice, CpuForcedStagesDeviceOperands) {
  REQUIRE_GPU();
  if (backend() != "cpu") GTEST_SKIP() << "this case is for MYBLAS_BACKEND=cpu";
  run_device_sgemm("cpu", nullptr);

  // sgemv with negative and non-unit increments, NaN in y with beta == 0.
  std::mt19937_64 rng(mbtest::test_seed() + 2);
  const int m = 45, n = 38, lda = 50, incx = -2, incy = 3;
  mbtest::Matrix a(m, n, lda, rng);
  mbtest::Vector x(m, incx, rng), y(n, incy, rng);
  y.fill_nan();
  const float alpha = 1.25f, beta = 0.f;
  mbtest::Vector want = y;
  mbtest::ref_sgemv('T', m, n, alpha, a.data(), lda, x.data(), incx, beta, want.data(), incy);
  DeviceCopy da(a.buf), dx(x.buf), dy(y.buf);
  const int off = mbtest::Vector::kPad;
  sgemv_("T", &m, &n, &alpha, da.base + mbtest::Matrix::kPad, &lda, dx.base + off, &incx, &beta,
         dy.base + off, &incy);
  EXPECT_STREQ(myblas_last_path(), "cpu");
  dy.to_host(&y.buf);
  EXPECT_EQ(y.damaged_guards(), 0);
  for (int i = 0; i < n; ++i) {
    ASSERT_FALSE(std::isnan(y.at(i))) << "NaN in y leaked through beta == 0 at " << i;
    EXPECT_NEAR(y.at(i), want.at(i), (m + 2) * 4 * FLT_EPSILON * 1.25 * m) << "i=" << i;
  }
}

}  // namespace

// Two GPUs in one process (label gpu; skipped, with the reason, on machines with fewer). A GPU
// path runs on C's device (else A's or B's); operands that live on another device are staged
// peer to peer; the caller's current device is the same after the call as before it. Each case
// runs under the MYBLAS_BACKEND its ctest entry sets (auto, kernels, cublas) and is compared with
// OpenBLAS on the host.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

// Skips unless there are two CUDA devices; leaves device 0 current.
#define REQUIRE_TWO_GPUS()                                                                        \
  do {                                                                                            \
    int count_ = 0;                                                                               \
    if (cudaGetDeviceCount(&count_) != cudaSuccess) count_ = 0;                                   \
    if (count_ < 2) GTEST_SKIP() << "needs two CUDA devices, found " << count_;                  \
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);                                                     \
  } while (0)

// Whether the call just made ran on the CPU although it must not have: operands on a device, or a
// GPU backend forced (a GPU failure falls back to the CPU with a warning; here it may not).
bool ran_on_cpu_wrongly(bool any_device) {
  const char* b = std::getenv("MYBLAS_BACKEND");
  const bool forced_gpu = b && (!std::strcmp(b, "kernels") || !std::strcmp(b, "cublas"));
  return (any_device || forced_gpu) && !std::strcmp(myblas_last_path(), "cpu");
}

// A padded host buffer (guards included) copied to device `dev`, or left on the host (dev < 0).
struct Placed {
  std::vector<float>* host;
  int dev;
  float* base = nullptr;
  Placed(std::vector<float>* h, int d) : host(h), dev(d) {
    if (dev < 0) return;
    int saved = 0;
    cudaGetDevice(&saved);
    EXPECT_EQ(cudaSetDevice(dev), cudaSuccess);
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&base), host->size() * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(base, host->data(), host->size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    cudaSetDevice(saved);
  }
  ~Placed() {
    if (base) cudaFree(base);
  }
  float* ptr(int pad) { return (dev < 0 ? host->data() : base) + pad; }
  void back() {  // the device copy into the host buffer
    if (dev >= 0)
      EXPECT_EQ(cudaMemcpy(host->data(), base, host->size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  }
};

// C := alpha A B + beta C (A 'N', B 'T', padded leading dimensions) with A, B and C on the given
// devices (-1: host) while device `current` is current; checked against OpenBLAS, C's padding
// guards, and the current device afterwards.
void run_sgemm(int dev_a, int dev_b, int dev_c, int current, float beta) {
  SCOPED_TRACE("A on " + std::to_string(dev_a) + ", B on " + std::to_string(dev_b) + ", C on " +
               std::to_string(dev_c) + ", current " + std::to_string(current) + ", beta " +
               std::to_string(beta) + ", seed " + std::to_string(mbtest::test_seed()));
  std::mt19937_64 rng(mbtest::test_seed() + uint64_t(dev_a + 2) * 9 + uint64_t(dev_b + 2) * 3 + uint64_t(dev_c + 2));
  const int m = 261, n = 131, k = 75, lda = m + 3, ldb = n + 1, ldc = m + 7;
  mbtest::Matrix a(m, k, lda, rng), b(n, k, ldb, rng), c(m, n, ldc, rng);
  const mbtest::Matrix c0 = c;
  if (beta == 0.f) c.fill_nan();
  const float alpha = 0.75f;
  mbtest::Matrix want = c0;
  mbtest::ref_sgemm('N', 'T', m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc);

  Placed pa(&a.buf, dev_a), pb(&b.buf, dev_b), pc(&c.buf, dev_c);
  ASSERT_EQ(cudaSetDevice(current), cudaSuccess);
  const int pad = mbtest::Matrix::kPad;
  sgemm_("N", "T", &m, &n, &k, &alpha, pa.ptr(pad), &lda, pb.ptr(pad), &ldb, &beta, pc.ptr(pad), &ldc);
  EXPECT_FALSE(ran_on_cpu_wrongly(dev_a >= 0 || dev_b >= 0 || dev_c >= 0)) << "fell back to the CPU";
  int now = -1;
  ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
  EXPECT_EQ(now, current) << "the call changed the current device";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  pc.back();

  const std::vector<double> scale =
      mbtest::gemm_scale('N', 'T', m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c0.data(), ldc);
  const mbtest::Worst w =
      mbtest::compare(c.data(), ldc, want.data(), ldc, scale, m, n, (k + 2) * 4.0 * FLT_EPSILON);
  EXPECT_LE(w.ratio, 1.0) << "worst at (" << w.i << "," << w.j << ") got " << w.got << " want " << w.want
                          << " (path " << myblas_last_path() << ")";
  EXPECT_EQ(c.damaged_guards(), 0);
}

TEST(MultiDevice, DeviceOperandsOnTheOtherDevice) {
  REQUIRE_TWO_GPUS();
  run_sgemm(1, 1, 1, 0, 0.5f);  // everything on device 1, device 0 current
  run_sgemm(0, 0, 0, 1, 0.f);   // and the other way round, beta 0 over NaN
}

TEST(MultiDevice, DeviceOperandsSplitAcrossDevices) {
  REQUIRE_TWO_GPUS();
  run_sgemm(0, -1, 1, 0, -1.5f);  // A on 0, B on the host, C on 1 (runs on 1)
  run_sgemm(1, 0, 0, 1, 0.f);     // A on 1, B and C on 0, device 1 current (runs on 0)
}

TEST(MultiDevice, DeviceHostOperandsWithTheSecondDeviceCurrent) {
  REQUIRE_TWO_GPUS();
  run_sgemm(-1, -1, -1, 1, 0.5f);
}

// Every device in turn, twice over, in one process: what the library keeps per device (kernel
// shared-memory limits, SM counts, scratch pools, cuBLAS handles) is set up on each.
TEST(MultiDevice, DeviceAlternatingCalls) {
  REQUIRE_TWO_GPUS();
  for (int round = 0; round < 2; ++round)
    for (int d = 0; d < 2; ++d) run_sgemm(d, d, d, 1 - d, round ? 0.f : 0.25f);
}

// sgemv with y on device 1 and x on device 0, negative increment, device 0 current.
TEST(MultiDevice, DeviceSgemvAcrossDevices) {
  REQUIRE_TWO_GPUS();
  std::mt19937_64 rng(mbtest::test_seed() + 77);
  const int m = 300, n = 190, lda = 305, incx = -2, incy = 1;
  mbtest::Matrix a(m, n, lda, rng);
  mbtest::Vector x(n, incx, rng), y(m, incy, rng);
  const float alpha = 1.25f, beta = -0.5f;
  mbtest::Vector want = y, y0 = y;
  mbtest::ref_sgemv('N', m, n, alpha, a.data(), lda, x.data(), incx, beta, want.data(), incy);
  Placed pa(&a.buf, 1), px(&x.buf, 0), py(&y.buf, 1);
  sgemv_("N", &m, &n, &alpha, pa.ptr(mbtest::Matrix::kPad), &lda, px.ptr(mbtest::Vector::kPad), &incx, &beta,
         py.ptr(mbtest::Vector::kPad), &incy);
  EXPECT_FALSE(ran_on_cpu_wrongly(true)) << "fell back to the CPU";
  int now = -1;
  ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
  EXPECT_EQ(now, 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  py.back();
  EXPECT_EQ(y.damaged_guards(), 0);
  for (int i = 0; i < m; ++i) {
    double s = std::fabs(beta * y0.at(i));
    for (int j = 0; j < n; ++j) s += alpha * std::fabs(a.at(i, j) * x.at(j));
    EXPECT_NEAR(y.at(i), want.at(i), (n + 2) * 4 * FLT_EPSILON * s) << "i=" << i;
  }
}

}  // namespace

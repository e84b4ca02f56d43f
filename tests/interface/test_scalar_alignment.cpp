// Complex scalars passed at addresses that are 8-byte but not 16-byte aligned (legal for C's
// double _Complex and Fortran's COMPLEX*16): the library copies them before they reach cuBLAS,
// whose ZGEMV reads host scalars with 16-byte aligned loads and faults otherwise. ZGEMV and ZGEMM
// on host arrays (on the GPU under MYBLAS_BACKEND=cublas) and on device operands, against a
// plain loop.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "iface_common.h"
#include "myblas.h"

namespace {

using Z = std::complex<double>;

std::vector<Z> random_z(size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Z> v(count);
  for (Z& x : v) x = Z(u(rng), u(rng));
  return v;
}

// alpha and beta stored at 8 (mod 16): both inside one 16-byte aligned buffer, one double in.
struct OddScalars {
  alignas(16) double buf[6] = {};
  OddScalars(Z alpha, Z beta) {
    buf[1] = alpha.real(), buf[2] = alpha.imag(), buf[3] = beta.real(), buf[4] = beta.imag();
  }
  const void* alpha() const { return &buf[1]; }
  const void* beta() const { return &buf[3]; }
};

// y := alpha A x + beta y (A m x n, column-major) or C := alpha A B + beta C (k = n).
void reference(bool gemv, int m, int n, Z alpha, Z beta, const std::vector<Z>& a, const std::vector<Z>& b,
               std::vector<Z>& c) {
  const int cols = gemv ? 1 : n;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < m; ++i) {
      Z s = 0;
      for (int l = 0; l < n; ++l) s += a[i + size_t(l) * m] * b[l + size_t(j) * n];
      c[i + size_t(j) * m] = alpha * s + beta * c[i + size_t(j) * m];
    }
}

void run(bool gemv, bool device) {
  const int m = 37, n = 29, one = 1;
  std::mt19937_64 rng(gemv ? 11 : 12);
  const Z alpha(0.75, -0.5), beta(0.5, 0.25);
  const OddScalars s(alpha, beta);
  ASSERT_EQ(reinterpret_cast<uintptr_t>(s.alpha()) % 16, 8u);
  std::vector<Z> a = random_z(size_t(m) * n, rng), b = random_z(size_t(n) * (gemv ? 1 : n), rng);
  std::vector<Z> c = random_z(size_t(m) * (gemv ? 1 : n), rng), want = c;
  reference(gemv, m, n, alpha, beta, a, b, want);
  void *da = a.data(), *db = b.data(), *dc = c.data();
  if (device) {
    for (auto [p, v] : {std::pair{&da, &a}, std::pair{&db, &b}, std::pair{&dc, &c}}) {
      ASSERT_EQ(cudaMalloc(p, v->size() * sizeof(Z)), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(*p, v->data(), v->size() * sizeof(Z), cudaMemcpyHostToDevice), cudaSuccess);
    }
  }
  const char N = 'N';
  if (gemv) zgemv_(&N, &m, &n, s.alpha(), da, &m, db, &one, s.beta(), dc, &one);
  else zgemm_(&N, &N, &m, &n, &n, s.alpha(), da, &m, db, &n, s.beta(), dc, &m);
  const std::string path = myblas_last_path();
  if (device) {
    ASSERT_EQ(cudaMemcpy(c.data(), dc, c.size() * sizeof(Z), cudaMemcpyDeviceToHost), cudaSuccess);
    for (void* p : {da, db, dc}) cudaFree(p);
  }
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_LT(std::abs(c[i] - want[i]), 8.0 * n * 2.2e-16 * 4) << "element " << i << " on path " << path;
}

TEST(ScalarAlignment, ZgemvHost) { run(true, false); }
TEST(ScalarAlignment, ZgemmHost) { run(false, false); }
TEST(ScalarAlignment, DeviceZgemv) {
  std::string why;
  if (iface::no_gpu_reason(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  run(true, true);
}
TEST(ScalarAlignment, DeviceZgemm) {
  std::string why;
  if (iface::no_gpu_reason(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  run(false, true);
}

}  // namespace

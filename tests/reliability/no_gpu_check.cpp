// Runs every entry point once with host arrays on a machine where CUDA cannot be used and
// checks: results against OpenBLAS, myblas_last_path() == "cpu", myblas_gpu_available() == 0.
// Prints one line to stdout on success. check_no_gpu.cmake runs it in the situations listed
// in CMakeLists.txt and requires stderr to be empty (the library is quiet unless
// MYBLAS_VERBOSE is set), or, with MYBLAS_VERBOSE=1, to say why the GPU was not used.
//   no_gpu_check [--expect-hidden | --skip-if-gpu]
//     --expect-hidden: fail unless CUDA_VISIBLE_DEVICES is set and empty (so the entry tests
//                      what it says);
//     --skip-if-gpu:   the machine as it is: where a GPU is usable this is no no-GPU case, so
//                      say "[  SKIPPED ]" and stop (ctest shows the entry as skipped).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

int g_failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  ++g_failures;
  std::printf("FAILED: %s\n", what.c_str());  // stdout: stderr must stay the library's
}

void check_path(const char* call) {
  expect(std::strcmp(myblas_last_path(), "cpu") == 0,
         std::string(call) + ": path " + myblas_last_path() + ", expected cpu");
}

bool close(const float* got, const float* want, size_t n, double tol) {
  for (size_t i = 0; i < n; ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= tol * (1 + std::fabs(double(want[i]))))) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--expect-hidden") == 0) {
    const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
    if (!v || *v) {
      std::printf("FAILED: CUDA_VISIBLE_DEVICES is %s, expected set and empty\n", v ? v : "unset");
      return 1;
    }
  }
  if (argc > 1 && std::strcmp(argv[1], "--skip-if-gpu") == 0 && myblas_gpu_available()) {
    std::printf("[  SKIPPED ] a GPU is usable on this machine: not a no-GPU case\n");
    return 0;
  }
  std::mt19937_64 rng(mbtest::test_seed());
  const int m = 37, n = 29, k = 23;
  std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n), x(n), y(m);
  for (float& v : a) v = mbtest::uniform(rng);
  for (float& v : b) v = mbtest::uniform(rng);
  for (float& v : x) v = mbtest::uniform(rng);
  const double tol = 64 * k * std::numeric_limits<float>::epsilon();
  const float alpha = 0.75f, beta = 0.f;

  std::vector<float> want(c.size());
  mbtest::ref_sgemm('N', 'N', m, n, k, alpha, a.data(), m, b.data(), k, beta, want.data(), m);
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m);
  check_path("sgemm_");
  expect(close(c.data(), want.data(), c.size(), tol), "sgemm_ result");

  // Row-major C (m x n) = A B is column-major C^T = B^T A^T: the same memory as above.
  std::fill(c.begin(), c.end(), 0.f);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, m, k, alpha, b.data(), k, a.data(), m, beta,
              c.data(), m);
  check_path("cblas_sgemm");
  expect(close(c.data(), want.data(), c.size(), tol), "cblas_sgemm result");

  std::vector<float> wy(y.size());
  mbtest::ref_sgemv('N', m, n, alpha, b.data(), m, x.data(), 1, beta, wy.data(), 1);
  const int one = 1;
  sgemv_("N", &m, &n, &alpha, b.data(), &m, x.data(), &one, &beta, y.data(), &one);
  check_path("sgemv_");
  expect(close(y.data(), wy.data(), y.size(), tol), "sgemv_ result");
  std::fill(y.begin(), y.end(), 0.f);
  cblas_sgemv(CblasColMajor, CblasNoTrans, m, n, alpha, b.data(), m, x.data(), 1, beta, y.data(), 1);
  check_path("cblas_sgemv");
  expect(close(y.data(), wy.data(), y.size(), tol), "cblas_sgemv result");

  // HGEMM on binary16 copies; the reference is FP32 on the same (exactly widened) values.
  std::vector<uint16_t> ha(a.size()), hb(b.size()), hc(c.size());
  std::vector<float> fa(a.size()), fb(b.size());
  for (size_t i = 0; i < a.size(); ++i) fa[i] = myblas_half_to_float(ha[i] = myblas_float_to_half(a[i]));
  for (size_t i = 0; i < b.size(); ++i) fb[i] = myblas_half_to_float(hb[i] = myblas_float_to_half(b[i]));
  mbtest::ref_sgemm('N', 'N', m, n, k, alpha, fa.data(), m, fb.data(), k, beta, want.data(), m);
  const uint16_t halpha = myblas_float_to_half(alpha), hbeta = myblas_float_to_half(beta);
  for (int entry = 0; entry < 2; ++entry) {
    std::fill(hc.begin(), hc.end(), uint16_t(0));
    if (entry == 0)
      hgemm_("N", "N", &m, &n, &k, &halpha, ha.data(), &m, hb.data(), &k, &hbeta, hc.data(), &m);
    else
      cblas_hgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, halpha, ha.data(), m, hb.data(), k, hbeta,
                  hc.data(), m);
    check_path(entry == 0 ? "hgemm_" : "cblas_hgemm");
    std::vector<float> got(hc.size());
    for (size_t i = 0; i < hc.size(); ++i) got[i] = myblas_half_to_float(hc[i]);
    expect(close(got.data(), want.data(), got.size(), tol + 1.0 / 1024), entry == 0 ? "hgemm_ result" : "cblas_hgemm result");
  }

  expect(myblas_gpu_available() == 0, "myblas_gpu_available() is 1 on a machine meant to have no usable GPU");
  if (g_failures) return 1;
  std::printf("no_gpu_check: all 6 entry points correct on the CPU\n");
  return 0;
}

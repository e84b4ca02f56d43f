// OpenBLAS's kernel choice (backends/cpu/cpu_blas.cpp): when OpenBLAS falls back to kernels that
// predate AVX2 on a CPU that has AVX2 and FMA, myblas loads it again with the kernels the CPU can
// run; a user's OPENBLAS_CORETYPE and MYBLAS_OPENBLAS_CORETYPE=keep leave OpenBLAS's choice.
// MYBLAS_TEST_FAULT=cpu-core makes OpenBLAS's first choice Prescott, as on a CPU model it does not
// know, so the reload runs on any machine with AVX2. Each ctest entry (tests/backends/
// CMakeLists.txt) names in TEST_EXPECT_CORE what should happen: "best" (the reload) or a core name,
// and in TEST_EXPECT_LOG a line the log must hold (an unknown MYBLAS_OPENBLAS_CORETYPE warns).
// After the reload: SGEMM and SGEMV against a float64 loop, odd sizes, padded and guarded (beta 0
// with NaN in C, which OpenBLAS is handed: cpu_backend.cpp), and a fork child that calls SGEMM on
// the reloaded library.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "common/data.h"
#include "myblas.h"

namespace {

std::string best_core() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return "";
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  return "Haswell";
#else
  return "";
#endif
}

// C := alpha*op(A)*op(B) + beta*C through myblas, against float64 sums, with the k-scaled bound.
void check_sgemm(char ta, char tb, int m, int n, int k, float alpha, float beta, std::mt19937_64& rng) {
  const int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  mbtest::Matrix a(ar, ac, ar + 3, rng), b(br, bc, br + 2, rng), c(m, n, m + 5, rng);
  if (beta == 0.f) c.fill_nan();
  const mbtest::Matrix c0 = c;
  sgemm_(&ta, &tb, &m, &n, &k, &alpha, a.data(), &a.ld, b.data(), &b.ld, &beta, c.data(), &c.ld);
  std::vector<double> want(size_t(m) * n), scale(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0, sa = 0;
      for (int l = 0; l < k; ++l) {
        const double x = ta == 'N' ? a.at(i, l) : a.at(l, i), y = tb == 'N' ? b.at(l, j) : b.at(j, l);
        s += x * y;
        sa += std::fabs(x * y);
      }
      const double cij = beta == 0.f ? 0.0 : double(c0.at(i, j));
      want[size_t(i) + size_t(j) * m] = alpha * s + beta * cij;
      scale[size_t(i) + size_t(j) * m] = std::fabs(alpha) * sa + std::fabs(beta * cij);
    }
  std::vector<float> wantf(want.begin(), want.end());
  const mbtest::Worst w = mbtest::compare(c.data(), c.ld, wantf.data(), m, scale, m, n, double(k + 2));
  EXPECT_LE(w.ratio, 1.0) << ta << tb << " " << m << "x" << n << "x" << k << " at (" << w.i << "," << w.j
                          << ") got " << w.got << " want " << w.want << "; seed " << mbtest::test_seed();
  EXPECT_EQ(c.damaged_guards(), 0);
}

TEST(CpuCore, OpenBLASKernelsAsExpected) {
  const char* expect = std::getenv("TEST_EXPECT_CORE");
  ASSERT_TRUE(expect && *expect) << "run through ctest (TEST_EXPECT_CORE, MYBLAS_TEST_FAULT=cpu-core)";
  const char* expect_log = std::getenv("TEST_EXPECT_LOG");
  if (expect_log && std::getenv("MYBLAS_LOG")) std::remove(std::getenv("MYBLAS_LOG"));  // (appended to across runs)
  const std::string got = myblas_cpu_blas();  // loads the CPU BLAS: the first thing this process does
  if (got.find("OpenBLAS") == std::string::npos) GTEST_SKIP() << "the CPU BLAS is not OpenBLAS: " << got;
  std::string want = expect;
  if (want == "best") {
    want = best_core();
    if (want.empty()) GTEST_SKIP() << "this CPU has no AVX2/FMA: nothing to reload with";
  }
  EXPECT_NE(got.find("OpenBLAS, " + want + " kernels"), std::string::npos) << "myblas_cpu_blas(): " << got;
  // TEST_EXPECT_LOG: text the library's log (MYBLAS_LOG) must hold, e.g. a warning.
  if (const char* text = expect_log) {
    const char* log = std::getenv("MYBLAS_LOG");
    ASSERT_TRUE(log && *log);
    std::ifstream in(log);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(all.find(text), std::string::npos) << "log " << log << " lacks: " << text;
  }
}

TEST(CpuCore, ResultsAfterTheChoice) {
  std::mt19937_64 rng(mbtest::test_seed());
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) {
      check_sgemm(ta, tb, 67, 45, 129, 0.75f, 0.f, rng);  // beta 0, NaN in C: OpenBLAS must not read C
      check_sgemm(ta, tb, 33, 31, 40, 1.5f, 0.f, rng);
      check_sgemm(ta, tb, 64, 64, 64, -0.5f, 0.f, rng);
      check_sgemm(ta, tb, 130, 97, 33, -1.25f, 0.5f, rng);
    }
  // SGEMV N and T with strides, against float64.
  const int m = 301, n = 173, lda = m + 4;
  mbtest::Matrix a(m, n, lda, rng);
  for (char t : {'N', 'T'}) {
    const int lx = t == 'N' ? n : m, ly = t == 'N' ? m : n, incx = -2, incy = 3;
    mbtest::Vector x(lx, incx, rng), y(ly, incy, rng);
    std::vector<double> y0(size_t(ly), 0.0);
    for (int i = 0; i < ly; ++i) y0[size_t(i)] = y.at(i);
    const float alpha = 0.5f, beta = -1.5f;
    sgemv_(&t, &m, &n, &alpha, a.data(), &a.ld, x.data(), &x.inc, &beta, y.data(), &y.inc);
    for (int i = 0; i < ly; ++i) {
      double s = 0, sa = 0;
      for (int l = 0; l < lx; ++l) {
        const double p = double(t == 'N' ? a.at(i, l) : a.at(l, i)) * x.at(l);
        s += p;
        sa += std::fabs(p);
      }
      const double want = alpha * s + beta * y0[size_t(i)];
      const double bound = (lx + 2) * 1.2e-7 * (std::fabs(alpha) * sa + std::fabs(beta * y0[size_t(i)])) + 1e-30;
      EXPECT_LE(std::fabs(y.at(i) - want), bound) << "sgemv " << t << " i=" << i;
    }
    EXPECT_EQ(x.damaged_guards(), 0);
    EXPECT_EQ(y.damaged_guards(), 0);
  }
}

// A fork child calls SGEMM on the (re)loaded OpenBLAS: the unloaded first copy left no fork
// handlers behind.
TEST(CpuCore, ForkAfterTheChoice) {
  std::mt19937_64 rng(mbtest::test_seed() + 1);
  check_sgemm('N', 'N', 200, 190, 210, 1.f, 0.f, rng);  // threads of OpenBLAS running
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::mt19937_64 r2(7);
    mbtest::Matrix a(150, 150, 150, r2), c(150, 150, 150, r2);
    const int n = 150;
    const float one = 1.f, zero = 0.f;
    sgemm_("N", "N", &n, &n, &n, &one, a.data(), &n, a.data(), &n, &zero, c.data(), &n);
    double s = 0;
    for (int l = 0; l < n; ++l) s += double(a.at(3, l)) * a.at(l, 4);
    _exit(std::fabs(c.at(3, 4) - s) <= 1e-3 * (1 + std::fabs(s)) ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the fork child died";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace

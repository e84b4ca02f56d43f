#include "common/data.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace mbtest {

uint64_t test_seed() {
  static const uint64_t seed = [] {
    if (const char* s = std::getenv("MYBLAS_TEST_SEED")) return uint64_t(std::strtoull(s, nullptr, 0));
    return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  return seed;
}

float uniform(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  float v;
  do v = d(rng);
  while (v == 0.f);
  return v;
}

Worst compare(const float* got, int64_t ldg, const float* want, int64_t ldw,
              const std::vector<double>& scale, int m, int n, double eps_factor) {
  Worst w;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const double g = got[i + j * ldg], r = want[i + j * ldw];
      const double bound = eps_factor * scale[size_t(i) + size_t(j) * m] + 1e-30;
      double ratio;
      if (std::isnan(r) || std::isnan(g)) ratio = (std::isnan(r) && std::isnan(g)) ? 0 : INFINITY;
      else ratio = std::fabs(g - r) / bound;
      if (!(ratio <= w.ratio)) {
        w.ratio = ratio;
        w.i = i;
        w.j = j;
        w.got = g;
        w.want = r;
      }
    }
  return w;
}

std::vector<double> gemm_scale(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda,
                               const float* b, int ldb, float beta, const float* c0, int ldc) {
  const bool at = ta == 'T' || ta == 't', bt = tb == 'T' || tb == 't';
  std::vector<double> s(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double acc = 0;
      for (int l = 0; l < k; ++l) {
        const float x = at ? a[l + int64_t(i) * lda] : a[i + int64_t(l) * lda];
        const float y = bt ? b[j + int64_t(l) * ldb] : b[l + int64_t(j) * ldb];
        acc += std::fabs(double(x) * y);
      }
      s[i + size_t(j) * m] =
          std::fabs(double(alpha)) * acc + (beta == 0.f ? 0.0 : std::fabs(double(beta) * c0[i + int64_t(j) * ldc]));
    }
  return s;
}

}  // namespace mbtest

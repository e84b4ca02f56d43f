// The host-array pipeline failing part-way (test-only MYBLAS_TEST_FAULT=pipeline fails a
// download once a few panels are final): the finished columns stay, the rest are computed on
// the CPU, the result is right, and one warning says so. Concurrent callers each get theirs.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

// One SGEMM on host arrays (beta == 0: over NaN in C), checked against OpenBLAS; returns wrong
// elements and damaged guards.
int checked_sgemm(uint64_t seed, char ta, char tb, int m, int n, int k, float beta = 0.5f) {
  std::mt19937_64 rng(seed);
  const int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  mbtest::Matrix a(ar, ac, ar + 3, rng), b(br, bc, br + 1, rng), c(m, n, m + 2, rng);
  mbtest::Matrix want = c;
  const float alpha = -0.75f;
  if (beta == 0.f) c.fill_nan();
  mbtest::ref_sgemm(ta, tb, m, n, k, alpha, a.data(), a.ld, b.data(), b.ld, beta, want.data(), want.ld);
  sgemm_(&ta, &tb, &m, &n, &k, &alpha, a.data(), &a.ld, b.data(), &b.ld, &beta, c.data(), &c.ld);
  int bad = int(c.damaged_guards());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += std::fabs((ta == 'N' ? a.at(i, l) : a.at(l, i)) * (tb == 'N' ? b.at(l, j) : b.at(j, l)));
      const double bound = (k + 2) * 4 * FLT_EPSILON * (0.75 * s + std::fabs(beta) * 1.0);
      bad += !(std::fabs(c.at(i, j) - want.at(i, j)) <= bound);
    }
  return bad;
}

TEST(PipelineDevice, FailurePartWayFinishesOnCpu) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: the pipeline needs one";
  const char* log = std::getenv("MYBLAS_LOG");
  ASSERT_TRUE(log && std::getenv("MYBLAS_TEST_FAULT")) << "run through ctest";
  std::ofstream(log, std::ios::trunc).close();
  // 1 MiB budget (set by ctest): k = 200 gives column panels of ~128, so n = 1100 has 9 panels.
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'})
      EXPECT_EQ(checked_sgemm(mbtest::test_seed() + ta * 3 + tb, ta, tb, 301, 1100, 200), 0)
          << ta << tb << " seed " << mbtest::test_seed();
  std::ifstream in(log);
  std::string line;
  int warnings = 0;
  while (std::getline(in, line)) warnings += line.find("completing the unfinished") != std::string::npos;
  EXPECT_EQ(warnings, 1) << "one warning, however many calls fail the same way (" << log << ")";
}

TEST(PipelineDevice, ConcurrentCallers) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: the pipeline needs one";
  std::vector<int> bad(6, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      bad[size_t(t)] = 0;
      for (int r = 0; r < 3; ++r)
        bad[size_t(t)] += checked_sgemm(mbtest::test_seed() + 100 * t + r, "NT"[t % 2], "NT"[(t / 2) % 2],
                                        257 + t, 513 + 7 * r, 129);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 6; ++t) EXPECT_EQ(bad[size_t(t)], 0) << "thread " << t << " seed " << mbtest::test_seed();
}

// Under a 16 MiB budget (set by ctest) A of 201 x 3499 goes up in three chunks and C's 1999
// columns make eight panels: the first two are multiplied k-outer in three steps while A arrives
// (the region), their C goes down beside the other panels' products; each call's log line says so.
TEST(PipelineDevice, RegionAgainstOpenBlas) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: the pipeline needs one";
  const char* log = std::getenv("MYBLAS_LOG");
  ASSERT_TRUE(log && std::getenv("MYBLAS_VERBOSE")) << "run through ctest";
  std::ofstream(log, std::ios::trunc).close();
  int calls = 0;
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) {
      const float beta = calls % 2 ? 0.f : 0.5f;
      EXPECT_EQ(checked_sgemm(mbtest::test_seed() + 40 + calls, ta, tb, 201, 1999, 3499, beta), 0)
          << ta << tb << " beta " << beta << " seed " << mbtest::test_seed();
      ++calls;
    }
  std::ifstream in(log);
  std::string line;
  int regions = 0, warnings = 0;
  while (std::getline(in, line)) {
    regions += line.find("the first 2 k-outer") != std::string::npos;
    warnings += line.find("warning") != std::string::npos;
  }
  EXPECT_EQ(regions, calls) << "every call ran its first two panels k-outer (" << log << ")";
  EXPECT_EQ(warnings, 0) << log;
}

}  // namespace

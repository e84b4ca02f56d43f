// Host-array GEMM across two GPUs (labels gpu and multigpu; skipped, with the reason, on fewer).
// The ctest entries set CUDA_VISIBLE_DEVICES=0,1, MYBLAS_SPLIT_MIN=1 (small odd shapes split too) and
// MYBLAS_VERBOSE with a log file, from which the tests read that the calls were split, which
// GPUs the process took, and the warnings of injected faults (MYBLAS_TEST_FAULT=<point>@<gpu>
// fails one GPU). Every result is compared with OpenBLAS, guards included.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "multi_gpu_util.h"
#include "myblas.h"

namespace {

using multigpu::gpu_count;
using multigpu::log_count;
using multigpu::log_path;

// One host-array SGEMM with padded leading dimensions, checked against OpenBLAS; returns the
// number of failures (wrong elements beyond the k-scaled bound, damaged guards).
int checked_sgemm(uint64_t seed, char ta, char tb, int m, int n, int k, float alpha, float beta) {
  SCOPED_TRACE(std::string(1, ta) + tb + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
               " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta) + " seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  mbtest::Matrix a(ar, ac, ar + 3, rng), b(br, bc, br + 5, rng), c(m, n, m + 2, rng);
  const mbtest::Matrix c0 = c;
  if (beta == 0.f) c.fill_nan();
  mbtest::Matrix want = c0;
  mbtest::ref_sgemm(ta, tb, m, n, k, alpha, a.data(), a.ld, b.data(), b.ld, beta, want.data(), want.ld);
  sgemm_(&ta, &tb, &m, &n, &k, &alpha, a.data(), &a.ld, b.data(), &b.ld, &beta, c.data(), &c.ld);
  const std::vector<double> scale =
      mbtest::gemm_scale(ta, tb, m, n, k, alpha, a.data(), a.ld, b.data(), b.ld, beta, c0.data(), c0.ld);
  const mbtest::Worst w = mbtest::compare(c.data(), c.ld, want.data(), want.ld, scale, m, n, (k + 2) * 4.0 * FLT_EPSILON);
  EXPECT_LE(w.ratio, 1.0) << "worst at (" << w.i << "," << w.j << ") got " << w.got << " want " << w.want
                          << " (path " << myblas_last_path() << ")";
  EXPECT_EQ(c.damaged_guards(), 0);
  return int(w.ratio > 1.0) + int(c.damaged_guards());
}

// Every transpose, odd shapes (columns not a multiple of 64; one GPU's block wider than the
// other's), alpha and beta from {1, -1, 0.5, 0}; each call split over both GPUs.
TEST(SplitDevice, MatchesOpenBlas) {
  REQUIRE_TWO_GPUS();
  ASSERT_FALSE(log_path().empty()) << "run through ctest";
  std::ofstream(log_path(), std::ios::trunc).close();
  const struct {
    int m, n, k;
  } shapes[] = {{129, 131, 67}, {1000, 333, 257}, {77, 1001, 1500}, {513, 700, 1}};
  const float scalars[][2] = {{1.f, 0.f}, {-1.f, 1.f}, {0.5f, -1.f}, {1.f, 0.5f}};
  int calls = 0, s = 0;
  for (const auto& sh : shapes)
    for (char ta : {'N', 'T'})
      for (char tb : {'N', 'T'}) {
        const float* ab = scalars[s++ % 4];
        EXPECT_EQ(checked_sgemm(mbtest::test_seed() + uint64_t(calls), ta, tb, sh.m, sh.n, sh.k, ab[0], ab[1]), 0);
        EXPECT_STREQ(myblas_last_path(), "cublas");
        ++calls;
      }
  EXPECT_EQ(log_count("split over 2 GPUs"), calls) << "every call split (" << log_path() << ")";
  EXPECT_EQ(log_count("warning"), 0) << log_path();
}

// ---- every precision: DGEMM, CGEMM, ZGEMM (and SGEMM again) split, against OpenBLAS ----
using gemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*, const void*, const void*,
                         const int*, const void*, const int*, const void*, void*, const int*);

// OpenBLAS's own xgemm_ (loaded RTLD_LOCAL, so that it cannot shadow libmyblas's).
gemm_fn openblas(const char* name) {
  static void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  return h ? reinterpret_cast<gemm_fn>(dlsym(h, name)) : nullptr;
}

template <class T> struct Kind;
template <> struct Kind<float> { using R = float; static constexpr const char* name = "sgemm_"; };
template <> struct Kind<double> { using R = double; static constexpr const char* name = "dgemm_"; };
template <> struct Kind<std::complex<float>> { using R = float; static constexpr const char* name = "cgemm_"; };
template <> struct Kind<std::complex<double>> { using R = double; static constexpr const char* name = "zgemm_"; };

template <class R> R random_value(std::mt19937_64& rng, R*) { return R(mbtest::uniform(rng)); }
template <class R> std::complex<R> random_value(std::mt19937_64& rng, std::complex<R>*) {
  return {R(mbtest::uniform(rng)), R(mbtest::uniform(rng))};
}
template <class T> T at_op(const std::vector<T>& x, int ld, char t, int i, int j) {  // op(X)(i, j)
  if (t == 'N') return x[size_t(i) + size_t(j) * ld];
  const T v = x[size_t(j) + size_t(i) * ld];
  if constexpr (!std::is_floating_point<T>::value) return t == 'C' ? std::conj(v) : v;
  return v;
}

// One split xGEMM on padded host arrays (guards in the padding), beta == 0 over NaN or not;
// returns the failures.
template <class T>
int checked_gemm(uint64_t seed, char ta, char tb, int m, int n, int k, T alpha, T beta) {
  using R = typename Kind<T>::R;
  SCOPED_TRACE(std::string(Kind<T>::name) + " " + ta + tb + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
               std::to_string(k) + " seed " + std::to_string(seed));
  const gemm_fn ours = reinterpret_cast<gemm_fn>(dlsym(RTLD_DEFAULT, Kind<T>::name)), ref = openblas(Kind<T>::name);
  if (!ours || !ref) {
    ADD_FAILURE() << "no " << Kind<T>::name;
    return 1;
  }
  std::mt19937_64 rng(seed);
  const int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  const int lda = ar + 3, ldb = br + 5, ldc = m + 2;
  const T guard = T(R(-7777.25));
  std::vector<T> a(size_t(lda) * ac, guard), b(size_t(ldb) * bc, guard), c(size_t(ldc) * n, guard);
  for (int j = 0; j < ac; ++j)
    for (int i = 0; i < ar; ++i) a[size_t(i) + size_t(j) * lda] = random_value(rng, static_cast<T*>(nullptr));
  for (int j = 0; j < bc; ++j)
    for (int i = 0; i < br; ++i) b[size_t(i) + size_t(j) * ldb] = random_value(rng, static_cast<T*>(nullptr));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) c[size_t(i) + size_t(j) * ldc] = random_value(rng, static_cast<T*>(nullptr));
  std::vector<T> want = c, c0 = c;
  if (beta == T(0))
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) c[size_t(i) + size_t(j) * ldc] = T(std::nan(""));
  ref(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, want.data(), &ldc);
  ours(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(), &ldc);
  const double eps = std::numeric_limits<R>::epsilon();
  int bad = 0;
  double worst = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double mag = beta == T(0) ? 0.0 : std::abs(beta) * std::abs(c0[size_t(i) + size_t(j) * ldc]);
      for (int l = 0; l < k; ++l) mag += std::abs(alpha) * std::abs(at_op(a, lda, ta, i, l) * at_op(b, ldb, tb, l, j));
      const double err = std::abs(c[size_t(i) + size_t(j) * ldc] - want[size_t(i) + size_t(j) * ldc]);
      const double r = err / (8.0 * (k + 2) * eps * mag + 1e-30);
      worst = std::max(worst, r);
      bad += !(r <= 1.0);
    }
  EXPECT_EQ(bad, 0) << "worst error/bound " << worst << " (path " << myblas_last_path() << ")";
  int guards = 0;
  for (size_t x = 0; x < c.size(); ++x)
    if (int(x % size_t(ldc)) >= m) guards += !(c[x] == guard);
  EXPECT_EQ(guards, 0) << "C's padding was written";
  return bad + guards;
}

TEST(SplitDevice, EveryPrecision) {
  REQUIRE_TWO_GPUS();
  ASSERT_FALSE(log_path().empty()) << "run through ctest";
  std::ofstream(log_path(), std::ios::trunc).close();
  const uint64_t seed = mbtest::test_seed() + 500;
  using C = std::complex<float>;
  using Z = std::complex<double>;
  EXPECT_EQ(checked_gemm<float>(seed, 'T', 'N', 301, 257, 129, 0.5f, 0.f), 0);
  EXPECT_EQ(checked_gemm<double>(seed + 1, 'N', 'N', 301, 257, 129, 1.0, 0.5), 0);
  EXPECT_EQ(checked_gemm<double>(seed + 2, 'T', 'T', 130, 400, 77, -1.0, 0.0), 0);
  EXPECT_EQ(checked_gemm<C>(seed + 3, 'C', 'N', 201, 300, 65, C(0.5f, -1.f), C(1.f, 0.f)), 0);
  EXPECT_EQ(checked_gemm<Z>(seed + 4, 'N', 'C', 199, 333, 100, Z(1.0, 0.5), Z(0.0, 0.0)), 0);
  EXPECT_EQ(checked_gemm<Z>(seed + 5, 'T', 'N', 64, 129, 31, Z(-1.0, 0.0), Z(0.5, 0.5)), 0);
  EXPECT_EQ(log_count("split over 2 GPUs"), 6) << "every call split (" << log_path() << ")";
  EXPECT_EQ(log_count("warning"), 0) << log_path();
}

// Under a 16 MiB budget (set by ctest) the shared A of these shapes goes up in two or three
// chunks and each GPU's block (1024 and 1076 columns) has four or five panels of 256 columns: the
// first two run k-outer (one step) while A arrives
// (each block's pipeline logs "the first 2 k-outer"), in every transpose and precision, beta == 0
// over NaN or not.
TEST(SplitDevice, RegionAgainstOpenBlas) {
  REQUIRE_TWO_GPUS();
  ASSERT_FALSE(log_path().empty()) << "run through ctest";
  std::ofstream(log_path(), std::ios::trunc).close();
  const uint64_t seed = mbtest::test_seed() + 900;
  using C = std::complex<float>;
  using Z = std::complex<double>;
  int calls = 0;
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) {
      EXPECT_EQ(checked_sgemm(seed + uint64_t(calls), ta, tb, 300, 2100, 900, 0.5f, calls % 2 ? 0.f : -1.f), 0);
      ++calls;
    }
  EXPECT_EQ(checked_gemm<double>(seed + 10, 'N', 'T', 300, 2100, 900, 1.0, 0.5), 0);
  EXPECT_EQ(checked_gemm<double>(seed + 11, 'T', 'N', 300, 2100, 900, -1.0, 0.0), 0);
  EXPECT_EQ(checked_gemm<C>(seed + 12, 'C', 'N', 150, 2100, 900, C(0.5f, -1.f), C(1.f, 0.f)), 0);
  EXPECT_EQ(checked_gemm<Z>(seed + 13, 'N', 'C', 200, 2100, 500, Z(1.0, 0.5), Z(0.0, 0.0)), 0);
  calls += 4;
  EXPECT_EQ(log_count("split over 2 GPUs"), calls) << log_path();
  EXPECT_EQ(log_count("the first 2 k-outer"), 2 * calls) << "every block ran a region (" << log_path() << ")";
  EXPECT_EQ(log_count("warning"), 0) << log_path();
}

// Fewer than 64 columns per GPU: one GPU takes the call.
TEST(SplitDevice, NarrowCallsAreNotSplit) {
  REQUIRE_TWO_GPUS();
  std::ofstream(log_path(), std::ios::trunc).close();
  EXPECT_EQ(checked_sgemm(mbtest::test_seed() + 50, 'N', 'N', 300, 127, 90, 0.5f, 0.5f), 0);
  EXPECT_EQ(log_count("split over"), 0) << log_path();
}

// Concurrent callers: each split call takes the workers in device order; no call waits forever
// and every result is right.
TEST(SplitDevice, ConcurrentCallers) {
  REQUIRE_TWO_GPUS();
  std::vector<int> bad(4, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      bad[size_t(t)] = 0;
      for (int r = 0; r < 3; ++r)
        bad[size_t(t)] += checked_sgemm(mbtest::test_seed() + 1000 + 10 * t + r, "NT"[t % 2], "NT"[t / 2], 257 + t,
                                        513 + 7 * r, 129, 1.f, 0.5f);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[size_t(t)], 0) << "thread " << t;
}

// MYBLAS_TEST_FAULT=<point>@1 (ctest sets it, with TEST_EXPECT_LOG naming the warning) fails GPU 1:
// its unfinished part is completed elsewhere, the result is right, and one warning says so.
TEST(SplitDevice, FaultOnOneGpu) {
  REQUIRE_TWO_GPUS();
  const char* fault = std::getenv("MYBLAS_TEST_FAULT");
  const char* expect = std::getenv("TEST_EXPECT_LOG");
  if (!fault || !expect) GTEST_SKIP() << "run through ctest with MYBLAS_TEST_FAULT and TEST_EXPECT_LOG";
  std::ofstream(log_path(), std::ios::trunc).close();
  // (a 1 MiB budget, set by ctest, cuts each GPU's block into several panels: "pipeline" fails a
  // download after three of them)
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'})
      EXPECT_EQ(checked_sgemm(mbtest::test_seed() + uint64_t(ta * 3 + tb), ta, tb, 301, 2200, 200, -0.75f, 0.5f), 0);
  EXPECT_EQ(checked_sgemm(mbtest::test_seed() + 7, 'N', 'N', 301, 2200, 200, 1.f, 0.f), 0);
  EXPECT_EQ(log_count(expect), 1) << "one warning, however many calls fail the same way (" << log_path() << ")";
  EXPECT_EQ(log_count("split over 2 GPUs"), 5) << log_path();
}

// MYBLAS_DEVICES=1 or a launcher's local rank 1 of 2 (ctest sets one, and TEST_EXPECT_LOG the
// reason): host-array calls run on GPU 1, and the calling thread, which had not picked a GPU, is
// left on GPU 1 without a context ever made on GPU 0. Split calls are off (MYBLAS_SPLIT_MIN high).
TEST(SplitDevice, ChosenGpuTakesHostCalls) {
  REQUIRE_TWO_GPUS();
  const char* expect = std::getenv("TEST_EXPECT_LOG");
  if (!expect) GTEST_SKIP() << "run through ctest with TEST_EXPECT_LOG";
  std::ofstream(log_path(), std::ios::trunc).close();
  // (test data and the OpenBLAS reference make no CUDA call)
  EXPECT_EQ(checked_sgemm(mbtest::test_seed() + 90, 'T', 'N', 700, 600, 300, 0.5f, -1.f), 0);
  EXPECT_STREQ(myblas_last_path(), "cublas");
  EXPECT_EQ(log_count(expect), 1) << log_path();
  // (the driver is asked through dlopen: the test must load on machines without it, to skip)
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(driver, nullptr);
  auto get = reinterpret_cast<CUresult (*)(CUdevice*, int)>(dlsym(driver, "cuDeviceGet"));
  auto state = reinterpret_cast<CUresult (*)(CUdevice, unsigned*, int*)>(dlsym(driver, "cuDevicePrimaryCtxGetState"));
  ASSERT_TRUE(get && state);
  unsigned flags = 0;
  int active[2] = {-1, -1};
  for (int d = 0; d < 2; ++d) {
    CUdevice dev;
    ASSERT_EQ(get(&dev, d), CUDA_SUCCESS);
    ASSERT_EQ(state(dev, &flags, &active[d]), CUDA_SUCCESS);
  }
  EXPECT_EQ(active[0], 0) << "a context was made on GPU 0";
  EXPECT_EQ(active[1], 1) << "the call did not run on GPU 1";
  int now = -1;
  ASSERT_EQ(cudaGetDevice(&now), cudaSuccess);
  EXPECT_EQ(now, 1) << "the thread was not left on its GPU";
  // A thread that picked GPU 0 itself keeps it; the call still runs on GPU 1.
  std::thread([&] {
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(checked_sgemm(mbtest::test_seed() + 91, 'N', 'T', 300, 200, 100, 1.f, 0.f), 0);
    int mine = -1;
    ASSERT_EQ(cudaGetDevice(&mine), cudaSuccess);
    EXPECT_EQ(mine, 0) << "the call moved a thread that had chosen its GPU";
  }).join();
}

}  // namespace

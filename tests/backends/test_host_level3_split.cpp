// Level 3 on host arrays (SYMM, HEMM, SYRK, HERK, SYR2K, HER2K, TRMM, TRSM) split across two GPUs
// (labels gpu and multigpu; skipped, with the reason, on fewer). The ctest entries set
// CUDA_VISIBLE_DEVICES=0,1, MYBLAS_BACKEND=cublas, MYBLAS_SPLIT_MIN=1 (every call with two
// panels or more is split) and MYBLAS_VERBOSE with a log file, from which the tests read that the
// calls were split and the warnings of injected faults (MYBLAS_TEST_FAULT=<point>@<gpu>). Every
// call is checked by tests/interface's checker against OpenBLAS's routine of the same name:
// padded operands with guards, the triangle not referenced holding NaN, beta == 0 over NaN.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "blas_suite.h"
#include "multi_gpu_util.h"

namespace iface {
namespace {

using multigpu::gpu_count;
using multigpu::log_count;
using multigpu::log_path;

template <class T>
std::vector<Fam> families() {
  if (Ty<T>::cx) return {Fam::symm, Fam::hemm, Fam::syrk, Fam::herk, Fam::syr2k, Fam::her2k, Fam::trmm, Fam::trsm};
  return {Fam::symm, Fam::syrk, Fam::syr2k, Fam::trmm, Fam::trsm};
}

// Every family of T with every option (or the first two of each), odd sizes whose split
// dimension (n for side L and the rank-k updates, m for side R) is `wide`: 1001 gives four
// 256-wide panels, two per GPU; 2001 gives eight, four per GPU. Returns the number of calls.
template <class T>
int sweep(bool every, int wide, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::complex<double> scalars[] = {{0.5, 0.25}, {-1, 0}, {1, 0}, {0.5, 0}, {-0.75, 1}};
  Sweep s;
  int calls = 0;
  for (Fam f : families<T>()) {
    std::vector<Options> opts = every_option<T>(f);
    if (!every && opts.size() > 2) opts.resize(2);
    for (const Options& o : opts) {
      if (!s.more()) return calls;
      const bool rank = !triangular(f) && f != Fam::symm && f != Fam::hemm;
      const int m = rank ? wide : o.side == 'L' ? 301 : wide, n = rank ? wide : o.side == 'L' ? wide : 301;
      BlasCase c = make_case(f, Entry::f77, o, m, n, 129);
      c.alpha = legal_scalar<T>(f, true, scalars[calls % 5]);
      c.beta = legal_scalar<T>(f, false, scalars[(calls + 2) % 5]);
      if (calls % 4 == 3 && !triangular(f)) {  // beta == 0: C holds NaN and must not be read
        c.beta = 0;
        c.poison = Poison::nan_c;
      }
      c.pad = 1 + calls % 3;
      c.mem = Mem::host;
      ++calls;
      s.add(check_any<T>(c, rng));
    }
  }
  return calls;
}

const char* const kSplitLine = "split over 2 GPUs (GPU:panels";

// Every family and type, every option, split over both GPUs.
TEST(SplitLevel3, EveryFamilyAndType) {
  REQUIRE_TWO_GPUS();
  ASSERT_FALSE(log_path().empty()) << "run through ctest";
  std::ofstream(log_path(), std::ios::trunc).close();
  const uint64_t seed = mbtest::test_seed();
  const int calls = sweep<float>(true, 1001, seed) + sweep<double>(true, 1001, seed + 1) +
                    sweep<std::complex<float>>(true, 1001, seed + 2) +
                    sweep<std::complex<double>>(true, 1001, seed + 3);
  EXPECT_EQ(log_count(kSplitLine), calls) << "every call split (" << log_path() << ")";
  EXPECT_EQ(log_count("warning"), 0) << log_path();
}

// MYBLAS_TEST_FAULT=<point>[@<gpu>] (ctest sets it, with TEST_EXPECT_LOG naming the warning):
// the failed GPU's unfinished panels are completed on the other GPU or on the CPU, every result is
// right, and one warning says so however many calls fail the same way.
TEST(SplitLevel3, FaultOnOneGpu) {
  REQUIRE_TWO_GPUS();
  const char* fault = std::getenv("MYBLAS_TEST_FAULT");
  const char* expect = std::getenv("TEST_EXPECT_LOG");
  if (!fault || !expect) GTEST_SKIP() << "run through ctest with MYBLAS_TEST_FAULT and TEST_EXPECT_LOG";
  std::ofstream(log_path(), std::ios::trunc).close();
  const uint64_t seed = mbtest::test_seed() + 10;
  const int calls = sweep<float>(false, 2001, seed) + sweep<double>(false, 2001, seed + 1) +
                    sweep<std::complex<float>>(false, 2001, seed + 2) +
                    sweep<std::complex<double>>(false, 2001, seed + 3);
  EXPECT_EQ(log_count(expect), 1) << log_path();
  EXPECT_EQ(log_count(kSplitLine), calls) << log_path();
}

}  // namespace
}  // namespace iface

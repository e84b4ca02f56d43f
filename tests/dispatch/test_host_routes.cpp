// The host routes (src/dispatch/rules.h): what the rules say of a host-array call in a process
// with a usable GPU before its shape is looked at. Dispatch sends a call whose operands all lie
// in the program-break heap to the CPU on these bits alone, so they must say the CPU exactly
// where the rules do, for every backend, routine, table and rule input (CPU).
#include "dispatch/rules.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/data.h"
#include "dispatch/table.h"

namespace {

using myblas::Backend;
using myblas::HostCpuRoutes;
using myblas::kRoutineCount;
using myblas::Path;
using myblas::Request;
using myblas::Routine;

constexpr Backend kBackends[] = {Backend::auto_, Backend::cpu, Backend::cublas, Backend::kernels};

// The routes' verdict for one call: the CPU, given whether the nearest host row names the GPU.
bool routes_say_cpu(const HostCpuRoutes& h, Backend b, int r, bool row_gpu) {
  const uint64_t bit = uint64_t(1) << r;
  return (h.always[int(b)] & bit) || ((h.unless_row[int(b)] & bit) && !row_gpu);
}

// Every input the general path may hand the rules for a host-array call with a GPU: a kernel
// or not (MYBLAS_BACKEND=kernels settles one), the row's word where the routine has GPU rows.
void expect_agreement(const bool (&rows)[kRoutineCount], const std::string& what) {
  const HostCpuRoutes h = myblas::host_cpu_routes(rows);
  for (const Backend b : kBackends)
    for (int r = 0; r < kRoutineCount; ++r)
      for (int row_gpu = 0; row_gpu <= int(rows[r]); ++row_gpu)
        for (int kernel = 0; kernel < 4; ++kernel) {
          const bool has_kernel = kernel & 1, wins = has_kernel && (kernel & 2);
          const bool rules_cpu =
              myblas::choose(Request{Routine(r), b, true, false, has_kernel, wins, row_gpu != 0}).path == Path::cpu;
          EXPECT_EQ(routes_say_cpu(h, b, r, row_gpu != 0), rules_cpu)
              << what << ": backend " << int(b) << ", routine " << r << ", row_gpu " << row_gpu << ", kernel "
              << has_kernel << "/" << wins;
        }
}

TEST(HostRoutes, AgreeWithTheRulesForEveryInput) {
  bool none[kRoutineCount] = {}, all[kRoutineCount];
  for (bool& x : all) x = true;
  expect_agreement(none, "no host row names the GPU");
  expect_agreement(all, "every routine has a GPU host row");
  std::mt19937_64 rng(mbtest::test_seed());
  for (int t = 0; t < 8; ++t) {
    bool rows[kRoutineCount];
    for (bool& x : rows) x = (rng() & 1) != 0;
    expect_agreement(rows, "random rows (seed " + std::to_string(mbtest::test_seed()) + ", table " +
                               std::to_string(t) + ")");
  }
}

// What the bits are, spelled out: the forced settings and auto mode's two cases.
TEST(HostRoutes, ForcedSettingsAndAutoMode) {
  bool rows[kRoutineCount] = {};
  rows[int(Routine::sgemm)] = true;
  const HostCpuRoutes h = myblas::host_cpu_routes(rows);
  const uint64_t every = (kRoutineCount == 64 ? ~uint64_t(0) : (uint64_t(1) << kRoutineCount) - 1);
  const uint64_t sgemm = uint64_t(1) << int(Routine::sgemm);
  EXPECT_EQ(h.always[int(Backend::cpu)], every);
  EXPECT_EQ(h.unless_row[int(Backend::cpu)], 0u);
  EXPECT_EQ(h.always[int(Backend::cublas)] | h.unless_row[int(Backend::cublas)], 0u);
  EXPECT_EQ(h.always[int(Backend::kernels)] | h.unless_row[int(Backend::kernels)], 0u);
  EXPECT_EQ(h.always[int(Backend::auto_)], every & ~sgemm);
  EXPECT_EQ(h.unless_row[int(Backend::auto_)], sgemm);
}

// The committed sm_90 table: SGEMV and DGEMV host rows all say the CPU, SGEMM and DGEMM have GPU rows.
TEST(HostRoutes, CommittedTable) {
  myblas::DispatchTable t;
  std::string error;
  ASSERT_TRUE(myblas::load_dispatch_table(MYBLAS_SOURCE_DIR "/data/dispatch-sm_90.csv", &t, &error)) << error;
  const HostCpuRoutes h = myblas::host_cpu_routes(t.host_gpu_rows);
  auto bit = [](Routine r) { return uint64_t(1) << int(r); };
  const Routine dgemv = myblas::routine_of(myblas::Family::gemv, myblas::Dtype::d);
  const Routine dgemm = myblas::routine_of(myblas::Family::gemm, myblas::Dtype::d);
  const int a = int(Backend::auto_);
  EXPECT_TRUE(h.always[a] & bit(Routine::sgemv));
  EXPECT_TRUE(h.always[a] & bit(dgemv));
  EXPECT_TRUE(h.unless_row[a] & bit(Routine::sgemm));
  EXPECT_TRUE(h.unless_row[a] & bit(dgemm));
  expect_agreement(t.host_gpu_rows, "data/dispatch-sm_90.csv");
}

}  // namespace

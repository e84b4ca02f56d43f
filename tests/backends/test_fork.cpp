// CUDA does not survive fork(). A child of a parent that used the GPU must compute host-array
// calls correctly on the CPU, must not crash when handed the parent's device pointers (it
// reports an error and leaves the call undone), and the parent must keep using the GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

// Host SGEMM checked against OpenBLAS; returns the number of wrong elements.
int host_sgemm_errors(uint64_t seed, const char** path) {
  std::mt19937_64 rng(seed);
  const int m = 57, n = 33, k = 41;
  mbtest::Matrix a(m, k, m, rng), b(k, n, k, rng), c(m, n, m, rng);
  mbtest::Matrix want = c;
  const float alpha = 0.5f, beta = 2.f;
  mbtest::ref_sgemm('N', 'N', m, n, k, alpha, a.data(), m, b.data(), k, beta, want.data(), m);
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m);
  *path = myblas_last_path();
  int bad = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      bad += !(std::fabs(c.at(i, j) - want.at(i, j)) <= (k + 2) * 4 * FLT_EPSILON * (0.5 * k + 2 * 1));
  return bad;
}

TEST(ForkDevice, ChildRunsOnCpuAndRefusesDevicePointers) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: nothing special about fork";
  const int m = 64, n = 64, k = 64;
  float *da, *db, *dc;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), 4 * m * k), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), 4 * k * n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), 4 * m * n), cudaSuccess);
  cudaMemset(da, 0, 4 * m * k);
  cudaMemset(db, 0, 4 * k * n);
  const float alpha = 1.f, beta = 0.f;
  sgemm_("N", "N", &m, &n, &k, &alpha, da, &m, db, &k, &beta, dc, &m);
  ASSERT_STREQ(myblas_last_path(), "cublas");

  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: no gtest assertions (they would report in the child); exit codes instead.
    const char* path = nullptr;
    if (host_sgemm_errors(mbtest::test_seed(), &path) != 0) _exit(10);
    if (std::string(path) != "cpu") _exit(11);
    sgemm_("N", "N", &m, &n, &k, &alpha, da, &m, db, &k, &beta, dc, &m);  // must not crash
    if (std::string(myblas_last_path()) != "none") _exit(12);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: wrong host result, 11: not on the CPU, 12: device pointers not refused";

  // The parent still has its GPU.
  sgemm_("N", "N", &m, &n, &k, &alpha, da, &m, db, &k, &beta, dc, &m);
  EXPECT_STREQ(myblas_last_path(), "cublas");
  const char* path = nullptr;
  EXPECT_EQ(host_sgemm_errors(mbtest::test_seed() + 1, &path), 0);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

// Host SGEMM of 1024^3 (auto mode sends it through the GPU pipeline: the measured table has
// the GPU 5.9x faster there), checked against OpenBLAS; returns the number of wrong elements.
int pipeline_sgemm_errors(uint64_t seed, const char** path) {
  std::mt19937_64 rng(seed);
  const int m = 1024, n = 1000, k = 1020;
  mbtest::Matrix a(m, k, m, rng), b(k, n, k, rng), c(m, n, m, rng);
  mbtest::Matrix want = c;
  const float alpha = 0.5f, beta = -1.f;
  mbtest::ref_sgemm('N', 'N', m, n, k, alpha, a.data(), m, b.data(), k, beta, want.data(), m);
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m);
  *path = myblas_last_path();
  int bad = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      bad += !(std::fabs(c.at(i, j) - want.at(i, j)) <= (k + 2) * 4 * FLT_EPSILON * (0.5 * k + 1));
  return bad + int(c.damaged_guards());
}

// The pipeline keeps its streams per thread, destroyed at thread exit. A child forked after
// the parent used it inherits that thread-exit cleanup; returning normally (exit(), not _exit)
// runs it there, where it must leave the parent's CUDA objects alone instead of crashing. The
// parent then reuses its kept streams.
TEST(ForkDevice, ChildExitsNormallyAfterTheParentUsedThePipeline) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: nothing special about fork";
  const char* path = nullptr;
  ASSERT_EQ(pipeline_sgemm_errors(mbtest::test_seed(), &path), 0);
  ASSERT_STREQ(path, "cublas");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const char* child_path = nullptr;
    if (host_sgemm_errors(mbtest::test_seed() + 2, &child_path) != 0) _exit(10);
    if (std::string(child_path) != "cpu") _exit(11);
    std::exit(0);  // runs the thread-exit and process-exit cleanup
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died at exit (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: wrong host result, 11: not on the CPU";
  EXPECT_EQ(pipeline_sgemm_errors(mbtest::test_seed() + 3, &path), 0);
  EXPECT_STREQ(path, "cublas");
}

}  // namespace

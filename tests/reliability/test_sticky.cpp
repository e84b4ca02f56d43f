// A sticky CUDA error (the context is lost, as after an illegal address) must switch the
// process to the CPU for good: with MYBLAS_TEST_FAULT=sticky the first call that reaches the
// GPU finds the context lost. Then (MYBLAS_BACKEND=cublas, so host calls go to the GPU too):
//   - every host-operand call completes correctly on the CPU, path "cpu", the first included
//     (it fails on the GPU and is redone on the CPU), from four threads starting together;
//   - the log holds exactly one warning, saying the context is unusable;
//   - myblas_gpu_available() becomes 0;
//   - a call with device pointers returns without crashing, reports "none" and leaves C
//     unchanged: the library cannot read device memory once it considers the context lost.
//     (The context is only declared lost here, so the test itself can still allocate and
//     read device memory to set this up and check it.)
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/data.h"
#include "myblas.h"
#include "interface/blas_suite.h"
#include "reliability/random_call.h"

namespace {

std::vector<std::string> warnings(const std::string& log) {
  std::ifstream in(log);
  std::vector<std::string> w;
  std::string line;
  while (std::getline(in, line))
    if (line.find("warning:") != std::string::npos) w.push_back(line);
  return w;
}

TEST(StickyDevice, ContextLostRunsEverythingOnCpu) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no usable CUDA device: there is no context to lose";
  const char* log = std::getenv("MYBLAS_LOG");
  const char* fault = std::getenv("MYBLAS_TEST_FAULT");
  const char* backend = std::getenv("MYBLAS_BACKEND");
  ASSERT_TRUE(log && fault && std::string(fault) == "sticky" && backend && std::string(backend) == "cublas")
      << "run through ctest (MYBLAS_TEST_FAULT=sticky, MYBLAS_BACKEND=cublas, MYBLAS_LOG)";
  std::ofstream(log, std::ios::trunc).close();

  const uint64_t seed = mbtest::test_seed();
  constexpr int kThreads = 4, kCalls = 200;
  std::atomic<int> ready{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(seed + 1000003ull * uint64_t(t));
      reltest::Limits lim;
      lim.min_dim = 1;
      lim.allow_quick_return = false;  // every call must reach the dispatch
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // first calls race
      for (int i = 0; i < kCalls && errors[size_t(t)].empty(); ++i) {
        const reltest::Spec s = reltest::random_spec(rng, lim);
        const reltest::Result r = reltest::run_call(s, rng, nullptr, true);
        if (!r.error.empty()) errors[size_t(t)] = "call " + std::to_string(i) + ": " + r.error;
        else if (r.path != "cpu") errors[size_t(t)] = "call " + std::to_string(i) + ": " + s.describe() + ": path " + r.path;
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_TRUE(errors[size_t(t)].empty()) << "thread " << t << " " << errors[size_t(t)] << " [MYBLAS_TEST_SEED=" << seed << "]";
  EXPECT_EQ(myblas_gpu_available(), 0) << "the lost context must disable the GPU for the process";
  std::vector<std::string> w = warnings(log);
  ASSERT_EQ(w.size(), 1u) << "expected exactly one warning in " << log;
  EXPECT_NE(w[0].find("context is unusable"), std::string::npos) << w[0];

  // Device pointers after the loss: refused, nothing written, no crash.
  const int m = 33, n = 17, k = 9;
  const size_t bytes = size_t(64) * 64 * 4;
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), bytes), cudaSuccess);
  std::vector<float> pattern(bytes / 4);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = float(i % 251) * 0.25f;
  cudaMemcpy(da, pattern.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, pattern.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dc, pattern.data(), bytes, cudaMemcpyHostToDevice);
  const float alpha = 0.5f, beta = 2.f;
  sgemm_("N", "N", &m, &n, &k, &alpha, da, &m, db, &k, &beta, dc, &m);
  EXPECT_STREQ(myblas_last_path(), "none") << "sgemm_ on device pointers after the loss";
  const int one = 1;
  sgemv_("T", &m, &n, &alpha, da, &m, db, &one, &beta, dc, &one);
  EXPECT_STREQ(myblas_last_path(), "none") << "sgemv_ on device pointers after the loss";
  const uint16_t ha = myblas_float_to_half(alpha), hb = myblas_float_to_half(beta);
  hgemm_("T", "N", &m, &n, &k, &ha, reinterpret_cast<const uint16_t*>(da), &k,
         reinterpret_cast<const uint16_t*>(db), &k, &hb, reinterpret_cast<uint16_t*>(dc), &m);
  EXPECT_STREQ(myblas_last_path(), "none") << "hgemm_ on device pointers after the loss";
  std::vector<float> back(pattern.size());
  ASSERT_EQ(cudaMemcpy(back.data(), dc, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(back.data(), pattern.data(), bytes), 0) << "C changed although the calls were refused";
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);

  // Still one "unusable" warning; each refused routine is reported (once).
  w = warnings(log);
  int unusable = 0, refused = 0;
  for (const std::string& l : w) {
    unusable += l.find("context is unusable") != std::string::npos;  // (refusals say "CUDA is unusable")
    refused += l.find("the CPU cannot read") != std::string::npos;
  }
  EXPECT_EQ(unusable, 1);
  EXPECT_EQ(refused, 3) << "sgemm, sgemv and hgemm refusals, one line each";
  EXPECT_EQ(int(w.size()), unusable + refused);

  // And host calls still work afterwards.
  std::mt19937_64 rng(seed ^ 0x5555);
  reltest::Limits lim;
  lim.min_dim = 1;
  lim.allow_quick_return = false;
  for (int i = 0; i < 50; ++i) {
    const reltest::Spec s = reltest::random_spec(rng, lim);
    const reltest::Result r = reltest::run_call(s, rng, nullptr, true);
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_EQ(r.path, "cpu") << s.describe();
  }
}

// The routines of the generic problem after the loss (its own process: reliability.sticky_blas):
// the first host call meets the lost context and is redone on the CPU, every later one runs
// there (each checked in full), device operands are refused with C untouched, and the log
// holds the one "unusable" warning plus one refusal line per refused routine.
TEST(StickyBlasDevice, GenericRoutinesAfterLoss) {
  using iface::no_gpu_reason;
  IFACE_REQUIRE_GPU();
  const char* log = std::getenv("MYBLAS_LOG");
  const char* fault = std::getenv("MYBLAS_TEST_FAULT");
  ASSERT_TRUE(log && fault && std::string(fault) == "sticky" && iface::backend_env() == "cublas")
      << "run through ctest (MYBLAS_TEST_FAULT=sticky, MYBLAS_BACKEND=cublas, MYBLAS_LOG)";
  std::ofstream(log, std::ios::trunc).close();
  using iface::Fam;
  std::mt19937_64 rng(mbtest::test_seed());
  int i = 0;
  auto host_call = [&](auto type_tag, Fam f) {
    using T = decltype(type_tag);
    const std::vector<iface::Options> opts = iface::every_option<T>(f);
    iface::BlasCase c = iface::make_case(f, iface::Entry::f77, opts[size_t(i++) % opts.size()], 65, 33, 17);
    c.alpha = iface::legal_scalar<T>(f, true, {0.5, 0.25});
    c.beta = iface::legal_scalar<T>(f, false, {-1, 0});
    EXPECT_TRUE(iface::check_any<T>(c, rng));
    EXPECT_STREQ(myblas_last_path(), "cpu") << iface::routine_base<T>(f);
  };
  for (int round = 0; round < 3; ++round) {
    host_call(double(), Fam::gemm);
    host_call(std::complex<double>(), Fam::herk);
    host_call(double(), Fam::trsm);
    host_call(std::complex<float>(), Fam::hemm);
    host_call(std::complex<double>(), Fam::gemv);
  }
  EXPECT_EQ(myblas_gpu_available(), 0);
  // Device pointers: refused.
  const int n = 16;
  const size_t bytes = size_t(n) * n * sizeof(double) * 2;
  void *da = nullptr, *dc = nullptr;
  ASSERT_EQ(cudaMalloc(&da, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dc, bytes), cudaSuccess);
  std::vector<double> pattern(bytes / sizeof(double));
  for (size_t p = 0; p < pattern.size(); ++p) pattern[p] = double(p % 97) * 0.125;
  cudaMemcpy(da, pattern.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dc, pattern.data(), bytes, cudaMemcpyHostToDevice);
  const double al[2] = {0.5, 0}, be[2] = {2, 0};
  dgemm_("N", "T", &n, &n, &n, al, static_cast<double*>(da), &n, static_cast<double*>(da), &n, be,
         static_cast<double*>(dc), &n);
  EXPECT_STREQ(myblas_last_path(), "none") << "dgemm_ on device pointers after the loss";
  zherk_("U", "N", &n, &n, al, da, &n, be, dc, &n);
  EXPECT_STREQ(myblas_last_path(), "none") << "zherk_ on device pointers after the loss";
  dtrsm_("L", "L", "N", "U", &n, &n, al, static_cast<double*>(da), &n, static_cast<double*>(dc), &n);
  EXPECT_STREQ(myblas_last_path(), "none") << "dtrsm_ on device pointers after the loss";
  std::vector<double> back(pattern.size());
  ASSERT_EQ(cudaMemcpy(back.data(), dc, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(back.data(), pattern.data(), bytes), 0) << "C changed although the calls were refused";
  cudaFree(da);
  cudaFree(dc);
  const std::vector<std::string> w = warnings(log);
  int unusable = 0, refused = 0;
  std::string all;
  for (const std::string& l : w) {
    unusable += l.find("context is unusable") != std::string::npos;
    refused += l.find("the CPU cannot read") != std::string::npos;
    all += "\n  " + l;
  }
  EXPECT_EQ(unusable, 1) << all;
  EXPECT_EQ(refused, 3) << "dgemm, zherk and dtrsm refusals, one line each:" << all;
  EXPECT_EQ(int(w.size()), unusable + refused) << all;
}

}  // namespace

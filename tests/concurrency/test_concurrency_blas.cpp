// Threads calling the routines served through the generic problem at the same time (DGEMM,
// ZGEMM, ZHERK, DTRSM, DSYR2K, ZGEMV on random options, entry points and shapes), each call
// checked against OpenBLAS as test_interface_blas checks it (interface/blas_check.h): results,
// guards, untouched inputs and triangles, and this thread's own last path.
#include <atomic>
#include <thread>

#include "interface/blas_suite.h"

namespace {

using iface::BlasCase;
using iface::Fam;

constexpr int kThreads = 8;

template <class T>
bool random_call(Fam f, iface::Mem mem, std::mt19937_64& rng) {
  const std::vector<iface::Options> opts = iface::every_option<T>(f);
  const std::vector<iface::Entry>& entries = iface::all_entries();
  auto pick = [&rng](int lo, int hi) { return int(lo + rng() % uint64_t(hi - lo + 1)); };
  BlasCase c = iface::make_case(f, entries[size_t(pick(0, int(entries.size()) - 1))],
                                opts[size_t(pick(0, int(opts.size()) - 1))], pick(1, 70), pick(1, 70), pick(1, 70));
  c.alpha = iface::legal_scalar<T>(f, true, {0.5 + pick(0, 3) * 0.25, pick(-1, 1) * 0.5});
  c.beta = iface::legal_scalar<T>(f, false, {pick(-2, 2) * 0.5, pick(-1, 1) * 0.25});
  c.incx = pick(0, 1) ? 1 : -2;
  c.incy = pick(0, 1) ? 1 : -1;
  c.pad = pick(0, 4);
  c.mem = mem;
  return iface::check_any<T>(c, rng);
}

void run_threads(iface::Mem mem, int calls) {
  const uint64_t base = mbtest::test_seed();
  std::atomic<int> ready{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(base + 0x9E3779B97F4A7C15ull * uint64_t(t + 1));
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int i = 0; i < calls && failed.load() < 5; ++i) {
        bool ok = true;
        switch (rng() % 6) {
          case 0: ok = random_call<double>(Fam::gemm, mem, rng); break;
          case 1: ok = random_call<std::complex<double>>(Fam::gemm, mem, rng); break;
          case 2: ok = random_call<std::complex<double>>(Fam::herk, mem, rng); break;
          case 3: ok = random_call<double>(Fam::trsm, mem, rng); break;
          case 4: ok = random_call<double>(Fam::syr2k, mem, rng); break;
          default: ok = random_call<std::complex<double>>(Fam::gemv, mem, rng); break;
        }
        if (!ok) failed.fetch_add(1);
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failed.load(), 0) << "MYBLAS_TEST_SEED=" << base;
}

TEST(ConcurrencyBlas, MixedRoutinesHostOperands) {
  if (iface::backend_env() == "cublas" && !myblas_gpu_available()) GTEST_SKIP() << "MYBLAS_BACKEND=cublas needs a GPU";
  run_threads(iface::Mem::host, 60);
}

TEST(ConcurrencyBlasDevice, MixedRoutinesDeviceOperands) {
  using iface::no_gpu_reason;
  IFACE_REQUIRE_GPU();
  run_threads(iface::Mem::device, 60);
}

}  // namespace

// Differential random test: many calls with random routine, entry point (Fortran, MKL-style
// hgemm, CBLAS column- and row-major), transposes in upper and lower case, sizes 0..70 (one
// call in 50 up to 300), padded leading dimensions with guards, increments in
// {-3,-2,-1,1,2,3}, alpha/beta from {0, 1, -1, 0.5, uniform in [-2, 2]}, NaN in C/y when
// beta == 0 and in A/B/x when alpha == 0. Every call is compared with OpenBLAS under the
// k-scaled bound (random_call.h), and must take the path its backend setting promises.
//
// Environment (ctest sets it per entry):
//   MYBLAS_BACKEND         cpu | cublas | kernels | auto
//   MYBLAS_DIFF_PLACES     host (default) | device | any (each operand host or device at random)
//   MYBLAS_DIFF_CALLS      total number of calls (default 100000)
//   MYBLAS_DIFF_THREADS    threads sharing them (default: cores, at most 16)
//   MYBLAS_TEST_SEED       base seed (default: the clock); printed at the start
//   MYBLAS_DIFF_REPLAY     a call seed from a failure message: runs that one call
//   MYBLAS_DIFF_REQUIRE_GPU=1  skip (visibly) without a usable GPU, whatever the setting
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/data.h"
#include "myblas.h"
#include "reliability/random_call.h"

namespace {

using reltest::Limits;
using reltest::Routine;
using reltest::Spec;

std::string env(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  std::string s = v && *v ? v : fallback;
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The paths a call may report under the backend setting (README "Configuration").
bool path_allowed(const Spec& s, const std::string& backend, const std::string& path) {
  if (s.quick_return()) return path == "none";
  if (backend == "cpu") return path == "cpu";
  if (backend == "cublas") return path == "cublas";
  if (backend == "kernels") {
    // Our kernels run SGEMM, SGEMV, HGEMM and every alpha == 0 / k == 0 scaling.
    return path == "kernels";
  }
  // auto: an operand the call uses in device memory sends it to the GPU, on our kernel where it
  // measured faster (the measured table's device rows) or cuBLAS; host-only GEMM follows the
  // measured host table; host SGEMV never leaves the CPU.
  const int used = s.scale_only() ? 4 : 7;  // place bits of the operands read or written (4: C or y)
  if (s.place & used) return path == "cublas" || path == "kernels";  // kernels: where measured faster
  if (s.routine == Routine::sgemv) return path == "cpu";
  return path == "cpu" || path == "cublas";
}

uint64_t call_seed(uint64_t thread_seed, uint64_t i) {  // splitmix64: independent per call
  uint64_t z = thread_seed + 0x9E3779B97F4A7C15ull * (i + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Worker {
  uint64_t seed = 0;
  int calls = 0, done = 0, failures = 0;
  std::vector<std::string> messages;
  std::map<std::string, long> paths;
};

TEST(Differential, RandomCallsAgainstOpenBLAS) {
  const std::string backend = env("MYBLAS_BACKEND", "auto"), places = env("MYBLAS_DIFF_PLACES", "host");
  Limits lim;
  if (places == "device") lim.places = Limits::Places::device;
  else if (places == "any") lim.places = Limits::Places::any;
  else ASSERT_EQ(places, "host") << "MYBLAS_DIFF_PLACES must be host, device or any";
  // MYBLAS_DIFF_REQUIRE_GPU=1 (the gpu entries): auto with host operands would pass on the CPU.
  const bool needs_gpu = places != "host" || backend == "cublas" || backend == "kernels" ||
                         env("MYBLAS_DIFF_REQUIRE_GPU") == "1";
  if (needs_gpu && !myblas_gpu_available())
    GTEST_SKIP() << "MYBLAS_BACKEND=" << backend << " with " << places << " operands needs a GPU: none usable here";

  const uint64_t base = mbtest::test_seed();
  const char* calls_env = std::getenv("MYBLAS_DIFF_CALLS");
  const long total = calls_env ? std::max(1L, std::atol(calls_env)) : 100000L;
  const char* threads_env = std::getenv("MYBLAS_DIFF_THREADS");
  const int threads = threads_env ? std::max(1, std::atoi(threads_env))
                                  : int(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
  const char* replay = std::getenv("MYBLAS_DIFF_REPLAY");
  std::printf("differential: MYBLAS_BACKEND=%s operands=%s calls=%ld threads=%d MYBLAS_TEST_SEED=%llu%s\n",
              backend.c_str(), places.c_str(), replay ? 1L : total, replay ? 1 : threads,
              static_cast<unsigned long long>(base), replay ? " (replaying one call)" : "");
  std::fflush(stdout);

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Worker> ws(size_t(replay ? 1 : threads));
  auto work = [&](Worker& w, int tid) {
    reltest::DeviceArena arena;
    if (places != "host" && !arena.allocate(reltest::arena_bytes(lim.big_dim))) {
      ++w.failures;
      w.messages.push_back("cudaMalloc of the thread's device buffers failed");
      return;
    }
    for (int i = 0; i < w.calls; ++i) {
      const uint64_t cs = replay ? std::strtoull(replay, nullptr, 0) : call_seed(w.seed, uint64_t(i));
      std::mt19937_64 rng(cs);
      const Spec s = reltest::random_spec(rng, lim);
      const reltest::Result r = reltest::run_call(s, rng, &arena, true);
      ++w.paths[r.path];
      std::string err = r.error;
      if (err.empty() && !path_allowed(s, backend, r.path))
        err = s.describe() + ": path " + r.path + " is not what MYBLAS_BACKEND=" + backend + " promises";
      if (!err.empty()) {
        ++w.failures;
        if (w.messages.size() < 5)
          w.messages.push_back("thread " + std::to_string(tid) + " call " + std::to_string(i) +
                               " (MYBLAS_DIFF_REPLAY=" + std::to_string(cs) + "): " + err);
      }
      ++w.done;
    }
    arena.release();
  };
  std::vector<std::thread> pool;
  for (size_t t = 0; t < ws.size(); ++t) {
    ws[t].seed = base + 0x2545F4914F6CDD1Dull * (t + 1);
    ws[t].calls = replay ? 1 : int(total / long(ws.size()) + (long(t) < total % long(ws.size()) ? 1 : 0));
    pool.emplace_back(work, std::ref(ws[t]), int(t));
  }
  for (std::thread& th : pool) th.join();

  long done = 0, failed = 0;
  std::map<std::string, long> paths;
  for (const Worker& w : ws) {
    done += w.done;
    failed += w.failures;
    for (const auto& p : w.paths) paths[p.first] += p.second;
    for (const std::string& m : w.messages) ADD_FAILURE() << m << "  [MYBLAS_TEST_SEED=" << base << "]";
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("differential: %ld calls, %ld failed, %.1f s; paths:", done, failed, sec);
  for (const auto& p : paths) std::printf(" %s=%ld", p.first.c_str(), p.second);
  std::printf("\n");
  EXPECT_EQ(failed, 0) << "failed calls (at most 5 per thread shown above)";
  EXPECT_EQ(done, replay ? 1 : total) << "a thread stopped early";
}

}  // namespace

// No leaks across 10,000 failing calls. One ctest entry per fault point (MYBLAS_TEST_FAULT =
// alloc, copy, cublas, pin, pipeline, device, sync with MYBLAS_BACKEND=cublas so that host calls
// go to the GPU too; launch with MYBLAS_BACKEND=kernels, as only our kernels' launches reach it):
// every call whose GPU path hits the point fails there and is completed on the CPU, or,
// for "pipeline", finished on the CPU from the panel where the pipeline failed. A failure
// path that forgets to free a device buffer, a pinned staging buffer, a stream or a host
// copy shows up as memory growth over 10,000 calls.
//
// Measured with the device idle, after a warm-up of 50 calls (every routine, operand
// placement and scaling case, the first ones at the largest sizes) and a first pass of 10,000
// random calls, then again after a second pass that repeats the first call for call (same
// seed: same shapes, same data, same faults):
//   device   cudaMemGetInfo free memory (the entries run serially: nothing else on the GPU)
//   rss      the process's resident set (/proc/self/statm); pinned host memory counts here
//            (seen on the H100: a test variant leaking one 4 KiB cudaHostAlloc per call grew
//            RSS, while the address space mapped from /dev/nvidia* did not move)
// Why the second pass and not the warm-up alone: on the H100 the first 10,000 calls grew RSS
// by 51-62 MiB and device memory by 2 MiB where cuBLAS ran many shapes, under 1 MiB where it
// never ran; with CUDA_MODULE_LOADING=EAGER the same entry grew by 7 MiB and 0, so that was
// mostly CUDA's lazy loading of each cuBLAS kernel on first use, paid once. A repeat of the
// same calls loads nothing new, so what still grows is held per call. Each may grow by at
// most 8 MiB across the second pass: one more 2 MiB chunk of the library's stream-ordered
// device pool if the pass ends at a different fragmentation, and glibc's heap noise; a leak
// of >= 1 KiB per call is 10 MiB over the pass, a leaked pinned buffer or stream far more.
//
// Every call is checked cheaply (path, guards, inputs unchanged, no NaN in the output; see
// random_call.h); every 100th also against OpenBLAS with the k-scaled bound. The log
// (MYBLAS_LOG) must hold each warning once: one line per cause however many calls fail.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/data.h"
#include "myblas.h"
#include "interface/blas_suite.h"
#include "reliability/random_call.h"

namespace {

using reltest::Limits;
using reltest::Routine;
using reltest::Spec;

constexpr int kCalls = 10000, kWarmup = 50, kMaxDim = 96;
constexpr long long kTolerance = 8ll << 20;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

struct Usage {
  long long device_free = 0, rss = 0;
};

Usage measure() {
  Usage u;
  cudaDeviceSynchronize();
  size_t free_b = 0, total = 0;
  if (cudaMemGetInfo(&free_b, &total) == cudaSuccess) u.device_free = (long long)free_b;
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  statm >> pages >> resident;
  u.rss = resident * sysconf(_SC_PAGESIZE);
  return u;
}

std::string usage_text(const Usage& u) {
  char buf[120];
  std::snprintf(buf, sizeof buf, "device free %lld MiB + %lld KiB, rss %lld KiB", u.device_free >> 20,
                (u.device_free & ((1 << 20) - 1)) >> 10, u.rss >> 10);
  return buf;
}

// Whether the call's GPU path reaches the injected point, and so must complete on the CPU
// ("cpu"), or not ("cublas"), from src/backends/cuda. Placements used here: all host, all
// device, or inputs on the device with C/y in host memory (staged).
enum class Reach { yes, no, either };
Reach reaches_fault(const std::string& point, const Spec& s) {
  const bool out_on_host = !(s.place & 4), gemm = s.routine != Routine::sgemv, scale = s.scale_only();
  auto when = [](bool b) { return b ? Reach::yes : Reach::no; };
  if (point == "alloc") {  // a staged C/y needs a device buffer
    if (out_on_host) return Reach::yes;
    // In place, only HGEMM may allocate: FP32 scratch for its single rounding, which an
    // implementation may skip where it can round once without it (beta == 0).
    return s.routine == Routine::hgemm && !scale ? Reach::either : Reach::no;
  }
  if (point == "copy") return when(out_on_host);  // C/y is copied in, or back
  if (point == "sync") return when(out_on_host);  // the wait before a staged C/y is read back
  if (point == "device") return Reach::yes;       // cudaSetDevice starts every GPU call
  // Under MYBLAS_BACKEND=kernels every GEMM runs one of our kernels (or the scaling kernel);
  // an SGEMV no kernel takes goes to cuBLAS.
  if (point == "launch") return gemm ? Reach::yes : Reach::either;
  if (point == "cublas") return when(!scale);     // alpha == 0 is our scaling kernel, not cuBLAS
  if (point == "pin") return when(s.place == reltest::kAllHost && gemm && !scale);  // pipeline only
  return Reach::no;  // "pipeline": the columns already final stay, so the call still reports cublas
}

// Substring each warning of this point must contain.
std::vector<std::string> markers(const std::string& point) {
  if (point == "alloc") return {"injected fault at alloc", "cudaErrorMemoryAllocation"};
  if (point == "cublas") return {"cublasSgemm failed", "cublasGemmEx failed", "cublasSgemv failed"};
  if (point == "pipeline") return {"(download)"};
  return {"injected fault at " + point};
}

std::vector<std::string> warnings(const std::string& log) {
  std::ifstream in(log);
  std::vector<std::string> w;
  std::string line;
  while (std::getline(in, line))
    if (line.find("warning:") != std::string::npos) w.push_back(line);
  return w;
}

TEST(LeaksDevice, TenThousandFailingCalls) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no usable CUDA device: no GPU path to fail";
  const std::string point = env("MYBLAS_TEST_FAULT"), log = env("MYBLAS_LOG");
  ASSERT_TRUE(!point.empty() && !log.empty() && env("MYBLAS_BACKEND") == (point == "launch" ? "kernels" : "cublas"))
      << "run through ctest (MYBLAS_TEST_FAULT, MYBLAS_LOG, MYBLAS_BACKEND=cublas, or kernels for launch)";
  std::ofstream(log, std::ios::trunc).close();  // before the library opens it (append mode)

  // Device operands only where the point can hit them (pin and pipeline are host-array steps).
  const bool device_too = point != "pin" && point != "pipeline";
  const int places[] = {reltest::kAllHost, reltest::kAllDevice, reltest::kInputsOnDevice};
  Limits lim;
  lim.min_dim = 1;  // no quick returns: each call reaches the GPU path
  lim.max_dim = kMaxDim;
  lim.p_big = 0;
  lim.allow_quick_return = false;
  reltest::DeviceArena arena;
  ASSERT_TRUE(arena.allocate(reltest::arena_bytes(kMaxDim)));

  const uint64_t seed = mbtest::test_seed();
  std::printf("leaks: MYBLAS_TEST_FAULT=%s, %d warm-up calls, then twice the same %d calls, MYBLAS_TEST_SEED=%llu\n",
              point.c_str(), kWarmup, kCalls, static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  int failures = 0, fell_back = 0;
  auto one = [&](Spec s, int i, bool full) {
    const reltest::Result r = reltest::run_call(s, rng, &arena, full);
    const Reach reach = reaches_fault(point, s);
    const bool path_ok = reach == Reach::yes ? r.path == "cpu"
                         : reach == Reach::no ? r.path == "cublas"
                                              : r.path == "cpu" || r.path == "cublas";
    std::string err = r.error;
    if (err.empty() && !path_ok)
      err = s.describe() + ": path " + r.path + ", expected " + (reach == Reach::yes ? "cpu" : "cublas");
    fell_back += r.path == "cpu";
    // Calls are numbered -1..-50 in the warm-up, 0.. in pass 1, 10000.. in pass 2.
    if (!err.empty() && ++failures <= 5) ADD_FAILURE() << "call " << i << ": " << err << " [MYBLAS_TEST_SEED=" << seed << "]";
  };
  for (int i = 0; i < kWarmup; ++i) {
    Spec s = reltest::random_spec(rng, lim);
    s.routine = static_cast<Routine>(i % 3);
    if (s.routine != Routine::hgemm && s.entry == reltest::Entry::plain) s.entry = reltest::Entry::fortran;
    s.place = device_too ? places[(i / 3) % 3] : reltest::kAllHost;
    if (i < 18) s.m = s.n = s.k = kMaxDim;  // the largest buffers first
    s.alpha = i % 9 == 8 ? 0.f : 0.75f;      // the scaling path too
    s.beta = i % 2 ? 0.f : -0.5f;
    one(s, -1 - i, true);
  }
  const Usage warm = measure();
  // Two passes of the same calls; the second is the one measured (see the top of the file).
  const uint64_t pass_seed = seed ^ 0xA5A5A5A5A5A5A5A5ull;
  Usage after_pass[2];
  double sec[2];
  for (int pass = 0; pass < 2; ++pass) {
    rng.seed(pass_seed);
    fell_back = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls && failures < 50; ++i) {
      Spec s = reltest::random_spec(rng, lim);
      s.place = device_too ? places[std::uniform_int_distribution<int>(0, 2)(rng)] : reltest::kAllHost;
      one(s, i + pass * kCalls, i % 100 == 0);
    }
    sec[pass] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    after_pass[pass] = measure();
  }
  arena.release();
  std::printf("leaks: each pass %d calls (%.1f s, %.1f s), %d completed on the CPU\n", kCalls, sec[0], sec[1], fell_back);
  std::printf("leaks: after warm-up %s\nleaks: after pass 1  %s\nleaks: after pass 2  %s\n", usage_text(warm).c_str(),
              usage_text(after_pass[0]).c_str(), usage_text(after_pass[1]).c_str());
  const long long dev_growth = after_pass[0].device_free - after_pass[1].device_free;
  const long long rss_growth = after_pass[1].rss - after_pass[0].rss;
  std::printf("leaks: growth over pass 2: device %lld bytes, rss %lld bytes (pass 1: device %lld, rss %lld)\n",
              dev_growth, rss_growth, warm.device_free - after_pass[0].device_free, after_pass[0].rss - warm.rss);
  EXPECT_EQ(failures, 0);
  EXPECT_LE(dev_growth, kTolerance) << "device memory grew over a repeat of the same failing calls";
  EXPECT_LE(rss_growth, kTolerance) << "resident host memory (pinned included) grew over a repeat of the same calls";
  if (point != "pipeline") {
    EXPECT_GT(fell_back, kCalls / 4) << "the fault was hardly reached: the test tests nothing";
  }

  // One warning per cause: no line twice, every line about the injected fault, none lost.
  const std::vector<std::string> w = warnings(log);
  std::set<std::string> distinct(w.begin(), w.end());
  std::ostringstream all;
  for (const std::string& l : w) all << "\n  " << l;
  EXPECT_FALSE(w.empty()) << "no warning in " << log;
  EXPECT_EQ(distinct.size(), w.size()) << "a warning repeated:" << all.str();
  for (const std::string& l : w) {
    bool ok = false;
    for (const std::string& m : markers(point)) ok = ok || l.find(m) != std::string::npos;
    EXPECT_TRUE(ok) << "a warning not about the injected fault: " << l;
    EXPECT_EQ(l.find("could not complete"), std::string::npos) << l;
  }
  if (point == "pipeline") {
    int partial = 0;
    for (const std::string& l : w) partial += l.find("completing the unfinished") != std::string::npos;
    EXPECT_EQ(partial, 1) << "the pipeline should have failed part-way, warned once:" << all.str();
  }
  std::printf("leaks: %zu warning line(s):%s\n", w.size(), all.str().c_str());
}

// The routines of the generic problem under the same fault points (ctest entries
// reliability.faults_blas.<point>): DGEMM, ZGEMM, ZHERK, DTRSM, DSYMM, ZHER2K, DTRMM, ZGEMV on
// host and device operands, shapes that reach the GPU paths (host-array panels included), every
// call checked in full as test_interface_blas checks it (a fault must end in a right answer from
// the CPU), the same calls twice, and memory measured as above over the second pass.
TEST(FaultsBlasDevice, GenericRoutinesUnderFault) {
  using iface::no_gpu_reason;
  IFACE_REQUIRE_GPU();
  const std::string point = env("MYBLAS_TEST_FAULT");
  ASSERT_FALSE(point.empty()) << "run through ctest (MYBLAS_TEST_FAULT)";
  const bool device_too = point != "pin" && point != "pipeline";
  using iface::Fam;
  auto pass = [&](uint64_t seed, int calls, int* fell_back) {
    std::mt19937_64 rng(seed);
    int failed = 0;
    for (int i = 0; i < calls && failed < 5; ++i) {
      auto pick = [&rng](int lo, int hi) { return int(lo + rng() % uint64_t(hi - lo + 1)); };
      const iface::Mem mem = device_too && pick(0, 1) ? iface::Mem::device : iface::Mem::host;
      const int big = pick(0, 3) == 0 ? 300 : 90;  // some with several host-array GPU panels
      bool ok = true;
      auto run = [&](auto type_tag, Fam f) {
        using T = decltype(type_tag);
        const std::vector<iface::Options> opts = iface::every_option<T>(f);
        iface::BlasCase c = iface::make_case(f, iface::Entry::f77, opts[size_t(pick(0, int(opts.size()) - 1))],
                                             pick(1, big), pick(1, big), pick(1, big));
        c.alpha = iface::legal_scalar<T>(f, true, {0.75, -0.25});
        c.beta = iface::legal_scalar<T>(f, false, {pick(0, 1) ? 0.0 : -0.5, 0.25});
        c.mem = mem;
        ok = iface::check_any<T>(c, rng);
        *fell_back += std::string(myblas_last_path()) == "cpu";
      };
      switch (i % 8) {
        case 0: run(double(), Fam::gemm); break;
        case 1: run(std::complex<double>(), Fam::gemm); break;
        case 2: run(std::complex<double>(), Fam::herk); break;
        case 3: run(double(), Fam::trsm); break;
        case 4: run(double(), Fam::symm); break;
        case 5: run(std::complex<double>(), Fam::her2k); break;
        case 6: run(double(), Fam::trmm); break;
        default: run(std::complex<double>(), Fam::gemv); break;
      }
      failed += !ok;
    }
    return failed;
  };
  const uint64_t seed = mbtest::test_seed();
  int fell_back = 0;
  EXPECT_EQ(pass(seed, 40, &fell_back), 0);  // warm-up
  const Usage warm = measure();
  EXPECT_EQ(pass(seed ^ 0x5A5A5A5A5A5A5A5Aull, 200, &fell_back), 0);
  const Usage first = measure();
  fell_back = 0;
  EXPECT_EQ(pass(seed ^ 0x5A5A5A5A5A5A5A5Aull, 200, &fell_back), 0);
  const Usage second = measure();
  std::printf("faults_blas: MYBLAS_TEST_FAULT=%s, %d of 200 calls completed on the CPU\n", point.c_str(), fell_back);
  std::printf("faults_blas: after warm-up %s\nfaults_blas: after pass 1  %s\nfaults_blas: after pass 2  %s\n",
              usage_text(warm).c_str(), usage_text(first).c_str(), usage_text(second).c_str());
  EXPECT_LE(first.device_free - second.device_free, kTolerance) << "device memory grew over a repeat of the same calls";
  EXPECT_LE(second.rss - first.rss, kTolerance) << "resident host memory grew over a repeat of the same calls";
  if (point == "device") EXPECT_GT(fell_back, 100) << "every GPU call starts with cudaSetDevice: the fault was not reached";
}

}  // namespace

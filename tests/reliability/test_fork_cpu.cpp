// fork() on the CPU path (tests/backends/test_fork.cpp covers a parent that used the GPU).
// libmyblas keeps process state (its configuration, the dlopen'ed OpenBLAS and OpenBLAS's
// own thread pool, the one-time GPU probe and its pthread_atfork handler), so:
//   ChildCallsFirst   the first call of the process happens in a child; then the parent.
//   ParentCalledFirst the parent calls (OpenBLAS's worker threads are running), forks, and
//                     the child and then the parent call again.
//   GenericRoutines   DGEMM, ZGEMM, ZHERK, DTRSM, DSYMM on shapes where OpenBLAS runs threaded:
//                     in the parent, in a child it forks, then in the parent again, each call
//                     checked against OpenBLAS (interface/blas_check.h).
//   WhileThreadsCall  four threads keep calling while the main thread forks repeatedly; every
//                     child must complete its call (no lock left held by another thread at
//                     the fork may make it hang: the child has an alarm).
// Children write their results into shared memory and exit with a code; the parent does all
// checking (against OpenBLAS) with gtest. The shapes are large enough (192^3) for OpenBLAS
// to run its multithreaded path, which is what fork disturbs.
// Each case runs in its own ctest entry, so "the first call of the process" really is.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "interface/blas_suite.h"
#include "myblas.h"

namespace {

constexpr int kN = 192;  // m = n = k
constexpr double kEps = std::numeric_limits<float>::epsilon();

// Operands for one SGEMM and one SGEMV, and room for the results in MAP_SHARED memory so
// that a child's writes are visible to the parent.
struct Shared {
  float c[kN * kN];
  float y[kN];
  char path_gemm[16];
  char path_gemv[16];
};

struct Problem {
  std::vector<float> a, b, x;
  explicit Problem(uint64_t seed) : a(kN * kN), b(kN * kN), x(kN) {
    std::mt19937_64 rng(seed);
    for (float& v : a) v = mbtest::uniform(rng);
    for (float& v : b) v = mbtest::uniform(rng);
    for (float& v : x) v = mbtest::uniform(rng);
  }
  // C := A B and y := A^T x through libmyblas, into `out`.
  void compute(Shared* out) const {
    const int n = kN, one = 1;
    const float alpha = 1.f, beta = 0.f;
    sgemm_("N", "N", &n, &n, &n, &alpha, a.data(), &n, b.data(), &n, &beta, out->c, &n);
    std::snprintf(out->path_gemm, sizeof out->path_gemm, "%s", myblas_last_path());
    sgemv_("T", &n, &n, &alpha, a.data(), &n, x.data(), &one, &beta, out->y, &one);
    std::snprintf(out->path_gemv, sizeof out->path_gemv, "%s", myblas_last_path());
  }
  // Number of elements of `got` off the OpenBLAS result by more than the k-scaled bound
  // (entries are sums of 192 products of values in [-1, 1]).
  int errors(const Shared& got) const {
    std::vector<float> c(kN * kN), y(kN);
    mbtest::ref_sgemm('N', 'N', kN, kN, kN, 1.f, a.data(), kN, b.data(), kN, 0.f, c.data(), kN);
    mbtest::ref_sgemv('T', kN, kN, 1.f, a.data(), kN, x.data(), 1, 0.f, y.data(), 1);
    const double bound = (kN + 2) * kEps * kN;
    int bad = 0;
    for (int i = 0; i < kN * kN; ++i) bad += !(std::fabs(got.c[i] - c[i]) <= bound);
    for (int i = 0; i < kN; ++i) bad += !(std::fabs(got.y[i] - y[i]) <= bound);
    return bad;
  }
};

Shared* shared_block() {
  void* p = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<Shared*>(p);
}

// Forks; the child runs `body` under a 60 s alarm (a hang becomes SIGALRM) and exits 0.
// Returns the child's wait status.
template <class F>
int run_child(F body) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
    body();
    _exit(0);  // no gtest teardown or atexit handlers in the child
  }
  if (pid < 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

std::string describe_status(int st) {
  if (st == -1) return "fork failed";
  if (WIFEXITED(st)) return "exit " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return std::string("killed by signal ") + strsignal(WTERMSIG(st)) +
                              (WTERMSIG(st) == SIGALRM ? " (hung for 60 s)" : "");
  return "status " + std::to_string(st);
}

void expect_correct(const Problem& p, const Shared& s, const std::string& who) {
  EXPECT_STREQ(s.path_gemm, "cpu") << who << " sgemm_";
  EXPECT_STREQ(s.path_gemv, "cpu") << who << " sgemv_";
  EXPECT_EQ(p.errors(s), 0) << who << ": wrong elements (MYBLAS_TEST_SEED=" << mbtest::test_seed() << ")";
}

TEST(ForkCpu, ChildCallsFirst) {
  Shared* s = shared_block();
  ASSERT_NE(s, nullptr);
  std::memset(s, 0, sizeof *s);
  const Problem p(mbtest::test_seed());
  // Nothing in this process has called libmyblas yet (this case runs alone in its entry).
  const int st = run_child([&] { p.compute(s); });
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child: " << describe_status(st);
  expect_correct(p, *s, "child (first call of the process)");

  std::memset(s, 0, sizeof *s);
  p.compute(s);
  expect_correct(p, *s, "parent after the child");
  munmap(s, sizeof *s);
}

TEST(ForkCpu, ParentCalledFirst) {
  Shared* s = shared_block();
  ASSERT_NE(s, nullptr);
  const Problem p(mbtest::test_seed() + 1);
  std::memset(s, 0, sizeof *s);
  p.compute(s);
  expect_correct(p, *s, "parent before fork");

  std::memset(s, 0, sizeof *s);
  const int st = run_child([&] { p.compute(s); });
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child: " << describe_status(st);
  expect_correct(p, *s, "child of a parent that called");

  std::memset(s, 0, sizeof *s);
  p.compute(s);
  expect_correct(p, *s, "parent after the child");
  munmap(s, sizeof *s);
}

// Every check of the set; false on the first failing one.
bool generic_routines(uint64_t seed) {
  std::mt19937_64 rng(seed);
  using iface::Fam;
  auto cs = [](Fam f, iface::Entry e, iface::Options o, int m, int n, int k) {
    iface::BlasCase c = iface::make_case(f, e, o, m, n, k);
    c.alpha = {0.5, f == Fam::herk ? 0.0 : 0.25};
    c.beta = {-1, 0};
    return c;
  };
  return iface::check_any<double>(cs(Fam::gemm, iface::Entry::f77, {'L', 'U', 'N', 'T', 'N'}, 192, 160, 192), rng) &&
         iface::check_any<std::complex<double>>(
             cs(Fam::gemm, iface::Entry::cblas_row, {'L', 'U', 'C', 'N', 'N'}, 150, 130, 170), rng) &&
         iface::check_any<std::complex<double>>(
             cs(Fam::herk, iface::Entry::f77_64_, {'L', 'L', 'C', 'N', 'N'}, 0, 180, 150), rng) &&
         iface::check_any<double>(cs(Fam::trsm, iface::Entry::f77, {'L', 'U', 'T', 'N', 'N'}, 192, 128, 0), rng) &&
         iface::check_any<double>(cs(Fam::symm, iface::Entry::cblas_col, {'R', 'L', 'N', 'N', 'N'}, 160, 192, 0), rng);
}

TEST(ForkCpu, GenericRoutines) {
  const uint64_t seed = mbtest::test_seed() + 3;
  EXPECT_TRUE(generic_routines(seed)) << "parent before fork";
  const int st = run_child([&] {
    if (!generic_routines(seed)) _exit(3);
  });
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child (its failures are printed above): " << describe_status(st);
  EXPECT_TRUE(generic_routines(seed)) << "parent after the child";
}

TEST(ForkCpu, WhileThreadsCall) {
  Shared* s = shared_block();
  ASSERT_NE(s, nullptr);
  const Problem p(mbtest::test_seed() + 2);
  std::atomic<bool> stop{false};
  std::atomic<long> background_calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      // Mixed small and medium calls, so forks land inside calls of every kind.
      const int n = t % 2 ? 8 : 96;
      std::vector<float> a(n * n, 0.5f), c(n * n);
      const float alpha = 1.f, beta = 0.f;
      while (!stop.load()) {
        sgemm_("N", "T", &n, &n, &n, &alpha, a.data(), &n, a.data(), &n, &beta, c.data(), &n);
        background_calls.fetch_add(1);
      }
    });
  while (background_calls.load() < 8) std::this_thread::yield();  // they are running
  for (int i = 0; i < 10; ++i) {
    std::memset(s, 0, sizeof *s);
    const int st = run_child([&] { p.compute(s); });
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {  // no ASSERT: the threads must be joined
      ADD_FAILURE() << "child " << i << ": " << describe_status(st);
      break;
    }
    expect_correct(p, *s, "child " + std::to_string(i) + " forked while 4 threads were calling");
  }
  stop.store(true);
  for (std::thread& t : threads) t.join();
  munmap(s, sizeof *s);
}

}  // namespace

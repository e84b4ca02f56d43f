// The host-array route of a process with a usable GPU, run without one (MYBLAS_TEST_FAULT=
// pretend-gpu: a GPU with no devices, every GPU step failing and completing on the CPU): a call
// whose operands all lie in the program-break heap goes to the CPU BLAS from the entry when the
// rules say the CPU for it, and nowhere else: a shape whose nearest host row names the GPU, and
// MYBLAS_BACKEND=cublas, still try the GPU (an NVTX "cublas" range inside the call, recorded by
// nvtx_recorder); operands outside that heap take the general path. Every result against
// OpenBLAS, with guard values in the padding (CPU, in CI).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/mman.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

// The ranges recorded since `from`, one string.
std::string ranges_since(size_t from, size_t* now = nullptr) {
  const char* path = std::getenv("NVTX_INJECTION64_PATH");
  void* h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  if (!h) return "";
  auto log = reinterpret_cast<std::string* (*)()>(dlsym(h, "nvtx_recorder_log"));
  std::istringstream in(*log());
  std::string out;
  size_t i = 0;
  for (std::string l; std::getline(in, l); ++i)
    if (i >= from) out += l + "\n";
  if (now) *now = i;
  dlclose(h);
  return out;
}
size_t ranges_count() {
  size_t n = 0;
  ranges_since(0, &n);
  return n;
}

class HostFastRoute : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(std::getenv("NVTX_INJECTION64_PATH"), nullptr) << "run through ctest (sets the recorder)";
    const char* fault = std::getenv("MYBLAS_TEST_FAULT");
    ASSERT_TRUE(fault && std::string(fault) == "pretend-gpu") << "run through ctest (MYBLAS_TEST_FAULT=pretend-gpu)";
    ASSERT_EQ(myblas_gpu_available(), 1) << "the pretend-gpu hook did not take";
    // Every malloc from the program break (main thread): the operands below are in the heap.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    myblas_set_backend(nullptr);
  }
  void TearDown() override { myblas_set_backend(nullptr); }
};

// `bytes` of operands from the heap (malloc, from the program break: see SetUp) or from a private
// anonymous mapping, freed when it goes out of scope.
struct Operands {
  Operands(size_t bytes, bool heap) : bytes(bytes), heap(heap) {
    base = heap ? static_cast<float*>(std::malloc(bytes))
                : static_cast<float*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_TRUE(base != nullptr && base != MAP_FAILED);
  }
  ~Operands() {
    if (heap) std::free(base);
    else munmap(base, bytes);
  }
  Operands(const Operands&) = delete;
  Operands& operator=(const Operands&) = delete;
  const size_t bytes;
  const bool heap;
  float* base;
};

// One SGEMM NN (m x n x k, ldc = m + 3 with guards) on operands from `alloc`; checks C against
// OpenBLAS and returns the ranges the call pushed.
std::string sgemm_case(int m, int n, int k, bool heap, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int ldc = m + 3;
  const size_t na = size_t(m) * k, nb = size_t(k) * n, nc = size_t(ldc) * n;
  const size_t bytes = (na + nb + 2 * nc) * sizeof(float);
  const Operands ops(bytes, heap);
  float* base = ops.base;
  float *a = base, *b = a + na, *c = b + nb, *want = c + nc;
  for (size_t i = 0; i < na; ++i) a[i] = mbtest::uniform(rng);
  for (size_t i = 0; i < nb; ++i) b[i] = mbtest::uniform(rng);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) c[i + size_t(j) * ldc] = i < m ? mbtest::uniform(rng) : mbtest::kGuard;
  for (size_t i = 0; i < nc; ++i) want[i] = c[i];
  const float alpha = -1.f, beta = 0.5f;
  mbtest::ref_sgemm('N', 'N', m, n, k, alpha, a, m, b, k, beta, want, ldc);
  const size_t before = ranges_count();
  sgemm_("N", "N", &m, &n, &k, &alpha, a, &m, b, &k, &beta, c, &ldc);
  const std::string pushed = ranges_since(before);
  double worst = 0;
  for (size_t i = 0; i < nc; ++i) {
    if (want[i] == mbtest::kGuard) {
      EXPECT_EQ(c[i], mbtest::kGuard) << "padding overwritten at " << i;
      continue;
    }
    worst = std::max(worst, double(std::fabs(c[i] - want[i])));
  }
  EXPECT_LE(worst, 4.0 * k * 1.2e-7) << "sgemm " << m << "x" << n << "x" << k << (heap ? " heap" : " mmap")
                                     << " seed " << seed;
  return pushed;
}

std::string sgemv_case(int m, int n, bool heap, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int lda = m + 2, incy = 2;
  const size_t na = size_t(lda) * n, ny = size_t(m) * incy;
  const size_t bytes = (na + n + 2 * ny) * sizeof(float);
  const Operands ops(bytes, heap);
  float* base = ops.base;
  float *a = base, *x = a + na, *y = x + n, *want = y + ny;
  for (size_t i = 0; i < na; ++i) a[i] = mbtest::uniform(rng);
  for (int i = 0; i < n; ++i) x[i] = mbtest::uniform(rng);
  for (size_t i = 0; i < ny; ++i) y[i] = i % incy ? mbtest::kGuard : mbtest::uniform(rng);
  for (size_t i = 0; i < ny; ++i) want[i] = y[i];
  const float alpha = 0.5f, beta = -1.f;
  const int one = 1;
  mbtest::ref_sgemv('N', m, n, alpha, a, lda, x, one, beta, want, incy);
  const size_t before = ranges_count();
  sgemv_("N", &m, &n, &alpha, a, &lda, x, &one, &beta, y, &incy);
  const std::string pushed = ranges_since(before);
  for (size_t i = 0; i < ny; ++i) {
    if (i % incy) EXPECT_EQ(y[i], mbtest::kGuard) << "padding overwritten at " << i;
    else EXPECT_NEAR(y[i], want[i], 4.0 * n * 1.2e-7) << "sgemv " << m << "x" << n << " at " << i << " seed " << seed;
  }
  return pushed;
}

std::string dgemv_case(int m, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> a(size_t(m) * n), x(n), y(m), want;
  for (double& v : a) v = mbtest::uniform(rng);
  for (double& v : x) v = mbtest::uniform(rng);
  for (double& v : y) v = mbtest::uniform(rng);
  want = y;
  const double alpha = -1, beta = 0.5;
  const int one = 1;
  using Dgemv = void (*)(const char*, const int*, const int*, const double*, const double*, const int*, const double*,
                         const int*, const double*, double*, const int*);
  reinterpret_cast<Dgemv>(mbtest::ref_symbol("dgemv_"))("T", &n, &m, &alpha, a.data(), &n, x.data(), &one, &beta,
                                                          want.data(), &one);
  const size_t before = ranges_count();
  dgemv_("T", &n, &m, &alpha, a.data(), &n, x.data(), &one, &beta, y.data(), &one);
  const std::string pushed = ranges_since(before);
  for (int i = 0; i < m; ++i) EXPECT_NEAR(y[i], want[i], 4.0 * n * 2.3e-16) << "dgemv at " << i << " seed " << seed;
  return pushed;
}

bool tried_gpu(const std::string& ranges) { return ranges.find("1 cublas") != std::string::npos; }
bool cpu_only(const std::string& ranges) {
  return ranges.find("1 cpu") != std::string::npos && !tried_gpu(ranges) &&
         ranges.find("1 kernels") == std::string::npos;
}

// Small shapes whose host rows say the CPU: the CPU alone, in the heap and out of it.
TEST_F(HostFastRoute, SmallCallsStayOnTheCpu) {
  const uint64_t seed = mbtest::test_seed();
  for (bool heap : {true, false}) {
    EXPECT_TRUE(cpu_only(sgemm_case(64, 64, 64, heap, seed))) << (heap ? "heap" : "mmap");
    EXPECT_TRUE(cpu_only(sgemm_case(17, 127, 3, heap, seed + 1))) << (heap ? "heap" : "mmap");
    EXPECT_TRUE(cpu_only(sgemv_case(64, 64, heap, seed + 2))) << (heap ? "heap" : "mmap");
    EXPECT_TRUE(cpu_only(sgemv_case(1000, 3, heap, seed + 3))) << (heap ? "heap" : "mmap");
  }
  EXPECT_TRUE(cpu_only(dgemv_case(64, 64, seed + 4)));
}

// A heap SGEMM whose nearest host row (362^3, 512^3) names the GPU is not taken by the heap
// route: it tries the GPU (and completes on the CPU here).
TEST_F(HostFastRoute, ShapesTheTableSendsToTheGpuStillTryIt) {
  const std::string r = sgemm_case(400, 400, 400, true, mbtest::test_seed() + 5);
  EXPECT_TRUE(tried_gpu(r)) << r;
}

// The backend setting is read on every call: cublas sends even a small heap call to the GPU,
// cpu keeps every host call on the CPU, auto again takes the heap route.
TEST_F(HostFastRoute, BackendSettingDecides) {
  const uint64_t seed = mbtest::test_seed() + 6;
  ASSERT_EQ(myblas_set_backend("cublas"), 0);
  const std::string forced = sgemv_case(64, 64, true, seed);
  EXPECT_TRUE(tried_gpu(forced)) << forced;
  ASSERT_EQ(myblas_set_backend("cpu"), 0);
  const std::string cpu = sgemm_case(400, 400, 400, true, seed + 1);
  EXPECT_TRUE(cpu_only(cpu)) << cpu;
  ASSERT_EQ(myblas_set_backend("auto"), 0);
  const std::string back = sgemv_case(64, 64, true, seed + 2);
  EXPECT_TRUE(cpu_only(back)) << back;
}

}  // namespace

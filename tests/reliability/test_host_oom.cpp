// Running out of host memory inside a call: HGEMM on the CPU path widens C to FP32 in a buffer
// of m*n floats. With the address space capped (setrlimit) so that buffer cannot exist, the call
// must report an error, leave C unchanged and return; the process goes on and later calls work.
// Its own process (ctest entry), since the cap applies to the whole process.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cstdint>
#include <random>
#include <string>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // sanitizers reserve terabytes of shadow: no address-space cap
#else
constexpr bool kSanitized = false;
#endif

TEST(HostOom, FailedStagingAllocationIsAnErrorNotACrash) {
  if (kSanitized) GTEST_SKIP() << "address-space cap is incompatible with ASan/TSan shadow memory";
  // Resolve everything that allocates lazily (OpenBLAS, the library's settings) before the cap.
  std::mt19937_64 rng(mbtest::test_seed());
  {
    const int m = 8, n = 8, k = 8;
    mbtest::Matrix a(m, k, m, rng), b(k, n, k, rng), c(m, n, m, rng);
    mbtest::Matrix want = c;
    const float alpha = 1.f, beta = 0.5f;
    sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m);
    mbtest::ref_sgemm('N', 'N', m, n, k, alpha, a.data(), m, b.data(), k, beta, want.data(), m);
  }
  // C: 30000 x 30000 binary16 (1.8 GB) in a lazily backed mapping; the FP32 copy the CPU path
  // needs is 3.6 GB, which cannot fit under a 3 GB cap.
  const int m = 30000, n = 30000, k = 1;
  const size_t c_bytes = size_t(m) * n * 2;
  void* cmem = mmap(nullptr, c_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(cmem, MAP_FAILED);
  uint16_t* c = static_cast<uint16_t*>(cmem);
  const size_t probes[] = {0, size_t(m) * 12345 + 678, c_bytes / 2 - 1};
  for (size_t i : probes) c[i] = 0x3c00;  // 1.0
  std::vector<uint16_t> a(size_t(m) * k, myblas_float_to_half(0.5f)), b(size_t(k) * n, myblas_float_to_half(0.25f));
  struct rlimit cap{size_t(3) << 30, size_t(3) << 30}, old{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &old), 0);
  cap.rlim_max = old.rlim_max;
  ASSERT_EQ(setrlimit(RLIMIT_AS, &cap), 0);
  const uint16_t alpha = myblas_float_to_half(1.f), beta = myblas_float_to_half(2.f);
  hgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c, &m);
  const std::string path = myblas_last_path();
  ASSERT_EQ(setrlimit(RLIMIT_AS, &old), 0);
  EXPECT_EQ(path, "none") << "the call should have reported that it could not run";
  for (size_t i : probes) EXPECT_EQ(c[i], 0x3c00) << "C changed at " << i;
  munmap(cmem, c_bytes);
  // Later calls work.
  const int s = 16;
  mbtest::Matrix x(s, s, s, rng), y(s, s, s, rng), z(s, s, s, rng);
  mbtest::Matrix want = z;
  const float one = 1.f, zero = 0.f;
  sgemm_("N", "N", &s, &s, &s, &one, x.data(), &s, y.data(), &s, &zero, z.data(), &s);
  mbtest::ref_sgemm('N', 'N', s, s, s, one, x.data(), s, y.data(), s, zero, want.data(), s);
  for (int j = 0; j < s; ++j)
    for (int i = 0; i < s; ++i) EXPECT_NEAR(z.at(i, j), want.at(i, j), 1e-4);
}

}  // namespace

// GEMM with 16-bit A and B and an FP32 C under OpenBLAS's names (sbgemm_, cblas_sbgemm, shgemm_,
// cblas_shgemm) and MKL's (gemm_bf16bf16f32(_), cblas_gemm_bf16bf16f32, gemm_f16f16f32(_),
// cblas_gemm_f16f16f32), against OpenBLAS SGEMM on the exactly widened inputs: the result is an
// FP32 GEMM, so the bound is SGEMM's.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <memory>

#include "common/half_bits.h"
#include "gemm_suite.h"

namespace iface {
namespace {

using Fortran16 = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                           const uint16_t*, const int*, const uint16_t*, const int*, const float*, float*,
                           const int*);
using Cblas16 = void (*)(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float, const uint16_t*,
                         int, const uint16_t*, int, float, float*, int);

// One family of entry points: In is the store of A and B (Bf16Matrix or HalfMatrix).
template <class In, Fortran16 kFortran, Fortran16 kPlain, Cblas16 kCblas>
struct Mixed {
  using Store = In;
  using StoreC = mbtest::Matrix;
  static constexpr bool half = false;  // (C is FP32: no rounding to binary16 in the bound)
  static std::vector<Api> apis() {
    if (kPlain) return {Api::fortran, Api::fortran_plain, Api::cblas_col, Api::cblas_row};
    return {Api::fortran, Api::cblas_col, Api::cblas_row};
  }
  static float scalar(float v) { return v; }
  static void call(const GemmCase& c, uint16_t* a, int lda, uint16_t* b, int ldb, float* cc, int ldc) {
    switch (c.api) {
      case Api::fortran:
        kFortran(&c.ta, &c.tb, &c.m, &c.n, &c.k, &c.alpha, a, &lda, b, &ldb, &c.beta, cc, &ldc);
        return;
      case Api::fortran_plain:
        kPlain(&c.ta, &c.tb, &c.m, &c.n, &c.k, &c.alpha, a, &lda, b, &ldb, &c.beta, cc, &ldc);
        return;
      default:
        kCblas(row_major(c.api) ? CblasRowMajor : CblasColMajor, cblas_trans(c.ta), cblas_trans(c.tb), c.m, c.n,
               c.k, c.alpha, a, lda, b, ldb, c.beta, cc, ldc);
    }
  }
};

struct Sbgemm : Mixed<Bf16Matrix, sbgemm_, nullptr, cblas_sbgemm> {
  static const char* name(Api a) {
    return a == Api::fortran ? "sbgemm_" : row_major(a) ? "cblas_sbgemm(RowMajor)" : "cblas_sbgemm(ColMajor)";
  }
};
struct Shgemm : Mixed<HalfMatrix, shgemm_, nullptr, cblas_shgemm> {
  static const char* name(Api a) {
    return a == Api::fortran ? "shgemm_" : row_major(a) ? "cblas_shgemm(RowMajor)" : "cblas_shgemm(ColMajor)";
  }
};
struct GemmBf16 : Mixed<Bf16Matrix, gemm_bf16bf16f32_, gemm_bf16bf16f32, cblas_gemm_bf16bf16f32> {
  static const char* name(Api a) {
    switch (a) {
      case Api::fortran: return "gemm_bf16bf16f32_";
      case Api::fortran_plain: return "gemm_bf16bf16f32";
      case Api::cblas_col: return "cblas_gemm_bf16bf16f32(ColMajor)";
      default: return "cblas_gemm_bf16bf16f32(RowMajor)";
    }
  }
};
struct GemmF16 : Mixed<HalfMatrix, gemm_f16f16f32_, gemm_f16f16f32, cblas_gemm_f16f16f32> {
  static const char* name(Api a) {
    switch (a) {
      case Api::fortran: return "gemm_f16f16f32_";
      case Api::fortran_plain: return "gemm_f16f16f32";
      case Api::cblas_col: return "cblas_gemm_f16f16f32(ColMajor)";
      default: return "cblas_gemm_f16f16f32(RowMajor)";
    }
  }
};

// Exact sums: A, B and C hold multiples of 1/8 in [-1, 1] (never 0), so every product is a
// multiple of 1/64 and every partial sum stays far below 2^18 in magnitude: FP32 accumulation is
// exact in any order and alpha = 1, beta in {0, -0.5} keep it so. C must equal the exact
// result bit for bit, also on shapes that invite split-K (long k, small m x n) and off every tile
// grid. A second identical call must give the same bits.
template <class T>
void exact_sums(Mem where) {
  std::mt19937_64 rng(mbtest::test_seed() + 11);
  std::uniform_int_distribution<int> eighths(1, 8), sign(0, 1);
  auto eighth = [&] { return (sign(rng) ? -1.f : 1.f) * float(eighths(rng)) / 8.f; };
  auto to16 = [](float v) {
    return std::is_same<typename T::Store, Bf16Matrix>::value ? float_to_bf16(v) : myblas_float_to_half(v);
  };
  struct Shape { int m, n, k; char ta, tb; };
  const Shape shapes[] = {{16, 16, 16384, 'N', 'N'}, {64, 64, 4096, 'T', 'N'}, {128, 8, 8192, 'N', 'T'},
                          {127, 129, 1031, 'T', 'T'}, {257, 129, 64, 'N', 'N'}};
  for (const Shape& sh : shapes)
    for (float beta : {0.f, -0.5f}) {
      const int m = sh.m, n = sh.n, k = sh.k;
      const bool ta = sh.ta == 'T', tb = sh.tb == 'T';
      const int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
      typename T::Store a(ar, ac, ar + 8, rng), b(br, bc, br + 8, rng);
      mbtest::Matrix c(m, n, m + 5, rng);
      for (int j = 0; j < ac; ++j)
        for (int i = 0; i < ar; ++i) a.at(i, j) = to16(eighth());
      for (int j = 0; j < bc; ++j)
        for (int i = 0; i < br; ++i) b.at(i, j) = to16(eighth());
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) c.at(i, j) = beta == 0.f ? std::nanf("") : eighth();
      std::vector<float> want(size_t(m) * n);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
          double sum = beta == 0.f ? 0.0 : double(beta) * c.at(i, j);
          for (int l = 0; l < k; ++l)
            sum += double(value(a, ta ? l : i, ta ? i : l)) * value(b, tb ? j : l, tb ? l : j);
          want[size_t(i) + size_t(j) * m] = float(sum);
        }
      const std::vector<float> c0 = c.buf;
      std::vector<float> first;
      for (int rerun = 0; rerun < 2; ++rerun) {
        c.buf = c0;
        std::unique_ptr<DeviceMirror> da, db, dc;
        uint16_t *pa = a.data(), *pb = b.data();
        float* pc = c.data();
        if (where == Mem::device) {
          da.reset(new DeviceMirror(a.buf.data(), a.buf.size() * 2));
          db.reset(new DeviceMirror(b.buf.data(), b.buf.size() * 2));
          dc.reset(new DeviceMirror(c.buf.data(), c.buf.size() * 4));
          ASSERT_TRUE(da->ok() && db->ok() && dc->ok()) << "cudaMalloc/cudaMemcpy failed";
          pa = static_cast<uint16_t*>(da->get()) + Bf16Matrix::kPad;
          pb = static_cast<uint16_t*>(db->get()) + Bf16Matrix::kPad;
          pc = static_cast<float*>(dc->get()) + mbtest::Matrix::kPad;
        }
        GemmCase gc;
        gc.api = Api::fortran;
        gc.ta = sh.ta;
        gc.tb = sh.tb;
        gc.m = m;
        gc.n = n;
        gc.k = k;
        gc.alpha = 1.f;
        gc.beta = beta;
        T::call(gc, pa, a.ld, pb, b.ld, pc, c.ld);
        if (dc) ASSERT_TRUE(dc->copy_back(c.buf.data())) << dc->error();
        int off = 0, fi = -1;
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < m; ++i)
            if (mbtest::bits_of(c.at(i, j)) != mbtest::bits_of(want[size_t(i) + size_t(j) * m])) {
              if (fi < 0) fi = i + j * m;
              ++off;
            }
        EXPECT_EQ(off, 0) << off << " elements are not the exact sum | " << T::name(Api::fortran) << " "
                          << sh.ta << sh.tb << " m=" << m << " n=" << n << " k=" << k << " beta=" << beta
                          << " mem=" << mem_char(where) << " path=" << myblas_last_path()
                          << (fi < 0 ? std::string()
                                     : fmt(" (first: C(%d,%d) = %.9g, want %.9g)", fi % m, fi / m,
                                           c.at(fi % m, fi / m), want[size_t(fi)]))
                          << " | " << run_context();
        EXPECT_EQ(c.damaged_guards(), 0) << T::name(Api::fortran) << " m=" << m << " n=" << n << " k=" << k;
        if (rerun == 0) first = c.buf;
        else EXPECT_TRUE(same_bits(first, c.buf)) << "a rerun gave other bits | " << T::name(Api::fortran)
                                                  << " m=" << m << " n=" << n << " k=" << k;
      }
    }
}

// OpenBLAS's CBLAS takes CblasConjNoTrans (114) as no transpose for real data.
template <class T>
void conj_no_trans_accepted() {
  std::mt19937_64 rng(mbtest::test_seed() + 3);
  const int m = 5, n = 6, k = 7, ld = 9;
  typename T::Store a(ld, ld, ld, rng), b(ld, ld, ld, rng);
  mbtest::Matrix c(ld, ld, ld, rng);
  for (CBLAS_LAYOUT layout : {CblasColMajor, CblasRowMajor}) {
    std::vector<float> got = c.buf, want = c.buf;
    T::kCblas_(layout, CBLAS_TRANSPOSE(114), CBLAS_TRANSPOSE(114), m, n, k, 0.5f, a.data(), ld, b.data(), ld, 0.25f,
               got.data() + mbtest::Matrix::kPad, ld);
    EXPECT_STRNE(myblas_last_path(), "none") << T::name(Api::cblas_col) << " with CblasConjNoTrans";
    T::kCblas_(layout, CblasNoTrans, CblasNoTrans, m, n, k, 0.5f, a.data(), ld, b.data(), ld, 0.25f,
               want.data() + mbtest::Matrix::kPad, ld);
    EXPECT_NE(got, c.buf) << "did nothing";
    EXPECT_TRUE(same_bits(got, want)) << T::name(Api::cblas_col) << ": CblasConjNoTrans differs from CblasNoTrans";
  }
}

struct SbgemmC : Sbgemm {
  static constexpr Cblas16 kCblas_ = cblas_sbgemm;
};
struct ShgemmC : Shgemm {
  static constexpr Cblas16 kCblas_ = cblas_shgemm;
};

#define MIXED_SUITE(T)                                                                   \
  TEST(T, EveryTransposeOnEveryEntryPoint) { every_transpose<T>(); }                     \
  TEST(T, SmallSizesIncludingZero) { small_sizes<T>(); }                                 \
  TEST(T, AlphaBetaGrid) { alpha_beta_grid<T>(); }                                       \
  TEST(T, BetaZeroOverwritesNanInC) { beta_zero_nan_in_c<T>(); }                         \
  TEST(T, AlphaZeroNeverReadsAOrB) { alpha_zero_nan_in_ab<T>(); }                        \
  TEST(T, KZeroScalesC) { k_zero<T>(); }                                                 \
  TEST(T, QuickReturnsLeaveCUntouched) { quick_returns<T>(); }                           \
  TEST(T, LeadingDimensionsAboveMinimum) { leading_dimensions<T>(); }                    \
  TEST(T, ExactSumsBitwiseAndRerunsEqual) { exact_sums<T>(Mem::host); }                  \
  TEST(T##Device, AllOperandsOnDevice) {                                                 \
    IFACE_REQUIRE_GPU();                                                                 \
    device_all<T>();                                                                     \
  }                                                                                      \
  TEST(T##Device, MixedHostAndDeviceOperands) {                                          \
    IFACE_REQUIRE_GPU();                                                                 \
    device_mixed<T>();                                                                   \
  }                                                                                      \
  TEST(T##Device, NanAndQuickReturnsOnDevice) {                                          \
    IFACE_REQUIRE_GPU();                                                                 \
    device_special_values<T>();                                                          \
  }                                                                                      \
  TEST(T##Device, ExactSumsBitwiseAndRerunsEqual) {                                      \
    IFACE_REQUIRE_GPU();                                                                 \
    exact_sums<T>(Mem::device);                                                          \
  }                                                                                      \
  TEST(T##Device, DeviceOperandsTakeGpuPath) {                                           \
    IFACE_REQUIRE_GPU();                                                                 \
    if (backend_env() == "cpu") GTEST_SKIP() << "MYBLAS_BACKEND=cpu sends device operands to the CPU"; \
    device_operands_take_gpu_path<T>();                                                  \
  }

MIXED_SUITE(Sbgemm)
MIXED_SUITE(Shgemm)
MIXED_SUITE(GemmBf16)
MIXED_SUITE(GemmF16)

// The 1000-sized cases once per input type (the 2-core CI machine runs every backend entry).
TEST(Sbgemm, Size1000) { large_sizes<Sbgemm>(); }
TEST(GemmF16, Size1000) { large_sizes<GemmF16>(); }

// With MYBLAS_TEST_FAKE_GEMM16 naming the stand-in CPU BLAS that MYBLAS_CPU_BLAS loads (ctest entry
// .fake-cpu-blas), host-array calls must reach its sbgemm_ and shgemm_ (it counts its calls); the
// other tests of the run check their results.
TEST(Mixed, CpuBlasOwnRoutine) {
  const char* fake = std::getenv("MYBLAS_TEST_FAKE_GEMM16");
  if (!fake || !*fake) GTEST_SKIP() << "MYBLAS_TEST_FAKE_GEMM16 unset (the .fake-cpu-blas ctest entry sets it)";
  std::vector<uint16_t> a(64, 0x3f80), b(64, 0x3c00);  // bfloat16 1.0, binary16 1.0
  std::vector<float> c(64, 0.f);
  const int n = 8;
  const float one = 1.f, zero = 0.f;
  sbgemm_("N", "N", &n, &n, &n, &one, a.data(), &n, a.data(), &n, &zero, c.data(), &n);
  ASSERT_STREQ(myblas_last_path(), "cpu");
  EXPECT_EQ(c[0], 8.f);
  gemm_f16f16f32_("N", "N", &n, &n, &n, &one, b.data(), &n, b.data(), &n, &one, c.data(), &n);
  EXPECT_EQ(c[0], 16.f);
  void* h = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr) << fake << " is not loaded: libmyblas did not take it as the CPU BLAS";
  const int* calls = static_cast<const int*>(dlsym(h, "fake_gemm16_calls"));
  ASSERT_NE(calls, nullptr);
  EXPECT_GE(*calls, 2) << "sbgemm_/gemm_f16f16f32_ on host arrays did not reach the CPU BLAS's own routines";
  dlclose(h);
}

TEST(Sbgemm, ConjNoTransAccepted) { conj_no_trans_accepted<SbgemmC>(); }
TEST(Shgemm, ConjNoTransAccepted) { conj_no_trans_accepted<ShgemmC>(); }

}  // namespace
}  // namespace iface

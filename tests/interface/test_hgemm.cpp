// hgemm_, hgemm and cblas_hgemm (both orders) against OpenBLAS SGEMM on the widened
// binary16 inputs: the one rounding of the FP32 result to binary16 is in the bound.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "gemm_suite.h"

namespace iface {
namespace {

struct Hgemm {
  using Store = HalfMatrix;
  static constexpr bool half = true;
  static std::vector<Api> apis() {
    return {Api::fortran, Api::fortran_plain, Api::cblas_col, Api::cblas_row};
  }
  static float scalar(float v) { return myblas_half_to_float(myblas_float_to_half(v)); }
  static void call(const GemmCase& c, uint16_t* a, int lda, uint16_t* b, int ldb, uint16_t* cc,
                   int ldc) {
    const uint16_t alpha = myblas_float_to_half(c.alpha), beta = myblas_float_to_half(c.beta);
    switch (c.api) {
      case Api::fortran:
        hgemm_(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, a, &lda, b, &ldb, &beta, cc, &ldc);
        return;
      case Api::fortran_plain:
        hgemm(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, a, &lda, b, &ldb, &beta, cc, &ldc);
        return;
      default:
        cblas_hgemm(row_major(c.api) ? CblasRowMajor : CblasColMajor, cblas_trans(c.ta),
                    cblas_trans(c.tb), c.m, c.n, c.k, alpha, a, lda, b, ldb, beta, cc, ldc);
    }
  }
};


// HGEMM rounds alpha*op(A)*op(B) + beta*C to binary16 once. With k <= 2 the FP32 value is
// exact or within an FP32 ulp, so a single rounding reproduces float_to_half of the
// reference bit for bit, bar a rare FP32 result right at a binary16 midpoint. Rounding
// alpha*AB to binary16 before adding beta*C moves about a quarter of the elements by one
// ulp; the bound of check_gemm sees only those where both roundings go the same way, this
// count sees them all.
void rounds_once(Mem where) {
  std::mt19937_64 rng(mbtest::test_seed());
  for (Api api : Hgemm::apis())
    for (int k : {1, 2})
      for (float beta : {1.f, -0.5f}) {
        const int m = 64, n = 64;
        HalfMatrix a(m, k, m, rng), b(k, n, k, rng), c(m, n, m, rng);
        std::vector<float> fa(size_t(m) * k), fb(size_t(k) * n), want(size_t(m) * n);
        for (int j = 0; j < k; ++j)
          for (int i = 0; i < m; ++i) fa[size_t(i) + size_t(j) * m] = value(a, i, j);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < k; ++i) fb[size_t(i) + size_t(j) * k] = value(b, i, j);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < m; ++i) want[size_t(i) + size_t(j) * m] = value(c, i, j);
        mbtest::ref_sgemm('N', 'N', m, n, k, 1.f, fa.data(), m, fb.data(), k, beta, want.data(), m);

        GemmCase gc;
        gc.api = api;
        gc.m = m;
        gc.n = n;
        gc.k = k;
        gc.alpha = 1.f;
        gc.beta = beta;
        // Read row-major, the same buffers hold C^T (n x m), B^T (n x k) and A^T (k x m):
        // C^T = B^T A^T is the same product with no transposes.
        const bool row = row_major(api);
        if (row) {
          gc.m = n;
          gc.n = m;
        }
        std::unique_ptr<DeviceMirror> da, db, dc;
        uint16_t* pa = a.data();
        uint16_t* pb = b.data();
        uint16_t* pc = c.data();
        if (where == Mem::device) {
          da.reset(new DeviceMirror(a.buf.data(), a.buf.size() * 2));
          db.reset(new DeviceMirror(b.buf.data(), b.buf.size() * 2));
          dc.reset(new DeviceMirror(c.buf.data(), c.buf.size() * 2));
          ASSERT_TRUE(da->ok() && db->ok() && dc->ok()) << "cudaMalloc/cudaMemcpy failed";
          pa = static_cast<uint16_t*>(da->get()) + HalfMatrix::kPad;
          pb = static_cast<uint16_t*>(db->get()) + HalfMatrix::kPad;
          pc = static_cast<uint16_t*>(dc->get()) + HalfMatrix::kPad;
        }
        if (row) Hgemm::call(gc, pb, k, pa, m, pc, m);
        else Hgemm::call(gc, pa, m, pb, k, pc, m);
        if (dc) ASSERT_TRUE(dc->copy_back(c.buf.data())) << dc->error();
        int off = 0, first = -1;
        for (int e = 0; e < m * n; ++e)
          if (c.data()[e] != myblas_float_to_half(want[size_t(e)])) {
            ++off;
            if (first < 0) first = e;
          }
        EXPECT_LE(off, m * n / 256)
            << off << " of " << m * n << " elements are not float_to_half of the FP32 result"
            << fmt(" (first: C(%d,%d) = 0x%04x, want 0x%04x)", first % m, first / m,
                   first < 0 ? 0 : c.data()[first],
                   first < 0 ? 0 : myblas_float_to_half(want[size_t(first)]))
            << " | " << api_name(api, true) << " m=n=64 k=" << k << " alpha=1 beta=" << beta
            << " mem=" << mem_char(where) << " | " << run_context();
      }
}

// Cancellation: C0 is minus A*B rounded to binary16, so the result is the small residual.
// Rounding once, it is within half a binary16 ulp of itself plus the FP32 accumulation error;
// rounding alpha*AB to binary16 first (as cuBLAS GemmEx with binary16 C does) or reducing
// split-K partial sums in binary16 is off by up to half an ulp of |AB|, i.e. many ulps of the
// residual. Shapes where cuBLAS was seen to do that on the H100 (16^3; 138 x 8 x 144).
void cancellation_rounds_once(Mem where) {
  std::mt19937_64 rng(mbtest::test_seed() + 5);
  struct Shape { int m, n, k; };
  for (Shape sh : {Shape{16, 16, 16}, Shape{138, 8, 144}, Shape{64, 64, 256}}) {
    const int m = sh.m, n = sh.n, k = sh.k;
    HalfMatrix a(m, k, m, rng), b(k, n, k, rng), c(m, n, m, rng);
    std::vector<double> exact(size_t(m) * n), abs_sum(size_t(m) * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double s = 0, t = 0;
        for (int l = 0; l < k; ++l) {
          s += double(value(a, i, l)) * value(b, l, j);
          t += std::fabs(double(value(a, i, l)) * value(b, l, j));
        }
        const uint16_t c0 = myblas_float_to_half(-float(s));
        c.data()[i + j * m] = c0;
        exact[size_t(i) + size_t(j) * m] = s + myblas_half_to_float(c0);
        abs_sum[size_t(i) + size_t(j) * m] = t;
      }
    std::unique_ptr<DeviceMirror> da, db, dc;
    uint16_t *pa = a.data(), *pb = b.data(), *pc = c.data();
    if (where == Mem::device) {
      da.reset(new DeviceMirror(a.buf.data(), a.buf.size() * 2));
      db.reset(new DeviceMirror(b.buf.data(), b.buf.size() * 2));
      dc.reset(new DeviceMirror(c.buf.data(), c.buf.size() * 2));
      ASSERT_TRUE(da->ok() && db->ok() && dc->ok()) << "cudaMalloc/cudaMemcpy failed";
      pa = static_cast<uint16_t*>(da->get()) + HalfMatrix::kPad;
      pb = static_cast<uint16_t*>(db->get()) + HalfMatrix::kPad;
      pc = static_cast<uint16_t*>(dc->get()) + HalfMatrix::kPad;
    }
    const uint16_t one = myblas_float_to_half(1.f);
    hgemm_("N", "N", &m, &n, &k, &one, pa, &m, pb, &k, &one, pc, &m);
    if (dc) ASSERT_TRUE(dc->copy_back(c.buf.data())) << dc->error();
    double worst = 0;
    int wi = -1;
    for (int e = 0; e < m * n; ++e) {
      const double want = exact[size_t(e)], got = myblas_half_to_float(c.data()[e]);
      // half a binary16 ulp of the result (2^-11 relative, 2^-25 absolute near zero) plus
      // the FP32 accumulation error
      const double bound = std::fabs(want) * std::ldexp(1.0, -11) + std::ldexp(1.0, -25) +
                           (k + 2) * 2.0 * FLT_EPSILON * abs_sum[size_t(e)];
      const double r = std::fabs(got - want) / bound;
      if (!(r <= worst)) {
        worst = r;
        wi = e;
      }
    }
    EXPECT_LE(worst, 1.0) << "m=" << m << " n=" << n << " k=" << k << " mem=" << mem_char(where)
                          << " worst C(" << wi % m << "," << wi / m << ") got "
                          << myblas_half_to_float(c.data()[wi]) << " want " << exact[size_t(wi)]
                          << " | " << run_context();
    EXPECT_EQ(c.damaged_guards(), 0);
  }
}

// beta == 0 on shapes that invite split-K (long k, small m x n). The data are multiples of 1/8
// in [-1, 1] (never 0): every product is a multiple of 1/64 and every partial sum stays below
// 2^14 in magnitude, so FP32 accumulation is exact in any order and the once-rounded binary16
// result is unique: C must equal float_to_half(exact sum) bit for bit. Partial sums rounded to
// binary16 on the way (split-K in binary16) would not.
void beta_zero_rounds_once(Mem where) {
  std::mt19937_64 rng(mbtest::test_seed() + 9);
  std::uniform_int_distribution<int> eighths(1, 8), sign(0, 1);
  auto fill = [&](HalfMatrix* x) {
    for (int j = 0; j < x->cols; ++j)
      for (int i = 0; i < x->rows; ++i)
        x->at(i, j) = myblas_float_to_half((sign(rng) ? -1.f : 1.f) * float(eighths(rng)) / 8.f);
  };
  struct Shape { int m, n, k; };
  for (Shape sh : {Shape{16, 16, 16384}, Shape{64, 64, 4096}, Shape{128, 8, 8192}, Shape{127, 129, 1031}}) {
    const int m = sh.m, n = sh.n, k = sh.k;
    HalfMatrix a(m, k, m, rng), b(k, n, k, rng), c(m, n, m, rng);
    fill(&a);
    fill(&b);
    std::vector<uint16_t> want(size_t(m) * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double sum = 0;  // exact: integers over 64
        for (int l = 0; l < k; ++l) sum += double(value(a, i, l)) * value(b, l, j);
        want[size_t(i) + size_t(j) * m] = myblas_float_to_half(float(sum));
      }
    std::unique_ptr<DeviceMirror> da, db, dc;
    uint16_t *pa = a.data(), *pb = b.data(), *pc = c.data();
    if (where == Mem::device) {
      da.reset(new DeviceMirror(a.buf.data(), a.buf.size() * 2));
      db.reset(new DeviceMirror(b.buf.data(), b.buf.size() * 2));
      dc.reset(new DeviceMirror(c.buf.data(), c.buf.size() * 2));
      ASSERT_TRUE(da->ok() && db->ok() && dc->ok()) << "cudaMalloc/cudaMemcpy failed";
      pa = static_cast<uint16_t*>(da->get()) + HalfMatrix::kPad;
      pb = static_cast<uint16_t*>(db->get()) + HalfMatrix::kPad;
      pc = static_cast<uint16_t*>(dc->get()) + HalfMatrix::kPad;
    }
    const uint16_t one = myblas_float_to_half(1.f), zero = 0;
    hgemm_("N", "N", &m, &n, &k, &one, pa, &m, pb, &k, &zero, pc, &m);
    if (dc) ASSERT_TRUE(dc->copy_back(c.buf.data())) << dc->error();
    int off = 0, first = -1;
    for (int e = 0; e < m * n; ++e)
      if (c.data()[e] != want[size_t(e)]) {
        ++off;
        if (first < 0) first = e;
      }
    EXPECT_EQ(off, 0) << off << " elements are not the once-rounded exact sum, m=" << m << " n=" << n
                      << " k=" << k << " mem=" << mem_char(where)
                      << fmt(" (first: C(%d,%d) = 0x%04x, want 0x%04x)", first % m, first / m,
                             first < 0 ? 0 : c.data()[first], first < 0 ? 0 : want[size_t(first)])
                      << " | " << run_context();
    EXPECT_EQ(c.damaged_guards(), 0);
  }
}

TEST(Hgemm, BetaZeroRoundsOnce) { beta_zero_rounds_once(Mem::host); }

TEST(Hgemm, CancellationRoundsOnce) { cancellation_rounds_once(Mem::host); }

TEST(Hgemm, EveryTransposeOnEveryEntryPoint) { every_transpose<Hgemm>(); }
TEST(Hgemm, SmallSizesIncludingZero) { small_sizes<Hgemm>(); }
TEST(Hgemm, Size1000) { large_sizes<Hgemm>(); }
TEST(Hgemm, AlphaBetaGrid) { alpha_beta_grid<Hgemm>(); }
TEST(Hgemm, BetaZeroOverwritesNanInC) { beta_zero_nan_in_c<Hgemm>(); }
TEST(Hgemm, AlphaZeroNeverReadsAOrB) { alpha_zero_nan_in_ab<Hgemm>(); }
TEST(Hgemm, KZeroScalesC) { k_zero<Hgemm>(); }
TEST(Hgemm, QuickReturnsLeaveCUntouched) { quick_returns<Hgemm>(); }
TEST(Hgemm, LeadingDimensionsAboveMinimum) { leading_dimensions<Hgemm>(); }
TEST(Hgemm, RoundsToBinary16Once) { rounds_once(Mem::host); }

TEST(HgemmDevice, AllOperandsOnDevice) {
  IFACE_REQUIRE_GPU();
  device_all<Hgemm>();
}
TEST(HgemmDevice, MixedHostAndDeviceOperands) {
  IFACE_REQUIRE_GPU();
  device_mixed<Hgemm>();
}
TEST(HgemmDevice, NanAndQuickReturnsOnDevice) {
  IFACE_REQUIRE_GPU();
  device_special_values<Hgemm>();
}
TEST(HgemmDevice, RoundsToBinary16Once) {
  IFACE_REQUIRE_GPU();
  rounds_once(Mem::device);
}
TEST(HgemmDevice, BetaZeroRoundsOnce) {
  IFACE_REQUIRE_GPU();
  beta_zero_rounds_once(Mem::device);
}
TEST(HgemmDevice, CancellationRoundsOnce) {
  IFACE_REQUIRE_GPU();
  cancellation_rounds_once(Mem::device);
}
// One side of 16 with the large operand contiguous along k (m small with B 'N', n small with A
// 'T'), beta != 0: auto mode runs them on the streaming kernel, or on the wgmma split-k kernel
// where its short operand is K-major at 16 (n small with B 'N'); a side of 17 to 256 on the wgmma
// split-k kernel, every transpose and both roles (the long side and k 2048 to 8192; above 128
// rows or columns only with the long side 4096 or more); both round once, as every path; with
// beta == 0 a side of 16 to 128 takes the split-k kernel too. Where an
// operand's leading dimension is not a multiple of 8 (their copy rules), or the short operand
// runs along its short side with a leading dimension off multiples of 64 (slow copies; beta != 0
// only above 128), cuBLAS.
TEST(HgemmDevice, SkinnyShapesBothRoles) {
  IFACE_REQUIRE_GPU();
  std::mt19937_64 rng(mbtest::test_seed());
  struct S {
    char ta, tb;
    int m, n, k;
    float beta;
    int pad_a, pad_b;  // leading dimensions beyond the minimum
    bool kernel;       // auto takes our kernel (else cuBLAS)
  };
  for (const S& sh : {S{'N', 'N', 16, 2048, 2048, 0.5f, 0, 8, true}, S{'T', 'N', 2048, 16, 2048, 1.f, 8, 0, true},
                      S{'T', 'N', 2050, 13, 2049, -1.f, 7, 0, true}, S{'N', 'N', 9, 3000, 2100, 0.25f, 0, 4, true},
                      S{'N', 'N', 16, 2048, 2048, 0.5f, 0, 3, false}, S{'N', 'N', 64, 2048, 2048, 0.5f, 0, 8, true},
                      S{'N', 'N', 2048, 96, 2048, 1.f, 0, 0, true}, S{'T', 'T', 100, 3000, 2100, -1.f, 4, 0, true},
                      S{'N', 'T', 4100, 200, 2051, 0.5f, 4, 56, true},
                      S{'N', 'T', 3001, 200, 2051, 0.5f, 7, 56, false}, S{'N', 'N', 64, 2048, 2048, 0.5f, 0, 3, false},
                      S{'N', 'N', 200, 2048, 2048, 0.5f, 0, 0, false}, S{'N', 'N', 64, 2048, 2048, 0.f, 0, 8, true},
                      S{'T', 'N', 2048, 100, 2048, 0.f, 8, 0, true}, S{'N', 'N', 48, 2048, 2048, 0.f, 0, 0, false},
                      S{'N', 'N', 2048, 16, 2048, 0.5f, 0, 0, true}}) {
    GemmCase c;
    c.api = Api::fortran;
    c.ta = sh.ta, c.tb = sh.tb;
    c.m = sh.m, c.n = sh.n, c.k = sh.k;
    c.alpha = Hgemm::scalar(mbtest::uniform(rng));
    c.beta = sh.beta;
    c.pad_a = sh.pad_a;
    c.pad_b = sh.pad_b;
    c.mem_a = c.mem_b = c.mem_c = Mem::device;
    const std::string what = std::string(1, c.ta) + c.tb + " " + std::to_string(c.m) + "x" + std::to_string(c.n) +
                             "x" + std::to_string(c.k) + " pads " + std::to_string(sh.pad_a) + "," +
                             std::to_string(sh.pad_b);
    EXPECT_TRUE(run<Hgemm>(c, rng)) << what;
    if (backend_env() == "auto") EXPECT_STREQ(myblas_last_path(), sh.kernel ? "kernels" : "cublas") << what;
  }
}
TEST(HgemmDevice, DeviceOperandsTakeGpuPath) {
  IFACE_REQUIRE_GPU();
  if (backend_env() == "cpu") GTEST_SKIP() << "MYBLAS_BACKEND=cpu sends device operands to the CPU";
  device_operands_take_gpu_path<Hgemm>();
}

}  // namespace
}  // namespace iface

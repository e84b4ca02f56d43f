// sgemv_ and cblas_sgemv (both orders) against OpenBLAS SGEMV, with strided, negative and
// device-resident vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>

#include "common/reference.h"
#include "gemm_check.h"
#include "gemm_suite.h"

namespace iface {
namespace {

struct GemvCase {
  Api api = Api::fortran;
  char t = 'N';
  int m = 1, n = 1;  // A is m x n in the caller's layout
  int pad = 3;
  int incx = 1, incy = 1;
  float alpha = 1.f, beta = 0.f;
  Poison poison = Poison::none;  // nan_c: NaN in y; nan_ab: NaN in A and x
  Mem mem_a = Mem::host, mem_x = Mem::host, mem_y = Mem::host;
};

const char* gemv_api_name(Api api) {
  switch (api) {
    case Api::cblas_col: return "cblas_sgemv(ColMajor)";
    case Api::cblas_row: return "cblas_sgemv(RowMajor)";
    default: return "sgemv_";
  }
}

std::vector<Api> gemv_apis() { return {Api::fortran, Api::cblas_col, Api::cblas_row}; }

void call_sgemv(const GemvCase& c, const float* a, int lda, const float* x, float* y) {
  if (c.api == Api::fortran) {
    sgemv_(&c.t, &c.m, &c.n, &c.alpha, a, &lda, x, &c.incx, &c.beta, y, &c.incy);
    return;
  }
  cblas_sgemv(row_major(c.api) ? CblasRowMajor : CblasColMajor, cblas_trans(c.t), c.m, c.n,
              c.alpha, a, lda, x, c.incx, c.beta, y, c.incy);
}

std::vector<float> packed(mbtest::Vector& v) {
  std::vector<float> p(size_t(v.len) + 1, 0.f);
  for (int i = 0; i < v.len; ++i) p[size_t(i)] = v.at(i);
  return p;
}

// Same checks as check_gemm: inputs bitwise unchanged, guards intact, quick returns leave y
// alone, the path is the promised one, and y is within (len_x + 2) * eps of OpenBLAS.
bool check_gemv(const GemvCase& c, std::mt19937_64& rng) {
  const bool trans = is_trans(c.t);
  const int lx = trans ? c.m : c.n, ly = trans ? c.n : c.m;
  Operand<mbtest::Matrix> A(c.m, c.n, row_major(c.api), c.pad, rng);
  mbtest::Vector X(lx, c.incx, rng), Y(ly, c.incy, rng);
  const std::string what =
      fmt("%s trans='%c' m=%d n=%d lda=%d incx=%d incy=%d alpha=%.9g beta=%.9g%s "
          "mem(a,x,y)=%c%c%c | %s",
          gemv_api_name(c.api), c.t, c.m, c.n, A.ld(), c.incx, c.incy, c.alpha, c.beta,
          c.poison == Poison::nan_c    ? " NaN-in-y"
          : c.poison == Poison::nan_ab ? " NaN-in-A-and-x"
          : c.poison == Poison::nan_both ? " NaN-in-A-x-and-y"
                                         : "",
          mem_char(c.mem_a), mem_char(c.mem_x), mem_char(c.mem_y), run_context().c_str());

  const std::vector<float> a0 = A.logical(), x0 = packed(X), y0 = packed(Y);
  if (c.poison == Poison::nan_c || c.poison == Poison::nan_both) Y.fill_nan();
  if (c.poison == Poison::nan_ab || c.poison == Poison::nan_both) {
    A.s.fill_nan();
    X.fill_nan();
  }
  const std::vector<float> a_in = A.s.buf, x_in = X.buf, y_in = Y.buf;

  std::unique_ptr<DeviceMirror> da, dx, dy;
  float* pa = A.s.data();
  float* px = X.data();
  float* py = Y.data();
  auto mirror = [&](Mem where, std::vector<float>& buf, int pad, std::unique_ptr<DeviceMirror>* d,
                    float** p) {
    if (where == Mem::host) return true;
    d->reset(new DeviceMirror(buf.data(), buf.size() * sizeof(float)));
    if (!(*d)->ok()) {
      ADD_FAILURE() << "cudaMalloc/cudaMemcpy: " << (*d)->error() << " | " << what;
      return false;
    }
    *p = static_cast<float*>((*d)->get()) + pad;
    return true;
  };
  if (!mirror(c.mem_a, A.s.buf, mbtest::Matrix::kPad, &da, &pa) ||
      !mirror(c.mem_x, X.buf, mbtest::Vector::kPad, &dx, &px) ||
      !mirror(c.mem_y, Y.buf, mbtest::Vector::kPad, &dy, &py))
    return false;

  call_sgemv(c, pa, A.ld(), px, py);
  const bool quick = c.m == 0 || c.n == 0 || (c.alpha == 0.f && c.beta == 1.f);
  const bool device = c.mem_y == Mem::device ||
                      (c.alpha != 0.f && (c.mem_a == Mem::device || c.mem_x == Mem::device));
  const ::testing::AssertionResult path = path_ok(quick, device);

  bool ok = true;
  auto back = [&](std::unique_ptr<DeviceMirror>& d, std::vector<float>& buf) {
    if (d && !d->copy_back(buf.data())) {
      ADD_FAILURE() << "copying back from the device: " << d->error() << " | " << what;
      ok = false;
    }
  };
  back(da, A.s.buf);
  back(dx, X.buf);
  back(dy, Y.buf);
  if (!ok) return false;

  if (!path) {
    ok = false;
    ADD_FAILURE() << path.message() << " | " << what;
  }
  if (!same_bits(A.s.buf, a_in)) {
    ok = false;
    ADD_FAILURE() << "input A (or its padding) was modified | " << what;
  }
  if (!same_bits(X.buf, x_in)) {
    ok = false;
    ADD_FAILURE() << "input x (or the guards between its elements) was modified | " << what;
  }
  if (const int64_t bad = Y.damaged_guards()) {
    ok = false;
    ADD_FAILURE() << bad << " guard elements around or between the elements of y were overwritten | "
                  << what;
  }
  if (quick) {
    if (!same_bits(Y.buf, y_in)) {
      ok = false;
      ADD_FAILURE() << "quick return must leave y untouched, but it changed | " << what;
    }
    return ok;
  }

  const char nt = normal_trans(c.t);
  const int lda0 = std::max(1, c.m);
  std::vector<float> want = y0;
  mbtest::ref_sgemv(nt, c.m, c.n, c.alpha, a0.data(), lda0, x0.data(), 1, c.beta, want.data(), 1);
  std::vector<float> mag = abs_of(y0);
  mbtest::ref_sgemv(nt, c.m, c.n, std::fabs(c.alpha), abs_of(a0).data(), lda0, abs_of(x0).data(),
                    1, std::fabs(c.beta), mag.data(), 1);
  std::vector<double> bound(static_cast<size_t>(ly));
  for (int i = 0; i < ly; ++i) bound[size_t(i)] = 2.0 * FLT_EPSILON * (lx + 2) * double(mag[size_t(i)]);
  const std::vector<float> got = packed(Y);
  const mbtest::Worst w = mbtest::compare(got.data(), ly, want.data(), ly, bound, ly, 1, 1.0);
  if (!(w.ratio <= 1.0)) {
    ok = false;
    ADD_FAILURE() << fmt("result off by %.3g x the bound; worst y(%d): got %.9g, want %.9g "
                         "(bound %.3g)%s | ",
                         w.ratio, w.i, w.got, w.want, bound[size_t(w.i)],
                         std::isnan(w.got) ? " -- NaN in the result" : "")
                  << what;
  }
  return ok;
}

const int kIncs[] = {-3, -1, 1, 2};

TEST(Sgemv, EveryTransposeOnEveryEntryPoint) {
  std::mt19937_64 rng(mbtest::test_seed());
  const int shapes[][2] = {{17, 3}, {3, 17}, {1, 1}, {127, 5}};
  Sweep s;
  int turn = 0;
  for (Api api : gemv_apis())
    for (char t : trans_chars(api))
      for (const auto& sh : shapes) {
        if (!s.more()) return;
        GemvCase c;
        c.api = api;
        c.t = t;
        c.m = sh[0];
        c.n = sh[1];
        c.incx = kIncs[turn % 4];
        c.incy = kIncs[(turn / 4) % 4];
        ++turn;
        c.alpha = mbtest::uniform(rng);
        c.beta = mbtest::uniform(rng);
        s.add(check_gemv(c, rng));
      }
}

TEST(Sgemv, SizesIncludingZero) {
  std::mt19937_64 rng(mbtest::test_seed());
  const int sizes[] = {0, 1, 3, 17, 127, 1000};
  Sweep s;
  for (Api api : gemv_apis())
    for (int m : sizes)
      for (int n : sizes)
        for (char t : {'N', 'T'}) {
          if (!s.more()) return;
          GemvCase c;
          c.api = api;
          c.t = t;
          c.m = m;
          c.n = n;
          c.alpha = mbtest::uniform(rng);
          c.beta = mbtest::uniform(rng);
          s.add(check_gemv(c, rng));
        }
}

TEST(Sgemv, NegativeAndNonUnitIncrements) {
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  for (Api api : gemv_apis())
    for (int incx : kIncs)
      for (int incy : kIncs)
        for (char t : {'N', 'T'}) {
          if (!s.more()) return;
          GemvCase c;
          c.api = api;
          c.t = t;
          c.m = 17;
          c.n = 5;
          c.incx = incx;
          c.incy = incy;
          c.alpha = mbtest::uniform(rng);
          c.beta = mbtest::uniform(rng);
          s.add(check_gemv(c, rng));
        }
}

TEST(Sgemv, AlphaBetaGrid) {
  std::mt19937_64 rng(mbtest::test_seed());
  const float r1 = mbtest::uniform(rng), r2 = mbtest::uniform(rng);
  Sweep s;
  int turn = 0;
  for (Api api : gemv_apis())
    for (float alpha : {0.f, 1.f, -1.f, 0.5f, r1})
      for (float beta : {0.f, 1.f, -1.f, 0.5f, r2}) {
        if (!s.more()) return;
        GemvCase c;
        c.api = api;
        c.t = "NT"[turn % 2];
        c.incx = kIncs[turn % 4];
        c.incy = kIncs[(turn + 1) % 4];
        ++turn;
        c.m = 17;
        c.n = 127;
        c.alpha = alpha;
        c.beta = beta;
        s.add(check_gemv(c, rng));
      }
}

TEST(Sgemv, BetaZeroOverwritesNanInY) {
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  int turn = 0;
  for (Api api : gemv_apis())
    for (float alpha : {0.f, 1.f, -1.f, 0.5f, mbtest::uniform(rng)})
      for (char t : {'N', 'T'}) {
        if (!s.more()) return;
        GemvCase c;
        c.api = api;
        c.t = t;
        c.m = 17;
        c.n = 3;
        c.incy = kIncs[turn++ % 4];
        c.alpha = alpha;
        c.beta = 0.f;
        c.poison = Poison::nan_c;
        s.add(check_gemv(c, rng));
      }
}

TEST(Sgemv, AlphaZeroNeverReadsAOrX) {
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  int turn = 0;
  for (Api api : gemv_apis())
    for (float beta : {0.f, 1.f, -1.f, 0.5f, mbtest::uniform(rng)})
      for (Poison p : {Poison::nan_ab, Poison::nan_both}) {
        if (p == Poison::nan_both && beta != 0.f) continue;
        if (!s.more()) return;
        GemvCase c;
        c.api = api;
        c.t = "NT"[turn % 2];
        c.incx = kIncs[turn % 4];
        c.incy = kIncs[(turn + 2) % 4];
        ++turn;
        c.m = 17;
        c.n = 3;
        c.alpha = 0.f;
        c.beta = beta;
        c.poison = p;
        s.add(check_gemv(c, rng));
      }
}

// m == 0 or n == 0 leaves y untouched, beta == 0 and NaN notwithstanding; so does
// alpha == 0 with beta == 1. With trans 'T' and m == 0, y still has n elements.
TEST(Sgemv, QuickReturnsLeaveYUntouched) {
  std::mt19937_64 rng(mbtest::test_seed());
  struct Q {
    int m, n;
    float alpha, beta;
    Poison p;
  };
  const Q cases[] = {{0, 17, 1.f, 0.f, Poison::nan_c},  {17, 0, 1.f, 0.f, Poison::nan_c},
                     {0, 0, 1.f, 0.f, Poison::nan_c},   {0, 17, 0.5f, -1.f, Poison::nan_both},
                     {17, 3, 0.f, 1.f, Poison::nan_both}};
  Sweep s;
  int turn = 0;
  for (Api api : gemv_apis())
    for (const Q& q : cases)
      for (char t : {'N', 'T'}) {
        if (!s.more()) return;
        GemvCase c;
        c.api = api;
        c.t = t;
        c.m = q.m;
        c.n = q.n;
        c.incx = kIncs[turn % 4];
        c.incy = kIncs[(turn + 1) % 4];
        ++turn;
        c.alpha = q.alpha;
        c.beta = q.beta;
        c.poison = q.p;
        s.add(check_gemv(c, rng));
      }
}

TEST(Sgemv, LeadingDimensionsAboveMinimum) {
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  for (Api api : gemv_apis())
    for (int pad : {0, 1, 3, 61})
      for (char t : {'N', 'T'}) {
        if (!s.more()) return;
        GemvCase c;
        c.api = api;
        c.t = t;
        c.m = 17;
        c.n = 5;
        c.pad = pad;
        c.alpha = mbtest::uniform(rng);
        c.beta = mbtest::uniform(rng);
        s.add(check_gemv(c, rng));
      }
}

// ---- operands in device memory ------------------------------------------------------------

TEST(SgemvDevice, AllOperandsOnDevice) {
  IFACE_REQUIRE_GPU();
  std::mt19937_64 rng(mbtest::test_seed());
  const int shapes[][2] = {{17, 3}, {3, 17}, {1, 1}, {1000, 127}};
  Sweep s;
  int turn = 0;
  for (Api api : gemv_apis())
    for (const auto& sh : shapes)
      for (char t : {'N', 'T'}) {
        if (!s.more()) return;
        GemvCase c;
        c.api = api;
        c.t = t;
        c.m = sh[0];
        c.n = sh[1];
        c.incx = kIncs[turn % 4];
        c.incy = kIncs[(turn / 4 + 1) % 4];
        ++turn;
        c.alpha = mbtest::uniform(rng);
        c.beta = mbtest::uniform(rng);
        c.mem_a = c.mem_x = c.mem_y = Mem::device;
        s.add(check_gemv(c, rng));
      }
}

TEST(SgemvDevice, MixedHostAndDeviceOperands) {
  IFACE_REQUIRE_GPU();
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  int turn = 0;
  for (Api api : gemv_apis())
    for (int mask = 1; mask < 7; ++mask) {
      if (!s.more()) return;
      GemvCase c;
      c.api = api;
      c.t = "NT"[turn % 2];
      c.incx = kIncs[turn % 4];
      c.incy = kIncs[(turn + 3) % 4];
      ++turn;
      c.m = 127;
      c.n = 17;
      c.alpha = mbtest::uniform(rng);
      c.beta = mbtest::uniform(rng);
      c.mem_a = (mask & 1) ? Mem::device : Mem::host;
      c.mem_x = (mask & 2) ? Mem::device : Mem::host;
      c.mem_y = (mask & 4) ? Mem::device : Mem::host;
      s.add(check_gemv(c, rng));
    }
}

TEST(SgemvDevice, NanAndQuickReturnsOnDevice) {
  IFACE_REQUIRE_GPU();
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  for (Api api : gemv_apis()) {
    for (int incy : {-3, 1}) {
      if (!s.more()) return;
      GemvCase c;  // beta == 0: NaN in a device y must not come out
      c.api = api;
      c.m = 17;
      c.n = 3;
      c.incy = incy;
      c.alpha = mbtest::uniform(rng);
      c.poison = Poison::nan_c;
      c.mem_a = c.mem_x = c.mem_y = Mem::device;
      s.add(check_gemv(c, rng));
    }
    for (float beta : {0.f, 0.5f, 1.f})
      for (Mem ym : {Mem::host, Mem::device}) {
        if (!s.more()) return;
        GemvCase c;  // alpha == 0: device A and x are never read
        c.api = api;
        c.t = 'T';
        c.m = 17;
        c.n = 3;
        c.incx = -1;
        c.incy = 2;
        c.alpha = 0.f;
        c.beta = beta;
        c.poison = beta == 0.f ? Poison::nan_both : Poison::nan_ab;
        c.mem_a = c.mem_x = Mem::device;
        c.mem_y = ym;
        s.add(check_gemv(c, rng));
      }
    for (char t : {'N', 'T'}) {
      if (!s.more()) return;
      GemvCase c;  // m == 0 with a device y of n elements
      c.api = api;
      c.t = t;
      c.m = 0;
      c.n = 17;
      c.beta = 0.f;
      c.poison = Poison::nan_c;
      c.mem_a = c.mem_x = c.mem_y = Mem::device;
      s.add(check_gemv(c, rng));
    }
  }
}

TEST(SgemvDevice, DeviceOperandsTakeGpuPath) {
  IFACE_REQUIRE_GPU();
  if (backend_env() == "cpu") GTEST_SKIP() << "MYBLAS_BACKEND=cpu sends device operands to the CPU";
  std::mt19937_64 rng(mbtest::test_seed());
  for (Api api : gemv_apis()) {
    GemvCase c;
    c.api = api;
    c.m = 33;
    c.n = 17;
    c.alpha = mbtest::uniform(rng);
    c.beta = mbtest::uniform(rng);
    c.mem_a = c.mem_x = c.mem_y = Mem::device;
    check_gemv(c, rng);
    EXPECT_STRNE(myblas_last_path(), "cpu")
        << gemv_api_name(api) << " with device operands | " << run_context();
  }
}

}  // namespace
}  // namespace iface

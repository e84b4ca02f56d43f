// One call of any routine served through the generic problem description (GEMM and GEMV in
// D, C, Z; SYMM, HEMM, SYRK, HERK, SYR2K, HER2K, TRMM, TRSM in every type they exist in),
// through any of its entry points (Fortran LP64 and ILP64 names, CBLAS in both layouts, ILP64
// CBLAS), on host or device operands, checked against OpenBLAS's routine of the same name on
// clean copies of the same data. Written once, instantiated per element type.
//
// What each case plants, and what must hold afterwards:
//   - every operand padded (leading dimension beyond the minimum), guards around it and in the
//     padding: the guards survive, inputs stay bitwise what they were;
//   - the triangle a routine must not read (symm/hemm/trmm/trsm: the other triangle of A; a
//     unit diagonal) holds NaN: the result is still right;
//   - hemm's A and herk/her2k's C carry non-zero imaginary parts on the diagonal: ignored, and
//     herk/her2k write an exactly zero imaginary diagonal;
//   - syrk..her2k: the other triangle of C holds NaN that must stay bitwise;
//   - Poison::nan_c (beta == 0): C is NaN and must not be read; Poison::nan_ab (alpha == 0): A,
//     B (and TRMM/TRSM's B, the output) are NaN and must not be read;
//   - quick returns leave C bitwise untouched and report the path "none";
//   - the result is within fac * eps * (k + 2) * (|alpha| |op(A)| |op(B)| + |beta| |C|) of
//     OpenBLAS's (k the inner dimension); TRSM within fac * eps * (dim + 2) * 4 |alpha| max|B|,
//     A built diagonally dominant so that this bounds the solve.
#pragma once
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/blas_call.h"
#include "common/reference.h"
#include "gemm_check.h"
#include "iface_common.h"

namespace iface {

struct BlasCase {
  Fam f = Fam::gemm;
  Entry api = Entry::f77;
  char side = 'L', uplo = 'U', ta = 'N', tb = 'N', diag = 'N';  // as passed (lower case allowed)
  int m = 1, n = 1, k = 1;
  int pad = 3;             // leading dimensions beyond the minimum
  int incx = 1, incy = 1;  // gemv
  std::complex<double> alpha{1, 0}, beta{0, 0};
  Poison poison = Poison::none;
  Mem mem = Mem::host;     // where every operand lives
  double fac = 2;          // safety factor on the bound (doubled for complex data)
};

// The library call of case `c` through its entry point; false (with a failure) if the symbol
// is missing.
template <class T>
bool call_ours(const BlasCase& c, const Args<T>& g) {
  const std::string sym = entry_symbol(c.api, routine_base<T>(c.f));
  void* fn = our_symbol(sym);
  if (!fn) {
    ADD_FAILURE() << "libmyblas does not export " << sym;
    return false;
  }
  const CBLAS_LAYOUT layout = is_row(c.api) ? CblasRowMajor : CblasColMajor;
  if (!is_cblas(c.api)) {
    if (is_ilp64(c.api)) fortran_call<T, int64_t>(fn, c.f, g);
    else fortran_call<T, int>(fn, c.f, g);
  } else {
    if (is_ilp64(c.api)) cblas_call<T, int64_t>(fn, c.f, layout, g);
    else cblas_call<T, int>(fn, c.f, layout, g);
  }
  return true;
}

// OpenBLAS's routine of the same name, column-major, on dense copies.
template <class T>
void call_reference(Fam f, const Args<T>& g) {
  fortran_call<T, int>(mbtest::ref_symbol((routine_base<T>(f) + "_").c_str()), f, g);
}

inline char up(char c) { return char(std::toupper(static_cast<unsigned char>(c))); }

template <class T>
std::string describe(const BlasCase& c, int lda, int ldb, int ldc) {
  auto s = [](std::complex<double> v) { return fmt("(%.6g,%.6g)", v.real(), v.imag()); };
  return fmt("%s side=%c uplo=%c ta=%c tb=%c diag=%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d incx=%d incy=%d "
             "alpha=%s beta=%s%s mem=%c | %s",
             entry_symbol(c.api, routine_base<T>(c.f)).c_str(), c.side, c.uplo, c.ta, c.tb, c.diag, c.m, c.n, c.k,
             lda, ldb, ldc, c.incx, c.incy, s(c.alpha).c_str(), s(c.beta).c_str(), poison_name(c.poison),
             c.mem == Mem::host ? 'h' : 'd', run_context().c_str()) +
         (is_row(c.api) ? " (row-major)" : "");
}

// A dense column-major matrix of wide values for the bound.
struct Abs {
  int rows = 0, cols = 0;
  std::vector<double> v;
  Abs(int r, int c) : rows(r), cols(c), v(size_t(r) * size_t(c), 0.0) {}
  double& operator()(int i, int j) { return v[size_t(i) + size_t(j) * rows]; }
  double operator()(int i, int j) const { return v[size_t(i) + size_t(j) * rows]; }
};
// |X| of a dense (ld = rows) matrix, or of its transpose.
template <class T>
Abs abs_dense(const std::vector<T>& x, int rows, int cols, bool transpose) {
  Abs r(transpose ? cols : rows, transpose ? rows : cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      const double a = std::abs(x[size_t(i) + size_t(j) * std::max(1, rows)]);
      if (transpose) r(j, i) = a;
      else r(i, j) = a;
    }
  return r;
}
inline void add_abs_product(double s, const Abs& a, const Abs& b, Abs* out) {
  for (int j = 0; j < out->cols; ++j)
    for (int l = 0; l < a.cols; ++l) {
      const double y = s * b(l, j);
      if (y == 0) continue;
      for (int i = 0; i < out->rows; ++i) (*out)(i, j) += a(i, l) * y;
    }
}

// |A| of a symmetric/Hermitian (full) or triangular (tri, unit) dim x dim A stored in its
// `uplo` triangle, dense.
template <class T>
Abs abs_structured(const std::vector<T>& a, int dim, char uplo, bool tri, bool unit) {
  Abs r(dim, dim);
  for (int j = 0; j < dim; ++j)
    for (int i = 0; i < dim; ++i) {
      const bool in = uplo == 'U' ? i <= j : i >= j;
      if (i == j && unit) r(i, j) = 1;
      else if (in) r(i, j) = std::abs(a[size_t(i) + size_t(j) * dim]);
      else if (!tri) r(i, j) = std::abs(a[size_t(j) + size_t(i) * dim]);
    }
  return r;
}
inline Abs transposed(const Abs& a) {
  Abs r(a.cols, a.rows);
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) r(j, i) = a(i, j);
  return r;
}


// x with its imaginary part replaced by `im` (complex types; real x is returned as it is).
template <class T>
T with_imag(T x, float im) {
  if constexpr (Ty<T>::cx) return T(std::real(x), typename Ty<T>::R(im));
  else return x;
}

// Copies padded host buffers to the device for the call and back afterwards.
template <class T>
class Placement {
 public:
  // Returns the pointer the call gets for `buf`'s data (kPad elements in).
  T* place(Mem where, std::vector<T>& buf, int pad) {
    if (where == Mem::host) return buf.data() + pad;
    mirrors_.emplace_back(new DeviceMirror(buf.data(), buf.size() * sizeof(T)));
    bufs_.push_back(&buf);
    if (!mirrors_.back()->ok()) {
      error_ = mirrors_.back()->error();
      return nullptr;
    }
    return static_cast<T*>(mirrors_.back()->get()) + pad;
  }
  bool back() {
    for (size_t i = 0; i < mirrors_.size(); ++i)
      if (!mirrors_[i]->copy_back(bufs_[i]->data())) {
        error_ = mirrors_[i]->error();
        return false;
      }
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  std::vector<std::unique_ptr<DeviceMirror>> mirrors_;
  std::vector<std::vector<T>*> bufs_;
  std::string error_;
};

// Every family but GEMV. Returns false on a failure (sweeps stop after a few).
template <class T>
bool check_blas(const BlasCase& c, std::mt19937_64& rng) {
  using R = typename Ty<T>::R;
  using M = Operand<mbtest::MatrixOf<T>>;
  const Fam f = c.f;
  const char side = up(c.side), uplo = up(c.uplo), ta = up(c.ta), tb = up(c.tb), diag = up(c.diag);
  const bool row = is_row(c.api), tn = ta == 'N';
  const int m = c.m, n = c.n, k = c.k;
  const int dim = side == 'L' ? m : n;  // order of A for symm..trsm
  int ar = 0, ac = 0, br = 0, bc = 0, cr = m, cc = n;
  switch (f) {
    case Fam::gemm:
      ar = tn ? m : k, ac = tn ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
      break;
    case Fam::symm: case Fam::hemm: case Fam::trmm: case Fam::trsm:
      ar = ac = dim, br = m, bc = n;
      break;
    default:  // rank updates: C n x n
      ar = br = tn ? n : k, ac = bc = tn ? k : n, cr = cc = n;
      break;
  }
  M A(ar, ac, row, c.pad, rng);
  M B(has_b(f) ? br : 0, has_b(f) ? bc : 0, row, c.pad + 1, rng);
  M C(cr, cc, row, c.pad + 2, rng);
  const std::string what = describe<T>(c, A.ld(), B.ld(), C.ld());

  // TRSM: diagonally dominant A (|diagonal| >= 1, off-diagonal sums <= 1/2 of it).
  if (f == Fam::trsm)
    for (int j = 0; j < dim; ++j)
      for (int i = 0; i < dim; ++i) {
        T& x = A.at(i, j);
        if (i == j) x = x * R(1 / std::abs(x)) * R(1 + std::abs(std::real(x)));
        else x = x * R(0.5 / (dim * std::sqrt(2.0)));
      }
  // The clean copies the reference sees: a Hermitian diagonal real, a unit diagonal one.
  std::vector<T> a0 = A.logical(), b0 = B.logical(), c0 = C.logical();
  const bool unit = triangular(f) && diag == 'U';
  for (int j = 0; j < dim && !rank_update(f) && f != Fam::gemm; ++j) {
    T& d = a0[size_t(j) + size_t(j) * dim];
    if (f == Fam::hemm) d = T(std::real(d));
    if (unit) d = T(1);
  }
  if (f == Fam::herk || f == Fam::her2k)
    for (int j = 0; j < n; ++j) c0[size_t(j) + size_t(j) * n] = T(std::real(c0[size_t(j) + size_t(j) * n]));

  // What the call must not read or write.
  std::mt19937_64 junk(rng());
  if (f == Fam::symm || f == Fam::hemm || triangular(f))
    for (int j = 0; j < dim; ++j)
      for (int i = 0; i < dim; ++i) {
        const bool in = uplo == 'U' ? i <= j : i >= j;
        if (!in || (i == j && unit)) A.at(i, j) = mbtest::nan_of<T>();
        else if (i == j && f == Fam::hemm) A.at(i, j) = with_imag(A.at(i, j), mbtest::uniform(junk));
      }
  auto written = [&](int i, int j) { return !rank_update(f) || (uplo == 'U' ? i <= j : i >= j); };
  if (rank_update(f))
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (!written(i, j)) C.at(i, j) = mbtest::nan_of<T>();
        else if (i == j && hermitian(f)) C.at(i, j) = with_imag(C.at(i, j), mbtest::uniform(junk));
  if (c.poison == Poison::nan_c || c.poison == Poison::nan_both) C.s.fill_nan();
  if (c.poison == Poison::nan_ab || c.poison == Poison::nan_both) {
    A.s.fill_nan();
    B.s.fill_nan();
    if (triangular(f)) C.s.fill_nan();
  }
  const std::vector<T> a_in = A.s.buf, b_in = B.s.buf, c_in = C.s.buf;

  Placement<T> place;
  const int pad = mbtest::MatrixOf<T>::kPad;
  Args<T> g{c.side, c.uplo, c.ta, c.tb, c.diag, m, n, k, scalar_as<T>(c.alpha), scalar_as<T>(c.beta),
            place.place(c.mem, A.s.buf, pad), A.ld(), has_b(f) ? place.place(c.mem, B.s.buf, pad) : nullptr,
            has_b(f) ? B.ld() : 1, place.place(c.mem, C.s.buf, pad), C.ld()};
  if ((c.mem == Mem::device) && (!g.a || !g.c || (has_b(f) && !g.b))) {
    ADD_FAILURE() << "cudaMalloc/cudaMemcpy: " << place.error() << " | " << what;
    return false;
  }
  if (!call_ours<T>(c, g)) return false;

  const bool alpha0 = c.alpha == 0.0, beta1 = c.beta == 1.0;
  bool quick = false, scale_only = alpha0;
  switch (f) {
    case Fam::gemm: quick = m == 0 || n == 0 || ((alpha0 || k == 0) && beta1); scale_only = alpha0 || k == 0; break;
    case Fam::symm: case Fam::hemm: quick = m == 0 || n == 0 || (alpha0 && beta1); break;
    case Fam::trmm: case Fam::trsm: quick = m == 0 || n == 0; break;
    default: quick = n == 0 || ((alpha0 || k == 0) && beta1); scale_only = alpha0 || k == 0; break;
  }
  const ::testing::AssertionResult path = path_ok(quick, c.mem == Mem::device);
  if (!place.back()) {
    ADD_FAILURE() << "copying back from the device: " << place.error() << " | " << what;
    return false;
  }
  (void)scale_only;

  bool ok = true;
  auto fail = [&](const std::string& why) {
    ok = false;
    ADD_FAILURE() << why << " | " << what;
  };
  if (!path) fail(path.message());
  if (std::memcmp(A.s.buf.data(), a_in.data(), a_in.size() * sizeof(T)))
    fail("input A (or its padding) was modified");
  if (std::memcmp(B.s.buf.data(), b_in.data(), b_in.size() * sizeof(T))) fail("input B (or its padding) was modified");
  if (const int64_t bad = C.s.damaged_guards()) fail(fmt("%lld guard elements around C or in its padding were overwritten", (long long)bad));
  if (quick) {
    if (std::memcmp(C.s.buf.data(), c_in.data(), c_in.size() * sizeof(T))) fail("quick return must leave C untouched, but it changed");
    return ok;
  }

  // The reference on the clean copies.
  std::vector<T> want = c0;
  const int lda0 = std::max(1, ar), ldb0 = std::max(1, br), ldc0 = std::max(1, cr);
  const Args<T> rg{side, uplo, ta, tb, diag, m, n, k, g.alpha, g.beta, a0.data(), lda0, b0.data(), ldb0,
                   want.data(), ldc0};
  call_reference<T>(f, rg);

  // The magnitude the bound scales with.
  const double al = std::abs(c.alpha), be = (f == Fam::trmm || f == Fam::trsm) ? 0.0 : std::abs(c.beta);
  Abs mag(cr, cc);
  int inner = k;
  const double eps = std::numeric_limits<R>::epsilon();
  if (f != Fam::trsm) {
    for (int j = 0; j < cc; ++j)
      for (int i = 0; i < cr; ++i) mag(i, j) = be == 0.0 ? 0.0 : be * std::abs(c0[size_t(i) + size_t(j) * ldc0]);
    switch (f) {
      case Fam::gemm:
        add_abs_product(al, abs_dense(a0, ar, ac, !tn), abs_dense(b0, br, bc, tb != 'N'), &mag);
        break;
      case Fam::symm: case Fam::hemm: case Fam::trmm: {
        inner = dim;
        Abs sa = abs_structured(a0, dim, uplo, f == Fam::trmm, unit);
        if (f == Fam::trmm && !tn) sa = transposed(sa);
        const Abs sb = f == Fam::trmm ? abs_dense(c0, cr, cc, false) : abs_dense(b0, br, bc, false);
        if (side == 'L') add_abs_product(al, sa, sb, &mag);
        else add_abs_product(al, sb, sa, &mag);
        break;
      }
      case Fam::syrk: case Fam::herk:
        add_abs_product(al, abs_dense(a0, ar, ac, !tn), abs_dense(a0, ar, ac, tn), &mag);
        break;
      default:  // syr2k, her2k
        add_abs_product(al, abs_dense(a0, ar, ac, !tn), abs_dense(b0, br, bc, tn), &mag);
        add_abs_product(al, abs_dense(b0, br, bc, !tn), abs_dense(a0, ar, ac, tn), &mag);
        break;
    }
  } else {
    inner = dim;
    double bmax = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) bmax = std::max(bmax, double(std::abs(c0[size_t(i) + size_t(j) * ldc0])));
    for (double& v : mag.v) v = 4 * al * bmax;
  }
  const double fac = c.fac * (Ty<T>::cx ? 2 : 1) * eps * (inner + 2);

  struct {
    double ratio = 0;
    int i = -1, j = -1;
    T got{}, want{};
  } worst;
  int64_t outside = 0, imag_diag = 0;
  for (int j = 0; j < cc; ++j)
    for (int i = 0; i < cr; ++i) {
      const T got = C.at(i, j);
      if (!written(i, j)) {
        const size_t at = size_t(&C.at(i, j) - C.s.buf.data());
        outside += !mbtest::same_bits(got, c_in[at]);
        continue;
      }
      if (hermitian(f) && i == j && rank_update(f) && std::imag(got) != 0) ++imag_diag;
      const T w = want[size_t(i) + size_t(j) * ldc0];
      const double bound = fac * mag(i, j) + 1e-300;
      const double ratio = std::isnan(std::abs(got)) ? INFINITY : std::abs(got - w) / bound;
      if (!(ratio <= worst.ratio)) worst = {ratio, i, j, got, w};
    }
  if (outside) fail(fmt("%lld elements of C outside the triangle it may write changed", (long long)outside));
  if (imag_diag) fail(fmt("%lld diagonal elements of C have a non-zero imaginary part", (long long)imag_diag));
  if (!(worst.ratio <= 1.0))
    fail(fmt("result off by %.3g x the bound; worst C(%d,%d): got (%.9g,%.9g), want (%.9g,%.9g)%s", worst.ratio,
             worst.i, worst.j, double(std::real(worst.got)), double(std::imag(worst.got)),
             double(std::real(worst.want)), double(std::imag(worst.want)),
             std::isnan(std::abs(worst.got)) ? " -- NaN in the result" : ""));
  return ok;
}

// GEMV: y := alpha op(A) x + beta y, x and y strided (negative increments start at the end).
template <class T>
bool check_gemv(const BlasCase& c, std::mt19937_64& rng) {
  using R = typename Ty<T>::R;
  using V = mbtest::VectorOf<T>;
  const char ta = up(c.ta);
  const bool row = is_row(c.api);
  const int m = c.m, n = c.n, lx = ta == 'N' ? n : m, ly = ta == 'N' ? m : n;
  Operand<mbtest::MatrixOf<T>> A(m, n, row, c.pad, rng);
  V X(lx, c.incx, rng), Y(ly, c.incy, rng);
  const std::string what = describe<T>(c, A.ld(), c.incx, c.incy);
  const std::vector<T> a0 = A.logical(), x0 = X.buf, y0 = Y.buf;
  if (c.poison == Poison::nan_c || c.poison == Poison::nan_both) Y.fill_nan();
  if (c.poison == Poison::nan_ab || c.poison == Poison::nan_both) {
    A.s.fill_nan();
    X.fill_nan();
  }
  const std::vector<T> a_in = A.s.buf, x_in = X.buf, y_in = Y.buf;
  Placement<T> place;
  Args<T> g{'L', 'U', c.ta, 'N', 'N', m, n, 0, scalar_as<T>(c.alpha), scalar_as<T>(c.beta),
            place.place(c.mem, A.s.buf, mbtest::MatrixOf<T>::kPad), A.ld(), place.place(c.mem, X.buf, V::kPad),
            c.incx, place.place(c.mem, Y.buf, V::kPad), c.incy};
  if (c.mem == Mem::device && (!g.a || !g.b || !g.c)) {
    ADD_FAILURE() << "cudaMalloc/cudaMemcpy: " << place.error() << " | " << what;
    return false;
  }
  if (!call_ours<T>(c, g)) return false;
  const bool quick = m == 0 || n == 0 || (c.alpha == 0.0 && c.beta == 1.0);
  // Row-major ConjTrans of complex data is conj(A) x of the column-major storage: CPU only.
  const bool cpu_only = row && ta == 'C' && Ty<T>::cx;
  const ::testing::AssertionResult path = path_ok(quick, c.mem == Mem::device, cpu_only);
  if (!place.back()) {
    ADD_FAILURE() << "copying back from the device: " << place.error() << " | " << what;
    return false;
  }
  bool ok = true;
  auto fail = [&](const std::string& why) {
    ok = false;
    ADD_FAILURE() << why << " | " << what;
  };
  if (!path) fail(path.message());
  if (std::memcmp(A.s.buf.data(), a_in.data(), a_in.size() * sizeof(T))) fail("input A (or its padding) was modified");
  if (std::memcmp(X.buf.data(), x_in.data(), x_in.size() * sizeof(T))) fail("input x (or what lies between its elements) was modified");
  if (const int64_t bad = Y.damaged_guards()) fail(fmt("%lld guard elements around or between y's elements were overwritten", (long long)bad));
  if (quick) {
    if (std::memcmp(Y.buf.data(), y_in.data(), y_in.size() * sizeof(T))) fail("quick return must leave y untouched, but it changed");
    return ok;
  }
  std::vector<T> want = y0;
  const Args<T> rg{'L', 'U', ta, 'N', 'N', m, n, 0, g.alpha, g.beta, a0.data(), std::max(1, m),
                   x0.data() + V::kPad, c.incx, want.data() + V::kPad, c.incy};
  call_reference<T>(Fam::gemv, rg);
  // Logical x0 / y0 values for the bound.
  auto logical = [](const std::vector<T>& buf, int len, int inc, int i) {
    const int64_t step = inc < 0 ? -int64_t(inc) : inc;
    return buf[size_t(V::kPad + (inc > 0 ? int64_t(i) * step : int64_t(len - 1 - i) * step))];
  };
  const double eps = std::numeric_limits<R>::epsilon();
  const double fac = c.fac * (Ty<T>::cx ? 2 : 1) * eps * (lx + 2);
  double worst = 0;
  int wi = -1;
  for (int i = 0; i < ly; ++i) {
    double mag = c.beta == 0.0 ? 0.0 : std::abs(c.beta) * std::abs(logical(y0, ly, c.incy, i));
    for (int l = 0; l < lx; ++l)
      mag += std::abs(c.alpha) * std::abs(ta == 'N' ? a0[size_t(i) + size_t(l) * std::max(1, m)]
                                                    : a0[size_t(l) + size_t(i) * std::max(1, m)]) *
             std::abs(logical(x0, lx, c.incx, l));
    const T got = Y.at(i), w = logical(want, ly, c.incy, i);
    const double ratio = std::isnan(std::abs(got)) ? INFINITY : std::abs(got - w) / (fac * mag + 1e-300);
    if (!(ratio <= worst)) worst = ratio, wi = i;
  }
  if (!(worst <= 1.0)) {
    const T got = Y.at(wi), w = logical(want, ly, c.incy, wi);
    fail(fmt("result off by %.3g x the bound; worst y(%d): got (%.9g,%.9g), want (%.9g,%.9g)", worst, wi,
             double(std::real(got)), double(std::imag(got)), double(std::real(w)), double(std::imag(w))));
  }
  return ok;
}

template <class T>
bool check_any(const BlasCase& c, std::mt19937_64& rng) {
  return c.f == Fam::gemv ? check_gemv<T>(c, rng) : check_blas<T>(c, rng);
}

}  // namespace iface

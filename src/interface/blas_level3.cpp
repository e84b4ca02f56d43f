// The BLAS/CBLAS shell of every routine described by a BlasProblem (Level 3 in S, D, C, Z, and
// GEMV/GEMM in D, C, Z), written once per routine family and instantiated per element type and
// integer width: Fortran names (dgemm_), ILP64 names (dgemm_64_, dgemm_64), CBLAS (cblas_dgemm)
// and ILP64 CBLAS (cblas_dgemm_64, cblas_dgemm64_). Argument checks follow the reference
// routines' order and parameter numbers; CBLAS row-major calls become their column-major
// equivalents as the reference CBLAS builds them.
#include <cctype>
#include <climits>
#include <type_traits>
#include <cstdint>
#include <vector>

#include "core/elem.h"
#include "dispatch/dispatch.h"
#include "interface/entry.h"

namespace myblas {

namespace {

char up(const char* c) { return char(std::toupper(static_cast<unsigned char>(*c))); }
template <class I>
int64_t max1(I v) { return v > 1 ? int64_t(v) : 1; }

// ---- reference argument checks: 0, or the number of the first illegal argument ----
template <class I>
int gemm_check(char ta, char tb, I m, I n, I k, I lda, I ldb, I ldc) {
  const bool na = ta == 'N', nb = tb == 'N';
  if (!na && ta != 'T' && ta != 'C') return 1;
  if (!nb && tb != 'T' && tb != 'C') return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < max1(na ? m : k)) return 8;
  if (ldb < max1(nb ? k : n)) return 10;
  if (ldc < max1(m)) return 13;
  return 0;
}

template <class I>
int gemv_check(char t, I m, I n, I lda, I incx, I incy) {
  if (t != 'N' && t != 'T' && t != 'C') return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (lda < max1(m)) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  return 0;
}

template <class I>
int symm_check(char side, char uplo, I m, I n, I lda, I ldb, I ldc) {
  if (side != 'L' && side != 'R') return 1;
  if (uplo != 'U' && uplo != 'L') return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (lda < max1(side == 'L' ? m : n)) return 7;
  if (ldb < max1(m)) return 9;
  if (ldc < max1(m)) return 12;
  return 0;
}

// syrk / herk (no B: ldb unused) and syr2k / her2k. The transposes each accepts: real
// syrk/syr2k N, T, C; complex syrk/syr2k N, T; herk/her2k N, C.
template <class I>
int rank_check(Family f, bool complex, char uplo, char t, I n, I k, I lda, I ldb, I ldc) {
  const bool herm = f == Family::herk || f == Family::her2k;
  const bool two = f == Family::syr2k || f == Family::her2k;
  const bool t_ok = t == 'N' || (t == 'T' && !herm) || (t == 'C' && (herm || !complex));
  if (uplo != 'U' && uplo != 'L') return 1;
  if (!t_ok) return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < max1(t == 'N' ? n : k)) return 7;
  if (two && ldb < max1(t == 'N' ? n : k)) return 9;
  if (ldc < max1(n)) return two ? 12 : 10;
  return 0;
}

template <class I>
int tri_check(char side, char uplo, char t, char diag, I m, I n, I lda, I ldb) {
  if (side != 'L' && side != 'R') return 1;
  if (uplo != 'U' && uplo != 'L') return 2;
  if (t != 'N' && t != 'T' && t != 'C') return 3;
  if (diag != 'U' && diag != 'N') return 4;
  if (m < 0) return 5;
  if (n < 0) return 6;
  if (lda < max1(side == 'L' ? m : n)) return 9;
  if (ldb < max1(m)) return 11;
  return 0;
}

template <class... I>
bool fits_int(I... v) {
  return ((int64_t(v) >= INT32_MIN && int64_t(v) <= INT32_MAX) && ...);
}

// The reference routine's name for XERBLA: "DGEMM ", "ZHER2K".
std::string xerbla_name(Family f, Dtype t) {
  std::string s(1, char(std::toupper("sdcz"[int(t)])));
  for (const char* c = family_name(f); *c; ++c) s += char(std::toupper(static_cast<unsigned char>(*c)));
  s.resize(6, ' ');
  return s;
}

// A Fortran-style call after its check: quick returns, then the problem goes to dispatch.
// `k` is 0 for the routines without one.
template <class T>
void submit(BlasProblem& p) {
  p.type = Elem<T>::type;
  const bool one_beta = p.has_beta() && p.beta.one();
  bool quick = p.m == 0 || p.n == 0;
  switch (p.family) {
    case Family::syrk: case Family::herk: case Family::syr2k: case Family::her2k:
      quick = p.n == 0 || ((p.alpha.zero() || p.k == 0) && one_beta);
      break;
    case Family::gemm:
      quick = quick || ((p.alpha.zero() || p.k == 0) && one_beta);
      break;
    case Family::gemv: case Family::symm: case Family::hemm:
      quick = quick || (p.alpha.zero() && one_beta);
      break;
    default: break;
  }
  if (quick) {
    set_last_path(Path::none);
    return;
  }
  run_blas(p);
}

template <class T>
Scalar scalar_of(const void* v) {
  return to_scalar(*static_cast<const T*>(v));
}
template <class T>
Scalar real_scalar_of(const void* v) {  // herk/her2k's real alpha/beta
  return Scalar{double(*static_cast<const typename Elem<T>::Real*>(v)), 0.0};
}

template <class T>
bool fail_f(Family f, int info) {
  if (!info) return false;
  report_xerbla(xerbla_name(f, Elem<T>::type).c_str(), info);
  set_last_path(Path::none);
  return true;
}

// ---- Fortran forms (I = int for LP64 names, int64_t for ILP64) ----
template <class T, class I>
void f_gemm(const char* ta, const char* tb, const I* m, const I* n, const I* k, const void* alpha, const void* a,
            const I* lda, const void* b, const I* ldb, const void* beta, void* c, const I* ldc) {
  const char cta = up(ta), ctb = up(tb);
  if (fail_f<T>(Family::gemm, gemm_check(cta, ctb, *m, *n, *k, *lda, *ldb, *ldc))) return;
  if constexpr (std::is_same_v<T, float>) {  // sgemm_64_ etc.: SGEMM's own path where the sizes allow
    if (fits_int(*m, *n, *k, *lda, *ldb, *ldc)) {
      gemm_call(Routine::sgemm, cta == 'N' ? Op::N : Op::T, ctb == 'N' ? Op::N : Op::T, int(*m), int(*n), int(*k),
                *static_cast<const float*>(alpha), a, int(*lda), b, int(*ldb), *static_cast<const float*>(beta), c,
                int(*ldc));
      return;
    }
  }
  BlasProblem p;
  p.family = Family::gemm;
  p.ta = kComplex<T> || cta == 'N' ? cta : 'T';
  p.tb = kComplex<T> || ctb == 'N' ? ctb : 'T';
  p.m = *m, p.n = *n, p.k = *k;
  p.alpha = scalar_of<T>(alpha), p.beta = scalar_of<T>(beta);
  p.a = a, p.b = b, p.c = c;
  p.lda = *lda, p.ldb = *ldb, p.ldc = *ldc;
  submit<T>(p);
}

template <class T, class I>
void f_gemv(const char* t, const I* m, const I* n, const void* alpha, const void* a, const I* lda, const void* x,
            const I* incx, const void* beta, void* y, const I* incy) {
  const char ct = up(t);
  if (fail_f<T>(Family::gemv, gemv_check(ct, *m, *n, *lda, *incx, *incy))) return;
  if constexpr (std::is_same_v<T, float>) {  // sgemv_64_ etc.: SGEMV's own path where the sizes allow
    if (fits_int(*m, *n, *lda, *incx, *incy)) {
      gemv_call(ct == 'N' ? Op::N : Op::T, int(*m), int(*n), *static_cast<const float*>(alpha),
                static_cast<const float*>(a), int(*lda), static_cast<const float*>(x), int(*incx),
                *static_cast<const float*>(beta), static_cast<float*>(y), int(*incy));
      return;
    }
  }
  BlasProblem p;
  p.family = Family::gemv;
  p.ta = kComplex<T> || ct == 'N' ? ct : 'T';
  p.m = *m, p.n = *n;
  p.alpha = scalar_of<T>(alpha), p.beta = scalar_of<T>(beta);
  p.a = a, p.b = x, p.c = y;
  p.lda = *lda, p.ldb = *incx, p.ldc = *incy;
  submit<T>(p);
}

template <class T, class I>
void f_symm(Family f, const char* side, const char* uplo, const I* m, const I* n, const void* alpha, const void* a,
            const I* lda, const void* b, const I* ldb, const void* beta, void* c, const I* ldc) {
  const char cs = up(side), cu = up(uplo);
  if (fail_f<T>(f, symm_check(cs, cu, *m, *n, *lda, *ldb, *ldc))) return;
  BlasProblem p;
  p.family = f;
  p.side = cs, p.uplo = cu;
  p.m = *m, p.n = *n;
  p.alpha = scalar_of<T>(alpha), p.beta = scalar_of<T>(beta);
  p.a = a, p.b = b, p.c = c;
  p.lda = *lda, p.ldb = *ldb, p.ldc = *ldc;
  submit<T>(p);
}

// syrk, herk (b and ldb null), syr2k, her2k.
template <class T, class I>
void f_rank(Family f, const char* uplo, const char* trans, const I* n, const I* k, const void* alpha, const void* a,
            const I* lda, const void* b, const I* ldb, const void* beta, void* c, const I* ldc) {
  const char cu = up(uplo), ct = up(trans);
  const I no_ldb = 1;
  if (fail_f<T>(f, rank_check(f, kComplex<T>, cu, ct, *n, *k, *lda, ldb ? *ldb : no_ldb, *ldc))) return;
  BlasProblem p;
  p.family = f;
  p.uplo = cu;
  p.ta = kComplex<T> || ct == 'N' ? ct : 'T';  // real 'C' is 'T'
  p.n = *n, p.k = *k;
  p.m = *n;
  const bool herk = f == Family::herk, her2k = f == Family::her2k;
  p.alpha = herk ? real_scalar_of<T>(alpha) : scalar_of<T>(alpha);
  p.beta = herk || her2k ? real_scalar_of<T>(beta) : scalar_of<T>(beta);
  p.a = a, p.b = b, p.c = c;
  p.lda = *lda, p.ldb = ldb ? *ldb : 1, p.ldc = *ldc;
  submit<T>(p);
}

template <class T, class I>
void f_tri(Family f, const char* side, const char* uplo, const char* trans, const char* diag, const I* m, const I* n,
           const void* alpha, const void* a, const I* lda, void* b, const I* ldb) {
  const char cs = up(side), cu = up(uplo), ct = up(trans), cd = up(diag);
  if (fail_f<T>(f, tri_check(cs, cu, ct, cd, *m, *n, *lda, *ldb))) return;
  BlasProblem p;
  p.family = f;
  p.side = cs, p.uplo = cu, p.diag = cd;
  p.ta = kComplex<T> || ct == 'N' ? ct : 'T';
  p.m = *m, p.n = *n;
  p.alpha = scalar_of<T>(alpha);
  p.a = a, p.c = b;
  p.lda = *lda, p.ldc = *ldb;
  submit<T>(p);
}

// ---- CBLAS forms ----
// CBLAS enum -> Fortran character, '\0' for an illegal value.
char trans_of(CBLAS_TRANSPOSE t) {
  return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : t == CblasConjTrans ? 'C' : '\0';
}
char uplo_of(CBLAS_UPLO u) { return u == CblasUpper ? 'U' : u == CblasLower ? 'L' : '\0'; }
char side_of(CBLAS_SIDE s) { return s == CblasLeft ? 'L' : s == CblasRight ? 'R' : '\0'; }
char diag_of(CBLAS_DIAG d) { return d == CblasUnit ? 'U' : d == CblasNonUnit ? 'N' : '\0'; }
char swap_uplo(char u) { return u == 'U' ? 'L' : 'U'; }
char swap_side(char s) { return s == 'L' ? 'R' : 'L'; }

std::string cblas_name(Family f, Dtype t) { return std::string("cblas_") + "sdcz"[int(t)] + family_name(f); }

// An illegal CBLAS enum at user position `pos`; false when `ok`.
bool bad_enum(bool ok, int pos, const std::string& rout, bool row, const char* what, int value) {
  if (ok) return false;
  const std::string form = std::string("Illegal ") + what + " setting, %d\n";
  report_cblas(pos, rout.c_str(), row, form.c_str(), value);
  set_last_path(Path::none);
  return true;
}
// The Fortran check of the column-major call the CBLAS call became (+1: the layout comes first).
bool fail_c(int info, const std::string& rout, bool row) {
  if (!info) return false;
  report_cblas(info + 1, rout.c_str(), row, "", 0);
  set_last_path(Path::none);
  return true;
}
bool bad_layout(CBLAS_LAYOUT layout, const std::string& rout) {
  return bad_enum(layout == CblasColMajor || layout == CblasRowMajor, 1, rout, false, "layout", int(layout));
}

template <class T, class I>
void c_gemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, I m, I n, I k, const void* alpha,
            const void* a, I lda, const void* b, I ldb, const void* beta, void* c, I ldc) {
  const std::string rout = cblas_name(Family::gemm, Elem<T>::type);
  if (bad_layout(layout, rout)) return;
  const bool row = layout == CblasRowMajor;
  char ca = trans_of(ta), cb = trans_of(tb);
  if (bad_enum(ca, 2, rout, row, "TransA", int(ta)) || bad_enum(cb, 3, rout, row, "TransB", int(tb))) return;
  if (row) {  // C^T = op(B)^T op(A)^T
    std::swap(ca, cb);
    std::swap(m, n);
    std::swap(a, b);
    std::swap(lda, ldb);
  }
  if (fail_c(gemm_check(ca, cb, m, n, k, lda, ldb, ldc), rout, row)) return;
  f_gemm<T, I>(&ca, &cb, &m, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc);
}

template <class T, class I>
void c_gemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE t, I m, I n, const void* alpha, const void* a, I lda,
            const void* x, I incx, const void* beta, void* y, I incy) {
  const std::string rout = cblas_name(Family::gemv, Elem<T>::type);
  if (bad_layout(layout, rout)) return;
  const bool row = layout == CblasRowMajor;
  char ct = trans_of(t);
  if (bad_enum(ct, 2, rout, row, "TransA", int(t))) return;
  if (!row) {
    if (fail_c(gemv_check(ct, m, n, lda, incx, incy), rout, row)) return;
    f_gemv<T, I>(&ct, &m, &n, alpha, a, &lda, x, &incx, beta, y, &incy);
    return;
  }
  // Row-major A is column-major A^T (n x m): op(A) = A is 'T' of it, A^T is 'N', and A^H is
  // conj(A^T) with no transpose, which BLAS GEMV cannot express (see BlasProblem's 'R').
  const char cm = ct == 'N' ? 'T' : 'N';
  if (fail_c(gemv_check(cm, n, m, lda, incx, incy), rout, row)) return;
  if (ct != 'C' || !kComplex<T>) {
    f_gemv<T, I>(&cm, &n, &m, alpha, a, &lda, x, &incx, beta, y, &incy);
    return;
  }
  BlasProblem p;  // conj(A^T) x: trans 'R' (conjugate, no transpose), which only the CPU path runs
  p.family = Family::gemv;
  p.ta = 'R';
  p.m = n, p.n = m;
  p.alpha = scalar_of<T>(alpha), p.beta = scalar_of<T>(beta);
  p.a = a, p.b = x, p.c = y;
  p.lda = lda, p.ldb = incx, p.ldc = incy;
  submit<T>(p);
}

template <class T, class I>
void c_symm(Family f, CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, I m, I n, const void* alpha,
            const void* a, I lda, const void* b, I ldb, const void* beta, void* c, I ldc) {
  const std::string rout = cblas_name(f, Elem<T>::type);
  if (bad_layout(layout, rout)) return;
  const bool row = layout == CblasRowMajor;
  char cs = side_of(side), cu = uplo_of(uplo);
  if (bad_enum(cs, 2, rout, row, "Side", int(side)) || bad_enum(cu, 3, rout, row, "Uplo", int(uplo))) return;
  if (row) {
    cs = swap_side(cs);
    cu = swap_uplo(cu);
    std::swap(m, n);
  }
  if (fail_c(symm_check(cs, cu, m, n, lda, ldb, ldc), rout, row)) return;
  f_symm<T, I>(f, &cs, &cu, &m, &n, alpha, a, &lda, b, &ldb, beta, c, &ldc);
}

// syrk / herk (b null) and syr2k / her2k. Row-major: the other triangle and the other transpose
// (herk/her2k: N <-> C, with conj(alpha) for her2k; the others: N <-> T, and real ConjTrans as T).
template <class T, class I>
void c_rank(Family f, CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, I n, I k, const void* alpha,
            const void* a, I lda, const void* b, I ldb, const void* beta, void* c, I ldc) {
  const std::string rout = cblas_name(f, Elem<T>::type);
  if (bad_layout(layout, rout)) return;
  const bool row = layout == CblasRowMajor;
  const bool herm = f == Family::herk || f == Family::her2k;
  char cu = uplo_of(uplo), ct = trans_of(trans);
  if (bad_enum(cu, 2, rout, row, "Uplo", int(uplo))) return;
  if (row) {
    cu = swap_uplo(cu);
    if (herm) ct = ct == 'C' ? 'N' : ct == 'N' ? 'C' : '\0';
    else if (kComplex<T>) ct = ct == 'T' ? 'N' : ct == 'N' ? 'T' : '\0';
    else ct = ct == 'N' ? 'T' : ct ? 'N' : '\0';
  }
  if (bad_enum(ct, 3, rout, row, "Trans", int(trans))) return;
  const bool two = f == Family::syr2k || f == Family::her2k;
  if (fail_c(rank_check(f, kComplex<T>, cu, ct, n, k, lda, two ? ldb : I(1), ldc), rout, row)) return;
  T al_conj;
  if (row && f == Family::her2k) {
    al_conj = conj_if(*static_cast<const T*>(alpha));
    alpha = &al_conj;
  }
  f_rank<T, I>(f, &cu, &ct, &n, &k, alpha, a, &lda, two ? b : nullptr, two ? &ldb : nullptr, beta, c, &ldc);
}

template <class T, class I>
void c_tri(Family f, CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, CBLAS_DIAG diag,
           I m, I n, const void* alpha, const void* a, I lda, void* b, I ldb) {
  const std::string rout = cblas_name(f, Elem<T>::type);
  if (bad_layout(layout, rout)) return;
  const bool row = layout == CblasRowMajor;
  char cs = side_of(side), cu = uplo_of(uplo), ct = trans_of(trans), cd = diag_of(diag);
  if (bad_enum(cs, 2, rout, row, "Side", int(side)) || bad_enum(cu, 3, rout, row, "Uplo", int(uplo)) ||
      bad_enum(ct, 4, rout, row, "Trans", int(trans)) || bad_enum(cd, 5, rout, row, "Diag", int(diag)))
    return;
  if (row) {
    cs = swap_side(cs);
    cu = swap_uplo(cu);
    std::swap(m, n);
  }
  if (fail_c(tri_check(cs, cu, ct, cd, m, n, lda, ldb), rout, row)) return;
  f_tri<T, I>(f, &cs, &cu, &ct, &cd, &m, &n, alpha, a, &lda, b, &ldb);
}

}  // namespace

}  // namespace myblas

using namespace myblas;

namespace {
// CBLAS passes real scalars by value and complex ones by pointer; the templates take pointers.
template <class V>
const void* scalar_ptr(const V& v) { return &v; }
inline const void* scalar_ptr(const void* v) { return v; }
}  // namespace

// ---- the exported symbols ----
// One macro pair per family writes the Fortran form (MB_F_*) and the CBLAS form (MB_C_*) for an
// integer type I; MB_EXPORT instantiates a routine under every name: NAME_ (LP64), NAME_64_ and
// NAME_64 (ILP64), cblas_NAME (LP64), cblas_NAME_64 and cblas_NAME64_ (ILP64). T is the element
// type, E the C type of its arrays in the header (float, double, or void for complex); S (SA, SB)
// how CBLAS passes a scalar (the type itself for real scalars, const void* for complex ones), FA
// and FB the type the Fortran form's alpha and beta point to; F the family where one form serves
// two (symm/hemm, ...).
#define MB_EXPORT(KIND, NAME, ...)                     \
  MB_F_##KIND(NAME##_, int, __VA_ARGS__)               \
  MB_F_##KIND(NAME##_64_, i64, __VA_ARGS__)            \
  MB_F_##KIND(NAME##_64, i64, __VA_ARGS__)             \
  MB_C_##KIND(cblas_##NAME, int, __VA_ARGS__)          \
  MB_C_##KIND(cblas_##NAME##_64, i64, __VA_ARGS__)     \
  MB_C_##KIND(cblas_##NAME##64_, i64, __VA_ARGS__)

// sgemm and sgemv have their LP64 names elsewhere (blas_gemm.cpp, blas_gemv.cpp): ILP64 names only.
#define MB_EXPORT64(KIND, NAME, ...)                   \
  MB_F_##KIND(NAME##_64_, i64, __VA_ARGS__)            \
  MB_F_##KIND(NAME##_64, i64, __VA_ARGS__)             \
  MB_C_##KIND(cblas_##NAME##_64, i64, __VA_ARGS__)     \
  MB_C_##KIND(cblas_##NAME##64_, i64, __VA_ARGS__)

#define MB_F_GEMM(SYM, I, T, E, S)                                                                                   \
  MYBLAS_API void SYM(const char* ta, const char* tb, const I* m, const I* n, const I* k, const E* alpha,      \
                      const E* a, const I* lda, const E* b, const I* ldb, const E* beta, E* c,        \
                      const I* ldc) {                                                                             \
    f_gemm<T, I>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                           \
  }
#define MB_C_GEMM(SYM, I, T, E, S)                                                                                   \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, I m, I n, I k, S alpha,        \
                      const E* a, I lda, const E* b, I ldb, S beta, E* c, I ldc) {                       \
    c_gemm<T, I>(layout, ta, tb, m, n, k, scalar_ptr(alpha), a, lda, b, ldb, scalar_ptr(beta), c, ldc);           \
  }
#define MB_F_GEMV(SYM, I, T, E, S)                                                                                   \
  MYBLAS_API void SYM(const char* t, const I* m, const I* n, const E* alpha, const E* a, const I* lda,      \
                      const E* x, const I* incx, const E* beta, E* y, const I* incy) {                   \
    f_gemv<T, I>(t, m, n, alpha, a, lda, x, incx, beta, y, incy);                                                 \
  }
#define MB_C_GEMV(SYM, I, T, E, S)                                                                                   \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE t, I m, I n, S alpha, const E* a, I lda,            \
                      const E* x, I incx, S beta, E* y, I incy) {                                           \
    c_gemv<T, I>(layout, t, m, n, scalar_ptr(alpha), a, lda, x, incx, scalar_ptr(beta), y, incy);                 \
  }
#define MB_F_SYMM(SYM, I, T, E, S, F)                                                                                \
  MYBLAS_API void SYM(const char* side, const char* uplo, const I* m, const I* n, const E* alpha,              \
                      const E* a, const I* lda, const E* b, const I* ldb, const E* beta, E* c,        \
                      const I* ldc) {                                                                             \
    f_symm<T, I>(Family::F, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);                               \
  }
#define MB_C_SYMM(SYM, I, T, E, S, F)                                                                                \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, I m, I n, S alpha, const E* a,    \
                      I lda, const E* b, I ldb, S beta, E* c, I ldc) {                                      \
    c_symm<T, I>(Family::F, layout, side, uplo, m, n, scalar_ptr(alpha), a, lda, b, ldb, scalar_ptr(beta), c,     \
                 ldc);                                                                                            \
  }
#define MB_F_RK(SYM, I, T, E, FA, FB, SA, SB, F)                                                                             \
  MYBLAS_API void SYM(const char* uplo, const char* t, const I* n, const I* k, const FA* alpha, const E* a,  \
                      const I* lda, const FB* beta, E* c, const I* ldc) {                                    \
    f_rank<T, I>(Family::F, uplo, t, n, k, alpha, a, lda, nullptr, nullptr, beta, c, ldc);                        \
  }
#define MB_C_RK(SYM, I, T, E, FA, FB, SA, SB, F)                                                                             \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE t, I n, I k, SA alpha, const E* a, \
                      I lda, SB beta, E* c, I ldc) {                                                           \
    c_rank<T, I>(Family::F, layout, uplo, t, n, k, scalar_ptr(alpha), a, lda, nullptr, I(1), scalar_ptr(beta), c, \
                 ldc);                                                                                            \
  }
#define MB_F_R2K(SYM, I, T, E, FA, FB, SA, SB, F)                                                                            \
  MYBLAS_API void SYM(const char* uplo, const char* t, const I* n, const I* k, const FA* alpha, const E* a,  \
                      const I* lda, const E* b, const I* ldb, const FB* beta, E* c, const I* ldc) {       \
    f_rank<T, I>(Family::F, uplo, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                  \
  }
#define MB_C_R2K(SYM, I, T, E, FA, FB, SA, SB, F)                                                                            \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE t, I n, I k, SA alpha, const E* a, \
                      I lda, const E* b, I ldb, SB beta, E* c, I ldc) {                                     \
    c_rank<T, I>(Family::F, layout, uplo, t, n, k, scalar_ptr(alpha), a, lda, b, ldb, scalar_ptr(beta), c, ldc);  \
  }
#define MB_F_TRI(SYM, I, T, E, S, F)                                                                                 \
  MYBLAS_API void SYM(const char* side, const char* uplo, const char* t, const char* diag, const I* m,            \
                      const I* n, const E* alpha, const E* a, const I* lda, E* b, const I* ldb) {        \
    f_tri<T, I>(Family::F, side, uplo, t, diag, m, n, alpha, a, lda, b, ldb);                                     \
  }
#define MB_C_TRI(SYM, I, T, E, S, F)                                                                                 \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE t, CBLAS_DIAG diag,  \
                      I m, I n, S alpha, const E* a, I lda, E* b, I ldb) {                                  \
    c_tri<T, I>(Family::F, layout, side, uplo, t, diag, m, n, scalar_ptr(alpha), a, lda, b, ldb);                 \
  }

using i64 = int64_t;
using cpx = const void*;  // how CBLAS passes a complex scalar

MB_EXPORT64(GEMM, sgemm, float, float, float)
MB_EXPORT64(GEMV, sgemv, float, float, float)
MB_EXPORT(GEMM, dgemm, double, double, double)
MB_EXPORT(GEMM, cgemm, std::complex<float>, void, cpx)
MB_EXPORT(GEMM, zgemm, std::complex<double>, void, cpx)
MB_EXPORT(GEMV, dgemv, double, double, double)
MB_EXPORT(GEMV, cgemv, std::complex<float>, void, cpx)
MB_EXPORT(GEMV, zgemv, std::complex<double>, void, cpx)

MB_EXPORT(SYMM, ssymm, float, float, float, symm)
MB_EXPORT(SYMM, dsymm, double, double, double, symm)
MB_EXPORT(SYMM, csymm, std::complex<float>, void, cpx, symm)
MB_EXPORT(SYMM, zsymm, std::complex<double>, void, cpx, symm)
MB_EXPORT(SYMM, chemm, std::complex<float>, void, cpx, hemm)
MB_EXPORT(SYMM, zhemm, std::complex<double>, void, cpx, hemm)

MB_EXPORT(RK, ssyrk, float, float, float, float, float, float, syrk)
MB_EXPORT(RK, dsyrk, double, double, double, double, double, double, syrk)
MB_EXPORT(RK, csyrk, std::complex<float>, void, void, void, cpx, cpx, syrk)
MB_EXPORT(RK, zsyrk, std::complex<double>, void, void, void, cpx, cpx, syrk)
MB_EXPORT(RK, cherk, std::complex<float>, void, float, float, float, float, herk)
MB_EXPORT(RK, zherk, std::complex<double>, void, double, double, double, double, herk)

MB_EXPORT(R2K, ssyr2k, float, float, float, float, float, float, syr2k)
MB_EXPORT(R2K, dsyr2k, double, double, double, double, double, double, syr2k)
MB_EXPORT(R2K, csyr2k, std::complex<float>, void, void, void, cpx, cpx, syr2k)
MB_EXPORT(R2K, zsyr2k, std::complex<double>, void, void, void, cpx, cpx, syr2k)
MB_EXPORT(R2K, cher2k, std::complex<float>, void, void, float, cpx, float, her2k)
MB_EXPORT(R2K, zher2k, std::complex<double>, void, void, double, cpx, double, her2k)

MB_EXPORT(TRI, strmm, float, float, float, trmm)
MB_EXPORT(TRI, dtrmm, double, double, double, trmm)
MB_EXPORT(TRI, ctrmm, std::complex<float>, void, cpx, trmm)
MB_EXPORT(TRI, ztrmm, std::complex<double>, void, cpx, trmm)
MB_EXPORT(TRI, strsm, float, float, float, trsm)
MB_EXPORT(TRI, dtrsm, double, double, double, trsm)
MB_EXPORT(TRI, ctrsm, std::complex<float>, void, cpx, trsm)
MB_EXPORT(TRI, ztrsm, std::complex<double>, void, cpx, trsm)

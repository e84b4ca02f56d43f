// Calls to any routine of the Level-3/GEMV families through any of its exported names, written
// once for every element type: the Fortran form (LP64 or ILP64 integers) and the CBLAS form, as
// function pointers found by name (libmyblas's own, or the reference's). No test framework here:
// the gtest suites (tests/interface/blas_check.h) and the fuzz target share it.
#pragma once
#include <dlfcn.h>

#include <cctype>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "myblas.h"

namespace iface {

// The element type's BLAS letter and real type.
template <class T>
struct Ty {
  using R = T;
  static constexpr bool cx = false;
  static constexpr char letter = sizeof(T) == 4 ? 's' : 'd';
};
template <class Rt>
struct Ty<std::complex<Rt>> {
  using R = Rt;
  static constexpr bool cx = true;
  static constexpr char letter = sizeof(Rt) == 4 ? 'c' : 'z';
};

enum class Fam { gemm, gemv, symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm };
inline const char* fam_name(Fam f) {
  static const char* n[] = {"gemm", "gemv", "symm", "hemm", "syrk", "herk", "syr2k", "her2k", "trmm", "trsm"};
  return n[int(f)];
}
inline bool rank_update(Fam f) { return f == Fam::syrk || f == Fam::herk || f == Fam::syr2k || f == Fam::her2k; }
inline bool hermitian(Fam f) { return f == Fam::hemm || f == Fam::herk || f == Fam::her2k; }
inline bool triangular(Fam f) { return f == Fam::trmm || f == Fam::trsm; }
inline bool has_b(Fam f) {
  return f == Fam::gemm || f == Fam::symm || f == Fam::hemm || f == Fam::syr2k || f == Fam::her2k;
}

// Every name a routine is exported under. Fortran: NAME_ (LP64), NAME_64_ and NAME_64 (ILP64);
// CBLAS: cblas_NAME (LP64) and the ILP64 cblas_NAME_64 and cblas_NAME64_, in either layout.
enum class Entry { f77, f77_64_, f77_64, cblas_col, cblas_row, cblas_row_64, cblas_col64_ };
inline bool is_cblas(Entry e) { return e >= Entry::cblas_col; }
inline bool is_row(Entry e) { return e == Entry::cblas_row || e == Entry::cblas_row_64; }
inline bool is_ilp64(Entry e) { return e == Entry::f77_64_ || e == Entry::f77_64 || e == Entry::cblas_row_64 || e == Entry::cblas_col64_; }
inline std::string entry_symbol(Entry e, const std::string& base) {
  switch (e) {
    case Entry::f77: return base + "_";
    case Entry::f77_64_: return base + "_64_";
    case Entry::f77_64: return base + "_64";
    case Entry::cblas_col: case Entry::cblas_row: return "cblas_" + base;
    case Entry::cblas_row_64: return "cblas_" + base + "_64";
    case Entry::cblas_col64_: return "cblas_" + base + "64_";
  }
  return "?";
}
inline const std::vector<Entry>& all_entries() {
  static const std::vector<Entry> v = {Entry::f77, Entry::cblas_col, Entry::cblas_row, Entry::f77_64_,
                                       Entry::cblas_row_64, Entry::f77_64, Entry::cblas_col64_};
  return v;
}

// libmyblas's own symbol (looked up in libmyblas, so nothing else can answer).
inline void* our_symbol(const std::string& name) {
  static void* lib = dlopen("libmyblas.so.0", RTLD_NOW | RTLD_NOLOAD);
  return lib ? dlsym(lib, name.c_str()) : nullptr;
}

// The arguments of one call, column-major meaning for Fortran, as the user writes them for CBLAS.
template <class T>
struct Args {
  char side, uplo, ta, tb, diag;
  int64_t m, n, k;
  T alpha, beta;
  const T* a;
  int64_t lda;
  const T* b;  // gemv: x
  int64_t ldb; // gemv: incx
  T* c;        // gemv: y; trmm/trsm: B
  int64_t ldc; // gemv: incy
};

template <class T>
using CScalar = std::conditional_t<Ty<T>::cx, const void*, T>;  // how CBLAS passes a scalar
template <class T>
CScalar<T> cs(const T& v) {
  if constexpr (Ty<T>::cx) return &v;
  else return v;
}

// A Fortran-form call through `fn` (ours with I = int or int64_t, or the reference's).
template <class T, class I>
void fortran_call(void* fn, Fam f, const Args<T>& g) {
  using R = typename Ty<T>::R;
  const I m = I(g.m), n = I(g.n), k = I(g.k), lda = I(g.lda), ldb = I(g.ldb), ldc = I(g.ldc);
  const R ra = std::real(g.alpha), rb = std::real(g.beta);
  switch (f) {
    case Fam::gemm:
      reinterpret_cast<void (*)(const char*, const char*, const I*, const I*, const I*, const T*, const T*, const I*,
                                const T*, const I*, const T*, T*, const I*)>(fn)(
          &g.ta, &g.tb, &m, &n, &k, &g.alpha, g.a, &lda, g.b, &ldb, &g.beta, g.c, &ldc);
      break;
    case Fam::gemv:
      reinterpret_cast<void (*)(const char*, const I*, const I*, const T*, const T*, const I*, const T*, const I*,
                                const T*, T*, const I*)>(fn)(&g.ta, &m, &n, &g.alpha, g.a, &lda, g.b, &ldb, &g.beta,
                                                             g.c, &ldc);
      break;
    case Fam::symm: case Fam::hemm:
      reinterpret_cast<void (*)(const char*, const char*, const I*, const I*, const T*, const T*, const I*, const T*,
                                const I*, const T*, T*, const I*)>(fn)(&g.side, &g.uplo, &m, &n, &g.alpha, g.a, &lda,
                                                                       g.b, &ldb, &g.beta, g.c, &ldc);
      break;
    case Fam::syrk:
      reinterpret_cast<void (*)(const char*, const char*, const I*, const I*, const T*, const T*, const I*, const T*,
                                T*, const I*)>(fn)(&g.uplo, &g.ta, &n, &k, &g.alpha, g.a, &lda, &g.beta, g.c, &ldc);
      break;
    case Fam::herk:
      reinterpret_cast<void (*)(const char*, const char*, const I*, const I*, const R*, const T*, const I*, const R*,
                                T*, const I*)>(fn)(&g.uplo, &g.ta, &n, &k, &ra, g.a, &lda, &rb, g.c, &ldc);
      break;
    case Fam::syr2k:
      reinterpret_cast<void (*)(const char*, const char*, const I*, const I*, const T*, const T*, const I*, const T*,
                                const I*, const T*, T*, const I*)>(fn)(&g.uplo, &g.ta, &n, &k, &g.alpha, g.a, &lda,
                                                                       g.b, &ldb, &g.beta, g.c, &ldc);
      break;
    case Fam::her2k:
      reinterpret_cast<void (*)(const char*, const char*, const I*, const I*, const T*, const T*, const I*, const T*,
                                const I*, const R*, T*, const I*)>(fn)(&g.uplo, &g.ta, &n, &k, &g.alpha, g.a, &lda,
                                                                       g.b, &ldb, &rb, g.c, &ldc);
      break;
    case Fam::trmm: case Fam::trsm:
      reinterpret_cast<void (*)(const char*, const char*, const char*, const char*, const I*, const I*, const T*,
                                const T*, const I*, T*, const I*)>(fn)(&g.side, &g.uplo, &g.ta, &g.diag, &m, &n,
                                                                       &g.alpha, g.a, &lda, g.c, &ldc);
      break;
  }
}

// Option character -> CBLAS enum; any other character is passed as its own (illegal) value,
// which the argument-error tests use.
inline CBLAS_TRANSPOSE cb_trans(char c) {
  return c == 'N' ? CblasNoTrans : c == 'T' ? CblasTrans : c == 'C' ? CblasConjTrans : CBLAS_TRANSPOSE(c);
}
inline CBLAS_SIDE cb_side(char c) { return c == 'L' ? CblasLeft : c == 'R' ? CblasRight : CBLAS_SIDE(c); }
inline CBLAS_UPLO cb_uplo(char c) { return c == 'U' ? CblasUpper : c == 'L' ? CblasLower : CBLAS_UPLO(c); }
inline CBLAS_DIAG cb_diag(char c) { return c == 'U' ? CblasUnit : c == 'N' ? CblasNonUnit : CBLAS_DIAG(c); }

// A CBLAS call through `fn` (I = int or int64_t), arguments as the user writes them.
template <class T, class I>
void cblas_call(void* fn, Fam f, CBLAS_LAYOUT layout, const Args<T>& g) {
  using R = typename Ty<T>::R;
  using S = CScalar<T>;
  const I m = I(g.m), n = I(g.n), k = I(g.k), lda = I(g.lda), ldb = I(g.ldb), ldc = I(g.ldc);
  const R ra = std::real(g.alpha), rb = std::real(g.beta);
  const CBLAS_TRANSPOSE ta = cb_trans(g.ta), tb = cb_trans(g.tb);
  switch (f) {
    case Fam::gemm:
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, I, I, I, S, const T*, I, const T*, I,
                                S, T*, I)>(fn)(layout, ta, tb, m, n, k, cs(g.alpha), g.a, lda, g.b, ldb, cs(g.beta),
                                               g.c, ldc);
      break;
    case Fam::gemv:
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_TRANSPOSE, I, I, S, const T*, I, const T*, I, S, T*, I)>(fn)(
          layout, ta, m, n, cs(g.alpha), g.a, lda, g.b, ldb, cs(g.beta), g.c, ldc);
      break;
    case Fam::symm: case Fam::hemm:
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_SIDE, CBLAS_UPLO, I, I, S, const T*, I, const T*, I, S, T*, I)>(
          fn)(layout, cb_side(g.side), cb_uplo(g.uplo), m, n, cs(g.alpha), g.a, lda, g.b, ldb, cs(g.beta), g.c,
              ldc);
      break;
    case Fam::syrk:
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, I, I, S, const T*, I, S, T*, I)>(fn)(
          layout, cb_uplo(g.uplo), ta, n, k, cs(g.alpha), g.a, lda, cs(g.beta), g.c, ldc);
      break;
    case Fam::herk:
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, I, I, R, const T*, I, R, T*, I)>(fn)(
          layout, cb_uplo(g.uplo), ta, n, k, ra, g.a, lda, rb, g.c, ldc);
      break;
    case Fam::syr2k:
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, I, I, S, const T*, I, const T*, I, S, T*,
                                I)>(fn)(layout, cb_uplo(g.uplo), ta, n, k, cs(g.alpha), g.a, lda, g.b, ldb,
                                        cs(g.beta), g.c, ldc);
      break;
    case Fam::her2k:
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, I, I, S, const T*, I, const T*, I, R, T*,
                                I)>(fn)(layout, cb_uplo(g.uplo), ta, n, k, cs(g.alpha), g.a, lda, g.b, ldb, rb, g.c,
                                        ldc);
      break;
    case Fam::trmm: case Fam::trsm:
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_SIDE, CBLAS_UPLO, CBLAS_TRANSPOSE, CBLAS_DIAG, I, I, S, const T*,
                                I, T*, I)>(fn)(layout, cb_side(g.side), cb_uplo(g.uplo), ta, cb_diag(g.diag),
                                               m, n, cs(g.alpha), g.a, lda, g.c, ldc);
      break;
  }
}

template <class T>
std::string routine_base(Fam f) { return std::string(1, Ty<T>::letter) + fam_name(f); }

// A scalar of the element type (the imaginary part dropped for real types).
template <class T>
T scalar_as(std::complex<double> v) {
  if constexpr (Ty<T>::cx) return T(typename Ty<T>::R(v.real()), typename Ty<T>::R(v.imag()));
  else return T(v.real());
}

}  // namespace iface

// The built-in implementation of every routine of BlasProblem, written once for the four element
// types: plain loops with 64-bit indices that follow the reference BLAS's definitions (beta == 0
// never reads C, alpha == 0 never reads A or B, the unit diagonal and the other triangle are
// never read, Hermitian diagonals are taken as real and written with a zero imaginary part).
// It runs when the CPU BLAS lacks a routine and no GPU can take it, and for calls whose sizes
// do not fit the CPU BLAS's 32-bit integers. It is correct, not fast.
#pragma once
#include <cstdint>
#include <vector>

#include "core/elem.h"
#include "core/problem.h"

namespace myblas {

template <class T>
class ReferenceBlas {
 public:
  // Operands in host memory; for gemv, b is x with increment ldb and c is y with increment ldc
  // (the lowest-addressed element, as the BLAS passes them).
  ReferenceBlas(const BlasProblem& p, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc)
      : p_(p), a_(a), b_(b), c_(c), lda_(lda), ldb_(ldb), ldc_(ldc),
        alpha_(from_scalar<T>(p.alpha)), beta_(from_scalar<T>(p.beta)) {}

  void run() {
    switch (p_.family) {
      case Family::gemv: gemv(); break;
      case Family::trmm: trmm(); break;
      case Family::trsm: trsm(); break;
      default: update(); break;
    }
  }

 private:
  using Real = typename Elem<T>::Real;
  const BlasProblem& p_;
  const T* a_;
  const T* b_;
  T* c_;
  int64_t lda_, ldb_, ldc_;
  T alpha_, beta_;

  T A(int64_t i, int64_t j) const { return a_[i + j * lda_]; }
  T B(int64_t i, int64_t j) const { return b_[i + j * ldb_]; }
  T& C(int64_t i, int64_t j) { return c_[i + j * ldc_]; }
  static T op(char t, T x) { return t == 'C' ? conj_if(x) : x; }
  bool hermitian() const { return p_.family == Family::hemm || p_.family == Family::herk || p_.family == Family::her2k; }
  bool in_triangle(int64_t i, int64_t j) const { return p_.uplo == 'U' ? i <= j : i >= j; }

  // op(A)(i, l) of gemm; op(B)(l, j).
  T opa(int64_t i, int64_t l) const { return p_.ta == 'N' ? A(i, l) : op(p_.ta, A(l, i)); }
  T opb(int64_t l, int64_t j) const { return p_.tb == 'N' ? B(l, j) : op(p_.tb, B(j, l)); }
  // Element (i, j) of the symmetric / Hermitian A of symm / hemm, from its stored triangle.
  T sym(int64_t i, int64_t j) const {
    if (i == j && hermitian()) return T(real_part(A(i, i)));
    if (in_triangle(i, j)) return A(i, j);
    return hermitian() ? conj_if(A(j, i)) : A(j, i);
  }
  // Element (i, j) of the triangular A of trmm / trsm, and of op(A).
  T tri(int64_t i, int64_t j) const {
    if (i == j) return p_.diag == 'U' ? T(1) : A(i, i);
    return in_triangle(i, j) ? A(i, j) : T(0);
  }
  T optri(int64_t i, int64_t j) const { return p_.ta == 'N' ? tri(i, j) : op(p_.ta, tri(j, i)); }

  // The sum that C(i, j) receives, times alpha, for gemm .. her2k.
  T term(int64_t i, int64_t j) const {
    T s(0);
    const bool nt = p_.ta == 'N';
    switch (p_.family) {
      case Family::gemm:
        for (int64_t l = 0; l < p_.k; ++l) s += opa(i, l) * opb(l, j);
        return alpha_ * s;
      case Family::symm: case Family::hemm:
        if (p_.side == 'L')
          for (int64_t l = 0; l < p_.m; ++l) s += sym(i, l) * B(l, j);
        else
          for (int64_t l = 0; l < p_.n; ++l) s += B(i, l) * sym(l, j);
        return alpha_ * s;
      case Family::syrk:
        for (int64_t l = 0; l < p_.k; ++l) s += nt ? A(i, l) * A(j, l) : A(l, i) * A(l, j);
        return alpha_ * s;
      case Family::herk:
        for (int64_t l = 0; l < p_.k; ++l) s += nt ? A(i, l) * conj_if(A(j, l)) : conj_if(A(l, i)) * A(l, j);
        return T(real_part(alpha_)) * s;
      case Family::syr2k:
        for (int64_t l = 0; l < p_.k; ++l)
          s += nt ? A(i, l) * B(j, l) + B(i, l) * A(j, l) : A(l, i) * B(l, j) + B(l, i) * A(l, j);
        return alpha_ * s;
      case Family::her2k: {
        T s2(0);
        for (int64_t l = 0; l < p_.k; ++l) {
          s += nt ? A(i, l) * conj_if(B(j, l)) : conj_if(A(l, i)) * B(l, j);
          s2 += nt ? B(i, l) * conj_if(A(j, l)) : conj_if(B(l, i)) * A(l, j);
        }
        return alpha_ * s + conj_if(alpha_) * s2;
      }
      default: return s;
    }
  }

  // gemm, symm, hemm and the rank-k updates: every element of C (or of its triangle).
  void update() {
    const bool tri_c = rank_update(p_.family);
    const bool real_beta = p_.family == Family::herk || p_.family == Family::her2k;
    const T beta = real_beta ? T(real_part(beta_)) : beta_;
    const bool ab = !p_.scale_only();
    for (int64_t j = 0; j < p_.n; ++j)
      for (int64_t i = 0; i < p_.c_rows(); ++i) {
        if (tri_c && !in_triangle(i, j)) continue;
        T old = p_.beta.zero() ? T(0) : (real_beta && i == j ? T(real_part(C(i, i))) : C(i, j));
        T v = beta * old;
        if (p_.beta.zero()) v = T(0);
        if (ab) v += term(i, j);
        if (hermitian() && tri_c && i == j) v = T(real_part(v));
        C(i, j) = v;
      }
  }

  void gemv() {
    const int64_t lx = p_.ta == 'N' ? p_.n : p_.m, ly = p_.ta == 'N' ? p_.m : p_.n;
    const int64_t incx = ldb_, incy = ldc_;
    const int64_t kx = incx > 0 ? 0 : -(lx - 1) * incx, ky = incy > 0 ? 0 : -(ly - 1) * incy;
    for (int64_t i = 0; i < ly; ++i) {
      T& y = c_[ky + i * incy];
      T s(0);
      if (!p_.scale_only())
        for (int64_t l = 0; l < lx; ++l)
          s += (p_.ta == 'N' ? A(i, l) : op(p_.ta, A(l, i))) * b_[kx + l * incx];
      y = (p_.beta.zero() ? T(0) : beta_ * y) + (p_.scale_only() ? T(0) : alpha_ * s);
    }
  }

  void zero_b() {
    for (int64_t j = 0; j < p_.n; ++j)
      for (int64_t i = 0; i < p_.m; ++i) C(i, j) = T(0);
  }

  // B := alpha op(A) B or alpha B op(A) (B is c).
  void trmm() {
    if (p_.alpha.zero()) return zero_b();
    std::vector<T> x(size_t(p_.side == 'L' ? p_.m : p_.n));
    if (p_.side == 'L') {
      for (int64_t j = 0; j < p_.n; ++j) {
        for (int64_t i = 0; i < p_.m; ++i) x[size_t(i)] = C(i, j);
        for (int64_t i = 0; i < p_.m; ++i) {
          T s(0);
          for (int64_t l = 0; l < p_.m; ++l) s += optri(i, l) * x[size_t(l)];
          C(i, j) = alpha_ * s;
        }
      }
    } else {
      for (int64_t i = 0; i < p_.m; ++i) {
        for (int64_t j = 0; j < p_.n; ++j) x[size_t(j)] = C(i, j);
        for (int64_t j = 0; j < p_.n; ++j) {
          T s(0);
          for (int64_t l = 0; l < p_.n; ++l) s += x[size_t(l)] * optri(l, j);
          C(i, j) = alpha_ * s;
        }
      }
    }
  }

  // op(A) X = alpha B or X op(A) = alpha B, X written over B (c).
  void trsm() {
    if (p_.alpha.zero()) return zero_b();
    // op(A) is lower triangular when exactly one of "A is lower" and "A is transposed" holds.
    const bool lower = (p_.uplo == 'L') != (p_.ta != 'N');
    if (p_.side == 'L') {
      for (int64_t j = 0; j < p_.n; ++j) {
        for (int64_t i = 0; i < p_.m; ++i) C(i, j) *= alpha_;
        for (int64_t s = 0; s < p_.m; ++s) {
          const int64_t i = lower ? s : p_.m - 1 - s;
          T v = C(i, j);
          if (lower)
            for (int64_t l = 0; l < i; ++l) v -= optri(i, l) * C(l, j);
          else
            for (int64_t l = i + 1; l < p_.m; ++l) v -= optri(i, l) * C(l, j);
          C(i, j) = p_.diag == 'U' ? v : v / optri(i, i);
        }
      }
    } else {
      // Row i of X: x op(A) = alpha b; column l of op(A) has its entries above (upper) or below
      // (lower) the diagonal.
      for (int64_t i = 0; i < p_.m; ++i) {
        for (int64_t j = 0; j < p_.n; ++j) C(i, j) *= alpha_;
        for (int64_t s = 0; s < p_.n; ++s) {
          const int64_t l = lower ? p_.n - 1 - s : s;
          T v = C(i, l);
          if (lower)
            for (int64_t q = l + 1; q < p_.n; ++q) v -= C(i, q) * optri(q, l);
          else
            for (int64_t q = 0; q < l; ++q) v -= C(i, q) * optri(q, l);
          C(i, l) = p_.diag == 'U' ? v : v / optri(l, l);
        }
      }
    }
  }
};

// Runs p on host operands with the built-in loops (see above).
template <class T>
void reference_blas(const BlasProblem& p, const void* a, int64_t lda, const void* b, int64_t ldb, void* c,
                    int64_t ldc) {
  ReferenceBlas<T>(p, static_cast<const T*>(a), lda, static_cast<const T*>(b), ldb, static_cast<T*>(c), ldc).run();
}

}  // namespace myblas

// SGEMV entry points (Fortran and CBLAS).
#include <algorithm>

#include "dispatch/dispatch.h"
#include "interface/entry.h"

namespace myblas {

int gemv_info(char trans, int m, int n, int lda, int incx, int incy) {
  Op t;
  if (!parse_trans(trans, &t)) return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (lda < std::max(1, m)) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  return 0;
}

void gemv_call(Op ta, int m, int n, float alpha, const float* a, int lda, const float* x,
               int incx, float beta, float* y, int incy) {
  // Reference quick return: y is untouched when m or n is zero, whatever beta is.
  if (m == 0 || n == 0 || (alpha == 0.f && beta == 1.f)) {
    set_last_path(Path::none);
    return;
  }
  GemvProblem p;
  p.ta = ta;
  p.m = m;
  p.n = n;
  p.alpha = alpha;
  p.beta = beta;
  p.a = a;
  p.x = x;
  p.y = y;
  p.lda = lda;
  p.incx = incx;
  p.incy = incy;
  run_gemv(p);
}

}  // namespace myblas

using namespace myblas;

MYBLAS_API void sgemv_(const char* trans, const int* m, const int* n, const float* alpha,
                       const float* a, const int* lda, const float* x, const int* incx,
                       const float* beta, float* y, const int* incy) {
  if (int info = gemv_info(*trans, *m, *n, *lda, *incx, *incy)) {
    report_xerbla("SGEMV ", info);
    set_last_path(Path::none);
    return;
  }
  Op t;
  parse_trans(*trans, &t);
  gemv_call(t, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy);
}

MYBLAS_API void cblas_sgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n,
                            float alpha, const float* a, int lda, const float* x, int incx,
                            float beta, float* y, int incy) {
  const char* rout = "cblas_sgemv";
  const bool row = layout == CblasRowMajor;
  if (layout != CblasColMajor && !row) {
    report_cblas(1, rout, false, "Illegal layout setting, %d\n", int(layout));
    set_last_path(Path::none);
    return;
  }
  char c;
  if (!cblas_trans_char(trans, &c)) {
    report_cblas(2, rout, row, "Illegal TransA setting, %d\n", int(trans));
    set_last_path(Path::none);
    return;
  }
  // Row-major A (m x n) is column-major A^T (n x m).
  if (row) {
    c = (c == 'N') ? 'T' : 'N';
    std::swap(m, n);
  }
  if (int info = gemv_info(c, m, n, lda, incx, incy)) {
    report_cblas(info + 1, rout, row, "", 0);
    set_last_path(Path::none);
    return;
  }
  Op t;
  parse_trans(c, &t);
  gemv_call(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

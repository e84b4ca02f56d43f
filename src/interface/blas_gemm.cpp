// SGEMM entry points (Fortran and CBLAS) and the gemm code shared with HGEMM.
#include <algorithm>

#include "dispatch/dispatch.h"
#include "interface/entry.h"

namespace myblas {

bool cblas_trans_char(CBLAS_TRANSPOSE t, char* c) {
  switch (t) {
    case CblasNoTrans: *c = 'N'; return true;
    case CblasTrans: *c = 'T'; return true;
    case CblasConjTrans: *c = 'C'; return true;
    default: return false;
  }
}

int gemm_info(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc) {
  Op ta, tb;
  const bool oka = parse_trans(transa, &ta), okb = parse_trans(transb, &tb);
  const int nrowa = (oka && ta == Op::N) ? m : k;
  const int nrowb = (okb && tb == Op::N) ? k : n;
  if (!oka) return 1;
  if (!okb) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, nrowa)) return 8;  // also when m == 0: the reference rejects lda = 0
  if (ldb < std::max(1, nrowb)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

void gemm_call(Routine r, Op ta, Op tb, int m, int n, int k, float alpha, const void* a,
               int lda, const void* b, int ldb, float beta, void* c, int ldc) {
  if (m == 0 || n == 0 || ((alpha == 0.f || k == 0) && beta == 1.f)) {
    set_last_path(Path::none);
    return;
  }
  GemmProblem p;
  p.routine = r;
  p.ta = ta;
  p.tb = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = alpha;
  p.beta = beta;
  p.a = a;
  p.b = b;
  p.c = c;
  p.lda = lda;
  p.ldb = ldb;
  p.ldc = ldc;
  run_gemm(p);
}

void cblas_gemm_common(Routine r, const char* rout, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa,
                       CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha, const void* a,
                       int lda, const void* b, int ldb, float beta, void* c, int ldc) {
  const bool row = layout == CblasRowMajor;
  if (layout != CblasColMajor && !row) {
    report_cblas(1, rout, false, "Illegal layout setting, %d\n", int(layout));
    set_last_path(Path::none);
    return;
  }
  char ca, cb;
  if (!cblas_trans_char(transa, &ca)) {
    report_cblas(2, rout, row, "Illegal TransA setting, %d\n", int(transa));
    set_last_path(Path::none);
    return;
  }
  if (!cblas_trans_char(transb, &cb)) {
    report_cblas(3, rout, row, "Illegal TransB setting, %d\n", int(transb));
    set_last_path(Path::none);
    return;
  }
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
  if (row) {
    std::swap(ca, cb);
    std::swap(m, n);
    std::swap(a, b);
    std::swap(lda, ldb);
  }
  if (int info = gemm_info(ca, cb, m, n, k, lda, ldb, ldc)) {
    report_cblas(info + 1, rout, row, "", 0);  // +1: CBLAS has the layout argument first
    set_last_path(Path::none);
    return;
  }
  Op ta, tb;
  parse_trans(ca, &ta);
  parse_trans(cb, &tb);
  gemm_call(r, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace myblas

using namespace myblas;

// The hidden CHARACTER lengths a Fortran caller appends are accepted by the C calling
// convention and never read.
MYBLAS_API void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                       const int* k, const float* alpha, const float* a, const int* lda,
                       const float* b, const int* ldb, const float* beta, float* c,
                       const int* ldc) {
  if (int info = gemm_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc)) {
    report_xerbla("SGEMM ", info);
    set_last_path(Path::none);
    return;
  }
  Op ta, tb;
  parse_trans(*transa, &ta);
  parse_trans(*transb, &tb);
  gemm_call(Routine::sgemm, ta, tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

MYBLAS_API void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                            int m, int n, int k, float alpha, const float* a, int lda,
                            const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_gemm_common(Routine::sgemm, "cblas_sgemm", layout, transa, transb, m, n, k, alpha, a, lda,
                    b, ldb, beta, c, ldc);
}

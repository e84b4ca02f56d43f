// Shared pieces of the BLAS/CBLAS shell: character parsing, reference argument checks,
// error reporting through the overridable handlers, and the hand-off to dispatch.
#pragma once
#include <string>

#include "core/problem.h"
#include "myblas.h"

#define MYBLAS_API extern "C" __attribute__((visibility("default")))

namespace myblas {

// 'N'/'n' -> N, 'T'/'t'/'C'/'c' -> T; false for anything else.
inline bool parse_trans(char c, Op* op) {
  switch (c) {
    case 'N': case 'n': *op = Op::N; return true;
    case 'T': case 't': case 'C': case 'c': *op = Op::T; return true;
    default: return false;
  }
}
// CBLAS enum -> Fortran character; false for an illegal value.
bool cblas_trans_char(CBLAS_TRANSPOSE t, char* c);

// Reference parameter number of the first illegal argument (0 when all are legal),
// checked in the order of reference sgemm.f / sgemv.f.
int gemm_info(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc);
int gemv_info(char trans, int m, int n, int lda, int incx, int incy);

// Calls xerbla_ found through the dynamic symbol table (a program's own wins), passing the
// name's length as the hidden CHARACTER length ("SGEMM ", "SBGEMM ", "GEMM_BF16BF16F32").
void report_xerbla(const char* srname, int info);
// The same for a routine name of any length ("SGEMM_BATCH_STRIDED").
void report_xerbla_name(const std::string& name, int info);
// Calls cblas_xerbla likewise. `info` is what the reference CBLAS passes; `row_major`
// lets our default handler remap it to the user's argument position as the reference does.
void report_cblas(int info, const char* rout, bool row_major, const char* form, int value);

// After validation: quick returns, then dispatch. Scalars already widened to FP32.
void gemm_call(Routine r, Op ta, Op tb, int m, int n, int k, float alpha, const void* a,
               int lda, const void* b, int ldb, float beta, void* c, int ldc);
void gemv_call(Op ta, int m, int n, float alpha, const float* a, int lda, const float* x,
               int incx, float beta, float* y, int incy);

// CBLAS gemm for both element types: layout handling, checks, row-major swap.
void cblas_gemm_common(Routine r, const char* rout, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa,
                       CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha, const void* a,
                       int lda, const void* b, int ldb, float beta, void* c, int ldc);

void set_last_path(Path p);

}  // namespace myblas

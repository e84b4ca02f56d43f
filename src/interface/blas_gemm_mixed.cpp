// GEMM with 16-bit A and B and an FP32 C (alpha, beta and C in FP32, FP32 accumulation), under
// the names and signatures of the two CPU BLAS libraries that export it:
//   OpenBLAS  sbgemm_, cblas_sbgemm (bfloat16 A and B) and shgemm_, cblas_shgemm (binary16).
//             Errors go to xerbla_ ("SBGEMM " / "SHGEMM ") from the CBLAS forms too, numbered as
//             OpenBLAS numbers them: the Fortran positions, for row-major those of the swapped
//             column-major call (1 is then TransB, 3 is N, 8 is ldb), and 0 for an illegal
//             order. CblasConjNoTrans is accepted as no transpose, as OpenBLAS does for real data.
//   MKL       gemm_bf16bf16f32(_), cblas_gemm_bf16bf16f32 and gemm_f16f16f32(_),
//             cblas_gemm_f16f16f32. The CBLAS forms report through cblas_xerbla with the
//             reference CBLAS numbering, as cblas_hgemm does.
// Both follow reference GEMM semantics: beta == 0 never reads C, alpha == 0 or k == 0 never
// reads A or B, m == 0 or n == 0 (or alpha == 0 or k == 0 with beta == 1) return at once.
// 16-bit values travel as uint16_t bit patterns (OpenBLAS's bfloat16, MKL's MKL_BF16 / MKL_F16).
#include <utility>

#include "interface/entry.h"

using namespace myblas;

namespace {

constexpr int kCblasConjNoTrans = 114;  // OpenBLAS's cblas.h; not in the reference CBLAS

void fortran_gemm(Routine r, const char* srname, const char* transa, const char* transb, const int* m,
                  const int* n, const int* k, const float* alpha, const uint16_t* a, const int* lda,
                  const uint16_t* b, const int* ldb, const float* beta, float* c, const int* ldc) {
  if (int info = gemm_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc)) {
    report_xerbla(srname, info);
    set_last_path(Path::none);
    return;
  }
  Op ta, tb;
  parse_trans(*transa, &ta);
  parse_trans(*transb, &tb);
  gemm_call(r, ta, tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

bool openblas_trans(int t, char* c) {
  if (t == kCblasConjNoTrans) {
    *c = 'N';
    return true;
  }
  return cblas_trans_char(CBLAS_TRANSPOSE(t), c);
}

// OpenBLAS's CBLAS shell: a row-major call is the column-major call on the swapped operands,
// checked (and its errors numbered) as that call.
void openblas_cblas_gemm(Routine r, const char* srname, int order, int transa, int transb, int m, int n, int k,
                         float alpha, const uint16_t* a, int lda, const uint16_t* b, int ldb, float beta, float* c,
                         int ldc) {
  const bool row = order == CblasRowMajor;
  if (!row && order != CblasColMajor) {
    report_xerbla(srname, 0);
    set_last_path(Path::none);
    return;
  }
  char ca = 0, cb = 0;  // 0: illegal, which gemm_info reports
  openblas_trans(transa, &ca);
  openblas_trans(transb, &cb);
  if (row) {
    std::swap(ca, cb);
    std::swap(m, n);
    std::swap(a, b);
    std::swap(lda, ldb);
  }
  if (int info = gemm_info(ca, cb, m, n, k, lda, ldb, ldc)) {
    report_xerbla(srname, info);
    set_last_path(Path::none);
    return;
  }
  Op ta, tb;
  parse_trans(ca, &ta);
  parse_trans(cb, &tb);
  gemm_call(r, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

// ---- OpenBLAS ----

MYBLAS_API void sbgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                        const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b, const int* ldb,
                        const float* beta, float* c, const int* ldc) {
  fortran_gemm(Routine::sbgemm, "SBGEMM ", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

MYBLAS_API void cblas_sbgemm(CBLAS_LAYOUT order, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                             int k, float alpha, const uint16_t* a, int lda, const uint16_t* b, int ldb, float beta,
                             float* c, int ldc) {
  openblas_cblas_gemm(Routine::sbgemm, "SBGEMM ", int(order), int(transa), int(transb), m, n, k, alpha, a, lda, b,
                      ldb, beta, c, ldc);
}

MYBLAS_API void shgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                        const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b, const int* ldb,
                        const float* beta, float* c, const int* ldc) {
  fortran_gemm(Routine::shgemm, "SHGEMM ", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

MYBLAS_API void cblas_shgemm(CBLAS_LAYOUT order, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                             int k, float alpha, const uint16_t* a, int lda, const uint16_t* b, int ldb, float beta,
                             float* c, int ldc) {
  openblas_cblas_gemm(Routine::shgemm, "SHGEMM ", int(order), int(transa), int(transb), m, n, k, alpha, a, lda, b,
                      ldb, beta, c, ldc);
}

// ---- Intel MKL ----

MYBLAS_API void gemm_bf16bf16f32_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                                  const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b,
                                  const int* ldb, const float* beta, float* c, const int* ldc) {
  fortran_gemm(Routine::sbgemm, "GEMM_BF16BF16F32", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

MYBLAS_API void gemm_bf16bf16f32(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                                 const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b,
                                 const int* ldb, const float* beta, float* c, const int* ldc) {
  gemm_bf16bf16f32_(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

MYBLAS_API void cblas_gemm_bf16bf16f32(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m,
                                       int n, int k, float alpha, const uint16_t* a, int lda, const uint16_t* b,
                                       int ldb, float beta, float* c, int ldc) {
  cblas_gemm_common(Routine::sbgemm, "cblas_gemm_bf16bf16f32", layout, transa, transb, m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc);
}

MYBLAS_API void gemm_f16f16f32_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                                const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b,
                                const int* ldb, const float* beta, float* c, const int* ldc) {
  fortran_gemm(Routine::shgemm, "GEMM_F16F16F32", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

MYBLAS_API void gemm_f16f16f32(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                               const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b,
                               const int* ldb, const float* beta, float* c, const int* ldc) {
  gemm_f16f16f32_(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

MYBLAS_API void cblas_gemm_f16f16f32(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m,
                                     int n, int k, float alpha, const uint16_t* a, int lda, const uint16_t* b,
                                     int ldb, float beta, float* c, int ldc) {
  cblas_gemm_common(Routine::shgemm, "cblas_gemm_f16f16f32", layout, transa, transb, m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc);
}

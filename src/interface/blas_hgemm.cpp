// HGEMM entry points as Intel MKL defines them: binary16 (uint16_t) operands and scalars,
// FP32 accumulation, one rounding of the result to binary16.
#include "core/half.h"
#include "interface/entry.h"

using namespace myblas;

MYBLAS_API void hgemm_(const char* transa, const char* transb, const int* m, const int* n,
                       const int* k, const uint16_t* alpha, const uint16_t* a, const int* lda,
                       const uint16_t* b, const int* ldb, const uint16_t* beta, uint16_t* c,
                       const int* ldc) {
  if (int info = gemm_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc)) {
    report_xerbla("HGEMM ", info);
    set_last_path(Path::none);
    return;
  }
  Op ta, tb;
  parse_trans(*transa, &ta);
  parse_trans(*transb, &tb);
  gemm_call(Routine::hgemm, ta, tb, *m, *n, *k, half_to_float(*alpha), a, *lda, b, *ldb,
            half_to_float(*beta), c, *ldc);
}

MYBLAS_API void hgemm(const char* transa, const char* transb, const int* m, const int* n,
                      const int* k, const uint16_t* alpha, const uint16_t* a, const int* lda,
                      const uint16_t* b, const int* ldb, const uint16_t* beta, uint16_t* c,
                      const int* ldc) {
  hgemm_(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

MYBLAS_API void cblas_hgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                            int m, int n, int k, uint16_t alpha, const uint16_t* a, int lda,
                            const uint16_t* b, int ldb, uint16_t beta, uint16_t* c, int ldc) {
  cblas_gemm_common(Routine::hgemm, "cblas_hgemm", layout, transa, transb, m, n, k,
                    half_to_float(alpha), a, lda, b, ldb, half_to_float(beta), c, ldc);
}

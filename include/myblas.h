/*
 * myblas.h - public C interface of libmyblas.
 *
 * libmyblas is a drop-in BLAS for Level 3 and GEMV in S, D, C and Z (and HGEMM,
 * batched GEMM/GEMV, 16-bit-input GEMMs) that runs each call on the host CPU
 * BLAS, on cuBLAS or on its own CUDA kernels, chosen per call by shape and by
 * where the operands live (host or device memory).
 *
 * Usable from C89/C99 and C++. Three families of entry points:
 *   - Fortran BLAS:  sgemm_, dgemm_, zherk_, ... (reference netlib signatures;
 *                    ILP64 forms name_64_ and name_64) and hgemm_ (as Intel
 *                    MKL defines it). Every argument by reference.
 *                    Fortran compilers pass hidden CHARACTER lengths after the
 *                    last argument; they are accepted and never read.
 *   - CBLAS:         cblas_sgemm, cblas_zherk, ... (standard enum values; ILP64
 *                    forms cblas_name_64 and cblas_name64_), and cblas_hgemm
 *                    as MKL defines it.
 *   - native:        myblas_* (version, CUDA stream, half conversion, the path
 *                    taken by the last call).
 * GEMM with 16-bit A and B and an FP32 C comes under OpenBLAS's names (sbgemm_,
 * cblas_sbgemm for bfloat16, shgemm_, cblas_shgemm for binary16) and MKL's
 * (gemm_bf16bf16f32_, cblas_gemm_bf16bf16f32, gemm_f16f16f32_,
 * cblas_gemm_f16f16f32).
 *
 * binary16 values travel as uint16_t bit patterns (MKL's MKL_F16); HGEMM
 * accumulates in FP32 and rounds the result to binary16 once. bfloat16 values
 * travel as uint16_t bit patterns too (OpenBLAS's bfloat16, MKL's MKL_BF16).
 */
#ifndef MYBLAS_H
#define MYBLAS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MYBLAS_VERSION_MAJOR 0
#define MYBLAS_VERSION_MINOR 1
#define MYBLAS_VERSION_PATCH 0

/* ---- CBLAS enums ------------------------------------------------------------
 * Values are the standard ones, so programs built against OpenBLAS's or the
 * reference cblas.h run unchanged. If another cblas.h was included first
 * (it defines CBLAS_H), its enums and prototypes for sgemm/sgemv are used. */
#ifndef CBLAS_H
typedef enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE {
  CblasNoTrans = 111,
  CblasTrans = 112,
  CblasConjTrans = 113
} CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 } CBLAS_UPLO;
typedef enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 } CBLAS_DIAG;
typedef enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 } CBLAS_SIDE;
#define CBLAS_ORDER CBLAS_LAYOUT /* older spelling */
#endif

/* ---- Fortran BLAS --------------------------------------------------------- */

/* C := alpha*op(A)*op(B) + beta*C, column-major, reference SGEMM semantics. */
void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
            const int *k, const float *alpha, const float *a, const int *lda,
            const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);

/* y := alpha*op(A)*x + beta*y, column-major, reference SGEMV semantics. */
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha,
            const float *a, const int *lda, const float *x, const int *incx,
            const float *beta, float *y, const int *incy);

/* HGEMM as MKL defines it: binary16 operands and scalars, FP32 accumulation. */
void hgemm_(const char *transa, const char *transb, const int *m, const int *n,
            const int *k, const uint16_t *alpha, const uint16_t *a, const int *lda,
            const uint16_t *b, const int *ldb, const uint16_t *beta, uint16_t *c,
            const int *ldc);
/* MKL also exports the name without the trailing underscore. */
void hgemm(const char *transa, const char *transb, const int *m, const int *n,
           const int *k, const uint16_t *alpha, const uint16_t *a, const int *lda,
           const uint16_t *b, const int *ldb, const uint16_t *beta, uint16_t *c,
           const int *ldc);

/* ILP64 names of SGEMM and SGEMV (64-bit integers), beside those of the routines below. */
void sgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const int64_t *k,
    const float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb,
    const float *beta, float *c, const int64_t *ldc);
void sgemm_64(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const int64_t *k,
    const float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb,
    const float *beta, float *c, const int64_t *ldc);
void sgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha, const float *a,
    const int64_t *lda, const float *x, const int64_t *incx, const float *beta, float *y, const int64_t *incy);
void sgemv_64(const char *trans, const int64_t *m, const int64_t *n, const float *alpha, const float *a,
    const int64_t *lda, const float *x, const int64_t *incx, const float *beta, float *y, const int64_t *incy);
void cblas_sgemm_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int64_t m, int64_t n,
    int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
    int64_t ldc);
void cblas_sgemm64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int64_t m, int64_t n,
    int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
    int64_t ldc);
void cblas_sgemv_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n, float alpha,
    const float *a, int64_t lda, const float *x, int64_t incx, float beta, float *y, int64_t incy);
void cblas_sgemv64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n, float alpha,
    const float *a, int64_t lda, const float *x, int64_t incx, float beta, float *y, int64_t incy);

/* ---- Level 3 and GEMV in four precisions -------------------------------------
 * Reference (netlib) semantics for every routine: DGEMM, CGEMM, ZGEMM, DGEMV, CGEMV, ZGEMV and
 * xSYMM, xSYRK, xSYR2K, xTRMM, xTRSM (x = S, D, C, Z), CHEMM, ZHEMM, CHERK, ZHERK, CHER2K, ZHER2K.
 * Complex arrays and scalars are interleaved (real, imaginary) pairs of float (C) or double (Z),
 * passed as void pointers, as in OpenBLAS's and the reference cblas.h. Each routine has:
 *   Fortran LP64   name_           (e.g. zgemm_)
 *   Fortran ILP64  name_64_, name_64  (64-bit integers; both conventions' binary names)
 *   CBLAS LP64     cblas_name
 *   CBLAS ILP64    cblas_name_64, cblas_name64_
 * so LP64 and ILP64 code can share a process. */
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb, const
    double *beta, double *c, const int *ldc);
void dgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const
    int64_t *k, const double *alpha, const double *a, const int64_t *lda, const double *b, const
    int64_t *ldb, const double *beta, double *c, const int64_t *ldc);
void dgemm_64(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const
    int64_t *k, const double *alpha, const double *a, const int64_t *lda, const double *b, const
    int64_t *ldb, const double *beta, double *c, const int64_t *ldc);
void cgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
    const void *alpha, const void *a, const int *lda, const void *b, const int *ldb, const void
    *beta, void *c, const int *ldc);
void cgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const
    int64_t *k, const void *alpha, const void *a, const int64_t *lda, const void *b, const
    int64_t *ldb, const void *beta, void *c, const int64_t *ldc);
void cgemm_64(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const
    int64_t *k, const void *alpha, const void *a, const int64_t *lda, const void *b, const
    int64_t *ldb, const void *beta, void *c, const int64_t *ldc);
void zgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
    const void *alpha, const void *a, const int *lda, const void *b, const int *ldb, const void
    *beta, void *c, const int *ldc);
void zgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const
    int64_t *k, const void *alpha, const void *a, const int64_t *lda, const void *b, const
    int64_t *ldb, const void *beta, void *c, const int64_t *ldc);
void zgemm_64(const char *transa, const char *transb, const int64_t *m, const int64_t *n, const
    int64_t *k, const void *alpha, const void *a, const int64_t *lda, const void *b, const
    int64_t *ldb, const void *beta, void *c, const int64_t *ldc);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a,
    const int *lda, const double *x, const int *incx, const double *beta, double *y, const int
    *incy);
void dgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const double *alpha, const
    double *a, const int64_t *lda, const double *x, const int64_t *incx, const double *beta,
    double *y, const int64_t *incy);
void dgemv_64(const char *trans, const int64_t *m, const int64_t *n, const double *alpha, const
    double *a, const int64_t *lda, const double *x, const int64_t *incx, const double *beta,
    double *y, const int64_t *incy);
void cgemv_(const char *trans, const int *m, const int *n, const void *alpha, const void *a,
    const int *lda, const void *x, const int *incx, const void *beta, void *y, const int *incy);
void cgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const void *alpha, const
    void *a, const int64_t *lda, const void *x, const int64_t *incx, const void *beta, void *y,
    const int64_t *incy);
void cgemv_64(const char *trans, const int64_t *m, const int64_t *n, const void *alpha, const
    void *a, const int64_t *lda, const void *x, const int64_t *incx, const void *beta, void *y,
    const int64_t *incy);
void zgemv_(const char *trans, const int *m, const int *n, const void *alpha, const void *a,
    const int *lda, const void *x, const int *incx, const void *beta, void *y, const int *incy);
void zgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const void *alpha, const
    void *a, const int64_t *lda, const void *x, const int64_t *incx, const void *beta, void *y,
    const int64_t *incy);
void zgemv_64(const char *trans, const int64_t *m, const int64_t *n, const void *alpha, const
    void *a, const int64_t *lda, const void *x, const int64_t *incx, const void *beta, void *y,
    const int64_t *incy);
void ssymm_(const char *side, const char *uplo, const int *m, const int *n, const float *alpha,
    const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
    const int *ldc);
void ssymm_64_(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const
    float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb, const
    float *beta, float *c, const int64_t *ldc);
void ssymm_64(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const
    float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb, const
    float *beta, float *c, const int64_t *ldc);
void dsymm_(const char *side, const char *uplo, const int *m, const int *n, const double *alpha,
    const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double
    *c, const int *ldc);
void dsymm_64_(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const
    double *alpha, const double *a, const int64_t *lda, const double *b, const int64_t *ldb,
    const double *beta, double *c, const int64_t *ldc);
void dsymm_64(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const
    double *alpha, const double *a, const int64_t *lda, const double *b, const int64_t *ldb,
    const double *beta, double *c, const int64_t *ldc);
void csymm_(const char *side, const char *uplo, const int *m, const int *n, const void *alpha,
    const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,
    const int *ldc);
void csymm_64_(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    void *beta, void *c, const int64_t *ldc);
void csymm_64(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const void
    *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const void
    *beta, void *c, const int64_t *ldc);
void zsymm_(const char *side, const char *uplo, const int *m, const int *n, const void *alpha,
    const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,
    const int *ldc);
void zsymm_64_(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    void *beta, void *c, const int64_t *ldc);
void zsymm_64(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const void
    *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const void
    *beta, void *c, const int64_t *ldc);
void chemm_(const char *side, const char *uplo, const int *m, const int *n, const void *alpha,
    const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,
    const int *ldc);
void chemm_64_(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    void *beta, void *c, const int64_t *ldc);
void chemm_64(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const void
    *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const void
    *beta, void *c, const int64_t *ldc);
void zhemm_(const char *side, const char *uplo, const int *m, const int *n, const void *alpha,
    const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,
    const int *ldc);
void zhemm_64_(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    void *beta, void *c, const int64_t *ldc);
void zhemm_64(const char *side, const char *uplo, const int64_t *m, const int64_t *n, const void
    *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const void
    *beta, void *c, const int64_t *ldc);
void ssyrk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
    const float *a, const int *lda, const float *beta, float *c, const int *ldc);
void ssyrk_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    float *alpha, const float *a, const int64_t *lda, const float *beta, float *c, const int64_t
    *ldc);
void ssyrk_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    float *alpha, const float *a, const int64_t *lda, const float *beta, float *c, const int64_t
    *ldc);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double
    *alpha, const double *a, const int *lda, const double *beta, double *c, const int *ldc);
void dsyrk_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    double *alpha, const double *a, const int64_t *lda, const double *beta, double *c, const
    int64_t *ldc);
void dsyrk_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    double *alpha, const double *a, const int64_t *lda, const double *beta, double *c, const
    int64_t *ldc);
void csyrk_(const char *uplo, const char *trans, const int *n, const int *k, const void *alpha,
    const void *a, const int *lda, const void *beta, void *c, const int *ldc);
void csyrk_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *beta, void *c, const int64_t
    *ldc);
void csyrk_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *beta, void *c, const int64_t
    *ldc);
void zsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const void *alpha,
    const void *a, const int *lda, const void *beta, void *c, const int *ldc);
void zsyrk_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *beta, void *c, const int64_t
    *ldc);
void zsyrk_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *beta, void *c, const int64_t
    *ldc);
void cherk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
    const void *a, const int *lda, const float *beta, void *c, const int *ldc);
void cherk_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    float *alpha, const void *a, const int64_t *lda, const float *beta, void *c, const int64_t
    *ldc);
void cherk_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    float *alpha, const void *a, const int64_t *lda, const float *beta, void *c, const int64_t
    *ldc);
void zherk_(const char *uplo, const char *trans, const int *n, const int *k, const double
    *alpha, const void *a, const int *lda, const double *beta, void *c, const int *ldc);
void zherk_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    double *alpha, const void *a, const int64_t *lda, const double *beta, void *c, const int64_t
    *ldc);
void zherk_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    double *alpha, const void *a, const int64_t *lda, const double *beta, void *c, const int64_t
    *ldc);
void ssyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const float
    *alpha, const float *a, const int *lda, const float *b, const int *ldb, const float *beta,
    float *c, const int *ldc);
void ssyr2k_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb, const
    float *beta, float *c, const int64_t *ldc);
void ssyr2k_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb, const
    float *beta, float *c, const int64_t *ldc);
void dsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const double
    *alpha, const double *a, const int *lda, const double *b, const int *ldb, const double
    *beta, double *c, const int *ldc);
void dsyr2k_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    double *alpha, const double *a, const int64_t *lda, const double *b, const int64_t *ldb,
    const double *beta, double *c, const int64_t *ldc);
void dsyr2k_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    double *alpha, const double *a, const int64_t *lda, const double *b, const int64_t *ldb,
    const double *beta, double *c, const int64_t *ldc);
void csyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const void *alpha,
    const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,
    const int *ldc);
void csyr2k_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    void *beta, void *c, const int64_t *ldc);
void csyr2k_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    void *beta, void *c, const int64_t *ldc);
void zsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const void *alpha,
    const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,
    const int *ldc);
void zsyr2k_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    void *beta, void *c, const int64_t *ldc);
void zsyr2k_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    void *beta, void *c, const int64_t *ldc);
void cher2k_(const char *uplo, const char *trans, const int *n, const int *k, const void *alpha,
    const void *a, const int *lda, const void *b, const int *ldb, const float *beta, void *c,
    const int *ldc);
void cher2k_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    float *beta, void *c, const int64_t *ldc);
void cher2k_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    float *beta, void *c, const int64_t *ldc);
void zher2k_(const char *uplo, const char *trans, const int *n, const int *k, const void *alpha,
    const void *a, const int *lda, const void *b, const int *ldb, const double *beta, void *c,
    const int *ldc);
void zher2k_64_(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    double *beta, void *c, const int64_t *ldc);
void zher2k_64(const char *uplo, const char *trans, const int64_t *n, const int64_t *k, const
    void *alpha, const void *a, const int64_t *lda, const void *b, const int64_t *ldb, const
    double *beta, void *c, const int64_t *ldc);
void strmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int
    *m, const int *n, const float *alpha, const float *a, const int *lda, float *b, const int
    *ldb);
void strmm_64_(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const float *alpha, const float *a, const int64_t *lda, float
    *b, const int64_t *ldb);
void strmm_64(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const float *alpha, const float *a, const int64_t *lda, float
    *b, const int64_t *ldb);
void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int
    *m, const int *n, const double *alpha, const double *a, const int *lda, double *b, const int
    *ldb);
void dtrmm_64_(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const double *alpha, const double *a, const int64_t *lda,
    double *b, const int64_t *ldb);
void dtrmm_64(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const double *alpha, const double *a, const int64_t *lda,
    double *b, const int64_t *ldb);
void ctrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int
    *m, const int *n, const void *alpha, const void *a, const int *lda, void *b, const int
    *ldb);
void ctrmm_64_(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const void *alpha, const void *a, const int64_t *lda, void *b,
    const int64_t *ldb);
void ctrmm_64(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const void *alpha, const void *a, const int64_t *lda, void *b,
    const int64_t *ldb);
void ztrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int
    *m, const int *n, const void *alpha, const void *a, const int *lda, void *b, const int
    *ldb);
void ztrmm_64_(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const void *alpha, const void *a, const int64_t *lda, void *b,
    const int64_t *ldb);
void ztrmm_64(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const void *alpha, const void *a, const int64_t *lda, void *b,
    const int64_t *ldb);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int
    *m, const int *n, const float *alpha, const float *a, const int *lda, float *b, const int
    *ldb);
void strsm_64_(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const float *alpha, const float *a, const int64_t *lda, float
    *b, const int64_t *ldb);
void strsm_64(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const float *alpha, const float *a, const int64_t *lda, float
    *b, const int64_t *ldb);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int
    *m, const int *n, const double *alpha, const double *a, const int *lda, double *b, const int
    *ldb);
void dtrsm_64_(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const double *alpha, const double *a, const int64_t *lda,
    double *b, const int64_t *ldb);
void dtrsm_64(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const double *alpha, const double *a, const int64_t *lda,
    double *b, const int64_t *ldb);
void ctrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int
    *m, const int *n, const void *alpha, const void *a, const int *lda, void *b, const int
    *ldb);
void ctrsm_64_(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const void *alpha, const void *a, const int64_t *lda, void *b,
    const int64_t *ldb);
void ctrsm_64(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const void *alpha, const void *a, const int64_t *lda, void *b,
    const int64_t *ldb);
void ztrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int
    *m, const int *n, const void *alpha, const void *a, const int *lda, void *b, const int
    *ldb);
void ztrsm_64_(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const void *alpha, const void *a, const int64_t *lda, void *b,
    const int64_t *ldb);
void ztrsm_64(const char *side, const char *uplo, const char *transa, const char *diag, const
    int64_t *m, const int64_t *n, const void *alpha, const void *a, const int64_t *lda, void *b,
    const int64_t *ldb);
/* C := alpha*op(A)*op(B) + beta*C with bfloat16 (sbgemm_) or binary16
 * (shgemm_) A and B, FP32 alpha, beta and C, FP32 accumulation: OpenBLAS's
 * signatures. Errors go to xerbla_ as "SBGEMM " / "SHGEMM ". */
void sbgemm_(const char *transa, const char *transb, const int *m, const int *n,
             const int *k, const float *alpha, const uint16_t *a, const int *lda,
             const uint16_t *b, const int *ldb, const float *beta, float *c,
             const int *ldc);
void shgemm_(const char *transa, const char *transb, const int *m, const int *n,
             const int *k, const float *alpha, const uint16_t *a, const int *lda,
             const uint16_t *b, const int *ldb, const float *beta, float *c,
             const int *ldc);

/* The same operation under MKL's names (also exported without the trailing
 * underscore). Errors go to xerbla_ as "GEMM_BF16BF16F32" / "GEMM_F16F16F32". */
void gemm_bf16bf16f32_(const char *transa, const char *transb, const int *m,
                       const int *n, const int *k, const float *alpha,
                       const uint16_t *a, const int *lda, const uint16_t *b,
                       const int *ldb, const float *beta, float *c, const int *ldc);
void gemm_bf16bf16f32(const char *transa, const char *transb, const int *m,
                      const int *n, const int *k, const float *alpha,
                      const uint16_t *a, const int *lda, const uint16_t *b,
                      const int *ldb, const float *beta, float *c, const int *ldc);
void gemm_f16f16f32_(const char *transa, const char *transb, const int *m,
                     const int *n, const int *k, const float *alpha,
                     const uint16_t *a, const int *lda, const uint16_t *b,
                     const int *ldb, const float *beta, float *c, const int *ldc);
void gemm_f16f16f32(const char *transa, const char *transb, const int *m,
                    const int *n, const int *k, const float *alpha,
                    const uint16_t *a, const int *lda, const uint16_t *b,
                    const int *ldb, const float *beta, float *c, const int *ldc);

/* Error handler called for illegal arguments, through the dynamic symbol, so a
 * program's own xerbla_ wins. The default prints the reference message to
 * stderr and returns (see README: "Errors"). */
void xerbla_(const char *srname, const int *info, int srname_len);

/* ---- Batched GEMM and GEMV (Intel MKL's extension; OpenBLAS has cblas_?gemm_batch) ----------
 * ?gemm_batch: group_count groups; group i has group_size[i] products
 *   C := alpha_i op(A) op(B) + beta_i C with its own transposes, sizes, scalars and leading
 *   dimensions, the operands of product j at a_array[j], b_array[j], c_array[j] (j counting
 *   through the groups in order).
 * ?gemm_batch_strided: batch_size products with one set of options, product i's operands at
 *   a + i*stridea, b + i*strideb, c + i*stridec (elements); a stride of 0 for A or B shares one
 *   matrix across the batch.
 * ?gemv_batch, ?gemv_batch_strided: the same for y := alpha op(A) x + beta y (x at x + i*stridex,
 *   y at y + i*stridey).
 * S, D, C, Z (complex scalars and arrays as void pointers), and H for GEMM (binary16 storage and
 * scalars, FP32 accumulation, as hgemm_). Each product follows the reference GEMM/GEMV (beta == 0
 * never reads C, alpha == 0 never reads A or B). Outputs that share an element are an error.
 * Names as for Level 3: name_, name_64_, name_64, cblas_name, cblas_name_64, cblas_name64_. */
void sgemm_batch_(const char *transa_array, const char *transb_array, const int *m_array, const
    int *n_array, const int *k_array, const float *alpha_array, const float **a_array, const int
    *lda_array, const float **b_array, const int *ldb_array, const float *beta_array, float
    **c_array, const int *ldc_array, const int *group_count, const int *group_size);
void sgemm_batch_64_(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const float *alpha_array, const float
    **a_array, const int64_t *lda_array, const float **b_array, const int64_t *ldb_array, const
    float *beta_array, float **c_array, const int64_t *ldc_array, const int64_t *group_count,
    const int64_t *group_size);
void sgemm_batch_64(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const float *alpha_array, const float
    **a_array, const int64_t *lda_array, const float **b_array, const int64_t *ldb_array, const
    float *beta_array, float **c_array, const int64_t *ldc_array, const int64_t *group_count,
    const int64_t *group_size);
void dgemm_batch_(const char *transa_array, const char *transb_array, const int *m_array, const
    int *n_array, const int *k_array, const double *alpha_array, const double **a_array, const
    int *lda_array, const double **b_array, const int *ldb_array, const double *beta_array,
    double **c_array, const int *ldc_array, const int *group_count, const int *group_size);
void dgemm_batch_64_(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const double *alpha_array, const double
    **a_array, const int64_t *lda_array, const double **b_array, const int64_t *ldb_array, const
    double *beta_array, double **c_array, const int64_t *ldc_array, const int64_t *group_count,
    const int64_t *group_size);
void dgemm_batch_64(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const double *alpha_array, const double
    **a_array, const int64_t *lda_array, const double **b_array, const int64_t *ldb_array, const
    double *beta_array, double **c_array, const int64_t *ldc_array, const int64_t *group_count,
    const int64_t *group_size);
void cgemm_batch_(const char *transa_array, const char *transb_array, const int *m_array, const
    int *n_array, const int *k_array, const void *alpha_array, const void **a_array, const int
    *lda_array, const void **b_array, const int *ldb_array, const void *beta_array, void
    **c_array, const int *ldc_array, const int *group_count, const int *group_size);
void cgemm_batch_64_(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const void *alpha_array, const void
    **a_array, const int64_t *lda_array, const void **b_array, const int64_t *ldb_array, const
    void *beta_array, void **c_array, const int64_t *ldc_array, const int64_t *group_count,
    const int64_t *group_size);
void cgemm_batch_64(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const void *alpha_array, const void
    **a_array, const int64_t *lda_array, const void **b_array, const int64_t *ldb_array, const
    void *beta_array, void **c_array, const int64_t *ldc_array, const int64_t *group_count,
    const int64_t *group_size);
void zgemm_batch_(const char *transa_array, const char *transb_array, const int *m_array, const
    int *n_array, const int *k_array, const void *alpha_array, const void **a_array, const int
    *lda_array, const void **b_array, const int *ldb_array, const void *beta_array, void
    **c_array, const int *ldc_array, const int *group_count, const int *group_size);
void zgemm_batch_64_(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const void *alpha_array, const void
    **a_array, const int64_t *lda_array, const void **b_array, const int64_t *ldb_array, const
    void *beta_array, void **c_array, const int64_t *ldc_array, const int64_t *group_count,
    const int64_t *group_size);
void zgemm_batch_64(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const void *alpha_array, const void
    **a_array, const int64_t *lda_array, const void **b_array, const int64_t *ldb_array, const
    void *beta_array, void **c_array, const int64_t *ldc_array, const int64_t *group_count,
    const int64_t *group_size);
void hgemm_batch_(const char *transa_array, const char *transb_array, const int *m_array, const
    int *n_array, const int *k_array, const uint16_t *alpha_array, const uint16_t **a_array,
    const int *lda_array, const uint16_t **b_array, const int *ldb_array, const uint16_t
    *beta_array, uint16_t **c_array, const int *ldc_array, const int *group_count, const int
    *group_size);
void hgemm_batch_64_(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const uint16_t *alpha_array, const uint16_t
    **a_array, const int64_t *lda_array, const uint16_t **b_array, const int64_t *ldb_array,
    const uint16_t *beta_array, uint16_t **c_array, const int64_t *ldc_array, const int64_t
    *group_count, const int64_t *group_size);
void hgemm_batch_64(const char *transa_array, const char *transb_array, const int64_t *m_array,
    const int64_t *n_array, const int64_t *k_array, const uint16_t *alpha_array, const uint16_t
    **a_array, const int64_t *lda_array, const uint16_t **b_array, const int64_t *ldb_array,
    const uint16_t *beta_array, uint16_t **c_array, const int64_t *ldc_array, const int64_t
    *group_count, const int64_t *group_size);
void sgemm_batch_strided_(const char *transa, const char *transb, const int *m, const int *n,
    const int *k, const float *alpha, const float *a, const int *lda, const int *stridea, const
    float *b, const int *ldb, const int *strideb, const float *beta, float *c, const int *ldc,
    const int *stridec, const int *batch_size);
void sgemm_batch_strided_64_(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const float *alpha, const float *a, const int64_t *lda, const
    int64_t *stridea, const float *b, const int64_t *ldb, const int64_t *strideb, const float
    *beta, float *c, const int64_t *ldc, const int64_t *stridec, const int64_t *batch_size);
void sgemm_batch_strided_64(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const float *alpha, const float *a, const int64_t *lda, const
    int64_t *stridea, const float *b, const int64_t *ldb, const int64_t *strideb, const float
    *beta, float *c, const int64_t *ldc, const int64_t *stridec, const int64_t *batch_size);
void dgemm_batch_strided_(const char *transa, const char *transb, const int *m, const int *n,
    const int *k, const double *alpha, const double *a, const int *lda, const int *stridea,
    const double *b, const int *ldb, const int *strideb, const double *beta, double *c, const
    int *ldc, const int *stridec, const int *batch_size);
void dgemm_batch_strided_64_(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const double *alpha, const double *a, const int64_t *lda,
    const int64_t *stridea, const double *b, const int64_t *ldb, const int64_t *strideb, const
    double *beta, double *c, const int64_t *ldc, const int64_t *stridec, const int64_t
    *batch_size);
void dgemm_batch_strided_64(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const double *alpha, const double *a, const int64_t *lda,
    const int64_t *stridea, const double *b, const int64_t *ldb, const int64_t *strideb, const
    double *beta, double *c, const int64_t *ldc, const int64_t *stridec, const int64_t
    *batch_size);
void cgemm_batch_strided_(const char *transa, const char *transb, const int *m, const int *n,
    const int *k, const void *alpha, const void *a, const int *lda, const int *stridea, const
    void *b, const int *ldb, const int *strideb, const void *beta, void *c, const int *ldc,
    const int *stridec, const int *batch_size);
void cgemm_batch_strided_64_(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const void *alpha, const void *a, const int64_t *lda, const
    int64_t *stridea, const void *b, const int64_t *ldb, const int64_t *strideb, const void
    *beta, void *c, const int64_t *ldc, const int64_t *stridec, const int64_t *batch_size);
void cgemm_batch_strided_64(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const void *alpha, const void *a, const int64_t *lda, const
    int64_t *stridea, const void *b, const int64_t *ldb, const int64_t *strideb, const void
    *beta, void *c, const int64_t *ldc, const int64_t *stridec, const int64_t *batch_size);
void zgemm_batch_strided_(const char *transa, const char *transb, const int *m, const int *n,
    const int *k, const void *alpha, const void *a, const int *lda, const int *stridea, const
    void *b, const int *ldb, const int *strideb, const void *beta, void *c, const int *ldc,
    const int *stridec, const int *batch_size);
void zgemm_batch_strided_64_(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const void *alpha, const void *a, const int64_t *lda, const
    int64_t *stridea, const void *b, const int64_t *ldb, const int64_t *strideb, const void
    *beta, void *c, const int64_t *ldc, const int64_t *stridec, const int64_t *batch_size);
void zgemm_batch_strided_64(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const void *alpha, const void *a, const int64_t *lda, const
    int64_t *stridea, const void *b, const int64_t *ldb, const int64_t *strideb, const void
    *beta, void *c, const int64_t *ldc, const int64_t *stridec, const int64_t *batch_size);
void hgemm_batch_strided_(const char *transa, const char *transb, const int *m, const int *n,
    const int *k, const uint16_t *alpha, const uint16_t *a, const int *lda, const int *stridea,
    const uint16_t *b, const int *ldb, const int *strideb, const uint16_t *beta, uint16_t *c,
    const int *ldc, const int *stridec, const int *batch_size);
void hgemm_batch_strided_64_(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const uint16_t *alpha, const uint16_t *a, const int64_t *lda,
    const int64_t *stridea, const uint16_t *b, const int64_t *ldb, const int64_t *strideb, const
    uint16_t *beta, uint16_t *c, const int64_t *ldc, const int64_t *stridec, const int64_t
    *batch_size);
void hgemm_batch_strided_64(const char *transa, const char *transb, const int64_t *m, const
    int64_t *n, const int64_t *k, const uint16_t *alpha, const uint16_t *a, const int64_t *lda,
    const int64_t *stridea, const uint16_t *b, const int64_t *ldb, const int64_t *strideb, const
    uint16_t *beta, uint16_t *c, const int64_t *ldc, const int64_t *stridec, const int64_t
    *batch_size);
void sgemv_batch_(const char *trans_array, const int *m_array, const int *n_array, const float
    *alpha_array, const float **a_array, const int *lda_array, const float **x_array, const int
    *incx_array, const float *beta_array, float **y_array, const int *incy_array, const int
    *group_count, const int *group_size);
void sgemv_batch_64_(const char *trans_array, const int64_t *m_array, const int64_t *n_array,
    const float *alpha_array, const float **a_array, const int64_t *lda_array, const float
    **x_array, const int64_t *incx_array, const float *beta_array, float **y_array, const
    int64_t *incy_array, const int64_t *group_count, const int64_t *group_size);
void sgemv_batch_64(const char *trans_array, const int64_t *m_array, const int64_t *n_array,
    const float *alpha_array, const float **a_array, const int64_t *lda_array, const float
    **x_array, const int64_t *incx_array, const float *beta_array, float **y_array, const
    int64_t *incy_array, const int64_t *group_count, const int64_t *group_size);
void dgemv_batch_(const char *trans_array, const int *m_array, const int *n_array, const double
    *alpha_array, const double **a_array, const int *lda_array, const double **x_array, const
    int *incx_array, const double *beta_array, double **y_array, const int *incy_array, const
    int *group_count, const int *group_size);
void dgemv_batch_64_(const char *trans_array, const int64_t *m_array, const int64_t *n_array,
    const double *alpha_array, const double **a_array, const int64_t *lda_array, const double
    **x_array, const int64_t *incx_array, const double *beta_array, double **y_array, const
    int64_t *incy_array, const int64_t *group_count, const int64_t *group_size);
void dgemv_batch_64(const char *trans_array, const int64_t *m_array, const int64_t *n_array,
    const double *alpha_array, const double **a_array, const int64_t *lda_array, const double
    **x_array, const int64_t *incx_array, const double *beta_array, double **y_array, const
    int64_t *incy_array, const int64_t *group_count, const int64_t *group_size);
void cgemv_batch_(const char *trans_array, const int *m_array, const int *n_array, const void
    *alpha_array, const void **a_array, const int *lda_array, const void **x_array, const int
    *incx_array, const void *beta_array, void **y_array, const int *incy_array, const int
    *group_count, const int *group_size);
void cgemv_batch_64_(const char *trans_array, const int64_t *m_array, const int64_t *n_array,
    const void *alpha_array, const void **a_array, const int64_t *lda_array, const void
    **x_array, const int64_t *incx_array, const void *beta_array, void **y_array, const int64_t
    *incy_array, const int64_t *group_count, const int64_t *group_size);
void cgemv_batch_64(const char *trans_array, const int64_t *m_array, const int64_t *n_array,
    const void *alpha_array, const void **a_array, const int64_t *lda_array, const void
    **x_array, const int64_t *incx_array, const void *beta_array, void **y_array, const int64_t
    *incy_array, const int64_t *group_count, const int64_t *group_size);
void zgemv_batch_(const char *trans_array, const int *m_array, const int *n_array, const void
    *alpha_array, const void **a_array, const int *lda_array, const void **x_array, const int
    *incx_array, const void *beta_array, void **y_array, const int *incy_array, const int
    *group_count, const int *group_size);
void zgemv_batch_64_(const char *trans_array, const int64_t *m_array, const int64_t *n_array,
    const void *alpha_array, const void **a_array, const int64_t *lda_array, const void
    **x_array, const int64_t *incx_array, const void *beta_array, void **y_array, const int64_t
    *incy_array, const int64_t *group_count, const int64_t *group_size);
void zgemv_batch_64(const char *trans_array, const int64_t *m_array, const int64_t *n_array,
    const void *alpha_array, const void **a_array, const int64_t *lda_array, const void
    **x_array, const int64_t *incx_array, const void *beta_array, void **y_array, const int64_t
    *incy_array, const int64_t *group_count, const int64_t *group_size);
void sgemv_batch_strided_(const char *trans, const int *m, const int *n, const float *alpha,
    const float *a, const int *lda, const int *stridea, const float *x, const int *incx, const
    int *stridex, const float *beta, float *y, const int *incy, const int *stridey, const int
    *batch_size);
void sgemv_batch_strided_64_(const char *trans, const int64_t *m, const int64_t *n, const float
    *alpha, const float *a, const int64_t *lda, const int64_t *stridea, const float *x, const
    int64_t *incx, const int64_t *stridex, const float *beta, float *y, const int64_t *incy,
    const int64_t *stridey, const int64_t *batch_size);
void sgemv_batch_strided_64(const char *trans, const int64_t *m, const int64_t *n, const float
    *alpha, const float *a, const int64_t *lda, const int64_t *stridea, const float *x, const
    int64_t *incx, const int64_t *stridex, const float *beta, float *y, const int64_t *incy,
    const int64_t *stridey, const int64_t *batch_size);
void dgemv_batch_strided_(const char *trans, const int *m, const int *n, const double *alpha,
    const double *a, const int *lda, const int *stridea, const double *x, const int *incx, const
    int *stridex, const double *beta, double *y, const int *incy, const int *stridey, const int
    *batch_size);
void dgemv_batch_strided_64_(const char *trans, const int64_t *m, const int64_t *n, const double
    *alpha, const double *a, const int64_t *lda, const int64_t *stridea, const double *x, const
    int64_t *incx, const int64_t *stridex, const double *beta, double *y, const int64_t *incy,
    const int64_t *stridey, const int64_t *batch_size);
void dgemv_batch_strided_64(const char *trans, const int64_t *m, const int64_t *n, const double
    *alpha, const double *a, const int64_t *lda, const int64_t *stridea, const double *x, const
    int64_t *incx, const int64_t *stridex, const double *beta, double *y, const int64_t *incy,
    const int64_t *stridey, const int64_t *batch_size);
void cgemv_batch_strided_(const char *trans, const int *m, const int *n, const void *alpha,
    const void *a, const int *lda, const int *stridea, const void *x, const int *incx, const int
    *stridex, const void *beta, void *y, const int *incy, const int *stridey, const int
    *batch_size);
void cgemv_batch_strided_64_(const char *trans, const int64_t *m, const int64_t *n, const void
    *alpha, const void *a, const int64_t *lda, const int64_t *stridea, const void *x, const
    int64_t *incx, const int64_t *stridex, const void *beta, void *y, const int64_t *incy, const
    int64_t *stridey, const int64_t *batch_size);
void cgemv_batch_strided_64(const char *trans, const int64_t *m, const int64_t *n, const void
    *alpha, const void *a, const int64_t *lda, const int64_t *stridea, const void *x, const
    int64_t *incx, const int64_t *stridex, const void *beta, void *y, const int64_t *incy, const
    int64_t *stridey, const int64_t *batch_size);
void zgemv_batch_strided_(const char *trans, const int *m, const int *n, const void *alpha,
    const void *a, const int *lda, const int *stridea, const void *x, const int *incx, const int
    *stridex, const void *beta, void *y, const int *incy, const int *stridey, const int
    *batch_size);
void zgemv_batch_strided_64_(const char *trans, const int64_t *m, const int64_t *n, const void
    *alpha, const void *a, const int64_t *lda, const int64_t *stridea, const void *x, const
    int64_t *incx, const int64_t *stridex, const void *beta, void *y, const int64_t *incy, const
    int64_t *stridey, const int64_t *batch_size);
void zgemv_batch_strided_64(const char *trans, const int64_t *m, const int64_t *n, const void
    *alpha, const void *a, const int64_t *lda, const int64_t *stridea, const void *x, const
    int64_t *incx, const int64_t *stridex, const void *beta, void *y, const int64_t *incy, const
    int64_t *stridey, const int64_t *batch_size);

/* ---- CBLAS ----------------------------------------------------------------- */
#ifndef CBLAS_H
void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                 int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc);

void cblas_sgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n,
                 float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy);

/* CBLAS error handler (reference signature); overridable like xerbla_. */
void cblas_xerbla(int info, const char *rout, const char *form, ...);

/* CBLAS forms of the routines above (row- and column-major). */
void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int
    n, int k, double alpha, const double *a, int lda, const double *b, int ldb, double beta,
    double *c, int ldc);
void cblas_dgemm_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int64_t
    m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda, const double *b,
    int64_t ldb, double beta, double *c, int64_t ldc);
void cblas_dgemm64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int64_t
    m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda, const double *b,
    int64_t ldb, double beta, double *c, int64_t ldc);
void cblas_cgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int
    n, int k, const void * alpha, const void *a, int lda, const void *b, int ldb, const void *
    beta, void *c, int ldc);
void cblas_cgemm_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int64_t
    m, int64_t n, int64_t k, const void * alpha, const void *a, int64_t lda, const void *b,
    int64_t ldb, const void * beta, void *c, int64_t ldc);
void cblas_cgemm64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int64_t
    m, int64_t n, int64_t k, const void * alpha, const void *a, int64_t lda, const void *b,
    int64_t ldb, const void * beta, void *c, int64_t ldc);
void cblas_zgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int
    n, int k, const void * alpha, const void *a, int lda, const void *b, int ldb, const void *
    beta, void *c, int ldc);
void cblas_zgemm_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int64_t
    m, int64_t n, int64_t k, const void * alpha, const void *a, int64_t lda, const void *b,
    int64_t ldb, const void * beta, void *c, int64_t ldc);
void cblas_zgemm64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int64_t
    m, int64_t n, int64_t k, const void * alpha, const void *a, int64_t lda, const void *b,
    int64_t ldb, const void * beta, void *c, int64_t ldc);
void cblas_dgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, double alpha, const
    double *a, int lda, const double *x, int incx, double beta, double *y, int incy);
void cblas_dgemv_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n, double
    alpha, const double *a, int64_t lda, const double *x, int64_t incx, double beta, double *y,
    int64_t incy);
void cblas_dgemv64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n, double
    alpha, const double *a, int64_t lda, const double *x, int64_t incx, double beta, double *y,
    int64_t incy);
void cblas_cgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, const void * alpha,
    const void *a, int lda, const void *x, int incx, const void * beta, void *y, int incy);
void cblas_cgemv_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n, const void
    * alpha, const void *a, int64_t lda, const void *x, int64_t incx, const void * beta, void
    *y, int64_t incy);
void cblas_cgemv64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n, const void
    * alpha, const void *a, int64_t lda, const void *x, int64_t incx, const void * beta, void
    *y, int64_t incy);
void cblas_zgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, const void * alpha,
    const void *a, int lda, const void *x, int incx, const void * beta, void *y, int incy);
void cblas_zgemv_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n, const void
    * alpha, const void *a, int64_t lda, const void *x, int64_t incx, const void * beta, void
    *y, int64_t incy);
void cblas_zgemv64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n, const void
    * alpha, const void *a, int64_t lda, const void *x, int64_t incx, const void * beta, void
    *y, int64_t incy);
void cblas_ssymm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, float
    alpha, const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_ssymm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
    int64_t ldc);
void cblas_ssymm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
    int64_t ldc);
void cblas_dsymm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, double
    alpha, const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc);
void cblas_dsymm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    double alpha, const double *a, int64_t lda, const double *b, int64_t ldb, double beta,
    double *c, int64_t ldc);
void cblas_dsymm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    double alpha, const double *a, int64_t lda, const double *b, int64_t ldb, double beta,
    double *c, int64_t ldc);
void cblas_csymm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, const void
    * alpha, const void *a, int lda, const void *b, int ldb, const void * beta, void *c, int
    ldc);
void cblas_csymm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *
    beta, void *c, int64_t ldc);
void cblas_csymm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *
    beta, void *c, int64_t ldc);
void cblas_zsymm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, const void
    * alpha, const void *a, int lda, const void *b, int ldb, const void * beta, void *c, int
    ldc);
void cblas_zsymm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *
    beta, void *c, int64_t ldc);
void cblas_zsymm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *
    beta, void *c, int64_t ldc);
void cblas_chemm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, const void
    * alpha, const void *a, int lda, const void *b, int ldb, const void * beta, void *c, int
    ldc);
void cblas_chemm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *
    beta, void *c, int64_t ldc);
void cblas_chemm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *
    beta, void *c, int64_t ldc);
void cblas_zhemm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, const void
    * alpha, const void *a, int lda, const void *b, int ldb, const void * beta, void *c, int
    ldc);
void cblas_zhemm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *
    beta, void *c, int64_t ldc);
void cblas_zhemm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int64_t m, int64_t n,
    const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *
    beta, void *c, int64_t ldc);
void cblas_ssyrk(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    float alpha, const float *a, int lda, float beta, float *c, int ldc);
void cblas_ssyrk_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, float alpha, const float *a, int64_t lda, float beta, float *c, int64_t ldc);
void cblas_ssyrk64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, float alpha, const float *a, int64_t lda, float beta, float *c, int64_t ldc);
void cblas_dsyrk(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    double alpha, const double *a, int lda, double beta, double *c, int ldc);
void cblas_dsyrk_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, double alpha, const double *a, int64_t lda, double beta, double *c, int64_t ldc);
void cblas_dsyrk64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, double alpha, const double *a, int64_t lda, double beta, double *c, int64_t ldc);
void cblas_csyrk(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    const void * alpha, const void *a, int lda, const void * beta, void *c, int ldc);
void cblas_csyrk_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void * beta, void *c,
    int64_t ldc);
void cblas_csyrk64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void * beta, void *c,
    int64_t ldc);
void cblas_zsyrk(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    const void * alpha, const void *a, int lda, const void * beta, void *c, int ldc);
void cblas_zsyrk_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void * beta, void *c,
    int64_t ldc);
void cblas_zsyrk64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void * beta, void *c,
    int64_t ldc);
void cblas_cherk(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    float alpha, const void *a, int lda, float beta, void *c, int ldc);
void cblas_cherk_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, float alpha, const void *a, int64_t lda, float beta, void *c, int64_t ldc);
void cblas_cherk64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, float alpha, const void *a, int64_t lda, float beta, void *c, int64_t ldc);
void cblas_zherk(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    double alpha, const void *a, int lda, double beta, void *c, int ldc);
void cblas_zherk_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, double alpha, const void *a, int64_t lda, double beta, void *c, int64_t ldc);
void cblas_zherk64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, double alpha, const void *a, int64_t lda, double beta, void *c, int64_t ldc);
void cblas_ssyr2k(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    float alpha, const float *a, int lda, const float *b, int ldb, float beta, float *c, int
    ldc);
void cblas_ssyr2k_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float
    beta, float *c, int64_t ldc);
void cblas_ssyr2k64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float
    beta, float *c, int64_t ldc);
void cblas_dsyr2k(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    double alpha, const double *a, int lda, const double *b, int ldb, double beta, double *c,
    int ldc);
void cblas_dsyr2k_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, double alpha, const double *a, int64_t lda, const double *b, int64_t ldb, double
    beta, double *c, int64_t ldc);
void cblas_dsyr2k64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, double alpha, const double *a, int64_t lda, const double *b, int64_t ldb, double
    beta, double *c, int64_t ldc);
void cblas_csyr2k(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    const void * alpha, const void *a, int lda, const void *b, int ldb, const void * beta, void
    *c, int ldc);
void cblas_csyr2k_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const
    void * beta, void *c, int64_t ldc);
void cblas_csyr2k64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const
    void * beta, void *c, int64_t ldc);
void cblas_zsyr2k(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    const void * alpha, const void *a, int lda, const void *b, int ldb, const void * beta, void
    *c, int ldc);
void cblas_zsyr2k_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const
    void * beta, void *c, int64_t ldc);
void cblas_zsyr2k64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const
    void * beta, void *c, int64_t ldc);
void cblas_cher2k(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    const void * alpha, const void *a, int lda, const void *b, int ldb, float beta, void *c, int
    ldc);
void cblas_cher2k_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, float
    beta, void *c, int64_t ldc);
void cblas_cher2k64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb, float
    beta, void *c, int64_t ldc);
void cblas_zher2k(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
    const void * alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c,
    int ldc);
void cblas_zher2k_64(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
    double beta, void *c, int64_t ldc);
void cblas_zher2k64_(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int64_t n,
    int64_t k, const void * alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
    double beta, void *c, int64_t ldc);
void cblas_strmm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
    CBLAS_DIAG diag, int m, int n, float alpha, const float *a, int lda, float *b, int ldb);
void cblas_strmm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, float alpha, const float *a, int64_t lda,
    float *b, int64_t ldb);
void cblas_strmm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, float alpha, const float *a, int64_t lda,
    float *b, int64_t ldb);
void cblas_dtrmm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
    CBLAS_DIAG diag, int m, int n, double alpha, const double *a, int lda, double *b, int ldb);
void cblas_dtrmm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
    double *b, int64_t ldb);
void cblas_dtrmm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
    double *b, int64_t ldb);
void cblas_ctrmm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
    CBLAS_DIAG diag, int m, int n, const void * alpha, const void *a, int lda, void *b, int
    ldb);
void cblas_ctrmm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, const void * alpha, const void *a, int64_t
    lda, void *b, int64_t ldb);
void cblas_ctrmm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, const void * alpha, const void *a, int64_t
    lda, void *b, int64_t ldb);
void cblas_ztrmm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
    CBLAS_DIAG diag, int m, int n, const void * alpha, const void *a, int lda, void *b, int
    ldb);
void cblas_ztrmm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, const void * alpha, const void *a, int64_t
    lda, void *b, int64_t ldb);
void cblas_ztrmm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, const void * alpha, const void *a, int64_t
    lda, void *b, int64_t ldb);
void cblas_strsm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
    CBLAS_DIAG diag, int m, int n, float alpha, const float *a, int lda, float *b, int ldb);
void cblas_strsm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, float alpha, const float *a, int64_t lda,
    float *b, int64_t ldb);
void cblas_strsm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, float alpha, const float *a, int64_t lda,
    float *b, int64_t ldb);
void cblas_dtrsm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
    CBLAS_DIAG diag, int m, int n, double alpha, const double *a, int lda, double *b, int ldb);
void cblas_dtrsm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
    double *b, int64_t ldb);
void cblas_dtrsm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
    double *b, int64_t ldb);
void cblas_ctrsm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
    CBLAS_DIAG diag, int m, int n, const void * alpha, const void *a, int lda, void *b, int
    ldb);
void cblas_ctrsm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, const void * alpha, const void *a, int64_t
    lda, void *b, int64_t ldb);
void cblas_ctrsm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, const void * alpha, const void *a, int64_t
    lda, void *b, int64_t ldb);
void cblas_ztrsm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
    CBLAS_DIAG diag, int m, int n, const void * alpha, const void *a, int lda, void *b, int
    ldb);
void cblas_ztrsm_64(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, const void * alpha, const void *a, int64_t
    lda, void *b, int64_t ldb);
void cblas_ztrsm64_(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE
    transa, CBLAS_DIAG diag, int64_t m, int64_t n, const void * alpha, const void *a, int64_t
    lda, void *b, int64_t ldb);
/* OpenBLAS's CBLAS forms of sbgemm_ and shgemm_ (declared by OpenBLAS's cblas.h
 * when that came first). As in OpenBLAS, errors go to xerbla_, numbered as the
 * Fortran call that a row-major call becomes (operands swapped), and
 * CblasConjNoTrans (114) means no transpose. */
void cblas_sbgemm(CBLAS_LAYOUT order, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                  int m, int n, int k, float alpha, const uint16_t *a, int lda,
                  const uint16_t *b, int ldb, float beta, float *c, int ldc);
void cblas_shgemm(CBLAS_LAYOUT order, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                  int m, int n, int k, float alpha, const uint16_t *a, int lda,
                  const uint16_t *b, int ldb, float beta, float *c, int ldc);
#endif

void cblas_hgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                 int m, int n, int k, uint16_t alpha, const uint16_t *a, int lda,
                 const uint16_t *b, int ldb, uint16_t beta, uint16_t *c, int ldc);

/* Batched GEMM and GEMV (see the Fortran forms above). */
#ifndef CBLAS_H
void cblas_sgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int *m_array, const int *n_array, const int *k_array,
    const float *alpha_array, const float **a_array, const int *lda_array, const float
    **b_array, const int *ldb_array, const float *beta_array, float **c_array, const int
    *ldc_array, int group_count, const int *group_size);
void cblas_sgemm_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const float *alpha_array, const float **a_array, const int64_t *lda_array, const
    float **b_array, const int64_t *ldb_array, const float *beta_array, float **c_array, const
    int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_sgemm_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const float *alpha_array, const float **a_array, const int64_t *lda_array, const
    float **b_array, const int64_t *ldb_array, const float *beta_array, float **c_array, const
    int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_dgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int *m_array, const int *n_array, const int *k_array,
    const double *alpha_array, const double **a_array, const int *lda_array, const double
    **b_array, const int *ldb_array, const double *beta_array, double **c_array, const int
    *ldc_array, int group_count, const int *group_size);
void cblas_dgemm_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const double *alpha_array, const double **a_array, const int64_t *lda_array, const
    double **b_array, const int64_t *ldb_array, const double *beta_array, double **c_array,
    const int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_dgemm_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const double *alpha_array, const double **a_array, const int64_t *lda_array, const
    double **b_array, const int64_t *ldb_array, const double *beta_array, double **c_array,
    const int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_cgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int *m_array, const int *n_array, const int *k_array,
    const void *alpha_array, const void **a_array, const int *lda_array, const void **b_array,
    const int *ldb_array, const void *beta_array, void **c_array, const int *ldc_array, int
    group_count, const int *group_size);
void cblas_cgemm_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const void *alpha_array, const void **a_array, const int64_t *lda_array, const
    void **b_array, const int64_t *ldb_array, const void *beta_array, void **c_array, const
    int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_cgemm_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const void *alpha_array, const void **a_array, const int64_t *lda_array, const
    void **b_array, const int64_t *ldb_array, const void *beta_array, void **c_array, const
    int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_zgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int *m_array, const int *n_array, const int *k_array,
    const void *alpha_array, const void **a_array, const int *lda_array, const void **b_array,
    const int *ldb_array, const void *beta_array, void **c_array, const int *ldc_array, int
    group_count, const int *group_size);
void cblas_zgemm_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const void *alpha_array, const void **a_array, const int64_t *lda_array, const
    void **b_array, const int64_t *ldb_array, const void *beta_array, void **c_array, const
    int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_zgemm_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const void *alpha_array, const void **a_array, const int64_t *lda_array, const
    void **b_array, const int64_t *ldb_array, const void *beta_array, void **c_array, const
    int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_hgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int *m_array, const int *n_array, const int *k_array,
    const uint16_t *alpha_array, const uint16_t **a_array, const int *lda_array, const uint16_t
    **b_array, const int *ldb_array, const uint16_t *beta_array, uint16_t **c_array, const int
    *ldc_array, int group_count, const int *group_size);
void cblas_hgemm_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const uint16_t *alpha_array, const uint16_t **a_array, const int64_t *lda_array,
    const uint16_t **b_array, const int64_t *ldb_array, const uint16_t *beta_array, uint16_t
    **c_array, const int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_hgemm_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *transa_array, const
    CBLAS_TRANSPOSE *transb_array, const int64_t *m_array, const int64_t *n_array, const int64_t
    *k_array, const uint16_t *alpha_array, const uint16_t **a_array, const int64_t *lda_array,
    const uint16_t **b_array, const int64_t *ldb_array, const uint16_t *beta_array, uint16_t
    **c_array, const int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_sgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int m, int n, int k, float alpha, const float *a, int lda, int stridea, const float
    *b, int ldb, int strideb, float beta, float *c, int ldc, int stridec, int batch_size);
void cblas_sgemm_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda, int64_t
    stridea, const float *b, int64_t ldb, int64_t strideb, float beta, float *c, int64_t ldc,
    int64_t stridec, int64_t batch_size);
void cblas_sgemm_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda, int64_t
    stridea, const float *b, int64_t ldb, int64_t strideb, float beta, float *c, int64_t ldc,
    int64_t stridec, int64_t batch_size);
void cblas_dgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int m, int n, int k, double alpha, const double *a, int lda, int stridea, const
    double *b, int ldb, int strideb, double beta, double *c, int ldc, int stridec, int
    batch_size);
void cblas_dgemm_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda, int64_t
    stridea, const double *b, int64_t ldb, int64_t strideb, double beta, double *c, int64_t ldc,
    int64_t stridec, int64_t batch_size);
void cblas_dgemm_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda, int64_t
    stridea, const double *b, int64_t ldb, int64_t strideb, double beta, double *c, int64_t ldc,
    int64_t stridec, int64_t batch_size);
void cblas_cgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int m, int n, int k, const void * alpha, const void *a, int lda, int stridea, const
    void *b, int ldb, int strideb, const void * beta, void *c, int ldc, int stridec, int
    batch_size);
void cblas_cgemm_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, const void * alpha, const void *a, int64_t lda,
    int64_t stridea, const void *b, int64_t ldb, int64_t strideb, const void * beta, void *c,
    int64_t ldc, int64_t stridec, int64_t batch_size);
void cblas_cgemm_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, const void * alpha, const void *a, int64_t lda,
    int64_t stridea, const void *b, int64_t ldb, int64_t strideb, const void * beta, void *c,
    int64_t ldc, int64_t stridec, int64_t batch_size);
void cblas_zgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int m, int n, int k, const void * alpha, const void *a, int lda, int stridea, const
    void *b, int ldb, int strideb, const void * beta, void *c, int ldc, int stridec, int
    batch_size);
void cblas_zgemm_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, const void * alpha, const void *a, int64_t lda,
    int64_t stridea, const void *b, int64_t ldb, int64_t strideb, const void * beta, void *c,
    int64_t ldc, int64_t stridec, int64_t batch_size);
void cblas_zgemm_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, const void * alpha, const void *a, int64_t lda,
    int64_t stridea, const void *b, int64_t ldb, int64_t strideb, const void * beta, void *c,
    int64_t ldc, int64_t stridec, int64_t batch_size);
void cblas_hgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int m, int n, int k, uint16_t alpha, const uint16_t *a, int lda, int stridea, const
    uint16_t *b, int ldb, int strideb, uint16_t beta, uint16_t *c, int ldc, int stridec, int
    batch_size);
void cblas_hgemm_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, uint16_t alpha, const uint16_t *a, int64_t lda,
    int64_t stridea, const uint16_t *b, int64_t ldb, int64_t strideb, uint16_t beta, uint16_t
    *c, int64_t ldc, int64_t stridec, int64_t batch_size);
void cblas_hgemm_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE
    transb, int64_t m, int64_t n, int64_t k, uint16_t alpha, const uint16_t *a, int64_t lda,
    int64_t stridea, const uint16_t *b, int64_t ldb, int64_t strideb, uint16_t beta, uint16_t
    *c, int64_t ldc, int64_t stridec, int64_t batch_size);
void cblas_sgemv_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int
    *m_array, const int *n_array, const float *alpha_array, const float **a_array, const int
    *lda_array, const float **x_array, const int *incx_array, const float *beta_array, float
    **y_array, const int *incy_array, int group_count, const int *group_size);
void cblas_sgemv_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int64_t
    *m_array, const int64_t *n_array, const float *alpha_array, const float **a_array, const
    int64_t *lda_array, const float **x_array, const int64_t *incx_array, const float
    *beta_array, float **y_array, const int64_t *incy_array, int64_t group_count, const int64_t
    *group_size);
void cblas_sgemv_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int64_t
    *m_array, const int64_t *n_array, const float *alpha_array, const float **a_array, const
    int64_t *lda_array, const float **x_array, const int64_t *incx_array, const float
    *beta_array, float **y_array, const int64_t *incy_array, int64_t group_count, const int64_t
    *group_size);
void cblas_dgemv_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int
    *m_array, const int *n_array, const double *alpha_array, const double **a_array, const int
    *lda_array, const double **x_array, const int *incx_array, const double *beta_array, double
    **y_array, const int *incy_array, int group_count, const int *group_size);
void cblas_dgemv_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int64_t
    *m_array, const int64_t *n_array, const double *alpha_array, const double **a_array, const
    int64_t *lda_array, const double **x_array, const int64_t *incx_array, const double
    *beta_array, double **y_array, const int64_t *incy_array, int64_t group_count, const int64_t
    *group_size);
void cblas_dgemv_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int64_t
    *m_array, const int64_t *n_array, const double *alpha_array, const double **a_array, const
    int64_t *lda_array, const double **x_array, const int64_t *incx_array, const double
    *beta_array, double **y_array, const int64_t *incy_array, int64_t group_count, const int64_t
    *group_size);
void cblas_cgemv_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int
    *m_array, const int *n_array, const void *alpha_array, const void **a_array, const int
    *lda_array, const void **x_array, const int *incx_array, const void *beta_array, void
    **y_array, const int *incy_array, int group_count, const int *group_size);
void cblas_cgemv_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int64_t
    *m_array, const int64_t *n_array, const void *alpha_array, const void **a_array, const
    int64_t *lda_array, const void **x_array, const int64_t *incx_array, const void *beta_array,
    void **y_array, const int64_t *incy_array, int64_t group_count, const int64_t *group_size);
void cblas_cgemv_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int64_t
    *m_array, const int64_t *n_array, const void *alpha_array, const void **a_array, const
    int64_t *lda_array, const void **x_array, const int64_t *incx_array, const void *beta_array,
    void **y_array, const int64_t *incy_array, int64_t group_count, const int64_t *group_size);
void cblas_zgemv_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int
    *m_array, const int *n_array, const void *alpha_array, const void **a_array, const int
    *lda_array, const void **x_array, const int *incx_array, const void *beta_array, void
    **y_array, const int *incy_array, int group_count, const int *group_size);
void cblas_zgemv_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int64_t
    *m_array, const int64_t *n_array, const void *alpha_array, const void **a_array, const
    int64_t *lda_array, const void **x_array, const int64_t *incx_array, const void *beta_array,
    void **y_array, const int64_t *incy_array, int64_t group_count, const int64_t *group_size);
void cblas_zgemv_batch64_(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE *trans_array, const int64_t
    *m_array, const int64_t *n_array, const void *alpha_array, const void **a_array, const
    int64_t *lda_array, const void **x_array, const int64_t *incx_array, const void *beta_array,
    void **y_array, const int64_t *incy_array, int64_t group_count, const int64_t *group_size);
void cblas_sgemv_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float
    alpha, const float *a, int lda, int stridea, const float *x, int incx, int stridex, float
    beta, float *y, int incy, int stridey, int batch_size);
void cblas_sgemv_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t
    n, float alpha, const float *a, int64_t lda, int64_t stridea, const float *x, int64_t incx,
    int64_t stridex, float beta, float *y, int64_t incy, int64_t stridey, int64_t batch_size);
void cblas_sgemv_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t
    n, float alpha, const float *a, int64_t lda, int64_t stridea, const float *x, int64_t incx,
    int64_t stridex, float beta, float *y, int64_t incy, int64_t stridey, int64_t batch_size);
void cblas_dgemv_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, double
    alpha, const double *a, int lda, int stridea, const double *x, int incx, int stridex, double
    beta, double *y, int incy, int stridey, int batch_size);
void cblas_dgemv_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t
    n, double alpha, const double *a, int64_t lda, int64_t stridea, const double *x, int64_t
    incx, int64_t stridex, double beta, double *y, int64_t incy, int64_t stridey, int64_t
    batch_size);
void cblas_dgemv_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t
    n, double alpha, const double *a, int64_t lda, int64_t stridea, const double *x, int64_t
    incx, int64_t stridex, double beta, double *y, int64_t incy, int64_t stridey, int64_t
    batch_size);
void cblas_cgemv_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, const
    void * alpha, const void *a, int lda, int stridea, const void *x, int incx, int stridex,
    const void * beta, void *y, int incy, int stridey, int batch_size);
void cblas_cgemv_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t
    n, const void * alpha, const void *a, int64_t lda, int64_t stridea, const void *x, int64_t
    incx, int64_t stridex, const void * beta, void *y, int64_t incy, int64_t stridey, int64_t
    batch_size);
void cblas_cgemv_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t
    n, const void * alpha, const void *a, int64_t lda, int64_t stridea, const void *x, int64_t
    incx, int64_t stridex, const void * beta, void *y, int64_t incy, int64_t stridey, int64_t
    batch_size);
void cblas_zgemv_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, const
    void * alpha, const void *a, int lda, int stridea, const void *x, int incx, int stridex,
    const void * beta, void *y, int incy, int stridey, int batch_size);
void cblas_zgemv_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t
    n, const void * alpha, const void *a, int64_t lda, int64_t stridea, const void *x, int64_t
    incx, int64_t stridex, const void * beta, void *y, int64_t incy, int64_t stridey, int64_t
    batch_size);
void cblas_zgemv_batch_strided64_(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t
    n, const void * alpha, const void *a, int64_t lda, int64_t stridea, const void *x, int64_t
    incx, int64_t stridex, const void * beta, void *y, int64_t incy, int64_t stridey, int64_t
    batch_size);
#endif
/* MKL's CBLAS forms of gemm_bf16bf16f32 and gemm_f16f16f32: reference CBLAS
 * argument checks, errors through cblas_xerbla. */
void cblas_gemm_bf16bf16f32(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa,
                            CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha,
                            const uint16_t *a, int lda, const uint16_t *b, int ldb,
                            float beta, float *c, int ldc);
void cblas_gemm_f16f16f32(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa,
                          CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha,
                          const uint16_t *a, int lda, const uint16_t *b, int ldb,
                          float beta, float *c, int ldc);

/* ---- native API ------------------------------------------------------------ */

/* "MAJOR.MINOR.PATCH" of the library actually loaded. */
const char *myblas_version(void);

/* Round-to-nearest-even conversion between FP32 and binary16 bit patterns;
 * NaN stays NaN, overflow gives +-Inf, subnormals are exact. */
uint16_t myblas_float_to_half(float f);
float myblas_half_to_float(uint16_t h);

/* CUDA stream (a cudaStream_t) used by later calls *from the calling thread*.
 * NULL (the default) means the legacy default stream and every call returns
 * with its result complete. With a stream set, calls whose operands all live
 * in device memory are enqueued on it and return without waiting, as cuBLAS
 * does; calls that touch host memory still complete before returning.
 * Returns 0 on success. */
int myblas_set_stream(void *cuda_stream);
void *myblas_get_stream(void);

/* How SGEMM computes on the GPU, for the whole process (the environment variable
 * MYBLAS_SGEMM_PRECISION sets the initial value: fp32, tf32x3, tf32x3-all):
 *   MYBLAS_SGEMM_FP32       FP32 arithmetic on the FP32 cores (the default; results as
 *                           without this call).
 *   MYBLAS_SGEMM_TF32X3     on the tensor cores by the 3xTF32 split: each operand is split
 *                           into two TF32 parts and three TF32 products are summed, their
 *                           partial sums moved out of the tensor cores every 64 terms, for
 *                           calls with device operands and shapes where it measured faster
 *                           (m, n >= 1024 with k >= 1024, or k >= 256 and m*n*k >= 3.2e9:
 *                           1.8-1.9x FP32 SGEMM at 4096^3 and 8192^3, 1.5x at 2048^3 and 1.1x
 *                           at 1024^3 on the H200); other calls as FP32. Measured error:
 *                           median and largest within 2x FP32 SGEMM's from k = 64 up (mostly
 *                           below it), up to 5x at k = 16 (docs/sgemm-precision.md).
 *                           Calls whose operands hold Inf, NaN or magnitudes the split cannot
 *                           represent exactly, or that run where the kernel cannot (no sm_90a),
 *                           get the FP32 path's result bitwise.
 *   MYBLAS_SGEMM_TF32X3_ALL as MYBLAS_SGEMM_TF32X3 for every SGEMM call that runs on the GPU,
 *                           whatever its shape, host arrays included (for tests).
 * Returns 0, or -1 (setting unchanged) for an unknown mode. */
#define MYBLAS_SGEMM_FP32 0
#define MYBLAS_SGEMM_TF32X3 1
#define MYBLAS_SGEMM_TF32X3_ALL 2
int myblas_set_sgemm_precision(int mode);
int myblas_get_sgemm_precision(void);

/* Which paths calls may take, for the whole process from the next call on, in place of
 * MYBLAS_BACKEND's setting: "auto" (the measured choice per call), "cpu", "cublas" or
 * "kernels", as that variable's values (any case); NULL returns to MYBLAS_BACKEND's setting.
 * Returns 0, or -1 (setting unchanged) for an unknown name. */
int myblas_set_backend(const char *name);
/* The setting in force: "auto", "cpu", "cublas" or "kernels". */
const char *myblas_get_backend(void);

/* 1 if a usable CUDA device was found (this may initialise the CUDA driver). */
int myblas_gpu_available(void);

/* The path that executed the calling thread's most recent BLAS call:
 * "cpu", "cublas", "kernels", or "none" (quick return, argument error, or no
 * call yet). For tests and diagnostics. */
const char *myblas_last_path(void);

/* The CPU BLAS that CPU-path calls run on, e.g. "libopenblas.so.0 (OpenBLAS,
 * SkylakeX kernels)", or "built-in" when none could be loaded (this loads it if
 * no call has yet). For diagnostics. */
const char *myblas_cpu_blas(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MYBLAS_H */

/*
 * myblas.h - public C interface of libmyblas.
 *
 * libmyblas is a drop-in BLAS for SGEMM, SGEMV and HGEMM that runs each call on
 * the host CPU BLAS, on cuBLAS or on its own CUDA kernels, chosen per call by
 * shape and by where the operands live (host or device memory).
 *
 * Usable from C89/C99 and C++. Three families of entry points:
 *   - Fortran BLAS:  sgemm_, sgemv_ (reference netlib signatures) and hgemm_
 *                    (as Intel MKL defines it). Every argument by reference.
 *                    Fortran compilers pass hidden CHARACTER lengths after the
 *                    last argument; they are accepted and never read.
 *   - CBLAS:         cblas_sgemm, cblas_sgemv (standard enum values), and
 *                    cblas_hgemm as MKL defines it.
 *   - native:        myblas_* (version, CUDA stream, half conversion, the path
 *                    taken by the last call).
 *
 * binary16 values travel as uint16_t bit patterns (MKL's MKL_F16); HGEMM
 * accumulates in FP32 and rounds the result to binary16 once.
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

/* Error handler called for illegal arguments, through the dynamic symbol, so a
 * program's own xerbla_ wins. The default prints the reference message to
 * stderr and returns (see README: "Errors"). */
void xerbla_(const char *srname, const int *info, int srname_len);

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
#endif

void cblas_hgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                 int m, int n, int k, uint16_t alpha, const uint16_t *a, int lda,
                 const uint16_t *b, int ldb, uint16_t beta, uint16_t *c, int ldc);

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

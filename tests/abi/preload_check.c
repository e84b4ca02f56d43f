/* An ordinary BLAS client that knows nothing of myblas: it declares the standard
 * Fortran and CBLAS prototypes itself and is linked only against the system -lblas.
 * tests/abi runs it once with LD_PRELOAD=libmyblas.so.0 (the calls must show up in
 * MYBLAS_LOG) and once without (the log must stay empty). Either way the answers
 * must be right. Exit status 0 = correct results. */
#include <math.h>
#include <stdio.h>

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a,
            const int *lda, const float *x, const int *incx, const float *beta, float *y,
            const int *incy);
/* 101 = CblasRowMajor, 111 = CblasNoTrans, 112 = CblasTrans in every cblas.h. */
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c,
                 int ldc);

#define M 6
#define N 5
#define K 4

static int bad = 0;

static void check(const char *what, const float *got, const double *want, int count) {
  int i;
  for (i = 0; i < count; ++i)
    if (!(fabs(got[i] - want[i]) <= 1e-4)) {
      printf("FAIL: %s[%d] = %g, expected %g\n", what, i, got[i], want[i]);
      ++bad;
    }
  printf("%s: %s\n", what, bad ? "checked, errors above" : "correct");
}

int main(void) {
  float a[M * K], b[K * N], c[M * N], x[K], y[M];
  double want[M * N];
  const int m = M, n = N, k = K, one = 1;
  const float alpha = 1.5f, zero = 0.0f;
  int i, j, p;

  for (i = 0; i < M * K; ++i) a[i] = (float)(i % 7) - 3.0f;
  for (i = 0; i < K * N; ++i) b[i] = (float)(i % 5) * 0.5f - 1.0f;
  for (i = 0; i < K; ++i) x[i] = (float)i + 0.25f;

  /* Column-major C = alpha*A*B. */
  for (j = 0; j < N; ++j)
    for (i = 0; i < M; ++i) {
      double s = 0.0;
      for (p = 0; p < K; ++p) s += (double)a[i + p * M] * b[p + j * K];
      want[i + j * M] = alpha * s;
    }
  for (i = 0; i < M * N; ++i) c[i] = 99.0f;
  sgemm_("N", "N", &m, &n, &k, &alpha, a, &m, b, &k, &zero, c, &m);
  check("sgemm_", c, want, M * N);

  /* Row-major through CBLAS: C (M x N) = alpha * A (M x K) * B (K x N), rows contiguous. */
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      double s = 0.0;
      for (p = 0; p < K; ++p) s += (double)a[i * K + p] * b[p * N + j];
      want[i * N + j] = alpha * s;
    }
  for (i = 0; i < M * N; ++i) c[i] = 99.0f;
  cblas_sgemm(101, 111, 111, M, N, K, alpha, a, K, b, N, 0.0f, c, N);
  check("cblas_sgemm", c, want, M * N);

  for (i = 0; i < M; ++i) {
    double s = 0.0;
    for (p = 0; p < K; ++p) s += (double)a[i + p * M] * x[p];
    want[i] = alpha * s;
  }
  for (i = 0; i < M; ++i) y[i] = 99.0f;
  sgemv_("N", &m, &k, &alpha, a, &m, x, &one, &zero, y, &one);
  check("sgemv_", y, want, M);

  return bad != 0;
}

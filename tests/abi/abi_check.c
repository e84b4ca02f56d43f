/* A C99 program built the way a user would build it: flags from `pkg-config myblas` (or
 * the CMake package, see consumer/), against the *installed* header and library.
 * It runs one small SGEMM, SGEMV and HGEMM through each API family and compares them with
 * plain C loops, so a wrong prototype, enum value or symbol shows up as a wrong answer.
 * Exit status 0 = all correct. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "myblas.h"

enum { M = 5, N = 4, K = 3, LDA = 7, LDB = 6, LDC = 9 };

static int failures = 0;

static void expect_close(const char *what, int i, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol)) {  /* written so that NaN fails too */
    printf("FAIL: %s element %d = %.9g, expected %.9g\n", what, i, got, want);
    ++failures;
  }
}

int main(void) {
  float a[LDA * K], b[LDB * N], c[LDC * N], c0[LDC * N];
  float x[N], y[M], y0[M];
  double ref[LDC * N], yref[M];
  const float alpha = 0.5f, beta = -1.0f;
  const int m = M, n = N, k = K, lda = LDA, ldb = LDB, ldc = LDC, inc = 1;
  int i, j, p;

  printf("myblas_version() = %s (header %d.%d.%d)\n", myblas_version(), MYBLAS_VERSION_MAJOR,
         MYBLAS_VERSION_MINOR, MYBLAS_VERSION_PATCH);

  /* Deterministic, non-zero, non-symmetric data; padding rows hold a guard value. */
  for (i = 0; i < LDA * K; ++i) a[i] = (float)((i * 7 % 11) - 5) / 4.0f;
  for (i = 0; i < LDB * N; ++i) b[i] = (float)((i * 5 % 13) - 6) / 8.0f;
  for (i = 0; i < LDC * N; ++i) c0[i] = (float)((i * 3 % 7) - 3) / 2.0f;
  for (i = 0; i < N; ++i) x[i] = (float)(i + 1) / 3.0f;
  for (i = 0; i < M; ++i) y0[i] = (float)(2 - i);

  /* C := alpha*A*B + beta*C, column-major, only the leading M rows of each column. */
  for (j = 0; j < N; ++j)
    for (i = 0; i < LDC; ++i) {
      double s = 0.0;
      if (i < M) {
        for (p = 0; p < K; ++p) s += (double)a[i + p * LDA] * (double)b[p + j * LDB];
        ref[i + j * LDC] = alpha * s + beta * (double)c0[i + j * LDC];
      } else {
        ref[i + j * LDC] = c0[i + j * LDC]; /* padding must be left alone */
      }
    }

  memcpy(c, c0, sizeof c);
  sgemm_("N", "n", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  for (i = 0; i < LDC * N; ++i) expect_close("sgemm_", i, c[i], ref[i], 1e-5);
  printf("sgemm_       path=%s\n", myblas_last_path());

  memcpy(c, c0, sizeof c);
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, a, LDA, b, LDB, beta,
              c, LDC);
  for (i = 0; i < LDC * N; ++i) expect_close("cblas_sgemm", i, c[i], ref[i], 1e-5);
  printf("cblas_sgemm  path=%s\n", myblas_last_path());

  /* y := alpha*G*x + beta*y, G an M x N matrix stored with lda = LDA > M. */
  {
    float g[LDA * N];
    for (i = 0; i < LDA * N; ++i) g[i] = (float)((i * 9 % 17) - 8) / 16.0f;
    for (i = 0; i < M; ++i) {
      double s = 0.0;
      for (j = 0; j < N; ++j) s += (double)g[i + j * LDA] * (double)x[j];
      yref[i] = alpha * s + beta * (double)y0[i];
    }
    memcpy(y, y0, sizeof y);
    sgemv_("n", &m, &n, &alpha, g, &lda, x, &inc, &beta, y, &inc);
    for (i = 0; i < M; ++i) expect_close("sgemv_", i, y[i], yref[i], 1e-5);
    printf("sgemv_       path=%s\n", myblas_last_path());
    memcpy(y, y0, sizeof y);
    cblas_sgemv(CblasColMajor, CblasNoTrans, M, N, alpha, g, LDA, x, 1, beta, y, 1);
    for (i = 0; i < M; ++i) expect_close("cblas_sgemv", i, y[i], yref[i], 1e-5);
    printf("cblas_sgemv  path=%s\n", myblas_last_path());
  }

  /* HGEMM with small integers and halves: every product and sum is exact in binary16,
   * so the result must match bit for bit after the single rounding. */
  {
    uint16_t ha[M * K], hb[K * N], hc[M * N];
    float fa[M * K], fb[K * N];
    const uint16_t halpha = myblas_float_to_half(1.0f), hbeta = myblas_float_to_half(0.0f);
    for (i = 0; i < M * K; ++i) { fa[i] = (float)(i % 5) - 2.0f; ha[i] = myblas_float_to_half(fa[i]); }
    for (i = 0; i < K * N; ++i) { fb[i] = (float)(i % 3) * 0.5f; hb[i] = myblas_float_to_half(fb[i]); }
    for (i = 0; i < M * N; ++i) hc[i] = myblas_float_to_half(1000.0f); /* beta = 0: ignored */
    hgemm_("N", "N", &m, &n, &k, &halpha, ha, &m, hb, &k, &hbeta, hc, &m);
    for (j = 0; j < N; ++j)
      for (i = 0; i < M; ++i) {
        double s = 0.0;
        for (p = 0; p < K; ++p) s += (double)fa[i + p * M] * (double)fb[p + j * K];
        expect_close("hgemm_", i + j * M, myblas_half_to_float(hc[i + j * M]), s, 0.0);
      }
    printf("hgemm_       path=%s\n", myblas_last_path());
  }

  if (failures) {
    printf("%d wrong results\n", failures);
    return 1;
  }
  printf("all results correct\n");
  return 0;
}

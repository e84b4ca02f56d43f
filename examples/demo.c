/* myblas_demo [n]: one n x n SGEMM (default 2048) and one 2n x 2n SGEMV through libmyblas.
 *
 * Host arrays run first: with MYBLAS_BACKEND=auto (the default) they stay on the CPU BLAS.
 * If myblas_gpu_available(), the same calls run again on device arrays, which the library
 * uses in place. For every call the demo prints the path the library took
 * (myblas_last_path()), the time, GFLOP/s, and the largest error of a few sampled entries
 * against a double-precision recomputation. Each call is made once untimed first, so the
 * one-time costs (loading OpenBLAS or cuBLAS, creating handles) are not in the figures.
 * Exit status 1 if a sampled error is out of bounds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "myblas.h"

enum { SAMPLES = 16 };

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Uniform in [-1, 1], from a fixed-seed LCG so runs are repeatable. */
static float next_value(unsigned long long *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (float)((double)(*state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* Worst |computed - exact| / (sum |a||b|) over sampled entries of column-major C = A*B. */
static double gemm_error(int n, const float *a, const float *b, const float *c) {
  double worst = 0.0;
  int s, p;
  for (s = 0; s < SAMPLES; ++s) {
    int i = (int)((s * 2654435761u) % (unsigned)n), j = (int)((s * 40503u + 7u) % (unsigned)n);
    double exact = 0.0, scale = 0.0, e;
    for (p = 0; p < n; ++p) {
      exact += (double)a[i + (size_t)p * n] * b[p + (size_t)j * n];
      scale += fabs((double)a[i + (size_t)p * n] * b[p + (size_t)j * n]);
    }
    e = fabs(c[i + (size_t)j * n] - exact) / (scale > 0 ? scale : 1.0);
    if (e > worst) worst = e;
  }
  return worst;
}

static double gemv_error(int m, const float *a, const float *x, const float *y) {
  double worst = 0.0;
  int s, p;
  for (s = 0; s < SAMPLES; ++s) {
    int i = (int)((s * 2654435761u) % (unsigned)m);
    double exact = 0.0, scale = 0.0, e;
    for (p = 0; p < m; ++p) {
      exact += (double)a[i + (size_t)p * m] * x[p];
      scale += fabs((double)a[i + (size_t)p * m] * x[p]);
    }
    e = fabs(y[i] - exact) / (scale > 0 ? scale : 1.0);
    if (e > worst) worst = e;
  }
  return worst;
}

static int report(const char *what, double seconds, double flops, double err) {
  /* FP32 with k terms: rounding error grows roughly like k*eps; 1e-4 leaves room for
   * k up to several thousand while still catching a wrong result. */
  int ok = err < 1e-4;
  printf("%-26s path=%-7s %9.3f ms %9.1f GFLOP/s  max rel err %.2e %s\n", what,
         myblas_last_path(), seconds * 1e3, flops / seconds * 1e-9, err, ok ? "ok" : "TOO LARGE");
  return ok;
}

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));        \
      return 0;                                                                 \
    }                                                                           \
  } while (0)

/* The same two calls on device copies of the operands; results copied back to check. */
static int run_device(int n, const float *a, const float *b, float *c, int mv, const float *av,
                      const float *x, float *y) {
  float *da, *db, *dc, *dav, *dx, *dy;
  size_t nn = (size_t)n * n, mm = (size_t)mv * mv;
  double t;
  int ok = 1;
  CUDA_CHECK(cudaMalloc((void **)&da, nn * sizeof *da));
  CUDA_CHECK(cudaMalloc((void **)&db, nn * sizeof *db));
  CUDA_CHECK(cudaMalloc((void **)&dc, nn * sizeof *dc));
  CUDA_CHECK(cudaMalloc((void **)&dav, mm * sizeof *dav));
  CUDA_CHECK(cudaMalloc((void **)&dx, (size_t)mv * sizeof *dx));
  CUDA_CHECK(cudaMalloc((void **)&dy, (size_t)mv * sizeof *dy));
  CUDA_CHECK(cudaMemcpy(da, a, nn * sizeof *a, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b, nn * sizeof *b, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dav, av, mm * sizeof *av, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dx, x, (size_t)mv * sizeof *x, cudaMemcpyHostToDevice));

  /* No stream set (myblas_set_stream): each call returns with its result complete. */
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, da, n, db, n, 0.0f, dc, n);
  t = now_s();
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, da, n, db, n, 0.0f, dc, n);
  t = now_s() - t;
  CUDA_CHECK(cudaMemcpy(c, dc, nn * sizeof *c, cudaMemcpyDeviceToHost));
  ok &= report("sgemm device arrays", t, 2.0 * n * n * (double)n, gemm_error(n, a, b, c));

  cblas_sgemv(CblasColMajor, CblasNoTrans, mv, mv, 1.0f, dav, mv, dx, 1, 0.0f, dy, 1);
  t = now_s();
  cblas_sgemv(CblasColMajor, CblasNoTrans, mv, mv, 1.0f, dav, mv, dx, 1, 0.0f, dy, 1);
  t = now_s() - t;
  CUDA_CHECK(cudaMemcpy(y, dy, (size_t)mv * sizeof *y, cudaMemcpyDeviceToHost));
  ok &= report("sgemv device arrays", t, 2.0 * mv * (double)mv, gemv_error(mv, av, x, y));

  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dav); cudaFree(dx); cudaFree(dy);
  return ok;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048, mv, ok = 1;
  size_t nn, mm, i;
  unsigned long long seed = 12345;
  float *a, *b, *c, *av, *x, *y;
  double t;
  const char *backend = getenv("MYBLAS_BACKEND");

  if (n <= 0 || n > 16384) {
    fprintf(stderr, "usage: %s [n]   (1 <= n <= 16384; default 2048)\n", argv[0]);
    return 2;
  }
  mv = 2 * n;
  nn = (size_t)n * n;
  mm = (size_t)mv * mv;
  a = malloc(nn * sizeof *a); b = malloc(nn * sizeof *b); c = malloc(nn * sizeof *c);
  av = malloc(mm * sizeof *av); x = malloc((size_t)mv * sizeof *x); y = malloc((size_t)mv * sizeof *y);
  if (!a || !b || !c || !av || !x || !y) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  for (i = 0; i < nn; ++i) a[i] = next_value(&seed);
  for (i = 0; i < nn; ++i) b[i] = next_value(&seed);
  for (i = 0; i < mm; ++i) av[i] = next_value(&seed);
  for (i = 0; i < (size_t)mv; ++i) x[i] = next_value(&seed);

  printf("myblas %s, MYBLAS_BACKEND=%s, GPU %s\n", myblas_version(), backend ? backend : "(unset: auto)",
         myblas_gpu_available() ? "available" : "not available");
  printf("sgemm %d x %d x %d, sgemv %d x %d\n", n, n, n, mv, mv);

  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  t = now_s();
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  t = now_s() - t;
  ok &= report("sgemm host arrays", t, 2.0 * n * n * (double)n, gemm_error(n, a, b, c));

  cblas_sgemv(CblasColMajor, CblasNoTrans, mv, mv, 1.0f, av, mv, x, 1, 0.0f, y, 1);
  t = now_s();
  cblas_sgemv(CblasColMajor, CblasNoTrans, mv, mv, 1.0f, av, mv, x, 1, 0.0f, y, 1);
  t = now_s() - t;
  ok &= report("sgemv host arrays", t, 2.0 * mv * (double)mv, gemv_error(mv, av, x, y));

  if (myblas_gpu_available())
    ok &= run_device(n, a, b, c, mv, av, x, y);
  else
    printf("no GPU: device-array calls skipped\n");

  free(a); free(b); free(c); free(av); free(x); free(y);
  return ok ? 0 : 1;
}

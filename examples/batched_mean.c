/*
 * batched_mean: the batched mean-and-multiply workload, written as calls to libmyblas.
 *
 * For each of N batches, average the M columns of an L x M matrix X_b into a vector
 * (mean_b = X_b * (1/M, ..., 1/M)^T), then multiply it by one fixed L x L matrix W
 * (y_b = W * mean_b). Three formulations through the library:
 *   gemv        2N SGEMV calls: one for each mean, one for each product;
 *   batch x2    two batched calls, cblas_sgemv_batch_strided: the N means (A_b = X_b a stride of
 *               L*M apart, x = u shared by the batch with stride 0, mean_b a column of an L x N
 *               matrix), then the N products with W shared (stride 0 for A);
 *   batch+gemm  the batched means, then ONE SGEMM, Y = W * Means, which reads W once instead of
 *               N times.
 * Each runs on host arrays (the CPU path in auto mode) and, when a GPU is present, on
 * device arrays (the GPU path), is checked against a plain double-precision loop, and is
 * timed (median of 5 after a warm-up). usage: batched_mean [L M N]  (default 1024 256 128)
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "myblas.h"

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));   \
      exit(2);                                                             \
    }                                                                      \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Uniform in [-1, 1], never exactly zero (a zero could hide an unread element). */
static float rnd(unsigned *s) {
  float v;
  do {
    *s = *s * 1664525u + 1013904223u;
    v = (float)((*s >> 8) * (2.0 / 16777216.0) - 1.0);
  } while (v == 0.f);
  return v;
}

struct Problem {
  int l, m, n;
  const float *x;   /* N batches of L x M, batch b at x + b*L*M (column-major, ld L) */
  const float *w;   /* L x L */
  const float *u;   /* M entries of 1/M */
  float *means;     /* L x N scratch */
  float *y;         /* L x N result: column b is y_b */
};

static void run_gemv(const struct Problem *p) {
  const float one = 1.f, zero = 0.f;
  const int inc = 1;
  int b;
  for (b = 0; b < p->n; ++b) {
    const float *xb = p->x + (size_t)b * p->l * p->m;
    sgemv_("N", &p->l, &p->m, &one, xb, &p->l, p->u, &inc, &zero, p->means + (size_t)b * p->l, &inc);
    sgemv_("N", &p->l, &p->l, &one, p->w, &p->l, p->means + (size_t)b * p->l, &inc, &zero,
           p->y + (size_t)b * p->l, &inc);
  }
}

/* The N means in one call: X_b is L x M at X + b*L*M, u is shared (stride 0), mean_b is column b
 * of the L x N matrix Means. */
static void batch_means(const struct Problem *p) {
  cblas_sgemv_batch_strided(CblasColMajor, CblasNoTrans, p->l, p->m, 1.f, p->x, p->l, p->l * p->m, p->u, 1, 0,
                            0.f, p->means, 1, p->l, p->n);
}

static void run_batch_x2(const struct Problem *p) {
  batch_means(p);
  /* y_b = W mean_b for every b: W shared (stride 0). */
  cblas_sgemv_batch_strided(CblasColMajor, CblasNoTrans, p->l, p->l, 1.f, p->w, p->l, 0, p->means, 1, p->l, 0.f,
                            p->y, 1, p->l, p->n);
}

static void run_batch_gemm(const struct Problem *p) {
  const float one = 1.f, zero = 0.f;
  batch_means(p);
  sgemm_("N", "N", &p->l, &p->n, &p->l, &one, p->w, &p->l, p->means, &p->l, &zero, p->y, &p->l);
}

/* Median of 5 timed runs after one warm-up; the calls return with their results complete. */
static double time_ms(void (*f)(const struct Problem *), const struct Problem *p) {
  double t[5], tmp;
  int i, j;
  f(p);
  for (i = 0; i < 5; ++i) {
    const double t0 = now_ms();
    f(p);
    t[i] = now_ms() - t0;
  }
  for (i = 0; i < 5; ++i)
    for (j = i + 1; j < 5; ++j)
      if (t[j] < t[i]) { tmp = t[i]; t[i] = t[j]; t[j] = tmp; }
  return t[2];
}

/* Largest |y - ref| / mag over the L x N result, where mag = sum_c |W(r,c)| |mean_c| (+ the
 * means' own magnitude): the scale FP32 rounding errors are proportional to. */
static double max_rel_err(const float *y, const double *ref, const double *mag, size_t count) {
  double worst = 0;
  size_t i;
  for (i = 0; i < count; ++i) {
    const double e = fabs((double)y[i] - ref[i]) / (mag[i] + 1e-30);
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

int main(int argc, char **argv) {
  const int l = argc > 3 ? atoi(argv[1]) : 1024, m = argc > 3 ? atoi(argv[2]) : 256,
            n = argc > 3 ? atoi(argv[3]) : 128;
  const size_t nx = (size_t)l * m * n, nw = (size_t)l * l, ny = (size_t)l * n;
  float *x = malloc(nx * sizeof *x), *w = malloc(nw * sizeof *w), *u = malloc((size_t)m * sizeof *u);
  float *means = malloc(ny * sizeof *means), *y = malloc(ny * sizeof *y);
  double *mean_ref = malloc((size_t)l * sizeof *mean_ref), *ref = malloc(ny * sizeof *ref);
  double *mag = malloc(ny * sizeof *mag);
  /* FP32 with sums of length L and M: (L + M) * eps bounds the scaled error. */
  const double tol = (l + m) * 1.1920929e-7;
  unsigned seed = 12345u;
  size_t i;
  int b, r, c, form;
  void (*forms[3])(const struct Problem *) = {run_gemv, run_batch_x2, run_batch_gemm};
  const char *names[3] = {"gemv", "batch x2", "batch+gemm"};
  /* Reads every X_b once, W once per product (gemv, batch x2) or once overall (batch+gemm). */
  const double flops = 2.0 * l * m * n + 2.0 * l * l * n;

  if (!x || !w || !u || !means || !y || !mean_ref || !ref || !mag) return 2;
  for (i = 0; i < nx; ++i) x[i] = rnd(&seed);
  for (i = 0; i < nw; ++i) w[i] = rnd(&seed);
  for (c = 0; c < m; ++c) u[c] = 1.f / (float)m;

  /* The reference: plain loops in double. */
  for (b = 0; b < n; ++b) {
    const float *xb = x + (size_t)b * l * m;
    for (r = 0; r < l; ++r) {
      double s = 0;
      for (c = 0; c < m; ++c) s += xb[r + (size_t)c * l];
      mean_ref[r] = s / m;
    }
    for (r = 0; r < l; ++r) {
      double s = 0, a = 0;
      for (c = 0; c < l; ++c) {
        s += (double)w[r + (size_t)c * l] * mean_ref[c];
        a += fabs((double)w[r + (size_t)c * l]) * (fabs(mean_ref[c]) + 1.0 / m);
      }
      ref[r + (size_t)b * l] = s;
      mag[r + (size_t)b * l] = a;
    }
  }

  printf("batched mean-and-multiply: L=%d M=%d N=%d (%.1f MB of batches), myblas %s\n", l, m, n,
         nx * 4.0 / 1e6, myblas_version());
  printf("%-10s %-12s %-8s %10s %10s %10s\n", "arrays", "formulation", "path", "time ms", "GFLOP/s", "err/bound");
  for (form = 0; form < 3; ++form) {
    struct Problem p;
    double t, err;
    p.l = l; p.m = m; p.n = n; p.x = x; p.w = w; p.u = u; p.means = means; p.y = y;
    memset(y, 0xff, ny * sizeof *y); /* NaN: every element must be written */
    t = time_ms(forms[form], &p);
    err = max_rel_err(y, ref, mag, ny);
    printf("%-10s %-12s %-8s %10.3f %10.1f %10.2e %s\n", "host", names[form], myblas_last_path(), t,
           flops / t / 1e6, err / tol, err <= tol ? "ok" : "WRONG");
    if (!(err <= tol)) return 1;
  }
  if (myblas_gpu_available()) {
    float *dx, *dw, *du, *dmeans, *dy;
    CUDA_CHECK(cudaMalloc((void **)&dx, nx * sizeof *dx));
    CUDA_CHECK(cudaMalloc((void **)&dw, nw * sizeof *dw));
    CUDA_CHECK(cudaMalloc((void **)&du, (size_t)m * sizeof *du));
    CUDA_CHECK(cudaMalloc((void **)&dmeans, ny * sizeof *dmeans));
    CUDA_CHECK(cudaMalloc((void **)&dy, ny * sizeof *dy));
    CUDA_CHECK(cudaMemcpy(dx, x, nx * sizeof *x, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dw, w, nw * sizeof *w, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(du, u, (size_t)m * sizeof *u, cudaMemcpyHostToDevice));
    for (form = 0; form < 3; ++form) {
      struct Problem p;
      double t, err;
      p.l = l; p.m = m; p.n = n; p.x = dx; p.w = dw; p.u = du; p.means = dmeans; p.y = dy;
      CUDA_CHECK(cudaMemset(dy, 0xff, ny * sizeof *dy));
      t = time_ms(forms[form], &p);
      CUDA_CHECK(cudaMemcpy(y, dy, ny * sizeof *y, cudaMemcpyDeviceToHost));
      err = max_rel_err(y, ref, mag, ny);
      printf("%-10s %-12s %-8s %10.3f %10.1f %10.2e %s\n", "device", names[form], myblas_last_path(), t,
             flops / t / 1e6, err / tol, err <= tol ? "ok" : "WRONG");
      if (!(err <= tol)) return 1;
    }
    cudaFree(dx); cudaFree(dw); cudaFree(du); cudaFree(dmeans); cudaFree(dy);
  } else {
    printf("device     (no usable GPU: device-array runs skipped)\n");
  }
  free(x); free(w); free(u); free(means); free(y); free(mean_ref); free(ref); free(mag);
  return 0;
}

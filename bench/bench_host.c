/*
 * bench_host: host-array SGEMM, SGEMV and HGEMM end to end, as an unmodified program sees
 * them. The program calls sgemm_/sgemv_ through the dynamic linker, so the library answering
 * is whichever is preloaded: run it with LD_PRELOAD=libmyblas.so.0 (path "myblas") or with
 * LD_PRELOAD=libnvblas.so (path "nvblas", NVBLAS over OpenBLAS), or with `--openblas`, which
 * dlopens OpenBLAS and calls it directly (path "openblas"; HGEMM there is widen + SGEMM +
 * round, as a CPU program would do it). Time is the median wall time of the call(s).
 * Output CSV: routine,path,m,n,k,time_ms,gflops   (k = 0 for SGEMV)
 * usage: bench_host LABEL [--openblas] [--max N] [--skip-hgemm]
 *        (--trans XY: the SGEMM rows with op(A) = X, op(B) = Y in {N, T}, default NN; name the
 *        transposes in LABEL, the CSV has no column for them)
 *        bench_host LABEL --sgemv-pair|--sgemm-pair [--max N] [--sizes 64,128,...] [--samples S] [--spin-ns NS]
 * --sgemv-pair (run with libmyblas preloaded): host-array SGEMV through the preloaded library
 * and through OpenBLAS dlopened in the same process, alternating sample by sample (S samples
 * each, default 41, a sample lasting about 0.1 ms), after one SGEMM through the library so that a
 * program's CUDA context exists as it would; rows "myblas-paired" and "openblas-paired" (median
 * time_ms, to 1 ns), and a '#' line per size with the path the library took, whether A lies in
 * the program-break heap (where the library needs no driver query), and the median and quartiles
 * of OpenBLAS/myblas over the samples (each sample's two times were taken side by side).
 * OpenBLAS is dlopened before the library's first call, so the library finds it loaded and keeps
 * OpenBLAS's own choice of kernels (backends/cpu/cpu_blas.cpp): both sides run the same kernels,
 * which on the H100 host are Prescott unless OPENBLAS_CORETYPE names others (the 2026-11-26 runs
 * set OPENBLAS_CORETYPE=SkylakeX, the kernels the library picks there by itself).
 * --sgemm-pair: the same for square SGEMM (samples of about 20 MFLOP). The separate-process rows
 * above cannot resolve 5% at these sizes (ms to 3 decimals, different processes, OpenBLAS's
 * threads warmed differently).
 * --spin-ns NS adds a third row, "openblas-spin<NS>": OpenBLAS again, each call preceded by NS ns
 * of busy waiting on the clock (touching no memory), to see what a fixed per-call delay before
 * the call costs a call that OpenBLAS spreads over its threads.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef void (*sgemm_t)(const char *, const char *, const int *, const int *, const int *, const float *,
                        const float *, const int *, const float *, const int *, const float *, float *,
                        const int *);
typedef void (*sgemv_t)(const char *, const int *, const int *, const float *, const float *, const int *,
                        const float *, const int *, const float *, float *, const int *);
typedef void (*hgemm_t)(const char *, const char *, const int *, const int *, const int *, const uint16_t *,
                        const uint16_t *, const int *, const uint16_t *, const int *, const uint16_t *,
                        uint16_t *, const int *);

static sgemm_t g_sgemm;
static sgemv_t g_sgemv;
static hgemm_t g_hgemm; /* NULL: widen + sgemm + round */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static float rnd(unsigned *s) {
  float v;
  do {
    *s = *s * 1664525u + 1013904223u;
    v = (float)((*s >> 8) * (2.0 / 16777216.0) - 1.0);
  } while (v == 0.f);
  return v;
}

/* binary16 conversions for the widening path (round to nearest even) */
static float h2f(uint16_t h) {
  const uint32_t e = (h >> 10) & 31u, m = h & 1023u;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024u), (int)e - 25);
  return (h & 0x8000u) ? -v : v;
}
static uint16_t f2h(float f) {
  uint32_t x, sign, ax, h, rem;
  memcpy(&x, &f, 4);
  sign = (x >> 16) & 0x8000u;
  ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (ax < 0x38800000u) return (uint16_t)(sign | (uint16_t)lrintf(ldexpf(f < 0 ? -f : f, 24)));
  h = (ax - 0x38000000u) >> 13;
  rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return (uint16_t)(sign | h);
}

static void hgemm_widen(int n, const uint16_t *a, const uint16_t *b, uint16_t *c, float *fa, float *fb, float *fc) {
  const size_t nn = (size_t)n * n;
  const float one = 1.f, zero = 0.f;
  size_t i;
  for (i = 0; i < nn; ++i) { fa[i] = h2f(a[i]); fb[i] = h2f(b[i]); }
  g_sgemm("N", "N", &n, &n, &n, &one, fa, &n, fb, &n, &zero, fc, &n);
  for (i = 0; i < nn; ++i) c[i] = f2h(fc[i]);
}

static int cmp(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* Checks 16 sampled entries of C = op(A)*op(B) (n x n, column-major) in double. */
static int check(int n, const char *tr, const float *a, const float *b, const float *c) {
  unsigned s = 99u;
  int t, l;
  for (t = 0; t < 16; ++t) {
    int i, j;
    double want = 0, mag = 0;
    s = s * 1664525u + 1013904223u; i = (int)((s >> 8) % (unsigned)n);
    s = s * 1664525u + 1013904223u; j = (int)((s >> 8) % (unsigned)n);
    for (l = 0; l < n; ++l) {
      const double x = tr[0] == 'N' ? a[i + (size_t)l * n] : a[l + (size_t)i * n];
      const double y = tr[1] == 'N' ? b[l + (size_t)j * n] : b[j + (size_t)l * n];
      want += x * y;
      mag += fabs(x * y);
    }
    if (!(fabs(c[i + (size_t)j * n] - want) <= (n + 2) * 4 * 1.1920929e-7 * mag)) return 0;
  }
  return 1;
}

/* The --sgemv-pair mode (see the top of the file). */
static sgemv_t g_spin_target;
static sgemm_t g_spin_gemm_target;
static double g_spin_ms;
/* OpenBLAS after a busy wait of g_spin_ms (the --spin-ns row). */
static void spin_then_sgemv(const char *t, const int *m, const int *n, const float *alpha, const float *a,
                            const int *lda, const float *x, const int *incx, const float *beta, float *y,
                            const int *incy) {
  const double until = now_ms() + g_spin_ms;
  while (now_ms() < until) {
  }
  g_spin_target(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
static void spin_then_sgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
                            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
                            const int *ldc) {
  const double until = now_ms() + g_spin_ms;
  while (now_ms() < until) {
  }
  g_spin_gemm_target(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static int cmp_d(const void *x, const void *y) { return cmp(x, y); }

/* Median and quartiles of v[0..n) (sorts v). */
static void quartiles(double *v, int n, double *q1, double *med, double *q3) {
  qsort(v, (size_t)n, sizeof v[0], cmp_d);
  *q1 = v[n / 4];
  *med = v[n / 2];
  *q3 = v[(3 * n) / 4];
}

/* Whether p lies in [start of the program break area, current break): the heap that glibc grows
 * with sbrk, where libmyblas needs no driver query to call memory host memory. */
static int in_brk_heap(const void *p) {
  static unsigned long long start;
  if (!start) {
    FILE *f = fopen("/proc/self/stat", "r");
    char buf[2048];
    size_t got;
    const char *c;
    int field = 2;
    if (!f) return -1;
    got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    c = strrchr(buf, ')');
    if (!c) return -1;
    for (++c; *c && field < 47; ++c)
      if (*c == ' ') ++field;
    if (field != 47 || sscanf(c, "%llu", &start) != 1) return -1;
  }
  return (uintptr_t)p >= start && (uintptr_t)p < (uintptr_t)sbrk(0);
}

/* The --sgemv-pair / --sgemm-pair modes (see the top of the file). */
static int pair_bench(const char *label, int gemm, int maxn, int spin_ns, const int *sizes, int nsizes,
                      int samples) {
  static const int all[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192};
  void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  sgemv_t ob = h ? (sgemv_t)dlsym(h, "sgemv_") : NULL;
  sgemm_t obgemm = h ? (sgemm_t)dlsym(h, "sgemm_") : NULL;
  sgemv_t mb = (sgemv_t)dlsym(RTLD_DEFAULT, "sgemv_");
  sgemm_t mbgemm = (sgemm_t)dlsym(RTLD_DEFAULT, "sgemm_");
  const char *(*last_path)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "myblas_last_path");
  const int ways = spin_ns > 0 ? 3 : 2;
  int i;
  if (!ob || !obgemm || !mb || !mbgemm || mb == ob) {
    fprintf(stderr, "--sgemv-pair/--sgemm-pair need libmyblas preloaded and OpenBLAS loadable\n");
    return 2;
  }
  if (!sizes) {
    sizes = all;
    nsizes = (int)(sizeof all / sizeof all[0]);
  }
  g_spin_target = ob;
  g_spin_gemm_target = obgemm;
  g_spin_ms = spin_ns * 1e-6;
  {
    const int n = 512;
    const float one = 1.f, zero = 0.f;
    float *A = calloc((size_t)n * n, 4), *B = calloc((size_t)n * n, 4), *C = calloc((size_t)n * n, 4);
    if (!A || !B || !C) return 2;
    mbgemm("N", "N", &n, &n, &n, &one, A, &n, B, &n, &zero, C, &n);
    free(A); free(B); free(C);
  }
  printf("routine,path,m,n,k,time_ms,gflops\n");
  for (i = 0; i < nsizes && sizes[i] <= maxn; ++i) {
    const int n = sizes[i], inc = 1;
    const size_t nn = (size_t)n * n;
    const double flops = gemm ? 2.0 * n * (double)n * n : 2.0 * n * (double)n;
    const int inner = (int)((gemm ? 2e7 : 5e6) / flops) + 1; /* about 0.1 ms per sample (more for tiny GEMMs) */
    const float one = 1.f, zero = 0.f;
    float *A = malloc(nn * 4), *x = malloc((gemm ? nn : (size_t)n) * 4), *y = malloc((gemm ? nn : (size_t)n) * 4),
          *y2 = malloc((gemm ? nn : (size_t)n) * 4);
    double *tm = malloc(sizeof(double) * (size_t)samples * 4), *to = tm + samples, *ts = to + samples,
           *rt = ts + samples, d, q1, med, q3;
    const char *path = "?", *routine = gemm ? "sgemm" : "sgemv";
    unsigned s = 11u + (unsigned)n;
    size_t e;
    int r, q, p;
    if (!A || !x || !y || !y2 || !tm) return 2;
    for (e = 0; e < nn; ++e) A[e] = rnd(&s);
    for (e = 0; e < (gemm ? nn : (size_t)n); ++e) x[e] = rnd(&s);
    if (gemm) {
      mbgemm("N", "N", &n, &n, &n, &one, A, &n, x, &n, &zero, y, &n);
      if (last_path) path = last_path();
      if (!check(n, "NN", A, x, y)) { fprintf(stderr, "sgemm %d: WRONG RESULT (%s)\n", n, label); return 1; }
    } else {
      mb("N", &n, &n, &one, A, &n, x, &inc, &zero, y, &inc);
      if (last_path) path = last_path();
      ob("N", &n, &n, &one, A, &n, x, &inc, &zero, y2, &inc);
      for (e = 0; e < (size_t)n; ++e) {
        d = 0;
        for (q = 0; q < n; ++q) d += fabs((double)A[e + (size_t)q * n] * x[q]);
        if (!(fabs((double)y[e] - y2[e]) <= (n + 2) * 4 * 1.1920929e-7 * d)) {
          fprintf(stderr, "sgemv %d: myblas and OpenBLAS differ at %zu\n", n, e);
          return 1;
        }
      }
    }
    for (r = 0; r < samples; ++r)
      for (p = 0; p < ways; ++p) { /* rotate which goes first */
        const int w = (r + p) % ways; /* 0 myblas, 1 OpenBLAS, 2 OpenBLAS after a spin */
        const double t0 = now_ms();
        if (gemm) {
          const sgemm_t f = w == 0 ? mbgemm : w == 1 ? obgemm : spin_then_sgemm;
          for (q = 0; q < inner; ++q) f("N", "N", &n, &n, &n, &one, A, &n, x, &n, &zero, y, &n);
        } else {
          const sgemv_t f = w == 0 ? mb : w == 1 ? ob : spin_then_sgemv;
          for (q = 0; q < inner; ++q) f("N", &n, &n, &one, A, &n, x, &inc, &zero, y, &inc);
        }
        (w == 0 ? tm : w == 1 ? to : ts)[r] = (now_ms() - t0) / inner;
      }
    for (r = 0; r < samples; ++r) rt[r] = to[r] / tm[r];
    quartiles(rt, samples, &q1, &med, &q3);
    printf("# %s %d: myblas path %s; A in the program-break heap: %s; OpenBLAS/myblas per sample: median %.3f,"
           " quartiles %.3f %.3f (%d samples of %d calls)\n",
           routine, n, path, in_brk_heap(A) == 1 ? "yes" : in_brk_heap(A) == 0 ? "no" : "unknown", med, q1, q3, samples,
           inner);
    quartiles(tm, samples, &q1, &med, &q3);
    printf("%s,%s-paired,%d,%d,%d,%.6f,%.1f\n", routine, label, n, n, gemm ? n : 0, med, flops / med / 1e6);
    quartiles(to, samples, &q1, &med, &q3);
    printf("%s,openblas-paired,%d,%d,%d,%.6f,%.1f\n", routine, n, n, gemm ? n : 0, med, flops / med / 1e6);
    if (ways == 3) {
      quartiles(ts, samples, &q1, &med, &q3);
      printf("%s,openblas-spin%d,%d,%d,%d,%.6f,%.1f\n", routine, spin_ns, n, n, gemm ? n : 0, med, flops / med / 1e6);
    }
    fflush(stdout);
    free(A); free(x); free(y); free(y2); free(tm);
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *label = argc > 1 ? argv[1] : "symbol";
  int direct = 0, maxn = 16384, skip_h = 0, a, i;
  static const int sizes[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  int pair = 0, gemm_pair = 0, spin_ns = 0, samples = 41, nsizes = 0;
  int chosen[16];
  const char *tr = "NN";
  for (a = 2; a < argc; ++a) {
    if (!strcmp(argv[a], "--openblas")) direct = 1;
    else if (!strcmp(argv[a], "--max") && a + 1 < argc) maxn = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--skip-hgemm")) skip_h = 1;
    else if (!strcmp(argv[a], "--trans") && a + 1 < argc) tr = argv[++a];
    else if (!strcmp(argv[a], "--sgemv-pair")) pair = 1;
    else if (!strcmp(argv[a], "--sgemm-pair")) gemm_pair = 1;
    else if (!strcmp(argv[a], "--samples") && a + 1 < argc) samples = atoi(argv[++a]) > 4 ? atoi(argv[a]) : 5;
    else if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
      char *list = argv[++a], *end;
      while (*list && nsizes < 16) {
        chosen[nsizes++] = (int)strtol(list, &end, 10);
        list = *end == ',' ? end + 1 : end + (*end != '\0');
      }
    }
    else if (!strcmp(argv[a], "--spin-ns") && a + 1 < argc) spin_ns = atoi(argv[++a]);
  }
  if (pair || gemm_pair) return pair_bench(label, gemm_pair, maxn, spin_ns, nsizes ? chosen : NULL, nsizes, samples);
  if (direct) {
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "cannot load OpenBLAS: %s\n", dlerror()); return 2; }
    g_sgemm = (sgemm_t)dlsym(h, "sgemm_");
    g_sgemv = (sgemv_t)dlsym(h, "sgemv_");
  } else {
    g_sgemm = (sgemm_t)dlsym(RTLD_DEFAULT, "sgemm_");
    g_sgemv = (sgemv_t)dlsym(RTLD_DEFAULT, "sgemv_");
    g_hgemm = (hgemm_t)dlsym(RTLD_DEFAULT, "hgemm_");
  }
  if (!g_sgemm) { fprintf(stderr, "no sgemm_ found\n"); return 2; }
  /* NVBLAS intercepts Level 3 only: without a sgemv_ there are no SGEMV rows. */
  printf("routine,path,m,n,k,time_ms,gflops\n");
  for (i = 0; i < (int)(sizeof sizes / sizeof sizes[0]) && sizes[i] <= maxn; ++i) {
    const int n = sizes[i];
    const size_t nn = (size_t)n * n;
    const int reps = n >= 8192 ? 3 : n >= 2048 ? 5 : 9;
    float *A = malloc(nn * 4), *B = malloc(nn * 4), *C = malloc(nn * 4);
    double t[9];
    unsigned s = 7u + (unsigned)n;
    size_t e;
    int r;
    const float one = 1.f, zero = 0.f;
    if (!A || !B || !C) return 2;
    for (e = 0; e < nn; ++e) { A[e] = rnd(&s); B[e] = rnd(&s); C[e] = rnd(&s); }
    /* Small calls are timed in groups of `inner` so that one sample lasts about a ms. */
    const int inner = n >= 512 ? 1 : (int)(2e8 / (2.0 * n * n * n)) + 1;
    const int inner_v = n >= 8192 ? 1 : (int)(1e7 / (2.0 * n * n)) + 1;
    int q;
    g_sgemm(tr, tr + 1, &n, &n, &n, &one, A, &n, B, &n, &zero, C, &n); /* warm-up (and GPU start) */
    for (r = 0; r < reps; ++r) {
      const double t0 = now_ms();
      for (q = 0; q < inner; ++q) g_sgemm(tr, tr + 1, &n, &n, &n, &one, A, &n, B, &n, &zero, C, &n);
      t[r] = (now_ms() - t0) / inner;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    if (!check(n, tr, A, B, C)) { fprintf(stderr, "sgemm %d: WRONG RESULT (%s)\n", n, label); return 1; }
    printf("sgemm,%s,%d,%d,%d,%.4f,%.1f\n", label, n, n, n, t[reps / 2], 2.0 * n * n * (double)n / t[reps / 2] / 1e6);
    fflush(stdout);
    if (g_sgemv) { /* SGEMV on the same A */
      const int inc = 1;
      g_sgemv("N", &n, &n, &one, A, &n, B, &inc, &zero, C, &inc);
      for (r = 0; r < reps; ++r) {
        const double t0 = now_ms();
        for (q = 0; q < inner_v; ++q) g_sgemv("N", &n, &n, &one, A, &n, B, &inc, &zero, C, &inc);
        t[r] = (now_ms() - t0) / inner_v;
      }
      qsort(t, (size_t)reps, sizeof t[0], cmp);
      printf("sgemv,%s,%d,%d,0,%.4f,%.1f\n", label, n, n, t[reps / 2], 2.0 * n * (double)n / t[reps / 2] / 1e6);
    }
    if (!skip_h && n <= 8192) {
      uint16_t *hA = malloc(nn * 2), *hB = malloc(nn * 2), *hC = malloc(nn * 2);
      float *fc = g_hgemm ? NULL : malloc(nn * 4);
      const uint16_t h1 = 0x3c00u, h0 = 0;
      if (!hA || !hB || !hC) return 2;
      for (e = 0; e < nn; ++e) { hA[e] = f2h(A[e]); hB[e] = f2h(B[e]); }
      for (r = -1; r < reps; ++r) {
        const double t0 = now_ms();
        if (g_hgemm) g_hgemm("N", "N", &n, &n, &n, &h1, hA, &n, hB, &n, &h0, hC, &n);
        else hgemm_widen(n, hA, hB, hC, A, B, fc);
        if (r >= 0) t[r] = now_ms() - t0;
      }
      qsort(t, (size_t)reps, sizeof t[0], cmp);
      printf("hgemm,%s,%d,%d,%d,%.4f,%.1f\n", label, n, n, n, t[reps / 2], 2.0 * n * n * (double)n / t[reps / 2] / 1e6);
      free(hA); free(hB); free(hC); free(fc); /* (the widening path used A and B as scratch) */
    }
    fflush(stdout);
    free(A); free(B); free(C);
  }
  return 0;
}

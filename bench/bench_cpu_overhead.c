/*
 * bench_cpu_overhead: the library's own cost on a host-array call that stays on the CPU, paired
 * with the CPU BLAS alone in one process.
 *
 * The program is linked with libmyblas (sgemm_, sgemv_, dgemm_ and dgemv_ resolve to it) and
 * dlopens libopenblas.so.0 itself, before the library's first call, so both sides run OpenBLAS's
 * same kernels on the same data (the library finds OpenBLAS loaded and keeps its choice of
 * kernels). Samples alternate between the two sides (which goes first alternates too), each
 * sample lasting about 50 us of calls; per shape the median per-call time of each side, the
 * median of the per-sample ratios OpenBLAS/myblas (>= 0.90 for 64^2 SGEMV and >= 0.98 for 64^3
 * SGEMM are the targets), and the library's cost per call paired: added_ns is the median over the
 * samples of (myblas - OpenBLAS) per call within a sample, with its quartiles (<= 30 ns is the
 * target). The last '#' lines state the targets against what was measured.
 *
 * Then the cost of what wraps every call without a tool attached (NVTX ranges; printed by the
 * probe_call_range program, bench/probes/probe_call_range.cpp, which this program does not run).
 *
 * Output: '#' lines (date, host, CPU, revision, command), then CSV
 *   routine,trans,m,n,k,myblas_ns,openblas_ns,added_ns,added_q1,added_q3,ratio_median,ratio_q1,ratio_q3,samples
 * usage: bench_cpu_overhead [--samples S] [--threads T] [--alloc heap|mmap] [--cuda-context]
 *   --threads T sets OpenBLAS's thread count for both sides (openblas_set_num_threads), default 1:
 *   a one-thread call shows the library's cost most plainly; the paired ratio holds for any T.
 *   --alloc: where the operands live: heap (default) in malloc's program-break heap (96 KB and
 *   192 KB blocks, the mmap threshold raised so that they are), as a program's small arrays are; mmap: each in its own 4 MB mapping. With a GPU and
 *   a CUDA context the library locates an operand outside that heap with a driver query.
 *   --cuda-context: make the primary CUDA context of device 0 current first (libcuda.so.1 loaded
 *   with dlopen), as a GPU program has one; the header says whether that worked.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "myblas.h"

#ifndef MYBLAS_GIT_REV
#define MYBLAS_GIT_REV "unknown"
#endif

typedef void (*sgemm_t)(const char *, const char *, const int *, const int *, const int *, const float *,
                        const float *, const int *, const float *, const int *, const float *, float *,
                        const int *);
typedef void (*sgemv_t)(const char *, const int *, const int *, const float *, const float *, const int *,
                        const float *, const int *, const float *, float *, const int *);
typedef void (*dgemm_t)(const char *, const char *, const int *, const int *, const int *, const double *,
                        const double *, const int *, const double *, const int *, const double *, double *,
                        const int *);
typedef void (*dgemv_t)(const char *, const int *, const int *, const double *, const double *, const int *,
                        const double *, const int *, const double *, double *, const int *);

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[(int)(q * (n - 1) + 0.5)];
}

/* One shape: the two sides as callbacks that run `calls` calls. */
typedef void (*run_t)(int side, int calls);

static sgemm_t ob_sgemm;
static sgemv_t ob_sgemv;
static dgemm_t ob_dgemm;
static dgemv_t ob_dgemv;
static int g_m, g_n, g_k;
static char g_ta = 'N', g_tb = 'N';
static float *fa, *fb, *fc;
static double *da, *db, *dc;

static void run_sgemm(int side, int calls) {
  const float alpha = 1.f, beta = 0.5f;
  const int lda = g_ta == 'N' ? g_m : g_k, ldb = g_tb == 'N' ? g_k : g_n;
  for (int i = 0; i < calls; ++i)
    (side ? ob_sgemm : sgemm_)(&g_ta, &g_tb, &g_m, &g_n, &g_k, &alpha, fa, &lda, fb, &ldb, &beta, fc, &g_m);
}
static void run_sgemv(int side, int calls) {
  const float alpha = 1.f, beta = 0.5f;
  const int one = 1;
  for (int i = 0; i < calls; ++i) (side ? ob_sgemv : sgemv_)(&g_ta, &g_m, &g_n, &alpha, fa, &g_m, fb, &one, &beta, fc, &one);
}
static void run_dgemm(int side, int calls) {
  const double alpha = 1.0, beta = 0.5;
  for (int i = 0; i < calls; ++i)
    (side ? ob_dgemm : dgemm_)(&g_ta, &g_tb, &g_m, &g_n, &g_k, &alpha, da, &g_m, db, &g_k, &beta, dc, &g_m);
}
static void run_dgemv(int side, int calls) {
  const double alpha = 1.0, beta = 0.5;
  const int one = 1;
  for (int i = 0; i < calls; ++i) (side ? ob_dgemv : dgemv_)(&g_ta, &g_m, &g_n, &alpha, da, &g_m, db, &one, &beta, dc, &one);
}

/* Elements per operand: the largest shape's (SGEMM 127 x 129 x 131: 131 x 129 of B), rounded up;
 * 96 KB of floats, 192 KB of doubles. */
#define OPERAND_ELEMS 24576

static void fill(void) {
  unsigned s = 12345u;
  const size_t n = OPERAND_ELEMS;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const float v = ((float)(s >> 8) / 16777216.f) * 2.f - 1.f; /* [-1, 1) */
    fa[i] = fb[i] = fc[i] = v != 0.f ? v : 0.5f;
    da[i] = db[i] = dc[i] = v != 0.f ? v : 0.5;
  }
}

/* What pair() measured last: the paired library cost per call (ns) and the ratio, medians. */
static double g_added, g_ratio;

static void pair(const char *routine, run_t run, int samples) {
  /* Calls per sample: about 50 us of the CPU BLAS's calls. */
  run(1, 50);
  run(0, 50);
  double t0 = now_ns();
  run(1, 200);
  const double per = (now_ns() - t0) / 200;
  int calls = (int)(50e3 / (per > 1 ? per : 1));
  if (calls < 3) calls = 3;
  double *mine = malloc(sizeof(double) * (size_t)samples), *ob = malloc(sizeof(double) * (size_t)samples),
         *ratio = malloc(sizeof(double) * (size_t)samples), *added = malloc(sizeof(double) * (size_t)samples);
  for (int s = 0; s < samples; ++s) {
    for (int j = 0; j < 2; ++j) {
      const int side = (s + j) & 1;
      t0 = now_ns();
      run(side, calls);
      const double t = (now_ns() - t0) / calls;
      if (side) ob[s] = t;
      else mine[s] = t;
    }
    ratio[s] = ob[s] / mine[s];
    added[s] = mine[s] - ob[s];
  }
  const double rq1 = quantile(ratio, samples, 0.25), rmed = quantile(ratio, samples, 0.5),
               rq3 = quantile(ratio, samples, 0.75);
  const double aq1 = quantile(added, samples, 0.25), amed = quantile(added, samples, 0.5),
               aq3 = quantile(added, samples, 0.75);
  const double mm = quantile(mine, samples, 0.5), om = quantile(ob, samples, 0.5);
  printf("%s,%c%c,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,%d\n", routine, g_ta,
         routine[4] == 'm' ? g_tb : ' ', g_m, g_n, g_k, mm, om, amed, aq1, aq3, rmed, rq1, rq3, samples);
  fflush(stdout);
  g_added = amed;
  g_ratio = rmed;
  free(mine);
  free(ob);
  free(ratio);
  free(added);
}

/* One operand of `bytes` (at least OPERAND_ELEMS doubles): from malloc's program-break heap, or
 * its own 4 MB mapping. (The double operands, 192 KB, are over malloc's default 128 KB mmap
 * threshold, which a free of a large block may or may not have raised by then: the threshold is
 * set so that they are in the heap whatever the process did before.) */
static void *operand(size_t bytes, int use_mmap) {
  if (!use_mmap) {
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    return malloc(bytes);
  }
  void *p = mmap(NULL, 4u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* Makes device 0's primary CUDA context current (driver API through dlopen: no link to CUDA).
 * Returns a word for the header. */
static const char *make_cuda_context(void) {
  void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu) return "failed (no libcuda.so.1)";
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(cu, "cuInit");
  int (*device_get)(int *, int) = (int (*)(int *, int))dlsym(cu, "cuDeviceGet");
  int (*retain)(void **, int) = (int (*)(void **, int))dlsym(cu, "cuDevicePrimaryCtxRetain");
  int (*set_current)(void *) = (int (*)(void *))dlsym(cu, "cuCtxSetCurrent");
  int dev = 0;
  void *ctx = NULL;
  if (!init || !device_get || !retain || !set_current) return "failed (driver symbols missing)";
  if (init(0) || device_get(&dev, 0) || retain(&ctx, dev) || set_current(ctx)) return "failed (driver error)";
  return "made (device 0's primary context, current on this thread)";
}

int main(int argc, char **argv) {
  int samples = 301, threads = 1, use_mmap = 0, cuda_context = 0;
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "--samples") && a + 1 < argc) samples = atoi(argv[++a]) > 4 ? atoi(argv[a]) : 5;
    else if (!strcmp(argv[a], "--threads") && a + 1 < argc) threads = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--alloc") && a + 1 < argc && (!strcmp(argv[a + 1], "heap") || !strcmp(argv[a + 1], "mmap")))
      use_mmap = !strcmp(argv[++a], "mmap");
    else if (!strcmp(argv[a], "--cuda-context")) cuda_context = 1;
    else {
      fprintf(stderr, "usage: bench_cpu_overhead [--samples S] [--threads T] [--alloc heap|mmap] [--cuda-context]\n");
      return 2;
    }
  }
  const char *context = cuda_context ? make_cuda_context() : "none made by the program";
  void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "bench_cpu_overhead: cannot load libopenblas.so.0: %s\n", dlerror());
    return 2;
  }
  ob_sgemm = (sgemm_t)dlsym(h, "sgemm_");
  ob_sgemv = (sgemv_t)dlsym(h, "sgemv_");
  ob_dgemm = (dgemm_t)dlsym(h, "dgemm_");
  ob_dgemv = (dgemv_t)dlsym(h, "dgemv_");
  void (*set_threads)(int) = (void (*)(int))dlsym(h, "openblas_set_num_threads");
  if (!ob_sgemm || !ob_sgemv || !ob_dgemm || !ob_dgemv) {
    fprintf(stderr, "bench_cpu_overhead: OpenBLAS lacks a routine\n");
    return 2;
  }
  if (set_threads && threads > 0) set_threads(threads);
  fa = operand(OPERAND_ELEMS * sizeof(float), use_mmap);
  fb = operand(OPERAND_ELEMS * sizeof(float), use_mmap);
  fc = operand(OPERAND_ELEMS * sizeof(float), use_mmap);
  da = operand(OPERAND_ELEMS * sizeof(double), use_mmap);
  db = operand(OPERAND_ELEMS * sizeof(double), use_mmap);
  dc = operand(OPERAND_ELEMS * sizeof(double), use_mmap);
  if (!fa || !fb || !fc || !da || !db || !dc) {
    fprintf(stderr, "bench_cpu_overhead: out of memory\n");
    return 2;
  }
  fill();

  char cpu[256] = "?";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (!strncmp(line, "model name", 10)) {
        const char *c = strchr(line, ':');
        snprintf(cpu, sizeof cpu, "%s", c ? c + 2 : line);
        cpu[strcspn(cpu, "\n")] = 0;
        break;
      }
    fclose(f);
  }
  struct utsname u;
  uname(&u);
  time_t now = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%MZ", gmtime(&now));
  printf("# bench_cpu_overhead: libmyblas %s (rev %s) host-array calls on the CPU path beside OpenBLAS alone,"
         " one process\n", myblas_version(), MYBLAS_GIT_REV);
  printf("# date %s; host %s (%s, %ld CPUs online); GPU usable: %s; OpenBLAS threads %d; MYBLAS_BACKEND=%s\n", date,
         u.nodename, cpu, sysconf(_SC_NPROCESSORS_ONLN), myblas_gpu_available() ? "yes" : "no", threads,
         getenv("MYBLAS_BACKEND") ? getenv("MYBLAS_BACKEND") : "(unset: auto)");
  printf("# operands: %s; CUDA context: %s\n", use_mmap ? "mmap (own 4 MB mappings)" : "heap (malloc, 96 and 192 KB blocks in the program break)",
         context);
  printf("# command:");
  for (int a = 0; a < argc; ++a) printf(" %s", argv[a]);
  printf("\n# per shape: %d alternating samples of ~50 us each side; *_ns: median per-call time; ratio = OpenBLAS/myblas"
         " per sample (median, quartiles); alpha 1, beta 0.5, random data in [-1, 1]\n", samples);
  printf("routine,trans,m,n,k,myblas_ns,openblas_ns,added_ns,added_q1,added_q3,ratio_median,ratio_q1,ratio_q3,"
         "samples\n");
  const int sq[] = {64, 128};
  double gemv_added = 0, gemv_ratio = 0, gemm_added, gemm_ratio;
  for (int i = 0; i < 2; ++i) {
    g_m = g_n = sq[i];
    g_k = 0;
    g_ta = 'N';
    pair("sgemv", run_sgemv, samples);
    if (i == 0) {
      gemv_added = g_added;
      gemv_ratio = g_ratio;
    }
    g_ta = 'T';
    pair("sgemv", run_sgemv, samples);
  }
  g_ta = g_tb = 'N';
  g_m = g_n = g_k = 64;
  pair("sgemm", run_sgemm, samples);
  gemm_added = g_added;
  gemm_ratio = g_ratio;
  g_m = 127;
  g_n = 129;
  g_k = 131;
  pair("sgemm", run_sgemm, samples);
  g_m = g_n = 64;
  g_k = 0;
  pair("dgemv", run_dgemv, samples);
  g_k = 64;
  pair("dgemm", run_dgemm, samples);
  printf("# target SGEMV N 64x64: OpenBLAS/myblas %.3f (>= 0.90: %s), library cost %.1f ns a call (<= 30: %s)\n",
         gemv_ratio, gemv_ratio >= 0.90 ? "met" : "not met", gemv_added, gemv_added <= 30 ? "met" : "not met");
  printf("# target SGEMM NN 64^3: OpenBLAS/myblas %.3f (>= 0.98: %s), library cost %.1f ns a call (<= 30: %s)\n",
         gemm_ratio, gemm_ratio >= 0.98 ? "met" : "not met", gemm_added, gemm_added <= 30 ? "met" : "not met");
  return 0;
}

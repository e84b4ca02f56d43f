/*
 * bench_host_l3: host-array Level 3 and GEMV in S, D, C, Z end to end, as an unmodified program
 * sees them: the program calls the Fortran symbols (dgemm_, zherk_, ...) through the dynamic
 * linker, so the library answering is whichever is preloaded (libmyblas: path as labelled;
 * libnvblas: NVBLAS over OpenBLAS), or, with --openblas, OpenBLAS dlopened and called directly.
 * Square operands of order n (k = n), alpha 1 (real part), beta 0.5; side L, uplo L, trans N,
 * non-unit diagonal. Time: median wall time of at least 3 calls (more while under 0.3 s).
 * Output CSV: routine,path,m,n,k,time_ms,gflops   (gflops in real flops: 4x for complex)
 * usage: bench_host_l3 LABEL [--openblas] [--routines dgemm,dsyrk,...] [--sizes 64,128,...]
 *                            [--max-cpu-ms MS]   (skip a size once a call took longer)
 *                            [--beta0]   (beta 0: C is written, never read)
 *        bench_host_l3 LABEL --check [--routines ...] [--sizes ...]: no timing; one call through
 *        the preloaded library and one through OpenBLAS (dlopened) on the same inputs, and the
 *        line "check,routine,n,max_rel_diff" (max |ours - OpenBLAS| / max |OpenBLAS|).
 *        bench_host_l3 LABEL --paired [--routines ...] [--sizes ...]: libmyblas preloaded; its
 *        three settings auto, cpu and cublas (myblas_set_backend) take turns on the same inputs
 *        in one process: rounds of one sample per setting, the order rotating each round, a
 *        sample the mean of enough calls to last about a millisecond (C or B restored between
 *        calls, outside the timing; one untimed call after each switch). Per round, the better of cpu and cublas over auto; the
 *        line "paired,routine,n,auto_ms,cpu_ms,gpu_ms,auto_path,ratio,q1,q3" gives the medians
 *        and the ratio's median and quartiles ("the auto choice reaches this fraction of the
 *        better path's speed"). The cpu setting slower than cublas by 4x at two sizes in a row
 *        is not run at larger sizes ("-"), nor (GEMV only) cublas slower than cpu by 4x, nor a
 *        setting whose call took over 4 s.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *g_lib; /* NULL: the dynamic linker's scope (a preloaded library) */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void *sym(const char *name) {
  char s[64];
  snprintf(s, sizeof s, "%s_", name);
  void *f = dlsym(g_lib ? g_lib : RTLD_DEFAULT, s);
  if (!f) {
    fprintf(stderr, "no %s\n", s);
    exit(2);
  }
  return f;
}

typedef void (*gemm_t)(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
                       const int *, const void *, const int *, const void *, void *, const int *);
typedef void (*gemv_t)(const char *, const int *, const int *, const void *, const void *, const int *, const void *,
                       const int *, const void *, void *, const int *);
typedef void (*symm_t)(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                       const void *, const int *, const void *, void *, const int *);
typedef void (*syrk_t)(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                       const void *, void *, const int *);
typedef void (*syr2k_t)(const char *, const char *, const int *, const int *, const void *, const void *, const int *,
                        const void *, const int *, const void *, void *, const int *);
typedef void (*trxm_t)(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
                       const void *, const int *, void *, const int *);

static size_t esize(char t) { return t == 's' ? 4 : (t == 'd' || t == 'c') ? 8 : 16; }
static int cplx(char t) { return t == 'c' || t == 'z'; }

static void fill(void *p, char t, size_t count, double diag_add, int n, unsigned seed) {
  const size_t reals = count * (cplx(t) ? 2 : 1);
  const int dbl = t == 'd' || t == 'z';
  for (size_t i = 0; i < reals; ++i) {
    seed = seed * 1664525u + 1013904223u;
    const double v = (double)(seed >> 8) / (double)(1u << 24) * 2.0 - 1.0;
    if (dbl) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
  }
  if (diag_add != 0)
    for (int i = 0; i < n; ++i) {
      const size_t e = ((size_t)i + (size_t)i * n) * (cplx(t) ? 2 : 1);
      if (dbl) ((double *)p)[e] += diag_add;
      else ((float *)p)[e] += (float)diag_add;
    }
}

static double flops(const char *fam, double n) {
  if (!strcmp(fam, "gemm")) return 2 * n * n * n;
  if (!strcmp(fam, "gemv")) return 2 * n * n;
  if (!strcmp(fam, "symm") || !strcmp(fam, "hemm")) return 2 * n * n * n;
  if (!strcmp(fam, "syrk") || !strcmp(fam, "herk")) return n * n * n;
  if (!strcmp(fam, "syr2k") || !strcmp(fam, "her2k")) return 2 * n * n * n;
  return n * n * n; /* trmm, trsm */
}

/* One call of routine `name` (type letter + family) on order n; B is restored for trmm/trsm
 * outside the timing by the caller. */
static void call(const char *name, int n, const void *al, const void *be, const void *ral, const void *rbe, void *a,
                 void *b, void *c) {
  const char *fam = name + 1;
  const char N = 'N', L = 'L';
  const int one = 1;
  void *f = sym(name);
  if (!strcmp(fam, "gemm")) ((gemm_t)f)(&N, &N, &n, &n, &n, al, a, &n, b, &n, be, c, &n);
  else if (!strcmp(fam, "gemv")) ((gemv_t)f)(&N, &n, &n, al, a, &n, b, &one, be, c, &one);
  else if (!strcmp(fam, "symm") || !strcmp(fam, "hemm")) ((symm_t)f)(&L, &L, &n, &n, al, a, &n, b, &n, be, c, &n);
  else if (!strcmp(fam, "syrk")) ((syrk_t)f)(&L, &N, &n, &n, al, a, &n, be, c, &n);
  else if (!strcmp(fam, "herk")) ((syrk_t)f)(&L, &N, &n, &n, ral, a, &n, rbe, c, &n);
  else if (!strcmp(fam, "syr2k")) ((syr2k_t)f)(&L, &N, &n, &n, al, a, &n, b, &n, be, c, &n);
  else if (!strcmp(fam, "her2k")) ((syr2k_t)f)(&L, &N, &n, &n, al, a, &n, b, &n, rbe, c, &n);
  else ((trxm_t)f)(&L, &L, &N, &N, &n, &n, al, a, &n, c, &n);
}

typedef int (*set_backend_t)(const char *);
typedef const char *(*last_path_t)(void);

static void sort_d(double *x, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && x[j] < x[j - 1]; --j) {
      const double t = x[j];
      x[j] = x[j - 1];
      x[j - 1] = t;
    }
}

/* The paired comparison of auto against the cpu and cublas settings (see the top comment). */
static int paired(const char *routines_in, const char *sizes_in) {
  set_backend_t set_backend = (set_backend_t)dlsym(RTLD_DEFAULT, "myblas_set_backend");
  last_path_t last_path = (last_path_t)dlsym(RTLD_DEFAULT, "myblas_last_path");
  if (!set_backend || !last_path) {
    fprintf(stderr, "--paired needs libmyblas preloaded (myblas_set_backend)\n");
    return 2;
  }
  static const char *const settings[3] = {"auto", "cpu", "cublas"};
  printf("paired,routine,n,auto_ms,cpu_ms,gpu_ms,auto_path,ratio,q1,q3\n");
  char routines[1024];
  snprintf(routines, sizeof routines, "%s", routines_in);
  int total = 0, within = 0;
  char *rsave = NULL;
  for (char *r = strtok_r(routines, ",", &rsave); r; r = strtok_r(NULL, ",", &rsave)) {
    const char t = r[0];
    const int dbl = t == 'd' || t == 'z';
    const int tri = !strcmp(r + 1, "trmm") || !strcmp(r + 1, "trsm");
    const int gemv = !strcmp(r + 1, "gemv");
    const double al_d[2] = {1.0, 0.25}, be_d[2] = {0.5, -0.25}, ral_d[2] = {1.0, 0}, rbe_d[2] = {0.5, 0};
    const float al_f[2] = {1.f, 0.25f}, be_f[2] = {0.5f, -0.25f}, ral_f[2] = {1.f, 0}, rbe_f[2] = {0.5f, 0};
    const void *al = dbl ? (const void *)al_d : (const void *)al_f, *be = dbl ? (const void *)be_d : (const void *)be_f;
    const void *ral = dbl ? (const void *)ral_d : (const void *)ral_f, *rbe = dbl ? (const void *)rbe_d : (const void *)rbe_f;
    if (tri) al = ral;
    int active[3] = {1, 1, 1}, slow_run[3] = {0, 0, 0};
    char sz[256];
    snprintf(sz, sizeof sz, "%s", sizes_in);
    char *save = NULL;
    for (char *s = strtok_r(sz, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
      const int n = atoi(s);
      const size_t bytes = (size_t)n * n * esize(t), cbytes = gemv ? (size_t)n * esize(t) : bytes;
      void *a = malloc(bytes), *b = malloc(bytes), *c = malloc(cbytes), *c0 = malloc(cbytes);
      if (!a || !b || !c || !c0) {
        fprintf(stderr, "out of memory at n = %d\n", n);
        return 2;
      }
      fill(a, t, (size_t)n * n, tri ? n : 0, n, 1u);
      fill(b, t, (size_t)n * n, 0, n, 2u);
      fill(c0, t, cbytes / esize(t), 0, gemv ? 0 : n, 3u);
      /* warm-up (first-call set-up, pinned buffers, the CPU BLAS's threads) and the calls per
       * sample of each setting */
      int per[3] = {1, 1, 1};
      double warm_ms[3] = {0, 0, 0};
      char auto_path[16] = "?";
      for (int p = 0; p < 3; ++p) {
        if (!active[p]) continue;
        set_backend(settings[p]);
        double w = 0;
        for (int i = 0; i < 2; ++i) {
          memcpy(c, c0, cbytes);
          const double t0 = now_ms();
          call(r, n, al, be, ral, rbe, a, b, c);
          w = now_ms() - t0;
        }
        if (p == 0) snprintf(auto_path, sizeof auto_path, "%s", last_path());
        warm_ms[p] = w;
        per[p] = w >= 1.0 ? 1 : (int)(1.0 / (w > 1e-4 ? w : 1e-4)) + 1;
        if (per[p] > 400) per[p] = 400;
      }
      /* rounds: more while a round is short */
      double round_ms = 0, first[3] = {0, 0, 0};
      int rounds = 0;
      double samples[3][41], ratio[41];
      for (int rr = 0; rr < 41; ++rr) {
        const double r0 = now_ms();
        for (int q = 0; q < 3; ++q) {
          const int p = (q + rr) % 3;
          if (!active[p]) continue;
          set_backend(settings[p]);
          if (warm_ms[p] < 50) { /* one untimed call after the switch: the CPU BLAS's threads awake,
                                    the other setting's work drained, whichever ran before */
            memcpy(c, c0, cbytes);
            call(r, n, al, be, ral, rbe, a, b, c);
          }
          double sum = 0;
          for (int i = 0; i < per[p]; ++i) {
            memcpy(c, c0, cbytes);
            const double t0 = now_ms();
            call(r, n, al, be, ral, rbe, a, b, c);
            sum += now_ms() - t0;
          }
          samples[p][rr] = sum / per[p];
        }
        const double best = !active[1] ? samples[2][rr] : !active[2] ? samples[1][rr]
                          : samples[1][rr] < samples[2][rr] ? samples[1][rr] : samples[2][rr];
        ratio[rr] = best / samples[0][rr];
        rounds = rr + 1;
        round_ms = now_ms() - r0;
        if (rounds >= 5 && round_ms * rounds > 400) break; /* enough for a median */
        if (rounds >= 3 && round_ms > 1500) break;
        if (rounds >= 11 && round_ms * rounds > 100) break;
      }
      set_backend(NULL);
      double med[3] = {0, 0, 0};
      for (int p = 0; p < 3; ++p) {
        if (!active[p]) continue;
        double tmp[41];
        memcpy(tmp, samples[p], sizeof(double) * rounds);
        sort_d(tmp, rounds);
        med[p] = tmp[rounds / 2];
        first[p] = med[p];
      }
      sort_d(ratio, rounds);
      const double rmed = ratio[rounds / 2], q1 = ratio[rounds / 4], q3 = ratio[(3 * rounds) / 4];
      char cm[32] = "-", gm[32] = "-";
      if (active[1]) snprintf(cm, sizeof cm, "%.4f", med[1]);
      if (active[2]) snprintf(gm, sizeof gm, "%.4f", med[2]);
      printf("paired,%s,%d,%.4f,%s,%s,%s,%.3f,%.3f,%.3f\n", r, n, med[0], cm, gm, auto_path, rmed, q1, q3);
      fflush(stdout);
      ++total;
      within += rmed >= 0.95;
      /* the CPU setting 4x slower than the GPU's at two sizes in a row is dropped (the GPU's lead
       * grows with n), and for GEMV the GPU setting the other way round (it never catches up:
       * every byte crosses the host link once); either over 4 s a call */
      if (active[1] && active[2]) {
        slow_run[1] = first[1] > 4 * first[2] ? slow_run[1] + 1 : 0;
        slow_run[2] = first[2] > 4 * first[1] ? slow_run[2] + 1 : 0;
        if (slow_run[1] >= 2) active[1] = 0;
        if (slow_run[2] >= 2 && gemv) active[2] = 0;
      }
      for (int p = 1; p < 3; ++p)
        if (active[p] && first[p] > 4000) active[p] = 0;
      free(a), free(b), free(c), free(c0);
      if (!active[1] && !active[2]) break;
    }
  }
  printf("# paired: auto within 5%% of the better setting (median ratio >= 0.95) on %d of %d (routine, n)\n",
         within, total);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_host_l3 LABEL [--openblas] [--routines r,...] [--sizes n,...] [--max-cpu-ms MS]\n");
    return 2;
  }
  const char *label = argv[1];
  char routines[1024] = "dgemm,dsyrk,dtrsm,zgemm";
  char sizes[256] = "64,128,256,512,1024,2048,4096,8192";
  double max_ms = 1e30;
  int check = 0, beta0 = 0, pair = 0;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--check")) check = 1;
    else if (!strcmp(argv[i], "--paired")) pair = 1;
    else if (!strcmp(argv[i], "--beta0")) beta0 = 1;
    if (!strcmp(argv[i], "--openblas")) {
      g_lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
      if (!g_lib) {
        fprintf(stderr, "cannot load OpenBLAS: %s\n", dlerror());
        return 2;
      }
    } else if (!strcmp(argv[i], "--routines") && i + 1 < argc) {
      snprintf(routines, sizeof routines, "%s", argv[++i]);
    } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      snprintf(sizes, sizeof sizes, "%s", argv[++i]);
    } else if (!strcmp(argv[i], "--max-cpu-ms") && i + 1 < argc) {
      max_ms = atof(argv[++i]);
    }
  }
  if (pair) return paired(routines, sizes);
  const double bb = beta0 ? 0.0 : 0.5, bi = beta0 ? 0.0 : -0.25;
  const double al_d[2] = {1.0, 0.25}, be_d[2] = {bb, bi}, ral_d[2] = {1.0, 0}, rbe_d[2] = {bb, 0};
  const float al_f[2] = {1.f, 0.25f}, be_f[2] = {(float)bb, (float)bi}, ral_f[2] = {1.f, 0}, rbe_f[2] = {(float)bb, 0};
  char *rsave = NULL;
  for (char *r = strtok_r(routines, ",", &rsave); r; r = strtok_r(NULL, ",", &rsave)) {
    const char t = r[0];
    const int dbl = t == 'd' || t == 'z';
    const int tri = !strcmp(r + 1, "trmm") || !strcmp(r + 1, "trsm");
    char sz[256];
    snprintf(sz, sizeof sz, "%s", sizes);
    char *save = NULL;
    for (char *s = strtok_r(sz, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
      const int n = atoi(s);
      const size_t bytes = (size_t)n * n * esize(t);
      void *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *c0 = malloc(bytes);
      if (!a || !b || !c || !c0) {
        fprintf(stderr, "out of memory at n = %d\n", n);
        return 2;
      }
      fill(a, t, (size_t)n * n, tri ? n : 0, n, 1u);
      fill(b, t, (size_t)n * n, 0, n, 2u);
      fill(c0, t, (size_t)n * n, 0, n, 3u);
      const void *al = dbl ? (const void *)al_d : (const void *)al_f, *be = dbl ? (const void *)be_d : (const void *)be_f;
      const void *ral = dbl ? (const void *)ral_d : (const void *)ral_f, *rbe = dbl ? (const void *)rbe_d : (const void *)rbe_f;
      if (tri) al = ral;
      if (check) {
        void *ref_lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!ref_lib) {
          fprintf(stderr, "cannot load OpenBLAS: %s\n", dlerror());
          return 2;
        }
        void *cr = malloc(bytes);
        memcpy(c, c0, bytes);
        memcpy(cr, c0, bytes);
        call(r, n, al, be, ral, rbe, a, b, c);
        void *saved = g_lib;
        g_lib = ref_lib;
        call(r, n, al, be, ral, rbe, a, b, cr);
        g_lib = saved;
        const size_t reals = (size_t)n * (strcmp(r + 1, "gemv") ? n : 1) * (cplx(t) ? 2 : 1);
        double num = 0, den = 0;
        for (size_t i = 0; i < reals; ++i) {
          const double x = dbl ? ((double *)c)[i] : ((float *)c)[i], y = dbl ? ((double *)cr)[i] : ((float *)cr)[i];
          if (fabs(x - y) > num || x != x) num = x != x ? INFINITY : fabs(x - y);
          if (fabs(y) > den) den = fabs(y);
        }
        printf("check,%s,%d,%.3e\n", r, n, den > 0 ? num / den : num);
        fflush(stdout);
        free(cr), free(a), free(b), free(c), free(c0);
        continue;
      }
      double times[64];
      int reps = 0;
      double spent = 0;
      while (reps < 64 && (reps < 3 || (spent < 300 && reps < 15))) {
        memcpy(c, c0, bytes); /* (trmm/trsm overwrite B: each call starts from the same one) */
        const double t0 = now_ms();
        call(r, n, al, be, ral, rbe, a, b, c);
        times[reps] = now_ms() - t0;
        spent += times[reps++];
        if (times[reps - 1] > max_ms) break;
      }
      sort_d(times, reps); /* the median */
      const double med = times[reps / 2];
      const double gf = flops(r + 1, n) * (cplx(t) ? 4 : 1) / (med * 1e6);
      printf("%s,%s,%d,%d,%d,%.4f,%.1f\n", r, label, n, n, !strcmp(r + 1, "gemv") ? 0 : n, med, gf);
      fflush(stdout);
      free(a), free(b), free(c), free(c0);
      if (med > max_ms) break;
    }
  }
  return 0;
}

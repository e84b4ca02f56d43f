/* A program with 64-bit integers throughout (int64_t sizes, leading dimensions, increments)
 * calling libmyblas's ILP64 names: the Fortran dgemm_64_ (the `64_` convention of Julia and
 * OpenBLAS builds, and the binary name of the `_64` convention), dgemm_64 (MKL), and CBLAS
 * cblas_dgemm_64 and cblas_dgemm64_, for every family in D and Z.
 *
 *   ilp64_check small   each ILP64 call against the LP64 call on the same data: bitwise the same
 *                       result (the same problem takes the same path), and not a no-op
 *   ilp64_check big     (GPU) dgemm_64_ on device pointers with m = k = 46341, n = 8: A has
 *                       m*k > 2^31 elements (17.2 GB). Entries are small multiples of 1/8, so
 *                       every sum is exact in FP64 whatever the order: sampled rows of C are
 *                       compared exactly with a host computation. Exit 77 (skipped) with the
 *                       reason when there is no GPU or it lacks the memory.
 * Exit status 0 when every check passed, 1 otherwise. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myblas.h"

static int failures = 0;
static uint64_t lcg = 0x9E3779B97F4A7C15ull;

/* Uniform in [-1, 1], never 0. */
static double uniform(void) {
  for (;;) {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    double v = (double)(lcg >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (v != 0) return v;
  }
}
static void fill(double* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = uniform();
}

/* c64 (ILP64 call) must equal c32 (LP64 call) bitwise and differ from c0. */
static void same(const char* what, const double* c32, const double* c64, const double* c0, int64_t n) {
  if (memcmp(c32, c64, (size_t)n * sizeof(double)) != 0) {
    int64_t i = 0;
    while (i < n && memcmp(&c32[i], &c64[i], sizeof(double)) == 0) ++i;
    fprintf(stderr, "FAIL %s: element %lld differs: LP64 %.17g, ILP64 %.17g\n", what, (long long)i, c32[i], c64[i]);
    ++failures;
  } else if (memcmp(c32, c0, (size_t)n * sizeof(double)) == 0) {
    fprintf(stderr, "FAIL %s: the output did not change\n", what);
    ++failures;
  } else if (strcmp(myblas_last_path(), "none") == 0) {
    fprintf(stderr, "FAIL %s: last path none\n", what);
    ++failures;
  } else {
    printf("ok   %s (path %s)\n", what, myblas_last_path());
  }
}

enum { N = 37, K = 19, LD = 41, SZ = 2 * LD * LD };

static int small(void) {
  static double a[SZ], b[SZ], c0[SZ], c1[SZ], c2[SZ], c3[SZ], x[SZ];
  const int n32 = N, k32 = K, ld32 = LD, inc32 = -2, one32 = 1;
  const int64_t n = N, k = K, ld = LD, inc = -2, one = 1;
  const double al[2] = {0.75, -0.5}, be[2] = {-0.25, 0.5};
  fill(a, SZ), fill(b, SZ), fill(c0, SZ), fill(x, SZ);
  /* Each check: the LP64 call on c1, ILP64 names on c2 and c3, from the same c0. */
#define RESET() memcpy(c1, c0, sizeof c0), memcpy(c2, c0, sizeof c0), memcpy(c3, c0, sizeof c0)

#define CALLS(P, AL, BE, RAL, RBE)                                                                                   \
  {                                                                                                               \
    double *o1 = c1, *o2 = c2, *o3 = c3;                                                                          \
    RESET();                                                                                                      \
    P##gemm_("N", "T", &n32, &n32, &k32, AL, a, &ld32, b, &ld32, BE, o1, &ld32);                                  \
    P##gemm_64_("N", "T", &n, &n, &k, AL, a, &ld, b, &ld, BE, o2, &ld);                                           \
    P##gemm_64("N", "T", &n, &n, &k, AL, a, &ld, b, &ld, BE, o3, &ld);                                            \
    same(#P "gemm_64_", o1, o2, c0, SZ), same(#P "gemm_64", o1, o3, c0, SZ);                                      \
    RESET();                                                                                                      \
    cblas_##P##gemm(CblasRowMajor, CblasConjTrans, CblasNoTrans, n32, n32, k32, RAL, a, ld32, b, ld32, RBE, o1,  \
                    ld32);                                                                                        \
    cblas_##P##gemm_64(CblasRowMajor, CblasConjTrans, CblasNoTrans, n, n, k, RAL, a, ld, b, ld, RBE, o2, ld);     \
    cblas_##P##gemm64_(CblasRowMajor, CblasConjTrans, CblasNoTrans, n, n, k, RAL, a, ld, b, ld, RBE, o3, ld);     \
    same("cblas_" #P "gemm_64", o1, o2, c0, SZ), same("cblas_" #P "gemm64_", o1, o3, c0, SZ);                     \
    RESET();                                                                                                      \
    P##gemv_("C", &n32, &k32, AL, a, &ld32, x, &inc32, BE, o1, &one32);                                           \
    P##gemv_64_("C", &n, &k, AL, a, &ld, x, &inc, BE, o2, &one);                                                  \
    same(#P "gemv_64_", o1, o2, c0, SZ);                                                                          \
    RESET();                                                                                                      \
    cblas_##P##gemv(CblasRowMajor, CblasConjTrans, n32, k32, RAL, a, ld32, x, inc32, RBE, o1, -1);                \
    cblas_##P##gemv_64(CblasRowMajor, CblasConjTrans, n, k, RAL, a, ld, x, inc, RBE, o2, -1);                     \
    same("cblas_" #P "gemv_64", o1, o2, c0, SZ);                                                                  \
    RESET();                                                                                                      \
    P##symm_("R", "L", &n32, &k32, AL, a, &ld32, b, &ld32, BE, o1, &ld32);                                        \
    P##symm_64_("R", "L", &n, &k, AL, a, &ld, b, &ld, BE, o2, &ld);                                               \
    cblas_##P##symm64_(CblasColMajor, CblasRight, CblasLower, n, k, RAL, a, ld, b, ld, RBE, o3, ld);              \
    same(#P "symm_64_", o1, o2, c0, SZ), same("cblas_" #P "symm64_", o1, o3, c0, SZ);                             \
    RESET();                                                                                                      \
    P##syrk_("U", "T", &n32, &k32, AL, a, &ld32, BE, o1, &ld32);                                                  \
    P##syrk_64_("U", "T", &n, &k, AL, a, &ld, BE, o2, &ld);                                                       \
    cblas_##P##syrk_64(CblasRowMajor, CblasLower, CblasNoTrans, n, k, RAL, a, ld, RBE, o3, ld);                   \
    same(#P "syrk_64_", o1, o2, c0, SZ), same("cblas_" #P "syrk_64 (row-major: the same call)", o1, o3, c0, SZ);  \
    RESET();                                                                                                      \
    P##syr2k_("L", "N", &n32, &k32, AL, a, &ld32, b, &ld32, BE, o1, &ld32);                                       \
    P##syr2k_64_("L", "N", &n, &k, AL, a, &ld, b, &ld, BE, o2, &ld);                                              \
    cblas_##P##syr2k_64(CblasColMajor, CblasLower, CblasNoTrans, n, k, RAL, a, ld, b, ld, RBE, o3, ld);           \
    same(#P "syr2k_64_", o1, o2, c0, SZ), same("cblas_" #P "syr2k_64", o1, o3, c0, SZ);                           \
    RESET();                                                                                                      \
    P##trmm_("L", "U", "C", "U", &n32, &k32, AL, a, &ld32, o1, &ld32);                                            \
    P##trmm_64_("L", "U", "C", "U", &n, &k, AL, a, &ld, o2, &ld);                                                 \
    cblas_##P##trmm_64(CblasRowMajor, CblasRight, CblasLower, CblasConjTrans, CblasUnit, k, n, RAL, a, ld, o3,    \
                       ld);                                                                                       \
    same(#P "trmm_64_", o1, o2, c0, SZ), same("cblas_" #P "trmm_64 (row-major: the same call)", o1, o3, c0, SZ);  \
  }
  /* TRSM on a well-conditioned triangle: a copy of a with a dominant diagonal. */
#define TRSM(P, AL, RAL, STEP)                                                                                    \
  {                                                                                                               \
    static double t[SZ];                                                                                          \
    memcpy(t, a, sizeof t);                                                                                       \
    for (int64_t i = 0; i < ld * ld * STEP; ++i) t[i] *= 0.01;                                                    \
    for (int64_t i = 0; i < n; ++i) t[(i + i * ld) * STEP] = 2.0;                                                 \
    RESET();                                                                                                      \
    P##trsm_("R", "L", "N", "N", &k32, &n32, AL, t, &ld32, c1, &ld32);                                            \
    P##trsm_64_("R", "L", "N", "N", &k, &n, AL, t, &ld, c2, &ld);                                                 \
    cblas_##P##trsm64_(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, k, n, RAL, t, ld, c3,   \
                       ld);                                                                                       \
    same(#P "trsm_64_", c1, c2, c0, SZ), same("cblas_" #P "trsm64_", c1, c3, c0, SZ);                             \
  }
  CALLS(d, al, be, al[0], be[0])
  TRSM(d, al, al[0], 1)
  CALLS(z, al, be, al, be)
  TRSM(z, al, al, 2)
  {
    /* The Hermitian routines (real alpha/beta for herk, real beta for her2k). */
    const double ral = 0.75, rbe = -0.25;
    RESET();
    zhemm_("L", "U", &n32, &k32, al, a, &ld32, b, &ld32, be, c1, &ld32);
    zhemm_64_("L", "U", &n, &k, al, a, &ld, b, &ld, be, c2, &ld);
    cblas_zhemm_64(CblasRowMajor, CblasRight, CblasLower, k, n, al, a, ld, b, ld, be, c3, ld);
    same("zhemm_64_", c1, c2, c0, SZ), same("cblas_zhemm_64 (row-major: the same call)", c1, c3, c0, SZ);
    RESET();
    zherk_("L", "C", &n32, &k32, &ral, a, &ld32, &rbe, c1, &ld32);
    zherk_64_("L", "C", &n, &k, &ral, a, &ld, &rbe, c2, &ld);
    cblas_zherk64_(CblasRowMajor, CblasUpper, CblasNoTrans, n, k, ral, a, ld, rbe, c3, ld);
    same("zherk_64_", c1, c2, c0, SZ), same("cblas_zherk64_ (row-major: the same call)", c1, c3, c0, SZ);
    RESET();
    zher2k_("U", "N", &n32, &k32, al, a, &ld32, b, &ld32, &rbe, c1, &ld32);
    zher2k_64_("U", "N", &n, &k, al, a, &ld, b, &ld, &rbe, c2, &ld);
    cblas_zher2k_64(CblasColMajor, CblasUpper, CblasNoTrans, n, k, al, a, ld, b, ld, rbe, c3, ld);
    same("zher2k_64_", c1, c2, c0, SZ), same("cblas_zher2k_64", c1, c3, c0, SZ);
  }
  return failures ? 1 : 0;
}

/* A(i, l) = ((7 i + 13 l) mod 17 - 8) / 8, B(l, j) = ((5 l + 3 j) mod 11 - 5) / 8: every product
 * is a multiple of 1/64 of magnitude <= 1, every partial sum exact in FP64. */
static double a_of(int64_t i, int64_t l) { return (double)((7 * i + 13 * l) % 17 - 8) / 8.0; }
static double b_of(int64_t l, int64_t j) { return (double)((5 * l + 3 * j) % 11 - 5) / 8.0; }

static int big(void) {
  const int64_t m = 46341, k = 46341, n = 8;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    printf("SKIPPED: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  const size_t bytes_a = (size_t)m * (size_t)k * sizeof(double);
  const size_t need = bytes_a + (size_t)(k + m) * n * sizeof(double) + ((size_t)1 << 30);
  printf("A: %lld x %lld = %lld elements (2^31 = 2147483648), %.2f GB; device free %.2f of %.2f GB\n", (long long)m,
         (long long)k, (long long)(m * k), bytes_a / 1e9, free_b / 1e9, total_b / 1e9);
  if (free_b < need) {
    printf("SKIPPED: the device has %.2f GB free, the case needs %.2f GB\n", free_b / 1e9, need / 1e9);
    return 77;
  }
  double *da = NULL, *db = NULL, *dc = NULL;
  if (cudaMalloc((void**)&da, bytes_a) != cudaSuccess || cudaMalloc((void**)&db, (size_t)k * n * 8) != cudaSuccess ||
      cudaMalloc((void**)&dc, (size_t)m * n * 8) != cudaSuccess) {
    printf("SKIPPED: cudaMalloc of %.2f GB failed\n", need / 1e9);
    return 77;
  }
  /* A column panels at a time through one host buffer. */
  const int64_t panel = 1024;
  double* h = malloc((size_t)m * panel * sizeof(double));
  for (int64_t l0 = 0; l0 < k; l0 += panel) {
    const int64_t w = k - l0 < panel ? k - l0 : panel;
    for (int64_t l = 0; l < w; ++l)
      for (int64_t i = 0; i < m; ++i) h[i + l * m] = a_of(i, l0 + l);
    cudaMemcpy(da + l0 * m, h, (size_t)(m * w) * sizeof(double), cudaMemcpyHostToDevice);
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t l = 0; l < k; ++l) h[l + j * k] = b_of(l, j);
  cudaMemcpy(db, h, (size_t)(k * n) * sizeof(double), cudaMemcpyHostToDevice);
  for (int64_t i = 0; i < m * n; ++i) h[i] = 0.5;
  cudaMemcpy(dc, h, (size_t)(m * n) * sizeof(double), cudaMemcpyHostToDevice);

  const double alpha = 1.0, beta = -2.0;
  dgemm_64_("N", "N", &m, &n, &k, &alpha, da, &m, db, &k, &beta, dc, &m);
  const cudaError_t sync = cudaDeviceSynchronize();
  printf("dgemm_64_ path %s (%s)\n", myblas_last_path(), cudaGetErrorString(sync));
  if (strcmp(myblas_last_path(), "none") == 0 || sync != cudaSuccess) ++failures;
  cudaMemcpy(h, dc, (size_t)(m * n) * sizeof(double), cudaMemcpyDeviceToHost);
  /* Rows near the start, around 2^31 / k, and at the end, plus a stride through the rest. */
  int checked = 0, bad = 0;
  for (int64_t i = 0; i < m; i += (i < 64 || i > m - 64 || (i > 46300 && i < 46341)) ? 1 : 997) {
    for (int64_t j = 0; j < n; ++j) {
      double want = beta * 0.5;
      for (int64_t l = 0; l < k; ++l) want += a_of(i, l) * b_of(l, j);
      ++checked;
      if (h[i + j * m] != want) {
        if (++bad <= 5)
          fprintf(stderr, "FAIL C(%lld,%lld) = %.17g, want %.17g\n", (long long)i, (long long)j, h[i + j * m], want);
      }
    }
  }
  printf("%d of %d sampled elements exact\n", checked - bad, checked);
  failures += bad;
  free(h);
  cudaFree(da), cudaFree(db), cudaFree(dc);
  return failures ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "big") == 0) return big();
  const int rc = small();
  printf("%s\n", rc ? "FAILED" : "all ILP64 calls agree with LP64");
  return rc;
}

/* bench/probe_sgemv_after_gemm.c: host SGEMV 8192^2 through the library, 7 back-to-back calls per
 * line, before and after one SGEMM 8192^3 through it (auto: the GPU pipeline) in the same process:
 * is the later SGEMV slower, for how long, and on which arrays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
void sgemm_(const char*,const char*,const int*,const int*,const int*,const float*,const float*,const int*,const float*,const int*,const float*,float*,const int*);
void sgemv_(const char*,const int*,const int*,const float*,const float*,const int*,const float*,const int*,const float*,float*,const int*);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static int n = 8192, one_i = 1;
static float one = 1.f, zero = 0.f;
static void gemv_block(const char* label, float* A, float* x, float* y) {
  double t[7];
  for (int r = 0; r < 7; ++r) { double t0 = now(); sgemv_("N", &n, &n, &one, A, &n, x, &one_i, &zero, y, &one_i); t[r] = now() - t0; }
  printf("%-34s", label); for (int r = 0; r < 7; ++r) printf(" %.3f", t[r]); printf(" ms\n"); fflush(stdout);
}
int main(void) {
  size_t nn = (size_t)n * n;
  float *A = malloc(nn * 4), *B = malloc(nn * 4), *C = malloc(nn * 4), *A2 = malloc(nn * 4), *x = malloc(n * 4), *y = malloc(n * 4);
  for (size_t i = 0; i < nn; ++i) { A[i] = (float)((i * 7919) % 1000) / 1000.f - 0.5f; B[i] = A[i]; C[i] = 0; A2[i] = A[i]; }
  for (int i = 0; i < n; ++i) x[i] = (float)(i % 13) / 13.f;
  gemv_block("before any SGEMM (A)", A, x, y);
  gemv_block("before any SGEMM (A2)", A2, x, y);
  double t0 = now(); sgemm_("N", "N", &n, &n, &n, &one, A, &n, B, &n, &zero, C, &n); printf("SGEMM 8192 %.2f ms\n", now() - t0);
  gemv_block("right after SGEMM (A, its operand)", A, x, y);
  gemv_block("after SGEMM (A2, untouched)", A2, x, y);
  usleep(500000);
  gemv_block("0.5 s later (A)", A, x, y);
  t0 = now(); sgemm_("N", "N", &n, &n, &n, &one, A2, &n, B, &n, &zero, C, &n); printf("SGEMM 8192 on A2 %.2f ms\n", now() - t0);
  gemv_block("after 2nd SGEMM (A)", A, x, y);
  gemv_block("after 2nd SGEMM (A2, its operand)", A2, x, y);
  return 0;
}

/* A stand-in CPU BLAS for test_interface_gemm_mixed.fake-cpu-blas: sgemm_ and sgemv_ (which
 * libmyblas requires of a CPU BLAS) as plain loops, and sbgemm_ / shgemm_ (16-bit A and B, FP32
 * C, OpenBLAS's signatures) as loops summing in double that count their calls, so that the test
 * sees libmyblas hand these routines to a CPU BLAS that exports them, and checks the results. */
#include <stdint.h>
#include <string.h>

int fake_gemm16_calls = 0;

static float from_bf16(uint16_t h) {
  const uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

static float from_half(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t x;
  if (e == 0x1f) {
    x = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    x = sign | ((e + 112u) << 23) | (m << 13);
  } else if (m == 0) {
    x = sign;
  } else { /* subnormal: normalise */
    int shift = 0;
    uint32_t mm = m;
    while (!(mm & 0x400u)) {
      mm <<= 1;
      ++shift;
    }
    x = sign | ((uint32_t)(113 - shift) << 23) | ((mm & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

static int notrans(const char* t) { return *t == 'N' || *t == 'n'; }

static void gemm16(float (*cv)(uint16_t), const char* ta, const char* tb, const int* m, const int* n, const int* k,
                   const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b, const int* ldb,
                   const float* beta, float* c, const int* ldc) {
  ++fake_gemm16_calls;
  for (int j = 0; j < *n; ++j)
    for (int i = 0; i < *m; ++i) {
      double s = 0;
      for (int l = 0; l < *k; ++l) {
        const uint16_t x = notrans(ta) ? a[i + (int64_t)l * *lda] : a[l + (int64_t)i * *lda];
        const uint16_t y = notrans(tb) ? b[l + (int64_t)j * *ldb] : b[j + (int64_t)l * *ldb];
        s += (double)cv(x) * cv(y);
      }
      float* cij = c + i + (int64_t)j * *ldc;
      *cij = *beta == 0.f ? (float)(*alpha * s) : (float)(*alpha * s + (double)*beta * *cij);
    }
}

void sbgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
             const uint16_t* a, const int* lda, const uint16_t* b, const int* ldb, const float* beta, float* c,
             const int* ldc) {
  gemm16(from_bf16, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void shgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
             const uint16_t* a, const int* lda, const uint16_t* b, const int* ldb, const float* beta, float* c,
             const int* ldc) {
  gemm16(from_half, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void sgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c,
            const int* ldc) {
  for (int j = 0; j < *n; ++j)
    for (int i = 0; i < *m; ++i) {
      double s = 0;
      for (int l = 0; l < *k; ++l)
        s += (double)(notrans(ta) ? a[i + (int64_t)l * *lda] : a[l + (int64_t)i * *lda]) *
             (notrans(tb) ? b[l + (int64_t)j * *ldb] : b[j + (int64_t)l * *ldb]);
      float* cij = c + i + (int64_t)j * *ldc;
      *cij = *beta == 0.f ? (float)(*alpha * s) : (float)(*alpha * s + (double)*beta * *cij);
    }
}

void sgemv_(const char* t, const int* m, const int* n, const float* alpha, const float* a, const int* lda,
            const float* x, const int* incx, const float* beta, float* y, const int* incy) {
  const int nt = notrans(t), ly = nt ? *m : *n, lx = nt ? *n : *m;
  const int64_t kx = *incx > 0 ? 0 : -(int64_t)(lx - 1) * *incx, ky = *incy > 0 ? 0 : -(int64_t)(ly - 1) * *incy;
  for (int i = 0; i < ly; ++i) {
    double s = 0;
    for (int l = 0; l < lx; ++l)
      s += (double)(nt ? a[i + (int64_t)l * *lda] : a[l + (int64_t)i * *lda]) * x[kx + (int64_t)l * *incx];
    float* yi = y + ky + (int64_t)i * *incy;
    *yi = *beta == 0.f ? (float)(*alpha * s) : (float)(*alpha * s + (double)*beta * *yi);
  }
}

#include "common/reference.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace mbtest {

namespace {
using sgemm_t = void (*)(const char*, const char*, const int*, const int*, const int*,
                         const float*, const float*, const int*, const float*, const int*,
                         const float*, float*, const int*);
using sgemv_t = void (*)(const char*, const int*, const int*, const float*, const float*,
                         const int*, const float*, const int*, const float*, float*, const int*);
struct Ref {
  sgemm_t gemm = nullptr;
  sgemv_t gemv = nullptr;
  const char* name = "libopenblas.so.0";
  void* handle = nullptr;
};

const Ref& ref() {
  static const Ref r = [] {
    Ref x;
    void* h = dlopen(x.name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "test reference: cannot load %s: %s\n", x.name, dlerror());
      std::abort();
    }
    x.handle = h;
    x.gemm = reinterpret_cast<sgemm_t>(dlsym(h, "sgemm_"));
    x.gemv = reinterpret_cast<sgemv_t>(dlsym(h, "sgemv_"));
    if (!x.gemm || !x.gemv) std::abort();
    return x;
  }();
  return r;
}
}  // namespace

void ref_sgemm(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda,
               const float* b, int ldb, float beta, float* c, int ldc) {
  ref().gemm(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}

void ref_sgemv(char t, int m, int n, float alpha, const float* a, int lda, const float* x,
               int incx, float beta, float* y, int incy) {
  ref().gemv(&t, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}

void* ref_symbol(const char* name) {
  void* f = dlsym(ref().handle, name);
  if (!f) {
    std::fprintf(stderr, "test reference: %s lacks %s\n", ref().name, name);
    std::abort();
  }
  return f;
}

const char* ref_name() { return ref().name; }

}  // namespace mbtest

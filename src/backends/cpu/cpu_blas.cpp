#include "backends/cpu/cpu_blas.h"

#include <dlfcn.h>
#include <pthread.h>

#include <cstdint>

#include "core/config.h"
#include "core/log.h"

namespace myblas {

namespace {

// Plain column-major loops, used only when no CPU BLAS can be loaded (one warning says so).
// The interface layer has already validated arguments and handled alpha == 0, k == 0 and
// beta == 0 (C was zeroed), so these only compute C += alpha*op(A)*op(B) after scaling.
void builtin_sgemm(const char* ta, const char* tb, const int* pm, const int* pn, const int* pk,
                   const float* alpha, const float* a, const int* plda, const float* b,
                   const int* pldb, const float* beta, float* c, const int* pldc, size_t, size_t) {
  const int m = *pm, n = *pn, k = *pk;
  const int64_t lda = *plda, ldb = *pldb, ldc = *pldc;
  const bool na = (*ta == 'N' || *ta == 'n'), nb = (*tb == 'N' || *tb == 'n');
  for (int j = 0; j < n; ++j) {
    float* cj = c + j * ldc;
    if (*beta == 0.f) {
      for (int i = 0; i < m; ++i) cj[i] = 0.f;
    } else if (*beta != 1.f) {
      for (int i = 0; i < m; ++i) cj[i] *= *beta;
    }
    for (int l = 0; l < k; ++l) {
      const float bl = *alpha * (nb ? b[l + j * ldb] : b[j + l * ldb]);
      for (int i = 0; i < m; ++i) cj[i] += (na ? a[i + l * lda] : a[l + i * lda]) * bl;
    }
  }
}

void builtin_sgemv(const char* t, const int* pm, const int* pn, const float* alpha,
                   const float* a, const int* plda, const float* x, const int* pincx,
                   const float* beta, float* y, const int* pincy, size_t) {
  const int m = *pm, n = *pn;
  const int64_t lda = *plda, incx = *pincx, incy = *pincy;
  const bool notrans = (*t == 'N' || *t == 'n');
  const int lenx = notrans ? n : m, leny = notrans ? m : n;
  const int64_t kx = incx > 0 ? 0 : -(lenx - 1) * incx;
  const int64_t ky = incy > 0 ? 0 : -(leny - 1) * incy;
  for (int i = 0; i < leny; ++i) {
    float& yi = y[ky + i * incy];
    yi = (*beta == 0.f) ? 0.f : yi * *beta;
  }
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      const float aij = a[i + j * lda];
      if (notrans) y[ky + i * incy] += *alpha * aij * x[kx + j * incx];
      else y[ky + j * incy] += *alpha * aij * x[kx + i * incx];
    }
  }
}

// Calls hold this shared; the fork's prepare handler takes it exclusively (writers preferred, so
// threads that keep calling cannot starve a fork), the parent releases it, and the child, the
// only thread left and not the one whose id the lock holds, starts from a fresh lock.
pthread_rwlock_t g_fork_lock;

void init_fork_lock() {
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&g_fork_lock, &attr);
  pthread_rwlockattr_destroy(&attr);
}

// Registered after the CPU BLAS was loaded: prepare handlers run in reverse order, so this one
// (no call in flight any more) runs before OpenBLAS's own, which stops its thread pool.
void register_fork_guard() {
  init_fork_lock();
  pthread_atfork([] { pthread_rwlock_wrlock(&g_fork_lock); }, [] { pthread_rwlock_unlock(&g_fork_lock); },
                 init_fork_lock);
}

class InCall {
 public:
  InCall() { pthread_rwlock_rdlock(&g_fork_lock); }
  ~InCall() { pthread_rwlock_unlock(&g_fork_lock); }
  InCall(const InCall&) = delete;
  InCall& operator=(const InCall&) = delete;
};

CpuBlas load() {
  CpuBlas cb;
  const std::string& wanted = config().cpu_blas;
  const char* names[] = {wanted.empty() ? "libopenblas.so.0" : wanted.c_str()};
  for (const char* name : names) {
    void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      warn_once("cpu-blas-load", strformat("cannot load the CPU BLAS '%s' (%s); using built-in "
                                           "loops, which are slow", name, dlerror()));
      break;
    }
    // A CPU BLAS that is libmyblas itself would recurse forever.
    if (dlsym(h, "myblas_version")) {
      warn_once("cpu-blas-self", strformat("MYBLAS_CPU_BLAS '%s' is libmyblas itself; using "
                                           "built-in loops", name));
      dlclose(h);
      break;
    }
    auto g = reinterpret_cast<sgemm_fn>(dlsym(h, "sgemm_"));
    auto v = reinterpret_cast<sgemv_fn>(dlsym(h, "sgemv_"));
    if (!g || !v) {
      warn_once("cpu-blas-symbols", strformat("the CPU BLAS '%s' lacks sgemm_/sgemv_; using "
                                              "built-in loops", name));
      dlclose(h);
      break;
    }
    cb.sgemm_ptr = g;
    cb.sgemv_ptr = v;
    cb.name = name;
    return cb;
  }
  cb.sgemm_ptr = builtin_sgemm;
  cb.sgemv_ptr = builtin_sgemv;
  cb.name = "built-in";
  return cb;
}

}  // namespace

const CpuBlas& cpu_blas() {
  static const CpuBlas cb = [] {
    CpuBlas loaded = load();
    register_fork_guard();
    return loaded;
  }();
  return cb;
}

void CpuBlas::sgemm(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
                    const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c,
                    const int* ldc) const {
  const InCall in_call;
  sgemm_ptr(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
}

void CpuBlas::sgemv(const char* t, const int* m, const int* n, const float* alpha, const float* a, const int* lda,
                    const float* x, const int* incx, const float* beta, float* y, const int* incy) const {
  const InCall in_call;
  sgemv_ptr(t, m, n, alpha, a, lda, x, incx, beta, y, incy, 1);
}

}  // namespace myblas

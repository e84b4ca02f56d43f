// The host BLAS, loaded at run time with dlopen (MYBLAS_CPU_BLAS, default OpenBLAS).
// Its symbols are looked up in its own handle, so a call never loops back into
// libmyblas, also when libmyblas is LD_PRELOADed over the same library.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/problem.h"

namespace myblas {

using sgemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*,
                          const float*, const float*, const int*, const float*, const int*,
                          const float*, float*, const int*, size_t, size_t);
// GEMM with 16-bit A and B and FP32 alpha, beta and C: OpenBLAS's sbgemm_/shgemm_ and MKL's
// gemm_bf16bf16f32_/gemm_f16f16f32_ share this signature.
using gemm16_fn = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                           const uint16_t*, const int*, const uint16_t*, const int*, const float*, float*,
                           const int*, size_t, size_t);
using sgemv_fn = void (*)(const char*, const int*, const int*, const float*, const float*,
                          const int*, const float*, const int*, const float*, float*, const int*,
                          size_t);

// OpenBLAS's idle threads spin for 2^OPENBLAS_THREAD_TIMEOUT cycles after each call (default
// 2^28: about 0.1 s), one per core. A GPU-path call on host arrays that starts in that time finds
// every core taken; its copy threads are preempted by the spinners and the call waits a scheduler
// slice (3-5 ms) for them: on the H100 machine, host Level-3 calls of 0.3-10 ms took +3-5 ms in
// 14-22 of 70 (routine, n) in a run, and in none with the timeout at 2^4..2^20 cycles
// (bench/results/h100-level3-2026-11-28). So where a GPU path may run, myblas loads OpenBLAS with
// OPENBLAS_THREAD_TIMEOUT=20 (idle threads sleep after 2^20 cycles, about 0.5 ms): a collision
// then costs at most that, and back-to-back CPU calls still find their threads awake.
constexpr int kOpenblasThreadTimeout = 20;
// What myblas sets OPENBLAS_THREAD_TIMEOUT to while OpenBLAS initialises; 0: nothing. `setting`
// is Config::openblas_thread_timeout (0 auto, -1 keep, else a value); nothing when the user set
// OPENBLAS_THREAD_TIMEOUT or the program loaded OpenBLAS before myblas (it has read it then); auto
// sets kOpenblasThreadTimeout only where a GPU path may run.
inline int openblas_timeout_to_set(int setting, bool user_set, bool loaded_before, bool gpu_may_run) {
  if (user_set || loaded_before || setting < 0) return 0;
  if (setting > 0) return setting;
  return gpu_may_run ? kOpenblasThreadTimeout : 0;
}

// Calls go through sgemm()/sgemv(), which keep the process from forking while they run: a
// fork taken while another thread was inside a threaded OpenBLAS call left the child's copy of
// OpenBLAS waiting for workers that do not exist in it (reliability.fork_cpu.WhileThreadsCall
// hung in exec_blas_async, 2-core Debian 12, OpenBLAS 0.3.21). A pthread_atfork handler waits
// for the calls in flight and holds new ones back until the fork is done.
struct CpuBlas {
  sgemm_fn sgemm_ptr = nullptr;  // never null: the built-in loops stand in if loading failed
  sgemv_fn sgemv_ptr = nullptr;
  // The CPU BLAS's own bfloat16 / binary16 GEMM with FP32 C, where it exports one (Debian's
  // OpenBLAS 0.3.21 exports neither: it is built without BUILD_BFLOAT16); nullptr otherwise.
  gemm16_fn sbgemm_ptr = nullptr;
  gemm16_fn shgemm_ptr = nullptr;
  std::string name;              // the library file, or "built-in" when none could be loaded
  std::string description;       // name, and for OpenBLAS the kernels it runs (myblas_cpu_blas)
  bool openblas = false;         // it is OpenBLAS (it has openblas_get_corename)
  // The Fortran symbol (sgemm_, zherk_, ...) of every routine but hgemm, by Routine value, for the
  // paths of BlasProblem; nullptr where the library lacks it (the built-in loops or the GPU
  // stand in).
  void* routines[kRoutineCount] = {};
  // The library's own batch routines by element type (s, d, c, z) where it exports them
  // (cblas_?gemm_batch and cblas_?gemm_batch_strided with MKL's signatures: OpenBLAS 0.3.28 and
  // 0.3.31 on), else nullptr; and OpenBLAS's thread-count controls (nullptr elsewhere).
  void* gemm_batch[4] = {};
  void* gemm_batch_strided[4] = {};
  void (*set_threads)(int) = nullptr;
  int (*get_threads)() = nullptr;

  // Holds a fork back while a CPU BLAS call is in flight (see above); every call through a
  // pointer of `routines` is made under one. Inline: a host call's whole added cost is tens of
  // nanoseconds, and two calls into this file were a visible part of it.
  class Call {
   public:
    Call() {
      g_calls.fetch_add(1);
      if (g_forks.load() != 0) wait_for_fork();
    }
    ~Call() { g_calls.fetch_sub(1, std::memory_order_release); }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    // Calls in flight, and forks waiting for them to end. A call counts itself in and then
    // looks for a waiting fork (stepping back out to wait if there is one); the fork's prepare
    // handler counts itself in and then waits for the calls to drain. Sequentially consistent
    // on both sides, so one of the two always sees the other. (A shared pthread rwlock did the
    // same at three times the cost.)
    static std::atomic<int> g_calls, g_forks;

   private:
    // Counted in while a fork waits: steps out, waits for it, and counts in again.
    static void wait_for_fork();
  };

  void sgemm(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
             const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c,
             const int* ldc) const {
    const Call in_call;
    sgemm_ptr(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  }
  // Calls f (sbgemm_ptr or shgemm_ptr) under the same fork guard.
  void gemm16(gemm16_fn f, const char* ta, const char* tb, const int* m, const int* n, const int* k,
              const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b, const int* ldb,
              const float* beta, float* c, const int* ldc) const {
    const Call in_call;
    f(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
  }
  void sgemv(const char* t, const int* m, const int* n, const float* alpha, const float* a, const int* lda,
             const float* x, const int* incx, const float* beta, float* y, const int* incy) const {
    const Call in_call;
    sgemv_ptr(t, m, n, alpha, a, lda, x, incx, beta, y, incy, 1);
  }
};

// Loaded on the first call (thread-safe); after that an inline load of one pointer.
const CpuBlas& load_cpu_blas();
extern std::atomic<const CpuBlas*> g_cpu_blas;
inline const CpuBlas& cpu_blas() {
  const CpuBlas* cb = g_cpu_blas.load(std::memory_order_acquire);
  return cb ? *cb : load_cpu_blas();
}

}  // namespace myblas

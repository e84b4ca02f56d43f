#include "backends/cpu/cpu_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/cpu_features.h"
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

// (CpuBlas::Call's counters, by their short names.)
std::atomic<int>& g_calls = CpuBlas::Call::g_calls;
std::atomic<int>& g_forks = CpuBlas::Call::g_forks;

// Waits while `busy` says so: yields at first, then sleeps (a fork may wait on a long call).
template <class Busy>
void wait_while(Busy busy) {
  for (int round = 0; busy(); ++round) {
    if (round < 100) {
      sched_yield();
    } else {
      const timespec pause{0, 100 * 1000};
      nanosleep(&pause, nullptr);
    }
  }
}

void fork_prepare() {
  g_forks.fetch_add(1);
  wait_while([] { return g_calls.load() != 0; });
}
void fork_parent() { g_forks.fetch_sub(1); }
void fork_child() {  // the only thread left: no call is in flight in it
  g_calls.store(0);
  g_forks.store(0);
}

// Registered after the CPU BLAS was loaded: prepare handlers run in reverse order, so this one
// (no call in flight any more) runs before OpenBLAS's own, which stops its thread pool.
void register_fork_guard() { pthread_atfork(fork_prepare, fork_parent, fork_child); }

using InCall = CpuBlas::Call;

// ---- OpenBLAS's kernel choice ----
//
// OpenBLAS built with DYNAMIC_ARCH (Debian's, the one we load) picks its kernels once, when it
// is loaded, from the CPU's model number. A model it does not know falls back to old SSE3
// kernels: on the H100 machine's host (a KVM guest, "Intel Xeon Processor" with AVX-512)
// OpenBLAS 0.3.21 picks "Prescott", whose SGEMM runs 28-33 GFLOP/s on one core, where its
// SkylakeX kernels run 127-169 and its Haswell kernels 66-83 (OPENBLAS_CORETYPE forced each;
// bench/results/h100-openblas-coretype-2026-11-26.txt). So when OpenBLAS's choice is a core
// whose kernels predate AVX2 while this CPU and its OS support AVX2 and FMA, we load OpenBLAS
// again with OPENBLAS_CORETYPE naming the kernels the CPU can run: SkylakeX with AVX-512, else
// Haswell. Not when the user set OPENBLAS_CORETYPE (their choice stands), nor with
// MYBLAS_OPENBLAS_CORETYPE=keep, nor when the program had already loaded that OpenBLAS itself
// (unloading it is not ours to do: then a verbose line says what to set).

// OpenBLAS 0.3.21's x86 core names whose SGEMM kernels use neither AVX2 nor FMA (AMD's
// Bulldozer family is left alone: those are real choices for those CPUs).
bool pre_avx2_core(const std::string& core) {
  static const char* const kOld[] = {"Prescott", "Core2",  "Penryn",    "Dunnington", "Nehalem",
                                     "Atom",     "Katmai", "Coppermine", "Northwood",  "Banias",
                                     "Opteron",  "Opteron(SSE3)", "Barcelona", "Bobcat", "Sandybridge",
                                     "Athlon",   "Nano",   "Unknown"};
  for (const char* o : kOld)
    if (strcasecmp(core.c_str(), o) == 0) return true;
  return false;
}

const char* core_for(CpuSimd s) {
  switch (s) {
    case CpuSimd::avx512: return "SkylakeX";
    case CpuSimd::avx2_fma: return "Haswell";
    case CpuSimd::none: return nullptr;
  }
  return nullptr;
}

std::string openblas_core(void* h) {
  auto f = reinterpret_cast<const char* (*)()>(dlsym(h, "openblas_get_corename"));
  const char* c = f ? f() : nullptr;
  return c ? std::string(c) : std::string();
}

// dlopen with the variables `env` names (name, value) set in the environment while OpenBLAS
// initialises (it reads them only then), unset again afterwards. The caller checked that each was
// unset. (setenv races with getenv in other threads of the program; this runs once per process,
// at the first CPU call, or twice when OpenBLAS is reloaded with other kernels.)
using EnvList = std::vector<std::pair<const char*, std::string>>;
void* dlopen_with_env(const char* name, const EnvList& env) {
  for (const auto& [var, value] : env) setenv(var, value.c_str(), 1);
  void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  for (const auto& [var, value] : env) unsetenv(var);
  return h;
}

EnvList with_core(EnvList env, const char* core) {
  env.emplace_back("OPENBLAS_CORETYPE", core);
  return env;
}

// Where a GPU path may run: a backend other than cpu, and the NVIDIA driver's control device
// present (a cheap look, without starting CUDA in a process that may only ever use the CPU).
bool gpu_may_run() { return backend_setting() != Backend::cpu && access("/dev/nvidiactl", F_OK) == 0; }

// OpenBLAS's thread timeout as it read it (0: its default, 2^28 cycles; -1: not OpenBLAS 0.3.x).
int openblas_timeout(void* h) {
  auto f = reinterpret_cast<int (*)()>(dlsym(h, "openblas_thread_timeout"));
  return f ? f() : -1;
}

// Loads `name` and settles OpenBLAS's kernels and idle-thread timeout as described above; *core is
// OpenBLAS's core in use ("" if the library is not OpenBLAS), *note what was done about it (for
// the verbose log).
void* load_cpu_blas(const char* name, std::string* core, std::string* note) {
  if (!config().openblas_core_error.empty())
    warn_once("openblas-core", "unknown MYBLAS_OPENBLAS_CORETYPE '" + config().openblas_core_error + "'; using auto");
  if (!config().openblas_timeout_error.empty())
    warn_once("openblas-timeout", "unknown MYBLAS_OPENBLAS_THREAD_TIMEOUT '" + config().openblas_timeout_error +
                                      "' (keep, auto or 4..30); using auto");
  const bool user_core = std::getenv("OPENBLAS_CORETYPE") != nullptr;
  void* before = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);  // the program's own copy?
  if (before) dlclose(before);  // (only the reference this lookup took)
  const bool may_run = gpu_may_run();
  const int timeout = openblas_timeout_to_set(config().openblas_thread_timeout,
                                              std::getenv("OPENBLAS_THREAD_TIMEOUT") != nullptr, before != nullptr,
                                              may_run);
  EnvList env;
  if (timeout > 0) env.emplace_back("OPENBLAS_THREAD_TIMEOUT", std::to_string(timeout));
  const bool simulate = !before && !user_core && fault_injected("cpu-core");
  void* h = dlopen_with_env(name, simulate ? with_core(env, "Prescott") : env);
  if (!h) return nullptr;
  *core = openblas_core(h);
  if (!core->empty() && before && may_run && config().openblas_thread_timeout == 0 && openblas_timeout(h) == 0)
    *note = strformat("OpenBLAS, loaded by the program before myblas, keeps its idle threads spinning 2^28 cycles "
                      "after each call, which slows GPU-path calls that follow CPU ones; OPENBLAS_THREAD_TIMEOUT=%d "
                      "would not. ",
                      kOpenblasThreadTimeout);
  const CpuSimd simd = cpu_simd();
  const char* want = core_for(simd);
  if (core->empty() || !pre_avx2_core(*core) || !want) return h;
  const std::string chosen = *core;
  if (user_core || config().keep_openblas_core) {
    *note += strformat("OpenBLAS runs its %s kernels on this CPU with %s (%s)", chosen.c_str(), cpu_simd_name(simd),
                       user_core ? "OPENBLAS_CORETYPE set" : "MYBLAS_OPENBLAS_CORETYPE=keep");
    return h;
  }
  if (before) {
    *note += strformat("OpenBLAS, loaded by the program before myblas, chose its %s kernels on this CPU with %s; "
                       "OPENBLAS_CORETYPE=%s would use them",
                       chosen.c_str(), cpu_simd_name(simd), want);
    return h;
  }
  dlclose(h);
  if (void* still = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {  // not unloaded: keep it
    *note = strformat("OpenBLAS chose its %s kernels on this CPU with %s and could not be reloaded",
                      chosen.c_str(), cpu_simd_name(simd));
    return still;  // (the reference dlopen just took replaces the one dlclose gave back)
  }
  h = dlopen_with_env(name, with_core(env, want));
  if (!h) h = dlopen_with_env(name, env);
  if (!h) return nullptr;
  *core = openblas_core(h);
  *note = strformat("OpenBLAS chose its %s kernels on this CPU with %s; reloaded it with OPENBLAS_CORETYPE=%s "
                    "(now %s; MYBLAS_OPENBLAS_CORETYPE=keep leaves OpenBLAS's choice)",
                    chosen.c_str(), cpu_simd_name(simd), want, core->c_str());
  return h;
}

CpuBlas load() {
  CpuBlas cb;
  const std::string& wanted = config().cpu_blas;
  const char* names[] = {wanted.empty() ? "libopenblas.so.0" : wanted.c_str()};
  for (const char* name : names) {
    std::string core, note;
    void* h = load_cpu_blas(name, &core, &note);
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
    for (int r = 0; r < kRoutineCount; ++r)
      if (Routine(r) != Routine::hgemm) cb.routines[r] = dlsym(h, (std::string(routine_name(Routine(r))) + "_").c_str());
    for (int t = 0; t < 4; ++t) {
      const std::string T(1, "sdcz"[t]);
      cb.gemm_batch[t] = dlsym(h, ("cblas_" + T + "gemm_batch").c_str());
      cb.gemm_batch_strided[t] = dlsym(h, ("cblas_" + T + "gemm_batch_strided").c_str());
    }
    cb.set_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
    cb.get_threads = reinterpret_cast<int (*)()>(dlsym(h, "openblas_get_num_threads"));
    for (const char* sym : {"sbgemm_", "gemm_bf16bf16f32_"})
      if (!cb.sbgemm_ptr) cb.sbgemm_ptr = reinterpret_cast<gemm16_fn>(dlsym(h, sym));
    for (const char* sym : {"shgemm_", "gemm_f16f16f32_"})
      if (!cb.shgemm_ptr) cb.shgemm_ptr = reinterpret_cast<gemm16_fn>(dlsym(h, sym));
    cb.name = name;
    const int timeout = core.empty() ? -1 : openblas_timeout(h);
    cb.description = core.empty() ? cb.name
                                  : cb.name + " (OpenBLAS, " + core + " kernels" +
                                        (timeout > 0 ? ", idle threads sleep after 2^" + std::to_string(timeout) +
                                                           " cycles"
                                                     : std::string()) +
                                        ")";
    cb.openblas = !core.empty();
    if (!note.empty() && verbose()) log_line("CPU BLAS " + cb.name + ": " + note);
    return cb;
  }
  cb.sgemm_ptr = builtin_sgemm;
  cb.sgemv_ptr = builtin_sgemv;
  cb.name = "built-in";
  cb.description = cb.name;
  return cb;
}

}  // namespace

std::atomic<int> CpuBlas::Call::g_calls{0};
std::atomic<int> CpuBlas::Call::g_forks{0};

void CpuBlas::Call::wait_for_fork() {
  while (true) {
    g_calls.fetch_sub(1);  // a fork is waiting: let it go first
    wait_while([] { return g_forks.load(std::memory_order_relaxed) != 0; });
    g_calls.fetch_add(1);
    if (g_forks.load() == 0) return;
  }
}

std::atomic<const CpuBlas*> g_cpu_blas{nullptr};

const CpuBlas& load_cpu_blas() {
  static const CpuBlas cb = [] {
    CpuBlas loaded = load();
    register_fork_guard();
    return loaded;
  }();
  g_cpu_blas.store(&cb, std::memory_order_release);
  return cb;
}

}  // namespace myblas

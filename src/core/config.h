// Run-time settings, read once from MYBLAS_* environment variables (README: "Configuration").
#pragma once
#include <atomic>
#include <string>

namespace myblas {

enum class Backend { auto_, cpu, cublas, kernels };
// How SGEMM computes (MYBLAS_SGEMM_PRECISION; myblas_set_sgemm_precision changes it later):
// fp32 on the FP32 cores, or the 3xTF32 split on the tensor cores (backends/cuda/sgemm_tf32x3.h)
// for the shapes where it measured faster (tf32x3) or for every call it can run (tf32x3_all).
// The values are the public MYBLAS_SGEMM_* constants of myblas.h.
enum class SgemmPrecision { fp32 = 0, tf32x3 = 1, tf32x3_all = 2 };

struct Config {
  Backend backend = Backend::auto_;  // MYBLAS_BACKEND
  std::string cpu_blas;              // MYBLAS_CPU_BLAS (empty: libopenblas.so.0)
  bool keep_openblas_core = false;   // MYBLAS_OPENBLAS_CORETYPE=keep (default auto: see cpu_blas.cpp)
  std::string openblas_core_error;   // set when MYBLAS_OPENBLAS_CORETYPE had an unknown value
  // MYBLAS_OPENBLAS_THREAD_TIMEOUT: 0 auto (default), -1 keep, else the OPENBLAS_THREAD_TIMEOUT
  // (4..30) myblas loads OpenBLAS with (backends/cpu/cpu_blas.cpp says why).
  int openblas_thread_timeout = 0;
  std::string openblas_timeout_error;  // set when MYBLAS_OPENBLAS_THREAD_TIMEOUT had an unknown value
  int verbose = 0;                   // MYBLAS_VERBOSE
  std::string log_file;              // MYBLAS_LOG (empty: stderr)
  std::string backend_error;         // set when MYBLAS_BACKEND had an unknown value
  std::string test_fault;            // MYBLAS_TEST_FAULT: test-only, see fault_injected()
  std::string sgemv_kernel;          // MYBLAS_SGEMV_KERNEL: with MYBLAS_BACKEND=kernels, this one
  std::string sgemm_kernel;          // MYBLAS_SGEMM_KERNEL: likewise for SGEMM
  std::string hgemm_kernel;          // MYBLAS_HGEMM_KERNEL: likewise for HGEMM
  SgemmPrecision sgemm_precision = SgemmPrecision::fp32;  // MYBLAS_SGEMM_PRECISION
  std::string sgemm_precision_error;  // set when MYBLAS_SGEMM_PRECISION had an unknown value
  bool cublas_own_workspace = true;   // MYBLAS_CUBLAS_WORKSPACE=own (default) | pool
};

// Test-only fault injection: MYBLAS_TEST_FAULT is a comma-separated list of GPU-path steps
// that then fail as a CUDA error would: "alloc", "copy", "cublas", "sync", "launch",
// "pin" (pinned host memory), "pipeline" (a download in the host-array pipeline, after some
// panels are final), "sticky" (the CUDA context is found lost). One point is not a GPU step:
// "cpu-core" makes the first load of OpenBLAS take the Prescott kernels, as OpenBLAS itself
// does on a CPU model it does not know (backends/cpu/cpu_blas.cpp). Off by default.
bool fault_injected(const char* point);
// The same for a step on one GPU: "<point>" fails it on every device, "<point>@<ordinal>" on
// that device only (the host-array pipeline's points: to fail one GPU of a split call).
bool fault_injected_on(const char* point, int device);

// Read once; after the first call, an inline load of one pointer (a call's hot path asks
// several times).
const Config& load_config();
extern std::atomic<const Config*> g_config;
inline const Config& config() {
  const Config* c = g_config.load(std::memory_order_acquire);
  return c ? *c : load_config();
}
const char* backend_name(Backend b);

// The backend in force: myblas_set_backend's choice, else MYBLAS_BACKEND's (auto when unset, or
// unknown with one warning). Every dispatch decision asks this, never Config::backend.
Backend backend_setting();
// Overrides MYBLAS_BACKEND for the whole process from the next call on; nullptr returns to it.
void set_backend_override(const Backend* b);

}  // namespace myblas

// The native myblas_* API.
#include "backends/cpu/cpu_blas.h"
#include "backends/cuda/cuda_runtime.h"
#include "backends/cuda/sgemm_tf32x3.h"
#include "interface/entry.h"

#include <strings.h>

namespace myblas {
namespace {
thread_local Path t_last_path = Path::none;
}
void set_last_path(Path p) { t_last_path = p; }
}  // namespace myblas

using namespace myblas;

MYBLAS_API const char* myblas_version(void) { return MYBLAS_VERSION_STRING; }

MYBLAS_API int myblas_set_stream(void* cuda_stream) {
  set_thread_stream(static_cast<cudaStream_t>(cuda_stream));
  return 0;
}

MYBLAS_API void* myblas_get_stream(void) { return thread_stream(); }

MYBLAS_API int myblas_set_sgemm_precision(int mode) {
  if (mode != MYBLAS_SGEMM_FP32 && mode != MYBLAS_SGEMM_TF32X3 && mode != MYBLAS_SGEMM_TF32X3_ALL) return -1;
  set_sgemm_precision(SgemmPrecision(mode));
  return 0;
}

MYBLAS_API int myblas_get_sgemm_precision(void) { return int(sgemm_precision()); }

MYBLAS_API int myblas_set_backend(const char* name) {
  if (!name) {
    set_backend_override(nullptr);
    return 0;
  }
  for (Backend b : {Backend::auto_, Backend::cpu, Backend::cublas, Backend::kernels})
    if (strcasecmp(name, backend_name(b)) == 0) {
      set_backend_override(&b);
      return 0;
    }
  return -1;
}

MYBLAS_API const char* myblas_get_backend(void) { return backend_name(backend_setting()); }

MYBLAS_API int myblas_gpu_available(void) { return gpu_available() ? 1 : 0; }

MYBLAS_API const char* myblas_last_path(void) { return path_name(t_last_path); }

MYBLAS_API const char* myblas_cpu_blas(void) { return cpu_blas().description.c_str(); }

// Run-time settings, read once from MYBLAS_* environment variables (README: "Configuration").
#pragma once
#include <string>

namespace myblas {

enum class Backend { auto_, cpu, cublas, kernels };

struct Config {
  Backend backend = Backend::auto_;  // MYBLAS_BACKEND
  std::string cpu_blas;              // MYBLAS_CPU_BLAS (empty: libopenblas.so.0)
  int verbose = 0;                   // MYBLAS_VERBOSE
  std::string log_file;              // MYBLAS_LOG (empty: stderr)
  std::string backend_error;         // set when MYBLAS_BACKEND had an unknown value
};

const Config& config();
const char* backend_name(Backend b);

}  // namespace myblas

// Pieces shared by the two-GPU tests (labels gpu and multigpu): the GPU count, the skip on fewer
// than two, and the library's log (MYBLAS_LOG), from which they read what a call did.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace multigpu {

// The GPU count without creating a CUDA context (tests check where contexts appear).
inline int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  return count;
}

inline std::string log_path() {
  const char* p = std::getenv("MYBLAS_LOG");
  return p ? p : "";
}

// Lines of the log that contain `text`.
inline int log_count(const std::string& text) {
  std::ifstream in(log_path());
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.find(text) != std::string::npos;
  return n;
}

}  // namespace multigpu

#define REQUIRE_TWO_GPUS()                                                       \
  do {                                                                           \
    const int count_ = multigpu::gpu_count();                                    \
    if (count_ < 2) GTEST_SKIP() << "needs two CUDA devices, found " << count_; \
  } while (0)

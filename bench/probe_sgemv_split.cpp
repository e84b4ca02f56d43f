// SGEMV N 64 x 1048576 on device pointers: the library's call (sgemv_, auto: n_rowblock_split by
// the table) against the same kernel called directly (sgemv_run), each event-timed and
// synchronised, in separate blocks; run one path per process under a profiler to compare the CUDA
// calls each makes. bench_blas --quality found the library 0.83-0.86x of the direct kernel here
// (bench/results/h100-dispatch-v7-2026-11-26.md).
//   probe_sgemv_split lib|direct|both [calls]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/problem.h"
#include "kernels/sgemv.h"
#include "myblas.h"

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));    \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "both";
  const int calls = argc > 2 ? std::atoi(argv[2]) : 30;
  const int m = 64, n = 1048576, inc = 1;
  const float alpha = 1.f, beta = 0.f;
  float *a, *x, *y;
  CK(cudaMalloc(&a, size_t(m) * n * 4));
  CK(cudaMalloc(&x, size_t(n) * 4));
  CK(cudaMalloc(&y, size_t(m) * 4));
  std::vector<float> h(size_t(m) * n);
  for (size_t i = 0; i < h.size(); ++i) h[i] = float(int(i % 17) - 8) / 8.f;
  CK(cudaMemcpy(a, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(x, h.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
  myblas::SgemvKernel k;
  if (!myblas::sgemv_kernel_from_name("n_rowblock_split", &k)) return 2;
  myblas::GemvProblem p;
  p.ta = myblas::Op::N;
  p.m = m;
  p.n = n;
  p.alpha = alpha;
  p.beta = beta;
  p.a = a;
  p.x = x;
  p.y = y;
  p.lda = m;
  p.mem_a = p.mem_x = p.mem_y = myblas::Mem::device;
  p.dev_a = p.dev_x = p.dev_y = p.device = 0;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto block = [&](bool lib) {
    std::vector<float> us;
    for (int i = 0; i < calls; ++i) {
      CK(cudaEventRecord(e0, nullptr));
      if (lib) sgemv_("N", &m, &n, &alpha, a, &m, x, &inc, &beta, y, &inc);
      else {
        CK(myblas::sgemv_run(k, p, nullptr));
        CK(cudaDeviceSynchronize());
      }
      CK(cudaEventRecord(e1, nullptr));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      us.push_back(ms * 1000.f);
    }
    std::sort(us.begin(), us.end());
    std::printf("%-7s path %-8s median %.2f us, min %.2f, max %.2f (%d calls)\n", lib ? "library" : "direct",
                lib ? myblas_last_path() : "kernels", us[us.size() / 2], us.front(), us.back(), calls);
  };
  for (int r = 0; r < 3; ++r) {
    if (std::strcmp(mode, "direct")) block(true);
    if (std::strcmp(mode, "lib")) block(false);
  }
  return 0;
}

// probe_tf32x3: one SGEMM shape in the 3xTF32 mode through cblas_sgemm on device pointers, beside
// cublasSgemm (FP32, pedantic math), for profilers: `probe_tf32x3 M N K [TRANS] [REPS]` makes REPS
// calls of each (default NN, 5), alternating, and prints the median event time of each and their
// ratio. Under ncu, `-k regex:tf32x3_wgmma` picks the mode's product kernel.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "myblas.h"

#define CK(x)                                                                        \
  do {                                                                               \
    const cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                 \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__global__ void fill(float* x, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = float(h & 0xFFFFFF) / float(0x800000) - 1.f;  // uniform in [-1, 1)
  }
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: probe_tf32x3 M N K [TRANS] [REPS]\n");
    return 2;
  }
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);
  const char* t = argc > 4 ? argv[4] : "NN";
  const int reps = argc > 5 ? std::atoi(argv[5]) : 5;
  const char ta = t[0], tb = t[1];
  const int lda = ta == 'N' ? m : k, ldb = tb == 'N' ? k : n;
  float *a, *b, *c;
  CK(cudaMalloc(&a, size_t(m) * k * 4));
  CK(cudaMalloc(&b, size_t(k) * n * 4));
  CK(cudaMalloc(&c, size_t(m) * n * 4));
  fill<<<1024, 256>>>(a, size_t(m) * k, 1u);
  fill<<<1024, 256>>>(b, size_t(k) * n, 2u);
  CK(cudaDeviceSynchronize());
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS)
    return 1;
  if (myblas_set_sgemm_precision(MYBLAS_SGEMM_TF32X3) != 0) std::fprintf(stderr, "the mode was not set\n");
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const float one = 1.f, zero = 0.f;
  std::vector<float> t_lib, t_cublas;
  for (int r = 0; r < reps + 1; ++r) {  // (the first round warms up)
    CK(cudaEventRecord(e0));
    cblas_sgemm(CblasColMajor, ta == 'N' ? CblasNoTrans : CblasTrans, tb == 'N' ? CblasNoTrans : CblasTrans, m, n, k,
                1.f, a, lda, b, ldb, 0.f, c, m);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r) t_lib.push_back(ms * 1e3f);
    CK(cudaEventRecord(e0));
    cublasSgemm(h, ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, m, n, k, &one, a, lda,
                b, ldb, &zero, c, m);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r) t_cublas.push_back(ms * 1e3f);
  }
  auto median = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const float tl = median(t_lib), tc = median(t_cublas);
  std::printf("%c%c %dx%dx%d: tf32x3 mode %.1f us, cublasSgemm %.1f us, ratio %.3f (%d calls each)\n", ta, tb, m, n,
              k, tl, tc, tc / tl, reps);
  return 0;
}

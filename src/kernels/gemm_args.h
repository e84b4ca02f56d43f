// What every GEMM kernel family shares (sgemm, hgemm; sgemv for the alignment test): the
// device-side view of a validated GemmProblem, the 16-byte alignment test that decides
// between vector and scalar loads, and the L2 block swizzle. CUDA sources only.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/problem.h"

namespace myblas {

// C(i, j) = c[i + j*ldc]; op(A)(i, l) and op(B)(l, j) are read through lda/ldb as the transposes
// say. Leading dimensions are 64-bit so that j*ldc never overflows. T: float or __half.
template <class T>
struct GemmArgs {
  const T* a;
  const T* b;
  T* c;
  int64_t lda, ldb, ldc;
  int m, n, k;
  float alpha, beta;
};

template <class T>
inline GemmArgs<T> make_gemm_args(const GemmProblem& p) {
  GemmArgs<T> g;
  g.a = static_cast<const T*>(p.a);
  g.b = static_cast<const T*>(p.b);
  g.c = static_cast<T*>(p.c);
  g.lda = p.lda;
  g.ldb = p.ldb;
  g.ldc = p.ldc;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.alpha = p.alpha;
  g.beta = p.beta;
  return g;
}

#ifdef __CUDACC__
__host__ __device__
#endif
inline bool aligned16(const void* p) {
  return (reinterpret_cast<uintptr_t>(p) & 15u) == 0;
}

// Block swizzle for L2 reuse: consecutive block ids walk down groups of `group` tile rows, so
// blocks running together share A's row panels and B's column panels while they are in L2.
struct TileCoord {
  int tm, tn;  // tile row (along m) and tile column (along n)
};
__device__ __forceinline__ TileCoord swizzled_tile(int pid, int tiles_m, int tiles_n, int group) {
  const int per_group = group * tiles_n;
  const int first_m = (pid / per_group) * group;
  const int rows = min(tiles_m - first_m, group);
  return {first_m + (pid % per_group) % rows, (pid % per_group) / rows};
}

// Raises a kernel's dynamic shared memory limit to `bytes` once per device: CUDA keeps the limit
// per device, and a per-call cudaFuncSetAttribute would add host time to every call. One object
// per kernel (a function-local static in its launcher).
class SmemLimitOnce {
 public:
  cudaError_t set(const void* kernel, size_t bytes) {
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    if (dev >= 0 && dev < kDevices && done_[dev].load(std::memory_order_acquire)) return cudaSuccess;
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
    if (e == cudaSuccess && dev >= 0 && dev < kDevices) done_[dev].store(true, std::memory_order_release);
    return e;
  }

 private:
  static constexpr int kDevices = 64;
  std::atomic<bool> done_[kDevices] = {};
};

}  // namespace myblas

// What every GEMM kernel family shares (sgemm, hgemm; sgemv for the alignment test): the
// device-side view of a validated GemmProblem, the 16-byte alignment test that decides
// between vector and scalar loads, and the L2 block swizzle. CUDA sources only.
#pragma once
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

}  // namespace myblas

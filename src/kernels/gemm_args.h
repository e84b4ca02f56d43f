// What every GEMM kernel family shares (sgemm, hgemm; sgemv for the alignment test): the
// device-side view of a validated GemmProblem, and the 16-byte alignment test that decides
// between vector and scalar loads.
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

}  // namespace myblas

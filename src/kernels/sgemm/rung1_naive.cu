// Rung 1, naive: one thread per element of C, a plain k loop over op(A) and op(B) in global
// memory. Threads of a warp take consecutive COLUMNS of C, which are ldc floats apart in
// column-major storage, so every load of A and every store of C is a separate 32-byte sector:
// the baseline the next rungs improve on. It is the only rung that takes every transpose.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int kTile = 32;  // a 32x32 block of threads per 32x32 block of C

template <bool TA, bool TB>
__global__ __launch_bounds__(kTile* kTile) void sgemm_naive_32x32(Args g) {
  const int j = blockIdx.x * kTile + threadIdx.x;  // warp lanes along n: uncoalesced
  const int i = blockIdx.y * kTile + threadIdx.y;
  if (i >= g.m || j >= g.n) return;
  float acc = 0.f;
  for (int l = 0; l < g.k; ++l) acc = fmaf(op_a<TA>(g, i, l), op_b<TB>(g, l, j), acc);
  store_c(g.c + i + int64_t(j) * g.ldc, acc, g.alpha, g.beta);
}

}  // namespace

cudaError_t launch_naive(const GemmProblem& p, cudaStream_t s) {
  const Args g = make_args(p);
  const dim3 grid((p.n + kTile - 1) / kTile, (p.m + kTile - 1) / kTile), block(kTile, kTile);
  const bool ta = p.ta == Op::T, tb = p.tb == Op::T;
  if (!ta && !tb) sgemm_naive_32x32<false, false><<<grid, block, 0, s>>>(g);
  else if (!ta && tb) sgemm_naive_32x32<false, true><<<grid, block, 0, s>>>(g);
  else if (ta && !tb) sgemm_naive_32x32<true, false><<<grid, block, 0, s>>>(g);
  else sgemm_naive_32x32<true, true><<<grid, block, 0, s>>>(g);
  return cudaGetLastError();
}

}  // namespace sgemm_detail
}  // namespace myblas

// Rung 2, coalesced: as rung 1 but the lanes of a warp take consecutive ROWS of C. In
// column-major storage those are adjacent floats, so the warp's C stores and its reads of a column
// of A (NN) are one 128-byte line, and the B element it needs is the same for every lane (a
// broadcast). Same arithmetic, a fraction of the memory transactions. NN only.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int kTile = 32;

__global__ __launch_bounds__(kTile* kTile) void sgemm_coalesced_32x32(Args g) {
  const int i = blockIdx.x * kTile + threadIdx.x;  // warp lanes along m: coalesced
  const int j = blockIdx.y * kTile + threadIdx.y;
  if (i >= g.m || j >= g.n) return;
  const float* a = g.a + i;
  const float* b = g.b + int64_t(j) * g.ldb;
  float acc = 0.f;
  for (int l = 0; l < g.k; ++l) acc = fmaf(a[int64_t(l) * g.lda], b[l], acc);
  store_c(g.c + i + int64_t(j) * g.ldc, acc, g.alpha, g.beta);
}

}  // namespace

cudaError_t launch_coalesced(const GemmProblem& p, cudaStream_t s) {
  const dim3 grid((p.m + kTile - 1) / kTile, (p.n + kTile - 1) / kTile), block(kTile, kTile);
  sgemm_coalesced_32x32<<<grid, block, 0, s>>>(make_args(p));
  return cudaGetLastError();
}

}  // namespace sgemm_detail
}  // namespace myblas

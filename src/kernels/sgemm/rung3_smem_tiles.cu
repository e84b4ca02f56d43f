// Rung 3, shared-memory tiles: the block stages a 32x32 tile of A and of B in shared memory
// (each global element read once per block instead of once per thread, a 32x cut in global
// traffic), then every thread runs 32 FMAs out of shared memory. Tiles past the edge of A or B
// are zero-filled, so edge blocks need no special loop. NN only.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int kTile = 32;  // BM = BN = BK = 32, one thread per output

__global__ __launch_bounds__(kTile* kTile) void sgemm_smem_tiles_32x32x32(Args g) {
  __shared__ float as[kTile][kTile + 1];  // (BK) x (BM): as[l][i] = A(i, l)
  __shared__ float bs[kTile][kTile + 1];  // (BN) x (BK): bs[j][l] = B(l, j)
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.x * kTile + tx, j0 = blockIdx.y * kTile;
  const int j = j0 + ty;
  float acc = 0.f;
  for (int k0 = 0; k0 < g.k; k0 += kTile) {
    // A tile: lanes along m (coalesced). B tile: lanes along k (coalesced down a column).
    const int la = k0 + ty, lb = k0 + tx, jb = j0 + ty;
    as[ty][tx] = (i < g.m && la < g.k) ? g.a[i + int64_t(la) * g.lda] : 0.f;
    bs[ty][tx] = (jb < g.n && lb < g.k) ? g.b[lb + int64_t(jb) * g.ldb] : 0.f;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kTile; ++q) acc = fmaf(as[q][tx], bs[ty][q], acc);
    __syncthreads();
  }
  if (i < g.m && j < g.n) store_c(g.c + i + int64_t(j) * g.ldc, acc, g.alpha, g.beta);
}

}  // namespace

cudaError_t launch_smem_tiles(const GemmProblem& p, cudaStream_t s) {
  const dim3 grid((p.m + kTile - 1) / kTile, (p.n + kTile - 1) / kTile), block(kTile, kTile);
  sgemm_smem_tiles_32x32x32<<<grid, block, 0, s>>>(make_args(p));
  return cudaGetLastError();
}

}  // namespace sgemm_detail
}  // namespace myblas

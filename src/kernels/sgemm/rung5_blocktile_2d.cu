// Rung 5, 2-D block tiling: each thread computes an 8x8 patch of C from 8 values of A and 8 of
// B per k step (outer product in registers): 16 shared loads feed 64 FMAs, against 9 for 8 in
// rung 4, and the 128x128 block tile halves global traffic per output again. NN only.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int BM = 128;  // rows of C per block
constexpr int BN = 128;  // columns of C per block
constexpr int BK = 8;    // k per shared-memory tile
constexpr int TM = 8;    // rows of C per thread
constexpr int TN = 8;    // columns of C per thread
constexpr int kThreads = BM * BN / (TM * TN);
static_assert(BM * BK % kThreads == 0 && BN * BK % kThreads == 0, "tiles split evenly over threads");

__global__ __launch_bounds__(kThreads) void sgemm_blocktile_2d_128x128x8(Args g) {
  __shared__ float as[BK][BM];  // (BK) x (BM)
  __shared__ float bs[BK][BN];  // (BK) x (BN)
  const int t = threadIdx.x;
  const int bm = blockIdx.x * BM, bn = blockIdx.y * BN;
  const int ti = t % (BM / TM), tj = t / (BM / TM);
  float acc[TM][TN] = {};  // (TM) x (TN) outputs of this thread
  float af[TM], bf[TN];    // (TM) values of A, (TN) of B for one k step
  for (int k0 = 0; k0 < g.k; k0 += BK) {
#pragma unroll
    for (int r = 0; r < BM * BK / kThreads; ++r) {
      const int e = t + r * kThreads, i = e % BM, l = e / BM;  // lanes along m
      const int gi = bm + i, gl = k0 + l;
      as[l][i] = (gi < g.m && gl < g.k) ? g.a[gi + int64_t(gl) * g.lda] : 0.f;
    }
#pragma unroll
    for (int r = 0; r < BN * BK / kThreads; ++r) {
      const int e = t + r * kThreads, l = e % BK, j = e / BK;  // lanes along k
      const int gj = bn + j, gl = k0 + l;
      bs[l][j] = (gj < g.n && gl < g.k) ? g.b[gl + int64_t(gj) * g.ldb] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < BK; ++q) {
#pragma unroll
      for (int r = 0; r < TM; ++r) af[r] = as[q][ti * TM + r];
#pragma unroll
      for (int c = 0; c < TN; ++c) bf[c] = bs[q][tj * TN + c];
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = fmaf(af[r], bf[c], acc[r][c]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int c = 0; c < TN; ++c) {
    const int j = bn + tj * TN + c;
    if (j >= g.n) continue;
#pragma unroll
    for (int r = 0; r < TM; ++r) {
      const int i = bm + ti * TM + r;
      if (i < g.m) store_c(g.c + i + int64_t(j) * g.ldc, acc[r][c], g.alpha, g.beta);
    }
  }
}

}  // namespace

cudaError_t launch_blocktile_2d(const GemmProblem& p, cudaStream_t s) {
  const dim3 grid((p.m + BM - 1) / BM, (p.n + BN - 1) / BN);
  sgemm_blocktile_2d_128x128x8<<<grid, kThreads, 0, s>>>(make_args(p));
  return cudaGetLastError();
}

}  // namespace sgemm_detail
}  // namespace myblas

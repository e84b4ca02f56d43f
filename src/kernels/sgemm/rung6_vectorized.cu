// Rung 6, vectorised: rung 5's 128x128x8 tile with 16-byte memory operations. Each thread loads
// one float4 of A (four rows, down a column) and one float4 of B (four k, down a column) per
// tile instead of four scalars, and reads its 8 rows of A and 8 columns of B from shared memory
// as two float4 each: a quarter of the load instructions. B is transposed on its way into shared
// memory (bs[l][j]); rows are padded by 4 floats so those scattered stores do not collide in one
// bank. Needs 16-byte aligned A and B with lda, ldb multiples of 4; NN only.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int BM = 128, BN = 128, BK = 8;  // block tile
constexpr int TM = 8, TN = 8;              // thread tile
constexpr int kThreads = BM * BN / (TM * TN);
constexpr int LDB_S = BN + 4;              // padded row of bs
static_assert(BM * BK / 4 == kThreads && BN * BK / 4 == kThreads, "one float4 of each tile per thread");

__global__ __launch_bounds__(kThreads) void sgemm_vectorized_128x128x8(Args g) {
  __shared__ __align__(16) float as[BK][BM];     // (BK) x (BM)
  __shared__ __align__(16) float bs[BK][LDB_S];  // (BK) x (BN), padded
  const int t = threadIdx.x;
  const int bm = blockIdx.x * BM, bn = blockIdx.y * BN;
  const int ti = t % (BM / TM), tj = t / (BM / TM);
  const int ai = (t % (BM / 4)) * 4, al = t / (BM / 4);  // A: a float4 down a column (along m)
  const int bl = (t % (BK / 4)) * 4, bj = t / (BK / 4);  // B: a float4 down a column (along k)
  float acc[TM][TN] = {};  // (TM) x (TN) outputs of this thread
  for (int k0 = 0; k0 < g.k; k0 += BK) {
    {
      const int gi = bm + ai, gl = k0 + al;
      const float* src = g.a + gi + int64_t(gl) * g.lda;
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (gl < g.k) {
        if (gi + 3 < g.m) v = *reinterpret_cast<const float4*>(src);
        else {
          if (gi < g.m) v.x = src[0];
          if (gi + 1 < g.m) v.y = src[1];
          if (gi + 2 < g.m) v.z = src[2];
        }
      }
      *reinterpret_cast<float4*>(&as[al][ai]) = v;
    }
    {
      const int gj = bn + bj, gl = k0 + bl;
      const float* src = g.b + gl + int64_t(gj) * g.ldb;
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (gj < g.n) {
        if (gl + 3 < g.k) v = *reinterpret_cast<const float4*>(src);
        else {
          if (gl < g.k) v.x = src[0];
          if (gl + 1 < g.k) v.y = src[1];
          if (gl + 2 < g.k) v.z = src[2];
        }
      }
      bs[bl][bj] = v.x;
      bs[bl + 1][bj] = v.y;
      bs[bl + 2][bj] = v.z;
      bs[bl + 3][bj] = v.w;
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < BK; ++q) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[q][ti * TM]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[q][ti * TM + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&bs[q][tj * TN]);
      const float4 b1 = *reinterpret_cast<const float4*>(&bs[q][tj * TN + 4]);
      const float af[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bf[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
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

cudaError_t launch_vectorized(const GemmProblem& p, cudaStream_t s) {
  const dim3 grid((p.m + BM - 1) / BM, (p.n + BN - 1) / BN);
  sgemm_vectorized_128x128x8<<<grid, kThreads, 0, s>>>(make_args(p));
  return cudaGetLastError();
}

}  // namespace sgemm_detail
}  // namespace myblas

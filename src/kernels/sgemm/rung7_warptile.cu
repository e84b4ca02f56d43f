// Rung 7, warp tiling: a 128x128x16 block tile in which each warp owns a 64x32 tile and each
// lane an 8x8 patch split into four 4x4 pieces 32 rows / 16 columns apart (common.cuh:
// mma_tile_8x8). Compared with rung 6's contiguous 8x8 patches, the lanes of a warp now read one
// contiguous 128-byte (A) or 64-byte (B) run of shared memory per float4 load: no bank conflicts,
// and C is stored as float4 down the columns. Loads of the next k tile go to registers while the
// current tile is multiplied, and shared memory is double-buffered, so one barrier per tile
// suffices. Needs 16-byte aligned A and B with lda, ldb multiples of 4; NN only.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int BM = kTileM, BN = kTileN, BK = 16;  // block tile
constexpr int kThreads = kTileThreads;
constexpr int LDA_S = BM;      // as[l][i]
constexpr int LDB_S = BN + 4;  // bs[l][j], padded for the transposing stores
constexpr int kVecA = BM * BK / 4 / kThreads;  // float4 of A per thread per tile
constexpr int kVecB = BN * BK / 4 / kThreads;
static_assert(kVecA == 2 && kVecB == 2, "two float4 of each operand per thread");

__device__ __forceinline__ float4 load4_guarded(const float* src, int valid) {
  if (valid >= 4) return *reinterpret_cast<const float4*>(src);
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (valid > 0) v.x = src[0];
  if (valid > 1) v.y = src[1];
  if (valid > 2) v.z = src[2];
  return v;
}

__global__ __launch_bounds__(kThreads, 2) void sgemm_warptile_128x128x16(Args g) {
  __shared__ __align__(16) float as[2][BK * LDA_S];  // 2 x (BK) x (BM)
  __shared__ __align__(16) float bs[2][BK * LDB_S];  // 2 x (BK) x (BN), padded
  const int t = threadIdx.x;
  const int bm = blockIdx.x * BM, bn = blockIdx.y * BN;
  const LaneTile lt = lane_tile();
  float acc[8][8] = {};  // (8) x (8) outputs of this lane
  float4 ra[kVecA], rb[kVecB];  // the next tile, staged in registers

  auto fetch = [&](int k0) {
#pragma unroll
    for (int r = 0; r < kVecA; ++r) {
      const int e = t + r * kThreads, i = (e % (BM / 4)) * 4, l = e / (BM / 4);
      const int gi = bm + i, gl = k0 + l;
      ra[r] = load4_guarded(g.a + gi + int64_t(gl) * g.lda, gl < g.k ? g.m - gi : 0);
    }
#pragma unroll
    for (int r = 0; r < kVecB; ++r) {
      const int e = t + r * kThreads, l = (e % (BK / 4)) * 4, j = e / (BK / 4);
      const int gj = bn + j, gl = k0 + l;
      rb[r] = load4_guarded(g.b + gl + int64_t(gj) * g.ldb, gj < g.n ? g.k - gl : 0);
    }
  };
  auto stash = [&](int buf) {
#pragma unroll
    for (int r = 0; r < kVecA; ++r) {
      const int e = t + r * kThreads, i = (e % (BM / 4)) * 4, l = e / (BM / 4);
      *reinterpret_cast<float4*>(&as[buf][l * LDA_S + i]) = ra[r];
    }
#pragma unroll
    for (int r = 0; r < kVecB; ++r) {
      const int e = t + r * kThreads, l = (e % (BK / 4)) * 4, j = e / (BK / 4);
      bs[buf][(l + 0) * LDB_S + j] = rb[r].x;
      bs[buf][(l + 1) * LDB_S + j] = rb[r].y;
      bs[buf][(l + 2) * LDB_S + j] = rb[r].z;
      bs[buf][(l + 3) * LDB_S + j] = rb[r].w;
    }
  };

  const int tiles = (g.k + BK - 1) / BK;
  fetch(0);
  stash(0);
  __syncthreads();
  for (int kt = 0; kt < tiles; ++kt) {
    const int buf = kt & 1;
    if (kt + 1 < tiles) fetch((kt + 1) * BK);  // in flight during the FMAs below
    mma_tile_8x8<BK, LDA_S, LDB_S>(as[buf], bs[buf], lt, acc);
    // The other buffer was last read in iteration kt-1, which every thread finished before the
    // barrier at the end of that iteration.
    if (kt + 1 < tiles) stash(buf ^ 1);
    __syncthreads();
  }
  const bool vec = aligned16(g.c) && g.ldc % 4 == 0;
  store_tile_8x8(g, acc, bm, bn, lt, vec);
}

}  // namespace

cudaError_t launch_warptile(const GemmProblem& p, cudaStream_t s) {
  const dim3 grid((p.m + BM - 1) / BM, (p.n + BN - 1) / BN);
  sgemm_warptile_128x128x16<<<grid, kThreads, 0, s>>>(make_args(p));
  return cudaGetLastError();
}

}  // namespace sgemm_detail
}  // namespace myblas

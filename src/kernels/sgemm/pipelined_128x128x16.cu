// Production kernel, pipelined_128x128x16 with 4 stages: rung 7's block, warp and lane
// tiles (128x128, 64x32, 8x8 as 4x4 pieces) fed by a multi-stage cp.async pipeline, for every
// transpose and alignment.
//
// What changed from rung 7 and why:
// - Loads go global -> shared directly with cp.async (no register staging, so no registers and
//   no instructions spent holding the next tile), STAGES-1 k tiles ahead of the FMAs; one barrier
//   per k tile. cp.async's zero-fill (src-size < copy size) pads edge tiles, so the main loop
//   has no bounds branches around the FMAs.
// - Every transpose: shared memory always holds as[l][i] = op(A)(i, l) and bs[l][j] = op(B)(l, j).
//   An operand stored contiguous along m (A N) or n (B T) is copied 16 bytes at a time when its
//   pointer and leading dimension allow it, else 4 bytes at a time (the misaligned variant); an
//   operand contiguous along k (A T, B N) is transposed on the way in by 4-byte copies, lanes
//   arranged 8 (k) x 4 (m or n) so a warp reads 32-byte sectors and writes 32 distinct banks
//   (rows padded to 132 floats).
// - Block swizzle: blocks are numbered in groups of 8 tile rows, so consecutive blocks share
//   A's row panels and B's column panels while they are in L2.
// - __launch_bounds__(256, 2): two blocks per SM, at most 128 registers a thread.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int BM = kTileM, BN = kTileN, BK = 16;  // block tile
constexpr int kThreads = kTileThreads;
constexpr int LDS = 132;  // padded shared row (floats): 16-byte aligned, transposed stores spread over banks
constexpr int kStageFloats = 2 * BK * LDS;  // as then bs
constexpr int kGroupM = 8;  // tile rows per swizzle group
static_assert(BM == 128 && BN == 128, "the loaders below assume 128-wide tiles");

// Operand layouts (common.cuh Layout), from the tile's point of view (p = m for A, n for B).

// Copies the BK x 128 tile x(p0 .. p0+127, k0 .. k0+BK-1) into dst[l*LDS + p], zero past
// (extent, k). Element (p, l) of the operand is at x[p + l*ld] (contiguous along p) or
// x[l + p*ld] (kKContig).
template <Layout L>
__device__ __forceinline__ void load_tile(float* dst, const float* x, int64_t ld, int p0, int extent,
                                          int k0, int k) {
  const int t = threadIdx.x;
  if (L == kContigVec) {
#pragma unroll
    for (int r = 0; r < BK * 128 / 4 / kThreads; ++r) {
      const int e = t + r * kThreads, p = (e % 32) * 4, l = e / 32;
      const int gp = p0 + p, gl = k0 + l;
      int valid = gl < k ? extent - gp : 0;
      valid = valid < 0 ? 0 : valid > 4 ? 4 : valid;
      const float* src = valid ? x + gp + int64_t(gl) * ld : x;
      if (valid == 4 || valid == 0) {
        cp_async16(dst + l * LDS + p, src, valid);  // whole chunk, or zero fill (reads nothing)
      } else {
        // A chunk cut by the edge along p (m or n): element by element, so no copy names an
        // address past the operand (a 16-byte copy with a source size reads only that many bytes
        // by PTX, but compute-sanitizer counts all 16 and stops the kernel at the operand's end).
#pragma unroll
        for (int q = 0; q < 4; ++q) cp_async4(dst + l * LDS + p + q, q < valid ? src + q : x, q < valid);
      }
    }
  } else if (L == kContigScalar) {
#pragma unroll
    for (int r = 0; r < BK * 128 / kThreads; ++r) {
      const int e = t + r * kThreads, p = e % 128, l = e / 128;
      const int gp = p0 + p, gl = k0 + l;
      const bool ok = gp < extent && gl < k;
      cp_async4(dst + l * LDS + p, ok ? x + gp + int64_t(gl) * ld : x, ok);
    }
  } else {
#pragma unroll
    for (int r = 0; r < BK * 128 / kThreads; ++r) {
      const int l = t % 8 + 8 * (r & 1), p = t / 8 + 32 * (r >> 1);
      const int gp = p0 + p, gl = k0 + l;
      const bool ok = gp < extent && gl < k;
      cp_async4(dst + l * LDS + p, ok ? x + gl + int64_t(gp) * ld : x, ok);
    }
  }
}

template <Layout LA, Layout LB, int STAGES>
__global__ __launch_bounds__(kThreads, 2) void sgemm_pipelined_128x128x16(Args g) {
  extern __shared__ __align__(16) float smem[];  // STAGES x {as (BK x LDS), bs (BK x LDS)}
  // Swizzled tile coordinates.
  const TileCoord tc = swizzled_tile(blockIdx.x, (g.m + BM - 1) / BM, (g.n + BN - 1) / BN, kGroupM);
  const int bm = tc.tm * BM, bn = tc.tn * BN;

  const LaneTile lt = lane_tile();
  float acc[8][8] = {};  // (8) x (8) outputs of this lane
  const int tiles = (g.k + BK - 1) / BK;
  auto issue = [&](int kt) {
    float* st = smem + (kt % STAGES) * kStageFloats;
    load_tile<LA>(st, g.a, g.lda, bm, g.m, kt * BK, g.k);
    load_tile<LB>(st + BK * LDS, g.b, g.ldb, bn, g.n, kt * BK, g.k);
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) issue(s);
    cp_async_commit();  // empty groups keep the count uniform
  }
  for (int kt = 0; kt < tiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // tile kt has landed (this thread's copies)
    __syncthreads();              // ... everyone's; and stage (kt-1) % STAGES is free again
    if (kt + STAGES - 1 < tiles) issue(kt + STAGES - 1);
    cp_async_commit();
    const float* st = smem + (kt % STAGES) * kStageFloats;
    mma_tile_8x8<BK, LDS, LDS>(st, st + BK * LDS, lt, acc);
  }
  cp_async_wait<0>();
  const bool vec = aligned16(g.c) && g.ldc % 4 == 0;
  store_tile_8x8(g, acc, bm, bn, lt, vec);
}

template <int STAGES>
struct Launch {
  template <Layout LA, Layout LB>
  static cudaError_t launch(const Args& g, cudaStream_t s) {
    const size_t smem = size_t(STAGES) * kStageFloats * sizeof(float);
    auto kernel = sgemm_pipelined_128x128x16<LA, LB, STAGES>;
    static SmemLimitOnce limit;
    const cudaError_t attr = limit.set(reinterpret_cast<const void*>(kernel), smem);
    if (attr != cudaSuccess) return attr;
    const int blocks = ((g.m + BM - 1) / BM) * ((g.n + BN - 1) / BN);
    kernel<<<blocks, kThreads, smem, s>>>(g);
    return cudaGetLastError();
  }
};

}  // namespace

cudaError_t launch_pipelined(const GemmProblem& p, cudaStream_t s) {
  const Args g = make_args(p);
  const Layout la = operand_layout(p.ta == Op::T, p.a, p.lda), lb = operand_layout(p.tb == Op::N, p.b, p.ldb);
  return launch_with_layouts<Launch<4>>(la, lb, g, s);
}

}  // namespace sgemm_detail
}  // namespace myblas

// Shape-specialised kernel, smallk_128x128x16: C := alpha*op(A)*op(B) + beta*C for small k (<= 128)
// with large m and n and beta != 0, where reading and writing C costs as much as the FMAs.
//
// What changed from pipelined_128x128x16 and why. The tiles are the same (128x128 block, 64x32
// warp tiles, 8x8 lane patches, 16 k per cp.async stage, 4 stages, two blocks per SM, every
// transpose and alignment); the epilogue is not. store_tile_8x8 reads and writes C one float4 at a
// time, and since a read may alias the store before it, neither the compiler nor the hardware
// lets the next read start before the previous store: 16 dependent memory round trips per lane
// per tile (its PTX: ld.global.v4 / st.global.v4 strictly alternating). At k = 64 a tile's FMAs are
// short, so those round trips were more than a quarter of the time (388 -> 281 us once batched).
// Here a whole tile with 16-byte aligned columns reads its C in two batches of 8 float4 a lane
// (4 columns x 2 halves; 32 registers, which fit beside the 64 accumulators in the 128 that two
// blocks per SM allow), every read of a batch issued before any store: 2 round trips.
//
// Measured on the H100 (bench/results/h100-sgemm-smallk-2026-11-22.md, three runs; times from the
// last unless said). 8192^2 x 64, beta = 0.5, NN: cuBLAS 323 us, pipelined_s4 388 us, this kernel
// 281 us (1.15x cuBLAS; NT 1.21x, TN 1.07x, TT 1.15x). Floors: C read and written, 537 MB at ~3
// TB/s = 179 us; the FMAs, 8.6 GFLOP at the ~51 TFLOP/s of our best large-k kernel = 170 us.
// - The issue's hypothesis (DRAM idle during the FMAs, SMs idle during the epilogue) was half
//   right: the epilogue was the problem, but as latency, not bandwidth. Prefetching each tile's C
//   into L2 at block start (prefetch.global.L2 per line) took the old epilogue from 388 to 332-347
//   us (runs 1, 2); batching the reads alone takes it to 281. With batching the prefetch no longer
//   pays (291 us: about 40 MB of prefetched lines are evicted before
//   use and read again, ncu dram__bytes_read 312 MB against 273-282).
// - A persistent grid (two blocks per SM walking the tiles, the next tile's copies issued before
//   the current tile's epilogue) is no better: 286 against 281 us,
//   273 against 262 with beta = 0, and 426 against 388 with the old epilogue (run 1). With the
//   prefetch it read 425-451 MB from DRAM: prefetched lines evicted before use.
// - Removed after run 1: one cp.async.bulk.prefetch.L2 per column (450 us persistent, against 445
//   for per-line prefetch), prefetching one tile ahead (463). After run 3: 32 k per stage with 3
//   stages (327 us; it also spills 100-144 bytes in the misaligned layouts).
// - ld/st.global.cs (evict-first) on C: within noise (280 us).
// These alternatives are not kept (git history has them).
// - Reading the first batch before the last k tile's FMAs, to overlap its round trip, needs 32
//   more registers across them and spilled 144-256 bytes in every layout under the 128-register
//   cap: not measured.
// Where the rest goes: with beta = 0 (C only written) this kernel, pipelined_s4 and cuBLAS all take
// 258-274 us, and beta = 0.5 now costs 8% more than that. ncu (beta = 0.5): FMA pipe active 53%,
// 5.35 warp cycles per issued instruction with 4 warps per scheduler, 2.0 of them "not selected":
// issue-bound on the 8x8 lane tile's non-FMA instructions plus each tile's pipeline fill, not on
// DRAM (57% of peak). The issue's target, 1.3x the memory floor (<= 221 us), needs a leaner FMA
// core for short k (the 8x16 regdb tiles also take 264 us at beta = 0 and k = 64); its "2x
// cuBLAS" (161 us) is below the 179 us memory floor and out of reach for any kernel.
//
// Registers: 126-128 a thread, no spills, in all nine layout instantiations (nvcc -Xptxas -v,
// CUDA 13.0, sm_90a).
//
// Any k is correct (k tiles past k are zero-filled); beta == 0 never reads C; edge tiles, padded or
// misaligned C take store_tile_8x8.
#include "kernels/sgemm/common.cuh"
#include "kernels/sgemm/smallk.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int BM = kTileM, BN = kTileN;  // block tile (k per stage: the kernel's BK)
constexpr int kThreads = kTileThreads;
constexpr int kBlocksPerSm = 2;
constexpr int LDS = 132;  // padded shared row (floats): 16-byte aligned, transposed stores spread over banks
constexpr int kGroupM = 8;  // tile rows per swizzle group
static_assert(BM == 128 && BN == 128 && kThreads == 256,
              "the copy maps below assume 128x128 tiles, 256 threads");

// Copies op(X)(p0 .. p0+127, k0 .. k0+BK-1) into dst[l*LDS + p], zero past (extent, k). Element
// (p, l) is x[p + l*ld] (contiguous along p: A N with p = m, B T with p = n) or x[l + p*ld]
// (kKContig: A T, B N). The vector path copies 16 bytes where the chunk is whole and inside the
// operand, else 4 bytes at a time, so no copy names an address past the operand.
template <Layout L, int BK>
__device__ __forceinline__ void copy_panel(float* dst, const float* x, int64_t ld, int p0, int extent, int k0, int k) {
  const int t = threadIdx.x;
  if (L == kContigVec) {
#pragma unroll
    for (int r = 0; r < BK * 128 / 4 / kThreads; ++r) {  // BK/8 chunks of 4 floats, 32 lanes along p
      const int e = t + r * kThreads, p = (e % 32) * 4, l = e / 32;
      const int gp = p0 + p, gl = k0 + l;
      const int left = gl < k ? extent - gp : 0;
      const float* src = x + gp + int64_t(gl) * ld;
      if (left >= 4 || left <= 0) {
        cp_async16(dst + l * LDS + p, left > 0 ? src : x, left > 0 ? 4 : 0);  // whole, or zero fill (reads nothing)
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) cp_async4(dst + l * LDS + p + q, q < left ? src + q : x, q < left);
      }
    }
  } else if (L == kContigScalar) {
#pragma unroll
    for (int r = 0; r < BK * 128 / kThreads; ++r) {  // BK/2 floats, 128 lanes along p
      const int e = t + r * kThreads, p = e % 128, l = e / 128;
      const bool ok = p0 + p < extent && k0 + l < k;
      cp_async4(dst + l * LDS + p, ok ? x + (p0 + p) + int64_t(k0 + l) * ld : x, ok);
    }
  } else {
#pragma unroll
    for (int r = 0; r < BK * 128 / kThreads; ++r) {  // BK/2 floats, lanes 8 along k x 4 along p
      const int l = t % 8 + 8 * (r % (BK / 8)), p = t / 8 + 32 * (r / (BK / 8));
      const bool ok = p0 + p < extent && k0 + l < k;
      cp_async4(dst + l * LDS + p, ok ? x + (k0 + l) + int64_t(p0 + p) * ld : x, ok);
    }
  }
}

// @tparam BK      k per pipeline stage (32 with 3 stages measured slower: see the header)
// @tparam STAGES  stages of BK k in the pipeline (STAGES-1 in flight while one is multiplied)
template <Layout LA, Layout LB, int BK, int STAGES>
__global__ __launch_bounds__(kThreads, kBlocksPerSm) void sgemm_smallk_128x128x16(Args g) {
  constexpr int kStageFloats = 2 * BK * LDS;     // as (BK x LDS) then bs (BK x LDS)
  extern __shared__ __align__(16) float smem[];  // STAGES x {as, bs}
  const int tiles_m = (g.m + BM - 1) / BM, tiles_n = (g.n + BN - 1) / BN;
  const int tiles = tiles_m * tiles_n, ktiles = (g.k + BK - 1) / BK;
  const int first = blockIdx.x, stride = gridDim.x;
  const int my_tiles = (tiles - 1 - first) / stride + 1;  // grid <= tiles, so >= 1
  auto tile = [&](int i) { return swizzled_tile(first + i * stride, tiles_m, tiles_n, kGroupM); };

  const bool vec = aligned16(g.c) && g.ldc % 4 == 0;

  // The copy side of the pipeline walks (tile, k tile) STAGES-1 steps ahead of the FMAs.
  int iss_i = 0, iss_kt = 0, iss_stage = 0;
  TileCoord iss = tile(0);
  auto issue = [&] {
    if (iss_i < my_tiles) {
      float* st = smem + iss_stage * kStageFloats;
      copy_panel<LA, BK>(st, g.a, g.lda, iss.tm * BM, g.m, iss_kt * BK, g.k);
      copy_panel<LB, BK>(st + BK * LDS, g.b, g.ldb, iss.tn * BN, g.n, iss_kt * BK, g.k);
      if (++iss_kt == ktiles) {
        iss_kt = 0;
        if (++iss_i < my_tiles) iss = tile(iss_i);
      }
    }
    cp_async_commit();  // empty groups keep the count uniform
    iss_stage = iss_stage + 1 == STAGES ? 0 : iss_stage + 1;
  };
#pragma unroll 1
  for (int s = 0; s < STAGES - 1; ++s) issue();

  const LaneTile lt = lane_tile();
  int stage = 0;
#pragma unroll 1
  for (int i = 0; i < my_tiles; ++i) {
    float acc[8][8] = {};  // (8) x (8) outputs of this lane
#pragma unroll 1
    for (int kt = 0; kt < ktiles; ++kt) {
      cp_async_wait<STAGES - 2>();  // this step's k tile has landed (this thread's copies)
      __syncthreads();              // ... everyone's; and the stage multiplied last step is free
      issue();
      const float* st = smem + stage * kStageFloats;
      mma_tile_8x8<BK, LDS, LDS>(st, st + BK * LDS, lt, acc);
      stage = stage + 1 == STAGES ? 0 : stage + 1;
    }
    const TileCoord tc = tile(i);
    const int bm = tc.tm * BM, bn = tc.tn * BN;
    if (vec && g.beta != 0.f && bm + BM <= g.m && bn + BN <= g.n) {
      float* c0 = g.c + (bm + lt.row0) + int64_t(bn + lt.col0) * g.ldc;
#pragma unroll
      for (int ph = 0; ph < 2; ++ph) {
        CBatch old;
        load_c_batch<false>(old, c0, g.ldc, ph);
        store_c_batch<false>(old, acc, c0, g.ldc, ph, g.alpha, g.beta);
      }
    } else {
      store_tile_8x8(g, acc, bm, bn, lt, vec);
    }
  }
  cp_async_wait<0>();
}

template <int BK, int STAGES>
struct Launch {
  template <Layout LA, Layout LB>
  static cudaError_t launch(const Args& g, cudaStream_t s) {
    constexpr size_t smem = size_t(STAGES) * 2 * BK * LDS * sizeof(float);
    auto kernel = sgemm_smallk_128x128x16<LA, LB, BK, STAGES>;
    static SmemLimitOnce limit;
    const cudaError_t attr = limit.set(reinterpret_cast<const void*>(kernel), smem);
    if (attr != cudaSuccess) return attr;
    const int tiles = ((g.m + BM - 1) / BM) * ((g.n + BN - 1) / BN);
    kernel<<<tiles, kThreads, smem, s>>>(g);
    return cudaGetLastError();
  }
};

}  // namespace

int64_t smallk_tiles(const GemmProblem& p) { return int64_t((p.m + BM - 1) / BM) * ((p.n + BN - 1) / BN); }

cudaError_t launch_smallk(const GemmProblem& p, cudaStream_t s) {
  const Args g = make_args(p);
  const Layout la = operand_layout(p.ta == Op::T, p.a, p.lda), lb = operand_layout(p.tb == Op::N, p.b, p.ldb);
  return launch_with_layouts<Launch<16, 4>>(la, lb, g, s);
}

}  // namespace sgemm_detail
}  // namespace myblas

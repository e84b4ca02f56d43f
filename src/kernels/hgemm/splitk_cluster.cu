// Split-k over a thread-block cluster, splitk_<TM>x<TN>: the mma.sync block of rung 2
// (kernels/hgemm/mma_sync.cuh) on a share of k, the shares added through distributed shared
// memory in a fixed order, and the once-rounded epilogue, all in one kernel.
//
// Why: a skinny product (m or n up to a few hundred, the other two dimensions thousands) has too
// few output tiles for the GPU. 16 x 4096 x 4096 is 32 tiles of the wgmma kernel for 132 SMs: it
// ran at 0.50-0.58x raw cublasGemmEx, and cuBLAS itself took 24-29 us (H100) for a product whose
// bytes (B: 32 MB) take about 10 us to read. Splitting k between the blocks of a cluster gives
// every SM work, and summing the shares in the cluster's shared memory keeps the sum in FP32 and
// the result rounded once, with no workspace, no second kernel and no atomics.
//
// How: the grid is (tiles, c) in clusters of (1, c, 1) blocks; rank r of a cluster sums the k
// tiles [r * per, (r + 1) * per) of its output tile into registers, writes them to its shared
// memory (the pipeline stages are free by then), and cluster_reduce_ordered adds rank 0's, rank
// 1's, ... value of each output in that order (bitwise reproducible) with rank r finishing
// 1/c of the tile: alpha * sum + beta * C, rounded once (binary16 C) or stored (FP32 C). c is
// chosen at launch from the resident blocks the device holds and the tile count: enough blocks
// to fill the GPU, at most 8 per cluster (the portable size) and at least 2 k tiles per rank.
//
// Tiles: 64 x 128 (m x n of C; for m small) and 128 x 64 (for n small), eight warps of 32 x 32,
// 64 k per stage, 3 stages (72 KiB), two blocks per SM (124-128 registers). Types: binary16 A, B and C
// (HGEMM), binary16 A and B with FP32 C (shgemm), bfloat16 A and B with FP32 C (sbgemm). Every
// transpose; any m, n, k, ldc and C alignment; A and B misaligned for 16-byte copies take the
// half-by-half loader (HGEMM only: the 16-bit-to-FP32 routines need 16-byte aligned A and B).
#include <cuda_bf16.h>

#include <type_traits>

#include "kernels/cluster.cuh"
#include "kernels/hgemm/mma_sync.cuh"

namespace myblas {
namespace hgemm_detail {
namespace {

constexpr int kSplitBK = 64, kSplitStages = 3;
constexpr int kMaxRanks = 8;  // blocks per cluster: the portable cluster size

// The problem as every HGEMM kernel sees it (make_args; A and B are bfloat16 for sbgemm, only
// copied as 16-bit words until the mma; C is the kernel's TOut), and the k tiles a cluster rank sums.
struct SplitArgs : Args {
  int per_rank = 0;
};

template <int TM, int TN, int WARPS_M, int WARPS_N, bool KCX, bool KCY, bool VEC, bool BF16, class TOut>
__global__ __launch_bounds__(WARPS_M* WARPS_N * 32, 2) void hgemm_splitk_cluster(SplitArgs g) {
  using Block = MmaSyncBlock<TM, TN, WARPS_M, WARPS_N, kSplitBK, kSplitStages, KCX, KCY, VEC, BF16>;
  constexpr int MI = Block::MI, NI = Block::NI;
  constexpr int kLd = TM + 8;  // floats between columns of the shares' tile (8: no bank conflicts)
  static_assert(size_t(TN) * kLd * sizeof(float) <= Block::kSmemBytes, "the shares' tile fits in the stages");
  extern __shared__ __align__(128) __half smem[];

  const int tiles_m = (g.m + TM - 1) / TM, tiles_n = (g.n + TN - 1) / TN;
  const TileCoord tc = swizzled_tile(blockIdx.x, tiles_m, tiles_n, 8);
  const int bm = tc.tm * TM, bn = tc.tn * TN;
  const int ktiles = (g.k + kSplitBK - 1) / kSplitBK;
  const int kt0 = min(ktiles, int(blockIdx.y) * g.per_rank), kt1 = min(ktiles, kt0 + g.per_rank);
  float acc[MI][NI][4];
  Block::accumulate(g.a, g.lda, g.b, g.ldb, g.m, g.n, g.k, bm, bn, kt0, kt1, smem, acc);

  // This rank's share of the tile into shared memory, column-major with kLd floats per column
  // (accumulator (i, j, 2h + e) is tile element (wm + 8j + 2t4 + e, wn + 16i + 8h + gid)).
  __syncthreads();  // every warp is done reading the stages
  float* shares = reinterpret_cast<float*>(smem);
  const int lane = threadIdx.x % 32, gid = lane >> 2, t4 = lane & 3;
  const int wm = Block::warp_m(), wn = Block::warp_n();
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int j = 0; j < NI; ++j)
        *reinterpret_cast<float2*>(shares + (wn + 16 * i + 8 * h + gid) * kLd + wm + 8 * j + 2 * t4) =
            make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);

  TOut* c = static_cast<TOut*>(static_cast<void*>(g.c));
  const int m = g.m, n = g.n;
  const int64_t ldc = g.ldc;
  const float alpha = g.alpha, beta = g.beta;
  cluster_reduce_ordered(
      shares, TM * TN, [](int q) { return (q / TM) * kLd + q % TM; },
      [&](int q, float sum) {
        const int row = bm + q % TM, col = bn + q / TM;
        if (row < m && col < n) store_c(c + row + int64_t(col) * ldc, sum, alpha, beta);
      });
}

template <int TM, int TN, int WARPS_M, int WARPS_N, bool KCX, bool KCY, bool VEC, bool BF16, class TOut>
cudaError_t launch_split_cfg(SplitArgs g, int ranks, cudaStream_t s) {
  using Block = MmaSyncBlock<TM, TN, WARPS_M, WARPS_N, kSplitBK, kSplitStages, KCX, KCY, VEC, BF16>;
  constexpr int kThreads = Block::kThreads;
  constexpr size_t kSmem = Block::kSmemBytes;
  auto kernel = hgemm_splitk_cluster<TM, TN, WARPS_M, WARPS_N, KCX, KCY, VEC, BF16, TOut>;
  static SmemLimitOnce limit;
  const cudaError_t attr = limit.set(reinterpret_cast<const void*>(kernel), kSmem);
  if (attr != cudaSuccess) return attr;
  const int64_t tiles = int64_t((g.m + TM - 1) / TM) * ((g.n + TN - 1) / TN);
  if (tiles > int64_t(1) << 31) return cudaErrorInvalidValue;
  const int ktiles = (g.k + kSplitBK - 1) / kSplitBK;
  // Ranks: enough blocks for every resident slot, at most kMaxRanks, at least 2 k tiles each
  // (or as asked, for the benchmark's probe).
  const int resident = resident_blocks(reinterpret_cast<const void*>(kernel), kThreads, kSmem);
  int c = int(std::min<int64_t>(kMaxRanks, (resident + tiles - 1) / tiles));
  c = std::max(1, std::min(c, ktiles / 2));
  if (ranks > 0) c = std::min(std::min(ranks, kMaxRanks), ktiles);
  // Every cluster in one wave: a cluster of c blocks must fit in one GPC, so the device holds
  // fewer clusters of 8 than a quarter of the clusters of 2 (the H200: 30 of 8 blocks, so 32 tiles
  // x 8 ran two waves, 25 us against 22 for 32 x 4).
  while (ranks <= 0 && c > 1 && tiles > max_active_clusters(reinterpret_cast<const void*>(kernel), kThreads, kSmem, c)) c /= 2;
  g.per_rank = (ktiles + c - 1) / c;
  c = (ktiles + g.per_rank - 1) / g.per_rank;  // (no rank without k tiles)
  if (c > 1 && max_active_clusters(reinterpret_cast<const void*>(kernel), kThreads, kSmem, c) == 0) {
    c = 1;  // (the device cannot hold such a cluster: one rank)
    g.per_rank = ktiles;
  }
  return launch_clusters(kernel, dim3(unsigned(tiles), unsigned(c)), kThreads, kSmem, c, s, g);
}

template <int TM, int TN, int WARPS_M, int WARPS_N, bool BF16, class TOut>
cudaError_t launch_split_tile(const SplitArgs& g, int r, bool kcx, bool kcy, bool vec, cudaStream_t s) {
  if constexpr (std::is_same_v<TOut, __half>) {
    if (!vec) {
      if (kcx) return kcy ? launch_split_cfg<TM, TN, WARPS_M, WARPS_N, true, true, false, BF16, TOut>(g, r, s)
                          : launch_split_cfg<TM, TN, WARPS_M, WARPS_N, true, false, false, BF16, TOut>(g, r, s);
      return kcy ? launch_split_cfg<TM, TN, WARPS_M, WARPS_N, false, true, false, BF16, TOut>(g, r, s)
                 : launch_split_cfg<TM, TN, WARPS_M, WARPS_N, false, false, false, BF16, TOut>(g, r, s);
    }
  } else if (!vec) {
    return cudaErrorInvalidValue;  // (splitk_can_implement refuses these)
  }
  if (kcx) return kcy ? launch_split_cfg<TM, TN, WARPS_M, WARPS_N, true, true, true, BF16, TOut>(g, r, s)
                      : launch_split_cfg<TM, TN, WARPS_M, WARPS_N, true, false, true, BF16, TOut>(g, r, s);
  return kcy ? launch_split_cfg<TM, TN, WARPS_M, WARPS_N, false, true, true, BF16, TOut>(g, r, s)
             : launch_split_cfg<TM, TN, WARPS_M, WARPS_N, false, false, true, BF16, TOut>(g, r, s);
}

template <int TM, int TN, int WARPS_M, int WARPS_N>
cudaError_t launch_split_types(const GemmProblem& p, const SplitArgs& g, bool kcx, bool kcy, bool vec,
                               int r, cudaStream_t s) {
  if (p.routine == Routine::sbgemm) return launch_split_tile<TM, TN, WARPS_M, WARPS_N, true, float>(g, r, kcx, kcy, vec, s);
  if (p.mixed()) return launch_split_tile<TM, TN, WARPS_M, WARPS_N, false, float>(g, r, kcx, kcy, vec, s);
  return launch_split_tile<TM, TN, WARPS_M, WARPS_N, false, __half>(g, r, kcx, kcy, vec, s);
}

}  // namespace

const char* splitk_can_implement(const GemmProblem& p) {
  if (!device_has_clusters()) return "thread-block clusters need compute capability 9.0";
  if (p.mixed() && !(vec8_ok(p.a, p.lda) && vec8_ok(p.b, p.ldb)))
    return "16-bit A and B with an FP32 C need A and B 16-byte aligned with lda, ldb multiples of 8";
  return nullptr;
}

cudaError_t launch_splitk(const GemmProblem& p, int tm, int tn, cudaStream_t s, int ranks) {
  SplitArgs g;
  static_cast<Args&>(g) = make_args(p);
  const bool kcx = p.tb == Op::N;  // (as rung 2: B N and A T are k-contiguous)
  const bool kcy = p.ta == Op::T;
  const bool vec = vec8_ok(p.a, p.lda) && vec8_ok(p.b, p.ldb);
  if (tm == 64 && tn == 128) return launch_split_types<64, 128, 2, 4>(p, g, kcx, kcy, vec, ranks, s);
  if (tm == 128 && tn == 64) return launch_split_types<128, 64, 4, 2>(p, g, kcx, kcy, vec, ranks, s);
  return cudaErrorInvalidValue;
}

}  // namespace hgemm_detail
}  // namespace myblas

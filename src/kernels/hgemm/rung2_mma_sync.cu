// Rung 2, mma_sync_<TM>x<TN>x<BK>_s<STAGES>: warp-level mma.sync.m16n8k16 in inline PTX, operands
// read from shared memory with ldmatrix, fed by a multi-stage cp.async pipeline, for every
// transpose and alignment. Three tile configurations are built (registry.cu): 128x256x32 with 4
// stages (the rung), and 128x256x64 and 128x128x64 with 3 stages (hgemm_choose's fallbacks).
//
// What changed from rung 1 (wmma) and why:
// - mma.sync.aligned.m16n8k16 (FP16 in, FP32 accumulate) instead of wmma: the register layout of
//   the fragments is known, so the epilogue writes straight from the accumulators (no shared
//   memory round trip), and ldmatrix.x4 loads four 8x8 pieces per instruction.
// - The kernel computes C^T = op(B)^T op(A)^T: the mma's M dimension runs along C's n and its N
//   dimension along C's m. An accumulator pair (c0, c1) then holds two consecutive rows of one
//   column of C, which is contiguous in column-major storage: one 4-byte store per pair.
// - Shared memory keeps each operand in its storage order: "k-contiguous" (A T, B N: rows of BK
//   halves) is read with plain ldmatrix, "p-contiguous" (A N, B T: rows of the tile's m or n
//   extent) with ldmatrix.trans, which transposes the 8x8 pieces on the way into registers. So
//   global memory is always copied in 16-byte runs along its contiguous dimension.
// - Bank conflicts: 16-byte chunks are XOR-swizzled (chunk ^ f(row)) so that the eight row
//   addresses of every 8x8 ldmatrix piece, and the eight chunks a quarter-warp writes, fall on
//   eight different 16-byte bank groups. No padding, so cp.async destinations stay 16-byte units.
// - Loads go global -> shared with 16-byte cp.async, STAGES-1 k tiles ahead of the math, one
//   barrier per k tile; the source size zero-fills edge chunks. Where an operand's base or
//   leading dimension is not 16-byte aligned (ld % 8 != 0), a variant copies half by half
//   through registers (correct, slower).
// - Fragments are double-buffered in registers: the ldmatrix loads for the next k16 step (across
//   the stage boundary too) are issued before the mma.sync of the current one.
// - Block swizzle: blocks are numbered down groups of 8 tile rows, so the blocks resident at
//   the same time reuse A's row panels and B's column panels from L2.
// - Warps compute 64x64 of C each (4 m16 x 8 n8 mma tiles, 128 FP32 accumulators per thread):
//   8 warps for a 128x256 block (one block per SM), 4 warps for 128x128 (two per SM).
#include "kernels/hgemm/mma_sync.cuh"

namespace myblas {
namespace hgemm_detail {
namespace {

constexpr int kGroupM = 8;  // tile rows per swizzle group

// The kernel: one block per TM x TN tile of C (blocks numbered down groups of kGroupM tile rows),
// the whole of k (MmaSyncBlock, kernels/hgemm/mma_sync.cuh, has the template parameters).
template <int TM, int TN, int WARPS_M, int WARPS_N, int BK, int STAGES, bool KCX, bool KCY, bool VEC>
__global__ __launch_bounds__(WARPS_M* WARPS_N * 32, WARPS_M* WARPS_N >= 8 ? 1 : 2) void hgemm_mma_sync(Args g) {
  using Block = MmaSyncBlock<TM, TN, WARPS_M, WARPS_N, BK, STAGES, KCX, KCY, VEC, false>;
  constexpr int MI = Block::MI, NI = Block::NI;
  extern __shared__ __align__(128) __half smem[];  // STAGES x {X tile, Y tile}

  const int tiles_m = (g.m + TM - 1) / TM, tiles_n = (g.n + TN - 1) / TN;
  const TileCoord tc = swizzled_tile(blockIdx.x, tiles_m, tiles_n, kGroupM);
  const int bm = tc.tm * TM, bn = tc.tn * TN;
  const int lane = threadIdx.x % 32;
  const int wm = Block::warp_m(), wn = Block::warp_n();
  float acc[MI][NI][4];  // (MI) x (NI) m16n8 accumulator tiles of this lane
  Block::accumulate(g.a, g.lda, g.b, g.ldb, g.m, g.n, g.k, bm, bn, 0, (g.k + BK - 1) / BK, smem, acc);

  // Accumulator (i, j, 2h + e) of this lane is D(row = g + 8h, col = 2t + e) of mma tile (i, j),
  // i.e. C(m = wm + 8j + 2t + e, n = wn + 16i + 8h + g): e = 0, 1 are adjacent rows of C.
  const int gid = lane >> 2, t4 = lane & 3;
  const bool pairs = (reinterpret_cast<uintptr_t>(g.c) & 3u) == 0 && (g.ldc & 1) == 0;
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = bn + wn + i * 16 + h * 8 + gid;
      if (col >= g.n) continue;
      __half* cj = g.c + int64_t(col) * g.ldc;
#pragma unroll
      for (int j = 0; j < NI; ++j) {
        const int row = bm + wm + j * 8 + 2 * t4;
        if (row >= g.m) continue;
        store_c2(cj + row, acc[i][j][2 * h], acc[i][j][2 * h + 1], g.alpha, g.beta,
                 pairs && row + 1 < g.m, true, row + 1 < g.m);
      }
    }
}

template <int TM, int TN, int WARPS_M, int WARPS_N, int BK, int STAGES, bool KCX, bool KCY, bool VEC>
cudaError_t launch_cfg(const Args& g, cudaStream_t s) {
  constexpr int kThreads = WARPS_M * WARPS_N * 32;
  const size_t smem = MmaSyncBlock<TM, TN, WARPS_M, WARPS_N, BK, STAGES, KCX, KCY, VEC, false>::kSmemBytes;
  auto kernel = hgemm_mma_sync<TM, TN, WARPS_M, WARPS_N, BK, STAGES, KCX, KCY, VEC>;
  static SmemLimitOnce limit;
  const cudaError_t attr = limit.set(reinterpret_cast<const void*>(kernel), smem);
  if (attr != cudaSuccess) return attr;
  const int blocks = ((g.m + TM - 1) / TM) * ((g.n + TN - 1) / TN);
  kernel<<<blocks, kThreads, smem, s>>>(g);
  return cudaGetLastError();
}

template <int TM, int TN, int WARPS_M, int WARPS_N, int BK, int STAGES>
cudaError_t launch_tile(const Args& g, bool kcx, bool kcy, bool vec, cudaStream_t s) {
#define MYBLAS_MMA_CFG(x, y, v) launch_cfg<TM, TN, WARPS_M, WARPS_N, BK, STAGES, x, y, v>(g, s)
  if (vec) {
    if (kcx) return kcy ? MYBLAS_MMA_CFG(true, true, true) : MYBLAS_MMA_CFG(true, false, true);
    return kcy ? MYBLAS_MMA_CFG(false, true, true) : MYBLAS_MMA_CFG(false, false, true);
  }
  if (kcx) return kcy ? MYBLAS_MMA_CFG(true, true, false) : MYBLAS_MMA_CFG(true, false, false);
  return kcy ? MYBLAS_MMA_CFG(false, true, false) : MYBLAS_MMA_CFG(false, false, false);
#undef MYBLAS_MMA_CFG
}

}  // namespace

cudaError_t launch_mma_sync(const GemmProblem& p, int tm, int tn, int bk, cudaStream_t s) {
  const Args g = make_args(p);
  const bool kcx = p.tb == Op::N;  // B N: op(B)^T(j, l) = b[l + j*ldb], contiguous along k
  const bool kcy = p.ta == Op::T;  // A T: op(A)^T(i, l) = a[l + i*lda], contiguous along k
  const bool vec = vec8_ok(p.a, p.lda) && vec8_ok(p.b, p.ldb);
  if (tm == 128 && tn == 256 && bk == 32) return launch_tile<128, 256, 2, 4, 32, 4>(g, kcx, kcy, vec, s);
  if (tm == 128 && tn == 256 && bk == 64) return launch_tile<128, 256, 2, 4, 64, 3>(g, kcx, kcy, vec, s);
  if (tm == 128 && tn == 128 && bk == 64) return launch_tile<128, 128, 2, 2, 64, 3>(g, kcx, kcy, vec, s);
  return cudaErrorInvalidValue;
}

}  // namespace hgemm_detail
}  // namespace myblas

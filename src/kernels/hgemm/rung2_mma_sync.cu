// Rung 2, mma_sync_128x256x32_s4 (and the 128x128x32 variant): warp-level mma.sync.m16n8k16
// in inline PTX, operands read from shared memory with ldmatrix, fed by a 4-stage cp.async
// pipeline, for every transpose and alignment.
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
// - Loads go global -> shared with cp.async (16 bytes, zero-filled past the matrix edge via the
//   source size), STAGES-1 k tiles ahead of the math, one barrier per k tile. Where an operand's
//   base or leading dimension is not 16-byte aligned (ld % 8 != 0), a variant loads halves one
//   by one into registers and stores them to the same swizzled layout (correct, slower).
// - Block swizzle: blocks are numbered down groups of 8 tile rows, so the blocks resident at
//   the same time reuse A's row panels and B's column panels from L2.
// - 8 warps of 64x64 (4 m16 x 8 n8 mma tiles each, 128 FP32 accumulators per thread) in a
//   128x256 block, one block per SM; the 128x128 variant has 4 warps and two blocks per SM.
#include "kernels/hgemm/common.cuh"

namespace myblas {
namespace hgemm_detail {
namespace {

constexpr int BK = 32;      // k per pipeline stage (two m16n8k16 steps)
constexpr int kStages = 4;  // cp.async pipeline depth
constexpr int kGroupM = 8;  // tile rows per swizzle group

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Four 8x8 binary16 pieces; lanes 8q .. 8q+7 give the row addresses of piece q.
template <bool TRANS>
__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned (&r)[4]) {
  if (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// d += a (16x16, row) * b (16x8, col), FP16 inputs, FP32 accumulators.
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// One operand's tile in one pipeline stage: P (m or n) by BK (k) halves. KC (k-contiguous): P
// rows of BK halves; else BK rows of P halves. Rows are cut into 16-byte chunks, and chunk c of
// row `row` is stored at chunk c ^ f(row) of that row: f spreads any 8 consecutive rows over 8
// different bank groups (for 64-byte rows, pairs of rows share a 128-byte line, hence row >> 1).
template <bool KC, int P>
struct OperandTile {
  static constexpr int kHalves = P * BK;
  static constexpr int kRowLen = KC ? BK : P;
  static constexpr int kChunksPerRow = kRowLen / 8;
  static_assert(BK == 32, "the k-contiguous swizzle assumes 64-byte rows");
  static_assert(KC || P % 64 == 0, "p-contiguous rows must be whole 128-byte lines");
  __device__ __forceinline__ static int offset(int row, int chunk) {
    const int f = KC ? (row >> 1) & 3 : row & 7;
    return row * kRowLen + ((chunk ^ f) << 3);
  }
};

// Copies x(p0 .. p0+P-1, k0 .. k0+BK-1) into the stage tile, zero past (pext, kext). Element
// (p, l) is x[l + p*ld] when KC, else x[p + l*ld]. VEC: 16-byte cp.async (base 16-byte aligned,
// ld % 8 == 0); else halves one by one, synchronously.
template <bool KC, int P, int THREADS, bool VEC>
__device__ __forceinline__ void load_operand(__half* dst, const __half* x, int64_t ld, int p0, int pext,
                                             int k0, int kext) {
  using T = OperandTile<KC, P>;
  constexpr int kChunks = P * BK / 8;
  static_assert(kChunks % THREADS == 0, "whole chunks per thread");
#pragma unroll
  for (int r = 0; r < kChunks / THREADS; ++r) {
    const int e = threadIdx.x + r * THREADS;
    const int row = e / T::kChunksPerRow, c = e % T::kChunksPerRow;
    int p, l, run;  // first element of the chunk and how many of its 8 halves are inside
    if (KC) {
      p = p0 + row;
      l = k0 + c * 8;
      run = p < pext ? kext - l : 0;
    } else {
      p = p0 + c * 8;
      l = k0 + row;
      run = l < kext ? pext - p : 0;
    }
    run = run < 0 ? 0 : run > 8 ? 8 : run;
    const int64_t at = KC ? l + int64_t(p) * ld : p + int64_t(l) * ld;
    __half* d = dst + T::offset(row, c);
    if (VEC) {
      cp_async16(d, run > 0 ? x + at : x, run * 2);
    } else {
      const unsigned short* xs = reinterpret_cast<const unsigned short*>(x) + (run > 0 ? at : 0);
      unsigned short h[8];
#pragma unroll
      for (int q = 0; q < 8; ++q) h[q] = q < run ? xs[q] : 0;
      *reinterpret_cast<uint4*>(d) = make_uint4(h[0] | unsigned(h[1]) << 16, h[2] | unsigned(h[3]) << 16,
                                                h[4] | unsigned(h[5]) << 16, h[6] | unsigned(h[7]) << 16);
    }
  }
}

// @tparam TM, TN   rows (m) and columns (n) of C per block
// @tparam WARPS_M, WARPS_N  warps along m and n; each warp computes (TM/WARPS_M) x (TN/WARPS_N)
// @tparam KCX      op(B)^T is k-contiguous (B N), read with plain ldmatrix; else .trans (B T)
// @tparam KCY      op(A)^T is k-contiguous (A T); else .trans (A N)
// @tparam VEC      both operands take 16-byte cp.async; else the scalar loader
template <int TM, int TN, int WARPS_M, int WARPS_N, bool KCX, bool KCY, bool VEC>
__global__ __launch_bounds__(WARPS_M* WARPS_N * 32, WARPS_M* WARPS_N >= 8 ? 1 : 2) void hgemm_mma_sync(Args g) {
  constexpr int kThreads = WARPS_M * WARPS_N * 32;
  constexpr int WTM = TM / WARPS_M, WTN = TN / WARPS_N;  // warp tile (C rows x C columns)
  constexpr int MI = WTN / 16;                           // mma m16 tiles, along C's n
  constexpr int NI = WTM / 8;                            // mma n8 tiles, along C's m
  static_assert(WTM % 16 == 0 && WTN % 16 == 0, "warp tiles are whole 16x16 pieces");
  using X = OperandTile<KCX, TN>;  // op(B)^T: p runs along n (the mma's A operand)
  using Y = OperandTile<KCY, TM>;  // op(A)^T: p runs along m (the mma's B operand)
  constexpr int kStageHalves = X::kHalves + Y::kHalves;
  extern __shared__ __align__(128) __half smem[];  // kStages x {X tile, Y tile}

  const int tiles_m = (g.m + TM - 1) / TM, tiles_n = (g.n + TN - 1) / TN;
  const TileCoord tc = swizzled_tile(blockIdx.x, tiles_m, tiles_n, kGroupM);
  const int bm = tc.tm * TM, bn = tc.tn * TN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp % WARPS_M) * WTM, wn = (warp / WARPS_M) * WTN;

  float acc[MI][NI][4];  // (MI) x (NI) m16n8 accumulator tiles of this lane
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.f;

  const int ktiles = (g.k + BK - 1) / BK;
  auto issue = [&](int kt, int stage) {
    __half* st = smem + stage * kStageHalves;
    load_operand<KCX, TN, kThreads, VEC>(st, g.b, g.ldb, bn, g.n, kt * BK, g.k);
    load_operand<KCY, TM, kThreads, VEC>(st + X::kHalves, g.a, g.lda, bm, g.m, kt * BK, g.k);
  };
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) issue(s, s);
    cp_async_commit();  // empty groups keep the count uniform
  }

  // ldmatrix piece q = lane / 8 of an x4 load, row lane % 8 of that piece. For the mma's A
  // operand the pieces are (p 0-7, k 0-7), (p 8-15, k 0-7), (p 0-7, k 8-15), (p 8-15, k 8-15);
  // for its B operand (two n8 tiles) (k 0-7, p 0-7), (k 8-15, p 0-7), (k 0-7, p 8-15), (k 8-15, p 8-15).
  const int piece = lane >> 3, prow = lane & 7;
  const unsigned smem0 = smem_u32(smem);
  int read_stage = 0, write_stage = kStages - 1;
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<kStages - 2>();  // tile kt has landed (this thread's copies)
    __syncthreads();               // ... everyone's; and the stage read at kt-1 is free again
    if (kt + kStages - 1 < ktiles) issue(kt + kStages - 1, write_stage);
    cp_async_commit();
    write_stage = write_stage == kStages - 1 ? 0 : write_stage + 1;

    const unsigned sx = smem0 + unsigned(read_stage * kStageHalves) * 2u;
    const unsigned sy = sx + unsigned(X::kHalves) * 2u;
    read_stage = read_stage == kStages - 1 ? 0 : read_stage + 1;
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      unsigned xf[MI][4];      // (MI) A fragments: 16 (n) x 16 (k)
      unsigned yf[NI / 2][4];  // (NI) B fragments, two per x4: 16 (k) x 8 (m)
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        const int ph = piece & 1, kh = piece >> 1, p = wn + i * 16 + ph * 8;
        const int off = KCX ? X::offset(p + prow, kk * 2 + kh) : X::offset(kk * 16 + kh * 8 + prow, p / 8);
        ldsm_x4<!KCX>(sx + unsigned(off) * 2u, xf[i]);
      }
#pragma unroll
      for (int j = 0; j < NI / 2; ++j) {
        const int kh = piece & 1, ph = piece >> 1, p = wm + j * 16 + ph * 8;
        const int off = KCY ? Y::offset(p + prow, kk * 2 + kh) : Y::offset(kk * 16 + kh * 8 + prow, p / 8);
        ldsm_x4<!KCY>(sy + unsigned(off) * 2u, yf[j]);
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) mma_16816(acc[i][j], xf[i], yf[j / 2][(j & 1) * 2], yf[j / 2][(j & 1) * 2 + 1]);
    }
  }
  cp_async_wait<0>();

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

template <int TM, int TN, int WARPS_M, int WARPS_N, bool KCX, bool KCY, bool VEC>
cudaError_t launch_cfg(const Args& g, cudaStream_t s) {
  constexpr int kThreads = WARPS_M * WARPS_N * 32;
  const size_t smem = size_t(kStages) * (TM + TN) * BK * sizeof(__half);
  auto kernel = hgemm_mma_sync<TM, TN, WARPS_M, WARPS_N, KCX, KCY, VEC>;
  static const cudaError_t attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  if (attr != cudaSuccess) return attr;
  const int blocks = ((g.m + TM - 1) / TM) * ((g.n + TN - 1) / TN);
  kernel<<<blocks, kThreads, smem, s>>>(g);
  return cudaGetLastError();
}

template <int TM, int TN, int WARPS_M, int WARPS_N>
cudaError_t launch_tile(const Args& g, bool kcx, bool kcy, bool vec, cudaStream_t s) {
  if (vec) {
    if (kcx) return kcy ? launch_cfg<TM, TN, WARPS_M, WARPS_N, true, true, true>(g, s)
                        : launch_cfg<TM, TN, WARPS_M, WARPS_N, true, false, true>(g, s);
    return kcy ? launch_cfg<TM, TN, WARPS_M, WARPS_N, false, true, true>(g, s)
               : launch_cfg<TM, TN, WARPS_M, WARPS_N, false, false, true>(g, s);
  }
  if (kcx) return kcy ? launch_cfg<TM, TN, WARPS_M, WARPS_N, true, true, false>(g, s)
                      : launch_cfg<TM, TN, WARPS_M, WARPS_N, true, false, false>(g, s);
  return kcy ? launch_cfg<TM, TN, WARPS_M, WARPS_N, false, true, false>(g, s)
             : launch_cfg<TM, TN, WARPS_M, WARPS_N, false, false, false>(g, s);
}

}  // namespace

cudaError_t launch_mma_sync(const GemmProblem& p, int tm, int tn, cudaStream_t s) {
  const Args g = make_args(p);
  const bool kcx = p.tb == Op::N;  // B N: op(B)^T(j, l) = b[l + j*ldb], contiguous along k
  const bool kcy = p.ta == Op::T;  // A T: op(A)^T(i, l) = a[l + i*lda], contiguous along k
  const bool vec = vec8_ok(p.a, p.lda) && vec8_ok(p.b, p.ldb);
  if (tm == 128 && tn == 256) return launch_tile<128, 256, 2, 4>(g, kcx, kcy, vec, s);
  if (tm == 128 && tn == 128) return launch_tile<128, 128, 2, 2>(g, kcx, kcy, vec, s);
  return cudaErrorInvalidValue;
}

}  // namespace hgemm_detail
}  // namespace myblas

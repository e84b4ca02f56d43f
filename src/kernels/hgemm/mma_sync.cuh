// The mma.sync machinery of the HGEMM kernels (rung 2 and the split-k cluster kernel): ldmatrix
// and mma.sync wrappers, the swizzled shared-memory operand tiles, the cp.async operand loaders,
// and one block's main loop over a range of k tiles (MmaSyncBlock::accumulate). How the pieces
// fit and why is told in rung2_mma_sync.cu; the kernels differ in their grids and epilogues.
#pragma once
#include "kernels/hgemm/common.cuh"
#include "kernels/mbarrier.cuh"  // smem_u32

namespace myblas {
namespace hgemm_detail {

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

// The same with the transpose chosen at run time.
__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned (&r)[4], bool trans) {
  if (trans)
    ldsm_x4<true>(addr, r);
  else
    ldsm_x4<false>(addr, r);
}

// d += a (16x16, row) * b (16x8, col), binary16 (BF16: bfloat16) inputs, FP32 accumulators.
template <bool BF16>
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (BF16)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// One operand's tile in one pipeline stage: P (m or n) by BK (k) halves. KC (k-contiguous): P
// rows of BK halves; else BK rows of P halves. Rows are cut into 16-byte chunks, and chunk c of
// row `row` is stored at chunk c ^ f(row) of that row: f spreads any 8 consecutive rows over 8
// different bank groups (64-byte rows: two rows share a 128-byte line, hence row >> 1).
template <bool KC, int P, int BK>
struct OperandTile {
  static constexpr int kHalves = P * BK;
  static constexpr int kRowLen = KC ? BK : P;
  static constexpr int kChunksPerRow = kRowLen / 8;
  static_assert(BK == 32 || BK == 64, "k-contiguous rows must be 64 or 128 bytes");
  static_assert(KC || P % 64 == 0, "p-contiguous rows must be whole 128-byte lines");
  __device__ __forceinline__ static int offset(int row, int chunk) {
    const int f = KC && BK == 32 ? (row >> 1) & 3 : row & 7;
    return row * kRowLen + ((chunk ^ f) << 3);
  }
};

// Copies one operand, k tile after k tile, into the stage tiles: tile x(p0 .. p0+P-1, k0 ..
// k0+BK-1), zero past (pext, kext). Element (p, l) is x[l + p*ld] when KC, else x[p + l*ld].
// Each thread owns chunks kRowStep rows apart (a multiple of 8, so all of them share one swizzle
// term), addressed from one running pointer. VEC (base 16-byte aligned, ld % 8 == 0): whole
// chunks are one 16-byte cp.async, chunks wholly outside one zero-filling cp.async that reads
// nothing, chunks cut by the edge 4-byte cp.async word by word. (An earlier branch to half-by-half
// register loads for edge chunks gave wrong k tails and 4-5x slower kernels on the H100 with
// CUDA 13.0, when the cp.async wrappers had no "memory" clobber; they have one now.) !VEC:
// every chunk half by half through registers.
template <bool KC, int P, int BK, int THREADS, bool VEC>
struct OperandLoader {
  using T = OperandTile<KC, P, BK>;
  static constexpr int kPerThread = P * BK / 8 / THREADS;
  static constexpr int kRowStep = THREADS / T::kChunksPerRow;
  static_assert(P * BK / 8 % THREADS == 0 && THREADS % T::kChunksPerRow == 0, "whole chunks per thread");
  static_assert(kRowStep % 8 == 0, "a thread's chunks must share their swizzle term");

  const __half* base;  // the operand (a valid address for copies that read nothing)
  const __half* src;   // this thread's first chunk in the next k tile
  int64_t row_step;    // elements from one of its chunks to the next (kRowStep rows)
  int64_t k_step;      // elements from one k tile to the next
  int soff;            // halves from a stage tile's start to this thread's first chunk
  int p, l;            // first element of the first chunk in the next k tile
  int pext, kext;

  __device__ __forceinline__ OperandLoader(const __half* x, int64_t ld, int p0, int pext_, int kext_)
      : base(x), pext(pext_), kext(kext_) {
    const int row = threadIdx.x / T::kChunksPerRow, c = threadIdx.x % T::kChunksPerRow;
    p = KC ? p0 + row : p0 + c * 8;
    l = KC ? c * 8 : row;
    src = x + (KC ? l + int64_t(p) * ld : p + int64_t(l) * ld);
    row_step = int64_t(kRowStep) * ld;
    k_step = KC ? BK : int64_t(BK) * ld;
    soff = T::offset(row, c);
  }

  // Moves on by `tiles` k tiles without loading them (a block that starts inside k).
  __device__ __forceinline__ void skip(int tiles) {
    src += int64_t(tiles) * k_step;
    l += tiles * BK;
  }

  // Loads the next k tile into `tile` and moves on to the one after.
  __device__ __forceinline__ void load(__half* tile) {
    // Every chunk of this thread inside the matrix (all but the edge tiles): one 16-byte copy
    // each, with nothing else in the loop (a per-chunk edge branch here cost the 4096^3 kernel
    // a third of its speed on the H100).
    const bool whole = KC ? p + (kPerThread - 1) * kRowStep < pext && l + 8 <= kext
                          : p + 8 <= pext && l + (kPerThread - 1) * kRowStep < kext;
    if (VEC && whole) {
#pragma unroll
      for (int r = 0; r < kPerThread; ++r)
        cp_async16(tile + soff + r * kRowStep * T::kRowLen, src + r * row_step, 16);
      src += k_step;
      l += BK;
      return;
    }
#pragma unroll
    for (int r = 0; r < kPerThread; ++r) {
      const int pr = KC ? p + r * kRowStep : p, lr = KC ? l : l + r * kRowStep;
      int run = KC ? (pr < pext ? kext - lr : 0) : (lr < kext ? pext - pr : 0);
      run = run < 0 ? 0 : run > 8 ? 8 : run;  // halves of the chunk inside the matrix
      __half* d = tile + soff + r * kRowStep * T::kRowLen;
      const __half* s = src + r * row_step;
      if constexpr (VEC) {
        if (run == 8 || run == 0) {
          cp_async16(d, run > 0 ? s : base, run * 2);  // whole chunk, or zero fill (reads nothing)
        } else {
          // A chunk cut by the edge: word by word, so no copy names an address past the operand
          // (a 16-byte copy with a source size reads only that many bytes by PTX, but
          // compute-sanitizer counts all 16 and stops the kernel at the operand's end). A word
          // with only its first half inside goes through a register.
          const unsigned short* xs = reinterpret_cast<const unsigned short*>(s);
#pragma unroll
          for (int w = 0; w < 4; ++w) {
            if (2 * w + 1 == run)
              *reinterpret_cast<unsigned*>(d + 2 * w) = xs[2 * w];
            else
              cp_async4(d + 2 * w, 2 * w + 2 <= run ? s + 2 * w : base, 2 * w + 2 <= run);
          }
        }
      } else {
        const unsigned short* xs = reinterpret_cast<const unsigned short*>(s);
        unsigned short h[8];
#pragma unroll
        for (int q = 0; q < 8; ++q) h[q] = q < run ? xs[q] : 0;
        *reinterpret_cast<uint4*>(d) = make_uint4(h[0] | unsigned(h[1]) << 16, h[2] | unsigned(h[3]) << 16,
                                                  h[4] | unsigned(h[5]) << 16, h[6] | unsigned(h[7]) << 16);
      }
    }
    src += k_step;
    l += BK;
  }
};

// One block's share of C^T = op(B)^T op(A)^T: a TM x TN tile of C at (bm, bn), summed over the
// k tiles [kt0, kt1) into this lane's accumulators (zeroed here).
// @tparam TM, TN   rows (m) and columns (n) of C per block
// @tparam WARPS_M, WARPS_N  warps along m and n; each warp computes (TM/WARPS_M) x (TN/WARPS_N)
// @tparam BK       k per pipeline stage (32 or 64)
// @tparam STAGES   pipeline depth (shared-memory stages)
// @tparam KCX      op(B)^T is k-contiguous (B N), read with plain ldmatrix; else .trans (B T)
// @tparam KCY      op(A)^T is k-contiguous (A T); else .trans (A N)
// @tparam VEC      both operands take 16-byte cp.async; else the half-by-half loader
// @tparam BF16     the operands are bfloat16 (else binary16); the loaders copy 16-bit words either way
template <int TM, int TN, int WARPS_M, int WARPS_N, int BK, int STAGES, bool KCX, bool KCY, bool VEC, bool BF16>
struct MmaSyncBlock {
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;
  static constexpr int WTM = TM / WARPS_M, WTN = TN / WARPS_N;  // warp tile (C rows x C columns)
  static constexpr int MI = WTN / 16;                           // mma m16 tiles, along C's n
  static constexpr int NI = WTM / 8;                            // mma n8 tiles, along C's m
  static constexpr int KS = BK / 16;                            // k16 steps per stage
  static_assert(WTM % 16 == 0 && WTN % 16 == 0, "warp tiles are whole 16x16 pieces");
  static_assert(KS % 2 == 0, "the fragment double buffer alternates within a stage");
  static_assert(STAGES >= 2, "a pipeline needs two stages");
  using X = OperandTile<KCX, TN, BK>;  // op(B)^T: p runs along n (the mma's A operand)
  using Y = OperandTile<KCY, TM, BK>;  // op(A)^T: p runs along m (the mma's B operand)
  static constexpr int kStageHalves = X::kHalves + Y::kHalves;
  static constexpr size_t kSmemBytes = size_t(STAGES) * kStageHalves * sizeof(__half);

  // This warp's corner in the block tile: wm along m, wn along n. Accumulator (i, j, 2h + e) of
  // lane (gid = lane / 4, t4 = lane % 4) is C(m = wm + 8j + 2 t4 + e, n = wn + 16i + 8h + gid) of
  // the tile: e = 0, 1 are adjacent rows of C.
  __device__ __forceinline__ static int warp_m() {
    const int warp = threadIdx.x / 32;
    return (warp % WARPS_M) * WTM;
  }
  __device__ __forceinline__ static int warp_n() {
    const int warp = threadIdx.x / 32;
    return (warp / WARPS_M) * WTN;
  }

  __device__ __forceinline__ static void accumulate(const __half* a, int64_t lda, const __half* b, int64_t ldb, int m,
                                                    int n, int k, int bm, int bn, int kt0, int kt1, __half* smem,
                                                    float (&acc)[MI][NI][4]) {
    const int lane = threadIdx.x % 32;
    const int wm = warp_m(), wn = warp_n();
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NI; ++j)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.f;

    const int ktiles = kt1 - kt0;
    OperandLoader<KCX, TN, BK, kThreads, VEC> load_x(b, ldb, bn, n, k);
    OperandLoader<KCY, TM, BK, kThreads, VEC> load_y(a, lda, bm, m, k);
    load_x.skip(kt0);
    load_y.skip(kt0);
    auto issue = [&](int stage) {  // the next k tile into `stage`
      __half* st = smem + stage * kStageHalves;
      load_x.load(st);
      load_y.load(st + X::kHalves);
    };

    // ldmatrix piece q = lane / 8 of an x4 load, row lane % 8 of that piece. For the mma's A
    // operand the pieces are (p 0-7, k 0-7), (p 8-15, k 0-7), (p 0-7, k 8-15), (p 8-15, k 8-15);
    // for its B operand (two n8 tiles) (k 0-7, p 0-7), (k 8-15, p 0-7), (k 0-7, p 8-15), (k 8-15, p 8-15).
    // Addresses are a lane constant plus a compile-time offset: k-contiguous tiles vary the chunk
    // with kk (chunk 2kk + kh, swizzled: (kh ^ f) ^ 2kk) and the row with the tile (16 rows each);
    // p-contiguous tiles vary the row with kk (16 rows each) and the chunk with the tile (chunk
    // p/8 = w/8 + 2i + ph, swizzled within its 8-chunk group: (w/8 + 2i + ph) ^ (row & 7), the
    // XOR touching the chunk's low three bits only; w/8 is a multiple of 8 for 64-wide warp
    // tiles and of 4 for 32-wide ones).
    static_assert(MI <= 4 && NI / 2 <= 4, "a warp's p extent must fit one 8-chunk swizzle group");
    static_assert((KCX || WTN % 64 == 0 || 64 % WTN == 0) && (KCY || WTM % 64 == 0 || 64 % WTM == 0),
                  "a warp's p extent must not straddle two swizzle groups");
    const int piece = lane >> 3, prow = lane & 7;
    const int xph = piece & 1, xkh = piece >> 1;  // A operand: p half, k half of this lane's piece
    const int yph = piece >> 1, ykh = piece & 1;  // B operand
    const int fk = BK == 32 ? (prow >> 1) & 3 : prow;  // swizzle term of a k-contiguous row
    int xoff[KCX ? KS : MI], yoff[KCY ? KS : NI / 2];  // lane offsets (halves) in a stage's tiles
#pragma unroll
    for (int q = 0; q < (KCX ? KS : MI); ++q)
      xoff[q] = KCX ? (wn + xph * 8 + prow) * BK + (((xkh ^ fk) ^ (2 * q)) << 3)
                    : (xkh * 8 + prow) * TN + ((((wn >> 3) + 2 * q + xph) ^ prow) << 3);
#pragma unroll
    for (int q = 0; q < (KCY ? KS : NI / 2); ++q)
      yoff[q] = KCY ? (wm + yph * 8 + prow) * BK + (((ykh ^ fk) ^ (2 * q)) << 3)
                    : (ykh * 8 + prow) * TM + ((((wm >> 3) + 2 * q + yph) ^ prow) << 3);
    const unsigned smem0 = smem_u32(smem);
    unsigned xf[2][MI][4];      // (MI) A fragments, 16 (n) x 16 (k), double-buffered
    unsigned yf[2][NI / 2][4];  // (NI) B fragments, 16 (k) x 8 (m), two per x4, double-buffered
    auto load_frags = [&](unsigned sx, int kk, unsigned (&xb)[MI][4], unsigned (&yb)[NI / 2][4]) {
      const unsigned sy = sx + unsigned(X::kHalves) * 2u;
#pragma unroll
      for (int i = 0; i < MI; ++i)
        ldsm_x4<!KCX>(sx + 2u * unsigned(KCX ? xoff[kk] + i * 16 * BK : xoff[i] + kk * 16 * TN), xb[i]);
#pragma unroll
      for (int j = 0; j < NI / 2; ++j)
        ldsm_x4<!KCY>(sy + 2u * unsigned(KCY ? yoff[kk] + j * 16 * BK : yoff[j] + kk * 16 * TM), yb[j]);
    };

    // Tile kt lives in stage kt % STAGES. Its fragments are read from the barrier of iteration
    // kt-1 (first k16 step) to the barrier of iteration kt (the others); after that barrier its
    // stage takes tile kt + STAGES. So STAGES tiles are in flight from the start.
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      if (s < ktiles) issue(s);
      cp_async_commit();  // empty groups keep the count uniform
    }
    cp_async_wait<STAGES - 1>();  // tile 0 has landed (this thread's copies)
    __syncthreads();              // ... everyone's
    int stage = 0;                // stage of tile kt
    unsigned sx = smem0;          // its byte address
    load_frags(sx, 0, xf[0], yf[0]);
    for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
      for (int kk = 0; kk < KS; ++kk) {
        if (kk == KS - 1) {
          cp_async_wait<STAGES - 2>();  // tile kt+1 has landed
          __syncthreads();              // ... everyone's, and every warp is done reading tile kt
          if (kt + STAGES < ktiles) issue(stage);  // tile kt + STAGES
          cp_async_commit();
          stage = stage == STAGES - 1 ? 0 : stage + 1;
          sx = smem0 + unsigned(stage * kStageHalves) * 2u;
        }
        if (kk < KS - 1 || kt + 1 < ktiles) load_frags(sx, (kk + 1) % KS, xf[(kk + 1) & 1], yf[(kk + 1) & 1]);
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
          for (int j = 0; j < NI; ++j)
            mma_16816<BF16>(acc[i][j], xf[kk & 1][i], yf[kk & 1][j / 2][(j & 1) * 2], yf[kk & 1][j / 2][(j & 1) * 2 + 1]);
      }
    }
    cp_async_wait<0>();
  }
};

}  // namespace hgemm_detail
}  // namespace myblas

// Rung 1, wmma_128x128x32: the documents' tensor-core kernel. nvcuda::wmma 16x16x16 fragments
// (binary16 in, FP32 accumulate), a 128x128x32 block tile staged through shared memory and
// 64x32 warp tiles (8 warps as 2 (m) x 4 (n), each 4 x 2 fragments of 16x16).
//
// What changed from the SGEMM ladder's 2-D warp tiling (sgemm rung 7) and why:
// - The inner product runs on tensor cores: one wmma::mma_sync does 16x16x16 multiply-adds in a
//   warp, where FFMA needed 4096 instructions. Inputs are binary16, the accumulators FP32.
// - The tiles are kept in shared memory in the operand's own storage order (contiguous along m
//   for A N, along k for A T and B N, along n for B T) and read with the matching fragment layout
//   (col_major or row_major), so no transpose happens on the way in. Rows are padded by 8 halves
//   (16 bytes): the fragment loads stay 32-byte aligned and consecutive rows fall on other banks.
// - Every transpose, any alignment: 16-byte vector loads where the operand's base and leading
//   dimension allow it and the 8 halves are inside the matrix, else scalar loads with zero fill.
// - Epilogue: each accumulator fragment goes through a per-warp 16x16 FP32 scratch in shared
//   memory (the fragment's register layout is opaque), then alpha and beta are applied in FP32
//   and each element is rounded once to binary16; beta == 0 never reads C.
// Single-buffered (load, barrier, compute, barrier): the later rungs overlap loads and math.
#include <mma.h>

#include <type_traits>

#include "kernels/hgemm/common.cuh"

namespace myblas {
namespace hgemm_detail {
namespace {

constexpr int BM = 128, BN = 128, BK = 32;  // block tile
constexpr int WM = 64, WN = 32;             // warp tile
constexpr int kWarps = (BM / WM) * (BN / WN);
constexpr int kThreads = kWarps * 32;
constexpr int kPad = 8;  // halves of padding per shared row
constexpr int cmax(int x, int y) { return x > y ? x : y; }
// Halves of one staged operand tile, in either storage order.
constexpr int kTileHalves = cmax(cmax(BM, BN) * (BK + kPad), BK * (cmax(BM, BN) + kPad));
static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0,
              "block, warp and fragment tiles must nest");
static_assert(kThreads == 256, "the loaders below assume 256 threads");

// Copies the operand tile x(p0 .. p0+P-1, k0 .. k0+BK-1) into shared memory in its storage
// order, zero past (pext, kext). KCONTIG: element (p, l) is x[l + p*ld], stored at dst[p*LDS + l]
// (LDS = BK + kPad); else it is x[p + l*ld], stored at dst[l*LDS + p] (LDS = P + kPad).
template <bool KCONTIG, int P>
__device__ __forceinline__ void load_tile(__half* dst, const __half* x, int64_t ld, int p0, int pext,
                                          int k0, int kext, bool vec) {
  constexpr int kRowLen = KCONTIG ? BK : P;            // halves per stored row
  constexpr int kLds = kRowLen + kPad;
  constexpr int kChunksPerRow = kRowLen / 8;
  constexpr int kChunks = P * BK / 8;
  static_assert(kChunks % kThreads == 0, "whole chunks per thread");
  const unsigned short* xs = reinterpret_cast<const unsigned short*>(x);
#pragma unroll
  for (int r = 0; r < kChunks / kThreads; ++r) {
    const int e = threadIdx.x + r * kThreads;
    const int row = e / kChunksPerRow, c = (e % kChunksPerRow) * 8;
    int p, l, run;  // first element of the chunk and how many of its 8 halves are inside
    if (KCONTIG) {
      p = p0 + row;
      l = k0 + c;
      run = p < pext ? kext - l : 0;
    } else {
      p = p0 + c;
      l = k0 + row;
      run = l < kext ? pext - p : 0;
    }
    run = run < 0 ? 0 : run > 8 ? 8 : run;
    uint4* d = reinterpret_cast<uint4*>(dst + row * kLds + c);
    if (run == 0) {
      *d = make_uint4(0, 0, 0, 0);
      continue;
    }
    const unsigned short* src = xs + (KCONTIG ? l + int64_t(p) * ld : p + int64_t(l) * ld);
    // Each branch stores its own result: the 16-byte load is never merged with (or issued for)
    // a chunk that is not wholly inside the matrix.
    if (vec && run == 8) {
      *d = *reinterpret_cast<const uint4*>(src);
    } else {
      unsigned short h[8];
#pragma unroll
      for (int q = 0; q < 8; ++q) h[q] = q < run ? src[q] : 0;
      *d = make_uint4(h[0] | unsigned(h[1]) << 16, h[2] | unsigned(h[3]) << 16, h[4] | unsigned(h[5]) << 16,
                      h[6] | unsigned(h[7]) << 16);
    }
  }
}

template <bool TA, bool TB>
__global__ __launch_bounds__(kThreads) void hgemm_wmma_128x128x32(Args g, bool vec_a, bool vec_b) {
  using namespace nvcuda;
  // A: TA ? (BM) rows of (BK + pad) : (BK) rows of (BM + pad); B: TB ? (BK) x (BN + pad) : (BN) x (BK + pad)
  __shared__ __align__(128) __half as[kTileHalves];
  __shared__ __align__(128) __half bs[kTileHalves];
  __shared__ __align__(128) float scratch[kWarps][16 * 16];  // one accumulator fragment per warp

  const TileCoord tc = swizzled_tile(blockIdx.x, (g.m + BM - 1) / BM, (g.n + BN - 1) / BN, 8);
  const int bm = tc.tm * BM, bn = tc.tn * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp % (BM / WM)) * WM, wn = (warp / (BM / WM)) * WN;

  using LayoutA = typename std::conditional<TA, wmma::row_major, wmma::col_major>::type;
  using LayoutB = typename std::conditional<TB, wmma::row_major, wmma::col_major>::type;
  constexpr int kLdA = TA ? BK + kPad : BM + kPad;
  constexpr int kLdB = TB ? BN + kPad : BK + kPad;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[WM / 16][WN / 16];  // (4) x (2) fragments
#pragma unroll
  for (int i = 0; i < WM / 16; ++i)
#pragma unroll
    for (int j = 0; j < WN / 16; ++j) wmma::fill_fragment(acc[i][j], 0.f);

  for (int k0 = 0; k0 < g.k; k0 += BK) {
    load_tile<TA, BM>(as, g.a, g.lda, bm, g.m, k0, g.k, vec_a);
    load_tile<!TB, BN>(bs, g.b, g.ldb, bn, g.n, k0, g.k, vec_b);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, LayoutA> fa[WM / 16];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, LayoutB> fb[WN / 16];
#pragma unroll
      for (int i = 0; i < WM / 16; ++i) {
        const int r = wm + i * 16;  // op(A)(r, kk) is at as[r*ld + kk] (TA) or as[kk*ld + r]
        wmma::load_matrix_sync(fa[i], as + (TA ? r * kLdA + kk : kk * kLdA + r), kLdA);
      }
#pragma unroll
      for (int j = 0; j < WN / 16; ++j) {
        const int c = wn + j * 16;  // op(B)(kk, c) is at bs[kk*ld + c] (TB) or bs[c*ld + kk]
        wmma::load_matrix_sync(fb[j], bs + (TB ? kk * kLdB + c : c * kLdB + kk), kLdB);
      }
#pragma unroll
      for (int i = 0; i < WM / 16; ++i)
#pragma unroll
        for (int j = 0; j < WN / 16; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }

  float* sc = scratch[warp];
#pragma unroll
  for (int i = 0; i < WM / 16; ++i)
#pragma unroll
    for (int j = 0; j < WN / 16; ++j) {
      wmma::store_matrix_sync(sc, acc[i][j], 16, wmma::mem_col_major);
      __syncwarp();
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        const int e = lane + 32 * q, r = e % 16, c = e / 16;
        const int gi = bm + wm + i * 16 + r, gj = bn + wn + j * 16 + c;
        if (gi < g.m && gj < g.n) store_c(g.c + gi + int64_t(gj) * g.ldc, sc[e], g.alpha, g.beta);
      }
      __syncwarp();
    }
}

template <bool TA, bool TB>
cudaError_t launch(const Args& g, bool vec_a, bool vec_b, cudaStream_t s) {
  const int blocks = ((g.m + BM - 1) / BM) * ((g.n + BN - 1) / BN);
  hgemm_wmma_128x128x32<TA, TB><<<blocks, kThreads, 0, s>>>(g, vec_a, vec_b);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_wmma(const GemmProblem& p, cudaStream_t s) {
  const Args g = make_args(p);
  const bool va = vec8_ok(p.a, p.lda), vb = vec8_ok(p.b, p.ldb);
  const bool ta = p.ta == Op::T, tb = p.tb == Op::T;
  if (!ta && !tb) return launch<false, false>(g, va, vb, s);
  if (!ta && tb) return launch<false, true>(g, va, vb, s);
  if (ta && !tb) return launch<true, false>(g, va, vb, s);
  return launch<true, true>(g, va, vb, s);
}

}  // namespace hgemm_detail
}  // namespace myblas

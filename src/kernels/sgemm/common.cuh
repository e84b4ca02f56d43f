// Shared by the SGEMM kernel files: the device-side view of a problem, the alpha/beta store,
// cp.async wrappers, and each file's launch entry point.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.h"
#include "kernels/gemm_args.h"

namespace myblas {
namespace sgemm_detail {

// The device-side view of a problem (kernels/gemm_args.h): C(i, j) = c[i + j*ldc], 64-bit
// leading dimensions.
using Args = GemmArgs<float>;
inline Args make_args(const GemmProblem& p) { return make_gemm_args<float>(p); }
using myblas::aligned16;

// op(A)(i, l) and op(B)(l, j) for a transpose known at compile time.
template <bool TA>
__device__ __forceinline__ float op_a(const Args& g, int i, int l) {
  return TA ? g.a[l + int64_t(i) * g.lda] : g.a[i + int64_t(l) * g.lda];
}
template <bool TB>
__device__ __forceinline__ float op_b(const Args& g, int l, int j) {
  return TB ? g.b[j + int64_t(l) * g.ldb] : g.b[l + int64_t(j) * g.ldb];
}

// beta == 0 stores without reading C, so NaN/Inf already in C never propagates.
__device__ __forceinline__ void store_c(float* cp, float acc, float alpha, float beta) {
  *cp = beta == 0.f ? alpha * acc : fmaf(alpha, acc, beta * *cp);
}

// Four consecutive rows of one column of C, at cp: one float4 access when `vec` (the column is
// 16-byte aligned) and all four rows exist (rows >= 4, the rows left in C from cp), else row by
// row up to `rows`. beta == 0 never reads C.
__device__ __forceinline__ void store_c4(float* cp, float v0, float v1, float v2, float v3, int rows, bool vec,
                                         float alpha, float beta) {
  if (vec && rows >= 4) {
    float4* c4 = reinterpret_cast<float4*>(cp);
    float4 o;
    if (beta == 0.f) {
      o = make_float4(alpha * v0, alpha * v1, alpha * v2, alpha * v3);
    } else {
      const float4 old = *c4;
      o = make_float4(fmaf(alpha, v0, beta * old.x), fmaf(alpha, v1, beta * old.y), fmaf(alpha, v2, beta * old.z),
                      fmaf(alpha, v3, beta * old.w));
    }
    *c4 = o;
  } else {
    const float v[4] = {v0, v1, v2, v3};
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (q < rows) store_c(cp + q, v[q], alpha, beta);
  }
}

// How the pipelined kernels copy an operand: contiguous along the tile's m (A N) or n (B T)
// side with 16-byte copies (base 16-byte aligned, leading dimension a multiple of 4) or 4-byte
// ones, or contiguous along k (A T, B N: transposed on the way into shared memory).
enum Layout { kContigVec, kContigScalar, kKContig };
inline Layout operand_layout(bool k_contig, const void* x, int64_t ld) {
  return k_contig ? kKContig : aligned16(x) && ld % 4 == 0 ? kContigVec : kContigScalar;
}

// L::launch<LA, LB>(args...) for the layouts known only at run time.
template <class L, Layout LA, class... A>
cudaError_t launch_with_b(Layout lb, const A&... args) {
  switch (lb) {
    case kContigVec: return L::template launch<LA, kContigVec>(args...);
    case kContigScalar: return L::template launch<LA, kContigScalar>(args...);
    default: return L::template launch<LA, kKContig>(args...);
  }
}
template <class L, class... A>
cudaError_t launch_with_layouts(Layout la, Layout lb, const A&... args) {
  switch (la) {
    case kContigVec: return launch_with_b<L, kContigVec>(lb, args...);
    case kContigScalar: return launch_with_b<L, kContigScalar>(lb, args...);
    default: return launch_with_b<L, kKContig>(lb, args...);
  }
}

// cp.async: copies `bytes_valid` bytes (0 .. size) and zero-fills the rest of the destination.
// With bytes_valid == 0 nothing is read from `src`.
__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async16(float* dst, const float* src, int floats_valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(floats_valid * 4)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// The 128x128 block tile of rungs 7 and the pipelined kernels: 256 threads = 8 warps as 2 (m) x 4
// (n), each warp a 64x32 tile, each lane an 8x8 patch made of 2x2 sub-tiles of 4x4 spaced 32
// rows and 16 columns apart, so that the lanes of a warp read 128 (A) and 64 (B) contiguous bytes
// of shared memory with one float4 load each (no bank conflicts, broadcast within the warp).
constexpr int kTileM = 128, kTileN = 128, kTileThreads = 256;
struct LaneTile {
  int row0, col0;  // first row / column of this lane's patch inside the block tile
};
__device__ __forceinline__ LaneTile lane_tile() {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  return {(warp % 2) * 64 + (lane % 8) * 4, (warp / 2) * 32 + (lane / 8) * 4};
}

// acc += As * Bs over BK k steps. as[l*LDA + i] = op(A)(i, l), bs[l*LDB + j] = op(B)(l, j).
template <int BK, int LDA, int LDB>
__device__ __forceinline__ void mma_tile_8x8(const float* as, const float* bs, LaneTile lt,
                                             float (&acc)[8][8]) {
#pragma unroll
  for (int q = 0; q < BK; ++q) {
    const float4 a0 = *reinterpret_cast<const float4*>(as + q * LDA + lt.row0);
    const float4 a1 = *reinterpret_cast<const float4*>(as + q * LDA + lt.row0 + 32);
    const float4 b0 = *reinterpret_cast<const float4*>(bs + q * LDB + lt.col0);
    const float4 b1 = *reinterpret_cast<const float4*>(bs + q * LDB + lt.col0 + 16);
    const float af[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};  // (8) rows of A
    const float bf[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};  // (8) columns of B
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
      for (int c = 0; c < 8; ++c) acc[r][c] = fmaf(af[r], bf[c], acc[r][c]);
  }
}

// Writes a lane's 8x8 patch of the block tile at (bm, bn): float4 down each column when C's
// columns are 16-byte aligned (vec) and the four rows are inside C, else element by element.
__device__ __forceinline__ void store_tile_8x8(const Args& g, const float (&acc)[8][8], int bm,
                                               int bn, LaneTile lt, bool vec) {
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const int j = bn + lt.col0 + (c / 4) * 16 + c % 4;
    if (j >= g.n) continue;
    float* cj = g.c + int64_t(j) * g.ldc;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int i = bm + lt.row0 + h * 32;
      store_c4(cj + i, acc[4 * h][c], acc[4 * h + 1][c], acc[4 * h + 2][c], acc[4 * h + 3][c], g.m - i, vec, g.alpha,
               g.beta);
    }
  }
}

// One launcher per file; each returns cudaGetLastError() after its launches.
cudaError_t launch_naive(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_coalesced(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_smem_tiles(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_blocktile_1d(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_blocktile_2d(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_vectorized(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_warptile(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_pipelined(const GemmProblem& p, int stages, cudaStream_t s);
cudaError_t launch_skinny_r16(const GemmProblem& p, cudaStream_t s);

// The skinny kernels' view: C'(i, j) = sum_l S(i, l) X(l, j), with rows <= 16 rows of C'.
// For m <= 16: S = op(A), X = op(B), C' = C. Otherwise (n <= 16): S = op(B)^T, X = op(A)^T,
// C' = C^T. The large operand X is read once, the small S is staged in shared memory in chunks of
// k; blocks that cover the same columns over different k chunks write partial sums to scratch
// P(s, i, j) = part[s*rows_pad*cols + i*p_i + j*p_j], added in split order by a second kernel.
constexpr int kSkinnyRows = 16;
struct SkinnyArgs {
  const float* s;
  int64_t s_i, s_l;  // S(i, l) = s[i*s_i + l*s_l]
  const float* x;
  int64_t x_l, x_j;  // X(l, j) = x[l*x_l + j*x_j]
  float* c;
  int64_t c_i, c_j;  // C'(i, j) = c[i*c_i + j*c_j]
  int rows, cols, k;
  float alpha, beta;
  float* part;       // nullptr: one split, the kernel applies alpha and beta itself
  int64_t p_i, p_j;  // partial layout, matching C' (unit stride along the same index)
  int chunk;         // k per shared-memory chunk of S
  int chunks_per_split;
};

// Copies S(0..15, l0 .. l0+len-1) into ss[l*ld_l + i*ld_i], zero for rows >= rows and l >= len.
// The walk follows S's unit-stride index, so the global reads are coalesced whichever operand S
// is (with a 16-row S read across its rows, 16 of 32 lanes would each touch their own sector).
__device__ __forceinline__ void load_s_chunk(const SkinnyArgs& g, float* ss, int l0, int len, int chunk,
                                             int ld_l, int ld_i) {
  const bool l_fast = g.s_l == 1 && g.s_i != 1;
  for (int e = threadIdx.x; e < chunk * kSkinnyRows; e += blockDim.x) {
    const int l = l_fast ? e % chunk : e / kSkinnyRows, i = l_fast ? e / chunk : e % kSkinnyRows;
    ss[l * ld_l + i * ld_i] = (i < g.rows && l < len) ? g.s[i * g.s_i + int64_t(l0 + l) * g.s_l] : 0.f;
  }
}

// Result (i, j) of split `split`: to C' with alpha/beta, or to the partial buffer.
__device__ __forceinline__ void skinny_out(const SkinnyArgs& g, int split, int i, int j, float v) {
  if (g.part) g.part[int64_t(split) * kSkinnyRows * g.cols + i * g.p_i + j * g.p_j] = v;
  else store_c(g.c + i * g.c_i + j * g.c_j, v, g.alpha, g.beta);
}

// Maps p onto SkinnyArgs (false unless min(m, n) <= 16); kcontig: X is contiguous along k.
bool skinny_args(const GemmProblem& p, SkinnyArgs* out, bool* kcontig);
cudaError_t launch_skinny_kcontig(const SkinnyArgs& g, int splits, int col_blocks, bool vec, cudaStream_t s);
cudaError_t launch_skinny_ncontig(const SkinnyArgs& g, int splits, int col_blocks, bool vec, cudaStream_t s);
constexpr int kSkinnyKCols = 128;  // columns per block, k-contiguous kernel (4 groups x 8 warps x 4)
constexpr int kSkinnyKChunk = 512;
constexpr int kSkinnyNCols = 128;  // columns per block, n-contiguous kernel (32 lanes x 4)
constexpr int kSkinnyNChunk = 512;

}  // namespace sgemm_detail
}  // namespace myblas

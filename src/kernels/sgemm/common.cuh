// Shared by the SGEMM kernel files: the device-side view of a problem, the alpha/beta store,
// cp.async wrappers, and each file's launch entry point.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

#include "core/problem.h"
#include "kernels/cluster.cuh"
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
// The same 16-byte copy when all 16 bytes are in range: no source size, no zero fill.
__device__ __forceinline__ void cp_async16_full(float* dst, const float* src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
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

// The 8x16 lane patch (pipelined_regdb_8x16, smallk_ws_128x256x64): a lane owns 8 rows
// (row0 + {0..3, 32..35}) x 16 columns (col0 + 16c + {0..3}) of C.
constexpr int kPatchM = 8, kPatchN = 16;

// The fragments of k step q of shared-memory panels as[l*LDA + i], bs[l*LDB + j] (as and bs at
// the lane's row0 and col0): 2 float4 of A (rows +0, +32) and 4 of B (columns +16c). The 8 lanes
// sharing a value of lane/8 read 128 contiguous bytes of A, the 4 groups of 8 lanes 64
// contiguous bytes of B (broadcasts, no bank conflicts).
template <int LDA, int LDB>
__device__ __forceinline__ void load_frag_8x16(const float* as, const float* bs, int q, float (&a)[kPatchM],
                                               float (&b)[kPatchN]) {
#pragma unroll
  for (int h = 0; h < kPatchM / 4; ++h) {
    const float4 v = *reinterpret_cast<const float4*>(as + q * LDA + 32 * h);
    a[4 * h] = v.x, a[4 * h + 1] = v.y, a[4 * h + 2] = v.z, a[4 * h + 3] = v.w;
  }
#pragma unroll
  for (int c = 0; c < kPatchN / 4; ++c) {
    const float4 v = *reinterpret_cast<const float4*>(bs + q * LDB + 16 * c);
    b[4 * c] = v.x, b[4 * c + 1] = v.y, b[4 * c + 2] = v.z, b[4 * c + 3] = v.w;
  }
}

// acc += a (8) x b (16), the outer product of one k step.
__device__ __forceinline__ void outer_8x16(const float (&a)[kPatchM], const float (&b)[kPatchN],
                                           float (&acc)[kPatchM][kPatchN]) {
#pragma unroll
  for (int r = 0; r < kPatchM; ++r)
#pragma unroll
    for (int c = 0; c < kPatchN; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
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

// The smallk kernels' epilogue of a whole tile with 16-byte aligned columns and beta != 0 (store_tile_8x8's
// layout): a lane's 16 float4 of C are read in two batches of 8 (4 columns x 2 halves), every
// read of a batch issued before any store. store_tile_8x8 reads and writes one float4 at a time,
// and as a read may alias the store before it, each read waits for the previous write: 16 memory
// round trips per tile. c0: the lane's first element of C. STREAM: evict-first hints
// (ld/st.global.cs).
using CBatch = float4[4][2];  // (4 columns) x (2 halves, 32 rows apart) of a lane's C
// The lane's float4 (q, h) of batch ph: column ph*16 + q of its patch, rows 32h .. 32h+3.
template <class T>
__device__ __forceinline__ T* c_batch_ptr(T* c0, int64_t ldc, int ph, int q, int h) {
  return c0 + (ph * 16 + q) * ldc + 32 * h;
}
template <bool STREAM>
__device__ __forceinline__ void load_c_batch(CBatch& old, const float* c0, int64_t ldc, int ph) {
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float4* p = reinterpret_cast<const float4*>(c_batch_ptr(c0, ldc, ph, q, h));
      old[q][h] = STREAM ? __ldcs(p) : *p;
    }
}
// Stores alpha * acc + beta * old for batch ph; old(q, h) gives the float4 read before.
template <bool STREAM, class Old>
__device__ __forceinline__ void store_c_batch_from(Old old, const float (&acc)[8][8], float* c0, int64_t ldc, int ph,
                                                   float alpha, float beta) {
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = ph * 4 + q;
      const float4 o = old(q, h);
      const float4 v =
          make_float4(fmaf(alpha, acc[4 * h][c], beta * o.x), fmaf(alpha, acc[4 * h + 1][c], beta * o.y),
                      fmaf(alpha, acc[4 * h + 2][c], beta * o.z), fmaf(alpha, acc[4 * h + 3][c], beta * o.w));
      float4* p = reinterpret_cast<float4*>(c_batch_ptr(c0, ldc, ph, q, h));
      if (STREAM) __stcs(p, v);
      else *p = v;
    }
}
template <bool STREAM>
__device__ __forceinline__ void store_c_batch(const CBatch& old, const float (&acc)[8][8], float* c0, int64_t ldc,
                                              int ph, float alpha, float beta) {
  store_c_batch_from<STREAM>([&](int q, int h) { return old[q][h]; }, acc, c0, ldc, ph, alpha, beta);
}

// One launcher per file; each returns cudaGetLastError() after its launches.
cudaError_t launch_naive(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_coalesced(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_smem_tiles(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_blocktile_1d(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_blocktile_2d(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_vectorized(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_warptile(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_pipelined(const GemmProblem& p, cudaStream_t s);
cudaError_t launch_skinny_r16(const GemmProblem& p, cudaStream_t s);

// The skinny kernels' view: C'(i, j) = sum_l S(i, l) X(l, j), with rows <= 16 rows of C'.
// For m <= 16: S = op(A), X = op(B), C' = C. Otherwise (n <= 16): S = op(B)^T, X = op(A)^T,
// C' = C^T. The large operand X is read once, the small S is staged in shared memory in chunks of
// k. The k chunks of a column block are split over the blocks of a thread-block cluster
// (gridDim.y), whose sums are added in rank order through distributed shared memory.
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
  int k_per_split;  // k per block of a cluster (gridDim.y blocks; a multiple of 64)
};

// Starts cp.async copies of S(0..15, l0 .. l0+len-1) into ss[l*ld_l + i*ld_i] for l below
// len rounded up to 128, a whole step of either kernel (zero for rows >= rows and l >= len; nothing is read for those) and
// commits them as one group; the caller waits and synchronises. The walk follows S's unit-stride
// index, so the global reads are coalesced whichever operand S is (with a 16-row S read across
// its rows, 16 of 32 lanes would each touch their own sector). CHUNK is a compile-time power of
// two: the index arithmetic is shifts and masks (with a run-time chunk, its divisions cost as
// many instructions as the FMAs they feed: ncu, bench/results/h100-sgemm-skinny-v4-2026-11-22.md).
// COMMIT false leaves the copies in the caller's open group.
template <int CHUNK, int THREADS, bool COMMIT = true, int ROUND = 128>
__device__ __forceinline__ void load_s_chunk_async(const SkinnyArgs& g, float* ss, int l0, int len, int ld_l,
                                                   int ld_i) {
  constexpr int R = kSkinnyRows;
  static_assert((CHUNK & (CHUNK - 1)) == 0 && CHUNK >= 128 && (R * CHUNK) % THREADS == 0 && THREADS % R == 0,
                "power-of-two tiles");
  constexpr int kCopies = R * CHUNK / THREADS;  // per thread
  const int fill = min(CHUNK, (len + ROUND - 1) / ROUND * ROUND);
  const int t = threadIdx.x;
  if (g.s_l == 1 && g.s_i != 1) {  // S contiguous along l: element e = t + THREADS*c, l = e % CHUNK
    // (in terms the compiler can fold: t < THREADS is not known to it)
    constexpr int kPerRow = CHUNK >= THREADS ? CHUNK / THREADS : 1;  // copies per row of S
    constexpr int kRowsPer = CHUNK >= THREADS ? 1 : THREADS / CHUNK;  // rows per copy of the block
#pragma unroll
    for (int c = 0; c < kCopies; ++c) {
      const int l = CHUNK >= THREADS ? t + THREADS * (c % kPerRow) : t % CHUNK;
      const int i = CHUNK >= THREADS ? c / kPerRow : t / CHUNK + c * kRowsPer;
      if (l < fill) {
        const bool valid = i < g.rows && l < len;
        cp_async4(ss + l * ld_l + i * ld_i, valid ? g.s + i * g.s_i + (l0 + l) : g.s, valid);
      }
    }
  } else {  // i fastest: this thread's row is fixed, l steps by THREADS / 16
    constexpr int kLStep = THREADS / R;
    const int i = t % R;
    const bool row = i < g.rows;
    const float* src = g.s + (row ? i * g.s_i : 0) + int64_t(l0 + t / R) * g.s_l;
    const int64_t src_step = int64_t(kLStep) * g.s_l;
    float* dst = ss + (t / R) * ld_l + i * ld_i;
    const int dst_step = kLStep * ld_l;
#pragma unroll 8
    for (int l = t / R; l < fill; l += kLStep, src += src_step, dst += dst_step) {
      const bool valid = row && l < len;
      cp_async4(dst, valid ? src : g.s, valid);
    }
  }
  if (COMMIT) cp_async_commit();
}

// Adds the block's WARPS partial sums of OUT outputs, laid out warp after warp in red, into
// red[0, OUT) in warp order (the same order every run). Every thread of the block calls it,
// after a barrier that makes every warp's sums visible.
template <int WARPS, int OUT, int THREADS>
__device__ __forceinline__ void skinny_add_warp_sums(float* red) {
  for (int q = threadIdx.x; q < OUT; q += THREADS) {
    float v = red[q];
#pragma unroll
    for (int w = 1; w < WARPS; ++w) v += red[w * OUT + q];
    red[q] = v;
  }
}

// The end of a skinny block: its 16 x COLS sums are in shared memory, red[i*COLS + jl] for row i
// and block column jl (the same offset in every block of a cluster). Stores them to C' (with
// alpha and beta), after adding the splits of the cluster in rank order when CLUSTER. Outputs are
// walked along C's unit-stride index so the stores coalesce. Every thread of the block calls it.
template <int COLS, bool CLUSTER>
__device__ __forceinline__ void skinny_store_block(const SkinnyArgs& g, const float* red) {
  constexpr int R = kSkinnyRows;
  const int jb = blockIdx.x * COLS;
  auto pos = [&](int q) {  // output q's place in red
    const int i = g.c_i == 1 ? q % R : q / COLS, jl = g.c_i == 1 ? q / R : q % COLS;
    return i * COLS + jl;
  };
  auto store = [&](int q, float v) {
    const int o = pos(q), i = o / COLS, jl = o % COLS;
    if (i < g.rows && jb + jl < g.cols) store_c(g.c + i * g.c_i + (jb + jl) * g.c_j, v, g.alpha, g.beta);
  };
  if (CLUSTER) {
    cluster_reduce_ordered(red, R * COLS, pos, store);
  } else {
    __syncthreads();
    for (int q = threadIdx.x; q < R * COLS; q += blockDim.x) store(q, red[pos(q)]);
  }
}

// One skinny kernel's four instantiations, [vec][cluster] (16-byte loads of X; launched as
// clusters that split k), with its block width, threads and dynamic shared memory.
struct SkinnyKernel {
  void (*kernel[2][2])(SkinnyArgs);
  int cols, threads;
  size_t smem;
  SmemLimitOnce limit[2][2];
};
// Maps p onto SkinnyArgs (false unless min(m, n) <= 16); kcontig: X is contiguous along k.
bool skinny_args(const GemmProblem& p, SkinnyArgs* out, bool* kcontig);
// The kernels (skinny_kcontig.cu, skinny_ncontig.cu). skinny_r16.cu launches them, splitting k
// over up to 8 blocks per column block (gridDim.y, launched as clusters; compute capability
// >= 9.0 only) as far as the device holds the whole grid at once (a second wave of a few
// clusters would double the time).
SkinnyKernel& skinny_kcontig_kernel();
SkinnyKernel& skinny_ncontig_kernel();
constexpr int kSkinnyChunk = 512;  // k per chunk of S in shared memory

}  // namespace sgemm_detail
}  // namespace myblas

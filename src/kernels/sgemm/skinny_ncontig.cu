// Specialised kernel for C' (<= 16 rows) = S * X where the large operand X is contiguous along its
// long side (n <= 16 with A not transposed, or m <= 16 with B transposed): a "GEMV with 16
// right-hand sides" bound by reading X once.
//
// Layout: a lane owns 4 adjacent columns of X (one float4 per k, a warp reads 512 contiguous
// bytes), multiplies them by the 16 values of S at that k (four broadcast float4 reads from
// shared memory) and keeps 16 x 4 sums: no reduction across lanes. The 8 warps of a block share
// the same 128 columns and take turns along k, U = 4 rows each per step of 32 rows; a lane loads
// the next step's U rows of X while it computes the current ones. S is staged in chunks of 512 k
// with cp.async, two chunks in flight (the next arrives while the current is used). The warps'
// sums are added through shared memory in warp order. The k of a column block is split over the
// blocks of a thread-block cluster (gridDim.y), which add their sums in rank order through
// distributed shared memory: one launch, no scratch, deterministic.
//
// History (4096 x 16 x 4096 NN on the H100): split-k partials in scratch added by a second kernel,
// S staged with ordinary loads before any X load was issued: 72.5 us (1.17x cuBLAS, 0.93 TB/s).
// Clusters of 8 splits, S by cp.async after the first X loads: 59 us; ncu: 256 blocks but only 30
// clusters of 8 resident, so 2 clusters ran in a second wave and the SMs were active 59% of the
// time. With the grid kept to one wave (skinny_r16.cu skinny_splits) and double-buffered S: 48.6-
// 50.4 us, 2.6 instructions per FMA (ncu; the S loader's divisions by a run-time chunk). With a
// compile-time chunk and strided copies: 38.4-39.7 us (2.17-2.29x cuBLAS), 1.9 instructions per
// FMA, DRAM 59% busy.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int R = kSkinnyRows;
constexpr int kWarps = 8, kThreads = kWarps * 32;
constexpr int kCols = 128;       // a float4 of columns per lane
constexpr int kOut = R * kCols;  // outputs per block
constexpr int U = 4;             // rows of X per lane per step (2: 48-56 us, 8 at 1 block/SM: 48-59 us)
constexpr int kStepL = kWarps * U;
// Row stride of S's chunk in shared memory: 16 values per k, padded to 20 so that the loader's
// stores (k fastest when S is contiguous along k) spread over 8 bank groups instead of 2, while
// each row stays 16-byte aligned for the broadcast float4 reads.
constexpr int kSRow = 20;
constexpr size_t kChunkFloats = size_t(kSkinnyChunk) * kSRow;
constexpr size_t kSmem = (2 * kChunkFloats > size_t(kWarps) * kOut ? 2 * kChunkFloats : size_t(kWarps) * kOut) *
                         sizeof(float);
static_assert(kSkinnyChunk % kStepL == 0, "whole steps per chunk");

// Row l (relative to the split's start) of X for this lane's 4 columns; zero at or past `len`.
template <bool VEC>
__device__ __forceinline__ float4 load_row(const SkinnyArgs& g, const float* xj, int nvalid, int l, int len) {
  if (l >= len || nvalid <= 0) return make_float4(0.f, 0.f, 0.f, 0.f);
  const float* src = xj + int64_t(l) * g.x_l;
  if (VEC && nvalid == 4) return __ldcs(reinterpret_cast<const float4*>(src));
  float4 v;
  v.x = src[0];
  v.y = nvalid > 1 ? src[1] : 0.f;
  v.z = nvalid > 2 ? src[2] : 0.f;
  v.w = nvalid > 3 ? src[3] : 0.f;
  return v;
}

// @tparam VEC     float4 loads of X (every row of X starts 16-byte aligned)
// @tparam CLUSTER launched as clusters of gridDim.y blocks that add their sums in rank order
// Grid: (ceil(cols / 128), splits). Block (bx, by): columns [128 bx, 128 bx + 128), k in
// [by * k_per_split, (by + 1) * k_per_split).
template <bool VEC, bool CLUSTER>
__global__ __launch_bounds__(kThreads, 2) void sgemm_skinny_ncontig_16x128(SkinnyArgs g) {
  extern __shared__ __align__(16) float smem[];  // two chunks of S: ss[l*20 + i] = S(i, l0 + l)
  float* red = smem;  // after the k loop: (8 warps) x (16) x (128), then the block's sums
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int j = blockIdx.x * kCols + lane * 4;
  const int kb = blockIdx.y * g.k_per_split;
  const int len = max(0, min(g.k - kb, g.k_per_split));  // k of this split
  const int nvalid = min(4, g.cols - j);  // columns of this lane inside X (<= 0: none)
  const float* xj = g.x + int64_t(nvalid > 0 ? j : 0) * g.x_j + int64_t(kb) * g.x_l;
  float acc[R][4];  // (16 rows) x (4 columns)
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;

  const int lw = warp * U;  // this warp's first row inside each step
  float4 xv[U];             // the current step's rows: in flight before S is asked for
#pragma unroll
  for (int u = 0; u < U; ++u) xv[u] = load_row<VEC>(g, xj, nvalid, lw + u, len);
  if (len > 0) load_s_chunk_async<kSkinnyChunk, kThreads>(g, smem, kb, min(kSkinnyChunk, len), kSRow, 1);
  const int steps = (len + kStepL - 1) / kStepL, steps_per_chunk = kSkinnyChunk / kStepL;
  const float* ss = smem;
#pragma unroll 1
  for (int st = 0; st < steps; ++st) {
    const int in_chunk = st % steps_per_chunk;
    if (in_chunk == 0) {  // uniform over the block: a new chunk of S
      const int c0 = st / steps_per_chunk;
      cp_async_wait<0>();
      __syncthreads();  // chunk c0 is in; every warp is done with chunk c0 - 1 (the other buffer)
      ss = smem + (c0 & 1) * kChunkFloats;
      const int next = (c0 + 1) * kSkinnyChunk;
      if (next < len)
        load_s_chunk_async<kSkinnyChunk, kThreads>(g, smem + ((c0 + 1) & 1) * kChunkFloats, kb + next, min(kSkinnyChunk, len - next), kSRow, 1);
    }
    float4 xn[U];  // the next step's rows
#pragma unroll
    for (int u = 0; u < U; ++u) xn[u] = load_row<VEC>(g, xj, nvalid, (st + 1) * kStepL + lw + u, len);
    // Rows past len have x = 0 and S = 0 (zero-filled up to the chunk): no branch needed.
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float4* sp = reinterpret_cast<const float4*>(ss + (in_chunk * kStepL + lw + u) * kSRow);
      const float4 s0 = sp[0], s1 = sp[1], s2 = sp[2], s3 = sp[3];
      const float sv[R] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w,
                           s2.x, s2.y, s2.z, s2.w, s3.x, s3.y, s3.z, s3.w};
#pragma unroll
      for (int i = 0; i < R; ++i) {
        acc[i][0] = fmaf(sv[i], xv[u].x, acc[i][0]);
        acc[i][1] = fmaf(sv[i], xv[u].y, acc[i][1]);
        acc[i][2] = fmaf(sv[i], xv[u].z, acc[i][2]);
        acc[i][3] = fmaf(sv[i], xv[u].w, acc[i][3]);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) xv[u] = xn[u];
  }
  // Add the 8 warps' sums in warp order (red overlays S: wait until every warp is done with it).
  __syncthreads();
#pragma unroll
  for (int i = 0; i < R; ++i)
    *reinterpret_cast<float4*>(red + (warp * R + i) * kCols + lane * 4) =
        make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
  __syncthreads();
  skinny_add_warp_sums<kWarps, kOut, kThreads>(red);
  skinny_store_block<kCols, CLUSTER>(g, red);
}

}  // namespace

SkinnyKernel& skinny_ncontig_kernel() {
  static SkinnyKernel k{{{sgemm_skinny_ncontig_16x128<false, false>, sgemm_skinny_ncontig_16x128<false, true>},
                         {sgemm_skinny_ncontig_16x128<true, false>, sgemm_skinny_ncontig_16x128<true, true>}},
                        kCols,
                        kThreads,
                        kSmem};
  return k;
}

}  // namespace sgemm_detail
}  // namespace myblas

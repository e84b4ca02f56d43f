// Specialised kernel for C' (<= 16 rows) = S * X where the large operand X is contiguous along k
// (m <= 16 with B not transposed, or n <= 16 with A transposed): a "GEMV with 16 right-hand
// sides" that is bound by reading X once (16 x 4096 x 4096: 64 MB, ~22 us at 3 TB/s).
//
// Layout: a lane group of 16 lanes walks 4 columns of X together, each lane one float4 of k per
// column per step (16 x 16 bytes: 256 contiguous bytes per column), multiplies them by the
// matching 4 x 16 slice of S from shared memory and keeps 16 x 4 partial sums. A warp is 2 such
// groups (8 columns) at the same k, so each shared-memory read of S(i, l .. l+3) serves both
// groups (16 distinct 16-byte words: two wavefronts) and feeds 16 FMAs per lane. A block is 4
// warps across 32 columns x 2 warps across k (alternate 64-k halves of each 128-k step). S is
// staged in chunks of 512 k with cp.async, two chunks in flight (the next arrives while the
// current is used). Each lane loads the next step's X before the FMAs on the current one.
// At the end the 16 lanes of a group add their sums by a reduce-scatter over shuffles (4 halving
// steps, each lane keeping 4 sums), the two k warps add theirs through shared memory, and the
// blocks of a cluster (the k splits of the column block, gridDim.y of them) add theirs in rank
// order through distributed shared memory: one launch, no scratch, deterministic.
//
// History (16 x 4096 x 4096 NN on the H100): 32 lanes along k of 4 columns, 128 columns per block
// sharing a chunk of S, split-k partials in scratch added by a second kernel: 55 us (1.14x
// cuBLAS). S read at 32 distinct addresses per instruction (4 wavefronts, shared memory as busy as
// the FMA pipe) and the pipeline drained at every 4-column group. 8-lane groups of 4 columns, one
// step in flight, clusters of 4 splits: 59 us; ncu: 256 blocks but only 62 clusters of 4 resident,
// so 2 clusters ran in a second wave and the SMs were active 59% of the time. With the grid kept to
// one wave (skinny_r16.cu skinny_splits) and double-buffered S: 56 us, 2.75 instructions per FMA
// (ncu): the S loader's index divisions by a run-time chunk cost as much as the FMAs. With a
// compile-time chunk, strided copies and independent consecutive FMAs: 37.6-39.4 us, 2.0
// instructions per FMA, DRAM 59% busy, long-scoreboard stalls (X in flight) the largest.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int R = kSkinnyRows;
constexpr int kThreads = 256;
// Measured on the H100 at 16 x 4096 x 4096 NN (bench/results/h100-sgemm-skinny-v4-2026-11-22.md):
// 16 lanes x 4 columns per group, one step of X in flight, 2 blocks per SM: 37.6-39.4 us;
// 8 lanes x 4 columns: 41.4-41.9 us; 8 lanes x 2 columns with two steps in flight and 3 blocks per
// SM (80 registers): 41.9-43.3 us.
constexpr int G = 16;                             // lanes per column group, along k
constexpr int JW = 4;                             // columns per group
constexpr int kColWarps = 4, kKWarps = 2;         // warps across columns x across k
constexpr int kCols = kColWarps * (32 / G) * JW;  // columns per block
constexpr int kStepL = kKWarps * G * 4;           // k per step of the block
constexpr int kOut = R * kCols;                   // outputs per block
constexpr int kLd = kSkinnyChunk + 4;             // padded row of a chunk of S (loader stores spread over banks)
constexpr int kAcc = R * JW;                      // sums per lane
constexpr int kKeep = kAcc / G;                   // sums per lane after the reduce-scatter
constexpr size_t kSmem = (2 * size_t(R) * kLd + size_t(kKWarps) * kOut) * sizeof(float);
static_assert(kSkinnyChunk % kStepL == 0, "whole steps per chunk");
static_assert(kAcc % G == 0, "the reduce-scatter leaves whole sums per lane");

template <int O, int HALF>
__device__ __forceinline__ void reduce_scatter_step(float (&acc)[kAcc], int lane) {
  const bool upper = lane & O;
#pragma unroll
  for (int x = 0; x < HALF; ++x) {
    const float keep = upper ? acc[x + HALF] : acc[x];
    const float send = upper ? acc[x] : acc[x + HALF];
    acc[x] = keep + __shfl_xor_sync(0xffffffffu, send, O);
  }
}

// The reduce-scatter over the G lanes of a group: offsets G/2, G/4, ..., 1, each halving the sums
// a lane keeps.
template <int O, int HALF>
__device__ __forceinline__ void reduce_scatter(float (&acc)[kAcc], int lane) {
  reduce_scatter_step<O, HALF>(acc, lane);
  if constexpr (O > 1) reduce_scatter<O / 2, HALF / 2>(acc, lane);
}

// X(l .. l + 3, column c) (l relative to the split's start) for the group's JW columns; zero
// past the split's end or past the columns.
template <bool VEC>
__device__ __forceinline__ void load_x(float4 (&dst)[JW], const float* const (&xc)[JW], const bool (&live)[JW],
                                       int l, int len) {
#pragma unroll
  for (int c = 0; c < JW; ++c) {
    const float* src = xc[c] + l;
    if (!live[c] || l >= len) dst[c] = make_float4(0.f, 0.f, 0.f, 0.f);
    else if (VEC && l + 3 < len) dst[c] = __ldcs(reinterpret_cast<const float4*>(src));
    else {
      dst[c].x = src[0];
      dst[c].y = l + 1 < len ? src[1] : 0.f;
      dst[c].z = l + 2 < len ? src[2] : 0.f;
      dst[c].w = l + 3 < len ? src[3] : 0.f;
    }
  }
}

// @tparam VEC     float4 loads of X (every column starts 16-byte aligned)
// @tparam CLUSTER launched as clusters of gridDim.y blocks that add their sums in rank order
// Grid: (ceil(cols / 32), splits). Block (bx, by): columns [32 bx, 32 bx + 32), k in
// [by * k_per_split, (by + 1) * k_per_split).
template <bool VEC, bool CLUSTER>
__global__ __launch_bounds__(kThreads, 2) void sgemm_skinny_kcontig_16x32(SkinnyArgs g) {
  extern __shared__ __align__(16) float smem[];
  float* red = smem + 2 * R * kLd;  // (kKWarps) x (16) x (32): the k warps' sums, then the block's
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int cw = warp % kColWarps, kw = warp / kColWarps;
  const int jl0 = (cw * (32 / G) + lane / G) * JW;  // the group's first column in the block
  const int j0 = blockIdx.x * kCols + jl0;
  const int lane_l = kw * G * 4 + (lane % G) * 4;   // this lane's k inside each step
  const int kb = blockIdx.y * g.k_per_split;
  const int len = max(0, min(g.k - kb, g.k_per_split));  // k of this split
  const float* xc[JW];  // column starts at k = kb (column 0 for columns past the edge, never read)
  bool live[JW];
#pragma unroll
  for (int c = 0; c < JW; ++c) {
    live[c] = j0 + c < g.cols;
    xc[c] = g.x + int64_t(live[c] ? j0 + c : 0) * g.x_j + kb;
  }
  float acc[kAcc];  // (16 rows) x (JW columns): acc[i*JW + c]
#pragma unroll
  for (int e = 0; e < kAcc; ++e) acc[e] = 0.f;

  // X of the first step in flight before the first chunk of S is asked for.
  float4 x0[JW], x1[JW];
  load_x<VEC>(x0, xc, live, lane_l, len);
  if (len > 0) load_s_chunk_async<kSkinnyChunk, kThreads>(g, smem, kb, min(kSkinnyChunk, len), 1, kLd);
  const int steps = (len + kStepL - 1) / kStepL, steps_per_chunk = kSkinnyChunk / kStepL;
  const float* ss = smem;
#pragma unroll 1
  for (int st = 0; st < steps; ++st) {
    const int l = st * kStepL + lane_l;
    const int in_chunk = st % steps_per_chunk;
    if (in_chunk == 0) {  // uniform over the block: a new chunk of S
      const int c0 = st / steps_per_chunk;
      cp_async_wait<0>();
      __syncthreads();  // chunk c0 is in; every warp is done with chunk c0 - 1 (the other buffer)
      ss = smem + (c0 & 1) * R * kLd;
      const int next = (c0 + 1) * kSkinnyChunk;
      if (next < len)
        load_s_chunk_async<kSkinnyChunk, kThreads>(g, smem + ((c0 + 1) & 1) * R * kLd, kb + next, min(kSkinnyChunk, len - next), 1, kLd);
    }
    load_x<VEC>(x1, xc, live, l + kStepL, len);  // the next step's X
    const int lc = in_chunk * kStepL + lane_l;  // k inside the chunk
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const float4 sv = *reinterpret_cast<const float4*>(ss + i * kLd + lc);  // S(i, l .. l+3)
      // k component outer, columns inner: consecutive FMAs are independent.
#pragma unroll
      for (int c = 0; c < JW; ++c) acc[i * JW + c] = fmaf(sv.x, x0[c].x, acc[i * JW + c]);
#pragma unroll
      for (int c = 0; c < JW; ++c) acc[i * JW + c] = fmaf(sv.y, x0[c].y, acc[i * JW + c]);
#pragma unroll
      for (int c = 0; c < JW; ++c) acc[i * JW + c] = fmaf(sv.z, x0[c].z, acc[i * JW + c]);
#pragma unroll
      for (int c = 0; c < JW; ++c) acc[i * JW + c] = fmaf(sv.w, x0[c].w, acc[i * JW + c]);
    }
#pragma unroll
    for (int c = 0; c < JW; ++c) x0[c] = x1[c];
  }
  // Reduce-scatter over the group's G lanes: after the step with offset o, a lane keeps the half
  // of its sums selected by bit o of its lane id, added to the partner's copy of the same half.
  int base = 0;  // the lane ends with the sums of indices base .. base + kKeep - 1
  reduce_scatter<G / 2, kAcc / 2>(acc, lane);
  for (int o = G / 2, half = kAcc / 2; o >= 1; o /= 2, half /= 2)
    if (lane & o) base += half;
#pragma unroll
  for (int t = 0; t < kKeep; ++t) {
    const int idx = base + t, i = idx / JW, c = idx % JW;
    red[(kw * R + i) * kCols + jl0 + c] = acc[t];
  }
  __syncthreads();
  for (int q = threadIdx.x; q < kOut; q += kThreads) {  // add the k warps in order
    float v = red[q];
#pragma unroll
    for (int w = 1; w < kKWarps; ++w) v += red[w * kOut + q];
    red[q] = v;
  }
  skinny_store_block<kCols, CLUSTER>(g, red);
}

}  // namespace

SkinnyKernel& skinny_kcontig_kernel() {
  static SkinnyKernel k{{{sgemm_skinny_kcontig_16x32<false, false>, sgemm_skinny_kcontig_16x32<false, true>},
                         {sgemm_skinny_kcontig_16x32<true, false>, sgemm_skinny_kcontig_16x32<true, true>}},
                        kCols,
                        kThreads,
                        kSmem};
  return k;
}

}  // namespace sgemm_detail
}  // namespace myblas

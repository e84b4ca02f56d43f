// Specialised kernel for C' (<= 16 rows) = S * X where the large operand X is contiguous along k
// (m <= 16 with B not transposed, or n <= 16 with A transposed): a "GEMV with 16 right-hand
// sides" that is bound by reading X once (16 x 4096 x 4096: 64 MB, ~22 us at 3 TB/s).
//
// Layout: a lane group of 16 lanes walks 4 columns of X together, each lane one float4 of k per
// column per step (16 x 16 bytes: 256 contiguous bytes per column), multiplies them by the
// matching 4 x 16 slice of S from shared memory and keeps 16 x 4 partial sums. A warp is 2 such
// groups (8 columns) at the same k, so each shared-memory read of S(i, l .. l+3) serves both
// groups (16 distinct 16-byte words: two wavefronts) and feeds 16 FMAs per lane. A block is 4
// warps across 32 columns x 2 warps across k (alternate 64-k halves of each 128-k step). Each step
// (S's 16 x 128 slice and every lane's X) is one cp.async group into a ring of kStages steps in
// shared memory: X goes to a slot that only its own lane reads back, so no registers hold data in
// flight; S to one the block shares (one barrier per step). Whole steps take copies without
// predicates from pointers set up once; the split's last step and S with fewer than 16 rows take
// the checked loaders.
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
// Then (this layout; bench/results/h100-sgemm-skinny-v5-2026-11-22.md): X through the shared ring
// instead of registers: NN 36.9-38.7 us, no faster, but A^T as S (TN) 44 -> 39 us; with the
// predicate-free copies of whole steps (ncu: 18.0M -> 14.7M instructions, 1.75 per FMA) and 2
// stages: NN 34.7-35.0 us, TN 34.6-36.0 us. 4 stages (3 steps in flight): 35.6-36.0; 8 stages
// (one block per SM): 44-46; two float4 of k per lane per step: spills, 38-39; asking for the next
// S(i, ...) before the FMAs on this one: 36.0-37.0. ncu at 2 stages: 33.4 us in the kernel, DRAM
// 63% busy, 4 warps per scheduler each issuing every 7.5 cycles; the loop itself is 256 FFMA + 20
// LDS + 27 others per step. What is left is latency at 16 warps per SM (the 64 sums per lane
// cap the registers) plus the prologue and the cluster reduction (a fifth of the stall samples).
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
constexpr int kStages = 2;                       // steps in the ring (kStages - 1 in flight; 4 and 8: no faster)
constexpr int kLdS = kStepL + 4;                 // padded row of a step of S (loader stores spread over banks)
constexpr int kSStage = R * kLdS;                // floats of S per step
constexpr int kXStage = JW * kThreads * 4;       // floats of X per step: each lane's JW float4
constexpr int kAcc = R * JW;                     // sums per lane
constexpr int kKeep = kAcc / G;                  // sums per lane after the reduce-scatter
constexpr size_t kSmem = size_t(kStages) * (kSStage + kXStage) * sizeof(float);
static_assert((kStages & (kStages - 1)) == 0 && kStages >= 2, "a power-of-two ring");
static_assert(size_t(kKWarps) * kOut * sizeof(float) <= kSmem, "the k warps' sums fit in the ring");
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

// Starts the copy of X(l .. l + 3, column) (l relative to the split's start) into dst, zero past
// the split's end or for a column past the edge (nothing is read there).
template <bool VEC>
__device__ __forceinline__ void load_x_async(float* dst, const float* xc, bool live, int l, int len) {
  const int valid = live ? min(max(len - l, 0), 4) : 0;
  if (VEC) {
    cp_async16(dst, valid > 0 ? xc + l : xc, valid);
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q) cp_async4(dst + q, q < valid ? xc + l + q : xc, q < valid);
  }
}

// @tparam VEC     16-byte copies of X (every column starts 16-byte aligned)
// @tparam CLUSTER launched as clusters of gridDim.y blocks that add their sums in rank order
// Grid: (ceil(cols / 32), splits). Block (bx, by): columns [32 bx, 32 bx + 32), k in
// [by * k_per_split, (by + 1) * k_per_split).
template <bool VEC, bool CLUSTER>
__global__ __launch_bounds__(kThreads, 2) void sgemm_skinny_kcontig_16x32(SkinnyArgs g) {
  extern __shared__ __align__(16) float smem[];
  float* const s_ring = smem;                       // kStages x (16 rows x kLdS): S of a step
  float* const x_ring = smem + kStages * kSStage;   // kStages x (JW x 256 float4): each lane's X
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

  // One cp.async group per step: the block's S of the step and this lane's X. X goes through a
  // ring that only its own lane reads, S through one the block shares (hence one barrier a step).
  const int steps = (len + kStepL - 1) / kStepL;
  // A whole step (every row of S, all kStepL k inside the split) takes a copy path without
  // predicates: thread t copies elements t + 256 c (c < 8) of the step's 16 x 128 S, walked along
  // S's unit-stride index, and its JW float4 of X, from pointers set up here. Other steps (the
  // split's last, or fewer than 16 rows) take the checked loaders.
  constexpr int kSCopies = R * kStepL / kThreads;
  const bool s_lfast = g.s_l == 1 && g.s_i != 1;
  const int t = threadIdx.x;
  const int si0 = s_lfast ? t / kStepL : t % R, sl0 = s_lfast ? t % kStepL : t / R;
  const int s_di = s_lfast ? kThreads / kStepL : 0, s_dl = s_lfast ? 0 : kThreads / R;
  const float* const s_src = g.s + si0 * g.s_i + int64_t(kb + sl0) * g.s_l;
  const int64_t s_cstep = s_di * g.s_i + s_dl * g.s_l;
  const int s_dst0 = si0 * kLdS + sl0, s_dstep = s_di * kLdS + s_dl;
  const int whole_steps = len / kStepL;  // steps with all kStepL k inside the split
  auto issue = [&](int st) {
    if (st < steps) {
      const int slot = st % kStages;
      float* const sd = s_ring + slot * kSStage;
      float* const xd = x_ring + (slot * JW * kThreads + threadIdx.x) * 4;
      const bool whole = st < whole_steps;
      if (whole && g.rows == R) {
        const float* src = s_src + int64_t(st) * kStepL * g.s_l;
#pragma unroll
        for (int c = 0; c < kSCopies; ++c) cp_async4(sd + s_dst0 + c * s_dstep, src + c * s_cstep, true);
      } else {
        load_s_chunk_async<kStepL, kThreads, false, kStepL>(g, sd, kb + st * kStepL, min(kStepL, len - st * kStepL), 1,
                                                            kLdS);
      }
      const int l = st * kStepL + lane_l;
#pragma unroll
      for (int c = 0; c < JW; ++c) {
        if (VEC && whole) cp_async16(xd + c * kThreads * 4, xc[c] + l, live[c] ? 4 : 0);
        else load_x_async<VEC>(xd + c * kThreads * 4, xc[c], live[c], l, len);
      }
    }
    cp_async_commit();
  };
#pragma unroll
  for (int st = 0; st < kStages - 1; ++st) issue(st);
#pragma unroll 1
  for (int st = 0; st < steps; ++st) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // step st is in for every lane; every lane is done with step st - 1's slot
    issue(st + kStages - 1);
    const int slot = st % kStages;
    const float* ss = s_ring + slot * kSStage + lane_l;
    const float4* xs = reinterpret_cast<const float4*>(x_ring) + slot * JW * kThreads + threadIdx.x;
    float4 x0[JW];
#pragma unroll
    for (int c = 0; c < JW; ++c) x0[c] = xs[c * kThreads];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const float4 sv = *reinterpret_cast<const float4*>(ss + i * kLdS);  // S(i, l .. l+3)
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
  }
  cp_async_wait<0>();  // only empty groups are left
  __syncthreads();     // every lane is done with the rings: the sums take their place
  float* red = smem;   // (kKWarps) x (16) x (32): the k warps' sums, then the block's
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
  skinny_add_warp_sums<kKWarps, kOut, kThreads>(red);  // add the k warps in order
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
